//! Quote → `swap_data` → messages, on small graphs built in code with every protocol and its context addresses.
//!
//! Round trips decode each payload (`tonroute::swap::decode`) and compare with values taken from the graph and the
//! quote, never from the builder: hop addresses from the pools' context, offer from the route's input, min-outs
//! recomputed as `floor(out · (10000 − bps) / 10000)` with num-bigint. Tampering tests change one thing in a
//! valid `swap_data` and expect that rule's own error. `dex_c` pools use a constant-product stand-in curve (the
//! CLMM curve is not modelled yet); the message glue does not depend on the curve.

use num_bigint::BigUint;
use proptest::prelude::*;
use tonlib_core::cell::BagOfCells;
use tonlib_core::TonAddress;
use tonroute::asset::Asset;
use tonroute::graph::{AssetMeta, GraphBuilder, PoolContext, PoolGraph, Protocol, ProtocolContext};
use tonroute::pool::{ConstantProduct, Curve, DexAStable, DexAVolatile, FeeModel, PoolError};
use tonroute::route::{Quote, QuoteOptions, QuoteRequest, Router, RouterConfig, SwapData, SwapStep};
use tonroute::swap::build::{
    build_checked, build_messages, build_swap, check_swap, JettonWalletResolver, Referrer, SwapRequest, SwapResponse,
};
use tonroute::swap::decode::{decode, Layout};
use tonroute::swap::{dex_b_v2, parse_address, Direction, GasTable, SwapArgs, SwapError, Terms};

use crate::common::swap_fixture::{
    add_dex_a_vaults, addr, asset_index, finish_graph, native_vault, pool_addr, route, router_wallet, step, user,
    user_wallet, NOT, USDT, XJ,
};

/// The assets of this file's pools (the first four of the shared fixture's).
const ASSETS: [Asset; 4] = [Asset::Native, USDT, NOT, XJ];

const V1_ROUTER: u8 = 0x11;
const V2_ROUTER: u8 = 0x21;
const V2_ROUTER_B: u8 = 0x22;
const DEX_C_ROUTER: u8 = 0x31;

fn cp(model: FeeModel, lp: u16, proto: u16) -> Curve {
    Curve::ConstantProduct(ConstantProduct::new(model, lp, proto, 0))
}

/// A fixture pool: address tag, protocol, router tag, assets, curve, reserves.
type FixturePool = (u8, Protocol, Option<u8>, [Asset; 2], Curve, [u128; 2]);

fn pools() -> Vec<FixturePool> {
    let v1 = || cp(FeeModel::V1, 20, 10);
    let v2 = || cp(FeeModel::V2, 20, 10);
    vec![
        (1, Protocol::DexBV1, Some(V1_ROUTER), [Asset::Native, USDT], v1(), [1_000_000_000_000_000, 2_500_000_000_000]),
        (2, Protocol::DexBV1, Some(V1_ROUTER), [USDT, NOT], v1(), [2_000_000_000_000, 3_000_000_000_000_000]),
        (3, Protocol::DexBV2, Some(V2_ROUTER), [Asset::Native, USDT], v2(), [800_000_000_000_000, 2_000_000_000_000]),
        (4, Protocol::DexBV2, Some(V2_ROUTER), [USDT, NOT], v2(), [1_000_000_000_000, 1_500_000_000_000_000]),
        (5, Protocol::DexBV2, Some(V2_ROUTER_B), [NOT, XJ], v2(), [1_000_000_000_000_000, 1_000_000_000_000_000]),
        (
            6,
            Protocol::DexA,
            None,
            [Asset::Native, USDT],
            Curve::DexAVolatile(DexAVolatile { fee_bps: 25 }),
            [500_000_000_000_000, 1_300_000_000_000],
        ),
        (
            7,
            Protocol::DexA,
            None,
            [USDT, NOT],
            Curve::DexAVolatile(DexAVolatile { fee_bps: 30 }),
            [900_000_000_000, 1_400_000_000_000_000],
        ),
        (
            8,
            Protocol::DexA,
            None,
            [USDT, XJ],
            Curve::DexAStable(DexAStable { fee_bps: 4 }),
            [1_000_000_000_000, 1_000_000_000_000_000],
        ),
        (9, Protocol::DexC, None, [USDT, Asset::Native], v2(), [1_500_000_000_000, 600_000_000_000_000]),
        (10, Protocol::DexC, None, [USDT, NOT], v2(), [700_000_000_000, 1_000_000_000_000_000]),
    ]
}

