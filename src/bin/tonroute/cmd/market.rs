//! `tonroute market ingest` and the market database `serve` opens: the URL (default: the embedded SQLite file
//! data/market.db), the store opened and migrated, and filled from the bundled sample when it holds no market
//! (processes starting together on one SQLite file take turns: the first sets it up, the others open it as set
//! up; `tonroute::market::store::sql::SqlMarketStore::open_with`).

use std::path::{Path, PathBuf};
#[cfg(feature = "server")]
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use tonroute::market::conflict::{self, Seen};
use tonroute::market::lines::{parse_ingest_line, IngestLine, IngestLineError};
use tonroute::market::store::sql::{RecordKind, SqlMarketStore, StoreError};
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

/// The default market database, the one `serve` and `market ingest` use when none is named:
/// `sqlite://<data>/market.db` beside the bundled data ([`super::data_dir`]), as an absolute URL.
pub(super) fn default_url() -> String {
    sqlite_url(&super::data_dir().join("market.db"))
}

/// `sqlite://` and the absolute `path`, percent-encoding what a URL would read otherwise (`%`, `?`, `#`).
fn sqlite_url(path: &Path) -> String {
    let text = super::absolute(path).display().to_string();
    format!("sqlite://{}", text.replace('%', "%25").replace('?', "%3F").replace('#', "%23"))
}

