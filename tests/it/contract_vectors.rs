//! Every `stonfi_v1`, `stonfi_v2_cpmm`, `stonfi_v2_stable`, `stonfi_v2_wcpmm` and `stonfi_v2_wstable` case of the contract vectors, answered by the
//! pools' own compiled code (see tests/data/README.md), must come out of our pool math to the last unit.
//!
//! Set `TONROUTE_VECTORS` to run the same checks on another file of the same format.

use std::collections::BTreeMap;

use serde_json::Value;
use tonroute::pool::{
    ConstantProduct, Curve, Direction, FeeModel, Pool, PoolError, Referral, StableSwap, WeightedConstantProduct,
    WeightedStableSwap,
};

/// The pool types this file covers.
const COVERED: [&str; 5] = ["stonfi_v1", "stonfi_v2_cpmm", "stonfi_v2_stable", "stonfi_v2_wcpmm", "stonfi_v2_wstable"];

fn vectors() -> Vec<Value> {
    let path = std::env::var("TONROUTE_VECTORS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/contract_vectors.json").to_string());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    serde_json::from_str(&text).expect("vector file is a JSON array")
}

fn int(v: &Value, key: &str) -> u128 {
    v[key].as_str().unwrap_or_else(|| panic!("{key} missing")).parse().unwrap_or_else(|_| panic!("{key} not u128"))
}

fn small(v: &Value, key: &str) -> u16 {
    u16::try_from(v[key].as_u64().unwrap_or_else(|| panic!("{key} missing"))).expect("fee fits u16")
}

fn direction(case: &Value) -> Direction {
    match case["direction"].as_str() {
        Some("0to1") => Direction::ZeroToOne,
        Some("1to0") => Direction::OneToZero,
        other => panic!("bad direction {other:?}"),
    }
}

/// A `tonco` case as a pool: `(pool, amount_in, direction)`.
fn tonco_pool(case: &Value) -> (tonroute::pool::Concentrated, u128, Direction) {
    use tonroute::pool::concentrated::{ClState, Tick};
    let sqrt_price_x96 = primitive_types::U256::from_dec_str(case["sqrt_price_x96"].as_str().expect("sqrt price"))
        .expect("sqrt price is decimal");
    let small_int = |key: &str| i32::try_from(case[key].as_i64().expect(key)).expect("fits i32");
    let state = ClState { sqrt_price_x96, tick: small_int("tick"), liquidity: int(case, "liquidity") };
    let ticks = case["ticks"]
        .as_array()
        .expect("ticks")
        .iter()
        .map(|t| Tick {
            tick: i32::try_from(t["tick"].as_i64().expect("tick")).expect("fits i32"),
            liquidity_net: t["liquidity_net"].as_str().expect("net").parse().expect("net is i128"),
            liquidity_gross: int(t, "liquidity_gross"),
        })
        .collect();
    let pool = tonroute::pool::Concentrated::new(
        small(case, "lp_fee"),
        small(case, "protocol_fee"),
        small_int("tick_spacing"),
        ticks,
        state,
    )
    .expect("vector pool is valid");
    (pool, int(case, "amount_in"), direction(case))
}

