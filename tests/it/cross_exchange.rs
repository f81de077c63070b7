//! Routes across exchanges: every hand-off kind from `swap_data` to messages, decoded back field by field.
//!
//! Each case is a route through pools of a fixture graph (two `dex_b_v2` routers, two `dex_c` routers,
//! `dex_a`, `dex_b_v1`) with its segments written out by hand. The messages are decoded with `tonlib-core`
//! (`tonroute::swap::decode::decode_body`) and every field is compared with an expectation built here: hop
//! addresses from the graph's pool context, amounts from the pool math, min-outs as
//! `floor(out · (10000 − bps) / 10000)` with num-bigint, and the TON each segment needs recomputed here from
//! the contracts' constants (`ston-fi/dex-core-v2` `router/dex.fc` L56–64, `router/msgs/pool.fc` L45–66,
//! `common/gas.fc`; `pton-contracts` `common/gas.fc`; TONCO's SDK 0.5 per hop), not read from the builder.
//! `sdk_vectors_*` compare our layouts byte for byte with messages the exchanges' own SDKs build
//! (`tests/data/msg-oracle-cross`), and `mainnet_*` read real hand-off payloads recorded on mainnet
//! (`tests/data/ton-traces`).

use num_bigint::BigUint;
use primitive_types::U256;
use tonlib_core::cell::{BagOfCells, Cell};
use tonlib_core::TonAddress;
use tonroute::asset::Asset;
use tonroute::graph::{
    AssetMeta, GraphBuilder, HandOffKind, PoolContext, PoolGraph, Protocol, ProtocolContext, Refusal,
};
use tonroute::pool::{ConstantProduct, Curve, DexAVolatile, FeeModel, StableSwap};
use tonroute::route::{SwapData, SwapStep};
use tonroute::swap::build::{build_swap, SwapRequest};
use tonroute::swap::decode::{decode_body, Body, DexASwap, DexBV2Swap, DexCPayloads, DexCSwap, Payload};
use tonroute::swap::{dex_a, dex_b_v2, dex_c, Direction, Gas, GasTable, HandOver, Hop, SwapArgs, SwapError, Terms};

use crate::common::swap_fixture::*;

const V1: u8 = 0x11;
const V2A: u8 = 0x21;
const V2B: u8 = 0x22;
const C1: u8 = 0x31;
const C2: u8 = 0x32;

const QUERY_ID: u64 = 42;
const DEADLINE: u64 = 1_767_225_600;
const SLIPPAGE: u32 = 100;

/// A router: its address is `(tag, 0)`; its wallet of an asset is `router_wallet(tag, asset)`.
fn router(tag: u8) -> TonAddress {
    addr(tag, 0)
}

fn cp() -> Curve {
    Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0))
}

fn dex_a_curve() -> Curve {
    Curve::DexAVolatile(DexAVolatile { fee_bps: 25 })
}

/// `(tag, protocol, router tag, assets, curve, reserves)`. `dex_c` pools use a constant-product stand-in
/// curve: the message glue does not depend on the curve.
type FixturePool = (u8, Protocol, Option<u8>, [Asset; 2], Curve, [u128; 2]);

fn pools() -> Vec<FixturePool> {
    let t = 1_000_000_000_000_000u128; // 1M TON-ish units
    let u = 2_000_000_000_000u128; // 2M USD₮
    let j = 1_000_000_000_000_000_000u128;
    vec![
        (1, Protocol::DexBV2, Some(V2A), [Asset::Native, USDT], cp(), [t, u]),
        (2, Protocol::DexBV2, Some(V2A), [USDT, NOT], cp(), [u, j]),
        (3, Protocol::DexBV2, Some(V2B), [NOT, XJ], cp(), [j, j]),
        (4, Protocol::DexBV2, Some(V2B), [Asset::Native, YJ], cp(), [t, j]),
        (5, Protocol::DexBV2, Some(V2B), [USDT, XJ], Curve::StableSwap(StableSwap::new(200, 5, 1)), [u, u]),
        (6, Protocol::DexC, Some(C1), [USDT, Asset::Native], cp(), [u, t]),
        (7, Protocol::DexC, Some(C1), [XJ, USDT], cp(), [j, u]),
        (8, Protocol::DexC, Some(C2), [Asset::Native, XJ], cp(), [t, j]),
        (9, Protocol::DexA, None, [Asset::Native, USDT], dex_a_curve(), [t, u]),
        (10, Protocol::DexA, None, [USDT, NOT], dex_a_curve(), [u, j]),
        (
            11,
            Protocol::DexBV1,
            Some(V1),
            [Asset::Native, NOT],
            Curve::ConstantProduct(ConstantProduct::new(FeeModel::V1, 20, 10, 0)),
            [t, j],
        ),
    ]
}

fn graph() -> PoolGraph {
    let mut b = GraphBuilder::new();
    let ids: Vec<_> =
        ASSETS.iter().enumerate().map(|(i, a)| b.add_asset(AssetMeta::new(*a, &format!("A{i}"), 9)).unwrap()).collect();
    for (tag, protocol, router_tag, assets, curve, reserves) in pools() {
        let context = PoolContext {
            router: router_tag.map(router),
            router_wallets: router_tag.map(|r| assets.map(|a| router_wallet(r, &a))),
        };
        let asset_ids = assets.map(|a| ids[asset_index(&a) as usize]);
        b.add_pool(pool_addr(tag), protocol, asset_ids, curve, reserves, context, None).unwrap();
    }
    let mut ctx = ProtocolContext {
        dex_b_v1_router: Some(router(V1)),
        dex_b_v1_pton_wallet: Some(router_wallet(V1, &Asset::Native)),
        ..ProtocolContext::default()
    };
    add_dex_a_vaults(&mut ctx, &ASSETS[1..]);
    finish_graph(b, ctx, &ASSETS[1..])
}

fn request(routes: Vec<Vec<SwapStep>>) -> SwapRequest {
    SwapRequest {
        sender: user(),
        swap_data: SwapData { slippage_bps: SLIPPAGE, routes },
        query_id: QUERY_ID,
        deadline: DEADLINE,
        referral: None,
    }
}

fn min_out(out: u128) -> u128 {
    let v = BigUint::from(out) * BigUint::from(10_000 - SLIPPAGE) / BigUint::from(10_000u32);
    u128::try_from(v).unwrap()
}

// ---- The TON each segment needs, from the contracts' constants (nanotons) ----

const MS: u128 = 1_000_000;
/// Bound on a forwarding fee (config param 25 over our largest message; checked in
/// `every_message_forwarding_fee_is_under_the_bound`).
const FF: u128 = 5 * MS;

/// `gas::pool::swap` (dex-core-v2 `pool/pools/*/gas.fc`).
fn v2_pool_swap_gas(stable: bool) -> u128 {
    if stable {
        50 * MS
    } else {
        21 * MS
    }
}

