//! Path search: hop-limited rate bounds toward the output asset, and branch-and-bound enumeration of simple,
//! chainable paths ranked by a float objective. A pool may follow another only where
//! [`PoolGraph::chains`] says so under the router's [`HandOffPolicy`] (the one chaining rule,
//! [`crate::graph::handoff`]).

mod bounds;

use std::collections::BinaryHeap;

use ahash::{AHashMap, AHashSet};
use smallvec::SmallVec;

use super::sim::Hop;
use crate::graph::hubs::{self, f32_up, ChildList, HubTables};
use crate::graph::{AssetId, Edge, HandOffPolicy, PoolGraph, PoolId};
use crate::pool::estimate::Mobius;
use crate::pool::Direction;
use crate::route::budget::{Budget, CHECK_EVERY};
pub(crate) use bounds::{hop_form, Bounds, Side};

/// A path from the input to the output asset, with its Möbius summary at the current reserves.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub hops: SmallVec<[Hop; 5]>,
    pub form: Mobius,
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
    /// The bounds' sides avoiding the hubs (and native asset) among `path_assets`, in the order the path
    /// passed them (see [`Bounds::rate_after_sides`]).
    passed: SmallVec<[u8; 6]>,
    path_hops: SmallVec<[Hop; 5]>,
    /// Work counter: edges looked at (for limits and profiling).
    pub visited: usize,
    /// Sorted children of high-degree assets, per (asset, hops left after the child).
    hub_children: Vec<HubChildren>,
    first_count: ahash::AHashMap<PoolId, usize>,
    /// For first pools whose paths fill their cap: the least value among them, which a new path through that
    /// pool must beat (see [`Self::offer`]).
    first_floor: ahash::AHashMap<PoolId, f64>,
    /// The same for last pools.
    last_floor: ahash::AHashMap<PoolId, f64>,
    /// Per side of the bounds (plain, avoiding the hub): the bounds split by the last pool a path ends in,
    /// open ones together and each full one alone (see [`Self::can_pass`]). Rebuilt when a last pool fills
    /// or frees (`last_dirty`); the floors themselves are read live.
    last_split: Vec<Option<LastSplit>>,
    last_dirty: bool,
    /// Counts the changes of which last pools are full (each sets `last_dirty`): an expansion at the input
    /// splits its lists again when it moves.
    last_epoch: u32,
    /// `first_floor` of the current path's first pool (0 when it has none).
    first_bar: f64,
    last_count: ahash::AHashMap<PoolId, usize>,
    /// The best value among the kept paths per first pool and per last pool: [`best_by`] over `found`, kept
    /// as paths come and go (see [`Self::keep_champions`]) instead of rebuilt for every offer to a full
    /// group, which was the most of a whale's offers at 100k pools.
    best_first: ahash::AHashMap<PoolId, f64>,
    best_last: ahash::AHashMap<PoolId, f64>,
    best: f64,
    min_index: usize,
    floor: Option<f64>,
    /// Float reserves that replace the graph's for some pools (a split's state after its flows).
    state: Option<&'a PoolState>,
    /// When set, only these assets may be visited.
    allowed: Option<&'a AHashSet<AssetId>>,
    /// Children of hubs (those with tables) that the output's ball reaches, per (hub slot, avoiding side,
    /// hops left after the child): the ball part of [`Self::ball_stream`], built once per search.
    ball_children: Vec<((usize, usize, usize), ChildList)>,
    /// Sets of the pools a hub expansion has met (one per expansion on the current path, which nest), kept
    /// with their capacity between expansions (up to [`SEEN_KEEP`]): allocating, seeding and growing a
    /// fresh set per expansion was a tenth of a long-tail quote's search at 100k pools.
    seen_sets: Vec<AHashSet<PoolId>>,
    /// Which hand-offs a path may use.
    policy: HandOffPolicy,
    /// Whether surplus searches cap the paths sharing a first or last pool.
    capped: bool,
    /// When to stop ([`Budget`]), read every [`CHECK_EVERY`] steps.
    budget: Budget<'a>,
    ticks: u32,
    /// Only pools a swap can be built through ([`PoolGraph::is_swappable`]): quote-only pools give no hop.
    swappable_only: bool,
}

/// Float reserves `[reserve0, reserve1]` of pools moved by an allocation.
pub(crate) type PoolState = ahash::AHashMap<PoolId, [f64; 2]>;

