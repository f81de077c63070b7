//! Hub tables: what a route search needs about the few assets that hold most of the pools, computed once per
//! rate epoch instead of once per quote.
//!
//! A *hub* is an asset with at least [`HUB_MIN_DEGREE`] pools (TON, USD₮: at most [`MAX_HUBS`], largest
//! first). For each hub `h` the tables hold:
//! - `rate[h][v][k − 1]`: the best product of rate **ceilings** from every asset `v` to `h` within `k` hops
//!   (`k` = 1..=[`LEVELS`]), over walks that do not pass `h` before their end, and the same over walks that
//!   avoid each other hub (and the native asset): once a path has passed a hub it cannot pass it again, and
//!   a bound that goes back through it is far too loose;
//! - `children[h][h'][j − 1]`: the pools leaving `h`, each as its edge, sorted by `ceiling(h → w) ×
//!   rate[h'][w][j − 1]` and carrying the same with the capacity ceiling (see [`ChildList`]), for every
//!   other hub `h'` and `j` = 1..=[`CHILD_LEVELS`] (only the children that reach `h'` at all). A search
//!   standing on `h` reads the children worth following in order from these lists and
//!   stops at the first that cannot pass its threshold, instead of scanning and sorting tens of thousands of
//!   pools per quote;
//! - `by_target[h]`: `h`'s edges sorted by the asset they reach, for "which pools join `h` and `w`".
//!
//! **Validity under updates.** Every pool direction has a rate ceiling ≥ its current rate (f32, rounded up);
//! the tables are built from the ceilings, so they are upper bounds as long as no rate rose above its
//! ceiling. A reserve update that lifts a rate above its ceiling raises the ceiling to the new rate plus
//! [`CEILING_HEADROOM`] and bumps the graph's rate epoch; the next quote finds the tables stale and rebuilds
//! them (the cost of one build, below), resetting every ceiling to its pool's current rate plus the headroom.
//! Updates stay O(1) and never block a quote.
//!
//! **Cost**: one build is dominated by sorting the child lists; the rate tables, a third of it, are a loop
//! over the graph's own CSR, kept hand-written after a comparison with `petgraph`'s `Csr` and `bellman_ford`
//! (figures and reasons in BENCHMARKS.md, "Hub tables: build cost and petgraph").

use std::sync::atomic::{AtomicU32, Ordering};

use super::{AssetId, Edge, PoolGraph};

/// Assets with at least this many pools get hub tables (unless the builder says otherwise:
/// [`super::GraphBuilder::hub_min_degree`]).
pub const HUB_MIN_DEGREE: usize = 512;

/// At most this many hubs (the largest by pool count).
pub const MAX_HUBS: usize = 8;

/// Hop levels of the rate tables (a route has at most 5 hops).
pub const LEVELS: usize = 5;

/// Hop levels of the child lists: a child of a hub is followed by at most 4 more hops.
pub const CHILD_LEVELS: usize = 4;

/// Relative headroom added to a rate ceiling when an update lifts the rate above it.
pub const CEILING_HEADROOM: f64 = 2e-3;

/// The smallest f32 that is ≥ `x` (x ≥ 0); infinity past f32's range, 0 for anything not positive.
#[inline]
pub(crate) fn f32_up(x: f64) -> f32 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    let f = x as f32;
    if f.is_infinite() {
        return f32::INFINITY;
    }
    if f64::from(f) < x {
        // Positive finite floats are ordered like their bit patterns.
        f32::from_bits(f.to_bits() + 1)
    } else {
        f
    }
}

/// Ceilings of every pool direction, as f32 bits (positive floats order like their bits): slots 0 and 1 the
/// zero-size rate of direction 0 (token0 in) and 1, slots 2 and 3 their capacity `s / c` (the most the
/// direction's float model can pay out, in output units).
#[derive(Debug)]
pub(crate) struct Ceilings(Box<[[AtomicU32; 4]]>);

