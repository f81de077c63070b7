//! `tonroute serve` (feature `server`): the `/v4` operations and the market data over HTTP, with axum + tokio.
//!
//! Owns the transport only: routes, reading bodies (the size limit [`tonroute_api::MAX_BODY_BYTES`],
//! enforced while reading, before any parsing), the per-request routing time budget (counted from arrival;
//! routing runs behind [`shed`]'s bounded queue, a quote first for a short slice on the worker that received it
//! and, when not done by then, on the blocking pool; the search itself reads the
//! deadline through a [`tonroute_core::route::Budget`], stopping with the best route found or 503
//! [`ErrorCode::RoutingTimeout`]), the operations layer ([`metrics`], [`logging`], [`shutdown`]), the clock that derives a swap's `query_id` and deadline, and
//! turning an [`ApiError`] into a response with its status. It must not parse request bodies, validate
//! fields, compute routes or choose error codes: all of that is [`Api`]'s, shared with the CLI and the fuzz
//! targets, so HTTP clients, the shell and the fuzzers see the same answers.
//!
//! Shape, for the layers still to come (authentication, metrics, access logs, OpenAPI): the whole
//! application is built by one function, [`app`] (routes, then fallbacks, then state; a `tower` layer goes on
//! its result), and everything a handler reads is one struct, [`AppState`].
//!
//! Routes: `POST /v4/router/quote`, `POST /v4/router/swap`, `POST /v4/admin/reserves` (reserve updates
//! applied in place while quotes keep being served), `GET /health`. Every error, including unknown paths,
//! wrong methods, oversized bodies and timeouts, is the spec's `{code, message}` object with its status.
//! Market data (docs/interface.md area A, when the [`Api`] has a [`tonroute_market::MarketStore`]; each route runs on the
//! blocking pool, since a store may wait on its database): `GET /coin`,
//! `/coins`, `/coins/{asset}/resolver`, `/coin_transactions`, `/chart`, `/chart_by_pool_address`,
//! `/affiliate/accounts/{id}`, `/affiliate/accounts/{id}/volume`, `/affiliate/{id}/referrals`,
//! `/affiliate/{wallet}/referrer`, and the pool operations `/pools`, `/pools/pair`, `/pools/summary` (GET with
//! query parameters, or POST with the spec's request body) and `GET /pools/{address}`, a pool's
//! `/pools/{address}/providers` and `/pools/{address}/deposits`, the screener feed `/latest-block`,
//! `/asset`, `/pair`, `/events` (`tonroute_api::market::screener`); wallets and traders:
//! `/wallets/{address}/portfolio`, `/wallets/{address}/holdings`,
//! `/wallets/{address}/liquidity_positions/{pool_address}`, `/wallets/{address}/earnings`,
//! `/coins/{asset}/top_traders`, `/traders`,
//! `/coins/trending` (`tonroute_api::market::traders`).
//! `GET /openapi.json` documents all of them ([`openapi`]).
//! The admin route needs `Authorization: Bearer <token>` ([`auth`]; off without a configured token) and logs
//! every change ([`admin`]).
#![deny(missing_docs)]

mod answer;
pub mod explorer;
pub mod logging;
mod market;
pub mod metrics;
pub mod openapi;
pub mod resources;
mod served;
pub mod shed;
pub mod shutdown;

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::State;
use axum::http::{header, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use axum::Router;
use serde::Serialize;

use tonroute_api::wire::{QuoteRequestBody, QuoteResponse, SwapRequestBody, SwapResponse};
use tonroute_api::{Api, ApiError, ErrorCode, SwapClock, MAX_BODY_BYTES};

pub mod admin;
pub mod auth;
pub mod conn;
pub mod limits;

pub use auth::{AdminAuth, BearerToken};
pub use conn::{AnswerBudget, ConnLimits, ConnStats};
pub use limits::{Limits, RateLimit};

/// Server settings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Longest a quote or swap may take from its arrival (queueing included): the search stops there with
    /// the best route found, or the client gets 503.
    pub routing_budget: Duration,
    /// Routing computations at once and the queue in front of them ([`shed`]).
    pub shed: shed::ShedConfig,
    /// How long a quote may compute on the async worker that received it before it is computed again on
    /// the blocking pool ([`shed::routed_inline_first`]); zero sends every quote to the blocking pool.
    pub quote_inline: Duration,
    /// Admin tokens (none: admin routes answer 403).
    pub admin: AdminAuth,
    /// Body size and time limits at the edge, and the optional per-client rate limit.
    pub limits: Limits,
    /// Connection timeouts and cap.
    pub conn: ConnLimits,
    /// The rules of `/v4/admin/reserves` batches (the price-move limit).
    pub admin_policy: tonroute_api::admin::AdminPolicy,
    /// Market-data computations at once and the queue in front of them (a [`shed::Shed`] of their own, so
    /// that heavy market answers never take the quotes' slots).
    pub market_shed: shed::ShedConfig,
    /// A header a proxy in front of every request sets to the client's address (`--client-ip-header`):
    /// logs, audit lines and the rate limit use it instead of the TCP peer ([`logging::client_ip`]).
    pub client_ip_header: Option<HeaderName>,
    /// Whether `GET /metrics` is served with the routes (`false` when it has a listener of its own,
    /// `--metrics-addr`).
    pub metrics_on_main: bool,
    /// A bearer token `GET /metrics` requires (`TONROUTE_METRICS_TOKEN`); none: open.
    pub metrics_token: Option<Arc<BearerToken>>,
}

