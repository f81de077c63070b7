//! The database market stores under test, filled with the bundled sample: SQLite in a temp file, PostgreSQL on a
//! server the tests start ([`super::pg`]). Each is opened once per test binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Arc, OnceLock};

use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;
use tonroute::market::store::sql::SqlMarketStore;
use tonroute::market::{MarketData, MarketFile, MarketStore};

pub(crate) const SNAPSHOT: &str = include_str!("../../../data/snapshot.json");
pub(crate) const MARKET: &str = include_str!("../../../data/market.json");

/// A fresh temp path for a test database.
pub(crate) fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join("tonroute-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let path = dir.join(format!("{name}-{}-{nanos}.db", std::process::id()));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    path
}

/// Opens a store at `url` over the bundled snapshot and fills it with the bundled sample. Runs on its own thread:
/// the store blocks on its runtime, which tokio refuses inside an async test's worker.
pub(crate) fn filled(url: String) -> Arc<SqlMarketStore> {
    std::thread::spawn(move || {
        let store = SqlMarketStore::open(&url, Snapshot::from_json(SNAPSHOT).unwrap()).unwrap();
        let file: MarketFile = serde_json::from_str(MARKET).unwrap();
        let data = MarketData::load(PoolGraph::from_json(SNAPSHOT).unwrap(), &file).unwrap();
        store.load_market(&data, &file).unwrap();
        Arc::new(store)
    })
    .join()
    .unwrap()
}

/// The SQLite store with the bundled sample (one per test binary).
pub(crate) fn sqlite() -> Arc<dyn MarketStore> {
    static S: OnceLock<Arc<SqlMarketStore>> = OnceLock::new();
    S.get_or_init(|| filled(format!("sqlite://{}", temp_db("market").display()))).clone()
}

/// The PostgreSQL store with the bundled sample, on a server started for this test binary.
pub(crate) fn postgres() -> Arc<dyn MarketStore> {
    static S: OnceLock<Arc<SqlMarketStore>> = OnceLock::new();
    S.get_or_init(|| filled(super::pg::server().fresh_database_url())).clone()
}

/// `tonroute market ingest --db url files…`, the built binary run as a user runs it.
pub(crate) fn ingest(url: &str, files: &[&Path]) -> Output {
    let mut args = vec!["market", "ingest", "--db", url];
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    args.extend(names.iter().map(String::as_str));
    super::bin::run_tonroute(&super::bin::repo(), &args, None)
}

/// An ingest that refused `file` whole for its line `line`: exit 2, and `text` (the part of its output the caller
/// reads) names the file and line as a refused `what` and gives `reason`.
pub(crate) fn assert_file_refused(o: &Output, text: &str, file: &Path, line: usize, what: &str, reason: &str) {
    assert_eq!(o.status.code(), Some(2), "{text}");
    let said = format!("{}:{line}: {what} refused, nothing of this file was stored", file.display());
    assert!(text.contains(&said), "{text}");
    assert!(text.contains(reason), "{reason}: {text}");
}
