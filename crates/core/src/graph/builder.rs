//! Building a [`PoolGraph`] in code: [`GraphBuilder`] checks every asset and pool as it is added (errors name
//! the pool) and derives the adjacency, reserve cells, ceilings, reachability and hub tables at [`GraphBuilder::build`].
//!
//! Owns the checks of a new graph. Must not update a built graph (that is `PoolGraph`'s, in `mod.rs`).

use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use ahash::AHashMap;
use arc_swap::ArcSwap;
use tonlib_core::TonAddress;

use super::hubs::{self, ceiling_values, Ceilings, HubTables};
use super::reserves::ReserveCell;
use super::{
    forms_of, AssetId, AssetMeta, ChainKey, Edge, GraphError, HandOffPolicy, PoolContext, PoolGraph, PoolId, PoolMeta,
    Protocol, ProtocolContext, Reachability, Volatility,
};
use crate::asset::Asset;
use crate::chain::wallet::WalletSpec;
use crate::pool::{Curve, Direction, MAX_COINS};

/// Builds a [`PoolGraph`] in code.
///
/// ```
/// use tonroute_core::asset::Asset;
/// use tonroute_core::graph::{AssetMeta, GraphBuilder, PoolContext, Protocol};
/// use tonroute_core::pool::{ConstantProduct, Curve, FeeModel};
/// use tonlib_core::TonAddress;
///
/// let usdt: Asset = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe".parse().unwrap();
/// let mut b = GraphBuilder::new();
/// let ton = b.add_asset(AssetMeta::new(Asset::Native, "TON", 9)).unwrap();
/// let usd = b.add_asset(AssetMeta::new(usdt, "USDT", 6)).unwrap();
/// let curve = Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0));
/// b.add_pool(TonAddress::new(0, [7u8; 32].into()), Protocol::DexBV2, [ton, usd], curve,
///            [1_860_000_000_000_000, 2_570_000_000_000], PoolContext::default(), None).unwrap();
/// let graph = b.build();
/// assert_eq!(graph.pool_count(), 1);
/// ```
#[derive(Debug, Default)]
pub struct GraphBuilder {
    assets: Vec<AssetMeta>,
    asset_index: AHashMap<Asset, AssetId>,
    pools: Vec<PoolMeta>,
    reserves: Vec<[u128; 2]>,
    pool_index: AHashMap<TonAddress, PoolId>,
    protocols: ProtocolContext,
    jetton_wallets: AHashMap<(TonAddress, Asset), TonAddress>,
    wallet_specs: AHashMap<Asset, WalletSpec>,
    hub_min_degree: Option<usize>,
}

impl GraphBuilder {
    /// Assets with at least `degree` pools get hub tables (default [`hubs::HUB_MIN_DEGREE`]); answers do not
    /// depend on it, only the work a quote does.
    pub fn hub_min_degree(&mut self, degree: usize) -> &mut GraphBuilder {
        self.hub_min_degree = Some(degree.max(1));
        self
    }

    /// An empty builder.
    pub fn new() -> GraphBuilder {
        GraphBuilder::default()
    }

    /// Adds an asset; listing one twice is an error.
    pub fn add_asset(&mut self, meta: AssetMeta) -> Result<AssetId, GraphError> {
        if self.asset_index.contains_key(&meta.asset) {
            return Err(GraphError::DuplicateAsset { asset: meta.asset.to_string() });
        }
        let id = AssetId(u32::try_from(self.assets.len()).map_err(|_| GraphError::TooLarge)?);
        self.asset_index.insert(meta.asset, id);
        self.assets.push(meta);
        Ok(id)
    }

    /// The id of an asset already added.
    pub fn asset_id(&self, asset: &Asset) -> Option<AssetId> {
        self.asset_index.get(asset).copied()
    }

    /// Adds a pool. Errors name the pool.
    #[allow(clippy::too_many_arguments)]
    pub fn add_pool(
        &mut self,
        address: TonAddress,
        protocol: Protocol,
        assets: [AssetId; 2],
        curve: Curve,
        reserves: [u128; 2],
        context: PoolContext,
        volatility: Option<Volatility>,
    ) -> Result<PoolId, GraphError> {
        let name = || address.to_hex();
        if self.pool_index.contains_key(&address) {
            return Err(GraphError::DuplicatePool { pool: name() });
        }
        for a in assets {
            if a.index() >= self.assets.len() {
                return Err(GraphError::UnknownAsset { pool: name(), asset: format!("#{}", a.0) });
            }
        }
        if assets[0] == assets[1] {
            return Err(GraphError::SameAssets {
                pool: name(),
                asset: self.assets[assets[0].index()].asset.to_string(),
            });
        }
        for r in reserves {
            if r > MAX_COINS {
                return Err(GraphError::ReserveTooLarge { pool: name(), value: r.to_string() });
            }
        }
        // A concentrated pool's reserve pair is derived from its state (see the module comment).
        let reserves = match &curve {
            Curve::Concentrated(c) => c.virtual_reserves(),
            _ => reserves,
        };
        let id = PoolId(u32::try_from(self.pools.len()).map_err(|_| GraphError::TooLarge)?);
        self.pool_index.insert(address.clone(), id);
        self.pools.push(PoolMeta { address, protocol, assets, curve, context, volatility });
        self.reserves.push(reserves);
        Ok(id)
    }

