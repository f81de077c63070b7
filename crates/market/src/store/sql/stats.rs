//! The statistics behind `/coin`, `/coins`, the pool routes and affiliate volumes, read from the database without
//! holding its trades: what a view of the market needs is (a) figures over every trade, folded as trades arrive,
//! and (b) the recent trades, read by an indexed range scan each time the data changes.
//!
//! - **All-time figures** ([`Totals`]): per coin its last trade, all-time high and low, total USD and TON volume;
//!   per pool its protocol fees, last activity and the trade that recorded its latest state. They are folded
//!   from the trades with an id above the last one folded (the primary key's range, in pages), so a new batch
//!   costs its own size; memory is per coin and per pool, never per trade.
//! - **Recent trades** ([`recent`]): the trades of the last 30 days before "now" (the longest window a statistic
//!   reads: the 30-day high and low; the others read 15 minutes to 7 days, and 7 more days for the previous
//!   period's volume), by the `trades (time, id)` index, plus a few *anchors* from before the window: each
//!   pool's latest recorded state and, for a coin whose window holds no trade at or before the 7-day mark, its
//!   last trade before the window (the price the period changes start from), each found by an index.
//!
//! - **Checkpoint** (`market_totals`, migration 0003): the fold is stored after a process's first fold and then
//!   every 50,000 trades, keyed by asset and pool (prices as their bits, volumes as nano-units, so exact); a
//!   process opening the store
//!   starts from it and folds only the trades added since (at 10M trades the full fold is minutes). It is checked
//!   against the trades (the natural key of its last trade) and ignored when they were rebuilt.
//!
//! The view is then the replay's own [`MarketView`] over the recent trades and anchors, with its all-time figures
//! replaced ([`MarketView::with_all_time`]): every statistic is computed by the same code, over the same trades,
//! in the same order (time, then arrival) as the replay of the whole market, so the answers are the replay's
//! bit for bit. Volumes are [`Money`] (exact nano-unit sums), so the all-time totals, folded in arrival order,
//! equal the replay's, summed in time order, whatever order the trades were ingested in.
//!
//! Owns the fold and the window's reading; must not answer an operation (the view does).

use std::collections::BTreeSet;
use std::sync::Arc;

use ahash::AHashMap;
use sqlx::Row;

use super::load::read_header;
use super::trades::{stored_trade, TRADE_SELECT};
use super::{db, SqlMarketStore, StoreError};
use crate::money::Money;
use crate::replay::{CoinAllTime, MarketData, MarketView, PoolAllTime};
use crate::stored::StoredTrade;
use tonroute_core::asset::Asset;
use tonroute_core::graph::{AssetId, PoolGraph};

/// The longest window a statistic reads (the 30-day high and low).
const WINDOW: i64 = 30 * 86_400;
/// The longest period a price change starts from (7 days).
const LONGEST_PERIOD: i64 = 7 * 86_400;
/// Rows per page of the fold.
const PAGE: i64 = 20_000;

/// A coin's running all-time figures, keyed by trade (time, id) where order matters.
#[derive(Debug, Clone, Copy, Default)]
struct CoinFold {
    /// (time, id) of the coin's latest trade.
    last: Option<(i64, i64)>,
    /// (price, time, id) of the first trade at the highest price.
    ath: Option<(f64, i64, i64)>,
    /// (price, time, id) of the first trade at the lowest price.
    atl: Option<(f64, i64, i64)>,
    volume_usd: Money,
    /// Nano-units: nanotons.
    volume_ton: Money,
}

#[derive(Debug, Clone, Copy, Default)]
struct PoolFold {
    protocol_fees: [u128; 2],
    last_activity: Option<i64>,
    /// (time, id) of the latest trade that recorded the pool's state.
    state: Option<(i64, i64)>,
}

/// The all-time figures folded so far (see the module documentation).
#[derive(Debug, Clone, Default)]
pub(super) struct Totals {
    /// Highest trade id folded.
    seen: i64,
    /// Latest trade time folded.
    latest: Option<i64>,
    /// Per asset of the snapshot graph.
    coins: Vec<CoinFold>,
    /// Per pool of the snapshot graph.
    pools: Vec<PoolFold>,
}