/// TON needed at a v2 router's notification for hops with `swap_gas` each, forwarding `next` after the last.
fn v2_entry(swap_gas: &[u128], next: u128) -> u128 {
    let mut need = 0;
    for (j, &sg) in swap_gas.iter().enumerate().rev() {
        // router/dex.fc L56–64: 7 fwd fees + 0.01 + 0.021 + 0.01 + swap + 0.016 + 0.001 + 0.02 + 0.01 + 0.01 + 0.07.
        let floor = 7 * FF + 189 * MS - 21 * MS + sg;
        // Router route (0.021 + 0.01 reserve), pool (swap + 0.01 reserve), two messages, referral vault
        // (3 fwd fees + 0.031); then pay_to: cross_swap keeps fwd fee + 0.016, a transfer fwd fee + 0.026 +
        // 0.07 + 2 fwd fees before the forward.
        let cost = 21 * MS + 10 * MS + sg + 10 * MS + 2 * FF + 31 * MS + 3 * FF;
        let at_pay_to = if j + 1 == swap_gas.len() { 96 * MS + 3 * FF + next } else { 16 * MS + FF + need };
        need = floor.max(cost + at_pay_to);
    }
    need
}

/// pTON v2 taking a `ton_transfer` (pton-contracts `common/gas.fc`: 0.01 + 0.01 storage) and one message.
const PTON: u128 = 20 * MS + FF;
/// TONCO per hop: its router refunds a hop with less than ~0.11 TON of its own; 0.2 clears that (measured on its
/// code in tests/e2e; the SDK's multihop gives 0.5).
const TONCO_HOP: u128 = 200 * MS;

/// A segment of a test route: protocol, the step indices it covers, whether its pools are stable.
#[derive(Clone, Copy)]
struct Seg {
    protocol: Protocol,
    start: usize,
    end: usize,
}

/// Entry TON of each segment and the forward each hands to the next, from the last back.
fn ton_plan(steps: &[SwapStep], segs: &[Seg], stable: &[bool]) -> (Vec<u128>, Vec<u128>) {
    let n = segs.len();
    let (mut entry, mut forward) = (vec![0; n], vec![0; n]);
    let mut next = 0u128;
    for k in (0..n).rev() {
        forward[k] = next;
        let s = segs[k];
        entry[k] = match s.protocol {
            Protocol::DexBV2 => {
                let gas: Vec<u128> = (s.start..s.end).map(|i| v2_pool_swap_gas(stable[i])).collect();
                v2_entry(&gas, next)
            }
            Protocol::DexC => TONCO_HOP * (s.end - s.start) as u128 + next,
            // DeDust (closed source): 0.05 per hop, 0.08 for a payout with a fulfill payload.
            Protocol::DexA => 50 * MS * (s.end - s.start) as u128 + if k + 1 < n { 80 * MS + next } else { 0 },
            Protocol::DexBV1 => 0,
        };
        if k > 0 {
            let ton = steps[s.start].in_asset == Asset::Native;
            next = entry[k] + if ton { PTON } else { 0 };
        }
    }
    (entry, forward)
}

/// The contract a segment starting with `s` is entered by, after a hand-off.
fn entry_contract(s: &SwapStep) -> TonAddress {
    let ton = s.in_asset == Asset::Native;
    match (s.protocol, ton) {
        (Protocol::DexBV2, false) => s.dex_b.as_ref().unwrap().router.clone(),
        (Protocol::DexBV2, true) => s.dex_b.as_ref().unwrap().from_router_wallet.clone(),
        (Protocol::DexC, true) => s.dex_c.as_ref().unwrap().from_router_wallet.clone(),
        (Protocol::DexC, false) => {
            let router_tag = s.dex_c.as_ref().unwrap().to_router_wallet.hash_part.as_slice()[0];
            router(router_tag)
        }
        _ => panic!("nothing enters {} by a hand-off", s.protocol),
    }
}

/// What the payload of segments `k..` must be.
fn check_payload(p: &Payload, steps: &[SwapStep], segs: &[Seg], k: usize, forward: &[u128], last_min: u128) {
    let s = segs[k];
    let next = (k + 1 < segs.len()).then(|| (entry_contract(&steps[segs[k + 1].start]), forward[k]));
    let hop_min = |i: usize| if i + 1 == steps.len() { last_min } else { 0 };
    match s.protocol {
        Protocol::DexBV2 => {
            let mut cur = p;
            for i in s.start..s.end {
                let Payload::DexBV2(v) = cur else {
                    panic!("segment {k} hop {i}: expected a dex_b_v2 swap, got {cur:?}")
                };
                let last = i + 1 == s.end;
                let DexBV2Swap {
                    cross,
                    token_wallet1,
                    refund_address,
                    excesses_address,
                    tx_deadline,
                    min_out,
                    receiver,
                    fwd_gas,
                    custom_payload,
                    refund_fwd_gas,
                    refund_payload,
                    ref_fee,
                    ref_address,
                } = v.as_ref();
                assert_eq!(*cross, i > s.start, "hop {i}: swap on entering a router, cross_swap within it");
                assert_eq!(token_wallet1.as_ref(), Some(&steps[i].dex_b.as_ref().unwrap().to_router_wallet), "hop {i}");
                assert_eq!(refund_address.as_ref(), Some(&user()), "hop {i}: refunds go to the user");
                assert_eq!(excesses_address.as_ref(), Some(&user()), "hop {i}");
                assert_eq!(*tx_deadline, DEADLINE);
                assert_eq!(*min_out, hop_min(i), "hop {i}");
                assert_eq!(
                    (*refund_fwd_gas, refund_payload.is_none(), *ref_fee, ref_address.is_none()),
                    (0, true, 10, true)
                );
                match (last, &next) {
                    (true, Some((target, fwd))) => {
                        assert_eq!(receiver.as_ref(), Some(target), "hop {i}: receiver = next exchange's entry");
                        assert_eq!(*fwd_gas, *fwd, "hop {i}: forward = next segment's need");
                        check_payload(
                            custom_payload.as_ref().expect("hand-off payload"),
                            steps,
                            segs,
                            k + 1,
                            forward,
                            last_min,
                        );
                        return;
                    }
                    (true, None) => {
                        assert_eq!(receiver.as_ref(), Some(&user()));
                        assert_eq!(*fwd_gas, 0);
                        assert!(custom_payload.is_none());
                        return;
                    }
                    (false, _) => {
                        assert_eq!(receiver.as_ref(), Some(&user()));
                        assert_eq!(*fwd_gas, 0, "cross_swap ignores fwd_gas");
                        cur = custom_payload.as_ref().expect("next hop");
                    }
                }
            }
        }
        Protocol::DexC => {
            assert_eq!(s.end - s.start, 1, "one TONCO hop per segment");
            let i = s.start;
            let Payload::DexC(c) = p else { panic!("segment {k}: expected POOLV3_SWAP, got {p:?}") };
            let d = steps[i].dex_c.as_ref().unwrap();
            let DexCSwap { target_jetton_wallet, price_limit_sqrt, min_out, recipient, payloads, tail_bits } =
                c.as_ref();
            assert_eq!(target_jetton_wallet.as_ref(), Some(&d.to_router_wallet));
            assert_eq!(*price_limit_sqrt, dex_c::no_price_limit(d.zero_to_one));
            assert_eq!(*min_out, hop_min(i));
            assert_eq!(recipient.as_ref(), Some(&user()), "a failed TONCO swap refunds the recipient: the user");
            assert_eq!(*tail_bits, 0);
            match (&next, payloads) {
                (
                    Some((target, fwd)),
                    Some(DexCPayloads {
                        target_address,
                        ok_forward_amount,
                        ok_forward_payload,
                        ret_forward_amount,
                        ret_forward_payload,
                    }),
                ) => {
                    assert_eq!(target_address.as_ref(), Some(target));
                    assert_eq!(ok_forward_amount, fwd);
                    assert_eq!(*ret_forward_amount, Some(0));
                    assert_eq!(*ret_forward_payload, Some(Payload::Empty));
                    check_payload(ok_forward_payload, steps, segs, k + 1, forward, last_min);
                }
                (None, None) => {}
                (n, p) => panic!("segment {k}: next {n:?} but payloads {p:?}"),
            }
        }
        Protocol::DexA => {
            let Payload::DexA(a) = p else { panic!("segment {k}: expected a dex_a swap, got {p:?}") };
            check_dex_a(a, steps, segs, k, forward, last_min);
        }
        Protocol::DexBV1 => panic!("dex_b_v1 never takes a hand-off"),
    }
}

