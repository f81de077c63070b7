//! The pool graph: assets interned to dense ids, pools with their curves and live reserves, adjacency.
//!
//! Owns building a graph (in code through [`GraphBuilder`], or from a JSON snapshot with the `serde`
//! feature), validating it (errors name the offending pool), and in-place reserve updates that run
//! concurrently with quotes. Must not know about routes, quotes, JSON wire shapes of `/v4` or cells.
//!
//! **Adjacency** is a flat CSR array (`offsets` + `edges`), not `petgraph`: a route search only ever asks
//! "which pools leave this asset", and a contiguous slice of 12-byte edges answers that with one cache-friendly
//! scan; `petgraph`'s linked edge lists cost a pointer chase per edge and add nothing we use. `petgraph`'s
//! union-find does build the per-graph **reachability** (`reach.rs`: which assets one route can join, why not
//! when none can), read only to explain a quote that finds no path.
//!
//! **Concurrency.** The structure (assets, pools, adjacency) is immutable after build; reserves live in
//! per-pool sequence locks, so [`PoolGraph::update_reserves`] takes `&self`, costs O(1) per pool and never
//! blocks a quote. A quote reads each pool's reserves once, consistently; reserves of different pools may
//! come from different update batches while a batch is being applied, as they would on chain.
//!
//! **Chaining.** Which pool may follow which in one route is [`handoff`]'s rule
//! ([`PoolGraph::chains`], [`PoolGraph::handoff_kind`]): one predicate on the two pools and the asset between
//! them, with the hand-offs a [`HandOffPolicy`] enables; [`PoolGraph::chain_group`] only says which pools
//! share a router (or, for `dex_a`, the protocol).
//!
//! **Concentrated pools** (`dex_c`) have a state the reserve pair cannot hold (a 160-bit sqrt price, the
//! tick, the active liquidity, the tick map). The graph keeps the live [`Concentrated`] of each such pool
//! behind an `ArcSwap` ([`PoolGraph::concentrated`]); [`PoolGraph::update_concentrated`] and
//! [`PoolGraph::update_concentrated_state`] replace it in place, lock-free for readers. The pool's reserve
//! pair then holds its virtual reserves (`pool::concentrated::virtual_reserves`), refreshed with each update,
//! which the float ranking reads; [`PoolGraph::update_reserves`] refuses concentrated pools.
//!
//! **Topology changes** (a pool added, replaced or removed) build a new graph through the builder
//! ([`PoolGraph::rebuilt`], `rebuild.rs`), so every table derived from the structure is derived again; a
//! server holds the current graph in a [`LiveGraph`] and swaps it whole while quotes keep the one they loaded.

mod builder;
mod error;
pub mod handoff;
pub mod hubs;
mod live;
mod reach;
mod rebuild;
mod reserves;
#[cfg(feature = "serde")]
pub mod snapshot;
#[cfg(test)]
pub(crate) mod testkit;
mod types;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ahash::AHashMap;
use arc_swap::ArcSwap;
use tonlib_core::TonAddress;

use crate::asset::Asset;
use crate::chain::wallet::{WalletError, WalletSpec};
use crate::pool::concentrated::ClState;
use crate::pool::estimate::{self, Mobius};
use crate::pool::{Concentrated, Curve, Direction, Pool, MAX_COINS};
pub use builder::GraphBuilder;
pub use error::{FieldError, GraphError};
pub use handoff::{HandOff, HandOffKind, HandOffPolicy, Refusal};
use hubs::{ceiling_values, Ceilings, HubTables};
pub use live::LiveGraph;
pub use reach::{Reachability, Unroutable};
pub use rebuild::{AssetSpec, PoolSpec, TopologyChange};
use reserves::ReserveCell;
pub use types::{
    AssetId, AssetMeta, ChainKey, Edge, PoolContext, PoolId, PoolMeta, Protocol, ProtocolContext, SwapBlocker,
    Volatility,
};

