//! `GET /openapi.json`: the OpenAPI 3.1 document of every route `tonroute serve` answers, built by `utoipa`
//! from the wire types themselves (their `ToSchema` derives sit beside their serde derives, behind this
//! feature), so a field renamed in a wire type is renamed in the document too; `tests/it/openapi.rs` validates the
//! real answers of each route against it.
//!
//! Owns the document only: the route list with their parameters and statuses, and the schemas of the wire
//! values that serialise themselves (amounts, asset ids, addresses, dates), written here once with docs/interface.md's
//! patterns. Must not change how any route behaves. The path items are documentation stubs (`utoipa::path`
//! on empty functions) because the handlers keep their own shape in `super`; `tests/it/openapi.rs` reads the
//! router's sources and fails when a route is served without a stub here.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use utoipa::openapi::{Content, Ref, RefOr, ResponseBuilder};
use utoipa::{IntoResponses, OpenApi, ToSchema};

use tonroute_api::error::ErrorBody;
use tonroute_api::market::wire::{GetPairPoolsRequest, GetPoolsRequest, PoolSummaryRequest};
use tonroute_api::wire::{
    AdminBatchBody, AssetsResponse, QuoteRequestBody, QuoteResponse, ReserveUpdate, ReservesResponse, SwapRequestBody,
    SwapResponse,
};
use tonroute_market::types as market;

/// The 4xx/5xx answer of every route.
const ERROR: &str = "The `{code, message}` error object (status per error code)";

/// Responses by status, as [`IntoResponses`] gives them.
type Responses = BTreeMap<String, RefOr<utoipa::openapi::Response>>;

/// One response per status, each the [`ErrorBody`] object.
fn error_responses(statuses: &[u16]) -> Responses {
    let body = Content::new(Some(Ref::from_schema_name(ErrorBody::name())));
    let response = ResponseBuilder::new().description(ERROR).content("application/json", body).build();
    statuses.iter().map(|status| (status.to_string(), RefOr::T(response.clone()))).collect()
}

