//! `POST /v4/admin/reserves` over HTTP: authenticate ([`super::auth`]), apply the batch all or nothing
//! ([`tonroute_api::admin::apply_batch`], on the blocking pool: a 1000-entry batch simulates each pool), and
//! write the audit trail.
//!
//! Audit: every applied change is one `info` line on the `tonroute::audit` target — who (the token's name),
//! from where (the client IP, [`super::logging::ClientIp`]), the pool, what (`reserves`, `state`,
//! `state+ticks`), old → new, and `forced` (the price-move factor) when the change went past the price-move
//! limit under `"force": true` — and a refused batch or request one line with the reason. The token itself is
//! never logged. Must not parse bodies or choose error codes.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::Extension;

use super::auth::{AdminName, AUDIT_TARGET};
use super::logging::ClientIp;
use super::openapi::AdminErrors;
use super::{error_response, json_response, read_body, AppState};
use tonroute_api::wire::{ReserveUpdate, ReservesResponse};
use tonroute_api::{ApiError, ErrorCode};

#[utoipa::path(post, path = "/v4/admin/reserves", tag = "admin",
    request_body(content = Vec<ReserveUpdate>, description = "The updates, applied all or nothing. An update \
        that moves a pool's price by more than the server's `--max-price-move` (default 100×) is refused (code \
        1033) unless the batch is sent as the object `{\"force\": true, \"updates\": [ … ]}` (schema \
        `AdminBatchBody`)"),
    responses((status = 200, description = "Reserves replaced in place", body = ReservesResponse), AdminErrors),
    security(("bearer" = [])))]
pub(crate) async fn reserves(
    State(state): State<Arc<AppState>>,
    name: Option<Extension<AdminName>>,
    ip: Option<Extension<ClientIp>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let ip = ip.map(|Extension(ClientIp(ip))| ip);
    let client_ip = ip.map_or_else(|| "-".to_string(), |ip| ip.to_string());
    // The edge middleware authenticated the request already; without it (an app assembled differently), here.
    let who = match name {
        Some(Extension(AdminName(name))) => name,
        None => match state.config.admin.admit(&headers, ip) {
            Ok(AdminName(name)) => name,
            Err(e) => return error_response(&e),
        },
    };
    let bytes = match read_body(body).await {
        Ok(b) => b,
        Err(e) => return error_response(&e),
    };
    let api = state.api.clone();
    let policy = state.config.admin_policy;
    let outcome = match tokio::task::spawn_blocking(move || api.admin_batch_with(&bytes, policy)).await {
        Ok(outcome) => outcome,
        Err(join) => Err(ApiError::new(ErrorCode::Internal, format!("admin task failed: {join}"))),
    };
    match outcome {
        Ok(outcome) => {
            state.metrics.reserves_applied(outcome.response.updated);
            for c in &outcome.changes {
                match &c.forced {
                    Some(factor) => tracing::warn!(
                        target: AUDIT_TARGET,
                        who = %who, client_ip = %client_ip, pool = %c.pool, what = c.what, old = %c.old, new = %c.new,
                        forced = true, price_move = %factor,
                        "admin change, forced past the price-move limit"
                    ),
                    None => tracing::info!(
                        target: AUDIT_TARGET,
                        who = %who, client_ip = %client_ip, pool = %c.pool, what = c.what, old = %c.old, new = %c.new,
                        "admin change"
                    ),
                }
            }
            json_response(StatusCode::OK, &outcome.response)
        }
        Err(e) => {
            tracing::info!(target: AUDIT_TARGET, who = %who, client_ip = %client_ip, code = e.code(), "admin batch refused, nothing applied: {}", e.message());
            error_response(&e)
        }
    }
}
