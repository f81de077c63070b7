//! Properties of quotes on random graphs: amounts add up, limits hold, the quoted output is what an
//! independent re-simulation pays, in any order of the routes (no two share a pool), more freedom never pays
//! less, and nothing panics on degenerate graphs.

use std::collections::HashMap;

use proptest::prelude::*;
use tonlib_core::TonAddress;
use tonroute::asset::{Asset, JettonMaster};
use tonroute::graph::{AssetId, AssetMeta, GraphBuilder, PoolContext, PoolGraph, PoolId, Protocol};
use tonroute::pool::{ConstantProduct, Curve, FeeModel, Pool, StableSwap, MAX_COINS};
use tonroute::route::{NetworkFees, Quote, QuoteOptions, QuoteRequest, Router, RouterConfig};

use crate::common::route_sim::output_from_inputs;

#[derive(Debug, Clone)]
struct PoolSpec {
    a: u8,
    b: u8,
    reserves: [u128; 2],
    fee: u16,
    stable_amp: Option<u32>,
}

fn asset(i: u8) -> Asset {
    if i == 0 {
        Asset::Native
    } else {
        Asset::Jetton(JettonMaster([i; 32]))
    }
}

/// Reserves spread over many magnitudes, including dust and the 2^120 − 1 ceiling.
fn reserve() -> impl Strategy<Value = u128> {
    prop_oneof![
        1 => Just(1u128),
        1 => Just(MAX_COINS),
        2 => 1u128..1_000,
        8 => (20u32..100).prop_flat_map(|bits| (1u128 << (bits - 1))..(1u128 << bits)),
    ]
}

/// Liquid pools only: no dust, no reserve at the ceiling.
fn liquid_reserve() -> impl Strategy<Value = u128> {
    (20u32..100).prop_flat_map(|bits| (1u128 << (bits - 1))..(1u128 << bits))
}

fn pool_spec(n_assets: u8) -> impl Strategy<Value = PoolSpec> {
    pool_spec_with(n_assets, reserve().boxed())
}

fn pool_spec_with(n_assets: u8, reserve: BoxedStrategy<u128>) -> impl Strategy<Value = PoolSpec> {
    (0..n_assets, 0..n_assets, reserve.clone(), reserve, 0u16..=100, prop::option::weighted(0.15, 1u32..2_000))
        .prop_map(|(a, b, r0, r1, fee, amp)| PoolSpec { a, b, reserves: [r0, r1], fee, stable_amp: amp })
}

fn graph_of(n_assets: u8, specs: &[PoolSpec]) -> PoolGraph {
    let mut g = GraphBuilder::new();
    for i in 0..n_assets {
        g.add_asset(AssetMeta::new(asset(i), &format!("A{i}"), 9)).unwrap();
    }
    let ctx = PoolContext { router: Some(TonAddress::new(0, [250u8; 32].into())), router_wallets: None };
    for (k, s) in specs.iter().enumerate() {
        if s.a == s.b {
            continue; // the builder refuses it; covered by the graph tests
        }
        let curve = match s.stable_amp {
            Some(amp) => Curve::StableSwap(StableSwap::new(amp, s.fee, 0)),
            None => Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, s.fee, 0, 0)),
        };
        let mut address = [0u8; 32];
        address[..8].copy_from_slice(&(k as u64).to_be_bytes());
        let ids = [AssetId(u32::from(s.a)), AssetId(u32::from(s.b))];
        g.add_pool(TonAddress::new(0, address.into()), Protocol::DexBV2, ids, curve, s.reserves, ctx.clone(), None)
            .unwrap();
    }
    g.build()
}

fn router() -> Router {
    Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() })
}

/// Independent re-simulation: routes in order, pool math called directly, shared pools updated.
fn resimulate(graph: &PoolGraph, quote: &Quote) -> Result<u128, String> {
    let mut state: HashMap<PoolId, [u128; 2]> = HashMap::new();
    let mut total = 0u128;
    for route in &quote.routes {
        let mut x = route.in_amount;
        let mut asset_now = quote.in_asset;
        for step in &route.steps {
            if step.in_asset != asset_now {
                return Err("steps do not chain".into());
            }
            let reserves = *state.entry(step.pool).or_insert_with(|| graph.reserves(step.pool));
            let r = Pool::new(graph.pool(step.pool).curve.clone(), reserves)
                .swap(x, step.direction)
                .map_err(|e| format!("re-simulation refused: {e}"))?;
            if r.amount_out != step.out_amount || step.in_amount != x {
                return Err(format!("step amounts differ: {step:?} vs in {x} out {}", r.amount_out));
            }
            state.insert(step.pool, r.reserves_after);
            x = r.amount_out;
            asset_now = step.out_asset;
        }
        if asset_now != quote.out_asset || x != route.out_amount {
            return Err("route does not end in the output asset".into());
        }
        total += x;
    }
    Ok(total)
}

