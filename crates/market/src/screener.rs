//! The screener feed (docs/interface.md "Screener-feed resources", the DEX Screener HTTP adapter's shapes): the latest
//! block, an asset, a pair (a pool), and the events of a block range — `swap` from trades, `join` / `exit` from
//! liquidity events ([`super::liquidity`]), each with the pool's reserves after it.
//!
//! Owns the feed's typed query ([`EventsQuery`]) and its answers over a [`MarketView`]; must not parse query
//! strings (`crate::api::market::screener` does) nor read a clock (the view's "now" bounds what is visible).
//!
//! # Choices the spec leaves open
//!
//! - **Blocks** are masterchain sequence numbers where an event has one (an ingested liquidity line's
//!   `mc_seq_no`), else its time mapped by [`block_of_time`] (trades carry no block). A block's `blockTimestamp`
//!   is its event's time when the number is real, else the mapped block's start ([`block_start`]).
//!   `/latest-block` is the highest block of an event at or before the store's "now": never ahead of the data,
//!   so an indexer that asks for events up to it gets all of them.
//! - **Ranges**: `fromBlock..=toBlock`, both required, at most [`MAX_EVENT_BLOCKS`] blocks; events ordered by
//!   block, then time, then liquidity before trades, then arrival. `txnIndex` counts the transactions (one event
//!   each) of a block in that order; `eventIndex` is 0. `txnId` is the transaction hash, else
//!   `<block>:<txnIndex>`.
//! - **Amounts** (`asset0In`, `amount0`, `reserves`, supplies) are whole tokens written exactly (the smallest
//!   units over 10^decimals as a decimal string, no float). `priceNative` is the trade's execution price of
//!   asset0 in asset1 (whole tokens of asset1 per whole asset0). Reserves after an event are the pool's reserve
//!   pair (a concentrated pool's virtual reserves); omitted for a liquidity event ingested without them.
//! - **Pairs**: `id` is the pool's user-friendly address (any address form is accepted); `dexKey` the exchange
//!   slug (`dex_b_v1`, …); assets in the pool's contract order; created at the pool's first event (its creating
//!   join when it has liquidity history, else its first trade); `creator` the creating join's provider; `feeBps`
//!   the pool's total fee (LP + protocol); `metadata` holds `poolType` (as `/pools` names it). A pool without any
//!   event is not a pair of the feed (404).
//! - **Assets**: any asset of the snapshot; `id` is the asset id (`native`, `jetton:0:<hex>`); supplies in whole
//!   tokens for listed coins.

use std::collections::BTreeMap;

use tonlib_core::TonAddress;

use super::error::MarketError;
use super::limits::MAX_EVENT_BLOCKS;
use super::liquidity::{block_of_time, block_start, LiquidityEvent, LiquidityKind};
use super::pools::pool_kind;
use super::portfolio::{FeedAsset, FeedBlock, FeedEvent, FeedEventType, FeedPair, FeedReserves};
use super::replay::view::MarketView;
use super::types::LargeFloat;
use super::units::{friendly, friendly_wallet};
use tonroute_core::asset::{whole_units, Asset};
use tonroute_core::graph::PoolId;
use tonroute_core::pool::Direction;

/// `/events`: an inclusive block range of at most [`MAX_EVENT_BLOCKS`] blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventsQuery {
    from_block: i64,
    to_block: i64,
}

impl EventsQuery {
    /// `fromBlock..=toBlock`: both at least 0, `from ≤ to`, at most [`MAX_EVENT_BLOCKS`] blocks.
    pub fn new(from_block: i128, to_block: i128) -> Result<EventsQuery, MarketError> {
        for (name, value) in [("fromBlock", from_block), ("toBlock", to_block)] {
            if !(0..=i128::from(i64::MAX)).contains(&value) {
                return Err(MarketError::BlockOutOfRange { name, value });
            }
        }
        if from_block > to_block {
            return Err(MarketError::InvertedBounds { min_field: "fromBlock", max_field: "toBlock" });
        }
        let blocks = to_block - from_block + 1;
        if blocks > i128::from(MAX_EVENT_BLOCKS) {
            return Err(MarketError::TooManyBlocks { blocks, max: MAX_EVENT_BLOCKS });
        }
        // Both fit i64: checked above.
        Ok(EventsQuery { from_block: from_block as i64, to_block: to_block as i64 })
    }

    /// First block.
    pub fn from_block(&self) -> i64 {
        self.from_block
    }

    /// Last block (inclusive).
    pub fn to_block(&self) -> i64 {
        self.to_block
    }
}

/// `amount / 10^decimals` written exactly (no exponent, no trailing zeros).
pub fn exact_whole(amount: u128, decimals: u8) -> LargeFloat {
    // Digits with at most one dot: a valid LargeFloat.
    LargeFloat::new(whole_units(&amount.to_string(), decimals)).unwrap_or_else(|_| LargeFloat::zero())
}

