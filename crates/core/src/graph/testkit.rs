//! Small graphs for the unit tests of `graph` and `route`: addresses and jettons made of one repeated byte,
//! constant-product pools with one fee, `dex_b_v2` behind one router unless a test asks otherwise, and the
//! named fixtures every routing stage is tested on (`linear`, `diamond`, `parallel`, `shared`). The formulas
//! tests compare against live beside the tests that use them (`route::testkit`), never here.

use tonlib_core::TonAddress;

use crate::asset::{Asset, JettonMaster};
use crate::graph::{AssetId, AssetMeta, GraphBuilder, PoolContext, PoolGraph, Protocol};
use crate::pool::{ConstantProduct, Curve, FeeModel};

/// A pool or wallet address whose 32 bytes are all `b`.
pub(crate) fn addr(b: u8) -> TonAddress {
    TonAddress::new(0, [b; 32].into())
}

/// The jetton whose master's 32 bytes are all `b`.
pub(crate) fn jetton(b: u8) -> Asset {
    Asset::Jetton(JettonMaster([b; 32]))
}

/// A builder holding TON (asset 0) and the jettons `jetton(1)..=jetton(jettons)` (assets 1..), named `A0`,
/// `A1`, … with 9 decimals each; returns their ids in that order.
pub(crate) fn builder_with_assets(jettons: u8) -> (GraphBuilder, Vec<AssetId>) {
    let mut b = GraphBuilder::new();
    let ids = (0..=jettons)
        .map(|i| {
            let asset = if i == 0 { Asset::Native } else { jetton(i) };
            b.add_asset(AssetMeta::new(asset, &format!("A{i}"), 9)).expect("distinct test assets")
        })
        .collect();
    (b, ids)
}

/// A `dex_b_v2` constant-product curve with `fee_bps` of LP fee and no protocol or referral fee.
pub(crate) fn cp_curve(fee_bps: u16) -> Curve {
    Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, fee_bps, 0, 0))
}

/// The input fee of every pool, in basis points.
pub(crate) const FEE_BPS: u16 = 30;

/// The reserve depth of the named fixtures: 10^12 units, so amounts of 10^9..10^11 move prices by
/// 0.1 %..10 % and every product of the formula below fits `u128`.
pub(crate) const DEPTH: u128 = 1_000_000_000_000;

/// One pool of a hand-built graph.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PoolSpec {
    /// Its two assets (indices).
    pub assets: (u32, u32),
    /// Its reserves.
    pub reserves: [u128; 2],
    /// Its exchange.
    pub protocol: Protocol,
    /// The byte its router's address is made of (the pools of one `dex_b_v2` router chain).
    pub router: u8,
}

impl PoolSpec {
    /// A `dex_b_v2` pool behind the common router.
    pub(crate) fn v2(a: u32, b: u32, reserves: [u128; 2]) -> PoolSpec {
        PoolSpec { assets: (a, b), reserves, protocol: Protocol::DexBV2, router: 200 }
    }
}

/// Assets `0..assets` (0 is native); pools as given, each a constant-product curve with [`FEE_BPS`] of LP
/// fee and no protocol fee, whatever its exchange (only the chaining rules read the exchange).
pub(crate) fn graph_of(assets: u8, pools: &[PoolSpec]) -> PoolGraph {
    graph_of_with_hubs(assets, pools, usize::MAX)
}

/// [`graph_of`], with hub tables for assets of at least `hub_min_degree` pools.
pub(crate) fn graph_of_with_hubs(assets: u8, pools: &[PoolSpec], hub_min_degree: usize) -> PoolGraph {
    let (mut b, _) = builder_with_assets(assets.saturating_sub(1));
    b.hub_min_degree(hub_min_degree);
    for (i, p) in pools.iter().enumerate() {
        let ctx = PoolContext { router: Some(addr(p.router)), router_wallets: None };
        let address = addr(u8::try_from(i + 1).expect("a test graph has fewer than 255 pools"));
        let assets = [AssetId(p.assets.0), AssetId(p.assets.1)];
        b.add_pool(address, p.protocol, assets, cp_curve(FEE_BPS), p.reserves, ctx, None).unwrap();
    }
    b.build()
}

/// Assets `0..assets` (0 is native); `dex_b_v2` pools behind one router as (a, b, reserves).
pub(crate) fn graph(assets: u8, pools: &[(u32, u32, [u128; 2])]) -> PoolGraph {
    let specs: Vec<PoolSpec> = pools.iter().map(|&(a, b, r)| PoolSpec::v2(a, b, r)).collect();
    graph_of(assets, &specs)
}

/// [`graph`], with hub tables for assets of at least `hub_min_degree` pools.
pub(crate) fn graph_with_hubs(assets: u8, pools: &[(u32, u32, [u128; 2])], hub_min_degree: usize) -> PoolGraph {
    let specs: Vec<PoolSpec> = pools.iter().map(|&(a, b, r)| PoolSpec::v2(a, b, r)).collect();
    graph_of_with_hubs(assets, &specs, hub_min_degree)
}

/// `linear`: assets 0 — 1 — 2 — 3 in a line; pool 0 is 0/1 at [D, 2D], pool 1 is 1/2 at [2D, 2D], pool 2 is
/// 2/3 at [D, 3D] (D = [`DEPTH`]). One path from 0 to 3, three hops long.
pub(crate) fn linear() -> PoolGraph {
    graph(4, &[(0, 1, [DEPTH, 2 * DEPTH]), (1, 2, [2 * DEPTH, 2 * DEPTH]), (2, 3, [DEPTH, 3 * DEPTH])])
}

/// `diamond`: 0 → 1 → 3 through pools 0 (0/1 at [D, D]) and 2 (1/3 at [D, 2D]), and 0 → 2 → 3 through
/// pools 1 (0/2 at [D/2, D/2]) and 3 (2/3 at [D/2, D]): two pool-disjoint two-hop paths at the same spot
/// rate, the upper twice as deep.
pub(crate) fn diamond() -> PoolGraph {
    let h = DEPTH / 2;
    graph(4, &[(0, 1, [DEPTH, DEPTH]), (0, 2, [h, h]), (1, 3, [DEPTH, 2 * DEPTH]), (2, 3, [h, DEPTH])])
}

/// `parallel`: pools 0, 1, 2 all between assets 0 and 1 at the same price (1 : 2), of depths D, D/2 and
/// D/4. The optimal split of any amount gives each pool a share proportional to its depth (equal marginal
/// rates `γ·y·x / (x + γ·t)²` at equal `t / x`).
pub(crate) fn parallel() -> PoolGraph {
    graph(2, &[(0, 1, [DEPTH, 2 * DEPTH]), (0, 1, [DEPTH / 2, DEPTH]), (0, 1, [DEPTH / 4, DEPTH / 2])])
}

/// `shared`: 0 → 1 through pool 0 (at [D, D]) or pool 1 (at [D/2, D/2]), then 1 → 2 through pool 2 (at
/// [D, D]), which both of those routes share; pool 3 goes 0 → 2 directly (at [D, D]).
/// Routes: A = pools 0, 2; B = pools 1, 2; C = pool 3.
pub(crate) fn shared() -> PoolGraph {
    let h = DEPTH / 2;
    graph(3, &[(0, 1, [DEPTH, DEPTH]), (0, 1, [h, h]), (1, 2, [DEPTH, DEPTH]), (0, 2, [DEPTH, DEPTH])])
}
