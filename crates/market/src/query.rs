//! The typed queries of the market operations: what each operation is asked, with every value already in its
//! type and range. A query that exists is a valid query: the field types refuse what the spec refuses (a page
//! outside its limits, bounds the wrong way round, a per-period sort or filter without its period, an asset
//! pair of one asset, a sort by the wallet's position without a wallet), so every [`super::MarketStore`]
//! answers the same questions and none re-checks them.
//!
//! Owns the constraints (their numbers are in [`super::limits`]); must not know how a query was written (the
//! query-string and request-body parsers live in `crate::api::market`). Fields are public to read where every
//! value of them is valid, private behind getters where a field write could break the query's rule
//! ([`ChartQuery`], [`PoolFilter`]); build the types with a checked constructor (`new`, or `Default` where every
//! value of the fields is valid).

use std::collections::BTreeMap;

use tonlib_core::TonAddress;

use super::error::MarketError;
use super::limits::{
    LimitRule, BONDING_CURVE_PERCENT, CHART_LIMIT, COINS_LIMIT, COIN_TRANSACTIONS_LIMIT, DEFAULT_VERIFICATION_LEVELS,
    MIN_LIMIT, POOLS_LIMIT, VERIFICATION_LEVELS,
};
use super::types::{ChartPeriod, CoinSortBy, PoolKind, PoolSortBy, SortDirection, StatPeriod, TradeType};
use tonroute_core::asset::Asset;
use tonroute_core::graph::{AssetId, PoolGraph, PoolId};

/// A page size within an operation's [`LimitRule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit(i32);

impl Limit {
    /// `value` (or the rule's default) if it is within `MIN_LIMIT..=rule.max`.
    pub fn new(value: Option<i32>, rule: LimitRule) -> Result<Limit, MarketError> {
        let value = value.unwrap_or(rule.default);
        if (MIN_LIMIT..=rule.max).contains(&value) {
            Ok(Limit(value))
        } else {
            Err(MarketError::LimitOutOfRange { value, min: MIN_LIMIT, max: rule.max })
        }
    }

    /// The rule's default.
    pub fn default_of(rule: LimitRule) -> Limit {
        Limit(rule.default)
    }

    /// The value (at least 1).
    pub fn get(self) -> i32 {
        self.0
    }

    /// The value as a length.
    pub fn count(self) -> usize {
        // At least MIN_LIMIT (1): the conversion cannot fail.
        usize::try_from(self.0).unwrap_or(1)
    }
}

/// How many items a page skips: zero or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Offset(i32);

impl Offset {
    /// `value` (0 when absent) if it is not negative.
    pub fn new(value: Option<i32>) -> Result<Offset, MarketError> {
        match value.unwrap_or(0) {
            v if v >= 0 => Ok(Offset(v)),
            value => Err(MarketError::OffsetOutOfRange { value }),
        }
    }

    /// The value (at least 0).
    pub fn get(self) -> i32 {
        self.0
    }
}

/// One page of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Items on the page.
    pub limit: Limit,
    /// Items skipped before it.
    pub offset: Offset,
}

impl Page {
    /// The first page of `rule`'s default size.
    pub fn first(rule: LimitRule) -> Page {
        Page { limit: Limit::default_of(rule), offset: Offset::default() }
    }

    /// The page's part of `items`.
    pub fn of<'a, T>(&self, items: &'a [T]) -> &'a [T] {
        // Offset is at least 0: the conversion cannot fail.
        let start = usize::try_from(self.offset.0).unwrap_or(usize::MAX).min(items.len());
        let end = start.saturating_add(self.limit.count()).min(items.len());
        &items[start..end]
    }
}

/// Inclusive bounds on a figure, either side optional, never the wrong way round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds<T> {
    min: Option<T>,
    max: Option<T>,
}

impl<T> Default for Bounds<T> {
    fn default() -> Bounds<T> {
        Bounds { min: None, max: None }
    }
}

impl<T: PartialOrd + Copy> Bounds<T> {
    /// No bound on either side.
    pub fn any() -> Bounds<T> {
        Bounds::default()
    }

