//! The schemas of SPEC.md area (A), "Resources and their fields": coins, coin trades, list envelopes,
//! affiliate resources and pool resources, field for field. They are the market domain's answers, shared by
//! every [`super::MarketStore`] and serialised as they are (the pool request bodies, which only the JSON layer
//! reads, are in `crate::api::market::wire`).
//!
//! Owns shapes and per-value validation only (decimal-string patterns, RFC 3339 dates, enumerations); must not
//! compute anything. Required fields are plain, optional ones `Option` and omitted when absent; `total_count`
//! of [`CoinsResponse`] is the one nullable field and is omitted when the caller skipped the count.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

pub use crate::decimal::{DecimalError, LargeFloat, LargeInteger};

/// date-time: an RFC 3339 timestamp (the ISO 8601 profile JSON APIs use), e.g. `2024-11-21T12:00:00Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime(pub OffsetDateTime);

impl DateTime {
    /// From Unix seconds; `None` outside the representable range.
    pub fn from_unix(secs: i64) -> Option<DateTime> {
        OffsetDateTime::from_unix_timestamp(secs).ok().map(DateTime)
    }

    /// Unix seconds.
    pub fn unix(&self) -> i64 {
        self.0.unix_timestamp()
    }

    /// Parses RFC 3339 text.
    pub fn parse(text: &str) -> Result<DateTime, time::error::Parse> {
        OffsetDateTime::parse(text, &Rfc3339).map(DateTime)
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.format(&Rfc3339) {
            Ok(s) => f.write_str(&s),
            Err(_) => Err(fmt::Error),
        }
    }
}

impl Serialize for DateTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = self.0.format(&Rfc3339).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&text)
    }
}

impl<'de> Deserialize<'de> for DateTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DateTime, D::Error> {
        let text = String::deserialize(d)?;
        DateTime::parse(&text)
            .map_err(|e| serde::de::Error::custom(format!("`{text}` is not an RFC 3339 date-time: {e}")))
    }
}

/// PeriodData: doubles over 15 minutes, 1, 6 and 24 hours and 7 days.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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

/// One OHLCV candle (HLOCV).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Hlocv {
    /// Start of the bucket, Unix seconds.
    pub time: i64,
    /// Previous candle's close (the first trade's price for the first candle of a series).
    pub open: LargeFloat,
    /// Price of the first trade in the bucket.
    pub raw_open: LargeFloat,
    /// Highest trade price.
    pub high: LargeFloat,
    /// Lowest trade price.
    pub low: LargeFloat,
    /// Price of the last trade.
    pub close: LargeFloat,
    /// Volume in the series' unit.
    pub volume: LargeFloat,
}

/// CoinMetadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct TransactionsInfo {
    /// Buys.
    pub buy: PeriodData,
    /// Sells.
    pub sell: PeriodData,
}

/// Total volume since the first trade.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct TotalVolume {
    /// In USD.
    pub usd: LargeFloat,
    /// In nanoTON.
    pub ton: LargeInteger,
}

/// VolumeInfo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
    /// The most pools `liquidity_pools` lists ([`super::limits::COIN_LIQUIDITY_POOLS`]).
    pub const MAX_POOLS: usize = super::limits::COIN_LIQUIDITY_POOLS;
}

/// MemeCoinExtraDetails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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

macro_rules! wire_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $v:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vm])* #[serde(rename = $s)] $v),+
        }
        impl $name {
            /// Every value, in the spec's order.
            pub const ALL: &'static [$name] = &[$($name::$v),+];
            /// The wire text.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$v => $s),+ }
            }
            /// Parses the wire text (exact, case-sensitive).
            pub fn parse(text: &str) -> Option<$name> {
                match text { $($s => Some($name::$v),)+ _ => None }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        // The OpenAPI schema from the same table as the wire texts (a derive would not see the renames a
        // macro writes).
        #[cfg(feature = "server")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(utoipa::openapi::schema::Type::String)
                    .enum_values(Some($name::ALL.iter().map(|v| v.as_str())))
                    .build()
                    .into()
            }
        }
        #[cfg(feature = "server")]
        impl utoipa::ToSchema for $name {}
        impl Enumeration for $name {
            const VALUES: &'static [$name] = $name::ALL;
            fn text(self) -> &'static str {
                self.as_str()
            }
        }
    };
}

