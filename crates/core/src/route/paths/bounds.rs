//! Rate bounds toward the output asset: [`Bounds`], the best product of spot rates from any asset within `k`
//! hops (and the same avoiding each hub), read from the graph's hub tables and a small ball around the
//! output, which the search prunes with.
//!
//! Owns the bounds and their sides. Must not enumerate paths (that is the search, `paths/mod.rs`).

use std::sync::Arc;

use ahash::AHashMap;
use smallvec::SmallVec;

use crate::graph::hubs::{HubTables, LEVELS};
use crate::graph::{AssetId, PoolGraph, PoolId};
use crate::pool::estimate::Mobius;
use crate::pool::Direction;

/// Upper bounds on the best product of spot rates from any asset to the output asset within `k` hops
/// (chainability ignored, so an upper bound for chainable paths), and the same over paths that avoid each
/// hub (and the native asset).
///
/// Equal to a hop-limited Bellman–Ford from the output over the whole graph, but computed from the parts
/// that do not depend on the quote (see [`crate::graph::hubs`]): every simple path to the output either has
/// no hub among its intermediates, or splits at its last hub `h` into a path to `h` (the hub's table) and a
/// path from `h` whose intermediates are not hubs. The second kind, and the first, live in a small *ball*
/// around the output: a Bellman–Ford from the output that never expands a hub. So
/// `B_k(v) = max(ball_k(v), max over hubs h in the ball, j ≤ k of table_h[v][j] · ball_{k−j}(h))`, and a quote
/// touches the output's neighbourhood and a few table rows instead of every pool. When the output is a hub,
/// its own table is the bound.
pub(crate) struct Bounds {
    pub(super) dst: AssetId,
    pub(super) max_level: usize,
    pub(crate) tables: Arc<HubTables>,
    /// `sides[0]`: the plain bounds; then the same over paths that avoid one hub (or the native asset): once
    /// a path has passed a hub, it cannot pass it again, and the plain bounds, which would go back through
    /// it, are far too loose.
    pub(super) sides: SmallVec<[Side; 5]>,
    /// The largest capacity `s / c` of a hop into the output (output units; infinite when the output is a
    /// hub, whose pools are many). A path's summary is `s·t / (1 + c·t)` with `c ≥ c_prefix + s_prefix·c_last`
    /// and `s ≤ s_prefix·s_last·…`, so `c ≥ c_prefix + s / capacity`: no path pays out more than its last hop.
    /// A split's state only lowers it (its routes only ever sell into the output).
    pub(crate) last_capacity: f64,
}

/// Levels `0..=LEVELS` of one asset.
type Levels = [f64; LEVELS + 1];

/// The bounds of one kind (plain, or avoiding one asset).
pub(crate) struct Side {
    /// The asset these bounds avoid.
    pub(crate) avoid: Option<AssetId>,
    /// The output's slot when it is a hub: its table answers everything.
    pub(crate) dst_slot: Option<usize>,
    /// `ball[v][k]`: the best rate from `v` to the output within `k` hops through intermediates that are not
    /// hubs (hubs appear as leaves). Shared by the sides that avoid a hub: read it through
    /// [`Self::ball_at`], which hides the avoided hub.
    pub(crate) ball: Arc<AHashMap<AssetId, Levels>>,
    /// The hubs in the ball: `(slot, their ball levels)`.
    pub(crate) portals: SmallVec<[(usize, Levels); 4]>,
}

#[inline]
pub(crate) fn hop_form(graph: &PoolGraph, pool: PoolId, dir: Direction) -> Option<Mobius> {
    graph.form(pool, dir)
}