    /// `min..=max`, refused with [`MarketError::InvertedBounds`] (naming both fields) when `min > max`.
    pub fn new(
        min_field: &'static str,
        max_field: &'static str,
        min: Option<T>,
        max: Option<T>,
    ) -> Result<Bounds<T>, MarketError> {
        match (min, max) {
            (Some(a), Some(b)) if a > b => Err(MarketError::InvertedBounds { min_field, max_field }),
            _ => Ok(Bounds { min, max }),
        }
    }

    /// The lower bound.
    pub fn min(&self) -> Option<T> {
        self.min
    }

    /// The upper bound.
    pub fn max(&self) -> Option<T> {
        self.max
    }

    /// Whether neither side is bounded.
    pub fn is_any(&self) -> bool {
        self.min.is_none() && self.max.is_none()
    }

    /// Whether `v` is within the bounds.
    pub fn contains(&self, v: T) -> bool {
        self.min.is_none_or(|m| v >= m) && self.max.is_none_or(|m| v <= m)
    }
}

impl Bounds<f64> {
    /// Bounds on a USD figure `{name}_min..={name}_max`; [`MarketError::InvertedAmounts`] when `min > max`.
    pub fn amounts(name: &'static str, min: Option<f64>, max: Option<f64>) -> Result<Bounds<f64>, MarketError> {
        Bounds::checked_amounts(name, min, max, false)
    }

    /// Like [`Bounds::amounts`], but the bounds must also differ (`/coin_transactions`' `volume_usd`).
    pub fn distinct_amounts(
        name: &'static str,
        min: Option<f64>,
        max: Option<f64>,
    ) -> Result<Bounds<f64>, MarketError> {
        Bounds::checked_amounts(name, min, max, true)
    }

    /// Bounds on a bonding-curve percentage: [`Bounds::amounts`], then each bound within
    /// [`BONDING_CURVE_PERCENT`] ([`MarketError::PercentageOutOfRange`]).
    pub fn percentages(name: &'static str, min: Option<f64>, max: Option<f64>) -> Result<Bounds<f64>, MarketError> {
        let bounds = Bounds::amounts(name, min, max)?;
        match [min, max].into_iter().flatten().find(|v| !BONDING_CURVE_PERCENT.contains(v)) {
            Some(value) => Err(MarketError::PercentageOutOfRange { value }),
            None => Ok(bounds),
        }
    }

    fn checked_amounts(
        name: &'static str,
        min: Option<f64>,
        max: Option<f64>,
        strict: bool,
    ) -> Result<Bounds<f64>, MarketError> {
        match (min, max) {
            (Some(a), Some(b)) if a > b || (strict && a >= b) => {
                Err(MarketError::InvertedAmounts { name, min: a, max: b, strict })
            }
            _ => Ok(Bounds { min, max }),
        }
    }
}

/// A coin verification level a listing may filter on (1..=4, [`VERIFICATION_LEVELS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VerificationLevel(u8);

impl VerificationLevel {
    /// `level` if it is one of [`VERIFICATION_LEVELS`].
    pub fn new(level: u8) -> Option<VerificationLevel> {
        VERIFICATION_LEVELS.contains(&level).then_some(VerificationLevel(level))
    }

    /// The level.
    pub fn get(self) -> u8 {
        self.0
    }
}

/// The order of a coin listing. The per-period sorts carry their period, so none can miss it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CoinSort {
    /// USD price.
    Price,
    /// Market cap.
    MarketCap,
    /// Liquidity (the default).
    #[default]
    Liquidity,
    /// Holder count.
    Holders,
    /// Time since creation.
    Age,
    /// Bonding-curve progress.
    CurveProgress,
    /// USD price change over the period.
    PriceChange(StatPeriod),
    /// Trade count over the period.
    Transactions(StatPeriod),
    /// USD volume over the period.
    Volume(StatPeriod),
}