fn check_dex_a(a: &DexASwap, steps: &[SwapStep], segs: &[Seg], k: usize, forward: &[u128], last_min: u128) {
    let s = segs[k];
    let want: Vec<Hop> = (s.start..s.end)
        .map(|i| Hop {
            address: steps[i].pool_address.clone(),
            min_out: if i + 1 == steps.len() { last_min } else { 0 },
        })
        .collect();
    assert_eq!(a.steps, want);
    assert_eq!(u64::from(a.deadline), DEADLINE);
    assert!(a.referral.is_none() && a.reject_payload.is_none());
    match segs.get(k + 1) {
        Some(n) => {
            assert_eq!(a.recipient.as_ref(), Some(&entry_contract(&steps[n.start])), "DeDust pays the next exchange");
            check_payload(a.fulfill_payload.as_ref().expect("fulfill payload"), steps, segs, k + 1, forward, last_min);
        }
        None => assert!(a.recipient.is_none() && a.fulfill_payload.is_none()),
    }
}

/// Builds the route's message and checks every field of it.
fn check_case(g: &PoolGraph, from: Asset, amount: u128, tags: &[u8], segs: &[(Protocol, usize, usize)]) {
    let steps = route(g, tags, from, amount);
    let segs: Vec<Seg> = segs.iter().map(|&(protocol, start, end)| Seg { protocol, start, end }).collect();
    let stable: Vec<bool> = steps.iter().map(|s| s.is_stable).collect();
    let (entry, forward) = ton_plan(&steps, &segs, &stable);
    let last_min = min_out(steps.last().unwrap().out_amount);
    let resp = build_swap(g, &request(vec![steps.clone()]), &GasTable::default(), g)
        .unwrap_or_else(|e| panic!("{tags:?}: {e}"));
    assert_eq!(resp.query_id, QUERY_ID);
    let tx = &resp.transactions[0];
    let root = BagOfCells::parse_base64(&tx.payload).unwrap().single_root().unwrap();
    let first = segs[0];
    let s0 = &steps[0];
    let table = GasTable::default();
    let seg_dir = {
        let (i, o) = (steps[first.start].in_asset, steps[first.end - 1].out_asset);
        if i == Asset::Native {
            Direction::NativeToJetton
        } else if o == Asset::Native {
            Direction::JettonToNative
        } else {
            Direction::JettonToJetton
        }
    };
    let t = table.of(first.protocol).get(seg_dir, first.end - first.start).unwrap();
    match decode_body(&root).unwrap() {
        Body::JettonTransfer {
            query_id,
            amount: a,
            destination,
            response_destination,
            custom_payload,
            forward_ton_amount,
            forward_payload,
            forward_payload_in_ref,
        } => {
            assert_ne!(from, Asset::Native);
            assert_eq!(tx.address, user_wallet(&from).to_base64_url());
            // A TONCO segment that hands over forwards the plan exactly (its payout's change stays at the next
            // contract); any other at least the SDK's figure.
            let tonco_hands_over = first.protocol == Protocol::DexC && segs.len() > 1;
            let first_forward = if tonco_hands_over { entry[0] } else { t.forward.max(entry[0]) };
            assert_eq!(forward_ton_amount, first_forward, "{tags:?}: the first forward carries the whole chain's TON");
            assert_eq!(tx.amount, first_forward + (t.attached - t.forward));
            assert_eq!((query_id, a, custom_payload, forward_payload_in_ref), (QUERY_ID, amount, false, true));
            assert_eq!(response_destination.as_ref(), Some(&user()));
            let want_dest = match first.protocol {
                Protocol::DexBV2 => s0.dex_b.as_ref().unwrap().router.clone(),
                Protocol::DexC => entry_contract(&SwapStep { in_asset: USDT, ..s0.clone() }),
                Protocol::DexA => jetton_vault(&from),
                Protocol::DexBV1 => router(V1),
            };
            assert_eq!(destination.as_ref(), Some(&want_dest));
            check_payload(&forward_payload, &steps, &segs, 0, &forward, last_min);
        }
        Body::TonTransfer { query_id, ton_amount, refund_address, forward_payload, forward_payload_in_ref } => {
            assert_eq!(from, Asset::Native);
            // TONCO's pTON takes the same `ton_transfer` as STON.fi's pTON v2 and is given as much.
            let plan = entry[0] + PTON;
            let tonco_hands_over = first.protocol == Protocol::DexC && segs.len() > 1;
            assert_eq!(tx.amount, amount + if tonco_hands_over { plan } else { t.attached.max(plan) });
            let pton = match first.protocol {
                Protocol::DexBV2 => s0.dex_b.as_ref().unwrap().from_router_wallet.clone(),
                _ => s0.dex_c.as_ref().unwrap().from_router_wallet.clone(),
            };
            assert_eq!(tx.address, pton.to_base64_url());
            assert_eq!((query_id, ton_amount, forward_payload_in_ref), (QUERY_ID, amount, true));
            assert_eq!(refund_address.as_ref(), Some(&user()));
            check_payload(&forward_payload, &steps, &segs, 0, &forward, last_min);
        }
        Body::DexANative { query_id, amount: a, swap } => {
            assert_eq!(tx.address, native_vault().to_base64_url());
            assert_eq!(tx.amount, amount + t.attached.max(entry[0]));
            assert_eq!((query_id, a), (QUERY_ID, amount));
            check_dex_a(&swap, &steps, &segs, 0, &forward, last_min);
        }
    }
}

