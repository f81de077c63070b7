//! The wallet and trader routes on the wire (issue #23): `/wallets/{address}/portfolio`,
//! `/wallets/{address}/holdings`, `/wallets/{address}/liquidity_positions/{pool_address}`,
//! `/wallets/{address}/earnings`, `/coins/{asset}/top_traders`, `/traders`. Query strings into the typed
//! queries of `tonroute_market::traders` and `tonroute_market::positions`, the store's answer, refusals as
//! `{code, message}` like every market route (unknown or repeated parameters 400, a malformed address or asset
//! 400, `limit` / `offset` like `/coins`, an unlisted coin 404, a pool where the wallet holds no LP 404 code
//! 6404).
//!
//! Owns these routes' parameter names only.

use super::error::{MarketFailure, NotFound};
use super::params::{parse_address, parse_asset, Params};
use super::parse::{page, page_only};
use super::{answer, MarketApi, Pairs};
use crate::ApiError;
use tonroute_market::portfolio::MarketTier;
use tonroute_market::portfolio::{HoldingsResponse, PortfolioResponse, TopTradersResponse, TraderInfoListResponse};
use tonroute_market::portfolio::{PortfolioEarningsResponse, PortfolioLiquidityPositionResponse};
use tonroute_market::positions::PositionQuery;
use tonroute_market::query::Bounds;
use tonroute_market::traders::{
    HoldingsQuery, TopTradersQuery, TradersQuery, HOLDINGS_LIMIT, TOP_TRADERS_LIMIT, TRADERS_LIMIT,
};
use tonroute_market::trending::{TrendingCoinsResponse, TrendingQuery, TRENDING_LIMIT};

type Parsed<T> = Result<T, MarketFailure>;

/// `/wallets/{address}/holdings`: `limit`, `offset`.
pub fn holdings(address: &str, pairs: &Pairs) -> Parsed<HoldingsQuery> {
    let wallet = parse_address("address", address)?;
    Ok(HoldingsQuery { wallet, page: page_only(pairs, HOLDINGS_LIMIT)? })
}

/// `/wallets/{address}/liquidity_positions/{pool_address}` (no parameters).
pub fn liquidity_position(address: &str, pool: &str, pairs: &Pairs) -> Parsed<PositionQuery> {
    let wallet = parse_address("address", address)?;
    let pool = parse_address("pool_address", pool)?;
    super::parse::no_parameters(pairs)?;
    Ok(PositionQuery { wallet, pool })
}

/// `/coins/{asset}/top_traders`: `limit`, `offset`.
pub fn top_traders(asset: &str, pairs: &Pairs) -> Parsed<TopTradersQuery> {
    let asset = parse_asset("asset", asset)?;
    Ok(TopTradersQuery { asset, page: page_only(pairs, TOP_TRADERS_LIMIT)? })
}

/// `/traders`: `asset` (required), `start_date`, `end_date` (start ≤ end), `limit`, `offset`.
pub fn traders(pairs: &Pairs) -> Parsed<TradersQuery> {
    let mut p = Params::new(pairs)?;
    let asset = p.asset("asset")?;
    let (start, end) = (p.date("start_date")?, p.date("end_date")?);
    let dates = Bounds::new("start_date", "end_date", start, end)?;
    let page = page(&mut p, TRADERS_LIMIT)?;
    p.finish()?;
    Ok(TradersQuery { asset, start: dates.min(), end: dates.max(), page })
}

/// `/coins/trending`: `tier` (nano, micro, mid, large), `limit`, `offset`.
pub fn trending(pairs: &Pairs) -> Parsed<TrendingQuery> {
    let mut p = Params::new(pairs)?;
    let tier = p.enumeration::<MarketTier>("tier")?;
    let page = page(&mut p, TRENDING_LIMIT)?;
    p.finish()?;
    Ok(TrendingQuery { tier, page })
}

impl MarketApi {
    /// `GET /coins/trending`.
    pub fn get_trending(&self, pairs: &Pairs) -> Result<TrendingCoinsResponse, ApiError> {
        answer(|| Ok(self.store.trending(&trending(pairs)?)?))
    }

    /// `GET /wallets/{address}/portfolio` (no parameters).
    pub fn get_portfolio(&self, address: &str, pairs: &Pairs) -> Result<PortfolioResponse, ApiError> {
        answer(|| {
            let wallet = parse_address("address", address)?;
            super::parse::no_parameters(pairs)?;
            Ok(self.store.portfolio(&wallet)?)
        })
    }

    /// `GET /wallets/{address}/liquidity_positions/{pool_address}`: 404 when the wallet holds no LP in the pool
    /// (or the pool is unknown).
    pub fn get_liquidity_position(
        &self,
        address: &str,
        pool: &str,
        pairs: &Pairs,
    ) -> Result<PortfolioLiquidityPositionResponse, ApiError> {
        answer(|| {
            let q = liquidity_position(address, pool, pairs)?;
            let not_found = || NotFound::Position { wallet: address.to_string(), pool: pool.to_string() };
            Ok(self.store.liquidity_position(&q)?.ok_or_else(not_found)?)
        })
    }

    /// `GET /wallets/{address}/earnings` (no parameters).
    pub fn get_earnings(&self, address: &str, pairs: &Pairs) -> Result<PortfolioEarningsResponse, ApiError> {
        answer(|| {
            let wallet = parse_address("address", address)?;
            super::parse::no_parameters(pairs)?;
            Ok(self.store.earnings(&wallet)?)
        })
    }

    /// `GET /wallets/{address}/holdings`.
    pub fn get_holdings(&self, address: &str, pairs: &Pairs) -> Result<HoldingsResponse, ApiError> {
        answer(|| Ok(self.store.holdings(&holdings(address, pairs)?)?))
    }

    /// `GET /coins/{asset}/top_traders`: 404 for a coin that is not listed.
    pub fn get_top_traders(&self, asset: &str, pairs: &Pairs) -> Result<TopTradersResponse, ApiError> {
        answer(|| {
            let q = top_traders(asset, pairs)?;
            Ok(self.store.top_traders(&q)?.ok_or_else(|| NotFound::Coin { asset: q.asset.to_string() })?)
        })
    }

    /// `GET /traders`: 404 for a coin that is not listed.
    pub fn get_traders(&self, pairs: &Pairs) -> Result<TraderInfoListResponse, ApiError> {
        answer(|| {
            let q = traders(pairs)?;
            Ok(self.store.traders(&q)?.ok_or_else(|| NotFound::Coin { asset: q.asset.to_string() })?)
        })
    }
}
