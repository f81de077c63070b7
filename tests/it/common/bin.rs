//! The built `tonroute` binary, run the way a user runs it: commands with their flags and stdin, and
//! `tonroute serve` as a child process on a loopback port ([`spawn_serve`] → [`ServerGuard`], killed on drop;
//! [`start_serve_env`] → [`Starting`] to start several at the same moment).
//!
//! The server is started with `--addr 127.0.0.1:0`: the kernel picks a free port and the binary announces it on
//! stderr (`… on http://127.0.0.1:PORT`), so there is no window in which another process can take a port
//! picked in advance. Readiness is then a bounded poll of `/health`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An admin token entry for servers started with `TONROUTE_ADMIN_TOKEN` (`name:token`); [`http`] sends its
/// token on every request (harmless where admin is off or the route is not admin).
pub(crate) const ADMIN_ENTRY: &str = "tests:bin-admin-token-0123456789";
/// The token part of [`ADMIN_ENTRY`].
pub(crate) const ADMIN_TOKEN: &str = "bin-admin-token-0123456789";

/// The binary under test.
pub(crate) const TONROUTE: &str = env!("CARGO_BIN_EXE_tonroute");

/// The source tree (where `data/` is), the directory a user runs the README's commands from.
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `peers` example as `cargo test` builds it, next to the binary under test.
pub(crate) fn peers_example() -> PathBuf {
    let bin = Path::new(TONROUTE);
    let exe = bin.parent().expect("target dir").join("examples").join(format!("peers{}", std::env::consts::EXE_SUFFIX));
    assert!(
        exe.exists(),
        "{} is missing: `cargo test` builds the examples (or `cargo build --example peers`)",
        exe.display()
    );
    exe
}

/// Runs the `peers` example on the directory `input` with its results written to `out` as
/// `results.<name>.json`, and asserts that it succeeded.
pub(crate) fn run_peers(input: &Path, out: &Path, name: &str) {
    let run = Command::new(peers_example())
        .arg(input)
        .args(["--out", out.to_str().unwrap(), "--name", name])
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
}

/// Runs `tonroute ARGS` in `dir` with `stdin` (empty when `None`) and returns its output.
pub(crate) fn run_tonroute(dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    run_tonroute_env(dir, args, stdin, &[])
}

/// [`run_tonroute`] with extra environment variables.
pub(crate) fn run_tonroute_env(dir: &Path, args: &[&str], stdin: Option<&str>, env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(TONROUTE)
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {TONROUTE}: {e}"));
    if let Some(mut pipe) = child.stdin.take() {
        if let Some(text) = stdin {
            pipe.write_all(text.as_bytes()).expect("writing stdin");
        }
    }
    child.wait_with_output().expect("waiting for tonroute")
}

/// A child's stderr as a reader thread collects it, line by line, in the order written.
#[derive(Clone, Default)]
struct Log {
    lines: Arc<Mutex<Vec<String>>>,
    /// Set by the reader once the pipe is closed and every line is in `lines`.
    ended: Arc<AtomicBool>,
}

impl Log {
    fn text(&self) -> String {
        self.lines.lock().map(|l| l.join("\n")).unwrap_or_default()
    }

    fn push(&self, line: String) {
        if let Ok(mut l) = self.lines.lock() {
            l.push(line);
        }
    }

