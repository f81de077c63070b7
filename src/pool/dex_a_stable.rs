//! `dex_a` stable pools: the invariant x³y + y³x = k with the trade fee taken from the input.
//!
//! **Rounding not yet confirmed against the contract** (its source is closed). We solve the invariant
//! exactly in big integers: the new output balance is the *smallest* y' with f(x + net, y') ≥ k, so the
//! invariant never decreases and the output is rounded down. The fee is rounded up, as for volatile pools.
//! Balances are taken in raw units (the pools we route pair assets of equal decimals).

use primitive_types::{U256, U512};

use super::dex_a_volatile::finish;
use super::math::{divc, mul, to_u128};
use super::{Direction, PoolError, SwapResult, FEE_DIVIDER};

/// `dex_a` stable pool parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DexAStable {
    /// Trade fee in 1/10000, taken from the input.
    pub fee_bps: u16,
}

/// f(x, y) = x³y + y³x = xy(x² + y²); below 2^496 for coins below 2^124, so it fits U512.
fn invariant(x: u128, y: u128) -> U512 {
    let (x, y) = (U512::from(x), U512::from(y));
    x * y * (x * x + y * y)
}

impl DexAStable {
    /// One swap against `reserves`.
    pub fn swap(&self, reserves: [u128; 2], amount_in: u128, direction: Direction) -> Result<SwapResult, PoolError> {
        let (r_in, r_out) = direction.split(reserves);
        if r_in == 0 || r_out == 0 {
            return Err(PoolError::EmptyPool);
        }
        if u128::from(self.fee_bps) >= FEE_DIVIDER {
            return Err(PoolError::FeeOutOfRange(u32::from(self.fee_bps)));
        }
        let fee = to_u128(divc(mul(U256::from(amount_in), U256::from(self.fee_bps))?, U256::from(FEE_DIVIDER))?)?;
        let net = amount_in - fee.min(amount_in);
        if net == 0 {
            return Err(PoolError::ZeroOutput);
        }
        let k = invariant(r_in, r_out);
        let x = r_in.checked_add(net).ok_or(PoolError::ReserveOutOfRange)?;
        let y_new = smallest_y(x, k, r_out);
        finish(reserves, direction, amount_in, r_out - y_new)
    }

    /// Marginal price out/in before fees: (3x²y + y³) / (x³ + 3xy²), floats (ranking only).
    pub fn spot_price(&self, reserves: [u128; 2], direction: Direction) -> f64 {
        let (x, y) = direction.split(reserves);
        let (x, y) = (x as f64, y as f64);
        let den = x * x * x + 3.0 * x * y * y;
        if den > 0.0 {
            (3.0 * x * x * y + y * y * y) / den
        } else {
            0.0
        }
    }
}

/// Smallest y in 0..=hi with f(x, y) ≥ k (hi satisfies it, since x only grew). Newton from a float guess,
/// then an exact bracket search, so the answer is exact whatever the float error.
fn smallest_y(x: u128, k: U512, hi: u128) -> u128 {
    // Float guess of the root, then widen a bracket around it until it holds, then bisect exactly.
    let guess = newton_guess(x as f64, u512_to_f64(k), hi as f64);
    let g = if guess.is_finite() && guess > 0.0 { (guess as u128).min(hi) } else { hi };
    let mut step = (g / 1_000_000_000).max(1);
    let (mut lo, mut up) = (g.saturating_sub(step), g);
    while up < hi && invariant(x, up) < k {
        lo = up;
        up = up.saturating_add(step).min(hi);
        step = step.saturating_mul(2);
    }
    step = (g / 1_000_000_000).max(1);
    while lo > 0 && invariant(x, lo) >= k {
        up = lo;
        lo = lo.saturating_sub(step);
        step = step.saturating_mul(2);
    }
    // Invariant: f(x, up) ≥ k, and f(x, lo) < k unless lo == 0.
    if invariant(x, lo) >= k {
        return lo;
    }
    while up - lo > 1 {
        let mid = lo + (up - lo) / 2;
        if invariant(x, mid) >= k {
            up = mid;
        } else {
            lo = mid;
        }
    }
    up
}

fn newton_guess(x: f64, k: f64, y0: f64) -> f64 {
    let mut y = y0;
    for _ in 0..64 {
        let f = x * y * (x * x + y * y) - k;
        let df = x * x * x + 3.0 * x * y * y;
        if df <= 0.0 {
            break;
        }
        let next = y - f / df;
        if (next - y).abs() <= 0.5 {
            return next;
        }
        y = next;
    }
    y
}

fn u512_to_f64(v: U512) -> f64 {
    let bits = v.bits();
    if bits <= 64 {
        return v.low_u64() as f64;
    }
    let shift = bits - 64;
    ((v >> shift).low_u64() as f64) * 2f64.powi(i32::try_from(shift).unwrap_or(i32::MAX))
}
