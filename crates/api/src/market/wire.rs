//! The request bodies of the market routes (`POST /pools`, `/pools/pair`, `/pools/summary`), strict: unknown
//! fields are refused. The query-string forms of the same routes are read into these too, so both forms meet
//! the same checks on their way to the typed queries (`super::parse`).
//!
//! Owns the bodies' shapes only. The answers' shapes are the market domain's (`tonroute_market::types`): every
//! store returns them and the JSON layer serialises them as they are.

use serde::{Deserialize, Serialize};

use tonroute_market::types::{PoolSortBy, SortDirection};

/// PairPoolsRequest: a per-pair page override inside [`GetPoolsRequest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PairPoolsRequest {
    /// Exactly two assets.
    pub assets: Vec<String>,
    /// 1..=50, default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i32>,
    /// ≥ 0, default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<i32>,
}

/// GetPoolsRequest (all optional).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct GetPoolsRequest {
    /// Assets whose pairs come first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_by_assets: Option<Vec<String>>,
    /// cpmm_v1 / cpmm_v2 / stable / concentrated, case-insensitive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_by_type: Option<Vec<String>>,
    /// Pools containing any of these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_assets: Option<Vec<String>>,
    /// Rows per page, 1..=100, default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i32>,
    /// Rows skipped, ≥ 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<i32>,
    /// Per-pair page overrides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pair_pools: Option<Vec<PairPoolsRequest>>,
    /// Only these pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool_addresses: Option<Vec<String>>,
    /// Default volume_24h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_by: Option<PoolSortBy>,
    /// Default desc.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_direction: Option<SortDirection>,
    /// All must match; supported: boosted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Enriches pools with the wallet's position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wallet_address: Option<String>,
}

/// GetPairPoolsRequest.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct GetPairPoolsRequest {
    /// Exactly two assets (required).
    pub assets: Vec<String>,
    /// cpmm_v1 / cpmm_v2 / stable / concentrated, case-insensitive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter_by_type: Option<Vec<String>>,
    /// 1..=100, default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<i32>,
    /// ≥ 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<i32>,
    /// Only these pools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool_addresses: Option<Vec<String>>,
    /// Default volume_24h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_by: Option<PoolSortBy>,
    /// Default desc.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_direction: Option<SortDirection>,
    /// All must match; supported: boosted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Enriches pools with the wallet's position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wallet_address: Option<String>,
}

/// PoolSummaryRequest.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PoolSummaryRequest {
    /// Pools containing any of these (all pools when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_assets: Option<Vec<String>>,
}
