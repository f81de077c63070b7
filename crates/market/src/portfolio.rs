//! The remaining schemas of docs/interface.md area (A): portfolio, earnings, liquidity positions, holdings, top traders,
//! trader statistics, trending coins and the screener-style feed (asset, block, pair, event). The answers are
//! computed elsewhere ([`super::wallets`], [`super::positions`], [`super::traders`], [`super::trending`],
//! [`super::screener`]); the types fix the wire shapes.
//!
//! Owns shapes only, like [`super::types`]. The screener feed uses the spec's camelCase names. Extension fields
//! (beyond the spec's, all optional on the wire): PortfolioResponse's `liquidity_positions`,
//! `liquidity_value_usd`, `liquidity_value_ton` and PortfolioLiquidityPosition's `value_ton`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::types::{CoinMetadata, DateTime, LargeFloat, LargeInteger, MemeCoinExtraDetails, PriceInfo};

/// One jetton balance of a portfolio.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioData {
    /// Asset id.
    pub asset: String,
    /// Smallest units.
    pub balance: LargeInteger,
    /// Whole tokens.
    pub balance_formatted: LargeFloat,
    /// Metadata.
    pub metadata: CoinMetadata,
    /// Price.
    pub price: PriceInfo,
    /// USD price (the spec does not define it further).
    pub price_usd: LargeFloat,
    /// TON price (the spec does not define it further).
    pub price_ton: LargeFloat,
    /// Value, USD.
    pub value_usd: LargeFloat,
    /// Value, TON.
    pub value_ton: LargeFloat,
    /// 0..=4.
    pub verification_level: i32,
    /// The owner's jetton wallet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jetton_wallet: Option<String>,
    /// Launch-pad details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memecoin_extra_details: Option<MemeCoinExtraDetails>,
}

/// PortfolioResponse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioResponse {
    /// USD value of `jetton_balances`.
    pub total_value_usd: LargeFloat,
    /// TON value of `jetton_balances`.
    pub total_value_ton: LargeFloat,
    /// Balances.
    pub jetton_balances: Vec<PortfolioData>,
    /// Extension: the wallet's liquidity positions (LP from the stored liquidity events), largest value first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_positions: Option<Vec<PortfolioLiquidityPosition>>,
    /// Extension: USD value of `liquidity_positions` (not part of `total_value_usd`, which is the balances').
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_value_usd: Option<LargeFloat>,
    /// Extension: TON value of `liquidity_positions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_value_ton: Option<LargeFloat>,
}

/// PortfolioEarningAssetDetails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioEarningAssetDetails {
    /// Smallest units.
    pub amount: LargeInteger,
    /// USD.
    pub amount_usd: LargeFloat,
}

/// PortfolioEarningAssetMap / PortfolioLiquidityAssetMap: asset address → details.
pub type PortfolioAssetMap = BTreeMap<String, PortfolioEarningAssetDetails>;

/// PortfolioFeeEarning.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioFeeEarning {
    /// Pool.
    pub pool_address: String,
    /// Position.
    pub position_address: String,
    /// Earned.
    pub assets: PortfolioAssetMap,
    /// Claimed.
    pub claimed_assets: PortfolioAssetMap,
}

/// A pool creator's earnings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioCreatorEarning {
    /// Pool.
    pub pool_address: String,
    /// Earned.
    pub assets: PortfolioAssetMap,
}

/// A meme-coin creator's earnings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioMemeCreatorEarning {
    /// Token.
    pub token_address: String,
    /// Earned.
    pub assets: PortfolioAssetMap,
    /// Claimed.
    pub claimed_assets: PortfolioAssetMap,
}

/// PortfolioBoostReward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioBoostReward {
    /// Pool.
    pub pool_address: String,
    /// Position.
    pub position_address: String,
    /// Reward program.
    pub reward_index: i32,
    /// Reward asset.
    pub reward_asset: String,
    /// Smallest units.
    pub amount: LargeInteger,
    /// USD.
    pub amount_usd: LargeFloat,
}

/// PortfolioEarningsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioEarningsResponse {
    /// LP fee earnings.
    pub fee_earnings: Vec<PortfolioFeeEarning>,
    /// Pool-creator earnings.
    pub creator_earnings: Vec<PortfolioCreatorEarning>,
    /// Meme-creator earnings.
    pub meme_creator_earnings: Vec<PortfolioMemeCreatorEarning>,
    /// Boost rewards.
    pub boost_rewards: Vec<PortfolioBoostReward>,
}

/// PortfolioLiquidityPosition.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioLiquidityPosition {
    /// Position.
    pub position_address: String,
    /// Pool.
    pub pool_address: String,
    /// LP tokens.
    pub liquidity: LargeInteger,
    /// Share of the pool.
    pub liquidity_percentage: LargeFloat,
    /// Per asset.
    pub assets: PortfolioAssetMap,
    /// USD.
    pub value_usd: LargeFloat,
    /// Extension: the value in TON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_ton: Option<LargeFloat>,
    /// Total APR.
    pub apr: LargeFloat,
    /// Fee APR.
    pub base_apr: LargeFloat,
    /// Reward APR.
    pub boost_apr: LargeFloat,
    /// Rewards, USD.
    pub rewards_total_usd: LargeFloat,
    /// Locked LP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locked_liquidity: Option<LargeInteger>,
}

/// PortfolioLiquidityPositionResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct PortfolioLiquidityPositionResponse {
    /// The position.
    pub position: PortfolioLiquidityPosition,
    /// Metadata.
    pub assets_metadata: BTreeMap<String, CoinMetadata>,
}

/// Holding: a trader's profit and loss on one asset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Holding {
    /// Asset address (hex).
    pub asset_address: String,
    /// TON spent buying.
    pub bought_ton: LargeFloat,
    /// TON received selling.
    pub sold_ton: LargeFloat,
    /// Current value, TON.
    pub current_position_value_ton: LargeFloat,
    /// Realized cost, TON.
    pub realized_cost_ton: LargeFloat,
    /// Realized PnL, TON.
    pub realized_pnl_ton: LargeFloat,
    /// Unrealized PnL, TON.
    pub unrealized_pnl_ton: LargeFloat,
    /// Total PnL, TON.
    pub total_pnl_ton: LargeFloat,
    /// Percent.
    pub realized_pnl_percent: LargeFloat,
    /// Percent.
    pub unrealized_pnl_percent: LargeFloat,
    /// Percent.
    pub realized_pnl_percent_of_total_cost: LargeFloat,
    /// Percent.
    pub total_pnl_percent: LargeFloat,
    /// Smallest units bought.
    pub bought_tokens: LargeInteger,
    /// Smallest units sold.
    pub sold_tokens: LargeInteger,
    /// Smallest units held.
    pub remaining_tokens: LargeInteger,
}

/// HoldingsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HoldingsResponse {
    /// Holdings.
    pub holdings: Vec<Holding>,
}

/// TopTrader.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TopTrader {
    /// Rank by total PnL.
    pub rank: i64,
    /// Address.
    pub trader: String,
    /// USD.
    pub bought_usd: LargeFloat,
    /// Tokens.
    pub bought_tokens: LargeFloat,
    /// USD.
    pub sold_usd: LargeFloat,
    /// Tokens.
    pub sold_tokens: LargeFloat,
    /// Tokens.
    pub remaining_tokens: LargeFloat,
    /// USD.
    pub remaining_value_usd: LargeFloat,
    /// TON.
    pub remaining_value_ton: LargeFloat,
    /// USD.
    pub realized_pnl_usd: LargeFloat,
    /// TON.
    pub realized_pnl_ton: LargeFloat,
    /// USD.
    pub unrealized_pnl_usd: LargeFloat,
    /// TON.
    pub unrealized_pnl_ton: LargeFloat,
    /// USD.
    pub total_pnl_usd: LargeFloat,
    /// TON.
    pub total_pnl_ton: LargeFloat,
    /// Buys.
    pub buy_txns: i64,
    /// Sells.
    pub sell_txns: i64,
    /// Percent of bought tokens still held.
    pub remaining_percent_of_buys: f64,
}

/// TopTradersResponse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TopTradersResponse {
    /// By total PnL.
    pub traders: Vec<TopTrader>,
}

/// TraderInfoResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TraderInfoResponse {
    /// Address.
    pub trader_address: String,
    /// Buy transactions in the period.
    pub transactions: i64,
    /// Volume, USD.
    pub volume: LargeFloat,
    /// Volume, TON.
    pub volume_ton: LargeFloat,
    /// Period start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_date: Option<DateTime>,
    /// Period end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_date: Option<DateTime>,
}

/// TraderInfoListResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TraderInfoListResponse {
    /// Traders.
    pub traders: Vec<TraderInfoResponse>,
}

/// TrendingCoin.market_tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum MarketTier {
    /// nano.
    Nano,
    /// micro.
    Micro,
    /// mid.
    Mid,
    /// large.
    Large,
}

