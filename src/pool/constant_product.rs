//! Constant product (x·y = k) as the `dex_b` contracts run it (`dex_b_v1` and `dex_b_v2` fee models).
//!
//! Both models take the LP fee inside the one division and the protocol and referral fees from the output,
//! rounded up; they differ in the width of the division and in their refund rules (see [`FeeModel`]).
//! Sources: ston-fi/dex-core `contracts/pool/amm.func` (v1) and ston-fi/dex-core-v2
//! `contracts/pool/pools/constant_product/pool.fc` (v2).

use primitive_types::U256;

use super::math::{add, div, mul, muldiv, to_u128};
use super::{settle_dex_b, Direction, PoolError, Referral, SwapResult, FEE_DIVIDER};

/// Which contract generation's fee rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeeModel {
    /// `dex_b_v1`: `base_out = (aif·r_out) / (r_in·10000 + aif)` in plain 257-bit arithmetic, fees are u8,
    /// the referral fee is the pool's stored `ref_fee`, and a swap is refunded when `min_out >= out`.
    V1,
    /// `dex_b_v2`: the same quotient through `muldiv` (513-bit intermediate), fees are u16, the referral fee
    /// comes with the message, and a swap is refunded when `out < 1` or `min_out > out`.
    V2,
}

/// Constant-product pool parameters, in the contract's units (1/10000).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstantProduct {
    /// Fee rules of the contract generation.
    pub fee_model: FeeModel,
    /// LP fee, taken from the input and left in the pool.
    pub lp_fee: u16,
    /// Protocol fee, taken from the output (rounded up).
    pub protocol_fee: u16,
    /// `dex_b_v1` only: the referral fee stored in the pool, applied when a swap carries a referral.
    pub ref_fee: u16,
}

impl ConstantProduct {
    /// A constant-product curve with the given fee model and fees (1/10000).
    pub fn new(fee_model: FeeModel, lp_fee: u16, protocol_fee: u16, ref_fee: u16) -> ConstantProduct {
        ConstantProduct { fee_model, lp_fee, protocol_fee, ref_fee }
    }

    /// One swap against `reserves`.
    pub fn swap(
        &self,
        reserves: [u128; 2],
        amount_in: u128,
        direction: Direction,
        referral: Option<Referral>,
    ) -> Result<SwapResult, PoolError> {
        let base_out = self.base_out(reserves, amount_in, direction)?;
        let ref_fee = match (self.fee_model, referral) {
            (_, None) => 0,
            (FeeModel::V1, Some(_)) => self.ref_fee,
            (FeeModel::V2, Some(r)) if r.fee_bps > 100 => return Err(PoolError::RefFeeOutOfRange(r.fee_bps)),
            (FeeModel::V2, Some(r)) => r.fee_bps,
        };
        let base_out = i128::try_from(base_out).map_err(|_| PoolError::Overflow)?;
        settle_dex_b(reserves, direction, amount_in, base_out, self.protocol_fee, ref_fee)
    }

    /// What the `dex_b_v1` get-method `get_expected_outputs` answers: `(amount_out, protocol_fee_out)` with
    /// no referral and none of the swap's refund checks (a swap that would pay nothing reads as 0, and a
    /// swap that would push a reserve past 2^120−1 still reads as its formula). Use [`Self::swap`] to route.
    pub fn expected_outputs(
        &self,
        reserves: [u128; 2],
        amount_in: u128,
        direction: Direction,
    ) -> Result<(u128, u128), PoolError> {
        let base_out = self.base_out(reserves, amount_in, direction)?;
        let protocol = if self.protocol_fee > 0 { super::math::ceil_fee(base_out, self.protocol_fee)? } else { 0 };
        Ok((base_out.saturating_sub(protocol), protocol))
    }

    /// `floor(aif·r_out / (r_in·10000 + aif))` with `aif = amount_in·(10000 − lp_fee)`, in the generation's
    /// arithmetic.
    fn base_out(&self, reserves: [u128; 2], amount_in: u128, direction: Direction) -> Result<u128, PoolError> {
        let (r_in, r_out) = direction.split(reserves);
        if r_in == 0 || r_out == 0 {
            return Err(PoolError::EmptyPool);
        }
        let keep = FEE_DIVIDER
            .checked_sub(u128::from(self.lp_fee))
            .filter(|k| *k > 0)
            .ok_or(PoolError::FeeOutOfRange(u32::from(self.lp_fee)))?;
        let aif = mul(U256::from(amount_in), U256::from(keep))?;
        let denominator = add(mul(U256::from(r_in), U256::from(FEE_DIVIDER))?, aif)?;
        let base_out = match self.fee_model {
            FeeModel::V1 => div(mul(aif, U256::from(r_out))?, denominator)?,
            FeeModel::V2 => muldiv(aif, U256::from(r_out), denominator)?,
        };
        // base_out < r_out (the denominator exceeds aif), so it fits in u128.
        to_u128(base_out)
    }
}