/// A graph holding the pools of `protocols`, with every context address filled in.
fn graph_with(protocols: &[Protocol], vaults: bool) -> PoolGraph {
    let mut b = GraphBuilder::new();
    let decimals = [9, 6, 9, 9];
    let ids: Vec<_> = ASSETS
        .iter()
        .zip(decimals)
        .map(|(a, d)| b.add_asset(AssetMeta::new(*a, &a.to_string()[..8.min(a.to_string().len())], d)).unwrap())
        .collect();
    for (tag, protocol, router, assets, curve, reserves) in pools() {
        if !protocols.contains(&protocol) {
            continue;
        }
        let wallet_tag = match protocol {
            Protocol::DexC => Some(DEX_C_ROUTER),
            _ => router,
        };
        let context = PoolContext {
            router: router.map(|r| addr(r, 0)),
            router_wallets: wallet_tag.map(|t| assets.map(|a| router_wallet(t, &a))),
        };
        let asset_ids = assets.map(|a| ids[asset_index(&a) as usize]);
        b.add_pool(pool_addr(tag), protocol, asset_ids, curve, reserves, context, None).unwrap();
    }
    let mut ctx = ProtocolContext {
        dex_b_v1_router: Some(addr(V1_ROUTER, 0)),
        dex_b_v1_pton_wallet: Some(router_wallet(V1_ROUTER, &Asset::Native)),
        ..ProtocolContext::default()
    };
    if vaults {
        add_dex_a_vaults(&mut ctx, &ASSETS[1..]);
    }
    finish_graph(b, ctx, &ASSETS[1..])
}

fn full_graph() -> PoolGraph {
    graph_with(&Protocol::ALL, true)
}

fn router() -> Router {
    Router::new(RouterConfig { network_fees: tonroute::route::NetworkFees::ZERO, ..RouterConfig::default() })
}

fn quote(graph: &PoolGraph, from: Asset, to: Asset, amount: u128, bps: u32) -> Quote {
    let req = QuoteRequest::builder(from, to, amount).slippage_bps(bps).build().unwrap();
    router().quote(graph, &req, QuoteOptions::default()).unwrap_or_else(|e| panic!("{from} -> {to}: {e}"))
}

fn request(swap_data: SwapData) -> SwapRequest {
    SwapRequest { sender: user(), swap_data, query_id: 42, deadline: 1_767_225_600, referral: None }
}

fn swap(graph: &PoolGraph, req: &SwapRequest) -> Result<SwapResponse, SwapError> {
    build_swap(graph, req, &GasTable::default(), graph)
}

fn expected_min_out(out: u128, bps: u32) -> u128 {
    let v = BigUint::from(out) * BigUint::from(10_000 - bps) / BigUint::from(10_000u32);
    u128::try_from(v).unwrap()
}

fn gas_of(gas: &GasTable, protocol: Protocol) -> &tonroute::swap::ProtocolGas {
    match protocol {
        Protocol::DexA => &gas.dex_a,
        Protocol::DexBV1 => &gas.dex_b_v1,
        Protocol::DexBV2 => &gas.dex_b_v2,
        Protocol::DexC => &gas.dex_c,
    }
}

