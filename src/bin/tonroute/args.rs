//! The command line, all of it: every command and flag a user can type, with its help text. Parsing only;
//! what a command does lives in `cmd/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Exact swap routing for TON DEXes.
#[derive(Parser, Debug)]
#[command(name = "tonroute", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// One command.
#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// Best route(s) for swapping AMOUNT of IN into OUT (AMOUNT: an integer in smallest units, or whole tokens
    /// as 1.5 or 100TON).
    Quote(QuoteArgs),
    /// Build the swap messages for a quote read from stdin (a /v4/router/quote response, or its swap_data).
    Swap(SwapArgs),
    /// Serve the /v4 API over HTTP.
    #[cfg(feature = "server")]
    Serve(ServeArgs),
    /// Import saved exchange API responses (STON.fi /v1/pools, /v1/routers, /v1/assets; DeDust /v2/pools; TONCO
    /// indexer pools with positions) or saved get-method answers of the pools themselves (`{"get_methods": …}`),
    /// each recognised from its content, into a snapshot `quote --snapshot` reads. Prints what was imported
    /// and skipped; on any error nothing is written.
    Import(ImportArgs),
    /// Build a snapshot from the exchanges' live APIs and toncenter, and with --watch keep it fresh.
    #[cfg(feature = "sync")]
    Sync(SyncArgs),
    /// Market data in a database (SQLite or PostgreSQL).
    #[cfg(feature = "store")]
    #[command(subcommand)]
    Market(MarketCommand),
    /// Write every pool of a snapshot into a NATS JetStream key-value bucket that replicas (`serve --nats`)
    /// follow; creates the bucket when missing.
    #[cfg(feature = "nats")]
    Publish(PublishArgs),
}

/// The snapshot a command routes on.
#[derive(Args, Debug, Clone, Default)]
pub(crate) struct SnapshotArg {
    /// Snapshot file (default: data/snapshot.json of the current directory, else of $TONROUTE_DATA_DIR when
    /// set, else of the source tree the binary was built from).
    #[arg(long)]
    pub(crate) snapshot: Option<PathBuf>,
}

/// `tonroute quote`.
#[derive(Args, Debug)]
// A negative AMOUNT or limit (`-5`, `--slippage-bps -1`) reaches the API's check and its documented code (1015,
// 1020..=1022) instead of clap's "unexpected argument".
#[command(allow_negative_numbers = true)]
pub(crate) struct QuoteArgs {
    /// Asset offered: `native`, `jetton:0:<hex>`, `0:<hex>`, a friendly master address, or a ticker that names
    /// exactly one asset of the snapshot (`TON`, `USDT`).
    #[arg(value_name = "IN")]
    pub(crate) in_asset: String,
    /// Asset wanted (same forms).
    #[arg(value_name = "OUT")]
    pub(crate) out_asset: String,
    /// Amount offered: an integer is in the asset's smallest units (nanotons for TON: 1000000000 = 1 TON); a
    /// decimal point or a ticker suffix means whole tokens (1.5, 100TON, 2.5USDT), converted exactly with the
    /// asset's decimals. With `--exact-out`, the amount of OUT wanted.
    pub(crate) amount: String,
    /// AMOUNT is the output wanted: find the smallest input that pays at least it.
    #[arg(long)]
    pub(crate) exact_out: bool,
    /// Most parallel routes (1..=20).
    #[arg(long, default_value_t = 4)]
    pub(crate) max_splits: i64,
    /// Most hops per route (1..=5).
    #[arg(long, default_value_t = 3)]
    pub(crate) max_length: i64,
    /// Slippage tolerance in basis points (0..=10000).
    #[arg(long, default_value_t = 100)]
    pub(crate) slippage_bps: i64,
    #[command(flatten)]
    pub(crate) snapshot: SnapshotArg,
    /// Print the /v4/router/quote response instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also compute the quote's optimality certificate: an upper bound on what any routing of the same input
    /// could get on the snapshot, and how far the quote is from it (`certificate` in the JSON).
    #[arg(long)]
    pub(crate) certify: bool,
}

