//! Float allocation over a fixed set of paths that may share pools: a compact layout of the pools they
//! touch, the joint output of a flow vector (routes run in order, each seeing what the earlier ones left, as
//! on chain), and a Newton polish that equalises the routes' marginal outputs.
//!
//! Greedy water-filling gets within one chunk of the optimum; where many routes share pools, a chunk is
//! too coarse to rank sets of paths or to split among 20 routes. The polish closes that gap at the cost of a
//! few joint evaluations per route, so it runs on top of a coarse fill instead of a finer one.

use smallvec::SmallVec;

use super::paths::Candidate;
use super::tuning::{MAX_STEP_LENGTH, POLISH_CONVERGED, POLISH_DIFFERENCE, POLISH_HALVINGS, POLISH_SMALLEST_STEP};
use crate::graph::PoolGraph;
use crate::pool::estimate as mobius;
use crate::pool::{Curve, Direction};

/// The slot reserves one path's run would write, in hop order (see [`Joint::run_recording`]).
pub(crate) type SlotWrites = SmallVec<[(usize, [f64; 2]); 5]>;

/// The pools of a path set laid out once: per distinct pool its id, curve, fee factors and float reserves,
/// per path its hops as slots into them.
pub(crate) struct Joint<'g> {
    ids: SmallVec<[crate::graph::PoolId; 32]>,
    curves: Vec<&'g Curve>,
    fees: Vec<(f64, f64)>,
    init: Vec<[f64; 2]>,
    paths: Vec<SmallVec<[(usize, Direction); 5]>>,
    scratch: Vec<[f64; 2]>,
}

