//! Stage 1, float water-fill: how a fixed set of pool-disjoint paths (a split's routes share no pool, see
//! [`crate::route::sim::shares_pool`]) shares an amount, in floats.
//!
//! Owns the float pool state of an allocation ([`FloatState`]), the greedy chunked fill (optionally polished
//! by the Newton steps of `route::joint`), and the state and marginal rates a split leaves behind. Must not
//! choose paths (selection, pricing) nor produce integer amounts (settlement): its flows are floats, for
//! ranking only.

use smallvec::SmallVec;

use crate::graph::PoolGraph;
use crate::graph::PoolId;
use crate::pool::estimate as mobius;
use crate::pool::Direction;
use crate::route::joint::{Joint, SlotWrites};
use crate::route::paths::{Candidate, PoolState};
use crate::route::sim::{pool_disjoint, Hop};
use crate::route::tuning::{CHUNKS, MARGINAL_PROBE};

/// Float state of the pools touched by an allocation: `(pool, [reserve0, reserve1])`.
#[derive(Clone, Default)]
pub(super) struct FloatState {
    pools: SmallVec<[(PoolId, [f64; 2]); 32]>,
}

impl FloatState {
    fn get(&self, graph: &PoolGraph, pool: PoolId) -> [f64; 2] {
        match self.pools.iter().find(|(p, _)| *p == pool) {
            Some((_, r)) => *r,
            None => {
                let [a, b] = graph.reserves(pool);
                [a as f64, b as f64]
            }
        }
    }

    fn set(&mut self, pool: PoolId, r: [f64; 2]) {
        match self.pools.iter_mut().find(|(p, _)| *p == pool) {
            Some(slot) => slot.1 = r,
            None => self.pools.push((pool, r)),
        }
    }

    /// One swap of `x` through `pool` on this state: the output and the pool's new reserves (in pool order).
    fn swap(&self, graph: &PoolGraph, pool: PoolId, dir: Direction, x: f64) -> Option<(f64, [f64; 2])> {
        let r = self.get(graph, pool);
        let (rin, rout) = match dir {
            Direction::ZeroToOne => (r[0], r[1]),
            Direction::OneToZero => (r[1], r[0]),
        };
        let (out, [nin, nout]) = mobius::float_out(&graph.pool(pool).curve, dir, [rin, rout], x)?;
        let nr = match dir {
            Direction::ZeroToOne => [nin, nout],
            Direction::OneToZero => [nout, nin],
        };
        Some((out, nr))
    }

    /// Output of `t` along `hops`; with `commit`, the new reserves are kept.
    pub(super) fn run(&mut self, graph: &PoolGraph, hops: &[Hop], t: f64, commit: bool) -> f64 {
        let mut x = t;
        for &(pool, dir) in hops {
            let Some((out, nr)) = self.swap(graph, pool, dir, x) else {
                return 0.0;
            };
            if commit {
                self.set(pool, nr);
            }
            x = out;
        }
        x
    }

    /// Output of `t` along `hops` on this state, which stays as it is.
    pub(super) fn out(&self, graph: &PoolGraph, hops: &[Hop], t: f64) -> f64 {
        let mut x = t;
        for &(pool, dir) in hops {
            let Some((out, _)) = self.swap(graph, pool, dir, x) else {
                return 0.0;
            };
            x = out;
        }
        x
    }

    /// [`Self::form`] with the graph's own summary for the pools this state has not moved: the same map, without
    /// converting their reserves again (splicing reads thousands of short segments, most through such pools).
    pub(super) fn form_over(&self, graph: &PoolGraph, hops: &[Hop]) -> Option<mobius::Mobius> {
        let mut m = mobius::Mobius { s: 1.0, c: 0.0 };
        for &(pool, dir) in hops {
            let hop = match self.pools.iter().find(|(p, _)| *p == pool) {
                Some((_, r)) => {
                    let (x, y) = match dir {
                        Direction::ZeroToOne => (r[0], r[1]),
                        Direction::OneToZero => (r[1], r[0]),
                    };
                    mobius::hop_f(&graph.pool(pool).curve, dir, x, y)?
                }
                None => graph.form(pool, dir)?,
            };
            m = m.then(hop);
        }
        Some(m)
    }