/// Decodes every transaction and checks it against the quote and the graph (not against `swap_data`).
fn check_round_trip(graph: &PoolGraph, q: &Quote, resp: &SwapResponse) {
    let gas = GasTable::default();
    assert_eq!(resp.transactions.len(), q.routes.len());
    let direction = match (q.in_asset, q.out_asset) {
        (Asset::Native, _) => Direction::NativeToJetton,
        (_, Asset::Native) => Direction::JettonToNative,
        _ => Direction::JettonToJetton,
    };
    for (route, tx) in q.routes.iter().zip(&resp.transactions) {
        let protocol = route.steps[0].protocol;
        let root = BagOfCells::parse_base64(&tx.payload).unwrap().single_root().unwrap();
        let dec = decode(&root).unwrap();
        let layout = match protocol {
            Protocol::DexA => Layout::DexA,
            Protocol::DexBV1 => Layout::DexBV1,
            Protocol::DexBV2 => Layout::DexBV2,
            Protocol::DexC => Layout::DexC,
        };
        assert_eq!(dec.layout, layout);
        assert_eq!(dec.offer_amount, route.in_amount);
        let n = route.steps.len();
        assert_eq!(dec.hops.len(), n);
        for (k, (hop, step)) in dec.hops.iter().zip(&route.steps).enumerate() {
            let meta = graph.pool(step.pool);
            let want_addr = match step.protocol {
                Protocol::DexA => meta.address.clone(),
                _ => meta.context.router_wallets.as_ref().unwrap()[1 - step.direction.in_index()].clone(),
            };
            assert_eq!(hop.address, want_addr, "hop {k}");
            let want_min = if k + 1 == n { expected_min_out(route.out_amount, q.slippage_bps) } else { 0 };
            assert_eq!(hop.min_out, want_min, "hop {k} min-out");
        }
        assert_eq!(dec.hops[n - 1].min_out, route.min_out);
        let to: TonAddress = tx.address.parse().unwrap();
        assert!(tx.address.starts_with("EQ"), "bounceable form: {}", tx.address);
        let first = graph.pool(route.steps[0].pool);
        let want_to = match (q.in_asset, protocol) {
            (Asset::Native, Protocol::DexA) => native_vault(),
            (Asset::Native, _) => {
                first.context.router_wallets.as_ref().unwrap()[route.steps[0].direction.in_index()].clone()
            }
            (jetton, _) => user_wallet(&jetton),
        };
        assert_eq!(to, want_to);
        // One exchange's own multi-hop (one message segment) attaches the SDK's gas; a route that hands off
        // to another exchange attaches more (`tests/it/cross_exchange.rs` checks those figures), except from
        // `dex_c`, whose payout leaves its change at the next router: there the plan's TON exactly, which is at
        // least TONCO's hop budget and as much again for whatever follows (0.4 TON).
        let one_segment = route.steps.windows(2).all(|w| {
            let at = graph.asset_id(&w[0].out_asset).unwrap();
            graph.handoff_kind(w[0].pool, w[1].pool, at).is_ok_and(|k| k.is_internal())
        });
        let g = gas_of(&gas, protocol).get(direction, if one_segment { n } else { 1 }).unwrap();
        let offer = if direction.offer_is_native() { route.in_amount } else { 0 };
        if one_segment {
            assert_eq!(tx.amount, offer + g.attached);
        } else if protocol == Protocol::DexC {
            assert!(tx.amount >= offer + 400_000_000, "{} < {offer} + 0.4 TON", tx.amount);
        } else {
            assert!(tx.amount > offer + g.attached, "{} <= {offer} + {}", tx.amount, g.attached);
        }
    }
}

#[test]
fn every_protocol_and_direction_round_trips() {
    let pairs: [(Asset, Asset, u128); 5] = [
        (Asset::Native, USDT, 100_000_000_000),
        (USDT, Asset::Native, 250_000_000),
        (USDT, NOT, 1_000_000_000),
        (NOT, USDT, 50_000_000_000_000),
        (Asset::Native, NOT, 30_000_000_000),
    ];
    let mut built = 0;
    for p in Protocol::ALL {
        let graph = graph_with(&[p], true);
        for (from, to, amount) in pairs {
            let req = QuoteRequest::builder(from, to, amount).slippage_bps(75).build().unwrap();
            let Ok(q) = router().quote(&graph, &req, QuoteOptions::default()) else {
                // Only TON -> NOT is missing, on dex_b_v1 (it would take two hops) and on dex_c: its hops chain
                // through payload hand-offs, and buying USD₮, token0 of its USD₮/TON pool, cannot hand over
                // (TONCO pays token0 to the recipient: Refusal::DexCToken0Out).
                assert!(
                    matches!(p, Protocol::DexBV1 | Protocol::DexC) && to == NOT && from.is_native(),
                    "{p} {from} -> {to}"
                );
                continue;
            };
            assert!(q.routes.iter().flat_map(|r| &r.steps).all(|s| s.protocol == p));
            let resp = swap(&graph, &request(q.swap_data(&graph))).unwrap_or_else(|e| panic!("{p} {from}->{to}: {e}"));
            assert_eq!(resp.query_id, 42);
            check_round_trip(&graph, &q, &resp);
            built += 1;
        }
    }
    // 5 pairs on dex_a and dex_b_v2, 4 on dex_b_v1 and dex_c.
    assert_eq!(built, 18);
}

