//! `tonroute serve`: the `/v4` API over HTTP (feature `server`), optionally with market data replayed on the
//! same snapshot, and with `--nats` (feature `nats`) following the reserve stream. The snapshot file is read
//! and parsed once; the market data gets its own graph of it (the pools before its trades), the router the
//! live one (the pools after them, then whatever the stream brings).

use std::sync::Arc;
use std::time::Duration;

use tonroute::api::admin::AdminPolicy;
use tonroute::api::Api;
use tonroute::market::types::DateTime;
use tonroute::market::{MarketData, MarketView};
use tonroute::server::auth::TOKEN_ENV;
use tonroute::server::metrics::Metrics;
use tonroute::server::resources;
use tonroute::server::shutdown::{self, Shutdown};
use tonroute::server::{app_with, serve_app_with, AdminAuth, BearerToken, ConnLimits, Limits, ServerConfig};

/// The environment variable holding the token `GET /metrics` requires (none: open).
const METRICS_TOKEN_ENV: &str = "TONROUTE_METRICS_TOKEN";

use super::LoadedSnapshot;
use crate::args::ServeArgs;
use crate::error::CliError;
use crate::logs::{self, LogFormat};

pub(super) fn run(args: ServeArgs) -> Result<(), CliError> {
    // The addresses first: a typo is reported before the snapshot and the market database are loaded.
    check_addr("--addr", &args.addr)?;
    if let Some(addr) = &args.metrics_addr {
        check_addr("--metrics-addr", addr)?;
    }
    logs::init(if args.log_json { LogFormat::Json } else { LogFormat::Text }).map_err(CliError::Logs)?;
    let admin = AdminAuth::from_sources(std::env::var(TOKEN_ENV).ok().as_deref(), args.admin_token_file.as_deref())
        .map_err(CliError::AdminToken)?;
    let metrics_token = match std::env::var(METRICS_TOKEN_ENV).ok().filter(|t| !t.trim().is_empty()) {
        Some(t) => Some(Arc::new(BearerToken::new(&t, METRICS_TOKEN_ENV).map_err(CliError::AdminToken)?)),
        None => None,
    };
    let client_ip_header = match &args.client_ip_header {
        Some(name) => Some(
            axum::http::HeaderName::try_from(name.trim().to_ascii_lowercase())
                .map_err(|_| CliError::ServeSettings(format!("--client-ip-header: `{name}` is not a header name")))?,
        ),
        None => None,
    };
    // The bundled market sample describes the bundled snapshot's pools: the default market database is opened
    // (and filled from it) only over that snapshot, or when a market database is named.
    let bundled_snapshot = args.snapshot.snapshot.is_none();
    let snapshot = LoadedSnapshot::read(args.snapshot)?;
    // A replica may start empty and fill from the bucket (its full entries add pools); without one, an empty
    // snapshot serves nothing.
    #[cfg(feature = "nats")]
    let fills_from_bucket = args.nats.is_some();
    #[cfg(not(feature = "nats"))]
    let fills_from_bucket = false;
    if !fills_from_bucket {
        snapshot.require_pools()?;
    }
    let graph = Arc::new(snapshot.graph()?);
    let (assets, pools) = (graph.asset_count(), graph.pool_count());
    let mut api = Api::new(graph.clone());
    if let Some(path) = args.market {
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(source) => return Err(CliError::ReadMarket { path, source }),
        };
        let data = match MarketData::from_json(snapshot.graph()?, &text) {
            Ok(data) => data,
            Err(source) => return Err(CliError::Market { path, source }),
        };
        // The router continues from where the sample's trades left the pools (a concentrated pool from its
        // replayed state).
        if let Err(source) = data.apply_to(&graph, data.as_of) {
            return Err(CliError::ApplyMarket { path, source });
        }
        announce(&data);
        let data = Arc::new(data);
        api = api.with_market(Arc::new(MarketView::new(data.clone(), data.as_of)));
    } else if bundled_snapshot || args.market_db.market_db.is_some() || args.market_db.market_seed.is_some() {
        api = api.with_market(super::market::serve_store(args.market_db, &snapshot)?);
    } else {
        eprintln!("tonroute: no market data over this snapshot (--market-db URL or --market FILE serves it)");
    }
    drop(snapshot);
    if admin.is_enabled() {
        eprintln!("tonroute: admin routes on, tokens: {}", admin.names().collect::<Vec<_>>().join(", "));
    } else {
        eprintln!("tonroute: admin routes off (403): set {TOKEN_ENV} or --admin-token-file to enable them");
    }
    let limits = Limits {
        body_timeout: Duration::from_millis(args.body_timeout_ms.max(1)),
        rate_limit: args.rate_limit,
        ..Limits::default()
    };
    let max_connections = fit_connections(args.max_connections.max(1));
    let answer_budget = fit_memory(args.memory_budget_mb, max_connections)?;
    let conn = ConnLimits {
        header_timeout: Duration::from_millis(args.header_timeout_ms.max(1)),
        idle_timeout: Duration::from_millis(args.idle_timeout_ms.max(1)),
        max_connections,
        max_per_ip: args.max_connections_per_ip.unwrap_or(max_connections / 2),
        answer_budget,
    };
    let routing_budget = Duration::from_millis(args.budget_ms.max(1));
    let quote_inline = Duration::from_micros(args.quote_inline_us);
    let admin_policy = AdminPolicy { max_price_move: args.max_price_move };
    let mut config = ServerConfig {
        routing_budget,
        quote_inline,
        admin,
        limits,
        conn,
        admin_policy,
        client_ip_header,
        metrics_on_main: args.metrics_addr.is_none(),
        metrics_token: metrics_token.clone(),
        ..ServerConfig::default()
    };
    if let Some(slots) = args.market_slots {
        config.market_shed.slots = slots.max(1);
        config.market_shed.queue = 16 * config.market_shed.slots;
    }
    if let Some(queue) = args.market_queue {
        config.market_shed.queue = queue;
    }
    if let Some(slots) = args.routing_slots {
        config.shed.slots = slots.max(1);
        config.shed.queue = 64 * config.shed.slots;
    }
    if let Some(queue) = args.queue {
        config.shed.queue = queue;
    }
    // Every blocking task runs behind a slot (routing, market) or is an admin batch: a bounded pool is a
    // backstop, not a limit anyone should meet.
    let blocking = (config.shed.slots + config.market_shed.slots) * 2 + 16;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(blocking)
        .build()
        .map_err(CliError::Runtime)?;
    let grace = Duration::from_secs(args.shutdown_grace_secs);
    let served = runtime.block_on(async move {
        // Kept alive while serving: the replica task follows the bucket into the API's live graph.
        #[cfg(feature = "nats")]
        let (api, _replica) = follow(api, args.nats, args.bucket, Duration::from_millis(args.nats_wait_ms)).await?;
        let addr = args.addr;
        let listener = match tonroute::server::conn::bind(&addr).await {
            Ok(listener) => listener,
            Err(source) => return Err(CliError::Bind { flag: "--addr", addr, source }),
        };
        let local =
            listener.local_addr().map_err(|source| CliError::Bind { flag: "--addr", addr: addr.clone(), source })?;
        let metrics = Arc::new(Metrics::new());
        let stop = Shutdown::new();
        stop.fire_on(shutdown::signal());
        if let Some(addr) = args.metrics_addr {
            let listener = match tonroute::server::conn::bind(&addr).await {
                Ok(listener) => listener,
                Err(source) => return Err(CliError::Bind { flag: "--metrics-addr", addr, source }),
            };
            let at = listener.local_addr().map_err(|source| CliError::Bind {
                flag: "--metrics-addr",
                addr: addr.clone(),
                source,
            })?;
            eprintln!("tonroute: metrics on http://{at}/metrics");
            let scrape = tonroute::server::metrics::router(metrics.clone(), metrics_token);
            let limits = ConnLimits { max_connections: 64, max_per_ip: 0, ..conn };
            let stats = Arc::new(tonroute::server::ConnStats::default());
            tokio::spawn(tonroute::server::conn::serve_connections(listener, scrape, limits, stats, stop.fired()));
        }
        eprintln!("tonroute: serving {assets} assets, {pools} pools on http://{local}");
        let stats = metrics.connections();
        serve_app_with(listener, app_with(api, config, metrics), conn, stats, stop, grace)
            .await
            .map_err(CliError::Serve)
    });
    // Routing checks its deadline, so no blocking task outlives its budget by much; do not wait for one
    // longer than that (the answers it would give have no connection left to go to).
    runtime.shutdown_timeout(routing_budget);
    if served.is_ok() {
        eprintln!("tonroute: stopped");
    }
    served
}