impl CoinSort {
    /// The sort `sort_by` names (liquidity when absent); [`MarketError::SortPeriodRequired`] when it is a
    /// per-period sort and `period` is absent. A period with another sort changes nothing.
    pub fn new(sort_by: Option<CoinSortBy>, period: Option<StatPeriod>) -> Result<CoinSort, MarketError> {
        let per_period = |make: fn(StatPeriod) -> CoinSort| period.map(make).ok_or(MarketError::SortPeriodRequired);
        Ok(match sort_by.unwrap_or(CoinSortBy::Liquidity) {
            CoinSortBy::Price => CoinSort::Price,
            CoinSortBy::MarketCap => CoinSort::MarketCap,
            CoinSortBy::Liquidity => CoinSort::Liquidity,
            CoinSortBy::Holders => CoinSort::Holders,
            CoinSortBy::Age => CoinSort::Age,
            CoinSortBy::CurveProgress => CoinSort::CurveProgress,
            CoinSortBy::PriceChange => per_period(CoinSort::PriceChange)?,
            CoinSortBy::Transactions => per_period(CoinSort::Transactions)?,
            CoinSortBy::Volume => per_period(CoinSort::Volume)?,
        })
    }
}

/// Volume and trade-count bounds of a coin listing, over the period they are counted in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActivityFilter {
    /// The period the figures cover (`filter_period`).
    pub period: StatPeriod,
    /// USD volume over the period.
    pub volume_usd: Bounds<f64>,
    /// Trades over the period.
    pub transactions: Bounds<i128>,
}

impl ActivityFilter {
    /// The filter, or `None` without a period and bounds; [`MarketError::FilterPeriodRequired`] for bounds
    /// without a period.
    pub fn new(
        period: Option<StatPeriod>,
        volume_usd: Bounds<f64>,
        transactions: Bounds<i128>,
    ) -> Result<Option<ActivityFilter>, MarketError> {
        match period {
            Some(period) => Ok(Some(ActivityFilter { period, volume_usd, transactions })),
            None if volume_usd.is_any() && transactions.is_any() => Ok(None),
            None => Err(MarketError::FilterPeriodRequired),
        }
    }
}

/// What a coin answer includes beyond the always-present fields.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CoinOptions {
    /// `extra_details` (`/coin` only): 7- and 30-day highs and lows, the coin's deepest pools.
    pub extra_details: bool,
    /// `memecoin_extra_details`: the launch-pad curve.
    pub memecoin_extra_details: bool,
    /// `calculate_total_volume` (`/coins` only): volume since the first trade.
    pub total_volume: bool,
    /// `compact` (`/coins` only): asset, metadata, price without changes, liquidity, market cap, level.
    pub compact: bool,
}

/// `GET /coin`: one coin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoinQuery {
    /// The coin.
    pub asset: Asset,
    /// What to include.
    pub options: CoinOptions,
}

/// Which coins `/coins` lists. Every part is optional; all given parts must match.
#[derive(Debug, Clone, PartialEq)]
pub struct CoinFilter {
    /// Only these coins.
    pub assets: Option<Vec<Asset>>,
    /// Not these coins.
    pub exclude_assets: Option<Vec<Asset>>,
    /// Only coins at these levels ([`DEFAULT_VERIFICATION_LEVELS`] unless told).
    pub verification_levels: Vec<VerificationLevel>,
    /// Coins carrying every one of these tags.
    pub tags: Option<Vec<String>>,
    /// Coins carrying none of these tags.
    pub exclude_tags: Option<Vec<String>>,
    /// Coins created by this address.
    pub author: Option<TonAddress>,
    /// Liquidity, USD.
    pub liquidity_usd: Bounds<f64>,
    /// Holder count.
    pub holders: Bounds<i128>,
    /// Market cap, USD (coins without a price fail any bound).
    pub market_cap_usd: Bounds<f64>,
    /// Creation time, Unix seconds.
    pub created_at: Bounds<i64>,
    /// Volume and trade counts over a period.
    pub activity: Option<ActivityFilter>,
    /// Bonding-curve progress, percent (coins without a curve fail any bound).
    pub bonding_curve_percentage: Bounds<f64>,
    /// Also list coins that have no trade, hence no price.
    pub include_without_price: bool,
}

impl Default for CoinFilter {
    fn default() -> CoinFilter {
        CoinFilter {
            assets: None,
            exclude_assets: None,
            verification_levels: DEFAULT_VERIFICATION_LEVELS
                .iter()
                .filter_map(|l| VerificationLevel::new(*l))
                .collect(),
            tags: None,
            exclude_tags: None,
            author: None,
            liquidity_usd: Bounds::any(),
            holders: Bounds::any(),
            market_cap_usd: Bounds::any(),
            created_at: Bounds::any(),
            activity: None,
            bonding_curve_percentage: Bounds::any(),
            include_without_price: false,
        }
    }
}

