//! Integer helpers that reproduce TVM arithmetic on non-negative values, the one home of the pools' full-width
//! products and roundings (`muldiv`, `muldivc`, `divc`: also the `FullMath` of the concentrated pool's math).
//!
//! TVM integers are signed 257-bit: a non-negative result overflows (exit code 4) exactly when it is
//! ≥ 2^256, which is `U256` overflow. `muldiv` keeps a 513-bit intermediate, which `U512` holds.

use primitive_types::{U256, U512};

use super::{PoolError, FEE_DIVIDER};

#[inline]
pub(crate) fn add(a: U256, b: U256) -> Result<U256, PoolError> {
    a.checked_add(b).ok_or(PoolError::Overflow)
}

#[inline]
pub(crate) fn mul(a: U256, b: U256) -> Result<U256, PoolError> {
    if let (Some(a), Some(b)) = (word(a), word(b)) {
        // Two words: never past 2^256.
        return Ok(from_words(mul_high(a, b), a.wrapping_mul(b)));
    }
    a.checked_mul(b).ok_or(PoolError::Overflow)
}

/// FunC `/`: floor division; dividing by zero is exit code 4.
#[inline]
pub(crate) fn div(a: U256, b: U256) -> Result<U256, PoolError> {
    if b.is_zero() {
        return Err(PoolError::Overflow);
    }
    if let Some(b) = word(b) {
        return Ok(WordDivisor::new(b).div_u256(a).0);
    }
    Ok(a / b)
}

/// FunC `divc`, Uniswap's `UnsafeMath.divRoundingUp`: ceiling division of non-negative values.
#[inline]
pub(crate) fn divc(a: U256, b: U256) -> Result<U256, PoolError> {
    if b.is_zero() {
        return Err(PoolError::Overflow);
    }
    if let Some(b) = word(b) {
        let (q, r) = WordDivisor::new(b).div_u256(a);
        return if r == 0 { Ok(q) } else { add(q, U256::one()) };
    }
    let (q, r) = a.div_mod(b);
    if r.is_zero() {
        Ok(q)
    } else {
        add(q, U256::one())
    }
}

/// FunC `muldiv`, Uniswap's `FullMath.mulDiv`: floor(a·b/c) with a full-width intermediate; the result must fit.
#[inline]
pub(crate) fn muldiv(a: U256, b: U256, c: U256) -> Result<U256, PoolError> {
    if c.is_zero() {
        return Err(PoolError::Overflow);
    }
    if let (Some(a), Some(b), Some(c)) = (word(a), word(b), word(c)) {
        // A two-word product over a one-word divisor: the quotient fits 256 bits.
        return Ok(WordDivisor::new(c).div_u256(from_words(mul_high(a, b), a.wrapping_mul(b))).0);
    }
    let q = a.full_mul(b) / U512::from(c);
    U256::try_from(q).map_err(|_| PoolError::Overflow)
}

/// FunC `muldivc`, Uniswap's `FullMath.mulDivRoundingUp`: ceil(a·b/c) with a full-width intermediate; the
/// result must fit. Its callers are the concentrated pool's hot steps, whose divisors are mostly above 2^128
/// (`L·2^96 + amount·√P`) or a single limb (`10000 − fee`): a 256-bit quotient when the product fits, else a
/// 512-bit one (no word path: its reciprocal costs more than these divisions).
#[inline]
pub(crate) fn muldivc(a: U256, b: U256, c: U256) -> Result<U256, PoolError> {
    if c.is_zero() {
        return Err(PoolError::Overflow);
    }
    if let (p, false) = a.overflowing_mul(b) {
        let (q, r) = p.div_mod(c);
        // r ≠ 0 means p > q·c ≥ q, so q < 2^256 − 1.
        return Ok(if r.is_zero() { q } else { q + 1 });
    }
    let (q, r) = a.full_mul(b).div_mod(U512::from(c));
    let q = if r.is_zero() { q } else { q + 1 };
    U256::try_from(q).map_err(|_| PoolError::Overflow)
}

