//! `dex_a` volatile and stable curves against an independent big-integer computation.
//!
//! No contract vectors exist for `dex_a` (closed source). The one public evidence of its rounding is DeDust's
//! own `/v2/routing/plan` answer (`tests/data/ton/dedust-routing-plan-response.json`, two volatile hops),
//! checked to the unit first. The reference for the random cases is the formula of research/pool-math.md §4
//! with the volatile fee rounding that plan shows: fee = floor(amount·fee_bps/10000) taken from the input,
//! volatile out = floor(net·R_out / (R_in + net)); the stable curve's fee rounding is not shown by anything
//! public and stays ceil(amount·fee_bps/10000) as its rustdoc pins it; stable out = R_out − y' with y' the
//! smallest integer such that
//! x'·y'·(x'² + y'²) ≥ R_in·R_out·(R_in² + R_out²), x' = R_in + net (found here by plain bisection in
//! num-bigint, not by the crate's Newton solver). The whole amount in is credited to the input reserve.
//! Amounts must equal to the unit; errors must be the ones the formula implies.

use num_bigint::BigUint;
use tonroute::pool::{Curve, DexAStable, DexAVolatile, Direction, Pool, PoolError, MAX_COINS};
use tonroute_synth::snapshot::SplitMix64;

use crate::common::dex_a_reference;

/// The cases drawn from splitmix64: a fixed, seeded stream so every run checks the same cases.
struct Rng(SplitMix64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next()
    }

    fn below(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }

    /// 1..=2^120−1 with a uniformly drawn bit length, so every magnitude is covered.
    fn coin(&mut self) -> u128 {
        let bits = 1 + self.below(120);
        let raw = (u128::from(self.next()) << 64) | u128::from(self.next());
        (raw >> (128 - bits)).max(1)
    }

    fn fee(&mut self) -> u16 {
        match self.below(10) {
            0 => 0,
            1 => [1_000, 5_000, 9_999][usize::try_from(self.below(3)).unwrap()],
            _ => u16::try_from(self.below(101)).unwrap(),
        }
    }

    fn reserves(&mut self) -> [u128; 2] {
        let a = self.coin();
        match self.below(3) {
            // Near-balanced, where stable pools live: b within ±1/64 of a.
            0 => {
                let spread = (a / 32).max(1);
                let b = (a - a / 64).saturating_add(u128::from(self.next()) % spread).clamp(1, MAX_COINS);
                [a, b]
            }
            _ => [a, self.coin()],
        }
    }

    fn amount(&mut self, reserve_in: u128) -> u128 {
        match self.below(4) {
            // Relative to the pool: 1/2^k of the input reserve, the usual trade sizes.
            0 => (reserve_in >> self.below(40)).max(1),
            _ => self.coin(),
        }
    }
}

fn big(v: u128) -> BigUint {
    BigUint::from(v)
}

fn small(v: &BigUint) -> u128 {
    u128::try_from(v).expect("reference value fits u128")
}