use Protocol::{DexA, DexBV2, DexC};

const TON_IN: u128 = 10_000_000_000;
const USDT_IN: u128 = 25_000_000;
const J_IN: u128 = 5_000_000_000_000;

/// One message case: the test that runs it, the input, the pools (fixture tags) and the segments written out
/// by hand as `(protocol, first step, one past the last step)`.
type Case = (&'static str, Asset, u128, &'static [u8], &'static [(Protocol, usize, usize)]);

/// Every message case; each named test below runs its own. `every_hand_off_kind_has_a_message_case` checks
/// that together they cover every kind of hand-off.
const CASES: &[Case] = &[
    ("dex_b_v2_to_another_router_jetton", USDT, USDT_IN, &[2, 3], &[(DexBV2, 0, 1), (DexBV2, 1, 2)]),
    // Same router first (cross_swap), then the other router; and into a stable pool (higher floor).
    ("dex_b_v2_to_another_router_jetton", Asset::Native, TON_IN, &[1, 2, 3], &[(DexBV2, 0, 2), (DexBV2, 2, 3)]),
    ("dex_b_v2_to_another_router_jetton", NOT, J_IN, &[2, 5], &[(DexBV2, 0, 1), (DexBV2, 1, 2)]),
    ("dex_b_v2_to_another_router_ton", USDT, USDT_IN, &[1, 4], &[(DexBV2, 0, 1), (DexBV2, 1, 2)]),
    ("dex_b_v2_to_dex_c", NOT, J_IN, &[2, 6], &[(DexBV2, 0, 1), (DexC, 1, 2)]),
    ("dex_b_v2_to_dex_c", USDT, USDT_IN, &[1, 8], &[(DexBV2, 0, 1), (DexC, 1, 2)]),
    // TON between two TONCO routers, and a jetton between them.
    ("dex_c_to_dex_c", USDT, USDT_IN, &[6, 8], &[(DexC, 0, 1), (DexC, 1, 2)]),
    ("dex_c_to_dex_c", Asset::Native, TON_IN, &[8, 7], &[(DexC, 0, 1), (DexC, 1, 2)]),
    // TONCO hands over the token1 it buys (TON → XJ on pool 8); buying token0 it pays the user instead.
    ("dex_c_to_dex_b_v2", Asset::Native, TON_IN, &[8, 3], &[(DexC, 0, 1), (DexBV2, 1, 2)]),
    ("dex_c_to_dex_b_v2", USDT, USDT_IN, &[6, 4], &[(DexC, 0, 1), (DexBV2, 1, 2)]),
    ("dex_a_to_dex_b_v2_and_dex_c", Asset::Native, TON_IN, &[9, 2], &[(DexA, 0, 1), (DexBV2, 1, 2)]),
    ("dex_a_to_dex_b_v2_and_dex_c", Asset::Native, TON_IN, &[9, 7], &[(DexA, 0, 1), (DexC, 1, 2)]),
    // DeDust's own two hops, then v2 router B; jetton in.
    ("dex_a_to_dex_b_v2_and_dex_c", Asset::Native, TON_IN, &[9, 10, 3], &[(DexA, 0, 2), (DexBV2, 2, 3)]),
    ("dex_a_to_dex_b_v2_and_dex_c", NOT, J_IN, &[10, 6], &[(DexA, 0, 1), (DexC, 1, 2)]),
    (
        "three_exchanges_in_one_message",
        Asset::Native,
        TON_IN,
        &[9, 2, 3],
        &[(DexA, 0, 1), (DexBV2, 1, 2), (DexBV2, 2, 3)],
    ),
    ("three_exchanges_in_one_message", NOT, J_IN, &[2, 6, 4], &[(DexBV2, 0, 1), (DexC, 1, 2), (DexBV2, 2, 3)]),
    (
        "three_exchanges_in_one_message",
        Asset::Native,
        TON_IN,
        &[8, 7, 2],
        &[(DexC, 0, 1), (DexC, 1, 2), (DexBV2, 2, 3)],
    ),
];

/// Runs the cases of test `name` (at least one).
fn run_cases(name: &str) {
    let g = graph();
    let mut ran = 0;
    for (_, from, amount, tags, segs) in CASES.iter().filter(|c| c.0 == name) {
        check_case(&g, *from, *amount, tags, segs);
        ran += 1;
    }
    assert!(ran > 0, "no case for {name}");
}

#[test]
fn dex_b_v2_to_another_router_jetton() {
    run_cases("dex_b_v2_to_another_router_jetton");
}

#[test]
fn dex_b_v2_to_another_router_ton() {
    run_cases("dex_b_v2_to_another_router_ton");
}

#[test]
fn dex_b_v2_to_dex_c() {
    run_cases("dex_b_v2_to_dex_c");
}

#[test]
fn dex_c_to_dex_c() {
    run_cases("dex_c_to_dex_c");
}

#[test]
fn dex_c_to_dex_b_v2() {
    run_cases("dex_c_to_dex_b_v2");
}

#[test]
fn dex_a_to_dex_b_v2_and_dex_c() {
    run_cases("dex_a_to_dex_b_v2_and_dex_c");
}

#[test]
fn three_exchanges_in_one_message() {
    run_cases("three_exchanges_in_one_message");
}

#[test]
fn every_hand_off_kind_has_a_message_case() {
    // The kinds the cases' consecutive pools make, by the library's rule, must be every kind there is; and
    // each case's segments (written by hand) start exactly where a hand-off is not internal.
    let g = graph();
    let mut seen = std::collections::BTreeSet::new();
    for (name, from, amount, tags, segs) in CASES {
        let steps = route(&g, tags, *from, *amount);
        let mut starts = vec![0];
        for (i, w) in steps.windows(2).enumerate() {
            let (prev, next) = (g.pool_id(&w[0].pool_address).unwrap(), g.pool_id(&w[1].pool_address).unwrap());
            let kind = g
                .handoff_kind(prev, next, g.asset_id(&w[0].out_asset).unwrap())
                .unwrap_or_else(|r| panic!("{name} {tags:?}: {r}"));
            if !kind.is_internal() {
                starts.push(i + 1);
            }
            seen.insert(kind);
        }
        assert_eq!(starts, segs.iter().map(|s| s.1).collect::<Vec<_>>(), "{name} {tags:?}");
    }
    let missing: Vec<_> = HandOffKind::ALL.iter().filter(|k| !seen.contains(k)).map(|k| k.describe()).collect();
    assert!(missing.is_empty(), "no message case for: {missing:?}");
}

#[test]
fn single_exchange_routes_keep_the_sdk_gas() {
    // A constant-product v2 route and a dex_c single hop carry the SDK's figures unchanged; a stable pool's
    // router floor (0.05 pool gas) raises the forward above the SDK's 0.24.
    let g = graph();
    for (from, tags, forward) in [(USDT, vec![2u8], 240 * MS), (USDT, vec![6], 500 * MS)] {
        let steps = route(&g, &tags, from, USDT_IN);
        let resp = build_swap(&g, &request(vec![steps]), &GasTable::default(), &g).unwrap();
        let root = BagOfCells::parse_base64(&resp.transactions[0].payload).unwrap().single_root().unwrap();
        let Body::JettonTransfer { forward_ton_amount, .. } = decode_body(&root).unwrap() else { panic!() };
        assert_eq!(forward_ton_amount, forward, "{tags:?}");
    }
    check_case(&g, USDT, USDT_IN, &[5], &[(DexBV2, 0, 1)]);
}

#[test]
fn unsafe_hand_offs_are_never_built() {
    let g = graph();
    let refused = |tags: &[u8], from: Asset, amount: u128| {
        build_swap(&g, &request(vec![route(&g, tags, from, amount)]), &GasTable::default(), &g).unwrap_err()
    };
    let at = |reason| SwapError::HandOffRefused { route: 0, step: 1, reason };
    // Into dex_a after v2 (USD₮ → NOT on dex_a), into v1 after v2, after v1, TON out of dex_a.
    assert_eq!(refused(&[1, 10], Asset::Native, TON_IN), at(Refusal::IntoDexA));
    assert_eq!(refused(&[1, 11], USDT, USDT_IN), at(Refusal::IntoDexBV1));
    assert_eq!(refused(&[11, 2], Asset::Native, TON_IN), at(Refusal::AfterDexBV1));
    assert_eq!(refused(&[9, 4], USDT, USDT_IN), at(Refusal::TonOutOfDexA));
    assert_eq!(refused(&[9, 8], USDT, USDT_IN), at(Refusal::TonOutOfDexA));
    // TON into dex_a from TONCO.
    assert_eq!(refused(&[6, 9], USDT, USDT_IN), at(Refusal::IntoDexA));
    // A TONCO hop that buys its pool's token0 (TON → USD₮ on pool 6) pays the recipient, not the next
    // exchange: found executing on TONCO's pool code (tests/e2e.rs).
    assert_eq!(refused(&[6, 2], Asset::Native, TON_IN), at(Refusal::DexCToken0Out));
    assert_eq!(refused(&[7, 8], USDT, USDT_IN), at(Refusal::DexCToken0Out));
}

/// `lump + ceil((bit_price·bits + cell_price·cells) / 2^16)` with basechain config param 25 (lump 400,000,
/// bit 26,214,400, cell 2,621,440,000 per 2^16), over every cell of the body plus a 1,023-bit header cell.
fn forwarding_fee_bound(body: &Cell) -> u128 {
    fn walk(c: &Cell, bits: &mut u128, cells: &mut u128) {
        *bits += c.bit_len() as u128;
        *cells += 1;
        for r in c.references() {
            walk(r, bits, cells);
        }
    }
    let (mut bits, mut cells) = (1023u128, 1u128);
    walk(body, &mut bits, &mut cells);
    400_000 + (26_214_400 * bits + 2_621_440_000 * cells).div_ceil(1 << 16)
}

#[test]
fn every_message_forwarding_fee_is_under_the_bound() {
    // The largest bodies we build: three segments and three v2 hops in one.
    let g = graph();
    let cases: [(Asset, u128, &[u8]); 4] = [
        (Asset::Native, TON_IN, &[9, 2, 3]),
        (NOT, J_IN, &[2, 6, 4]),
        (Asset::Native, TON_IN, &[8, 7, 2]),
        (Asset::Native, TON_IN, &[1, 2, 3]),
    ];
    for (from, amount, tags) in cases {
        let resp = build_swap(&g, &request(vec![route(&g, tags, from, amount)]), &GasTable::default(), &g).unwrap();
        let root = BagOfCells::parse_base64(&resp.transactions[0].payload).unwrap().single_root().unwrap();
        let fee = forwarding_fee_bound(&root);
        assert!(fee <= FF, "{tags:?}: forwarding fee bound {fee} above {FF}");
    }
}

// ---- Byte for byte against the exchanges' SDKs (tests/data/msg-oracle-cross) ----

fn oracle() -> serde_json::Value {
    serde_json::from_str(include_str!("../data/msg-oracle-cross/outputs.json")).unwrap()
}

fn friendly(v: &serde_json::Value, name: &str) -> TonAddress {
    v["addresses"][name].as_str().unwrap().parse().unwrap()
}

fn cell_b64(s: &str) -> Cell {
    BagOfCells::parse_base64(s).unwrap().single_root().unwrap().as_ref().clone()
}

fn vector<'a>(v: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    v["results"].as_array().unwrap().iter().find(|r| r["id"] == id).unwrap()
}

