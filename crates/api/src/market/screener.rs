//! The screener feed and the pool providers / deposits on the wire (#23 part A): query strings into
//! [`EventsQuery`], [`PoolProvidersQuery`], [`PoolDepositsQuery`], the store's answers, 404s named as sent.
//!
//! Routes (paths chosen to fit the existing ones; the feed's are the DEX Screener adapter's):
//! `GET /latest-block`, `GET /asset?id=…`, `GET /pair?id=…`, `GET /events?fromBlock=N&toBlock=M`,
//! `GET /pools/{address}/providers?limit=&offset=`, `GET /pools/{address}/deposits?limit=&offset=`.
//! Unknown asset → 404 code 6400; unknown pair or pool, and `/latest-block` of a store holding no event → 404
//! code 6401. `fromBlock` / `toBlock` are decimal integers (LargeInteger syntax); a range the domain refuses is
//! 400 (6007 inverted, 6013 negative or longer than `MAX_EVENT_BLOCKS`).
//!
//! Owns these routes' parameter names only.

use super::error::{MarketFailure, NotFound, QueryError};
use super::params::{parse_address, Params};
use super::parse::page_only;
use super::{answer, MarketApi, Pairs};
use crate::ApiError;
use tonroute_market::limits::PROVIDERS_LIMIT;
use tonroute_market::portfolio::{FeedAssetResponse, FeedBlockResponse, FeedEventsResponse, FeedPairResponse};
use tonroute_market::providers::{PoolDepositsQuery, PoolProvidersQuery};
use tonroute_market::screener::EventsQuery;
use tonroute_market::types::{DepositsResponse, PoolProvidersResponse};

type Parsed<T> = Result<T, MarketFailure>;

/// `/events`.
pub fn events(pairs: &Pairs) -> Parsed<EventsQuery> {
    let mut p = Params::new(pairs)?;
    let from = p.large_int("fromBlock")?.ok_or(QueryError::Missing { name: "fromBlock" })?;
    let to = p.large_int("toBlock")?.ok_or(QueryError::Missing { name: "toBlock" })?;
    p.finish()?;
    Ok(EventsQuery::new(from, to)?)
}

/// `/pools/{address}/providers`.
pub fn pool_providers(address: &str, pairs: &Pairs) -> Parsed<PoolProvidersQuery> {
    let pool = parse_address("address", address)?;
    Ok(PoolProvidersQuery { pool, page: page_only(pairs, PROVIDERS_LIMIT)? })
}

/// `/pools/{address}/deposits`.
pub fn pool_deposits(address: &str, pairs: &Pairs) -> Parsed<PoolDepositsQuery> {
    let pool = parse_address("address", address)?;
    Ok(PoolDepositsQuery { pool, page: page_only(pairs, PROVIDERS_LIMIT)? })
}

impl MarketApi {
    /// `GET /latest-block`.
    pub fn get_latest_block(&self, pairs: &Pairs) -> Result<FeedBlockResponse, ApiError> {
        answer(|| {
            Params::new(pairs)?.finish()?;
            let block = self.store.latest_block()?.ok_or(NotFound::NoBlock)?;
            Ok(FeedBlockResponse { block })
        })
    }

    /// `GET /asset?id=…`.
    pub fn get_feed_asset(&self, pairs: &Pairs) -> Result<FeedAssetResponse, ApiError> {
        answer(|| {
            let mut p = Params::new(pairs)?;
            let text = p.required("id")?;
            let asset = p.asset("id")?;
            p.finish()?;
            let asset = self.store.feed_asset(&asset)?.ok_or_else(|| NotFound::FeedAsset { id: text.to_string() })?;
            Ok(FeedAssetResponse { asset })
        })
    }

    /// `GET /pair?id=…`.
    pub fn get_feed_pair(&self, pairs: &Pairs) -> Result<FeedPairResponse, ApiError> {
        answer(|| {
            let mut p = Params::new(pairs)?;
            let text = p.required("id")?;
            let pool = parse_address("id", text)?;
            p.finish()?;
            let pair = self.store.feed_pair(&pool)?.ok_or_else(|| NotFound::Pair { id: text.to_string() })?;
            Ok(FeedPairResponse { pair })
        })
    }

    /// `GET /events?fromBlock=N&toBlock=M`.
    pub fn get_events(&self, pairs: &Pairs) -> Result<FeedEventsResponse, ApiError> {
        answer(|| Ok(FeedEventsResponse { events: self.store.feed_events(&events(pairs)?)? }))
    }

    /// `GET /pools/{address}/providers`.
    pub fn get_pool_providers(&self, address: &str, pairs: &Pairs) -> Result<PoolProvidersResponse, ApiError> {
        answer(|| {
            let q = pool_providers(address, pairs)?;
            Ok(self.store.pool_providers(&q)?.ok_or_else(|| NotFound::Pool { address: address.to_string() })?)
        })
    }

    /// `GET /pools/{address}/deposits`.
    pub fn get_pool_deposits(&self, address: &str, pairs: &Pairs) -> Result<DepositsResponse, ApiError> {
        answer(|| {
            let q = pool_deposits(address, pairs)?;
            Ok(self.store.pool_deposits(&q)?.ok_or_else(|| NotFound::Pool { address: address.to_string() })?)
        })
    }
}
