//! `TickMath` of the `dex_c` (TONCO) contract, Uniswap v3's: the sqrt ratio of a tick ([`sqrt_ratio_at_tick`],
//! √1.0001^tick · 2^96) and the tick of a sqrt price ([`tick_at_sqrt_ratio`]), the tick range and the price range
//! a pool can hold (the contract's exit code 91 beyond them).
//!
//! Owns the tick ↔ price conversions and their ranges; must not know a pool's tick map or swap.

use primitive_types::U256;

use crate::pool::math::{mul_high, words};
use crate::pool::PoolError;

/// Lowest tick of the contract (`TickMath.MIN_TICK`).
pub const MIN_TICK: i32 = -887_272;
/// Highest tick of the contract.
pub const MAX_TICK: i32 = 887_272;

/// `getSqrtRatioAtTick(MIN_TICK)`: the lowest sqrt price.
pub fn min_sqrt_ratio() -> U256 {
    U256::from(4_295_128_739u64)
}

/// `getSqrtRatioAtTick(MAX_TICK)`: one above the highest sqrt price a pool can hold.
pub fn max_sqrt_ratio() -> U256 {
    // 1461446703485210103287273052203988822378723970342 = 0xfffd8963efd1fc6a506488495d951d5263988d26.
    U256([0x5d951d5263988d26, 0xefd1fc6a50648849, 0xfffd8963, 0])
}

/// Ticks beyond ±887272 are the contract's exit code 91.
#[inline]
pub(super) fn check_tick(tick: i32) -> Result<(), PoolError> {
    if (MIN_TICK..=MAX_TICK).contains(&tick) {
        Ok(())
    } else {
        Err(PoolError::TickOutOfRange(tick))
    }
}

#[inline]
pub(super) fn check_price(sqrt_price_x96: U256) -> Result<(), PoolError> {
    if sqrt_price_x96 < min_sqrt_ratio() || sqrt_price_x96 >= max_sqrt_ratio() {
        return Err(PoolError::SqrtPriceOutOfRange);
    }
    Ok(())
}

pub(super) fn u256_to_f64(v: U256) -> f64 {
    let mut f = 0.0;
    for word in v.0.iter().rev() {
        f = f * 18_446_744_073_709_551_616.0 + *word as f64;
    }
    f
}

/// The factors of `TickMath.getSqrtRatioAtTick`: for each bit of |tick| from 0x2 up, the 128-bit fixed-point
/// multiplier the contract applies when that bit is set.
static TICK_FACTORS: [(u32, u128); 19] = [
    (0x2, 0xfff97272373d413259a46990580e213a),
    (0x4, 0xfff2e50f5f656932ef12357cf3c7fdcc),
    (0x8, 0xffe5caca7e10e4e61c3624eaa0941cd0),
    (0x10, 0xffcb9843d60f6159c9db58835c926644),
    (0x20, 0xff973b41fa98c081472e6896dfb254c0),
    (0x40, 0xff2ea16466c96a3843ec78b326b52861),
    (0x80, 0xfe5dee046a99a2a811c461f1969c3053),
    (0x100, 0xfcbe86c7900a88aedcffc83b479aa3a4),
    (0x200, 0xf987a7253ac413176f2b074cf7815e54),
    (0x400, 0xf3392b0822b70005940c7a398e4b70f3),
    (0x800, 0xe7159475a2c29b7443b29c7fa6e889d9),
    (0x1000, 0xd097f3bdfd2022b8845ad8f792aa5825),
    (0x2000, 0xa9f746462d870fdf8a65dc1f90e061e5),
    (0x4000, 0x70d869a156d2a1b890bb3df62baf32f7),
    (0x8000, 0x31be135f97d08fd981231505542fcfa6),
    (0x10000, 0x9aa508b5b7a84e1c677de54f3e99bc9),
    (0x20000, 0x5d6af8dedb81196699c329225ee604),
    (0x40000, 0x2216e584f5fa1ea926041bedfe98),
    (0x80000, 0x48a170391f7dc42444e8fa2),
];

