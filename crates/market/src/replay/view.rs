//! [`MarketView`]: a loaded [`MarketData`] seen at a given "now" (an input, never a clock), with the statistics
//! every operation reads computed once: per coin (prices, period changes, volumes, traders, all-time highs),
//! per pool (reserves, TVL, 24 h volume and fees, APRs, reward programs), and the trades of each asset and pool.
//!
//! Owns the statistics and the builders of the answers' shared parts (coin metadata, addresses); must not
//! answer an operation itself (see `coins`, `chart`, `pools`, `affiliate`).

use std::collections::BTreeSet;
use std::sync::Arc;

use super::data::{CoinEntry, MarketData, Trade};
use crate::liquidity::LiquidityEvent;
use crate::money::Money;
use crate::types::{CoinMetadata, LargeFloat, StatPeriod};
use crate::units::whole;
use tonroute_core::graph::{AssetId, PoolId};

const PERIODS: [StatPeriod; 5] = [StatPeriod::M15, StatPeriod::H1, StatPeriod::H6, StatPeriod::H24, StatPeriod::D7];

pub(crate) fn pick<T: Copy>(p: StatPeriod, v: &[T; 5]) -> T {
    v[PERIODS.iter().position(|x| *x == p).unwrap_or(0)]
}

fn pct_change(now: f64, then: f64) -> f64 {
    if then > 0.0 {
        (now / then - 1.0) * 100.0
    } else {
        0.0
    }
}

/// Per-period figures of a coin (arrays indexed 15m, 1h, 6h, 24h, 7d).
#[derive(Debug, Clone, Default)]
pub struct CoinStats {
    /// Last trade's USD price.
    pub usd: Option<f64>,
    /// Last trade's TON price.
    pub ton: Option<f64>,
    pub(crate) usd_change: [f64; 5],
    pub(crate) ton_change: [f64; 5],
    pub(crate) volume: [Money; 5],
    pub(crate) buy_volume: [Money; 5],
    pub(crate) sell_volume: [Money; 5],
    pub(crate) volume_change: [f64; 5],
    pub(crate) buys: [f64; 5],
    pub(crate) sells: [f64; 5],
    pub(crate) traders: [f64; 5],
    pub(crate) buyers: [f64; 5],
    pub(crate) sellers: [f64; 5],
    pub(crate) ath: Option<(f64, i64)>,
    pub(crate) atl: Option<(f64, i64)>,
    pub(crate) high_low_7d: Option<(f64, f64)>,
    pub(crate) high_low_30d: Option<(f64, f64)>,
    pub(crate) total_volume_usd: Money,
    /// In nano-units: nanotons.
    pub(crate) total_volume_ton: Money,
    /// Liquidity in USD (sum of the TVL of the coin's pools).
    pub liquidity: Money,
    /// Market cap in USD (circulating supply at the last price).
    pub market_cap: Option<f64>,
    pub(crate) fdv: Option<f64>,
}

impl CoinStats {
    /// Trade count (buys + sells) over a period.
    pub fn transactions(&self, p: StatPeriod) -> f64 {
        pick(p, &self.buys) + pick(p, &self.sells)
    }

    /// USD volume over a period.
    pub fn volume(&self, p: StatPeriod) -> Money {
        pick(p, &self.volume)
    }
}

/// Figures of a pool at now.
#[derive(Debug, Clone, Default)]
pub struct PoolStats {
    /// Reserves at now.
    pub reserves: [u128; 2],
    /// TVL, USD (the sum of its two sides' values).
    pub tvl_usd: Money,
    /// 24 h volume, USD.
    pub volume_24h_usd: Money,
    /// 24 h fees, USD.
    pub fees_24h_usd: Money,
    /// Fee APR, percent.
    pub apr_fees: f64,
    /// Reward APR, percent.
    pub apr_rewards: f64,
    volume_units: [u128; 2],
    protocol_fees: [u128; 2],
    last_activity: Option<i64>,
    rewards: Vec<usize>,
}