/// `ceil(base · fee / 10000)`: the output-side protocol and referral fees of the `dex_b` contracts.
#[inline]
pub(crate) fn ceil_fee(base: u128, fee: u16) -> Result<u128, PoolError> {
    // The divisor's reciprocal once, at compile time.
    const BY_FEE_DIVIDER: WordDivisor = WordDivisor::new(FEE_DIVIDER);
    let fee = u128::from(fee);
    let (q, r) = BY_FEE_DIVIDER.div_u256(from_words(mul_high(base, fee), base.wrapping_mul(fee)));
    to_u128(if r == 0 { q } else { add(q, U256::one())? })
}

// ---- Words: 256-bit values as two 128-bit words, division by a 128-bit divisor ----
//
// `primitive_types` multiplies and divides any width by loops over 64-bit limbs (division by Knuth's
// algorithm, each quotient digit a software 128-bit division). The pools' amounts, reserves, prices and
// liquidities are mostly below 2^128, where a product is two words and a quotient is a few 64-bit digits,
// each found by Möller and Granlund's division with a precomputed reciprocal ("Improved division by
// invariant integers", 2011, algorithms 5 and 6): multiplications only. Each helper returns exactly the
// integer result (`tests::word_arithmetic_matches_u256`), so the callers' floors and ceilings are the
// contracts'.

/// The high 128 bits of the 256-bit product `a·b` (schoolbook on 64-bit halves, exact).
#[inline]
pub(crate) fn mul_high(a: u128, b: u128) -> u128 {
    const LOW: u128 = u64::MAX as u128;
    let (a1, a0) = (a >> 64, a & LOW);
    let (b1, b0) = (b >> 64, b & LOW);
    let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
    // Each term is below 2^64: the sum of three fits 128 bits.
    let mid = (p00 >> 64) + (p01 & LOW) + (p10 & LOW);
    p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64)
}

/// A 256-bit number as its two 128-bit words (high, low).
#[inline]
pub(crate) fn words(v: U256) -> (u128, u128) {
    (u128::from(v.0[2]) | u128::from(v.0[3]) << 64, u128::from(v.0[0]) | u128::from(v.0[1]) << 64)
}

#[inline]
pub(crate) fn from_words(high: u128, low: u128) -> U256 {
    U256([low as u64, (low >> 64) as u64, high as u64, (high >> 64) as u64])
}

/// A value below 2^128, as `u128`.
#[inline]
pub(crate) fn word(v: U256) -> Option<u128> {
    (v.0[2] == 0 && v.0[3] == 0).then(|| v.low_u128())
}

/// A divisor `0 < d < 2^128`, normalised (shifted until its top bit is set) with its 3-by-2 reciprocal.
#[derive(Clone, Copy)]
pub(crate) struct WordDivisor {
    d: u128,
    shift: u32,
    v: u64,
}

impl WordDivisor {
    /// `d` must not be zero.
    #[inline]
    pub(crate) const fn new(d: u128) -> WordDivisor {
        let shift = d.leading_zeros();
        let d = d << shift;
        let (d1, d0) = ((d >> 64) as u64, d as u64);
        // reciprocal_word(d1) = ⌊(2^128 − 1)/d1⌋ − 2^64, then corrected for d0 (algorithm 6).
        let mut v = (u128::MAX / d1 as u128 - (1u128 << 64)) as u64;
        let mut p = d1.wrapping_mul(v).wrapping_add(d0);
        if p < d0 {
            v = v.wrapping_sub(1);
            if p >= d1 {
                v = v.wrapping_sub(1);
                p = p.wrapping_sub(d1);
            }
            p = p.wrapping_sub(d1);
        }
        let t = v as u128 * d0 as u128;
        let (t1, t0) = ((t >> 64) as u64, t as u64);
        p = p.wrapping_add(t1);
        if p < t1 {
            v = v.wrapping_sub(1);
            if p > d1 || (p == d1 && t0 >= d0) {
                v = v.wrapping_sub(1);
            }
        }
        WordDivisor { d, shift, v }
    }

