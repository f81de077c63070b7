//! `tonroute serve` (feature `server`): the `/v4` operations over HTTP with axum + tokio.
//!
//! Routes: `POST /v4/router/quote`, `POST /v4/router/swap`, `POST /v4/admin/reserves` (reserve updates
//! applied in place while quotes keep being served), `GET /health`. Every error, including unknown paths,
//! wrong methods, oversized bodies and timeouts, is the spec's `{code, message}` object with its status.
//!
//! Owns transport concerns only: the body-size limit ([`crate::api::parse::MAX_BODY_BYTES`], enforced while
//! reading, before any parsing), the per-request routing time budget (routing runs on the blocking pool;
//! after the budget the client gets 503 [`ErrorCode::RoutingTimeout`], and the abandoned computation finishes
//! in the background), and the clock that derives a swap's `query_id` and deadline.
//! Market data (SPEC.md area A, when the [`Api`] has a [`crate::market::MarketStore`]): `GET /coin`,
//! `/coins`, `/coins/{asset}/resolver`, `/coin_transactions`, `/chart`, `/chart_by_pool_address`,
//! `/affiliate/accounts/{id}`, `/affiliate/accounts/{id}/volume`, `/affiliate/{id}/referrals`,
//! `/affiliate/{wallet}/referrer`, and the pool operations `/pools`, `/pools/pair`, `/pools/summary` (GET with
//! query parameters, or POST with the spec's request body) and `GET /pools/{address}`.
//! The admin route has no authentication: bind it to loopback or put it behind a proxy.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde::Serialize;

use super::parse::MAX_BODY_BYTES;
use super::{Api, ApiError, ErrorCode, SwapClock};

/// Server settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerConfig {
    /// Longest a quote or swap may compute before the client gets 503.
    pub routing_budget: Duration,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig { routing_budget: Duration::from_secs(2) }
    }
}

struct AppState {
    api: Api,
    config: ServerConfig,
}

type Shared = State<Arc<AppState>>;

fn json_response<T: Serialize>(status: StatusCode, value: &T) -> Response {
    match serde_json::to_string(value) {
        Ok(text) => (status, [(header::CONTENT_TYPE, "application/json")], text).into_response(),
        Err(e) => error_response(&ApiError::new(ErrorCode::Internal, format!("serialising the response: {e}"))),
    }
}

/// The error object with its status.
pub fn error_response(e: &ApiError) -> Response {
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, [(header::CONTENT_TYPE, "application/json")], e.to_json()).into_response()
}

async fn read_body(body: Body) -> Result<Bytes, ApiError> {
    // `to_bytes` stops at the limit (and refuses at once when Content-Length says more), so an oversized
    // body is never buffered whole. Its error does not say why; a client that vanished mid-body reads no
    // answer anyway, so every failure is reported as the size limit.
    to_bytes(body, MAX_BODY_BYTES).await.map_err(|_| {
        ApiError::new(ErrorCode::BodyTooLarge, format!("request body exceeds the limit of {MAX_BODY_BYTES} bytes"))
    })
}

/// Runs `work` on the blocking pool within the routing budget.
async fn budgeted<T, F>(state: &AppState, work: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ApiError> + Send + 'static,
{
    let budget = state.config.routing_budget;
    match tokio::time::timeout(budget, tokio::task::spawn_blocking(work)).await {
        Ok(Ok(result)) => result,
        Ok(Err(join)) => Err(ApiError::new(ErrorCode::Internal, format!("routing task failed: {join}"))),
        Err(_) => Err(ApiError::new(
            ErrorCode::RoutingTimeout,
            format!("routing exceeded the time budget of {} ms", budget.as_millis()),
        )),
    }
}

fn respond<T: Serialize>(result: Result<T, ApiError>) -> Response {
    match result {
        Ok(v) => json_response(StatusCode::OK, &v),
        Err(e) => error_response(&e),
    }
}

async fn quote(State(state): Shared, body: Body) -> Response {
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(e) => return error_response(&e),
    };
    let api = state.api.clone();
    respond(budgeted(&state, move || api.quote(&bytes)).await)
}

fn now_millis() -> u64 {
    // A clock before 1970 is a broken host; 0 still yields a well-formed (expired) deadline.
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

async fn swap(State(state): Shared, body: Body) -> Response {
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(e) => return error_response(&e),
    };
    let api = state.api.clone();
    let clock = SwapClock::at(now_millis());
    respond(budgeted(&state, move || api.swap(&bytes, clock)).await)
}

async fn reserves(State(state): Shared, body: Body) -> Response {
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(e) => return error_response(&e),
    };
    respond(state.api.update_reserves(&bytes))
}

#[derive(Serialize)]
struct Health {
    status: &'static str,
    assets: usize,
    pools: usize,
}

async fn health(State(state): Shared) -> Response {
    let g = state.api.graph();
    json_response(StatusCode::OK, &Health { status: "ok", assets: g.asset_count(), pools: g.pool_count() })
}

async fn not_found() -> Response {
    error_response(&ApiError::new(ErrorCode::NotFound, "no such path; see /v4/router/quote, /v4/router/swap"))
}

async fn method_not_allowed() -> Response {
    error_response(&ApiError::new(ErrorCode::MethodNotAllowed, "method not allowed on this path"))
}

