//! The market-data routes (docs/interface.md area A, answered when the [`Api`](tonroute_api::Api) has a
//! [`tonroute_market::MarketStore`]): one handler a route, each with its `#[utoipa::path]`, and the way they all
//! run ([`MarketCall`]: on the blocking pool, behind the market routes' [`super::shed::Shed`]).
//!
//! Owns moving the work and the documentation of each route. Must not read query strings or bodies, validate
//! or choose error codes: that is `tonroute_api::market`'s (the handlers only name the operation).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, MatchedPath, Path};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::Response;
use serde::de::DeserializeOwned;
use serde::Serialize;

use tonroute_api::market::params::decode_query;
use tonroute_api::market::wire::{GetPairPoolsRequest, GetPoolsRequest, PoolSummaryRequest};
use tonroute_api::market::{parse, MarketApi, Pairs};
use tonroute_api::{ApiError, ErrorCode};
use tonroute_market::portfolio::*;
use tonroute_market::types as market;
use tonroute_market::types::*;

use super::openapi::{AccountErrors, ListErrors, LookupErrors};
use super::MARKET_ANSWER_RESERVE;
use super::{error_response, json_response, memory_refusal, read_body, refused, AnswerBudget, AppState};

/// What every market handler has besides its own inputs: the state, the matched route (the label of a
/// refusal), the answer budget of the connection's server and the raw query string.
pub(crate) struct MarketCall {
    state: Arc<AppState>,
    route: Option<MatchedPath>,
    budget: Option<AnswerBudget>,
    query: Option<String>,
}

impl FromRequestParts<Arc<AppState>> for MarketCall {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &Arc<AppState>) -> Result<Self, Infallible> {
        let (route, budget) = (parts.extensions.get::<MatchedPath>().cloned(), parts.extensions.get().cloned());
        Ok(MarketCall { state: state.clone(), route, budget, query: parts.uri.query().map(str::to_owned) })
    }
}

impl MarketCall {
    fn route(&self) -> &str {
        route_label(self.route.as_ref())
    }

    /// `op` on the decoded query string, through [`Self::run`].
    async fn query<T: Serialize + Send + 'static>(
        mut self,
        op: impl FnOnce(&MarketApi, &Pairs) -> Result<T, ApiError> + Send + 'static,
    ) -> Response {
        let q = self.query.take();
        self.run(move |m| op(m, &decode_query(q.as_deref().unwrap_or(""))?)).await
    }

    /// `op` on the JSON body (a pool route's POST form), read within the size limit, through [`Self::run`].
    async fn body<T: Serialize + Send + 'static>(
        self,
        body: Body,
        op: impl FnOnce(&MarketApi, &[u8]) -> Result<T, ApiError> + Send + 'static,
    ) -> Response {
        match read_body(body).await {
            Ok(bytes) => self.run(move |m| op(m, &bytes)).await,
            Err(e) => error_response(&e),
        }
    }

    /// Runs one market route: refused at once without market data (404), when the answer budget is spent, or
    /// by the market routes' [`super::shed::Shed`]; else `work` computes and serialises the answer on the blocking pool
    /// (a store may wait on its database, a large listing takes milliseconds to compute and to write as JSON:
    /// neither may hold up the async workers), holding a market slot.
    async fn run<T: Serialize + Send + 'static>(
        self,
        work: impl FnOnce(&MarketApi) -> Result<T, ApiError> + Send + 'static,
    ) -> Response {
        if let Err(e) = self.state.api.market() {
            return error_response(&e);
        }
        let route = self.route().to_string();
        let state = self.state;
        if let Some(r) = memory_refusal(&state, &route, self.budget.as_ref(), MARKET_ANSWER_RESERVE) {
            return r;
        }
        let budget = state.config.routing_budget;
        let slot = match state.market_shed.admit(Instant::now() + budget).await {
            Ok(slot) => slot,
            Err(r) => {
                refused(&state, &route, r.label());
                return error_response(&r.error(budget.as_millis()));
            }
        };
        let task = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            match state.api.market().and_then(work) {
                Ok(v) => json_response(StatusCode::OK, &v),
                Err(e) => error_response(&e),
            }
        });
        match task.await {
            Ok(response) => response,
            // The operation panicked (a bug): the client still gets the spec's 500 object.
            Err(_) => error_response(&ApiError::new(ErrorCode::Internal, "the market operation failed")),
        }
    }
}

