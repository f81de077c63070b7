//! The market-data operations as pure functions over a [`MarketView`]: a loaded [`MarketData`] seen at a
//! given "now" (an input, never a clock). Every statistic is computed from the replayed trades at or before
//! now and from the pools' reserves at that moment.
//!
//! Owns the meaning of each operation's parameters and the statistics; must not do I/O or parse HTTP (the
//! server hands in decoded query pairs). Choices the spec leaves open are listed in the `market` module.

use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::sync::Arc;

use tonlib_core::TonAddress;

use super::data::{whole, CoinEntry, MarketData, Trade};
use super::params::{parse_address, parse_asset, Params};
use super::types::*;
use crate::api::{ApiError, ErrorCode};
use crate::asset::Asset;
use crate::graph::{AssetId, PoolId, Protocol};

const PERIODS: [StatPeriod; 5] = [StatPeriod::M15, StatPeriod::H1, StatPeriod::H6, StatPeriod::H24, StatPeriod::D7];

/// A user-friendly bounceable address (contracts: pools, accounts, masters).
pub fn friendly(a: &TonAddress) -> String {
    a.to_base64_url()
}

/// A user-friendly non-bounceable address (wallets).
pub fn friendly_wallet(a: &TonAddress) -> String {
    a.to_base64_url_flags(true, false)
}

fn period_data(f: impl Fn(StatPeriod) -> f64) -> PeriodData {
    PeriodData {
        m15: f(StatPeriod::M15),
        h1: f(StatPeriod::H1),
        h6: f(StatPeriod::H6),
        h24: f(StatPeriod::H24),
        d7: f(StatPeriod::D7),
    }
}

fn period_large(f: impl Fn(StatPeriod) -> f64) -> PeriodDataLarge {
    let d = period_data(f);
    PeriodDataLarge {
        m15: LargeFloat::from_f64(d.m15),
        h1: LargeFloat::from_f64(d.h1),
        h6: LargeFloat::from_f64(d.h6),
        h24: LargeFloat::from_f64(d.h24),
        d7: LargeFloat::from_f64(d.d7),
    }
}

fn pick(p: StatPeriod, v: &[f64; 5]) -> f64 {
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
    usd_change: [f64; 5],
    ton_change: [f64; 5],
    volume: [f64; 5],
    buy_volume: [f64; 5],
    sell_volume: [f64; 5],
    volume_change: [f64; 5],
    buys: [f64; 5],
    sells: [f64; 5],
    traders: [f64; 5],
    buyers: [f64; 5],
    sellers: [f64; 5],
    ath: Option<(f64, i64)>,
    atl: Option<(f64, i64)>,
    high_low_7d: Option<(f64, f64)>,
    high_low_30d: Option<(f64, f64)>,
    total_volume_usd: f64,
    total_volume_nanoton: u128,
    /// Liquidity in USD (sum of the TVL of the coin's pools).
    pub liquidity: f64,
    /// Market cap in USD (circulating supply at the last price).
    pub market_cap: Option<f64>,
    fdv: Option<f64>,
}

impl CoinStats {
    /// Trade count (buys + sells) over a period.
    pub fn transactions(&self, p: StatPeriod) -> f64 {
        pick(p, &self.buys) + pick(p, &self.sells)
    }

    /// USD volume over a period.
    pub fn volume(&self, p: StatPeriod) -> f64 {
        pick(p, &self.volume)
    }
}

/// Figures of a pool at now.
#[derive(Debug, Clone, Default)]
pub struct PoolStats {
    /// Reserves at now.
    pub reserves: [u128; 2],
    /// TVL, USD.
    pub tvl_usd: f64,
    /// 24 h volume, USD.
    pub volume_24h_usd: f64,
    /// 24 h fees, USD.
    pub fees_24h_usd: f64,
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
        let reserves = data.reserves_at(now);
        let usd_prices = data.usd_prices(&reserves);
        let mut pool_stats: Vec<PoolStats> = (0..g.pool_count())
            .map(|i| {
                let meta = &g.pools()[i];
                let r = reserves[i];
                let tvl_usd = (0..2)
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
                        s.fees_24h_usd += t.volume_usd * fee;
                    }
                }
                if s.tvl_usd > 0.0 {
                    s.apr_fees = s.fees_24h_usd * 365.0 / s.tvl_usd * 100.0;
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
            if s.tvl_usd > 0.0 {
                s.apr_rewards += per_day_usd * 365.0 / s.tvl_usd * 100.0;
            }
        }
        let mut liquidity = vec![0.0; g.asset_count()];
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
        MarketView { data, now, visible, by_asset, by_pool, usd_prices, coin_stats, pool_stats }
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
}

