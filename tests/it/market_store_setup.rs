//! Processes starting together on a SQLite market database that does not exist yet, as CI starts them on a fresh
//! clone (several test binaries, several `tonroute serve` each, data/market.db missing): they end with one
//! database, migrated and filled once, and all answer the same. And a start killed while it fills leaves nothing
//! the next start takes for a filled database: the next starts fill it again, once. (How:
//! `crates/market/src/store/sql/setup.rs`.)
//!
//! The built binary runs as a user runs it, each round on a new file in a temp directory (`--market-db
//! sqlite://PATH`, which the default data/market.db goes through too: that file is shared with the other test
//! binaries, so no test removes it).
#![cfg(feature = "server")]

use crate::common;

use std::fs::{OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{Connection, Executor};

use common::bin::{repo, start_serve_env, ServerGuard, Starting, TONROUTE};
use common::market_db::{temp_db, MARKET};

/// Servers started at once per round.
const SERVERS: usize = 8;
/// What every server must answer the same: every coin with its statistics, a page of trades, the pools' totals.
const SAME: [&str; 3] = [
    "/coins?limit=500&include_without_price=true",
    "/coin_transactions?asset=native&limit=100&offset=50",
    "/pools/summary",
];

/// The bundled sample's trade count (a filled database holds exactly these).
fn sample_trades() -> i64 {
    serde_json::from_str::<Value>(MARKET).unwrap()["trades"].as_array().unwrap().len() as i64
}

/// The schema's SQLite migrations (`migrations/sqlite/*.sql`).
fn migrations() -> i64 {
    let dir = repo().join("migrations/sqlite");
    let files = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    files.filter(|f| f.as_ref().is_ok_and(|f| f.path().extension().is_some_and(|e| e == "sql"))).count() as i64
}

fn url_of(db: &Path) -> String {
    format!("sqlite://{}", db.display())
}

/// `PATH-lock`, the setup lock beside the database.
fn lock_file(db: &Path) -> PathBuf {
    PathBuf::from(format!("{}-lock", db.display()))
}

/// What the database holds, read over a connection of the test's own that never waits for a lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct State {
    /// Whether a process holds the setup lock.
    locked: bool,
    /// Migrations applied (0 before the file or its table exists).
    migrations: i64,
    /// Whether the market's header (`as_of`) is stored: the database counts as filled.
    header: bool,
    /// Trades stored.
    trades: i64,
    /// Whether a write transaction is open (the database's write lock is taken).
    writing: bool,
}

fn state(db: &Path) -> State {
    let locked = match OpenOptions::new().read(true).write(true).open(lock_file(db)) {
        Ok(file) => matches!(file.try_lock(), Err(TryLockError::WouldBlock)),
        Err(_) => false,
    };
    let db = db.to_path_buf();
    let read = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            // Never creates the file, never waits for a lock (the process under test may be stopped holding one).
            let options = SqliteConnectOptions::new().filename(&db).busy_timeout(Duration::ZERO);
            let Ok(mut c) = SqliteConnection::connect_with(&options).await else {
                return (0, false, 0, false);
            };
            let count = |sql: &'static str| sqlx::query_scalar::<_, i64>(sql);
            let migrations =
                count("SELECT COUNT(*) FROM _sqlx_migrations WHERE success").fetch_one(&mut c).await.unwrap_or(0);
            let header =
                count("SELECT COUNT(*) FROM market_meta WHERE key = 'as_of'").fetch_one(&mut c).await.unwrap_or(0) > 0;
            let trades = count("SELECT COUNT(*) FROM trades").fetch_one(&mut c).await.unwrap_or(0);
            let writing = match c.execute("BEGIN IMMEDIATE").await {
                Ok(_) => {
                    c.execute("ROLLBACK").await.unwrap();
                    false
                }
                // SQLITE_BUSY (5) and its extended codes: another connection holds the write lock.
                Err(sqlx::Error::Database(e))
                    if e.code().and_then(|c| c.parse::<i32>().ok()).is_some_and(|c| c & 0xff == 5) =>
                {
                    true
                }
                Err(e) => panic!("probing the write lock: {e}"),
            };
            let _ = c.close().await;
            (migrations, header, trades, writing)
        })
    });
    let (migrations, header, trades, writing) = read.join().unwrap();
    State { locked, migrations, header, trades, writing }
}

fn signal(pid: u32, name: &str) {
    let status = Command::new("kill").args([&format!("-{name}"), &pid.to_string()]).status();
    assert!(status.is_ok_and(|s| s.success()), "kill -{name} {pid}");
}

/// `tonroute market ingest --db URL` of a file holding one wallet balance, started at once (it opens, migrates
/// and fills like serve; a balance leaves the trades and the answers compared untouched).
fn start_ingest(url: &str, balance: &Path) -> std::process::Child {
    Command::new(TONROUTE)
        .args(["market", "ingest", "--db", url])
        .arg(balance)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {TONROUTE}: {e}"))
}