/// A closed set of values with fixed wire texts (the enumerations of the spec).
pub trait Enumeration: Sized + Copy + 'static {
    /// Every value, in the spec's order.
    const VALUES: &'static [Self];

    /// The wire text.
    fn text(self) -> &'static str;

    /// The value whose wire text is `text` (exact, case-sensitive).
    fn from_text(text: &str) -> Option<Self> {
        Self::VALUES.iter().copied().find(|v| v.text() == text)
    }

    /// Every wire text, comma-separated (for messages that say what is accepted).
    fn texts() -> String {
        Self::VALUES.iter().map(|v| v.text()).collect::<Vec<_>>().join(", ")
    }
}

wire_enum!(
    /// CoinTransaction.pool_type.
    PoolType {
        /// dex_a.
        DexA = "dex_a",
        /// dex_b_v1.
        DexBV1 = "dex_b_v1",
        /// dex_b_v2.
        DexBV2 = "dex_b_v2",
        /// dex_c: not in SPEC.md's list (which has no concentrated-liquidity pool type), sent for trades of
        /// `dex_c` pools rather than another exchange's label.
        DexC = "dex_c",
        /// dex_e.
        DexE = "dex_e",
        /// dex_f.
        DexF = "dex_f",
        /// dex_d.
        DexD = "dex_d",
        /// dex_a_v3_cpmm.
        DexAV3Cpmm = "dex_a_v3_cpmm",
        /// dex_a_v3_memepad.
        DexAV3Memepad = "dex_a_v3_memepad",
    }
);

wire_enum!(
    /// CoinTransaction.platform.
    Platform {
        /// dex_a.
        DexA = "dex_a",
        /// dex_a_v3.
        DexAV3 = "dex_a_v3",
        /// dex_a_v3_memepad.
        DexAV3Memepad = "dex_a_v3_memepad",
        /// dex_b.
        DexB = "dex_b",
        /// dex_c.
        DexC = "dex_c",
        /// dex_d.
        DexD = "dex_d",
        /// dex_e.
        DexE = "dex_e",
    }
);

wire_enum!(
    /// Buy or sell, seen from the coin.
    TradeType {
        /// The coin was bought.
        Buy = "buy",
        /// The coin was sold.
        Sell = "sell",
    }
);

wire_enum!(
    /// Sort direction.
    SortDirection {
        /// Ascending.
        Asc = "asc",
        /// Descending.
        Desc = "desc",
    }
);

wire_enum!(
    /// Statistics period of /coins (`sort_period`, `filter_period`).
    StatPeriod {
        /// 15 minutes.
        M15 = "15m",
        /// 1 hour.
        H1 = "1h",
        /// 6 hours.
        H6 = "6h",
        /// 24 hours.
        H24 = "24h",
        /// 7 days.
        D7 = "7d",
    }
);

impl StatPeriod {
    /// Length in seconds.
    pub fn seconds(self) -> i64 {
        match self {
            StatPeriod::M15 => 900,
            StatPeriod::H1 => 3_600,
            StatPeriod::H6 => 21_600,
            StatPeriod::H24 => 86_400,
            StatPeriod::D7 => 604_800,
        }
    }
}

wire_enum!(
    /// Candle period of /chart and /chart_by_pool_address.
    ChartPeriod {
        /// 1 second.
        S1 = "1s",
        /// 1 minute.
        M1 = "1m",
        /// 5 minutes.
        M5 = "5m",
        /// 15 minutes.
        M15 = "15m",
        /// 30 minutes.
        M30 = "30m",
        /// 1 hour.
        H1 = "1h",
        /// 4 hours.
        H4 = "4h",
        /// 6 hours.
        H6 = "6h",
        /// 12 hours.
        H12 = "12h",
        /// 1 day.
        D1 = "1d",
        /// 7 days.
        D7 = "7d",
    }
);

