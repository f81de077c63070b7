//! 1e18 fixed-point math as the `dex_b_v2` weighted pools run it: a line-by-line port of
//! `@ston-fi/funcbox` 0.1.4 `contracts/math/fp/fp.fc` (itself Balancer's `LogExpMath` and `FixedPoint`).
//!
//! Owns the signed 257-bit integer [`Int`] that reproduces TVM arithmetic where the library goes negative
//! (logarithms of values below one, negative exponents, Newton steps), and the library's functions with its
//! exact rounding: FunC `/`, `%` and `muldiv` all round toward −∞. Every TVM overflow is
//! [`PoolError::Overflow`] (exit code 4); the library's own throws keep their exit codes. Knows nothing about
//! pools or fees.
//!
//! One deliberate narrowing: TVM integers reach down to −2^256, [`Int`] only to −(2^256 − 1). A value of
//! exactly −2^256 would be reported as an overflow; no computation here comes near it.

use std::cmp::Ordering;

use primitive_types::{U256, U512};

use super::math::{from_words, mul_high, word, WordDivisor};
use super::PoolError;

/// A TVM integer: sign and magnitude, the magnitude below 2^256. Zero is never negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Int {
    neg: bool,
    mag: U256,
}

const fn u(v: u128) -> U256 {
    // `U256::from` is not const; the two low limbs carry any u128.
    U256([v as u64, (v >> 64) as u64, 0, 0])
}

impl Int {
    pub(crate) const ZERO: Int = Int { neg: false, mag: U256([0; 4]) };

    /// A non-negative value.
    #[inline]
    pub(crate) const fn pos(mag: U256) -> Int {
        Int { neg: false, mag }
    }

    #[inline]
    pub(crate) const fn from_u128(v: u128) -> Int {
        Int::pos(u(v))
    }

    #[cfg(test)]
    pub(crate) fn from_i64(v: i64) -> Int {
        Int::signed(v < 0, U256::from(v.unsigned_abs()))
    }

    #[inline]
    const fn neg_of(v: u128) -> Int {
        Int { neg: true, mag: u(v) }
    }

    #[inline]
    fn signed(neg: bool, mag: U256) -> Int {
        Int { neg: neg && !mag.is_zero(), mag }
    }

    #[inline]
    pub(crate) fn is_zero(self) -> bool {
        self.mag.is_zero()
    }

    #[inline]
    pub(crate) fn is_neg(self) -> bool {
        self.neg
    }

    /// The magnitude, for callers that checked the sign.
    #[inline]
    pub(crate) fn magnitude(self) -> U256 {
        self.mag
    }

    #[inline]
    pub(crate) fn negate(self) -> Int {
        Int::signed(!self.neg, self.mag)
    }

    #[inline]
    pub(crate) fn add(self, o: Int) -> Result<Int, PoolError> {
        if self.neg == o.neg {
            let mag = match (word(self.mag), word(o.mag)) {
                // Two words: the sum and its carry (never past 2^256).
                (Some(a), Some(b)) => {
                    let (sum, carry) = a.overflowing_add(b);
                    from_words(u128::from(carry), sum)
                }
                _ => self.mag.checked_add(o.mag).ok_or(PoolError::Overflow)?,
            };
            Ok(Int::signed(self.neg, mag))
        } else if self.mag >= o.mag {
            Ok(Int::signed(self.neg, self.mag - o.mag))
        } else {
            Ok(Int::signed(o.neg, o.mag - self.mag))
        }
    }

    #[inline]
    pub(crate) fn sub(self, o: Int) -> Result<Int, PoolError> {
        self.add(o.negate())
    }

    #[inline]
    pub(crate) fn mul(self, o: Int) -> Result<Int, PoolError> {
        let mag = match (word(self.mag), word(o.mag)) {
            // Two words: never past 2^256.
            (Some(a), Some(b)) => from_words(mul_high(a, b), a.wrapping_mul(b)),
            _ => self.mag.checked_mul(o.mag).ok_or(PoolError::Overflow)?,
        };
        Ok(Int::signed(self.neg != o.neg, mag))
    }

