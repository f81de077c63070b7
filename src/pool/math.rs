//! Integer helpers that reproduce TVM arithmetic on non-negative values.
//!
//! TVM integers are signed 257-bit: a non-negative result overflows (exit code 4) exactly when it is
//! ≥ 2^256, which is `U256` overflow. `muldiv` keeps a 513-bit intermediate, which `U512` holds.

use primitive_types::{U256, U512};

use super::{PoolError, FEE_DIVIDER};

#[inline]
pub(crate) fn add(a: U256, b: U256) -> Result<U256, PoolError> {
    if let (Some(x), Some(y)) = (narrow(a), narrow(b)) {
        if let Some(v) = x.checked_add(y) {
            return Ok(U256::from(v));
        }
    }
    a.checked_add(b).ok_or(PoolError::Overflow)
}

#[inline]
pub(crate) fn mul(a: U256, b: U256) -> Result<U256, PoolError> {
    if let (Some(x), Some(y)) = (narrow(a), narrow(b)) {
        if let Some(v) = x.checked_mul(y) {
            return Ok(U256::from(v));
        }
    }
    a.checked_mul(b).ok_or(PoolError::Overflow)
}

/// FunC `/`: floor division; dividing by zero is exit code 4.
#[inline]
pub(crate) fn div(a: U256, b: U256) -> Result<U256, PoolError> {
    if b.is_zero() {
        return Err(PoolError::Overflow);
    }
    if let (Some(a), Some(b)) = (narrow(a), narrow(b)) {
        return Ok(U256::from(a / b));
    }
    Ok(a / b)
}

/// The value as `u128` when it fits: the narrow paths below divide natively (`U256`'s division is a
/// general long division, several times slower), and compute the same numbers as the wide ones.
#[inline]
fn narrow(v: U256) -> Option<u128> {
    (v.0[2] == 0 && v.0[3] == 0).then(|| v.low_u128())
}

/// FunC `divc`: ceiling division of non-negative values.
#[inline]
pub(crate) fn divc(a: U256, b: U256) -> Result<U256, PoolError> {
    if b.is_zero() {
        return Err(PoolError::Overflow);
    }
    let (q, r) = match (narrow(a), narrow(b)) {
        (Some(a), Some(b)) => (U256::from(a / b), U256::from(a % b)),
        _ => a.div_mod(b),
    };
    if r.is_zero() {
        Ok(q)
    } else {
        add(q, U256::one())
    }
}

/// FunC `muldiv`: floor(a·b/c) with a full-width intermediate; the result must fit.
#[inline]
pub(crate) fn muldiv(a: U256, b: U256, c: U256) -> Result<U256, PoolError> {
    if c.is_zero() {
        return Err(PoolError::Overflow);
    }
    // The narrowest arithmetic that holds the product: u128, then U256, then the 512-bit intermediate.
    if let (Some(a), Some(b), Some(c)) = (narrow(a), narrow(b), narrow(c)) {
        if let Some(p) = a.checked_mul(b) {
            return Ok(U256::from(p / c));
        }
    }
    if let (p, false) = a.overflowing_mul(b) {
        return Ok(p / c);
    }
    let q = a.full_mul(b) / U512::from(c);
    U256::try_from(q).map_err(|_| PoolError::Overflow)
}

/// `ceil(base · fee / 10000)`: the output-side protocol and referral fees of the `dex_b` contracts.
#[inline]
pub(crate) fn ceil_fee(base: u128, fee: u16) -> Result<u128, PoolError> {
    let v = divc(mul(U256::from(base), U256::from(fee))?, U256::from(FEE_DIVIDER))?;
    to_u128(v)
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
mod tests {
    use super::*;

    /// Operands of every width the pools meet (a few bits to 256), from a fixed xorshift sequence.
    fn operands() -> Vec<U256> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut out = vec![U256::zero(), U256::one(), U256::from(u128::MAX), U256::MAX];
        for bits in [1u32, 7, 63, 64, 65, 100, 127, 128, 129, 180, 255, 256] {
            for _ in 0..6 {
                let v = U256([next(), next(), next(), next()]);
                out.push(if bits == 256 { v } else { v & ((U256::one() << bits) - 1) });
            }
        }
        out
    }

    #[test]
    fn the_narrow_paths_give_what_the_wide_arithmetic_gives() {
        let ops = operands();
        for &a in &ops {
            for &b in &ops {
                assert_eq!(add(a, b).ok(), a.checked_add(b), "add {a} {b}");
                assert_eq!(mul(a, b).ok(), a.checked_mul(b), "mul {a} {b}");
                let wide_div = (!b.is_zero()).then(|| a.div_mod(b));
                assert_eq!(div(a, b).ok(), wide_div.map(|(q, _)| q), "div {a} {b}");
                let ceil = wide_div.map(|(q, r)| if r.is_zero() { Some(q) } else { q.checked_add(U256::one()) });
                assert_eq!(divc(a, b).ok(), ceil.flatten(), "divc {a} {b}");
                for &c in ops.iter().step_by(5) {
                    let wide = (!c.is_zero()).then(|| U256::try_from(a.full_mul(b) / U512::from(c)).ok()).flatten();
                    assert_eq!(muldiv(a, b, c).ok(), wide, "muldiv {a} {b} {c}");
                }
            }
        }
    }
}
