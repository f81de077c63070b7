//! One swap per curve at realistic and extreme magnitudes, with the expected amount asserted inside the
//! timed loop.
//!
//! Expected values never come from the crate: the constant-product and `dex_a` ones are recomputed at setup
//! in num-bigint from the formulas (research/pool-math.md §1, §2a, §4), the stable-swap one from the
//! contract's iteration written out again in num-bigint (§2b) — that reference is itself checked at setup
//! against two contract-answered vectors of tests/data/contract_vectors.json. The concentrated-liquidity
//! (`dex_c`) cases are `tonco` vectors of that file: pool, amount and the contract's own answer.
//! The weighted curves' cases
//! (`weighted_cpmm/*`, `weighted_stable/*`) are contract vectors themselves: pool, amount, referral and the
//! expected `(amount_out, protocol_fee_out, ref_fee_out)` are read from that file by id.
//!
//! Run: `cargo bench --bench pool_math` (add `-- --warm-up-time 1 --measurement-time 3` for a short run).

#[path = "../tests/it/common/dex_a_reference.rs"]
mod dex_a_reference;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use num_bigint::BigUint;
use tonroute::pool::{
    Concentrated, ConstantProduct, Curve, DexAStable, DexAVolatile, Direction, FeeModel, Pool, Referral, StableSwap,
    WeightedConstantProduct, WeightedStableSwap,
};

fn big(v: u128) -> BigUint {
    BigUint::from(v)
}

fn small(v: &BigUint) -> u128 {
    u128::try_from(v).expect("reference amount fits u128")
}

fn ceil_div(a: &BigUint, b: &BigUint) -> BigUint {
    (a + b - 1u8) / b
}

/// §1 / §2a: out = base − ceil(base·proto/10000), base = floor(aif·R_out / (R_in·10000 + aif)).
fn cpmm_reference(lp: u16, proto: u16, r_in: u128, r_out: u128, amount: u128) -> u128 {
    let aif = big(amount) * BigUint::from(10_000 - u32::from(lp));
    let base = &aif * big(r_out) / (big(r_in) * 10_000u32 + &aif);
    let fee = ceil_div(&(&base * u32::from(proto)), &BigUint::from(10_000u32));
    small(&(base - fee))
}

/// §4 volatile: fee = floor(amount·fee/10000) (DeDust's own routing plan charges 3,290 on 1,316,076 at 25 bps: see
/// the module doc of `pool::dex_a_volatile`), out = floor(net·R_out / (R_in + net)).
fn dex_a_volatile_reference(fee: u16, r_in: u128, r_out: u128, amount: u128) -> u128 {
    let net = big(amount) - big(amount) * u32::from(fee) / BigUint::from(10_000u32);
    small(&dex_a_reference::volatile_out(&big(r_in), &big(r_out), &net))
}

/// §4 stable: fee = ceil(amount·fee/10000), R_out − (smallest y with x'·y·(x'² + y²) ≥ k), by bisection.
fn dex_a_stable_reference(fee: u16, r_in: u128, r_out: u128, amount: u128) -> u128 {
    let net = big(amount) - ceil_div(&(big(amount) * u32::from(fee)), &BigUint::from(10_000u32));
    small(&dex_a_reference::stable_out(&big(r_in), &big(r_out), &net))
}

