//! Exact-out: the smallest input that yields at least the wanted output, across splits and hops.
//!
//! 1. Bracket the input with exact-in plans: the first at `wanted / best spot rate` (an underestimate); its
//!    routes, scaled in their proportions, find by exact simulation the input that pays, and a second plan
//!    is made there (two searches, where the secant alone takes up to eight). Where that fails, correct
//!    by the secant of the concave output curve until a plan pays at least the wanted output.
//! 2. Keep that plan's routes and proportions and binary-search the smallest total input whose exact joint
//!    simulation still pays enough.
//! 3. Lower each route's input to its own minimum with the others fixed, until one unit less on any route
//!    pays less than wanted. Every figure is the exact integer simulation; floats only pick the start.

use smallvec::SmallVec;

use super::budget::Budget;
use super::paths::Bounds;
use super::request::{QuoteRequest, SwapMode};
use super::sim::Hop;
use super::split::{self, evaluate, Found, Plan};
use super::tuning::{
    BRACKET_CLOSE, BRACKET_GROWTH, BRACKET_OVERSHOOT, BRACKET_ROUNDS, EXACT_OUT_NEAR, MINIMISE_ROUNDS,
};
use super::{RouteError, RouterConfig};
use crate::asset::Asset;
use crate::graph::{AssetId, PoolGraph};
use crate::pool::MAX_COINS;

type Routes = Vec<(SmallVec<[Hop; 5]>, u128)>;

/// Exact joint output of `routes`, 0 when any refuses.
fn output(graph: &PoolGraph, routes: &Routes) -> u128 {
    // The joint simulation skips routes with no input.
    evaluate(graph, routes).unwrap_or(0)
}

/// `total` split in the plan's proportions (floors, the rest to the largest share).
fn scaled(plan: &Plan, total: u128) -> Routes {
    let sum: u128 = plan.routes.iter().map(|(_, a)| *a).sum();
    let mut routes: Routes = plan
        .routes
        .iter()
        .map(|(h, a)| {
            // a ≤ sum < 2^120 and total < 2^120: the product needs 240 bits, so go through U256.
            let v = primitive_types::U256::from(*a) * primitive_types::U256::from(total)
                / primitive_types::U256::from(sum.max(1));
            (h.clone(), v.low_u128())
        })
        .collect();
    let assigned: u128 = routes.iter().map(|(_, a)| *a).sum();
    if let Some(largest) = (0..routes.len()).max_by_key(|&i| plan.routes[i].1) {
        routes[largest].1 += total - assigned.min(total);
    }
    routes
}

/// The smallest total input that `plan`'s routes, in its proportions, need to pay `wanted`, searched up from
/// `from` (which pays less) by doubling and then bisection, all by exact joint simulation; `None` when even
/// the largest amount does not.
fn scaled_to_pay(graph: &PoolGraph, plan: &Plan, from: u128, wanted: u128) -> Option<u128> {
    let pays = |t: u128| output(graph, &scaled(plan, t)) >= wanted;
    let mut lo = from;
    let mut hi = from;
    loop {
        if hi == MAX_COINS {
            return None;
        }
        hi = hi.saturating_mul(2).min(MAX_COINS);
        if pays(hi) {
            break;
        }
        lo = hi;
    }
    Some(smallest(lo + 1, hi, pays))
}

/// Smallest `x` in `0..=top` with `ok(x)`, given `ok(top)`, galloping down from `top` (the answer is usually
/// close to it) and then bisecting; `ok` is assumed monotone.
fn smallest_below(top: u128, mut ok: impl FnMut(u128) -> bool) -> u128 {
    let mut step = 1u128;
    let mut known = top; // ok(known)
    while step <= known {
        if !ok(known - step) {
            return smallest(known - step + 1, known, ok);
        }
        known -= step;
        step = step.saturating_mul(2);
    }
    smallest(0, known, ok)
}

/// Smallest `x` in `lo..=hi` with `ok(x)`, given `ok(hi)`; `ok` is assumed monotone.
fn smallest(mut lo: u128, mut hi: u128, mut ok: impl FnMut(u128) -> bool) -> u128 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    hi
}

