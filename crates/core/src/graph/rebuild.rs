//! Topology changes: pools added, replaced or removed, by building a new [`PoolGraph`] from a current one.
//!
//! The structure of a built graph (pools, adjacency, chain groups, reachability and whatever else
//! [`GraphBuilder::build`] derives) is immutable, so a topology change goes through the normal builder: every
//! derived table is rebuilt with it and none can go stale. [`PoolGraph::rebuilt`] copies the current graph's
//! assets, protocol context, wallets and pools — each pool with its reserves and concentrated state **as they are
//! now**, not as first built — applies a [`TopologyChange`], and builds. Asset ids stay the same (new assets are
//! appended; an asset whose last pool leaves stays listed); pool ids of the new graph are dense again.
//!
//! A change that keeps a pool's structure (protocol, assets, router context, curve parameters) and only moves
//! its state needs no rebuild: [`PoolGraph::update_pool_in_place`] applies it through the lock-free cells.

use ahash::AHashSet;
use tonlib_core::TonAddress;

use super::{AssetMeta, GraphBuilder, GraphError, PoolContext, PoolGraph, PoolId, Protocol, Volatility};
use crate::asset::Asset;
use crate::chain::wallet::WalletSpec;
use crate::pool::Curve;

/// A pool ready to enter a graph: curve built and checked, reserves below 2^120, assets named by id.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolSpec {
    /// On-chain address.
    pub address: TonAddress,
    /// The exchange.
    pub protocol: Protocol,
    /// token0, token1 in contract order.
    pub assets: [Asset; 2],
    /// Curve and fee parameters; for a concentrated pool also its state and tick map.
    pub curve: Curve,
    /// Reserves (a concentrated pool's are derived from its state and ignored here).
    pub reserves: [u128; 2],
    /// Message-building context.
    pub context: PoolContext,
    /// Volatility figures, if known.
    pub volatility: Option<Volatility>,
}

/// An asset a change brings, with how its jetton wallets are derived if known.
#[derive(Debug, Clone, PartialEq)]
pub struct AssetSpec {
    /// Id, ticker, decimals, display data.
    pub meta: AssetMeta,
    /// Jetton-wallet derivation (family and code).
    pub wallet: Option<WalletSpec>,
}

/// Pools to add or replace and pools to remove, applied together by [`PoolGraph::rebuilt`].
#[derive(Debug, Clone, Default)]
pub struct TopologyChange {
    /// Assets to add when the graph does not list them yet (listed ones keep their metadata).
    pub assets: Vec<AssetSpec>,
    /// Pools to add, or to replace when the graph has their address.
    pub upserts: Vec<PoolSpec>,
    /// Pools to remove (addresses the graph does not have are ignored).
    pub removals: Vec<TonAddress>,
}

impl TopologyChange {
    /// Nothing to change.
    pub fn is_empty(&self) -> bool {
        self.assets.is_empty() && self.upserts.is_empty() && self.removals.is_empty()
    }
}

impl GraphBuilder {
    /// Adds a checked pool, resolving its assets among those already added. Errors name the pool.
    pub fn add_pool_spec(&mut self, spec: PoolSpec) -> Result<PoolId, GraphError> {
        let mut ids = [super::AssetId(0); 2];
        for (slot, asset) in ids.iter_mut().zip(&spec.assets) {
            *slot = self
                .asset_id(asset)
                .ok_or_else(|| GraphError::UnknownAsset { pool: spec.address.to_hex(), asset: asset.to_string() })?;
        }
        self.add_pool(spec.address, spec.protocol, ids, spec.curve, spec.reserves, spec.context, spec.volatility)
    }
}