/// §2b, the `dex_b_v2` stable swap written out in num-bigint: `(amount_out, protocol_fee_out, ref_fee_out)`.
fn stable_reference(amp: u32, lp: u16, proto: u16, reff: u16, r: [u128; 2], amount: u128, side: bool) -> [u128; 3] {
    let (amp, r0, r1) = (BigUint::from(amp), big(r[0]), big(r[1]));
    let one = BigUint::from(1u8);
    let close = |a: &BigUint, b: &BigUint| if a > b { a - b <= one } else { b - a <= one };
    let ain = big(amount) * (10_000 - u32::from(lp)) / 10_000u32;
    let s = &r0 + &r1;
    let mut d = s.clone();
    for i in 0..=255 {
        assert!(i < 255, "reference D did not converge");
        let dp = &d * &d / (&r0 * 2u8);
        let dp = dp * &d / (&r1 * 2u8);
        let next = (&amp * &s + &dp * 2u8) * &d / ((&amp - 1u8) * &d + dp * 3u8);
        let done = close(&next, &d);
        d = next;
        if done {
            break;
        }
    }
    let (l, rr) = if side { (&r0 + &ain, r1.clone()) } else { (r0.clone(), &r1 + &ain) };
    let p_d = &l * &rr * 4u8 / &d;
    let (sum, other) = if side { (&l, &rr) } else { (&rr, &l) };
    let c = ceil_div(&(&d * &d), &(&amp * p_d)) * other;
    let b = sum + &d / &amp;
    let mut y = ceil_div(&(&d * &d + &c), &(&d + &b));
    for i in 0..=255 {
        assert!(i < 255, "reference y did not converge");
        let next = ceil_div(&(&y * &y + &c), &(&y * 2u8 + &b - &d));
        let done = close(&next, &y);
        y = next;
        if done {
            break;
        }
    }
    let base = (if side { r1 } else { r0 }) - y - 1u8;
    let fee =
        |f: u16| if f == 0 { BigUint::ZERO } else { ceil_div(&(&base * u32::from(f)), &BigUint::from(10_000u32)) };
    let (p, rf) = (fee(proto), fee(reff));
    [small(&(&base - &p - &rf)), small(&p), small(&rf)]
}

/// Checks the stable-swap reference against contract answers before trusting it.
fn check_stable_reference_against_vectors() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/contract_vectors.json");
    let text = std::fs::read_to_string(path).expect("tests/data/contract_vectors.json is readable");
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&text).expect("vector file is JSON");
    let int = |v: &serde_json::Value, k: &str| -> u128 { v[k].as_str().expect("field").parse().expect("u128") };
    let fee = |v: &serde_json::Value, k: &str| -> u16 { u16::try_from(v[k].as_u64().expect("fee")).expect("u16") };
    for id in [112, 131, 1426] {
        let v = vectors.iter().find(|v| v["id"] == id).expect("vector id present");
        let (case, answer) = (&v["case"], &v["answer"]);
        let got = stable_reference(
            u32::try_from(int(case, "amp")).expect("amp u32"),
            fee(case, "lp_fee"),
            fee(case, "protocol_fee"),
            fee(case, "ref_fee"),
            [int(case, "reserve0"), int(case, "reserve1")],
            int(case, "amount_in"),
            case["direction"] == "0to1",
        );
        let want = [int(answer, "amount_out"), int(answer, "protocol_fee_out"), int(answer, "ref_fee_out")];
        assert_eq!(got, want, "bench's stable reference disagrees with contract vector {id}");
    }
}

struct Case {
    name: String,
    pool: Pool,
    amount: u128,
    direction: Direction,
    expected: u128,
}

