//! Weighted constant product (Balancer's `WeightedMath`) as the `dex_b_v2` contract runs it.
//!
//! `out = B_out · (1 − (B_in / (B_in + A))^(w_in / w_out))` in the contract's 1e18 fixed point: the base
//! rounded up, the power rounded up by the library's error bound (so a tiny input makes `1 − power`
//! negative: exit 51002), at most 30 % of the input reserve (exit 97), the LP fee floored off the input first,
//! protocol and referral fees off the output. A 50/50 pool is not special-cased and so differs from the
//! plain constant product. Source: ston-fi/dex-core-v2 `contracts/pool/pools/weighted_const_product/
//! {math,pool}.fc`, fixed point from `super::fp`. Owns this curve's arithmetic and the signed
//! post-swap bookkeeping both weighted curves share.

use primitive_types::U256;

use super::fp::{self, Int};
use super::{v2_fees, Direction, PoolError, Referral, SwapResult, Trade, FEE_DIVIDER, MAX_COINS};

/// 0.3 in 1e18 fixed point: the contract's `_MAX_IN_RATIO`.
const MAX_IN_RATIO: Int = Int::from_u128(300_000_000_000_000_000);

/// Weighted constant-product parameters, in the contract's units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightedConstantProduct {
    /// Weight of token0 in 1e18 fixed point (u64 in storage); token1's weight is `1e18 − w0`.
    pub w0: u64,
    /// LP fee (1/10000), floored off the input before the curve.
    pub lp_fee: u16,
    /// Protocol fee (1/10000), taken from the output and rounded up.
    pub protocol_fee: u16,
}

impl WeightedConstantProduct {
    /// A weighted constant-product curve.
    pub fn new(w0: u64, lp_fee: u16, protocol_fee: u16) -> WeightedConstantProduct {
        WeightedConstantProduct { w0, lp_fee, protocol_fee }
    }

    /// One swap against `reserves`.
    pub fn swap(&self, trade: Trade) -> Result<SwapResult, PoolError> {
        let Trade { reserves, amount_in, direction, referral } = trade;
        let (ain, ref_fee) = prepare(reserves, amount_in, self.lp_fee, referral)?;
        let (r_in, r_out) = direction.split(reserves);
        let w0 = Int::from_u128(u128::from(self.w0));
        let w_in = match direction {
            Direction::ZeroToOne => w0,
            Direction::OneToZero => fp::complement(w0)?,
        };
        let base_out = out_given_in(Int::from_u128(r_in), w_in, ain, Int::from_u128(r_out))?;
        settle_signed(reserves, direction, amount_in, base_out, self.protocol_fee, ref_fee)
    }

    /// Marginal price out/in before fees, `(w_in/w_out)·(r_out/r_in)` (floats: ranking only).
    pub fn spot_price(&self, reserves: [u128; 2], direction: Direction) -> f64 {
        let (r_in, r_out) = direction.split(reserves);
        match self.weight_ratio(direction) {
            Some(k) if r_in > 0 => k * r_out as f64 / r_in as f64,
            _ => 0.0,
        }
    }

    /// `w_in / w_out` as a float; `None` for a weight outside `(0, 1)`.
    pub(crate) fn weight_ratio(&self, direction: Direction) -> Option<f64> {
        let w0 = self.w0 as f64 / 1e18;
        let w_in = match direction {
            Direction::ZeroToOne => w0,
            Direction::OneToZero => 1.0 - w0,
        };
        (w_in > 0.0 && w_in < 1.0).then(|| w_in / (1.0 - w_in))
    }
}

/// The contract's `calc_out_given_in`, on plain (not yet fixed-point) integers.
fn out_given_in(balance_in: Int, weight_in: Int, amount_in: Int, balance_out: Int) -> Result<Int, PoolError> {
    let balance_in = fp::from(balance_in)?;
    let amount_in = fp::from(amount_in)?;
    let balance_out = fp::from(balance_out)?;
    if amount_in > fp::mul(balance_in, MAX_IN_RATIO)? {
        return Err(PoolError::MaxInRatio);
    }
    let weight_out = fp::complement(weight_in)?;
    let denominator = balance_in.add(amount_in)?;
    let base = fp::div_up(balance_in, denominator)?;
    let exponent = fp::div(weight_in, weight_out)?;
    let power = fp::ow_pow_up(base, exponent)?;
    fp::to(fp::mul(balance_out, fp::complement(power)?)?)
}

/// Checks shared by both weighted curves; returns the input after the LP fee (`muldiv(amount, 1e4 − fee,
/// 1e4)`) and the referral fee that applies.
pub(super) fn prepare(
    reserves: [u128; 2],
    amount_in: u128,
    lp_fee: u16,
    referral: Option<Referral>,
) -> Result<(Int, u16), PoolError> {
    let (keep, ref_fee) = v2_fees(reserves, lp_fee, referral)?;
    // amount_in < 2^120 and keep < 2^14: the product and quotient fit u128.
    let ain = amount_in.checked_mul(keep).ok_or(PoolError::Overflow)? / FEE_DIVIDER;
    Ok((Int::from_u128(ain), ref_fee))
}

