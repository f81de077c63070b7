//! `tonroute market ingest` and the market database `serve` opens: the URL (default: the embedded SQLite file
//! data/market.db), the store opened and migrated, and filled from the bundled sample when it holds no market
//! (processes starting together on one SQLite file take turns: the first sets it up, the others open it as set
//! up; `tonroute::market::store::sql::SqlMarketStore::open_with`).

use std::path::{Path, PathBuf};
#[cfg(feature = "server")]
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tonroute::market::ingest::parse_trade_line;
use tonroute::market::liquidity::{is_liquidity_line, parse_liquidity_line};
use tonroute::market::store::sql::{SqlMarketStore, StoreError};
use tonroute::market::wallets::{is_balance_line, parse_balance_line};
use tonroute::market::{MarketData, MarketDataError, MarketFile};

use super::LoadedSnapshot;
#[cfg(feature = "server")]
use crate::args::MarketDbArgs;
use crate::args::{IngestArgs, MarketCommand};
use crate::error::CliError;

/// Runs one `market` command.
pub(super) fn run(command: MarketCommand) -> Result<(), CliError> {
    match command {
        MarketCommand::Ingest(args) => ingest(args),
    }
}

/// The directory of the bundled data: `data/` of the source tree this binary was built from, or of the current
/// directory.
fn data_dir() -> PathBuf {
    let bundled = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    if bundled.join("market.json").exists() {
        bundled
    } else {
        PathBuf::from("data")
    }
}

/// `sqlite://<data>/market.db`.
pub(super) fn default_url() -> String {
    format!("sqlite://{}", data_dir().join("market.db").display())
}

/// The URL without its password (for messages).
pub(super) fn redact(url: &str) -> String {
    match (url.split_once("://"), url.rfind('@')) {
        (Some((scheme, rest)), Some(_)) => match rest.split_once('@') {
            Some((user, host)) => format!("{scheme}://{}@{host}", user.split(':').next().unwrap_or("")),
            None => url.to_string(),
        },
        _ => url.to_string(),
    }
}

/// Opens the market database at `url` over the snapshot and, when it holds no market yet, fills it from `seed`
/// (default: the bundled data/market.json) in one transaction. Processes starting together on the same SQLite
/// file take turns: the first creates, migrates and fills it, the others then open it as it is
/// ([`SqlMarketStore::open_with`]); filling is idempotent too (PostgreSQL fills without turns).
pub(super) fn open_store(
    url: &str,
    seed: Option<PathBuf>,
    snapshot: &LoadedSnapshot,
) -> Result<SqlMarketStore, CliError> {
    SqlMarketStore::open_with(url, snapshot.snapshot.clone(), |store| fill(url, seed, snapshot, store)).map_err(|e| {
        match e {
            SetUpError::Store(source) => CliError::Store { url: redact(url), source: Box::new(source) },
            SetUpError::Cli(e) => *e,
        }
    })
}

/// Why opening and filling a store failed: the store (its URL added by [`open_store`]), or the seed (boxed: a
/// CLI error is large).
enum SetUpError {
    Store(StoreError),
    Cli(Box<CliError>),
}

impl From<StoreError> for SetUpError {
    fn from(e: StoreError) -> SetUpError {
        SetUpError::Store(e)
    }
}

impl From<CliError> for SetUpError {
    fn from(e: CliError) -> SetUpError {
        SetUpError::Cli(Box::new(e))
    }
}

/// Fills `store` from the seed when it holds no market, or adds the seed's liquidity events and balances to a
/// market filled before their tables existed. Runs during the opener's setup turn.
fn fill(url: &str, seed: Option<PathBuf>, snapshot: &LoadedSnapshot, store: &SqlMarketStore) -> Result<(), SetUpError> {
    if !store.has_market()? {
        let (path, file) = read_seed(seed)?;
        let data = load_seed(&path, &file, snapshot)?;
        let new = store.load_market(&data, &file)?;
        eprintln!("tonroute: market database {} filled from {} ({new} trades)", redact(url), path.display());
    } else {
        if store.liquidity_count()? == 0 {
            let add = |data: &MarketData| store.load_liquidity(&data.liquidity);
            fill_from_seed(url, seed.clone(), snapshot, "liquidity events", |f| !f.liquidity.is_empty(), add)?;
        }
        if store.balance_count()? == 0 {
            let add = |data: &MarketData| store.ingest_balances(&data.balances).map(|report| report.applied);
            fill_from_seed(url, seed, snapshot, "balances", |f| !f.balances.is_empty(), add)?;
        }
    }
    Ok(())
}

/// The seed market file (`--market FILE`, default data/market.json), read and parsed.
fn read_seed(seed: Option<PathBuf>) -> Result<(PathBuf, MarketFile), CliError> {
    let path = seed.unwrap_or_else(|| data_dir().join("market.json"));
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(source) => return Err(CliError::ReadMarket { path, source }),
    };
    match serde_json::from_str(&text) {
        Ok(file) => Ok((path, file)),
        Err(e) => Err(CliError::Market { path, source: MarketDataError::from(e) }),
    }
}