#[test]
fn multi_hop_and_split_quotes_on_the_full_graph() {
    let graph = full_graph();
    for (from, to, amount) in [
        (Asset::Native, NOT, 2_000_000_000_000_000),
        (XJ, Asset::Native, 5_000_000_000_000_000),
        (USDT, XJ, 300_000_000_000),
    ] {
        let q = quote(&graph, from, to, amount, 100);
        let resp = swap(&graph, &request(q.swap_data(&graph))).unwrap();
        check_round_trip(&graph, &q, &resp);
    }
    let q = quote(&graph, Asset::Native, NOT, 2_000_000_000_000_000, 100);
    assert!(q.routes.len() > 1, "a large amount splits");
    assert!(q.routes.iter().any(|r| r.steps.len() > 1), "and takes a multi-hop route");
}

#[test]
fn same_inputs_give_the_same_bytes() {
    let graph = full_graph();
    let q = quote(&graph, Asset::Native, NOT, 2_000_000_000_000_000, 100);
    let req = request(q.swap_data(&graph));
    let a = swap(&graph, &req).unwrap();
    let b = swap(&full_graph(), &req.clone()).unwrap();
    assert_eq!(a, b);
    let other = SwapRequest { query_id: 43, ..req.clone() };
    assert_ne!(swap(&graph, &other).unwrap().transactions[0].payload, a.transactions[0].payload);
    // The cells behind the payloads agree too.
    let m1 = build_messages(&graph, &req, &GasTable::default(), &graph).unwrap();
    let m2 = build_messages(&graph, &req, &GasTable::default(), &graph).unwrap();
    assert_eq!(m1, m2);
}

#[test]
fn referral_and_deadline_reach_dex_b_v2() {
    let graph = graph_with(&[Protocol::DexBV2], true);
    let q = quote(&graph, USDT, NOT, 1_000_000_000, 50);
    let mut req = request(q.swap_data(&graph));
    req.referral = Some(Referrer { address: addr(0x66, 1), fee_bps: 25 });
    let msgs = build_messages(&graph, &req, &GasTable::default(), &graph).unwrap();
    // Same args through the layout builder directly.
    let d = q.swap_data(&graph);
    let step = &d.routes[0][0];
    let details = step.dex_b.as_ref().unwrap();
    let args = SwapArgs {
        direction: Direction::JettonToJetton,
        entry: addr(V2_ROUTER, 0),
        sender: user(),
        receiver: None,
        offer_amount: 1_000_000_000,
        offer_wallet: Some(user_wallet(&USDT)),
        hops: vec![tonroute::swap::Hop {
            address: details.to_router_wallet.clone(),
            min_out: expected_min_out(step.out_amount, 50),
        }],
        deadline: 1_767_225_600,
        referral: Some(addr(0x66, 1)),
        query_id: 42,
        then: None,
        terms: Terms::DexBV2 { refund: None, excesses: None, ref_fee_bps: 25 },
    };
    assert_eq!(msgs, vec![dex_b_v2::build(&args, &GasTable::default()).unwrap()]);
    req.referral = Some(Referrer { address: addr(0x66, 1), fee_bps: 101 });
    assert_eq!(swap(&graph, &req), Err(SwapError::RefFeeOutOfRange { ref_fee_bps: 101, max: 100 }));
}

// ---- tampering: one rule each ----

fn data(routes: Vec<Vec<SwapStep>>) -> SwapData {
    SwapData { slippage_bps: 100, routes }
}

/// The baseline every tamper test starts from: it builds.
fn good(graph: &PoolGraph) -> SwapData {
    data(vec![
        route(graph, &[3, 4], Asset::Native, 10_000_000_000),
        route(graph, &[6, 7], Asset::Native, 5_000_000_000),
    ])
}

