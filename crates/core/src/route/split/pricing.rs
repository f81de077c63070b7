//! Stage 4, pricing (column generation): paths the first searches ranked too low, found on the split's own
//! state.
//!
//! Owns the area pricing may search (the candidates' assets and rings around both ends), the pricing loop
//! (search at the split's marginal rate on the pools as the split leaves them; a path joins, or replaces the
//! smallest route, when the polished joint output rises and the path gets flow), and the test of one new
//! path. Must not search the graph itself (it calls the [`Pricing`] closure the caller builds over
//! `route::paths`) nor settle amounts.

use smallvec::SmallVec;

use super::selection::{cannot_beat, upper_bound, upper_form};
use super::water_fill::{state_after, water_fill_with};
use crate::graph::{AssetId, PoolGraph};
use crate::pool::estimate as mobius;
use crate::route::joint::Joint;
use crate::route::paths::{Candidate, PoolState};
use crate::route::sim::{shares_pool, Hop};
use crate::route::tuning::{
    CHUNKS_FAST, ENDPOINT_DEGREE, ENDPOINT_RINGS, LAMBDA_SPREAD, MIN_RELATIVE_GAIN, POLISH_PRICING, PRICING_FRESH,
    PRICING_IMPACT, PRICING_MIN_SHARE, PRICING_ROUNDS,
};
use ahash::AHashSet;

/// The assets pricing may pass: those of the candidates (the searches on untouched reserves have found where
/// the liquidity is, and confining pricing to it keeps it cheap), and those within two hops of either end
/// through assets that are not hubs (the pools near the output and the input decide a whale's price).
pub(crate) fn pricing_area(graph: &PoolGraph, candidates: &[Candidate], ends: [AssetId; 2]) -> AHashSet<AssetId> {
    // Fixed seeds (the sets' order is never read) and room for the candidates' assets up front: seeding and
    // growing two random-state sets was a fifth of the area's cost.
    let hasher = || ahash::RandomState::with_seeds(0x4528_21e6, 0x38d0_1377, 0xbe54_66cf, 0x34e9_0c6c);
    let mut allowed = AHashSet::with_capacity_and_hasher(2 * candidates.len() + 64, hasher());
    for c in candidates {
        for &(pool, _) in &c.hops {
            allowed.extend(graph.pool(pool).assets);
        }
    }
    // The rings are walked apart from `allowed`: an asset the candidates already pass still opens its own
    // neighbours.
    let mut reached = AHashSet::with_capacity_and_hasher(64, hasher());
    for end in ends {
        reached.insert(end);
        let mut ring = vec![end];
        for _ in 0..ENDPOINT_RINGS {
            let mut next = Vec::new();
            for &v in &ring {
                let edges = graph.edges(v);
                if edges.len() > ENDPOINT_DEGREE {
                    continue;
                }
                for e in edges {
                    allowed.insert(e.to);
                    if reached.insert(e.to) {
                        next.push(e.to);
                    }
                }
            }
            ring = next;
        }
    }
    allowed
}

/// New paths for a split, given the pools' float state after its flows and its marginal rate: the paths
/// with the largest surplus at that rate on that state, best first.
pub(crate) type Pricing<'p> = dyn Fn(&PoolState, f64, f64, usize) -> Vec<Candidate> + 'p;

/// Column generation on top of the chosen set: while a path outside it has a positive surplus at the
/// split's marginal rate on the pools as the split leaves them, it joins (or replaces the smallest route
/// when the set is full), if it shares no pool with the routes it joins and the joint fill says the split
/// gains. This finds paths through pools the
/// first searches, run on untouched reserves, ranked too low to keep. Returns the set with the flows
/// pricing last polished (`None` where it did not run).
pub(super) fn price_in(
    graph: &PoolGraph,
    mut active: Vec<Candidate>,
    max_splits: usize,
    amount: f64,
    pricing: &Pricing<'_>,
) -> (Vec<Candidate>, Option<Vec<f64>>) {
    let (mut flows, mut value) = water_fill_with(graph, &refs(&active), amount, CHUNKS_FAST, POLISH_PRICING);
    // Pricing pays where the split moves prices: a set the fill gives to one route, or whose output is
    // within PRICING_IMPACT of the best spot rate, has nothing a new path could win back.
    let spot = active.iter().map(|c| c.form.s).fold(0.0, f64::max);
    let routes = flows.iter().filter(|f| **f > 0.0).count();
    if routes < 2 || value >= amount * spot * (1.0 - PRICING_IMPACT) {
        return (active, None);
    }
    for _ in 0..PRICING_ROUNDS {
        // Routes the fill left empty free their slots.
        if flows.iter().any(|f| *f <= 0.0) {
            (active, flows) = active.into_iter().zip(flows).filter(|(_, f)| *f > 0.0).unzip();
        }
        let (state, marginals) = state_after(graph, &refs(&active), &flows, amount);
        // The split's marginal rate is that of its largest route. The short polish can leave the routes'
        // marginals apart; when nothing pays at the largest route's rate, the smallest marginal (the most
        // permissive rate) gets one more look.
        let largest = (0..flows.len()).max_by(|&a, &b| flows[a].total_cmp(&flows[b])).unwrap_or(0);
        let primary = marginals.get(largest).copied().unwrap_or(0.0);
        let lowest = marginals.iter().copied().filter(|m| *m > 0.0).fold(primary, f64::min);
        let mut accepted = None;
        for lambda in [primary, lowest] {
            if lambda <= 0.0 || (lambda != primary && lambda > primary * (1.0 - LAMBDA_SPREAD)) {
                continue;
            }
            // A path must add at least a millionth of the split's output to be worth a route.
            // The split's own routes are usually among the best on its state: look past them.
            let found = pricing(&state, lambda, value * PRICING_MIN_SHARE, active.len() + PRICING_FRESH);
            accepted = first_gain(graph, &active, &flows, value, max_splits, amount, found);
            if accepted.is_some() {
                break;
            }
        }
        let Some((trial, trial_flows, trial_value)) = accepted else { break };
        active = trial;
        flows = trial_flows;
        value = trial_value;
    }
    (active, Some(flows))
}

