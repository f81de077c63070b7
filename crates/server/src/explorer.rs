//! The route explorer: `GET /` serves one page, compiled into the binary (`assets/explorer/index.html`, plain
//! HTML + JavaScript + inline SVG, no build step, nothing loaded from elsewhere), where a person picks two
//! assets, an amount and the limits and sees the quote as a Sankey diagram, a route table and the figures, then
//! builds the swap messages. `GET /v4/assets` lists the assets the router knows, for the page's pickers.
//!
//! Owns the page's delivery and the asset listing route only. The page speaks to the same `/v4` routes as
//! any client (`/v4/router/quote`, `/v4/router/swap`); it must not get a private path into the router.

use std::sync::Arc;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};

use super::{json_response, AppState};
use tonroute_api::convert::asset_list;
use tonroute_api::wire::AssetsResponse;

/// The page, as shipped.
const PAGE: &str = include_str!("../../../assets/explorer/index.html");

/// The page may only run its own inline script and style and call this server.
const CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                   connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

#[utoipa::path(get, path = "/", tag = "explorer",
    responses((status = 200, description = "The route explorer page: one HTML document with its script inline; query parameters `in`, `out`, `amount` (smallest units), `max_splits`, `max_length`, `exact_out`, `slippage_bps` fill the form and quote on load", content_type = "text/html; charset=utf-8", body = String)))]
pub(crate) async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        PAGE,
    )
        .into_response()
}

#[utoipa::path(get, path = "/v4/assets", tag = "router",
    responses((status = 200, description = "The assets the router knows, most pools first", body = AssetsResponse)))]
pub(crate) async fn assets(State(state): State<Arc<AppState>>) -> Response {
    let graph = state.api.graph();
    json_response(axum::http::StatusCode::OK, &asset_list(&graph))
}
