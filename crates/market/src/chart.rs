//! The chart operations of [`MarketView`]: an asset's USD, TON and opposite-asset candles, and one pool's
//! candles both ways; [`candles`], the aggregation they share.
//!
//! Owns the candle rules: buckets aligned to the period, only buckets with trades, `open` the previous candle's
//! close, `raw_open` the bucket's first trade, the latest `limit` candles kept.

use super::replay::data::Trade;
use super::replay::view::{trade_prices, MarketView};
use super::units::whole;
use crate::error::MarketError;
use crate::money::Money;
use crate::query::{CandleSpec, ChartByPoolQuery, ChartQuery};
use crate::types::{ChartByPoolAddressResponse, ChartPeriod, ChartResponse, Hlocv, LargeFloat};
use tonroute_core::graph::AssetId;

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

fn amount_of(view: &MarketView, t: &Trade, asset: AssetId) -> f64 {
    let amount = if t.asset_in == asset { t.amount_in } else { t.amount_out };
    whole(amount, view.data().graph.asset(asset).decimals)
}

/// `/chart`: USD and TON candles of the asset's trades, and with `opposite` the asset's price in it from the
/// pools pairing the two (volume in the opposite asset). An unknown asset has empty series.
pub fn chart(view: &MarketView, q: &ChartQuery) -> ChartResponse {
    let g = &view.data().graph;
    let Some(id) = g.asset_id(&q.asset()) else {
        return ChartResponse { ton_hlocv: vec![], usd_hlocv: vec![], opposite_asset_hlocv: vec![] };
    };
    let trades = || view.asset_trades(id);
    let usd = series(trades().map(|t| (t.time, trade_prices(view.data(), t, id).0, t.volume_usd)), &q.candles());
    let ton = series(trades().map(|t| (t.time, trade_prices(view.data(), t, id).1, t.volume_ton())), &q.candles());
    let opp = match q.opposite().and_then(|o| g.asset_id(&o)) {
        Some(o) => series(
            trades().filter(|t| t.asset_in == o || t.asset_out == o).map(|t| {
                let (a, b) = (amount_of(view, t, id), amount_of(view, t, o));
                (t.time, if a > 0.0 { b / a } else { 0.0 }, b)
            }),
            &q.candles(),
        ),
        None => vec![],
    };
    ChartResponse { ton_hlocv: ton, usd_hlocv: usd, opposite_asset_hlocv: opp }
}

/// `/chart_by_pool_address`: the pool's price of the asset in the other asset and back (volume in USD).
/// An unknown pool has empty series; an asset the pool does not trade is refused.
pub fn chart_by_pool(view: &MarketView, q: &ChartByPoolQuery) -> Result<ChartByPoolAddressResponse, MarketError> {
    let Some((pid, id, other)) = q.resolve(&view.data().graph)? else {
        return Ok(ChartByPoolAddressResponse { hlocv: vec![], opposite_asset_hlocv: vec![] });
    };
    let trades: Vec<&Trade> = view.pool_trades(pid).collect();
    let price = |of: AssetId, per: AssetId| {
        series(
            trades.iter().map(|t| {
                let (a, b) = (amount_of(view, t, of), amount_of(view, t, per));
                (t.time, if a > 0.0 { b / a } else { 0.0 }, t.volume_usd)
            }),
            &q.candles,
        )
    };
    Ok(ChartByPoolAddressResponse { hlocv: price(id, other), opposite_asset_hlocv: price(other, id) })
}