/// The label of a request's route: its pattern, or `other`.
fn route_label(route: Option<&MatchedPath>) -> &str {
    route.map_or("other", MatchedPath::as_str)
}

/// The path segments of a route (`{asset}`, `{address}`, `{id}`, `{wallet}`, `{pool_address}`), or, when axum
/// cannot decode them (percent-encoding of bytes that are not UTF-8), the spec's error object, as for any other
/// malformed asset or address.
pub(crate) struct Segments<P>(P);

impl<P: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Segments<P> {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Response> {
        match Path::<P>::from_request_parts(parts, state).await {
            Ok(Path(p)) => Ok(Segments(p)),
            Err(e) => Err(path_error(route_label(parts.extensions.get::<MatchedPath>()), &e)),
        }
    }
}

fn path_error(route: &str, rejection: &PathRejection) -> Response {
    let kind = if route.contains("{asset}") { ErrorCode::MarketBadAsset } else { ErrorCode::MarketBadAddress };
    let reason = match rejection {
        PathRejection::FailedToDeserializePathParams(_) => "is not UTF-8 once percent-decoded",
        _ => "could not be read",
    };
    error_response(&ApiError::new(kind, format!("the path segment {reason}")))
}

/// A market route without query parameters.
fn no_parameters(p: &Pairs) -> Result<(), ApiError> {
    Ok(parse::no_parameters(p)?)
}

#[utoipa::path(get, path = "/coin", tag = "market",
    params(("asset" = String, Query, description = "Asset id"),
           ("extra_details" = Option<bool>, Query, description = "Add highs/lows and holders (default false)"),
           ("memecoin_extra_details" = Option<bool>, Query, description = "Add meme-coin details (default false)")),
    responses((status = 200, description = "The coin", body = Coin), LookupErrors))]
pub(crate) async fn coin(call: MarketCall) -> Response {
    call.query(MarketApi::get_coin).await
}

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
pub(crate) async fn coins(call: MarketCall) -> Response {
    call.query(MarketApi::get_coins).await
}

#[utoipa::path(get, path = "/coins/{asset}/resolver", tag = "market",
    params(("asset" = String, Path, description = "Asset id")),
    responses((status = 200, description = "The coin's resolver address", body = ResolverAddressResponse),
              LookupErrors))]
pub(crate) async fn coin_resolver(call: MarketCall, Segments(asset): Segments<String>) -> Response {
    call.query(move |m, p| m.get_coin_resolver(&asset, p)).await
}

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
pub(crate) async fn coin_transactions(call: MarketCall) -> Response {
    call.query(MarketApi::get_coin_transactions).await
}

#[utoipa::path(get, path = "/chart", tag = "market",
    params(("asset" = String, Query, description = "Asset id"), ("period" = ChartPeriod, Query),
           ("opposite_asset" = Option<String>, Query),
           ("start_date" = Option<market::DateTime>, Query), ("end_date" = Option<market::DateTime>, Query),
           ("limit" = Option<i32>, Query, description = "1..=5000, default 1000"),
           ("use_materialized" = Option<bool>, Query)),
    responses((status = 200, description = "Candles in TON, USD and the opposite asset", body = ChartResponse),
              ListErrors))]
pub(crate) async fn chart(call: MarketCall) -> Response {
    call.query(MarketApi::get_chart).await
}

#[utoipa::path(get, path = "/chart_by_pool_address", tag = "market",
    params(("asset" = String, Query, description = "Asset id"), ("pool_address" = String, Query),
           ("period" = ChartPeriod, Query),
           ("start_date" = Option<market::DateTime>, Query), ("end_date" = Option<market::DateTime>, Query),
           ("limit" = Option<i32>, Query, description = "1..=5000, default 1000")),
    responses((status = 200, description = "One pool's candles", body = ChartByPoolAddressResponse), ListErrors))]
pub(crate) async fn chart_by_pool_address(call: MarketCall) -> Response {
    call.query(MarketApi::get_chart_by_pool_address).await
}

#[utoipa::path(get, path = "/affiliate/accounts/{id}", tag = "affiliate",
    params(("id" = String, Path, description = "Account id or controller address")),
    responses((status = 200, description = "The accounts", body = Vec<AffiliateAccount>), AccountErrors))]