/// `GET /coins`: a filtered, sorted page of coins.
#[derive(Debug, Clone, PartialEq)]
pub struct CoinsQuery {
    /// A name or ticker substring (case-insensitive) or an asset id in any accepted form; trimmed, non-empty.
    pub search: Option<String>,
    /// The page ([`COINS_LIMIT`]).
    pub page: Page,
    /// The order; ties by asset id, coins missing the sort key last.
    pub sort: CoinSort,
    /// The direction (descending unless told).
    pub direction: SortDirection,
    /// Which coins.
    pub filter: CoinFilter,
    /// What each coin includes (`extra_details` is not offered by `/coins`).
    pub options: CoinOptions,
    /// Leave out `total_count`.
    pub skip_total_count: bool,
}

impl Default for CoinsQuery {
    fn default() -> CoinsQuery {
        CoinsQuery {
            search: None,
            page: Page::first(COINS_LIMIT),
            sort: CoinSort::default(),
            direction: SortDirection::Desc,
            filter: CoinFilter::default(),
            options: CoinOptions::default(),
            skip_total_count: false,
        }
    }
}

/// `GET /coin_transactions`: a page of one coin's trades, newest first unless told.
#[derive(Debug, Clone, PartialEq)]
pub struct CoinTransactionsQuery {
    /// The coin.
    pub asset: Asset,
    /// Only trades through this pool.
    pub pool: Option<TonAddress>,
    /// Only trades of this wallet.
    pub trader: Option<TonAddress>,
    /// The page ([`COIN_TRANSACTIONS_LIMIT`]).
    pub page: Page,
    /// Trade time, Unix seconds.
    pub dates: Bounds<i64>,
    /// Trade value, USD.
    pub volume_usd: Bounds<f64>,
    /// Buys or sells of the coin only.
    pub kind: Option<TradeType>,
    /// By time (descending unless told).
    pub direction: SortDirection,
}

impl CoinTransactionsQuery {
    /// The first page of `asset`'s trades, newest first, unfiltered.
    pub fn of(asset: Asset) -> CoinTransactionsQuery {
        CoinTransactionsQuery {
            asset,
            pool: None,
            trader: None,
            page: Page::first(COIN_TRANSACTIONS_LIMIT),
            dates: Bounds::any(),
            volume_usd: Bounds::any(),
            kind: None,
            direction: SortDirection::Desc,
        }
    }
}

/// The candles of a chart: bucket length, trade-time bounds, how many of the latest candles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CandleSpec {
    /// Bucket length.
    pub period: ChartPeriod,
    /// Trades counted, Unix seconds.
    pub dates: Bounds<i64>,
    /// The latest candles kept ([`CHART_LIMIT`]).
    pub limit: Limit,
}

impl CandleSpec {
    /// All trades, the default number of candles.
    pub fn of(period: ChartPeriod) -> CandleSpec {
        CandleSpec { period, dates: Bounds::any(), limit: Limit::default_of(CHART_LIMIT) }
    }
}

/// `GET /chart`: an asset's USD and TON candles, and its price in another asset. Made only by
/// [`ChartQuery::new`] (the fields are private, read through the getters), so `opposite` is never `asset`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartQuery {
    asset: Asset,
    opposite: Option<Asset>,
    candles: CandleSpec,
}

impl ChartQuery {
    /// The query; [`MarketError::OppositeIsAsset`] for a chart of an asset against itself.
    pub fn new(asset: Asset, opposite: Option<Asset>, candles: CandleSpec) -> Result<ChartQuery, MarketError> {
        if opposite == Some(asset) {
            return Err(MarketError::OppositeIsAsset);
        }
        Ok(ChartQuery { asset, opposite, candles })
    }

    /// The asset.
    #[inline]
    pub fn asset(&self) -> Asset {
        self.asset
    }

    /// The other side of the third series (never `asset`).
    #[inline]
    pub fn opposite(&self) -> Option<Asset> {
        self.opposite
    }

    /// The candles.
    #[inline]
    pub fn candles(&self) -> CandleSpec {
        self.candles
    }
}