/// One event of the feed before its index in the block is known.
struct Pending {
    block: i64,
    timestamp: i64,
    time: i64,
    rank: u8,
    seq: usize,
    event: FeedEvent,
}

fn block(number: i64, timestamp: i64) -> FeedBlock {
    FeedBlock { block_number: number, block_timestamp: timestamp, metadata: None }
}

fn reserves_of(view: &MarketView, pool: PoolId, reserves: [u128; 2]) -> FeedReserves {
    let g = &view.data().graph;
    let meta = g.pool(pool);
    FeedReserves {
        asset0: exact_whole(reserves[0], g.asset(meta.assets[0]).decimals),
        asset1: exact_whole(reserves[1], g.asset(meta.assets[1]).decimals),
    }
}

/// Liquidity events at or before now.
fn visible_liquidity(view: &MarketView) -> impl Iterator<Item = (usize, &LiquidityEvent)> {
    let now = view.now();
    view.data().liquidity.iter().enumerate().filter(move |(_, e)| e.time <= now)
}

/// `/latest-block`: the highest block of an event at or before now; `None` when there is none.
pub fn latest_block(view: &MarketView) -> Option<FeedBlock> {
    let trade = view.trades().last().map(|t| {
        let b = block_of_time(t.time);
        (b, block_start(b))
    });
    let liquidity = visible_liquidity(view)
        .map(|(_, e)| (e.block(), if e.mc_seq_no.is_some() { e.time } else { block_start(e.block()) }))
        .max();
    trade.into_iter().chain(liquidity).max().map(|(b, ts)| block(b, ts))
}

/// `/asset`: an asset of the snapshot, `None` for another.
pub fn feed_asset(view: &MarketView, asset: &Asset) -> Option<FeedAsset> {
    let data = view.data();
    let id = data.graph.asset_id(asset)?;
    let meta = data.graph.asset(id);
    let coin = data.coin_index.get(asset).map(|&i| &data.coins[i]);
    Some(FeedAsset {
        id: asset.to_string(),
        name: meta.name.clone(),
        symbol: meta.symbol.clone(),
        circulating_supply: coin.map(|c| exact_whole(c.circulating_supply, meta.decimals)),
        total_supply: coin.map(|c| exact_whole(c.total_supply, meta.decimals)),
        metadata: Some(BTreeMap::from([("decimals".to_string(), meta.decimals.to_string())])),
        ext_ref_a_id: None,
        ext_ref_b_id: None,
    })
}

/// `/pair`: a pool with at least one event at or before now, `None` otherwise.
pub fn feed_pair(view: &MarketView, pool: &TonAddress) -> Option<FeedPair> {
    let data = view.data();
    let g = &data.graph;
    let id = g.pool_id(pool)?;
    let meta = g.pool(id);
    let join = visible_liquidity(view).map(|(_, e)| e).find(|e| &e.pool == pool);
    let trade = view.trades().iter().find(|t| t.pool == id);
    // The earlier of the pool's first liquidity event and first trade (liquidity first on a tie).
    let (number, timestamp, txn, creator) = match (join, trade) {
        (Some(e), t) if t.is_none_or(|t| e.time <= t.time) => (
            e.block(),
            if e.mc_seq_no.is_some() { e.time } else { block_start(e.block()) },
            e.tx_hash.clone().unwrap_or_default(),
            (e.kind == LiquidityKind::Join).then(|| friendly_wallet(&e.provider)),
        ),
        (_, Some(t)) => {
            let b = block_of_time(t.time);
            (b, block_start(b), t.tx_hash.clone(), None)
        }
        _ => return None,
    };
    Some(FeedPair {
        id: friendly(&meta.address),
        dex_key: meta.protocol.slug().to_string(),
        asset0_id: g.asset(meta.assets[0]).asset.to_string(),
        asset1_id: g.asset(meta.assets[1]).asset.to_string(),
        created_at_block_number: number,
        created_at_block_timestamp: timestamp,
        created_at_txn_id: txn,
        fee_bps: i32::try_from(meta.curve.total_fee_bps()).unwrap_or(i32::MAX),
        metadata: BTreeMap::from([("poolType".to_string(), pool_kind(&meta.curve).as_str().to_string())]),
        creator,
        pool: None,
    })
}