/// The figures the store keeps between requests: the fold and the view built at its generation.
#[derive(Debug, Default)]
pub(super) struct Cache {
    totals: Totals,
    view: Option<(super::Generation, Arc<MarketView>)>,
    /// The `seen` of the checkpoint this process last read or wrote (`None` before the first fold).
    saved: Option<i64>,
}

/// Asset and pool ids by their stored text, built once per fold.
struct Names<'g> {
    graph: &'g PoolGraph,
    assets: AHashMap<String, AssetId>,
}

impl Names<'_> {
    fn asset(&mut self, text: String) -> Result<AssetId, StoreError> {
        if let Some(&id) = self.assets.get(&text) {
            return Ok(id);
        }
        let id = Asset::parse(&text)
            .ok()
            .and_then(|a| self.graph.asset_id(&a))
            .ok_or_else(|| StoreError::Corrupt { what: "asset", value: text.clone() })?;
        self.assets.insert(text, id);
        Ok(id)
    }
}

/// Folds the trades above `totals.seen` into `totals`, in id order (arrival order: the order the replay adds
/// them in when trades arrive in time order, which ingestion of a chain's history does).
async fn fold(store: &SqlMarketStore, totals: &mut Totals) -> Result<(), StoreError> {
    let g = store.graph();
    if totals.coins.len() != g.asset_count() || totals.pools.len() != g.pool_count() {
        *totals = Totals {
            coins: vec![CoinFold::default(); g.asset_count()],
            pools: vec![PoolFold::default(); g.pool_count()],
            ..Totals::default()
        };
    }
    let mut names = Names { graph: g, assets: AHashMap::new() };
    let mut pools: AHashMap<String, usize> = AHashMap::new();
    let sql = "SELECT t.id, t.time, t.pool, t.asset_in, t.asset_out, CAST(t.protocol_fee_out AS TEXT), \
               t.price_usd_in, t.price_usd_out, t.ton_usd, t.volume_usd, s.trade_id \
               FROM trades t LEFT JOIN pool_states s ON s.trade_id = t.id WHERE t.id > $1 ORDER BY t.id LIMIT $2";
    loop {
        let rows = sqlx::query(sql)
            .bind(totals.seen)
            .bind(PAGE)
            .fetch_all(store.pool())
            .await
            .map_err(db("folding new trades"))?;
        let Some(last) = rows.last() else { return Ok(()) };
        let next = last.try_get::<i64, _>(0).map_err(db("folding new trades"))?;
        for r in &rows {
            let get_i = |i: usize| r.try_get::<i64, _>(i).map_err(db("folding new trades"));
            let get_f = |i: usize| r.try_get::<f64, _>(i).map_err(db("folding new trades"));
            let get_t = |i: usize| r.try_get::<String, _>(i).map_err(db("folding new trades"));
            let (id, time) = (get_i(0)?, get_i(1)?);
            let pool_text = get_t(2)?;
            let pool = match pools.get(&pool_text) {
                Some(&p) => p,
                None => {
                    let address = tonroute_core::asset::parse_address(&pool_text)
                        .map_err(|_| StoreError::Corrupt { what: "pool", value: pool_text.clone() })?;
                    let p = g
                        .pool_id(&address)
                        .ok_or_else(|| StoreError::Corrupt { what: "pool", value: pool_text.clone() })?
                        .index();
                    pools.insert(pool_text, p);
                    p
                }
            };
            let (asset_in, asset_out) = (names.asset(get_t(3)?)?, names.asset(get_t(4)?)?);
            let fee_text = get_t(5)?;
            let fee: u128 =
                fee_text.parse().map_err(|_| StoreError::Corrupt { what: "protocol_fee_out", value: fee_text })?;
            let (usd_in, usd_out, ton_usd, volume_usd) = (get_f(6)?, get_f(7)?, get_f(8)?, get_f(9)?);
            let has_state = r.try_get::<Option<i64>, _>(10).map_err(db("folding new trades"))?.is_some();

            totals.latest = Some(totals.latest.map_or(time, |l| l.max(time)));
            // The replay's `Trade::volume_ton`, summed as the replay sums it (exact nano-units: any order).
            let volume_ton = Money::of(crate::units::in_ton(volume_usd, ton_usd));
            let volume_usd = Money::of(volume_usd);
            for (asset, price) in [(asset_in, usd_in), (asset_out, usd_out)] {
                let c = &mut totals.coins[asset.index()];
                if c.last.is_none_or(|l| (time, id) > l) {
                    c.last = Some((time, id));
                }
                // First reached: a higher price, or the same price earlier.
                if c.ath.is_none_or(|(p, t, i)| price > p || (price == p && (time, id) < (t, i))) {
                    c.ath = Some((price, time, id));
                }
                if c.atl.is_none_or(|(p, t, i)| price < p || (price == p && (time, id) < (t, i))) {
                    c.atl = Some((price, time, id));
                }
                c.volume_usd += volume_usd;
                c.volume_ton += volume_ton;
            }
            let meta = &g.pools()[pool];
            let p = &mut totals.pools[pool];
            let out_side = usize::from(asset_in == meta.assets[0]);
            p.protocol_fees[out_side] += fee;
            p.last_activity = Some(p.last_activity.map_or(time, |l| l.max(time)));
            if has_state && p.state.is_none_or(|s| (time, id) > s) {
                p.state = Some((time, id));
            }
        }
        totals.seen = next;
    }
}

