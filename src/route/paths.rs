//! Path search: hop-limited rate bounds toward the output asset, and branch-and-bound enumeration of simple,
//! chainable paths ranked by a float objective. A pool may follow another only where
//! [`PoolGraph::chains`] says so under the router's [`HandOffPolicy`] (the one chaining rule,
//! [`crate::graph::handoff`]).

use smallvec::SmallVec;

use super::sim::Hop;
use crate::graph::{AssetId, HandOffPolicy, PoolGraph, PoolId};
use crate::pool::estimate::Mobius;
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
    /// The same bounds over paths that avoid `hub` (the native asset): once a path has passed the hub, it
    /// cannot pass it again, and the plain bounds, which would go back through it, are far too loose.
    avoiding_hub: Option<(AssetId, Vec<Vec<f64>>)>,
}

#[inline]
pub(crate) fn hop_form(graph: &PoolGraph, pool: PoolId, dir: Direction) -> Option<Mobius> {
    graph.form(pool, dir)
}

impl Bounds {
    /// Levels `0..=max_level` toward `dst`, plain and avoiding `hub`.
    pub(crate) fn compute(graph: &PoolGraph, dst: AssetId, max_level: usize, hub: Option<AssetId>) -> Bounds {
        let levels = Self::levels(graph, dst, max_level, None);
        let avoiding_hub = hub.filter(|h| *h != dst).map(|h| (h, Self::levels(graph, dst, max_level, Some(h))));
        Bounds { levels, avoiding_hub }
    }

    fn levels(graph: &PoolGraph, dst: AssetId, max_level: usize, avoid: Option<AssetId>) -> Vec<Vec<f64>> {
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
                    if v == dst || Some(v) == avoid {
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
        levels
    }

    /// Best rate from `v` to the output asset within `k` hops (0 when unreachable).
    #[inline]
    pub(crate) fn rate(&self, k: usize, v: AssetId) -> f64 {
        let k = k.min(self.levels.len() - 1);
        self.levels[k][v.index()]
    }

    /// [`Self::rate`] for a path that has already visited `visited`: avoids the hub when it is among them.
    #[inline]
    pub(crate) fn rate_after(&self, k: usize, v: AssetId, visited: &[AssetId]) -> f64 {
        match &self.avoiding_hub {
            Some((hub, levels)) if *hub != v && visited.contains(hub) => levels[k.min(levels.len() - 1)][v.index()],
            _ => self.rate(k, v),
        }
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
    /// Sorted children of high-degree assets, per (asset, hops left after the child).
    hub_children: Vec<HubChildren>,
    first_count: ahash::AHashMap<PoolId, usize>,
    last_count: ahash::AHashMap<PoolId, usize>,
    best: f64,
    min_index: usize,
    floor: Option<f64>,
    /// Float reserves that replace the graph's for some pools (a split's state after its flows).
    state: Option<&'a PoolState>,
    /// When set, only these assets (by index) may be visited.
    allowed: Option<&'a [bool]>,
    /// Whether surplus searches cap the paths sharing a first or last pool.
    capped: bool,
    /// Which hand-offs a path may use.
    policy: HandOffPolicy,
}

/// Float reserves `[reserve0, reserve1]` of pools moved by an allocation.
pub(crate) type PoolState = ahash::AHashMap<PoolId, [f64; 2]>;

/// Children of a hub asset for a number of hops left: `(sort key, edge index, hop form)`, best first.
type HubChildren = ((AssetId, usize), Vec<(f64, u32, Mobius)>);

/// The sorted hub children one search built, for the next search toward the same output on the same
/// bounds and the graph's own reserves (no state, no confinement): the order depends on nothing else.
#[derive(Default)]
pub(crate) struct HubOrder(Vec<HubChildren>);

/// Assets with more pools than this are expanded through a sorted child list.
const HUB_DEGREE: usize = 64;

impl<'a> Search<'a> {
    pub(crate) fn new(
        graph: &'a PoolGraph,
        policy: HandOffPolicy,
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
            hub_children: Vec::new(),
            first_count: ahash::AHashMap::new(),
            last_count: ahash::AHashMap::new(),
            best: 0.0,
            min_index: 0,
            floor: None,
            state: None,
            allowed: None,
            capped: true,
            policy,
        }
    }

    /// Searches on `state` instead of the graph's reserves for the pools it holds. The bounds stay the
    /// graph's: an allocation only lowers the rates of the directions it uses, so they remain upper bounds
    /// for those (a pool passed the other way would be priced a little low, which only prunes).
    pub(crate) fn with_state(mut self, state: &'a PoolState) -> Search<'a> {
        self.state = Some(state);
        self
    }

    /// Confines the search to the assets marked in `allowed` (indexed by asset id; the output asset is
    /// always allowed).
    pub(crate) fn within(mut self, allowed: &'a [bool]) -> Search<'a> {
        self.allowed = Some(allowed);
        self
    }

    /// Keeps the best paths whatever pools they share (for searches on a split's own state, where the
    /// pools the split already drives have lost their surplus).
    pub(crate) fn uncapped(mut self) -> Search<'a> {
        self.capped = false;
        self
    }

    #[inline(always)]
    fn may_visit(&self, v: AssetId) -> bool {
        v == self.dst || self.allowed.is_none_or(|a| a.get(v.index()).copied().unwrap_or(false))
    }

    /// Starts from the hub children an earlier search toward the same output built (see [`HubOrder`]).
    pub(crate) fn with_hub_order(mut self, order: HubOrder) -> Search<'a> {
        debug_assert!(self.state.is_none() && self.allowed.is_none());
        self.hub_children = order.0;
        self
    }

    /// Paths worth no more than `threshold` are not looked for.
    pub(crate) fn with_threshold(mut self, threshold: f64) -> Search<'a> {
        self.threshold = threshold.max(0.0);
        self
    }