/// The seed file checked against the snapshot's pools.
fn load_seed(path: &Path, file: &MarketFile, snapshot: &LoadedSnapshot) -> Result<MarketData, CliError> {
    MarketData::load(snapshot.graph()?, file).map_err(|source| CliError::Market { path: path.to_path_buf(), source })
}

/// A database filled before one of its tables existed (liquidity events: migration 0010; wallet balances: 0020)
/// holds none of that table's rows: `add` writes the seed's (one transaction, idempotent) and says how many were
/// new, reported as `what`. A seed without any (`in_seed` says) adds nothing.
fn fill_from_seed(
    url: &str,
    seed: Option<PathBuf>,
    snapshot: &LoadedSnapshot,
    what: &str,
    in_seed: fn(&MarketFile) -> bool,
    add: impl FnOnce(&MarketData) -> Result<usize, StoreError>,
) -> Result<(), CliError> {
    let (path, file) = read_seed(seed)?;
    if !in_seed(&file) {
        return Ok(());
    }
    let data = load_seed(&path, &file, snapshot)?;
    let new = add(&data).map_err(|source| CliError::Store { url: redact(url), source: Box::new(source) })?;
    eprintln!("tonroute: market database {}: {new} {what} added from {}", redact(url), path.display());
    Ok(())
}

/// The market database `serve` answers from (`--market-db`, default data/market.db), filled when empty. Unlike
/// `--market FILE`, it does not move the router's pools: the database is history that keeps growing (and may be
/// shared by replicas), while the router's reserves come from the snapshot and the reserve feeds.
#[cfg(feature = "server")]
pub(super) fn serve_store(args: MarketDbArgs, snapshot: &LoadedSnapshot) -> Result<Arc<SqlMarketStore>, CliError> {
    let url = args.market_db.unwrap_or_else(default_url);
    let store = open_store(&url, args.market_seed, snapshot)?;
    // Build the statistics once now: a database that does not load fails at start, not at the first request.
    let failed = |source| CliError::Store { url: redact(&url), source: Box::new(source) };
    let view = store.stats_view().map_err(failed)?;
    let trades = store.trade_count().map_err(failed)?;
    let data = view.data();
    let as_of = tonroute::market::types::DateTime::from_unix(data.as_of)
        .map_or_else(|| data.as_of.to_string(), |d| d.to_string());
    eprintln!("tonroute: market data: {} coins, {trades} trades, as of {as_of}", data.coins.len());
    eprintln!("tonroute: market data from {}", redact(&url));
    Ok(Arc::new(store))
}

fn ingest(args: IngestArgs) -> Result<(), CliError> {
    let snapshot = LoadedSnapshot::read(args.snapshot)?;
    let store = open_store(&args.db, args.market_seed, &snapshot)?;
    // The clock lives here: a trade may be dated up to a day ahead of it (clock skew), never later.
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
    let latest = now + 86_400;
    for path in args.files {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(source) => return Err(CliError::ReadTrades { path, source }),
        };
        let mut lines = Vec::new();
        let mut events = Vec::new();
        let mut balances = Vec::new();
        for (i, line) in text.lines().enumerate() {
            // Blank lines separate nothing and are skipped.
            if line.trim().is_empty() {
                continue;
            }
            // A line with an `event` field is a liquidity event, one with an `owner` field a wallet balance; any other
            // line is a trade (and refused as one).
            // The line is read as JSON once to tell the three apart (each parser then decodes its own shape).
            let value = serde_json::from_str::<serde_json::Value>(line).ok();
            if value.as_ref().is_some_and(is_liquidity_line) {
                match parse_liquidity_line(line, store.graph(), latest) {
                    Ok(event) => events.push(event),
                    Err(source) => return Err(CliError::LiquidityLine { path, line: i + 1, source: Box::new(source) }),
                }
                continue;
            }
            // A line with an `owner` field is a wallet balance.
            if value.as_ref().is_some_and(is_balance_line) {
                match parse_balance_line(line, store.graph(), latest) {
                    Ok(balance) => balances.push(balance),
                    Err(source) => return Err(CliError::BalanceLine { path, line: i + 1, source: Box::new(source) }),
                }
                continue;
            }
            match parse_trade_line(line, store.graph(), latest) {
                Ok(trade) => lines.push(trade),
                Err(source) => return Err(CliError::TradeLine { path, line: i + 1, source: Box::new(source) }),
            }
        }
        if balances.is_empty() {
            let report = store
                .ingest_batch(&lines, &events)
                .map_err(|source| CliError::Store { url: redact(&args.db), source: Box::new(source) })?;
            println!(
                "{}: {} trades stored, {} already stored; {} liquidity events stored, {} already stored",
                path.display(),
                report.trades.new,
                report.trades.duplicates,
                report.liquidity.new,
                report.liquidity.duplicates
            );
        } else {
            let (report, written) = store
                .ingest_with_balances(&lines, &events, &balances)
                .map_err(|source| CliError::Store { url: redact(&args.db), source: Box::new(source) })?;
            println!(
                "{}: {} trades stored, {} already stored; {} liquidity events stored, {} already stored; \
                 {} balances stored, {} not newer than stored",
                path.display(),
                report.trades.new,
                report.trades.duplicates,
                report.liquidity.new,
                report.liquidity.duplicates,
                written.applied,
                written.stale
            );
        }
    }
    Ok(())
}
