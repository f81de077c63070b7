//! What the attack tests share (`tests/it/server_attacks.rs`): a prober that gets `/health` on its own connection
//! every few milliseconds from 127.0.0.1 and records each answer's latency, a watch on the server's resident
//! memory and threads (`/proc/PID/status`), attacker sockets from another loopback address (127.0.0.2, so that
//! a per-IP cap tells the attacker from the prober, as it tells two hosts apart), and `/metrics` samples.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The address attackers connect from.
pub(crate) const ATTACKER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

/// The bound the issue sets on `/health` under attack.
pub(crate) const HEALTH_P99: Duration = Duration::from_millis(100);

/// What the prober saw.
#[derive(Debug, Default)]
pub(crate) struct Probes {
    /// Latency of each answered probe (status 200).
    pub latencies: Vec<Duration>,
    /// Probes that failed (no answer in 2 s, a status other than 200), with what happened.
    pub errors: Vec<String>,
    /// How long the prober ran.
    pub elapsed: Duration,
}

impl Probes {
    /// The 99th percentile latency (nearest rank).
    pub(crate) fn p99(&self) -> Duration {
        self.quantile(0.99)
    }

    /// The `q` quantile of the latencies (nearest rank).
    pub(crate) fn quantile(&self, q: f64) -> Duration {
        let mut l = self.latencies.clone();
        l.sort();
        l.get(((l.len() as f64 * q).ceil() as usize).saturating_sub(1)).copied().unwrap_or_default()
    }

    /// The probes in a line: count, time, p50, p99, slowest.
    pub(crate) fn summary(&self) -> String {
        format!(
            "{} probes in {:.1?} (p50 {:.1?}, p99 {:.1?}, max {:.1?})",
            self.latencies.len(),
            self.elapsed,
            self.quantile(0.5),
            self.p99(),
            self.latencies.iter().max().copied().unwrap_or_default()
        )
    }

    /// Asserts no error, at least `min` probes, p99 within [`HEALTH_P99`]; returns the p99.
    pub(crate) fn assert_healthy(&self, what: &str, min: usize) -> Duration {
        assert!(self.errors.is_empty(), "{what}: /health failed {} times: {:?}", self.errors.len(), self.errors);
        assert!(self.latencies.len() >= min, "{what}: fewer than {min} probes: {}", self.summary());
        let p99 = self.p99();
        assert!(p99 <= HEALTH_P99, "{what}: /health p99 {p99:?} over {HEALTH_P99:?} ({} probes)", self.latencies.len());
        p99
    }
}

/// `GET /health` every `every` on a new connection from 127.0.0.1 until finished.
pub(crate) struct Prober {
    stop: Arc<AtomicBool>,
    handle: JoinHandle<Probes>,
}

impl Prober {
    pub(crate) fn start(addr: SocketAddr, every: Duration) -> Prober {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let mut probes = Probes::default();
            let begun = Instant::now();
            while !flag.load(Ordering::Relaxed) {
                let started = Instant::now();
                match probe(addr) {
                    Ok(200) => probes.latencies.push(started.elapsed()),
                    Ok(status) => probes.errors.push(format!("status {status} after {:?}", started.elapsed())),
                    Err(e) => probes.errors.push(format!("{e} after {:?}", started.elapsed())),
                }
                std::thread::sleep(every);
            }
            probes.elapsed = begun.elapsed();
            probes
        });
        Prober { stop, handle }
    }

    pub(crate) fn finish(self) -> Probes {
        self.stop.store(true, Ordering::Relaxed);
        self.handle.join().expect("the prober thread")
    }
}

/// One `GET /health` on its own connection; its status.
fn probe(addr: SocketAddr) -> Result<u16, String> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| format!("connect: {e}"))?;
    s.set_read_timeout(Some(Duration::from_secs(2))).map_err(|e| e.to_string())?;
    s.write_all(b"GET /health HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n")
        .map_err(|e| format!("write: {e}"))?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).map_err(|e| format!("read: {e}"))?;
    let text = String::from_utf8_lossy(&raw);
    text.split(' ').nth(1).and_then(|c| c.parse().ok()).ok_or_else(|| format!("no status in {text:?}"))
}

/// A field of `/proc/PID/status` (`VmRSS`, `Threads`), as its number (kB for memory).
pub(crate) fn proc_status(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix(field).and_then(|r| r.strip_prefix(':')))?;
    line.split_whitespace().next()?.parse().ok()
}

/// The server's peak resident memory (MB) and thread count, sampled every 20 ms until finished.
pub(crate) struct Watch {
    stop: Arc<AtomicBool>,
    peak_kib: Arc<AtomicU64>,
    peak_threads: Arc<AtomicU64>,
    handle: JoinHandle<()>,
}

impl Watch {
    pub(crate) fn start(pid: u32) -> Watch {
        let stop = Arc::new(AtomicBool::new(false));
        let (peak_kib, peak_threads) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let (flag, kib, threads) = (stop.clone(), peak_kib.clone(), peak_threads.clone());
        let handle = std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                if let Some(k) = proc_status(pid, "VmRSS") {
                    kib.fetch_max(k, Ordering::Relaxed);
                }
                if let Some(t) = proc_status(pid, "Threads") {
                    threads.fetch_max(t, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        Watch { stop, peak_kib, peak_threads, handle }
    }

    /// (peak RSS in MB, peak threads).
    pub(crate) fn finish(self) -> (u64, u64) {
        self.stop.store(true, Ordering::Relaxed);
        let _ = self.handle.join();
        (self.peak_kib.load(Ordering::Relaxed) / 1024, self.peak_threads.load(Ordering::Relaxed))
    }
}

/// A connection to `to` from [`ATTACKER`], with a receive buffer of `recv_buf` bytes when given (set before
/// connecting, so the window the kernel advertises is that small).
pub(crate) fn attacker_socket(to: SocketAddr, recv_buf: Option<usize>) -> std::io::Result<TcpStream> {
    use socket2::{Domain, Socket, Type};
    let s = Socket::new(Domain::IPV4, Type::STREAM, None)?;
    if let Some(n) = recv_buf {
        s.set_recv_buffer_size(n)?;
    }
    s.bind(&SocketAddr::new(ATTACKER, 0).into())?;
    s.connect_timeout(&to.into(), Duration::from_secs(2))?;
    Ok(s.into())
}

/// The value of a sample line `name{labels} value` of a `/metrics` text, 0 if absent.
pub(crate) fn sample(metrics: &str, series: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series).and_then(|rest| rest.strip_prefix(' ')))
        .map_or(0.0, |v| v.trim().parse().expect("a sample value"))
}

/// The lines of the server's log that contain `part`.
pub(crate) fn log_lines(log: &str, part: &str) -> usize {
    log.lines().filter(|l| l.contains(part)).count()
}

/// One answer read from a keep-alive connection: status, head (lower-cased), body length.
pub(crate) struct Answer {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

/// Reads one answer (head, then `Content-Length` bytes of body) from `s`.
pub(crate) fn read_one(s: &mut TcpStream) -> std::io::Result<Answer> {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if s.read(&mut byte)? == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "closed before an answer"));
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let status = head.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let length: usize =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    let mut body = vec![0u8; length];
    s.read_exact(&mut body)?;
    Ok(Answer { status, head, body })
}