fn refused(graph: &PoolGraph, d: SwapData) -> SwapError {
    swap(graph, &request(d)).expect_err("tampered swap_data must not build")
}

#[test]
fn baseline_builds() {
    let g = full_graph();
    let resp = swap(&g, &request(good(&g))).unwrap();
    assert_eq!(resp.transactions.len(), 2);
    for (k, r) in
        [route(&g, &[9], USDT, 1_000_000), route(&g, &[1], Asset::Native, 1_000_000_000)].into_iter().enumerate()
    {
        assert!(swap(&g, &request(data(vec![r]))).is_ok(), "single-hop {k}");
    }
}

#[test]
fn unknown_pool_is_refused() {
    let g = full_graph();
    let mut d = good(&g);
    d.routes[1][1].pool_address = pool_addr(99);
    assert_eq!(refused(&g, d), SwapError::UnknownPool { route: 1, step: 1, pool: pool_addr(99).to_hex() });
}

#[test]
fn wrong_protocol_is_refused() {
    let g = full_graph();
    let mut d = good(&g);
    d.routes[0][0].protocol = Protocol::DexBV1;
    assert_eq!(
        refused(&g, d),
        SwapError::ProtocolMismatch {
            route: 0,
            step: 0,
            pool: pool_addr(3).to_hex(),
            claimed: "dex_b_v1",
            actual: "dex_b_v2"
        }
    );
}

#[test]
fn step_not_matching_its_pool_is_refused() {
    let g = full_graph();
    let mut d = good(&g);
    d.routes[0][1].out_asset = XJ;
    assert!(matches!(refused(&g, d), SwapError::PoolMismatch { route: 0, step: 1, .. }));
    let mut d = good(&g);
    d.routes[1][0].is_stable = true;
    assert!(matches!(refused(&g, d), SwapError::PoolMismatch { route: 1, step: 0, is_stable: true, .. }));
}

#[test]
fn broken_chain_is_refused() {
    let g = full_graph();
    // dex_a TON -> USDT, then a dex_a step starting from NOT: each step matches its pool, but they do not chain.
    let mut r = route(&g, &[6], Asset::Native, 1_000_000_000);
    r.push(step(&g, 7, NOT, 1_000_000_000));
    assert_eq!(
        refused(&g, data(vec![r])),
        SwapError::BrokenChain { route: 0, step: 1, expected: USDT.to_string(), found: NOT.to_string() }
    );
    let mut d = good(&g);
    let x = d.routes[0][1].in_amount;
    d.routes[0][1].in_amount = x + 1;
    assert_eq!(refused(&g, d), SwapError::AmountsDoNotChain { route: 0, step: 1, expected: x, found: x + 1 });
}

#[test]
fn routes_with_different_ends_are_refused() {
    let g = full_graph();
    let d = data(vec![route(&g, &[3, 4], Asset::Native, 1_000_000_000), route(&g, &[6], Asset::Native, 1_000_000_000)]);
    assert_eq!(
        refused(&g, d),
        SwapError::MixedAssets {
            route: 1,
            expected_in: "native".into(),
            expected_out: NOT.to_string(),
            found_in: "native".into(),
            found_out: USDT.to_string(),
        }
    );
    let round = route(&g, &[6, 9], Asset::Native, 1_000_000_000);
    assert_eq!(refused(&g, data(vec![round])), SwapError::SameAssetInOut { asset: "native".into() });
    let round = route(&g, &[3, 3], Asset::Native, 1_000_000_000);
    assert_eq!(refused(&g, data(vec![round])), SwapError::SameAssetInOut { asset: "native".into() });
}

#[test]
fn unsafe_hand_offs_are_refused() {
    use tonroute::graph::Refusal;
    let g = full_graph();
    let refusal = |reason| SwapError::HandOffRefused { route: 0, step: 1, reason };
    // Nothing follows dex_b_v1; nothing enters dex_b_v1 or dex_a from another exchange.
    let r = route(&g, &[1, 2], Asset::Native, 1_000_000_000);
    assert_eq!(refused(&g, data(vec![r])), refusal(Refusal::AfterDexBV1));
    let r = route(&g, &[3, 2], Asset::Native, 1_000_000_000);
    assert_eq!(refused(&g, data(vec![r])), refusal(Refusal::IntoDexBV1));
    let r = route(&g, &[3, 7], Asset::Native, 1_000_000_000);
    assert_eq!(refused(&g, data(vec![r])), refusal(Refusal::IntoDexA));
    // TON cannot leave dex_a mid-route (USD₮ → TON on dex_a, then TON → USD₮ on dex_b_v2).
    let r = route(&g, &[6, 3], USDT, 1_000_000);
    assert_eq!(refused(&g, data(vec![r])), refusal(Refusal::TonOutOfDexA));
}