/// A [`MarketData`] seen at `now`: the statistics every operation reads, computed once.
#[derive(Debug, Clone)]
pub struct MarketView {
    data: Arc<MarketData>,
    now: i64,
    /// Trades at or before now.
    visible: usize,
    by_asset: Vec<Vec<usize>>,
    by_pool: Vec<Vec<usize>>,
    /// Per pool, the indices of its liquidity events at or before now ([`MarketData::liquidity`], time order).
    events_by_pool: Vec<Vec<usize>>,
    usd_prices: Vec<f64>,
    coin_stats: Vec<CoinStats>,
    pool_stats: Vec<PoolStats>,
}

impl MarketView {
    /// The view of `data` at `now` (Unix seconds).
    pub fn new(data: Arc<MarketData>, now: i64) -> MarketView {
        let g = &data.graph;
        let visible = data.trades.partition_point(|t| t.time <= now);
        let mut by_asset = vec![Vec::new(); g.asset_count()];
        let mut by_pool = vec![Vec::new(); g.pool_count()];
        for (i, t) in data.trades[..visible].iter().enumerate() {
            by_asset[t.asset_in.index()].push(i);
            by_asset[t.asset_out.index()].push(i);
            by_pool[t.pool.index()].push(i);
        }
        let mut events_by_pool = vec![Vec::new(); g.pool_count()];
        for (i, e) in data.liquidity.iter().enumerate() {
            if e.time > now {
                continue;
            }
            if let Some(id) = g.pool_id(&e.pool) {
                events_by_pool[id.index()].push(i);
            }
        }
        let reserves = data.reserves_at(now);
        let usd_prices = data.usd_prices(&reserves);
        let mut pool_stats: Vec<PoolStats> = (0..g.pool_count())
            .map(|i| {
                let meta = &g.pools()[i];
                let r = reserves[i];
                let tvl_usd: Money = (0..2)
                    .map(|k| whole(r[k], g.asset(meta.assets[k]).decimals) * usd_prices[meta.assets[k].index()])
                    .sum();
                let fee = f64::from(meta.curve.total_fee_bps()) / 10_000.0;
                let mut s = PoolStats { reserves: r, tvl_usd, ..PoolStats::default() };
                for &ti in &by_pool[i] {
                    let t = &data.trades[ti];
                    let (kin, kout) = if t.asset_in == meta.assets[0] { (0, 1) } else { (1, 0) };
                    s.protocol_fees[kout] += t.protocol_fee_out;
                    s.last_activity = Some(t.time);
                    if t.time > now - 86_400 {
                        s.volume_units[kin] += t.amount_in;
                        s.volume_units[kout] += t.amount_out;
                        s.volume_24h_usd += t.volume_usd;
                    }
                }
                // One fee rate for every trade: the fees are the volume times it, rounded once.
                s.fees_24h_usd = Money::of(s.volume_24h_usd.to_f64() * fee);
                if s.tvl_usd > Money::ZERO {
                    s.apr_fees = s.fees_24h_usd.to_f64() * 365.0 / s.tvl_usd.to_f64() * 100.0;
                }
                s
            })
            .collect();
        for (ri, r) in data.rewards.iter().enumerate() {
            if r.record.end_date.unix() <= now {
                continue;
            }
            let s = &mut pool_stats[r.pool.index()];
            s.rewards.push(ri);
            let per_day_usd = whole(r.tokens_per_day, g.asset(r.asset).decimals) * usd_prices[r.asset.index()];
            if s.tvl_usd > Money::ZERO {
                s.apr_rewards += per_day_usd * 365.0 / s.tvl_usd.to_f64() * 100.0;
            }
        }
        let mut liquidity = vec![Money::ZERO; g.asset_count()];
        for (i, p) in g.pools().iter().enumerate() {
            for a in p.assets {
                liquidity[a.index()] += pool_stats[i].tvl_usd;
            }
        }
        let coin_stats = data
            .coins
            .iter()
            .map(|c| coin_stats(&data, c, &by_asset[c.id.index()], now, liquidity[c.id.index()]))
            .collect();
        MarketView { data, now, visible, by_asset, by_pool, events_by_pool, usd_prices, coin_stats, pool_stats }
    }

    /// The view's now.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// The data.
    pub fn data(&self) -> &Arc<MarketData> {
        &self.data
    }

