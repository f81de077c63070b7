//! The coin resources: Coin with its metadata, prices, traders, transactions, volumes and extra details, a
//! coin's trade (CoinTransaction), the list envelopes of `/coins` and `/coin_transactions`, and the resolver.
//!
//! Owns the shapes only (see [`super`]); must not compute a figure.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::date::DateTime;
use super::enums::{Platform, PoolType, TradeType};
use tonroute_core::decimal::{LargeFloat, LargeInteger};

/// PeriodData: doubles over 15 minutes, 1, 6 and 24 hours and 7 days.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PeriodData {
    /// 15 minutes.
    pub m15: f64,
    /// 1 hour.
    pub h1: f64,
    /// 6 hours.
    pub h6: f64,
    /// 24 hours.
    pub h24: f64,
    /// 7 days.
    pub d7: f64,
}

/// PeriodDataLarge: LargeFloat over the same periods.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PeriodDataLarge {
    /// 15 minutes.
    pub m15: LargeFloat,
    /// 1 hour.
    pub h1: LargeFloat,
    /// 6 hours.
    pub h6: LargeFloat,
    /// 24 hours.
    pub h24: LargeFloat,
    /// 7 days.
    pub d7: LargeFloat,
}

/// CoinMetadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CoinMetadata {
    /// Name.
    pub name: String,
    /// Ticker.
    pub ticker: String,
    /// Decimals.
    pub decimals: i32,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Image URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    /// Social links: kind → URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub social_links: Option<BTreeMap<String, String>>,
    /// USD price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_price: Option<LargeFloat>,
}

/// PriceInfo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PriceInfo {
    /// USD price of one whole coin.
    pub usd_value: LargeFloat,
    /// TON price of one whole coin.
    pub ton_value: LargeFloat,
    /// Relative USD price change per period, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_change: Option<PeriodData>,
    /// Relative TON price change per period, in percent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ton_change: Option<PeriodData>,
}

/// TradersInfo: distinct traders per period.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TradersInfo {
    /// All traders.
    pub total: PeriodData,
    /// Buyers.
    pub buy: PeriodData,
    /// Sellers.
    pub sell: PeriodData,
}

/// TransactionsInfo: trade counts per period.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TransactionsInfo {
    /// Buys.
    pub buy: PeriodData,
    /// Sells.
    pub sell: PeriodData,
}

/// Total volume since the first trade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TotalVolume {
    /// In USD.
    pub usd: LargeFloat,
    /// In nanoTON.
    pub ton: LargeInteger,
}

/// VolumeInfo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct VolumeInfo {
    /// USD volume per period.
    pub periods: PeriodDataLarge,
    /// USD volume of buys per period.
    pub buy_periods: PeriodDataLarge,
    /// USD volume of sells per period.
    pub sell_periods: PeriodDataLarge,
    /// Relative change against the previous period of equal length, in percent.
    pub change: PeriodData,
    /// Only with `calculate_total_volume`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_volume: Option<TotalVolume>,
}

/// LiquidityPool (inside CoinExtraDetails).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LiquidityPool {
    /// Pool address.
    pub pool_address: String,
    /// e.g. dex_a, dex_b_v1, dex_b_v2.
    pub pool_type: String,
    /// First asset.
    pub asset0: String,
    /// Second asset.
    pub asset1: String,
    /// Share of the coin's liquidity in this pool (0..1).
    pub weight: LargeFloat,
}

/// CoinExtraDetails (no required fields).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CoinExtraDetails {
    /// Highest USD price over 30 days.
    #[serde(rename = "30d_high", default, skip_serializing_if = "Option::is_none")]
    pub high_30d: Option<LargeFloat>,
    /// Lowest USD price over 30 days.
    #[serde(rename = "30d_low", default, skip_serializing_if = "Option::is_none")]
    pub low_30d: Option<LargeFloat>,
    /// Highest USD price over 7 days.
    #[serde(rename = "7d_high", default, skip_serializing_if = "Option::is_none")]
    pub high_7d: Option<LargeFloat>,
    /// Lowest USD price over 7 days.
    #[serde(rename = "7d_low", default, skip_serializing_if = "Option::is_none")]
    pub low_7d: Option<LargeFloat>,
    /// Pools trading the coin: the [`CoinExtraDetails::MAX_POOLS`] deepest by TVL, deepest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_pools: Option<Vec<LiquidityPool>>,
    /// Extension: how many pools trade the coin in all (`liquidity_pools` lists at most
    /// [`CoinExtraDetails::MAX_POOLS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_pools_total: Option<i32>,
    /// Extension: the share of the coin's liquidity in the pools `liquidity_pools` leaves out (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_pools_rest_weight: Option<LargeFloat>,
}