/// Children of a hub asset for a number of hops left: `(sort key, edge index, hop form)`, best first.
type HubChildren = ((AssetId, usize), Vec<(f64, u32, Mobius)>);

/// The sorted hub children one search built, for the next search toward the same output on the same
/// bounds and the graph's own reserves (no state, no confinement): the order depends on nothing else.
#[derive(Default)]
pub(crate) struct HubOrder(Vec<HubChildren>);

/// The largest capacity of a hub expansion's set of pools met that is cleared and kept for the next one.
const SEEN_KEEP: usize = 1024;

/// A fixed hasher for those sets: making a random one per set was a measurable share of small
/// expansions, and their order is never read.
const SEEN_HASHER: ahash::RandomState =
    ahash::RandomState::with_seeds(0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344);

/// A hub's child lists for one expansion (see [`Search::hub_lists`]).
type HubLists<'b> = SmallVec<[(&'b ChildList, f64, Option<PoolId>, f64, bool); 12]>;

/// Assets with more pools than this are expanded through a sorted child list.
const HUB_DEGREE: usize = 64;

/// Before the last hop, an asset with at most this many pools finds its pools into a hub output by reading
/// its own, not the hub's index.
const SCAN_OWN_POOLS: usize = 24;

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
            passed: SmallVec::new(),
            path_hops: SmallVec::new(),
            visited: 0,
            hub_children: Vec::new(),
            first_count: ahash::AHashMap::new(),
            first_floor: ahash::AHashMap::new(),
            last_floor: ahash::AHashMap::new(),
            last_split: Vec::new(),
            last_dirty: false,
            last_epoch: 0,
            first_bar: 0.0,
            last_count: ahash::AHashMap::new(),
            best_first: ahash::AHashMap::new(),
            best_last: ahash::AHashMap::new(),
            best: 0.0,
            min_index: 0,
            floor: None,
            state: None,
            allowed: None,
            ball_children: Vec::new(),
            seen_sets: Vec::new(),
            capped: true,
            policy,
            budget: Budget::UNLIMITED,
            ticks: 0,
            swappable_only: false,
        }
    }

    /// With `only`, leaves quote-only pools out ([`crate::route::RouterConfig::swappable_only`]).
    pub(crate) fn only_swappable(mut self, only: bool) -> Search<'a> {
        self.swappable_only = only;
        self
    }

    /// Whether the search may step through `pool`.
    #[inline(always)]
    fn usable(&self, pool: PoolId) -> bool {
        !self.swappable_only || self.graph.is_swappable(pool)
    }

    /// Stops when `budget` runs out, keeping what was found.
    pub(crate) fn with_budget(mut self, budget: Budget<'a>) -> Search<'a> {
        self.budget = budget;
        self
    }

    /// Whether the budget ran out: the latch every step, the caller's condition every [`CHECK_EVERY`].
    #[inline(always)]
    fn out_of_budget(&mut self) -> bool {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(CHECK_EVERY) {
            self.budget.exhausted()
        } else {
            self.budget.latched()
        }
    }

    /// Searches on `state` instead of the graph's reserves for the pools it holds. The bounds stay the
    /// graph's: an allocation only lowers the rates of the directions it uses, so they remain upper bounds
    /// for those (a pool passed the other way would be priced a little low, which only prunes).
    pub(crate) fn with_state(mut self, state: &'a PoolState) -> Search<'a> {
        self.state = Some(state);
        self
    }

    /// Confines the search to the assets in `allowed` (the output asset is always allowed).
    pub(crate) fn within(mut self, allowed: &'a AHashSet<AssetId>) -> Search<'a> {
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
        v == self.dst || self.allowed.is_none_or(|a| a.contains(&v))
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
        if !self.usable(pool) {
            return None;
        }
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
    fn optimistic(&self, form: Mobius, at: AssetId, depth: usize) -> f64 {
        self.optimistic_from(form, at, self.rest(at, depth))
    }

    /// The bound of the best rate from `at` to the output for a path that has used `depth` hops.
    #[inline]
    fn rest(&self, at: AssetId, depth: usize) -> f64 {
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
    fn optimistic_from(&self, form: Mobius, at: AssetId, rest: f64) -> f64 {
        if rest <= 0.0 {
            return 0.0;
        }
        // Every path ends with a hop into the output, which pays out at most `last_capacity`: the path's
        // `c` is at least the prefix's plus s / last_capacity (see `Bounds::last_capacity`).
        let s = form.s * rest;
        let c = if at == self.dst { form.c } else { form.c + s / self.bounds.last_capacity };
        self.objective.value(Mobius { s, c })
    }

    fn step(&mut self, pool: PoolId, dir: Direction, to: AssetId, form: Mobius) {
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
    fn enter(&mut self, asset: AssetId) {
        self.path_assets.push(asset);
        if let Some(i) = self.bounds.side_of(asset) {
            self.passed.push(i);
        }
    }

    /// Takes the path's last asset off (and its side off `passed`).
    #[inline]
    fn leave(&mut self) {
        if let Some(asset) = self.path_assets.pop() {
            if self.passed.last().is_some_and(|&i| self.bounds.sides[usize::from(i)].avoid == Some(asset)) {
                self.passed.pop();
            }
        }
    }

    /// Follows edge `e` out of `to` (reached through `pool` with summary `form`, `depth` hops used) if its
    /// path may still pass: the step of [`Self::step`] for a non-hub asset's pools.
    #[inline]
    fn try_child(&mut self, e: Edge, pool: PoolId, to: AssetId, form: Mobius, depth: usize) {
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

    /// Expands a high-degree asset (the hub) through its children sorted once per search by
    /// `hop rate × bound of the rest`, stopping at the first child whose optimistic value cannot pass the
    /// threshold: a prefix only scales `s` and adds to `c`, so the order is the same for every prefix.
    fn step_hub(&mut self, at: AssetId, prev: PoolId, form: Mobius, depth: usize) {
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
    fn expand_hub(&mut self, slot: usize, at: AssetId, form: Mobius, prev: Option<PoolId>, depth: usize) {
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
    fn hub_lists<'b>(
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
    fn list_bar(&self, full: Option<PoolId>) -> f64 {
        let bar = self.bar();
        match full {
            Some(pool) => bar.max(self.last_floor.get(&pool).copied().unwrap_or(0.0)),
            None => bar,
        }
    }

    /// The edges from hub `slot` (at `at`) to assets of the output's ball that reach the output within
    /// `rest_hops` more hops, keyed by `rate × ball level` and `capacity × ball level`.
    fn ball_stream(&self, tables: &HubTables, side: &Side, slot: usize, at: AssetId, rest_hops: usize) -> ChildList {
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
    fn allowed_stream(
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
    fn side_index(&self, v: AssetId) -> (&'a Side, usize) {
        let bounds: &'a Bounds = self.bounds;
        // The side avoiding the latest hub passed other than `v` (see `Bounds::side_for`).
        let i =
            self.passed.iter().rev().map(|&i| usize::from(i)).find(|&i| bounds.sides[i].avoid != Some(v)).unwrap_or(0);
        debug_assert_eq!(i, bounds.side_for(&self.path_assets, v));
        (&bounds.sides[i], i)
    }

    /// Makes sure `last_split[index]` holds the bounds of side `index` split by last pool; false when the
    /// split says nothing (no last pool is full, or the output is a hub).
    fn ensure_split(&mut self, index: usize, side: &Side) -> bool {
        if self.last_floor.is_empty() || side.dst_slot.is_some() {
            return false;
        }
        if self.last_split.len() != self.bounds.sides.len() || self.last_dirty {
            self.last_split = self.bounds.sides.iter().map(|_| None).collect();
            self.last_dirty = false;
        }
        let bounds = self.bounds;
        let avoid = bounds.sides[index].avoid;
        if let Some(hub) = avoid.filter(|a| index > 0 && bounds.tables.slot(*a).is_some()) {
            // Avoiding a hub: the plain side's split without the hub (see `Side::avoiding`).
            if self.last_split[index].is_none() && self.ensure_split(0, &bounds.sides[0]) {
                let tables = &bounds.tables;
                let plain = self.last_split[0].as_ref().expect("ensure_split(0) returned true: it is there");
                let derived = LastSplit {
                    open: (plain.open.0.avoiding(tables, hub), plain.open.1),
                    full: plain.full.iter().map(|(pool, k, s)| (*pool, *k, s.avoiding(tables, hub))).collect(),
                };
                self.last_split[index] = Some(derived);
            }
            return true;
        }
        if self.last_split[index].is_none() {
            let compute = |last: &dyn Fn(PoolId) -> bool| {
                Side::compute(self.graph, &bounds.tables, self.dst, bounds.max_level, avoid, last)
            };
            // Capacity of the last hop into the output through each pool.
            let capacity = |pool: PoolId| {
                self.graph
                    .edges(self.dst)
                    .iter()
                    .filter(|e| e.pool == pool)
                    .filter_map(|e| hop_form(self.graph, e.pool, e.direction.reverse()))
                    .map(|h| if h.c > 0.0 { h.s / h.c } else { f64::INFINITY })
                    .fold(0.0, f64::max)
            };
            let open_capacity = self
                .graph
                .edges(self.dst)
                .iter()
                .filter(|e| !self.last_floor.contains_key(&e.pool))
                .map(|e| capacity(e.pool))
                .fold(0.0, f64::max);
            let open = (compute(&|p| !self.last_floor.contains_key(&p)), open_capacity);
            let full =
                self.last_floor.iter().map(|(&pool, _)| (pool, capacity(pool), compute(&|p| p == pool))).collect();
            self.last_split[index] = Some(LastSplit { open, full });
        }
        true
    }

    /// Whether a path with summary `form` at `v`, `rest` hops from the output, can still be kept: it ends in
    /// an open last pool and beats the threshold, or in a full one and beats that pool's floor too. Last
    /// floors only apply to paths whose first pool is not full (`first_full`; see [`Self::offer`]).
    fn can_pass(&mut self, form: Mobius, v: AssetId, rest: usize, first_full: bool) -> bool {
        // At the output, the last pool is known: `offer` decides.
        if first_full || v == self.dst || self.last_floor.is_empty() {
            return true;
        }
        let (side, index) = self.side_index(v);
        let bar = self.bar();
        let objective = self.objective;
        let bounds: &'a Bounds = self.bounds;
        let tables: &'a HubTables = &bounds.tables;
        let rest = rest.min(bounds.max_level);
        if !self.ensure_split(index, side) {
            return true;
        }
        let Some(split) = self.last_split[index].as_ref() else { return true };
        // With the last hop's capacity k, the path's c is at least the prefix's plus s/k.
        let value = |r: f64, k: f64| {
            let s = form.s * r;
            objective.value(Mobius { s, c: form.c + s / k })
        };
        let floors = &self.last_floor;
        // Each part of the split bounds paths through fewer last pools than `side` itself, with the same
        // relaxations over a subset of edges: its rate is at most the side's (checked in debug builds). With
        // several full pools, one read of the side's rate rules out, unread, every part whose capacity and
        // floor it already fails (most full pools' floors are far above the threshold).
        let whole = (split.full.len() >= 2).then(|| side.rate(tables, rest, v));
        let passes = |part: &Side, k: f64, need: f64| {
            if whole.is_some_and(|w| value(w, k) <= need) {
                debug_assert!(part.rate(tables, rest, v) <= whole.unwrap_or(f64::INFINITY));
                return false;
            }
            value(part.rate(tables, rest, v), k) > need
        };
        passes(&split.open.0, split.open.1, bar)
            || split.full.iter().any(|(pool, k, s)| passes(s, *k, bar.max(floors.get(pool).copied().unwrap_or(0.0))))
    }

    /// The value a path must beat to be kept: the threshold, or more where its first pool is full.
    #[inline]
    fn bar(&self) -> f64 {
        self.threshold.max(self.first_bar)
    }

    /// The least value of the kept paths through first pool `pool` when they fill its cap, else 0.
    #[inline]
    fn floor_of(&self, pool: PoolId) -> f64 {
        self.first_floor.get(&pool).copied().unwrap_or(0.0)
    }

    /// After a kept path of value `gone` through `first` … `last` was replaced: the best per first and per
    /// last pool again, rescanning a pool only where the path gone may have been its best (its value is the
    /// best recorded), and dropping a pool no kept path passes any more.
    fn keep_champions(&mut self, first: PoolId, last: PoolId, gone: f64) {
        let found = &self.found;
        // Which end of a path a map is about: its first pool (index 0) or its last.
        let end = |c: &Candidate, last: bool| if last { c.hops[c.hops.len() - 1].0 } else { c.hops[0].0 };
        for (map, pool, last) in [(&mut self.best_first, first, false), (&mut self.best_last, last, true)] {
            if map.get(&pool).is_some_and(|best| *best <= gone) {
                let rest = found.iter().filter(|(_, c)| end(c, last) == pool).map(|(v, _)| *v).reduce(f64::max);
                match rest {
                    Some(best) => {
                        map.insert(pool, best);
                    }
                    None => {
                        map.remove(&pool);
                    }
                }
            }
        }
    }

    /// Paths that share their first or last pool compete for one bottleneck: at most `cap` of them are kept,
    /// so one deep pool's many variants cannot crowd out every other pool. A path whose first pool is full
    /// must beat the least of that pool's paths and replaces it; one whose last pool is full, the least of
    /// that pool's. The path a full group gives up is never the best path of its *other* pool (the best
    /// through its last pool when the first is full, and the reverse) unless the newcomer shares that pool
    /// too: otherwise 24 near-copies through one first and one last pool push out the only path through a
    /// second last pool, and the result depends on the order the paths are met in. The first rule is known
    /// as soon as a path has taken its first hop, so the search prunes with it ([`Self::bar`]).
    fn offer(&mut self, value: f64, form: Mobius) {
        if value <= self.bar() || !value.is_finite() {
            return;
        }
        let first = self.path_hops[0].0;
        let last = self.path_hops[self.path_hops.len() - 1].0;
        let cap = match self.objective {
            Objective::Surplus { .. } if self.capped => (self.keep / 8).max(3),
            _ => usize::MAX,
        };
        let count = |m: &ahash::AHashMap<PoolId, usize>, p: PoolId| m.get(&p).copied().unwrap_or(0);
        let first_full = count(&self.first_count, first) >= cap;
        let last_full = count(&self.last_count, last) >= cap;
        if !first_full && last_full && value <= self.last_floor.get(&last).copied().unwrap_or(0.0) {
            return;
        }
        let slot = if first_full || last_full {
            // The group is the full first pool's paths (else the full last pool's); each member's other pool
            // is its last (else its first).
            let (group, mine) = if first_full { (first, last) } else { (last, first) };
            let ends = |c: &Candidate| {
                let (f, l) = (c.hops[0].0, c.hops[c.hops.len() - 1].0);
                if first_full {
                    (f, l)
                } else {
                    (l, f)
                }
            };
            let champions = if first_full { &self.best_last } else { &self.best_first };
            debug_assert_eq!(*champions, best_by(&self.found, |c| ends(c).1));
            match least_unprotected(
                &self.found,
                champions,
                |c| ends(c).0 == group,
                |c| ends(c).1,
                |c| ends(c).1 == mine,
            ) {
                Some((i, w)) if w < value => Some(i),
                _ => return,
            }
        } else if self.found.len() < self.keep {
            None
        } else {
            Some(self.min_index)
        };
        let candidate = Candidate { hops: self.path_hops.clone(), form };
        let mut replaced = None;
        match slot {
            Some(i) => {
                let old = std::mem::replace(&mut self.found[i], (value, candidate));
                let (old_first, old_last) = (old.1.hops[0].0, old.1.hops[old.1.hops.len() - 1].0);
                *self.first_count.entry(old_first).or_insert(1) -= 1;
                *self.last_count.entry(old_last).or_insert(1) -= 1;
                replaced = Some((old_first, old_last));
                self.keep_champions(old_first, old_last, old.0);
            }
            None => self.found.push((value, candidate)),
        }
        *self.first_count.entry(first).or_insert(0) += 1;
        *self.last_count.entry(last).or_insert(0) += 1;
        for (map, pool) in [(&mut self.best_first, first), (&mut self.best_last, last)] {
            let best = map.entry(pool).or_insert(f64::NEG_INFINITY);
            *best = best.max(value);
        }
        if cap != usize::MAX {
            // Floors: what a newcomer to a full group must beat, the least of its paths that the group may
            // give up (see above).
            let first_of = |c: &Candidate| c.hops[0].0;
            let last_of = |c: &Candidate| c.hops[c.hops.len() - 1].0;
            debug_assert_eq!(self.best_first, best_by(&self.found, first_of));
            debug_assert_eq!(self.best_last, best_by(&self.found, last_of));
            for pool in std::iter::once(first).chain(replaced.map(|r| r.0).filter(|p| *p != first)) {
                if count(&self.first_count, pool) >= cap {
                    let least =
                        least_unprotected(&self.found, &self.best_last, |c| first_of(c) == pool, last_of, |_| false)
                            .map_or(f64::INFINITY, |(_, v)| v);
                    self.first_floor.insert(pool, least);
                } else {
                    self.first_floor.remove(&pool);
                }
            }
            for pool in std::iter::once(last).chain(replaced.map(|r| r.1).filter(|p| *p != last)) {
                let was_full = self.last_floor.contains_key(&pool);
                let full = count(&self.last_count, pool) >= cap;
                if was_full != full {
                    self.last_dirty = true;
                    self.last_epoch = self.last_epoch.wrapping_add(1);
                }
                if full {
                    let least =
                        least_unprotected(&self.found, &self.best_first, |c| last_of(c) == pool, first_of, |_| false)
                            .map_or(f64::INFINITY, |(_, v)| v);
                    self.last_floor.insert(pool, least);
                } else {
                    self.last_floor.remove(&pool);
                }
            }
            self.first_bar = self.floor_of(first);
        }
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

/// The bounds of one side split by the last pool of a path: open pools together, and each full one with
/// its floor.
/// Each part carries the largest capacity (`s / c`, output units) of its last pools: no path through them
/// pays out more.
struct LastSplit {
    open: (Side, f64),
    /// `(pool, capacity, bounds)` per full last pool (its floor is read live: it only rises while full).
    full: SmallVec<[(PoolId, f64, Side); 8]>,
}

/// The best value among `found` per pool picked by `pool_of`: what [`Search`] keeps as paths come and go
/// (`best_first`, `best_last`), rebuilt here for debug builds to check it.
fn best_by(found: &[(f64, Candidate)], pool_of: impl Fn(&Candidate) -> PoolId) -> AHashMap<PoolId, f64> {
    let mut best: AHashMap<PoolId, f64> = AHashMap::with_capacity(found.len());
    for (v, c) in found {
        let b = best.entry(pool_of(c)).or_insert(f64::NEG_INFINITY);
        *b = b.max(*v);
    }
    best
}

/// The least path of a group (`member`) that the group may give up: not the best path through its other
/// pool (`other_of`; `champions` holds the best value per such pool) unless `shares` says the newcomer
/// passes that pool too; the least member when every one is protected.
fn least_unprotected(
    found: &[(f64, Candidate)],
    champions: &AHashMap<PoolId, f64>,
    member: impl Fn(&Candidate) -> bool,
    other_of: impl Fn(&Candidate) -> PoolId,
    shares: impl Fn(&Candidate) -> bool,
) -> Option<(usize, f64)> {
    let mut least: Option<(usize, f64)> = None;
    let mut least_any: Option<(usize, f64)> = None;
    for (i, (v, c)) in found.iter().enumerate() {
        if !member(c) {
            continue;
        }
        if least_any.is_none_or(|(_, w)| *v < w) {
            least_any = Some((i, *v));
        }
        let protected = champions.get(&other_of(c)).is_some_and(|best| *v >= *best);
        if least.is_none_or(|(_, w)| *v < w) && (shares(c) || !protected) {
            least = Some((i, *v));
        }
    }
    least.or(least_any)
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

    use super::*;
    use crate::asset::Asset;
    use crate::graph::Protocol;
    use crate::route::testkit::{
        cp_f, diamond, graph, graph_of, graph_with_hubs, linear, parallel, shared, PoolSpec, DEPTH,
    };
    use crate::route::{NetworkFees, QuoteRequest, Router, RouterConfig};

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

    /// A deterministic random graph: `n` assets, `m` pools between random pairs (some parallel), reserves
    /// spread over six orders of magnitude; asset 0 and 1 take a third of the pools each, so they are hubs.
    pub(super) fn random_pools(seed: u64, n: u32, m: usize) -> Vec<(u32, u32, [u128; 2])> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..m)
            .map(|i| {
                let a = match i % 3 {
                    0 => 0,
                    1 => 1,
                    _ => (next() % u64::from(n)) as u32,
                };
                let mut b = (next() % u64::from(n)) as u32;
                if b == a {
                    b = (a + 1) % n;
                }
                let r = |v: u64| 10u128.pow(9 + (v % 6) as u32) * (1 + u128::from(v % 7));
                (a, b, [r(next()), r(next())])
            })
            .collect()
    }

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
                    let mut r = QuoteRequest::new(asset(from), asset(to), amount);
                    r.max_length = 2 + i % 3;
                    r.max_splits = 1 + i % 4;
                    // Routes and exact amounts; `spot_rate` (and the price impact read from it) is the best rate
                    // among the candidates either search happened to keep, a display figure.
                    let answer = |q: Result<crate::route::Quote, _>| {
                        q.map(|q| (q.routes, q.in_amount, q.out_amount, q.best_single_out, q.min_out))
                    };
                    let router =
                        Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() });
                    let a = answer(router.quote(&plain, &r));
                    let b = answer(router.quote(&hubbed, &r));
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