impl PoolGraph {
    /// A new graph: this one as it is now (live reserves and concentrated states) with `change` applied. The
    /// current graph is only read, so quotes and in-place updates may run meanwhile; an in-place update that
    /// lands after a pool was copied is not in the result (the caller re-applies what it wrote since it
    /// started the rebuild). Fails when an upserted pool names an asset neither graph nor change lists, or
    /// the graph would exceed 2^32 pools or assets.
    pub fn rebuilt(&self, change: &TopologyChange) -> Result<PoolGraph, GraphError> {
        let mut b = GraphBuilder::new();
        for meta in &self.assets {
            b.add_asset(meta.clone())?;
        }
        for (asset, spec) in &self.wallet_specs {
            b.set_wallet_spec(*asset, spec.clone());
        }
        for a in &change.assets {
            if b.asset_id(&a.meta.asset).is_none() {
                b.add_asset(a.meta.clone())?;
                if let Some(w) = &a.wallet {
                    b.set_wallet_spec(a.meta.asset, w.clone());
                }
            }
        }
        b.set_protocols(self.protocols.clone());
        // The same hub rule as this graph (the tables themselves are derived again on the first quote).
        b.hub_min_degree(self.hub_min_degree);
        for ((owner, asset), wallet) in &self.jetton_wallets {
            b.add_jetton_wallet(owner.clone(), *asset, wallet.clone());
        }
        let replaced: AHashSet<&TonAddress> =
            change.upserts.iter().map(|p| &p.address).chain(&change.removals).collect();
        for (i, p) in self.pools.iter().enumerate() {
            if replaced.contains(&p.address) {
                continue;
            }
            // Pool ids index `pools`, so `i` is this pool's id.
            let id = PoolId(i as u32);
            let curve = match self.concentrated(id) {
                Some(live) => Curve::Concentrated(live.as_ref().clone()),
                None => p.curve.clone(),
            };
            b.add_pool(
                p.address.clone(),
                p.protocol,
                p.assets,
                curve,
                self.reserves(id),
                p.context.clone(),
                p.volatility,
            )?;
        }
        for spec in &change.upserts {
            b.add_pool_spec(spec.clone())?;
        }
        Ok(b.build())
    }

