//! The depth-first search itself: the first hop ordered by its bound, then each step pruned by the bound of
//! the rest of the path. Owns the walk and the path being built; what to keep is `kept.rs`, hubs are `hubs.rs`.

use super::*;
use crate::graph::{AssetId, Edge, PoolId};
use crate::pool::estimate::Mobius;
use crate::pool::Direction;

/// Assets with more pools than this are expanded through a sorted child list.
const HUB_DEGREE: usize = 64;

/// Before the last hop, an asset with at most this many pools finds its pools into a hub output by reading
/// its own, not the hub's index.
const SCAN_OWN_POOLS: usize = 24;

impl<'a> Search<'a> {
    pub(crate) fn run(self, src: AssetId) -> Vec<(f64, Candidate)> {
        self.run_keeping_order(src).0
    }

    /// [`Self::run`], also handing back the hub children it sorted.
    pub(crate) fn run_keeping_order(mut self, src: AssetId) -> (Vec<(f64, Candidate)>, HubOrder) {
        if self.budget.exhausted() {
            return (Vec::new(), HubOrder(self.hub_children));
        }
        self.enter(src);
        if let Some(slot) = self.bounds.tables.slot(src) {
            self.expand_hub(slot, src, Mobius { s: 1.0, c: 0.0 }, None, 0);
            self.found.sort_by(|a, b| b.0.total_cmp(&a.0));
            return (self.found, HubOrder(self.hub_children));
        }
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
            if bound <= self.threshold.max(self.floor_of(self.graph.edges(src)[i].pool)) {
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
    pub(super) fn optimistic(&self, form: Mobius, at: AssetId, depth: usize) -> f64 {
        self.optimistic_from(form, at, self.rest(at, depth))
    }

    /// The bound of the best rate from `at` to the output for a path that has used `depth` hops.
    #[inline]
    pub(super) fn rest(&self, at: AssetId, depth: usize) -> f64 {
        if at == self.dst {
            1.0
        } else {
            let rate = self.bounds.rate_after_sides(self.max_length - depth, at, &self.passed);
            debug_assert_eq!(rate, self.bounds.rate_after(self.max_length - depth, at, &self.path_assets));
            rate
        }
    }

    /// [`Self::optimistic`] with the rest's rate bound already read.
    #[inline]
    pub(super) fn optimistic_from(&self, form: Mobius, at: AssetId, rest: f64) -> f64 {
        if rest <= 0.0 {
            return 0.0;
        }
        // Every path ends with a hop into the output, which pays out at most `last_capacity`: the path's
        // `c` is at least the prefix's plus s / last_capacity (see `Bounds::last_capacity`).
        let s = form.s * rest;
        let c = if at == self.dst { form.c } else { form.c + s / self.bounds.last_capacity };
        self.objective.value(Mobius { s, c })
    }

    pub(super) fn step(&mut self, pool: PoolId, dir: Direction, to: AssetId, form: Mobius) {
        if self.out_of_budget() {
            return;
        }
        self.path_hops.push((pool, dir));
        self.enter(to);
        let depth = self.path_hops.len();
        if depth == 1 {
            self.first_bar = self.floor_of(pool);
        }
        // Nothing may follow some pools (a `dex_b_v1` swap, or a kind the policy leaves out).
        let extend = depth < self.max_length && self.policy.continues_after(self.graph.protocol(pool));
        if to == self.dst {
            let value = self.objective.value(form);
            self.offer(value, form);
        } else if extend && self.graph.edges(to).len() > HUB_DEGREE {
            self.step_hub(to, pool, form, depth);
        } else if extend && depth + 1 == self.max_length {
            // Only a hop into the output can follow: its pools from `to`, not all of `to`'s (a major has
            // hundreds of pools at 100k, and a single route's search steps hundreds of hub children).
            let (graph, bounds, dst) = (self.graph, self.bounds, self.dst);
            let into = |e: &Edge| Edge { pool: e.pool, to: dst, direction: e.direction.reverse() };
            let (mine, theirs) = (graph.edges(to), graph.edges(dst));
            match bounds.tables.slot(dst) {
                // A short list of `to`'s own is read faster than the hub's index is searched (two binary
                // searches over tens of thousands of edges, each step a cache miss).
                Some(slot) if mine.len() > SCAN_OWN_POOLS => {
                    for e in bounds.tables.edges_to(graph, slot, to) {
                        self.try_child(into(&e), pool, to, form, depth);
                    }
                }
                _ if theirs.len() < mine.len() => {
                    for e in theirs.iter().filter(|e| e.to == to) {
                        self.try_child(into(e), pool, to, form, depth);
                    }
                }
                _ => {
                    for &e in mine.iter().filter(|e| e.to == dst) {
                        self.try_child(e, pool, to, form, depth);
                    }
                }
            }
        } else if extend {
            let graph = self.graph;
            for &e in graph.edges(to) {
                self.try_child(e, pool, to, form, depth);
            }
        }
        self.path_hops.pop();
        self.leave();
        if depth == 1 {
            self.first_bar = 0.0;
        }
    }

    /// Puts `asset` on the path (and its side on `passed`).
    #[inline]
    pub(super) fn enter(&mut self, asset: AssetId) {
        self.path_assets.push(asset);
        if let Some(i) = self.bounds.side_of(asset) {
            self.passed.push(i);
        }
    }

    /// Takes the path's last asset off (and its side off `passed`).
    #[inline]
    pub(super) fn leave(&mut self) {
        if let Some(asset) = self.path_assets.pop() {
            if self.passed.last().is_some_and(|&i| self.bounds.sides[usize::from(i)].avoid == Some(asset)) {
                self.passed.pop();
            }
        }
    }

    /// Follows edge `e` out of `to` (reached through `pool` with summary `form`, `depth` hops used) if its
    /// path may still pass: the step of [`Self::step`] for a non-hub asset's pools.
    #[inline]
    pub(super) fn try_child(&mut self, e: Edge, pool: PoolId, to: AssetId, form: Mobius, depth: usize) {
        let graph = self.graph;
        self.visited += 1;
        if self.path_assets.contains(&e.to) || !self.may_visit(e.to) {
            return;
        }
        // The bound of the rest first, then the pool's rate ceiling (16 B per pool, beside the bounds
        // in cache) before its reserves (a 72-B cell, a cache miss at 100k pools): most edges of an
        // intermediate lead where the rest cannot pass, and reading them was most of a whale's
        // surplus search. The ceiling is ≥ the pool's rate, and the value grows with the rate, so
        // the test only skips what `optimistic` would; on a split's state a pool's rate may differ
        // from the graph's, so there the reserves decide.
        let rest = self.rest(e.to, depth + 1);
        if rest <= 0.0 {
            return;
        }
        let bar = self.bar();
        if self.state.is_none() {
            // The hop's rate is at most its ceiling `r`, and its curvature at least its rate over its capacity
            // ceiling `k` (both in the pool's 16 B of ceilings): the bound takes the hop as `s = r, c = r / k`.
            // Both objectives grow with the hop's rate when its curvature grows with it so (output:
            // `s·a / (1 + c·a)`; surplus: `(√s − √λ)² / c`, whose derivative in `s` is positive wherever the
            // surplus is), and fall with more curvature, so no hop under these ceilings does better. Without the
            // capacity, 93 % of the edges a 4-hop whale's search passed here at 100k pools then failed the same
            // bound on the pool's reserves (a cache miss each).
            let r = f64::from(graph.ceiling(e.pool, e.direction));
            let k = f64::from(graph.capacity_ceiling(e.pool, e.direction));
            let hop_c = if k > 0.0 { r / k } else { 0.0 };
            if self.optimistic_from(Mobius { s: form.s * r, c: form.c + form.s * hop_c }, e.to, rest) <= bar {
                return;
            }
        }
        if !graph.chains(self.policy, pool, e.pool, to) {
            return;
        }
        let Some(h) = self.hop(e.pool, e.direction) else { return };
        let next = form.then(h);
        if self.optimistic_from(next, e.to, rest) <= bar
            || !self.can_pass(next, e.to, self.max_length - depth - 1, self.first_bar > 0.0)
        {
            return;
        }
        self.step(e.pool, e.direction, e.to, next);
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
    /// `dex_b_v2` or `dex_c` pool after any `dex_b_v2` pool or after a `dex_c` pool that paid its token1, and a
    /// `dex_b_v2` or `dex_c` pool after
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
                // TONCO hands over only its token1 (what it buys when selling token0).
                (DexC, DexBV2 | DexC) => a.assets[1] == at,
                (DexBV2, DexBV2 | DexC) => true,
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
}