/// Pools, assets and adjacency, with live reserves. `Send + Sync`; quoting takes `&self`.
#[derive(Debug)]
pub struct PoolGraph {
    assets: Vec<AssetMeta>,
    asset_index: AHashMap<Asset, AssetId>,
    pools: Vec<PoolMeta>,
    reserves: Box<[ReserveCell]>,
    pool_index: AHashMap<TonAddress, PoolId>,
    offsets: Vec<u32>,
    edges: Vec<Edge>,
    protocols: ProtocolContext,
    jetton_wallets: AHashMap<(TonAddress, Asset), TonAddress>,
    /// Jetton-wallet derivation per jetton (family and wallet code).
    wallet_specs: AHashMap<Asset, WalletSpec>,
    /// Each pool's protocol and the dense id of its [`ChainKey`] (read by the hand-off rule).
    venue: Vec<(Protocol, u32)>,
    /// The native coin's id, if the graph trades it.
    native: Option<AssetId>,
    /// Per pool: whether a route through it can be turned into messages ([`PoolGraph::swap_blocker`] is
    /// `None`), computed once at build (the context is immutable; topology changes rebuild the graph).
    swappable: Vec<bool>,
    /// Whether `swappable` holds both values.
    mixed: bool,
    /// The live pool of each concentrated pool (`None` for the other curves).
    concentrated: Box<[Option<ArcSwap<Concentrated>>]>,
    /// Which assets one route can join (components per chain unit), for no-route diagnoses.
    reach: Reachability,
    /// Rate ceilings of every pool direction (see [`hubs`]).
    ceilings: Ceilings,
    /// Bumped whenever an update lifts a rate above its ceiling.
    rate_epoch: AtomicU64,
    /// The hub tables, rebuilt when the epoch moved.
    hub_tables: ArcSwap<HubTables>,
    /// Held while the hub tables are rebuilt, so concurrent quotes build them once.
    rebuilding: Mutex<()>,
    /// Assets with at least this many pools get hub tables.
    hub_min_degree: usize,
}

impl PoolGraph {
    /// Dense id of the pool's [`ChainKey`]: pools with equal ids run on the same router (`dex_b_v2`,
    /// `dex_c`) or protocol (`dex_a`, `dex_b_v1`). Which pool may follow which is [`Self::chains`].
    #[inline]
    pub fn chain_group(&self, id: PoolId) -> u32 {
        self.venue[id.index()].1
    }

    /// A pool's protocol (without touching its metadata).
    #[inline]
    pub fn protocol(&self, id: PoolId) -> Protocol {
        self.venue[id.index()].0
    }

    /// The native coin's id, if the graph trades it.
    #[inline]
    pub fn native(&self) -> Option<AssetId> {
        self.native
    }

    /// Which assets one route can join under the default [`HandOffPolicy`], computed when the graph was built
    /// ([`Reachability`]; another policy's is [`Reachability::build`]).
    pub fn reachability(&self) -> &Reachability {
        &self.reach
    }

    /// The rate ceiling of a pool direction: ≥ its current zero-size rate (see [`hubs`]).
    #[inline]
    pub fn ceiling(&self, id: PoolId, direction: Direction) -> f32 {
        self.ceilings.get(id.index(), direction.in_index())
    }

    /// The capacity ceiling of a pool direction: ≥ the most its current float model pays out, `s / c`
    /// (see [`hubs`]).
    #[inline]
    pub fn capacity_ceiling(&self, id: PoolId, direction: Direction) -> f32 {
        self.ceilings.get(id.index(), 2 + direction.in_index())
    }

    /// The hub tables for the current rates: rebuilt first when an update lifted a rate above its ceiling
    /// since they were built (see [`hubs`]).
    pub fn hub_tables(&self) -> Arc<HubTables> {
        let tables = self.hub_tables.load_full();
        if tables.epoch == self.rate_epoch.load(Ordering::SeqCst) {
            return tables;
        }
        // A poisoned lock only means another rebuild panicked; the tables it guards are replaced whole.
        let _guard = self.rebuilding.lock().unwrap_or_else(|e| e.into_inner());
        let tables = self.hub_tables.load_full();
        let epoch = self.rate_epoch.load(Ordering::SeqCst);
        if tables.epoch == epoch {
            return tables;
        }
        // Reset every ceiling to its current rate (plus headroom), then re-read the rates: an update that
        // stored its reserves before a reset and checked the old ceiling is caught by the second pass;
        // one after it sees the new ceiling and bumps the epoch.
        for pass in 0..2 {
            for (i, cell) in self.reserves.iter().enumerate() {
                for (slot, v) in ceiling_values(cell.forms()).into_iter().enumerate() {
                    if pass == 0 {
                        self.ceilings.reset(i, slot, v);
                    } else {
                        self.ceilings.lift(i, slot, v);
                    }
                }
            }
        }
        let fresh = Arc::new(HubTables::build(self, epoch));
        self.hub_tables.store(Arc::clone(&fresh));
        fresh
    }

