//! The database store of market data (feature `store`): SQLite embedded (a file, nothing to install) or
//! PostgreSQL (many replicas, long history), one query layer over both through sqlx's `Any` driver with runtime
//! queries (no compile-time checked macros: building needs no database). [`SqlMarketStore`] implements
//! [`MarketStore`].
//!
//! Owns the connection, setting a database up once when processes open it together ([`setup`]: the SQLite file's
//! setup lock), the schema's migrations ([`schema`], SQL in `migrations/`), writing market data
//! ([`load`]: the bundled sample; [`ingest`]: trade lines, idempotent, one transaction per batch), each table's
//! rows ([`trades`], [`liquidity`], [`wallets`], sharing the statement and column helpers of `rows`) and the
//! queries ([`queries`]). Must not parse wire text or know HTTP (that is `crate::api::market`), nor derive
//! prices from pool math (the replay does, before a sample is written).
//!
//! # What runs where
//!
//! - In the database: candles of every period (`/chart`, `/chart_by_pool_address`: buckets, open/high/low/close
//!   from each trade's recorded prices, volume sums, the previous candle's close by a window function) and
//!   `/coin_transactions` (filters, order, paging).
//! - Coin statistics, `/coin`, `/coins`, pools and affiliate volumes ([`stats`]): from the trades of the last
//!   30 days (an indexed range scan), a few anchor trades before them found by index (each pool's latest recorded
//!   state, a coin's last trade before the window) and all-time figures folded as trades arrive (only the trades
//!   added since the last fold are read); a wallet's volume from the `(trader, time, id)` index. Memory holds
//!   figures per coin and per pool and the recent window, never every trade. The statistics themselves are the
//!   replay's code ([`MarketView`]) over those trades, so the answers are the replay's bit for bit (a SQL `SUM`
//!   would add floats in its own order: SQLite's compensates rounding, PostgreSQL's does not). Pools' TVL needs
//!   the exact pool math over their current reserves, which is why it is not a SQL expression. A pool's
//!   providers and deposits, and a wallet's liquidity positions, answer from the same view (current reserves
//!   and prices, the liquidity events); a wallet's fee earnings read each of its pools' trades since its first
//!   event by the `(pool, time, id)` index ([`wallets`]).
//! - The screener feed ([`feed`]): each request reads the trades it needs by index (the latest trade, a pool's
//!   first trade, a block range's trades and each of their pools' state before the range), never every row.
//!
//! [`SqlMarketStore::view`] (every row in memory) remains for tools and for checking the above against it.
//!
//! # Bridging to the synchronous seam
//!
//! [`MarketStore`] is synchronous; sqlx is async. The store owns a small tokio runtime and blocks on it
//! (`Runtime::block_on`), which is allowed from any thread that is not driving async tasks: the server runs the
//! market routes on tokio's blocking pool, the CLI on its main thread.

mod feed;
pub mod ingest;
pub mod liquidity;
pub mod load;
mod queries;
mod rows;
mod schema;
mod setup;
mod stats;
pub mod trades;
pub mod wallets;

use std::future::Future;
use std::str::FromStr;
use std::sync::{Arc, Mutex};

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor, Row};
use tonlib_core::TonAddress;

use super::{MarketStore, StoreFailure};
use crate::error::{MarketDataError, MarketError};
use crate::query::{AffiliateVolumeQuery, ChartByPoolQuery, ChartQuery, CoinTransactionsQuery};
use crate::replay::{MarketData, MarketView};
use crate::types::{
    AffiliateAccountVolumeResponse, ChartByPoolAddressResponse, ChartResponse, CoinTransactionsResponse,
};
use crate::{affiliate, screener};
use tonroute_core::graph::snapshot::Snapshot;
use tonroute_core::graph::PoolGraph;

/// The database engine a URL names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// `sqlite://PATH` (created when missing).
    Sqlite,
    /// `postgres://…` or `postgresql://…`.
    Postgres,
}

