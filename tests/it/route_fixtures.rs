//! Named graphs with answers that can be checked by hand (or by a few lines of independent arithmetic).

use std::collections::HashMap;

use tonlib_core::TonAddress;
use tonroute::asset::{Asset, JettonMaster};
use tonroute::graph::{AssetId, AssetMeta, GraphBuilder, PoolContext, PoolGraph, PoolId, Protocol};
use tonroute::pool::{ConstantProduct, Curve, FeeModel, Pool};
use tonroute::route::{
    NetworkFees, NoRouteReason, ProtocolFee, Quote, QuoteOptions, QuoteRequest, QuoteRequestBuilder, RouteError,
    Router, RouterConfig,
};

use crate::common::route_sim::output_from_inputs;

fn jetton(n: u8) -> Asset {
    Asset::Jetton(JettonMaster([n; 32]))
}

fn addr(n: u8) -> TonAddress {
    TonAddress::new(0, [n; 32].into())
}

/// Constant product with the `dex_b_v2` fee model: `floor(a·(10000−f)·y / (x·10000 + a·(10000−f)))`.
fn cp(fee: u16) -> Curve {
    Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, fee, 0, 0))
}

/// The formula itself, for hand checks.
fn cp_out(x: u128, y: u128, a: u128, fee: u128) -> u128 {
    let aif = a * (10_000 - fee);
    aif * y / (x * 10_000 + aif)
}

struct Fixture {
    graph: PoolGraph,
    assets: Vec<Asset>,
}

/// Builds a graph: `assets` names, pools as (a, b, reserves, fee), all `dex_b_v2` behind one router.
fn fixture(n_assets: u8, pools: &[(u8, u8, [u128; 2], u16)]) -> Fixture {
    let mut b = GraphBuilder::new();
    let assets: Vec<Asset> = (0..n_assets).map(|i| if i == 0 { Asset::Native } else { jetton(i) }).collect();
    for (i, a) in assets.iter().enumerate() {
        b.add_asset(AssetMeta::new(*a, &format!("A{i}"), 9)).unwrap();
    }
    let ctx = PoolContext { router: Some(addr(200)), router_wallets: None };
    for (i, (x, y, r, fee)) in pools.iter().enumerate() {
        let ids = [AssetId(u32::from(*x)), AssetId(u32::from(*y))];
        b.add_pool(addr(u8::try_from(i + 1).unwrap()), Protocol::DexBV2, ids, cp(*fee), *r, ctx.clone(), None).unwrap();
    }
    Fixture { graph: b.build(), assets }
}

fn gross_router() -> Router {
    Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() })
}

fn request(f: &Fixture, from: usize, to: usize, amount: u128, splits: usize, length: usize) -> QuoteRequest {
    QuoteRequest::builder(f.assets[from], f.assets[to], amount).max_splits(splits).max_length(length).build().unwrap()
}

/// Re-simulates a quote's routes in order with the pool math directly (no router code).
fn resimulate(graph: &PoolGraph, quote: &Quote) -> u128 {
    let mut state: HashMap<PoolId, [u128; 2]> = HashMap::new();
    let mut total = 0;
    for route in &quote.routes {
        let mut x = route.in_amount;
        for step in &route.steps {
            let reserves = *state.entry(step.pool).or_insert_with(|| graph.reserves(step.pool));
            let pool = Pool::new(graph.pool(step.pool).curve.clone(), reserves);
            let r = pool.swap(x, step.direction).unwrap();
            assert_eq!(r.amount_out, step.out_amount, "step amount differs from re-simulation");
            state.insert(step.pool, r.reserves_after);
            x = r.amount_out;
        }
        assert_eq!(x, route.out_amount);
        total += x;
    }
    total
}