/// Raises the open-file limit toward its hard limit and fits `wanted` connections under it (said on stderr
/// when it does not fit).
fn fit_connections(wanted: usize) -> usize {
    let Some(limit) = resources::raise_limit() else { return wanted };
    let open = resources::open_descriptors().unwrap_or(0);
    let cap = resources::fit_connections(wanted, limit, open);
    if cap < wanted {
        eprintln!(
            "tonroute: --max-connections {wanted} lowered to {cap}: the open-file limit is {limit} ({open} open, {} \
             kept for files and the store); raise it with `ulimit -n`",
            resources::headroom(limit)
        );
    }
    cap
}

/// The answer budget within `budget_mb` of resident memory, measured after loading (said on stderr); an
/// error when the loaded data and the connections leave too little.
fn fit_memory(budget_mb: u64, connections: usize) -> Result<usize, CliError> {
    const MB: u64 = 1024 * 1024;
    let Some(resident) = resources::resident_bytes() else { return Ok(usize::MAX) };
    let budget = budget_mb.saturating_mul(MB);
    match resources::answer_budget(budget, resident, connections) {
        Some(answers) => {
            eprintln!(
                "tonroute: memory budget {budget_mb} MB: {} MB in use after loading, {} MB for {connections} \
                 connections, {} MB headroom: {} MB for answers in flight",
                resident / MB,
                resources::PER_CONNECTION * connections as u64 / MB,
                resources::HEADROOM / MB,
                answers / MB
            );
            Ok(usize::try_from(answers).unwrap_or(usize::MAX))
        }
        None => Err(CliError::ServeSettings(format!(
            "--memory-budget-mb {budget_mb} is too small: {} MB are in use after loading, {connections} connections \
             may hold {} MB and {} MB are kept as headroom; raise it or lower --max-connections",
            resident / MB,
            resources::PER_CONNECTION * connections as u64 / MB,
            resources::HEADROOM / MB
        ))),
    }
}