impl Engine {
    /// The engine of `url`, `None` for another scheme.
    pub fn of_url(url: &str) -> Option<Engine> {
        if url.starts_with("sqlite:") {
            Some(Engine::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Some(Engine::Postgres)
        } else {
            None
        }
    }
}

/// Why a store could not be opened, filled or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The URL names no supported engine.
    #[error("`{url}` is not a market database URL (expected sqlite://PATH or postgres://…)")]
    BadUrl {
        /// The URL as given (never printed with a password: only the scheme is checked).
        url: String,
    },
    /// The store's runtime could not start.
    #[error("cannot start the market store's runtime")]
    Runtime(#[source] std::io::Error),
    /// The database refused a connection, statement or row.
    #[error("market database: {operation}")]
    Database {
        /// What was being done.
        operation: &'static str,
        /// The driver's error.
        #[source]
        source: sqlx::Error,
    },
    /// The server did not answer a connection in time ([`CONNECT_TIMEOUT`]).
    #[error("market database: connecting: no answer within {0} s")]
    ConnectTimeout(u64),
    /// The schema's migrations failed.
    #[error("market database: migrating the schema")]
    Migrate(#[source] sqlx::migrate::MigrateError),
    /// The setup lock file beside a SQLite database (`PATH-lock`, see [`SqlMarketStore::open_with`]) could not be
    /// created or locked.
    #[error("market database: cannot lock {}", path.display())]
    Lock {
        /// The lock file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The snapshot does not build a graph.
    #[error("the market store's snapshot is refused")]
    Snapshot(#[source] tonroute_core::graph::GraphError),
    /// The rows do not make a valid market (a coin, reward or account refused).
    #[error("the market database holds data that does not load")]
    Data(#[source] MarketDataError),
    /// A record of a batch whose key is stored with different content ([`crate::conflict`]): the batch is
    /// rolled back.
    #[error("the batch's {} number {} is a different version of a stored one", kind.as_str(), index + 1)]
    Conflict {
        /// Which kind of record.
        kind: RecordKind,
        /// Its index among the batch's records of that kind, from 0.
        index: usize,
        /// Both versions.
        #[source]
        conflict: Box<crate::conflict::Conflict>,
    },
    /// A stored value does not decode (a corrupt row).
    #[error("market database: a stored {what} does not decode: `{value}`")]
    Corrupt {
        /// Which column.
        what: &'static str,
        /// Its text.
        value: String,
    },
}

/// The kinds of record a batch writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    /// A trade.
    Trade,
    /// A liquidity event.
    Liquidity,
    /// A wallet balance.
    Balance,
}

impl RecordKind {
    /// `trade`, `liquidity event`, `balance`.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Trade => "trade",
            RecordKind::Liquidity => "liquidity event",
            RecordKind::Balance => "balance",
        }
    }
}

pub(crate) fn db(operation: &'static str) -> impl FnOnce(sqlx::Error) -> StoreError {
    move |source| StoreError::Database { operation, source }
}

/// A runtime that may be dropped anywhere (also inside another runtime's task, where a plain drop panics).
#[derive(Debug)]
struct Bridge(Option<tokio::runtime::Runtime>);

impl Drop for Bridge {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// The highest trade and liquidity-event ids a view was built at.
type Generation = (i64, i64);

/// Market data in SQLite or PostgreSQL. See the module documentation.
#[derive(Debug)]
pub struct SqlMarketStore {
    bridge: Bridge,
    pool: AnyPool,
    engine: Engine,
    /// The snapshot's pools before any trade: pool and asset metadata, curves for the current prices.
    snapshot: Snapshot,
    graph: PoolGraph,
    /// The view of the rows as of the highest trade and liquidity-event ids it was built at.
    view: Mutex<Option<(Generation, Arc<MarketView>)>>,
    /// The all-time figures folded so far and the statistics view of the latest generation ([`stats`]).
    stats: Mutex<stats::Cache>,
}

impl SqlMarketStore {
    /// Opens (SQLite: creating the file when missing) the database at `url`, runs the schema's migrations, and
    /// serves it over the pools of `snapshot` (the snapshot the market's trades run on). Processes opening the same
    /// SQLite file at once take turns to create and migrate it (see [`SqlMarketStore::open_with`]).
    pub fn open(url: &str, snapshot: Snapshot) -> Result<SqlMarketStore, StoreError> {
        Self::open_with(url, snapshot, |_| Ok::<(), StoreError>(()))
    }

    /// [`SqlMarketStore::open`], then `set_up` on the opened store (e.g. filling a store that holds no market:
    /// [`SqlMarketStore::has_market`], [`SqlMarketStore::load_market`]) before any other process opening the same
    /// SQLite file gets its turn: processes starting together on a missing file end with one file, migrated and
    /// set up once, that all of them open. The turn is an exclusive lock on the file `PATH-lock` beside the
    /// database (created when missing and kept; the operating system releases the lock when its holder dies).
    /// `set_up` must leave the store unchanged when it fails or is killed midway (one transaction), so that the
    /// next opener sees it undone. On PostgreSQL `set_up` runs without a turn (the migrations take sqlx's advisory
    /// lock) and must be idempotent (the fill is). An in-memory or read-only SQLite database takes no turn.
    pub fn open_with<E: From<StoreError>>(
        url: &str,
        snapshot: Snapshot,
        set_up: impl FnOnce(&SqlMarketStore) -> Result<(), E>,
    ) -> Result<SqlMarketStore, E> {
        // A URL that names no database is refused before anything is created (the lock file included).
        Self::check_url(url)?;
        // Held until `set_up` returns (dropped at the end of this function), not while the store is used.
        let turn = setup::SetupLock::acquire(url)?;
        let opened = Self::connect(url, snapshot).map_err(E::from).and_then(|store| set_up(&store).map(|()| store));
        if opened.is_err() {
            // A failed open leaves no lock file it created behind (see `setup::SetupLock::abandon`).
            if let Some(turn) = turn {
                turn.abandon();
            }
        }
        opened
    }

    /// The engine of `url`, or why it names no database this store opens (another scheme, or a URL its driver
    /// does not parse). Touches nothing: commands check their URL with it before saying or creating anything.
    pub fn check_url(url: &str) -> Result<Engine, StoreError> {
        let engine = Engine::of_url(url).ok_or_else(|| StoreError::BadUrl { url: scheme_only(url) })?;
        sqlx::any::install_default_drivers();
        AnyConnectOptions::from_str(url).map_err(db("parsing the URL"))?;
        Ok(engine)
    }

    /// Connects to the database at `url` and runs the schema's migrations (the caller holds the setup lock).
    fn connect(url: &str, snapshot: Snapshot) -> Result<SqlMarketStore, StoreError> {
        let engine = Self::check_url(url)?;
        let graph = snapshot.into_graph().map_err(StoreError::Snapshot)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("market-store")
            .enable_all()
            .build()
            .map_err(StoreError::Runtime)?;
        sqlx::any::install_default_drivers();
        let url = match engine {
            // Create the file when missing.
            Engine::Sqlite if !url.contains("mode=") => {
                format!("{url}{}mode=rwc", if url.contains('?') { '&' } else { '?' })
            }
            _ => url.to_string(),
        };
        let pool = runtime.block_on(async {
            let options = AnyConnectOptions::from_str(&url).map_err(db("parsing the URL"))?;
            if engine == Engine::Postgres {
                probe(&options).await?;
            }
            let pool = AnyPoolOptions::new()
                .max_connections(if engine == Engine::Sqlite { 4 } else { 8 })
                .after_connect(move |conn, _| {
                    Box::pin(async move {
                        if engine == Engine::Sqlite {
                            // Readers do not wait for a writer (WAL); a writer waits for another instead of failing.
                            // `synchronous = NORMAL` in WAL mode: a commit is atomic and survives a crash of the
                            // process; only a power loss may drop the last commits (never half of one).
                            // A 64 MiB page cache per connection (the default is 2 MiB): a batch touches the hot
                            // end of each index (every asset's, pool's and trader's latest page) and the default
                            // cache re-read those pages for every statement. Sorts spill to memory, not files.
                            conn.execute(
                                "PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 10000; PRAGMA foreign_keys = ON; \
                                 PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY",
                            )
                            .await?;
                        }
                        Ok(())
                    })
                })
                .connect_with(options)
                .await
                .map_err(db("connecting"))?;
            schema::migrate(&pool, engine).await.map_err(StoreError::Migrate)?;
            Ok::<_, StoreError>(pool)
        })?;
        Ok(SqlMarketStore {
            bridge: Bridge(Some(runtime)),
            pool,
            engine,
            snapshot,
            graph,
            view: Mutex::new(None),
            stats: Mutex::new(stats::Cache::default()),
        })
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The snapshot graph (pools before any trade).
    pub fn graph(&self) -> &PoolGraph {
        &self.graph
    }

    pub(crate) fn block_on<F: Future>(&self, f: F) -> F::Output {
        // The runtime is only taken out by Drop.
        match &self.bridge.0 {
            Some(rt) => rt.block_on(f),
            None => unreachable!("the store's runtime lives as long as the store"),
        }
    }

    pub(crate) fn pool(&self) -> &AnyPool {
        &self.pool
    }

    /// The one number a `SELECT COUNT(*) …` answers; `operation` names it in errors.
    pub(crate) fn count(&self, sql: &'static str, operation: &'static str) -> Result<i64, StoreError> {
        self.block_on(async {
            let row = sqlx::query(sql).fetch_one(self.pool()).await.map_err(db(operation))?;
            row.try_get::<i64, _>(0).map_err(db(operation))
        })
    }

    /// How many trades the store holds.
    pub fn trade_count(&self) -> Result<i64, StoreError> {
        self.count("SELECT COUNT(*) FROM trades", "counting")
    }

    /// The statistics view the market routes answer from (`/coin`, `/coins`, pools, affiliates): the market's
    /// header, coins, pools and accounts, the recent trades and the all-time figures folded as trades arrive (see
    /// [`stats`]; it does not hold every trade), at the store's "now": the sample's `as_of`, or the latest trade
    /// when later. Cached until a trade is added; a new batch costs its own size plus the recent window.
    pub fn stats_view(&self) -> Result<Arc<MarketView>, StoreError> {
        // A poisoned lock only means another request panicked while refreshing: the fold state is rebuilt from
        // the start rather than trusted.
        let mut cache = self.stats.lock().unwrap_or_else(|p| {
            let mut c = p.into_inner();
            *c = stats::Cache::default();
            c
        });
        self.block_on(stats::view(self, &mut cache))
    }

    /// The trade id up to which the statistics fold's checkpoint is stored (`market_totals`, see [`stats`]), `None`
    /// when there is none: a process opening the store folds only the trades above it.
    pub fn statistics_checkpoint(&self) -> Result<Option<i64>, StoreError> {
        self.block_on(async {
            let row = sqlx::query("SELECT seen FROM market_totals WHERE id = 1")
                .fetch_optional(&self.pool)
                .await
                .map_err(db("reading the statistics checkpoint"))?;
            row.map(|r| r.try_get::<i64, _>(0)).transpose().map_err(db("reading the statistics checkpoint"))
        })
    }

    /// The whole market as the rows hold it now, every trade in memory (cached until a trade or liquidity event is added), the view
    /// of it at the store's "now" (see [`SqlMarketStore::stats_view`]). For tools and checks over small stores:
    /// the routes answer from [`SqlMarketStore::stats_view`], which does not read every row.
    pub fn view(&self) -> Result<Arc<MarketView>, StoreError> {
        let generation = self.block_on(async {
            let row = sqlx::query("SELECT COALESCE(MAX(id), 0) FROM trades")
                .fetch_one(&self.pool)
                .await
                .map_err(db("reading the latest trade"))?;
            let trades = row.try_get::<i64, _>(0).map_err(db("reading the latest trade"))?;
            // A liquidity event changes the view too: the generation is the pair of highest ids.
            Ok::<_, StoreError>((trades, liquidity::latest_id(self).await?))
        })?;
        {
            // A poisoned lock only means another request panicked while rebuilding: rebuild.
            let cached = self.view.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((g, v)) = cached.as_ref() {
                if *g == generation {
                    return Ok(v.clone());
                }
            }
        }
        let data = self.block_on(load::read_market(self))?;
        let graph = self.snapshot.into_graph().map_err(StoreError::Snapshot)?;
        let (file, trades) = data;
        let mut data = MarketData::from_stored(graph, &file, &trades).map_err(StoreError::Data)?;
        data.liquidity = self.block_on(liquidity::read_liquidity(self))?;
        // A liquidity event ingested after the last trade is part of the data too (the feed shows it).
        let last_event = data.trades.last().map(|t| t.time).into_iter().chain(data.liquidity.iter().map(|e| e.time));
        let now = data.as_of.max(last_event.max().unwrap_or(i64::MIN));
        let view = Arc::new(MarketView::new(Arc::new(data), now));
        *self.view.lock().unwrap_or_else(|p| p.into_inner()) = Some((generation, view.clone()));
        Ok(view)
    }

    fn in_memory(&self, operation: &'static str) -> Result<Arc<MarketView>, MarketError> {
        self.stats_view().map_err(|e| MarketError::Store(StoreFailure::new(operation, e)))
    }

    /// The view a screener-feed request answers from: the trades it needs, read by index ([`feed`]).
    fn feed(&self, operation: &'static str, which: feed::FeedTrades<'_>) -> Result<Arc<MarketView>, MarketError> {
        self.block_on(feed::view(self, which)).map_err(|e| MarketError::Store(StoreFailure::new(operation, e)))
    }
}

/// The scheme of a URL (a URL may carry a password; errors only repeat the scheme).
/// How long the first connection to a PostgreSQL server may take before the open fails.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// One connection to the server, made and closed before the pool is built: the pool retries a refused connection
/// until its acquire timeout (30 s) and then reports only `pool timed out`, while this fails at once with the
/// cause (connection refused, unknown host, authentication) or after [`CONNECT_TIMEOUT`].
async fn probe(options: &AnyConnectOptions) -> Result<(), StoreError> {
    use sqlx::ConnectOptions as _;
    match tokio::time::timeout(CONNECT_TIMEOUT, options.connect()).await {
        Ok(Ok(conn)) => {
            // The server answered; a failed goodbye changes nothing.
            let _ = sqlx::Connection::close(conn).await;
            Ok(())
        }
        Ok(Err(e)) => Err(db("connecting")(e)),
        Err(_) => Err(StoreError::ConnectTimeout(CONNECT_TIMEOUT.as_secs())),
    }
}

fn scheme_only(url: &str) -> String {
    url.split_once(':').map_or_else(|| "<no scheme>".to_string(), |(s, _)| format!("{s}:…"))
}

fn failed(operation: &'static str) -> impl FnOnce(StoreError) -> MarketError {
    move |e| MarketError::Store(StoreFailure::new(operation, e))
}

impl MarketStore for SqlMarketStore {
    super::view::view_operations!(Self::in_memory);

    fn coin_transactions(
        &self,
        query: &CoinTransactionsQuery,
    ) -> Result<Option<CoinTransactionsResponse>, MarketError> {
        self.block_on(queries::coin_transactions(self, query)).map_err(failed("coin_transactions"))
    }

    fn chart(&self, query: &ChartQuery) -> Result<ChartResponse, MarketError> {
        self.block_on(queries::chart(self, query)).map_err(failed("chart"))
    }

    fn chart_by_pool(&self, query: &ChartByPoolQuery) -> Result<ChartByPoolAddressResponse, MarketError> {
        self.block_on(queries::chart_by_pool(self, query))
    }

    fn affiliate_volume(
        &self,
        query: &AffiliateVolumeQuery,
    ) -> Result<Option<AffiliateAccountVolumeResponse>, MarketError> {
        let view = self.in_memory("affiliate_volume")?;
        let now = view.now();
        affiliate::affiliate_volume_with(&view, query, |wallet| self.block_on(stats::wallet_volume(self, wallet, now)))
            .map_err(failed("affiliate_volume"))
    }

    // Wallets and traders: `wallets.rs`.
    fn portfolio(&self, wallet: &TonAddress) -> Result<crate::portfolio::PortfolioResponse, MarketError> {
        self.portfolio_of(wallet)
    }

    fn holdings(
        &self,
        query: &crate::traders::HoldingsQuery,
    ) -> Result<crate::portfolio::HoldingsResponse, MarketError> {
        self.holdings_of(query)
    }

    fn top_traders(
        &self,
        query: &crate::traders::TopTradersQuery,
    ) -> Result<Option<crate::portfolio::TopTradersResponse>, MarketError> {
        self.top_traders_of(query)
    }

    fn traders(
        &self,
        query: &crate::traders::TradersQuery,
    ) -> Result<Option<crate::portfolio::TraderInfoListResponse>, MarketError> {
        self.traders_of(query)
    }

    fn trending(
        &self,
        query: &crate::trending::TrendingQuery,
    ) -> Result<crate::trending::TrendingCoinsResponse, MarketError> {
        self.trending_of(query)
    }

    // #23 part A. The feed reads the trades each request needs by index ([`feed`]); an asset, a pool's providers
    // and deposits need no trade beyond the statistics view's (current prices and reserves, the liquidity events).

    fn latest_block(&self) -> Result<Option<crate::portfolio::FeedBlock>, MarketError> {
        Ok(screener::latest_block(&*self.feed("latest_block", feed::FeedTrades::Latest)?))
    }

    fn feed_pair(&self, pool: &TonAddress) -> Result<Option<crate::portfolio::FeedPair>, MarketError> {
        if self.graph.pool_id(pool).is_none() {
            return Ok(None);
        }
        Ok(screener::feed_pair(&*self.feed("feed_pair", feed::FeedTrades::FirstOfPool(pool))?, pool))
    }

    fn feed_events(
        &self,
        query: &crate::screener::EventsQuery,
    ) -> Result<Vec<crate::portfolio::FeedEvent>, MarketError> {
        Ok(screener::feed_events(&*self.feed("feed_events", feed::FeedTrades::Blocks(query))?, query))
    }

    fn liquidity_position(
        &self,
        query: &crate::positions::PositionQuery,
    ) -> Result<Option<crate::portfolio::PortfolioLiquidityPositionResponse>, MarketError> {
        self.liquidity_position_of(query)
    }

    fn earnings(&self, wallet: &TonAddress) -> Result<crate::portfolio::PortfolioEarningsResponse, MarketError> {
        self.earnings_of(wallet)
    }
}