/// The first of `found` (not already in `active`, and sharing no pool with the routes it joins) whose
/// joining raises the split's polished output: the
/// new set, its flows and its output. The trial starts from the current flows (a fresh fill's chunk is
/// coarser than the routes being compared): the new path takes the slot, and the flow, of the smallest
/// route when the set is full, or starts empty; the polish then moves flow to it if it pays.
fn first_gain(
    graph: &PoolGraph,
    active: &[Candidate],
    flows: &[f64],
    value: f64,
    max_splits: usize,
    amount: f64,
    found: Vec<Candidate>,
) -> Option<(Vec<Candidate>, Vec<f64>, f64)> {
    let smallest = (0..flows.len()).min_by(|&a, &b| flows[a].total_cmp(&flows[b])).unwrap_or(0);
    let full = active.len() >= max_splits;
    // A new path shares no pool with the routes it joins (all of them, or all but the smallest it replaces).
    let apart =
        |hops: &[Hop]| active.iter().enumerate().all(|(i, a)| (full && i == smallest) || !shares_pool(&a.hops, hops));
    for fresh in found.into_iter().filter(|c| !active.iter().any(|a| a.hops == c.hops) && apart(&c.hops)) {
        let Some(form) = graph_form(graph, &fresh.hops) else { continue };
        let fresh = Candidate { hops: fresh.hops, form };
        let mut trial = active.to_vec();
        let mut trial_flows = flows.to_vec();
        let slot = if !full {
            trial.push(fresh);
            trial_flows.push(0.0);
            trial.len() - 1
        } else {
            trial[smallest] = fresh;
            smallest
        };
        // A trial whose upper bound cannot beat the split needs no polish (most of them: pricing's fresh
        // paths are alternatives to the routes already kept).
        let need = value * (1.0 + MIN_RELATIVE_GAIN);
        let forms: Option<SmallVec<[mobius::Mobius; 8]>> = trial.iter().map(|c| upper_form(graph, &c.hops)).collect();
        if forms.and_then(|mut f| upper_bound(&mut f, amount)).is_some_and(|bound| cannot_beat(bound, need)) {
            continue;
        }
        let trial_value = Joint::new(graph, &refs(&trial)).polish(&mut trial_flows, amount, POLISH_PRICING);
        // The polish also moves the other routes' flows: the path counts only if it is given some.
        if trial_flows[slot] > 0.0 && trial_value > need {
            return Some((trial, trial_flows, trial_value));
        }
    }
    None
}

fn refs(v: &[Candidate]) -> Vec<&Candidate> {
    v.iter().collect()
}