/// Every `tonco` case (answers of the pool's `getSwapEstimateGas`): `amount_out` and `amount_in_used` equal
/// to the unit, including swaps that pay 0 and swaps stopped by the price limit; and the router-level swap
/// agrees or refuses exactly those two kinds.
#[test]
fn tonco_vectors_match_to_the_unit() {
    let (mut n, mut equal) = (0, 0);
    let mut failures = Vec::new();
    for v in vectors() {
        let (case, answer) = (&v["case"], &v["answer"]);
        if case["pool_type"].as_str() != Some("tonco") {
            continue;
        }
        n += 1;
        let (pool, amount, dir) = tonco_pool(case);
        let got = pool.swap_from(pool.state(), amount, dir);
        let ok = answer["ok"].as_bool().expect("answer.ok");
        let pass = match (&got, ok) {
            (Ok(r), true) => {
                r.amount_out == int(answer, "amount_out") && r.amount_in_used == int(answer, "amount_in_used")
            }
            (Err(_), false) => true,
            _ => false,
        };
        if !pass {
            failures.push(format!("id {}: expected {answer}, got {got:?}", v["id"]));
            continue;
        }
        equal += 1;
        if let Ok(r) = got {
            match Pool::new(Curve::Concentrated(pool.clone()), [0, 0]).swap(amount, dir) {
                Ok(s) => {
                    assert_eq!(s.amount_out, r.amount_out, "id {}", v["id"]);
                    assert_eq!(r.amount_in_used, amount, "id {}", v["id"]);
                }
                Err(PoolError::ZeroOutput) => assert_eq!(r.amount_out, 0, "id {}", v["id"]),
                Err(PoolError::PriceLimitReached { amount_in_used }) => {
                    assert!(amount_in_used < amount && amount_in_used == r.amount_in_used, "id {}", v["id"])
                }
                Err(e) => panic!("id {}: unexpected {e}", v["id"]),
            }
        }
    }
    println!("tonco: {equal}/{n} cases equal (amount_out and amount_in_used)");
    assert!(n > 0, "no tonco case was checked");
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// Runs one case; `None` when its pool type is not one this test covers.
fn run(case: &Value) -> Option<Result<tonroute::pool::SwapResult, PoolError>> {
    let pool_type = case["pool_type"].as_str()?;
    if !COVERED.contains(&pool_type) {
        return None;
    }
    let reserves = [int(case, "reserve0"), int(case, "reserve1")];
    let (lp, proto, reff) = (small(case, "lp_fee"), small(case, "protocol_fee"), small(case, "ref_fee"));
    let amount = int(case, "amount_in");
    let dir = direction(case);
    let result = match pool_type {
        // The v1 answers come from the get-method `get_expected_outputs`, which never applies the referral
        // and runs none of the swap's refund checks; `v1_swap_agrees_with_get_method` ties it to `swap`.
        "stonfi_v1" => ConstantProduct::new(FeeModel::V1, lp, proto, reff).expected_outputs(reserves, amount, dir).map(
            |(amount_out, protocol_fee_out)| tonroute::pool::SwapResult {
                amount_out,
                protocol_fee_out,
                ref_fee_out: 0,
                reserves_after: reserves,
            },
        ),
        // The v2 cases carry a referral address, so the message's ref fee counts.
        "stonfi_v2_cpmm" => {
            Pool::new(Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, lp, proto, 0)), reserves)
                .swap_with_referral(amount, dir, Some(Referral { fee_bps: reff }))
        }
        "stonfi_v2_stable" => {
            let amp = u32::try_from(int(case, "amp")).expect("amp is u32 in storage");
            Pool::new(Curve::StableSwap(StableSwap::new(amp, lp, proto)), reserves).swap_with_referral(
                amount,
                dir,
                Some(Referral { fee_bps: reff }),
            )
        }
        "stonfi_v2_wcpmm" => {
            let w0 = u64::try_from(int(case, "w0")).expect("w0 is u64 in storage");
            Pool::new(Curve::WeightedConstantProduct(WeightedConstantProduct::new(w0, lp, proto)), reserves)
                .swap_with_referral(amount, dir, Some(Referral { fee_bps: reff }))
        }
        "stonfi_v2_wstable" => {
            let curve = WeightedStableSwap::new(int(case, "amp"), int(case, "rate"), int(case, "w0"), lp, proto);
            Pool::new(Curve::WeightedStableSwap(curve), reserves).swap_with_referral(
                amount,
                dir,
                Some(Referral { fee_bps: reff }),
            )
        }
        _ => return None,
    };
    Some(result)
}