/// The four ceilinged values of a pool from its float summaries `[s01, c01, s10, c10]`.
#[inline]
pub(crate) fn ceiling_values(forms: [f64; 4]) -> [f64; 4] {
    let cap = |s: f64, c: f64| {
        if s <= 0.0 {
            0.0
        } else if c > 0.0 {
            s / c
        } else {
            f64::INFINITY
        }
    };
    [forms[0], forms[2], cap(forms[0], forms[1]), cap(forms[2], forms[3])]
}

impl Ceilings {
    pub(crate) fn new(values: impl Iterator<Item = [f64; 4]>) -> Ceilings {
        Ceilings(values.map(|v| v.map(|x| AtomicU32::new(f32_up(x).to_bits()))).collect())
    }

    /// One ceiling (slot: see the type).
    #[inline]
    pub(crate) fn get(&self, pool: usize, slot: usize) -> f32 {
        f32::from_bits(self.0[pool][slot].load(Ordering::Acquire))
    }

    /// Raises a ceiling to at least `value`·(1 + headroom) if `value` is above it; true when it did.
    #[inline]
    pub(crate) fn lift(&self, pool: usize, slot: usize, value: f64) -> bool {
        if f64::from(self.get(pool, slot)) >= value || value.is_nan() {
            return false;
        }
        let lifted = f32_up(value * (1.0 + CEILING_HEADROOM));
        self.0[pool][slot].fetch_max(lifted.to_bits(), Ordering::AcqRel);
        true
    }

    /// Sets a ceiling to `value`·(1 + headroom) (lowering it is allowed: see the module doc).
    pub(crate) fn reset(&self, pool: usize, slot: usize, value: f64) {
        self.0[pool][slot].store(f32_up(value * (1.0 + CEILING_HEADROOM)).to_bits(), Ordering::Release);
    }
}

/// Best rates toward one hub: `[level 1, …, level LEVELS]` per asset.
type RateTable = Box<[[f32; LEVELS]]>;

/// Entries per block of a [`ChildList`]'s capacity maxima.
const BLOCK: usize = 32;
/// Blocks per super-block.
const SUPER: usize = 32;
/// Within a block, [`ChildList::next_live`] reads the block's maximum again every this many entries.
const RECHECK: usize = 8;

/// One child list: edges sorted by falling rate key, each with its capacity key, and block maxima of the
/// capacity keys so that a search can skip runs of children whose rate *and* capacity together cannot pass
/// its threshold (a small trade is limited by rates, a whale by capacities: neither order alone prunes
/// both).
#[derive(Debug, Default)]
pub(crate) struct ChildList {
    /// `(rate key, edge)`, best rate first.
    pub(crate) entries: Box<[(f32, Edge)]>,
    /// Capacity key of each entry.
    pub(crate) capacities: Box<[f32]>,
    /// Largest capacity key per block of [`BLOCK`] entries.
    block_max: Box<[f32]>,
    /// Largest capacity key from each super-block of [`SUPER`] blocks to the end.
    suffix_max: Box<[f32]>,
}

