//! Small graphs for the routing unit tests: constant-product pools with one fee, `dex_b_v2` behind one
//! router unless a test asks otherwise, paths given as (pool, direction) pairs, the named fixtures every
//! stage is tested on (`linear`, `diamond`, `parallel`, `shared`), and the constant-product formula written
//! out, independently of `crate::pool`, for expected values.

use smallvec::SmallVec;
use tonlib_core::TonAddress;

use super::paths::Candidate;
use crate::asset::{Asset, JettonMaster};
use crate::graph::{AssetId, AssetMeta, GraphBuilder, PoolContext, PoolGraph, PoolId, Protocol};
use crate::pool::estimate as mobius;
use crate::pool::{ConstantProduct, Curve, Direction, FeeModel};

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
    let mut b = GraphBuilder::new();
    b.hub_min_degree(hub_min_degree);
    for i in 0..assets {
        let asset = if i == 0 { Asset::Native } else { Asset::Jetton(JettonMaster([i; 32])) };
        b.add_asset(AssetMeta::new(asset, &format!("A{i}"), 9)).unwrap();
    }
    for (i, p) in pools.iter().enumerate() {
        let ctx = PoolContext { router: Some(TonAddress::new(0, [p.router; 32].into())), router_wallets: None };
        let curve = Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, FEE_BPS, 0, 0));
        let address = TonAddress::new(0, [u8::try_from(i + 1).unwrap(); 32].into());
        let assets = [AssetId(p.assets.0), AssetId(p.assets.1)];
        b.add_pool(address, p.protocol, assets, curve, p.reserves, ctx, None).unwrap();
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

/// A path over `hops`, with its Möbius form on the graph's reserves.
pub(crate) fn path(graph: &PoolGraph, hops: &[(u32, Direction)]) -> Candidate {
    let hops: SmallVec<[(PoolId, Direction); 5]> = hops.iter().map(|&(p, d)| (PoolId(p), d)).collect();
    let form =
        hops.iter().try_fold(mobius::Mobius { s: 1.0, c: 0.0 }, |m, &(p, d)| Some(m.then(graph.form(p, d)?))).unwrap();
    Candidate { hops, form }
}

/// A path over pools `pools`, each traversed from its first asset to its second.
pub(crate) fn forward(graph: &PoolGraph, pools: &[u32]) -> Candidate {
    let hops: Vec<(u32, Direction)> = pools.iter().map(|&p| (p, Direction::ZeroToOne)).collect();
    path(graph, &hops)
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

/// The `dex_b_v2` constant-product swap written out from the contract (LP fee [`FEE_BPS`] inside the one
/// division, no protocol fee): `out = floor(a·(10000 − fee)·y / (x·10000 + a·(10000 − fee)))`; the pool then
/// holds `(x + a, y − out)`. Returns `(out, x after, y after)`. Panics where a product leaves `u128` (test
/// sizes stay far below).
pub(crate) fn cp(x: u128, y: u128, a: u128) -> (u128, u128, u128) {
    let aif = a * u128::from(10_000 - FEE_BPS);
    let out = aif.checked_mul(y).expect("test sizes fit u128") / (x * 10_000 + aif);
    (out, x + a, y - out)
}

/// [`cp`] without rounding: `y·a·γ / (x + a·γ)` with `γ = 1 − fee`.
pub(crate) fn cp_f(x: f64, y: f64, a: f64) -> (f64, f64, f64) {
    let net = a * (1.0 - f64::from(FEE_BPS) / 1e4);
    let out = y * net / (x + net);
    (out, x + a, y - out)
}

/// The largest value of `f` on `0..=amount` by a grid of `steps` points refined by golden-section search
/// around the best one (`f` concave, or nearly).
pub(crate) fn argmax_1d(amount: f64, steps: usize, f: impl Fn(f64) -> f64) -> (f64, f64) {
    let mut best = (0.0, f(0.0));
    for i in 1..=steps {
        let t = amount * i as f64 / steps as f64;
        let v = f(t);
        if v > best.1 {
            best = (t, v);
        }
    }
    let cell = amount / steps as f64;
    let (mut lo, mut hi) = ((best.0 - cell).max(0.0), (best.0 + cell).min(amount));
    for _ in 0..200 {
        let (a, b) = (lo + (hi - lo) * 0.382, hi - (hi - lo) * 0.382);
        if f(a) < f(b) {
            lo = a;
        } else {
            hi = b;
        }
    }
    let t = (lo + hi) / 2.0;
    let v = f(t);
    if v > best.1 {
        (t, v)
    } else {
        best
    }
}