/// TrendingCoin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TrendingCoin {
    /// Asset address (hex).
    pub asset_address: String,
    /// Title.
    pub title: String,
    /// Ticker.
    pub ticker: String,
    /// Tier.
    pub market_tier: MarketTier,
    /// Rank within the tier.
    pub rank_in_tier: i64,
    /// Score.
    pub trend_score: LargeFloat,
    /// `burst_score` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_score: Option<LargeFloat>,
    /// `buy_pressure` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buy_pressure: Option<LargeFloat>,
    /// `liquidity_usd` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_usd: Option<LargeFloat>,
    /// `market_cap_usd` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub market_cap_usd: Option<LargeFloat>,
    /// `momentum_score` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub momentum_score: Option<LargeFloat>,
    /// `norm_tr_1h` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub norm_tr_1h: Option<LargeFloat>,
    /// `norm_tr_24h` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub norm_tr_24h: Option<LargeFloat>,
    /// `norm_vol_1h` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub norm_vol_1h: Option<LargeFloat>,
    /// `norm_vol_24h` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub norm_vol_24h: Option<LargeFloat>,
    /// `price_acceleration` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_acceleration: Option<LargeFloat>,
    /// `price_usd` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd: Option<LargeFloat>,
    /// `price_usd_15m_change` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd_15m_change: Option<LargeFloat>,
    /// `price_usd_1h_change` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd_1h_change: Option<LargeFloat>,
    /// `price_usd_6h_change` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd_6h_change: Option<LargeFloat>,
    /// `price_usd_24h_change` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_usd_24h_change: Option<LargeFloat>,
    /// `quality_score` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality_score: Option<LargeFloat>,
    /// `strength_score` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strength_score: Option<LargeFloat>,
    /// `tier_median_traders_24h` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_median_traders_24h: Option<LargeFloat>,
    /// `tier_median_vol_24h` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier_median_vol_24h: Option<LargeFloat>,
    /// `tr_burst_ratio` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tr_burst_ratio: Option<LargeFloat>,
    /// `vol_burst_ratio` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vol_burst_ratio: Option<LargeFloat>,
    /// `vol_to_liq` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vol_to_liq: Option<LargeFloat>,
    /// `volume_usd_1h` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_usd_1h: Option<LargeFloat>,
    /// `volume_usd_24h` (optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volume_usd_24h: Option<LargeFloat>,
    /// Traders over 1 h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traders_1h_count: Option<i64>,
    /// Traders over 24 h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traders_24h_count: Option<i64>,
    /// Transactions over 1 h.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions_1h_count: Option<i64>,
    /// Launch-pad details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memecoin_extra_details: Option<MemeCoinExtraDetails>,
}

/// Screener feed: an asset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedAsset {
    /// Case-sensitive id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Circulating supply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub circulating_supply: Option<LargeFloat>,
    /// Total supply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_supply: Option<LargeFloat>,
    /// Free metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
    /// First external price-site id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ext_ref_a_id: Option<String>,
    /// Second external price-site id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ext_ref_b_id: Option<String>,
}

/// `{"asset": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedAssetResponse {
    /// The asset.
    pub asset: FeedAsset,
}

/// Screener feed: a block.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedBlock {
    /// Number.
    pub block_number: i64,
    /// Unix seconds.
    pub block_timestamp: i64,
    /// Free metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
}

/// `{"block": …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedBlockResponse {
    /// The latest block.
    pub block: FeedBlock,
}

/// Screener feed: a pair.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedPair {
    /// Id.
    pub id: String,
    /// Exchange key.
    pub dex_key: String,
    /// First asset (order immutable).
    pub asset0_id: String,
    /// Second asset.
    pub asset1_id: String,
    /// Creation block.
    pub created_at_block_number: i64,
    /// Creation time, Unix seconds.
    pub created_at_block_timestamp: i64,
    /// Creation transaction.
    pub created_at_txn_id: String,
    /// Fee, 1 % = 100.
    pub fee_bps: i32,
    /// Free metadata.
    pub metadata: BTreeMap<String, String>,
    /// Creator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creator: Option<String>,
    /// Multi-asset pool info (shape not given by the spec).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub pool: Option<serde_json::Value>,
}

/// `{"pair": …}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedPairResponse {
    /// The pair.
    pub pair: FeedPair,
}

/// Screener event type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum FeedEventType {
    /// A swap.
    Swap,
    /// Liquidity added.
    Join,
    /// Liquidity removed.
    Exit,
}

/// Reserves after an event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedReserves {
    /// Asset 0.
    pub asset0: LargeFloat,
    /// Asset 1.
    pub asset1: LargeFloat,
}

/// Screener feed: an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedEvent {
    /// Block.
    pub block: FeedBlock,
    /// Type.
    pub event_type: FeedEventType,
    /// Transaction.
    pub txn_id: String,
    /// Index of the transaction in the block.
    pub txn_index: i32,
    /// Index of the event in the transaction.
    pub event_index: i32,
    /// Maker.
    pub maker: String,
    /// Pair.
    pub pair_id: String,
    /// Join/exit amount 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount0: Option<LargeFloat>,
    /// Join/exit amount 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount1: Option<LargeFloat>,
    /// Swap in, asset 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset0_in: Option<LargeFloat>,
    /// Swap out, asset 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset0_out: Option<LargeFloat>,
    /// Swap in, asset 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset1_in: Option<LargeFloat>,
    /// Swap out, asset 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset1_out: Option<LargeFloat>,
    /// Price in the native asset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_native: Option<LargeFloat>,
    /// Reserves after the event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserves: Option<FeedReserves>,
    /// Free metadata (memepad events carry `progress`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub metadata: Option<serde_json::Value>,
}

/// `{"events": […]}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeedEventsResponse {
    /// Events.
    pub events: Vec<FeedEvent>,
}
