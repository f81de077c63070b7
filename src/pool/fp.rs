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
            let mag = self.mag.checked_add(o.mag).ok_or(PoolError::Overflow)?;
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
        let mag = self.mag.checked_mul(o.mag).ok_or(PoolError::Overflow)?;
        Ok(Int::signed(self.neg != o.neg, mag))
    }

    /// FunC `/`: the quotient rounded toward −∞; a zero divisor is exit code 4.
    #[inline]
    pub(crate) fn div(self, d: Int) -> Result<Int, PoolError> {
        if d.is_zero() {
            return Err(PoolError::Overflow);
        }
        let (q, r) = self.mag.div_mod(d.mag);
        floor_signed(self.neg != d.neg, q, !r.is_zero())
    }

    /// FunC `%` for a positive divisor: the remainder of the floor division, in `0..d`.
    #[inline]
    fn rem_pos(self, d: U256) -> Int {
        let r = self.mag % d;
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
    let fits_u128 = |v: &U256| v.0[2] == 0 && v.0[3] == 0;
    if fits_u128(&a) && fits_u128(&b) && fits_u128(&c) {
        let (a, b, c) = (a.low_u128(), b.low_u128(), c.low_u128());
        if let Some(p) = a.checked_mul(b) {
            return Ok((U256::from(p / c), U256::from(p % c)));
        }
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

/// `math::fp::pow`: x^y = exp(y·ln x), both with 18 decimals.
pub(crate) fn pow(x: Int, y: Int) -> Result<Int, PoolError> {
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
    let logx_times_y = if LN_36_LOWER_BOUND < x && x < LN_36_UPPER_BOUND {
        let ln_36_x = ln_36(x)?;
        ln_36_x.div(ONE_18)?.mul(y)?.add(muldiv(ln_36_x.rem_pos(ONE_18.mag), y, ONE_18)?)?
    } else {
        ln(x)?.mul(y)?
    };
    let logx_times_y = logx_times_y.div(ONE_18)?;
    if logx_times_y < MIN_NATURAL_EXPONENT || logx_times_y > MAX_NATURAL_EXPONENT {
        return Err(domain(ERR_PRODUCT_OUT_OF_BOUNDS));
    }
    exp(logx_times_y)
}

const TWO_18: Int = Int::from_u128(2_000_000_000_000_000_000);
const FOUR_18: Int = Int::from_u128(4_000_000_000_000_000_000);

/// `x^y` as `math::fp` computes it before rounding: exact for the exponents 2 and 4 (in 1e18), otherwise the
/// series result and the library's error bound on it (1e-14 relative, plus one).
enum Power {
    Exact(Int),
    Approximate { raw: Int, max_error: Int },
}

fn power(x: Int, y: Int) -> Result<Power, PoolError> {
    if y == TWO_18 {
        Ok(Power::Exact(mul(x, x)?))
    } else if y == FOUR_18 {
        let square = mul(x, x)?;
        Ok(Power::Exact(mul(square, square)?))
    } else {
        let raw = pow(x, y)?;
        let max_error = mul(raw, MAX_POW_RELATIVE_ERROR)?.add(Int::from_u128(1))?;
        Ok(Power::Approximate { raw, max_error })
    }
}

/// `math::fp::ow_pow`: x^y rounded down by the library's error bound.
pub(crate) fn ow_pow(x: Int, y: Int) -> Result<Int, PoolError> {
    match power(x, y)? {
        Power::Exact(v) => Ok(v),
        Power::Approximate { raw, max_error } if raw < max_error => Ok(Int::ZERO),
        Power::Approximate { raw, max_error } => raw.sub(max_error),
    }
}

/// `math::fp::ow_pow_up`: x^y rounded up by the library's error bound.
pub(crate) fn ow_pow_up(x: Int, y: Int) -> Result<Int, PoolError> {
    match power(x, y)? {
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
}