#[test]
fn contract_vectors_match_to_the_unit() {
    let mut checked: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    for v in vectors() {
        let (case, answer) = (&v["case"], &v["answer"]);
        let Some(got) = run(case) else { continue };
        let pool_type = case["pool_type"].as_str().unwrap_or_default().to_string();
        let ok = answer["ok"].as_bool().expect("answer.ok");
        let pass = match (&got, ok) {
            (Ok(r), true) => {
                r.amount_out == int(answer, "amount_out")
                    && r.protocol_fee_out == int(answer, "protocol_fee_out")
                    && r.ref_fee_out == int(answer, "ref_fee_out")
            }
            (Err(_), false) => true,
            _ => false,
        };
        let entry = checked.entry(pool_type).or_default();
        entry.0 += 1;
        if pass {
            entry.1 += 1;
        } else {
            failures.push(format!("id {}: expected {answer}, got {got:?}", v["id"]));
        }
    }
    for (t, (n, good)) in &checked {
        println!("{t}: {good}/{n} cases equal");
    }
    for t in COVERED {
        assert!(checked.get(t).is_some_and(|(n, _)| *n > 0), "no {t} case was checked");
    }
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
}

/// For every v1 case, `swap` must pay what the get-method says, or refuse for exactly the contract's refund
/// reasons: nothing to pay (`out <= 0`) or an input reserve past 2^120−1 after the swap.
#[test]
fn v1_swap_agrees_with_get_method() {
    let max_coins = (1u128 << 120) - 1;
    let mut n = 0;
    for v in vectors() {
        let (case, answer) = (&v["case"], &v["answer"]);
        if case["pool_type"].as_str() != Some("stonfi_v1") {
            continue;
        }
        let reserves = [int(case, "reserve0"), int(case, "reserve1")];
        let curve = ConstantProduct::new(
            FeeModel::V1,
            small(case, "lp_fee"),
            small(case, "protocol_fee"),
            small(case, "ref_fee"),
        );
        let amount = int(case, "amount_in");
        let dir = direction(case);
        let expected_out = int(answer, "amount_out");
        let reserve_in = match dir {
            Direction::ZeroToOne => reserves[0],
            Direction::OneToZero => reserves[1],
        };
        match Pool::new(Curve::ConstantProduct(curve), reserves).swap(amount, dir) {
            Ok(r) => assert_eq!(r.amount_out, expected_out, "id {}", v["id"]),
            Err(PoolError::ZeroOutput) => assert_eq!(expected_out, 0, "id {}", v["id"]),
            Err(PoolError::ReserveOutOfRange) => {
                assert!(reserve_in + amount > max_coins, "id {}: refused without a reserve overflow", v["id"])
            }
            Err(e) => panic!("id {}: unexpected {e}", v["id"]),
        }
        n += 1;
    }
    println!("stonfi_v1: {n} swaps agree with the get-method or refund for the contract's reasons");
    assert!(n > 0);
}

/// Each weighted failure case must fail for the contract's own reason, not just fail.
#[test]
fn weighted_failures_have_the_contracts_reason() {
    let mut n = 0;
    for v in vectors() {
        let (case, answer) = (&v["case"], &v["answer"]);
        if !matches!(case["pool_type"].as_str(), Some("stonfi_v2_wcpmm" | "stonfi_v2_wstable")) || answer["ok"] == true
        {
            continue;
        }
        let got = run(case).expect("covered pool type").expect_err("failure case");
        let want = match answer["exit_name"].as_str() {
            Some("error_97") => PoolError::MaxInRatio,
            Some("error_51002") => PoolError::ComplementOutOfRange,
            Some("error_5103") => PoolError::NotConverged,
            Some("error_5104") => PoolError::ZeroDerivative,
            Some("error_4") => PoolError::Overflow,
            Some("swap_refund_0_out") => PoolError::ZeroOutput,
            Some("swap_refund_reserve_err") => PoolError::ReserveOutOfRange,
            other => panic!("id {}: unexpected exit {other:?}", v["id"]),
        };
        assert_eq!(got, want, "id {}", v["id"]);
        n += 1;
    }
    println!("weighted failure cases with the contract's reason: {n}");
    assert!(n > 0);
}
