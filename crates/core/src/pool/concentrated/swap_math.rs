//! `SwapMath.computeSwapStep` of the `dex_c` (TONCO) contract, Uniswap v3's, exact input with the fee in
//! 1/10000: one step of a swap towards a target price within one range — the input used, the output, the fee and
//! the price reached ([`swap_step`]).
//!
//! Owns the step and the fee's rounding; must not walk ticks (the pool's swap loop does, `super`).

use primitive_types::U256;

use super::sqrt_price_math::{amount0_delta, amount1_delta, next_sqrt_price_from_input};
use crate::pool::math::{muldivc, WordDivisor};
use crate::pool::{PoolError, FEE_DIVIDER};

/// The input less the fee, `⌊remaining·(D − fee)/D⌋`, in 128 bits: with `remaining = q·D + s` it is
/// `q·(D − fee) + ⌊s·(D − fee)/D⌋` (`q·(D − fee)` is below `remaining`, `s·(D − fee)` below D²), the
/// contract's 256-bit product and quotient; `D` divides through its reciprocal, made at compile time.
#[inline]
pub(super) fn less_fee(remaining: u128, fee: u128) -> u128 {
    const BY_D: WordDivisor = WordDivisor::new(FEE_DIVIDER);
    let m = FEE_DIVIDER - fee;
    let (q, s) = BY_D.div_words(0, remaining);
    q * m + (s * m) / FEE_DIVIDER
}

pub(super) struct Step {
    pub(super) next: U256,
    pub(super) amount_in: u128,
    pub(super) amount_out: u128,
    pub(super) fee: u128,
}

fn small(v: U256) -> Result<u128, PoolError> {
    u128::try_from(v).map_err(|_| PoolError::Overflow)
}

/// `SwapMath.computeSwapStep`, exact input, fee in 1/10000.
pub(super) fn swap_step(
    current: U256,
    target: U256,
    liquidity: u128,
    remaining: u128,
    fee: u128,
) -> Result<Step, PoolError> {
    let zero_for_one = current >= target;
    // ⌊remaining·m/D⌋ with m = D − fee, in 128 bits: remaining = q·D + s gives q·m + ⌊s·m/D⌋ (q·m is below
    // remaining, s·m below D²), the contract's 256-bit product and quotient without a 256-bit division.
    let less_fee = U256::from(less_fee(remaining, fee));
    let to_target = if zero_for_one {
        amount0_delta(target, current, liquidity, true)?
    } else {
        amount1_delta(current, target, liquidity, true)?
    };
    let next = if less_fee >= to_target {
        target
    } else {
        next_sqrt_price_from_input(current, liquidity, less_fee, zero_for_one)?
    };
    let max = next == target;
    let (amount_in, amount_out) = if zero_for_one {
        let i = if max { to_target } else { amount0_delta(next, current, liquidity, true)? };
        (i, amount1_delta(next, current, liquidity, false)?)
    } else {
        let i = if max { to_target } else { amount1_delta(current, next, liquidity, true)? };
        (i, amount0_delta(current, next, liquidity, false)?)
    };
    // Either amount_in ≤ less_fee ≤ remaining, or the step stops short and amount_in ≤ less_fee by the
    // choice of `next`.
    let amount_in = small(amount_in)?;
    let fee_amount = if next != target {
        remaining.checked_sub(amount_in).ok_or(PoolError::Overflow)?
    } else {
        small(muldivc(U256::from(amount_in), U256::from(fee), U256::from(FEE_DIVIDER - fee))?)?
    };
    Ok(Step { next, amount_in, amount_out: small(amount_out)?, fee: fee_amount })
}
