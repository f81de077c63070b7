//! Exact joint simulation: routes executed in order with the contracts' integer math, each seeing the
//! reserves the earlier ones left in pools they share.
//!
//! A concentrated (`dex_c`) pool's state does not fit its reserve pair, so the overlay also carries the
//! state ([`ClPoint`]) such a pool was left in, and swaps it from there (see `pool::concentrated`).

use smallvec::SmallVec;

use crate::graph::{PoolGraph, PoolId};
use std::sync::Arc;

use crate::pool::concentrated::{ClPoint, Concentrated};
use crate::pool::{Curve, Direction, PoolError, SwapResult};

/// One hop of a path: a pool and the way it is traversed.
pub(super) type Hop = (PoolId, Direction);

/// Whether two paths pass a common pool. The routes of a split never do: each route is its own chain of
/// messages, and the chain runs a split's messages in the order they arrive (a route with more messages
/// before a pool arrives later; messages from different senders have no order at all), so only routes
/// through distinct pools pay the simulated output whatever that order. Every stage that forms a split
/// keeps its routes apart with this test (a path is simple, so it never passes one pool twice).
pub(crate) fn shares_pool(a: &[Hop], b: &[Hop]) -> bool {
    a.iter().any(|(p, _)| b.iter().any(|(q, _)| p == q))
}

/// Whether no two of `paths` share a pool ([`shares_pool`]).
pub(crate) fn pool_disjoint<'h>(paths: impl IntoIterator<Item = &'h [Hop]>) -> bool {
    let paths: SmallVec<[&[Hop]; 8]> = paths.into_iter().collect();
    paths.iter().enumerate().all(|(i, a)| paths[i + 1..].iter().all(|b| !shares_pool(a, b)))
}

/// Reserves changed by the routes simulated so far, over the graph's live ones.
#[derive(Default)]
pub(crate) struct Overlay {
    /// Reserves of the other pools changed so far (never a concentrated pool's).
    changed: SmallVec<[(PoolId, [u128; 2]); 16]>,
    /// States of concentrated pools changed so far.
    cl: SmallVec<[(PoolId, ClPoint); 2]>,
}

/// Each hop's output along a path, in path order (a route has at most five hops, kept inline).
pub(crate) type HopOuts = SmallVec<[u128; 5]>;

/// A pool's state after one swap.
#[derive(Clone, Copy)]
enum After {
    Reserves([u128; 2]),
    Concentrated(ClPoint),
}

impl Overlay {
    /// A pool's reserves as the routes run so far left them (the graph's where none touched it).
    #[inline]
    pub(crate) fn reserves(&self, graph: &PoolGraph, pool: PoolId) -> [u128; 2] {
        self.changed.iter().find(|(p, _)| *p == pool).map(|(_, r)| *r).unwrap_or_else(|| graph.reserves(pool))
    }

    #[inline]
    fn set(&mut self, pool: PoolId, reserves: [u128; 2]) {
        match self.changed.iter_mut().find(|(p, _)| *p == pool) {
            Some(slot) => slot.1 = reserves,
            None => self.changed.push((pool, reserves)),
        }
    }

    /// One swap through `pool` on the overlay's state: the amount out and the pool's state after.
    #[inline]
    fn swap(&self, graph: &PoolGraph, pool: PoolId, amount: u128, dir: Direction) -> Result<(u128, After), PoolError> {
        let curve = &graph.pool(pool).curve;
        if !matches!(curve, Curve::Concentrated(_)) {
            let r: SwapResult = curve.swap(self.reserves(graph, pool), amount, dir, None)?;
            return Ok((r.amount_out, After::Reserves(r.reserves_after)));
        }
        // The graph holds a live state for every concentrated pool it built.
        let live = graph.concentrated(pool).ok_or(PoolError::EmptyPool)?;
        let state = self.cl.iter().find(|(p, _)| *p == pool).map_or_else(|| ClPoint::from(*live.state()), |(_, s)| *s);
        // Its reserve pair (virtual reserves) is never read here: a concentrated pool swaps from its state.
        let (out, after) = live.swap_exact_in_point(&state, amount, dir)?;
        Ok((out, After::Concentrated(after)))
    }