/// Waits for every server and ingest started on `db` together, then checks the outcome: all came up (or exited
/// 0), exactly one of them filled the database, which holds the whole sample once, and every server answers
/// [`SAME`] identically.
fn all_come_up_on_one_database(db: &Path, starting: Vec<Starting>, ingests: Vec<std::process::Child>) {
    let servers: Vec<ServerGuard> = starting.into_iter().map(Starting::ready).collect();
    let ingests: Vec<Output> = ingests.into_iter().map(|c| c.wait_with_output().unwrap()).collect();
    let mut logs: Vec<String> = servers.iter().map(ServerGuard::stderr).collect();
    for o in &ingests {
        let log = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "market ingest on a database being set up failed: {log}");
        logs.push(log);
    }
    let fillers = logs.iter().filter(|l| l.contains("filled from")).count();
    assert_eq!(fillers, 1, "exactly one process fills the database:\n{}", logs.join("\n----\n"));
    let after = state(db);
    let want = State { locked: false, migrations: migrations(), header: true, trades: sample_trades(), writing: false };
    assert_eq!(after, want, "{}", db.display());
    for path in SAME {
        let first = servers[0].get(path);
        assert_eq!(first.0, 200, "{path}: {}", first.1);
        for (i, s) in servers.iter().enumerate().skip(1) {
            assert!(s.get(path) == first, "server {i} answers {path} differently from server 0");
        }
    }
}

/// Eight servers and two ingests started at the same moment on a missing database, twice. Before the setup lock,
/// most such rounds failed with "table market_meta already exists" (or another migration's table).
#[test]
fn processes_starting_together_set_up_one_database() {
    // One balance line of the README's example file (an empty file is refused as an ingest of nothing).
    let examples = std::fs::read_to_string(repo().join("data/examples/more.jsonl")).unwrap();
    let balance_line = examples.lines().find(|l| l.contains("\"owner\"")).expect("a balance line in more.jsonl");
    let balance = temp_db("setup-balance").with_extension("jsonl");
    std::fs::write(&balance, format!("{balance_line}\n")).unwrap();
    for round in 0..2 {
        let db = temp_db(&format!("setup-together-{round}"));
        let url = url_of(&db);
        let starting: Vec<Starting> =
            (0..SERVERS).map(|_| start_serve_env(&repo(), &["--market-db", &url], &[])).collect();
        let ingests = (0..2).map(|_| start_ingest(&url, &balance)).collect();
        all_come_up_on_one_database(&db, starting, ingests);
    }
}

/// A server is stopped (SIGSTOP) at moments while it sets a new database up until it is caught inside the fill's
/// write transaction (the schema migrated, the header not yet committed), and killed there (SIGKILL). What it
/// leaves holds no market and no lock, and servers then started together on it fill it once and agree.
#[test]
fn a_start_killed_mid_fill_is_redone_by_the_next_starts() {
    let db = killed_mid_fill();
    let left = state(&db);
    let want = State { locked: false, migrations: migrations(), header: false, trades: 0, writing: false };
    assert_eq!(left, want, "what the killed fill left in {}", db.display());
    let url = url_of(&db);
    let starting = (0..4).map(|_| start_serve_env(&repo(), &["--market-db", &url], &[])).collect();
    all_come_up_on_one_database(&db, starting, Vec::new());
}

/// Starts a server on a new database and kills it inside the fill's write transaction; its database. A start
/// that gets through the fill before it is caught (a very fast machine) is retried on another new database.
fn killed_mid_fill() -> PathBuf {
    for attempt in 0..3 {
        let db = temp_db(&format!("setup-killed-{attempt}"));
        let mut victim = start_serve_env(&repo(), &["--market-db", &url_of(&db)], &[]);
        let (pid, all) = (victim.pid(), migrations());
        let deadline = Instant::now() + Duration::from_secs(60);
        // Seen migrated, unfilled and not writing: the fill's transaction is the next write under the lock (the
        // migrator's own bookkeeping write follows each migration's commit at once, before this quiet).
        let mut quiet = false;
        while Instant::now() < deadline && !victim.exited() {
            std::thread::sleep(Duration::from_millis(5));
            let s = state(&db);
            let setting_up = s.locked && s.migrations == all && !s.header;
            quiet |= setting_up && !s.writing;
            if !(setting_up && s.writing && quiet) {
                if s.header {
                    break; // Filled before being caught.
                }
                continue;
            }
            // Confirm with the process stopped: still inside the fill's transaction.
            signal(pid, "STOP");
            let s = state(&db);
            if s.locked && s.writing && !s.header {
                signal(pid, "KILL");
                let deadline = Instant::now() + Duration::from_secs(10);
                while !victim.exited() {
                    assert!(Instant::now() < deadline, "the killed server did not exit");
                    std::thread::sleep(Duration::from_millis(10));
                }
                return db;
            }
            signal(pid, "CONT");
        }
        assert!(!victim.exited(), "the server exited while setting up:\n{}", victim.stderr());
        eprintln!("attempt {attempt}: the server was not caught inside its fill:\n{}", victim.stderr());
    }
    panic!("a server was never caught inside its fill in 3 attempts");
}