    /// Rebuilds the hub tables now from the current rates (resetting every ceiling), instead of on the next
    /// quote that finds them stale: e.g. after a bulk load of updates, or to time the build.
    pub fn refresh_hub_tables(&self) {
        self.rate_epoch.fetch_add(1, Ordering::SeqCst);
        self.hub_tables();
    }

    /// Records new rates of a pool: a rate above its ceiling lifts it and bumps the rate epoch.
    fn lift_ceilings(&self, id: PoolId, forms: [f64; 4]) {
        let mut lifted = false;
        for (slot, v) in ceiling_values(forms).into_iter().enumerate() {
            lifted |= self.ceilings.lift(id.index(), slot, v);
        }
        if lifted {
            self.rate_epoch.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Number of assets.
    pub fn asset_count(&self) -> usize {
        self.assets.len()
    }

    /// Number of pools.
    pub fn pool_count(&self) -> usize {
        self.pools.len()
    }

    /// The id of an asset, if the graph has it.
    pub fn asset_id(&self, asset: &Asset) -> Option<AssetId> {
        self.asset_index.get(asset).copied()
    }

    /// Metadata of an asset.
    pub fn asset(&self, id: AssetId) -> &AssetMeta {
        &self.assets[id.index()]
    }

    /// All assets, indexed by [`AssetId`].
    pub fn assets(&self) -> &[AssetMeta] {
        &self.assets
    }

    /// The id of a pool by address.
    pub fn pool_id(&self, address: &TonAddress) -> Option<PoolId> {
        self.pool_index.get(address).copied()
    }

    /// A pool's metadata.
    pub fn pool(&self, id: PoolId) -> &PoolMeta {
        &self.pools[id.index()]
    }

    /// All pools, indexed by [`PoolId`].
    pub fn pools(&self) -> &[PoolMeta] {
        &self.pools
    }

    /// A consistent copy of a pool's current reserves (a concentrated pool's virtual reserves).
    #[inline]
    pub fn reserves(&self, id: PoolId) -> [u128; 2] {
        self.reserves[id.index()].load()
    }

    /// The pool's math state now (curve + reserves), for simulation; a concentrated pool's curve is its live
    /// one.
    pub fn pool_state(&self, id: PoolId) -> Pool {
        match self.concentrated(id) {
            Some(c) => Pool::new(Curve::Concentrated(Concentrated::clone(&c)), self.reserves(id)),
            None => Pool::new(self.pools[id.index()].curve.clone(), self.reserves(id)),
        }
    }

    /// The live state of a concentrated pool (`None` for other curves or an unknown id). `pool(id).curve`
    /// keeps the pool as it was built.
    #[inline]
    pub fn concentrated(&self, id: PoolId) -> Option<Arc<Concentrated>> {
        self.concentrated.get(id.index())?.as_ref().map(|c| c.load_full())
    }

    /// Replaces a concentrated pool in place — state, tick map and fees, e.g. after a mint or burn — and its
    /// virtual reserves. Quotes running concurrently see the old or the new pool.
    pub fn update_concentrated(&self, id: PoolId, pool: Concentrated) -> Result<(), GraphError> {
        let slot = self.concentrated_slot(id)?;
        let reserves = pool.virtual_reserves();
        let forms = forms_of(&Curve::Concentrated(pool.clone()), reserves);
        slot.store(Arc::new(pool));
        self.reserves[id.index()].store(reserves, forms);
        self.lift_ceilings(id, forms);
        Ok(())
    }

    /// Replaces only the state (sqrt price, tick, liquidity) of a concentrated pool, e.g. after a swap; the
    /// tick map and fees stay. A state out of the contract's range is refused.
    pub fn update_concentrated_state(&self, id: PoolId, state: ClState) -> Result<(), GraphError> {
        let slot = self.concentrated_slot(id)?;
        let pool = slot
            .load()
            .with_state(state)
            .map_err(|e| GraphError::field_source(self.pools[id.index()].address.to_hex(), "state", e))?;
        self.update_concentrated(id, pool)
    }

    fn concentrated_slot(&self, id: PoolId) -> Result<&ArcSwap<Concentrated>, GraphError> {
        let meta = self.pools.get(id.index()).ok_or_else(|| GraphError::UnknownPool { pool: format!("#{}", id.0) })?;
        self.concentrated[id.index()]
            .as_ref()
            .ok_or_else(|| GraphError::bad_field(meta.address.to_hex(), "curve", "not a concentrated pool"))
    }

    /// Pools leaving `asset`.
    #[inline]
    pub fn edges(&self, asset: AssetId) -> &[Edge] {
        let i = asset.index();
        &self.edges[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// Protocol-wide addresses.
    pub fn protocols(&self) -> &ProtocolContext {
        &self.protocols
    }

    /// Whether a route through `id` can be turned into messages (its [`Self::swap_blocker`] is `None`), O(1).
    #[inline]
    pub fn is_swappable(&self, id: PoolId) -> bool {
        self.swappable.get(id.index()).copied().unwrap_or(false)
    }

    /// Whether the graph has both quote-only and swappable pools: only then can the router's preference for
    /// swappable pools ([`crate::route::Router::quote`]) change an answer.
    pub fn mixes_quote_only(&self) -> bool {
        self.mixed
    }

    /// Why a route through `id` cannot be turned into messages with what the graph knows, `None` when it can:
    /// the pool is then **quote-only** (an imported pool whose router wallets could not be derived offline,
    /// see [`crate::import`]). What each exchange's messages need ([`crate::swap::build`]): `dex_b_*` the
    /// router and its wallets of both assets, `dex_c` the router's wallets of both assets, `dex_a` the vault
    /// of each asset (the offer's vault receives the first message).
    pub fn swap_blocker(&self, id: PoolId) -> Option<SwapBlocker> {
        let p = self.pool(id);
        match p.protocol {
            Protocol::DexBV1 | Protocol::DexBV2 if p.context.router.is_none() => Some(SwapBlocker::NoRouter),
            Protocol::DexBV1 | Protocol::DexBV2 | Protocol::DexC if p.context.router_wallets.is_none() => {
                Some(SwapBlocker::NoRouterWallets)
            }
            Protocol::DexA => p.assets.iter().map(|a| self.asset(*a).asset).find_map(|asset| {
                let known = match asset {
                    Asset::Native => self.protocols.dex_a_native_vault.is_some(),
                    jetton => self.protocols.dex_a_jetton_vaults.contains_key(&jetton),
                };
                (!known).then_some(SwapBlocker::NoVault { asset })
            }),
            _ => None,
        }
    }

    /// `owner`'s jetton wallet for `asset`: the listed one (the snapshot's `jetton_wallets`, an override) if
    /// any, else derived from the jetton's verified wallet family and code ([`crate::chain::wallet`]), else
    /// [`WalletError::UnknownFamily`]. Any address form of `owner` gives the same answer.
    pub fn jetton_wallet(&self, owner: &TonAddress, asset: &Asset) -> Result<TonAddress, WalletError> {
        if let Some(listed) = self.jetton_wallets.get(&(owner.clone(), *asset)) {
            return Ok(listed.clone());
        }
        let Asset::Jetton(master) = asset else {
            return Err(WalletError::NotAJetton);
        };
        match self.wallet_specs.get(asset) {
            Some(spec) => spec.wallet_address(owner, &master.to_address()),
            None => Err(WalletError::UnknownFamily { owner: owner.to_hex(), jetton: asset.to_string() }),
        }
    }

    /// How `asset`'s jetton wallets are derived, if the graph knows.
    pub fn wallet_spec(&self, asset: &Asset) -> Option<&WalletSpec> {
        self.wallet_specs.get(asset)
    }

    /// Replaces a pool's reserves in place, O(1); quotes running concurrently see the old or the new pair.
    /// Concentrated pools are refused: their reserves follow their state ([`Self::update_concentrated`]).
    pub fn update_reserves(&self, id: PoolId, reserves: [u128; 2]) -> Result<(), GraphError> {
        let cell =
            self.reserves.get(id.index()).ok_or_else(|| GraphError::UnknownPool { pool: format!("#{}", id.0) })?;
        if self.concentrated[id.index()].is_some() {
            return Err(GraphError::bad_field(
                self.pools[id.index()].address.to_hex(),
                "reserves",
                "a concentrated pool is updated through its state (update_concentrated)",
            ));
        }
        for r in reserves {
            if r > MAX_COINS {
                return Err(GraphError::ReserveTooLarge {
                    pool: self.pools[id.index()].address.to_hex(),
                    value: r.to_string(),
                });
            }
        }
        let forms = forms_of(&self.pools[id.index()].curve, reserves);
        cell.store(reserves, forms);
        self.lift_ceilings(id, forms);
        Ok(())
    }

    /// The float summary of traversing a pool one way at its current reserves (for ranking only);
    /// `None` for an empty pool.
    #[inline]
    pub fn form(&self, id: PoolId, direction: Direction) -> Option<Mobius> {
        let (s, c) = self.reserves[id.index()].form(direction.in_index());
        (s > 0.0).then_some(Mobius { s, c })
    }

    /// [`Self::update_reserves`] by pool address.
    pub fn update_reserves_by_address(&self, address: &TonAddress, reserves: [u128; 2]) -> Result<(), GraphError> {
        let id = self.pool_id(address).ok_or_else(|| GraphError::UnknownPool { pool: address.to_hex() })?;
        self.update_reserves(id, reserves)
    }
}

/// Both directions' float summaries, `[s01, c01, s10, c10]`; zeros for an empty pool.
fn forms_of(curve: &Curve, reserves: [u128; 2]) -> [f64; 4] {
    let one = |d| estimate::hop(curve, reserves, d).map_or((0.0, 0.0), |m| (m.s, m.c));
    let (a, b) = one(Direction::ZeroToOne);
    let (c, d) = one(Direction::OneToZero);
    [a, b, c, d]
}

#[cfg(test)]
mod tests {
    use super::testkit::{addr, builder_with_assets, cp_curve};
    use super::*;
    use std::sync::Arc;

    #[test]
    fn adjacency_lists_both_directions() {
        let (mut b, ids) = builder_with_assets(2);
        let (a, c, d) = (ids[0], ids[1], ids[2]);
        b.add_pool(addr(1), Protocol::DexBV2, [a, c], cp_curve(30), [10, 10], PoolContext::default(), None).unwrap();
        b.add_pool(addr(2), Protocol::DexBV2, [d, a], cp_curve(30), [10, 10], PoolContext::default(), None).unwrap();
        let g = b.build();
        let from_a: Vec<_> = g.edges(a).iter().map(|e| (e.to, e.direction)).collect();
        assert_eq!(from_a, vec![(c, Direction::ZeroToOne), (d, Direction::OneToZero)]);
        assert_eq!(g.edges(c).len(), 1);
        assert_eq!(g.edges(d)[0].to, a);
    }

    /// Writers replace reserves while readers load them: a reader must never see a torn pair. Each write
    /// stores (k, u128::MAX − k) so any mix of two writes breaks the sum.
    #[test]
    fn concurrent_updates_are_never_torn() {
        let (mut b, ids) = builder_with_assets(1);
        let (a, c) = (ids[0], ids[1]);
        b.add_pool(addr(1), Protocol::DexBV2, [a, c], cp_curve(30), [0, MAX_COINS], PoolContext::default(), None)
            .unwrap();
        let g = Arc::new(b.build());
        let id = PoolId(0);
        let writers: Vec<_> = (0..2u128)
            .map(|w| {
                let g = Arc::clone(&g);
                std::thread::spawn(move || {
                    for k in 0..20_000u128 {
                        let v = (k * 2 + w) * 0x1_0000_0001_0000_0001;
                        let v = v % MAX_COINS;
                        g.update_reserves(id, [v, MAX_COINS - v]).unwrap();
                    }
                })
            })
            .collect();
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let g = Arc::clone(&g);
                std::thread::spawn(move || {
                    for _ in 0..50_000 {
                        let [x, y] = g.reserves(id);
                        assert_eq!(x + y, MAX_COINS, "torn read {x} {y}");
                    }
                })
            })
            .collect();
        for t in writers.into_iter().chain(readers) {
            t.join().unwrap();
        }
    }
}