/// [`ServerConfig::quote_inline`]'s default: above the slowest quote of the load mix on the bundled 1k-pool
/// data (3.6 ms: a TON whale through two weighted stable pools), so that a first quote of a class is never
/// cut and computed twice. Measured on 2 cores, 32 clients (BENCHMARKS "Server throughput"): a quote cut at
/// the slice is computed again from scratch on the blocking pool, and a hand-off there costs about 30 µs of
/// CPU; at 300 µs that cost 10 µs per request of the load mix. The worker is held at most this long (the
/// search reads the clock every few hundred steps); classes that held it [`QUOTE_LONG`] or more go to the
/// blocking pool from then on ([`shed::SlowClasses`]).
pub const DEFAULT_QUOTE_INLINE: Duration = Duration::from_millis(5);

/// A quote that held its worker this long marks its class for the blocking pool next time, though it
/// finished inside [`ServerConfig::quote_inline`] ([`shed::routed_inline_first`]): under a whale mix (quotes
/// of about a millisecond each) the workers would otherwise be busy routing, and `/health` and the other
/// connections on them would wait behind several quotes (measured at 128 clients: `/health` p90 39 ms
/// without it, 4 ms with it; BENCHMARKS "Server throughput").
pub const QUOTE_LONG: Duration = Duration::from_millis(1);

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            routing_budget: Duration::from_secs(2),
            shed: shed::ShedConfig::default(),
            quote_inline: DEFAULT_QUOTE_INLINE,
            admin: AdminAuth::disabled(),
            limits: Limits::default(),
            conn: ConnLimits::default(),
            admin_policy: tonroute_api::admin::AdminPolicy::default(),
            market_shed: shed::ShedConfig::market(),
            client_ip_header: None,
            metrics_on_main: true,
            metrics_token: None,
        }
    }
}

/// What a market computation reserves of the answer budget before it starts: above the largest market
/// answer (a 5,000-candle chart, 1.5 MB), so that the computations in flight cannot overrun the budget by
/// more than their own answers.
pub const MARKET_ANSWER_RESERVE: usize = 2 * 1024 * 1024;

/// What a quote or swap reserves: far above their answers (a 20-route quote is about 40 KiB).
pub const QUOTE_ANSWER_RESERVE: usize = 64 * 1024;

/// Everything the handlers read: the transport-free [`Api`], the server settings and the operations layer.
#[derive(Debug, Clone)]
pub struct AppState {
    /// The operations.
    pub api: Api,
    /// The settings.
    pub config: ServerConfig,
    /// `GET /metrics`'s counters ([`metrics`]).
    pub metrics: Arc<metrics::Metrics>,
    /// The gate in front of the routing work ([`shed`]).
    pub shed: Arc<shed::Shed>,
    /// The gate in front of the market routes' work.
    pub market_shed: Arc<shed::Shed>,
    /// One warning a second for requests refused before any work.
    refusals: Arc<logging::Throttle>,
    /// The per-client token buckets, when `config.limits.rate_limit` is set.
    limiter: Option<Arc<limits::RateLimiter>>,
}

type Shared = State<Arc<AppState>>;