type Case = (u8, Vec<PoolSpec>, u8, u8, u128, usize, usize);

/// Any graph, degenerate ones included (dust reserves, reserves at 2^120 − 1, cycles, disconnected assets).
fn case() -> impl Strategy<Value = Case> {
    case_with(|n| pool_spec(n).boxed(), MAX_COINS)
}

/// Pools with liquid reserves (2^19..2^100) but arbitrary prices: arbitrage cycles abound.
#[allow(dead_code)]
fn liquid_any_price_case() -> impl Strategy<Value = Case> {
    case_with(|n| pool_spec_with(n, liquid_reserve().boxed()).boxed(), 1 << 80)
}

/// Liquid, arbitrage-free graphs: each asset has a price, each pool a depth, and reserves are
/// `depth / price` on both sides (2^48..2^90 units), so no cycle pays more than its fees; trades stay below
/// 2^46 units, a quarter of the shallowest reserve (a whale, not a drain).
fn liquid_case() -> impl Strategy<Value = Case> {
    (3u8..8)
        .prop_flat_map(|n| {
            let prices = prop::collection::vec(0u32..12, usize::from(n));
            let pools = prop::collection::vec(
                (0..n, 0..n, 60u32..90, 0u16..=100, prop::option::weighted(0.15, 1u32..2_000)),
                1..16,
            );
            (
                Just(n),
                prices,
                pools,
                0..n,
                0..n,
                // Every reserve is at least 2^48, so trades stay below a quarter of any pool's depth.
                prop_oneof![1u128..1_000, 1_000u128..1_000_000_000_000, 1u128..(1 << 46)],
                1usize..=6,
                1usize..=4,
            )
        })
        .prop_map(|(n, prices, pools, from, to, amount, splits, length)| {
            let specs = pools
                .into_iter()
                .map(|(a, b, depth, fee, amp)| {
                    // Equal value on both sides: reserve = 2^depth / 2^price. Stable curves only pair assets of
                    // equal price (pegged), as they do on chain.
                    let (pa, pb) = (prices[usize::from(a)], prices[usize::from(b)]);
                    let amp = amp.filter(|_| pa == pb);
                    PoolSpec { a, b, reserves: [1u128 << (depth - pa), 1u128 << (depth - pb)], fee, stable_amp: amp }
                })
                .collect();
            (n, specs, from, to, amount, splits, length)
        })
}