/// `GET /chart_by_pool_address`: one pool's price candles of an asset in the other, and back.
#[derive(Debug, Clone, PartialEq)]
pub struct ChartByPoolQuery {
    /// The asset priced (one of the pool's, else the operation refuses).
    pub asset: Asset,
    /// The pool.
    pub pool: TonAddress,
    /// The candles.
    pub candles: CandleSpec,
}

impl ChartByPoolQuery {
    /// The pool in `graph` with the asset priced and the pool's other asset, as every store reads them: `None`
    /// for a pool the graph does not have (its series are empty); an asset the pool does not trade is refused.
    pub fn resolve(&self, graph: &PoolGraph) -> Result<Option<(PoolId, AssetId, AssetId)>, MarketError> {
        let Some(pid) = graph.pool_id(&self.pool) else { return Ok(None) };
        let assets = graph.pool(pid).assets;
        let id = graph
            .asset_id(&self.asset)
            .filter(|a| assets.contains(a))
            .ok_or(MarketError::AssetNotInPool { asset: self.asset })?;
        let other = if assets[0] == id { assets[1] } else { assets[0] };
        Ok(Some((pid, id, other)))
    }
}

/// Two distinct assets in a canonical order (the smaller first), naming a pair of pools' assets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AssetPair([Asset; 2]);

impl AssetPair {
    /// The pair of `a` and `b` in any order; [`MarketError::EqualAssets`] (naming `field`) when they are one.
    pub fn new(field: &str, a: Asset, b: Asset) -> Result<AssetPair, MarketError> {
        if a == b {
            return Err(MarketError::EqualAssets { field: field.to_string() });
        }
        Ok(AssetPair::ordered(a, b))
    }

    /// The pair of a pool's two (distinct) assets.
    pub(crate) fn ordered(a: Asset, b: Asset) -> AssetPair {
        AssetPair(if a <= b { [a, b] } else { [b, a] })
    }

    /// The two assets, smaller first.
    pub fn assets(&self) -> [Asset; 2] {
        self.0
    }
}

/// Which pools a pool listing shows, and in which order. Made by [`PoolFilter::new`] or `Default` (the fields
/// are private, read through the getters), so a sort by the wallet's position always has its wallet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolFilter {
    kinds: Option<Vec<PoolKind>>,
    pool_addresses: Option<Vec<TonAddress>>,
    boosted: bool,
    wallet: Option<TonAddress>,
    sort_by: PoolSortBy,
    direction: SortDirection,
}

impl Default for PoolFilter {
    fn default() -> PoolFilter {
        PoolFilter {
            kinds: None,
            pool_addresses: None,
            boosted: false,
            wallet: None,
            sort_by: PoolSortBy::Volume24h,
            direction: SortDirection::Desc,
        }
    }
}

impl PoolFilter {
    /// The filter; [`MarketError::WalletRequired`] for a sort by the wallet's position without a wallet.
    pub fn new(
        kinds: Option<Vec<PoolKind>>,
        pool_addresses: Option<Vec<TonAddress>>,
        boosted: bool,
        wallet: Option<TonAddress>,
        sort_by: Option<PoolSortBy>,
        direction: Option<SortDirection>,
    ) -> Result<PoolFilter, MarketError> {
        let sort_by = sort_by.unwrap_or(PoolSortBy::Volume24h);
        if matches!(sort_by, PoolSortBy::ValueUsd | PoolSortBy::RewardsTotalUsd) && wallet.is_none() {
            return Err(MarketError::WalletRequired { sort_by });
        }
        Ok(PoolFilter {
            kinds,
            pool_addresses,
            boosted,
            wallet,
            sort_by,
            direction: direction.unwrap_or(SortDirection::Desc),
        })
    }

    /// Only pools of these kinds.
    #[inline]
    pub fn kinds(&self) -> Option<&[PoolKind]> {
        self.kinds.as_deref()
    }

    /// Only these pools.
    #[inline]
    pub fn pool_addresses(&self) -> Option<&[TonAddress]> {
        self.pool_addresses.as_deref()
    }

    /// Only pools with an active reward program (tag `boosted`).
    #[inline]
    pub fn boosted(&self) -> bool {
        self.boosted
    }

    /// The wallet whose positions enrich the pools (always there for a sort by the wallet's position).
    #[inline]
    pub fn wallet(&self) -> Option<&TonAddress> {
        self.wallet.as_ref()
    }