pub(crate) async fn affiliate_account(call: MarketCall, Segments(id): Segments<String>) -> Response {
    call.query(move |m, p| no_parameters(p).and_then(|()| m.get_affiliate_account(&id))).await
}

#[utoipa::path(get, path = "/affiliate/accounts/{id}/volume", tag = "affiliate",
    params(("id" = String, Path, description = "Account id or controller address"),
           ("wallet_address" = Option<String>, Query, description = "Also report this wallet's volume")),
    responses((status = 200, description = "Referral volumes", body = AffiliateAccountVolumeResponse),
              LookupErrors))]
pub(crate) async fn affiliate_volume(call: MarketCall, Segments(id): Segments<String>) -> Response {
    call.query(move |m, p| m.get_affiliate_account_volume(&id, p)).await
}

#[utoipa::path(get, path = "/affiliate/{id}/referrals", tag = "affiliate",
    params(("id" = String, Path, description = "Account id or controller address")),
    responses((status = 200, description = "Referred wallets per account", body = AffiliateReferralsResponse),
              LookupErrors))]
pub(crate) async fn affiliate_referrals(call: MarketCall, Segments(id): Segments<String>) -> Response {
    call.query(move |m, p| no_parameters(p).and_then(|()| m.get_affiliate_referrals(&id))).await
}

#[utoipa::path(get, path = "/affiliate/{wallet}/referrer", tag = "affiliate",
    params(("wallet" = String, Path, description = "Wallet address")),
    responses((status = 200, description = "The wallet's referrer", body = AffiliateAccountReferrer),
              LookupErrors))]
pub(crate) async fn affiliate_referrer(call: MarketCall, Segments(wallet): Segments<String>) -> Response {
    call.query(move |m, p| no_parameters(p).and_then(|()| m.get_affiliate_referrer(&wallet))).await
}

#[utoipa::path(get, path = "/pools", tag = "pools",
    params(("filter_by_assets" = Option<String>, Query), ("filter_by_type" = Option<String>, Query),
           ("include_assets" = Option<String>, Query), ("pool_addresses" = Option<String>, Query),
           ("pair_pools" = Option<String>, Query, description = "JSON array of PairPoolsRequest"),
           ("limit" = Option<i32>, Query), ("offset" = Option<i32>, Query),
           ("sort_by" = Option<PoolSortBy>, Query), ("sort_direction" = Option<SortDirection>, Query),
           ("tags" = Option<String>, Query), ("wallet_address" = Option<String>, Query)),
    responses((status = 200, description = "Pools grouped by pair", body = PoolsResponse), ListErrors))]
pub(crate) async fn pools_get(call: MarketCall) -> Response {
    call.query(|m, p| m.get_pools(&parse::pools_request(p)?)).await
}

#[utoipa::path(post, path = "/pools", tag = "pools", request_body = GetPoolsRequest,
    responses((status = 200, description = "Pools grouped by pair", body = PoolsResponse), ListErrors))]
pub(crate) async fn pools_post(call: MarketCall, body: Body) -> Response {
    call.body(body, |m, b| m.get_pools(&parse::body(b)?)).await
}

#[utoipa::path(get, path = "/pools/pair", tag = "pools",
    params(("assets" = String, Query, description = "Two comma-separated asset ids"),
           ("filter_by_type" = Option<String>, Query), ("pool_addresses" = Option<String>, Query),
           ("limit" = Option<i32>, Query), ("offset" = Option<i32>, Query),
           ("sort_by" = Option<PoolSortBy>, Query), ("sort_direction" = Option<SortDirection>, Query),
           ("tags" = Option<String>, Query), ("wallet_address" = Option<String>, Query)),
    responses((status = 200, description = "The pair's pools", body = PairPoolsResponse), ListErrors))]
pub(crate) async fn pair_pools_get(call: MarketCall) -> Response {
    call.query(|m, p| m.get_pair_pools(&parse::pair_pools_request(p)?)).await
}

#[utoipa::path(post, path = "/pools/pair", tag = "pools", request_body = GetPairPoolsRequest,
    responses((status = 200, description = "The pair's pools", body = PairPoolsResponse), ListErrors))]
pub(crate) async fn pair_pools_post(call: MarketCall, body: Body) -> Response {
    call.body(body, |m, b| m.get_pair_pools(&parse::body(b)?)).await
}