/// What the formula says: the amount out, or every error that applies to this case (the order in which a
/// pool reports several is not part of the formula).
fn reference(
    stable: bool,
    fee_bps: u16,
    reserves: [u128; 2],
    amount: u128,
    dir: Direction,
) -> Result<u128, Vec<PoolError>> {
    let (r_in, r_out) = dir.split(reserves);
    if r_in == 0 || r_out == 0 {
        return Err(vec![PoolError::EmptyPool]);
    }
    if fee_bps >= 10_000 {
        return Err(vec![PoolError::FeeOutOfRange(fee_bps.into())]);
    }
    // Volatile: floor (the routing plan); stable: ceil (unconfirmed, conservative).
    let round_up = if stable { 9_999u32 } else { 0 };
    let fee = (big(amount) * BigUint::from(fee_bps) + BigUint::from(round_up)) / BigUint::from(10_000u32);
    let net = big(amount) - fee;
    let mut errors = Vec::new();
    if big(r_in) + big(amount) > big(MAX_COINS) {
        errors.push(PoolError::ReserveOutOfRange);
    }
    if net == BigUint::ZERO {
        errors.push(PoolError::ZeroOutput);
        return Err(errors);
    }
    let (r_in_big, r_out_big) = (big(r_in), big(r_out));
    let out = if stable {
        small(&dex_a_reference::stable_out(&r_in_big, &r_out_big, &net))
    } else {
        small(&dex_a_reference::volatile_out(&r_in_big, &r_out_big, &net))
    };
    if out == 0 {
        errors.push(PoolError::ZeroOutput);
    }
    if out >= r_out {
        errors.push(PoolError::ReserveOutOfRange);
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn run(stable: bool, cases: usize, seed: u64) -> (usize, usize) {
    let mut rng = Rng(SplitMix64(seed));
    let (mut ok, mut refused) = (0, 0);
    for i in 0..cases {
        let fee_bps = rng.fee();
        let reserves = rng.reserves();
        let dir = if rng.below(2) == 0 { Direction::ZeroToOne } else { Direction::OneToZero };
        let amount = rng.amount(dir.split(reserves).0);
        let curve = if stable {
            Curve::DexAStable(DexAStable { fee_bps })
        } else {
            Curve::DexAVolatile(DexAVolatile { fee_bps })
        };
        let got = Pool::new(curve, reserves).swap(amount, dir);
        let want = reference(stable, fee_bps, reserves, amount, dir);
        let ctx = format!("case {i}: fee {fee_bps} reserves {reserves:?} amount {amount} {dir:?}");
        match (&got, &want) {
            (Ok(r), Ok(out)) => {
                assert_eq!(r.amount_out, *out, "{ctx}");
                assert_eq!((r.protocol_fee_out, r.ref_fee_out), (0, 0), "{ctx}");
                let (r_in, r_out) = dir.split(reserves);
                assert_eq!(r.reserves_after, dir.join(r_in + amount, r_out - out), "{ctx}");
                ok += 1;
            }
            (Err(e), Err(allowed)) => {
                assert!(allowed.contains(e), "{ctx}: got {e:?}, formula says one of {allowed:?}");
                refused += 1;
            }
            _ => panic!("{ctx}: got {got:?}, formula says {want:?}"),
        }
    }
    (ok, refused)
}

/// DeDust's own quote of a two-hop route (NOT → TON → jetton over two volatile pools at 0.25 %): every hop's
/// output equals the plan's `amountOut` to the unit, and the plan's absolute `tradeFee` is the floor of
/// `amountIn`·25/10000. Hop 2 is where the roundings differ (a ceil fee would pay 23,047,772, 18 units less).
#[test]
fn dex_a_volatile_reproduces_dedusts_routing_plan() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ton/dedust-routing-plan-response.json");
    let plan: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let hops = plan[0].as_array().expect("one route of hops");
    assert_eq!(hops.len(), 2);
    let int = |v: &serde_json::Value| v.as_str().and_then(|s| s.parse::<u128>().ok()).expect("decimal string");
    let mut ceil_differs = false;
    for (i, hop) in hops.iter().enumerate() {
        let pool = &hop["pool"];
        assert_eq!(pool["isStable"], false, "hop {i}");
        let reserves = [int(&pool["reserves"][0]), int(&pool["reserves"][1])];
        let dir = if hop["assetIn"] == pool["assets"][0] { Direction::ZeroToOne } else { Direction::OneToZero };
        let amount_in = int(&hop["amountIn"]);
        assert_eq!(int(&hop["tradeFee"]), amount_in * 25 / 10_000, "hop {i}: the plan's fee is the floor");
        let got = Pool::new(Curve::DexAVolatile(DexAVolatile { fee_bps: 25 }), reserves).swap(amount_in, dir).unwrap();
        assert_eq!(got.amount_out, int(&hop["amountOut"]), "hop {i}");
        let (r_in, r_out) = dir.split(reserves);
        let net_ceil = amount_in - (amount_in * 25).div_ceil(10_000);
        ceil_differs |= net_ceil * r_out / (r_in + net_ceil) != got.amount_out;
    }
    assert!(ceil_differs, "the plan must tell the fee roundings apart for this test to mean anything");
}

#[test]
fn dex_a_volatile_equals_the_big_integer_formula() {
    let (ok, refused) = run(false, 20_000, 0x5EED_0001);
    println!("dex_a volatile: {ok} swaps equal to the unit, {refused} refusals with the formula's error");
    assert!(ok > 10_000, "too few successful cases to mean anything: {ok}");
}

#[test]
fn dex_a_stable_equals_the_big_integer_formula() {
    let (ok, refused) = run(true, 6_000, 0x5EED_0002);
    println!("dex_a stable: {ok} swaps equal to the unit, {refused} refusals with the formula's error");
    assert!(ok > 3_000, "too few successful cases to mean anything: {ok}");
}

#[test]
fn dex_a_stable_small_pools_exhaustive() {
    // Every amount into a few tiny pools, where off-by-one rounding in a solver shows first.
    for reserves in [[1, 1], [1, 7], [3, 2], [10, 10], [97, 13], [1_000, 999]] {
        for fee_bps in [0, 30] {
            for amount in 1..=300u128 {
                for dir in [Direction::ZeroToOne, Direction::OneToZero] {
                    let got = Pool::new(Curve::DexAStable(DexAStable { fee_bps }), reserves).swap(amount, dir);
                    match (got, reference(true, fee_bps, reserves, amount, dir)) {
                        (Ok(r), Ok(out)) => assert_eq!(r.amount_out, out, "{reserves:?} {amount} {dir:?}"),
                        (Err(e), Err(allowed)) => assert!(allowed.contains(&e)),
                        (got, want) => panic!("{reserves:?} {amount} {dir:?}: {got:?} vs {want:?}"),
                    }
                }
            }
        }
    }
}