#[test]
fn slippage_out_of_range_is_refused() {
    let g = full_graph();
    let mut d = good(&g);
    d.slippage_bps = 10_001;
    assert_eq!(refused(&g, d), SwapError::SlippageOutOfRange { slippage_bps: 10_001 });
    let mut d = good(&g);
    d.slippage_bps = 10_000;
    assert!(swap(&g, &request(d)).is_ok(), "10000 bps (no limit) is allowed");
}

#[test]
fn zero_or_oversized_amounts_are_refused() {
    let g = full_graph();
    let mut d = good(&g);
    d.routes[0][0].in_amount = 0;
    assert_eq!(refused(&g, d), SwapError::StepAmountOutOfRange { route: 0, step: 0, field: "in_amount", amount: 0 });
    let mut d = good(&g);
    d.routes[1][1].out_amount = 1 << 120;
    assert_eq!(
        refused(&g, d),
        SwapError::StepAmountOutOfRange { route: 1, step: 1, field: "out_amount", amount: 1 << 120 }
    );
}

#[test]
fn wrong_router_details_are_refused() {
    let g = full_graph();
    let mismatch = |route, step, pool, field| SwapError::StepDetailsMismatch { route, step, pool, field };
    let mut d = good(&g);
    d.routes[0][1].dex_b.as_mut().unwrap().to_router_wallet = addr(0x99, 9);
    assert_eq!(refused(&g, d), mismatch(0, 1, pool_addr(4).to_hex(), "to_router_wallet"));
    let mut d = good(&g);
    d.routes[0][0].dex_b.as_mut().unwrap().from_router_wallet = addr(0x99, 9);
    assert_eq!(refused(&g, d), mismatch(0, 0, pool_addr(3).to_hex(), "from_router_wallet"));
    let mut d = good(&g);
    d.routes[0][0].dex_b.as_mut().unwrap().router = addr(V2_ROUTER_B, 0);
    assert_eq!(refused(&g, d), mismatch(0, 0, pool_addr(3).to_hex(), "router"));
    let mut d = good(&g);
    d.routes[0][1].dex_b = None;
    assert_eq!(refused(&g, d), SwapError::MissingStepDetails { route: 0, step: 1, protocol: "dex_b_v2" });
    let mut c = route(&g, &[9], USDT, 1_000_000);
    c[0].dex_c.as_mut().unwrap().zero_to_one = false;
    assert_eq!(refused(&g, data(vec![c])), mismatch(0, 0, pool_addr(9).to_hex(), "zero_to_one"));
    let mut c = route(&g, &[10], NOT, 1_000_000_000);
    c[0].dex_c.as_mut().unwrap().to_router_wallet = router_wallet(DEX_C_ROUTER, &XJ);
    assert_eq!(refused(&g, data(vec![c])), mismatch(0, 0, pool_addr(10).to_hex(), "to_router_wallet"));
}

#[test]
fn price_moved_after_a_reserve_update_is_refused() {
    let g = full_graph();
    let d = good(&g);
    let id = g.pool_id(&pool_addr(4)).unwrap();
    let [usdt, not] = g.reserves(id);
    // NOT reserve down by 0.5 %: the output drops by about that, within 1 % slippage -> still builds, and the
    // min-out is the quoted one.
    g.update_reserves(id, [usdt, not - not / 200]).unwrap();
    let resp = swap(&g, &request(d.clone())).unwrap();
    let root = BagOfCells::parse_base64(&resp.transactions[0].payload).unwrap().single_root().unwrap();
    assert_eq!(decode(&root).unwrap().hops[1].min_out, expected_min_out(d.routes[0][1].out_amount, 100));
    // Down by 5 %: below the min-out.
    g.update_reserves(id, [usdt, not - not / 20]).unwrap();
    match refused(&g, d.clone()) {
        SwapError::PriceMoved { route: 0, quoted_out, min_out, fresh_out } => {
            assert_eq!(quoted_out, d.routes[0][1].out_amount);
            assert_eq!(min_out, expected_min_out(quoted_out, 100));
            assert!(fresh_out < min_out);
        }
        other => panic!("expected PriceMoved, got {other}"),
    }
    // An emptied pool no longer executes at all.
    g.update_reserves(id, [usdt, 0]).unwrap();
    assert_eq!(refused(&g, d), SwapError::SimulationFailed { route: 0, reason: PoolError::EmptyPool });
}