impl Side {
    /// The side toward `dst`; `last` picks the pools a path may end in (all of them for the bounds).
    pub(super) fn compute(
        graph: &PoolGraph,
        tables: &HubTables,
        dst: AssetId,
        max_level: usize,
        avoid: Option<AssetId>,
        last: &dyn Fn(PoolId) -> bool,
    ) -> Side {
        let mut ball: AHashMap<AssetId, Levels> = AHashMap::new();
        let mut side = Side { avoid, dst_slot: tables.slot(dst), ball: Arc::default(), portals: SmallVec::new() };
        if side.dst_slot.is_some() {
            return side;
        }
        ball.insert(dst, [1.0; LEVELS + 1]);
        let mut frontier = vec![dst];
        for level in 1..=max_level {
            for levels in ball.values_mut() {
                levels[level] = levels[level - 1];
            }
            let mut next: Vec<AssetId> = Vec::new();
            for &u in &frontier {
                // Hubs are leaves: what lies behind them is in their tables.
                if u != dst && tables.slot(u).is_some() {
                    continue;
                }
                let via = ball[&u][level - 1];
                for e in graph.edges(u) {
                    let v = e.to;
                    if v == dst || Some(v) == avoid || (u == dst && !last(e.pool)) {
                        continue;
                    }
                    // The edge leaves u; the rate we need is v → u, the pool's other direction.
                    let Some(form) = hop_form(graph, e.pool, e.direction.reverse()) else { continue };
                    let r = form.s * via;
                    let levels = ball.entry(v).or_insert([0.0; LEVELS + 1]);
                    if r > levels[level] {
                        levels[level] = r;
                        next.push(v);
                    }
                }
            }
            next.sort_unstable();
            next.dedup();
            frontier = next;
        }
        for level in max_level + 1..=LEVELS {
            for levels in ball.values_mut() {
                levels[level] = levels[level - 1];
            }
        }
        for (&v, levels) in &ball {
            if let Some(slot) = tables.slot(v) {
                side.portals.push((slot, *levels));
            }
        }
        side.ball = Arc::new(ball);
        side.portals.sort_by_key(|p| p.0);
        side
    }

    /// This side (which avoids nothing) avoiding hub `hub`, without a search: hubs are leaves of the ball, so
    /// leaving one out takes nothing from any other asset's levels; the side only loses the hub's own entry
    /// and its portal. Equal to [`Self::compute`] with `avoid = Some(hub)` and the same `last`.
    pub(super) fn avoiding(&self, tables: &HubTables, hub: AssetId) -> Side {
        debug_assert!(self.avoid.is_none(), "derived from a side that avoids nothing");
        let slot = tables.slot(hub);
        debug_assert!(slot.is_some(), "only a hub is a leaf of the ball");
        Side {
            avoid: Some(hub),
            dst_slot: self.dst_slot,
            ball: Arc::clone(&self.ball),
            portals: self.portals.iter().filter(|p| Some(p.0) != slot).copied().collect(),
        }
    }

    /// `v`'s ball levels, none for the asset this side avoids (the ball may be shared with the side that
    /// avoids nothing).
    #[inline]
    pub(crate) fn ball_at(&self, v: AssetId) -> Option<&Levels> {
        if self.avoid == Some(v) {
            return None;
        }
        self.ball.get(&v)
    }

    #[inline]
    pub(super) fn rate(&self, tables: &HubTables, k: usize, v: AssetId) -> f64 {
        if let Some(slot) = self.dst_slot {
            return tables.rate(slot, self.avoid, k, v);
        }
        let mut best = self.ball_at(v).map_or(0.0, |l| l[k]);
        for (slot, d) in &self.portals {
            for j in 1..=k {
                let rest = d[k - j];
                if rest <= 0.0 {
                    continue;
                }
                let t = tables.rate(*slot, self.avoid, j, v);
                best = best.max(t * rest);
            }
        }
        best
    }
}

