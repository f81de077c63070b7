//! Path search: hop-limited rate bounds toward the output asset, and branch-and-bound enumeration of simple,
//! chainable paths ranked by a float objective.

use smallvec::SmallVec;

use super::mobius::{self, Mobius};
use super::sim::Hop;
use crate::graph::{AssetId, PoolGraph, PoolId};
use crate::pool::Direction;

/// A path from the input to the output asset, with its Möbius summary at the current reserves.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub hops: SmallVec<[Hop; 5]>,
    pub form: Mobius,
}

/// `levels[k][v]`: the best product of spot rates from `v` to the output asset within `k` hops
/// (chainability ignored, so an upper bound for chainable paths).
pub(crate) struct Bounds {
    levels: Vec<Vec<f64>>,
}

#[inline]
pub(crate) fn hop_form(graph: &PoolGraph, pool: PoolId, dir: Direction) -> Option<Mobius> {
    mobius::hop(&graph.pool(pool).curve, graph.reserves(pool), dir)
}

impl Bounds {
    /// Levels `0..=max_level` toward `dst`.
    pub(crate) fn compute(graph: &PoolGraph, dst: AssetId, max_level: usize) -> Bounds {
        let n = graph.asset_count();
        let mut first = vec![0.0f64; n];
        first[dst.index()] = 1.0;
        let mut levels = vec![first];
        let mut frontier = vec![dst];
        let mut in_next = vec![false; n];
        for _ in 0..max_level {
            let prev = levels.last().map(Vec::as_slice).unwrap_or_default();
            let mut cur = prev.to_vec();
            let mut next = Vec::new();
            for &u in &frontier {
                let via = prev[u.index()];
                for e in graph.edges(u) {
                    let v = e.to;
                    if v == dst {
                        continue;
                    }
                    // The edge leaves u; the rate we need is v → u, the pool's other direction.
                    let Some(form) = hop_form(graph, e.pool, e.direction.reverse()) else { continue };
                    let r = form.s * via;
                    if r > cur[v.index()] {
                        cur[v.index()] = r;
                        if !in_next[v.index()] {
                            in_next[v.index()] = true;
                            next.push(v);
                        }
                    }
                }
            }
            for v in &next {
                in_next[v.index()] = false;
            }
            frontier = next;
            levels.push(cur);
        }
        Bounds { levels }
    }

    /// Best rate from `v` to the output asset within `k` hops (0 when unreachable).
    #[inline]
    pub(crate) fn rate(&self, k: usize, v: AssetId) -> f64 {
        let k = k.min(self.levels.len() - 1);
        self.levels[k][v.index()]
    }
}

/// What a search ranks paths by.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Objective {
    /// Estimated output for the whole amount.
    Output { amount: f64 },
    /// Surplus `max_t out(t) − λ·t`, with `t` at most `amount`.
    Surplus { lambda: f64, amount: f64 },
}

impl Objective {
    #[inline]
    fn value(self, form: Mobius) -> f64 {
        match self {
            Objective::Output { amount } => form.out(amount),
            Objective::Surplus { lambda, amount } => form.surplus(lambda, amount),
        }
    }
}

/// The best `keep` paths by `objective` (best first).
pub(crate) struct Search<'a> {
    graph: &'a PoolGraph,
    bounds: &'a Bounds,
    dst: AssetId,
    max_length: usize,
    objective: Objective,
    keep: usize,
    found: Vec<(f64, Candidate)>,
    threshold: f64,
    path_assets: SmallVec<[AssetId; 6]>,
    path_hops: SmallVec<[Hop; 5]>,
    /// Work counter: edges looked at (for limits and profiling).
    pub visited: usize,
}

