//! The routing unit tests' kit: the shared small graphs of [`crate::graph::testkit`], paths given as (pool,
//! direction) pairs, and the constant-product formula written out, independently of `crate::pool`, for
//! expected values.

use smallvec::SmallVec;

use super::paths::Candidate;
pub(crate) use crate::graph::testkit::{
    diamond, graph, graph_of, graph_with_hubs, linear, parallel, shared, PoolSpec, DEPTH, FEE_BPS,
};
use crate::graph::{PoolGraph, PoolId};
use crate::pool::estimate as mobius;
use crate::pool::Direction;

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

/// [`parallel`] (three pools of one pair, depths D, D/2, D/4 at one price) and its one-hop paths, in pool order.
pub(crate) fn parallel_paths() -> (PoolGraph, [Candidate; 3]) {
    let g = parallel();
    let paths = [forward(&g, &[0]), forward(&g, &[1]), forward(&g, &[2])];
    (g, paths)
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