/// USD and TON price of `asset` in trade `t`.
fn trade_prices(data: &MarketData, t: &Trade, asset: AssetId) -> (f64, f64) {
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

fn coin_stats(data: &MarketData, c: &CoinEntry, trades: &[usize], now: i64, liquidity: f64) -> CoinStats {
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
        let mut prev_volume = 0.0;
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
        s.volume_change[k] = pct_change(s.volume[k], prev_volume);
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
        // Display figure: the TON volume rounded to whole nanotons.
        s.total_volume_nanoton += (t.volume_ton() * 1e9) as u128;
    }
    s
}

fn metadata(data: &MarketData, asset: AssetId, usd: Option<f64>) -> CoinMetadata {
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

/// What a coin answer includes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CoinOptions {
    /// `extra_details`.
    pub extra_details: bool,
    /// `memecoin_extra_details`.
    pub memecoin_extra_details: bool,
    /// `calculate_total_volume`.
    pub total_volume: bool,
    /// `compact`.
    pub compact: bool,
}

impl MarketView {
    fn coin(&self, index: usize, o: CoinOptions) -> Coin {
        let data = &self.data;
        let c = &data.coins[index];
        let s = &self.coin_stats[index];
        let dec = data.graph.asset(c.id).decimals;
        let price = match (s.usd, s.ton) {
            (Some(u), Some(t)) => Some(PriceInfo {
                usd_value: LargeFloat::from_f64(u),
                ton_value: LargeFloat::from_f64(t),
                usd_change: (!o.compact).then(|| period_data(|p| pick(p, &s.usd_change))),
                ton_change: (!o.compact).then(|| period_data(|p| pick(p, &s.ton_change))),
            }),
            _ => None,
        };
        let mut coin = Coin {
            asset: c.asset.to_string(),
            metadata: metadata(data, c.id, s.usd),
            price,
            ath_date: None,
            atl_date: None,
            ath_usd: None,
            atl_usd: None,
            ath_market_cap_usd: None,
            atl_market_cap_usd: None,
            buy_tax: None,
            sell_tax: None,
            circulating_supply: None,
            total_supply: None,
            created_at: None,
            extra_details: None,
            memecoin_extra_details: None,
            fully_diluted_market_cap: None,
            liquidity: Some(LargeFloat::from_f64(s.liquidity)),
            market_cap: s.market_cap.map(LargeFloat::from_f64),
            holders: None,
            tags: None,
            traders: None,
            transactions: None,
            verification_level: Some(i32::from(c.record.verification_level)),
            volume: None,
        };
        if !o.compact {
            let circ = whole(c.circulating_supply, dec);
            coin.ath_usd = s.ath.map(|(p, _)| LargeFloat::from_f64(p));
            coin.ath_date = s.ath.and_then(|(_, t)| DateTime::from_unix(t));
            coin.ath_market_cap_usd = s.ath.map(|(p, _)| LargeFloat::from_f64(p * circ));
            coin.atl_usd = s.atl.map(|(p, _)| LargeFloat::from_f64(p));
            coin.atl_date = s.atl.and_then(|(_, t)| DateTime::from_unix(t));
            coin.atl_market_cap_usd = s.atl.map(|(p, _)| LargeFloat::from_f64(p * circ));
            coin.buy_tax = Some(i32::from(c.record.buy_tax));
            coin.sell_tax = Some(i32::from(c.record.sell_tax));
            coin.circulating_supply = Some(LargeInteger::from(c.circulating_supply));
            coin.total_supply = Some(LargeInteger::from(c.total_supply));
            coin.created_at = Some(c.record.created_at);
            coin.fully_diluted_market_cap = s.fdv.map(LargeFloat::from_f64);
            coin.holders = i64::try_from(c.record.holders).ok();
            coin.tags = Some(c.record.tags.clone());
            coin.traders = Some(TradersInfo {
                total: period_data(|p| pick(p, &s.traders)),
                buy: period_data(|p| pick(p, &s.buyers)),
                sell: period_data(|p| pick(p, &s.sellers)),
            });
            coin.transactions = Some(TransactionsInfo {
                buy: period_data(|p| pick(p, &s.buys)),
                sell: period_data(|p| pick(p, &s.sells)),
            });
            coin.volume = Some(VolumeInfo {
                periods: period_large(|p| pick(p, &s.volume)),
                buy_periods: period_large(|p| pick(p, &s.buy_volume)),
                sell_periods: period_large(|p| pick(p, &s.sell_volume)),
                change: period_data(|p| pick(p, &s.volume_change)),
                total_volume: o.total_volume.then(|| TotalVolume {
                    usd: LargeFloat::from_f64(s.total_volume_usd),
                    ton: LargeInteger::from(s.total_volume_nanoton),
                }),
            });
        }
        if o.extra_details {
            let weight = |i: usize| if s.liquidity > 0.0 { self.pool_stats[i].tvl_usd / s.liquidity } else { 0.0 };
            let mut trading: Vec<usize> =
                (0..data.graph.pool_count()).filter(|&i| data.graph.pools()[i].assets.contains(&c.id)).collect();
            // Deepest first; ties by pool order so the answer is stable.
            trading.sort_by(|&a, &b| self.pool_stats[b].tvl_usd.total_cmp(&self.pool_stats[a].tvl_usd).then(a.cmp(&b)));
            let total = trading.len();
            let rest: f64 = trading.iter().skip(CoinExtraDetails::MAX_POOLS).map(|&i| weight(i)).sum();
            let pools: Vec<LiquidityPool> = trading
                .into_iter()
                .take(CoinExtraDetails::MAX_POOLS)
                .map(|i| {
                    let p = &data.graph.pools()[i];
                    LiquidityPool {
                        pool_address: friendly(&p.address),
                        pool_type: p.protocol.slug().to_string(),
                        asset0: data.graph.asset(p.assets[0]).asset.to_string(),
                        asset1: data.graph.asset(p.assets[1]).asset.to_string(),
                        weight: LargeFloat::from_f64(weight(i)),
                    }
                })
                .collect();
            coin.extra_details = Some(CoinExtraDetails {
                high_30d: s.high_low_30d.map(|(h, _)| LargeFloat::from_f64(h)),
                low_30d: s.high_low_30d.map(|(_, l)| LargeFloat::from_f64(l)),
                high_7d: s.high_low_7d.map(|(h, _)| LargeFloat::from_f64(h)),
                low_7d: s.high_low_7d.map(|(_, l)| LargeFloat::from_f64(l)),
                liquidity_pools: Some(pools),
                liquidity_pools_total: Some(i32::try_from(total).unwrap_or(i32::MAX)),
                liquidity_pools_rest_weight: Some(LargeFloat::from_f64(rest)),
            });
        }
        if o.memecoin_extra_details {
            coin.memecoin_extra_details = c.record.memepad.as_ref().map(|m| MemeCoinExtraDetails {
                curve_ton_collected: LargeInteger::new(m.curve_ton_collected.clone())
                    .unwrap_or_else(|_| LargeInteger::from(0u64)),
                curve_ton_max: LargeInteger::new(m.curve_ton_max.clone()).unwrap_or_else(|_| LargeInteger::from(0u64)),
                author: friendly_wallet(&c.author),
                memepad: m.memepad.clone(),
                contract_type: m.contract_type.clone(),
                migration_date: m.migration_date,
            });
        }
        coin
    }