/// Exact-out: the plan with the smallest input that pays at least `request.amount`, with the exact-in
/// figures its quote reports (the best single route's output for the same input, the best spot rate).
pub(crate) fn best_plan(
    graph: &PoolGraph,
    config: &RouterConfig,
    request: &QuoteRequest,
    src: AssetId,
    dst: AssetId,
    budget: Budget<'_>,
) -> Result<Found, RouteError> {
    let wanted = request.amount;
    let native = graph.asset_id(&Asset::Native);
    let spot = Bounds::compute(graph, dst, request.max_length, native).rate(request.max_length, src);
    if spot <= 0.0 {
        return Err(RouteError::NoPath {
            from: request.in_asset.to_string(),
            to: request.out_asset.to_string(),
            max_length: request.max_length,
        });
    }
    let exact_in = |amount: u128| {
        let r = QuoteRequest { amount, swap_mode: SwapMode::ExactIn, ..request.clone() };
        split::best_plan(graph, config, &r, src, dst, budget)
    };

    // 1. Bracket. The first exact-in plan is made at the spot estimate (an underestimate); where it pays
    //    less than wanted, its own routes, scaled in their proportions, find by exact simulation the input
    //    that pays (cheap: no search), and a second plan is made there. Only when that fails does the
    //    secant search over fresh plans run.
    let mut x = ((wanted as f64 / spot).ceil() as u128).clamp(1, MAX_COINS);
    let mut lo = 0u128; // an input known to pay less than wanted
    let mut hi: Option<(u128, Found)> = None;
    // Whether the bracket's plan is already the smallest total in its proportions (step 2 has nothing to do).
    let mut minimal = false;
    if let Ok(first) = exact_in(x) {
        if first.plan.out >= wanted {
            hi = Some((x, first));
        } else {
            lo = x;
            if let Some(total) = scaled_to_pay(graph, &first.plan, x, wanted) {
                // Within a percent of the first plan's input, a fresh search would split the same way.
                let near = (total - x) as f64 <= x as f64 * EXACT_OUT_NEAR;
                let second = if near { None } else { exact_in(total).ok().filter(|f| f.plan.out >= wanted) };
                hi = Some(match second {
                    Some(second) => (total, second),
                    None => {
                        minimal = true;
                        let routes = scaled(&first.plan, total);
                        let out = output(graph, &routes);
                        let plan = Plan { routes, out, gas_value: first.plan.gas_value };
                        (total, Found { plan, ..first })
                    }
                });
                x = total;
            }
        }
    }
    // The secant search over fresh plans, where the first plan's routes could not bracket the output.
    for _ in 0..if hi.is_some() { 0 } else { BRACKET_ROUNDS } {
        if budget.exhausted() {
            break;
        }
        let result = exact_in(x);
        let out = result.as_ref().map_or(0, |f| f.plan.out);
        if let Some(found) = result.ok().filter(|_| out >= wanted) {
            let close = (out - wanted) as f64 <= wanted as f64 * BRACKET_CLOSE;
            hi = Some((x, found));
            if close || x <= lo + 1 {
                break;
            }
            // Secant toward the target from above, kept inside the bracket.
            let guess = (x as f64 * wanted as f64 / out as f64).floor() as u128;
            x = guess.clamp(lo + 1, x - 1);
        } else {
            lo = lo.max(x);
            if x == MAX_COINS {
                break;
            }
            x = match (&hi, out) {
                (Some((h, _)), _) => lo + (h - lo) / 2,
                (None, 0) => x.saturating_mul(BRACKET_GROWTH).min(MAX_COINS),
                // Concave output: the secant undershoots, so aim a little beyond it.
                (None, out) => ((x as f64 * wanted as f64 / out as f64 * BRACKET_OVERSHOOT).ceil() as u128)
                    .max(x + 1)
                    .min(MAX_COINS),
            };
        }
    }
    let Some((hi_x, found)) = hi else {
        if budget.latched() {
            return Err(RouteError::BudgetExhausted);
        }
        return Err(RouteError::OutputUnreachable { wanted });
    };

    // 2. Smallest total in the plan's proportions.
    let total =
        if minimal { hi_x } else { smallest(lo.min(hi_x), hi_x, |t| output(graph, &scaled(&found.plan, t)) >= wanted) };
    let mut routes = scaled(&found.plan, total);
    if output(graph, &routes) < wanted {
        // Proportional rounding is not monotone to the unit; the bracket's own plan always pays.
        routes = found.plan.routes.clone();
    }

    // 3. Each route down to its own minimum, until no route can give up a unit.
    for _ in 0..MINIMISE_ROUNDS {
        // Every round keeps an input that pays: stopping early only leaves some units unsaved.
        if budget.exhausted() {
            break;
        }
        let mut changed = false;
        for i in 0..routes.len() {
            let current = routes[i].1;
            let mut trial = routes.clone();
            let min_i = smallest_below(current, |a| {
                trial[i].1 = a;
                output(graph, &trial) >= wanted
            });
            if min_i < current {
                routes[i].1 = min_i;
                changed = true;
            }
        }
        routes.retain(|(_, a)| *a > 0);
        if !changed {
            break;
        }
    }
    let out = output(graph, &routes);
    let in_total: u128 = routes.iter().map(|(_, a)| *a).sum();
    let plan = Plan { routes, out, gas_value: 0 };
    // Improvement is measured as exact-in at the same input: what the best single route would pay for it. A
    // plan of one route is the exact-in plan's own best single route, at the input it settled on.
    let single = if plan.routes.len() == 1 || budget.exhausted() {
        // Out of time, the comparison is not made: the improvement reads 0 rather than a guess.
        plan.out
    } else {
        let r = QuoteRequest { amount: in_total, max_splits: 1, swap_mode: SwapMode::ExactIn, ..request.clone() };
        split::best_plan(graph, config, &r, src, dst, budget).map_or(0, |f| f.plan.out)
    };
    Ok(Found { plan, best_single_out: single, spot: found.spot })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::JettonMaster;
    use crate::graph::PoolId;
    use crate::route::testkit::{cp, parallel, shared, DEPTH};
    use crate::route::{NetworkFees, Quote, Router};

    fn asset(i: u8) -> Asset {
        if i == 0 {
            Asset::Native
        } else {
            Asset::Jetton(JettonMaster([i; 32]))
        }
    }

    fn exact_out(graph: &PoolGraph, from: u8, to: u8, wanted: u128, max_splits: usize) -> Result<Quote, RouteError> {
        let router = Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() });
        let request = QuoteRequest {
            swap_mode: SwapMode::ExactOut,
            max_splits,
            ..QuoteRequest::new(asset(from), asset(to), wanted)
        };
        router.quote(graph, &request)
    }

    /// The exact output of `inputs` on the `parallel` fixture's pools (pool-disjoint: the sum of each pool's
    /// own formula).
    fn parallel_out(inputs: &[u128]) -> u128 {
        let depths = [DEPTH, DEPTH / 2, DEPTH / 4];
        inputs.iter().zip(depths).map(|(&a, x)| if a == 0 { 0 } else { cp(x, 2 * x, a).0 }).sum()
    }

    #[test]
    fn one_pool_gets_the_smallest_input_to_the_unit() {
        let g = parallel();
        let wanted = 123_456_789_013;
        let q = exact_out(&g, 0, 1, wanted, 1).unwrap();
        assert_eq!(q.routes.len(), 1);
        let route = &q.routes[0];
        let x = g.reserves(route.steps[0].pool)[0];
        let pays = |a: u128| cp(x, 2 * x, a).0;
        assert!(pays(q.in_amount) >= wanted);
        assert!(pays(q.in_amount - 1) < wanted, "input {} is not minimal", q.in_amount);
        assert_eq!(q.out_amount, pays(q.in_amount));
        // The deepest pool needs the least input: it is the one chosen.
        assert_eq!(x, DEPTH);
    }

    #[test]
    fn every_route_of_a_split_is_minimal_to_the_unit() {
        let g = parallel();
        let wanted = 300_000_000_000;
        let q = exact_out(&g, 0, 1, wanted, 3).unwrap();
        assert!(q.routes.len() >= 2, "{q:?}");
        let mut inputs = [0u128; 3];
        for r in &q.routes {
            inputs[r.steps[0].pool.index()] = r.in_amount;
        }
        assert_eq!(parallel_out(&inputs), q.out_amount);
        assert!(q.out_amount >= wanted);
        for i in 0..3 {
            if inputs[i] == 0 {
                continue;
            }
            let mut less = inputs;
            less[i] -= 1;
            assert!(parallel_out(&less) < wanted, "route through pool {i} could give up a unit: {inputs:?}");
        }
        // Splitting needs less input than the best single pool does for the same output.
        let single = exact_out(&g, 0, 1, wanted, 1).unwrap();
        assert!(q.in_amount < single.in_amount);
    }

    #[test]
    fn routes_sharing_a_pool_are_minimal_when_simulated_in_order() {
        let g = shared();
        let wanted = 200_000_000_000;
        let q = exact_out(&g, 0, 2, wanted, 3).unwrap();
        // The routes' own order, each on what the earlier left, with the formula written out.
        let plan: Vec<(Vec<usize>, u128)> =
            q.routes.iter().map(|r| (r.steps.iter().map(|s| s.pool.index()).collect(), r.in_amount)).collect();
        let simulate = |plan: &[(Vec<usize>, u128)]| -> u128 {
            let mut reserves: Vec<[u128; 2]> = (0..4).map(|p| g.reserves(PoolId(p))).collect();
            let mut out = 0;
            for (pools, amount) in plan {
                if *amount == 0 {
                    continue;
                }
                let mut x = *amount;
                for &p in pools {
                    let [r0, r1] = reserves[p];
                    let (o, a, b) = cp(r0, r1, x);
                    reserves[p] = [a, b];
                    x = o;
                }
                out += x;
            }
            out
        };
        assert!(plan.len() >= 2, "{q:?}");
        assert_eq!(simulate(&plan), q.out_amount);
        assert!(q.out_amount >= wanted);
        for i in 0..plan.len() {
            let mut less = plan.clone();
            less[i].1 -= 1;
            assert!(simulate(&less) < wanted, "route {i} could give up a unit: {plan:?}");
        }
    }

    #[test]
    fn an_output_the_pools_cannot_pay_is_unreachable() {
        // The one pool holds 2·10^12 of asset 1; no input gets it all out.
        let g = crate::route::testkit::graph(2, &[(0, 1, [DEPTH, 2 * DEPTH])]);
        assert_eq!(exact_out(&g, 0, 1, 2 * DEPTH, 1), Err(RouteError::OutputUnreachable { wanted: 2 * DEPTH }));
    }

    #[test]
    fn smallest_finds_the_first_true_of_a_monotone_predicate() {
        for threshold in 0..40u128 {
            for lo in 0..=threshold {
                let hi = 40;
                assert_eq!(smallest(lo, hi, |x| x >= threshold), threshold.max(lo));
            }
        }
    }

    #[test]
    fn scaled_keeps_the_proportions_and_adds_up_exactly() {
        let plan = Plan {
            routes: vec![(SmallVec::new(), 600), (SmallVec::new(), 300), (SmallVec::new(), 100)],
            out: 0,
            gas_value: 0,
        };
        // 1001 · (0.6, 0.3, 0.1) = (600.6, 300.3, 100.1): floors (600, 300, 100), the rest (1) to the largest.
        let amounts: Vec<u128> = scaled(&plan, 1001).into_iter().map(|(_, a)| a).collect();
        assert_eq!(amounts, vec![601, 300, 100]);
        // Near 2^120 the products need 240 bits.
        let big = MAX_COINS;
        let amounts: Vec<u128> = scaled(&plan, big).into_iter().map(|(_, a)| a).collect();
        assert_eq!(amounts.iter().sum::<u128>(), big);
        assert_eq!(amounts[1], big / 10 * 3 + (big % 10) * 3 / 10);
    }
}
