//! What the curve property files (`pool_properties`, `weighted_properties`) share: the proptest strategies of
//! amounts, directions and referrals, and the state-change checks every successful swap must pass. Each file
//! keeps its own curves, reserve pairs and curve-specific invariants.

use num_bigint::BigUint;
use proptest::prelude::*;
use tonroute::pool::{Curve, Direction, Pool, PoolError, Referral, SwapResult, MAX_COINS};

pub(crate) fn big(v: u128) -> BigUint {
    BigUint::from(v)
}

/// Amounts and reserves 1..=2^120−1, spread over magnitudes (uniform bit length) with the extremes included.
pub(crate) fn coin() -> impl Strategy<Value = u128> {
    prop_oneof![
        6 => (1u32..=120, any::<u128>()).prop_map(|(bits, r)| (r >> (128 - bits)).max(1)),
        1 => 1u128..=1_000,
        1 => (MAX_COINS - 1_000)..=MAX_COINS,
    ]
}

/// Pairs of amounts: independent, or adjacent (a, a + d) where rounding steps show up.
pub(crate) fn amount_pair() -> impl Strategy<Value = (u128, u128)> {
    prop_oneof![
        (coin(), coin()),
        (coin(), 1u128..=1_000).prop_map(|(a, d)| (a.min(MAX_COINS - d), a.min(MAX_COINS - d) + d)),
    ]
}

pub(crate) fn direction() -> impl Strategy<Value = Direction> {
    prop_oneof![Just(Direction::ZeroToOne), Just(Direction::OneToZero)]
}

pub(crate) fn referral() -> impl Strategy<Value = Option<Referral>> {
    prop_oneof![Just(None), (0u16..=100).prop_map(|fee_bps| Some(Referral { fee_bps }))]
}

/// The checks every successful swap must pass: it pays at least one unit and less than the output reserve, the
/// reserves it returns are exactly the contract's state change (in num-bigint, so no sum can wrap), both within
/// 1..=2^120−1, no fee a curve does not charge, and applying the result yields them. Returns the swap's result
/// for further checks.
pub(crate) fn check_swap(
    pool: &Pool,
    amount: u128,
    dir: Direction,
    referral: Option<Referral>,
) -> Result<Swapped, TestCaseError> {
    let result = pool.swap_with_referral(amount, dir, referral);
    let Ok(r) = &result else { return Ok(result) };
    let (r_in, r_out) = dir.split(pool.reserves);
    prop_assert!(r.amount_out >= 1, "a swap that pays nothing must be an error");
    prop_assert!(r.amount_out < r_out, "out {} not below reserve {}", r.amount_out, r_out);
    let taken = big(r.amount_out) + big(r.protocol_fee_out) + big(r.ref_fee_out);
    prop_assert!(taken < big(r_out));
    let expected_in = big(r_in) + big(amount);
    let expected_out = big(r_out) - taken;
    let (got_in, got_out) = dir.split(r.reserves_after);
    prop_assert_eq!(big(got_in), expected_in, "reserve_in += amount_in");
    prop_assert_eq!(big(got_out), expected_out, "reserve_out -= out + fees");
    prop_assert!(r.reserves_after.iter().all(|v| (1..=MAX_COINS).contains(v)));
    if matches!(pool.curve, Curve::DexAVolatile(_) | Curve::DexAStable(_)) {
        prop_assert_eq!((r.protocol_fee_out, r.ref_fee_out), (0, 0));
    }
    if referral.is_none() {
        prop_assert_eq!(r.ref_fee_out, 0);
    }
    let mut after = pool.clone();
    after.apply(r);
    prop_assert_eq!(after.reserves, r.reserves_after);
    Ok(result)
}

/// A swap's answer.
pub(crate) type Swapped = Result<SwapResult, PoolError>;

/// A swap's checks, run on each amount by [`check_monotone`]: the shared [`check_swap`] or a file's own that adds
/// to it.
pub(crate) type SwapCheck = fn(&Pool, u128, Direction, Option<Referral>) -> Result<Swapped, TestCaseError>;

/// Output is non-decreasing in the amount: swaps the smaller and the larger of `amounts` through `check`, and
/// where both succeed the smaller's `amount_out + ref_fee_out` (the monotone quantity with a referral) is at most
/// the larger's plus the tolerance `slack(pool, dir)`, and so is `amount_out` without a referral. Returns each
/// amount with its result, the smaller first.
pub(crate) fn check_monotone(
    pool: &Pool,
    amounts: (u128, u128),
    dir: Direction,
    referral: Option<Referral>,
    slack: fn(&Pool, Direction) -> u128,
    check: SwapCheck,
) -> Result<[(u128, Swapped); 2], TestCaseError> {
    let (a, b) = if amounts.0 <= amounts.1 { amounts } else { (amounts.1, amounts.0) };
    let tol = slack(pool, dir);
    let small = check(pool, a, dir, referral)?;
    let large = check(pool, b, dir, referral)?;
    if let (Ok(s), Ok(l)) = (&small, &large) {
        prop_assert!(
            s.amount_out + s.ref_fee_out <= l.amount_out + l.ref_fee_out + tol,
            "out({a}) = {s:?} > out({b}) = {l:?} + {tol}"
        );
        if referral.is_none() {
            prop_assert!(s.amount_out <= l.amount_out + tol);
        }
    }
    Ok([(a, small), (b, large)])
}