    fn coin_index(&self, asset: &Asset) -> Option<usize> {
        self.data.coin_index.get(asset).copied()
    }

    /// `GET /coin`.
    pub fn get_coin(&self, pairs: &[(String, String)]) -> Result<Coin, ApiError> {
        let mut p = Params::new(pairs)?;
        let asset = parse_asset("asset", p.required("asset")?)?;
        let extra_details = p.bool("extra_details", false)?;
        let memecoin_extra_details = p.bool("memecoin_extra_details", false)?;
        p.finish()?;
        let index = self
            .coin_index(&asset)
            .ok_or_else(|| ApiError::new(ErrorCode::CoinNotFound, format!("coin {asset} not found")))?;
        Ok(self.coin(index, CoinOptions { extra_details, memecoin_extra_details, ..CoinOptions::default() }))
    }
}

fn inverted(name: &str, min: f64, max: f64, strict: bool) -> Result<(), ApiError> {
    if min > max || (strict && min >= max) {
        let rule = if strict { "less than" } else { "at most" };
        return Err(ApiError::new(
            ErrorCode::MarketInvertedRange,
            format!("`{name}_min` ({min}) must be {rule} `{name}_max` ({max})"),
        ));
    }
    Ok(())
}

fn range_f(
    p: &mut Params<'_>,
    name: &'static str,
    min: &'static str,
    max: &'static str,
) -> Result<(Option<f64>, Option<f64>), ApiError> {
    let (lo, hi) = (p.large_float(min)?, p.large_float(max)?);
    if let (Some(a), Some(b)) = (lo, hi) {
        inverted(name, a, b, false)?;
    }
    Ok((lo, hi))
}