/// `tonroute swap`.
#[derive(Args, Debug)]
pub(crate) struct SwapArgs {
    /// The wallet that signs and receives (a raw address may start with `-`: `--sender -1:…`).
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) sender: String,
    #[command(flatten)]
    pub(crate) snapshot: SnapshotArg,
    /// Build the messages as of this unix time (seconds) instead of the clock: the deadline is 15 minutes
    /// later and the query id its milliseconds. Makes the bytes reproducible (a test chain has its own clock).
    #[arg(long, value_name = "UNIX_SECONDS", value_parser = swap_now)]
    pub(crate) now: Option<u64>,
}

/// The latest `swap --now`: the query id is its milliseconds, which stay at most 2^53 − 1 (JavaScript's exact
/// integers, the bound the npm package puts on `nowMs`).
pub(crate) const MAX_NOW_SECS: u64 = ((1u64 << 53) - 1) / 1000;

/// `--now`: whole unix seconds whose milliseconds fit the query id's bound ([`MAX_NOW_SECS`]).
fn swap_now(text: &str) -> Result<u64, String> {
    let seconds: u64 = text.parse().map_err(|_| format!("`{text}` is not unix time in whole seconds (0 or more)"))?;
    if seconds > MAX_NOW_SECS {
        return Err(format!(
            "{seconds} is after {MAX_NOW_SECS}: the query id is the time in milliseconds and must stay below 2^53 \
             (JavaScript's exact integers)"
        ));
    }
    Ok(seconds)
}

