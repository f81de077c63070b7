//! Properties every curve must keep for any reserves and amounts below 2^120 (proptest).
//!
//! For each curve (constant product with the v1 and v2 fee models, `dex_b_v2` stable swap, `dex_a` volatile
//! and stable) and random fees, reserves and amounts:
//! - no panic: every bad case is a typed `PoolError`;
//! - a successful swap pays at least one unit and less than the output reserve;
//! - the reserves it returns are exactly the contract's state change (`reserve_in += amount_in`,
//!   `reserve_out -= amount_out + protocol_fee_out + ref_fee_out`), both within 1..=2^120−1, and applying
//!   the result to the pool yields them;
//! - the curve's invariant does not decrease: r0·r1 for constant product, f = x³y + y³x for `dex_a` stable,
//!   and for stable swap the invariant D, recomputed here by an independent exact root of
//!   D³ + 4xy(amp−1)·D = 4xy·amp·(x+y) (num-bigint bisection, not the contract's iteration);
//! - output is non-decreasing in the amount: for a < b with both Ok, out(a) ≤ out(b); and once a succeeds,
//!   a larger amount may only fail on the reserve range or overflow (a smaller one may fail with
//!   `ZeroOutput`). With a referral on `dex_b` the monotone quantity is `amount_out + ref_fee_out`: two
//!   output fees each rounded up can make one more unit in pay one unit less out (a unit test in
//!   `crates/core/src/pool/constant_product.rs` shows the contract formula doing so).

use num_bigint::BigUint;
use proptest::prelude::*;
use tonroute::pool::{
    ConstantProduct, Curve, DexAStable, DexAVolatile, Direction, FeeModel, Pool, PoolError, Referral, StableSwap,
    SwapResult, MAX_COINS,
};

use crate::common::pool_props::{self, amount_pair, big, coin, direction, referral};

/// Two reserves: independent magnitudes, or a near-balanced pair (where stable curves are meant to work).
fn reserves() -> impl Strategy<Value = [u128; 2]> {
    prop_oneof![
        (coin(), coin()).prop_map(|(a, b)| [a, b]),
        (coin(), 1u128..=1_000_000).prop_map(|(a, pct)| {
            // b = a · pct / 250_000, i.e. 0.000004x ..= 4x of a, kept in 1..=MAX_COINS.
            let b = (big(a) * big(pct) / big(250_000)).to_u64_digits();
            let b = b.iter().rev().fold(0u128, |acc, d| acc.saturating_mul(1 << 64).saturating_add(u128::from(*d)));
            [a, b.clamp(1, MAX_COINS)]
        }),
    ]
}

fn constant_product() -> impl Strategy<Value = Curve> {
    (prop_oneof![Just(FeeModel::V1), Just(FeeModel::V2)], 0u16..=100, 0u16..=100, 0u16..=100)
        .prop_map(|(m, lp, proto, reff)| Curve::ConstantProduct(ConstantProduct::new(m, lp, proto, reff)))
}

fn stable_swap() -> impl Strategy<Value = Curve> {
    (1u32..=10_000, 0u16..=100, 0u16..=100)
        .prop_map(|(amp, lp, proto)| Curve::StableSwap(StableSwap::new(amp, lp, proto)))
}

fn dex_a_volatile() -> impl Strategy<Value = Curve> {
    (0u16..=100).prop_map(|fee_bps| Curve::DexAVolatile(DexAVolatile { fee_bps }))
}

fn dex_a_stable() -> impl Strategy<Value = Curve> {
    (0u16..=100).prop_map(|fee_bps| Curve::DexAStable(DexAStable { fee_bps }))
}

