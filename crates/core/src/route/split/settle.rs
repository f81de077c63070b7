//! Stage 3, exact settlement: from float flows to integer amounts that add up exactly to the request,
//! simulated with the contracts' integer math, then improved by exact transfers between routes.
//!
//! Owns [`Plan`] (routes with exact inputs and their joint exact output), the integer split of float
//! flows, the handling of routes the pools refuse, and the exact refinement. Must not use floats for an
//! amount it returns (floats only propose; every accepted figure is an exact joint simulation), nor choose
//! paths: it settles the set it is given, dropping only routes that refuse or end up empty.

use smallvec::SmallVec;

use crate::graph::PoolGraph;
use crate::pool::PoolError;
use crate::route::paths::Candidate;
use std::cell::RefCell;

use crate::route::sim::{joint_output, AloneRuns, Hop, Memo, Overlay};
use crate::route::tuning::{
    RANGE_MARGIN, REFINE_EVALUATIONS, REFINE_FINEST_SHIFT, REFINE_FIRST_STEP, REFINE_LARGEST_STEP, SETTLE_ATTEMPTS,
};

/// Integer amounts from float flows: floors, with the rest to the largest, adding up exactly to `amount`.
pub(super) fn integer_split(flows: &[f64], amount: u128) -> Vec<u128> {
    let total: f64 = flows.iter().sum();
    if total <= 0.0 {
        return vec![0; flows.len()];
    }
    let mut out: Vec<u128> = flows.iter().map(|f| ((f / total) * amount as f64).floor().max(0.0) as u128).collect();
    let assigned: u128 = out.iter().sum();
    let largest = (0..flows.len()).max_by(|&a, &b| flows[a].total_cmp(&flows[b])).unwrap_or(0);
    if assigned <= amount {
        out[largest] += amount - assigned;
    } else {
        // Float rounding overshot: take the excess from the largest share.
        out[largest] = out[largest].saturating_sub(assigned - amount);
    }
    out
}

/// A settled allocation: paths with exact integer inputs, simulated jointly.
#[derive(Clone)]
pub(crate) struct Plan {
    pub routes: Vec<(SmallVec<[Hop; 5]>, u128)>,
    pub out: u128,
    pub gas_value: u128,
}

impl Plan {
    pub(crate) fn net(&self) -> i128 {
        i128::try_from(self.out).unwrap_or(i128::MAX) - i128::try_from(self.gas_value).unwrap_or(i128::MAX)
    }
}

pub(crate) fn evaluate(graph: &PoolGraph, routes: &[(SmallVec<[Hop; 5]>, u128)]) -> Result<u128, PoolError> {
    let view: SmallVec<[(&[Hop], u128); 20]> = routes.iter().map(|(h, a)| (h.as_slice(), *a)).collect();
    joint_output(graph, &view)
}

