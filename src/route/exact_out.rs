//! Exact-out: the smallest input that yields at least the wanted output, across splits and hops.
//!
//! 1. Bracket the input with exact-in plans: start from `wanted / best spot rate` (an underestimate) and
//!    correct by the secant of the concave output curve until a plan pays at least the wanted output.
//! 2. Keep that plan's routes and proportions and binary-search the smallest total input whose exact joint
//!    simulation still pays enough.
//! 3. Lower each route's input to its own minimum with the others fixed, until one unit less on any route
//!    pays less than wanted. Every figure is the exact integer simulation; floats only pick the start.

use smallvec::SmallVec;

use super::paths::Bounds;
use super::request::{QuoteRequest, SwapMode};
use super::sim::Hop;
use super::split::{self, evaluate, Found, Plan};
use super::tuning::{BRACKET_CLOSE, BRACKET_GROWTH, BRACKET_OVERSHOOT, BRACKET_ROUNDS, MINIMISE_ROUNDS};
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
        split::best_plan(graph, config, &r, src, dst)
    };

    // 1. Bracket.
    let mut x = ((wanted as f64 / spot).ceil() as u128).clamp(1, MAX_COINS);
    let mut lo = 0u128; // an input known to pay less than wanted
    let mut hi: Option<(u128, Found)> = None;
    for _ in 0..BRACKET_ROUNDS {
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
        return Err(RouteError::OutputUnreachable { wanted });
    };

    // 2. Smallest total in the plan's proportions.
    let total = smallest(lo.min(hi_x), hi_x, |t| output(graph, &scaled(&found.plan, t)) >= wanted);
    let mut routes = scaled(&found.plan, total);
    if output(graph, &routes) < wanted {
        // Proportional rounding is not monotone to the unit; the bracket's own plan always pays.
        routes = found.plan.routes.clone();
    }

    // 3. Each route down to its own minimum, until no route can give up a unit.
    for _ in 0..MINIMISE_ROUNDS {
        let mut changed = false;
        for i in 0..routes.len() {
            let current = routes[i].1;
            let mut trial = routes.clone();
            let min_i = smallest(0, current, |a| {
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
    // Improvement is measured as exact-in at the same input: what the best single route would pay for it.
    let single = {
        let r = QuoteRequest { amount: in_total, max_splits: 1, swap_mode: SwapMode::ExactIn, ..request.clone() };
        split::best_plan(graph, config, &r, src, dst).map_or(0, |f| f.plan.out)
    };
    Ok(Found { plan, best_single_out: single, spot: found.spot })
}