fn same(msg: &tonroute::swap::Message, want: &serde_json::Value) {
    assert_eq!(msg.to.to_hex(), want["to"].as_str().unwrap(), "{}", want["id"]);
    assert_eq!(msg.value.to_string(), want["value"].as_str().unwrap(), "{}", want["id"]);
    assert_eq!(msg.body_hash_hex(), want["payload_hash"].as_str().unwrap(), "{}", want["id"]);
}

const Q: u64 = 1_700_000_000_123;
const DL: u64 = 1_767_225_600;

fn v2_args(
    v: &serde_json::Value,
    direction: Direction,
    router: &str,
    offer_wallet: TonAddress,
    offer: u128,
    ask: &str,
    min: u128,
) -> SwapArgs {
    SwapArgs {
        direction,
        entry: friendly(v, router),
        sender: friendly(v, "USER"),
        receiver: None,
        offer_amount: offer,
        offer_wallet: Some(offer_wallet),
        hops: vec![Hop { address: friendly(v, ask), min_out: min }],
        deadline: DL,
        referral: None,
        query_id: Q,
        then: None,
        terms: Terms::dex_b_v2(),
    }
}

#[test]
fn sdk_vectors_dex_b_v2_hand_offs() {
    let v = oracle();
    let inner_j = dex_b_v2::swap_body(&v2_args(
        &v,
        Direction::JettonToJetton,
        "ROUTER_B",
        TonAddress::NULL,
        1,
        "B_W_XJ",
        123_456_789,
    ))
    .unwrap();
    let inner_t = dex_b_v2::swap_body(&v2_args(
        &v,
        Direction::NativeToJetton,
        "ROUTER_B",
        TonAddress::NULL,
        1,
        "B_W_YJ",
        987_654_321,
    ))
    .unwrap();
    let w = vector(&v, "cross-v2-v2-jetton");
    assert_eq!(Cell::cell_hash(&inner_j), Cell::cell_hash(&cell_b64(w["inputs"]["inner"].as_str().unwrap())));
    let mut a =
        v2_args(&v, Direction::JettonToJetton, "ROUTER_A", friendly(&v, "USER_W_USDT"), 25_000_000, "A_W_NOT", 0);
    a.then = Some(HandOver { target: friendly(&v, "ROUTER_B"), forward_ton: 264 * MS, payload: inner_j });
    same(&dex_b_v2::build_with(&a, Gas::new(590 * MS, 530 * MS)).unwrap(), w);

    let w = vector(&v, "cross-v2-v2-ton");
    let mut a =
        v2_args(&v, Direction::JettonToNative, "ROUTER_A", friendly(&v, "USER_W_USDT"), 25_000_000, "A_PTON", 0);
    a.then = Some(HandOver { target: friendly(&v, "B_PTON"), forward_ton: 289 * MS, payload: inner_t });
    same(&dex_b_v2::build_with(&a, Gas::new(615 * MS, 555 * MS)).unwrap(), w);

    // Into TONCO: its own single-hop request, from its SDK's message.
    let tonco_req = |ask: &str, min: u128, zero_to_one: bool| {
        dex_c::swap_request(&friendly(&v, ask), dex_c::no_price_limit(zero_to_one), min, &friendly(&v, "USER"), None)
            .unwrap()
    };
    let w = vector(&v, "cross-v2-tonco-jetton");
    let inner = tonco_req("TONCO_W_NOT", 555, true);
    assert_eq!(Cell::cell_hash(&inner), Cell::cell_hash(&cell_b64(w["inputs"]["inner"].as_str().unwrap())));
    let mut a =
        v2_args(&v, Direction::NativeToJetton, "ROUTER_A", friendly(&v, "A_PTON"), 3_000_000_000, "A_W_USDT", 0);
    a.then = Some(HandOver { target: friendly(&v, "TONCO_ROUTER"), forward_ton: 500 * MS, payload: inner });
    // The SDK attaches forward + 0.01 for the pTON wallet on top of the offer.
    same(&dex_b_v2::build_with(&a, Gas::new(739 * MS, 0)).unwrap(), w);

    let w = vector(&v, "cross-v2-tonco-ton");
    let inner = tonco_req("TONCO_W_NOT", 777, false);
    assert_eq!(Cell::cell_hash(&inner), Cell::cell_hash(&cell_b64(w["inputs"]["inner"].as_str().unwrap())));
    let mut a =
        v2_args(&v, Direction::JettonToNative, "ROUTER_A", friendly(&v, "USER_W_USDT"), 25_000_000, "A_PTON", 0);
    a.then = Some(HandOver { target: friendly(&v, "TONCO_PTON"), forward_ton: 525 * MS, payload: inner });
    same(&dex_b_v2::build_with(&a, Gas::new(851 * MS, 791 * MS)).unwrap(), w);
}

