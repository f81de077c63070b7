//! Stage 6, quote assembly: from a settled [`Plan`](super::Plan) to the [`Quote`] the caller sees.
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
use crate::route::sim::{pool_disjoint, Overlay};
use crate::route::RouteError;

/// The quote of a plan found for `request` (exact-in or exact-out): every step's exact amounts (the plan
/// re-run in its order), network fees, min-outs, max-in, improvement over the best single route and price
/// impact against the best spot rate. Fails only on a slippage out of range, which a validated request
/// cannot have, or when re-running the plan is refused ([`RouteError::AmountRefused`]), which a plan made on
/// this graph cannot be.
pub(crate) fn build_quote(
    graph: &PoolGraph,
    request: &QuoteRequest,
    found: &Found,
    fees: &NetworkFees,
) -> Result<Quote, RouteError> {
    let Found { plan, best_single_out, spot } = found;
    // The stages that form a split keep its routes apart, so that it pays the same whatever order the chain
    // runs its messages in.
    debug_assert!(pool_disjoint(plan.routes.iter().map(|(h, _)| h.as_slice())), "a split's routes share a pool");
    let (best_single_out, spot) = (*best_single_out, *spot);
    let mut overlay = Overlay::default();
    let mut routes: Vec<Route> = Vec::with_capacity(plan.routes.len());
    // Exact-in: the request's amount; exact-out: the input the plan found.
    let in_total: u128 = plan.routes.iter().map(|(_, a)| *a).sum();
    for (hops, amount) in &plan.routes {
        // The plan was simulated in this order already, so this run repeats it and does not fail; were it to
        // (a plan built on other reserves), the refusal is answered as one, never as zero amounts.
        let outs = overlay.run(graph, hops, *amount).map_err(|reason| RouteError::AmountRefused { reason })?;
        let step_fees = fees.step_fees(graph, hops);
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
                network_fee: step_fees[i],
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
            min_out: min_out(x, request.slippage_bps())?,
        });
    }
    let out_amount: u128 = routes.iter().map(|r| r.out_amount).sum();
    let ideal = in_total as f64 * spot;
    Ok(Quote {
        in_asset: request.in_asset(),
        out_asset: request.out_asset(),
        swap_mode: request.swap_mode(),
        in_amount: in_total,
        max_in: max_in(in_total, request.slippage_bps())?,
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
        slippage_bps: request.slippage_bps(),
        swap_is_possible: true,
        certificate: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::Asset;
    use crate::graph::testkit::jetton;
    use crate::route::split::Plan;
    use crate::route::testkit::{cp, forward, linear, parallel, DEPTH, FEE_BPS};
    use crate::route::SwapMode;

    #[test]
    fn a_one_route_quote_reports_every_hop_and_the_slippage_figures() {
        // linear: 0 → 1 → 2 over pools 0 ([D, 2D]) and 1 ([2D, 2D]).
        let g = linear();
        let a: u128 = 12_345_678_901;
        let (o1, _, _) = cp(DEPTH, 2 * DEPTH, a);
        let (o2, _, _) = cp(2 * DEPTH, 2 * DEPTH, o1);
        let hops = forward(&g, &[0, 1]).hops;
        let gamma = 1.0 - f64::from(FEE_BPS) / 1e4;
        let spot = gamma * 2.0 * gamma;
        let found = Found { plan: Plan { routes: vec![(hops, a)], out: o2, gas_value: 0 }, best_single_out: o2, spot };
        let request = QuoteRequest::builder(Asset::Native, jetton(2), a).slippage_bps(150).build().unwrap();
        let fees = NetworkFees::default();
        let q = build_quote(&g, &request, &found, &fees).unwrap();
        assert_eq!((q.in_amount, q.out_amount, q.best_single_out), (a, o2, o2));
        assert_eq!(q.routes.len(), 1);
        let r = &q.routes[0];
        let steps: Vec<(Asset, Asset, u128, u128)> =
            r.steps.iter().map(|s| (s.in_asset, s.out_asset, s.in_amount, s.out_amount)).collect();
        assert_eq!(steps, vec![(Asset::Native, jetton(1), a, o1), (jetton(1), jetton(2), o1, o2)]);
        // dex_b_v2: the first hop carries the per-route fee, the last the jetton it pays (TON offered).
        let v2 = fees.dex_b_v2;
        assert_eq!(r.steps[0].network_fee, v2.per_route + v2.per_hop);
        assert_eq!(r.steps[1].network_fee, v2.per_hop + fees.jetton_out);
        assert_eq!(q.network_fee, v2.per_route + 2 * v2.per_hop + fees.jetton_out);
        // floor(o2 · 9850 / 10000) and ceil(a · 10150 / 10000), both fit u128 at these sizes.
        assert_eq!(r.min_out, o2 * 9_850 / 10_000);
        assert_eq!(q.min_out, r.min_out);
        assert_eq!(q.max_in, (a * 10_150).div_ceil(10_000));
        assert_eq!(r.in_percent, 100.0);
        assert_eq!(q.improvement, 0.0);
        let impact = 1.0 - o2 as f64 / (a as f64 * spot);
        assert!((q.price_impact - impact).abs() <= 1e-12, "{} vs {impact}", q.price_impact);
        assert_eq!((q.swap_mode, q.slippage_bps, q.swap_is_possible), (SwapMode::ExactIn, 150, true));
    }

    #[test]
    fn a_split_quote_sums_its_routes() {
        let g = parallel();
        let (a0, a1): (u128, u128) = (30_000_000_000, 10_000_000_000);
        let out0 = cp(DEPTH, 2 * DEPTH, a0).0;
        let out1 = cp(DEPTH / 2, DEPTH, a1).0;
        let single = cp(DEPTH, 2 * DEPTH, a0 + a1).0;
        let routes = vec![(forward(&g, &[0]).hops, a0), (forward(&g, &[1]).hops, a1)];
        let found =
            Found { plan: Plan { routes, out: out0 + out1, gas_value: 0 }, best_single_out: single, spot: 1.994 };
        let request = QuoteRequest::new(Asset::Native, jetton(1), a0 + a1).unwrap();
        let q = build_quote(&g, &request, &found, &NetworkFees::ZERO).unwrap();
        assert_eq!(q.out_amount, out0 + out1);
        assert_eq!(q.routes.iter().map(|r| r.in_percent).collect::<Vec<_>>(), vec![75.0, 25.0]);
        assert_eq!(q.min_out, out0 * 9_900 / 10_000 + out1 * 9_900 / 10_000);
        assert_eq!(q.network_fee, 0);
        let improvement = (out0 + out1) as f64 / single as f64 - 1.0;
        assert!(improvement > 0.0 && (q.improvement - improvement).abs() <= 1e-15);
    }

    #[test]
    fn an_out_of_range_slippage_is_an_error_not_a_clamp() {
        // No request carries one (its constructor refuses it), and the slippage arithmetic build_quote uses
        // refuses it too rather than clamping to 100 %.
        let request = QuoteRequest::builder(Asset::Native, jetton(1), 1_000).slippage_bps(10_001).build();
        assert_eq!(request, Err(RouteError::SlippageOutOfRange { value: 10_001 }));
        assert_eq!(
            min_out(1_993, 10_001).map_err(RouteError::from),
            Err(RouteError::SlippageOutOfRange { value: 10_001 })
        );
        assert_eq!(
            max_in(1_000, 10_001).map_err(RouteError::from),
            Err(RouteError::SlippageOutOfRange { value: 10_001 })
        );
    }
}