impl<'g> Joint<'g> {
    pub(crate) fn new(graph: &'g PoolGraph, cands: &[&Candidate]) -> Joint<'g> {
        let mut ids: SmallVec<[crate::graph::PoolId; 32]> = SmallVec::new();
        let mut curves = Vec::new();
        let mut fees = Vec::new();
        let mut init = Vec::new();
        let paths = cands
            .iter()
            .map(|c| {
                c.hops
                    .iter()
                    .map(|&(pool, dir)| {
                        let slot = match ids.iter().position(|p| *p == pool) {
                            Some(s) => s,
                            None => {
                                ids.push(pool);
                                curves.push(&graph.pool(pool).curve);
                                fees.push(mobius::fee_factors(&graph.pool(pool).curve));
                                let [a, b] = graph.reserves(pool);
                                init.push([a as f64, b as f64]);
                                ids.len() - 1
                            }
                        };
                        (slot, dir)
                    })
                    .collect()
            })
            .collect();
        let scratch = init.clone();
        Joint { ids, curves, fees, init, paths, scratch }
    }

    /// The pools' float reserves before any flow, by slot.
    pub(crate) fn initial(&self) -> &[[f64; 2]] {
        &self.init
    }

    /// The pool of each slot.
    pub(crate) fn pool_ids(&self) -> &[crate::graph::PoolId] {
        &self.ids
    }

    /// One hop of `x` through slot `slot` in direction `dir` on its reserves `r` (contract order): the output
    /// and the slot's new reserves, or `None` where the float model refuses.
    #[inline(always)]
    fn hop_on(&self, r: [f64; 2], slot: usize, dir: Direction, x: f64) -> Option<(f64, [f64; 2])> {
        let (rin, rout) = match dir {
            Direction::ZeroToOne => (r[0], r[1]),
            Direction::OneToZero => (r[1], r[0]),
        };
        let (out, [nin, nout]) = mobius::float_out_with(self.curves[slot], self.fees[slot], dir, [rin, rout], x)?;
        let after = match dir {
            Direction::ZeroToOne => [nin, nout],
            Direction::OneToZero => [nout, nin],
        };
        Some((out, after))
    }

    /// Output of `t` along path `p` on the slot reserves `state`, hop by hop as
    /// `water_fill::FloatState::run` computes it, each hop's new reserves written. A hop the float model
    /// refuses ends the path with 0.
    #[inline]
    pub(crate) fn run_on(&self, state: &mut [[f64; 2]], p: usize, t: f64) -> f64 {
        let mut x = t;
        for &(slot, dir) in &self.paths[p] {
            let Some((out, after)) = self.hop_on(state[slot], slot, dir, x) else { return 0.0 };
            state[slot] = after;
            x = out;
        }
        x
    }

    /// [`Self::run_on`] without writing, recording in `after` each hop's new slot reserves as it would write
    /// them (up to a refusal, where it stops too): writing them is the run, to
    /// the bit, while `state` stays as it is.
    #[inline]
    pub(crate) fn run_recording(&self, state: &[[f64; 2]], p: usize, t: f64, after: &mut SlotWrites) -> f64 {
        after.clear();
        let mut x = t;
        for &(slot, dir) in &self.paths[p] {
            let Some((out, reserves)) = self.hop_on(state[slot], slot, dir, x) else { return 0.0 };
            after.push((slot, reserves));
            x = out;
        }
        x
    }

    /// Joint float output of `flows` (one per path, in path order): each path run on the reserves the
    /// earlier ones left ([`Self::run_on`]).
    pub(crate) fn total(&mut self, flows: &[f64]) -> f64 {
        let mut state = std::mem::take(&mut self.scratch);
        state.copy_from_slice(&self.init);
        let mut sum = 0.0;
        for (p, &flow) in flows.iter().enumerate().take(self.paths.len()) {
            if flow > 0.0 {
                sum += self.run_on(&mut state, p, flow);
            }
        }
        self.scratch = state;
        sum
    }

    /// Newton steps on the simplex `Σ flows = amount`: per path the marginal output and its curvature by
    /// central differences of the joint output (so shared pools are priced as they are executed), a step
    /// that equalises the marginals under that diagonal model, and a halving line search that only accepts
    /// a gain. Returns the joint output of the final flows.
    pub(crate) fn polish(&mut self, flows: &mut [f64], amount: f64, rounds: usize) -> f64 {
        let k = flows.len();
        let mut base = self.total(flows);
        if k < 2 || amount <= 0.0 {
            return base;
        }
        let h = amount * POLISH_DIFFERENCE;
        let mut grad = vec![0.0; k];
        let mut curv = vec![0.0; k];
        let mut trial = flows.to_vec();
        let mut kept = flows.to_vec();
        for _ in 0..rounds {
            for p in 0..k {
                trial.copy_from_slice(flows);
                trial[p] = flows[p] + h;
                let up = self.total(&trial);
                let (g, c) = if flows[p] >= h {
                    trial[p] = flows[p] - h;
                    let down = self.total(&trial);
                    ((up - down) / (2.0 * h), -(up - 2.0 * base + down) / (h * h))
                } else {
                    trial[p] = flows[p] + 2.0 * h;
                    let up2 = self.total(&trial);
                    ((up - base) / h, -(up2 - 2.0 * up + base) / (h * h))
                };
                grad[p] = g;
                // A flat or convex reading (float noise, a pool at its limit) gets a curvature that keeps the
                // step within a fraction of the amount.
                curv[p] = if c.is_finite() && c > 0.0 { c } else { f64::INFINITY };
            }
            let Some(step) = newton_step(flows, &grad, &curv, amount) else { break };
            // Two lengths (the joint output's curvature along the step, and the diagonal model's own), the
            // better kept; when neither gains, halving from the shorter.
            let line = self.step_length(flows, &step, base, h, &mut trial);
            let mut best = base;
            let mut try_length = |joint: &mut Self, alpha: f64, best: &mut f64| {
                let value = joint.along(flows, &step, alpha, amount, &mut trial);
                if value > *best {
                    *best = value;
                    kept.copy_from_slice(&trial);
                }
            };
            try_length(self, line, &mut best);
            if line != 1.0 {
                try_length(self, 1.0, &mut best);
            }
            let mut alpha = if line > 0.0 { line.min(1.0) } else { 1.0 };
            for _ in 0..POLISH_HALVINGS {
                if best > base {
                    break;
                }
                alpha *= 0.5;
                try_length(self, alpha, &mut best);
            }
            let accepted = best > base * (1.0 + POLISH_CONVERGED);
            if best > base {
                flows.copy_from_slice(&kept);
                base = best;
            }
            if !accepted {
                break;
            }
        }
        base
    }

    /// The joint output at `flows + alpha·step`, cut at zero and scaled back onto the simplex; the flows
    /// are left in `trial`.
    fn along(&mut self, flows: &[f64], step: &[f64], alpha: f64, amount: f64, trial: &mut [f64]) -> f64 {
        for ((t, f), d) in trial.iter_mut().zip(flows).zip(step) {
            *t = (f + alpha * d).max(0.0);
        }
        let sum: f64 = trial.iter().sum();
        if sum > 0.0 {
            trial.iter_mut().for_each(|f| *f *= amount / sum);
        }
        self.total(trial)
    }

    /// How far to go along `step`: the diagonal model ignores that routes sharing a pool move each other's
    /// marginals (twenty routes into one pool overshoot twentyfold), so the length comes from the joint
    /// output's own curvature along the step, read by one-sided differences, kept where no flow goes
    /// negative. 1 (the model's own length) when that curvature reads flat or convex.
    fn step_length(&mut self, flows: &[f64], step: &[f64], base: f64, h: f64, trial: &mut [f64]) -> f64 {
        let largest = step.iter().fold(0.0f64, |m, d| m.max(d.abs()));
        let feasible =
            flows.iter().zip(step).filter(|(_, d)| **d < 0.0).map(|(f, d)| f / -d).fold(MAX_STEP_LENGTH, f64::min);
        let t = h / largest;
        if !(t.is_finite() && t < 0.5 * feasible) {
            return 1.0_f64.min(feasible);
        }
        let mut at = |a: f64, trial: &mut [f64]| {
            for ((x, f), d) in trial.iter_mut().zip(flows).zip(step) {
                *x = f + a * d;
            }
            self.total(trial)
        };
        let one = at(t, trial);
        let two = at(2.0 * t, trial);
        let slope = (4.0 * one - two - 3.0 * base) / (2.0 * t);
        let curvature = -(two - 2.0 * one + base) / (t * t);
        if slope > 0.0 && curvature > 0.0 {
            (slope / curvature).min(feasible)
        } else {
            1.0_f64.min(feasible)
        }
    }
}

/// The step `Δ` with `Σ Δ = 0`, `flows + Δ ≥ 0` that maximises `Σ g·Δ − c·Δ²/2`: `Δ_p = (g_p − μ)/c_p` on
/// the paths left free, the ones that would go negative pinned at zero. `None` when the marginals are
/// already equal.
fn newton_step(flows: &[f64], grad: &[f64], curv: &[f64], amount: f64) -> Option<Vec<f64>> {
    let k = flows.len();
    let mut pinned = vec![false; k];
    let mut step = vec![0.0; k];
    for _ in 0..k {
        // Paths at zero whose marginal is below every active one stay at zero.
        let (mut sum_w, mut sum_gw, mut freed) = (0.0, 0.0, 0.0);
        for p in 0..k {
            if pinned[p] {
                freed += flows[p];
                continue;
            }
            let w = if curv[p].is_finite() { 1.0 / curv[p] } else { 0.0 };
            sum_w += w;
            sum_gw += grad[p] * w;
        }
        if sum_w <= 0.0 {
            return None;
        }
        // Σ_free (g − μ)/c = freed (what the pinned paths give up).
        let mu = (sum_gw - freed) / sum_w;
        let mut changed = false;
        for p in 0..k {
            if pinned[p] {
                step[p] = -flows[p];
                continue;
            }
            let d = if curv[p].is_finite() { (grad[p] - mu) / curv[p] } else { 0.0 };
            if flows[p] + d < 0.0 {
                pinned[p] = true;
                changed = true;
            }
            step[p] = d.min(amount);
        }
        if !changed {
            break;
        }
    }
    let moved: f64 = step.iter().map(|d| d.abs()).sum();
    (moved > amount * POLISH_SMALLEST_STEP).then_some(step)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::testkit::{graph as graph_of, path, FEE_BPS};

    /// Assets 0..3.
    fn graph(pools: &[(u32, u32, [u128; 2])]) -> PoolGraph {
        graph_of(3, pools)
    }

    /// `y·a·γ / (x + a·γ)`, the pool keeping the whole input: the formula, written out.
    fn cp(x: f64, y: f64, a: f64) -> (f64, f64, f64) {
        let net = a * (1.0 - f64::from(FEE_BPS) / 1e4);
        let out = y * net / (x + net);
        (out, x + a, y - out)
    }

    #[test]
    fn total_runs_routes_one_after_the_other() {
        // Two routes into asset 1: one direct through pool 0, one from asset 2 back to 0 and then through
        // pool 0 again, which sees the reserves the first route left.
        let g = graph(&[(0, 1, [1e12 as u128, 2e12 as u128]), (0, 2, [5e11 as u128, 5e11 as u128])]);
        let direct = path(&g, &[(0, Direction::ZeroToOne)]);
        // 2 → 0 is pool 1 backwards; then 0 → 1 again through pool 0.
        let around = path(&g, &[(1, Direction::OneToZero), (0, Direction::ZeroToOne)]);
        let (a, b) = (3e10, 2e10);
        let (o1, x0, y0) = cp(1e12, 2e12, a);
        let (mid, _, _) = cp(5e11, 5e11, b);
        let (o2, _, _) = cp(x0, y0, mid);
        let total = Joint::new(&g, &[&direct, &around]).total(&[a, b]);
        assert!((total - (o1 + o2)).abs() <= (o1 + o2) * 1e-12, "{total} vs {}", o1 + o2);
        // The other order gives a different answer: order matters, as on chain.
        let reversed = Joint::new(&g, &[&around, &direct]).total(&[b, a]);
        assert!((reversed - total).abs() > total * 1e-9);
    }

    #[test]
    fn polish_reaches_the_split_a_grid_search_finds() {
        // Two parallel pools of different depth and a third path through both assets: the optimum has no
        // closed form here, so a fine grid over the simplex is the reference.
        let g = graph(&[
            (0, 1, [1e12 as u128, 3e12 as u128]),
            (0, 1, [4e11 as u128, 1.2e12 as u128]),
            (0, 2, [6e11 as u128, 6e11 as u128]),
            (2, 1, [6e11 as u128, 1.8e12 as u128]),
        ]);
        let a = path(&g, &[(0, Direction::ZeroToOne)]);
        let b = path(&g, &[(1, Direction::ZeroToOne)]);
        let c = path(&g, &[(2, Direction::ZeroToOne), (3, Direction::ZeroToOne)]);
        let amount = 3e11;
        let mut joint = Joint::new(&g, &[&a, &b, &c]);
        let steps = 400;
        let mut best = 0.0f64;
        for i in 0..=steps {
            for j in 0..=steps - i {
                let f = [amount * i as f64 / steps as f64, amount * j as f64 / steps as f64];
                best = best.max(joint.total(&[f[0], f[1], amount - f[0] - f[1]]));
            }
        }
        let mut flows = [amount * 0.9, amount * 0.1, 0.0];
        let start = joint.total(&flows);
        let polished = joint.polish(&mut flows, amount, 12);
        assert!(polished > start);
        assert!((flows.iter().sum::<f64>() - amount).abs() <= amount * 1e-9);
        assert!(flows.iter().all(|f| *f >= 0.0));
        // The grid's own resolution (amount/400) costs it up to ~1e-6 of the output.
        assert!(polished >= best * (1.0 - 1e-7), "polished {polished} vs grid {best}");
        assert!((polished - joint.total(&flows)).abs() <= polished * 1e-12);
    }

    #[test]
    fn polish_converges_when_many_routes_share_a_pool() {
        // Eight routes 0 → 1 through their own pools, then all through one pool 1 → 2, beside a direct
        // pool 0 → 2. A step sized for each route alone overshoots eightfold on the shared pool. By
        // symmetry the eight get (nearly) equal flows, so a one-dimensional search over the direct flow
        // gives the reference.
        let k = 8u32;
        let mut pools: Vec<(u32, u32, [u128; 2])> = (0..k).map(|_| (0, 1, [2e11 as u128, 2e11 as u128])).collect();
        pools.push((1, 2, [1e12 as u128, 1e12 as u128]));
        pools.push((0, 2, [1e12 as u128, 1e12 as u128]));
        let g = graph(&pools);
        let mut cands: Vec<Candidate> =
            (0..k).map(|i| path(&g, &[(i, Direction::ZeroToOne), (k, Direction::ZeroToOne)])).collect();
        cands.push(path(&g, &[(k + 1, Direction::ZeroToOne)]));
        let refs: Vec<&Candidate> = cands.iter().collect();
        let mut joint = Joint::new(&g, &refs);
        let amount = 6e11;
        let symmetric = |joint: &mut Joint<'_>, direct: f64| {
            let mut f = vec![(amount - direct) / f64::from(k); k as usize];
            f.push(direct);
            joint.total(&f)
        };
        let (mut lo, mut hi) = (0.0, amount);
        for _ in 0..200 {
            let (a, b) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
            if symmetric(&mut joint, a) < symmetric(&mut joint, b) {
                lo = a;
            } else {
                hi = b;
            }
        }
        let reference = symmetric(&mut joint, lo);
        let mut flows = vec![0.0; k as usize + 1];
        flows[k as usize] = amount;
        let polished = joint.polish(&mut flows, amount, 3);
        assert!(polished >= reference * (1.0 - 1e-9), "polished {polished} vs reference {reference}");
    }