    /// Applies `spec` in place when the graph has a pool at its address with the same structure — protocol,
    /// assets, router context, and the same curve (for a concentrated pool: the same fees and tick spacing;
    /// its tick map and state are replaced): `Ok(true)`. `Ok(false)` when the pool is unknown or its structure
    /// differs (a rebuild is needed); nothing is changed then. Volatility figures are display data and do not
    /// count as structure: the graph keeps the ones it has. Errors are the in-place update's refusals.
    pub fn update_pool_in_place(&self, spec: &PoolSpec) -> Result<bool, GraphError> {
        let Some(id) = self.pool_id(&spec.address) else {
            return Ok(false);
        };
        let meta = &self.pools[id.index()];
        let same_assets = meta.assets.iter().zip(&spec.assets).all(|(id, a)| self.assets[id.index()].asset == *a);
        if meta.protocol != spec.protocol || !same_assets || meta.context != spec.context {
            return Ok(false);
        }
        match (&meta.curve, &spec.curve) {
            (Curve::Concentrated(old), Curve::Concentrated(new)) => {
                if (old.lp_fee(), old.protocol_fee(), old.tick_spacing())
                    != (new.lp_fee(), new.protocol_fee(), new.tick_spacing())
                {
                    return Ok(false);
                }
                self.update_concentrated(id, new.clone())?;
                Ok(true)
            }
            (old, new) if old == new => {
                self.update_reserves(id, spec.reserves)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::testkit::{addr, builder_with_assets, cp_curve, jetton};
    use crate::pool::StableSwap;

    fn spec(b: u8, assets: [Asset; 2], curve: Curve, reserves: [u128; 2]) -> PoolSpec {
        PoolSpec {
            address: addr(b),
            protocol: Protocol::DexBV2,
            assets,
            curve,
            reserves,
            context: PoolContext::default(),
            volatility: None,
        }
    }

    /// TON–X (pool 1) and X–Y (pool 2).
    fn graph() -> PoolGraph {
        let (mut b, _) = builder_with_assets(2);
        b.add_pool_spec(spec(1, [Asset::Native, jetton(1)], cp_curve(30), [1_000, 2_000])).unwrap();
        b.add_pool_spec(spec(2, [jetton(1), jetton(2)], cp_curve(30), [5_000, 7_000])).unwrap();
        b.build()
    }

    #[test]
    fn rebuild_keeps_live_reserves_and_applies_the_change() {
        let g = graph();
        g.update_reserves_by_address(&addr(2), [5_001, 6_999]).unwrap();
        let change = TopologyChange {
            assets: vec![AssetSpec { meta: AssetMeta::new(jetton(3), "Z", 6), wallet: None }],
            upserts: vec![
                spec(3, [jetton(2), jetton(3)], cp_curve(20), [11, 13]),
                spec(1, [Asset::Native, jetton(1)], cp_curve(25), [1_500, 2_500]),
            ],
            removals: vec![addr(9)],
        };
        let n = g.rebuilt(&change).unwrap();
        assert_eq!(n.pool_count(), 3);
        assert_eq!(n.asset_count(), 4);
        // Asset ids are stable across the rebuild.
        for a in g.assets() {
            assert_eq!(n.asset_id(&a.asset), g.asset_id(&a.asset));
        }
        let id = |a: u8| n.pool_id(&addr(a)).unwrap();
        assert_eq!(n.reserves(id(2)), [5_001, 6_999], "the live reserves, not the built ones");
        assert_eq!(n.reserves(id(1)), [1_500, 2_500]);
        assert_eq!(n.pool(id(1)).curve, cp_curve(25));
        assert_eq!(n.reserves(id(3)), [11, 13]);
        // The new pool is in the adjacency of both its assets.
        let z = n.asset_id(&jetton(3)).unwrap();
        assert_eq!(n.edges(z).len(), 1);
        assert_eq!(n.edges(z)[0].pool, id(3));
        // The old graph is untouched.
        assert_eq!(g.pool_count(), 2);
        assert_eq!(g.reserves(g.pool_id(&addr(1)).unwrap()), [1_000, 2_000]);
    }

    #[test]
    fn removal_drops_the_pool_and_its_edges() {
        let g = graph();
        let n = g.rebuilt(&TopologyChange { removals: vec![addr(1)], ..TopologyChange::default() }).unwrap();
        assert_eq!(n.pool_count(), 1);
        assert!(n.pool_id(&addr(1)).is_none());
        assert!(n.edges(n.asset_id(&Asset::Native).unwrap()).is_empty());
        assert_eq!(n.reserves(n.pool_id(&addr(2)).unwrap()), [5_000, 7_000]);
    }

    #[test]
    fn an_unknown_asset_is_refused_by_name() {
        let g = graph();
        let change = TopologyChange {
            upserts: vec![spec(4, [jetton(7), jetton(1)], cp_curve(30), [1, 1])],
            ..Default::default()
        };
        let err = g.rebuilt(&change).unwrap_err();
        assert_eq!(err, GraphError::UnknownAsset { pool: addr(4).to_hex(), asset: jetton(7).to_string() });
    }

    #[test]
    fn in_place_only_when_the_structure_is_the_same() {
        let g = graph();
        let same = spec(1, [Asset::Native, jetton(1)], cp_curve(30), [9, 10]);
        assert_eq!(g.update_pool_in_place(&same), Ok(true));
        assert_eq!(g.reserves(g.pool_id(&addr(1)).unwrap()), [9, 10]);
        let other_fee = spec(1, [Asset::Native, jetton(1)], cp_curve(31), [1, 1]);
        let other_curve = spec(1, [Asset::Native, jetton(1)], Curve::StableSwap(StableSwap::new(100, 30, 0)), [1, 1]);
        let flipped = spec(1, [jetton(1), Asset::Native], cp_curve(30), [1, 1]);
        let unknown = spec(8, [Asset::Native, jetton(1)], cp_curve(30), [1, 1]);
        for s in [other_fee, other_curve, flipped, unknown] {
            assert_eq!(g.update_pool_in_place(&s), Ok(false), "{s:?}");
        }
        assert_eq!(g.reserves(g.pool_id(&addr(1)).unwrap()), [9, 10], "a refused spec changes nothing");
    }
}