/// The view of the market at the database's current generation (the highest trade and liquidity-event ids),
/// built as the module documentation says; cached until a trade or an event is added.
pub(super) async fn view(store: &SqlMarketStore, cache: &mut Cache) -> Result<Arc<MarketView>, StoreError> {
    let latest_trade = sqlx::query("SELECT COALESCE(MAX(id), 0) FROM trades")
        .fetch_one(store.pool())
        .await
        .and_then(|r| r.try_get::<i64, _>(0))
        .map_err(db("reading the latest trade"))?;
    let generation = (latest_trade, super::liquidity::latest_id(store).await?);
    if let Some((g, v)) = &cache.view {
        if *g == generation {
            return Ok(v.clone());
        }
    }
    if latest_trade < cache.totals.seen {
        // Trades were removed (another process rebuilt the database): fold again from the start.
        cache.totals = Totals::default();
        cache.saved = None;
    }
    if cache.saved.is_none() {
        // The first fold of this process starts from the stored checkpoint, when there is a valid one.
        if let Some(totals) = checkpoint::load(store, latest_trade).await? {
            cache.saved = Some(totals.seen);
            cache.totals = totals;
        }
    }
    fold(store, &mut cache.totals).await?;
    if cache.totals.seen > 0 && cache.saved.is_none_or(|s| cache.totals.seen >= s + checkpoint::EVERY) {
        // A cache: a store this process may not write (a read-only user) keeps folding from its last checkpoint.
        if checkpoint::save(store, &cache.totals).await.is_ok() {
            cache.saved = Some(cache.totals.seen);
        }
    }
    let file = read_header(store).await?;
    // Liquidity events are read whole, as the whole-market view reads them (their own module owns them).
    let liquidity = super::liquidity::read_liquidity(store).await?;
    // "Now" as the whole-market view has it: a liquidity event after the last trade is part of the data too.
    let latest_event = liquidity.iter().map(|e| e.time).max();
    let now = file.as_of.unix().max(cache.totals.latest.unwrap_or(i64::MIN)).max(latest_event.unwrap_or(i64::MIN));
    let trades = recent(store, &file_coins(store, &file)?, &cache.totals, now).await?;
    let graph = store.snapshot.into_graph().map_err(StoreError::Snapshot)?;
    let mut data = MarketData::from_stored(graph, &file, &trades).map_err(StoreError::Data)?;
    data.liquidity = liquidity;
    let g = &data.graph;
    let coins: Vec<CoinAllTime> = data
        .coins
        .iter()
        .map(|c| {
            let f = &cache.totals.coins[c.id.index()];
            CoinAllTime {
                ath: f.ath.map(|(p, t, _)| (p, t)),
                atl: f.atl.map(|(p, t, _)| (p, t)),
                total_volume_usd: f.volume_usd,
                total_volume_ton: f.volume_ton,
            }
        })
        .collect();
    let pools: Vec<PoolAllTime> = (0..g.pool_count())
        .map(|i| {
            let f = &cache.totals.pools[i];
            PoolAllTime { protocol_fees: f.protocol_fees, last_activity: f.last_activity }
        })
        .collect();
    let view = Arc::new(MarketView::new(Arc::new(data), now).with_all_time(&coins, &pools));
    cache.view = Some((generation, view.clone()));
    Ok(view)
}

