//! The chart operations of [`MarketView`]: an asset's USD, TON and opposite-asset candles, and one pool's
//! candles both ways; [`candles`], the aggregation they share.
//!
//! Owns the candle rules: buckets aligned to the period, only buckets with trades, `open` the previous candle's
//! close, `raw_open` the bucket's first trade, the latest `limit` candles kept.

use super::data::{whole, Trade};
use super::view::{trade_prices, MarketView};
use crate::graph::AssetId;
use crate::market::error::MarketError;
use crate::market::money::Money;
use crate::market::query::{CandleSpec, ChartByPoolQuery, ChartQuery};
use crate::market::types::{ChartByPoolAddressResponse, ChartPeriod, ChartResponse, Hlocv, LargeFloat};

/// Aggregates `(time, price, volume)` points (in time order) into candles of `period` between the inclusive
/// bounds, keeping the last `limit`. `open` is the previous candle's close (the first trade's price for the
/// first candle); `raw_open` the bucket's first trade; `volume` the exact [`Money`] sum of the points' volumes.
/// Buckets without trades are absent.
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
        volume: Money,
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
            _ => out.push(C {
                time: bucket,
                raw_open: price,
                high: price,
                low: price,
                close: price,
                volume: Money::of(volume),
            }),
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
                volume: c.volume.to_large_float(),
            }
        })
        .collect();
    let skip = all.len().saturating_sub(limit);
    all.into_iter().skip(skip).collect()
}

/// [`candles`] under a query's candle spec.
fn series(points: impl Iterator<Item = (i64, f64, f64)>, spec: &CandleSpec) -> Vec<Hlocv> {
    candles(points, spec.period, spec.dates.min(), spec.dates.max(), spec.limit.count())
}

impl MarketView {
    fn amount_of(&self, t: &Trade, asset: AssetId) -> f64 {
        let amount = if t.asset_in == asset { t.amount_in } else { t.amount_out };
        whole(amount, self.data.graph.asset(asset).decimals)
    }

    /// `/chart`: USD and TON candles of the asset's trades, and with `opposite` the asset's price in it from the
    /// pools pairing the two (volume in the opposite asset). An unknown asset has empty series.
    pub fn chart(&self, q: &ChartQuery) -> ChartResponse {
        let g = &self.data.graph;
        let Some(id) = g.asset_id(&q.asset) else {
            return ChartResponse { ton_hlocv: vec![], usd_hlocv: vec![], opposite_asset_hlocv: vec![] };
        };
        let trades = || self.by_asset[id.index()].iter().map(|i| &self.data.trades[*i]);
        let usd = series(trades().map(|t| (t.time, trade_prices(&self.data, t, id).0, t.volume_usd)), &q.candles);
        let ton = series(trades().map(|t| (t.time, trade_prices(&self.data, t, id).1, t.volume_ton())), &q.candles);
        let opp = match q.opposite.and_then(|o| g.asset_id(&o)) {
            Some(o) => series(
                trades().filter(|t| t.asset_in == o || t.asset_out == o).map(|t| {
                    let (a, b) = (self.amount_of(t, id), self.amount_of(t, o));
                    (t.time, if a > 0.0 { b / a } else { 0.0 }, b)
                }),
                &q.candles,
            ),
            None => vec![],
        };
        ChartResponse { ton_hlocv: ton, usd_hlocv: usd, opposite_asset_hlocv: opp }
    }

    /// `/chart_by_pool_address`: the pool's price of the asset in the other asset and back (volume in USD).
    /// An unknown pool has empty series; an asset the pool does not trade is refused.
    pub fn chart_by_pool(&self, q: &ChartByPoolQuery) -> Result<ChartByPoolAddressResponse, MarketError> {
        let Some((pid, id, other)) = q.resolve(&self.data.graph)? else {
            return Ok(ChartByPoolAddressResponse { hlocv: vec![], opposite_asset_hlocv: vec![] });
        };
        let trades: Vec<&Trade> = self.by_pool[pid.index()].iter().map(|i| &self.data.trades[*i]).collect();
        let price = |of: AssetId, per: AssetId| {
            series(
                trades.iter().map(|t| {
                    let (a, b) = (self.amount_of(t, of), self.amount_of(t, per));
                    (t.time, if a > 0.0 { b / a } else { 0.0 }, t.volume_usd)
                }),
                &q.candles,
            )
        };
        Ok(ChartByPoolAddressResponse { hlocv: price(id, other), opposite_asset_hlocv: price(other, id) })
    }
}