#[utoipa::path(get, path = "/pools/summary", tag = "pools",
    params(("include_assets" = Option<String>, Query, description = "Comma-separated asset ids")),
    responses((status = 200, description = "Totals over the pools", body = PoolSummaryResponse), ListErrors))]
pub(crate) async fn pool_summary_get(call: MarketCall) -> Response {
    call.query(|m, p| m.get_pool_summary(&parse::pool_summary_request(p)?)).await
}

#[utoipa::path(post, path = "/pools/summary", tag = "pools", request_body = PoolSummaryRequest,
    responses((status = 200, description = "Totals over the pools", body = PoolSummaryResponse), ListErrors))]
pub(crate) async fn pool_summary_post(call: MarketCall, body: Body) -> Response {
    call.body(body, |m, b| m.get_pool_summary(&parse::body(b)?)).await
}

#[utoipa::path(get, path = "/pools/{address}", tag = "pools",
    params(("address" = String, Path, description = "Pool address"),
           ("wallet_address" = Option<String>, Query, description = "Enrich with this wallet's position")),
    responses((status = 200, description = "The pool", body = PoolResponse), LookupErrors))]
pub(crate) async fn pool(call: MarketCall, Segments(address): Segments<String>) -> Response {
    call.query(move |m, p| m.get_pool(&address, parse::pool_wallet(p)?)).await
}

// Wallets and traders (issue #23 part B).

#[utoipa::path(get, path = "/wallets/{address}/portfolio", tag = "wallets",
    params(("address" = String, Path, description = "Wallet (owner) address")),
    responses((status = 200, description = "The wallet's balances valued in USD and TON, and (extension) its liquidity positions", body = PortfolioResponse),
              ListErrors))]
pub(crate) async fn wallet_portfolio(call: MarketCall, Segments(address): Segments<String>) -> Response {
    call.query(move |m, p| m.get_portfolio(&address, p)).await
}

#[utoipa::path(get, path = "/wallets/{address}/holdings", tag = "wallets",
    params(("address" = String, Path, description = "Wallet address"),
           ("limit" = Option<i32>, Query, description = "Default 50, at most 500"),
           ("offset" = Option<i32>, Query, description = "Default 0")),
    responses((status = 200, description = "PnL per coin (average cost), by current value", body = HoldingsResponse),
              ListErrors))]
pub(crate) async fn wallet_holdings(call: MarketCall, Segments(address): Segments<String>) -> Response {
    call.query(move |m, p| m.get_holdings(&address, p)).await
}

#[utoipa::path(get, path = "/wallets/{address}/liquidity_positions/{pool_address}", tag = "wallets",
    params(("address" = String, Path, description = "Wallet (owner) address"),
           ("pool_address" = String, Path, description = "Pool address")),
    responses((status = 200, description = "The wallet's LP in the pool (LP = minted − burned by its liquidity events; share of the events' LP supply; claim on the reserves now)",
               body = PortfolioLiquidityPositionResponse),
              LookupErrors))]
pub(crate) async fn wallet_liquidity_position(
    call: MarketCall,
    Segments((address, pool)): Segments<(String, String)>,
) -> Response {
    call.query(move |m, p| m.get_liquidity_position(&address, &pool, p)).await
}

#[utoipa::path(get, path = "/wallets/{address}/earnings", tag = "wallets",
    params(("address" = String, Path, description = "Wallet (owner) address")),
    responses((status = 200, description = "LP fee earnings per pool (Σ floor(floor(amount_in·lp_fee/10000)·LP/supply) over the pool's trades while the wallet held LP; formulas: crates/market/src/positions.rs); creator, meme-creator and boost lists empty (not in the data)",
               body = PortfolioEarningsResponse),
              ListErrors))]
pub(crate) async fn wallet_earnings(call: MarketCall, Segments(address): Segments<String>) -> Response {
    call.query(move |m, p| m.get_earnings(&address, p)).await
}

#[utoipa::path(get, path = "/coins/{asset}/top_traders", tag = "wallets",
    params(("asset" = String, Path, description = "Asset id"),
           ("limit" = Option<i32>, Query, description = "Default 20, at most 100"),
           ("offset" = Option<i32>, Query, description = "Default 0")),
    responses((status = 200, description = "The coin's traders by total PnL", body = TopTradersResponse),
              LookupErrors))]
pub(crate) async fn coin_top_traders(call: MarketCall, Segments(asset): Segments<String>) -> Response {
    call.query(move |m, p| m.get_top_traders(&asset, p)).await
}