#[test]
fn sdk_vectors_dex_a_hand_offs() {
    let v = oracle();
    let w = vector(&v, "cross-dedust-v2-native");
    let inner =
        dex_b_v2::swap_body(&v2_args(&v, Direction::JettonToJetton, "ROUTER_A", TonAddress::NULL, 1, "A_W_NOT", 4242))
            .unwrap();
    assert_eq!(Cell::cell_hash(&inner), Cell::cell_hash(&cell_b64(w["inputs"]["inner"].as_str().unwrap())));
    let args = SwapArgs {
        direction: Direction::NativeToJetton,
        entry: friendly(&v, "DD_VAULT_TON"),
        sender: friendly(&v, "USER"),
        receiver: None,
        offer_amount: 2_000_000_000,
        offer_wallet: None,
        hops: vec![Hop { address: friendly(&v, "DD_POOL_TON_USDT"), min_out: 0 }],
        deadline: DL,
        referral: None,
        query_id: Q,
        then: Some(HandOver { target: friendly(&v, "ROUTER_A"), forward_ton: 0, payload: inner }),
        terms: Terms::DexA,
    };
    same(&dex_a::build_with(&args, Gas::new(409 * MS, 0)).unwrap(), w);

    let w = vector(&v, "cross-dedust-tonco-jetton");
    let inner = dex_c::swap_request(
        &friendly(&v, "TONCO_PTON"),
        dex_c::no_price_limit(true),
        31_337,
        &friendly(&v, "USER"),
        None,
    )
    .unwrap();
    assert_eq!(Cell::cell_hash(&inner), Cell::cell_hash(&cell_b64(w["inputs"]["inner"].as_str().unwrap())));
    let args = SwapArgs {
        direction: Direction::JettonToJetton,
        entry: friendly(&v, "DD_VAULT_NOT"),
        sender: friendly(&v, "USER"),
        receiver: None,
        offer_amount: 5_000_000_000,
        offer_wallet: Some(friendly(&v, "USER_W_NOT")),
        hops: vec![Hop { address: friendly(&v, "DD_POOL_NOT_USDT"), min_out: 0 }],
        deadline: DL,
        referral: None,
        query_id: Q,
        then: Some(HandOver { target: friendly(&v, "TONCO_ROUTER"), forward_ton: 0, payload: inner }),
        terms: Terms::DexA,
    };
    same(&dex_a::build_with(&args, Gas::new(680 * MS, 630 * MS)).unwrap(), w);
}

#[test]
fn price_limit_is_uint160() {
    // The decoder reads the limit back as the builder wrote it.
    let limit = (U256::one() << 160) - 1;
    let c = dex_c::swap_request(&user(), limit, 1, &user(), None).unwrap();
    let Payload::DexC(d) = tonroute::swap::decode::decode_body(&{
        let t = tonroute::swap::jetton::JettonTransfer {
            query_id: 0,
            amount: 1,
            destination: user(),
            response_destination: None,
            custom_payload: None,
            forward_ton_amount: 0,
            forward_payload: Some(c),
        };
        t.body().unwrap()
    })
    .map(|b| match b {
        Body::JettonTransfer { forward_payload, .. } => forward_payload,
        _ => unreachable!(),
    })
    .unwrap() else {
        panic!()
    };
    assert_eq!(d.price_limit_sqrt, limit);
}

// ---- Real hand-offs recorded on mainnet (tests/data/ton-traces/handoffs.json) ----

struct Msg {
    from: TonAddress,
    to: TonAddress,
    owner_of_to: Option<TonAddress>,
    op: u32,
    value: u128,
    exit_code: Option<i64>,
    body: Option<Cell>,
}