impl ChartPeriod {
    /// Bucket length in seconds.
    pub fn seconds(self) -> i64 {
        match self {
            ChartPeriod::S1 => 1,
            ChartPeriod::M1 => 60,
            ChartPeriod::M5 => 300,
            ChartPeriod::M15 => 900,
            ChartPeriod::M30 => 1_800,
            ChartPeriod::H1 => 3_600,
            ChartPeriod::H4 => 14_400,
            ChartPeriod::H6 => 21_600,
            ChartPeriod::H12 => 43_200,
            ChartPeriod::D1 => 86_400,
            ChartPeriod::D7 => 604_800,
        }
    }
}

wire_enum!(
    /// `sort_by` of /coins.
    CoinSortBy {
        /// USD price.
        Price = "price",
        /// Market cap.
        MarketCap = "market_cap",
        /// Liquidity.
        Liquidity = "liquidity",
        /// Holders.
        Holders = "holders",
        /// Creation time.
        Age = "age",
        /// Price change over `sort_period`.
        PriceChange = "price_change",
        /// Transactions over `sort_period`.
        Transactions = "transactions",
        /// Volume over `sort_period`.
        Volume = "volume",
        /// Bonding-curve progress.
        CurveProgress = "curve_progress",
    }
);

wire_enum!(
    /// `sort_by` of /coin_transactions.
    TxSortBy {
        /// Trade date.
        Age = "age",
    }
);

wire_enum!(
    /// A pool's liquidity type (Pool.type, `filter_by_type` of pool listings).
    PoolKind {
        /// `dex_b_v1` constant product.
        CpmmV1 = "cpmm_v1",
        /// The other constant-product pools.
        CpmmV2 = "cpmm_v2",
        /// The stable-swap curves.
        Stable = "stable",
        /// `dex_c` ticks and ranges: not in the spec's list of three, which has no name for it (calling it
        /// constant product would be wrong).
        Concentrated = "concentrated",
    }
);

impl PoolKind {
    /// The kind `text` names, in any letter case (`filter_by_type` is case-insensitive).
    pub fn parse_any_case(text: &str) -> Option<PoolKind> {
        PoolKind::ALL.iter().copied().find(|k| k.as_str().eq_ignore_ascii_case(text))
    }
}

wire_enum!(
    /// `sort_by` of pool listings.
    PoolSortBy {
        /// 24 h volume.
        Volume24h = "volume_24h",
        /// TVL.
        Tvl = "tvl",
        /// 24 h fees.
        Fees24h = "fees_24h",
        /// Total APR.
        Apr = "apr",
        /// Fee APR.
        BaseApr = "base_apr",
        /// Reward APR.
        BoostApr = "boost_apr",
        /// The wallet's position value (needs `wallet_address`).
        ValueUsd = "value_usd",
        /// The wallet's rewards (needs `wallet_address`).
        RewardsTotalUsd = "rewards_total_usd",
    }
);

/// CoinTransaction: one trade seen from one coin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct CoinsResponse {
    /// The page.
    pub items: Vec<Coin>,
    /// Matches before pagination; omitted with `skip_total_count` (and `null` is read as absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_count: Option<i64>,
}

/// CoinTransactionsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct CoinTransactionsResponse {
    /// The page.
    pub items: Vec<CoinTransaction>,
}

/// ChartResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct ChartResponse {
    /// Price in TON.
    pub ton_hlocv: Vec<Hlocv>,
    /// Price in USD.
    pub usd_hlocv: Vec<Hlocv>,
    /// Price in the opposite asset (empty without `opposite_asset`).
    pub opposite_asset_hlocv: Vec<Hlocv>,
}

/// ChartByPoolAddressResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct ChartByPoolAddressResponse {
    /// Price in the pool's opposite asset, volume in USD.
    pub hlocv: Vec<Hlocv>,
    /// The opposite asset's price in the asset.
    pub opposite_asset_hlocv: Vec<Hlocv>,
}

/// ResolverAddressResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct ResolverAddressResponse {
    /// User-friendly address, or empty.
    pub resolver_address: String,
}