/// A database URL as it will be opened and reported: a `sqlite:` URL naming a relative file made absolute
/// against the current directory (the rule for every path given on the command line, so that the message says
/// which file it is), anything else unchanged.
pub(super) fn absolute_url(url: &str) -> String {
    let Some(rest) = url.strip_prefix("sqlite://").or_else(|| url.strip_prefix("sqlite:")) else {
        return url.to_string();
    };
    let (file, params) = match rest.split_once('?') {
        Some((file, params)) => (file, format!("?{params}")),
        None => (rest, String::new()),
    };
    if file.is_empty() || file.starts_with(':') || file.starts_with('/') {
        return url.to_string();
    }
    if !file.contains('%') {
        // A plain path: made absolute (and `./` dropped) like any other, so that the same file reads the same.
        return format!("{}{params}", sqlite_url(Path::new(file)));
    }
    // Percent-encoded: the relative part stays as written, in the URL's encoding.
    let here = std::env::current_dir().map(|d| sqlite_url(&d)).unwrap_or_else(|_| "sqlite://".to_string());
    format!("{}/{file}{params}", here.trim_end_matches('/'))
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
/// (default: the bundled data/market.json) in one transaction. A seed given (`--market-seed FILE`) is read and
/// checked first, before any database is opened or created: a bad seed leaves nothing behind. Processes starting
/// together on the same SQLite file take turns: the first creates, migrates and fills it, the others then open it
/// as it is ([`SqlMarketStore::open_with`]); filling is idempotent too (PostgreSQL fills without turns).
pub(super) fn open_store(
    url: &str,
    seed: Option<PathBuf>,
    snapshot: &LoadedSnapshot,
) -> Result<SqlMarketStore, CliError> {
    open_seeded(url, Seed::given(seed, snapshot)?, snapshot)
}

/// [`open_store`] with the seed already given.
fn open_seeded(url: &str, mut seed: Seed, snapshot: &LoadedSnapshot) -> Result<SqlMarketStore, CliError> {
    SqlMarketStore::open_with(url, snapshot.snapshot.clone(), |store| fill(url, &mut seed, snapshot, store)).map_err(
        |e| match e {
            SetUpError::Store(source) => CliError::Store { url: redact(url), source: Box::new(source) },
            SetUpError::Cli(e) => *e,
        },
    )
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

/// The seed market file, its path and its data checked against the snapshot's pools.
struct LoadedSeed {
    path: PathBuf,
    file: MarketFile,
    data: MarketData,
}

/// The market a store is filled from: a file given with `--market-seed` (loaded before any database is opened),
/// or the bundled data/market.json, loaded the first time a fill needs it (a store that holds a market never
/// reads it).
struct Seed(Option<Box<LoadedSeed>>);

impl Seed {
    /// `--market-seed FILE` read and checked now (its errors name the flag), or the bundled seed for later.
    fn given(seed: Option<PathBuf>, snapshot: &LoadedSnapshot) -> Result<Seed, CliError> {
        match seed {
            Some(path) => match load_seed(path, snapshot) {
                Ok(loaded) => Ok(Seed(Some(Box::new(loaded)))),
                Err(e) => Err(CliError::MarketSeed(Box::new(e))),
            },
            None => Ok(Seed(None)),
        }
    }

    /// The seed, loaded on first use.
    fn get(&mut self, snapshot: &LoadedSnapshot) -> Result<&LoadedSeed, CliError> {
        let loaded = match self.0.take() {
            Some(loaded) => loaded,
            None => Box::new(load_seed(super::data_dir().join("market.json"), snapshot)?),
        };
        Ok(self.0.insert(loaded))
    }
}

/// Fills `store` from the seed when it holds no market, or adds the seed's liquidity events and balances to a
/// market filled before their tables existed. Runs during the opener's setup turn.
fn fill(url: &str, seed: &mut Seed, snapshot: &LoadedSnapshot, store: &SqlMarketStore) -> Result<(), SetUpError> {
    if !store.has_market()? {
        let seed = seed.get(snapshot)?;
        let new = store.load_market(&seed.data, &seed.file)?;
        eprintln!("tonroute: market database {} filled from {} ({new} trades)", redact(url), seed.path.display());
    } else {
        if store.liquidity_count()? == 0 {
            let add = |data: &MarketData| store.load_liquidity(&data.liquidity);
            fill_from_seed(url, seed.get(snapshot)?, "liquidity events", |f| !f.liquidity.is_empty(), add)?;
        }
        if store.balance_count()? == 0 {
            let add = |data: &MarketData| store.ingest_balances(&data.balances).map(|report| report.applied);
            fill_from_seed(url, seed.get(snapshot)?, "balances", |f| !f.balances.is_empty(), add)?;
        }
    }
    Ok(())
}

/// The seed market file at `path`, read, parsed and checked against the snapshot's pools.
fn load_seed(path: PathBuf, snapshot: &LoadedSnapshot) -> Result<LoadedSeed, CliError> {
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(source) => return Err(CliError::ReadMarket { path, source }),
    };
    let file: MarketFile = match serde_json::from_str(&text) {
        Ok(file) => file,
        Err(e) => return Err(CliError::Market { path, source: MarketDataError::from(e) }),
    };
    match MarketData::load(snapshot.graph()?, &file) {
        Ok(data) => Ok(LoadedSeed { path, file, data }),
        Err(source) => Err(CliError::Market { path, source }),
    }
}

/// A database filled before one of its tables existed (liquidity events: migration 0010; wallet balances: 0020)
/// holds none of that table's rows: `add` writes the seed's (one transaction, idempotent) and says how many were
/// new, reported as `what`. A seed without any (`in_seed` says) adds nothing.
fn fill_from_seed(
    url: &str,
    seed: &LoadedSeed,
    what: &str,
    in_seed: fn(&MarketFile) -> bool,
    add: impl FnOnce(&MarketData) -> Result<usize, StoreError>,
) -> Result<(), CliError> {
    if !in_seed(&seed.file) {
        return Ok(());
    }
    let new = add(&seed.data).map_err(|source| CliError::Store { url: redact(url), source: Box::new(source) })?;
    eprintln!("tonroute: market database {}: {new} {what} added from {}", redact(url), seed.path.display());
    Ok(())
}

/// The market database `serve` answers from (`--market-db`, default data/market.db), filled when empty. Unlike
/// `--market FILE`, it does not move the router's pools: the database is history that keeps growing (and may be
/// shared by replicas), while the router's reserves come from the snapshot and the reserve feeds.
#[cfg(feature = "server")]
pub(super) fn serve_store(args: MarketDbArgs, snapshot: &LoadedSnapshot) -> Result<Arc<SqlMarketStore>, CliError> {
    let url = args.market_db.as_deref().map_or_else(default_url, absolute_url);
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
    // The clock lives here: a trade may be dated up to a day ahead of it (clock skew), never later.
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(0));
    let latest = now + 86_400;
    // Every file is read and every line checked before any database is created, migrated or filled: a missing
    // file or a bad line anywhere stops the command with nothing written.
    // A line giving another version of a record an earlier line gave (the same key) is refused here too.
    let graph = snapshot.graph()?;
    let mut seen = Seen::default();
    for path in &args.files {
        let lines = read_lines(path, &graph, latest)?;
        lines.check_against(&mut seen, path)?;
    }
    drop(graph);
    let url = args.db.as_deref().map_or_else(default_url, absolute_url);
    // A URL that names no database, or a bad seed, is refused before anything is said about it or created.
    SqlMarketStore::check_url(&url)
        .map_err(|source| CliError::Store { url: redact(&url), source: Box::new(source) })?;
    let seed = Seed::given(args.market_seed, &snapshot)?;
    let default = default_url();
    if url == default {
        eprintln!("tonroute: market database {} (the one `tonroute serve` reads by default)", redact(&url));
    } else {
        eprintln!(
            "tonroute: market database {} (`tonroute serve` reads it with --market-db {}; by default it reads {})",
            redact(&url),
            redact(&url),
            redact(&default)
        );
    }
    let store = open_seeded(&url, seed, &snapshot)?;
    for path in args.files {
        let lines = read_lines(&path, store.graph(), latest)?;
        let failed = |source| lines.store_error(&url, &path, source);
        if lines.balances.is_empty() {
            let report = store.ingest_batch(&lines.trades, &lines.events).map_err(failed)?;
            println!(
                "{}: {} trades stored, {} already stored; {} liquidity events stored, {} already stored",
                path.display(),
                report.trades.new,
                report.trades.duplicates,
                report.liquidity.new,
                report.liquidity.duplicates
            );
        } else {
            let (report, written) =
                store.ingest_with_balances(&lines.trades, &lines.events, &lines.balances).map_err(failed)?;
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

/// The lines of one ingest file, decoded and checked against the snapshot's pools, each kind with its lines'
/// numbers.
struct Lines {
    trades: Vec<tonroute::market::ingest::TradeLine>,
    events: Vec<tonroute::market::liquidity::LiquidityEvent>,
    balances: Vec<tonroute::market::wallets::Balance>,
    numbers: [Vec<usize>; 3],
}

impl Lines {
    /// Every record of the file noted in `seen` (the records of the ingest's earlier lines); a different version
    /// of one of them is refused with both lines named.
    fn check_against(&self, seen: &mut Seen, path: &Path) -> Result<(), CliError> {
        let records = self.trades.iter().map(|t| (RecordKind::Trade, conflict::trade_record(t)));
        let records = records
            .chain(self.events.iter().map(|e| (RecordKind::Liquidity, conflict::liquidity_record(e))))
            .chain(self.balances.iter().map(|b| (RecordKind::Balance, conflict::balance_record(b))));
        let mut index = [0usize; 3];
        for (kind, record) in records {
            let line = self.numbers[kind as usize][index[kind as usize]];
            index[kind as usize] += 1;
            let origin = format!("{}:{line}", super::absolute(path).display());
            seen.check(record, origin).map_err(|source| CliError::Conflict {
                path: path.to_path_buf(),
                line,
                what: kind.as_str(),
                source,
            })?;
        }
        Ok(())
    }

    /// A failure writing this file: a conflict with a stored record names its line, anything else the database.
    fn store_error(&self, url: &str, path: &Path, source: StoreError) -> CliError {
        match source {
            StoreError::Conflict { kind, index, conflict } => match self.numbers[kind as usize].get(index) {
                Some(&line) => {
                    CliError::Conflict { path: path.to_path_buf(), line, what: kind.as_str(), source: conflict }
                }
                None => CliError::Store {
                    url: redact(url),
                    source: Box::new(StoreError::Conflict { kind, index, conflict }),
                },
            },
            other => CliError::Store { url: redact(url), source: Box::new(other) },
        }
    }
}

/// Reads `path` and decodes every line against `graph` (dates after `latest` refused); the first bad line is
/// the error, with its number.
fn read_lines(path: &Path, graph: &tonroute::graph::PoolGraph, latest: i64) -> Result<Lines, CliError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(source) => return Err(CliError::ReadTrades { path: super::absolute(path), source }),
    };
    let mut lines = Lines { trades: Vec::new(), events: Vec::new(), balances: Vec::new(), numbers: Default::default() };
    let path = || path.to_path_buf();
    for (i, line) in text.lines().enumerate() {
        // Blank lines separate nothing and are skipped.
        if line.trim().is_empty() {
            continue;
        }
        // A line with an `event` field is a liquidity event, one with an `owner` field a wallet balance; any other
        // line is a trade (and refused as one): the library tells them apart and decodes each.
        let line_number = i + 1;
        match parse_ingest_line(line, graph, latest) {
            Ok(IngestLine::Trade(trade)) => {
                lines.trades.push(trade);
                lines.numbers[RecordKind::Trade as usize].push(line_number);
            }
            Ok(IngestLine::Liquidity(event)) => {
                lines.events.push(event);
                lines.numbers[RecordKind::Liquidity as usize].push(line_number);
            }
            Ok(IngestLine::Balance(balance)) => {
                lines.balances.push(balance);
                lines.numbers[RecordKind::Balance as usize].push(line_number);
            }
            Err(IngestLineError::Trade(source)) => {
                return Err(CliError::TradeLine { path: path(), line: line_number, source: Box::new(source) })
            }
            Err(IngestLineError::Liquidity(source)) => {
                return Err(CliError::LiquidityLine { path: path(), line: line_number, source: Box::new(source) })
            }
            Err(IngestLineError::Balance(source)) => {
                return Err(CliError::BalanceLine { path: path(), line: line_number, source: Box::new(source) })
            }
        }
    }
    if lines.trades.is_empty() && lines.events.is_empty() && lines.balances.is_empty() {
        return Err(CliError::NoLines { path: path() });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::absolute_url;

    #[test]
    fn relative_sqlite_paths_become_absolute_from_the_current_directory() {
        let here = std::env::current_dir().unwrap();
        assert_eq!(absolute_url("sqlite://data/market.db"), format!("sqlite://{}/data/market.db", here.display()));
        assert_eq!(absolute_url("sqlite:./m.db?mode=rwc"), format!("sqlite://{}/m.db?mode=rwc", here.display()));
        assert_eq!(absolute_url("sqlite:///tmp/m.db"), "sqlite:///tmp/m.db");
        assert_eq!(absolute_url("sqlite::memory:"), "sqlite::memory:");
        assert_eq!(absolute_url("postgres://u@127.0.0.1:5432/db"), "postgres://u@127.0.0.1:5432/db");
    }
}