impl Side {
    /// `rate(k, v)` for `k` one level above the levels computed (`max_level + 1`), as a side computed with
    /// `k` levels would give it, for one asset: the ball's level `k` at `v` is one more relaxation into `v`
    /// (from its non-hub neighbours in the ball, or from the ball's non-hub members when `v` is a hub, whose
    /// edges are many); the hubs that side's ball would reach first at level `k` add nothing below level `k`.
    pub(super) fn rate_beyond(&self, graph: &PoolGraph, tables: &HubTables, dst: AssetId, k: usize, v: AssetId) -> f64 {
        if let Some(slot) = self.dst_slot {
            return tables.rate(slot, self.avoid, k, v);
        }
        let below = k - 1;
        let mut ball = self.ball_at(v).map_or(0.0, |l| l[below]);
        // Hubs are leaves of the ball: only the output and non-hubs relax into their neighbours.
        let relaxes = |u: AssetId| u == dst || tables.slot(u).is_none();
        if tables.slot(v).is_none() {
            for e in graph.edges(v) {
                let Some(levels) = self.ball_at(e.to).filter(|_| relaxes(e.to)) else { continue };
                if let Some(form) = hop_form(graph, e.pool, e.direction) {
                    ball = ball.max(form.s * levels[below]);
                }
            }
        } else {
            for (&u, levels) in self.ball.iter() {
                if !relaxes(u) || Some(u) == self.avoid || levels[below] <= 0.0 {
                    continue;
                }
                for e in graph.edges(u).iter().filter(|e| e.to == v) {
                    if let Some(form) = hop_form(graph, e.pool, e.direction.reverse()) {
                        ball = ball.max(form.s * levels[below]);
                    }
                }
            }
        }
        let mut best = ball;
        for (slot, d) in &self.portals {
            for j in 1..=k {
                let rest = d[k - j];
                if rest > 0.0 {
                    best = best.max(tables.rate(*slot, self.avoid, j, v) * rest);
                }
            }
        }
        best
    }
}

impl Bounds {
    /// Levels `0..=max_level` toward `dst`, plain and avoiding each hub (and `native`).
    pub(crate) fn compute(graph: &PoolGraph, dst: AssetId, max_level: usize, native: Option<AssetId>) -> Bounds {
        let tables = graph.hub_tables();
        let max_level = max_level.min(LEVELS);
        let mut avoid: SmallVec<[AssetId; 5]> = tables.avoidable.iter().copied().collect();
        if let Some(n) = native.filter(|n| !avoid.contains(n)) {
            avoid.push(n);
        }
        let plain = Side::compute(graph, &tables, dst, max_level, None, &|_| true);
        // A hub is a leaf of the ball: the sides avoiding one share the plain side's ball (at 100k pools a
        // major output's ball holds thousands of assets, and there are up to five sides).
        let others: SmallVec<[Side; 4]> = avoid
            .into_iter()
            .filter(|a| *a != dst)
            .map(|a| match tables.slot(a) {
                Some(_) => plain.avoiding(&tables, a),
                None => Side::compute(graph, &tables, dst, max_level, Some(a), &|_| true),
            })
            .collect();
        let sides = std::iter::once(plain).chain(others).collect();
        let last_capacity = if tables.slot(dst).is_some() {
            f64::INFINITY
        } else {
            graph
                .edges(dst)
                .iter()
                .filter_map(|e| hop_form(graph, e.pool, e.direction.reverse()))
                .map(|h| if h.c > 0.0 { h.s / h.c } else { f64::INFINITY })
                .fold(0.0, f64::max)
        };
        Bounds { dst, max_level, tables, sides, last_capacity }
    }

    /// [`Self::rate`] at `k` hops as bounds computed with `k` levels would give it (the levels are those of
    /// [`Self::compute`] with `max(k, max_level)`, clamped to [`LEVELS`]), where `k` may be one level above
    /// the levels held: the search reads one level less than its paths' length, and a first guess of an
    /// input reads the whole length without computing that level for every asset.
    pub(crate) fn rate_at(&self, graph: &PoolGraph, k: usize, v: AssetId) -> f64 {
        let k = k.min(LEVELS);
        if v == self.dst || k <= self.max_level {
            return self.rate(k, v);
        }
        if k > self.max_level + 1 {
            // Never asked: the search holds one level less than the longest path.
            return self.rate(k, v);
        }
        self.sides[0].rate_beyond(graph, &self.tables, self.dst, k, v)
    }

    /// Best rate from `v` to the output asset within `k` hops (0 when unreachable).
    #[inline]
    pub(crate) fn rate(&self, k: usize, v: AssetId) -> f64 {
        if v == self.dst {
            return 1.0;
        }
        self.sides[0].rate(&self.tables, k.min(self.max_level), v)
    }