    /// FunC `/`: the quotient rounded toward −∞; a zero divisor is exit code 4.
    #[inline]
    pub(crate) fn div(self, d: Int) -> Result<Int, PoolError> {
        if d.is_zero() {
            return Err(PoolError::Overflow);
        }
        let (q, inexact) = match word(d.mag) {
            Some(w) => {
                let (q, r) = word_divisor(w).div_u256(self.mag);
                (q, r != 0)
            }
            None => {
                let (q, r) = self.mag.div_mod(d.mag);
                (q, !r.is_zero())
            }
        };
        floor_signed(self.neg != d.neg, q, inexact)
    }

    /// FunC `%` for a positive divisor: the remainder of the floor division, in `0..d`.
    #[inline]
    fn rem_pos(self, d: U256) -> Int {
        let r = match word(d) {
            Some(w) => U256::from(word_divisor(w).div_u256(self.mag).1),
            None => self.mag % d,
        };
        if self.neg && !r.is_zero() {
            Int::pos(d - r)
        } else {
            Int::pos(r)
        }
    }

    /// FunC `divc`: the quotient rounded toward +∞.
    #[inline]
    pub(crate) fn divc(self, d: Int) -> Result<Int, PoolError> {
        // ceil(a/d) = −floor(−a/d)
        Ok(self.negate().div(d)?.negate())
    }
}

