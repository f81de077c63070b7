//! Path search: hop-limited rate bounds toward the output asset, and branch-and-bound enumeration of simple,
//! chainable paths ranked by a float objective. A pool may follow another only where
//! [`PoolGraph::chains`] says so under the router's [`HandOffPolicy`] (the one chaining rule,
//! [`crate::graph::handoff`]).
//!
//! Parts: `bounds` (rate bounds toward the output), `search` (the depth-first walk), `hubs` (sorted child
//! lists of high-degree assets) and `kept` (the best paths so far, capped per first and last pool). This
//! file holds the search's state and its settings.

mod bounds;
mod hubs;
mod kept;
mod search;

use ahash::AHashSet;
use smallvec::SmallVec;

use super::sim::Hop;
use crate::graph::hubs::ChildList;
use crate::graph::{AssetId, HandOffPolicy, PoolGraph, PoolId};
use crate::pool::estimate::Mobius;
use crate::pool::Direction;
use crate::route::budget::{Budget, CHECK_EVERY};
pub(crate) use bounds::{hop_form, Bounds, Side};
use kept::LastSplit;

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
}

#[cfg(test)]
pub(super) mod tests {
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
}