impl ChildList {
    /// A list from `(rate key, capacity key, edge)` in any order.
    pub(crate) fn new(mut items: Vec<(f32, f32, Edge)>) -> ChildList {
        items.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.2.pool.cmp(&b.2.pool)));
        let entries: Box<[(f32, Edge)]> = items.iter().map(|i| (i.0, i.2)).collect();
        let capacities: Box<[f32]> = items.iter().map(|i| i.1).collect();
        let block_max: Box<[f32]> = capacities.chunks(BLOCK).map(|c| c.iter().copied().fold(0.0, f32::max)).collect();
        let mut suffix_max: Vec<f32> = block_max.chunks(SUPER).map(|c| c.iter().copied().fold(0.0, f32::max)).collect();
        for i in (0..suffix_max.len().saturating_sub(1)).rev() {
            suffix_max[i] = suffix_max[i].max(suffix_max[i + 1]);
        }
        ChildList { entries, capacities, block_max, suffix_max: suffix_max.into() }
    }

    /// The first position ≥ `from` whose child may pass: `passes(rate key, capacity key)` must be monotone
    /// in both keys. Blocks whose best capacity fails with the block's first (best) rate are skipped, and
    /// the scan ends where the best remaining capacity fails.
    /// Generic over the test (not `&dyn Fn`): it runs once per child scanned, thousands of times per hub
    /// expansion at 100k pools, and inlined it is a few multiplications and divisions.
    ///
    /// The block and suffix maxima are read where the scan starts, at each block's start and every
    /// [`RECHECK`] entries within a block (the rate falls along the block, so its maximum may fail part-way):
    /// read at every entry, they were two of the three tests per child scanned. They only skip children that
    /// cannot pass, so the answer is the first passing position either way.
    #[inline]
    pub(crate) fn next_live(&self, mut from: usize, passes: impl Fn(f64, f64) -> bool) -> Option<usize> {
        let mut check = true;
        while from < self.entries.len() {
            let rate = f64::from(self.entries[from].0);
            if check || from.is_multiple_of(RECHECK) {
                check = false;
                let block = from / BLOCK;
                if !passes(rate, f64::from(self.suffix_max[block / SUPER])) {
                    return None;
                }
                if !passes(rate, f64::from(self.block_max[block])) {
                    from = (block + 1) * BLOCK;
                    continue;
                }
            }
            if passes(rate, f64::from(self.capacities[from])) {
                return Some(from);
            }
            from += 1;
        }
        None
    }

    fn heap_bytes(&self) -> usize {
        self.entries.len() * std::mem::size_of::<(f32, Edge)>() + (self.capacities.len() + self.block_max.len()) * 4
    }
}

/// The tables of one hub.
#[derive(Debug)]
pub(crate) struct Hub {
    pub(crate) asset: AssetId,
    plain: RateTable,
    /// Over walks avoiding another hub (or the native asset), per avoided asset.
    avoiding: Vec<(AssetId, RateTable)>,
    /// `children[i][j − 1]`: the hub's edges toward the `i`-th hub's rates at level j (empty for itself),
    /// keyed by rate ceiling × rate of the rest and by capacity ceiling × rate of the rest.
    pub(crate) children: Vec<[ChildList; CHILD_LEVELS]>,
    /// Edge indices (into the hub's adjacency) sorted by target asset.
    by_target: Box<[u32]>,
}

impl Hub {
    /// The table over walks avoiding `avoid`, or the plain one.
    #[inline]
    fn table(&self, avoid: Option<AssetId>) -> &RateTable {
        match avoid {
            Some(a) => self.avoiding.iter().find(|(x, _)| *x == a).map_or(&self.plain, |(_, t)| t),
            None => &self.plain,
        }
    }
}

/// Hub tables of a graph at one rate epoch. See the module doc.
#[derive(Debug)]
pub struct HubTables {
    pub(crate) epoch: u64,
    /// The assets the tables have variants avoiding: the hubs and the native asset.
    pub(crate) avoidable: Vec<AssetId>,
    pub(crate) hubs: Vec<Hub>,
}