/// A path's Möbius form on the graph's reserves.
fn graph_form(graph: &PoolGraph, hops: &[Hop]) -> Option<mobius::Mobius> {
    hops.iter().try_fold(mobius::Mobius { s: 1.0, c: 0.0 }, |m, &(pool, dir)| Some(m.then(graph.form(pool, dir)?)))
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::pool::Direction;
    use crate::route::testkit::{cp_f, forward, graph, parallel, path, DEPTH};

    #[test]
    fn pricing_area_opens_the_neighbours_of_assets_the_candidates_pass() {
        // 0 → 2 directly and through 1; asset 3 is a neighbour of 1 only, asset 4 a neighbour of 3 only.
        // Asset 1 is the output's neighbour and on a candidate already: its own neighbour 3 (two hops from
        // the output) must open to pricing; 4, three hops from either end and on no candidate, must not.
        let r = [1e12 as u128, 1e12 as u128];
        let g = graph(5, &[(0, 2, r), (0, 1, r), (1, 2, r), (1, 3, r), (3, 4, r)]);
        let candidates =
            [path(&g, &[(0, Direction::ZeroToOne)]), path(&g, &[(1, Direction::ZeroToOne), (2, Direction::ZeroToOne)])];
        let allowed = pricing_area(&g, &candidates, [AssetId(0), AssetId(2)]);
        let mut allowed: Vec<u32> = allowed.into_iter().map(|a| a.0).collect();
        allowed.sort_unstable();
        assert_eq!(allowed, [0, 1, 2, 3]);
    }

    const D: f64 = DEPTH as f64;

    /// Output of the optimal split over parallel pools of combined depth `x` at price 2 (see
    /// `testkit::parallel`): one pool of that depth.
    fn combined(x: f64, a: f64) -> f64 {
        cp_f(x, 2.0 * x, a).0
    }

    fn pools(v: &[Candidate]) -> Vec<u32> {
        v.iter().map(|c| c.hops[0].0 .0).collect()
    }

    #[test]
    fn a_path_that_raises_the_split_joins_it() {
        let g = parallel();
        let a = 4e11;
        let active = vec![forward(&g, &[0]), forward(&g, &[1])];
        let flows = [a * 2.0 / 3.0, a / 3.0];
        let value = combined(1.5 * D, a);
        let (trial, trial_flows, trial_value) =
            first_gain(&g, &active, &flows, value, 3, a, vec![forward(&g, &[2])]).expect("pool 2 pays");
        assert_eq!(pools(&trial), vec![0, 1, 2]);
        assert!(trial_flows[2] > 0.0);
        assert!(trial_value > value);
        // Never above the optimum over all three pools.
        assert!(trial_value <= combined(1.75 * D, a) * (1.0 + 1e-12), "{trial_value}");
        assert!((trial_flows.iter().sum::<f64>() - a).abs() <= a * 1e-9);
    }

    #[test]
    fn a_full_split_replaces_its_smallest_route() {
        let g = parallel();
        let a = 4e11;
        // Pools 0 and 2 (depths D and D/4) at their optimum 4 : 1; pool 1 (D/2) is worth more than pool 2.
        let active = vec![forward(&g, &[0]), forward(&g, &[2])];
        let flows = [a * 0.8, a * 0.2];
        let value = combined(1.25 * D, a);
        let (trial, _, trial_value) =
            first_gain(&g, &active, &flows, value, 2, a, vec![forward(&g, &[1])]).expect("pool 1 pays");
        assert_eq!(pools(&trial), vec![0, 1]);
        assert!(trial_value > value && trial_value <= combined(1.5 * D, a) * (1.0 + 1e-12));
    }

    #[test]
    fn a_path_already_in_the_split_or_worth_nothing_is_refused() {
        // Pool 2 trades at a tenth of the others' price: no flow pays there.
        let g = graph(2, &[(0, 1, [DEPTH, 2 * DEPTH]), (0, 1, [DEPTH, 2 * DEPTH]), (0, 1, [DEPTH, DEPTH / 5])]);
        let a = 1e11;
        let active = vec![forward(&g, &[0]), forward(&g, &[1])];
        let flows = [a / 2.0, a / 2.0];
        let value = 2.0 * cp_f(D, 2.0 * D, a / 2.0).0;
        assert!(first_gain(&g, &active, &flows, value, 3, a, vec![forward(&g, &[0])]).is_none());
        assert!(first_gain(&g, &active, &flows, value, 3, a, vec![forward(&g, &[2])]).is_none());
    }

    #[test]
    fn pricing_runs_only_where_the_split_moves_prices() {
        let g = parallel();
        let calls = Cell::new(0);
        let offer: &Pricing<'_> = &|_state: &PoolState, lambda: f64, least: f64, _keep: usize| {
            calls.set(calls.get() + 1);
            assert!(lambda > 0.0 && least > 0.0);
            vec![forward(&g, &[2])]
        };
        let active = || vec![forward(&g, &[0]), forward(&g, &[1])];
        // A few thousand units move no price: nothing to win back, no search.
        let (kept, flows) = price_in(&g, active(), 3, 5e3, offer);
        assert_eq!((pools(&kept), flows, calls.get()), (vec![0, 1], None, 0));
        // A whale: pricing offers pool 2, which joins.
        let a = 5e11;
        let (kept, flows) = price_in(&g, active(), 3, a, offer);
        assert!(calls.get() >= 1);
        assert_eq!(pools(&kept), vec![0, 1, 2]);
        let flows = flows.expect("pricing ran");
        assert!((flows.iter().sum::<f64>() - a).abs() <= a * 1e-9);
        assert!(flows.iter().all(|f| *f > 0.0));
    }
}