#[utoipa::path(get, path = "/traders", tag = "wallets",
    params(("asset" = String, Query, description = "Asset id"),
           ("start_date" = Option<market::DateTime>, Query, description = "Exclusive; default 24 h before end_date"),
           ("end_date" = Option<market::DateTime>, Query, description = "Inclusive; default now"),
           ("limit" = Option<i32>, Query, description = "Default 20, at most 100"),
           ("offset" = Option<i32>, Query, description = "Default 0")),
    responses((status = 200, description = "The coin's traders over the period, by USD volume", body = TraderInfoListResponse),
              LookupErrors))]
pub(crate) async fn traders(call: MarketCall) -> Response {
    call.query(MarketApi::get_traders).await
}

#[utoipa::path(get, path = "/coins/trending", tag = "wallets",
    params(("tier" = Option<MarketTier>, Query, description = "Only this market-cap tier"),
           ("limit" = Option<i32>, Query, description = "Default 20, at most 100"),
           ("offset" = Option<i32>, Query, description = "Default 0")),
    responses((status = 200, description = "Coins by tier, then trend score (formulas: crates/market/src/trending.rs)",
               body = tonroute_market::trending::TrendingCoinsResponse), ListErrors))]
pub(crate) async fn coins_trending(call: MarketCall) -> Response {
    call.query(MarketApi::get_trending).await
}

// #23 part A: pool providers and deposits, the screener feed.

#[utoipa::path(get, path = "/pools/{address}/providers", tag = "pools",
    params(("address" = String, Path, description = "Pool address"),
           ("limit" = Option<i32>, Query, description = "1 to 100, default 20"),
           ("offset" = Option<i32>, Query, description = "Default 0")),
    responses((status = 200, description = "The pool's liquidity providers by LP held (share = LP / supply, a fraction)", body = PoolProvidersResponse),
              LookupErrors))]
pub(crate) async fn pool_providers(call: MarketCall, Segments(address): Segments<String>) -> Response {
    call.query(move |m, p| m.get_pool_providers(&address, p)).await
}

#[utoipa::path(get, path = "/pools/{address}/deposits", tag = "pools",
    params(("address" = String, Path, description = "Pool address"),
           ("limit" = Option<i32>, Query, description = "1 to 100, default 20"),
           ("offset" = Option<i32>, Query, description = "Default 0")),
    responses((status = 200, description = "The pool's deposits (joins), newest first", body = DepositsResponse),
              LookupErrors))]
pub(crate) async fn pool_deposits(call: MarketCall, Segments(address): Segments<String>) -> Response {
    call.query(move |m, p| m.get_pool_deposits(&address, p)).await
}

#[utoipa::path(get, path = "/latest-block", tag = "screener",
    responses((status = 200, description = "The highest block of a stored event (never ahead of the data)", body = FeedBlockResponse),
              LookupErrors))]
pub(crate) async fn latest_block(call: MarketCall) -> Response {
    call.query(MarketApi::get_latest_block).await
}

#[utoipa::path(get, path = "/asset", tag = "screener",
    params(("id" = String, Query, description = "Asset id (`native`, `jetton:0:<hex>` or a master's address)")),
    responses((status = 200, description = "The asset", body = FeedAssetResponse),
              LookupErrors))]
pub(crate) async fn feed_asset(call: MarketCall) -> Response {
    call.query(MarketApi::get_feed_asset).await
}

#[utoipa::path(get, path = "/pair", tag = "screener",
    params(("id" = String, Query, description = "Pool address")),
    responses((status = 200, description = "The pair (a pool with at least one event)", body = FeedPairResponse),
              LookupErrors))]
pub(crate) async fn feed_pair(call: MarketCall) -> Response {
    call.query(MarketApi::get_feed_pair).await
}

#[utoipa::path(get, path = "/events", tag = "screener",
    params(("fromBlock" = i64, Query, description = "First block, at least 0"),
           ("toBlock" = i64, Query, description = "Last block (inclusive); at most 10000 blocks per request")),
    responses((status = 200, description = "Swaps, joins and exits of the blocks, ordered by block, txnIndex, eventIndex", body = FeedEventsResponse),
              ListErrors))]
pub(crate) async fn feed_events(call: MarketCall) -> Response {
    call.query(MarketApi::get_events).await
}