    /// [`Self::rate`] for a path that has already visited `visited`: the least of the bounds avoiding the
    /// hubs among them. The search reads [`Self::rate_after_sides`]; debug builds check it against this.
    #[inline]
    pub(crate) fn rate_after(&self, k: usize, v: AssetId, visited: &[AssetId]) -> f64 {
        if v == self.dst {
            return 1.0;
        }
        let k = k.min(self.max_level);
        let mut best: Option<f64> = None;
        for side in &self.sides[1..] {
            if let Some(a) = side.avoid.filter(|a| *a != v && visited.contains(a)) {
                let _ = a;
                let r = side.rate(&self.tables, k, v);
                best = Some(best.map_or(r, |b| b.min(r)));
            }
        }
        best.unwrap_or_else(|| self.sides[0].rate(&self.tables, k, v))
    }

    /// [`Self::rate_after`] for a path whose visited hubs (and native asset) are the sides `passed` (indices
    /// into the sides, as [`Self::side_of`] gives them): the same least of the same bounds, without
    /// scanning the path for every asset asked about (a whale's search asks tens of thousands).
    #[inline]
    pub(crate) fn rate_after_sides(&self, k: usize, v: AssetId, passed: &[u8]) -> f64 {
        if v == self.dst {
            return 1.0;
        }
        let k = k.min(self.max_level);
        if passed.is_empty() {
            return self.sides[0].rate(&self.tables, k, v);
        }
        // Toward a hub, most assets a search asks about do not reach it in the hops left: the plain table
        // says so in one read, and no side avoiding a hub reaches it where the plain table does not (its
        // walks are some of the plain table's).
        if let Some(slot) = self.sides[0].dst_slot {
            if self.tables.rate(slot, None, k, v) <= 0.0 {
                return 0.0;
            }
        }
        let mut best: Option<f64> = None;
        for &i in passed {
            let side = &self.sides[usize::from(i)];
            if side.avoid != Some(v) {
                let r = side.rate(&self.tables, k, v);
                best = Some(best.map_or(r, |b| b.min(r)));
            }
        }
        best.unwrap_or_else(|| self.sides[0].rate(&self.tables, k, v))
    }

    /// The side avoiding `asset`, if there is one (a hub's or the native asset's; never 0).
    #[inline]
    pub(super) fn side_of(&self, asset: AssetId) -> Option<u8> {
        // At most one side per hub and the native asset: a handful, so the index fits u8.
        self.sides[1..].iter().position(|s| s.avoid == Some(asset)).map(|i| (i + 1) as u8)
    }