impl HubTables {
    /// The hubs, largest first.
    pub fn hubs(&self) -> impl Iterator<Item = AssetId> + '_ {
        self.hubs.iter().map(|h| h.asset)
    }

    /// The slot of `asset` if it is a hub.
    #[inline]
    pub(crate) fn slot(&self, asset: AssetId) -> Option<usize> {
        self.hubs.iter().position(|h| h.asset == asset)
    }

    /// The best ceiling rate from `v` to hub `slot` within `k` hops (1 at the hub itself; 0 for k = 0
    /// elsewhere), over walks that avoid `avoid` when the tables have that variant (else over all walks, still
    /// an upper bound).
    #[inline]
    pub(crate) fn rate(&self, slot: usize, avoid: Option<AssetId>, k: usize, v: AssetId) -> f64 {
        let hub = &self.hubs[slot];
        if v == hub.asset {
            return 1.0;
        }
        if k == 0 {
            return 0.0;
        }
        f64::from(hub.table(avoid)[v.index()][k.min(LEVELS) - 1])
    }

    /// The edges of hub `slot` that reach `to` (the graph's own edges, in adjacency order).
    pub(crate) fn edges_to<'a>(
        &'a self,
        graph: &'a PoolGraph,
        slot: usize,
        to: AssetId,
    ) -> impl Iterator<Item = Edge> + 'a {
        let hub = &self.hubs[slot];
        let edges = graph.edges(hub.asset);
        let start = hub.by_target.partition_point(|&i| edges[i as usize].to < to);
        let end = start + hub.by_target[start..].partition_point(|&i| edges[i as usize].to == to);
        hub.by_target[start..end].iter().map(move |&i| edges[i as usize])
    }

    /// Builds the tables from the graph's ceilings.
    pub(crate) fn build(graph: &PoolGraph, epoch: u64) -> HubTables {
        let native = graph.asset_id(&crate::asset::Asset::Native);
        let mut order: Vec<AssetId> = (0..graph.asset_count() as u32)
            .map(AssetId)
            .filter(|&a| graph.edges(a).len() >= graph.hub_min_degree)
            .collect();
        order.sort_by_key(|&a| (std::cmp::Reverse(graph.edges(a).len()), a));
        order.truncate(MAX_HUBS);
        let mut avoidable = order.clone();
        if let Some(n) = native.filter(|n| !order.is_empty() && !order.contains(n)) {
            avoidable.push(n);
        }
        let mut hubs: Vec<Hub> = order
            .iter()
            .map(|&h| {
                let plain = rate_table(graph, h, None);
                let avoiding =
                    avoidable.iter().filter(|&&a| a != h).map(|&a| (a, rate_table(graph, h, Some(a)))).collect();
                let edges = graph.edges(h);
                let mut by_target: Vec<u32> = (0..edges.len() as u32).collect();
                by_target.sort_by_key(|&i| (edges[i as usize].to, i));
                Hub { asset: h, plain, avoiding, children: Vec::new(), by_target: by_target.into() }
            })
            .collect();
        for i in 0..hubs.len() {
            let at = hubs[i].asset;
            // On a hub, the path has passed it: the other hubs' rates over walks avoiding it.
            let children = (0..hubs.len())
                .map(|t| {
                    std::array::from_fn(|j| {
                        if t == i {
                            return ChildList::default();
                        }
                        child_list(graph, at, hubs[t].asset, hubs[t].table(Some(at)), j)
                    })
                })
                .collect();
            hubs[i].children = children;
        }
        HubTables { epoch, avoidable, hubs }
    }

    /// Bytes held by the tables (for the memory figures).
    pub fn heap_bytes(&self) -> usize {
        self.hubs
            .iter()
            .map(|h| {
                let table = h.plain.len() * std::mem::size_of::<[f32; LEVELS]>();
                let lists: usize = h.children.iter().flat_map(|c| c.iter()).map(ChildList::heap_bytes).sum();
                table * (1 + h.avoiding.len()) + lists + h.by_target.len() * 4
            })
            .sum()
    }
}