/// AffiliateAccount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct AffiliateAccount {
    /// Account contract address.
    pub address: String,
    /// Whether the contract is deployed.
    pub initialized: bool,
    /// Affiliate program address.
    pub program_address: String,
    /// Account type.
    pub account_type: String,
    /// Account id.
    pub account_id: String,
    /// Hash of the id.
    pub account_id_hash: String,
    /// Fee in basis points.
    pub account_fee: i32,
    /// Controller wallet.
    pub controller_address: String,
    /// Claimable, nanoTON.
    pub balance_for_claim: LargeInteger,
    /// Claimed, nanoTON.
    pub balance_claimed: LargeInteger,
}

/// AffiliateAccountReferrer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct AffiliateAccountReferrer {
    /// Account id.
    pub account_id: String,
    /// Fee in basis points.
    pub account_fee: i32,
}

/// AffiliateReferralsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct AffiliateReferralsResponse {
    /// Account id → referred wallets.
    pub referrals: BTreeMap<String, Vec<String>>,
    /// Referred wallets over all accounts.
    pub total_count: i32,
}

/// AffiliateVolumeBreakdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct AffiliateVolumeBreakdown {
    /// TON.
    pub volume_in_ton: LargeFloat,
    /// USD.
    pub volume_in_usd: LargeFloat,
}

/// AffiliateReferralVolume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct AffiliateReferralVolume {
    /// Referred wallet.
    pub wallet_address: String,
    /// Its volume.
    pub volume: AffiliateVolumeBreakdown,
}

/// AffiliateAccountVolume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct AffiliateAccountVolume {
    /// Account contract address.
    pub affiliate_account_address: String,
    /// Account id.
    pub account_id: String,
    /// Controller.
    pub controller_address: String,
    /// Sum over referrals.
    pub referrals_total_volume: AffiliateVolumeBreakdown,
    /// Per referral.
    pub referral_volumes: Vec<AffiliateReferralVolume>,
}

/// AffiliateWalletVolume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct AffiliateWalletVolume {
    /// Wallet.
    pub wallet_address: String,
    /// Volume.
    pub volume: AffiliateVolumeBreakdown,
    /// Buy transactions contributing.
    pub transactions: i64,
}

/// AffiliateAccountVolumeResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct AffiliateAccountVolumeResponse {
    /// Accounts.
    pub accounts: Vec<AffiliateAccountVolume>,
    /// The `wallet_address` asked about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wallet_volume: Option<AffiliateWalletVolume>,
}

/// PoolReward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct PoolReward {
    /// Index of the program.
    pub reward_index: i32,
    /// Reward asset.
    pub asset: String,
    /// Smallest units per day.
    pub tokens_per_day: LargeInteger,
    /// USD per day.
    pub tokens_per_day_usd: LargeFloat,
    /// Budget left, whole tokens.
    pub remaining_budget: LargeFloat,
    /// Budget left, USD.
    pub remaining_budget_usd: LargeFloat,
    /// End of the program.
    pub end_date: DateTime,
}

/// Pool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Pool {
    /// User-friendly address.
    pub address: String,
    /// cpmm_v1, cpmm_v2, stable; concentrated for `dex_c` pools (an extension).
    #[serde(rename = "type")]
    pub kind: String,
    /// Exchange.
    pub dex: String,
    /// LP supply.
    pub total_supply: LargeInteger,
    /// Total trade fee, bps.
    pub trade_fee: LargeInteger,
    /// LP fee, bps.
    pub lp_fee: LargeInteger,
    /// Creator fee, bps.
    pub creator_fee: LargeInteger,
    /// Protocol fee, bps.
    pub protocol_fee: LargeInteger,
    /// Assets (≥ 2).
    pub assets: Vec<String>,
    /// Reserves (≥ 2).
    pub reserves: Vec<LargeInteger>,
    /// Accumulated protocol fees (≥ 2).
    pub fees: Vec<LargeInteger>,
    /// Assets receiving protocol fees.
    pub fee_in_assets: Vec<String>,
    /// 24 h volume per asset, smallest units (≥ 2).
    pub volume: Vec<LargeInteger>,
    /// TVL, USD.
    pub tvl_usd: LargeFloat,
    /// 24 h volume, USD.
    pub volume_24h_usd: LargeFloat,
    /// 24 h fees, USD.
    pub fees_24h_usd: LargeFloat,
    /// Fee APR, percent.
    pub apr_fees: LargeFloat,
    /// Reward APR, percent.
    pub apr_rewards: LargeFloat,
    /// Total APR, percent.
    pub apr: LargeFloat,
    /// All assets verified.
    pub verified: bool,
    /// Last trade (nullable).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_activity_at: Option<DateTime>,
    /// Locked LP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked_liquidity: Option<LargeInteger>,
    /// Reward assets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward_assets: Option<Vec<String>>,
    /// Active reward programs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewards: Option<Vec<PoolReward>>,
    /// The wallet's rewards, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewards_total_usd: Option<LargeFloat>,
    /// The wallet's position, USD.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_usd: Option<LargeFloat>,
}