/// Exact pairwise transfers between routes, step sizes shrinking, each kept only if the joint exact output
/// grows. Marginals are read route by route on the live reserves (exact: a split's routes share no pool);
/// every accepted move is checked with a full joint simulation. Simulations go through `memo`
/// (made for these routes): a transfer re-simulates only what it changes.
pub(super) fn refine(memo: &mut Memo<'_>, routes: &mut [(SmallVec<[Hop; 5]>, u128)], out: &mut u128, amount: u128) {
    let k = routes.len();
    if k < 2 {
        return;
    }
    let mut delta = (amount / REFINE_FIRST_STEP).max(1);
    // Moves below 2^-REFINE_FINEST_SHIFT of the amount are not worth their cost (see the constant).
    let smallest = (amount >> REFINE_FINEST_SHIFT).max(1);
    let mut evaluations = 0;
    // Per route, at the current step size: (gain of +delta, loss of −delta), or None when stale. A route's
    // entry only changes when its own amount or the step size does.
    let mut marginals: Vec<Option<(Option<u128>, Option<u128>)>> = vec![None; k];
    let mut last_delta = delta;
    while delta >= smallest && evaluations < REFINE_EVALUATIONS {
        if delta != last_delta {
            marginals.iter_mut().for_each(|m| *m = None);
            last_delta = delta;
        }
        let mut best_gain: Option<(usize, u128)> = None;
        let mut least_loss: Option<(usize, u128)> = None;
        for (i, (_, a)) in routes.iter().enumerate() {
            let (gain, loss) = *marginals[i].get_or_insert_with(|| {
                let now = memo.peek(i, *a).unwrap_or(0);
                let gain = memo.peek(i, a.saturating_add(delta)).ok().map(|up| up.saturating_sub(now));
                let loss = (*a > delta).then(|| now.saturating_sub(memo.peek(i, *a - delta).unwrap_or(0)));
                (gain, loss)
            });
            if let Some(g) = gain {
                if best_gain.is_none_or(|(_, bg)| g > bg) {
                    best_gain = Some((i, g));
                }
            }
            if let Some(l) = loss {
                if least_loss.is_none_or(|(_, bl)| l < bl) {
                    least_loss = Some((i, l));
                }
            }
        }
        let moved = match (best_gain, least_loss) {
            (Some((i, g)), Some((j, l))) if i != j && g > l => {
                routes[i].1 += delta;
                routes[j].1 -= delta;
                evaluations += 1;
                match memo.joint(routes) {
                    Ok(v) if v > *out => {
                        *out = v;
                        marginals[i] = None;
                        marginals[j] = None;
                        true
                    }
                    _ => {
                        routes[i].1 -= delta;
                        routes[j].1 += delta;
                        false
                    }
                }
            }
            _ => false,
        };
        // A step that pays is tried again twice as long (the float split can be far off, e.g. where a
        // concentrated pool leaves its range); one that does not is cut to a quarter.
        if moved {
            delta = delta.saturating_mul(2).min((amount / REFINE_LARGEST_STEP).max(1));
        } else {
            delta /= 4;
        }
    }
}