impl PartialOrd for Int {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Int {
    fn cmp(&self, o: &Self) -> Ordering {
        match (self.neg, o.neg) {
            (false, false) => self.mag.cmp(&o.mag),
            (true, true) => o.mag.cmp(&self.mag),
            (false, true) => Ordering::Greater,
            (true, false) => Ordering::Less,
        }
    }
}

/// A floor quotient from a truncated magnitude `q`: negative results with a remainder move one further down.
#[inline]
fn floor_signed(neg: bool, q: U256, inexact: bool) -> Result<Int, PoolError> {
    if neg && inexact {
        Ok(Int::signed(true, q.checked_add(U256::one()).ok_or(PoolError::Overflow)?))
    } else {
        Ok(Int::signed(neg, q))
    }
}

/// The reciprocal of a one-word divisor; the library's constant divisors (the fixed-point scales, the series'
/// denominators) have theirs computed at compile time, any other is computed here.
#[inline]
fn word_divisor(c: u128) -> WordDivisor {
    const fn by(c: u128) -> WordDivisor {
        WordDivisor::new(c)
    }
    const E18: u128 = 1_000_000_000_000_000_000;
    const E20: u128 = 100 * E18;
    match c {
        E18 => const { by(E18) },
        E20 => const { by(E20) },
        1_000_000_000_000_000_000_000_000_000_000_000_000 => const { by(E18 * E18) },
        100 => const { by(100) },
        3 => const { by(3) },
        5 => const { by(5) },
        7 => const { by(7) },
        9 => const { by(9) },
        11 => const { by(11) },
        13 => const { by(13) },
        15 => const { by(15) },
        // exp's series: 1e20 · n for n = 2..=12.
        200_000_000_000_000_000_000 => const { by(2 * E20) },
        300_000_000_000_000_000_000 => const { by(3 * E20) },
        400_000_000_000_000_000_000 => const { by(4 * E20) },
        500_000_000_000_000_000_000 => const { by(5 * E20) },
        600_000_000_000_000_000_000 => const { by(6 * E20) },
        700_000_000_000_000_000_000 => const { by(7 * E20) },
        800_000_000_000_000_000_000 => const { by(8 * E20) },
        900_000_000_000_000_000_000 => const { by(9 * E20) },
        1_000_000_000_000_000_000_000 => const { by(10 * E20) },
        1_100_000_000_000_000_000_000 => const { by(11 * E20) },
        1_200_000_000_000_000_000_000 => const { by(12 * E20) },
        _ => WordDivisor::new(c),
    }
}

/// FunC `muldiv`: floor(a·b/c) with a 513-bit intermediate; the quotient must fit.
#[inline]
pub(crate) fn muldiv(a: Int, b: Int, c: Int) -> Result<Int, PoolError> {
    if c.is_zero() {
        return Err(PoolError::Overflow);
    }
    let (q, r) = div_mod_wide(a.mag, b.mag, c.mag)?;
    // Zero operands carry no sign, so the sign of the product is read only when it is non-zero.
    let neg = !a.is_zero() && !b.is_zero() && (a.neg ^ b.neg ^ c.neg);
    floor_signed(neg, q, !r.is_zero())
}

/// (a·b / c, a·b mod c) for c ≠ 0, with the narrowest arithmetic that holds the product; the quotient must
/// fit 256 bits. The narrow paths are only speed: they compute the same numbers as the 513-bit one.
#[inline]
fn div_mod_wide(a: U256, b: U256, c: U256) -> Result<(U256, U256), PoolError> {
    if let (Some(a), Some(b), Some(c)) = (word(a), word(b), word(c)) {
        // A two-word product over a one-word divisor (`super::math`'s word arithmetic): the quotient fits.
        let (q, r) = word_divisor(c).div_u256(from_words(mul_high(a, b), a.wrapping_mul(b)));
        return Ok((q, U256::from(r)));
    }
    if let (p, false) = a.overflowing_mul(b) {
        return Ok(p.div_mod(c));
    }
    let (q, r) = a.full_mul(b).div_mod(U512::from(c));
    let q = U256::try_from(q).map_err(|_| PoolError::Overflow)?;
    // r < c < 2^256.
    Ok((q, U256::try_from(r).map_err(|_| PoolError::Overflow)?))
}

// ---- constants of funcbox `contracts/math/math.fc` ----

pub(crate) const ONE_18: Int = Int::from_u128(1_000_000_000_000_000_000);
const ONE_20: Int = Int::from_u128(100_000_000_000_000_000_000);
const ONE_36: Int = Int::from_u128(1_000_000_000_000_000_000_000_000_000_000_000_000);
const MAX_NATURAL_EXPONENT: Int = Int::from_u128(130_000_000_000_000_000_000);
const MIN_NATURAL_EXPONENT: Int = Int::neg_of(41_000_000_000_000_000_000);
const LN_36_LOWER_BOUND: Int = Int::from_u128(900_000_000_000_000_000);
const LN_36_UPPER_BOUND: Int = Int::from_u128(1_100_000_000_000_000_000);
/// 2^254 / 1e20.
const MILD_EXPONENT_BOUND: Int = Int::pos(U256([0x4181ea8059f76532, 0xa88f4bb1ca6bcf58, 0xbce5086492111ae, 0]));
const E: Int = Int::from_u128(2_718_281_828_459_045_235);
const X0: Int = Int::from_u128(128_000_000_000_000_000_000);
/// e^128, no decimals: 38877084059945950922200000000000000000000000000000000000.
const A0: Int = Int::pos(U256([0x262827000000000, 0xf53a27172fa9ec63, 0x195e54c5dd42177, 0]));
/// `A0 · ONE_18`.
const A0_18: Int = Int::pos(U256([0x3c0000000000000, 0x64c63b5372d805e2, 0x2e933ec884fde100, 0x1600ef3172e58d]));
const X1: Int = Int::from_u128(64_000_000_000_000_000_000);
const A1: Int = Int::from_u128(6_235_149_080_811_616_882_910_000_000);
/// `A1 · ONE_18`.
const A1_18: Int = Int::pos(U256([0x4cf44619e000000, 0x4d755d3c8bc8e032, 0x1179800, 0]));
/// `(x_k, a_k)` for k = 2..=11, 20 decimals.
const XA: [(Int, Int); 10] = [
    (Int::from_u128(3_200_000_000_000_000_000_000), Int::from_u128(7_896_296_018_268_069_516_100_000_000_000_000)),
    (Int::from_u128(1_600_000_000_000_000_000_000), Int::from_u128(888_611_052_050_787_263_676_000_000)),
    (Int::from_u128(800_000_000_000_000_000_000), Int::from_u128(298_095_798_704_172_827_474_000)),
    (Int::from_u128(400_000_000_000_000_000_000), Int::from_u128(5_459_815_003_314_423_907_810)),
    (Int::from_u128(200_000_000_000_000_000_000), Int::from_u128(738_905_609_893_065_022_723)),
    (Int::from_u128(100_000_000_000_000_000_000), Int::from_u128(271_828_182_845_904_523_536)),
    (Int::from_u128(50_000_000_000_000_000_000), Int::from_u128(164_872_127_070_012_814_685)),
    (Int::from_u128(25_000_000_000_000_000_000), Int::from_u128(128_402_541_668_774_148_407)),
    (Int::from_u128(12_500_000_000_000_000_000), Int::from_u128(113_314_845_306_682_631_683)),
    (Int::from_u128(6_250_000_000_000_000_000), Int::from_u128(106_449_445_891_785_942_956)),
];
const MAX_POW_RELATIVE_ERROR: Int = Int::from_u128(10_000);
const HUNDRED: Int = Int::from_u128(100);

// funcbox error codes (`math.fc`).
const ERR_X_OUT_OF_BOUNDS: u32 = 50_001;
const ERR_Y_OUT_OF_BOUNDS: u32 = 50_002;
const ERR_PRODUCT_OUT_OF_BOUNDS: u32 = 50_003;
const ERR_INVALID_EXPONENT: u32 = 50_004;
const ERR_ZERO_DIVISION: u32 = 50_008;

#[inline]
fn domain(exit_code: u32) -> PoolError {
    PoolError::FixedPointDomain { exit_code }
}

// ---- public functions of fp.fc ----

/// `math::fp::mul`: floor(a·b / 1e18).
#[inline]
pub(crate) fn mul(a: Int, b: Int) -> Result<Int, PoolError> {
    muldiv(a, b, ONE_18)
}

/// `math::fp::div`: floor(a·1e18 / b), exit 50008 on a zero divisor.
#[inline]
pub(crate) fn div(a: Int, b: Int) -> Result<Int, PoolError> {
    if b.is_zero() {
        return Err(domain(ERR_ZERO_DIVISION));
    }
    muldiv(a, ONE_18, b)
}

/// `math::fp::div_up`: `a == 0 ? 0 : (a·1e18 − 1) / b + 1`.
#[inline]
pub(crate) fn div_up(a: Int, b: Int) -> Result<Int, PoolError> {
    if b.is_zero() {
        return Err(domain(ERR_ZERO_DIVISION));
    }
    if a.is_zero() {
        return Ok(Int::ZERO);
    }
    a.mul(ONE_18)?.sub(Int::from_u128(1))?.div(b)?.add(Int::from_u128(1))
}

/// `math::fp::from`: adds 18 decimals.
#[inline]
pub(crate) fn from(x: Int) -> Result<Int, PoolError> {
    x.mul(ONE_18)
}

/// `math::fp::to`: drops 18 decimals, rounding toward −∞.
#[inline]
pub(crate) fn to(x: Int) -> Result<Int, PoolError> {
    x.div(ONE_18)
}

/// `math::fp::complement`: 1 − x, exit 51002 unless 0 ≤ x ≤ 1.
#[inline]
pub(crate) fn complement(x: Int) -> Result<Int, PoolError> {
    if x.is_neg() || x > ONE_18 {
        return Err(PoolError::ComplementOutOfRange);
    }
    ONE_18.sub(x)
}

/// `__fp_math::ln_36`: ln(x) with 36 decimals, for x near 1 (x has 18 decimals).
fn ln_36(x: Int) -> Result<Int, PoolError> {
    let x = x.mul(ONE_18)?;
    let z = muldiv(x.sub(ONE_36)?, ONE_36, x.add(ONE_36)?)?;
    let z_squared = muldiv(z, z, ONE_36)?;
    let mut num = z;
    let mut series_sum = num;
    for d in [3u128, 5, 7, 9, 11, 13, 15] {
        num = muldiv(num, z_squared, ONE_36)?;
        series_sum = series_sum.add(num.div(Int::from_u128(d))?)?;
    }
    series_sum.mul(Int::from_u128(2))
}

/// `__fp_math::ln`: ln(a) with 18 decimals, by the a0..a11 decomposition and a short series.
fn ln(a: Int) -> Result<Int, PoolError> {
    if a < ONE_18 {
        return Ok(ln(muldiv(ONE_18, ONE_18, a)?)?.negate());
    }
    let mut a = a;
    let mut sum = Int::ZERO;
    if a >= A0_18 {
        a = a.div(A0)?;
        sum = sum.add(X0)?;
    }
    if a >= A1_18 {
        a = a.div(A1)?;
        sum = sum.add(X1)?;
    }
    sum = sum.mul(HUNDRED)?;
    a = a.mul(HUNDRED)?;
    for (xk, ak) in XA {
        if a >= ak {
            a = muldiv(a, ONE_20, ak)?;
            sum = sum.add(xk)?;
        }
    }
    let z = muldiv(a.sub(ONE_20)?, ONE_20, a.add(ONE_20)?)?;
    let z_squared = muldiv(z, z, ONE_20)?;
    let mut num = z;
    let mut series_sum = num;
    for d in [3u128, 5, 7, 9, 11] {
        num = muldiv(num, z_squared, ONE_20)?;
        series_sum = series_sum.add(num.div(Int::from_u128(d))?)?;
    }
    series_sum = series_sum.mul(Int::from_u128(2))?;
    sum.add(series_sum)?.div(HUNDRED)
}

/// `math::fp::exp`: e^x, x with 18 decimals in −41..=130.
pub(crate) fn exp(x: Int) -> Result<Int, PoolError> {
    if x == ONE_18 {
        return Ok(E);
    }
    if x < MIN_NATURAL_EXPONENT || x > MAX_NATURAL_EXPONENT {
        return Err(domain(ERR_INVALID_EXPONENT));
    }
    if x.is_neg() {
        return muldiv(ONE_18, ONE_18, exp(x.negate())?);
    }
    let mut x = x;
    let first_an = if x >= X0 {
        x = x.sub(X0)?;
        A0
    } else if x >= X1 {
        x = x.sub(X1)?;
        A1
    } else {
        Int::from_u128(1)
    };
    x = x.mul(HUNDRED)?;
    let mut product = ONE_20;
    // funcbox applies a2..a9 only; a10 and a11 are for ln.
    for &(xk, ak) in &XA[..8] {
        if x >= xk {
            x = x.sub(xk)?;
            product = muldiv(product, ak, ONE_20)?;
        }
    }
    let mut series_sum = ONE_20;
    let mut term = x;
    series_sum = series_sum.add(term)?;
    for n in 2u128..=12 {
        term = muldiv(term, x, ONE_20.mul(Int::from_u128(n))?)?;
        series_sum = series_sum.add(term)?;
    }
    muldiv(muldiv(product, series_sum, ONE_20)?, first_an, HUNDRED)
}

/// `math::fp::pow`: x^y = exp(y·ln x), both with 18 decimals (the pools call it through [`Base`]).
#[cfg(test)]
pub(crate) fn pow(x: Int, y: Int) -> Result<Int, PoolError> {
    Base::new(x).pow(y)
}

/// The logarithm `pow` takes of its base: `ln_36` (36 decimals) near one, `ln` (18 decimals) elsewhere.
#[derive(Clone, Copy)]
enum Log {
    Near1(Int),
    Wide(Int),
}

/// A base raised to several exponents (the Newton loop's `x^p` and `x^(p−1)`): `pow` computes its
/// logarithm once. Same results and same throws, in the same order, as calling `pow` each time: every check
/// before the logarithm is made per call, and the logarithm depends on the base alone.
pub(crate) struct Base {
    x: Int,
    log: Option<Result<Log, PoolError>>,
}

impl Base {
    pub(crate) fn new(x: Int) -> Base {
        Base { x, log: None }
    }

