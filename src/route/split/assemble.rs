//! Stage 5, quote assembly: from a settled [`Plan`](super::Plan) to the [`Quote`] the caller sees.
//!
//! Owns the per-step amounts and fees of a quote and its summary figures (totals, min-out and max-in under
//! the slippage, improvement, price impact). Must not change a plan's amounts: it re-runs the plan exactly
//! as settled and only reports it. The slippage arithmetic is [`crate::route::quote::min_out`] and
//! [`crate::route::quote::max_in`], shared with the API and the swap builder.

use super::Found;
use crate::graph::PoolGraph;
use crate::route::gas::NetworkFees;
use crate::route::quote::{max_in, min_out, Quote, Route, Step};
use crate::route::request::QuoteRequest;
use crate::route::sim::Overlay;
use crate::route::RouteError;

/// The quote of a plan found for `request` (exact-in or exact-out): every step's exact amounts (the plan
/// re-run in its order), network fees, min-outs, max-in, improvement over the best single route and price
/// impact against the best spot rate. Fails only on a slippage out of range, which a validated request
/// cannot have.
pub(crate) fn build_quote(
    graph: &PoolGraph,
    request: &QuoteRequest,
    found: &Found,
    fees: &NetworkFees,
) -> Result<Quote, RouteError> {
    let Found { plan, best_single_out, spot } = found;
    let (best_single_out, spot) = (*best_single_out, *spot);
    let mut overlay = Overlay::default();
    let mut routes: Vec<Route> = Vec::with_capacity(plan.routes.len());
    // Exact-in: the request's amount; exact-out: the input the plan found.
    let in_total: u128 = plan.routes.iter().map(|(_, a)| *a).sum();
    for (hops, amount) in &plan.routes {
        // The plan was simulated in this order already, so this run repeats it and cannot fail.
        let outs = overlay.run(graph, hops, *amount).unwrap_or_default();
        let mut steps = Vec::with_capacity(hops.len());
        let mut x = *amount;
        for (i, (&(pool, dir), &y)) in hops.iter().zip(outs.iter()).enumerate() {
            let meta = graph.pool(pool);
            let in_id = meta.assets[dir.in_index()];
            let out_id = meta.assets[1 - dir.in_index()];
            steps.push(Step {
                pool,
                pool_address: meta.address.clone(),
                protocol: meta.protocol,
                is_stable: meta.curve.is_stable(),
                direction: dir,
                in_asset: graph.asset(in_id).asset,
                out_asset: graph.asset(out_id).asset,
                in_amount: x,
                out_amount: y,
                network_fee: fees.step_fee(meta.protocol, i),
            });
            x = y;
        }
        let network_fee = steps.iter().map(|s| s.network_fee).sum();
        routes.push(Route {
            steps,
            in_amount: *amount,
            out_amount: x,
            in_percent: *amount as f64 * 100.0 / in_total as f64,
            network_fee,
            min_out: min_out(x, request.slippage_bps)?,
        });
    }
    let out_amount: u128 = routes.iter().map(|r| r.out_amount).sum();
    let ideal = in_total as f64 * spot;
    Ok(Quote {
        in_asset: request.in_asset,
        out_asset: request.out_asset,
        swap_mode: request.swap_mode,
        in_amount: in_total,
        max_in: max_in(in_total, request.slippage_bps)?,
        out_amount,
        min_out: routes.iter().map(|r| r.min_out).sum(),
        network_fee: routes.iter().map(|r| r.network_fee).sum(),
        routes,
        best_single_out,
        improvement: if best_single_out > 0 {
            (out_amount as f64 - best_single_out as f64) / best_single_out as f64
        } else {
            0.0
        },
        price_impact: if ideal > 0.0 { (1.0 - out_amount as f64 / ideal).max(0.0) } else { 0.0 },
        spot_rate: spot,
        slippage_bps: request.slippage_bps,
        swap_is_possible: true,
    })
}