impl<'a> Search<'a> {
    pub(crate) fn new(
        graph: &'a PoolGraph,
        bounds: &'a Bounds,
        dst: AssetId,
        max_length: usize,
        objective: Objective,
        keep: usize,
    ) -> Search<'a> {
        Search {
            graph,
            bounds,
            dst,
            max_length,
            objective,
            keep: keep.max(1),
            found: Vec::new(),
            threshold: 0.0,
            path_assets: SmallVec::new(),
            path_hops: SmallVec::new(),
            visited: 0,
        }
    }

    pub(crate) fn run(mut self, src: AssetId) -> Vec<(f64, Candidate)> {
        self.path_assets.push(src);
        // Order the first hop by its optimistic value so good paths set the threshold early; on a hub with
        // thousands of pools, only the best few are ordered and the rest are pruned against them.
        let mut first: Vec<(f64, usize, Mobius)> = Vec::new();
        for (i, e) in self.graph.edges(src).iter().enumerate() {
            self.visited += 1;
            let Some(form) = hop_form(self.graph, e.pool, e.direction) else { continue };
            let bound = self.optimistic(form, e.to, 1);
            if bound > 0.0 {
                first.push((bound, i, form));
            }
        }
        let head = 32.min(first.len());
        if first.len() > head {
            first.select_nth_unstable_by(head, |a, b| b.0.total_cmp(&a.0));
        }
        first[..head].sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        for (bound, i, form) in first {
            if bound <= self.threshold {
                continue;
            }
            let e = self.graph.edges(src)[i];
            let group = self.graph.chain_group(e.pool);
            let multi = self.graph.pool(e.pool).protocol.multi_hop();
            self.step(e.pool, e.direction, e.to, form, group, multi);
        }
        self.found.sort_by(|a, b| b.0.total_cmp(&a.0));
        self.found
    }

    /// Upper bound of the objective over every completion of a prefix with summary `form` at `at`, having
    /// used `depth` hops.
    #[inline]
    fn optimistic(&self, form: Mobius, at: AssetId, depth: usize) -> f64 {
        let rest = if at == self.dst { 1.0 } else { self.bounds.rate(self.max_length - depth, at) };
        if rest <= 0.0 {
            return 0.0;
        }
        self.objective.value(Mobius { s: form.s * rest, c: form.c })
    }

    fn step(&mut self, pool: PoolId, dir: Direction, to: AssetId, form: Mobius, group: u32, multi: bool) {
        self.path_hops.push((pool, dir));
        self.path_assets.push(to);
        let depth = self.path_hops.len();
        if to == self.dst {
            let value = self.objective.value(form);
            self.offer(value, form);
        } else if multi && depth < self.max_length {
            let graph = self.graph;
            for e in graph.edges(to) {
                self.visited += 1;
                if graph.chain_group(e.pool) != group || self.path_assets.contains(&e.to) {
                    continue;
                }
                let Some(h) = hop_form(graph, e.pool, e.direction) else { continue };
                let next = form.then(h);
                if self.optimistic(next, e.to, depth + 1) <= self.threshold {
                    continue;
                }
                self.step(e.pool, e.direction, e.to, next, group, multi);
            }
        }
        self.path_hops.pop();
        self.path_assets.pop();
    }

    fn offer(&mut self, value: f64, form: Mobius) {
        if value <= self.threshold || !value.is_finite() {
            return;
        }
        let candidate = Candidate { hops: self.path_hops.clone(), form };
        // Paths that share their first or last pool compete for one bottleneck: at most `cap` of them are
        // kept, so one deep pool's many variants cannot crowd out every other pool.
        let cap = match self.objective {
            Objective::Output { .. } => usize::MAX,
            Objective::Surplus { .. } => (self.keep / 8).max(3),
        };
        let first = candidate.hops[0].0;
        let last = candidate.hops[candidate.hops.len() - 1].0;
        let same = |c: &Candidate| c.hops[0].0 == first || c.hops[c.hops.len() - 1].0 == last;
        let crowded = self.found.iter().filter(|f| same(&f.1)).count() >= cap;
        if crowded {
            let worst = self.found.iter_mut().filter(|f| same(&f.1)).min_by(|a, b| a.0.total_cmp(&b.0));
            match worst {
                Some(w) if w.0 < value => *w = (value, candidate),
                _ => return,
            }
        } else if self.found.len() < self.keep {
            self.found.push((value, candidate));
        } else if let Some(worst) = self.found.iter_mut().min_by(|a, b| a.0.total_cmp(&b.0)) {
            *worst = (value, candidate);
        }
        // A path worth less than a fixed share of the best one found is never worth keeping, even while
        // the list is not full (caps can keep it from ever filling).
        let best = self.found.iter().map(|f| f.0).fold(0.0, f64::max);
        let floor = best
            * match self.objective {
                Objective::Output { .. } => 0.5,
                Objective::Surplus { .. } => 1e-3,
            };
        let full = if self.found.len() == self.keep {
            self.found.iter().map(|f| f.0).fold(f64::INFINITY, f64::min)
        } else {
            0.0
        };
        self.threshold = full.max(floor);
    }
}