    /// One quotient digit: `(r·2^64 + u) / d` for `r < d` (normalised), and the remainder (algorithm 5).
    #[inline]
    fn step(&self, r: u128, u: u64) -> (u64, u128) {
        let (u2, u1) = ((r >> 64) as u64, r as u64);
        let d1 = (self.d >> 64) as u64;
        let q = (self.v as u128 * u2 as u128).wrapping_add(r);
        let (mut q1, q0) = ((q >> 64) as u64, q as u64);
        let r1 = u1.wrapping_sub(q1.wrapping_mul(d1));
        let t = (self.d as u64) as u128 * q1 as u128;
        let mut r = ((r1 as u128) << 64 | u as u128).wrapping_sub(t).wrapping_sub(self.d);
        q1 = q1.wrapping_add(1);
        if (r >> 64) as u64 >= q0 {
            q1 = q1.wrapping_sub(1);
            r = r.wrapping_add(self.d);
        }
        if r >= self.d {
            q1 += 1;
            r -= self.d;
        }
        (q1, r)
    }

    /// `(high·2^128 + low) / d` and the remainder, for `high < d` (so the quotient fits 128 bits).
    #[inline]
    pub(crate) fn div_words(&self, high: u128, low: u128) -> (u128, u128) {
        let s = self.shift;
        // high < d, so the shifted top word is below the normalised divisor.
        let top = if s == 0 { high } else { high << s | low >> (128 - s) };
        let low = low << s;
        let (q1, r) = self.step(top, (low >> 64) as u64);
        let (q0, r) = self.step(r, low as u64);
        ((q1 as u128) << 64 | q0 as u128, r >> s)
    }

    /// `⌊v/d⌋` and the remainder of a 256-bit `v`.
    #[inline]
    pub(crate) fn div_u256(&self, v: U256) -> (U256, u128) {
        let (high, low) = words(v);
        if high == 0 {
            let (q, r) = self.div_words(0, low);
            return (U256::from(q), r);
        }
        let s = self.shift;
        // v·2^s in three words, then six 64-bit digits from the top, each step's remainder below d.
        let (w2, w1, w0) =
            if s == 0 { (0, high, low) } else { (high >> (128 - s), high << s | low >> (128 - s), low << s) };
        let mut r = 0u128;
        let mut q = [0u64; 6];
        let digits = [(w2 >> 64) as u64, w2 as u64, (w1 >> 64) as u64, w1 as u64, (w0 >> 64) as u64, w0 as u64];
        // Leading zero digits give zero quotient digits and leave the remainder at zero.
        let first = digits.iter().position(|&u| u != 0).unwrap_or(6);
        for i in first..6 {
            (q[i], r) = self.step(r, digits[i]);
        }
        // v/d < 2^256: the two top digits are zero.
        (U256([q[5], q[4], q[3], q[2]]), r >> s)
    }
}

/// Narrows to `u128`; a value that does not fit could never be a coin amount, so it is an overflow.
#[inline]
pub(crate) fn to_u128(v: U256) -> Result<u128, PoolError> {
    u128::try_from(v).map_err(|_| PoolError::Overflow)
}