fn trace(id: &str) -> Vec<Msg> {
    let v: serde_json::Value = serde_json::from_str(include_str!("../data/ton-traces/handoffs.json")).unwrap();
    let t = v["traces"].as_array().unwrap().iter().find(|t| t["id"] == id).unwrap();
    let a = |x: &serde_json::Value| x.as_str().unwrap().parse::<TonAddress>().unwrap();
    t["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| Msg {
            from: a(&m["from"]),
            to: a(&m["to"]),
            owner_of_to: m["to_jetton_wallet_of"].get("owner").map(a),
            op: u32::from_str_radix(m["op"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap(),
            value: m["value"].as_str().unwrap().parse().unwrap(),
            exit_code: m["exit_code"].as_i64(),
            body: m["body"].as_str().map(cell_b64),
        })
        .collect()
}

const OP_TRANSFER: u32 = 0x0f8a_7ea5;
const OP_NOTIFICATION: u32 = 0x7362_d09c;
const OP_TON_TRANSFER: u32 = 0x01f3_835d;

fn v2(p: &Payload) -> &DexBV2Swap {
    match p {
        Payload::DexBV2(s) => s,
        other => panic!("expected a dex_b_v2 swap, got {other:?}"),
    }
}

#[test]
fn mainnet_dex_b_v2_to_another_router_via_pton() {
    // Router A's output (TON) went to router B's pTON wallet as a pTON-to-pTON ton_transfer; router B ran the
    // nested `swap` (not `cross_swap`). The payload shape is the one we build for this hand-off.
    let t = trace("TAi-sZDDdv1zFm6RQMu0UmQdYq9_MuNvFBSfSWiqgL4=");
    let Body::JettonTransfer { forward_payload, forward_ton_amount, .. } =
        decode_body(t[0].body.as_ref().unwrap()).unwrap()
    else {
        panic!()
    };
    let hop1 = v2(&forward_payload);
    assert!(!hop1.cross);
    let receiver = hop1.receiver.clone().unwrap();
    assert!(hop1.fwd_gas > 0 && forward_ton_amount > hop1.fwd_gas);
    let hop2 = v2(hop1.custom_payload.as_ref().unwrap());
    assert!(!hop2.cross, "another router takes `swap`");
    assert_eq!(hop2.refund_address, hop1.refund_address, "refunds go to the user on both routers");
    // The receiver is router B's pTON wallet: the wallet took the ton_transfer and notified its owner.
    let pton = t.iter().find(|m| m.op == OP_TON_TRANSFER && m.to == receiver).unwrap();
    assert_eq!(pton.exit_code, Some(0));
    let router_b = pton.owner_of_to.clone().unwrap();
    let notified = t.iter().find(|m| m.op == OP_NOTIFICATION && m.from == receiver && m.to == router_b).unwrap();
    assert_eq!(notified.exit_code, Some(0));
    assert!(t.iter().any(|m| m.from == router_b && m.op == dex_b_v2::OP_SWAP), "router B swapped");
}

#[test]
fn mainnet_dex_b_v2_to_another_router_jetton() {
    let t = trace("00BTqIs6w2qgKXyjfUIwS1WMPbYzWvOn0P16eku_O-4=");
    let Body::JettonTransfer { forward_payload, .. } = decode_body(t[0].body.as_ref().unwrap()).unwrap() else {
        panic!()
    };
    let hop1 = v2(&forward_payload);
    let router_b = hop1.receiver.clone().unwrap();
    let hop2 = v2(hop1.custom_payload.as_ref().unwrap());
    assert!(!hop2.cross && hop1.fwd_gas > 0 && hop2.fwd_gas == 0);
    // Router B got the notification with exactly fwd_gas and swapped.
    let n = t.iter().find(|m| m.op == OP_NOTIFICATION && m.to == router_b).unwrap();
    assert_eq!((n.value, n.exit_code), (hop1.fwd_gas, Some(0)));
    assert!(t.iter().any(|m| m.from == router_b && m.op == dex_b_v2::OP_SWAP));
}

#[test]
fn mainnet_tonco_payloads_hand_off_to_a_pton_wallet() {
    // TONCO's router paid the first hop's TON to `payloads.target` (its pTON wallet) with
    // `ok_forward_amount`, response = the target; the pTON wallet accepted a ton_transfer sent by a pTON
    // wallet (itself) and notified the router, which ran `ok_forward_payload`.
    let t = trace("CjtIXjqazbSFrtPqqMMFBgMG6-huwp5CfNtXpQAf8xY=");
    let Body::JettonTransfer { forward_payload, .. } = decode_body(t[0].body.as_ref().unwrap()).unwrap() else {
        panic!()
    };
    let Payload::DexC(hop1) = &forward_payload else { panic!() };
    let p = hop1.payloads.as_ref().unwrap();
    let target = p.target_address.clone().unwrap();
    assert_eq!((p.ret_forward_amount, p.ok_forward_amount), (Some(0), 500 * MS));
    let Payload::DexC(hop2) = &p.ok_forward_payload else { panic!() };
    assert!(hop2.payloads.is_none() && hop2.recipient == hop1.recipient);
    let pay = t.iter().find(|m| m.op == OP_TRANSFER && m.to == target && m.from != t[0].from).unwrap();
    let router = pay.from.clone();
    let Body::JettonTransfer { destination, response_destination, forward_ton_amount, forward_payload: fp, .. } =
        decode_body(pay.body.as_ref().unwrap()).unwrap()
    else {
        panic!()
    };
    assert_eq!((destination.as_ref(), response_destination.as_ref()), (Some(&target), Some(&target)));
    assert_eq!(forward_ton_amount, p.ok_forward_amount);
    assert_eq!(fp, p.ok_forward_payload);
    let tt = t.iter().find(|m| m.op == OP_TON_TRANSFER && m.from == target && m.to == target).unwrap();
    assert_eq!(tt.exit_code, Some(0));
    let n = t.iter().find(|m| m.op == OP_NOTIFICATION && m.from == target && m.to == router).unwrap();
    assert_eq!(n.exit_code, Some(0));
    assert!(t.iter().filter(|m| m.from == router && m.op == dex_c::OP_POOLV3_SWAP).count() == 2, "both hops ran");
}

#[test]
fn mainnet_dex_a_payout_with_fulfill_payload_forwards_what_is_left() {
    // DeDust's jetton vault paid a contract that was given a fulfill_payload: the jetton transfer carried that
    // payload with its value minus 0.0484576 TON as forward_ton_amount (what a hand-off out of DeDust gets).
    let t = trace("c8jOrHqyuJe1hMGx4fm1BTGKXgBQ5O35rbExCkhmRG8=");
    let Body::JettonTransfer { destination: vault, forward_payload, .. } =
        decode_body(t[0].body.as_ref().unwrap()).unwrap()
    else {
        panic!()
    };
    let Payload::DexA(swap) = &forward_payload else { panic!() };
    assert_eq!(swap.steps.len(), 2);
    let recipient = swap.recipient.clone().unwrap();
    let fulfill = swap.fulfill_payload.clone().unwrap();
    // The output vault's payout: pay_out_from_pool in, jetton transfer out.
    let payout = t
        .iter()
        .find(|m| m.op == OP_TRANSFER && m.owner_of_to.as_ref() == Some(&m.from) && m.from != t[0].from)
        .unwrap();
    assert_ne!(Some(&payout.from), vault.as_ref());
    let Body::JettonTransfer { destination, forward_ton_amount, forward_payload: fp, .. } =
        decode_body(payout.body.as_ref().unwrap()).unwrap()
    else {
        panic!()
    };
    assert_eq!(destination, Some(recipient.clone()));
    assert_eq!(fp, fulfill);
    assert_eq!(payout.value - forward_ton_amount, 48_457_600);
    let n = t.iter().find(|m| m.op == OP_NOTIFICATION && m.to == recipient).unwrap();
    assert_eq!(n.value, forward_ton_amount);
}

#[test]
fn mainnet_tonco_failed_swap_refunds_the_recipient() {
    let t = trace("02TsVcC_MOggAZvHHBITbHCvzAt_hCq5WVAiKcZFMno=");
    let Body::TonTransfer { forward_payload, ton_amount, .. } = decode_body(t[0].body.as_ref().unwrap()).unwrap()
    else {
        panic!()
    };
    let Payload::DexC(s) = &forward_payload else { panic!() };
    let refund = t.last().unwrap();
    assert_eq!(Some(&refund.to), s.recipient.as_ref());
    assert_eq!(refund.op, OP_TON_TRANSFER);
    let Body::TonTransfer { ton_amount: back, .. } = decode_body(refund.body.as_ref().unwrap()).unwrap() else {
        panic!()
    };
    assert_eq!(back, ton_amount, "the whole input came back");
}

// ---- Many quotes on the bundled snapshot ----

/// The rule written out on protocols, routers and the asset handed over (docs/cross-exchange.md).
fn safe_to_follow(g: &PoolGraph, prev: tonroute::graph::PoolId, next: tonroute::graph::PoolId, at: &Asset) -> bool {
    let (a, b) = (g.pool(prev), g.pool(next));
    match (a.protocol, b.protocol) {
        (Protocol::DexBV1, _) | (_, Protocol::DexBV1) => false,
        (Protocol::DexA, Protocol::DexA) => true,
        (_, Protocol::DexA) => false,
        (Protocol::DexA, _) => !at.is_native(),
        _ => true,
    }
}

/// A pool as it evolves while routes run one after the other.
enum Live {
    Plain(tonroute::pool::Pool),
    Cl(tonroute::pool::Concentrated),
}

#[test]
fn quotes_on_the_bundled_snapshot_use_safe_hand_offs_and_re_execute_exactly() {
    let g = PoolGraph::from_json(include_str!("../../data/snapshot.json")).unwrap();
    let router = tonroute::route::Router::default();
    let jettons: Vec<Asset> = g.assets().iter().map(|a| a.asset).filter(|a| !a.is_native()).collect();
    let usdt: Asset = tonroute::asset::known::USDT.parse().unwrap();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut quoted, mut cross) = (0, 0);
    for k in 0..240 {
        let a = jettons[(next() % jettons.len() as u64) as usize];
        let b = match k % 3 {
            0 => jettons[(next() % jettons.len() as u64) as usize],
            1 => usdt,
            _ => Asset::Native,
        };
        if a == b {
            continue;
        }
        let meta = g.asset(g.asset_id(&a).unwrap());
        let usd = [10.0, 1_000.0, 100_000.0][(next() % 3) as usize];
        let whole = usd / meta.usd_price.filter(|p| *p > 0.0).unwrap_or(1.0);
        let amount = ((whole * 10f64.powi(i32::from(meta.decimals))) as u128).max(1);
        let Ok(q) = router.quote(
            &g,
            &tonroute::route::QuoteRequest::new(a, b, amount).unwrap(),
            tonroute::route::QuoteOptions::default(),
        ) else {
            continue;
        };
        quoted += 1;
        let mut live: std::collections::HashMap<tonroute::graph::PoolId, Live> = std::collections::HashMap::new();
        let mut total_in = 0u128;
        let mut total_out = 0u128;
        for r in &q.routes {
            let mut x = r.in_amount;
            total_in += x;
            for (j, s) in r.steps.iter().enumerate() {
                if j > 0 {
                    let p = &r.steps[j - 1];
                    assert!(
                        safe_to_follow(&g, p.pool, s.pool, &s.in_asset),
                        "{} → {} at {}",
                        p.protocol,
                        s.protocol,
                        s.in_asset
                    );
                    if g.handoff_kind(p.pool, s.pool, g.asset_id(&s.in_asset).unwrap()).is_ok_and(|k| !k.is_internal())
                    {
                        cross += 1;
                    }
                }
                assert_eq!(s.in_amount, x, "each step takes the previous step's exact output");
                let entry = live.entry(s.pool).or_insert_with(|| match g.concentrated(s.pool) {
                    Some(c) => Live::Cl(c.as_ref().clone()),
                    None => Live::Plain(g.pool_state(s.pool)),
                });
                let out = match entry {
                    Live::Plain(p) => {
                        let res = p.swap(x, s.direction).unwrap();
                        p.apply(&res);
                        res.amount_out
                    }
                    Live::Cl(c) => {
                        let (res, after) = c.swap_exact_in(c.state(), x, s.direction).unwrap();
                        *c = c.with_state(after).unwrap();
                        res.amount_out
                    }
                };
                assert_eq!(s.out_amount, out, "the pool's own math");
                x = out;
            }
            assert_eq!(r.out_amount, x);
            total_out += x;
        }
        assert_eq!((total_in, total_out), (amount, q.out_amount));
    }
    assert!(quoted > 150, "{quoted} quotes");
    assert!(cross > 10, "only {cross} cross-exchange hand-offs in {quoted} quotes");
}

// ---- The document ----

#[test]
fn the_document_links_a_pinned_source_for_every_hand_off() {
    // docs/cross-exchange.md: every row of the "Built" and "Refused" tables links at least one source, and
    // every GitHub link pins a full commit (a branch would move under the citation).
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/cross-exchange.md")).unwrap();
    let mut section = "";
    let mut rows = 0;
    for line in doc.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            section = title;
            continue;
        }
        for link in line.split("](https://github.com/").skip(1) {
            let parts: Vec<&str> = link.split('/').collect();
            let after = parts.get(3).copied().unwrap_or_default();
            let commit: String = after.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
            let end = after[commit.len()..].chars().next();
            assert!(
                parts.get(2).is_some_and(|k| *k == "blob" || *k == "tree")
                    && commit.len() == 40
                    && matches!(end, None | Some(')')),
                "unpinned link: {}",
                link.split(')').next().unwrap_or_default()
            );
        }
        if (section == "Built" || section == "Refused") && line.starts_with("| ") && !line.starts_with("| hand-off |") {
            rows += 1;
            assert!(line.contains("](https://"), "{section}: a row without a linked source: {line}");
        }
    }
    assert!(rows >= 14, "{rows} rows in the Built and Refused tables");
}