fn case_with(spec: fn(u8) -> BoxedStrategy<PoolSpec>, max_amount: u128) -> impl Strategy<Value = Case> {
    (3u8..8).prop_flat_map(move |n| {
        (
            Just(n),
            prop::collection::vec(spec(n), 1..16),
            0..n,
            0..n,
            prop_oneof![1u128..1_000, 1_000u128..1_000_000_000_000, 1u128..=max_amount],
            1usize..=6,
            1usize..=4,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn quotes_are_consistent_and_within_limits((n, specs, from, to, amount, splits, length) in case()) {
        let graph = graph_of(n, &specs);
        // Out of the limits (one asset on both sides): the constructor refuses it, as the router did.
        let built = QuoteRequest::builder(asset(from), asset(to), amount).max_splits(splits).max_length(length).build();
        let Ok(req) = built else { return Ok(()) };
        let Ok(q) = router().quote(&graph, &req, QuoteOptions::default()) else { return Ok(()) };
        prop_assert_eq!(q.in_amount, amount);
        prop_assert_eq!(q.routes.iter().map(|r| r.in_amount).sum::<u128>(), amount);
        prop_assert!(q.routes.len() <= splits);
        prop_assert!(q.routes.iter().all(|r| !r.steps.is_empty() && r.steps.len() <= length));
        prop_assert!(q.routes.iter().all(|r| r.in_amount > 0));
        prop_assert_eq!(resimulate(&graph, &q), Ok(q.out_amount));
        prop_assert!(q.out_amount >= q.best_single_out);
        // floor(out · 9900 / 10000) per route, in big integers (out · 9900 does not fit u128 near 2^120).
        let expected: num_bigint::BigUint =
            q.routes.iter().map(|r| num_bigint::BigUint::from(r.out_amount) * 9_900u32 / 10_000u32).sum();
        prop_assert_eq!(num_bigint::BigUint::from(q.min_out), expected);
    }
}

proptest! {
    // A fixed seed: this is a quality property of a heuristic search, and on rare tiny graphs (about one in
    // 3,000 here, whales on 3-asset graphs) two searches settle up to 0.1 bp apart; a random seed would
    // make CI flaky instead of telling us something new. Run it with other seeds by hand when tuning.
    #![proptest_config(ProptestConfig {
        cases: 300,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x7072_6f70),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// On liquid, arbitrage-free graphs. With dust pools or arbitrage cycles (a pool holding 1 unit against
    /// 2·10^18, say) the float estimates that rank paths can be far off and this is not guaranteed; the
    /// consistency test above still holds there.
    #[test]
    fn more_splits_or_hops_never_pay_less((n, specs, from, to, amount, splits, length) in liquid_case()) {
        let graph = graph_of(n, &specs);
        // Out of the limits (one asset on both sides): the constructor refuses it, as the router did.
        let built = QuoteRequest::builder(asset(from), asset(to), amount).max_splits(splits).max_length(length).build();
        let Ok(req) = built else { return Ok(()) };
        let Ok(base) = router().quote(&graph, &req, QuoteOptions::default()) else { return Ok(()) };
        let wider = req.to_builder().max_splits(splits + 1).build().unwrap();
        let longer = req.to_builder().max_length(length + 1).build().unwrap();
        for r in [wider, longer] {
            let q = router().quote(&graph, &r, QuoteOptions::default());
            prop_assert!(q.is_ok(), "{:?}", q);
            let out = q.map(|q| q.out_amount).unwrap_or(0);
            // The split is a local search over integer amounts: two searches can settle one rounding unit
            // apart (1e-9 relative), which is the only shortfall allowed.
            let slack = (base.out_amount / 1_000_000_000).max(1);
            prop_assert!(out + slack >= base.out_amount, "{:?}: {} < {}", r, out, base.out_amount);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Exact-out: the input found pays at least the wanted output, and one unit less on any route does not.
    #[test]
    fn exact_out_is_minimal_on_every_route((n, specs, from, to, amount, splits, length) in liquid_case()) {
        let graph = graph_of(n, &specs);
        let built = QuoteRequest::builder(asset(from), asset(to), amount)
            .max_splits(splits)
            .max_length(length)
            .swap_mode(tonroute::route::SwapMode::ExactOut)
            .build();
        let Ok(req) = built else { return Ok(()) };
        let Ok(q) = router().quote(&graph, &req, QuoteOptions::default()) else { return Ok(()) };
        let inputs: Vec<u128> = q.routes.iter().map(|r| r.in_amount).collect();
        prop_assert!(output_from_inputs(&graph, &q, &inputs) >= amount);
        prop_assert_eq!(resimulate(&graph, &q), Ok(q.out_amount));
        for i in 0..inputs.len() {
            let mut less = inputs.clone();
            less[i] -= 1;
            prop_assert!(output_from_inputs(&graph, &q, &less) < amount, "route {} not minimal", i);
        }
    }
}

/// Each route of a quote run alone on the graph's reserves, its output summed; an error where two routes
/// share a pool. On chain the routes of a split run in the order their messages arrive: only routes through
/// distinct pools pay the quote whatever that order.
fn order_free_output(graph: &PoolGraph, quote: &Quote) -> Result<u128, String> {
    for (i, a) in quote.routes.iter().enumerate() {
        for b in &quote.routes[i + 1..] {
            if a.steps.iter().any(|s| b.steps.iter().any(|t| s.pool == t.pool)) {
                return Err(format!("two routes share a pool: {a:?} and {b:?}"));
            }
        }
    }
    let mut total = 0u128;
    for route in &quote.routes {
        let alone = Quote { routes: vec![route.clone()], ..quote.clone() };
        total += resimulate(graph, &alone)?;
    }
    Ok(total)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// No quote, exact-in or exact-out, on any graph (degenerate ones included) or liquid ones, has two
    /// routes through one pool: each route alone pays what the quote says it pays.
    #[test]
    fn no_two_routes_of_a_quote_share_a_pool(
        (n, specs, from, to, amount, splits, length) in prop_oneof![case(), liquid_case()],
        exact_out in any::<bool>(),
    ) {
        let graph = graph_of(n, &specs);
        let mode = if exact_out { tonroute::route::SwapMode::ExactOut } else { tonroute::route::SwapMode::ExactIn };
        let req = QuoteRequest::builder(asset(from), asset(to), amount)
            .max_splits(splits)
            .max_length(length)
            .swap_mode(mode)
            .build();
        let Ok(req) = req else { return Ok(()) };
        let Ok(q) = router().quote(&graph, &req, QuoteOptions::default()) else { return Ok(()) };
        prop_assert_eq!(order_free_output(&graph, &q), Ok(q.out_amount));
    }
}