fn within(v: f64, lo: Option<f64>, hi: Option<f64>) -> bool {
    lo.is_none_or(|l| v >= l) && hi.is_none_or(|h| v <= h)
}

fn sort_floats(a: Option<f64>, b: Option<f64>, dir: SortDirection) -> Ordering {
    // Missing values go last in either direction.
    match (a, b) {
        (Some(x), Some(y)) => match dir {
            SortDirection::Asc => x.total_cmp(&y),
            SortDirection::Desc => y.total_cmp(&x),
        },
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

const COIN_SORTS: &str =
    "price, market_cap, liquidity, holders, age, price_change, transactions, volume, curve_progress";
const STAT_PERIODS: &str = "15m, 1h, 6h, 24h, 7d";

impl MarketView {
    /// `GET /coins`.
    pub fn get_coins(&self, pairs: &[(String, String)]) -> Result<CoinsResponse, ApiError> {
        let mut p = Params::new(pairs)?;
        let query = p.text("query").map(str::trim).filter(|q| !q.is_empty());
        let limit = p.int("limit", 20, 1, 500)?;
        let offset = p.int("offset", 0, 0, i32::MAX)?;
        let sort_by = p.enumeration("sort_by", CoinSortBy::parse, COIN_SORTS)?;
        let sort_period = p.enumeration("sort_period", StatPeriod::parse, STAT_PERIODS)?;
        let dir = p.enumeration("sort_direction", SortDirection::parse, "asc, desc")?.unwrap_or(SortDirection::Desc);
        let filter_assets = p.assets("filter_by_assets")?;
        let levels: Vec<u8> = match p.list("filter_by_verification_level")? {
            None => vec![3, 4],
            Some(items) => items
                .iter()
                .map(|s| {
                    s.parse::<u8>().ok().filter(|l| (1..=4).contains(l)).ok_or_else(|| {
                        ApiError::new(
                            ErrorCode::MarketBadParameter,
                            format!("parameter `filter_by_verification_level`: `{s}` is not a level 1 to 4"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let exclude_tags = p.list("exclude_tags")?;
        let filter_tags = p.list("filter_by_tags")?;
        let exclude_assets = p.assets("exclude_assets")?;
        let compact = p.bool("compact", false)?;
        let author = p.address("filter_by_author")?;
        let memecoin_extra_details = p.bool("memecoin_extra_details", false)?;
        let total_volume = p.bool("calculate_total_volume", false)?;
        let liquidity = range_f(&mut p, "liquidity_usd", "liquidity_usd_min", "liquidity_usd_max")?;
        let holders = (p.large_int("holders_min")?, p.large_int("holders_max")?);
        if let (Some(a), Some(b)) = holders {
            if a > b {
                return Err(ApiError::new(
                    ErrorCode::MarketInvertedRange,
                    "`holders_min` must be at most `holders_max`",
                ));
            }
        }
        let market_cap = range_f(&mut p, "market_cap_usd", "market_cap_usd_min", "market_cap_usd_max")?;
        let created = (p.date("created_at_min")?, p.date("created_at_max")?);
        if let (Some(a), Some(b)) = created {
            if a > b {
                return Err(ApiError::new(
                    ErrorCode::MarketInvertedRange,
                    "`created_at_min` must be at most `created_at_max`",
                ));
            }
        }
        let filter_period = p.enumeration("filter_period", StatPeriod::parse, STAT_PERIODS)?;
        let volume = range_f(&mut p, "volume_usd", "volume_usd_min", "volume_usd_max")?;
        let txs = (p.large_int("transactions_min")?, p.large_int("transactions_max")?);
        if let (Some(a), Some(b)) = txs {
            if a > b {
                return Err(ApiError::new(
                    ErrorCode::MarketInvertedRange,
                    "`transactions_min` must be at most `transactions_max`",
                ));
            }
        }
        let skip_total_count = p.bool("skip_total_count", false)?;
        let curve = range_f(
            &mut p,
            "bonding_curve_percentage",
            "bonding_curve_percentage_min",
            "bonding_curve_percentage_max",
        )?;
        for v in [curve.0, curve.1].into_iter().flatten() {
            if !(0.0..=100.0).contains(&v) {
                return Err(ApiError::new(
                    ErrorCode::MarketValueOutOfRange,
                    format!("bonding curve percentage {v} is outside 0 to 100"),
                ));
            }
        }
        let include_without_price = p.bool("include_without_price", false)?;
        p.finish()?;

        let uses_period_filter = volume.0.is_some() || volume.1.is_some() || txs.0.is_some() || txs.1.is_some();
        if uses_period_filter && filter_period.is_none() {
            return Err(ApiError::new(
                ErrorCode::MarketPeriodRequired,
                "`filter_period` is required with volume_usd_min/max or transactions_min/max",
            ));
        }
        let needs_sort_period =
            matches!(sort_by, Some(CoinSortBy::PriceChange | CoinSortBy::Volume | CoinSortBy::Transactions));
        if needs_sort_period && sort_period.is_none() {
            return Err(ApiError::new(
                ErrorCode::MarketPeriodRequired,
                "`sort_period` is required when sort_by is price_change, volume or transactions",
            ));
        }

        let query_asset = query.and_then(|q| Asset::parse(q).ok());
        let query_lower = query.map(str::to_lowercase);
        let data = &self.data;
        let mut matches: Vec<usize> = (0..data.coins.len())
            .filter(|&i| {
                let c = &data.coins[i];
                let s = &self.coin_stats[i];
                let meta = data.graph.asset(c.id);
                let r = &c.record;
                if !include_without_price && s.usd.is_none() {
                    return false;
                }
                if let Some(q) = &query_lower {
                    let hit = meta.name.to_lowercase().contains(q.as_str())
                        || meta.symbol.to_lowercase().contains(q.as_str())
                        || query_asset == Some(c.asset);
                    if !hit {
                        return false;
                    }
                }
                if filter_assets.as_ref().is_some_and(|f| !f.contains(&c.asset))
                    || exclude_assets.as_ref().is_some_and(|f| f.contains(&c.asset))
                    || !levels.contains(&r.verification_level)
                    || exclude_tags.as_ref().is_some_and(|t| r.tags.iter().any(|x| t.contains(&x.as_str())))
                    || filter_tags.as_ref().is_some_and(|t| !t.iter().all(|x| r.tags.iter().any(|y| y == x)))
                    || author.as_ref().is_some_and(|a| *a != c.author)
                    || !within(s.liquidity, liquidity.0, liquidity.1)
                {
                    return false;
                }
                let h = i128::from(r.holders);
                if holders.0.is_some_and(|m| h < m) || holders.1.is_some_and(|m| h > m) {
                    return false;
                }
                if market_cap.0.is_some() || market_cap.1.is_some() {
                    match s.market_cap {
                        Some(m) if within(m, market_cap.0, market_cap.1) => {}
                        _ => return false,
                    }
                }
                let t = r.created_at.unix();
                if created.0.is_some_and(|m| t < m) || created.1.is_some_and(|m| t > m) {
                    return false;
                }
                if let Some(fp) = filter_period {
                    if !within(s.volume(fp), volume.0, volume.1) {
                        return false;
                    }
                    let n = s.transactions(fp) as i128;
                    if txs.0.is_some_and(|m| n < m) || txs.1.is_some_and(|m| n > m) {
                        return false;
                    }
                }
                if curve.0.is_some() || curve.1.is_some() {
                    match c.curve_progress {
                        Some(v) if within(v, curve.0, curve.1) => {}
                        _ => return false,
                    }
                }
                true
            })
            .collect();

        let sp = sort_period.unwrap_or(StatPeriod::H24);
        let key = |i: usize| -> Option<f64> {
            let s = &self.coin_stats[i];
            let c = &data.coins[i];
            match sort_by.unwrap_or(CoinSortBy::Liquidity) {
                CoinSortBy::Price => s.usd,
                CoinSortBy::MarketCap => s.market_cap,
                CoinSortBy::Liquidity => Some(s.liquidity),
                CoinSortBy::Holders => Some(c.record.holders as f64),
                CoinSortBy::Age => Some((self.now - c.record.created_at.unix()) as f64),
                CoinSortBy::PriceChange => s.usd.map(|_| pick(sp, &s.usd_change)),
                CoinSortBy::Transactions => Some(s.transactions(sp)),
                CoinSortBy::Volume => Some(s.volume(sp)),
                CoinSortBy::CurveProgress => c.curve_progress,
            }
        };
        matches.sort_by(|&a, &b| {
            sort_floats(key(a), key(b), dir).then_with(|| data.coins[a].asset.cmp(&data.coins[b].asset))
        });
        let total = matches.len();
        let options = CoinOptions { extra_details: false, memecoin_extra_details, total_volume, compact };
        let items = page(&matches, offset, limit).iter().map(|&i| self.coin(i, options)).collect();
        Ok(CoinsResponse { items, total_count: (!skip_total_count).then(|| i64::try_from(total).unwrap_or(i64::MAX)) })
    }
}

fn page<T>(items: &[T], offset: i32, limit: i32) -> &[T] {
    // Both were range-checked as non-negative.
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(items.len());
    let end = start.saturating_add(usize::try_from(limit).unwrap_or(0)).min(items.len());
    &items[start..end]
}

impl MarketView {
    fn coin_transaction(&self, t: &Trade, coin: AssetId) -> CoinTransaction {
        let g = &self.data.graph;
        let meta = g.pool(t.pool);
        let (usd, ton) = trade_prices(&self.data, t, coin);
        let (ain, aout) = (g.asset(t.asset_in), g.asset(t.asset_out));
        let (pool_type, platform) = match meta.protocol {
            Protocol::DexA => (PoolType::DexA, Platform::DexA),
            Protocol::DexBV1 => (PoolType::DexBV1, Platform::DexB),
            Protocol::DexBV2 => (PoolType::DexBV2, Platform::DexB),
            // The spec's pool-type list has no dex_c value; its platform list does. A dex_c trade is labelled
            // dex_c in both (an extension of the pool-type list, README "Market data").
            Protocol::DexC => (PoolType::DexC, Platform::DexC),
        };
        CoinTransaction {
            trade_date: DateTime::from_unix(t.time).unwrap_or(DateTime(time::OffsetDateTime::UNIX_EPOCH)),
            pool_address: friendly(&meta.address),
            pool_type,
            trade_asset_in: ain.asset.to_string(),
            trade_asset_out: aout.asset.to_string(),
            trade_asset_in_amount: LargeInteger::from(t.amount_in),
            trade_asset_out_amount: LargeInteger::from(t.amount_out),
            trade_asset_in_ticker: ain.symbol.clone(),
            trade_asset_out_ticker: aout.symbol.clone(),
            trade_asset_in_decimals: i32::from(ain.decimals),
            trade_asset_out_decimals: i32::from(aout.decimals),
            kind: if t.asset_out == coin { TradeType::Buy } else { TradeType::Sell },
            price_usd: LargeFloat::from_f64(usd),
            price_ton: LargeFloat::from_f64(ton),
            volume_usd: LargeFloat::from_f64(t.volume_usd),
            volume_ton: LargeFloat::from_f64(t.volume_ton()),
            trader_address: friendly_wallet(&self.data.traders[t.trader]),
            platform,
            tx_hash: Some(t.tx_hash.clone()),
        }
    }

    /// `GET /coin_transactions`.
    pub fn get_coin_transactions(&self, pairs: &[(String, String)]) -> Result<CoinTransactionsResponse, ApiError> {
        let mut p = Params::new(pairs)?;
        let asset = parse_asset("asset", p.required("asset")?)?;
        let pool = p.address("pool_address")?;
        let trader = p.address("trader_address")?;
        let limit = p.int("limit", 20, 1, 100)?;
        let offset = p.int("offset", 0, 0, i32::MAX)?;
        let (start, end) = (p.date("start_date")?, p.date("end_date")?);
        if let (Some(a), Some(b)) = (start, end) {
            if a > b {
                return Err(ApiError::new(ErrorCode::MarketInvertedRange, "`start_date` must be at most `end_date`"));
            }
        }
        let (vmin, vmax) = (p.large_float("volume_usd_min")?, p.large_float("volume_usd_max")?);
        if let (Some(a), Some(b)) = (vmin, vmax) {
            inverted("volume_usd", a, b, true)?;
        }
        let kind = p.enumeration("type", TradeType::parse, "buy, sell")?;
        let _ = p.enumeration("sort_by", TxSortBy::parse, "age")?;
        let dir = p.enumeration("sort_direction", SortDirection::parse, "asc, desc")?.unwrap_or(SortDirection::Desc);
        p.finish()?;
        let ci = self
            .coin_index(&asset)
            .ok_or_else(|| ApiError::new(ErrorCode::CoinNotFound, format!("asset {asset} not found")))?;
        let coin = self.data.coins[ci].id;
        let pool_id = pool.map(|a| self.data.graph.pool_id(&a));
        let trader_id = trader.map(|a| self.data.trader_index.get(&a).copied());
        let mut hits: Vec<&Trade> = self.by_asset[coin.index()]
            .iter()
            .map(|&i| &self.data.trades[i])
            .filter(|t| {
                pool_id.is_none_or(|p| p == Some(t.pool))
                    && trader_id.is_none_or(|w| w == Some(t.trader))
                    && start.is_none_or(|s| t.time >= s)
                    && end.is_none_or(|e| t.time <= e)
                    && vmin.is_none_or(|v| t.volume_usd >= v)
                    && vmax.is_none_or(|v| t.volume_usd <= v)
                    && kind.is_none_or(|k| (k == TradeType::Buy) == (t.asset_out == coin))
            })
            .collect();
        if dir == SortDirection::Desc {
            // Trades are stored in time order; equal times keep file order reversed, which is still stable.
            hits.reverse();
        }
        Ok(CoinTransactionsResponse {
            items: page(&hits, offset, limit).iter().map(|t| self.coin_transaction(t, coin)).collect(),
        })
    }
}

/// Aggregates `(time, price, volume)` points (in time order) into candles of `period` between the inclusive
/// bounds, keeping the last `limit`. `open` is the previous candle's close (the first trade's price for the
/// first candle); `raw_open` the bucket's first trade. Buckets without trades are absent.
pub fn candles(
    points: impl Iterator<Item = (i64, f64, f64)>,
    period: ChartPeriod,
    start: Option<i64>,
    end: Option<i64>,
    limit: usize,
) -> Vec<Hlocv> {
    struct C {
        time: i64,
        raw_open: f64,
        high: f64,
        low: f64,
        close: f64,
        volume: f64,
    }
    let len = period.seconds();
    let mut out: Vec<C> = Vec::new();
    for (t, price, volume) in points {
        if start.is_some_and(|s| t < s) || end.is_some_and(|e| t > e) {
            continue;
        }
        let bucket = t.div_euclid(len) * len;
        match out.last_mut() {
            Some(c) if c.time == bucket => {
                c.high = c.high.max(price);
                c.low = c.low.min(price);
                c.close = price;
                c.volume += volume;
            }
            _ => out.push(C { time: bucket, raw_open: price, high: price, low: price, close: price, volume }),
        }
    }
    let mut prev_close = None;
    let all: Vec<Hlocv> = out
        .into_iter()
        .map(|c| {
            let open = prev_close.unwrap_or(c.raw_open);
            prev_close = Some(c.close);
            Hlocv {
                time: c.time,
                open: LargeFloat::from_f64(open),
                raw_open: LargeFloat::from_f64(c.raw_open),
                high: LargeFloat::from_f64(c.high.max(open)),
                low: LargeFloat::from_f64(c.low.min(open)),
                close: LargeFloat::from_f64(c.close),
                volume: LargeFloat::from_f64(c.volume),
            }
        })
        .collect();
    let skip = all.len().saturating_sub(limit);
    all.into_iter().skip(skip).collect()
}

const CHART_PERIODS: &str = "1s, 1m, 5m, 15m, 30m, 1h, 4h, 6h, 12h, 1d, 7d";

struct ChartCommon {
    period: ChartPeriod,
    start: Option<i64>,
    end: Option<i64>,
    limit: usize,
}

fn chart_common(p: &mut Params<'_>) -> Result<ChartCommon, ApiError> {
    let period = p.required("period")?;
    let period = ChartPeriod::parse(period).ok_or_else(|| {
        ApiError::new(
            ErrorCode::MarketBadParameter,
            format!("parameter `period`: `{period}` is not one of {CHART_PERIODS}"),
        )
    })?;
    let (start, end) = (p.date("start_date")?, p.date("end_date")?);
    if let (Some(a), Some(b)) = (start, end) {
        if a > b {
            return Err(ApiError::new(ErrorCode::MarketInvertedRange, "`start_date` must be at most `end_date`"));
        }
    }
    let limit = p.int("limit", 1000, 1, 5000)?;
    Ok(ChartCommon { period, start, end, limit: usize::try_from(limit).unwrap_or(1000) })
}

impl MarketView {
    fn amount_of(&self, t: &Trade, asset: AssetId) -> f64 {
        let amount = if t.asset_in == asset { t.amount_in } else { t.amount_out };
        whole(amount, self.data.graph.asset(asset).decimals)
    }

    /// `GET /chart`.
    pub fn get_chart(&self, pairs: &[(String, String)]) -> Result<ChartResponse, ApiError> {
        let mut p = Params::new(pairs)?;
        let c = chart_common(&mut p)?;
        let asset = parse_asset("asset", p.required("asset")?)?;
        let opposite = match p.text("opposite_asset") {
            Some(v) => Some(parse_asset("opposite_asset", v)?),
            None => None,
        };
        let _ = p.bool("use_materialized", false)?;
        p.finish()?;
        if opposite == Some(asset) {
            return Err(ApiError::new(ErrorCode::MarketValueOutOfRange, "`opposite_asset` equals `asset`"));
        }
        let g = &self.data.graph;
        let Some(id) = g.asset_id(&asset) else {
            return Ok(ChartResponse { ton_hlocv: vec![], usd_hlocv: vec![], opposite_asset_hlocv: vec![] });
        };
        let trades = &self.by_asset[id.index()];
        let at = |i: &usize| &self.data.trades[*i];
        let usd = candles(
            trades.iter().map(|i| {
                let t = at(i);
                (t.time, trade_prices(&self.data, t, id).0, t.volume_usd)
            }),
            c.period,
            c.start,
            c.end,
            c.limit,
        );
        let ton = candles(
            trades.iter().map(|i| {
                let t = at(i);
                (t.time, trade_prices(&self.data, t, id).1, t.volume_ton())
            }),
            c.period,
            c.start,
            c.end,
            c.limit,
        );
        let opp = match opposite.and_then(|o| g.asset_id(&o)) {
            Some(o) => candles(
                trades.iter().map(at).filter(|t| t.asset_in == o || t.asset_out == o).map(|t| {
                    let (a, b) = (self.amount_of(t, id), self.amount_of(t, o));
                    (t.time, if a > 0.0 { b / a } else { 0.0 }, b)
                }),
                c.period,
                c.start,
                c.end,
                c.limit,
            ),
            None => vec![],
        };
        Ok(ChartResponse { ton_hlocv: ton, usd_hlocv: usd, opposite_asset_hlocv: opp })
    }

    /// `GET /chart_by_pool_address`.
    pub fn get_chart_by_pool_address(
        &self,
        pairs: &[(String, String)],
    ) -> Result<ChartByPoolAddressResponse, ApiError> {
        let mut p = Params::new(pairs)?;
        let c = chart_common(&mut p)?;
        let asset = parse_asset("asset", p.required("asset")?)?;
        let pool = parse_address("pool_address", p.required("pool_address")?)?;
        p.finish()?;
        let g = &self.data.graph;
        let Some(pid) = g.pool_id(&pool) else {
            return Ok(ChartByPoolAddressResponse { hlocv: vec![], opposite_asset_hlocv: vec![] });
        };
        let meta = g.pool(pid);
        let id = g.asset_id(&asset).filter(|a| meta.assets.contains(a)).ok_or_else(|| {
            ApiError::new(ErrorCode::MarketValueOutOfRange, format!("asset {asset} is not one of the pool's assets"))
        })?;
        let other = if meta.assets[0] == id { meta.assets[1] } else { meta.assets[0] };
        let trades: Vec<&Trade> = self.by_pool[pid.index()].iter().map(|i| &self.data.trades[*i]).collect();
        let series = |of: AssetId, per: AssetId| {
            candles(
                trades.iter().map(|t| {
                    let (a, b) = (self.amount_of(t, of), self.amount_of(t, per));
                    (t.time, if a > 0.0 { b / a } else { 0.0 }, t.volume_usd)
                }),
                c.period,
                c.start,
                c.end,
                c.limit,
            )
        };
        Ok(ChartByPoolAddressResponse { hlocv: series(id, other), opposite_asset_hlocv: series(other, id) })
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

impl MarketView {
    /// `GET /coins/{asset}/resolver`: the spec gives no body or statuses; this answers the
    /// ResolverAddressResponse with an empty address (the data has no resolvers) for a known coin, 404
    /// [`ErrorCode::CoinNotFound`] otherwise.
    pub fn get_coin_resolver(
        &self,
        asset: &str,
        pairs: &[(String, String)],
    ) -> Result<ResolverAddressResponse, ApiError> {
        Params::new(pairs)?.finish()?;
        let asset = parse_asset("asset", asset)?;
        self.coin_index(&asset)
            .ok_or_else(|| ApiError::new(ErrorCode::CoinNotFound, format!("coin {asset} not found")))?;
        Ok(ResolverAddressResponse { resolver_address: String::new() })
    }
}