#[test]
fn linear_chain_takes_the_only_path() {
    // A0 → A1 → A2 → A3, one pool each.
    let r = [1_000_000_000_000u128, 2_000_000_000_000];
    let f = fixture(4, &[(0, 1, r, 30), (1, 2, r, 30), (2, 3, r, 30)]);
    let q = gross_router().quote(&f.graph, &request(&f, 0, 3, 1_000_000_000, 4, 3), QuoteOptions::default()).unwrap();
    // Every pool is (Ai, Ai+1), so each hop puts token0 in.
    let hop1 = cp_out(r[0], r[1], 1_000_000_000, 30);
    let hop2 = cp_out(r[0], r[1], hop1, 30);
    let hop3 = cp_out(r[0], r[1], hop2, 30);
    assert_eq!(q.routes.len(), 1);
    assert_eq!(q.routes[0].steps.len(), 3);
    assert_eq!(q.out_amount, hop3);
    assert_eq!(resimulate(&f.graph, &q), q.out_amount);
    // Two hops are not enough, and the error says how many are.
    let err =
        gross_router().quote(&f.graph, &request(&f, 0, 3, 1_000_000_000, 4, 2), QuoteOptions::default()).unwrap_err();
    let too_long = NoRouteReason::TooLong { shortest: 3, max_length: 2 };
    assert!(matches!(&err, RouteError::NoRoute { reason, .. } if **reason == too_long), "{err}");
}

#[test]
fn parallel_equal_pools_split_evenly() {
    // Two identical pools between A0 and A1: the best split is 50/50, and its output is that of one pool
    // taking half the amount, twice.
    let r = [1_000_000_000_000u128, 1_000_000_000_000];
    let f = fixture(2, &[(0, 1, r, 30), (0, 1, r, 30)]);
    let amount = 100_000_000_000u128; // 10 % of depth: splitting matters
    let q = gross_router().quote(&f.graph, &request(&f, 0, 1, amount, 2, 1), QuoteOptions::default()).unwrap();
    assert_eq!(q.routes.len(), 2);
    let half = cp_out(r[0], r[1], amount / 2, 30);
    assert!(q.out_amount >= 2 * half, "{} < {}", q.out_amount, 2 * half);
    assert!(q.routes.iter().all(|r| r.in_amount.abs_diff(amount / 2) <= amount / 1000));
    assert_eq!(q.best_single_out, cp_out(r[0], r[1], amount, 30));
    assert!(q.improvement > 0.0);
    assert_eq!(resimulate(&f.graph, &q), q.out_amount);
    // One split allowed: the single pool.
    let one = gross_router().quote(&f.graph, &request(&f, 0, 1, amount, 1, 1), QuoteOptions::default()).unwrap();
    assert_eq!(one.routes.len(), 1);
    assert_eq!(one.out_amount, cp_out(r[0], r[1], amount, 30));
}

#[test]
fn diamond_uses_both_branches() {
    // A0 → A1 → A3 and A0 → A2 → A3, branches of equal depth.
    let r = [1_000_000_000_000u128, 1_000_000_000_000];
    let f = fixture(4, &[(0, 1, r, 30), (1, 3, r, 30), (0, 2, r, 30), (2, 3, r, 30)]);
    let amount = 50_000_000_000u128;
    let q = gross_router().quote(&f.graph, &request(&f, 0, 3, amount, 4, 2), QuoteOptions::default()).unwrap();
    assert_eq!(q.routes.len(), 2);
    let branch = cp_out(r[0], r[1], cp_out(r[0], r[1], amount / 2, 30), 30);
    assert!(q.out_amount >= 2 * branch);
    assert_eq!(q.in_amount, q.routes.iter().map(|r| r.in_amount).sum::<u128>());
    assert_eq!(resimulate(&f.graph, &q), q.out_amount);
}

#[test]
fn routes_sharing_a_pool_are_simulated_jointly() {
    // A0 → A1 by two pools, then A1 → A2 by one pool both routes must share.
    let r = [1_000_000_000_000u128, 1_000_000_000_000];
    let f = fixture(3, &[(0, 1, r, 30), (0, 1, r, 30), (1, 2, r, 30)]);
    let amount = 200_000_000_000u128;
    let q = gross_router().quote(&f.graph, &request(&f, 0, 2, amount, 2, 2), QuoteOptions::default()).unwrap();
    // Whatever the split, re-simulating in order with the shared pool updated gives the quoted output.
    assert_eq!(resimulate(&f.graph, &q), q.out_amount);
    if q.routes.len() == 2 {
        let shared = q.routes[0].steps[1].pool;
        assert_eq!(shared, q.routes[1].steps[1].pool);
        // The second route's last step saw moved reserves: it pays less than it would on a fresh pool.
        let fresh = cp_out(r[0], r[1], q.routes[1].steps[1].in_amount, 30);
        assert!(q.routes[1].steps[1].out_amount < fresh);
    }
    // Splitting the first hop over two pools beats a single route.
    assert!(q.out_amount >= q.best_single_out);
}

