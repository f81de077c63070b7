//! The pool resources: Pool with its rewards, the listing's rows and answers, the summary, a pool's providers
//! and deposits.
//!
//! Owns the shapes only (see [`super`]); must not compute a figure.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::coin::CoinMetadata;
use super::date::DateTime;
use tonroute_core::decimal::{LargeFloat, LargeInteger};

/// PoolReward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PoolResponse {
    /// The pool.
    pub pool: Pool,
    /// Metadata.
    pub assets_metadata: BTreeMap<String, CoinMetadata>,
}

/// PoolSummaryResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProviderAsset {
    /// Smallest units.
    pub amount: LargeInteger,
    /// USD.
    pub amount_usd: LargeFloat,
}

/// PoolProvider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct DepositsResponse {
    /// Deposits.
    pub deposits: Vec<Deposit>,
    /// Count.
    pub total_count: i32,
}
