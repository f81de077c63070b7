//! The seam between the market operations and where market data lives: [`MarketStore`], one method per
//! operation, typed query in, the spec's answer out. Two stores implement it: [`memory`], a replayed market file
//! seen at its "now" ([`super::replay::MarketView`]), and `sql` (feature `store`: SQLite or PostgreSQL, candles
//! computed by the database, trades ingested as they happen). Both answer through the market's resource files, so
//! the JSON layer, the server and the tests do not change with the store.
//!
//! Owns the contract every store keeps ([`StoreFailure`], a store's own failure, is with the domain's errors);
//! must not hold an implementation (those sit beside this file, the database one behind its own cargo feature).
//!
//! # The contract
//!
//! - **Valid queries in.** A query type cannot hold a value its operation refuses ([`super::query`]), so a
//!   store does not re-validate; it only refuses what depends on its data (e.g.
//!   [`MarketError::AssetNotInPool`]) and, for a database, its own failures: [`MarketError::Store`] with a
//!   [`StoreFailure`] that keeps the driver's error as its source (the JSON layer answers 500, code 6501,
//!   without the driver's text).
//! - **Not found is `None`.** A lookup by name (a coin, a pool, an affiliate account, a wallet's referrer)
//!   answers `Ok(None)` when nothing has that name; the caller words the "not found" (the JSON layer's 404).
//! - **"Now" is the store's.** Answers describe the data as of one instant the store was given (the replay:
//!   the `now` of [`super::replay::MarketView::new`]); nothing here reads a clock. A store fed live data is
//!   handed its instant the same way (e.g. a cheap per-request handle `store.at(now)` that implements this
//!   trait), so answers stay reproducible in tests.
//! - **Synchronous, shareable.** `Send + Sync`, one store shared by every request. The methods block: the
//!   replay computes in memory; a database store waits for its driver (e.g. `Handle::block_on` over an async
//!   `sqlx` pool, from the blocking threads its caller runs it on). The core stays free of async, and an async
//!   caller moves the call off its reactor (`tokio::task::spawn_blocking`).
//! - **Same answers.** Every implementation returns the spec's shapes ([`super::types`]) with the choices listed
//!   in the `market` module's documentation (ordering, ties, inclusive bounds, empty charts for unknown assets).

pub mod memory;
#[cfg(feature = "store")]
pub mod sql;
mod view;

use tonlib_core::TonAddress;

pub use super::error::StoreFailure;

use super::error::MarketError;
use super::portfolio::{FeedAsset, FeedBlock, FeedEvent, FeedPair};
use super::portfolio::{HoldingsResponse, PortfolioResponse, TopTradersResponse, TraderInfoListResponse};
use super::portfolio::{PortfolioEarningsResponse, PortfolioLiquidityPositionResponse};
use super::positions::PositionQuery;
use super::providers::{PoolDepositsQuery, PoolProvidersQuery};
use super::query::{
    AffiliateKey, AffiliateVolumeQuery, ChartByPoolQuery, ChartQuery, CoinQuery, CoinTransactionsQuery, CoinsQuery,
    PairPoolsQuery, PoolQuery, PoolSummaryQuery, PoolsQuery,
};
use super::screener::EventsQuery;
use super::traders::{HoldingsQuery, TopTradersQuery, TradersQuery};
use super::trending::{TrendingCoinsResponse, TrendingQuery};
use super::types::{
    AffiliateAccount, AffiliateAccountReferrer, AffiliateAccountVolumeResponse, AffiliateReferralsResponse,
    ChartByPoolAddressResponse, ChartResponse, Coin, CoinTransactionsResponse, CoinsResponse, PairPoolsResponse,
    PoolResponse, PoolSummaryResponse, PoolsResponse, ResolverAddressResponse,
};
use super::types::{DepositsResponse, PoolProvidersResponse};
use tonroute_core::asset::Asset;

/// The market operations over one store of market data. See the module documentation for the contract.
pub trait MarketStore: Send + Sync + std::fmt::Debug {
    /// `/coin`: one listed coin, `None` when it is not listed.
    fn coin(&self, query: &CoinQuery) -> Result<Option<Coin>, MarketError>;

    /// `/coins`: a filtered, sorted page of the listed coins.
    fn coins(&self, query: &CoinsQuery) -> Result<CoinsResponse, MarketError>;

    /// `/coins/{asset}/resolver`: the coin's resolver, `None` when the coin is not listed.
    fn coin_resolver(&self, asset: &Asset) -> Result<Option<ResolverAddressResponse>, MarketError>;

    /// `/coin_transactions`: a page of a listed coin's trades, `None` when the coin is not listed.
    fn coin_transactions(&self, query: &CoinTransactionsQuery)
        -> Result<Option<CoinTransactionsResponse>, MarketError>;

    /// `/chart`: candles of an asset (empty series for an asset without trades or unknown).
    fn chart(&self, query: &ChartQuery) -> Result<ChartResponse, MarketError>;