    /// The sort key (24 h volume unless told).
    #[inline]
    pub fn sort_by(&self) -> PoolSortBy {
        self.sort_by
    }

    /// The direction (descending unless told).
    #[inline]
    pub fn direction(&self) -> SortDirection {
        self.direction
    }
}

/// `/pools`: a page of rows, one row per asset pair, each with a page of the pair's pools.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolsQuery {
    /// Which pools, in which order (rows sort by the sum of their pools' keys).
    pub filter: PoolFilter,
    /// The page of rows ([`POOLS_LIMIT`]).
    pub page: Page,
    /// Rows holding any of these assets come first (`filter_by_assets`).
    pub priority_assets: Option<Vec<Asset>>,
    /// Only pools holding any of these assets.
    pub include_assets: Option<Vec<Asset>>,
    /// Per-pair pages of pools (the others show the first [`super::limits::ROW_POOLS_LIMIT`] page).
    pub row_pages: BTreeMap<AssetPair, Page>,
}

impl Default for PoolsQuery {
    fn default() -> PoolsQuery {
        PoolsQuery {
            filter: PoolFilter::default(),
            page: Page::first(POOLS_LIMIT),
            priority_assets: None,
            include_assets: None,
            row_pages: BTreeMap::new(),
        }
    }
}

/// `/pools/pair`: a page of the pools of one asset pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairPoolsQuery {
    /// The pair.
    pub pair: AssetPair,
    /// Which pools, in which order.
    pub filter: PoolFilter,
    /// The page ([`POOLS_LIMIT`]).
    pub page: Page,
}

/// `/pools/{address}`: one pool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolQuery {
    /// The pool.
    pub address: TonAddress,
    /// The wallet whose position enriches it.
    pub wallet: Option<TonAddress>,
}

/// `/pools/summary`: totals over the pools holding any of `include_assets` (all pools when absent).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PoolSummaryQuery {
    /// Only pools holding any of these.
    pub include_assets: Option<Vec<Asset>>,
}

/// How a path names affiliate accounts: by account id, or by an address (the controller wallet or the account
/// contract).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AffiliateKey {
    /// An account id (`[A-Za-z0-9_-]{1,64}`, not 48 characters long).
    Id(String),
    /// A controller or account-contract address.
    Address(TonAddress),
}

impl AffiliateKey {
    /// An address when `text` parses as one, else an account id when it is one, else `None`.
    pub fn parse(text: &str) -> Option<AffiliateKey> {
        match tonroute_core::asset::parse_address(text) {
            Ok(a) => Some(AffiliateKey::Address(a)),
            Err(_) if is_account_id(text) => Some(AffiliateKey::Id(text.to_string())),
            Err(_) => None,
        }
    }
}

/// `/affiliate/accounts/{id}/volume`: the volume of the accounts' referred wallets, and of one wallet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AffiliateVolumeQuery {
    /// The accounts.
    pub key: AffiliateKey,
    /// A wallet whose own volume is added to the answer.
    pub wallet: Option<TonAddress>,
}

