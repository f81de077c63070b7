//! Small graphs for the routing unit tests: constant-product pools with one fee, `dex_b_v2` behind one
//! router, and paths given as (pool, direction) pairs.

use smallvec::SmallVec;
use tonlib_core::TonAddress;

use super::paths::Candidate;
use crate::asset::{Asset, JettonMaster};
use crate::graph::{AssetId, AssetMeta, GraphBuilder, PoolContext, PoolGraph, PoolId, Protocol};
use crate::pool::estimate as mobius;
use crate::pool::{ConstantProduct, Curve, Direction, FeeModel};

/// The input fee of every pool, in basis points.
pub(crate) const FEE_BPS: u16 = 30;

/// Assets `0..assets` (0 is native); pools as (a, b, reserves).
pub(crate) fn graph(assets: u8, pools: &[(u32, u32, [u128; 2])]) -> PoolGraph {
    let mut b = GraphBuilder::new();
    for i in 0..assets {
        let asset = if i == 0 { Asset::Native } else { Asset::Jetton(JettonMaster([i; 32])) };
        b.add_asset(AssetMeta::new(asset, &format!("A{i}"), 9)).unwrap();
    }
    let ctx = PoolContext { router: Some(TonAddress::new(0, [200; 32].into())), router_wallets: None };
    for (i, &(x, y, r)) in pools.iter().enumerate() {
        let curve = Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, FEE_BPS, 0, 0));
        let address = TonAddress::new(0, [u8::try_from(i + 1).unwrap(); 32].into());
        b.add_pool(address, Protocol::DexBV2, [AssetId(x), AssetId(y)], curve, r, ctx.clone(), None).unwrap();
    }
    b.build()
}

/// A path over `hops`, with its Möbius form on the graph's reserves.
pub(crate) fn path(graph: &PoolGraph, hops: &[(u32, Direction)]) -> Candidate {
    let hops: SmallVec<[(PoolId, Direction); 5]> = hops.iter().map(|&(p, d)| (PoolId(p), d)).collect();
    let form =
        hops.iter().try_fold(mobius::Mobius { s: 1.0, c: 0.0 }, |m, &(p, d)| Some(m.then(graph.form(p, d)?))).unwrap();
    Candidate { hops, form }
}
