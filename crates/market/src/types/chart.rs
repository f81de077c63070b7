//! The chart resources: one candle (HLOCV) and the answers of `/chart` and `/chart_by_pool_address`.
//!
//! Owns the shapes only (see [`super`]); must not aggregate candles.

use serde::{Deserialize, Serialize};

use tonroute_core::decimal::LargeFloat;

/// One OHLCV candle (HLOCV).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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

/// ChartResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChartByPoolAddressResponse {
    /// Price in the pool's opposite asset, volume in USD.
    pub hlocv: Vec<Hlocv>,
    /// The opposite asset's price in the asset.
    pub opposite_asset_hlocv: Vec<Hlocv>,
}
