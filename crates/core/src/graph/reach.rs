//! Reachability: which assets one route can join, and when none can, why — built once per graph.
//!
//! Chaining is [`handoff`](super::handoff)'s rule and nothing else: pool `q` may follow pool `p` at asset `a`
//! when [`PoolGraph::chains`] says so under a [`HandOffPolicy`]. That rule reads only the two pools' venues
//! (protocol and router), whether `a` is the native coin and the side `p` is left by
//! ([`PoolGraph::exit_side`]), so it is asked once per pair of (venue, side) groups meeting at an asset, never
//! per pair of pools. A change of which pools chain (a new hand-off kind, a wider policy)
//! changes this diagnosis with no edit here.
//!
//! Built with `petgraph`'s [`UnionFind`] twice: over all pools (are two assets joined by any chain of pools at
//! all?) and over the pools the rule lets follow one another (can one route join them?). The second is exact
//! for the symmetric rules of each exchange's own multi-hop and an over-approximation for one-way hand-offs,
//! which the hop search below settles. Hop counts are a breadth-first search over `(asset, venue and exit side
//! the route arrived with)` states, run only when a quote has found no path: it stops at the target and never leaves the
//! component, so it costs at most that component, where all-pairs distances per build would cost
//! O(assets²). Must not know about quotes or amounts.

use std::collections::VecDeque;

use ahash::AHashMap;
use petgraph::unionfind::UnionFind;
use smallvec::SmallVec;

use super::{AssetId, HandOffPolicy, PoolGraph, PoolId, Refusal};

/// Edges [`Reachability::refused_hand_offs`] looks at, at most.
const REFUSAL_WALK_BUDGET: usize = 200_000;

/// Chains of at most this many pools explain a missing route first.
const REFUSAL_WALK_HOPS: usize = 3;

/// Why no route joins two assets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unroutable {
    /// Chains of pools join them, but each needs a hand-off the chaining rule refuses (or the policy leaves
    /// out). `via`: an asset that a route from the input and a route to the output both reach, when there is
    /// one (the native coin preferred), i.e. a way in two swaps.
    AcrossExchanges {
        /// The intermediate asset of a two-swap way.
        via: Option<AssetId>,
    },
    /// No chain of pools of any length or exchange joins them.
    Disconnected,
}

/// Per-graph connectivity under one [`HandOffPolicy`] (see the module comment).
#[derive(Debug, Clone, Default)]
pub struct Reachability {
    policy: HandOffPolicy,
    /// Component of every asset over all pools, chainable or not.
    linked: Vec<u32>,
    /// CSR over assets: `route_components[offsets[a]..offsets[a + 1]]` are the components (of pools that may
    /// follow one another) of the pools touching asset `a`, sorted and distinct.
    offsets: Vec<u32>,
    route_components: Vec<u32>,
}

impl Reachability {
    /// Computes the components of `graph` under `policy`.
    pub fn build(graph: &PoolGraph, policy: HandOffPolicy) -> Reachability {
        let (assets, pools) = (graph.asset_count(), graph.pool_count());
        let mut linked = UnionFind::<u32>::new(assets);
        for p in graph.pools() {
            linked.union(p.assets[0].0, p.assets[1].0);
        }
        let mut chained = UnionFind::<u32>::new(pools);
        let mut by_venue: AHashMap<(u32, u8), Vec<PoolId>> = AHashMap::new();
        for a in 0..assets {
            // Graphs have fewer than 2^32 assets (ids are u32).
            let at = AssetId(a as u32);
            by_venue.clear();
            for e in graph.edges(at) {
                by_venue.entry((graph.chain_group(e.pool), graph.exit_side(e.pool, at))).or_default().push(e.pool);
            }
            // Every pool of group V at `at` may hand over to every pool of group W there, or none may: the rule
            // reads venues and exit sides only. Each allowed pair joins both groups' pools into one set.
            for (v, vp) in &by_venue {
                for (w, wp) in &by_venue {
                    // Two distinct pools of venues v and w at `at` (a pool never follows itself).
                    let (p, q) = if v == w {
                        match vp.as_slice() {
                            [p, q, ..] => (*p, *q),
                            _ => continue,
                        }
                    } else {
                        (vp[0], wp[0])
                    };
                    if graph.chains(policy, p, q, at) {
                        for &x in vp.iter().chain(wp.iter()) {
                            chained.union(p.0, x.0);
                        }
                    }
                }
            }
        }
        let mut offsets = Vec::with_capacity(assets + 1);
        let mut route_components = Vec::new();
        for a in 0..assets {
            offsets.push(route_components.len() as u32);
            let start = route_components.len();
            route_components.extend(graph.edges(AssetId(a as u32)).iter().map(|e| chained.find(e.pool.0)));
            route_components[start..].sort_unstable();
            let mut unique: Vec<u32> = route_components.drain(start..).collect();
            unique.dedup();
            route_components.extend(unique);
        }
        offsets.push(route_components.len() as u32);
        Reachability { policy, linked: linked.into_labeling(), offsets, route_components }
    }