/// |a − b| for the convergence tests of the stable-swap iterations.
#[inline]
pub(crate) fn abs_diff(a: U256, b: U256) -> U256 {
    if a >= b {
        a - b
    } else {
        b - a
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// xorshift64: reproducible pseudo-random words.
    pub(crate) fn next(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    /// A pseudo-random 128-bit number with a pseudo-random bit length (every magnitude, zero included).
    pub(crate) fn random_word(x: &mut u64) -> u128 {
        let bits = next(x) % 129;
        let v = (u128::from(next(x)) << 64) | u128::from(next(x));
        if bits == 0 {
            0
        } else {
            v >> (128 - bits)
        }
    }

    /// A pseudo-random 256-bit number with a pseudo-random bit length up to `max_bits` (every magnitude).
    pub(crate) fn random(x: &mut u64, max_bits: u64) -> U256 {
        let bits = (next(x) % (max_bits + 1)) as usize;
        let v = U256([next(x), next(x), next(x), next(x)]);
        if bits == 0 {
            U256::zero()
        } else {
            v >> (256 - bits)
        }
    }

    #[test]
    fn word_arithmetic_matches_u256() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let edges = [
            1,
            2,
            3,
            10_000,
            u64::MAX as u128,
            1 << 64,
            (1 << 64) + 1,
            1 << 127,
            (1 << 127) + 1,
            u128::MAX - 1,
            u128::MAX,
        ];
        let divisors = (0..200_000).map(|_| random(&mut x, 128).low_u128().max(1)).chain(edges);
        let mut y = 0x9e37_79b9_7f4a_7c15u64;
        for d in divisors {
            let by = WordDivisor::new(d);
            let wide = U256::from(d);
            let v = random(&mut y, 256);
            let (q, r) = by.div_u256(v);
            assert_eq!((q, U256::from(r)), v.div_mod(wide), "{v} / {d}");
            let (high, low) = (random(&mut y, 128).low_u128() % d, random(&mut y, 128).low_u128());
            let (q, r) = by.div_words(high, low);
            assert_eq!((U256::from(q), U256::from(r)), from_words(high, low).div_mod(wide), "{high} {low} / {d}");
            for (high, low) in [(d - 1, u128::MAX), (d - 1, 0), (0, u128::MAX), (0, d - 1), (0, d)] {
                let (q, r) = by.div_words(high, low);
                assert_eq!((U256::from(q), U256::from(r)), from_words(high, low).div_mod(wide), "{high} {low} / {d}");
            }
            for v in [U256::MAX, U256::zero(), from_words(u128::MAX, 0), from_words(d, d)] {
                let (q, r) = by.div_u256(v);
                assert_eq!((q, U256::from(r)), v.div_mod(wide), "{v} / {d}");
            }
            let (a, b) = (random(&mut y, 128).low_u128(), random(&mut y, 128).low_u128());
            assert_eq!(from_words(mul_high(a, b), a.wrapping_mul(b)), U256::from(a) * U256::from(b));
        }
    }

    #[test]
    fn the_word_paths_of_the_helpers_match_the_wide_ones() {
        let mut x = 0x0123_4567_89ab_cdefu64;
        for _ in 0..100_000 {
            let (a, b, c) = (random(&mut x, 160), random(&mut x, 160), random(&mut x, 160));
            assert_eq!(mul(a, b), a.checked_mul(b).ok_or(PoolError::Overflow));
            let want = if c.is_zero() {
                Err(PoolError::Overflow)
            } else {
                U256::try_from(a.full_mul(b) / U512::from(c)).map_err(|_| PoolError::Overflow)
            };
            assert_eq!(muldiv(a, b, c), want, "{a} {b} {c}");
            let want = if c.is_zero() {
                Err(PoolError::Overflow)
            } else {
                let (q, r) = a.full_mul(b).div_mod(U512::from(c));
                U256::try_from(if r.is_zero() { q } else { q + 1 }).map_err(|_| PoolError::Overflow)
            };
            assert_eq!(muldivc(a, b, c), want, "{a} {b} {c}");
            let want = if c.is_zero() { Err(PoolError::Overflow) } else { Ok(a / c) };
            assert_eq!(div(a, c), want);
            let want = if c.is_zero() {
                Err(PoolError::Overflow)
            } else {
                let (q, r) = a.div_mod(c);
                if r.is_zero() {
                    Ok(q)
                } else {
                    q.checked_add(U256::one()).ok_or(PoolError::Overflow)
                }
            };
            assert_eq!(divc(a, c), want);
            let (base, fee) = (random(&mut x, 128).low_u128(), next(&mut x) as u16);
            let want = divc(U256::from(base) * U256::from(fee), U256::from(FEE_DIVIDER)).and_then(to_u128);
            assert_eq!(ceil_fee(base, fee), want, "{base} {fee}");
        }
    }
}
