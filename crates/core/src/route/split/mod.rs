//! The split of an amount over several paths, stage by stage ([`split_plan`]), for the planner both swap modes
//! share (`route::plan`), which runs the stages in order:
//! 1. `water_fill`: float flows over a fixed set of paths;
//! 2. `selection`: which candidates to use (diversification, forward selection, swaps);
//! 3. `settle`: exact integer amounts, simulated jointly, refined by exact transfers ([`Plan`]);
//! 4. `pricing`: column generation on the split's own state;
//! 5. `splice`: routes re-paired where they meet each other or a candidate (a route's head with another
//!    path's tail), kept when the settled output rises;
//! 6. `assemble`: the [`crate::route::Quote`] of a plan ([`build_quote`], for both modes).
//!
//! **The routes of a split never share a pool** ([`crate::route::sim::shares_pool`]): the chain runs a
//! split's messages in the order they arrive, not in the order the plan simulated them, and only routes
//! through distinct pools pay the quoted output in every order (as Uniswap's router does). Selection, pricing
//! and splicing each refuse a path that shares a pool with the routes it would join; settlement and assembly
//! get pool-disjoint sets only. The candidate list itself may share pools (diversification reads that).
//!
//! Must not know about request validation (done by [`crate::route::Router`]) nor the wire, nor the searches
//! for candidates (`route::plan`). Tuning constants live in `route::tuning`.

mod assemble;
mod pricing;
mod selection;
mod settle;
mod splice;
mod water_fill;

use std::cell::RefCell;

use crate::graph::PoolGraph;
use crate::route::budget::Budget;
use crate::route::joint::Joint;
use crate::route::paths::Candidate;
use crate::route::sim::{AloneRuns, Hop};
use crate::route::tuning::{CHUNKS, POLISH, PRICING_IMPACT, SPLICE_CLEAR_GAIN};
pub(crate) use assemble::build_quote;
pub(crate) use pricing::pricing_area;
use pricing::{price_in, Pricing};
use selection::choose_paths;
pub(crate) use selection::diversify;
use settle::settle;
pub(crate) use settle::{evaluate, Plan};
pub(crate) use splice::Splicer;
use water_fill::{water_fill, water_fill_with};

/// The outcome of an exact-in search: the plan, the best single route's output, the best spot rate.
pub(crate) struct Found {
    pub plan: Plan,
    pub best_single_out: u128,
    pub spot: f64,
}

/// Water-filling over the candidates, cut to `max_splits` routes, with network fees deciding how many.
#[allow(clippy::too_many_arguments)] // the stage's inputs; a struct would only rename them
pub(crate) fn split_plan(
    graph: &PoolGraph,
    candidates: &[Candidate],
    max_splits: usize,
    amount: u128,
    gas: &dyn Fn(&[Hop]) -> u128,
    with_gas: bool,
    pricing: &Pricing<'_>,
    splicer: &Splicer<'_>,
    budget: Budget<'_>,
    alone: &RefCell<AloneRuns>,
) -> Option<Plan> {
    let amount_f = amount as f64;
    let all: Vec<&Candidate> = candidates.iter().collect();
    let fees: Vec<f64> = all.iter().map(|c| if with_gas { gas(&c.hops) as f64 } else { 0.0 }).collect();
    let chosen: Vec<Candidate> = choose_paths(graph, &all, &fees, max_splits, amount_f).into_iter().cloned().collect();
    let (priced, warm) =
        if chosen.len() >= 2 { price_in(graph, chosen, max_splits, amount_f, pricing) } else { (chosen, None) };
    let mut active: Vec<&Candidate> = priced.iter().collect();
    let (mut flows, mut value) = water_fill_with(graph, &active, amount_f, CHUNKS, POLISH);
    // Pricing's own flows, polished further, can beat a fresh fill of its set: the fill's chunks are
    // coarse against twenty routes.
    if let Some(mut warm) = warm {
        let polished = Joint::new(graph, &active).polish(&mut warm, amount_f, POLISH);
        if polished > value {
            flows = warm;
            value = polished;
        }
    }
    (active, flows) = by_flow(active, &flows);

    // Splicing (see `splice`) where the split moves prices, as pricing: the routes re-paired where they meet.
    let spot = active.iter().map(|c| c.form.s).fold(0.0, f64::max);
    let fee = |hops: &[Hop]| if with_gas { gas(hops) as f64 } else { 0.0 };
    let spliced = if active.len() >= 2 && !budget.exhausted() && value < amount_f * spot * (1.0 - PRICING_IMPACT) {
        splicer.improve(active.iter().map(|c| (*c).clone()).collect(), flows.clone(), value, candidates, amount_f, &fee)
    } else {
        None
    };
    // The spliced set is settled on its own and kept if its exact output is larger than the split's as it was.
    // Settlement ends within rounding of the float optimum, so where splicing gained clearly in floats the
    // split as it was is not settled at all.
    let spliced_set;
    let mut best: Option<Plan> = None;
    let (mut kept, mut clear) = (None, false);
    if let Some((set, mut set_flows, _)) = spliced {
        spliced_set = set;
        let refs: Vec<&Candidate> = spliced_set.iter().collect();
        let polished = Joint::new(graph, &refs).polish(&mut set_flows, amount_f, POLISH);
        let (set_active, set_flows) = by_flow(refs, &set_flows);
        if let Some(plan) = settle(graph, &set_active, &set_flows, amount, gas, alone) {
            let net = |set: &[&Candidate], v: f64| v - set.iter().map(|c| fee(&c.hops)).sum::<f64>();
            clear = net(&set_active, polished) > net(&active, value) * (1.0 + SPLICE_CLEAR_GAIN);
            (best, kept) = (Some(plan), Some(set_active));
        }
    }
    if !clear {
        if let Some(plan) = settle(graph, &active, &flows, amount, gas, alone) {
            if best.as_ref().is_none_or(|b| plan.net() >= b.net()) {
                (best, kept) = (Some(plan), None);
            }
        }
    }
    if let Some(set) = kept {
        active = set;
    }
    let mut best = best?;
    if with_gas {
        // Fewer routes: drop the smallest and fill again while each route must pay for itself.
        let mut k = active.len();
        while k > 1 && !budget.exhausted() {
            k -= 1;
            let subset: Vec<&Candidate> = active[..k].to_vec();
            let sub_flows = water_fill(graph, &subset, amount_f);
            if let Some(plan) = settle(graph, &subset, &sub_flows, amount, gas, alone) {
                if plan.net() > best.net() {
                    best = plan;
                }
            }
        }
    }
    Some(best)
}

