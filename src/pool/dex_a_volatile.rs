//! `dex_a` volatile pools: x·y = k with the trade fee taken from the input.
//!
//! **Rounding not yet confirmed against the contract** (its source is closed). From the public description
//! (research/pool-math.md §4): the fee is deducted from the amount the trader spends before the curve. We
//! round the fee up and the output down, so a quote never promises more than the pool pays under either
//! rounding of the fee; the whole input is credited to the input reserve.

use primitive_types::U256;

use super::math::{add, divc, mul, muldiv, to_u128};
use super::{Direction, PoolError, SwapResult, FEE_DIVIDER, MAX_COINS};

/// `dex_a` volatile pool parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DexAVolatile {
    /// Trade fee in 1/10000, taken from the input.
    pub fee_bps: u16,
}

impl DexAVolatile {
    /// One swap against `reserves`.
    pub fn swap(&self, reserves: [u128; 2], amount_in: u128, direction: Direction) -> Result<SwapResult, PoolError> {
        let (r_in, r_out) = direction.split(reserves);
        let net = net_input(reserves, amount_in, direction, self.fee_bps)?;
        let out = to_u128(muldiv(U256::from(net), U256::from(r_out), add(U256::from(r_in), U256::from(net))?)?)?;
        finish(reserves, direction, amount_in, out)
    }
}

/// Shared head of the `dex_a` curves: empty-pool and fee checks, then the input net of the trade fee
/// (rounded up), which must leave something.
pub(crate) fn net_input(
    reserves: [u128; 2],
    amount_in: u128,
    direction: Direction,
    fee_bps: u16,
) -> Result<u128, PoolError> {
    let (r_in, r_out) = direction.split(reserves);
    if r_in == 0 || r_out == 0 {
        return Err(PoolError::EmptyPool);
    }
    if u128::from(fee_bps) >= FEE_DIVIDER {
        return Err(PoolError::FeeOutOfRange(u32::from(fee_bps)));
    }
    let fee = to_u128(divc(mul(U256::from(amount_in), U256::from(fee_bps))?, U256::from(FEE_DIVIDER))?)?;
    let net = amount_in - fee.min(amount_in);
    if net == 0 {
        return Err(PoolError::ZeroOutput);
    }
    Ok(net)
}

/// Shared tail of the `dex_a` curves: zero-output and reserve-range checks, new reserves.
pub(crate) fn finish(
    reserves: [u128; 2],
    direction: Direction,
    amount_in: u128,
    out: u128,
) -> Result<SwapResult, PoolError> {
    let (r_in, r_out) = direction.split(reserves);
    if out == 0 {
        return Err(PoolError::ZeroOutput);
    }
    let new_in = r_in.checked_add(amount_in).filter(|v| *v <= MAX_COINS).ok_or(PoolError::ReserveOutOfRange)?;
    if out >= r_out {
        return Err(PoolError::ReserveOutOfRange);
    }
    Ok(SwapResult {
        amount_out: out,
        protocol_fee_out: 0,
        ref_fee_out: 0,
        reserves_after: direction.join(new_in, r_out - out),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_swap() {
        // fee = ceil(1_000_000·25/10000) = 2_500; net 997_500; out = floor(997_500·2e9 / 1_000_997_500) = 1_993_011.
        let r =
            DexAVolatile { fee_bps: 25 }.swap([1_000_000_000, 2_000_000_000], 1_000_000, Direction::ZeroToOne).unwrap();
        assert_eq!(r.amount_out, 1_993_011);
        assert_eq!(r.reserves_after, [1_001_000_000, 2_000_000_000 - 1_993_011]);
    }

    #[test]
    fn a_fee_of_100_percent_is_a_fee_error() {
        for fee in [10_000, u16::MAX] {
            let c = DexAVolatile { fee_bps: fee };
            assert_eq!(c.swap([10, 10], 5, Direction::ZeroToOne), Err(PoolError::FeeOutOfRange(fee.into())));
        }
    }

    #[test]
    fn a_fee_that_eats_the_whole_input_is_zero_output() {
        // ceil(1·25/10000) = 1 = the whole input.
        let c = DexAVolatile { fee_bps: 25 };
        assert_eq!(c.swap([1_000, 1_000], 1, Direction::ZeroToOne), Err(PoolError::ZeroOutput));
    }

    #[test]
    fn empty_pool_and_reserve_overflow() {
        let c = DexAVolatile { fee_bps: 25 };
        assert_eq!(c.swap([0, 1_000], 10, Direction::ZeroToOne), Err(PoolError::EmptyPool));
        assert_eq!(c.swap([MAX_COINS, 1 << 100], 1 << 90, Direction::ZeroToOne), Err(PoolError::ReserveOutOfRange));
    }
}
