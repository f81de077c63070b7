//! Every limit and default of the market queries, in one place: page sizes per operation, the verification
//! levels a coin listing accepts, the bonding-curve percentage range, and how many pools a coin answer lists.
//! The README's error-code table quotes these ranges; change them here and there together.

use std::ops::RangeInclusive;

/// The page sizes one operation accepts: `MIN_LIMIT..=max`, `default` when the caller gives none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LimitRule {
    /// When no `limit` is given.
    pub default: i32,
    /// The largest `limit` accepted.
    pub max: i32,
}

/// The smallest `limit` of every operation: an empty page is never what a caller meant.
pub const MIN_LIMIT: i32 = 1;

/// `/coins`: 20 coins a page, at most 500 (the whole bundled listing fits in one page).
pub const COINS_LIMIT: LimitRule = LimitRule { default: 20, max: 500 };

/// `/coin_transactions`: 20 trades a page, at most 100.
pub const COIN_TRANSACTIONS_LIMIT: LimitRule = LimitRule { default: 20, max: 100 };

/// `/chart`, `/chart_by_pool_address`: the latest 1000 candles, at most 5000.
pub const CHART_LIMIT: LimitRule = LimitRule { default: 1000, max: 5000 };

/// `/pools` (rows of asset pairs) and `/pools/pair` (pools): 20 a page, at most 100.
pub const POOLS_LIMIT: LimitRule = LimitRule { default: 20, max: 100 };

/// The pools shown inside one `/pools` row (a `pair_pools` override): 3, at most 50.
pub const ROW_POOLS_LIMIT: LimitRule = LimitRule { default: 3, max: 50 };

/// `/pools/{address}/providers` and `/pools/{address}/deposits`: 20 a page, at most 100 (like `/pools`).
pub const PROVIDERS_LIMIT: LimitRule = LimitRule { default: 20, max: 100 };

/// `/events`: the most blocks one request may span (`toBlock − fromBlock + 1`). At the feed's 5-second mapped
/// blocks that is about 14 hours of events; a longer range is refused (400) rather than answered slowly.
pub const MAX_EVENT_BLOCKS: i64 = 10_000;

/// The verification levels `filter_by_verification_level` may name.
pub const VERIFICATION_LEVELS: RangeInclusive<u8> = 1..=4;

/// The levels `/coins` lists when the caller names none: the verified coins.
pub const DEFAULT_VERIFICATION_LEVELS: [u8; 2] = [3, 4];

/// The level from which a coin counts as verified (a pool is `verified` when all its assets are).
pub const VERIFIED_LEVEL: u8 = 3;

/// The range of a bonding-curve percentage bound.
pub const BONDING_CURVE_PERCENT: RangeInclusive<f64> = 0.0..=100.0;

/// The most pools a coin's `liquidity_pools` lists: TON alone trades in hundreds, which would make one coin's
/// answer hundreds of kilobytes.
pub const COIN_LIQUIDITY_POOLS: usize = 20;