    /// Swaps `amount` along `path`, committing the new reserves; returns each hop's output.
    pub(crate) fn run(&mut self, graph: &PoolGraph, path: &[Hop], amount: u128) -> Result<HopOuts, PoolError> {
        let mut outs = SmallVec::new();
        let mut x = amount;
        for &(pool, dir) in path {
            let (out, after) = self.swap(graph, pool, x, dir)?;
            self.commit(pool, after);
            x = out;
            outs.push(x);
        }
        Ok(outs)
    }

    /// Output of `amount` along `path` without committing anything (settlement asks [`Memo::peek`] and
    /// [`AloneRuns`], which answer the same on the graph's state; exact-out's probes ask this).
    pub(crate) fn peek(&self, graph: &PoolGraph, path: &[Hop], amount: u128) -> Result<u128, PoolError> {
        let mut x = amount;
        for (i, &(pool, dir)) in path.iter().enumerate() {
            // A simple path meets each pool once, so earlier hops of this path never change a later one.
            debug_assert!(path[..i].iter().all(|(p, _)| *p != pool));
            x = self.swap(graph, pool, x, dir)?.0;
        }
        Ok(x)
    }

    #[inline]
    fn commit(&mut self, pool: PoolId, after: After) {
        match after {
            After::Reserves(reserves) => self.set(pool, reserves),
            After::Concentrated(state) => match self.cl.iter_mut().find(|(p, _)| *p == pool) {
                Some(slot) => slot.1 = state,
                None => self.cl.push((pool, state)),
            },
        }
    }
}

/// [`joint_output`] and `Overlay::peek` over one set of routes whose amounts change (the exact
/// refinement's transfers), with each route's recent simulations remembered.
///
/// A route's result is a function of its amount and the state it finds its pools in, and that state is a
/// function of the amounts of the earlier routes it depends on: those sharing a pool with it, and what
/// those depend on in turn. So a route's result is remembered under its own amount and those routes'
/// amounts (its key), and reused — output and the states it leaves — wherever the key repeats: a transfer
/// between two routes re-simulates only them and the later routes that depend on them. A route that
/// depends on no earlier one finds the pools' own state, so its joint result is also its result alone
/// ([`Memo::peek`]). Results are kept per route in a small direct-mapped table of [`SLOTS`] (the
/// refinement revisits amounts of its last few steps); a result overwritten is simulated again, so every
/// answer is the one the plain simulation gives.
///
/// The pools' states are read from the graph once, when the `Memo` is made (one settlement's refinement):
/// every simulation of the refinement starts from the same reserves, and reads them from a slot per pool
/// instead of the graph's cells and the overlay's lists.
pub(crate) struct Memo<'g> {
    /// The routes' distinct pools: curve, live concentrated pool, state.
    pools: SmallVec<[MemoPool<'g>; 8]>,
    /// Per route, its hops as (pool slot, direction).
    paths: SmallVec<[SlotPath; 8]>,
    routes: SmallVec<[RouteMemo; 8]>,
}

/// A route's hops as (pool slot, direction).
type SlotPath = SmallVec<[(usize, Direction); 5]>;

struct MemoPool<'g> {
    curve: &'g Curve,
    /// The live pool of a concentrated curve (read once).
    concentrated: Option<Arc<Concentrated>>,
    /// The state every simulation starts from (`None`: a concentrated curve the graph has no live state
    /// for, which [`Overlay`] refuses as an empty pool).
    start: Option<After>,
}

/// Results remembered per route and kind of key (a power of two).
const SLOTS: usize = 64;

struct RouteMemo {
    /// The routes whose amounts key this route's joint results (itself and the earlier ones it depends
    /// on), as a bit set.
    deps: u32,
    /// Results in a joint simulation (for a route that depends on no earlier one, also its results alone).
    joint: Recent,
    /// Results alone, for a route that depends on earlier ones (its joint results are not those).
    alone: Recent,
}

