//! Stage 1, float water-fill: how a fixed set of paths shares an amount, in floats, with the pools they share
//! seen as the routes leave them.
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
use crate::route::joint::Joint;
use crate::route::paths::{Candidate, PoolState};
use crate::route::sim::Hop;
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

    /// Output of `t` along `hops`; with `commit`, the new reserves are kept.
    pub(super) fn run(&mut self, graph: &PoolGraph, hops: &[Hop], t: f64, commit: bool) -> f64 {
        let mut x = t;
        for &(pool, dir) in hops {
            let r = self.get(graph, pool);
            let (rin, rout) = match dir {
                Direction::ZeroToOne => (r[0], r[1]),
                Direction::OneToZero => (r[1], r[0]),
            };
            let Some((out, [nin, nout])) = mobius::float_out(&graph.pool(pool).curve, dir, [rin, rout], x) else {
                return 0.0;
            };
            if commit {
                let nr = match dir {
                    Direction::ZeroToOne => [nin, nout],
                    Direction::OneToZero => [nout, nin],
                };
                self.set(pool, nr);
            }
            x = out;
        }
        x
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
/// what earlier chunks did to shared pools. Returns the float flow per candidate.
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
    let (mut flows, total, _) = water_fill_state(graph, cands, amount, chunks);
    if cands.len() < 2 {
        return (flows, total);
    }
    let total = Joint::new(graph, cands).polish(&mut flows, amount, rounds);
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
    let shares: Vec<Vec<bool>> = (0..n)
        .map(|i| (0..n).map(|j| cands[i].hops.iter().any(|(p, _)| cands[j].hops.iter().any(|(q, _)| p == q))).collect())
        .collect();
    let chunk = amount / chunks as f64;
    let mut state = FloatState::default();
    let mut gain: Vec<f64> = cands.iter().map(|c| state.run(graph, &c.hops, chunk, false)).collect();
    let mut total = 0.0;
    for _ in 0..chunks {
        let Some(best) = (0..n).max_by(|&a, &b| gain[a].total_cmp(&gain[b])) else { break };
        total += state.run(graph, &cands[best].hops, chunk, true);
        flows[best] += chunk;
        for j in 0..n {
            if shares[best][j] {
                gain[j] = state.run(graph, &cands[j].hops, chunk, false);
            }
        }
    }
    (flows, total, state)
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