pub(crate) fn json_response<T: Serialize + ?Sized>(status: StatusCode, value: &T) -> Response {
    match answer::json_body(value) {
        Ok(body) => (status, [(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(e) => error_response(&ApiError::new(ErrorCode::Internal, format!("serialising the response: {e}"))),
    }
}

/// The error object with its status; every 503 says when to retry (`Retry-After`), every 401 how to
/// authenticate (`WWW-Authenticate`).
pub fn error_response(e: &ApiError) -> Response {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, [(header::CONTENT_TYPE, "application/json")], e.to_json()).into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from(shed::RETRY_AFTER_SECS));
    }
    if status == StatusCode::UNAUTHORIZED {
        response.headers_mut().insert(header::WWW_AUTHENTICATE, auth::challenge(e));
    }
    response
}

/// Counts and logs (at most a line a second) a request on `route` refused before any work.
fn refused(state: &AppState, route: &str, reason: &'static str) {
    state.metrics.shed(route, reason);
    if let Some(more) = state.refusals.pass() {
        tracing::warn!(target: "tonroute::shed", route, reason, suppressed = more, "request refused with 503 before any work");
    }
}

/// The memory refusal: the answer budget cannot take `reserve` more bytes now (`None`: it can, or there is
/// no budget).
fn memory_refusal(state: &AppState, route: &str, budget: Option<&AnswerBudget>, reserve: usize) -> Option<Response> {
    if budget.is_none_or(|b| b.has_room(reserve)) {
        return None;
    }
    refused(state, route, "memory");
    Some(error_response(&ApiError::new(
        ErrorCode::AnswerBudgetSpent,
        format!("the memory for answers in flight is spent; retry after {} s", shed::RETRY_AFTER_SECS),
    )))
}

pub(crate) async fn read_body(body: Body) -> Result<Bytes, ApiError> {
    // `to_bytes` stops at the limit (and refuses at once when Content-Length says more), so an oversized
    // body is never buffered whole. Its error does not say why; a client that vanished mid-body reads no
    // answer anyway, so every failure is reported as the size limit.
    to_bytes(body, MAX_BODY_BYTES).await.map_err(|_| {
        ApiError::new(ErrorCode::BodyTooLarge, format!("request body exceeds the limit of {MAX_BODY_BYTES} bytes"))
    })
}

fn respond<T: Serialize>(result: Result<T, ApiError>) -> Response {
    match result {
        Ok(v) => json_response(StatusCode::OK, &v),
        Err(e) => error_response(&e),
    }
}

/// The route label of a refusal on a quote or swap.
const QUOTE_ROUTE: &str = "/v4/router/quote";
const SWAP_ROUTE: &str = "/v4/router/swap";

/// What a quote or swap does before any work: its deadline (counted from arrival), its body read within the
/// size limit, and the answer budget's room for it; `Err` is the answer when one of them refuses.
async fn routing_call(
    state: &AppState,
    route: &str,
    budget: Option<Extension<AnswerBudget>>,
    body: Body,
) -> Result<(Instant, Bytes), Response> {
    let deadline = Instant::now() + state.config.routing_budget;
    let bytes = read_body(body).await.map_err(|e| error_response(&e))?;
    match memory_refusal(state, route, budget.as_deref(), QUOTE_ANSWER_RESERVE) {
        Some(refusal) => Err(refusal),
        None => Ok((deadline, bytes)),
    }
}

#[utoipa::path(post, path = "/v4/router/quote", tag = "router", request_body = QuoteRequestBody,
    responses((status = 200, description = "The best split quote", body = QuoteResponse), openapi::QuoteErrors))]
async fn quote(State(state): Shared, budget: Option<Extension<AnswerBudget>>, body: Body) -> Response {
    let (deadline, bytes) = match routing_call(&state, QUOTE_ROUTE, budget, body).await {
        Ok(call) => call,
        Err(answer) => return answer,
    };
    let api = state.api.clone();
    let budget = state.config.routing_budget;
    let slice = state.config.quote_inline;
    let routed = match api.prepare_quote(&bytes) {
        // A malformed request is answered at once: it takes no routing slot.
        Err(e) => shed::Routed { result: Err(e), cut_short: false, refused: None },
        Ok(call) => {
            let class = Some(call.class());
            let work = move |b: tonroute_core::route::Budget<'_>| api.answer_quote(&call, b);
            shed::routed_inline_first(&state.shed, deadline, budget, slice, QUOTE_LONG, class, work).await
        }
    };
    state.metrics.quote_outcome(&routed.result);
    if let Some(r) = routed.refused {
        refused(&state, QUOTE_ROUTE, r.label());
    }
    if routed.cut_short && routed.result.is_ok() {
        state.metrics.budget_exhausted();
    }
    respond(routed.result)
}