/// `tonroute serve`.
#[cfg(feature = "server")]
#[derive(Args, Debug)]
pub(crate) struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub(crate) addr: String,
    #[command(flatten)]
    pub(crate) snapshot: SnapshotArg,
    /// Routing time budget per request, milliseconds, from its arrival: the search stops there with the best
    /// route found (503 code 5002 if none yet).
    #[arg(long, default_value_t = 2000)]
    pub(crate) budget_ms: u64,
    /// Quotes and swaps computed at once (default: one per core).
    #[arg(long)]
    pub(crate) routing_slots: Option<usize>,
    /// Requests that may wait for a routing slot; beyond them, 503 code 5003 with Retry-After at once
    /// (default: 64 per slot).
    #[arg(long)]
    pub(crate) queue: Option<usize>,
    /// How long a quote may compute on the async worker that received it, microseconds; one not done by then
    /// is computed again on the blocking pool. 0 sends every quote to the blocking pool.
    #[arg(long, default_value_t = tonroute::server::DEFAULT_QUOTE_INLINE.as_micros() as u64)]
    pub(crate) quote_inline_us: u64,
    /// Market-data file (e.g. data/market.json) generated on the same snapshot, replayed in memory: serves
    /// /coins, /chart, pools and affiliates as of the file's `as_of`, and the router sees the pools after its
    /// trades. Without it the market data comes from `--market-db` (by default data/market.db, filled from the
    /// bundled sample, over the bundled snapshot only: another snapshot serves no market data unless one is named).
    #[arg(long, conflicts_with = "market_db")]
    pub(crate) market: Option<PathBuf>,
    /// Request logs as JSON lines (default: text). Both go to stderr, filtered by RUST_LOG (default `info`:
    /// one line per request; `RUST_LOG=warn` silences them).
    #[arg(long)]
    pub(crate) log_json: bool,
    /// After SIGTERM / SIGINT: seconds the requests in flight may take to finish before the server exits
    /// anyway.
    #[arg(long, default_value_t = 30)]
    pub(crate) shutdown_grace_secs: u64,
    #[command(flatten)]
    pub(crate) market_db: MarketDbArgs,
    /// File of admin tokens, one `name:token` (or bare token) per line, `#` comments; adds to the
    /// TONROUTE_ADMIN_TOKEN environment variable. Without either, /v4/admin/* answers 403.
    #[arg(long, value_name = "FILE")]
    pub(crate) admin_token_file: Option<PathBuf>,
    /// Longest a request body may take to arrive, milliseconds (then 408 and the connection closes).
    #[arg(long, default_value_t = 10_000)]
    pub(crate) body_timeout_ms: u64,
    /// Longest a started request head may take to arrive, milliseconds (slow clients are closed).
    #[arg(long, default_value_t = 10_000)]
    pub(crate) header_timeout_ms: u64,
    /// Close a connection with no request in flight after this many milliseconds without traffic.
    #[arg(long, default_value_t = 60_000)]
    pub(crate) idle_timeout_ms: u64,
    /// Most open connections; at the cap a new one closes the one that held its slot longest without using
    /// it (idle, or a request body that stopped arriving); 503 if all are busy. Lowered at start to fit the
    /// open-file limit.
    #[arg(long, default_value_t = 1024)]
    pub(crate) max_connections: usize,
    /// Most open connections from one client IP (the TCP peer), the same way (503 code 5011 when all of
    /// them are busy); 0 = no per-IP cap (behind a proxy every client is the proxy). Default: half the
    /// connection cap.
    #[arg(long)]
    pub(crate) max_connections_per_ip: Option<usize>,
    /// Resident memory the server plans for, MB: what is left after the loaded data, the connections'
    /// buffers and a headroom is the budget of answers held in memory at once (503 code 5004 beyond it).
    #[arg(long, default_value_t = 512)]
    pub(crate) memory_budget_mb: u64,
    /// Market-data computations at once (default: one per two cores, at least one).
    #[arg(long)]
    pub(crate) market_slots: Option<usize>,
    /// Market requests that may wait for a slot; beyond them, 503 code 5003 with Retry-After at once
    /// (default: 16 per market slot).
    #[arg(long)]
    pub(crate) market_queue: Option<usize>,
    /// A header that a proxy in front of every request sets to the client's address (e.g. x-forwarded-for,
    /// whose last entry is taken, or x-real-ip): request and audit logs and --rate-limit use it instead of
    /// the TCP peer. Set it only behind such a proxy: otherwise any client can name any address.
    #[arg(long, value_name = "HEADER")]
    pub(crate) client_ip_header: Option<String>,
    /// Serve GET /metrics on this address only (e.g. 127.0.0.1:9090), not with the API. The
    /// TONROUTE_METRICS_TOKEN environment variable, when set, makes /metrics require it as a bearer token.
    #[arg(long, value_name = "ADDR")]
    pub(crate) metrics_addr: Option<String>,
    /// Per-client request rate, `N/s` (token bucket per client IP, burst N); over it: 429 + Retry-After.
    #[arg(long, value_name = "N/s")]
    pub(crate) rate_limit: Option<tonroute::server::RateLimit>,
    /// Largest factor by which one /v4/admin/reserves update may move a pool's price (either way); a bigger
    /// move (reserves in the wrong order, a missing digit) is refused with code 1033 unless the batch is sent
    /// as `{"force": true, "updates": [...]}`.
    #[arg(long, value_name = "FACTOR", default_value_t = tonroute::api::admin::DEFAULT_MAX_PRICE_MOVE,
          value_parser = clap::value_parser!(u64).range(2..))]
    pub(crate) max_price_move: u64,
    /// Follow the pool states of a NATS JetStream key-value bucket (e.g. nats://127.0.0.1:4222): after loading
    /// the snapshot, apply every entry of the bucket and each later change while serving; keep quoting on the
    /// last state when NATS is away, and catch up when it is back. /health reports it.
    #[cfg(feature = "nats")]
    #[arg(long, value_name = "URL")]
    pub(crate) nats: Option<String>,
    /// The bucket to follow.
    #[cfg(feature = "nats")]
    #[arg(long, value_name = "NAME", default_value = tonroute::feed::DEFAULT_BUCKET, requires = "nats")]
    pub(crate) bucket: String,
    /// With --nats: the server opens its port once the stream is live (caught up with the bucket), waiting
    /// at most this many milliseconds; NATS not reachable by then is reported `down` (/health, /metrics, one
    /// log line with the URL and the reason) and the server serves the snapshot while it keeps retrying.
    #[cfg(feature = "nats")]
    #[arg(long, value_name = "MS", default_value_t = tonroute::feed::watch::DEFAULT_CONNECT_WAIT.as_millis() as u64,
          requires = "nats")]
    pub(crate) nats_wait_ms: u64,
}

