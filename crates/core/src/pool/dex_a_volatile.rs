//! `dex_a` volatile pools: x·y = k with the trade fee taken from the input.
//!
//! The contract is closed source; its only public evidence of rounding is DeDust's own `/v2/routing/plan`
//! answer (a real one in `tests/data/ton/dedust-routing-plan-response.json`), whose two hops reproduce to the
//! unit as `fee = floor(in·fee_bps/10000)`, `out = floor((in − fee)·R_out / (R_in + in − fee))` (the second hop
//! tells the fee roundings apart: 1,316,076·25/10000 = 3,290.19, the plan charges 3,290). We follow that; the
//! whole input is credited to the input reserve.

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
        let net = net_input(reserves, amount_in, direction, self.fee_bps, FeeRounding::Down)?;
        let out = to_u128(muldiv(U256::from(net), U256::from(r_out), add(U256::from(r_in), U256::from(net))?)?)?;
        finish(reserves, direction, amount_in, out)
    }
}

/// How a `dex_a` curve rounds the trade fee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FeeRounding {
    /// `floor(in·fee/10000)`: the volatile curve, as DeDust's routing plan shows.
    Down,
    /// `ceil(in·fee/10000)`: the stable curve, whose rounding nothing public shows (the conservative side).
    Up,
}

/// Shared head of the `dex_a` curves: empty-pool and fee checks, then the input net of the trade fee
/// (rounded as `rounding` says), which must leave something.
pub(crate) fn net_input(
    reserves: [u128; 2],
    amount_in: u128,
    direction: Direction,
    fee_bps: u16,
    rounding: FeeRounding,
) -> Result<u128, PoolError> {
    let (r_in, r_out) = direction.split(reserves);
    if r_in == 0 || r_out == 0 {
        return Err(PoolError::EmptyPool);
    }
    if u128::from(fee_bps) >= FEE_DIVIDER {
        return Err(PoolError::FeeOutOfRange(u32::from(fee_bps)));
    }
    let gross = mul(U256::from(amount_in), U256::from(fee_bps))?;
    let fee = to_u128(match rounding {
        FeeRounding::Down => gross / U256::from(FEE_DIVIDER),
        FeeRounding::Up => divc(gross, U256::from(FEE_DIVIDER))?,
    })?;
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
    // An output reserve the chain cannot hold (≥ 2^120) is a state error, whatever is left of it after the swap.
    if out >= r_out || r_out > MAX_COINS {
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
        // fee = floor(1_000_000·25/10000) = 2_500; net 997_500; out = floor(997_500·2e9 / 1_000_997_500) = 1_993_011.
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
    fn the_fee_is_rounded_down() {
        // 399·25/10000 = 0.9975: no fee at all, the whole 399 goes into the curve:
        // out = floor(399·1e6 / (1e6 + 399)) = 398.
        let c = DexAVolatile { fee_bps: 25 };
        assert_eq!(c.swap([1_000_000, 1_000_000], 399, Direction::ZeroToOne).map(|r| r.amount_out), Ok(398));
        // 400·25/10000 = 1 exactly: out = floor(399·1e6 / (1e6 + 399)) = 398 too.
        assert_eq!(c.swap([1_000_000, 1_000_000], 400, Direction::ZeroToOne).map(|r| r.amount_out), Ok(398));
    }

    #[test]
    fn a_fee_that_eats_the_whole_input_is_zero_output() {
        // 1 unit at 99.99 %: the fee floors to 0, and floor(1·1_000 / 1_001) = 0 comes out.
        let c = DexAVolatile { fee_bps: 9_999 };
        assert_eq!(c.swap([1_000, 1_000], 1, Direction::ZeroToOne), Err(PoolError::ZeroOutput));
    }

    #[test]
    fn empty_pool_and_reserve_overflow() {
        let c = DexAVolatile { fee_bps: 25 };
        assert_eq!(c.swap([0, 1_000], 10, Direction::ZeroToOne), Err(PoolError::EmptyPool));
        assert_eq!(c.swap([MAX_COINS, 1 << 100], 1 << 90, Direction::ZeroToOne), Err(PoolError::ReserveOutOfRange));
    }
}
