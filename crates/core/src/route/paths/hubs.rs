//! Hub expansion: the sorted child lists of high-degree assets (built once per search and per hops left), and
//! the merge over them that stops at the first child that cannot pass. Must not decide what is kept.

use std::collections::BinaryHeap;

use ahash::AHashSet;
use smallvec::SmallVec;

use super::*;
use crate::graph::hubs::{self, f32_up, ChildList, HubTables};
use crate::graph::{AssetId, Edge, PoolId};
use crate::pool::estimate::Mobius;

/// The largest capacity of a hub expansion's set of pools met that is cleared and kept for the next one.
const SEEN_KEEP: usize = 1024;

/// A fixed hasher for those sets: making a random one per set was a measurable share of small
/// expansions, and their order is never read.
const SEEN_HASHER: ahash::RandomState =
    ahash::RandomState::with_seeds(0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344);

/// A hub's child lists for one expansion (see [`Search::hub_lists`]).
type HubLists<'b> = SmallVec<[(&'b ChildList, f64, Option<PoolId>, f64, bool); 12]>;

impl<'a> Search<'a> {
    /// Expands a high-degree asset (the hub) through its children sorted once per search by
    /// `hop rate × bound of the rest`, stopping at the first child whose optimistic value cannot pass the
    /// threshold: a prefix only scales `s` and adds to `c`, so the order is the same for every prefix.
    pub(super) fn step_hub(&mut self, at: AssetId, prev: PoolId, form: Mobius, depth: usize) {
        if let Some(slot) = self.bounds.tables.slot(at) {
            self.expand_hub(slot, at, form, Some(prev), depth);
            return;
        }
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
            if self.objective.value(Mobius { s: form.s * k, c: form.c }) <= self.bar() {
                break;
            }
            let e = self.graph.edges(at)[i as usize];
            if self.path_assets.contains(&e.to) || !self.graph.chains(self.policy, prev, e.pool, at) {
                continue;
            }
            let next = form.then(h);
            if self.optimistic(next, e.to, depth + 1) <= self.bar() {
                continue;
            }
            self.step(e.pool, e.direction, e.to, next);
        }
        self.hub_children[pos].1 = children;
    }

    /// Expands a hub with tables (see [`crate::graph::hubs`]): its children come from the hub's presorted
    /// child lists (one per hub the output's ball reaches and hop count) and the ball's own neighbours of
    /// the hub, merged in falling order of their rate key; each list skips the runs of children whose rate
    /// and capacity keys together cannot pass the threshold, and ends where none can. `prev` is the pool the
    /// path reached the hub through (`None` at the input, where every pool may start a route).
    pub(super) fn expand_hub(&mut self, slot: usize, at: AssetId, form: Mobius, prev: Option<PoolId>, depth: usize) {
        let bounds: &'a Bounds = self.bounds;
        let tables: &'a HubTables = &bounds.tables;
        let rest_hops = self.max_length - depth - 1;
        // Standing on the hub, the path has passed it: the side avoiding it (the search never enters the hub
        // again, so `at` itself never asks).
        let index = self.passed.last().map_or(0, |&i| usize::from(i));
        let side = &bounds.sides[index];
        // The ball's neighbours of the hub (the output itself among them), built once per search.
        let key = (slot, index, rest_hops);
        let pos = match self.ball_children.iter().position(|(k, _)| *k == key) {
            Some(pos) => pos,
            None => {
                let list = self.ball_stream(tables, side, slot, at, rest_hops);
                self.ball_children.push((key, list));
                self.ball_children.len() - 1
            }
        };
        let ball = std::mem::take(&mut self.ball_children[pos].1);
        {
            // A bound of the objective over the paths through a child, from its rate key r (≥ the rate of
            // the child's hop and of the rest) and capacity key k (≥ what the hop can pay out, times the rate
            // of the rest): with s = prefix·r and the path's c ≥ prefix c + s/k, the output is at most
            // s·a / (1 + c·a) and the surplus at most (√s − √λ)² / c; both grow with r and with k.
            let objective = self.objective;
            let value = move |r: f64, k: f64, limit: f64, apart: bool| -> f64 {
                let s = form.s * r;
                let c = if apart { form.c + s / k + s / limit } else { form.c + s / k.min(limit) };
                match objective {
                    Objective::Output { amount } => s * amount / (1.0 + c * amount),
                    Objective::Surplus { lambda, .. } if s > lambda => (s.sqrt() - lambda.sqrt()).powi(2) / c,
                    Objective::Surplus { .. } => 0.0,
                }
            };
            let live = |list: &ChildList, scale: f64, limit: f64, apart: bool, from: usize, bar: f64| {
                list.next_live(from, |r, k| value(r * scale, k * scale, limit, apart) > bar)
            };
            let mut lists = self.hub_lists(slot, index, side, prev, rest_hops, &ball);
            let mut heap: BinaryHeap<(Key, usize, usize)> = BinaryHeap::new();
            let fill = |this: &Self, lists: &HubLists<'_>, heap: &mut BinaryHeap<(Key, usize, usize)>| {
                heap.clear();
                for (i, &(list, scale, full, limit, apart)) in lists.iter().enumerate() {
                    if let Some(p) = live(list, scale, limit, apart, 0, this.list_bar(full)) {
                        heap.push((Key(f64::from(list.entries[p].0) * scale), i, p));
                    }
                }
            };
            fill(self, &lists, &mut heap);
            // At the input, no last pool is full when the expansion starts; as the paths found fill some, the
            // lists are split again by last pool (see `hub_lists`), so the children that only reach full last
            // pools below their floors are skipped by the lists' blocks instead of one by one in `can_pass`
            // (thousands per whale's surplus search at 100k pools). The merge restarts from the top: the
            // children already stepped are in `seen`.
            let mut split_epoch = self.last_epoch;
            let mut seen = self.seen_sets.pop().unwrap_or_else(|| AHashSet::with_hasher(SEEN_HASHER));
            while let Some((_, i, p)) = heap.pop() {
                self.visited += 1;
                let (list, scale, full, limit, apart) = lists[i];
                let bar = self.list_bar(full);
                let bound =
                    value(f64::from(list.entries[p].0) * scale, f64::from(list.capacities[p]) * scale, limit, apart);
                // The threshold may have risen since this child was queued.
                if let Some(q) = live(list, scale, limit, apart, p + 1, bar) {
                    heap.push((Key(f64::from(list.entries[q].0) * scale), i, q));
                }
                if bound <= bar {
                    continue;
                }
                let e = list.entries[p].1;
                if !seen.insert(e.pool) {
                    continue;
                }
                if prev.is_some_and(|p| !self.graph.chains(self.policy, p, e.pool, at))
                    || self.path_assets.contains(&e.to)
                    || !self.may_visit(e.to)
                {
                    continue;
                }
                let Some(h) = self.hop(e.pool, e.direction) else { continue };
                let next = form.then(h);
                let (bar, first_full) = match prev {
                    None => (self.threshold.max(self.floor_of(e.pool)), self.floor_of(e.pool) > 0.0),
                    Some(_) => (self.bar(), self.first_bar > 0.0),
                };
                if self.optimistic(next, e.to, depth + 1) <= bar || !self.can_pass(next, e.to, rest_hops, first_full) {
                    continue;
                }
                self.step(e.pool, e.direction, e.to, next);
                if prev.is_none() && self.last_epoch != split_epoch {
                    split_epoch = self.last_epoch;
                    lists = self.hub_lists(slot, index, side, prev, rest_hops, &ball);
                    fill(self, &lists, &mut heap);
                }
            }
            // Small sets go back for the next expansion; clearing costs their capacity, so a set a large
            // expansion grew is dropped instead (most expansions after it are small).
            if seen.capacity() <= SEEN_KEEP {
                seen.clear();
                self.seen_sets.push(seen);
            }
        }
        self.ball_children[pos].1 = ball;
    }

    /// The child lists of hub `slot` for a path that passed the bounds' side `index`, with `rest_hops` hops
    /// left after the child: (list, scale of its keys, the full last pool all its paths end in, whose floor
    /// they must beat ([`Self::list_bar`]), the largest capacity of its paths' last pools, whether the child
    /// is never the output so its hop and the last hop bound the curvature apart). Toward a hub output, its
    /// own list;
    /// otherwise one list per hub the ball reaches and hop count, split by last pool where some are full (a
    /// path through a full one must beat its floor too) and the path's first pool is not full (whose paths
    /// no last floor binds; at the input no child's first pool is full before it is stepped, as each pool
    /// is stepped once there); then the ball's own neighbours of the hub.
    pub(super) fn hub_lists<'b>(
        &mut self,
        slot: usize,
        index: usize,
        side: &Side,
        prev: Option<PoolId>,
        rest_hops: usize,
        ball: &'b ChildList,
    ) -> HubLists<'b>
    where
        'a: 'b,
    {
        let bounds: &'a Bounds = self.bounds;
        let tables: &'a HubTables = &bounds.tables;
        let hub = &tables.hubs[slot];
        let levels = rest_hops.min(hubs::CHILD_LEVELS);
        let mut lists: HubLists<'b> = SmallVec::new();
        if self.allowed.is_some() {
            // Confined (pricing): the ball list holds every allowed child.
            lists.push((ball, 1.0, None, bounds.last_capacity, false));
            return lists;
        }
        match side.dst_slot {
            Some(d) if rest_hops > 0 => {
                lists.push((&hub.children[d][levels - 1], 1.0, None, bounds.last_capacity, false))
            }
            _ => {
                let split = if (prev.is_none() || self.first_bar == 0.0) && self.ensure_split(index, side) {
                    self.last_split[index].as_ref()
                } else {
                    None
                };
                for &(p, ref d) in &side.portals {
                    if p == slot {
                        continue;
                    }
                    let portal = tables.hubs[p].asset;
                    for j in 1..=levels {
                        let list = &hub.children[p][j - 1];
                        match split {
                            Some(split) => {
                                let level = |s: &Side| s.ball_at(portal).map_or(0.0, |l| l[rest_hops - j]);
                                let open = level(&split.open.0);
                                if open > 0.0 {
                                    lists.push((list, open, None, split.open.1, true));
                                }
                                for (pool, k, s) in &split.full {
                                    let scale = level(s);
                                    if scale > 0.0 {
                                        lists.push((list, scale, Some(*pool), *k, true));
                                    }
                                }
                            }
                            None if d[rest_hops - j] > 0.0 => {
                                lists.push((list, d[rest_hops - j], None, bounds.last_capacity, true))
                            }
                            None => {}
                        }
                    }
                }
            }
        }
        lists.push((ball, 1.0, None, bounds.last_capacity, false));
        lists
    }

    /// What the paths of a hub child list must beat: the threshold, and for a list of paths that all end
    /// in one full last pool, that pool's floor as it stands now (floors rise while an expansion runs: read
    /// when the list was made, they let through thousands of children that `can_pass` then refused).
    #[inline]
    pub(super) fn list_bar(&self, full: Option<PoolId>) -> f64 {
        let bar = self.bar();
        match full {
            Some(pool) => bar.max(self.last_floor.get(&pool).copied().unwrap_or(0.0)),
            None => bar,
        }
    }

    /// The edges from hub `slot` (at `at`) to assets of the output's ball that reach the output within
    /// `rest_hops` more hops, keyed by `rate × ball level` and `capacity × ball level`.
    pub(super) fn ball_stream(
        &self,
        tables: &HubTables,
        side: &Side,
        slot: usize,
        at: AssetId,
        rest_hops: usize,
    ) -> ChildList {
        if let Some(allowed) = self.allowed {
            return self.allowed_stream(tables, allowed, slot, at, rest_hops);
        }
        let mut items: Vec<(f32, f32, Edge)> = Vec::new();
        let mut add = |e: Edge, rest: f64| {
            if !self.usable(e.pool) {
                return;
            }
            if let Some(h) = hop_form(self.graph, e.pool, e.direction) {
                let capacity = if h.c > 0.0 { h.s / h.c } else { f64::INFINITY };
                items.push((f32_up(h.s * rest), f32_up(capacity * rest), e));
            }
        };
        if let Some(d) = side.dst_slot {
            // The output is a hub: its own table's lists hold every child; only the output itself, for a
            // last hop, comes from here.
            if rest_hops == 0 {
                tables.edges_to(self.graph, slot, tables.hubs[d].asset).for_each(|e| add(e, 1.0));
            }
        } else {
            for (&w, levels) in side.ball.iter() {
                let rest = levels[rest_hops];
                if rest <= 0.0 || w == at || side.avoid == Some(w) {
                    continue;
                }
                if tables.slot(w).is_some() {
                    tables.edges_to(self.graph, slot, w).for_each(|e| add(e, rest));
                } else {
                    for e in self.graph.edges(w) {
                        if e.to == at {
                            add(Edge { pool: e.pool, to: w, direction: e.direction.reverse() }, rest);
                        }
                    }
                }
            }
        }
        ChildList::new(items)
    }

    /// The edges from hub `slot` (at `at`) to the assets a confined search may visit, keyed like the ball's.
    pub(super) fn allowed_stream(
        &self,
        tables: &HubTables,
        allowed: &AHashSet<AssetId>,
        slot: usize,
        at: AssetId,
        rest_hops: usize,
    ) -> ChildList {
        let mut items: Vec<(f32, f32, Edge)> = Vec::new();
        for &w in allowed.iter().chain(std::iter::once(&self.dst)) {
            let rest = if w == self.dst { 1.0 } else { self.bounds.rate(rest_hops, w) };
            if w == at || rest <= 0.0 {
                continue;
            }
            let mut add = |e: Edge| {
                if let Some(h) = self.hop(e.pool, e.direction) {
                    let capacity = if h.c > 0.0 { h.s / h.c } else { f64::INFINITY };
                    items.push((f32_up(h.s * rest), f32_up(capacity * rest), e));
                }
            };
            if tables.slot(w).is_some() {
                tables.edges_to(self.graph, slot, w).for_each(&mut add);
            } else {
                for e in self.graph.edges(w) {
                    if e.to == at {
                        add(Edge { pool: e.pool, to: w, direction: e.direction.reverse() });
                    }
                }
            }
        }
        // The output may be among the allowed assets too.
        items.sort_by_key(|i| (i.2.pool, i.2.direction.in_index()));
        items.dedup_by(|a, b| a.2 == b.2);
        ChildList::new(items)
    }

    /// The side of the bounds a path through the current path's assets reads at `v`, and its index.
    pub(super) fn side_index(&self, v: AssetId) -> (&'a Side, usize) {
        let bounds: &'a Bounds = self.bounds;
        // The side avoiding the latest hub passed other than `v` (see `Bounds::side_for`).
        let i =
            self.passed.iter().rev().map(|&i| usize::from(i)).find(|&i| bounds.sides[i].avoid != Some(v)).unwrap_or(0);
        debug_assert_eq!(i, bounds.side_for(&self.path_assets, v));
        (&bounds.sides[i], i)
    }
}