    #[test]
    fn polish_moves_nothing_on_a_balanced_split() {
        // Two identical pools: half and half is optimal by symmetry.
        let g = graph(&[(0, 1, [1e12 as u128, 1e12 as u128]), (0, 1, [1e12 as u128, 1e12 as u128])]);
        let a = path(&g, &[(0, Direction::ZeroToOne)]);
        let b = path(&g, &[(1, Direction::ZeroToOne)]);
        let amount = 1e11;
        let mut flows = [amount * 0.8, amount * 0.2];
        Joint::new(&g, &[&a, &b]).polish(&mut flows, amount, 10);
        assert!((flows[0] - amount / 2.0).abs() <= amount * 1e-4, "{flows:?}");
    }

    #[test]
    fn newton_step_pins_paths_that_would_go_negative() {
        // Path 1 has a far lower marginal and little flow: the step empties it and stays on the simplex.
        let step = newton_step(&[10.0, 1.0, 10.0], &[2.0, 0.5, 1.9], &[0.01, 0.01, 0.01], 21.0).unwrap();
        assert!((step[1] + 1.0).abs() < 1e-12, "{step:?}");
        assert!(step.iter().sum::<f64>().abs() < 1e-9, "{step:?}");
        assert!(step[0] > step[2]);
        // Equal marginals: nothing to do.
        assert!(newton_step(&[5.0, 5.0], &[1.0, 1.0], &[0.1, 0.1], 10.0).is_none());
    }
}