    /// Möbius form of a path on this state.
    pub(super) fn form(&self, graph: &PoolGraph, hops: &[Hop]) -> Option<mobius::Mobius> {
        let mut m = mobius::Mobius { s: 1.0, c: 0.0 };
        for &(pool, dir) in hops {
            let r = self.get(graph, pool);
            let (x, y) = match dir {
                Direction::ZeroToOne => (r[0], r[1]),
                Direction::OneToZero => (r[1], r[0]),
            };
            m = m.then(mobius::hop_f(&graph.pool(pool).curve, dir, x, y)?);
        }
        Some(m)
    }
}

/// Greedy water-filling: [`CHUNKS`] equal chunks, each to the path that turns it into the most output given
/// what earlier chunks did to its pools. Returns the float flow per candidate.
pub(super) fn water_fill(graph: &PoolGraph, cands: &[&Candidate], amount: f64) -> Vec<f64> {
    water_fill_state(graph, cands, amount, CHUNKS).0
}

/// [`water_fill`] with a chosen number of chunks, then `rounds` of Newton polish; also returns the float
/// total output, that of the routes run one after the other (as on chain, not chunk by chunk).
pub(super) fn water_fill_with(
    graph: &PoolGraph,
    cands: &[&Candidate],
    amount: f64,
    chunks: usize,
    rounds: usize,
) -> (Vec<f64>, f64) {
    if cands.len() < 2 {
        let (flows, total, _) = water_fill_state(graph, cands, amount, chunks);
        return (flows, total);
    }
    // One layout of the pools for the fill and the polish.
    let mut joint = Joint::new(graph, cands);
    let (mut flows, _, _) = fill(&joint, cands, amount, chunks);
    let total = joint.polish(&mut flows, amount, rounds);
    (flows, total)
}

/// [`water_fill_with`], also returning the pools' float state after the allocation.
pub(super) fn water_fill_state(
    graph: &PoolGraph,
    cands: &[&Candidate],
    amount: f64,
    chunks: usize,
) -> (Vec<f64>, f64, FloatState) {
    let n = cands.len();
    let mut flows = vec![0.0; n];
    if n == 0 {
        return (flows, 0.0, FloatState::default());
    }
    if n == 1 {
        flows[0] = amount;
        let mut state = FloatState::default();
        let out = state.run(graph, &cands[0].hops, amount, true);
        return (flows, out, state);
    }
    fill(&Joint::new(graph, cands), cands, amount, chunks)
}

/// The chunked fill of [`water_fill_state`] for two or more paths, on the pools laid out in slots by
/// `joint` (its fee factors computed once, reserves by index instead of a search): the same runs in the same
/// order as on a [`FloatState`], so the same flows to the bit, and the same state at the end (pools in the
/// order they were first written).
fn fill(joint: &Joint<'_>, cands: &[&Candidate], amount: f64, chunks: usize) -> (Vec<f64>, f64, FloatState) {
    let n = cands.len();
    let mut flows = vec![0.0; n];
    if n == 0 {
        return (flows, 0.0, FloatState::default());
    }
    debug_assert!(pool_disjoint(cands.iter().map(|c| c.hops.as_slice())), "a split's paths share a pool");
    let chunk = amount / chunks as f64;
    let mut state = joint.initial().to_vec();
    // The slots written, in the order first written (the state handed back lists its pools so).
    let mut written: SmallVec<[usize; 32]> = SmallVec::new();
    let mut is_written = vec![false; state.len()];
    // Each path's gain for the next chunk is read on the current state (a commit re-reads only the path
    // committed: the others' pools are not its), together with the reserves that chunk would leave:
    // committing the best path writes them and adds its gain, which is what running it again would do, to
    // the bit.
    let mut after: Vec<SlotWrites> = vec![SlotWrites::new(); n];
    let mut gain: Vec<f64> = (0..n).map(|j| joint.run_recording(&state, j, chunk, &mut after[j])).collect();
    let mut total = 0.0;
    for _ in 0..chunks {
        // The last of the largest gains, as `Iterator::max_by` picks it.
        let mut best = 0;
        for j in 1..n {
            if gain[j].total_cmp(&gain[best]).is_ge() {
                best = j;
            }
        }
        for &(slot, reserves) in &after[best] {
            state[slot] = reserves;
            if !is_written[slot] {
                is_written[slot] = true;
                written.push(slot);
            }
        }
        total += gain[best];
        flows[best] += chunk;
        gain[best] = joint.run_recording(&state, best, chunk, &mut after[best]);
    }
    let ids = joint.pool_ids();
    let pools = written.iter().map(|&slot| (ids[slot], state[slot])).collect();
    (flows, total, FloatState { pools })
}