impl CoinExtraDetails {
    /// The most pools `liquidity_pools` lists ([`crate::limits::COIN_LIQUIDITY_POOLS`]).
    pub const MAX_POOLS: usize = crate::limits::COIN_LIQUIDITY_POOLS;
}

/// MemeCoinExtraDetails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MemeCoinExtraDetails {
    /// nanoTON raised on the bonding curve.
    pub curve_ton_collected: LargeInteger,
    /// nanoTON at which the curve completes.
    pub curve_ton_max: LargeInteger,
    /// Creator address.
    pub author: String,
    /// The launch pad.
    pub memepad: String,
    /// e.g. dex_d, dex_f.
    pub contract_type: String,
    /// When the coin left its curve for a pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migration_date: Option<DateTime>,
}

/// Coin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Coin {
    /// Asset identifier.
    pub asset: String,
    /// Metadata.
    pub metadata: CoinMetadata,
    /// Price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<PriceInfo>,
    /// Date of the all-time high.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ath_date: Option<DateTime>,
    /// Date of the all-time low.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atl_date: Option<DateTime>,
    /// All-time high, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ath_usd: Option<LargeFloat>,
    /// All-time low, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atl_usd: Option<LargeFloat>,
    /// Market cap at the all-time high.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ath_market_cap_usd: Option<LargeFloat>,
    /// Market cap at the all-time low.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atl_market_cap_usd: Option<LargeFloat>,
    /// Buy tax, percent 0..=100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buy_tax: Option<i32>,
    /// Sell tax, percent 0..=100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sell_tax: Option<i32>,
    /// Circulating supply, smallest units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circulating_supply: Option<LargeInteger>,
    /// Total supply, smallest units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_supply: Option<LargeInteger>,
    /// Token creation time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<DateTime>,
    /// Only when requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_details: Option<CoinExtraDetails>,
    /// Only when requested.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memecoin_extra_details: Option<MemeCoinExtraDetails>,
    /// Fully diluted market cap, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fully_diluted_market_cap: Option<LargeFloat>,
    /// Liquidity, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity: Option<LargeFloat>,
    /// Market cap, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub market_cap: Option<LargeFloat>,
    /// Holder count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holders: Option<i64>,
    /// Tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Traders per period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traders: Option<TradersInfo>,
    /// Transactions per period.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions: Option<TransactionsInfo>,
    /// 0..=4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification_level: Option<i32>,
    /// Volume.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume: Option<VolumeInfo>,
}

/// CoinTransaction: one trade seen from one coin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CoinTransaction {
    /// When.
    pub trade_date: DateTime,
    /// Pool.
    pub pool_address: String,
    /// Pool type.
    pub pool_type: PoolType,
    /// Asset in.
    pub trade_asset_in: String,
    /// Asset out.
    pub trade_asset_out: String,
    /// Amount in, smallest units.
    pub trade_asset_in_amount: LargeInteger,
    /// Amount out, smallest units.
    pub trade_asset_out_amount: LargeInteger,
    /// Ticker in.
    pub trade_asset_in_ticker: String,
    /// Ticker out.
    pub trade_asset_out_ticker: String,
    /// Decimals in.
    pub trade_asset_in_decimals: i32,
    /// Decimals out.
    pub trade_asset_out_decimals: i32,
    /// Buy or sell of the coin.
    #[serde(rename = "type")]
    pub kind: TradeType,
    /// Execution price of the coin, USD.
    pub price_usd: LargeFloat,
    /// Execution price of the coin, TON.
    pub price_ton: LargeFloat,
    /// Volume, USD.
    pub volume_usd: LargeFloat,
    /// Volume, TON.
    pub volume_ton: LargeFloat,
    /// Trader.
    pub trader_address: String,
    /// Platform.
    pub platform: Platform,
    /// Transaction hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_hash: Option<String>,
}

/// CoinsResponse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CoinsResponse {
    /// The page.
    pub items: Vec<Coin>,
    /// Matches before pagination; omitted with `skip_total_count` (and `null` is read as absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_count: Option<i64>,
}

/// CoinTransactionsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CoinTransactionsResponse {
    /// The page.
    pub items: Vec<CoinTransaction>,
}

/// ResolverAddressResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ResolverAddressResponse {
    /// User-friendly address, or empty.
    pub resolver_address: String,
}