/// Regex-free check of an affiliate account id: `[A-Za-z0-9_-]{1,64}`, not 48 long.
pub fn is_account_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.len() != 48
        && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::{ROW_POOLS_LIMIT, VERIFIED_LEVEL};

    #[test]
    fn limit_within_the_rule_and_its_default() {
        assert_eq!(Limit::new(None, COINS_LIMIT).unwrap().get(), 20);
        assert_eq!(Limit::new(Some(1), COINS_LIMIT).unwrap().get(), 1);
        assert_eq!(Limit::new(Some(500), COINS_LIMIT).unwrap().get(), 500);
        assert_eq!(Limit::new(None, ROW_POOLS_LIMIT).unwrap().get(), 3);
        for (value, rule) in [(0, COINS_LIMIT), (501, COINS_LIMIT), (101, COIN_TRANSACTIONS_LIMIT), (5001, CHART_LIMIT)]
        {
            assert_eq!(
                Limit::new(Some(value), rule),
                Err(MarketError::LimitOutOfRange { value, min: 1, max: rule.max })
            );
        }
        assert_eq!(
            Limit::new(Some(-3), POOLS_LIMIT).unwrap_err().to_string(),
            "parameter `limit`: -3 is out of range (1 to 100)"
        );
    }

    #[test]
    fn offset_is_never_negative() {
        assert_eq!(Offset::new(None).unwrap().get(), 0);
        assert_eq!(Offset::new(Some(i32::MAX)).unwrap().get(), i32::MAX);
        assert_eq!(Offset::new(Some(-1)), Err(MarketError::OffsetOutOfRange { value: -1 }));
        assert_eq!(
            Offset::new(Some(-1)).unwrap_err().to_string(),
            "parameter `offset`: -1 is out of range (at least 0)"
        );
    }

    #[test]
    fn page_cuts_within_the_items() {
        let items: Vec<u32> = (0..10).collect();
        let page =
            |limit, offset| Page { limit: Limit::new(Some(limit), POOLS_LIMIT).unwrap(), offset: Offset(offset) };
        assert_eq!(page(3, 0).of(&items), &[0, 1, 2]);
        assert_eq!(page(3, 8).of(&items), &[8, 9]);
        assert!(page(3, 10).of(&items).is_empty());
        assert!(page(100, i32::MAX).of(&items).is_empty());
    }

    #[test]
    fn bounds_refuse_the_wrong_way_round() {
        let b = Bounds::new("holders_min", "holders_max", Some(1), Some(5)).unwrap();
        assert!(b.contains(1) && b.contains(5) && !b.contains(0) && !b.contains(6));
        assert!(Bounds::new("holders_min", "holders_max", Some(5), Some(5)).unwrap().contains(5));
        assert!(Bounds::<i64>::new("a", "b", None, Some(-1)).unwrap().contains(i64::MIN));
        assert_eq!(
            Bounds::new("start_date", "end_date", Some(2), Some(1)),
            Err(MarketError::InvertedBounds { min_field: "start_date", max_field: "end_date" })
        );
        assert_eq!(
            Bounds::new("created_at_min", "created_at_max", Some(2), Some(1)).unwrap_err().to_string(),
            "`created_at_min` must be at most `created_at_max`"
        );
        assert!(Bounds::<i32>::any().is_any() && Bounds::<i32>::any().contains(i32::MIN));
    }

    #[test]
    fn amount_bounds_say_their_values() {
        assert!(Bounds::amounts("liquidity_usd", Some(5.0), Some(5.0)).unwrap().contains(5.0));
        let e = Bounds::amounts("liquidity_usd", Some(5.0), Some(1.5)).unwrap_err();
        assert_eq!(e, MarketError::InvertedAmounts { name: "liquidity_usd", min: 5.0, max: 1.5, strict: false });
        assert_eq!(e.to_string(), "`liquidity_usd_min` (5) must be at most `liquidity_usd_max` (1.5)");
        // `/coin_transactions` wants a non-empty range: equal bounds are refused there only.
        assert!(Bounds::distinct_amounts("volume_usd", Some(1.0), Some(2.0)).is_ok());
        let e = Bounds::distinct_amounts("volume_usd", Some(2.0), Some(2.0)).unwrap_err();
        assert_eq!(e, MarketError::InvertedAmounts { name: "volume_usd", min: 2.0, max: 2.0, strict: true });
        assert_eq!(e.to_string(), "`volume_usd_min` (2) must be less than `volume_usd_max` (2)");
    }

    #[test]
    fn percentages_stay_within_0_and_100() {
        assert!(Bounds::percentages("bonding_curve_percentage", Some(0.0), Some(100.0)).is_ok());
        assert_eq!(
            Bounds::percentages("bonding_curve_percentage", None, Some(100.5)),
            Err(MarketError::PercentageOutOfRange { value: 100.5 })
        );
        assert_eq!(
            Bounds::percentages("bonding_curve_percentage", Some(-1.0), None),
            Err(MarketError::PercentageOutOfRange { value: -1.0 })
        );
        // The order of the bounds is checked first.
        assert!(matches!(
            Bounds::percentages("bonding_curve_percentage", Some(200.0), Some(-5.0)),
            Err(MarketError::InvertedAmounts { .. })
        ));
    }

    #[test]
    fn verification_levels_are_1_to_4() {
        assert_eq!(VerificationLevel::new(0), None);
        assert_eq!(VerificationLevel::new(5), None);
        assert_eq!((1..=4).filter_map(VerificationLevel::new).count(), 4);
        let defaults: Vec<u8> = CoinFilter::default().verification_levels.iter().map(|l| l.get()).collect();
        assert_eq!(defaults, [3, 4]);
        assert!(defaults.iter().all(|l| *l >= VERIFIED_LEVEL));
    }

    #[test]
    fn per_period_sorts_need_their_period() {
        assert_eq!(CoinSort::new(None, None), Ok(CoinSort::Liquidity));
        assert_eq!(CoinSort::new(Some(CoinSortBy::Age), Some(StatPeriod::H1)), Ok(CoinSort::Age));
        assert_eq!(CoinSort::new(Some(CoinSortBy::Volume), Some(StatPeriod::H6)), Ok(CoinSort::Volume(StatPeriod::H6)));
        for by in [CoinSortBy::PriceChange, CoinSortBy::Transactions, CoinSortBy::Volume] {
            assert_eq!(CoinSort::new(Some(by), None), Err(MarketError::SortPeriodRequired));
        }
    }

    #[test]
    fn activity_bounds_need_their_period() {
        let volume = Bounds::amounts("volume_usd", Some(1.0), None).unwrap();
        let txs = Bounds::new("transactions_min", "transactions_max", None, Some(3)).unwrap();
        assert_eq!(ActivityFilter::new(None, Bounds::any(), Bounds::any()), Ok(None));
        assert_eq!(ActivityFilter::new(None, volume, Bounds::any()), Err(MarketError::FilterPeriodRequired));
        assert_eq!(ActivityFilter::new(None, Bounds::any(), txs), Err(MarketError::FilterPeriodRequired));
        let f = ActivityFilter::new(Some(StatPeriod::D7), volume, txs).unwrap().unwrap();
        assert_eq!((f.period, f.volume_usd, f.transactions), (StatPeriod::D7, volume, txs));
    }

    #[test]
    fn charts_and_pairs_need_two_assets() {
        let usdt = Asset::parse("jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe").unwrap();
        let candles = CandleSpec::of(ChartPeriod::H1);
        assert_eq!(candles.limit.get(), 1000);
        assert!(ChartQuery::new(Asset::Native, Some(usdt), candles).is_ok());
        assert_eq!(ChartQuery::new(usdt, Some(usdt), candles), Err(MarketError::OppositeIsAsset));
        assert_eq!(AssetPair::new("assets", usdt, Asset::Native), AssetPair::new("assets", Asset::Native, usdt));
        assert_eq!(
            AssetPair::new("pair_pools[2].assets", usdt, usdt),
            Err(MarketError::EqualAssets { field: "pair_pools[2].assets".into() })
        );
    }

    #[test]
    fn position_sorts_need_a_wallet() {
        for by in [PoolSortBy::ValueUsd, PoolSortBy::RewardsTotalUsd] {
            assert_eq!(
                PoolFilter::new(None, None, false, None, Some(by), None),
                Err(MarketError::WalletRequired { sort_by: by })
            );
        }
        let wallet = tonroute_core::asset::parse_address(&format!("0:{}", "11".repeat(32))).unwrap();
        let f = PoolFilter::new(None, None, false, Some(wallet), Some(PoolSortBy::ValueUsd), None).unwrap();
        assert_eq!((f.sort_by, f.direction), (PoolSortBy::ValueUsd, SortDirection::Desc));
        assert_eq!(PoolFilter::new(None, None, false, None, None, None), Ok(PoolFilter::default()));
    }

    #[test]
    fn pool_kinds_and_affiliate_keys_parse() {
        assert_eq!(PoolKind::parse_any_case("STABLE"), Some(PoolKind::Stable));
        assert_eq!(PoolKind::parse_any_case("cpmm_v3"), None);
        assert!(PoolKind::ALL.iter().all(|k| PoolKind::parse_any_case(k.as_str()) == Some(*k)));
        assert_eq!(AffiliateKey::parse("ref_alpha"), Some(AffiliateKey::Id("ref_alpha".into())));
        assert!(matches!(AffiliateKey::parse(&format!("0:{}", "ab".repeat(32))), Some(AffiliateKey::Address(_))));
        assert_eq!(AffiliateKey::parse("bad id!"), None);
        assert_eq!(AffiliateKey::parse(&"a".repeat(48)), None);
    }
}
