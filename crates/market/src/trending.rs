//! Trending coins (TrendingCoin): coins grouped into market-cap tiers and ranked inside each tier by a score
//! built from their volume, traders and price moves over the last hour and day. Pure and deterministic for a
//! given "now" (the store's): a store hands in the trades of the 48 hours up to now (the replay from memory,
//! the SQL store from one indexed query by time) and each coin's figures at now ([`Candidate`]).
//!
//! Owns the tiers, every formula and the order; must not read trades or prices itself or know the wire.
//!
//! # Formulas (windows are `(now − w, now]`; a ratio with a zero denominator is 0)
//!
//! - **Candidates**: listed coins with at least one trade in the last 24 h, except TON and coins tagged
//!   `stablecoin` (they move with the market, not with attention).
//! - **Tier** by market cap in USD (circulating supply × price): `nano` < $1 M ≤ `micro` < $20 M ≤ `mid` <
//!   $500 M ≤ `large`. A coin without a market cap is `nano`.
//! - `volume_usd_1h`, `volume_usd_24h`: USD volume; `traders_1h_count`, `traders_24h_count`: distinct wallets;
//!   `transactions_1h_count`: trades in the last hour.
//! - `price_usd`: the last trade's price; a trade's price of the coin is its USD volume over the coin's whole
//!   amount. `price_usd_{15m,1h,6h,24h}_change` (percent): now against the last trade at or before the period's
//!   start within the 48 h handed in, else the first trade inside the period.
//! - `vol_burst_ratio` = volume_1h / (volume_24h / 24); `tr_burst_ratio` = traders_1h / (traders_24h / 24):
//!   above 1 when the last hour is busier than the day's hourly average.
//! - `tier_median_vol_24h`, `tier_median_traders_24h`: medians over the tier's candidates (mean of the two
//!   middle values for an even count).
//! - `norm_vol_24h` = volume_24h / tier median volume; `norm_tr_24h` = traders_24h / tier median traders;
//!   `norm_vol_1h` = 24 · volume_1h / tier median volume; `norm_tr_1h` = 24 · traders_1h / tier median traders.
//! - `buy_pressure` = buy volume 24 h / volume 24 h (0..1; a buy = the coin came out of the pool).
//! - `price_acceleration` = price_usd_1h_change − price_usd_24h_change / 24 (points: the last hour against the
//!   day's hourly average move).
//! - `momentum_score` = ½ · clamp(1h change, ±50) / 50 + ½ · clamp(24h change, ±100) / 100 (−1..1).
//! - `burst_score` = ln(1 + vol_burst_ratio) + ln(1 + tr_burst_ratio).
//! - `strength_score` = ln(1 + norm_vol_24h) + ln(1 + norm_tr_24h).
//! - `vol_to_liq` = volume_24h / liquidity_usd.
//! - `quality_score` = min(1, liquidity_usd / $10,000) · (0.5 + verification_level / 8) (0..1: thin or
//!   unverified coins are damped, not removed).
//! - **`trend_score`** = quality_score · (strength_score + burst_score + max(momentum_score, 0) +
//!   buy_pressure) (≥ 0).
//! - **Order**: tiers large, mid, micro, nano; inside a tier by trend_score descending, ties by asset id;
//!   `rank_in_tier` counts from 1.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::limits::LimitRule;
use crate::money::Money;
use crate::portfolio::{MarketTier, TrendingCoin};
use crate::query::Page;
use crate::replay::view::MarketView;
use crate::traders::TraderTrade;
use crate::types::LargeFloat;
use crate::units::whole;
use tonroute_core::asset::Asset;

/// `/coins/trending`: 20 a page, at most 100.
pub const TRENDING_LIMIT: LimitRule = LimitRule { default: 20, max: 100 };
/// How far back a store hands in trades: 24 h of windows plus 24 h to find the price at the 24 h start.
pub const TRENDING_LOOKBACK: i64 = 2 * 86_400;
/// Tier bounds in USD market cap: nano below the first, large from the last.
pub const TIER_BOUNDS_USD: [f64; 3] = [1e6, 20e6, 500e6];
/// Liquidity from which a coin's quality is not damped.
pub const FULL_QUALITY_LIQUIDITY_USD: f64 = 10_000.0;

/// `/coins/trending`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrendingQuery {
    /// Only this tier.
    pub tier: Option<MarketTier>,
    /// The page.
    pub page: Page,
}

/// `{"coins": [TrendingCoin…]}` (the spec gives the item, not the wrapper; `coins` as `/coins` has).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TrendingCoinsResponse {
    /// By tier, then rank.
    pub coins: Vec<TrendingCoin>,
}