    /// Sets the protocol-wide addresses.
    pub fn set_protocols(&mut self, protocols: ProtocolContext) {
        self.protocols = protocols;
    }

    /// Records a known user jetton wallet (`owner`'s wallet for `asset`).
    pub fn add_jetton_wallet(&mut self, owner: TonAddress, asset: Asset, wallet: TonAddress) {
        self.jetton_wallets.insert((owner, asset), wallet);
    }

    /// Sets how `asset`'s jetton wallets are derived (its verified family and wallet code).
    pub fn set_wallet_spec(&mut self, asset: Asset, spec: WalletSpec) {
        self.wallet_specs.insert(asset, spec);
    }

    /// Freezes the structure and builds the adjacency.
    pub fn build(self) -> PoolGraph {
        let n = self.assets.len();
        let mut degree = vec![0u32; n + 1];
        for p in &self.pools {
            degree[p.assets[0].index()] += 1;
            degree[p.assets[1].index()] += 1;
        }
        let mut offsets = Vec::with_capacity(n + 1);
        let mut acc = 0u32;
        for d in degree.iter().take(n) {
            offsets.push(acc);
            acc += d;
        }
        offsets.push(acc);
        let mut fill: Vec<u32> = offsets[..n].to_vec();
        let placeholder = Edge { pool: PoolId(0), to: AssetId(0), direction: Direction::ZeroToOne };
        let mut edges = vec![placeholder; acc as usize];
        for (i, p) in self.pools.iter().enumerate() {
            // `add_pool` numbered pools by their index, which fits u32.
            let pool = PoolId(i as u32);
            let [a0, a1] = p.assets;
            edges[fill[a0.index()] as usize] = Edge { pool, to: a1, direction: Direction::ZeroToOne };
            fill[a0.index()] += 1;
            edges[fill[a1.index()] as usize] = Edge { pool, to: a0, direction: Direction::OneToZero };
            fill[a1.index()] += 1;
        }
        let reserves: Box<[ReserveCell]> =
            self.pools.iter().zip(self.reserves).map(|(p, r)| ReserveCell::new(r, forms_of(&p.curve, r))).collect();
        let mut groups: AHashMap<ChainKey, u32> = AHashMap::new();
        let venue = self
            .pools
            .iter()
            .map(|p| {
                let next = groups.len() as u32;
                (p.protocol, *groups.entry(p.chain_key()).or_insert(next))
            })
            .collect();
        let native = self.asset_index.get(&Asset::Native).copied();
        let concentrated = self
            .pools
            .iter()
            .map(|p| match &p.curve {
                Curve::Concentrated(c) => Some(ArcSwap::from_pointee(c.clone())),
                _ => None,
            })
            .collect();
        let ceilings = Ceilings::new(reserves.iter().map(|r| ceiling_values(r.forms())));
        let mut graph = PoolGraph {
            concentrated,
            ceilings,
            rate_epoch: AtomicU64::new(0),
            hub_tables: ArcSwap::from_pointee(HubTables { epoch: 0, avoidable: Vec::new(), hubs: Vec::new() }),
            rebuilding: Mutex::new(()),
            hub_min_degree: self.hub_min_degree.unwrap_or(hubs::HUB_MIN_DEGREE),
            reach: Reachability::default(),
            assets: self.assets,
            asset_index: self.asset_index,
            pools: self.pools,
            reserves,
            pool_index: self.pool_index,
            offsets,
            edges,
            protocols: self.protocols,
            jetton_wallets: self.jetton_wallets,
            wallet_specs: self.wallet_specs,
            venue,
            native,
            swappable: Vec::new(),
            mixed: false,
        };
        graph.swappable = (0..graph.pools.len()).map(|i| graph.swap_blocker(PoolId(i as u32)).is_none()).collect();
        graph.mixed = graph.swappable.contains(&true) && graph.swappable.contains(&false);
        // The chaining rule is a method of the built graph ([`handoff`](super::handoff)), so reachability comes last.
        graph.reach = Reachability::build(&graph, HandOffPolicy::default());
        graph.hub_tables = ArcSwap::from_pointee(HubTables::build(&graph, 0));
        graph
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::testkit::{addr, builder_with_assets, cp_curve};

    #[test]
    fn builder_rejects_bad_pools_by_name() {
        let (mut b, ids) = builder_with_assets(1);
        let (a, c) = (ids[0], ids[1]);
        assert!(matches!(b.add_asset(AssetMeta::new(Asset::Native, "TON", 9)), Err(GraphError::DuplicateAsset { .. })));
        b.add_pool(addr(1), Protocol::DexBV2, [a, c], cp_curve(30), [10, 10], PoolContext::default(), None).unwrap();
        let dup = b.add_pool(addr(1), Protocol::DexBV2, [a, c], cp_curve(30), [10, 10], PoolContext::default(), None);
        assert_eq!(dup, Err(GraphError::DuplicatePool { pool: addr(1).to_hex() }));
        let same = b.add_pool(addr(2), Protocol::DexBV2, [a, a], cp_curve(30), [10, 10], PoolContext::default(), None);
        assert!(matches!(same, Err(GraphError::SameAssets { .. })));
        let big =
            b.add_pool(addr(3), Protocol::DexBV2, [a, c], cp_curve(30), [1 << 120, 10], PoolContext::default(), None);
        assert!(matches!(big, Err(GraphError::ReserveTooLarge { .. })));
    }
}