#[test]
fn network_fees_decide_whether_a_split_pays() {
    let r = [1_000_000_000_000u128, 1_000_000_000_000];
    let f = fixture(2, &[(0, 1, r, 30), (0, 1, r, 30)]);
    let amount = 1_000_000_000u128; // tiny: splitting gains less than a route's fee
    let fees = NetworkFees { dex_b_v2: ProtocolFee { per_route: 50_000_000, per_hop: 0 }, ..NetworkFees::ZERO };
    let with_fee = Router::new(RouterConfig { network_fees: fees, ..RouterConfig::default() });
    let q = with_fee.quote(&f.graph, &request(&f, 0, 1, amount, 2, 1), QuoteOptions::default()).unwrap();
    assert_eq!(q.routes.len(), 1, "a second route cannot pay 0.05 TON on a 1 TON trade");
    assert_eq!(q.network_fee, 50_000_000);
    let gross = gross_router().quote(&f.graph, &request(&f, 0, 1, amount, 2, 1), QuoteOptions::default()).unwrap();
    assert!(gross.out_amount >= q.out_amount);
}

#[test]
fn bad_requests_are_typed_errors() {
    let r = [1_000_000_000u128, 1_000_000_000];
    let f = fixture(3, &[(0, 1, r, 30)]);
    let router = gross_router();
    let base = request(&f, 0, 1, 1_000, 4, 3);
    type Check = fn(&RouteError) -> bool;
    // Out of the limits: refused by the constructor, so no such request reaches the router.
    let refused: Vec<(QuoteRequestBuilder, Check)> = vec![
        (base.to_builder().amount(0), |e| matches!(e, RouteError::ZeroAmount)),
        (base.to_builder().amount(1 << 120), |e| matches!(e, RouteError::AmountTooLarge { .. })),
        (base.to_builder().max_splits(0), |e| matches!(e, RouteError::MaxSplitsOutOfRange { .. })),
        (base.to_builder().max_splits(21), |e| matches!(e, RouteError::MaxSplitsOutOfRange { .. })),
        (base.to_builder().max_length(0), |e| matches!(e, RouteError::MaxLengthOutOfRange { .. })),
        (base.to_builder().max_length(6), |e| matches!(e, RouteError::MaxLengthOutOfRange { .. })),
        (base.to_builder().slippage_bps(10_001), |e| matches!(e, RouteError::SlippageOutOfRange { .. })),
        (base.to_builder().out_asset(f.assets[0]), |e| matches!(e, RouteError::SameAsset { .. })),
    ];
    for (builder, check) in refused {
        let shown = format!("{builder:?}");
        let err = builder.build().unwrap_err();
        assert!(check(&err), "{shown} gave {err}");
    }
    // Within the limits: the router's refusals on this graph.
    let cases: Vec<(QuoteRequestBuilder, Check)> = vec![
        (base.to_builder().out_asset(jetton(99)), |e| matches!(e, RouteError::UnknownAsset { .. })),
        // Asset 2 trades in no pool.
        (
            base.to_builder().out_asset(f.assets[2]),
            |e| matches!(e, RouteError::NoRoute { reason, .. } if **reason == NoRouteReason::Disconnected),
        ),
        // 1 unit in rounds to zero out: every path refuses.
        (base.to_builder().amount(1), |e| matches!(e, RouteError::AmountRefused { .. })),
    ];
    for (builder, check) in cases {
        let req = builder.build().unwrap();
        let err = router.quote(&f.graph, &req, QuoteOptions::default()).unwrap_err();
        assert!(check(&err), "{req:?} gave {err}");
    }
}