    /// After the process has exited: waits (at most `limit`) until the reader has reached the end of the pipe,
    /// so that the log holds the last lines (an exit can be seen before the reader has read them).
    fn wait_ended(&self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while !self.ended.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// How long a test waits for a line the server is about to write: the reader thread that collects it may wait
/// its turn for a while on a loaded machine (a bound for failing, not a wait a passing test sits out).
const LOG_WAIT: Duration = Duration::from_secs(30);

/// A `tonroute serve` child process; dropping it kills the process.
pub(crate) struct ServerGuard {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    stderr: Log,
}

impl ServerGuard {
    /// What the server wrote on stderr so far, as far as the reader has collected it: every line up to its
    /// `… on http://ADDR` announcement is in from the moment the guard exists; later lines may lag, so a test
    /// that expects one waits for it ([`Self::wait_line`], [`Self::log_so_far`]).
    pub(crate) fn stderr(&self) -> String {
        self.stderr.text()
    }

    /// The server's whole log up to now: sends it a request tagged with a fresh `x-request-id` and waits
    /// (bounded) for that request's log line. The server writes its log in order and the reader keeps that
    /// order, so every line written before the request was answered (e.g. the audit lines of an admin call
    /// answered earlier) is in what this returns; a snapshot after a fixed sleep gave no such promise. Needs
    /// the request lines on (`RUST_LOG=info`, `tonroute::request` not off).
    pub(crate) fn log_so_far(&self) -> String {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let id = format!("log-barrier-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
        let request = format!("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\nx-request-id: {id}\r\n\r\n");
        http_raw(self.addr, request.as_bytes(), Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("GET /health: {e}\nserver log:\n{}", self.stderr()));
        self.wait_line(|l| l.contains(&id))
            .unwrap_or_else(|| panic!("no log line for request {id} within {LOG_WAIT:?}:\n{}", self.stderr()));
        self.stderr()
    }

    /// `GET path` → (status, body).
    pub(crate) fn get(&self, path: &str) -> (u16, String) {
        http(self.addr, "GET", path, None).unwrap_or_else(|e| panic!("GET {path}: {e}\nserver log:\n{}", self.stderr()))
    }

    /// `POST path` with a JSON body → (status, body).
    pub(crate) fn post(&self, path: &str, body: &str) -> (u16, String) {
        http(self.addr, "POST", path, Some(body))
            .unwrap_or_else(|e| panic!("POST {path}: {e}\nserver log:\n{}", self.stderr()))
    }
}

impl ServerGuard {
    /// Polls the server's stderr for up to [`LOG_WAIT`] for a line matching `want`.
    pub(crate) fn wait_line(&self, want: impl Fn(&str) -> bool) -> Option<String> {
        let deadline = Instant::now() + LOG_WAIT;
        loop {
            if let Some(line) = self.stderr().lines().find(|l| want(l)) {
                return Some(line.to_string());
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The process id (for sending it signals).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits up to `timeout` for the process to exit; its status, or `None` if it still runs. Once it has
    /// exited, also waits (bounded) for the stderr reader to reach the end of the pipe, so that
    /// [`Self::stderr`] holds the last lines (the exit can be seen before the reader has read them).
    pub(crate) fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.stderr.wait_ended(LOG_WAIT);
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ServerGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `tonroute serve ARGS --addr 127.0.0.1:0` from the source tree (so relative paths such as
/// `data/market.json` resolve as in the README) and waits until `/health` answers 200. Panics with the
/// server's stderr when it exits or does not come up within two minutes (a debug build replaying the market
/// sample on a busy machine takes a few seconds).
pub(crate) fn spawn_serve(args: &[&str]) -> ServerGuard {
    spawn_serve_in(&repo(), args)
}

/// [`spawn_serve`] from another working directory. An `--addr` in `args` is replaced by `127.0.0.1:0`.
pub(crate) fn spawn_serve_in(dir: &Path, args: &[&str]) -> ServerGuard {
    spawn_serve_env(dir, args, &[])
}

/// [`spawn_serve_in`] with extra environment variables (e.g. `RUST_LOG`).
pub(crate) fn spawn_serve_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> ServerGuard {
    start_serve_env(dir, args, env).ready()
}

/// A `tonroute serve` child process started but not yet waited for ([`Starting::ready`]), so that a test can
/// start several at the same moment; dropping it kills the process.
pub(crate) struct Starting {
    /// `None` once [`Starting::ready`] handed it to a [`ServerGuard`].
    child: Option<Child>,
    argv: Vec<String>,
    addr: mpsc::Receiver<SocketAddr>,
    stderr: Log,
}

impl Starting {
    /// The process id (for sending it signals).
    pub(crate) fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, Child::id)
    }

    /// What the process wrote on stderr so far.
    pub(crate) fn stderr(&self) -> String {
        self.stderr.text()
    }

    /// Whether the process has exited (e.g. after a signal); reaps it.
    pub(crate) fn exited(&mut self) -> bool {
        self.child.as_mut().is_none_or(|c| matches!(c.try_wait(), Ok(Some(_))))
    }

    /// Waits until the server announces its address and `/health` answers 200. Panics with the server's stderr
    /// when it exits or does not come up within two minutes (a debug build replaying the market sample on a busy
    /// machine takes a few seconds).
    pub(crate) fn ready(self) -> ServerGuard {
        self.ready_or_exit().unwrap_or_else(|why| panic!("{why}"))
    }

    /// [`Starting::ready`], but a process that exits at startup (e.g. refusing its flags) is `Err` with its
    /// stderr instead of a panic.
    pub(crate) fn ready_or_exit(mut self) -> Result<ServerGuard, String> {
        let mut child = self.child.take().expect("a started process");
        let (argv, rx, log) = (&self.argv, &self.addr, self.stderr.clone());
        let deadline = Instant::now() + Duration::from_secs(120);
        let addr = loop {
            if let Ok(addr) = rx.recv_timeout(Duration::from_millis(100)) {
                break addr;
            }
            let log_text = || log.text();
            if let Ok(Some(status)) = child.try_wait() {
                // The reader may not have collected the last lines yet (the reason it exited).
                log.wait_ended(LOG_WAIT);
                return Err(format!("`tonroute {}` exited with {status} at startup:\n{}", argv.join(" "), log_text()));
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("`tonroute {}` did not announce its address within 120 s:\n{}", argv.join(" "), log_text());
            }
        };
        let guard = ServerGuard { child, addr, base: format!("http://{addr}"), stderr: log };
        for _ in 0..100 {
            if matches!(http(addr, "GET", "/health", None), Ok((200, _))) {
                return Ok(guard);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("/health never answered 200:\n{}", guard.stderr());
    }
}

impl Drop for Starting {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Starts `tonroute serve ARGS --addr 127.0.0.1:0` in `dir` with extra environment variables and returns at
/// once ([`Starting::ready`] waits for it). An `--addr` in `args` is replaced by `127.0.0.1:0`.
pub(crate) fn start_serve_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Starting {
    start_serve_wrapped(&[], dir, args, env)
}

/// [`start_serve_env`] through `wrapper`: the binary's path and arguments follow the wrapper's own (e.g.
/// `["sh", "-c", "ulimit -n 256 && exec \"$0\" \"$@\""]`, whose `exec` keeps the process id).
pub(crate) fn start_serve_wrapped(wrapper: &[&str], dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Starting {
    let mut argv: Vec<String> = vec!["serve".into()];
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--addr" {
            i += 2;
            continue;
        }
        argv.push(args[i].to_string());
        i += 1;
    }
    argv.extend(["--addr".to_string(), "127.0.0.1:0".to_string()]);
    let mut command = match wrapper.split_first() {
        Some((program, rest)) => {
            let mut c = Command::new(program);
            c.args(rest).arg(TONROUTE);
            c
        }
        None => Command::new(TONROUTE),
    };
    let mut child = command
        .args(&argv)
        .current_dir(dir)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {TONROUTE}: {e}"));
    let log = Log::default();
    let (tx, rx) = mpsc::channel::<SocketAddr>();
    let pipe = child.stderr.take().expect("stderr is piped");
    let sink = log.clone();
    std::thread::spawn(move || {
        // Read as bytes and decoded lossily: `lines()` stops at the first line that is not UTF-8, and the child
        // would then block on a full pipe with the test waiting for a line that never comes.
        let mut reader = BufReader::new(pipe);
        let mut raw = Vec::new();
        while reader.read_until(b'\n', &mut raw).is_ok_and(|n| n > 0) {
            let text = raw.strip_suffix(b"\n").unwrap_or(&raw);
            let line = String::from_utf8_lossy(text.strip_suffix(b"\r").unwrap_or(text)).into_owned();
            raw.clear();
            let addr: Option<SocketAddr> = line.split("on http://").nth(1).and_then(|a| a.trim().parse().ok());
            // The line goes into the log before its address is handed on: whoever gets the address (the server
            // is up) then finds this line and every earlier one in the log. Sent first, the reader could be
            // preempted between the two on a loaded machine, and a test saw the server answer `/health` while
            // the log still lacked the announcement (`serve --nats`: "live before listening" failed).
            sink.push(line);
            if let Some(addr) = addr {
                let _ = tx.send(addr);
            }
        }
        sink.ended.store(true, Ordering::Release);
    });
    Starting { child: Some(child), argv, addr: rx, stderr: log }
}

/// A minimal HTTP/1.1 client (one request per connection): enough for tests, no dependency on an async runtime.
pub(crate) fn http(addr: SocketAddr, method: &str, path: &str, body: Option<&str>) -> Result<(u16, String), String> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(Duration::from_secs(60))).map_err(|e| e.to_string())?;
    let body = body.unwrap_or("");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Authorization: Bearer {}\r\nContent-Length: {}\r\n\r\n{body}",
        ADMIN_TOKEN,
        body.len()
    );
    stream.write_all(request.as_bytes()).map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).map_err(|e| e.to_string())?;
    let text = String::from_utf8(raw).map_err(|e| e.to_string())?;
    let (head, rest) = text.split_once("\r\n\r\n").ok_or("no header end")?;
    let status: u16 = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or("no status")?;
    let chunked = head.lines().any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    Ok((status, if chunked { dechunk(rest)? } else { rest.to_string() }))
}

fn dechunk(mut rest: &str) -> Result<String, String> {
    let mut out = String::new();
    loop {
        let (size, tail) = rest.split_once("\r\n").ok_or("bad chunk")?;
        let n = usize::from_str_radix(size.trim(), 16).map_err(|e| e.to_string())?;
        if n == 0 {
            return Ok(out);
        }
        out.push_str(tail.get(..n).ok_or("short chunk")?);
        rest = tail.get(n + 2..).ok_or("short chunk")?;
    }
}

/// Writes `request` (raw bytes: head and body as the test wants them) on a new connection and reads the answer
/// until the server closes or `timeout` passes → (status, head, body). For tests of what clients send badly.
pub(crate) fn http_raw(addr: SocketAddr, request: &[u8], timeout: Duration) -> Result<(u16, String, String), String> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).map_err(|e| e.to_string())?;
    stream.set_read_timeout(Some(timeout)).map_err(|e| e.to_string())?;
    stream.write_all(request).map_err(|e| e.to_string())?;
    read_answer(&mut stream)
}

/// Reads one answer from `stream` until the server closes it → (status, head, body).
pub(crate) fn read_answer(stream: &mut TcpStream) -> Result<(u16, String, String), String> {
    let mut raw = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
            Err(e) if raw.is_empty() => return Err(e.to_string()),
            Err(_) => break,
        }
    }
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, rest) = text.split_once("\r\n\r\n").ok_or_else(|| format!("no header end in {text:?}"))?;
    let status: u16 = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or("no status")?;
    Ok((status, head.to_string(), rest.to_string()))
}