/// The error statuses a route documents, one set per kind of route, named in its stub's `responses(…)`.
macro_rules! error_statuses {
    ($($(#[$doc:meta])* $name:ident = [$($status:literal),+];)+) => {$(
        $(#[$doc])*
        struct $name;

        impl IntoResponses for $name {
            fn responses() -> Responses {
                error_responses(&[$($status),+])
            }
        }
    )+};
}

error_statuses! {
    /// `/v4/router/quote`: the request refused, unknown assets, the budget or the limits at the edge, no
    /// route, the server overloaded or out of time.
    QuoteErrors = [400, 404, 408, 413, 415, 422, 429, 503];
    /// `/v4/router/swap`: the quote's, and 501 for a route no swap builder covers.
    SwapErrors = [400, 404, 408, 413, 415, 422, 429, 501, 503];
    /// `/v4/admin/reserves`: the batch refused (a price move past the limit included), no or a wrong token, an
    /// unknown pool, the limits at the edge.
    AdminErrors = [400, 401, 403, 404, 408, 413, 415, 429];
    /// A market route that may find nothing to answer (no such coin, pool, account or block): bad parameters,
    /// nothing found (or no market data on this server), the store failing, the market routes shed (503 with
    /// `Retry-After`).
    LookupErrors = [400, 404, 500, 503];
    /// A market listing: bad parameters, no market data on this server (404), the store failing, shed (503;
    /// nothing found is an empty page).
    ListErrors = [400, 404, 500, 503];
    /// `/affiliate/accounts/{id}`: no such account (or no market data), the store failing, shed.
    AccountErrors = [404, 500, 503];
}

/// Documentation stubs: one per route, read by `utoipa` for the path items.
#[allow(dead_code)]
mod paths {
    use super::*;
    use tonroute_market::portfolio::*;
    use tonroute_market::types::*;

    #[utoipa::path(post, path = "/v4/router/quote", tag = "router", request_body = QuoteRequestBody,
        responses((status = 200, description = "The best split quote", body = QuoteResponse), QuoteErrors))]
    fn quote() {}

    #[utoipa::path(post, path = "/v4/router/swap", tag = "router", request_body = SwapRequestBody,
        responses((status = 200, description = "The messages to sign, one per route", body = SwapResponse),
                  SwapErrors))]
    fn swap() {}

    #[utoipa::path(post, path = "/v4/admin/reserves", tag = "admin",
        request_body(content = Vec<ReserveUpdate>, description = "The updates, applied all or nothing. An update \
            that moves a pool's price by more than the server's `--max-price-move` (default 100×) is refused (code \
            1033) unless the batch is sent as the object `{\"force\": true, \"updates\": [ … ]}` (schema \
            `AdminBatchBody`)"),
        responses((status = 200, description = "Reserves replaced in place", body = ReservesResponse), AdminErrors),
        security(("bearer" = [])))]
    fn reserves() {}

    #[utoipa::path(get, path = "/health", tag = "service",
        responses((status = 200, description = "Liveness and the graph's size", body = super::super::Health)))]
    fn health() {}

    #[utoipa::path(get, path = "/", tag = "explorer",
        responses((status = 200, description = "The route explorer page: one HTML document with its script inline; query parameters `in`, `out`, `amount` (smallest units), `max_splits`, `max_length`, `exact_out`, `slippage_bps` fill the form and quote on load", content_type = "text/html; charset=utf-8", body = String)))]
    fn explorer() {}

    #[utoipa::path(get, path = "/v4/assets", tag = "router",
        responses((status = 200, description = "The assets the router knows, most pools first", body = AssetsResponse)))]
    fn assets() {}

    #[utoipa::path(get, path = "/metrics", tag = "service",
        responses((status = 200, description = "Prometheus text exposition format (requests by route and status, latency histograms, quote outcomes, reserve updates, graph age)", content_type = "text/plain; version=0.0.4", body = String)))]
    fn metrics() {}

    #[utoipa::path(get, path = "/openapi.json", tag = "service",
        responses((status = 200, description = "This document", content_type = "application/json")))]
    fn openapi() {}

    #[utoipa::path(get, path = "/coin", tag = "market",
        params(("asset" = String, Query, description = "Asset id"),
               ("extra_details" = Option<bool>, Query, description = "Add highs/lows and holders (default false)"),
               ("memecoin_extra_details" = Option<bool>, Query, description = "Add meme-coin details (default false)")),
        responses((status = 200, description = "The coin", body = Coin), LookupErrors))]
    fn coin() {}

    #[utoipa::path(get, path = "/coins", tag = "market",
        params(("query" = Option<String>, Query, description = "Search by symbol, name or address"),
               ("limit" = Option<i32>, Query, description = "1..=500, default 20"),
               ("offset" = Option<i32>, Query, description = "Default 0"),
               ("sort_by" = Option<CoinSortBy>, Query), ("sort_period" = Option<StatPeriod>, Query),
               ("sort_direction" = Option<SortDirection>, Query),
               ("filter_by_assets" = Option<String>, Query, description = "Comma-separated asset ids"),
               ("exclude_assets" = Option<String>, Query, description = "Comma-separated asset ids"),
               ("filter_by_verification_level" = Option<String>, Query, description = "Comma-separated levels"),
               ("filter_by_tags" = Option<String>, Query), ("exclude_tags" = Option<String>, Query),
               ("filter_by_author" = Option<String>, Query), ("filter_period" = Option<StatPeriod>, Query),
               ("compact" = Option<bool>, Query), ("memecoin_extra_details" = Option<bool>, Query),
               ("calculate_total_volume" = Option<bool>, Query), ("skip_total_count" = Option<bool>, Query),
               ("include_without_price" = Option<bool>, Query),
               ("liquidity_usd_min" = Option<market::LargeFloat>, Query), ("liquidity_usd_max" = Option<market::LargeFloat>, Query),
               ("market_cap_usd_min" = Option<market::LargeFloat>, Query), ("market_cap_usd_max" = Option<market::LargeFloat>, Query),
               ("volume_usd_min" = Option<market::LargeFloat>, Query), ("volume_usd_max" = Option<market::LargeFloat>, Query),
               ("holders_min" = Option<market::LargeInteger>, Query), ("holders_max" = Option<market::LargeInteger>, Query),
               ("transactions_min" = Option<market::LargeInteger>, Query), ("transactions_max" = Option<market::LargeInteger>, Query),
               ("created_at_min" = Option<market::DateTime>, Query), ("created_at_max" = Option<market::DateTime>, Query),
               ("bonding_curve_percentage_min" = Option<market::LargeFloat>, Query),
               ("bonding_curve_percentage_max" = Option<market::LargeFloat>, Query)),
        responses((status = 200, description = "A page of coins", body = CoinsResponse), ListErrors))]
    fn coins() {}

    #[utoipa::path(get, path = "/coins/{asset}/resolver", tag = "market",
        params(("asset" = String, Path, description = "Asset id")),
        responses((status = 200, description = "The coin's resolver address", body = ResolverAddressResponse),
                  LookupErrors))]
    fn coin_resolver() {}

    #[utoipa::path(get, path = "/coin_transactions", tag = "market",
        params(("asset" = String, Query, description = "Asset id"),
               ("pool_address" = Option<String>, Query), ("trader_address" = Option<String>, Query),
               ("start_date" = Option<market::DateTime>, Query), ("end_date" = Option<market::DateTime>, Query),
               ("volume_usd_min" = Option<market::LargeFloat>, Query), ("volume_usd_max" = Option<market::LargeFloat>, Query),
               ("type" = Option<TradeType>, Query), ("sort_by" = Option<TxSortBy>, Query),
               ("sort_direction" = Option<SortDirection>, Query),
               ("limit" = Option<i32>, Query, description = "Default 20, at most 100"),
               ("offset" = Option<i32>, Query, description = "Default 0")),
        responses((status = 200, description = "The coin's trades", body = CoinTransactionsResponse), LookupErrors))]
    fn coin_transactions() {}

    #[utoipa::path(get, path = "/chart", tag = "market",
        params(("asset" = String, Query, description = "Asset id"), ("period" = ChartPeriod, Query),
               ("opposite_asset" = Option<String>, Query),
               ("start_date" = Option<market::DateTime>, Query), ("end_date" = Option<market::DateTime>, Query),
               ("limit" = Option<i32>, Query, description = "1..=5000, default 1000"),
               ("use_materialized" = Option<bool>, Query)),
        responses((status = 200, description = "Candles in TON, USD and the opposite asset", body = ChartResponse),
                  ListErrors))]
    fn chart() {}

    #[utoipa::path(get, path = "/chart_by_pool_address", tag = "market",
        params(("asset" = String, Query, description = "Asset id"), ("pool_address" = String, Query),
               ("period" = ChartPeriod, Query),
               ("start_date" = Option<market::DateTime>, Query), ("end_date" = Option<market::DateTime>, Query),
               ("limit" = Option<i32>, Query, description = "1..=5000, default 1000")),
        responses((status = 200, description = "One pool's candles", body = ChartByPoolAddressResponse), ListErrors))]
    fn chart_by_pool_address() {}

    #[utoipa::path(get, path = "/affiliate/accounts/{id}", tag = "affiliate",
        params(("id" = String, Path, description = "Account id or controller address")),
        responses((status = 200, description = "The accounts", body = Vec<AffiliateAccount>), AccountErrors))]
    fn affiliate_account() {}

    #[utoipa::path(get, path = "/affiliate/accounts/{id}/volume", tag = "affiliate",
        params(("id" = String, Path, description = "Account id or controller address"),
               ("wallet_address" = Option<String>, Query, description = "Also report this wallet's volume")),
        responses((status = 200, description = "Referral volumes", body = AffiliateAccountVolumeResponse),
                  LookupErrors))]
    fn affiliate_volume() {}

    #[utoipa::path(get, path = "/affiliate/{id}/referrals", tag = "affiliate",
        params(("id" = String, Path, description = "Account id or controller address")),
        responses((status = 200, description = "Referred wallets per account", body = AffiliateReferralsResponse),
                  LookupErrors))]
    fn affiliate_referrals() {}

    #[utoipa::path(get, path = "/affiliate/{wallet}/referrer", tag = "affiliate",
        params(("wallet" = String, Path, description = "Wallet address")),
        responses((status = 200, description = "The wallet's referrer", body = AffiliateAccountReferrer),
                  LookupErrors))]
    fn affiliate_referrer() {}

    #[utoipa::path(get, path = "/pools", tag = "pools",
        params(("filter_by_assets" = Option<String>, Query), ("filter_by_type" = Option<String>, Query),
               ("include_assets" = Option<String>, Query), ("pool_addresses" = Option<String>, Query),
               ("pair_pools" = Option<String>, Query, description = "JSON array of PairPoolsRequest"),
               ("limit" = Option<i32>, Query), ("offset" = Option<i32>, Query),
               ("sort_by" = Option<PoolSortBy>, Query), ("sort_direction" = Option<SortDirection>, Query),
               ("tags" = Option<String>, Query), ("wallet_address" = Option<String>, Query)),
        responses((status = 200, description = "Pools grouped by pair", body = PoolsResponse), ListErrors))]
    fn pools_get() {}

    #[utoipa::path(post, path = "/pools", tag = "pools", request_body = GetPoolsRequest,
        responses((status = 200, description = "Pools grouped by pair", body = PoolsResponse), ListErrors))]
    fn pools_post() {}

    #[utoipa::path(get, path = "/pools/pair", tag = "pools",
        params(("assets" = String, Query, description = "Two comma-separated asset ids"),
               ("filter_by_type" = Option<String>, Query), ("pool_addresses" = Option<String>, Query),
               ("limit" = Option<i32>, Query), ("offset" = Option<i32>, Query),
               ("sort_by" = Option<PoolSortBy>, Query), ("sort_direction" = Option<SortDirection>, Query),
               ("tags" = Option<String>, Query), ("wallet_address" = Option<String>, Query)),
        responses((status = 200, description = "The pair's pools", body = PairPoolsResponse), ListErrors))]
    fn pair_pools_get() {}

    #[utoipa::path(post, path = "/pools/pair", tag = "pools", request_body = GetPairPoolsRequest,
        responses((status = 200, description = "The pair's pools", body = PairPoolsResponse), ListErrors))]
    fn pair_pools_post() {}

    #[utoipa::path(get, path = "/pools/summary", tag = "pools",
        params(("include_assets" = Option<String>, Query, description = "Comma-separated asset ids")),
        responses((status = 200, description = "Totals over the pools", body = PoolSummaryResponse), ListErrors))]
    fn pool_summary_get() {}

    #[utoipa::path(post, path = "/pools/summary", tag = "pools", request_body = PoolSummaryRequest,
        responses((status = 200, description = "Totals over the pools", body = PoolSummaryResponse), ListErrors))]
    fn pool_summary_post() {}

    #[utoipa::path(get, path = "/pools/{address}", tag = "pools",
        params(("address" = String, Path, description = "Pool address"),
               ("wallet_address" = Option<String>, Query, description = "Enrich with this wallet's position")),
        responses((status = 200, description = "The pool", body = PoolResponse), LookupErrors))]
    fn pool() {}

    // Wallets and traders (issue #23 part B).
    #[utoipa::path(get, path = "/wallets/{address}/portfolio", tag = "wallets",
        params(("address" = String, Path, description = "Wallet (owner) address")),
        responses((status = 200, description = "The wallet's balances valued in USD and TON, and (extension) its liquidity positions", body = PortfolioResponse),
                  ListErrors))]
    fn wallet_portfolio() {}

    #[utoipa::path(get, path = "/wallets/{address}/holdings", tag = "wallets",
        params(("address" = String, Path, description = "Wallet address"),
               ("limit" = Option<i32>, Query, description = "Default 50, at most 500"),
               ("offset" = Option<i32>, Query, description = "Default 0")),
        responses((status = 200, description = "PnL per coin (average cost), by current value", body = HoldingsResponse),
                  ListErrors))]
    fn wallet_holdings() {}

    #[utoipa::path(get, path = "/wallets/{address}/liquidity_positions/{pool_address}", tag = "wallets",
        params(("address" = String, Path, description = "Wallet (owner) address"),
               ("pool_address" = String, Path, description = "Pool address")),
        responses((status = 200, description = "The wallet's LP in the pool (LP = minted − burned by its liquidity events; share of the events' LP supply; claim on the reserves now)",
                   body = tonroute_market::portfolio::PortfolioLiquidityPositionResponse),
                  LookupErrors))]
    fn wallet_liquidity_position() {}

    #[utoipa::path(get, path = "/wallets/{address}/earnings", tag = "wallets",
        params(("address" = String, Path, description = "Wallet (owner) address")),
        responses((status = 200, description = "LP fee earnings per pool (Σ floor(floor(amount_in·lp_fee/10000)·LP/supply) over the pool's trades while the wallet held LP; formulas: crates/market/src/positions.rs); creator, meme-creator and boost lists empty (not in the data)",
                   body = tonroute_market::portfolio::PortfolioEarningsResponse),
                  ListErrors))]
    fn wallet_earnings() {}

    #[utoipa::path(get, path = "/coins/{asset}/top_traders", tag = "wallets",
        params(("asset" = String, Path, description = "Asset id"),
               ("limit" = Option<i32>, Query, description = "Default 20, at most 100"),
               ("offset" = Option<i32>, Query, description = "Default 0")),
        responses((status = 200, description = "The coin's traders by total PnL", body = TopTradersResponse),
                  LookupErrors))]
    fn coin_top_traders() {}

    #[utoipa::path(get, path = "/traders", tag = "wallets",
        params(("asset" = String, Query, description = "Asset id"),
               ("start_date" = Option<market::DateTime>, Query, description = "Exclusive; default 24 h before end_date"),
               ("end_date" = Option<market::DateTime>, Query, description = "Inclusive; default now"),
               ("limit" = Option<i32>, Query, description = "Default 20, at most 100"),
               ("offset" = Option<i32>, Query, description = "Default 0")),
        responses((status = 200, description = "The coin's traders over the period, by USD volume", body = TraderInfoListResponse),
                  LookupErrors))]
    fn traders() {}

    #[utoipa::path(get, path = "/coins/trending", tag = "wallets",
        params(("tier" = Option<MarketTier>, Query, description = "Only this market-cap tier"),
               ("limit" = Option<i32>, Query, description = "Default 20, at most 100"),
               ("offset" = Option<i32>, Query, description = "Default 0")),
        responses((status = 200, description = "Coins by tier, then trend score (formulas: crates/market/src/trending.rs)",
                   body = tonroute_market::trending::TrendingCoinsResponse), ListErrors))]
    fn coins_trending() {}

    // #23 part A: pool providers and deposits, the screener feed.

    #[utoipa::path(get, path = "/pools/{address}/providers", tag = "pools",
        params(("address" = String, Path, description = "Pool address"),
               ("limit" = Option<i32>, Query, description = "1 to 100, default 20"),
               ("offset" = Option<i32>, Query, description = "Default 0")),
        responses((status = 200, description = "The pool's liquidity providers by LP held (share = LP / supply, a fraction)", body = PoolProvidersResponse),
                  LookupErrors))]
    fn pool_providers() {}

    #[utoipa::path(get, path = "/pools/{address}/deposits", tag = "pools",
        params(("address" = String, Path, description = "Pool address"),
               ("limit" = Option<i32>, Query, description = "1 to 100, default 20"),
               ("offset" = Option<i32>, Query, description = "Default 0")),
        responses((status = 200, description = "The pool's deposits (joins), newest first", body = DepositsResponse),
                  LookupErrors))]
    fn pool_deposits() {}

    #[utoipa::path(get, path = "/latest-block", tag = "screener",
        responses((status = 200, description = "The highest block of a stored event (never ahead of the data)", body = tonroute_market::portfolio::FeedBlockResponse),
                  LookupErrors))]
    fn latest_block() {}

    #[utoipa::path(get, path = "/asset", tag = "screener",
        params(("id" = String, Query, description = "Asset id (`native`, `jetton:0:<hex>` or a master's address)")),
        responses((status = 200, description = "The asset", body = tonroute_market::portfolio::FeedAssetResponse),
                  LookupErrors))]
    fn feed_asset() {}

    #[utoipa::path(get, path = "/pair", tag = "screener",
        params(("id" = String, Query, description = "Pool address")),
        responses((status = 200, description = "The pair (a pool with at least one event)", body = tonroute_market::portfolio::FeedPairResponse),
                  LookupErrors))]
    fn feed_pair() {}

    #[utoipa::path(get, path = "/events", tag = "screener",
        params(("fromBlock" = i64, Query, description = "First block, at least 0"),
               ("toBlock" = i64, Query, description = "Last block (inclusive); at most 10000 blocks per request")),
        responses((status = 200, description = "Swaps, joins and exits of the blocks, ordered by block, txnIndex, eventIndex", body = tonroute_market::portfolio::FeedEventsResponse),
                  ListErrors))]
    fn feed_events() {}
}