#[test]
fn min_out_and_fields_follow_their_definitions() {
    let r = [5_000_000_000_000u128, 10_000_000_000_000];
    let f = fixture(2, &[(0, 1, r, 25)]);
    let req = request(&f, 0, 1, 10_000_000_000, 4, 3).to_builder().slippage_bps(50).build().unwrap();
    let q = gross_router().quote(&f.graph, &req, QuoteOptions::default()).unwrap();
    let out = cp_out(r[0], r[1], req.amount(), 25);
    assert_eq!(q.out_amount, out);
    assert_eq!(q.min_out, out * 9_950 / 10_000);
    assert_eq!(q.routes[0].in_percent, 100.0);
    // Spot after fees is y/x · (1 − 0.0025); price impact is the loss against it.
    let spot = 2.0 * 0.9975;
    let impact = 1.0 - out as f64 / (req.amount() as f64 * spot);
    assert!((q.price_impact - impact).abs() < 1e-9, "{} vs {impact}", q.price_impact);
    assert!(q.swap_is_possible);
}

#[test]
fn quotes_run_while_reserves_change() {
    let r = [1_000_000_000_000u128, 1_000_000_000_000];
    let f = std::sync::Arc::new(fixture(3, &[(0, 1, r, 30), (1, 2, r, 30), (0, 2, r, 30)]));
    let writer = {
        let f = std::sync::Arc::clone(&f);
        std::thread::spawn(move || {
            for k in 0..5_000u128 {
                for p in 0..3 {
                    f.graph.update_reserves(PoolId(p), [r[0] + k * 1_000_000, r[1] - k * 1_000_000]).unwrap();
                }
            }
        })
    };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let f = std::sync::Arc::clone(&f);
            std::thread::spawn(move || {
                for _ in 0..300 {
                    let q = gross_router()
                        .quote(&f.graph, &request(&f, 0, 2, 1_000_000_000, 4, 2), QuoteOptions::default())
                        .unwrap();
                    assert_eq!(q.in_amount, q.routes.iter().map(|r| r.in_amount).sum::<u128>());
                    assert!(q.out_amount > 0);
                }
            })
        })
        .collect();
    writer.join().unwrap();
    for t in readers {
        t.join().unwrap();
    }
    // After the updates, a quote sees the final reserves.
    let last = [r[0] + 4_999 * 1_000_000, r[1] - 4_999 * 1_000_000];
    let q = gross_router().quote(&f.graph, &request(&f, 0, 1, 1_000_000_000, 1, 1), QuoteOptions::default()).unwrap();
    assert_eq!(q.out_amount, cp_out(last[0], last[1], 1_000_000_000, 30));
}

#[test]
fn exact_out_finds_the_smallest_input_on_every_route() {
    use tonroute::route::SwapMode;
    let r = [1_000_000_000_000u128, 2_000_000_000_000];
    let f =
        fixture(3, &[(0, 1, r, 30), (0, 1, [500_000_000_000, 1_000_000_000_000], 20), (1, 2, r, 30), (0, 2, r, 100)]);
    for wanted in [1u128, 12_345, 1_000_000_000, 150_000_000_000] {
        let req = request(&f, 0, 1, wanted, 4, 2).to_builder().swap_mode(SwapMode::ExactOut).build().unwrap();
        let q = gross_router().quote(&f.graph, &req, QuoteOptions::default()).unwrap();
        assert_eq!(q.swap_mode, SwapMode::ExactOut);
        assert!(q.out_amount >= wanted, "{} < {wanted}", q.out_amount);
        assert_eq!(resimulate(&f.graph, &q), q.out_amount);
        // One unit less on any route pays less than wanted (forward re-simulation with the pool math).
        let inputs: Vec<u128> = q.routes.iter().map(|r| r.in_amount).collect();
        for i in 0..inputs.len() {
            let mut less = inputs.clone();
            less[i] -= 1;
            let out = output_from_inputs(&f.graph, &q, &less);
            assert!(out < wanted, "route {i} could give up a unit: {out} >= {wanted}");
        }
        assert_eq!(q.in_amount, q.routes.iter().map(|r| r.in_amount).sum::<u128>());
        assert!(q.max_in >= q.in_amount);
    }
    // More than the pools hold.
    // The pools hold 2 + 1 + 1 (via A2) · 10^12.
    let req = request(&f, 0, 1, 4_000_000_000_000, 4, 2).to_builder().swap_mode(SwapMode::ExactOut).build().unwrap();
    assert!(matches!(
        gross_router().quote(&f.graph, &req, QuoteOptions::default()),
        Err(RouteError::OutputUnreachable { .. })
    ));
}