    /// `/chart_by_pool_address`: candles of one pool (empty for an unknown pool;
    /// [`MarketError::AssetNotInPool`] for an asset the pool does not trade).
    fn chart_by_pool(&self, query: &ChartByPoolQuery) -> Result<ChartByPoolAddressResponse, MarketError>;

    /// `/pools`: a page of asset-pair rows.
    fn pools(&self, query: &PoolsQuery) -> Result<PoolsResponse, MarketError>;

    /// `/pools/pair`: a page of one pair's pools.
    fn pair_pools(&self, query: &PairPoolsQuery) -> Result<PairPoolsResponse, MarketError>;

    /// `/pools/{address}`: one pool, `None` when there is no such pool.
    fn pool(&self, query: &PoolQuery) -> Result<Option<PoolResponse>, MarketError>;

    /// `/pools/summary`: totals over the pools.
    fn pool_summary(&self, query: &PoolSummaryQuery) -> Result<PoolSummaryResponse, MarketError>;

    /// `/affiliate/accounts/{id}`: the accounts the key names (empty when none).
    fn affiliate_accounts(&self, key: &AffiliateKey) -> Result<Vec<AffiliateAccount>, MarketError>;

    /// `/affiliate/accounts/{id}/volume`: referral volumes of the accounts the key names, `None` when none.
    fn affiliate_volume(
        &self,
        query: &AffiliateVolumeQuery,
    ) -> Result<Option<AffiliateAccountVolumeResponse>, MarketError>;

    /// `/affiliate/{id}/referrals`: the wallets the accounts refer, `None` when the key names no account.
    fn affiliate_referrals(&self, key: &AffiliateKey) -> Result<Option<AffiliateReferralsResponse>, MarketError>;

    /// `/affiliate/{wallet}/referrer`: the account that referred `wallet`, `None` when none did.
    fn affiliate_referrer(&self, wallet: &TonAddress) -> Result<Option<AffiliateAccountReferrer>, MarketError>;

    // ---- Wallets and traders (issue #23 part B: `market::wallets`, `market::traders`) ----

    /// `/wallets/{address}/portfolio`: the wallet's balances valued at the store's prices (empty when none).
    fn portfolio(&self, wallet: &TonAddress) -> Result<PortfolioResponse, MarketError>;

    /// `/wallets/{address}/holdings`: the wallet's PnL per coin from its trades (empty when none).
    fn holdings(&self, query: &HoldingsQuery) -> Result<HoldingsResponse, MarketError>;

    /// `/coins/{asset}/top_traders`: the coin's traders by total PnL, `None` when the coin is not listed.
    fn top_traders(&self, query: &TopTradersQuery) -> Result<Option<TopTradersResponse>, MarketError>;

    /// `/traders`: the coin's traders over a period, `None` when the coin is not listed.
    fn traders(&self, query: &TradersQuery) -> Result<Option<TraderInfoListResponse>, MarketError>;

    /// `/coins/trending`: coins by market-cap tier and trend score at the store's now (`market::trending`).
    fn trending(&self, query: &TrendingQuery) -> Result<TrendingCoinsResponse, MarketError>;

    // --- #23 part A: the screener feed (`super::screener`), pool providers and deposits (`super::providers`),
    // from trades and liquidity events (`super::liquidity`). ---

    /// `/latest-block`: the highest block of a stored event at or before now (never ahead of the data), `None`
    /// when the store holds no event.
    fn latest_block(&self) -> Result<Option<FeedBlock>, MarketError>;

    /// `/asset`: an asset of the store's snapshot, `None` for another.
    fn feed_asset(&self, asset: &Asset) -> Result<Option<FeedAsset>, MarketError>;

    /// `/pair`: a pool with at least one stored event, `None` otherwise.
    fn feed_pair(&self, pool: &TonAddress) -> Result<Option<FeedPair>, MarketError>;

    /// `/events`: the swaps, joins and exits of a block range, in feed order.
    fn feed_events(&self, query: &EventsQuery) -> Result<Vec<FeedEvent>, MarketError>;

    /// `/pools/{address}/providers`: a page of the pool's providers, `None` for an unknown pool.
    fn pool_providers(&self, query: &PoolProvidersQuery) -> Result<Option<PoolProvidersResponse>, MarketError>;

    /// `/pools/{address}/deposits`: a page of the pool's deposits, `None` for an unknown pool.
    fn pool_deposits(&self, query: &PoolDepositsQuery) -> Result<Option<DepositsResponse>, MarketError>;

    // --- #23: liquidity positions and earnings (`super::positions`), from the liquidity events and trades. ---

    /// `/wallets/{address}/liquidity_positions/{pool_address}`: the wallet's position in the pool, `None` for an
    /// unknown pool or one where the wallet holds no LP.
    fn liquidity_position(
        &self,
        query: &PositionQuery,
    ) -> Result<Option<PortfolioLiquidityPositionResponse>, MarketError>;

    /// `/wallets/{address}/earnings`: the wallet's LP fee earnings per pool (creator and meme-creator earnings and
    /// boost rewards empty, see `super::positions`).
    fn earnings(&self, wallet: &TonAddress) -> Result<PortfolioEarningsResponse, MarketError>;
}