type Pairs = Result<Vec<(String, String)>, ApiError>;

fn pairs(q: Option<String>) -> Pairs {
    Ok(super::market::params::decode_query(q.as_deref().unwrap_or(""))?)
}

fn market_op<T: Serialize>(
    state: &AppState,
    q: Option<String>,
    op: impl FnOnce(&super::market::MarketApi, &[(String, String)]) -> Result<T, ApiError>,
) -> Response {
    respond(state.api.market().and_then(|m| op(m, &pairs(q)?)))
}

async fn coin(State(s): Shared, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| m.get_coin(p))
}

async fn coins(State(s): Shared, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| m.get_coins(p))
}

async fn coin_resolver(State(s): Shared, Path(asset): Path<String>, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| m.get_coin_resolver(&asset, p))
}

async fn coin_transactions(State(s): Shared, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| m.get_coin_transactions(p))
}

async fn chart(State(s): Shared, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| m.get_chart(p))
}

async fn chart_by_pool(State(s): Shared, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| m.get_chart_by_pool_address(p))
}

fn no_params(p: &[(String, String)]) -> Result<(), ApiError> {
    Ok(super::market::parse::no_parameters(p)?)
}

async fn affiliate_account(State(s): Shared, Path(id): Path<String>, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| {
        no_params(p)?;
        m.get_affiliate_account(&id)
    })
}

async fn affiliate_volume(State(s): Shared, Path(id): Path<String>, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| m.get_affiliate_account_volume(&id, p))
}

async fn affiliate_referrals(State(s): Shared, Path(id): Path<String>, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| {
        no_params(p)?;
        m.get_affiliate_referrals(&id)
    })
}

async fn affiliate_referrer(State(s): Shared, Path(wallet): Path<String>, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| {
        no_params(p)?;
        m.get_affiliate_referrer(&wallet)
    })
}

async fn pools_get(State(s): Shared, RawQuery(q): RawQuery) -> Response {
    use super::market::parse::pools_request;
    market_op(&s, q, |m, p| m.get_pools(&pools_request(p)?))
}

async fn pair_pools_get(State(s): Shared, RawQuery(q): RawQuery) -> Response {
    use super::market::parse::pair_pools_request;
    market_op(&s, q, |m, p| m.get_pair_pools(&pair_pools_request(p)?))
}

async fn pool_summary_get(State(s): Shared, RawQuery(q): RawQuery) -> Response {
    use super::market::parse::pool_summary_request;
    market_op(&s, q, |m, p| m.get_pool_summary(&pool_summary_request(p)?))
}

async fn market_body<T: Serialize>(
    s: &AppState,
    body: Body,
    op: impl FnOnce(&super::market::MarketApi, &[u8]) -> Result<T, ApiError>,
) -> Response {
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(e) => return error_response(&e),
    };
    respond(s.api.market().and_then(|m| op(m, &bytes)))
}

async fn pools_post(State(s): Shared, body: Body) -> Response {
    use super::market::parse::body as json;
    market_body(&s, body, |m, b| m.get_pools(&json(b)?)).await
}

async fn pair_pools_post(State(s): Shared, body: Body) -> Response {
    use super::market::parse::body as json;
    market_body(&s, body, |m, b| m.get_pair_pools(&json(b)?)).await
}

async fn pool_summary_post(State(s): Shared, body: Body) -> Response {
    use super::market::parse::body as json;
    market_body(&s, body, |m, b| m.get_pool_summary(&json(b)?)).await
}

async fn pool_get(State(s): Shared, Path(address): Path<String>, RawQuery(q): RawQuery) -> Response {
    market_op(&s, q, |m, p| {
        let mut params = super::market::params::Params::new(p)?;
        let wallet = params.text("wallet_address");
        params.finish()?;
        m.get_pool(&address, wallet)
    })
}

/// The axum application: routes, error fallbacks and state.
pub fn app(api: Api, config: ServerConfig) -> Router {
    let state = Arc::new(AppState { api, config });
    Router::new()
        .route("/v4/router/quote", post(quote))
        .route("/v4/router/swap", post(swap))
        .route("/v4/admin/reserves", post(reserves))
        .route("/health", get(health))
        .route("/coin", get(coin))
        .route("/coins", get(coins))
        .route("/coins/{asset}/resolver", get(coin_resolver))
        .route("/coin_transactions", get(coin_transactions))
        .route("/chart", get(chart))
        .route("/chart_by_pool_address", get(chart_by_pool))
        .route("/affiliate/accounts/{id}", get(affiliate_account))
        .route("/affiliate/accounts/{id}/volume", get(affiliate_volume))
        .route("/affiliate/{id}/referrals", get(affiliate_referrals))
        .route("/affiliate/{wallet}/referrer", get(affiliate_referrer))
        .route("/pools", get(pools_get).post(pools_post))
        .route("/pools/pair", get(pair_pools_get).post(pair_pools_post))
        .route("/pools/summary", get(pool_summary_get).post(pool_summary_post))
        .route("/pools/{address}", get(pool_get))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

/// Serves [`app`] on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: tokio::net::TcpListener,
    api: Api,
    config: ServerConfig,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app(api, config)).with_graceful_shutdown(shutdown).await
}