    /// `math::fp::pow(x, y)`.
    pub(crate) fn pow(&mut self, y: Int) -> Result<Int, PoolError> {
        let x = self.x;
        if y.is_zero() {
            return Ok(ONE_18);
        }
        if x.is_zero() {
            return Ok(Int::ZERO);
        }
        if x == ONE_18 {
            return Ok(ONE_18);
        }
        // `x >> 256 == 0`: false for every negative x (a magnitude never reaches 2^256).
        if x.is_neg() {
            return Err(domain(ERR_X_OUT_OF_BOUNDS));
        }
        if y >= MILD_EXPONENT_BOUND {
            return Err(domain(ERR_Y_OUT_OF_BOUNDS));
        }
        let log = *self.log.get_or_insert_with(|| {
            if LN_36_LOWER_BOUND < x && x < LN_36_UPPER_BOUND {
                ln_36(x).map(Log::Near1)
            } else {
                ln(x).map(Log::Wide)
            }
        });
        let logx_times_y = match log? {
            Log::Near1(ln_36_x) => ln_36_x.div(ONE_18)?.mul(y)?.add(muldiv(ln_36_x.rem_pos(ONE_18.mag), y, ONE_18)?)?,
            Log::Wide(ln_x) => ln_x.mul(y)?,
        };
        let logx_times_y = logx_times_y.div(ONE_18)?;
        if logx_times_y < MIN_NATURAL_EXPONENT || logx_times_y > MAX_NATURAL_EXPONENT {
            return Err(domain(ERR_PRODUCT_OUT_OF_BOUNDS));
        }
        exp(logx_times_y)
    }

