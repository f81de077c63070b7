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

/// Declares a pool listing's request body (`/pools`, `/pools/pair`), strict, in the spec's field order: the
/// fields before `;`, the page (`limit`, `offset`), the fields after `;`, then the filters and options every
/// listing takes (`pool_addresses` … `wallet_address`).
macro_rules! pool_listing_request {
    (
        $(#[$m:meta])* $name:ident {
            $($(#[$bm:meta])* $before:ident: $bty:ty,)* ; $($(#[$am:meta])* $after:ident: $aty:ty,)*
        }
    ) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            $($(#[$bm])* pub $before: $bty,)*
            /// Rows per page, 1..=100, default 20.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub limit: Option<i32>,
            /// Rows skipped, ≥ 0.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub offset: Option<i32>,
            $($(#[$am])* pub $after: $aty,)*
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
    };
}

pool_listing_request!(
    /// GetPoolsRequest (all optional).
    GetPoolsRequest {
        /// Assets whose pairs come first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filter_by_assets: Option<Vec<String>>,
        /// cpmm_v1 / cpmm_v2 / stable / concentrated, case-insensitive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filter_by_type: Option<Vec<String>>,
        /// Pools containing any of these.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        include_assets: Option<Vec<String>>,
        ;
        /// Per-pair page overrides.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pair_pools: Option<Vec<PairPoolsRequest>>,
    }
);

pool_listing_request!(
    /// GetPairPoolsRequest.
    GetPairPoolsRequest {
        /// Exactly two assets (required).
        assets: Vec<String>,
        /// cpmm_v1 / cpmm_v2 / stable / concentrated, case-insensitive.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filter_by_type: Option<Vec<String>>,
        ;
    }
);

/// PoolSummaryRequest.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct PoolSummaryRequest {
    /// Pools containing any of these (all pools when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_assets: Option<Vec<String>>,
}