/// Says what market data is served.
pub(super) fn announce(data: &MarketData) {
    let as_of =
        DateTime::from_unix(data.as_of).map_or_else(|| format!("{} (Unix seconds)", data.as_of), |d| d.to_string());
    eprintln!("tonroute: market data: {} coins, {} trades, as of {as_of}", data.coins.len(), data.trades.len());
}

/// With `--nats URL`: a replica following `bucket` into the API's live graph (on the current runtime), its
/// state reported by `/health`, and returned once it is live or at most `wait` later (see [`ready`]). Without
/// it, the API unchanged.
#[cfg(feature = "nats")]
async fn follow(
    api: Api,
    url: Option<String>,
    bucket: String,
    wait: Duration,
) -> Result<(Api, Option<tonroute::feed::Replica>), CliError> {
    let Some(url) = url else { return Ok((api, None)) };
    let mut config = tonroute::feed::ReplicaConfig::new(&url);
    config.bucket = bucket.clone();
    config.connect_wait = wait;
    let replica = tonroute::feed::Replica::spawn(Arc::clone(api.live_graph()), config).map_err(CliError::Follow)?;
    eprintln!("tonroute: following bucket {bucket} at {url}");
    ready(replica.stats(), wait).await;
    Ok((api.with_feed(Arc::clone(replica.stats())), Some(replica)))
}

/// Waits until the stream is live (caught up: `/health` says `ok` from the first request) or settled `down`
/// (NATS not reachable within `wait`: the replica reports that itself at `wait`), or, when catching up takes
/// longer than `wait`, until then. Says how it ended.
#[cfg(feature = "nats")]
async fn ready(stats: &tonroute::feed::FeedStats, wait: Duration) {
    use tonroute::feed::StreamState;
    let started = std::time::Instant::now();
    // The replica leaves `connecting` at `wait` on its own; the margin only guards against a stuck task.
    let give_up = wait + Duration::from_secs(2);
    loop {
        let (state, waited) = (stats.state(), started.elapsed());
        let done = match state {
            StreamState::Live | StreamState::Down => true,
            StreamState::CatchingUp => waited >= wait,
            StreamState::Connecting => waited >= give_up,
        };
        if done {
            let ms = waited.as_millis();
            match state {
                StreamState::Live => eprintln!("tonroute: stream live at revision {} after {ms} ms", stats.revision()),
                other => eprintln!(
                    "tonroute: stream {} after {ms} ms (--nats-wait-ms {}): serving, /health says degraded until it is live",
                    other.name(),
                    wait.as_millis()
                ),
            }
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// `addr` as `--addr` takes it (`HOST:PORT`, a host name resolved as binding resolves it), checked before
/// anything is loaded; binding it may still fail later (a port in use).
fn check_addr(flag: &str, addr: &str) -> Result<(), CliError> {
    use std::net::ToSocketAddrs as _;
    let bad = |why: String| {
        CliError::ServeSettings(format!("{flag} `{addr}`: {why}; expected HOST:PORT, e.g. 127.0.0.1:8080"))
    };
    match addr.to_socket_addrs().map(|mut found| found.next()) {
        Ok(Some(_)) => Ok(()),
        Ok(None) => Err(bad("it resolves to no address".to_string())),
        Err(e) => Err(bad(e.to_string())),
    }
}