/// `TickMath.getSqrtRatioAtTick`: √1.0001^tick · 2^96, rounded up.
///
/// The contract's algorithm step for step, in 128-bit words: its `ratio` starts at `2^128` or a constant
/// below it, and each `(ratio · factor) >> 128` with a factor below `2^128` keeps it below `2^128` (the
/// first product from `2^128` is the factor itself), so every step is [`mul_high`] of two `u128`s instead
/// of a 256-bit multiplication. A swap computes this for every tick it reaches and twice for the tick it
/// stops in ([`tick_at_sqrt_ratio`]). `tests::sqrt_ratio_at_tick_matches_the_u256_port` checks it against
/// the 256-bit transcription.
pub fn sqrt_ratio_at_tick(tick: i32) -> Result<U256, PoolError> {
    check_tick(tick)?;
    let ratio = match tick_ratio(tick.unsigned_abs()) {
        // tick 0: 2^128 >> 32, no remainder.
        None => return Ok(U256::one() << 96),
        Some(r) => r,
    };
    // ratio > 0: every factor keeps it positive for |tick| ≤ MAX_TICK.
    let ratio = if tick > 0 { U256::MAX / U256::from(ratio) } else { U256::from(ratio) };
    // Shift right by 32, rounding up.
    let q = ratio >> 32;
    Ok(if ratio.low_u32() == 0 { q } else { q + 1 })
}

/// The contract's `ratio` of `getSqrtRatioAtTick` for |tick| = `abs` before the inversion of positive ticks
/// and the rounding shift: below 2^128, or `None` for exactly 2^128 (tick 0).
#[inline]
fn tick_ratio(abs: u32) -> Option<u128> {
    // None: exactly 2^128 (the contract's start for an even |tick|).
    let mut ratio: Option<u128> = (abs & 1 != 0).then_some(0xfffcb933bd6fad37aa2d162d1a594001u128);
    for &(bit, by) in TICK_FACTORS.iter() {
        if abs & bit != 0 {
            ratio = Some(ratio.map_or(by, |r| mul_high(r, by)));
        }
    }
    ratio
}

/// `sqrt_ratio_at_tick(tick) <= price` for a tick in range and a price below 2^160, without the ratio's
/// 256-bit division. With `r` the [`tick_ratio`] and integers throughout: `⌈r/2^32⌉ ≤ p ⟺ r ≤ p·2^32`; and
/// for a positive tick `⌈⌊(2^256 − 1)/r⌋/2^32⌉ ≤ p ⟺ ⌊(2^256 − 1)/r⌋ ≤ p·2^32 ⟺ 2^256 − 1 < (p·2^32 + 1)·r`,
/// i.e. that product does not fit 256 bits. In 128-bit words: `p·2^32 = h·2^128 + l` with `h < 2^64` and the
/// low 32 bits of `l` clear, so `(p·2^32 + 1)·r = (h·r + ⌊(l + 1)·r / 2^128⌋)·2^128 + …` reaches 2^256 when
/// that sum reaches 2^128.
#[inline]
fn ratio_at_most(tick: i32, price: U256) -> bool {
    debug_assert!(check_tick(tick).is_ok() && price.bits() <= 160);
    let (high, low) = words(price);
    let (high, low) = (high << 32 | low >> 96, low << 32);
    match tick_ratio(tick.unsigned_abs()) {
        None => high != 0,
        Some(r) if tick < 0 => high != 0 || r <= low,
        Some(r) => high.checked_mul(r).and_then(|v| v.checked_add(mul_high(low | 1, r))).is_none(),
    }
}

/// Arithmetic right shift of a two's-complement 256-bit value.
fn sar(v: U256, n: usize) -> U256 {
    if v.bit(255) {
        !((!v) >> n)
    } else {
        v >> n
    }
}

fn from_i128(v: i128) -> U256 {
    if v < 0 {
        !U256::from((!v) as u128)
    } else {
        U256::from(v as u128)
    }
}

/// Low 32 bits of a two's-complement 256-bit value as `i32` (the tick results are within ±887272).
fn to_i32(v: U256) -> i32 {
    v.low_u32() as i32
}