/// Hop-limited best ceiling rates from every asset to `hub` (a Bellman–Ford from the hub over reversed edges,
/// level by level; walks never pass the hub before their end, nor `avoid`).
fn rate_table(graph: &PoolGraph, hub: AssetId, avoid: Option<AssetId>) -> RateTable {
    let n = graph.asset_count();
    let mut prev = vec![0.0f64; n];
    prev[hub.index()] = 1.0;
    let mut table: Vec<[f32; LEVELS]> = vec![[0.0; LEVELS]; n];
    let mut frontier = vec![hub];
    let mut in_next = vec![false; n];
    let mut cur = prev.clone();
    for level in 0..LEVELS {
        let mut next = Vec::new();
        for &u in &frontier {
            let via = prev[u.index()];
            for e in graph.edges(u) {
                let v = e.to;
                if v == hub || Some(v) == avoid {
                    continue;
                }
                // The edge leaves u; the rate needed is v → u, the pool's other direction.
                let r = f64::from(graph.ceiling(e.pool, e.direction.reverse())) * via;
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
        for (row, &r) in table.iter_mut().zip(&cur) {
            row[level] = f32_up(r);
        }
        prev.copy_from_slice(&cur);
        frontier = next;
    }
    table[hub.index()] = [1.0; LEVELS];
    table.into()
}

/// The edges of `at` whose far end reaches `target` within `level + 1` hops, keyed by `ceiling(at → w) ×
/// table[w][level]` (the target itself by the ceiling alone), for the rate and for the capacity ceiling.
fn child_list(graph: &PoolGraph, at: AssetId, target: AssetId, table: &RateTable, level: usize) -> ChildList {
    let items = graph
        .edges(at)
        .iter()
        .filter_map(|e| {
            let rest = if e.to == target { 1.0 } else { f64::from(table[e.to.index()][level]) };
            let rate = f64::from(graph.ceiling(e.pool, e.direction)) * rest;
            let capacity = f64::from(graph.capacity_ceiling(e.pool, e.direction)) * rest;
            (rate > 0.0).then(|| (f32_up(rate), f32_up(capacity), *e))
        })
        .collect();
    ChildList::new(items)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_up_never_rounds_down() {
        for x in [1e-30, 0.1, 1.0 / 3.0, 2.0f64.sqrt(), 12345.678, 1e30, 5e15, 2e-19] {
            let f = f32_up(x);
            assert!(f64::from(f) >= x, "{x} → {f}");
            assert!(f64::from(f) <= x * (1.0 + 2.0f64.powi(-22)), "{x} → {f} too far");
        }
        assert_eq!(f32_up(0.0), 0.0);
        assert_eq!(f32_up(1e300), f32::INFINITY);
    }

    /// `next_live` gives the first passing position at or after any start, by a plain scan, for lists of
    /// every length around the block sizes and tests of both shapes a search uses (a rate-bound trade and a
    /// capacity-bound one) at thresholds from none passing to all.
    #[test]
    fn next_live_is_the_first_passing_child_a_plain_scan_finds() {
        use crate::pool::Direction;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edge = |i: u32| Edge { pool: super::super::PoolId(i), to: AssetId(i), direction: Direction::ZeroToOne };
        for len in [0usize, 1, 7, 8, 31, 32, 33, 200, 1_023, 1_024, 1_025, 3_000] {
            let items: Vec<(f32, f32, Edge)> = (0..len as u32)
                .map(|i| {
                    let rate = (next() % 1_000_000) as f32 / 1e3;
                    // Capacities spread over six decades, so blocks mix children that pass and fail.
                    let capacity = 10f32.powi((next() % 6) as i32) * (1 + next() % 9) as f32;
                    (rate, capacity, edge(i))
                })
                .collect();
            let list = ChildList::new(items);
            for bar in [0.0, 1.0, 50.0, 300.0, 2_000.0, 1e5, 1e9] {
                let tests: [&dyn Fn(f64, f64) -> bool; 2] =
                    [&|r, k| r * k / (r + k) > bar, &|r, k| r.min(k / 1e3) * 1e3 > bar];
                for passes in tests {
                    let scan = |from: usize| {
                        (from..len).find(|&p| passes(f64::from(list.entries[p].0), f64::from(list.capacities[p])))
                    };
                    for from in (0..=len).step_by(1 + len / 97) {
                        assert_eq!(list.next_live(from, passes), scan(from), "len {len} bar {bar} from {from}");
                    }
                }
            }
        }
    }
}