fn now_millis() -> u64 {
    // A clock before 1970 is a broken host; 0 still yields a well-formed (expired) deadline.
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[utoipa::path(post, path = "/v4/router/swap", tag = "router", request_body = SwapRequestBody,
    responses((status = 200, description = "The messages to sign, one per route", body = SwapResponse),
              openapi::SwapErrors))]
async fn swap(State(state): Shared, budget: Option<Extension<AnswerBudget>>, body: Body) -> Response {
    let (deadline, bytes) = match routing_call(&state, SWAP_ROUTE, budget, body).await {
        Ok(call) => call,
        Err(answer) => return answer,
    };
    let api = state.api.clone();
    let clock = SwapClock::at(now_millis());
    let budget = state.config.routing_budget;
    // Checking and building a swap simulates, but does not search: the budget bounds it from outside.
    let routed = shed::routed(&state.shed, deadline, budget, move |_| api.swap(&bytes, clock)).await;
    if let Some(r) = routed.refused {
        refused(&state, SWAP_ROUTE, r.label());
    }
    respond(routed.result)
}

/// `GET /health`: liveness and the graph's size.
#[derive(Serialize, utoipa::ToSchema)]
struct Health {
    /// `ok`, or `degraded` when the graph follows a stream that is not live (quotes still answer, from the
    /// last state).
    status: &'static str,
    /// Assets in the graph.
    assets: usize,
    /// Pools in the graph.
    pools: usize,
    /// The reserve stream's state and counters (only with `serve --nats`; fields in the README).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    stream: Option<tonroute_sources::feed::FeedReport>,
}

#[utoipa::path(get, path = "/health", tag = "service",
    responses((status = 200, description = "Liveness and the graph's size", body = Health)))]
async fn health(State(state): Shared) -> Response {
    let g = state.api.graph();
    let stream = state.api.feed().map(|f| f.report(now_millis()));
    let live = stream.as_ref().is_none_or(|s| s.state == tonroute_sources::feed::StreamState::Live);
    let status = if live { "ok" } else { "degraded" };
    json_response(StatusCode::OK, &Health { status, assets: g.asset_count(), pools: g.pool_count(), stream })
}

async fn not_found() -> Response {
    error_response(&ApiError::new(ErrorCode::NotFound, "no such path; see /v4/router/quote, /v4/router/swap"))
}

async fn method_not_allowed() -> Response {
    error_response(&ApiError::new(ErrorCode::MethodNotAllowed, "method not allowed on this path"))
}

/// A 405 says which methods the path takes (`GET /v4/router/quote` → "… takes POST"): axum knows them and puts
/// them in the `Allow` header on the way out; the fallback that wrote the answer does not, so the message is
/// completed here, once the header is there (the request log and metrics saw the same status and code).
async fn name_allowed_methods(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let (method, path) = (request.method().clone(), request.uri().path().to_string());
    let response = next.run(request).await;
    if response.status() != StatusCode::METHOD_NOT_ALLOWED {
        return response;
    }
    let Some(allow) = response.headers().get(header::ALLOW).cloned() else { return response };
    let methods = allow.to_str().unwrap_or_default().replace(',', ", ");
    let mut answer = error_response(&ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("method not allowed on this path: {method} {path} takes {methods}"),
    ));
    answer.headers_mut().insert(header::ALLOW, allow);
    answer
}

/// Every route of the application but `GET /metrics` ([`metrics::routes`], merged by [`operations`]): the one
/// list the router and `/openapi.json` are built from ([`served::served!`]; each handler carries its
/// `#[utoipa::path]`).
fn routes() -> Vec<served::Route<Arc<AppState>>> {
    served::served![Arc<AppState>;
        quote, swap, admin::reserves, health, explorer::page, explorer::assets, openapi::openapi_json,
        market::coin, market::coins, market::coin_resolver, market::coin_transactions, market::chart,
        market::chart_by_pool_address, market::affiliate_account, market::affiliate_volume,
        market::affiliate_referrals, market::affiliate_referrer, market::pools_get, market::pools_post,
        market::pair_pools_get, market::pair_pools_post, market::pool_summary_get, market::pool_summary_post,
        market::pool, market::wallet_portfolio, market::wallet_holdings, market::wallet_liquidity_position,
        market::wallet_earnings, market::coin_top_traders, market::traders, market::coins_trending,
        market::pool_providers, market::pool_deposits, market::latest_block, market::feed_asset,
        market::feed_pair, market::feed_events,
    ]
}

