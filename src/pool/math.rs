//! Integer helpers that reproduce TVM arithmetic on non-negative values.
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
    a.checked_mul(b).ok_or(PoolError::Overflow)
}

/// FunC `/`: floor division; dividing by zero is exit code 4.
#[inline]
pub(crate) fn div(a: U256, b: U256) -> Result<U256, PoolError> {
    if b.is_zero() {
        return Err(PoolError::Overflow);
    }
    Ok(a / b)
}

/// FunC `divc`: ceiling division of non-negative values.
#[inline]
pub(crate) fn divc(a: U256, b: U256) -> Result<U256, PoolError> {
    if b.is_zero() {
        return Err(PoolError::Overflow);
    }
    let (q, r) = a.div_mod(b);
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
