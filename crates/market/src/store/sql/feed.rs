//! The screener feed (`/latest-block`, `/pair`, `/events`) over the database without every trade in memory:
//! each request reads the trades it needs by index — the latest trade (`trades (time, id)`), a pool's first trade
//! (`trades (pool, time, id)`), a block range's trades (`trades (time, id)`, blocks map to times monotonically)
//! plus, for each pool of the range, its latest recorded state before the range (`pool_states (pool, time)`:
//! a trade ingested without a state carries the pool's previous one) — and answers with the replay's own code
//! ([`crate::screener::feed_events`] and friends) over those trades. The answers are the whole-market view's: the same
//! trades of the range in the same (time, arrival) order, the same reserves after each, the same liquidity
//! events, the same "now".
//!
//! Owns choosing those rows; must not answer an operation itself (the view does).

use std::collections::BTreeSet;
use std::sync::Arc;

use sqlx::Row;

use super::load::read_header;
use super::trades::{stored_trade, TRADE_SELECT};
use super::{db, SqlMarketStore, StoreError};
use crate::liquidity::{block_start, GENESIS_BLOCK};
use crate::replay::{MarketData, MarketView};
use crate::screener::EventsQuery;
use crate::stored::StoredTrade;

/// Which trades a feed request reads.
pub(super) enum FeedTrades<'a> {
    /// The latest trade at or before now (`/latest-block`).
    Latest,
    /// A pool's first trade (`/pair`).
    FirstOfPool(&'a tonlib_core::TonAddress),
    /// The trades of a block range and their pools' states before it (`/events`).
    Blocks(&'a EventsQuery),
}

/// The trades (with the pool state recorded with each) that `condition` selects, as (id, trade).
async fn trades_where(
    store: &SqlMarketStore,
    condition: &str,
    binds: &[Bind<'_>],
) -> Result<Vec<(i64, StoredTrade)>, StoreError> {
    let sql = format!("{TRADE_SELECT} WHERE {condition}");
    let mut q = sqlx::query(&sql);
    for b in binds {
        q = match b {
            Bind::Int(i) => q.bind(*i),
            Bind::Text(s) => q.bind(*s),
        };
    }
    q.fetch_all(store.pool()).await.map_err(db("reading the feed's trades"))?.iter().map(stored_trade).collect()
}

enum Bind<'a> {
    Int(i64),
    Text(&'a str),
}

/// "Now" as the whole-market view has it: the sample's `as_of`, or the latest trade or liquidity event when later.
async fn now(store: &SqlMarketStore, as_of: i64, liquidity_latest: Option<i64>) -> Result<i64, StoreError> {
    let row = sqlx::query("SELECT MAX(time) FROM trades")
        .fetch_one(store.pool())
        .await
        .map_err(db("reading the latest trade"))?;
    let latest_trade = row.try_get::<Option<i64>, _>(0).map_err(db("reading the latest trade"))?;
    Ok([Some(as_of), latest_trade, liquidity_latest].into_iter().flatten().max().unwrap_or(as_of))
}

/// The view a feed request answers from: the market's header, every liquidity event (read whole, as the
/// whole-market view reads them) and the trades `which` selects, at the whole-market view's "now".
pub(super) async fn view(store: &SqlMarketStore, which: FeedTrades<'_>) -> Result<Arc<MarketView>, StoreError> {
    let file = read_header(store).await?;
    let liquidity = super::liquidity::read_liquidity(store).await?;
    let now = now(store, file.as_of.unix(), liquidity.iter().map(|e| e.time).max()).await?;
    let mut trades = match which {
        FeedTrades::Latest => {
            trades_where(store, "t.time <= $1 ORDER BY t.time DESC, t.id DESC LIMIT 1", &[Bind::Int(now)]).await?
        }
        FeedTrades::FirstOfPool(pool) => {
            let hex = pool.to_hex();
            trades_where(
                store,
                "t.pool = $1 AND t.time <= $2 ORDER BY t.time, t.id LIMIT 1",
                &[Bind::Text(&hex), Bind::Int(now)],
            )
            .await?
        }
        FeedTrades::Blocks(q) => block_range(store, q, now).await?,
    };
    trades.sort_by_key(|(id, t)| (t.time, *id));
    let trades: Vec<StoredTrade> = trades.into_iter().map(|(_, t)| t).collect();
    let graph = store.snapshot.into_graph().map_err(StoreError::Snapshot)?;
    let mut data = MarketData::from_stored(graph, &file, &trades).map_err(StoreError::Data)?;
    data.liquidity = liquidity;
    Ok(Arc::new(MarketView::new(Arc::new(data), now)))
}

/// The trades whose mapped block is in the query's range (a time range: the view keeps exactly the range's
/// blocks), and for each pool among them its latest recorded state before the range.
async fn block_range(store: &SqlMarketStore, q: &EventsQuery, now: i64) -> Result<Vec<(i64, StoredTrade)>, StoreError> {
    // Times before the genesis map to its block: with the range starting there, no lower bound.
    let start = (q.from_block() > GENESIS_BLOCK).then(|| block_start(q.from_block()));
    // The first time past the range (saturating: a range up to the largest block has no upper bound).
    let end = block_start(q.to_block().saturating_add(1)).min(now.saturating_add(1));
    let mut trades = trades_where(
        store,
        "t.time >= $1 AND t.time < $2 ORDER BY t.time, t.id",
        &[Bind::Int(start.unwrap_or(i64::MIN)), Bind::Int(end)],
    )
    .await?;
    let Some(start) = start else { return Ok(trades) };
    // A trade without a recorded state (an ingested line) shows its pool's previous state: the latest one
    // recorded before the range, when the range's first trades of that pool carry none.
    let pools: BTreeSet<String> = trades.iter().map(|(_, t)| t.pool.to_hex()).collect();
    let mut anchors = Vec::new();
    for pool in &pools {
        let row = sqlx::query(
            "SELECT trade_id FROM pool_states WHERE pool = $1 AND time < $2 AND trade_id IS NOT NULL \
             ORDER BY time DESC, trade_id DESC LIMIT 1",
        )
        .bind(pool.as_str())
        .bind(start)
        .fetch_optional(store.pool())
        .await
        .map_err(db("finding a pool's state before the range"))?;
        if let Some(r) = row {
            anchors.push(r.try_get::<i64, _>(0).map_err(db("finding a pool's state before the range"))?);
        }
    }
    for chunk in anchors.chunks(500) {
        let list = chunk.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
        trades.extend(trades_where(store, &format!("t.id IN ({list})"), &[]).await?);
    }
    Ok(trades)
}