    /// Statistics of the coin at `index` in [`MarketData::coins`].
    pub fn coin_stats(&self, index: usize) -> &CoinStats {
        &self.coin_stats[index]
    }

    /// Statistics of a pool.
    pub fn pool_stats(&self, pool: PoolId) -> &PoolStats {
        &self.pool_stats[pool.index()]
    }

    /// Trades at or before now.
    pub fn trades(&self) -> &[Trade] {
        &self.data.trades[..self.visible]
    }

    /// The trades of `asset` (in or out) at or before now that this view holds, in time order.
    pub fn asset_trades(&self, asset: AssetId) -> impl Iterator<Item = &Trade> + '_ {
        self.by_asset.get(asset.index()).into_iter().flatten().map(move |&i| &self.data.trades[i])
    }

    /// The trades of `pool` at or before now that this view holds, in time order (a database store's statistics
    /// view holds only the recent ones).
    pub fn pool_trades(&self, pool: PoolId) -> impl Iterator<Item = &Trade> + '_ {
        self.by_pool.get(pool.index()).into_iter().flatten().map(move |&i| &self.data.trades[i])
    }

    /// The liquidity events of `pool` at or before now, in time order (every stored one).
    pub fn pool_liquidity(&self, pool: PoolId) -> impl Iterator<Item = &LiquidityEvent> + '_ {
        self.events_by_pool.get(pool.index()).into_iter().flatten().map(move |&i| &self.data.liquidity[i])
    }
}

/// A coin's figures over every trade, for a view built from only the recent trades (a database store keeps the
/// rest on disk and folds these as trades arrive): they replace what [`MarketView::new`] computed from its trades.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CoinAllTime {
    /// All-time high USD price and the time it was first reached.
    pub ath: Option<(f64, i64)>,
    /// All-time low USD price and the time it was first reached.
    pub atl: Option<(f64, i64)>,
    /// USD volume of every trade.
    pub total_volume_usd: Money,
    /// TON volume of every trade (nano-units: nanotons).
    pub total_volume_ton: Money,
}

/// A pool's figures over every trade (see [`CoinAllTime`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolAllTime {
    /// Protocol fees kept, per asset (contract order).
    pub protocol_fees: [u128; 2],
    /// Time of the last trade.
    pub last_activity: Option<i64>,
}

impl MarketView {
    /// This view with its all-time figures replaced: `coins[i]` for the coin at index `i` of
    /// [`MarketData::coins`], `pools[i]` for pool `i` (missing entries keep the view's own).
    pub fn with_all_time(mut self, coins: &[CoinAllTime], pools: &[PoolAllTime]) -> MarketView {
        for (s, a) in self.coin_stats.iter_mut().zip(coins) {
            s.ath = a.ath;
            s.atl = a.atl;
            s.total_volume_usd = a.total_volume_usd;
            s.total_volume_ton = a.total_volume_ton;
        }
        for (s, a) in self.pool_stats.iter_mut().zip(pools) {
            s.protocol_fees = a.protocol_fees;
            s.last_activity = a.last_activity;
        }
        self
    }
}

/// USD and TON price of `asset` in trade `t`.
pub(crate) fn trade_prices(data: &MarketData, t: &Trade, asset: AssetId) -> (f64, f64) {
    let usd = if t.asset_in == asset { t.usd_in } else { t.usd_out };
    let ton = if data.graph.asset(asset).asset.is_native() {
        1.0
    } else if t.ton_usd > 0.0 {
        usd / t.ton_usd
    } else {
        0.0
    };
    (usd, ton)
}