/// `/v4/router/swap` simulates once: [`check_swap`] runs the one fresh simulation, and building from its
/// [`CheckedSwap`] neither checks nor simulates again. Shown by emptying a pool between the two: a new check
/// refuses the data, while the already checked swap still builds the very same messages.
#[test]
fn a_checked_swap_builds_without_a_second_check_or_simulation() {
    let g = full_graph();
    let req = request(good(&g));
    let checked = check_swap(&g, &req).unwrap();
    assert_eq!(checked.paths().len(), 2);
    let before = build_checked(&g, &checked, &GasTable::default(), &g).unwrap();
    assert_eq!(before, swap(&g, &req).unwrap(), "build_swap = check_swap + build_checked");
    let id = g.pool_id(&pool_addr(4)).unwrap();
    let [usdt, _] = g.reserves(id);
    g.update_reserves(id, [usdt, 0]).unwrap();
    assert_eq!(
        check_swap(&g, &req).unwrap_err(),
        SwapError::SimulationFailed { route: 0, reason: PoolError::EmptyPool }
    );
    assert_eq!(build_checked(&g, &checked, &GasTable::default(), &g).unwrap(), before);
}

#[test]
fn routes_sharing_a_pool_are_simulated_jointly() {
    let g = full_graph();
    // Two routes through pool 3 quoted independently: the second sees the first's reserves on chain, so with
    // zero slippage its quoted output is no longer reachable.
    let mut d = data(vec![
        route(&g, &[3], Asset::Native, 100_000_000_000_000),
        route(&g, &[3], Asset::Native, 100_000_000_000_000),
    ]);
    d.slippage_bps = 0;
    assert!(matches!(refused(&g, d), SwapError::PriceMoved { route: 1, .. }));
}

#[test]
fn bad_sender_is_refused() {
    assert!(matches!(parse_address("sender_address", "EQ-not-an-address"), Err(SwapError::BadAddress { .. })));
    let g = full_graph();
    for (sender, reason) in [
        (TonAddress::NULL, "the zero address owns no wallet"),
        (TonAddress::new(7, [1; 32].into()), "workchain must be 0 or -1"),
    ] {
        let req = SwapRequest { sender: sender.clone(), ..request(good(&g)) };
        assert_eq!(swap(&g, &req), Err(SwapError::BadSender { sender: sender.to_hex(), reason }));
    }
    // A masterchain wallet: every swap has a jetton at one end, and jetton wallets serve workchain 0 owners only
    // (TEP-74 `force_chain`, stablecoin `check_same_workchain`: exit code 333), a TON offer included (its
    // output is a jetton sent to the sender).
    let master = TonAddress::new(-1, [1; 32].into());
    let req = SwapRequest { sender: master.clone(), ..request(good(&g)) };
    assert_eq!(
        swap(&g, &req),
        Err(SwapError::BadSender { sender: master.to_hex(), reason: tonroute::swap::build::MASTERCHAIN_SENDER })
    );
}

#[test]
fn unknown_jetton_wallet_is_refused() {
    let g = full_graph();
    let d = data(vec![route(&g, &[4], USDT, 1_000_000_000)]);
    let stranger = addr(0x57, 1);
    let req = SwapRequest { sender: stranger.clone(), ..request(d.clone()) };
    assert_eq!(
        swap(&g, &req),
        Err(SwapError::UnknownJettonWallet { owner: stranger.to_hex(), jetton: USDT.to_string() })
    );
    // Another resolver that knows it.
    let known = |owner: &TonAddress, a: &Asset| {
        (*a == USDT).then(|| addr(0x58, asset_index(a) + owner.hash_part.as_slice()[0]))
    };
    let resp = build_swap(&g, &req, &GasTable::default(), &known).unwrap();
    assert_eq!(resp.transactions[0].address.parse::<TonAddress>().unwrap(), addr(0x58, 1 + 0x57));
    assert_eq!(JettonWalletResolver::wallet(&g, &user(), &USDT), Some(user_wallet(&USDT)));
}

