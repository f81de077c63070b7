//! The spec's enumerations: closed sets of values with fixed wire texts (pool types, platforms, trade types,
//! sort keys and directions, statistics and candle periods, pool kinds), each written once in a `wire_enum!`
//! table that gives its text, its parser, its serde form and its OpenAPI schema.
//!
//! Owns the texts and the lengths of the periods; must not decide which values an operation accepts (the typed
//! queries do, `super::super::query`).

use std::fmt;

use serde::{Deserialize, Serialize};

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
        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                tonroute_core::decimal::string_enum_schema($name::ALL.iter().map(|v| v.as_str()), None)
            }
        }
        #[cfg(feature = "openapi")]
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
        /// dex_c: not in docs/interface.md's list (which has no concentrated-liquidity pool type), sent for trades of
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value's text parses back to it, exactly: `Enumeration` and the inherent parser agree.
    fn round_trips<E: Enumeration + PartialEq + std::fmt::Debug + Serialize>(parse: fn(&str) -> Option<E>) {
        for &v in E::VALUES {
            assert_eq!(parse(v.text()), Some(v));
            assert_eq!(E::from_text(v.text()), Some(v));
            assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{}\"", v.text()));
        }
    }

    #[test]
    fn the_wire_texts_are_the_specs() {
        // The spec's lists (area A), in its order; `dex_c` extends the pool-type list and `concentrated` the
        // pool kinds (the spec has no name for a concentrated-liquidity pool).
        assert_eq!(
            PoolType::texts(),
            "dex_a, dex_b_v1, dex_b_v2, dex_c, dex_e, dex_f, dex_d, dex_a_v3_cpmm, dex_a_v3_memepad"
        );
        assert_eq!(Platform::texts(), "dex_a, dex_a_v3, dex_a_v3_memepad, dex_b, dex_c, dex_d, dex_e");
        assert_eq!(TradeType::texts(), "buy, sell");
        assert_eq!(SortDirection::texts(), "asc, desc");
        assert_eq!(StatPeriod::texts(), "15m, 1h, 6h, 24h, 7d");
        assert_eq!(ChartPeriod::texts(), "1s, 1m, 5m, 15m, 30m, 1h, 4h, 6h, 12h, 1d, 7d");
        assert_eq!(
            CoinSortBy::texts(),
            "price, market_cap, liquidity, holders, age, price_change, transactions, volume, curve_progress"
        );
        assert_eq!(TxSortBy::texts(), "age");
        assert_eq!(PoolKind::texts(), "cpmm_v1, cpmm_v2, stable, concentrated");
        assert_eq!(
            PoolSortBy::texts(),
            "volume_24h, tvl, fees_24h, apr, base_apr, boost_apr, value_usd, rewards_total_usd"
        );
        round_trips(PoolType::parse);
        round_trips(Platform::parse);
        round_trips(TradeType::parse);
        round_trips(SortDirection::parse);
        round_trips(StatPeriod::parse);
        round_trips(ChartPeriod::parse);
        round_trips(CoinSortBy::parse);
        round_trips(TxSortBy::parse);
        round_trips(PoolKind::parse);
        round_trips(PoolSortBy::parse);
    }

    #[test]
    fn texts_are_matched_exactly_except_a_pool_kind_filter() {
        assert_eq!(TradeType::parse("Buy"), None);
        assert_eq!(StatPeriod::parse(" 1h"), None);
        assert_eq!(ChartPeriod::from_text("60s"), None);
        assert!(serde_json::from_str::<SortDirection>(r#""DESC""#).is_err());
        // `filter_by_type` is case-insensitive (the spec says so); the kind's own parser is not.
        assert_eq!(PoolKind::parse_any_case("CPMM_V1"), Some(PoolKind::CpmmV1));
        assert_eq!(PoolKind::parse_any_case("Stable"), Some(PoolKind::Stable));
        assert_eq!(PoolKind::parse("Stable"), None);
        assert_eq!(PoolKind::parse_any_case("cpmm"), None);
    }

    #[test]
    fn periods_last_their_names() {
        const MINUTE: i64 = 60;
        const HOUR: i64 = 60 * MINUTE;
        const DAY: i64 = 24 * HOUR;
        let stat = [15 * MINUTE, HOUR, 6 * HOUR, DAY, 7 * DAY];
        for (p, s) in StatPeriod::ALL.iter().zip(stat) {
            assert_eq!(p.seconds(), s, "{p}");
        }
        let chart =
            [1, MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, HOUR, 4 * HOUR, 6 * HOUR, 12 * HOUR, DAY, 7 * DAY];
        for (p, s) in ChartPeriod::ALL.iter().zip(chart) {
            assert_eq!(p.seconds(), s, "{p}");
        }
        assert_eq!(StatPeriod::ALL.len(), stat.len());
        assert_eq!(ChartPeriod::ALL.len(), chart.len());
    }
}