/// The pools' float state after `flows` run route by route over `set`, and the marginal rate of each route
/// read on that state.
pub(super) fn state_after(graph: &PoolGraph, set: &[&Candidate], flows: &[f64], amount: f64) -> (PoolState, Vec<f64>) {
    let mut state = FloatState::default();
    for (c, &f) in set.iter().zip(flows) {
        if f > 0.0 {
            state.run(graph, &c.hops, f, true);
        }
    }
    let probe = amount * MARGINAL_PROBE;
    let marginals = set.iter().map(|c| state.run(graph, &c.hops, probe, false) / probe).collect();
    (state.pools.iter().copied().collect(), marginals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::testkit::{argmax_1d, cp_f, diamond, forward, linear, parallel_paths, DEPTH};

    const D: f64 = DEPTH as f64;

    fn close(got: f64, want: f64, rel: f64) -> bool {
        (got - want).abs() <= want.abs() * rel
    }

    #[test]
    fn one_path_takes_the_whole_amount_and_moves_its_pools_as_the_formula_says() {
        let g = linear();
        let p = forward(&g, &[0, 1, 2]);
        let a = 7e10;
        let (flows, total, state) = water_fill_state(&g, &[&p], a, CHUNKS);
        assert_eq!(flows, vec![a]);
        let (o1, x1, y1) = cp_f(D, 2.0 * D, a);
        let (o2, x2, y2) = cp_f(2.0 * D, 2.0 * D, o1);
        let (o3, x3, y3) = cp_f(D, 3.0 * D, o2);
        assert!(close(total, o3, 1e-12), "{total} vs {o3}");
        for (pool, want) in [(0, [x1, y1]), (1, [x2, y2]), (2, [x3, y3])] {
            let got = state.get(&g, PoolId(pool));
            assert!(close(got[0], want[0], 1e-12) && close(got[1], want[1], 1e-12), "pool {pool}: {got:?} vs {want:?}");
        }
    }

    #[test]
    fn parallel_pools_at_one_price_fill_in_proportion_to_their_depth() {
        // Depths D, D/2, D/4 at the same price: the optimum gives each 4/7, 2/7, 1/7 of the amount; the
        // greedy fill is within one chunk of it on every pool.
        let (g, paths) = parallel_paths();
        let refs: Vec<&Candidate> = paths.iter().collect();
        let a = 2e11;
        let flows = water_fill(&g, &refs, a);
        let chunk = a / CHUNKS as f64;
        for (f, share) in flows.iter().zip([4.0 / 7.0, 2.0 / 7.0, 1.0 / 7.0]) {
            assert!((f - a * share).abs() <= chunk, "{flows:?}");
        }
        assert!(close(flows.iter().sum::<f64>(), a, 1e-12));
    }

    #[test]
    fn a_polished_fill_of_the_diamond_reaches_the_grid_optimum() {
        // Two pool-disjoint two-hop paths: the best split by a grid (and golden-section refinement) over the
        // upper path's share, each path's output by the formula.
        let g = diamond();
        let upper = forward(&g, &[0, 2]);
        let lower = forward(&g, &[1, 3]);
        let a = 1.5e11;
        let out_upper = |t: f64| cp_f(D, 2.0 * D, cp_f(D, D, t).0).0;
        let out_lower = |t: f64| cp_f(D / 2.0, D, cp_f(D / 2.0, D / 2.0, t).0).0;
        let (_, best) = argmax_1d(a, 2_000, |t| out_upper(t) + out_lower(a - t));
        let (coarse, _, _) = water_fill_state(&g, &[&upper, &lower], a, CHUNKS_FAST_FOR_TEST);
        let (flows, total) = water_fill_with(&g, &[&upper, &lower], a, CHUNKS_FAST_FOR_TEST, 6);
        assert!(total >= best * (1.0 - 1e-9), "polished {total} vs grid {best}");
        assert!(total <= best * (1.0 + 1e-12), "above the optimum: {total} vs {best}");
        // The polish never loses against the fill it starts from.
        assert!(total >= out_upper(coarse[0]) + out_lower(coarse[1]));
        assert!(close(flows.iter().sum::<f64>(), a, 1e-9));
        // The reported total is that of the returned flows.
        assert!(close(total, out_upper(flows[0]) + out_lower(flows[1]), 1e-12));
    }

    /// A coarse chunk count, so that the polish has a gap to close.
    const CHUNKS_FAST_FOR_TEST: usize = 8;

    #[test]
    fn a_fill_of_pool_disjoint_routes_totals_each_route_on_its_own_pools() {
        // diamond: the upper path (pools 0, 2) and the lower (1, 3) share no pool. The chunked fill re-reads
        // only the path it gives a chunk to; the total of the fill (each route run once with its flow, as on
        // chain, not chunk by chunk) is each path's formula at its flow.
        let g = diamond();
        let (upper, lower) = (forward(&g, &[0, 2]), forward(&g, &[1, 3]));
        let a = 2e11;
        let (flows, total) = water_fill_with(&g, &[&upper, &lower], a, CHUNKS, 0);
        assert!(flows[0] > 0.0 && flows[1] > 0.0, "{flows:?}");
        let up = cp_f(D, 2.0 * D, cp_f(D, D, flows[0]).0).0;
        let low = cp_f(D / 2.0, D, cp_f(D / 2.0, D / 2.0, flows[1]).0).0;
        assert!(close(total, up + low, 1e-12), "{total} vs {}", up + low);
    }

    #[test]
    fn state_after_holds_the_moved_pools_and_their_marginal_rates() {
        let g = linear();
        let p = forward(&g, &[0, 1]);
        let a = 5e10;
        let (state, marginals) = state_after(&g, &[&p], &[a], a);
        let (o1, x1, y1) = cp_f(D, 2.0 * D, a);
        let (_, x2, y2) = cp_f(2.0 * D, 2.0 * D, o1);
        let r0 = state[&PoolId(0)];
        let r1 = state[&PoolId(1)];
        assert!(close(r0[0], x1, 1e-12) && close(r0[1], y1, 1e-12));
        assert!(close(r1[0], x2, 1e-12) && close(r1[1], y2, 1e-12));
        assert!(!state.contains_key(&PoolId(2)), "pool 2 was not used");
        // The marginal rate on the moved pools: the product of γ·y/x after the flow (the probe adds a
        // relative error of about 2·probe/x).
        let gamma = 1.0 - f64::from(crate::route::testkit::FEE_BPS) / 1e4;
        let want = gamma * y1 / x1 * gamma * y2 / x2;
        assert!(close(marginals[0], want, 1e-5), "{} vs {want}", marginals[0]);
    }

    #[test]
    fn no_paths_no_flow() {
        let g = linear();
        let (flows, total, _) = water_fill_state(&g, &[], 1e9, CHUNKS);
        assert!(flows.is_empty() && total == 0.0);
    }
}