/// The listed coins' ids in the snapshot graph.
fn file_coins(store: &SqlMarketStore, file: &crate::replay::MarketFile) -> Result<Vec<AssetId>, StoreError> {
    let g = store.graph();
    file.coins
        .iter()
        .map(|c| {
            Asset::parse(&c.asset)
                .ok()
                .and_then(|a| g.asset_id(&a))
                .ok_or_else(|| StoreError::Corrupt { what: "coin", value: c.asset.clone() })
        })
        .collect()
}

/// The trades of the window `(now - 30 d, now]` and the anchors before it (see the module documentation), in
/// time order, ties in arrival order.
async fn recent(
    store: &SqlMarketStore,
    coins: &[AssetId],
    totals: &Totals,
    now: i64,
) -> Result<Vec<StoredTrade>, StoreError> {
    let start = now - WINDOW;
    let sql = format!("{TRADE_SELECT} WHERE t.time > $1 AND t.time <= $2 ORDER BY t.time, t.id");
    let rows = sqlx::query(&sql)
        .bind(start)
        .bind(now)
        .fetch_all(store.pool())
        .await
        .map_err(db("reading the recent trades"))?;
    let mut trades: Vec<(i64, StoredTrade)> = Vec::with_capacity(rows.len());
    // The earliest window trade of each asset.
    let mut first_in_window: AHashMap<Asset, i64> = AHashMap::new();
    for r in &rows {
        let (id, t) = stored_trade(r)?;
        let out = store.graph().pool_id(&t.pool).map(|p| {
            let meta = store.graph().pool(p);
            let a0 = store.graph().asset(meta.assets[0]).asset;
            let a1 = store.graph().asset(meta.assets[1]).asset;
            if a0 == t.asset_in {
                a1
            } else {
                a0
            }
        });
        for a in [Some(t.asset_in), out].into_iter().flatten() {
            first_in_window.entry(a).or_insert(t.time);
        }
        trades.push((id, t));
    }
    // Anchors: each pool's latest recorded state before the window, and each coin's last trade before it when
    // the window does not reach back to the longest period's start for that coin.
    let mut anchors: BTreeSet<i64> = BTreeSet::new();
    for p in &totals.pools {
        if let Some((time, id)) = p.state {
            if time <= start {
                anchors.insert(id);
            }
        }
    }
    let g = store.graph();
    for &c in coins {
        let asset = g.asset(c).asset;
        match first_in_window.get(&asset) {
            // A window trade at or before the 7-day mark: every period's starting price is in the window.
            Some(&first) if first <= now - LONGEST_PERIOD => {}
            Some(_) => {
                if let Some(id) = last_before(store, &asset, start).await? {
                    anchors.insert(id);
                }
            }
            // No trade in the window: the last trade ever is before it.
            None => {
                if let Some((time, id)) = totals.coins[c.index()].last {
                    if time <= start {
                        anchors.insert(id);
                    }
                }
            }
        }
    }
    let ids: Vec<i64> = anchors.into_iter().collect();
    for chunk in ids.chunks(500) {
        let list = chunk.iter().map(|i| i.to_string()).collect::<Vec<_>>().join(", ");
        let sql = format!("{TRADE_SELECT} WHERE t.id IN ({list})");
        for r in sqlx::query(&sql).fetch_all(store.pool()).await.map_err(db("reading anchor trades"))? {
            trades.push(stored_trade(&r)?);
        }
    }
    trades.sort_by(|(ia, a), (ib, b)| (a.time, ia).cmp(&(b.time, ib)));
    trades.dedup_by_key(|(id, _)| *id);
    Ok(trades.into_iter().map(|(_, t)| t).collect())
}

