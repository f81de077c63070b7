//! `SqrtPriceMath` of the `dex_c` (TONCO) contract, Uniswap v3's: the token amounts between two sqrt prices at a
//! liquidity ([`amount0_delta`], [`amount1_delta`], rounded up or down as the contract rounds) and the price an
//! exact input moves to ([`next_sqrt_price_from_input`]), with word-sized fast paths that give the same integers.
//!
//! Owns these formulas; must not know ticks or fees (see `super::tick_math`, `super::swap_math`).

use primitive_types::{U256, U512};

use crate::pool::math::{divc, from_words, mul_high, muldiv, muldivc, WordDivisor};
use crate::pool::PoolError;

/// `getAmount0Delta`: `L·2^96·(B − A)/B/A`, up (nested ceilings) or down.
pub(super) fn amount0_delta(a: U256, b: U256, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    let (a, b) = if a > b { (b, a) } else { (a, b) };
    if b.bits() <= 128 && !a.is_zero() {
        return amount0_delta_words(a.low_u128(), b.low_u128(), liquidity, up);
    }
    amount0_delta_wide(a, b, liquidity, up)
}

/// [`amount0_delta`] in 256/512-bit arithmetic, for ordered prices of any size.
fn amount0_delta_wide(a: U256, b: U256, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    let n1 = U256::from(liquidity) << 96;
    let n2 = b - a;
    if up {
        divc(muldivc(n1, n2, b)?, a)
    } else {
        let q = muldiv(n1, n2, b)?;
        if a.is_zero() {
            return Err(PoolError::Overflow);
        }
        Ok(q / a)
    }
}

/// [`amount0_delta`] for prices `0 < a ≤ b < 2^128` (√P below 2^32, every pool with a price below 2^64):
/// `n1·n2 = L·(b − a)·2^96` is three 128-bit words, divided by `b` word by word, the quotient (which must fit
/// 256 bits, as `muldiv` requires) then by `a`; floors, or ceilings at both divisions for `up`.
pub(super) fn amount0_delta_words(a: u128, b: u128, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    let n2 = b - a;
    let (high, low) = (mul_high(liquidity, n2), liquidity.wrapping_mul(n2));
    // (high·2^128 + low)·2^96 as words w2·2^256 + w1·2^128 + w0.
    let (w2, w1, w0) = (high >> 32, high << 96 | low >> 32, low << 96);
    if w2 >= b {
        // The quotient by b needs more than 256 bits: `muldiv`'s overflow.
        return Err(PoolError::Overflow);
    }
    let by_b = WordDivisor::new(b);
    let (q1, r) = by_b.div_words(w2, w1);
    let (q0, r) = by_b.div_words(r, w0);
    let q = from_words(q1, q0);
    let q = if up && r != 0 { q.checked_add(U256::one()).ok_or(PoolError::Overflow)? } else { q };
    let (q, r) = WordDivisor::new(a).div_u256(q);
    Ok(if up && r != 0 { q + 1 } else { q })
}

/// `getAmount1Delta`: `L·(B − A)/2^96`, up or down.
pub(super) fn amount1_delta(a: U256, b: U256, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    let (a, b) = if a > b { (b, a) } else { (a, b) };
    let d = b - a;
    if d.bits() <= 128 {
        // The usual case (prices within a factor 2^32 of each other): a 128 × 128-bit product, whose
        // quotient by 2^96 is below 2^160; the same shift and rounding as below, in words.
        let d = d.low_u128();
        let (high, low) = (mul_high(liquidity, d), liquidity.wrapping_mul(d));
        let floor = U256([(low >> 96 | high << 32) as u64, (high >> 32) as u64, (high >> 96) as u64, 0]);
        let exact = low & ((1u128 << 96) - 1) == 0;
        return Ok(if up && !exact { floor + 1 } else { floor });
    }
    amount1_delta_wide(d, liquidity, up)
}

/// [`amount1_delta`] of a price difference `d` in 512-bit arithmetic.
fn amount1_delta_wide(d: U256, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    // Dividing by 2^96 is a shift: floor is `>> 96`, ceiling adds one when any of the low 96 bits is set.
    let p = U256::from(liquidity).full_mul(d);
    let floor = p >> 96;
    let q = if up && !(p & ((U512::one() << 96) - 1)).is_zero() { floor + 1 } else { floor };
    U256::try_from(q).map_err(|_| PoolError::Overflow)
}

/// `getNextSqrtPriceFromInput` (exact input; `L > 0`).
pub(super) fn next_sqrt_price_from_input(
    p: U256,
    liquidity: u128,
    amount: U256,
    zero_for_one: bool,
) -> Result<U256, PoolError> {
    if zero_for_one {
        if amount.is_zero() {
            return Ok(p);
        }
        let n1 = U256::from(liquidity) << 96;
        // The SDK multiplies in 256 bits and falls back when the product or the sum wraps.
        let (product, wrapped) = amount.overflowing_mul(p);
        if !wrapped {
            let (den, wrapped) = n1.overflowing_add(product);
            if !wrapped {
                return muldivc(n1, p, den);
            }
        }
        let den = (n1 / p).checked_add(amount).ok_or(PoolError::Overflow)?;
        divc(n1, den)
    } else {
        // (amount << 96) / L; amount < 2^120 keeps the shift within 256 bits.
        if liquidity == 0 {
            return Err(PoolError::Overflow);
        }
        let q = if amount.bits() <= 160 {
            WordDivisor::new(liquidity).div_u256(amount << 96).0
        } else {
            muldiv(amount, U256::one() << 96, U256::from(liquidity))?
        };
        p.checked_add(q).ok_or(PoolError::Overflow)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The word-arithmetic tests' reproducible pseudo-random numbers.
    use crate::pool::math::tests::random as random_u256;

    #[test]
    fn the_word_paths_of_the_deltas_match_the_wide_ones() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..100_000 {
            // Prices below 2^128 (the word paths' domain), near each other or not, liquidity of any size.
            let a = random_u256(&mut x, 128).max(U256::one());
            let b = if i % 2 == 0 { a + random_u256(&mut x, 100) } else { random_u256(&mut x, 128).max(a) };
            let b = if b.bits() > 128 { a } else { b };
            let liquidity = random_u256(&mut x, 128).low_u128();
            for up in [false, true] {
                assert_eq!(
                    amount0_delta(a, b, liquidity, up),
                    amount0_delta_wide(a, b, liquidity, up),
                    "{a} {b} {liquidity} {up}"
                );
                assert_eq!(amount1_delta(a, b, liquidity, up), amount1_delta_wide(b - a, liquidity, up));
            }
            let amount = random_u256(&mut x, 160);
            let want = if liquidity == 0 {
                Err(PoolError::Overflow)
            } else {
                muldiv(amount, U256::one() << 96, U256::from(liquidity))
                    .and_then(|q| a.checked_add(q).ok_or(PoolError::Overflow))
            };
            assert_eq!(next_sqrt_price_from_input(a, liquidity, amount, false), want);
        }
    }
}