/// Settles float flows into an exact plan; routes that refuse their share are dropped and their amount
/// goes to the others. A plan of one route is run through `alone` (the quote's runs of single routes).
pub(super) fn settle(
    graph: &PoolGraph,
    cands: &[&Candidate],
    flows: &[f64],
    amount: u128,
    gas: &dyn Fn(&[Hop]) -> u128,
    alone: &RefCell<AloneRuns>,
) -> Option<Plan> {
    let mut order: Vec<usize> = (0..cands.len()).filter(|&i| flows[i] > 0.0).collect();
    order.sort_by(|&a, &b| flows[b].total_cmp(&flows[a]));
    let mut live: Vec<f64> = order.iter().map(|&i| flows[i]).collect();
    for _attempt in 0..SETTLE_ATTEMPTS {
        if order.is_empty() {
            return None;
        }
        let amounts = integer_split(&live, amount);
        let mut routes: Vec<(SmallVec<[Hop; 5]>, u128)> =
            order.iter().zip(&amounts).filter(|(_, a)| **a > 0).map(|(&i, &a)| (cands[i].hops.clone(), a)).collect();
        // The routes run in order on one overlay: what `evaluate` computes, so its total is the plan's output.
        let mut overlay = Overlay::default();
        let mut failed = None;
        let mut out = 0u128;
        for (idx, (hops, a)) in routes.iter().enumerate() {
            let run =
                if routes.len() == 1 { alone.borrow_mut().run(graph, hops, *a) } else { overlay.run(graph, hops, *a) };
            match run {
                Ok(outs) => out = out.saturating_add(outs.last().copied().unwrap_or(0)),
                Err(e) => {
                    failed = Some((idx, e));
                    break;
                }
            }
        }
        match failed {
            // A concentrated pool that runs out of range before the share is used refuses it; it can still
            // take what it used. Shrink its share to that (a little under, for the float error) and give the
            // rest to the other routes in proportion.
            Some((idx, PoolError::PriceLimitReached { amount_in_used }))
                if order.len() > 1 && routes[idx].0.len() == 1 && amount_in_used > 0 =>
            {
                let pos = order.iter().position(|&i| cands[i].hops == routes[idx].0).unwrap_or(order.len() - 1);
                let total: f64 = live.iter().sum();
                let capped = amount_in_used as f64 * RANGE_MARGIN * total / amount as f64;
                if capped >= live[pos] * RANGE_MARGIN {
                    order.remove(pos);
                    live.remove(pos);
                    continue;
                }
                let freed = live[pos] - capped;
                live[pos] = capped;
                let others: f64 = live.iter().enumerate().filter(|(i, _)| *i != pos).map(|(_, f)| f).sum();
                if others > 0.0 {
                    for (i, f) in live.iter_mut().enumerate() {
                        if i != pos {
                            *f += freed * *f / others;
                        }
                    }
                }
            }
            Some((idx, _)) if order.len() > 1 => {
                // Drop the smallest refusing share and retry.
                let pos = order.iter().position(|&i| cands[i].hops == routes[idx].0).unwrap_or(order.len() - 1);
                order.remove(pos);
                live.remove(pos);
            }
            Some(_) => return None,
            None => {
                if routes.len() > 1 {
                    let mut memo =
                        Memo::new(graph, &routes.iter().map(|(h, _)| h.as_slice()).collect::<SmallVec<[_; 8]>>());
                    refine(&mut memo, &mut routes, &mut out, amount);
                }
                routes.retain(|(_, a)| *a > 0);
                let gas_value = routes.iter().map(|(h, _)| gas(h)).sum();
                return Some(Plan { routes, out, gas_value });
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::Direction;
    use crate::route::testkit::{argmax_1d, cp, cp_f, diamond, forward, graph, shared, DEPTH};

    const D: f64 = DEPTH as f64;

    /// Exact output of `routes` run in order, each pool's swap by the formula written out.
    fn exact(g: &PoolGraph, routes: &[(SmallVec<[Hop; 5]>, u128)]) -> u128 {
        let mut reserves: Vec<[u128; 2]> =
            (0..g.pool_count() as u32).map(|p| g.reserves(crate::graph::PoolId(p))).collect();
        let mut total = 0;
        for (hops, amount) in routes {
            let mut x = *amount;
            for &(pool, dir) in hops {
                let [r0, r1] = reserves[pool.index()];
                x = match dir {
                    Direction::ZeroToOne => {
                        let (o, a, b) = cp(r0, r1, x);
                        reserves[pool.index()] = [a, b];
                        o
                    }
                    Direction::OneToZero => {
                        let (o, b, a) = cp(r1, r0, x);
                        reserves[pool.index()] = [a, b];
                        o
                    }
                };
            }
            total += x;
        }
        total
    }

    #[test]
    fn integer_split_adds_up_exactly() {
        // 1001 · (0.5, 0.3, 0.2) = (500.5, 300.3, 200.2): floors (500, 300, 200), the rest to the largest.
        assert_eq!(integer_split(&[0.5, 0.3, 0.2], 1001), vec![501, 300, 200]);
        assert_eq!(integer_split(&[1.0, 3.0], 8), vec![2, 6]);
        assert_eq!(integer_split(&[0.0, 0.0], 8), vec![0, 0]);
        // Near 2^120 floats hold 53 bits: the shares are off by up to ~2^67, but the sum is exact.
        let big = (1u128 << 120) - 1;
        for flows in [[1.0, 1.0, 1.0], [0.7, 0.2, 0.1], [1e-9, 1.0, 2.0]] {
            let v = integer_split(&flows, big);
            assert_eq!(v.iter().sum::<u128>(), big, "{flows:?}");
            let total: f64 = flows.iter().sum();
            for (a, f) in v.iter().zip(flows) {
                assert!((*a as f64 - big as f64 * f / total).abs() <= big as f64 * 1e-12, "{v:?}");
            }
        }
    }

    #[test]
    fn evaluate_runs_routes_in_order() {
        let g = shared();
        let routes: Vec<(SmallVec<[Hop; 5]>, u128)> =
            vec![(forward(&g, &[0, 2]).hops, 30_000_000_000), (forward(&g, &[1, 2]).hops, 20_000_000_000)];
        assert_eq!(evaluate(&g, &routes), Ok(exact(&g, &routes)));
        let reversed: Vec<_> = routes.iter().rev().cloned().collect();
        assert_eq!(evaluate(&g, &reversed), Ok(exact(&g, &reversed)));
        assert_ne!(exact(&g, &routes), exact(&g, &reversed));
    }

    #[test]
    fn settle_on_the_diamond_is_exact_and_within_rounding_of_the_optimum() {
        let g = diamond();
        let (upper, lower) = (forward(&g, &[0, 2]), forward(&g, &[1, 3]));
        let amount: u128 = 1 << 37; // ~1.4·10^11, 14 % of the upper pools' depth
        let a = amount as f64;
        let out_upper = |t: f64| cp_f(D, 2.0 * D, cp_f(D, D, t).0).0;
        let out_lower = |t: f64| cp_f(D / 2.0, D, cp_f(D / 2.0, D / 2.0, t).0).0;
        let (_, optimum) = argmax_1d(a, 4_000, |t| out_upper(t) + out_lower(a - t));
        // A poor float split (80 / 20) on purpose: the exact refinement must move it.
        let plan = settle(&g, &[&upper, &lower], &[0.8 * a, 0.2 * a], amount, &|_| 0, &Default::default()).unwrap();
        assert_eq!(plan.routes.iter().map(|(_, x)| x).sum::<u128>(), amount);
        assert_eq!(plan.out, exact(&g, &plan.routes));
        assert_eq!(plan.gas_value, 0);
        let start = exact(&g, &[(upper.hops.clone(), amount / 5 * 4 + amount % 5), (lower.hops.clone(), amount / 5)]);
        assert!(plan.out > start, "refinement moved nothing: {} vs {start}", plan.out);
        // Exact floors lose a few units per hop; the refinement's last step (≥ amount / 2^24) costs a
        // second-order amount.
        assert!(plan.out as f64 >= optimum * (1.0 - 1e-9) - 10.0, "{} vs float optimum {optimum}", plan.out);
        assert!(plan.out as f64 <= optimum * (1.0 + 1e-12));
    }

    #[test]
    fn settle_charges_each_route_its_network_fee() {
        let g = diamond();
        let (upper, lower) = (forward(&g, &[0, 2]), forward(&g, &[1, 3]));
        let amount: u128 = 1 << 37;
        let a = amount as f64;
        let plan =
            settle(&g, &[&upper, &lower], &[0.5 * a, 0.5 * a], amount, &|hops| hops.len() as u128, &Default::default())
                .unwrap();
        assert_eq!(plan.routes.len(), 2);
        assert_eq!(plan.gas_value, 4, "two routes of two hops, one unit per hop");
        assert_eq!(plan.net(), plan.out as i128 - 4);
    }

    #[test]
    fn settle_drops_a_route_the_pool_refuses_and_gives_its_share_to_the_others() {
        // Pool 1 is dry on its output side: any share rounds to zero output, which the contract refuses.
        let g = graph(2, &[(0, 1, [DEPTH, DEPTH]), (0, 1, [DEPTH, 1])]);
        let (good, dry) = (forward(&g, &[0]), forward(&g, &[1]));
        let amount = 5_000_000_000;
        let plan = settle(&g, &[&good, &dry], &[0.6, 0.4], amount, &|_| 0, &Default::default()).unwrap();
        assert_eq!(plan.routes, vec![(good.hops.clone(), amount)]);
        assert_eq!(plan.out, cp(DEPTH, DEPTH, amount).0);
        // Nothing left to settle: no plan.
        assert!(settle(&g, &[&dry], &[1.0], amount, &|_| 0, &Default::default()).is_none());
        assert!(settle(&g, &[&good], &[0.0], amount, &|_| 0, &Default::default()).is_none());
    }

    #[test]
    fn the_net_of_a_plan_is_its_output_less_its_network_fees() {
        let plan = Plan { routes: Vec::new(), out: 1_000, gas_value: 1_500 };
        assert_eq!(plan.net(), -500);
        let huge = Plan { routes: Vec::new(), out: u128::MAX, gas_value: 0 };
        assert_eq!(huge.net(), i128::MAX);
    }
}