/// The id of `asset`'s last trade at or before `time` (either side), by the asset indexes.
async fn last_before(store: &SqlMarketStore, asset: &Asset, time: i64) -> Result<Option<i64>, StoreError> {
    let mut best: Option<(i64, i64)> = None;
    for column in ["asset_in", "asset_out"] {
        let sql = format!(
            "SELECT time, id FROM trades WHERE {column} = $1 AND time <= $2 ORDER BY time DESC, id DESC LIMIT 1"
        );
        let row = sqlx::query(&sql)
            .bind(asset.to_string())
            .bind(time)
            .fetch_optional(store.pool())
            .await
            .map_err(db("finding a coin's last trade"))?;
        if let Some(r) = row {
            let at = (
                r.try_get::<i64, _>(0).map_err(db("finding a coin's last trade"))?,
                r.try_get::<i64, _>(1).map_err(db("finding a coin's last trade"))?,
            );
            best = best.max(Some(at));
        }
    }
    Ok(best.map(|(_, id)| id))
}

/// A wallet's (volume TON, volume USD, trades) up to `now`, summed as the replay sums them ([`Money`]), by the
/// `trades (trader, time, id)` index.
pub(super) async fn wallet_volume(
    store: &SqlMarketStore,
    wallet: &tonlib_core::TonAddress,
    now: i64,
) -> Result<(Money, Money, i64), StoreError> {
    let rows = sqlx::query("SELECT volume_usd, ton_usd FROM trades WHERE trader = $1 AND time <= $2 ORDER BY time, id")
        .bind(wallet.to_hex())
        .bind(now)
        .fetch_all(store.pool())
        .await
        .map_err(db("summing a wallet's volume"))?;
    let mut v = (Money::ZERO, Money::ZERO, 0);
    for r in &rows {
        let usd = r.try_get::<f64, _>(0).map_err(db("summing a wallet's volume"))?;
        let ton_usd = r.try_get::<f64, _>(1).map_err(db("summing a wallet's volume"))?;
        v.0 += if ton_usd > 0.0 { usd / ton_usd } else { 0.0 };
        v.1 += usd;
        v.2 += 1;
    }
    Ok(v)
}

/// The fold's checkpoint in `market_totals` (migration 0003): the [`Totals`] of the trades up to an id, keyed by
/// asset id and pool address (not by the graph's indexes), floats as their bits (exact).
mod checkpoint {
    use serde::{Deserialize, Serialize};
    use sqlx::Row;

    use super::{CoinFold, PoolFold, Totals};
    use crate::money::Money;
    use crate::store::sql::{db, SqlMarketStore, StoreError};
    use tonroute_core::asset::Asset;

    /// A process writes the checkpoint after its first fold, then after every `EVERY` trades folded since.
    pub(super) const EVERY: i64 = 50_000;

    #[derive(Serialize, Deserialize)]
    struct Saved {
        latest: Option<i64>,
        coins: Vec<(String, SavedCoin)>,
        pools: Vec<(String, SavedPool)>,
    }

    #[derive(Serialize, Deserialize)]
    struct SavedCoin {
        last: Option<(i64, i64)>,
        /// (price bits, time, id).
        ath: Option<(u64, i64, i64)>,
        atl: Option<(u64, i64, i64)>,
        /// Nano-units (named apart from the float bits an older checkpoint kept, which is then not read).
        volume_usd_nanos: String,
        volume_ton_nanos: String,
    }

    #[derive(Serialize, Deserialize)]
    struct SavedPool {
        protocol_fees: [String; 2],
        last_activity: Option<i64>,
        state: Option<(i64, i64)>,
    }

    /// The natural key of trade `id` (`None` when there is no such trade).
    async fn key_of(store: &SqlMarketStore, id: i64) -> Result<Option<String>, StoreError> {
        let row = sqlx::query("SELECT natural_key FROM trades WHERE id = $1")
            .bind(id)
            .fetch_optional(store.pool())
            .await
            .map_err(db("reading the statistics checkpoint"))?;
        row.map(|r| r.try_get::<String, _>(0)).transpose().map_err(db("reading the statistics checkpoint"))
    }