/// A coin's figures at now, from the store's view.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The coin.
    pub asset: Asset,
    /// Name.
    pub title: String,
    /// Ticker.
    pub ticker: String,
    /// Decimals.
    pub decimals: u8,
    /// Market cap, USD.
    pub market_cap_usd: Option<f64>,
    /// Liquidity, USD.
    pub liquidity_usd: Money,
    /// 0..=4.
    pub verification_level: u8,
}

/// `tier` on the wire: the spec's enumeration.
impl crate::types::Enumeration for MarketTier {
    const VALUES: &'static [MarketTier] = &[MarketTier::Nano, MarketTier::Micro, MarketTier::Mid, MarketTier::Large];

    fn text(self) -> &'static str {
        match self {
            MarketTier::Nano => "nano",
            MarketTier::Micro => "micro",
            MarketTier::Mid => "mid",
            MarketTier::Large => "large",
        }
    }
}

/// The tier of a market cap.
pub fn tier(market_cap_usd: Option<f64>) -> MarketTier {
    match market_cap_usd {
        Some(m) if m >= TIER_BOUNDS_USD[2] => MarketTier::Large,
        Some(m) if m >= TIER_BOUNDS_USD[1] => MarketTier::Mid,
        Some(m) if m >= TIER_BOUNDS_USD[0] => MarketTier::Micro,
        _ => MarketTier::Nano,
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b != 0.0 {
        a / b
    } else {
        0.0
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Activity of one coin over the windows.
#[derive(Debug, Default)]
struct Activity {
    vol_1h: Money,
    vol_24h: Money,
    buy_vol_24h: Money,
    traders_1h: BTreeSet<String>,
    traders_24h: BTreeSet<String>,
    tx_1h: i64,
    /// (time, USD price of the coin) of every trade handed in, time order.
    prices: Vec<(i64, f64)>,
}

impl Activity {
    fn change(&self, now: i64, seconds: i64) -> f64 {
        let Some(&(_, last)) = self.prices.last() else { return 0.0 };
        let from = now - seconds;
        let before = self.prices.iter().rev().find(|p| p.0 <= from);
        let inside = self.prices.iter().find(|p| p.0 > from);
        match before.or(inside) {
            Some(&(_, then)) if then > 0.0 => (last / then - 1.0) * 100.0,
            _ => 0.0,
        }
    }
}

const TIER_ORDER: [MarketTier; 4] = [MarketTier::Large, MarketTier::Mid, MarketTier::Micro, MarketTier::Nano];

/// `/coins/trending` from the candidates and the trades of `(now − TRENDING_LOOKBACK, now]` (time order).
pub fn trending(
    candidates: &[Candidate],
    trades: &[TraderTrade],
    now: i64,
    q: &TrendingQuery,
) -> TrendingCoinsResponse {
    let index: BTreeMap<Asset, usize> = candidates.iter().enumerate().map(|(i, c)| (c.asset, i)).collect();
    let mut act: Vec<Activity> = candidates.iter().map(|_| Activity::default()).collect();
    for t in trades.iter().filter(|t| t.time > now - TRENDING_LOOKBACK && t.time <= now) {
        for (asset, amount, buy) in [(&t.asset_out, t.amount_out, true), (&t.asset_in, t.amount_in, false)] {
            let Some(&i) = index.get(asset) else { continue };
            let a = &mut act[i];
            let w = whole(amount, candidates[i].decimals);
            if w > 0.0 {
                a.prices.push((t.time, t.volume_usd / w));
            }
            if t.time <= now - 86_400 {
                continue;
            }
            a.vol_24h += t.volume_usd;
            a.traders_24h.insert(t.trader.to_hex());
            if buy {
                a.buy_vol_24h += t.volume_usd;
            }
            if t.time > now - 3_600 {
                a.vol_1h += t.volume_usd;
                a.traders_1h.insert(t.trader.to_hex());
                a.tx_1h += 1;
            }
        }
    }
    let live: Vec<usize> = (0..candidates.len()).filter(|&i| !act[i].traders_24h.is_empty()).collect();
    let mut out = Vec::new();
    for tier_name in TIER_ORDER {
        if q.tier.is_some_and(|t| t != tier_name) {
            continue;
        }
        let members: Vec<usize> =
            live.iter().copied().filter(|&i| tier(candidates[i].market_cap_usd) == tier_name).collect();
        let med_vol = median(members.iter().map(|&i| act[i].vol_24h.to_f64()).collect());
        let med_tr = median(members.iter().map(|&i| act[i].traders_24h.len() as f64).collect());
        let mut rows: Vec<(f64, String, TrendingCoin)> = members
            .iter()
            .map(|&i| {
                let (c, a) = (&candidates[i], &act[i]);
                let (tr_1h, tr_24h) = (a.traders_1h.len() as f64, a.traders_24h.len() as f64);
                let (vol_1h, vol_24h, liquidity) = (a.vol_1h.to_f64(), a.vol_24h.to_f64(), c.liquidity_usd.to_f64());
                let vol_burst = ratio(vol_1h, vol_24h / 24.0);
                let tr_burst = ratio(tr_1h, tr_24h / 24.0);
                let norm_vol_24h = ratio(vol_24h, med_vol);
                let norm_tr_24h = ratio(tr_24h, med_tr);
                let (ch_15m, ch_1h, ch_6h, ch_24h) =
                    (a.change(now, 900), a.change(now, 3_600), a.change(now, 21_600), a.change(now, 86_400));
                let buy_pressure = ratio(a.buy_vol_24h.to_f64(), vol_24h);
                let momentum = 0.5 * ch_1h.clamp(-50.0, 50.0) / 50.0 + 0.5 * ch_24h.clamp(-100.0, 100.0) / 100.0;
                let burst = (1.0 + vol_burst).ln() + (1.0 + tr_burst).ln();
                let strength = (1.0 + norm_vol_24h).ln() + (1.0 + norm_tr_24h).ln();
                let quality =
                    (liquidity / FULL_QUALITY_LIQUIDITY_USD).min(1.0) * (0.5 + f64::from(c.verification_level) / 8.0);
                let score = quality * (strength + burst + momentum.max(0.0) + buy_pressure);
                let f = |v: f64| Some(LargeFloat::from_f64(v));
                let coin = TrendingCoin {
                    asset_address: match c.asset {
                        Asset::Jetton(m) => m.to_raw(),
                        Asset::Native => c.asset.to_string(),
                    },
                    title: c.title.clone(),
                    ticker: c.ticker.clone(),
                    market_tier: tier_name,
                    rank_in_tier: 0,
                    trend_score: LargeFloat::from_f64(score),
                    burst_score: f(burst),
                    buy_pressure: f(buy_pressure),
                    liquidity_usd: Some(c.liquidity_usd.to_large_float()),
                    market_cap_usd: c.market_cap_usd.map(LargeFloat::from_f64),
                    momentum_score: f(momentum),
                    norm_tr_1h: f(ratio(24.0 * tr_1h, med_tr)),
                    norm_tr_24h: f(norm_tr_24h),
                    norm_vol_1h: f(ratio(24.0 * vol_1h, med_vol)),
                    norm_vol_24h: f(norm_vol_24h),
                    price_acceleration: f(ch_1h - ch_24h / 24.0),
                    price_usd: a.prices.last().map(|p| LargeFloat::from_f64(p.1)),
                    price_usd_15m_change: f(ch_15m),
                    price_usd_1h_change: f(ch_1h),
                    price_usd_6h_change: f(ch_6h),
                    price_usd_24h_change: f(ch_24h),
                    quality_score: f(quality),
                    strength_score: f(strength),
                    tier_median_traders_24h: f(med_tr),
                    tier_median_vol_24h: f(med_vol),
                    tr_burst_ratio: f(tr_burst),
                    vol_burst_ratio: f(vol_burst),
                    vol_to_liq: f(ratio(vol_24h, liquidity)),
                    volume_usd_1h: Some(a.vol_1h.to_large_float()),
                    volume_usd_24h: Some(a.vol_24h.to_large_float()),
                    traders_1h_count: Some(a.traders_1h.len() as i64),
                    traders_24h_count: Some(a.traders_24h.len() as i64),
                    transactions_1h_count: Some(a.tx_1h),
                    memecoin_extra_details: None,
                };
                (score, c.asset.to_string(), coin)
            })
            .collect();
        rows.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        for (rank, (_, _, mut coin)) in rows.into_iter().enumerate() {
            coin.rank_in_tier = rank as i64 + 1;
            out.push(coin);
        }
    }
    TrendingCoinsResponse { coins: q.page.of(&out).to_vec() }
}

/// The candidates of a view: its listed coins with a price, except TON and stablecoins.
pub fn candidates(view: &MarketView) -> Vec<Candidate> {
    let data = view.data();
    data.coins
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            !c.asset.is_native()
                && !c.record.tags.iter().any(|t| t == "stablecoin")
                && view.coin_stats(*i).usd.is_some()
        })
        .map(|(i, c)| {
            let meta = data.graph.asset(c.id);
            let s = view.coin_stats(i);
            Candidate {
                asset: c.asset,
                title: meta.name.clone(),
                ticker: meta.symbol.clone(),
                decimals: meta.decimals,
                market_cap_usd: s.market_cap,
                liquidity_usd: s.liquidity,
                verification_level: c.record.verification_level,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiers_and_medians() {
        assert_eq!(tier(None), MarketTier::Nano);
        assert_eq!(tier(Some(999_999.0)), MarketTier::Nano);
        assert_eq!(tier(Some(1e6)), MarketTier::Micro);
        assert_eq!(tier(Some(20e6)), MarketTier::Mid);
        assert_eq!(tier(Some(5e8)), MarketTier::Large);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }
}