    #[inline(always)]
    fn hop(&self, pool: PoolId, dir: Direction) -> Option<Mobius> {
        match self.state {
            None => hop_form(self.graph, pool, dir),
            Some(state) => self.hop_on(state, pool, dir),
        }
    }

    /// [`Self::hop`] on a split's state (kept out of line: the plain searches never take it).
    #[inline(never)]
    fn hop_on(&self, state: &PoolState, pool: PoolId, dir: Direction) -> Option<Mobius> {
        match state.get(&pool) {
            Some(r) => {
                let (x, y) = match dir {
                    Direction::ZeroToOne => (r[0], r[1]),
                    Direction::OneToZero => (r[1], r[0]),
                };
                crate::pool::estimate::hop_f(&self.graph.pool(pool).curve, dir, x, y)
            }
            None => hop_form(self.graph, pool, dir),
        }
    }

    /// Sets the share of the best value below which paths are not kept (default: 0.5 of the best single
    /// output, 0.001 of the best surplus).
    pub(crate) fn with_floor(mut self, floor: f64) -> Search<'a> {
        self.floor = Some(floor);
        self
    }

    pub(crate) fn run(self, src: AssetId) -> Vec<(f64, Candidate)> {
        self.run_keeping_order(src).0
    }

    /// [`Self::run`], also handing back the hub children it sorted.
    pub(crate) fn run_keeping_order(mut self, src: AssetId) -> (Vec<(f64, Candidate)>, HubOrder) {
        self.path_assets.push(src);
        // Order the first hop by its optimistic value so good paths set the threshold early; on a hub with
        // thousands of pools, only the best few are ordered and the rest are pruned against them.
        let mut first: Vec<(f64, usize, Mobius)> = Vec::new();
        for (i, e) in self.graph.edges(src).iter().enumerate() {
            self.visited += 1;
            if !self.may_visit(e.to) {
                continue;
            }
            let Some(form) = self.hop(e.pool, e.direction) else { continue };
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
            self.step(e.pool, e.direction, e.to, form);
        }
        self.found.sort_by(|a, b| b.0.total_cmp(&a.0));
        (self.found, HubOrder(self.hub_children))
    }

    /// Upper bound of the objective over every completion of a prefix with summary `form` at `at`, having
    /// used `depth` hops.
    #[inline]
    fn optimistic(&self, form: Mobius, at: AssetId, depth: usize) -> f64 {
        let rest =
            if at == self.dst { 1.0 } else { self.bounds.rate_after(self.max_length - depth, at, &self.path_assets) };
        if rest <= 0.0 {
            return 0.0;
        }
        self.objective.value(Mobius { s: form.s * rest, c: form.c })
    }

    fn step(&mut self, pool: PoolId, dir: Direction, to: AssetId, form: Mobius) {
        self.path_hops.push((pool, dir));
        self.path_assets.push(to);
        let depth = self.path_hops.len();
        // Nothing may follow some pools (a `dex_b_v1` swap, or a kind the policy leaves out).
        let extend = depth < self.max_length && self.policy.continues_after(self.graph.protocol(pool));
        if to == self.dst {
            let value = self.objective.value(form);
            self.offer(value, form);
        } else if extend && self.graph.edges(to).len() > HUB_DEGREE {
            self.step_hub(to, pool, form, depth);
        } else if extend {
            let graph = self.graph;
            for e in graph.edges(to) {
                self.visited += 1;
                if self.path_assets.contains(&e.to)
                    || !self.may_visit(e.to)
                    || !graph.chains(self.policy, pool, e.pool, to)
                {
                    continue;
                }
                let Some(h) = self.hop(e.pool, e.direction) else { continue };
                let next = form.then(h);
                if self.optimistic(next, e.to, depth + 1) <= self.threshold {
                    continue;
                }
                self.step(e.pool, e.direction, e.to, next);
            }
        }
        self.path_hops.pop();
        self.path_assets.pop();
    }

    /// Expands a high-degree asset (the hub) through its children sorted once per search by
    /// `hop rate × bound of the rest`, stopping at the first child whose optimistic value cannot pass the
    /// threshold: a prefix only scales `s` and adds to `c`, so the order is the same for every prefix.
    fn step_hub(&mut self, at: AssetId, prev: PoolId, form: Mobius, depth: usize) {
        let rest_hops = self.max_length - depth - 1;
        let key = (at, rest_hops);
        if !self.hub_children.iter().any(|(k, _)| *k == key) {
            let graph = self.graph;
            let mut children: Vec<(f64, u32, Mobius)> = Vec::new();
            for (i, e) in graph.edges(at).iter().enumerate() {
                if !self.may_visit(e.to) {
                    continue;
                }
                let Some(h) = self.hop(e.pool, e.direction) else { continue };
                let rest = if e.to == self.dst { 1.0 } else { self.bounds.rate(rest_hops, e.to) };
                if rest > 0.0 {
                    // Edge indices of one asset fit u32: the graph numbers pools with u32.
                    children.push((h.s * rest, i as u32, h));
                }
            }
            children.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
            self.hub_children.push((key, children));
        }
        let Some(pos) = self.hub_children.iter().position(|(k, _)| *k == key) else { return };
        let children = std::mem::take(&mut self.hub_children[pos].1);
        for &(k, i, h) in &children {
            self.visited += 1;
            // Ignoring the child's own `c` only raises the value, so this bound falls monotonically along the
            // sorted list.
            if self.objective.value(Mobius { s: form.s * k, c: form.c }) <= self.threshold {
                break;
            }
            let e = self.graph.edges(at)[i as usize];
            if self.path_assets.contains(&e.to) || !self.graph.chains(self.policy, prev, e.pool, at) {
                continue;
            }
            let next = form.then(h);
            if self.optimistic(next, e.to, depth + 1) <= self.threshold {
                continue;
            }
            self.step(e.pool, e.direction, e.to, next);
        }
        self.hub_children[pos].1 = children;
    }

    fn offer(&mut self, value: f64, form: Mobius) {
        if value <= self.threshold || !value.is_finite() {
            return;
        }
        let first = self.path_hops[0].0;
        let last = self.path_hops[self.path_hops.len() - 1].0;
        // Paths that share their first or last pool compete for one bottleneck: at most `cap` of them are
        // kept, so one deep pool's many variants cannot crowd out every other pool.
        let cap = match self.objective {
            Objective::Surplus { .. } if self.capped => (self.keep / 8).max(3),
            _ => usize::MAX,
        };
        let count = |m: &ahash::AHashMap<PoolId, usize>, p: PoolId| m.get(&p).copied().unwrap_or(0);
        let crowded = count(&self.first_count, first) >= cap || count(&self.last_count, last) >= cap;
        let slot = if crowded {
            let same = |c: &Candidate| c.hops[0].0 == first || c.hops[c.hops.len() - 1].0 == last;
            match self.found.iter().enumerate().filter(|(_, f)| same(&f.1)).min_by(|a, b| a.1 .0.total_cmp(&b.1 .0)) {
                Some((i, w)) if w.0 < value => Some(i),
                _ => return,
            }
        } else if self.found.len() < self.keep {
            None
        } else {
            Some(self.min_index)
        };
        let candidate = Candidate { hops: self.path_hops.clone(), form };
        match slot {
            Some(i) => {
                let old = std::mem::replace(&mut self.found[i], (value, candidate));
                *self.first_count.entry(old.1.hops[0].0).or_insert(1) -= 1;
                *self.last_count.entry(old.1.hops[old.1.hops.len() - 1].0).or_insert(1) -= 1;
            }
            None => self.found.push((value, candidate)),
        }
        *self.first_count.entry(first).or_insert(0) += 1;
        *self.last_count.entry(last).or_insert(0) += 1;
        self.best = self.best.max(value);
        // A path worth less than a fixed share of the best one found is never worth keeping, even while
        // the list is not full (caps can keep it from ever filling).
        let floor = self.best
            * self.floor.unwrap_or(match self.objective {
                Objective::Output { .. } => 0.5,
                Objective::Surplus { .. } => 1e-3,
            });
        let full = if self.found.len() == self.keep {
            let (i, min) = self.found.iter().enumerate().map(|(i, f)| (i, f.0)).fold((0, f64::INFINITY), |acc, x| {
                if x.1 < acc.1 {
                    x
                } else {
                    acc
                }
            });
            self.min_index = i;
            min
        } else {
            0.0
        };
        self.threshold = full.max(floor);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::Asset;
    use crate::graph::Protocol;
    use crate::route::testkit::{cp_f, diamond, graph, graph_of, linear, parallel, shared, PoolSpec, DEPTH};

    /// Every path the search keeps from `src` to `dst` within `max_length` under `policy` (floor 0, a list
    /// long enough for all), best first.
    fn search_under(
        g: &PoolGraph,
        policy: HandOffPolicy,
        src: u32,
        dst: u32,
        max_length: usize,
    ) -> Vec<(f64, Candidate)> {
        let native = g.asset_id(&Asset::Native);
        let bounds = Bounds::compute(g, AssetId(dst), max_length, native);
        let objective = Objective::Output { amount: 1e9 };
        Search::new(g, policy, &bounds, AssetId(dst), max_length, objective, 1_000).with_floor(0.0).run(AssetId(src))
    }

    /// [`search_under`] with every safe hand-off (the router's default).
    fn search_all(g: &PoolGraph, src: u32, dst: u32, max_length: usize) -> Vec<(f64, Candidate)> {
        search_under(g, HandOffPolicy::SAFE, src, dst, max_length)
    }

    fn pools_of(c: &Candidate) -> Vec<u32> {
        c.hops.iter().map(|(p, _)| p.0).collect()
    }

    /// The chaining rule written out (docs/cross-exchange.md). Each exchange's own multi-hop: `dex_a` after
    /// `dex_a`, `dex_b_v2` after `dex_b_v2` of the same router. With every safe hand-off (`safe`), also: any
    /// `dex_b_v2` or `dex_c` pool after any `dex_b_v2` or `dex_c` pool, and a `dex_b_v2` or `dex_c` pool after
    /// `dex_a` unless the asset handed over (`at`) is TON; never anything after or into `dex_b_v1`, nor
    /// `dex_a` after another exchange.
    fn may_follow(g: &PoolGraph, safe: bool, prev: PoolId, next: PoolId, at: AssetId) -> bool {
        use Protocol::{DexA, DexBV1, DexBV2, DexC};
        let (a, b) = (g.pool(prev), g.pool(next));
        let own = match (a.protocol, b.protocol) {
            (DexA, DexA) => true,
            (DexBV2, DexBV2) => a.context.router == b.context.router,
            _ => false,
        };
        own || (safe
            && match (a.protocol, b.protocol) {
                (DexBV1, _) | (_, DexBV1) | (_, DexA) => false,
                (DexA, _) => !g.asset(at).asset.is_native(),
                (DexBV2 | DexC, DexBV2 | DexC) => true,
            })
    }

    /// Every simple, chainable path from `src` to `dst` of at most `max_length` hops, by exhaustive
    /// depth-first enumeration over the pool list (no bounds, no pruning).
    fn brute_force(g: &PoolGraph, safe: bool, src: u32, dst: u32, max_length: usize) -> Vec<Vec<u32>> {
        #[allow(clippy::too_many_arguments)]
        fn walk(
            g: &PoolGraph,
            safe: bool,
            at: AssetId,
            dst: AssetId,
            max_length: usize,
            visited: &mut Vec<AssetId>,
            pools: &mut Vec<u32>,
            found: &mut Vec<Vec<u32>>,
        ) {
            if at == dst {
                found.push(pools.clone());
                return;
            }
            if pools.len() == max_length {
                return;
            }
            for p in 0..g.pool_count() as u32 {
                let meta = g.pool(PoolId(p));
                let next = match meta.assets {
                    [a, b] if a == at => b,
                    [a, b] if b == at => a,
                    _ => continue,
                };
                if visited.contains(&next) {
                    continue;
                }
                if let Some(&prev) = pools.last() {
                    if !may_follow(g, safe, PoolId(prev), PoolId(p), at) {
                        continue;
                    }
                }
                visited.push(next);
                pools.push(p);
                walk(g, safe, next, dst, max_length, visited, pools, found);
                pools.pop();
                visited.pop();
            }
        }
        let mut found = Vec::new();
        walk(g, safe, AssetId(src), AssetId(dst), max_length, &mut vec![AssetId(src)], &mut Vec::new(), &mut found);
        found.sort();
        found
    }

    /// The float output of `amount` along a path, hop by hop with the formula written out.
    fn chain_out(g: &PoolGraph, c: &Candidate, amount: f64) -> f64 {
        c.hops.iter().fold(amount, |x, &(p, d)| {
            let [r0, r1] = g.reserves(p);
            let (rin, rout) = match d {
                Direction::ZeroToOne => (r0, r1),
                Direction::OneToZero => (r1, r0),
            };
            cp_f(rin as f64, rout as f64, x).0
        })
    }

    /// The search's paths against the brute force for every pair of assets and every hop limit; each path
    /// simple, chained hop to hop, valued at its estimated output, best first.
    fn check_against_brute_force(g: &PoolGraph) {
        let n = g.asset_count() as u32;
        for (policy, safe) in [(HandOffPolicy::SAFE, true), (HandOffPolicy::INTERNAL, false)] {
            for max_length in 1..=4 {
                for src in 0..n {
                    for dst in (0..n).filter(|d| *d != src) {
                        let found = search_under(g, policy, src, dst, max_length);
                        let mut got: Vec<Vec<u32>> = found.iter().map(|(_, c)| pools_of(c)).collect();
                        got.sort();
                        let want = brute_force(g, safe, src, dst, max_length);
                        assert_eq!(got, want, "{src} → {dst} within {max_length} hops");
                        for (value, c) in &found {
                            assert!(c.hops.len() <= max_length);
                            // Hop to hop: each pool's direction leaves from the asset the previous one reached.
                            let mut at = AssetId(src);
                            let mut seen = vec![at];
                            for &(p, d) in &c.hops {
                                let assets = g.pool(p).assets;
                                assert_eq!(assets[d.in_index()], at, "{src} → {dst}: {:?}", c.hops);
                                at = assets[1 - d.in_index()];
                                assert!(!seen.contains(&at), "not simple: {:?}", c.hops);
                                seen.push(at);
                            }
                            assert_eq!(at, AssetId(dst));
                            let want = chain_out(g, c, 1e9);
                            assert!((value - want).abs() <= want * 1e-12, "{value} vs {want}");
                        }
                        assert!(found.windows(2).all(|w| w[0].0 >= w[1].0), "not best first");
                    }
                }
            }
        }
    }

    #[test]
    fn the_named_fixtures_give_every_simple_path_and_no_other() {
        for g in [linear(), diamond(), parallel(), shared()] {
            check_against_brute_force(&g);
        }
    }

    #[test]
    fn a_graph_with_cycles_gives_simple_paths_only() {
        // The diamond with a cross pool 1/2 and a pool 3/0 back to the input: cycles through every asset.
        let h = DEPTH / 2;
        let g = graph(
            4,
            &[
                (0, 1, [DEPTH, DEPTH]),
                (0, 2, [h, h]),
                (1, 3, [DEPTH, 2 * DEPTH]),
                (2, 3, [h, DEPTH]),
                (1, 2, [h, h]),
                (3, 0, [DEPTH, DEPTH]),
            ],
        );
        check_against_brute_force(&g);
        // 0 → 3 within 3 hops: direct, both sides of the diamond, and both ways across the middle pool.
        let mut got: Vec<Vec<u32>> = search_all(&g, 0, 3, 3).iter().map(|(_, c)| pools_of(c)).collect();
        got.sort();
        assert_eq!(got, vec![vec![0, 2], vec![0, 4, 3], vec![1, 3], vec![1, 4, 2], vec![5]]);
    }

    #[test]
    fn max_length_cuts_longer_paths() {
        let g = linear();
        assert!(search_all(&g, 0, 3, 2).is_empty());
        let three: Vec<Vec<u32>> = search_all(&g, 0, 3, 3).iter().map(|(_, c)| pools_of(c)).collect();
        assert_eq!(three, vec![vec![0, 1, 2]]);
        assert_eq!(search_all(&g, 0, 3, 5).len(), 1);
        let one: Vec<Vec<u32>> = search_all(&g, 1, 2, 1).iter().map(|(_, c)| pools_of(c)).collect();
        assert_eq!(one, vec![vec![1]]);
    }

    #[test]
    fn only_chainable_pools_follow_each_other() {
        // Assets 0 → 1 → 2 over every kind of pool pair, and one direct pool 0 → 2 of an exchange that only
        // swaps single hops.
        let r = [DEPTH, DEPTH];
        let spec = |a, b, protocol, router| PoolSpec { assets: (a, b), reserves: r, protocol, router };
        let g = graph_of(
            3,
            &[
                spec(0, 1, Protocol::DexBV2, 200), // 0
                spec(1, 2, Protocol::DexBV2, 200), // 1: same router as 0
                spec(1, 2, Protocol::DexBV2, 201), // 2: another router
                spec(0, 1, Protocol::DexA, 0),     // 3
                spec(1, 2, Protocol::DexA, 0),     // 4
                spec(0, 1, Protocol::DexBV1, 200), // 5: single-hop messages only
                spec(1, 2, Protocol::DexBV1, 200), // 6
                spec(0, 2, Protocol::DexC, 0),     // 7: single hop, alone
                spec(0, 1, Protocol::DexC, 0),     // 8
                spec(1, 2, Protocol::DexC, 0),     // 9
            ],
        );
        let paths = |policy| {
            let mut got: Vec<Vec<u32>> = search_under(&g, policy, 0, 2, 3).iter().map(|(_, c)| pools_of(c)).collect();
            got.sort();
            got
        };
        // Each exchange's own multi-hop only.
        assert_eq!(paths(HandOffPolicy::INTERNAL), vec![vec![0, 1], vec![3, 4], vec![7]]);
        // Every safe hand-off (asset 1 is a jetton): v2 → other router and → dex_c, dex_a → v2 / dex_c,
        // dex_c → v2 / dex_c; never into dex_a from elsewhere, never v1.
        let safe = [[0, 1], [0, 2], [0, 9], [3, 1], [3, 2], [3, 4], [3, 9], [8, 1], [8, 2], [8, 9]];
        let mut want: Vec<Vec<u32>> = safe.iter().map(|p| p.to_vec()).collect();
        want.push(vec![7]);
        want.sort();
        assert_eq!(paths(HandOffPolicy::SAFE), want);
        check_against_brute_force(&g);

        // The same pools around TON (asset 0) from asset 1 to asset 2: TON may not leave dex_a.
        let g = graph_of(
            3,
            &[
                spec(1, 0, Protocol::DexBV2, 200), // 0
                spec(0, 2, Protocol::DexBV2, 200), // 1
                spec(0, 2, Protocol::DexBV2, 201), // 2
                spec(1, 0, Protocol::DexA, 0),     // 3
                spec(0, 2, Protocol::DexA, 0),     // 4
                spec(1, 0, Protocol::DexC, 0),     // 5
                spec(0, 2, Protocol::DexC, 0),     // 6
            ],
        );
        let mut got: Vec<Vec<u32>> =
            search_under(&g, HandOffPolicy::SAFE, 1, 2, 3).iter().map(|(_, c)| pools_of(c)).collect();
        got.sort();
        assert_eq!(got, vec![vec![0, 1], vec![0, 2], vec![0, 6], vec![3, 4], vec![5, 1], vec![5, 2], vec![5, 6]]);
        check_against_brute_force(&g);
    }

    #[test]
    fn random_mixed_exchange_graphs_give_every_chainable_path_under_both_policies() {
        // 60 seeded graphs of 5 assets (asset 0 is TON) and 6–11 pools, each of a random exchange behind one
        // of two routers, reserves spread over three orders of magnitude (parallel pools and cycles included):
        // the search against the brute force, both policies, every pair, every hop limit up to 4.
        let protocols = [Protocol::DexA, Protocol::DexBV1, Protocol::DexBV2, Protocol::DexC];
        let mut state = 0x853c_49e6_748f_ea9b_u64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut cross = 0;
        for _ in 0..60 {
            let n_pools = 6 + next(6);
            let mut specs = Vec::new();
            for _ in 0..n_pools {
                let a = next(5) as u32;
                let b = (a + 1 + next(4) as u32) % 5;
                let protocol = protocols[next(4) as usize];
                let router = 200 + next(2) as u8;
                specs.push(PoolSpec {
                    assets: (a, b),
                    reserves: [DEPTH >> next(10), DEPTH >> next(10)],
                    protocol,
                    router,
                });
            }
            let g = graph_of(5, &specs);
            check_against_brute_force(&g);
            cross += (0..5)
                .flat_map(|s| (0..5).map(move |d| (s, d)))
                .filter(|(s, d)| s != d)
                .flat_map(|(s, d)| search_all(&g, s, d, 3))
                .filter(|(_, c)| g.path_refusal(HandOffPolicy::INTERNAL, &c.hops).is_some())
                .count();
        }
        // The graphs exercise the hand-offs: many paths exist only with them.
        assert!(cross > 100, "{cross} paths need a cross-exchange hand-off");
    }

    #[test]
    fn bounds_are_the_best_rate_products_within_k_hops() {
        // linear: the rate from asset v to asset 3 is the product of γ·y/x over the pools between them.
        let g = linear();
        let gamma = 1.0 - f64::from(crate::route::testkit::FEE_BPS) / 1e4;
        let rate = [gamma * 2.0, gamma * 1.0, gamma * 3.0];
        let bounds = Bounds::compute(&g, AssetId(3), 3, None);
        let want = |v: usize| rate[v..].iter().product::<f64>();
        for v in 0..3 {
            let hops_needed = 3 - v;
            for k in 0..=3 {
                let got = bounds.rate(k, AssetId(v as u32));
                if k < hops_needed {
                    assert_eq!(got, 0.0, "{v} within {k}");
                } else {
                    assert!((got - want(v)).abs() <= want(v) * 1e-12, "{v} within {k}: {got} vs {}", want(v));
                }
            }
        }
        assert_eq!(bounds.rate(0, AssetId(3)), 1.0);
    }
}