/// `TickMath.getTickAtSqrtRatio`: the greatest tick whose sqrt ratio is ≤ `sqrt_price_x96`.
///
/// That tick is what the contract's log₂ approximation ([`tick_at_sqrt_ratio_log2`]) returns for every price
/// in range (TickMath's specification, which its last comparison against `getSqrtRatioAtTick` ensures), and
/// [`sqrt_ratio_at_tick`] is strictly increasing; so a candidate `t` with `ratio(t) ≤ price < ratio(t + 1)`
/// is that tick. The candidate comes from the float logarithm (within one tick: the price's 53-bit mantissa
/// puts the float tick within ~1e-11 of the real one), and two exact comparisons with the ratios prove it
/// ([`ratio_at_most`]), at a tenth of the log₂ loop's cost; a swap that stops inside a range computes this
/// once. Should the float
/// ever miss by more than a tick, the contract's own algorithm answers.
pub fn tick_at_sqrt_ratio(sqrt_price_x96: U256) -> Result<i32, PoolError> {
    if sqrt_price_x96 < min_sqrt_ratio() || sqrt_price_x96 >= max_sqrt_ratio() {
        return Err(PoolError::SqrtPriceOutOfRange);
    }
    // tick = log_1.0001(price²) with price = √P·2^-96.
    let ln_price = libm::log(u256_to_f64(sqrt_price_x96)) - 96.0 * std::f64::consts::LN_2;
    let estimate = (2.0 * ln_price / libm::log(1.0001)).floor();
    // In range: MIN_TICK ≤ answer ≤ MAX_TICK − 1 (the price is below the ratio of MAX_TICK).
    let mut t = (estimate as i32).clamp(MIN_TICK, MAX_TICK - 1);
    let mut low = ratio_at_most(t, sqrt_price_x96);
    for _ in 0..2 {
        if !low {
            // t > MIN_TICK here: the ratio of MIN_TICK is at most any price in range.
            t -= 1;
            low = ratio_at_most(t, sqrt_price_x96);
            continue;
        }
        // t + 1 ≤ MAX_TICK, whose ratio exceeds any price in range.
        if !ratio_at_most(t + 1, sqrt_price_x96) {
            return Ok(t);
        }
        t += 1;
    }
    tick_at_sqrt_ratio_log2(sqrt_price_x96)
}