    /// Writes `totals` as the checkpoint, unless one further along is stored.
    pub(super) async fn save(store: &SqlMarketStore, totals: &Totals) -> Result<(), StoreError> {
        let Some(seen_key) = key_of(store, totals.seen).await? else { return Ok(()) };
        let g = store.graph();
        let coins = totals
            .coins
            .iter()
            .enumerate()
            .filter(|(_, c)| c.last.is_some())
            .map(|(i, c)| {
                let asset = g.assets().get(i).map(|m| m.asset.to_string()).unwrap_or_default();
                let saved = SavedCoin {
                    last: c.last,
                    ath: c.ath.map(|(p, t, id)| (p.to_bits(), t, id)),
                    atl: c.atl.map(|(p, t, id)| (p.to_bits(), t, id)),
                    volume_usd_nanos: c.volume_usd.nanos().to_string(),
                    volume_ton_nanos: c.volume_ton.nanos().to_string(),
                };
                (asset, saved)
            })
            .collect();
        let pools = totals
            .pools
            .iter()
            .enumerate()
            .filter(|(_, p)| p.last_activity.is_some() || p.state.is_some() || p.protocol_fees != [0, 0])
            .map(|(i, p)| {
                let address = g.pools().get(i).map(|m| m.address.to_hex()).unwrap_or_default();
                let saved = SavedPool {
                    protocol_fees: p.protocol_fees.map(|f| f.to_string()),
                    last_activity: p.last_activity,
                    state: p.state,
                };
                (address, saved)
            })
            .collect();
        let text = serde_json::to_string(&Saved { latest: totals.latest, coins, pools })
            .map_err(|e| StoreError::Corrupt { what: "statistics checkpoint", value: e.to_string() })?;
        sqlx::query(
            "INSERT INTO market_totals (id, seen, seen_key, totals) VALUES (1, $1, $2, $3) \
             ON CONFLICT (id) DO UPDATE SET seen = excluded.seen, seen_key = excluded.seen_key, \
             totals = excluded.totals WHERE excluded.seen > market_totals.seen",
        )
        .bind(totals.seen)
        .bind(seen_key)
        .bind(text)
        .execute(store.pool())
        .await
        .map_err(db("writing the statistics checkpoint"))?;
        Ok(())
    }

    /// The stored checkpoint, when it is valid for the store's trades: at or below the highest id, on the same
    /// trade (its natural key), every asset and pool known to the snapshot. `None` otherwise (fold from the start).
    pub(super) async fn load(store: &SqlMarketStore, latest_trade: i64) -> Result<Option<Totals>, StoreError> {
        let row = sqlx::query("SELECT seen, seen_key, totals FROM market_totals WHERE id = 1")
            .fetch_optional(store.pool())
            .await
            .map_err(db("reading the statistics checkpoint"))?;
        let Some(row) = row else { return Ok(None) };
        let get = |i: usize| row.try_get::<String, _>(i).map_err(db("reading the statistics checkpoint"));
        let seen = row.try_get::<i64, _>(0).map_err(db("reading the statistics checkpoint"))?;
        let (seen_key, text) = (get(1)?, get(2)?);
        if seen > latest_trade || key_of(store, seen).await?.as_deref() != Some(seen_key.as_str()) {
            return Ok(None);
        }
        let Ok(saved) = serde_json::from_str::<Saved>(&text) else { return Ok(None) };
        let g = store.graph();
        let mut totals = Totals {
            seen,
            latest: saved.latest,
            coins: vec![CoinFold::default(); g.asset_count()],
            pools: vec![PoolFold::default(); g.pool_count()],
        };
        for (asset, c) in saved.coins {
            let Some(id) = Asset::parse(&asset).ok().and_then(|a| g.asset_id(&a)) else { return Ok(None) };
            let (Ok(usd), Ok(ton)) = (c.volume_usd_nanos.parse(), c.volume_ton_nanos.parse()) else { return Ok(None) };
            totals.coins[id.index()] = CoinFold {
                last: c.last,
                ath: c.ath.map(|(p, t, i)| (f64::from_bits(p), t, i)),
                atl: c.atl.map(|(p, t, i)| (f64::from_bits(p), t, i)),
                volume_usd: Money::from_nanos(usd),
                volume_ton: Money::from_nanos(ton),
            };
        }
        for (address, p) in saved.pools {
            let pool = tonroute_core::asset::parse_address(&address).ok().and_then(|a| g.pool_id(&a));
            let Some(pool) = pool else { return Ok(None) };
            let (Ok(f0), Ok(f1)) = (p.protocol_fees[0].parse(), p.protocol_fees[1].parse()) else { return Ok(None) };
            totals.pools[pool.index()] =
                PoolFold { protocol_fees: [f0, f1], last_activity: p.last_activity, state: p.state };
        }
        Ok(Some(totals))
    }
}