/// The axum application: routes, error fallbacks and state. The one place the application is assembled.
pub fn app(api: Api, config: ServerConfig) -> Router {
    app_with(api, config, Arc::default())
}

/// [`app`] counting into `metrics` (e.g. shared with a stream replica that reports graph changes).
pub fn app_with(api: Api, config: ServerConfig, metrics: Arc<metrics::Metrics>) -> Router {
    let shed = Arc::new(shed::Shed::new(config.shed));
    let limiter = config.limits.rate_limit.map(|limit| Arc::new(limits::RateLimiter::new(limit)));
    if let Some(feed) = api.feed() {
        metrics.follow_stream(feed.clone());
    }
    let market_shed = Arc::new(shed::Shed::new(config.market_shed));
    let refusals = Arc::new(logging::Throttle::default());
    let state = Arc::new(AppState { api, config, metrics: metrics.clone(), shed, market_shed, refusals, limiter });
    let observed = operations(&state);
    let routes = served::router(routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.clone(), limits::edge))
        .with_state(state);
    // axum adds a 405's `Allow` header around the route, outside every layer of the router: only a layer of a
    // router around it sees the header.
    Router::new().fallback_service(observed(routes)).layer(axum::middleware::from_fn(name_allowed_methods))
}

/// The operations layer over the routes: `/metrics` (unless it has a listener of its own), then per request
/// (outermost first) the request id, client IP and log line ([`logging`]) and the request counters
/// ([`metrics`]).
fn operations(state: &Arc<AppState>) -> impl FnOnce(Router) -> Router {
    let metrics = state.metrics.clone();
    let scrape =
        state.config.metrics_on_main.then(|| metrics::router(metrics.clone(), state.config.metrics_token.clone()));
    let log = Arc::new(logging::LogConfig {
        ids: logging::RequestIds::new(),
        client_ip_header: state.config.client_ip_header.clone(),
    });
    move |routes| {
        let routes = match scrape {
            Some(scrape) => routes.merge(scrape),
            None => routes,
        };
        routes
            .layer(axum::middleware::from_fn_with_state(metrics, metrics::count))
            .layer(axum::middleware::from_fn_with_state(log, logging::log_request))
    }
}

/// Serves `app` on `listener` with the default [`ConnLimits`] until `shutdown` fires ([`serve_app_with`]).
pub async fn serve_app(
    listener: tokio::net::TcpListener,
    app: Router,
    shutdown: shutdown::Shutdown,
    grace: Duration,
) -> std::io::Result<()> {
    serve_app_with(listener, app, ConnLimits::default(), Arc::default(), shutdown, grace).await
}

/// Serves `app` on `listener` through [`conn::serve_connections`] (header/idle timeouts, connection caps,
/// answer budget), counting into `stats` (a [`metrics::Metrics::connections`]), until `shutdown` fires, then
/// stops accepting, answers the requests already received and returns; after `grace` it returns anyway,
/// dropping the connections still open (logged).
pub async fn serve_app_with(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: ConnLimits,
    stats: Arc<ConnStats>,
    shutdown: shutdown::Shutdown,
    grace: Duration,
) -> std::io::Result<()> {
    let server = conn::serve_connections(listener, app, limits, stats, shutdown.fired());
    let deadline = async {
        shutdown.fired().await;
        tokio::time::sleep(grace).await;
    };
    tokio::select! {
        result = server => result,
        () = deadline => {
            tracing::warn!(target: "tonroute::shutdown", grace_ms = grace.as_millis() as u64,
                "requests still in flight after the grace period: dropped");
            Ok(())
        }
    }
}

/// Serves [`app`] on `listener` until `shutdown` resolves, through [`conn::serve_connections`] (timeouts,
/// connection cap, graceful close).
pub async fn serve(
    listener: tokio::net::TcpListener,
    api: Api,
    config: ServerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let conn = config.conn;
    let metrics = Arc::new(metrics::Metrics::new());
    let stats = metrics.connections();
    conn::serve_connections(listener, app_with(api, config, metrics), conn, stats, shutdown).await
}