/// Results of one route in a direct-mapped table of [`SLOTS`]: keys of `width` amounts, the output or
/// refusal, and (when a later route depends on this one) the states the route left in its `hops` pools.
struct Recent {
    width: usize,
    hops: usize,
    keys: Vec<u128>,
    outs: Vec<Result<u128, PoolError>>,
    effects: Vec<After>,
    /// Which slots hold a result.
    filled: u64,
}

impl Recent {
    fn new(width: usize, hops: usize, with_effects: bool) -> Recent {
        let hops = if with_effects { hops } else { 0 };
        Recent {
            width,
            hops,
            keys: vec![0; SLOTS * width],
            outs: vec![Ok(0); SLOTS],
            effects: vec![After::Reserves([0, 0]); SLOTS * hops],
            filled: 0,
        }
    }

    /// The slot of `key`: a multiplicative hash of its words (amounts that differ in their low bits, as
    /// the refinement's steps do, land apart).
    #[inline]
    fn slot(key: &[u128]) -> usize {
        let mut h = 0u64;
        for &k in key {
            h = (h ^ k as u64 ^ (k >> 64) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        (h >> (64 - SLOTS.trailing_zeros())) as usize
    }

    /// The slot holding `key`, if any.
    #[inline]
    fn find(&self, key: &[u128]) -> Option<usize> {
        let slot = Self::slot(key);
        let at = slot * self.width;
        // Word by word: a slice comparison of a few words would call `memcmp`.
        let same = || self.keys[at..at + self.width].iter().zip(key).all(|(a, b)| a == b);
        (self.filled >> slot & 1 == 1 && same()).then_some(slot)
    }

    /// The states of the route's pools after the result in `slot` (empty when this table keeps none).
    #[inline]
    fn effect(&self, slot: usize) -> &[After] {
        &self.effects[slot * self.hops..(slot + 1) * self.hops]
    }

    #[inline]
    fn insert(&mut self, key: &[u128], out: Result<u128, PoolError>, effect: &[After]) {
        let slot = Self::slot(key);
        self.keys[slot * self.width..(slot + 1) * self.width].copy_from_slice(key);
        self.outs[slot] = out;
        // A refused route leaves fewer states; its slot is never replayed (the refusal ends the run).
        let n = effect.len().min(self.hops);
        self.effects[slot * self.hops..slot * self.hops + n].copy_from_slice(&effect[..n]);
        self.filled |= 1 << slot;
    }
}

impl<'g> Memo<'g> {
    /// For routes with these paths, in this order (at most 32: `max_splits` is at most 20).
    pub(crate) fn new(graph: &'g PoolGraph, paths: &[&[Hop]]) -> Memo<'g> {
        debug_assert!(paths.len() <= 32);
        let mut ids: SmallVec<[PoolId; 8]> = SmallVec::new();
        let mut pools: SmallVec<[MemoPool<'g>; 8]> = SmallVec::new();
        let slotted = paths
            .iter()
            .map(|path| {
                path.iter()
                    .map(|&(pool, dir)| {
                        let slot = ids.iter().position(|p| *p == pool).unwrap_or_else(|| {
                            ids.push(pool);
                            let curve = &graph.pool(pool).curve;
                            let (concentrated, start) = if matches!(curve, Curve::Concentrated(_)) {
                                let live = graph.concentrated(pool);
                                let start = live.as_ref().map(|c| After::Concentrated(ClPoint::from(*c.state())));
                                (live, start)
                            } else {
                                (None, Some(After::Reserves(graph.reserves(pool))))
                            };
                            pools.push(MemoPool { curve, concentrated, start });
                            ids.len() - 1
                        });
                        (slot, dir)
                    })
                    .collect()
            })
            .collect();
        let mut deps: SmallVec<[u32; 8]> = SmallVec::new();
        for (r, path) in paths.iter().enumerate() {
            let mut set = 1u32 << r;
            for (e, earlier) in paths[..r].iter().enumerate() {
                if earlier.iter().any(|(p, _)| path.iter().any(|(q, _)| p == q)) {
                    set |= deps[e];
                }
            }
            deps.push(set);
        }
        let routes = paths
            .iter()
            .enumerate()
            .map(|(r, path)| {
                // Some later route depends on this one: its joint results keep the states it leaves.
                let feeds = deps[r + 1..].iter().any(|d| d >> r & 1 == 1);
                let width = deps[r].count_ones() as usize;
                let alone = if width == 1 { 0 } else { 1 };
                RouteMemo {
                    deps: deps[r],
                    joint: Recent::new(width, path.len(), feeds),
                    alone: Recent::new(alone, path.len(), false),
                }
            })
            .collect();
        Memo { pools, paths: slotted, routes }
    }

    /// One swap through pool `slot` from `state`: what [`Overlay`]'s swap does with that state.
    #[inline]
    fn swap(
        &self,
        slot: usize,
        state: &Option<After>,
        amount: u128,
        dir: Direction,
    ) -> Result<(u128, After), PoolError> {
        let pool = &self.pools[slot];
        match (state, &pool.concentrated) {
            (Some(After::Reserves(reserves)), _) => {
                let r: SwapResult = pool.curve.swap(*reserves, amount, dir, None)?;
                Ok((r.amount_out, After::Reserves(r.reserves_after)))
            }
            (Some(After::Concentrated(point)), Some(live)) => {
                let (out, after) = live.swap_exact_in_point(point, amount, dir)?;
                Ok((out, After::Concentrated(after)))
            }
            _ => Err(PoolError::EmptyPool),
        }
    }

    /// Route `r` at `amount` from `states`, which it updates; records the states it leaves in `effect`.
    #[inline]
    fn run(
        &self,
        r: usize,
        amount: u128,
        states: &mut [Option<After>],
        effect: &mut SmallVec<[After; 5]>,
    ) -> Result<u128, PoolError> {
        let mut x = amount;
        for &(slot, dir) in &self.paths[r] {
            let (out, after) = self.swap(slot, &states[slot], x, dir)?;
            states[slot] = Some(after);
            effect.push(after);
            x = out;
        }
        Ok(x)
    }

    /// [`joint_output`] of `routes` (the paths given to [`Memo::new`], in that order, with any amounts).
    pub(crate) fn joint<P>(&mut self, routes: &[(P, u128)]) -> Result<u128, PoolError> {
        debug_assert_eq!(routes.len(), self.routes.len());
        let mut states: SmallVec<[Option<After>; 8]> = self.pools.iter().map(|p| p.start).collect();
        let mut total = 0u128;
        for (r, (_, amount)) in routes.iter().enumerate() {
            if *amount == 0 {
                continue;
            }
            let deps = self.routes[r].deps;
            let mut key: SmallVec<[u128; 4]> = SmallVec::new();
            key.extend(routes.iter().enumerate().filter(|(i, _)| deps >> i & 1 == 1).map(|(_, (_, a))| *a));
            let out = match self.routes[r].joint.find(&key) {
                Some(slot) => {
                    // The states hold what the route found then: it leaves what it left then.
                    let recent = &self.routes[r].joint;
                    for (&(pool, _), after) in self.paths[r].iter().zip(recent.effect(slot)) {
                        states[pool] = Some(*after);
                    }
                    recent.outs[slot]
                }
                None => {
                    let mut effect = SmallVec::new();
                    let out = self.run(r, *amount, &mut states, &mut effect);
                    self.routes[r].joint.insert(&key, out, &effect);
                    out
                }
            };
            total = total.saturating_add(out?);
        }
        Ok(total)
    }

    /// `Overlay::peek` of route `r` at `amount` on the pools' own state.
    pub(crate) fn peek(&mut self, r: usize, amount: u128) -> Result<u128, PoolError> {
        // A route that depends on no earlier one: its results alone are its joint results.
        let alone = self.routes[r].deps == 1 << r;
        let recent = if alone { &self.routes[r].joint } else { &self.routes[r].alone };
        if let Some(slot) = recent.find(&[amount]) {
            return recent.outs[slot];
        }
        // A simple path meets each pool once: running it on a copy of the start states is the peek.
        let mut states: SmallVec<[Option<After>; 8]> = self.pools.iter().map(|p| p.start).collect();
        let mut effect = SmallVec::new();
        let out = self.run(r, amount, &mut states, &mut effect);
        let recent = if alone { &mut self.routes[r].joint } else { &mut self.routes[r].alone };
        recent.insert(&[amount], out, &effect);
        out
    }
}

/// A path, an amount, the outputs of the hops it passed, and the refusal that stopped it (at the hop after
/// the last output), if any.
struct AloneRun {
    path: SmallVec<[Hop; 5]>,
    amount: u128,
    outs: HopOuts,
    refusal: Option<PoolError>,
}

/// Exact runs of single routes on the graph's own state, remembered by path and amount for one quote: the
/// best-single-route pass runs every candidate for the whole amount, and a split that settles on one of
/// them for the whole amount (one route, as most small trades do) runs the same path again. Each answer is
/// [`Overlay::run`] on a fresh overlay (the graph must not change while the runs are kept).
///
/// Candidates share first hops (a USD₮ whale's sixteen best paths may all start in the same stable pool,
/// whose exact swap is a Newton iteration), so a run starts after the longest prefix an earlier run at the
/// same amount took: on a simple path each hop's output is a function of its pool, direction and input
/// alone (no hop meets a pool an earlier one changed).
#[derive(Default)]
pub(crate) struct AloneRuns {
    runs: Vec<AloneRun>,
}

impl AloneRuns {
    /// Each hop's output of `amount` along `path` from the graph's state, or the first refusal.
    pub(crate) fn run(&mut self, graph: &PoolGraph, path: &[Hop], amount: u128) -> Result<HopOuts, PoolError> {
        let mut outs = HopOuts::new();
        for run in self.runs.iter().filter(|r| r.amount == amount) {
            let shared = run.path.iter().zip(path).take_while(|(a, b)| a == b).count();
            if shared > run.outs.len() {
                // The earlier run was refused within the shared hops, at the same input: so is this one.
                if let Some(refusal) = run.refusal {
                    return Err(refusal);
                }
            }
            let known = shared.min(run.outs.len());
            if known > outs.len() {
                outs = run.outs[..known].into();
            }
            if outs.len() == path.len() {
                return Ok(outs);
            }
        }
        let overlay = Overlay::default();
        let mut x = outs.last().copied().unwrap_or(amount);
        let mut refusal = None;
        for (i, &(pool, dir)) in path.iter().enumerate().skip(outs.len()) {
            // A simple path meets each pool once, so nothing need be committed between its hops.
            debug_assert!(path[..i].iter().all(|(p, _)| *p != pool));
            match overlay.swap(graph, pool, x, dir) {
                Ok((out, _)) => {
                    x = out;
                    outs.push(out);
                }
                Err(e) => {
                    refusal = Some(e);
                    break;
                }
            }
        }
        self.runs.push(AloneRun { path: path.into(), amount, outs: outs.clone(), refusal });
        match refusal {
            Some(e) => Err(e),
            None => Ok(outs),
        }
    }
}

/// Simulates routes in order (each `(path, amount_in)`), exactly; returns every hop's output per route.
/// Routes that share a pool see the reserves the earlier routes left. Any refusal is an error.
pub fn simulate_routes(graph: &PoolGraph, routes: &[(Vec<Hop>, u128)]) -> Result<Vec<Vec<u128>>, PoolError> {
    let mut overlay = Overlay::default();
    routes.iter().map(|(path, amount)| overlay.run(graph, path, *amount).map(|v| v.to_vec())).collect()
}

/// Total output of routes simulated jointly, or the first refusal.
pub(crate) fn joint_output(graph: &PoolGraph, routes: &[(&[Hop], u128)]) -> Result<u128, PoolError> {
    let mut overlay = Overlay::default();
    let mut total = 0u128;
    for (path, amount) in routes {
        if *amount == 0 {
            continue;
        }
        let outs = overlay.run(graph, path, *amount)?;
        total = total.saturating_add(outs.last().copied().unwrap_or(0));
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::testkit::{cp, diamond, graph, linear, shared, DEPTH};

    const Z: Direction = Direction::ZeroToOne;
    const O: Direction = Direction::OneToZero;

    fn hops(h: &[(u32, Direction)]) -> Vec<Hop> {
        h.iter().map(|&(p, d)| (PoolId(p), d)).collect()
    }

    #[test]
    fn a_route_runs_hop_by_hop_as_the_pool_formula_says() {
        // linear: 0 → 1 → 2 → 3 over pools at [D, 2D], [2D, 2D], [D, 3D].
        let g = linear();
        let a = 3_000_000_007;
        let (o1, _, _) = cp(DEPTH, 2 * DEPTH, a);
        let (o2, _, _) = cp(2 * DEPTH, 2 * DEPTH, o1);
        let (o3, _, _) = cp(DEPTH, 3 * DEPTH, o2);
        let route = hops(&[(0, Z), (1, Z), (2, Z)]);
        let outs = simulate_routes(&g, &[(route.clone(), a)]).unwrap();
        assert_eq!(outs, vec![vec![o1, o2, o3]]);
        assert_eq!(Overlay::default().peek(&g, &route, a), Ok(o3));
        // And back: 3 → 2 → 1 → 0, each pool traversed one-to-zero (reserves read the other way round).
        let back = hops(&[(2, O), (1, O), (0, O)]);
        let (b1, _, _) = cp(3 * DEPTH, DEPTH, a);
        let (b2, _, _) = cp(2 * DEPTH, 2 * DEPTH, b1);
        let (b3, _, _) = cp(2 * DEPTH, DEPTH, b2);
        assert_eq!(simulate_routes(&g, &[(back, a)]).unwrap(), vec![vec![b1, b2, b3]]);
    }

    #[test]
    fn routes_sharing_a_pool_see_the_reserves_the_earlier_left() {
        // shared: A = pools 0 then 2, B = pools 1 then 2; pool 2 is run by A first, then by B.
        let g = shared();
        let h = DEPTH / 2;
        let (a_in, b_in) = (40_000_000_000, 25_000_000_000);
        let (a1, _, _) = cp(DEPTH, DEPTH, a_in);
        let (a2, x2, y2) = cp(DEPTH, DEPTH, a1);
        let (b1, _, _) = cp(h, h, b_in);
        let (b2, _, _) = cp(x2, y2, b1);
        let route_a = hops(&[(0, Z), (2, Z)]);
        let route_b = hops(&[(1, Z), (2, Z)]);
        let outs = simulate_routes(&g, &[(route_a.clone(), a_in), (route_b.clone(), b_in)]).unwrap();
        assert_eq!(outs, vec![vec![a1, a2], vec![b1, b2]]);
        let joint = joint_output(&g, &[(route_a.as_slice(), a_in), (route_b.as_slice(), b_in)]);
        assert_eq!(joint, Ok(a2 + b2));
        // The other order: B moves pool 2 first, A sees what B left.
        let (b2_first, x2b, y2b) = cp(DEPTH, DEPTH, b1);
        let (a2_after, _, _) = cp(x2b, y2b, a1);
        let reversed = simulate_routes(&g, &[(route_b, b_in), (route_a, a_in)]).unwrap();
        assert_eq!(reversed, vec![vec![b1, b2_first], vec![a1, a2_after]]);
        // Sharing costs: each route alone on fresh reserves pays more than it does second.
        assert!(b2 < b2_first && a2_after < a2);
    }

    #[test]
    fn a_pool_run_twice_in_opposite_directions_keeps_its_moved_reserves() {
        // Route 1 buys asset 1 from pool 0; route 2 sells asset 1 back into pool 0 at the moved price.
        let g = graph(2, &[(0, 1, [DEPTH, DEPTH])]);
        let a = 50_000_000_000;
        let (o1, x1, y1) = cp(DEPTH, DEPTH, a);
        let (o2, _, _) = cp(y1, x1, o1);
        let outs = simulate_routes(&g, &[(hops(&[(0, Z)]), a), (hops(&[(0, O)]), o1)]).unwrap();
        assert_eq!(outs, vec![vec![o1], vec![o2]]);
        // Round trip loses the fee twice and the rounding: strictly less than what went in.
        assert!(o2 < a);
    }

    #[test]
    fn peek_commits_nothing_and_run_commits_everything() {
        let g = diamond();
        let route = hops(&[(0, Z), (2, Z)]);
        let a = 10_000_000_000;
        let mut overlay = Overlay::default();
        let first = overlay.peek(&g, &route, a).unwrap();
        assert_eq!(overlay.peek(&g, &route, a), Ok(first));
        let outs = overlay.run(&g, &route, a).unwrap();
        assert_eq!(outs.last().copied(), Some(first));
        // Pool 0 now holds (D + a, D − out): the second peek reads it.
        let (o1, x1, y1) = cp(DEPTH, DEPTH, a);
        let (_, x2, y2) = cp(DEPTH, 2 * DEPTH, o1);
        let (p1, _, _) = cp(x1, y1, a);
        let (p2, _, _) = cp(x2, y2, p1);
        assert_eq!(overlay.peek(&g, &route, a), Ok(p2));
        assert!(p2 < first);
        // The other path of the diamond shares no pool: unaffected.
        let other = hops(&[(1, Z), (3, Z)]);
        assert_eq!(overlay.peek(&g, &other, a), Overlay::default().peek(&g, &other, a));
    }

    /// Runs that share a prefix (or a refusal within it) answer what a fresh overlay answers, whatever was
    /// run before and at whichever amount: paths from 0 through pool 0, then two parallel pools to 2 and on
    /// to 3, and a dry pool 1 → 3 that refuses, alone and with a hop after it.
    #[test]
    fn alone_runs_reuse_shared_prefixes_and_answer_as_a_fresh_overlay() {
        let g = graph(
            4,
            &[
                (0, 1, [DEPTH, 2 * DEPTH]),
                (1, 2, [2 * DEPTH, 2 * DEPTH]),
                (1, 2, [DEPTH, 3 * DEPTH]),
                (2, 3, [DEPTH, DEPTH]),
                (1, 3, [DEPTH, 1]),
                (3, 2, [DEPTH, DEPTH]),
            ],
        );
        let paths = [
            hops(&[(0, Z), (1, Z), (3, Z)]),
            hops(&[(0, Z), (2, Z), (3, Z)]),
            hops(&[(0, Z)]),
            hops(&[(0, Z), (1, Z)]),
            hops(&[(0, Z), (4, Z)]),
            hops(&[(0, Z), (4, Z), (5, Z)]),
            hops(&[(0, Z), (2, Z)]),
            hops(&[(0, Z), (1, Z), (3, Z)]),
        ];
        let mut alone = AloneRuns::default();
        for a in [1_000_000_007u128, 5 * DEPTH, 1_000_000_007] {
            for (i, path) in paths.iter().enumerate() {
                let fresh = Overlay::default().run(&g, path, a);
                assert_eq!(alone.run(&g, path, a), fresh, "path {i} at {a}");
            }
        }
        assert_eq!(alone.run(&g, &paths[5], 1_000_000_007), Err(PoolError::ZeroOutput));
    }

    #[test]
    fn joint_output_skips_empty_routes_and_reports_a_refusal() {
        // Pool 1 is dry on its output side (1 unit): any input rounds to zero output, which the contract
        // refuses.
        let g = graph(2, &[(0, 1, [DEPTH, DEPTH]), (0, 1, [DEPTH, 1])]);
        let good = hops(&[(0, Z)]);
        let dry = hops(&[(1, Z)]);
        let a = 1_000_000_000;
        let (o, _, _) = cp(DEPTH, DEPTH, a);
        assert_eq!(joint_output(&g, &[(good.as_slice(), a), (dry.as_slice(), 0)]), Ok(o));
        assert_eq!(joint_output(&g, &[(good.as_slice(), a), (dry.as_slice(), a)]), Err(PoolError::ZeroOutput));
        assert_eq!(simulate_routes(&g, &[(dry, a)]), Err(PoolError::ZeroOutput));
    }
}