fn cases() -> Vec<Case> {
    check_stable_reference_against_vectors();
    // TON/USDT-like: 1.8e15 nanoTON against 2.5e12 micro-USDT, 100 TON in.
    let ton_usdt = [1_800_000_000_000_000u128, 2_500_000_000_000];
    let ton_in = 100_000_000_000u128;
    // Extreme: reserves near 2^119, 2^100 in.
    let huge = [(1u128 << 119) - 12_345_678_901, (1u128 << 119) - 98_765_432_109_876];
    let huge_in = 1u128 << 100;
    // A stable pair of 6-decimal dollars: 2.5e12 / 2.4e12, 1e9 (1,000 USD) in.
    let usd = [2_500_000_000_000u128, 2_400_000_000_000];
    let usd_in = 1_000_000_000u128;
    let z = Direction::ZeroToOne;

    let v1 = Curve::ConstantProduct(ConstantProduct::new(FeeModel::V1, 20, 10, 10));
    let v2 = Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0));
    let ss = Curve::StableSwap(StableSwap::new(200, 10, 5));
    let av = Curve::DexAVolatile(DexAVolatile { fee_bps: 25 });
    let ast = Curve::DexAStable(DexAStable { fee_bps: 5 });
    // Each curve at its realistic size and at the extreme one, the expected amount by its reference formula.
    type Reference = fn([u128; 2], u128) -> u128;
    type CurveCases = (&'static str, Curve, ([u128; 2], u128), Reference);
    let curves: [CurveCases; 5] = [
        ("v1_cpmm", v1, (ton_usdt, ton_in), |r, a| cpmm_reference(20, 10, r[0], r[1], a)),
        ("v2_cpmm", v2, (ton_usdt, ton_in), |r, a| cpmm_reference(20, 10, r[0], r[1], a)),
        ("v2_stable", ss, (usd, usd_in), |r, a| stable_reference(200, 10, 5, 0, r, a, true)[0]),
        ("dex_a_volatile", av, (ton_usdt, ton_in), |r, a| dex_a_volatile_reference(25, r[0], r[1], a)),
        ("dex_a_stable", ast, (usd, usd_in), |r, a| dex_a_stable_reference(5, r[0], r[1], a)),
    ];
    curves
        .into_iter()
        .flat_map(|(curve_name, curve, realistic, reference)| {
            [("realistic", realistic), ("extreme", (huge, huge_in))].map(|(size, (reserves, amount))| Case {
                name: format!("{curve_name}/{size}"),
                pool: Pool::new(curve.clone(), reserves),
                amount,
                direction: z,
                expected: reference(reserves, amount),
            })
        })
        .collect()
}

/// `tonco` vectors as bench cases: 237 stays inside the current range, 203 crosses three ticks.
fn concentrated_cases() -> Vec<Case> {
    use tonroute::pool::concentrated::{ClState, Tick};
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/contract_vectors.json");
    let text = std::fs::read_to_string(path).expect("tests/data/contract_vectors.json is readable");
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&text).expect("vector file is JSON");
    let int = |v: &serde_json::Value, k: &str| -> u128 { v[k].as_str().expect("field").parse().expect("u128") };
    let i32_of = |v: &serde_json::Value| i32::try_from(v.as_i64().expect("integer")).expect("i32");
    [(237, "dex_c/in_range"), (203, "dex_c/three_crossings")]
        .into_iter()
        .map(|(id, name)| {
            let v = vectors.iter().find(|v| v["id"] == id).expect("vector id present");
            let (case, answer) = (&v["case"], &v["answer"]);
            let ticks = case["ticks"]
                .as_array()
                .expect("ticks")
                .iter()
                .map(|t| Tick {
                    tick: i32_of(&t["tick"]),
                    liquidity_net: t["liquidity_net"].as_str().expect("net").parse().expect("i128"),
                    liquidity_gross: int(t, "liquidity_gross"),
                })
                .collect();
            let state = ClState {
                sqrt_price_x96: primitive_types::U256::from_dec_str(case["sqrt_price_x96"].as_str().expect("price"))
                    .expect("decimal"),
                tick: i32_of(&case["tick"]),
                liquidity: int(case, "liquidity"),
            };
            let fee = |k: &str| u16::try_from(case[k].as_u64().expect("fee")).expect("u16");
            let pool =
                Concentrated::new(fee("lp_fee"), fee("protocol_fee"), i32_of(&case["tick_spacing"]), ticks, state)
                    .expect("vector pool is valid");
            assert_eq!(int(answer, "amount_in_used"), int(case, "amount_in"), "bench case {id} uses all its input");
            Case {
                name: name.to_string(),
                pool: Pool::new(Curve::Concentrated(pool), [0, 0]),
                amount: int(case, "amount_in"),
                direction: if case["direction"] == "0to1" { Direction::ZeroToOne } else { Direction::OneToZero },
                expected: int(answer, "amount_out"),
            }
        })
        .collect()
}