#[test]
fn empty_or_oversized_requests_are_refused() {
    let g = full_graph();
    assert_eq!(refused(&g, data(vec![])), SwapError::EmptySwapData);
    assert_eq!(
        refused(&g, data(vec![route(&g, &[6], Asset::Native, 1_000), vec![]])),
        SwapError::EmptyRoute { route: 1 }
    );
    let many = vec![route(&g, &[6], Asset::Native, 1_000_000); 21];
    assert_eq!(refused(&g, data(many)), SwapError::TooManyRoutes { routes: 21, max: 20 });
    let long = vec![route(&g, &[6], Asset::Native, 1_000_000)[0].clone(); 6];
    assert_eq!(refused(&g, data(vec![long])), SwapError::RouteTooLong { route: 0, steps: 6, max: 5 });
}

#[test]
fn missing_context_is_refused() {
    let g = graph_with(&Protocol::ALL, false);
    let d = data(vec![route(&g, &[6], Asset::Native, 1_000_000_000)]);
    assert_eq!(refused(&g, d), SwapError::MissingProtocolContext { protocol: "dex_a", what: "native vault".into() });
    let d = data(vec![route(&g, &[7], USDT, 1_000_000)]);
    assert_eq!(
        refused(&g, d),
        SwapError::MissingProtocolContext { protocol: "dex_a", what: format!("jetton vault for {USDT}") }
    );
}

// ---- property: any quote on a random dex_b_v2 graph becomes messages that decode back ----

fn random_graph(reserves: &[(usize, usize, u128, u128)]) -> PoolGraph {
    let mut b = GraphBuilder::new();
    let ids: Vec<_> = ASSETS.iter().map(|a| b.add_asset(AssetMeta::new(*a, "T", 9)).unwrap()).collect();
    for (k, &(i, j, r0, r1)) in reserves.iter().enumerate() {
        let (i, j) = (i % 4, j % 4);
        if i == j {
            continue;
        }
        let assets = [ASSETS[i], ASSETS[j]];
        let context = PoolContext {
            router: Some(addr(V2_ROUTER, 0)),
            router_wallets: Some(assets.map(|a| router_wallet(V2_ROUTER, &a))),
        };
        let pool = addr(0x71, u8::try_from(k).unwrap());
        b.add_pool(pool, Protocol::DexBV2, [ids[i], ids[j]], cp(FeeModel::V2, 20, 10), [r0, r1], context, None)
            .unwrap();
    }
    for a in &ASSETS[1..] {
        b.add_jetton_wallet(user(), *a, user_wallet(a));
    }
    b.build()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]
    #[test]
    fn any_quote_becomes_messages(
        pools in prop::collection::vec(
            (0usize..4, 0usize..4, 1_000_000_000u128..10_000_000_000_000, 1_000_000_000u128..10_000_000_000_000),
            2..10,
        ),
        from in 0usize..4,
        to in 0usize..4,
        amount in 1u128..1_000_000_000_000,
        bps in 0u32..=10_000,
        splits in 1usize..5,
    ) {
        prop_assume!(from != to);
        let graph = random_graph(&pools);
        let req = QuoteRequest::builder(ASSETS[from], ASSETS[to], amount).slippage_bps(bps).max_splits(splits).build().unwrap();
        let Ok(q) = router().quote(&graph, &req, QuoteOptions::default()) else { return Ok(()) };
        let resp = swap(&graph, &request(q.swap_data(&graph)));
        prop_assert!(resp.is_ok(), "{:?}", resp);
        let resp = resp.unwrap();
        check_round_trip(&graph, &q, &resp);
        let offered: u128 = q.routes.iter().map(|r| r.in_amount).sum();
        prop_assert_eq!(offered, amount);
    }
}