/// PoolsRow: the pools of one asset pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct PoolsRow {
    /// The pair.
    pub assets: [String; 2],
    /// Sum over the pair's pools.
    pub tvl_usd: LargeFloat,
    /// Sum over the pair's pools.
    pub volume_24h_usd: LargeFloat,
    /// Sum over the pair's pools.
    pub fees_24h_usd: LargeFloat,
    /// TVL-weighted.
    pub apr_fees: LargeFloat,
    /// TVL-weighted.
    pub apr_rewards: LargeFloat,
    /// TVL-weighted.
    pub apr: LargeFloat,
    /// The page of pools.
    pub pools: Vec<Pool>,
    /// Offset of that page.
    pub pools_offset: i32,
    /// Limit of that page.
    pub pools_limit: i32,
    /// Pools of the pair.
    pub total_pools: i32,
}

/// PoolsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct PoolsResponse {
    /// Rows.
    pub pool_rows: Vec<PoolsRow>,
    /// Metadata of every asset named.
    pub assets_metadata: BTreeMap<String, CoinMetadata>,
    /// Pairs before pagination.
    pub total_count: i32,
}

/// PairPoolsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct PairPoolsResponse {
    /// Pools.
    pub pools: Vec<Pool>,
    /// Metadata.
    pub assets_metadata: BTreeMap<String, CoinMetadata>,
    /// Pools before pagination.
    pub total_count: i32,
}

/// PoolResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct PoolResponse {
    /// The pool.
    pub pool: Pool,
    /// Metadata.
    pub assets_metadata: BTreeMap<String, CoinMetadata>,
}

/// PoolSummaryResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct PoolSummaryResponse {
    /// TVL, USD.
    pub total_value_locked_usd: LargeFloat,
    /// 24 h volume, USD.
    pub volume_24h_usd: LargeFloat,
    /// 24 h fees, USD.
    pub fees_24h_usd: LargeFloat,
}

/// One asset of a PoolProvider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct ProviderAsset {
    /// Smallest units.
    pub amount: LargeInteger,
    /// USD.
    pub amount_usd: LargeFloat,
}

/// PoolProvider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct PoolProvider {
    /// Wallet.
    pub wallet_address: String,
    /// LP tokens.
    pub liquidity: LargeInteger,
    /// Share of the pool.
    pub share: LargeFloat,
    /// Per asset.
    pub assets: BTreeMap<String, ProviderAsset>,
}

/// PoolProvidersResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct PoolProvidersResponse {
    /// Providers by share.
    pub providers: Vec<PoolProvider>,
    /// Metadata.
    pub assets_metadata: BTreeMap<String, CoinMetadata>,
    /// Count.
    pub total_count: i32,
}

/// Deposit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct Deposit {
    /// Deposit contract.
    pub deposit_address: String,
    /// Pool.
    pub pool_address: String,
    /// Who deposited.
    pub initiator_address: String,
    /// Asset 0 amount.
    pub amount_x: LargeInteger,
    /// Asset 1 amount.
    pub amount_y: LargeInteger,
    /// Minimal LP out.
    pub minimal_liquidity: LargeInteger,
    /// When.
    pub added_at: DateTime,
    /// Masterchain seqno.
    pub mc_seq_no: i32,
}

/// DepositsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "server", derive(utoipa::ToSchema))]
pub struct DepositsResponse {
    /// Deposits.
    pub deposits: Vec<Deposit>,
    /// Count.
    pub total_count: i32,
}