/// The paths with flow, largest flow first, and their flows.
fn by_flow<'c>(active: Vec<&'c Candidate>, flows: &[f64]) -> (Vec<&'c Candidate>, Vec<f64>) {
    let mut idx: Vec<usize> = (0..active.len()).filter(|&i| flows[i] > 0.0).collect();
    idx.sort_by(|&a, &b| flows[b].total_cmp(&flows[a]));
    (idx.iter().map(|&i| active[i]).collect(), idx.iter().map(|&i| flows[i]).collect())
}

#[cfg(test)]
mod tests {
    use crate::asset::{Asset, JettonMaster};
    use crate::graph::PoolGraph;
    use crate::route::request::QuoteRequest;
    use crate::route::testkit::{cp, graph};
    use crate::route::{NetworkFees, QuoteOptions, Router, RouterConfig};

    /// The depth of the shallow pools: small, so that every integer split of a trade can be tried.
    const S: u128 = 1_000_000;

    /// Assets 0 → 1 over two pools of depth S (pools 0 and 1), then 1 → 2 over pool 2, a hundred times
    /// deeper; pool 3 goes 0 → 2 directly at depth S/2. Paths: P0 = pools 0, 2; P1 = pools 1, 2; P3 = pool 3.
    /// P0 and P1 share the deepest pool, and together they are the best split of a whale (a first hop of
    /// depth 2·S), but on chain their order through pool 2 is not the quote's.
    fn deep_last_pool() -> PoolGraph {
        graph(3, &[(0, 1, [S, S]), (0, 1, [S, S]), (1, 2, [100 * S, 100 * S]), (0, 2, [S / 2, S / 2])])
    }

    #[test]
    fn a_split_never_shares_a_pool_and_pays_the_best_pool_disjoint_split() {
        let g = deep_last_pool();
        let amount: u128 = 400_000;
        let deep = |x: u128| cp(100 * S, 100 * S, x).0;
        // P0 and P1 alone (the same pools, the same output); P3 alone.
        let via = |t: u128| if t == 0 { 0 } else { deep(cp(S, S, t).0) };
        let direct = |t: u128| if t == 0 { 0 } else { cp(S / 2, S / 2, t).0 };
        // The pool-disjoint sets: one path, or P0 (or P1) beside P3; every integer split of the amount.
        let disjoint_best = (0..=amount).map(|t| via(t) + direct(amount - t)).max().unwrap();
        // P0 then P1 through pool 2 as it is left: the shared split the search must not make.
        let shared = |t: u128| {
            let (o0, x0, y0) = cp(100 * S, 100 * S, cp(S, S, t).0);
            let o1 = cp(x0, y0, cp(S, S, amount - t).0).0;
            o0 + o1
        };
        let shared_best = (1..amount).step_by(97).map(shared).max().unwrap();
        assert!(shared_best > disjoint_best, "the shared split must pay more here: {shared_best} vs {disjoint_best}");

        let router = Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() });
        let request = QuoteRequest::builder(Asset::Native, jetton(2), amount).max_splits(3).build().unwrap();
        let q = router.quote(&g, &request, QuoteOptions::default()).unwrap();
        let pools: Vec<Vec<usize>> =
            q.routes.iter().map(|r| r.steps.iter().map(|s| s.pool.index()).collect()).collect();
        for (i, a) in pools.iter().enumerate() {
            for b in &pools[i + 1..] {
                assert!(a.iter().all(|p| !b.contains(p)), "routes share a pool: {pools:?}");
            }
        }
        assert_eq!(q.out_amount, disjoint_best, "{pools:?}");
    }

    fn jetton(i: u8) -> Asset {
        Asset::Jetton(JettonMaster([i; 32]))
    }
}