/// Largest integer D with D³ + 4xy(amp−1)·D ≤ 4xy·amp·(x+y): the floor of Curve's two-token invariant with
/// `amp` as Ann, whose left side grows with D. D ≤ x + y (equality at x = y), so bisect in [0, x+y+1).
///
/// The comparison is on the integer floor of the real root. At finer resolution (2^-64 of a unit) the real D
/// can dip by ~1e-7 of a unit: e.g. amp 2, fees 0, reserves [1, 438725779980552932419], 504709283 token0 in.
/// That is the contract's own rounding (its D is a floored Newton value and y is solved against it), not ours:
/// our swap equals the contract's on every vector. One million lp-fee-free cases kept the floor non-decreasing.
fn stable_d_floor(amp: u32, x: u128, y: u128) -> BigUint {
    let (x, y, amp) = (big(x), big(y), BigUint::from(amp));
    let four_xy = BigUint::from(4u8) * &x * &y;
    let rhs = &four_xy * &amp * (&x + &y);
    let lin = &four_xy * (&amp - 1u8);
    let fits = |d: &BigUint| d * d * d + &lin * d <= rhs;
    let (mut lo, mut hi) = (BigUint::from(0u8), &x + &y + 1u8); // fits(lo), !fits(hi)
    debug_assert!(!fits(&hi));
    while &hi - &lo > BigUint::from(1u8) {
        let mid = (&lo + &hi) >> 1;
        if fits(&mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

fn dex_a_stable_k(x: u128, y: u128) -> BigUint {
    let (x, y) = (big(x), big(y));
    &x * &y * (&x * &x + &y * &y)
}

/// The shared checks of every successful swap ([`crate::common::pool_props::check_swap`]), then the curve's
/// invariant; returns the swap's result for further checks.
fn check_swap(
    pool: &Pool,
    amount: u128,
    dir: Direction,
    referral: Option<Referral>,
) -> Result<Result<SwapResult, PoolError>, TestCaseError> {
    let result = pool_props::check_swap(pool, amount, dir, referral)?;
    let Ok(r) = &result else { return Ok(result) };
    let [a0, a1] = r.reserves_after;
    let [b0, b1] = pool.reserves;
    match &pool.curve {
        Curve::ConstantProduct(_) | Curve::DexAVolatile(_) => {
            prop_assert!(big(a0) * big(a1) >= big(b0) * big(b1), "x·y decreased");
        }
        Curve::StableSwap(c) => {
            let (before, after) = (stable_d_floor(c.amp, b0, b1), stable_d_floor(c.amp, a0, a1));
            prop_assert!(after >= before, "D decreased: {} -> {}", before, after);
        }
        Curve::DexAStable(_) => {
            prop_assert!(dex_a_stable_k(a0, a1) >= dex_a_stable_k(b0, b1), "x³y + y³x decreased");
        }
        _ => {}
    }
    Ok(result)
}

/// Output is non-decreasing in the amount (exactly: no tolerance), and once the smaller amount succeeds the
/// larger may only fail on the reserve range or overflow.
fn check_monotone(
    curve: Curve,
    reserves: [u128; 2],
    a: u128,
    b: u128,
    dir: Direction,
    referral: Option<Referral>,
) -> Result<(), TestCaseError> {
    let pool = Pool::new(curve, reserves);
    let [(a, small), (b, large)] = pool_props::check_monotone(&pool, (a, b), dir, referral, |_, _| 0, check_swap)?;
    if let (Ok(_), Err(e)) = (small, large) {
        prop_assert!(
            matches!(e, PoolError::ReserveOutOfRange | PoolError::Overflow),
            "{} succeeded but the larger {} failed with {:?}",
            a,
            b,
            e
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn constant_product_properties(
        curve in constant_product(), reserves in reserves(), (a, b) in amount_pair(), dir in direction(),
        referral in referral(),
    ) {
        check_monotone(curve, reserves, a, b, dir, referral)?;
    }

    #[test]
    fn stable_swap_properties(
        curve in stable_swap(), reserves in reserves(), (a, b) in amount_pair(), dir in direction(),
        referral in referral(),
    ) {
        check_monotone(curve, reserves, a, b, dir, referral)?;
    }

    #[test]
    fn dex_a_volatile_properties(curve in dex_a_volatile(), reserves in reserves(), (a, b) in amount_pair(), dir in direction()) {
        check_monotone(curve, reserves, a, b, dir, None)?;
    }

    #[test]
    fn dex_a_stable_properties(curve in dex_a_stable(), reserves in reserves(), (a, b) in amount_pair(), dir in direction()) {
        check_monotone(curve, reserves, a, b, dir, None)?;
    }

    /// A swap then a second swap on the returned reserves is what a pool met twice does; the second swap
    /// must see exactly the first one's state (and satisfy all the same checks).
    #[test]
    fn swaps_chain_on_returned_reserves(
        curve in prop_oneof![constant_product(), stable_swap(), dex_a_volatile(), dex_a_stable()],
        reserves in reserves(), (a, b) in amount_pair(), dir in direction(), back in any::<bool>(),
    ) {
        let mut pool = Pool::new(curve, reserves);
        if let Ok(first) = check_swap(&pool, a, dir, None)? {
            pool.apply(&first);
            let second_dir = if back { dir.reverse() } else { dir };
            let second = check_swap(&pool, b, second_dir, None)?;
            prop_assert_eq!(second, Pool::new(pool.curve.clone(), first.reserves_after).swap(b, second_dir));
        }
    }
}