    /// The policy these components were computed under.
    pub fn policy(&self) -> HandOffPolicy {
        self.policy
    }

    fn components(&self, asset: AssetId) -> &[u32] {
        let i = asset.index();
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&s), Some(&e)) => &self.route_components[s as usize..e as usize],
            _ => &[],
        }
    }

    fn direct(graph: &PoolGraph, from: AssetId, to: AssetId) -> bool {
        graph.edges(from).iter().any(|e| e.to == to)
    }

    /// A pool between them, or chainable pools touching both (a sorted merge of their component lists).
    fn routable(&self, graph: &PoolGraph, from: AssetId, to: AssetId) -> bool {
        if Self::direct(graph, from, to) {
            return true;
        }
        let (a, b) = (self.components(from), self.components(to));
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            match a[i].cmp(&b[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => return true,
            }
        }
        false
    }

    /// `Ok` when one route may join `from` and `to` (a pool between them, or chainable pools touching both;
    /// how many hops it needs is [`Reachability::shortest_route`]), else why not. Component tests and a look at
    /// `from`'s neighbours for a two-swap way; no search.
    pub fn reach(&self, graph: &PoolGraph, from: AssetId, to: AssetId) -> Result<(), Unroutable> {
        if self.routable(graph, from, to) {
            return Ok(());
        }
        Err(self.unroutable(graph, from, to))
    }

    /// Why no route joins them, given that none does.
    pub fn unroutable(&self, graph: &PoolGraph, from: AssetId, to: AssetId) -> Unroutable {
        let (Some(lf), Some(lt)) = (self.linked.get(from.index()), self.linked.get(to.index())) else {
            return Unroutable::Disconnected;
        };
        if lf != lt {
            return Unroutable::Disconnected;
        }
        // A two-swap way: the native coin first, then `from`'s neighbours by degree (hubs first).
        let native = graph.native();
        let mut candidates: Vec<AssetId> = graph.edges(from).iter().map(|e| e.to).collect();
        candidates.sort_unstable_by_key(|a| (Some(*a) != native, std::cmp::Reverse(graph.edges(*a).len()), a.0));
        candidates.dedup();
        if let Some(n) = native.filter(|n| !candidates.contains(n)) {
            candidates.insert(0, n);
        }
        let via = candidates
            .into_iter()
            .filter(|m| *m != from && *m != to)
            .find(|m| self.routable(graph, from, *m) && self.routable(graph, *m, to));
        Unroutable::AcrossExchanges { via }
    }

    /// The refused hand-offs that keep routes from joining `from` and `to`: every simple chain of pools between
    /// them (any exchange) of at most three pools — or, when none is that short, of at most `max_hops` — is
    /// walked, and the first hand-off the policy refuses on each is noted by where it is (the asset handed
    /// over) and why. Those on the shortest chains first, then the most frequent; at most `limit`. Run only
    /// to explain a missing route; the walk stops after a fixed budget of steps, so a hub-to-hub pair costs
    /// no more than a few milliseconds.
    pub fn refused_hand_offs(
        &self,
        graph: &PoolGraph,
        from: AssetId,
        to: AssetId,
        max_hops: usize,
        limit: usize,
    ) -> Vec<(AssetId, Refusal)> {
        struct Walk<'g> {
            graph: &'g PoolGraph,
            policy: HandOffPolicy,
            to: AssetId,
            max_hops: usize,
            assets: Vec<AssetId>,
            pools: Vec<PoolId>,
            /// Per refusal: the shortest chain it was met on, and on how many chains.
            found: AHashMap<(AssetId, Refusal), (usize, usize)>,
            budget: usize,
            /// The pools between each neighbour of `to` and `to`: the last pool of a chain is looked up here
            /// rather than found among every edge of the asset before it (a hub's hundreds).
            into_to: AHashMap<AssetId, SmallVec<[PoolId; 2]>>,
        }
        impl Walk<'_> {
            /// Notes the first refused hand-off of the chain in `pools` / `assets` (which ends at `to`).
            fn note(&mut self) {
                let first_refusal = (1..self.pools.len()).find_map(|i| {
                    let (p, q, a) = (self.pools[i - 1], self.pools[i], self.assets[i]);
                    self.graph.handoff(self.policy, p, q, a).err().map(|r| (a, r))
                });
                if let Some(key) = first_refusal {
                    let len = self.pools.len();
                    let e = self.found.entry(key).or_insert((len, 0));
                    e.0 = e.0.min(len);
                    e.1 += 1;
                }
            }

            fn go(&mut self) {
                let Some(&at) = self.assets.last() else { return };
                if self.pools.len() + 1 == self.max_hops {
                    // Only the pools into `to` can end a chain here.
                    let last: SmallVec<[PoolId; 2]> = self.into_to.get(&at).cloned().unwrap_or_default();
                    for pool in last {
                        if self.budget == 0 {
                            return;
                        }
                        self.budget -= 1;
                        self.pools.push(pool);
                        self.assets.push(self.to);
                        self.note();
                        self.pools.pop();
                        self.assets.pop();
                    }
                    return;
                }
                for e in self.graph.edges(at) {
                    if self.budget == 0 {
                        return;
                    }
                    self.budget -= 1;
                    if self.assets.contains(&e.to) {
                        continue;
                    }
                    self.pools.push(e.pool);
                    self.assets.push(e.to);
                    if e.to == self.to {
                        self.note();
                    } else if self.pools.len() < self.max_hops {
                        self.go();
                    }
                    self.pools.pop();
                    self.assets.pop();
                }
            }
        }
        let mut into_to: AHashMap<AssetId, SmallVec<[PoolId; 2]>> = AHashMap::new();
        for e in graph.edges(to) {
            into_to.entry(e.to).or_default().push(e.pool);
        }
        let walk = |max_hops| {
            let mut w = Walk {
                graph,
                policy: self.policy,
                to,
                max_hops,
                assets: vec![from],
                pools: Vec::new(),
                found: AHashMap::new(),
                budget: REFUSAL_WALK_BUDGET,
                into_to: into_to.clone(),
            };
            w.go();
            w.found
        };
        let mut found = walk(max_hops.min(REFUSAL_WALK_HOPS));
        if found.is_empty() && max_hops > REFUSAL_WALK_HOPS {
            found = walk(max_hops);
        }
        let mut found: Vec<((AssetId, Refusal), (usize, usize))> = found.into_iter().collect();
        found.sort_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)).then(a.0.cmp(&b.0)));
        found.into_iter().take(limit).map(|(k, _)| k).collect()
    }

    /// Hops of the shortest route from `from` to `to` under the policy (1 for a pool between them), `None`
    /// when no route joins them. Breadth-first over (asset, venue and exit side arrived with) states: the
    /// chaining rule reads only those, so a second arrival at an asset with the same adds nothing.
    pub fn shortest_route(&self, graph: &PoolGraph, from: AssetId, to: AssetId) -> Option<usize> {
        if Self::direct(graph, from, to) {
            return Some(1);
        }
        if !self.routable(graph, from, to) {
            return None;
        }
        let mut seen: AHashMap<(AssetId, u32, u8), ()> = AHashMap::new();
        let key = |e: &super::Edge| (e.to, graph.chain_group(e.pool), graph.exit_side(e.pool, e.to));
        // (asset reached, pool that reached it, hops so far)
        let mut queue: VecDeque<(AssetId, PoolId, usize)> = VecDeque::new();
        for e in graph.edges(from) {
            if seen.insert(key(e), ()).is_none() {
                queue.push_back((e.to, e.pool, 1));
            }
        }
        while let Some((at, prev, hops)) = queue.pop_front() {
            for e in graph.edges(at) {
                if e.to == from || !graph.chains(self.policy, prev, e.pool, at) {
                    continue;
                }
                if e.to == to {
                    return Some(hops + 1);
                }
                if seen.insert(key(e), ()).is_none() {
                    queue.push_back((e.to, e.pool, hops + 1));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::Asset;
    use crate::graph::testkit::{addr, cp_curve, jetton};
    use crate::graph::{AssetMeta, GraphBuilder, HandOffKind, PoolContext, Protocol};

    /// TON–A–B–C–D on dex_a (a chain of 4 hops), D–E on a dex_b_v2 router, A–E on another router, F–G alone
    /// on dex_b_v1.
    fn graph() -> (PoolGraph, Vec<AssetId>) {
        let mut b = GraphBuilder::new();
        let mut ids = vec![b.add_asset(AssetMeta::new(Asset::Native, "TON", 9)).unwrap()];
        for (i, s) in ["A", "B", "C", "D", "E", "F", "G"].iter().enumerate() {
            ids.push(b.add_asset(AssetMeta::new(jetton(i as u8 + 1), s, 9)).unwrap());
        }
        let cp = || cp_curve(30);
        let ctx = |r: u8| PoolContext { router: Some(addr(r)), router_wallets: None };
        let r = [1_000_000_000_000u128; 2];
        for (k, (x, y)) in [(0, 1), (1, 2), (2, 3), (3, 4)].iter().enumerate() {
            b.add_pool(addr(10 + k as u8), Protocol::DexA, [ids[*x], ids[*y]], cp(), r, PoolContext::default(), None)
                .unwrap();
        }
        b.add_pool(addr(20), Protocol::DexBV2, [ids[4], ids[5]], cp(), r, ctx(200), None).unwrap();
        b.add_pool(addr(21), Protocol::DexBV1, [ids[6], ids[7]], cp(), r, PoolContext::default(), None).unwrap();
        b.add_pool(addr(22), Protocol::DexBV2, [ids[1], ids[5]], cp(), r, ctx(201), None).unwrap();
        (b.build(), ids)
    }

    #[test]
    fn routes_follow_the_chaining_rule() {
        let (g, ids) = graph();
        assert_eq!(g.reachability().policy(), HandOffPolicy::default());
        let internal = Reachability::build(&g, HandOffPolicy::INTERNAL);
        let r = &internal;
        let (ton, a, d, e, f, gg) = (ids[0], ids[1], ids[4], ids[5], ids[6], ids[7]);
        assert_eq!(r.reach(&g, ton, d), Ok(()));
        assert_eq!(r.shortest_route(&g, ton, d), Some(4));
        assert_eq!(r.shortest_route(&g, d, ton), Some(4));
        assert_eq!(r.shortest_route(&g, a, e), Some(1));
        // TON → E: dex_a to D then a v2 router (or to A then the other router); each own-exchange rule only.
        assert_eq!(r.reach(&g, ton, e), Err(Unroutable::AcrossExchanges { via: Some(a) }));
        assert_eq!(r.shortest_route(&g, ton, e), None);
        assert_eq!(r.reach(&g, ton, f), Err(Unroutable::Disconnected));
        assert_eq!(r.reach(&g, f, gg), Ok(()));
        assert_eq!(r.shortest_route(&g, f, gg), Some(1));
        // With every safe hand-off, dex_a → dex_b_v2 (jetton) joins TON to E in two hops: TON–A on dex_a,
        // then A–E on router 201. E → TON stays refused (nothing may hand over into dex_a).
        let safe = Reachability::build(&g, HandOffPolicy::SAFE);
        assert_eq!(safe.shortest_route(&g, ton, e), Some(2));
        assert_eq!(safe.shortest_route(&g, e, ton), None);
        // E → TON: E–A on router 201 then A–TON on dex_a (into dex_a at A, two pools); E–D on router 200 then
        // four dex_a pools is past the first walk's three pools, and that walk found one already.
        assert_eq!(safe.refused_hand_offs(&g, e, ton, 5, 3), vec![(a, Refusal::IntoDexA)]);
        assert_eq!(
            internal.refused_hand_offs(&g, ton, e, 2, 3),
            vec![(a, Refusal::Disabled(HandOffKind::DexAToDexBV2Jetton))]
        );
    }
}