/// `/events`: the events of the query's blocks at or before now, in feed order.
pub fn feed_events(view: &MarketView, q: &EventsQuery) -> Vec<FeedEvent> {
    let data = view.data();
    let g = &data.graph;
    let mut pending: Vec<Pending> = Vec::new();
    // Trades map their time to a block, monotonically: the range is a contiguous run of the time-ordered trades.
    let trades = view.trades();
    let start = trades.partition_point(|t| block_of_time(t.time) < q.from_block);
    let end = trades.partition_point(|t| block_of_time(t.time) <= q.to_block);
    for (seq, t) in trades[start..end.max(start)].iter().enumerate() {
        let b = block_of_time(t.time);
        let meta = g.pool(t.pool);
        let (d0, d1) = (g.asset(meta.assets[0]).decimals, g.asset(meta.assets[1]).decimals);
        let (amount0, amount1, zero_in) = match t.direction {
            Direction::ZeroToOne => (t.amount_in, t.amount_out, true),
            Direction::OneToZero => (t.amount_out, t.amount_in, false),
        };
        let (w0, w1) = (exact_whole(amount0, d0), exact_whole(amount1, d1));
        let price = {
            let (a, b) = (w0.to_f64(), w1.to_f64());
            (a > 0.0).then(|| LargeFloat::from_f64(b / a))
        };
        pending.push(Pending {
            block: b,
            timestamp: block_start(b),
            time: t.time,
            rank: 1,
            seq,
            event: FeedEvent {
                block: block(b, block_start(b)),
                event_type: FeedEventType::Swap,
                txn_id: t.tx_hash.clone(),
                txn_index: 0,
                event_index: 0,
                maker: friendly_wallet(&data.traders[t.trader]),
                pair_id: friendly(&meta.address),
                amount0: None,
                amount1: None,
                asset0_in: zero_in.then(|| w0.clone()),
                asset0_out: (!zero_in).then(|| w0.clone()),
                asset1_in: (!zero_in).then(|| w1.clone()),
                asset1_out: zero_in.then(|| w1.clone()),
                price_native: price,
                reserves: Some(reserves_of(view, t.pool, t.reserves_after)),
                metadata: None,
            },
        });
    }
    for (seq, e) in visible_liquidity(view) {
        let b = e.block();
        if !(q.from_block..=q.to_block).contains(&b) {
            continue;
        }
        let Some(id) = g.pool_id(&e.pool) else { continue };
        let meta = g.pool(id);
        let (d0, d1) = (g.asset(meta.assets[0]).decimals, g.asset(meta.assets[1]).decimals);
        let timestamp = if e.mc_seq_no.is_some() { e.time } else { block_start(b) };
        pending.push(Pending {
            block: b,
            timestamp,
            time: e.time,
            rank: 0,
            seq,
            event: FeedEvent {
                block: block(b, timestamp),
                event_type: match e.kind {
                    LiquidityKind::Join => FeedEventType::Join,
                    LiquidityKind::Exit => FeedEventType::Exit,
                },
                txn_id: e.tx_hash.clone().unwrap_or_default(),
                txn_index: 0,
                event_index: 0,
                maker: friendly_wallet(&e.provider),
                pair_id: friendly(&meta.address),
                amount0: Some(exact_whole(e.amounts[0], d0)),
                amount1: Some(exact_whole(e.amounts[1], d1)),
                asset0_in: None,
                asset0_out: None,
                asset1_in: None,
                asset1_out: None,
                price_native: None,
                reserves: e.reserves_after.map(|r| reserves_of(view, id, r)),
                metadata: None,
            },
        });
    }
    pending.sort_by_key(|p| (p.block, p.time, p.rank, p.seq));
    let mut out = Vec::with_capacity(pending.len());
    let (mut current, mut index) = (i64::MIN, 0i32);
    for p in pending {
        if p.block != current {
            (current, index) = (p.block, 0);
        }
        let mut event = p.event;
        event.block = block(p.block, p.timestamp);
        event.txn_index = index;
        if event.txn_id.is_empty() {
            event.txn_id = format!("{}:{index}", p.block);
        }
        index = index.saturating_add(1);
        out.push(event);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_amounts_are_exact() {
        assert_eq!(exact_whole(1_234_500_000, 9).as_str(), "1.2345");
        assert_eq!(exact_whole(5, 9).as_str(), "0.000000005");
        assert_eq!(exact_whole(7_000_000, 6).as_str(), "7");
        assert_eq!(exact_whole(0, 6).as_str(), "0");
        assert_eq!(exact_whole(42, 0).as_str(), "42");
        // Beyond f64's 53 bits: every digit kept.
        assert_eq!(exact_whole(123_456_789_012_345_678_901, 9).as_str(), "123456789012.345678901");
    }

    #[test]
    fn an_events_range_is_bounded() {
        assert!(EventsQuery::new(5, 5).is_ok());
        assert!(EventsQuery::new(0, i128::from(MAX_EVENT_BLOCKS) - 1).is_ok());
        assert_eq!(
            EventsQuery::new(0, i128::from(MAX_EVENT_BLOCKS)),
            Err(MarketError::TooManyBlocks { blocks: i128::from(MAX_EVENT_BLOCKS) + 1, max: MAX_EVENT_BLOCKS })
        );
        assert_eq!(
            EventsQuery::new(6, 5),
            Err(MarketError::InvertedBounds { min_field: "fromBlock", max_field: "toBlock" })
        );
        assert_eq!(EventsQuery::new(-1, 5), Err(MarketError::BlockOutOfRange { name: "fromBlock", value: -1 }));
    }
}
