//! `dex_a`'s swap formulas written out in num-bigint from research/pool-math.md §4, independent of the crate
//! under test (nothing here uses `tonroute`): the reference of `tests/it/dex_a_curves.rs` and of the
//! expected amounts of `benches/pool_math.rs` (which includes this file by path). The fee is the caller's.

use num_bigint::BigUint;

/// Volatile: `floor(net·R_out / (R_in + net))` for `net` the amount in after the fee.
pub(crate) fn volatile_out(r_in: &BigUint, r_out: &BigUint, net: &BigUint) -> BigUint {
    net * r_out / (r_in + net)
}

/// Stable: `R_out − y'` with `y'` the smallest integer such that `x'·y'·(x'² + y'²) ≥ R_in·R_out·(R_in² +
/// R_out²)`, `x' = R_in + net`, found by plain bisection (not the crate's Newton solver).
pub(crate) fn stable_out(r_in: &BigUint, r_out: &BigUint, net: &BigUint) -> BigUint {
    let x = r_in + net;
    let k = r_in * r_out * (r_in * r_in + r_out * r_out);
    let f = |y: &BigUint| &x * y * (&x * &x + y * y);
    // Smallest y' in [0, r_out] with f(y') ≥ k: f(r_out) ≥ k since x' ≥ r_in, and f(0) = 0 < k.
    let (mut lo, mut hi) = (BigUint::ZERO, r_out.clone());
    while &hi - &lo > BigUint::from(1u8) {
        let mid = (&lo + &hi) >> 1;
        if f(&mid) >= k {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    let y_new = if f(&lo) >= k { lo } else { hi };
    r_out - y_new
}