fn coin_stats(data: &MarketData, c: &CoinEntry, trades: &[usize], now: i64, liquidity: Money) -> CoinStats {
    let mut s = CoinStats { liquidity, ..CoinStats::default() };
    let Some(&last) = trades.last() else { return s };
    let (usd, ton) = trade_prices(data, &data.trades[last], c.id);
    s.usd = Some(usd);
    s.ton = Some(ton);
    let dec = data.graph.asset(c.id).decimals;
    s.market_cap = Some(whole(c.circulating_supply, dec) * usd);
    s.fdv = Some(whole(c.total_supply, dec) * usd);
    for (k, p) in PERIODS.iter().enumerate() {
        let from = now - p.seconds();
        let prev = from - p.seconds();
        // Price at the period's start: the last trade at or before it, else the first trade inside it.
        let before = trades.iter().rev().find(|&&i| data.trades[i].time <= from);
        let first_inside = trades.iter().find(|&&i| data.trades[i].time > from);
        if let Some(&i) = before.or(first_inside) {
            let (u0, t0) = trade_prices(data, &data.trades[i], c.id);
            s.usd_change[k] = pct_change(usd, u0);
            s.ton_change[k] = pct_change(ton, t0);
        }
        let mut buyers = BTreeSet::new();
        let mut sellers = BTreeSet::new();
        let mut prev_volume = Money::ZERO;
        for &i in trades {
            let t = &data.trades[i];
            if t.time > prev && t.time <= from {
                prev_volume += t.volume_usd;
            }
            if t.time <= from {
                continue;
            }
            s.volume[k] += t.volume_usd;
            if t.asset_out == c.id {
                s.buy_volume[k] += t.volume_usd;
                s.buys[k] += 1.0;
                buyers.insert(t.trader);
            } else {
                s.sell_volume[k] += t.volume_usd;
                s.sells[k] += 1.0;
                sellers.insert(t.trader);
            }
        }
        s.volume_change[k] = pct_change(s.volume[k].to_f64(), prev_volume.to_f64());
        s.buyers[k] = buyers.len() as f64;
        s.sellers[k] = sellers.len() as f64;
        s.traders[k] = buyers.union(&sellers).count() as f64;
    }
    for &i in trades {
        let t = &data.trades[i];
        let (u, _) = trade_prices(data, t, c.id);
        if s.ath.is_none_or(|(p, _)| u > p) {
            s.ath = Some((u, t.time));
        }
        if s.atl.is_none_or(|(p, _)| u < p) {
            s.atl = Some((u, t.time));
        }
        for (window, slot) in [(7 * 86_400, &mut s.high_low_7d), (30 * 86_400, &mut s.high_low_30d)] {
            if t.time > now - window {
                *slot = Some(match *slot {
                    None => (u, u),
                    Some((h, l)) => (h.max(u), l.min(u)),
                });
            }
        }
        s.total_volume_usd += t.volume_usd;
        s.total_volume_ton += t.volume_ton();
    }
    s
}

pub(crate) fn metadata(data: &MarketData, asset: AssetId, usd: Option<f64>) -> CoinMetadata {
    let m = data.graph.asset(asset);
    let record = data.coin_index.get(&m.asset).map(|&i| &data.coins[i].record);
    CoinMetadata {
        name: m.name.clone(),
        ticker: m.symbol.clone(),
        decimals: i32::from(m.decimals),
        description: record.and_then(|r| r.description.clone()),
        image_url: m.image.clone(),
        social_links: record.filter(|r| !r.social_links.is_empty()).map(|r| r.social_links.clone()),
        usd_price: usd.or(m.usd_price).map(LargeFloat::from_f64),
    }
}

impl PoolStats {
    /// Indices into [`MarketData::rewards`] of the pool's active programs.
    pub fn rewards_list(&self) -> &[usize] {
        &self.rewards
    }

    /// Protocol fees kept over the sample, per asset (contract order).
    pub fn protocol_fees(&self) -> [u128; 2] {
        self.protocol_fees
    }

    /// 24 h amounts traded, per asset (contract order, smallest units).
    pub fn volume_units(&self) -> [u128; 2] {
        self.volume_units
    }

    /// Time of the last trade.
    pub fn last_activity(&self) -> Option<i64> {
        self.last_activity
    }
}

impl MarketView {
    /// Reference USD price of an asset at now.
    pub fn usd_price(&self, asset: AssetId) -> f64 {
        self.usd_prices[asset.index()]
    }

    /// CoinMetadata of any asset of the graph (the coin's last trade price when it has one).
    pub fn metadata_of(&self, asset: AssetId) -> CoinMetadata {
        let usd = self.data.coin_index.get(&self.data.graph.asset(asset).asset).and_then(|&i| self.coin_stats[i].usd);
        metadata(&self.data, asset, usd.or(Some(self.usd_prices[asset.index()])))
    }
}