/// `TickMath.getTickAtSqrtRatio` as the contract computes it: log₂ by 14 squarings, the two candidate ticks
/// of its error bound, the higher one if its ratio is within the price. [`tick_at_sqrt_ratio`]'s fallback
/// and its reference in the tests.
fn tick_at_sqrt_ratio_log2(sqrt_price_x96: U256) -> Result<i32, PoolError> {
    if sqrt_price_x96 < min_sqrt_ratio() || sqrt_price_x96 >= max_sqrt_ratio() {
        return Err(PoolError::SqrtPriceOutOfRange);
    }
    let x128 = sqrt_price_x96 << 32;
    let msb = x128.bits() - 1;
    let mut r = if msb >= 128 { x128 >> (msb - 127) } else { x128 << (127 - msb) };
    // msb < 192, so (msb − 128) · 2^64 fits i128.
    let mut log2: i128 = (msb as i128 - 128) << 64;
    for i in 0..14 {
        // r < 2^128, so r² < 2^256.
        r = r.overflowing_mul(r).0 >> 127;
        let f = (r >> 128).low_u32();
        log2 |= i128::from(f) << (63 - i);
        r >>= f as usize;
    }
    let log_sqrt10001 = from_i128(log2).overflowing_mul(U256::from(255_738_958_999_603_826_347_141u128)).0;
    let low_c = U256::from(3_402_992_956_809_132_418_596_140_100_660_247_210u128);
    let high_c = U256::from(291_339_464_771_989_622_907_027_621_153_398_088_495u128);
    let tick_low = to_i32(sar(log_sqrt10001.overflowing_sub(low_c).0, 128));
    let tick_high = to_i32(sar(log_sqrt10001.overflowing_add(high_c).0, 128));
    if tick_low == tick_high {
        return Ok(tick_low);
    }
    Ok(if sqrt_ratio_at_tick(tick_high)? <= sqrt_price_x96 { tick_high } else { tick_low })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mul_shift(ratio: U256, by: u128) -> U256 {
        // ratio ≤ 2^128 and by < 2^128: the product is below 2^256, so the 256-bit product is exact.
        ratio.overflowing_mul(U256::from(by)).0 >> 128
    }

    /// The 256-bit transcription of `TickMath.getSqrtRatioAtTick` that [`sqrt_ratio_at_tick`] replaced.
    fn sqrt_ratio_at_tick_u256(tick: i32) -> Result<U256, PoolError> {
        check_tick(tick)?;
        let abs = tick.unsigned_abs();
        let mut ratio =
            if abs & 1 != 0 { U256::from(0xfffcb933bd6fad37aa2d162d1a594001u128) } else { U256::one() << 128 };
        for &(bit, by) in TICK_FACTORS.iter() {
            if abs & bit != 0 {
                ratio = mul_shift(ratio, by);
            }
        }
        if tick > 0 {
            // ratio > 0: every factor keeps it positive for |tick| ≤ MAX_TICK.
            ratio = U256::MAX / ratio;
        }
        let (q, r) = ratio.div_mod(U256::one() << 32);
        Ok(if r.is_zero() { q } else { q + 1 })
    }

    #[test]
    fn tick_math_end_points() {
        assert_eq!(sqrt_ratio_at_tick(MIN_TICK).unwrap(), min_sqrt_ratio());
        assert_eq!(sqrt_ratio_at_tick(MAX_TICK).unwrap(), max_sqrt_ratio());
        assert_eq!(max_sqrt_ratio().to_string(), "1461446703485210103287273052203988822378723970342");
        assert_eq!(sqrt_ratio_at_tick(0).unwrap(), U256::one() << 96);
        assert_eq!(tick_at_sqrt_ratio(min_sqrt_ratio()).unwrap(), MIN_TICK);
        assert_eq!(tick_at_sqrt_ratio(max_sqrt_ratio() - 1).unwrap(), MAX_TICK - 1);
        assert_eq!(sqrt_ratio_at_tick(MAX_TICK + 1), Err(PoolError::TickOutOfRange(MAX_TICK + 1)));
        assert_eq!(tick_at_sqrt_ratio(max_sqrt_ratio()), Err(PoolError::SqrtPriceOutOfRange));
    }

    #[test]
    fn sqrt_ratio_at_tick_matches_the_u256_port() {
        // Every tick near the middle, a stride over the whole range, and the ends (the full range, 1.77M
        // ticks, was compared once in release).
        let ticks = (-20_000..=20_000).chain((MIN_TICK..=MAX_TICK).step_by(97)).chain([MIN_TICK, MAX_TICK]);
        for t in ticks {
            assert_eq!(sqrt_ratio_at_tick(t), sqrt_ratio_at_tick_u256(t), "tick {t}");
        }
        assert_eq!(sqrt_ratio_at_tick(MAX_TICK + 1), sqrt_ratio_at_tick_u256(MAX_TICK + 1));
        assert_eq!(sqrt_ratio_at_tick(MIN_TICK - 1), sqrt_ratio_at_tick_u256(MIN_TICK - 1));
    }

    /// The whole tick range, both TickMath functions against their contract transcriptions (seconds in
    /// release: `cargo test --release --lib -- --ignored tick_math_whole_range`).
    #[test]
    #[ignore]
    fn tick_math_whole_range() {
        for t in MIN_TICK..=MAX_TICK {
            let p = sqrt_ratio_at_tick_u256(t).unwrap();
            assert_eq!(sqrt_ratio_at_tick(t), Ok(p), "tick {t}");
            assert!(ratio_at_most(t, p) && !ratio_at_most(t, p - 1), "tick {t}");
            if t < MAX_TICK {
                assert_eq!(tick_at_sqrt_ratio(p), tick_at_sqrt_ratio_log2(p), "tick {t}");
                assert_eq!(tick_at_sqrt_ratio(p - 1), tick_at_sqrt_ratio_log2(p - 1), "tick {t}");
            }
        }
    }

    #[test]
    fn tick_at_sqrt_ratio_matches_the_contracts_log2() {
        // At, just below and just above tick ratios, midway between neighbours, and pseudo-random prices
        // over the whole range.
        let ticks = (-3_000..=3_000).chain((MIN_TICK..MAX_TICK).step_by(211)).chain([MIN_TICK, MAX_TICK - 1]);
        for t in ticks {
            let (p, next) = (sqrt_ratio_at_tick(t).unwrap(), sqrt_ratio_at_tick(t + 1).unwrap());
            for price in [p, p + 1, p - 1, (p + next) / 2, next - 1] {
                assert_eq!(tick_at_sqrt_ratio(price), tick_at_sqrt_ratio_log2(price), "{price}");
                assert_eq!(ratio_at_most(t, price), p <= price, "{t} {price}");
                assert_eq!(ratio_at_most(t + 1, price), next <= price, "{t} {price}");
            }
        }
        let (lo, hi) = (min_sqrt_ratio(), max_sqrt_ratio());
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // A price with a random number of significant bits, so every order of magnitude is hit.
            let bits = 32 + (x % 129) as usize;
            let words = [x, x.rotate_left(21), x.rotate_left(42), 0];
            let price = (U256(words) >> (256 - bits)).max(lo).min(hi - 1);
            assert_eq!(tick_at_sqrt_ratio(price), tick_at_sqrt_ratio_log2(price), "{price}");
        }
        assert_eq!(tick_at_sqrt_ratio(hi), tick_at_sqrt_ratio_log2(hi));
        assert_eq!(tick_at_sqrt_ratio(lo - 1), tick_at_sqrt_ratio_log2(lo - 1));
    }

    #[test]
    fn tick_at_ratio_inverts_ratio_at_tick() {
        for t in [-887_271, -200_000, -60, -1, 0, 1, 59, 60, 12_345, 200_000, 887_271] {
            let p = sqrt_ratio_at_tick(t).unwrap();
            assert_eq!(tick_at_sqrt_ratio(p).unwrap(), t);
            assert_eq!(tick_at_sqrt_ratio(p - 1).unwrap(), t - 1);
        }
    }
}
