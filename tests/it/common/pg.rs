//! A real PostgreSQL server for the store tests: `initdb` + `pg_ctl` from Debian's `postgresql` package
//! (`/usr/lib/postgresql/<version>/bin`) in a temp directory, on a free 127.0.0.1 port, trust authentication,
//! one per test binary. `initdb` refuses to run as root, so as root (CI) the server runs as the `postgres` user
//! the package creates (`runuser -u postgres`). A missing package FAILS the test with a message saying how to
//! install it (`.ci/run` does it with apt-get): a PostgreSQL test never passes without PostgreSQL.
//!
//! The server outlives nothing: a watchdog shell started with it stops it (`pg_ctl stop -m immediate`) and
//! removes its directory as soon as the test process is gone, however the process ended.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// A running server.
pub(crate) struct PgServer {
    bin: PathBuf,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// Its data directory.
    pub dir: PathBuf,
    next: AtomicUsize,
}

fn bin_dir() -> PathBuf {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().map(|e| e.path().join("bin")).filter(|b| b.join("initdb").exists()).collect())
        .unwrap_or_default();
    found.sort();
    found.pop().unwrap_or_else(|| {
        panic!(
            "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): the PostgreSQL store tests need a \
             real server. Install it with `apt-get install -y postgresql` (.ci/run does)."
        )
    })
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `program args…`, as the `postgres` user when we are root.
fn as_server_user(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn run(mut c: Command, what: &str) {
    let out = c.stdin(Stdio::null()).output().unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("a free loopback port")
}

impl PgServer {
    fn start() -> PgServer {
        let bin = bin_dir();
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let dir = std::env::temp_dir().join(format!("tonroute-pg-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        if is_root() {
            run(
                {
                    let mut c = Command::new("chown");
                    c.arg("postgres:postgres").arg(&dir);
                    c
                },
                "chown of the PostgreSQL directory",
            );
        }
        let data = dir.join("data");
        let mut init = as_server_user(&bin.join("initdb"));
        init.arg("-D").arg(&data).args(["-U", "tonroute", "--auth=trust", "-E", "UTF8", "--no-sync"]);
        run(init, "initdb");
        // The port is free when picked; if another process takes it before the server binds, start again.
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port();
            let mut start = as_server_user(&bin.join("pg_ctl"));
            start.arg("-D").arg(&data).arg("-l").arg(dir.join("log")).args(["-w", "-t", "60", "-o"]).arg(format!(
                "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c \
                 full_page_writes=off -c max_connections=200",
                dir.display()
            ));
            let out = start.arg("start").stdin(Stdio::null()).output().expect("running pg_ctl");
            if out.status.success() {
                watchdog(&bin, &dir, &data);
                return PgServer { bin, port, dir, next: AtomicUsize::new(0) };
            }
            last = format!(
                "{}{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
                std::fs::read_to_string(dir.join("log")).unwrap_or_default()
            );
        }
        panic!("PostgreSQL did not start:\n{last}");
    }

    /// A new empty database on the server; its URL.
    pub(crate) fn fresh_database_url(&self) -> String {
        let name = format!("t{}", self.next.fetch_add(1, Ordering::SeqCst));
        let mut c = Command::new(self.bin.join("createdb"));
        c.args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "tonroute", &name]);
        run(c, "createdb");
        format!("postgres://tonroute@127.0.0.1:{}/{name}", self.port)
    }
}

/// Stops the server and removes `dir` once this process is gone.
fn watchdog(bin: &Path, dir: &Path, data: &Path) {
    let pg_ctl = bin.join("pg_ctl");
    let stop = if is_root() {
        format!("runuser -u postgres -- {} -D {} stop -m immediate", pg_ctl.display(), data.display())
    } else {
        format!("{} -D {} stop -m immediate", pg_ctl.display(), data.display())
    };
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf {dir}",
        pid = std::process::id(),
        dir = dir.display()
    );
    // `setsid -f` forks the watchdog into its own session and returns at once.
    let started = Command::new("setsid")
        .args(["-f", "sh", "-c", &script])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("starting the PostgreSQL watchdog");
    assert!(started.success(), "the PostgreSQL watchdog did not start");
}

/// The server of this test binary (started on first use).
pub(crate) fn server() -> &'static PgServer {
    static S: OnceLock<PgServer> = OnceLock::new();
    S.get_or_init(PgServer::start)
}