/// Post-swap bookkeeping of `dex_b_v2` on a signed `base_out` (the weighted stable swap's Newton result
/// can come out negative or past the reserve), in `router.fc`'s order: the fee arithmetic (its overflow is a
/// math error and comes first), then `out < 1`, then both reserves in 1..=2^120−1.
pub(super) fn settle_signed(
    reserves: [u128; 2],
    direction: Direction,
    amount_in: u128,
    base_out: Int,
    protocol_fee: u16,
    ref_fee: u16,
) -> Result<SwapResult, PoolError> {
    let divider = Int::from_u128(FEE_DIVIDER);
    let fee = |bps: u16| -> Result<Int, PoolError> {
        if bps > 0 {
            base_out.mul(Int::from_u128(u128::from(bps)))?.divc(divider)
        } else {
            Ok(Int::ZERO)
        }
    };
    let protocol_fee_out = fee(protocol_fee)?;
    let ref_fee_out = fee(ref_fee)?;
    let out = base_out.sub(protocol_fee_out.add(ref_fee_out)?)?;
    if out < Int::from_u128(1) {
        return Err(PoolError::ZeroOutput);
    }
    let (r_in, r_out) = direction.split(reserves);
    let new_in = r_in.checked_add(amount_in).ok_or(PoolError::ReserveOutOfRange)?;
    // base_out > out ≥ 1 here (fees of a positive base are ≥ 0), so a base past u128 empties any reserve.
    let base = narrow(base_out).ok_or(PoolError::ReserveOutOfRange)?;
    if new_in > MAX_COINS || base >= r_out || r_out - base > MAX_COINS {
        return Err(PoolError::ReserveOutOfRange);
    }
    // Both fees are ≤ base_out (bps ≤ 100 for ref, < 1e4 for protocol is not assumed: out ≥ 1 bounds them).
    let protocol_fee_out = narrow(protocol_fee_out).ok_or(PoolError::Overflow)?;
    let ref_fee_out = narrow(ref_fee_out).ok_or(PoolError::Overflow)?;
    let amount_out = narrow(out).ok_or(PoolError::Overflow)?;
    Ok(SwapResult { amount_out, protocol_fee_out, ref_fee_out, reserves_after: direction.join(new_in, r_out - base) })
}

/// A non-negative value that fits u128.
#[inline]
fn narrow(v: Int) -> Option<u128> {
    if v.is_neg() || v.magnitude() > U256::from(u128::MAX) {
        None
    } else {
        Some(v.magnitude().low_u128())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_input_is_a_complement_error() {
        // docs/pool-math.md §2c: the rounded-up power of a base of ~1 exceeds one.
        let c = WeightedConstantProduct::new(900_000_000_000_000_000, 30, 0);
        let r = c.swap(Trade::new([138_650_632, 3_011_170_249], 1, Direction::OneToZero, None));
        assert_eq!(r, Err(PoolError::ComplementOutOfRange));
    }

    #[test]
    fn more_than_30_percent_is_max_in_ratio() {
        let c = WeightedConstantProduct::new(500_000_000_000_000_000, 0, 0);
        assert_eq!(
            c.swap(Trade::new([1_000_000, 1_000_000], 300_001, Direction::ZeroToOne, None)),
            Err(PoolError::MaxInRatio)
        );
        assert!(c.swap(Trade::new([1_000_000, 1_000_000], 300_000, Direction::ZeroToOne, None)).is_ok());
    }

    #[test]
    fn a_weight_above_one_is_a_complement_error() {
        let c = WeightedConstantProduct::new(1_000_000_000_000_000_001, 0, 0);
        assert_eq!(
            c.swap(Trade::new([1_000_000, 1_000_000], 1_000, Direction::OneToZero, None)),
            Err(PoolError::ComplementOutOfRange)
        );
        assert_eq!(
            c.swap(Trade::new([1_000_000, 1_000_000], 1_000, Direction::ZeroToOne, None)),
            Err(PoolError::ComplementOutOfRange)
        );
    }

    #[test]
    fn fifty_fifty_is_close_to_but_not_the_plain_product() {
        // 1e6 into 1e12/1e12 at no fee: plain x·y=k pays floor(1e6·1e12/(1e12+1e6)) = 999_999; the weighted
        // form's rounded-up power keeps a little more in the pool.
        let c = WeightedConstantProduct::new(500_000_000_000_000_000, 0, 0);
        let r =
            c.swap(Trade::new([1_000_000_000_000, 1_000_000_000_000], 1_000_000, Direction::ZeroToOne, None)).unwrap();
        assert!(r.amount_out <= 999_999 && r.amount_out > 999_000, "{r:?}");
    }
}