/// An f64 ordered by `total_cmp`.
#[derive(PartialEq)]
struct Key(f64);

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::super::tests::random_pools;
    use super::*;
    use crate::route::testkit::graph_with_hubs;
    use crate::route::{NetworkFees, QuoteOptions, QuoteRequest, Router, RouterConfig};

    /// Hub tables change how much a quote searches, never what it answers: the same requests on the same
    /// pools with and without tables give the same routes and amounts. Without network fees: the fee's
    /// value in output units is read from the rate bound, which the tables make tighter where arbitrage
    /// cycles (plenty in random pools) inflate the plain one.
    #[test]
    fn hub_tables_do_not_change_answers() {
        for seed in 1..5 {
            let pools = random_pools(seed, 12, 60);
            let plain = graph_with_hubs(12, &pools, usize::MAX);
            let hubbed = graph_with_hubs(12, &pools, 10);
            assert!(hubbed.hub_tables().hubs().count() >= 2);
            for (i, (from, to)) in [(0u8, 5u8), (3, 1), (7, 9), (1, 0), (4, 11)].into_iter().enumerate() {
                let asset = |a: u8| plain.asset(AssetId(u32::from(a))).asset;
                // Not whales: there the surplus search's capped keep-lists depend on the order paths are met
                // in, with or without tables (see the route module doc).
                for amount in [1_000_000u128, 1_000_000_000_000] {
                    let r = QuoteRequest::builder(asset(from), asset(to), amount)
                        .max_length(2 + i % 3)
                        .max_splits(1 + i % 4)
                        .build()
                        .unwrap();
                    // Routes and exact amounts; `spot_rate` (and the price impact read from it) is the best rate
                    // among the candidates either search happened to keep, a display figure.
                    let answer = |q: Result<crate::route::Quote, _>| {
                        q.map(|q| (q.routes, q.in_amount, q.out_amount, q.best_single_out, q.min_out))
                    };
                    let router =
                        Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() });
                    let a = answer(router.quote(&plain, &r, QuoteOptions::default()));
                    let b = answer(router.quote(&hubbed, &r, QuoteOptions::default()));
                    assert_eq!(a, b, "seed {seed} {from}→{to} amount {amount}");
                }
            }
        }
    }

    /// A reserve update that lifts a rate above its ceiling makes the next quote rebuild the tables, and
    /// the bounds cover the new rate.
    #[test]
    fn ceiling_lift_rebuilds_tables() {
        let pools = random_pools(3, 10, 40);
        let g = graph_with_hubs(10, &pools, 8);
        let before = g.hub_tables();
        // Make pool 0 (asset 0 → b) ten times cheaper in its 0 → 1 direction.
        let id = PoolId(0);
        let [r0, r1] = g.reserves(id);
        g.update_reserves(id, [r0 / 10, r1]).unwrap();
        assert!(f64::from(g.ceiling(id, Direction::ZeroToOne)) >= g.form(id, Direction::ZeroToOne).unwrap().s);
        let after = g.hub_tables();
        assert!(!Arc::ptr_eq(&before, &after), "tables were not rebuilt");
        let [a, b] = g.pool(id).assets;
        let bounds = Bounds::compute(&g, b, 4, Some(AssetId(0)));
        assert!(bounds.rate(1, a) >= g.form(id, Direction::ZeroToOne).unwrap().s);
        // Halving both reserves keeps both rates and lowers both capacities: the tables stay.
        let [x, y] = g.reserves(id);
        g.update_reserves(id, [x / 2, y / 2]).unwrap();
        assert!(Arc::ptr_eq(&after, &g.hub_tables()));
        // Four times deeper: the capacities rise above their ceilings, and the tables are rebuilt again.
        g.update_reserves(id, [x * 2, y * 2]).unwrap();
        assert!(!Arc::ptr_eq(&after, &g.hub_tables()));
    }
}