fn pool_math(c: &mut Criterion) {
    for case in cases().into_iter().chain(concentrated_cases()) {
        c.bench_function(&case.name, |b| {
            b.iter(|| {
                let r = black_box(&case.pool)
                    .swap(black_box(case.amount), black_box(case.direction))
                    .expect("the bench cases are all valid swaps");
                assert_eq!(r.amount_out, case.expected, "{}", case.name);
                r
            })
        });
    }
}

/// A contract-vector swap with its referral and all three answered amounts.
struct VectorCase {
    name: &'static str,
    pool: Pool,
    amount: u128,
    direction: Direction,
    referral: Option<Referral>,
    expected: [u128; 3],
}

/// Weighted swaps straight from contract vectors: realistic magnitudes (1509: w0 1/3, fees 100/100/100;
/// 1610: w0 0.7, amp 10, rate 1.05, fees 70/30/10) and the largest reserves of each type (1463, 1650).
fn weighted_cases() -> Vec<VectorCase> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/contract_vectors.json");
    let text = std::fs::read_to_string(path).expect("tests/data/contract_vectors.json is readable");
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&text).expect("vector file is JSON");
    let int = |v: &serde_json::Value, k: &str| -> u128 { v[k].as_str().expect("field").parse().expect("u128") };
    let fee = |v: &serde_json::Value, k: &str| -> u16 { u16::try_from(v[k].as_u64().expect("fee")).expect("u16") };
    let load = |name: &'static str, id: u64| {
        let v = vectors.iter().find(|v| v["id"] == id).expect("vector id present");
        let (case, answer) = (&v["case"], &v["answer"]);
        let (lp, proto) = (fee(case, "lp_fee"), fee(case, "protocol_fee"));
        let curve = match case["pool_type"].as_str() {
            Some("stonfi_v2_wcpmm") => Curve::WeightedConstantProduct(WeightedConstantProduct::new(
                u64::try_from(int(case, "w0")).expect("w0 u64"),
                lp,
                proto,
            )),
            Some("stonfi_v2_wstable") => Curve::WeightedStableSwap(WeightedStableSwap::new(
                int(case, "amp"),
                int(case, "rate"),
                int(case, "w0"),
                lp,
                proto,
            )),
            other => panic!("vector {id} is {other:?}, not a weighted pool"),
        };
        VectorCase {
            name,
            pool: Pool::new(curve, [int(case, "reserve0"), int(case, "reserve1")]),
            amount: int(case, "amount_in"),
            direction: if case["direction"] == "0to1" { Direction::ZeroToOne } else { Direction::OneToZero },
            referral: Some(Referral { fee_bps: fee(case, "ref_fee") }),
            expected: [int(answer, "amount_out"), int(answer, "protocol_fee_out"), int(answer, "ref_fee_out")],
        }
    };
    vec![
        load("weighted_cpmm/realistic", 1509),
        load("weighted_cpmm/extreme", 1463),
        load("weighted_stable/realistic", 1610),
        load("weighted_stable/extreme", 1650),
    ]
}

fn weighted_math(c: &mut Criterion) {
    for case in weighted_cases() {
        c.bench_function(case.name, |b| {
            b.iter(|| {
                let r = black_box(&case.pool)
                    .swap_with_referral(black_box(case.amount), black_box(case.direction), case.referral)
                    .expect("the bench cases are all valid swaps");
                assert_eq!([r.amount_out, r.protocol_fee_out, r.ref_fee_out], case.expected, "{}", case.name);
                r
            })
        });
    }
}

criterion_group!(benches, pool_math, weighted_math);
criterion_main!(benches);