/// Where market data is stored.
#[cfg(feature = "store")]
#[derive(Args, Debug, Clone)]
pub(crate) struct MarketDbArgs {
    /// Market database: `sqlite://PATH` (created when missing) or `postgres://USER@HOST:PORT/DB` (default: the
    /// embedded SQLite file data/market.db).
    #[arg(long = "market-db", value_name = "URL")]
    pub(crate) market_db: Option<String>,
    /// Market file that fills a database holding no market yet (default: the bundled data/market.json). A file
    /// given is read and checked before the database is opened.
    #[arg(long, value_name = "FILE")]
    pub(crate) market_seed: Option<PathBuf>,
}

/// `tonroute market …`.
#[cfg(feature = "store")]
#[derive(Subcommand, Debug)]
pub(crate) enum MarketCommand {
    /// Store trades, liquidity events and wallet balances from JSON-lines files (one CoinTransaction, one
    /// liquidity event with an `event` field, or one balance with an `owner` field, per line); each file is one
    /// transaction.
    Ingest(IngestArgs),
}

/// `tonroute market ingest`.
#[cfg(feature = "store")]
#[derive(Args, Debug)]
pub(crate) struct IngestArgs {
    /// Market database URL: `sqlite://PATH` (created when missing; a relative PATH is from the current
    /// directory) or `postgres://…` (default: the database `tonroute serve` reads, data/market.db beside the
    /// bundled data).
    #[arg(long, value_name = "URL")]
    pub(crate) db: Option<String>,
    /// Market file that fills a database holding no market yet (default: the bundled data/market.json). A file
    /// given is read and checked before the database is opened.
    #[arg(long, value_name = "FILE")]
    pub(crate) market_seed: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) snapshot: SnapshotArg,
    /// JSON-lines files: trades, liquidity events and wallet balances, one per line (docs/market-lines.md). Every
    /// file is checked before the database is opened; each is then stored in one transaction.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
}

/// `tonroute publish`.
#[cfg(feature = "nats")]
#[derive(Args, Debug)]
pub(crate) struct PublishArgs {
    /// NATS server URL (e.g. nats://127.0.0.1:4222).
    #[arg(long, value_name = "URL")]
    pub(crate) nats: String,
    /// The bucket.
    #[arg(long, value_name = "NAME", default_value = tonroute::feed::DEFAULT_BUCKET)]
    pub(crate) bucket: String,
    #[command(flatten)]
    pub(crate) snapshot: SnapshotArg,
    /// Masterchain block seqno the snapshot was read at: stamps every value. Replicas refuse a later value
    /// with an older stamp, so a publish older than what the bucket holds for any of its pools is refused
    /// whole (exit 2, nothing written).
    #[arg(long)]
    pub(crate) seqno: Option<u32>,
    /// Unix time (seconds) the snapshot was read at (a stamp like --seqno).
    #[arg(long)]
    pub(crate) time: Option<u64>,
}

/// `tonroute import`.
#[derive(Args, Debug)]
pub(crate) struct ImportArgs {
    /// Saved responses.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Snapshot to import onto: its assets, protocols and wallets are kept, its pools too unless an imported
    /// pool has the same address.
    #[arg(long)]
    pub(crate) base: Option<PathBuf>,
    /// Snapshot file to write (replaced atomically).
    #[arg(long)]
    pub(crate) out: PathBuf,
}