    /// The side a search on a path through `visited` reads at `v`: the one avoiding the latest hub passed
    /// (the search finds it from its stack of passed sides; debug builds check it against this).
    #[inline]
    pub(super) fn side_for(&self, visited: &[AssetId], v: AssetId) -> usize {
        for a in visited.iter().rev() {
            if *a == v {
                continue;
            }
            if let Some(i) = self.sides.iter().position(|s| s.avoid == Some(*a)) {
                return i;
            }
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::paths::tests::random_pools;
    use crate::route::testkit::{graph_with_hubs, linear};

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

    /// The best product of zero-size rates over simple paths from `v` to `dst` of at most `k` hops that
    /// avoid `avoid`, by enumeration.
    fn brute(graph: &PoolGraph, v: AssetId, dst: AssetId, k: usize, avoid: &[AssetId]) -> f64 {
        if v == dst {
            return 1.0;
        }
        if k == 0 {
            return 0.0;
        }
        let mut best = 0.0f64;
        for e in graph.edges(v) {
            if avoid.contains(&e.to) {
                continue;
            }
            let Some(h) = graph.form(e.pool, e.direction) else { continue };
            let mut seen = avoid.to_vec();
            seen.push(v);
            best = best.max(h.s * brute(graph, e.to, dst, k - 1, &seen));
        }
        best
    }

    /// The bounds built from hub tables and the output's ball are upper bounds of every simple path, plain
    /// and after a path has passed a hub.
    #[test]
    fn decomposed_bounds_bound_every_simple_path() {
        for seed in 1..6 {
            let pools = random_pools(seed, 10, 40);
            let g = graph_with_hubs(10, &pools, 8);
            assert!(g.hub_tables().hubs().count() >= 2, "seed {seed}: the test needs hubs");
            for dst in (0..10).map(AssetId) {
                let bounds = Bounds::compute(&g, dst, 4, Some(AssetId(0)));
                for v in (0..10).map(AssetId) {
                    for k in 0..=4 {
                        let exact = brute(&g, v, dst, k, &[]);
                        let bound = bounds.rate(k, v);
                        assert!(
                            bound >= exact * (1.0 - 1e-12),
                            "seed {seed} dst {dst:?} v {v:?} k {k}: {bound} < {exact}"
                        );
                        for hub in g.hub_tables().hubs().filter(|h| *h != v && *h != dst) {
                            let exact = brute(&g, v, dst, k, &[hub]);
                            let bound = bounds.rate_after(k, v, &[hub]);
                            assert!(bound >= exact * (1.0 - 1e-12), "seed {seed} avoiding {hub:?}: {bound} < {exact}");
                        }
                    }
                }
            }
        }
    }

    /// A side avoiding a hub, derived from the side that avoids nothing, reads what the side searched with
    /// the hub avoided reads: every asset, level and level beyond, for every output, hub and last-pool
    /// filter (all pools, each single pool into the output, all but one).
    #[test]
    fn a_side_derived_without_a_hub_reads_as_the_side_searched_without_it() {
        for seed in 1..8 {
            let pools = random_pools(seed, 12, 50);
            let g = graph_with_hubs(12, &pools, 8);
            let tables = g.hub_tables();
            let hubs: Vec<AssetId> = tables.hubs().collect();
            assert!(hubs.len() >= 2, "seed {seed}: the test needs hubs");
            for dst in (0..12).map(AssetId) {
                let into: Vec<PoolId> = g.edges(dst).iter().map(|e| e.pool).collect();
                let mut filters: Vec<Box<dyn Fn(PoolId) -> bool>> = vec![Box::new(|_| true)];
                for &p in into.iter().take(3) {
                    filters.push(Box::new(move |q| q == p));
                    filters.push(Box::new(move |q| q != p));
                }
                for last in &filters {
                    let plain = Side::compute(&g, &tables, dst, 3, None, last.as_ref());
                    for &hub in hubs.iter().filter(|h| **h != dst) {
                        let searched = Side::compute(&g, &tables, dst, 3, Some(hub), last.as_ref());
                        let derived = plain.avoiding(&tables, hub);
                        assert_eq!(searched.portals.len(), derived.portals.len(), "seed {seed} {dst:?} {hub:?}");
                        for v in (0..12).map(AssetId) {
                            assert_eq!(
                                searched.ball.get(&v),
                                derived.ball_at(v),
                                "seed {seed} dst {dst:?} hub {hub:?} v {v:?}"
                            );
                            for k in 0..=3 {
                                assert_eq!(searched.rate(&tables, k, v), derived.rate(&tables, k, v));
                            }
                            assert_eq!(
                                searched.rate_beyond(&g, &tables, dst, 4, v),
                                derived.rate_beyond(&g, &tables, dst, 4, v),
                                "seed {seed} dst {dst:?} hub {hub:?} v {v:?} beyond"
                            );
                        }
                    }
                }
            }
        }
    }

    /// A level above the bounds' own, read for one asset, is the level bounds computed that high hold: for
    /// every asset (hubs among them, read from the ball's members) and output, with and without hub tables.
    #[test]
    fn one_level_beyond_equals_bounds_computed_that_high() {
        for seed in 1..6 {
            let pools = random_pools(seed, 10, 40);
            for g in [graph_with_hubs(10, &pools, 8), graph_with_hubs(10, &pools, usize::MAX)] {
                for dst in (0..10).map(AssetId) {
                    for held in 1..LEVELS {
                        let low = Bounds::compute(&g, dst, held, Some(AssetId(0)));
                        let high = Bounds::compute(&g, dst, held + 1, Some(AssetId(0)));
                        for v in (0..10).map(AssetId) {
                            for k in 0..=held + 1 {
                                assert_eq!(
                                    low.rate_at(&g, k, v),
                                    high.rate(k, v),
                                    "seed {seed} dst {dst:?} held {held} v {v:?} k {k}"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}