    /// `math::fp::ow_pow(x, y)`.
    pub(crate) fn ow_pow(&mut self, y: Int) -> Result<Int, PoolError> {
        match self.power(y)? {
            Power::Exact(v) => Ok(v),
            Power::Approximate { raw, max_error } if raw < max_error => Ok(Int::ZERO),
            Power::Approximate { raw, max_error } => raw.sub(max_error),
        }
    }

    fn power(&mut self, y: Int) -> Result<Power, PoolError> {
        let x = self.x;
        if y == TWO_18 {
            Ok(Power::Exact(mul(x, x)?))
        } else if y == FOUR_18 {
            let square = mul(x, x)?;
            Ok(Power::Exact(mul(square, square)?))
        } else {
            let raw = self.pow(y)?;
            let max_error = mul(raw, MAX_POW_RELATIVE_ERROR)?.add(Int::from_u128(1))?;
            Ok(Power::Approximate { raw, max_error })
        }
    }
}

const TWO_18: Int = Int::from_u128(2_000_000_000_000_000_000);
const FOUR_18: Int = Int::from_u128(4_000_000_000_000_000_000);

/// `x^y` as `math::fp` computes it before rounding: exact for the exponents 2 and 4 (in 1e18), otherwise the
/// series result and the library's error bound on it (1e-14 relative, plus one).
enum Power {
    Exact(Int),
    Approximate { raw: Int, max_error: Int },
}

/// `math::fp::ow_pow`: x^y rounded down by the library's error bound.
pub(crate) fn ow_pow(x: Int, y: Int) -> Result<Int, PoolError> {
    Base::new(x).ow_pow(y)
}

/// `math::fp::ow_pow_up`: x^y rounded up by the library's error bound.
pub(crate) fn ow_pow_up(x: Int, y: Int) -> Result<Int, PoolError> {
    match Base::new(x).power(y)? {
        Power::Exact(v) => Ok(v),
        Power::Approximate { raw, max_error } => raw.add(max_error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Int {
        match s.strip_prefix('-') {
            Some(m) => Int::pos(U256::from_dec_str(m).unwrap()).negate(),
            None => Int::pos(U256::from_dec_str(s).unwrap()),
        }
    }

    #[test]
    fn wide_constants_match_their_decimal_forms() {
        let a0 = "38877084059945950922200000000000000000000000000000000000";
        assert_eq!(A0, dec(a0));
        assert_eq!(A0_18, dec(&format!("{a0}000000000000000000")));
        assert_eq!(A1_18, dec("6235149080811616882910000000000000000000000000"));
        assert_eq!(MILD_EXPONENT_BOUND, Int::pos((U256::one() << 254) / U256::from(10u128.pow(20))));
    }

    #[test]
    fn floor_division_and_remainder_go_toward_minus_infinity() {
        let d = |a: i64, b: i64| Int::from_i64(a).div(Int::from_i64(b)).unwrap();
        assert_eq!(d(7, 2), Int::from_i64(3));
        assert_eq!(d(-7, 2), Int::from_i64(-4));
        assert_eq!(d(7, -2), Int::from_i64(-4));
        assert_eq!(d(-7, -2), Int::from_i64(3));
        assert_eq!(d(-8, 2), Int::from_i64(-4));
        assert_eq!(Int::from_i64(-7).rem_pos(U256::from(3)), Int::from_i64(2));
        assert_eq!(Int::from_i64(-7).divc(Int::from_i64(2)).unwrap(), Int::from_i64(-3));
        assert_eq!(Int::from_i64(7).divc(Int::from_i64(2)).unwrap(), Int::from_i64(4));
        let m = muldiv(Int::from_i64(-7), Int::from_i64(3), Int::from_i64(2)).unwrap();
        assert_eq!(m, Int::from_i64(-11));
        assert_eq!(muldiv(Int::ZERO, Int::from_i64(-3), Int::from_i64(2)).unwrap(), Int::ZERO);
    }

    #[test]
    fn overflow_past_2_pow_256_is_exit_4() {
        let big = Int::pos(U256::MAX);
        assert_eq!(big.add(Int::from_u128(1)), Err(PoolError::Overflow));
        assert_eq!(big.negate().sub(Int::from_u128(1)), Err(PoolError::Overflow));
        assert_eq!(big.mul(Int::from_u128(2)), Err(PoolError::Overflow));
        assert_eq!(muldiv(big, big, Int::from_u128(1)), Err(PoolError::Overflow));
        assert_eq!(Int::from_u128(1).div(Int::ZERO), Err(PoolError::Overflow));
    }

    #[test]
    fn exp_and_ln_agree_with_the_reals_to_their_precision() {
        // Independent check on f64: the library is accurate to far better than f64's 1e-15 here.
        for x in [
            "-40000000000000000000",
            "-1000000000000000000",
            "1",
            "500000000000000000",
            "1000000000000000000",
            "2000000000000000000",
            "129000000000000000000",
        ] {
            let got = exp(dec(x)).unwrap();
            let want = (x.parse::<f64>().unwrap() / 1e18).exp() * 1e18;
            let got_f = got.magnitude().to_string().parse::<f64>().unwrap();
            assert!((got_f - want).abs() <= want * 1e-12 + 1.0, "exp({x}) = {got_f}, want {want}");
        }
        for (x, y) in [
            ("2000000000000000000", "3000000000000000000"),
            ("950000000000000000", "500000000000000000"),
            ("123456789000000000000000", "333333333333333333"),
            ("5000000000000000", "-700000000000000000"),
        ] {
            let got = pow(dec(x), dec(y)).unwrap().magnitude().to_string().parse::<f64>().unwrap();
            let (xf, yf) = (x.parse::<f64>().unwrap() / 1e18, y.parse::<f64>().unwrap() / 1e18);
            let want = xf.powf(yf) * 1e18;
            assert!((got - want).abs() <= want * 1e-12, "pow({x}, {y}) = {got}, want {want}");
        }
    }

    #[test]
    fn library_limits_keep_their_exit_codes() {
        assert_eq!(exp(dec("131000000000000000000")), Err(domain(ERR_INVALID_EXPONENT)));
        assert_eq!(pow(dec("-1"), ONE_18.add(ONE_18).unwrap()), Err(domain(ERR_X_OUT_OF_BOUNDS)));
        assert_eq!(pow(dec("2"), MILD_EXPONENT_BOUND), Err(domain(ERR_Y_OUT_OF_BOUNDS)));
        assert_eq!(
            pow(dec("1000000000000000000000"), dec("100000000000000000000")),
            Err(domain(ERR_PRODUCT_OUT_OF_BOUNDS))
        );
        assert_eq!(div(ONE_18, Int::ZERO), Err(domain(ERR_ZERO_DIVISION)));
        assert_eq!(complement(ONE_18.add(Int::from_u128(1)).unwrap()), Err(PoolError::ComplementOutOfRange));
        assert_eq!(complement(dec("-1")), Err(PoolError::ComplementOutOfRange));
        // The error bound makes an exact power of one exceed one, which is what 51002 catches in a swap.
        assert_eq!(ow_pow_up(ONE_18, dec("500000000000000000")).unwrap(), dec("1000000000000010001"));
    }

    /// The narrow paths (one- and two-word magnitudes, the precomputed reciprocals of the library's constant
    /// divisors) against the arithmetic written out on 512-bit magnitudes: floor toward −∞ on the signed
    /// values, exit 4 past 2^256.
    #[test]
    fn word_paths_match_the_wide_arithmetic() {
        use crate::pool::math::tests::{next, random};
        /// floor(n / d) for a signed numerator and a positive or negative divisor, from magnitudes.
        fn floor_div(neg: bool, n: U512, d: U512) -> (U512, bool) {
            let (q, r) = n.div_mod(d);
            if neg && !r.is_zero() {
                (q + U512::one(), true)
            } else {
                (q, neg && !q.is_zero())
            }
        }
        fn expect(neg: bool, mag: U512) -> Result<Int, PoolError> {
            let mag = U256::try_from(mag).map_err(|_| PoolError::Overflow)?;
            Ok(Int::signed(neg, mag))
        }
        let constants: Vec<u128> = [1_000_000_000_000_000_000u128, 100_000_000_000_000_000_000, 10u128.pow(36), 100]
            .into_iter()
            .chain([3, 5, 7, 9, 11, 13, 15])
            .chain((2..=12).map(|n| n * 100_000_000_000_000_000_000))
            .collect();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for i in 0..200_000 {
            let mut int = |bits: u64| {
                let mag = random(&mut x, bits);
                Int::signed(next(&mut x) & 1 == 1, mag)
            };
            // Mostly operands of one word or less (the narrow paths), some wider (the fallbacks).
            let width = if i % 8 == 0 { 256 } else { 128 };
            let (a, b) = (int(width), int(width));
            let c = if i % 3 == 0 {
                let k = constants[(next(&mut x) % constants.len() as u64) as usize];
                Int::signed(next(&mut x) & 1 == 1, U256::from(k))
            } else {
                int(if i % 16 == 0 { 256 } else { 128 })
            };
            let (wa, wb, wc) = (U512::from(a.mag), U512::from(b.mag), U512::from(c.mag));
            // muldiv: floor(a·b / c).
            let want = if c.is_zero() {
                Err(PoolError::Overflow)
            } else {
                let neg = !a.is_zero() && !b.is_zero() && (a.neg ^ b.neg ^ c.neg);
                let (q, _) = floor_div(neg, wa * wb, wc);
                expect(neg, q)
            };
            assert_eq!(muldiv(a, b, c), want, "muldiv({a:?}, {b:?}, {c:?})");
            // `/`: floor(a / c).
            let want = if c.is_zero() {
                Err(PoolError::Overflow)
            } else {
                let neg = a.neg != c.neg;
                let (q, _) = floor_div(neg, wa, wc);
                expect(neg, q)
            };
            assert_eq!(a.div(c), want, "{a:?} / {c:?}");
            // `*` and `+`.
            assert_eq!(a.mul(b), expect(a.neg != b.neg, wa * wb), "{a:?} * {b:?}");
            let sum = if a.neg == b.neg {
                expect(a.neg, wa + wb)
            } else if wa >= wb {
                expect(a.neg, wa - wb)
            } else {
                expect(b.neg, wb - wa)
            };
            assert_eq!(a.add(b), sum, "{a:?} + {b:?}");
            // `%` by a positive divisor.
            if !c.is_zero() {
                let r = wa % wc;
                let want = if a.neg && !r.is_zero() { wc - r } else { r };
                assert_eq!(a.rem_pos(c.mag), expect(false, want).unwrap(), "{a:?} % {c:?}");
            }
        }
    }

    /// A [`Base`] raised to several exponents gives what a fresh `pow` gives for each, errors included.
    #[test]
    fn a_base_reused_gives_what_each_fresh_power_gives() {
        let bases = [
            "1",
            "950000000000000000",
            "1000000000000000000",
            "1050000000000000000",
            "2000000000000000000",
            "123456789000000000000000",
            "1000000000000000000000000000000",
            "340282366920938463463374607431768211455",
            "-5",
            "0",
        ];
        let exponents = [
            "0",
            "500000000000000000",
            "-500000000000000000",
            "333333333333333333",
            "-666666666666666667",
            "2000000000000000000",
            "4000000000000000000",
            "100000000000000000000",
        ];
        for x in bases {
            let mut base = Base::new(dec(x));
            for y in exponents {
                assert_eq!(base.pow(dec(y)), pow(dec(x), dec(y)), "pow({x}, {y})");
                let fresh = match Base::new(dec(x)).power(dec(y)) {
                    Ok(Power::Exact(v)) => Ok(v),
                    Ok(Power::Approximate { raw, max_error }) if raw < max_error => Ok(Int::ZERO),
                    Ok(Power::Approximate { raw, max_error }) => raw.sub(max_error),
                    Err(e) => Err(e),
                };
                assert_eq!(base.ow_pow(dec(y)), fresh, "ow_pow({x}, {y})");
            }
        }
    }
}