/// `tonroute sync`: where and how it reads, from the command line and the environment.
#[cfg(feature = "sync")]
#[derive(Args, Debug)]
pub(crate) struct SyncArgs {
    /// Snapshot file to write, replaced atomically. When it exists, its pools are the last good state of pools
    /// whose read fails, and of an exchange whose list cannot be fetched.
    #[arg(long)]
    pub(crate) out: PathBuf,
    /// After the build, follow the chain: each round reads the masterchain blocks since the last one, re-reads
    /// only the pools they touched, and rewrites OUT when a pool changed.
    #[arg(long)]
    pub(crate) watch: bool,
    /// With --watch, stop after this many rounds (default: until Ctrl-C).
    #[arg(long, requires = "watch")]
    pub(crate) rounds: Option<u64>,
    /// With --watch, how often to poll for a new masterchain block, milliseconds.
    #[arg(long, default_value_t = 2000, requires = "watch")]
    pub(crate) poll_ms: u64,
    /// Exchanges to read, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "stonfi,dedust,tonco")]
    pub(crate) sources: Vec<SyncSource>,
    /// One base URL for all four APIs (a proxy or a local replay: `/v1/pools`, `/v2/pools`, `/tonco/graphql`,
    /// `/api/v3/…` below it). The per-API URLs override it.
    #[arg(long, env = "TONROUTE_API_BASE")]
    pub(crate) api_base: Option<String>,
    /// STON.fi API base URL [default: https://api.ston.fi].
    #[arg(long, env = "TONROUTE_STONFI_URL")]
    pub(crate) stonfi_url: Option<String>,
    /// DeDust API base URL [default: https://api.dedust.io].
    #[arg(long, env = "TONROUTE_DEDUST_URL")]
    pub(crate) dedust_url: Option<String>,
    /// TONCO indexer GraphQL URL [default: https://indexer.tonco.io].
    #[arg(long, env = "TONROUTE_TONCO_URL")]
    pub(crate) tonco_url: Option<String>,
    /// toncenter base URL [default: https://toncenter.com]. The API key is read from TONCENTER_API_KEY only.
    #[arg(long, env = "TONROUTE_TONCENTER_URL")]
    pub(crate) toncenter_url: Option<String>,
    /// Requests per second over all endpoints [default: toncenter's limit, 1 without TONCENTER_API_KEY, 10
    /// with it].
    #[arg(long, env = "TONROUTE_SYNC_RATE")]
    pub(crate) rate: Option<f64>,
    /// Timeout of one request attempt, milliseconds.
    #[arg(long, default_value_t = 20_000)]
    pub(crate) timeout_ms: u64,
    /// Attempts per request (retries back off exponentially with jitter; 429 waits out Retry-After).
    #[arg(long, default_value_t = 5)]
    pub(crate) attempts: u32,
    /// Log events (each watch round, failed reads and rounds, publishing) as JSON lines (default: text). Both go
    /// to stderr, filtered by RUST_LOG (default `info`).
    #[arg(long)]
    pub(crate) log_json: bool,
    /// Publish to the reserve stream replicas follow (`serve --nats`), a NATS JetStream key-value bucket (e.g.
    /// nats://127.0.0.1:4222): every pool after the build (bootstraps an empty bucket), then what each watch
    /// round changed, stamped with the masterchain block it was read at. Unreachable at start: exit 2, nothing
    /// written.
    #[cfg(feature = "nats")]
    #[arg(long, value_name = "URL")]
    pub(crate) nats: Option<String>,
    /// The bucket to publish to.
    #[cfg(feature = "nats")]
    #[arg(long, value_name = "NAME", default_value = tonroute::feed::DEFAULT_BUCKET, requires = "nats")]
    pub(crate) bucket: String,
    /// With --watch, write the trades each round's state changes show into this market database
    /// (`sqlite://PATH`, created when missing, or `postgres://…`): reserves of a pool moving in opposite
    /// directions are a swap, stored as a trade (one transaction per round; the same swap is stored once);
    /// both moving the same way are liquidity events, stored beside them. Concentrated pools are excluded.
    #[cfg(feature = "store")]
    #[arg(long = "market-db", value_name = "URL", requires = "watch")]
    pub(crate) market_db: Option<String>,
    /// With --market-db, a wallet (owner address, any form) whose balances are stored too: its TON balance and
    /// every jetton wallet it owns, read from toncenter after the build and after each round, written with that
    /// block (latest as-of wins). Repeatable.
    #[cfg(feature = "store")]
    #[arg(long = "wallet", value_name = "ADDR", requires = "market_db", allow_hyphen_values = true)]
    pub(crate) wallet: Vec<String>,
    /// With --market-db, a file of wallets tracked like --wallet: one owner address per line (blank lines and
    /// `#` comments ignored).
    #[cfg(feature = "store")]
    #[arg(long = "wallets", value_name = "FILE", requires = "market_db")]
    pub(crate) wallets: Option<std::path::PathBuf>,
}

/// An exchange `sync` can read.
#[cfg(feature = "sync")]
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SyncSource {
    /// STON.fi v1 and v2.
    Stonfi,
    /// DeDust.
    Dedust,
    /// TONCO.
    Tonco,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn the_command_line_is_consistent() {
        // clap's own check: no duplicate flags, defaults that parse, value names that fit.
        Cli::command().debug_assert();
    }
}