/// The document's root: every path stub above and the schemas they reach.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "tonroute",
        description = "Exact swap routing for the TON DEXes (`/v4` router operations) and market data."
    ),
    paths(
        paths::quote,
        paths::swap,
        paths::reserves,
        paths::health,
        paths::metrics,
        paths::explorer,
        paths::assets,
        paths::openapi,
        paths::coin,
        paths::coins,
        paths::coin_resolver,
        paths::coin_transactions,
        paths::chart,
        paths::chart_by_pool_address,
        paths::affiliate_account,
        paths::affiliate_volume,
        paths::affiliate_referrals,
        paths::affiliate_referrer,
        paths::pools_get,
        paths::pools_post,
        paths::pair_pools_get,
        paths::pair_pools_post,
        paths::pool_summary_get,
        paths::pool_summary_post,
        paths::pool,
        paths::wallet_portfolio,
        paths::wallet_holdings,
        paths::wallet_liquidity_position,
        paths::wallet_earnings,
        paths::coin_top_traders,
        paths::traders,
        paths::coins_trending,
        paths::pool_providers,
        paths::pool_deposits,
        paths::latest_block,
        paths::feed_asset,
        paths::feed_pair,
        paths::feed_events
    ),
    components(schemas(ErrorBody, AdminBatchBody)),
    modifiers(&BearerAuth)
)]
struct ApiDoc;

/// The admin route's `Authorization: Bearer <token>` (`TONROUTE_ADMIN_TOKEN` / `--admin-token-file`).
struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, doc: &mut utoipa::openapi::OpenApi) {
        use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
        doc.components
            .get_or_insert_with(Default::default)
            .add_security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)));
    }
}

/// The document as JSON text, built once.
pub fn document() -> &'static str {
    static DOC: OnceLock<String> = OnceLock::new();
    DOC.get_or_init(|| {
        // Serialising utoipa's own document types cannot fail (string keys, no non-finite floats).
        ApiDoc::openapi().to_pretty_json().expect("the OpenAPI document serialises")
    })
}

async fn openapi_json() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], document()).into_response()
}

/// `GET /openapi.json`, to merge into the application.
pub fn router<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new().route("/openapi.json", get(openapi_json))
}
