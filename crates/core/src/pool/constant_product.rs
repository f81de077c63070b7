//! Constant product (x·y = k) as the `dex_b` contracts run it (`dex_b_v1` and `dex_b_v2` fee models).
//!
//! Both models take the LP fee inside the one division and the protocol and referral fees from the output,
//! rounded up; they differ in the width of the division and in their refund rules (see [`FeeModel`]).
//! Sources: ston-fi/dex-core `contracts/pool/amm.func` (v1) and ston-fi/dex-core-v2
//! `contracts/pool/pools/constant_product/pool.fc` (v2).

use primitive_types::U256;

use super::math::{add, div, mul, muldiv, to_u128};
use super::{lp_keep, settle_dex_b, Direction, PoolError, Referral, SwapResult, Trade, FEE_DIVIDER};

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
    pub fn swap(&self, trade: Trade) -> Result<SwapResult, PoolError> {
        let Trade { reserves, amount_in, direction, referral } = trade;
        let base_out = self.base_out(reserves, amount_in, direction)?;
        let ref_fee = match (self.fee_model, referral) {
            (_, None) => 0,
            (FeeModel::V1, Some(_)) => self.ref_fee,
            (FeeModel::V2, r) => Referral::message_fee(r)?,
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
        let keep = lp_keep(self.lp_fee)?;
        match base_out_in_words(r_in, r_out, amount_in, keep) {
            Some(out) => Ok(out),
            None => base_out_wide(self.fee_model, r_in, r_out, amount_in, keep),
        }
    }
}

/// [`ConstantProduct::base_out`] in the generation's 257-bit arithmetic, every error as the contract's.
fn base_out_wide(model: FeeModel, r_in: u128, r_out: u128, amount_in: u128, keep: u128) -> Result<u128, PoolError> {
    let aif = mul(U256::from(amount_in), U256::from(keep))?;
    let denominator = add(mul(U256::from(r_in), U256::from(FEE_DIVIDER))?, aif)?;
    let base_out = match model {
        FeeModel::V1 => div(mul(aif, U256::from(r_out))?, denominator)?,
        FeeModel::V2 => muldiv(aif, U256::from(r_out), denominator)?,
    };
    // base_out < r_out (the denominator exceeds aif), so it fits in u128.
    to_u128(base_out)
}

/// [`ConstantProduct::base_out`] in 128-bit words where `aif·r_out` and the denominator fit (every pool and
/// amount below about 10¹⁷ units on a side, with room to spare), else `None`. Both generations' results are
/// `floor(aif·r_out / denominator)` whenever the product fits in 256 bits, and a product that fits in 128
/// does, so the word path answers what the wide arithmetic does; anything else is the wide path's (its
/// overflow errors included). A quote simulates constant-product hops hundreds of times (settlement's
/// transfers); the wide path's division was most of each.
#[inline]
fn base_out_in_words(r_in: u128, r_out: u128, amount_in: u128, keep: u128) -> Option<u128> {
    let aif = amount_in.checked_mul(keep)?;
    let denominator = r_in.checked_mul(FEE_DIVIDER)?.checked_add(aif)?;
    aif.checked_mul(r_out)?.checked_div(denominator)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word path gives what the 256-bit path gives wherever it answers, for both generations, over
    /// reserves and amounts of every magnitude up to 2¹²⁸ and fees from none to all but one unit; and it
    /// answers for every pool and amount below 10¹⁶ units.
    #[test]
    fn word_outputs_equal_the_wide_arithmetic() {
        use crate::pool::math::tests::{next, random_word as bits};
        let mut x = 0x1234_5678_9abc_def1u64;
        let mut answered = 0;
        for i in 0..200_000 {
            let (r_in, r_out, amount) = (bits(&mut x).max(1), bits(&mut x).max(1), bits(&mut x));
            let keep = [10_000u128, 9_970, 1][i % 3];
            if let Some(out) = base_out_in_words(r_in, r_out, amount, keep) {
                answered += 1;
                for model in [FeeModel::V1, FeeModel::V2] {
                    assert_eq!(
                        base_out_wide(model, r_in, r_out, amount, keep),
                        Ok(out),
                        "{r_in} {r_out} {amount} {keep}"
                    );
                }
            }
        }
        assert!(answered > 20_000, "{answered}");
        for _ in 0..100_000 {
            let small = |x: &mut u64| 1 + u128::from(next(x)) % 10_000_000_000_000_000;
            let (r_in, r_out, amount) = (small(&mut x), small(&mut x), small(&mut x));
            assert!(base_out_in_words(r_in, r_out, amount, 9_970).is_some(), "{r_in} {r_out} {amount}");
        }
    }
    use crate::pool::MAX_COINS;

    const R: [u128; 2] = [1_000_000_000, 2_000_000_000];

    #[test]
    fn an_lp_fee_of_100_percent_is_a_fee_error() {
        for model in [FeeModel::V1, FeeModel::V2] {
            for lp in [10_000, 10_001, u16::MAX] {
                let c = ConstantProduct::new(model, lp, 0, 0);
                assert_eq!(
                    c.swap(Trade::new(R, 1_000_000, Direction::ZeroToOne, None)),
                    Err(PoolError::FeeOutOfRange(lp.into()))
                );
            }
        }
    }

    #[test]
    fn a_protocol_fee_of_100_percent_leaves_zero_output() {
        // The contract computes out = base − ceil(base·10000/10000) = 0 and refunds (`out <= 0` / `out < 1`).
        for model in [FeeModel::V1, FeeModel::V2] {
            let c = ConstantProduct::new(model, 0, 10_000, 0);
            assert_eq!(c.swap(Trade::new(R, 1_000_000, Direction::ZeroToOne, None)), Err(PoolError::ZeroOutput));
        }
    }

    #[test]
    fn a_v2_referral_fee_above_100_bps_is_rejected() {
        let c = ConstantProduct::new(FeeModel::V2, 20, 10, 0);
        let referral = Some(Referral { fee_bps: 101 });
        assert_eq!(
            c.swap(Trade::new(R, 1_000_000, Direction::ZeroToOne, referral)),
            Err(PoolError::RefFeeOutOfRange(101))
        );
        let referral = Some(Referral { fee_bps: 100 });
        assert!(c.swap(Trade::new(R, 1_000_000, Direction::ZeroToOne, referral)).is_ok());
    }

    #[test]
    fn v1_uses_the_pools_stored_referral_fee() {
        // docs/pool-math.md §1 vector: base 1_994_009, proto = ref = ceil(1_994_009·10/10000) = 1_995.
        let c = ConstantProduct::new(FeeModel::V1, 20, 10, 10);
        let r = c.swap(Trade::new(R, 1_000_000, Direction::ZeroToOne, Some(Referral { fee_bps: 100 }))).unwrap();
        assert_eq!((r.amount_out, r.protocol_fee_out, r.ref_fee_out), (1_990_019, 1_995, 1_995));
    }

    #[test]
    fn tiny_input_pays_nothing_and_is_refunded() {
        // aif·r_out = 9980·2e9 < (r_in·10000 + aif) → base 0.
        let c = ConstantProduct::new(FeeModel::V2, 20, 10, 0);
        assert_eq!(
            c.swap(Trade::new([1_000_000_000_000_000, 2], 1, Direction::ZeroToOne, None)),
            Err(PoolError::ZeroOutput)
        );
    }

    #[test]
    fn v1_overflows_where_v2_muldiv_does_not() {
        // Legal coins keep aif·r_out below 2^254; a reserve of 2^126 (a state the chain cannot hold) pushes
        // it past 2^256: TVM exit 4 in v1's plain multiply, while v2's muldiv answers and the range check refunds.
        let r = [1u128 << 100, 1u128 << 126];
        let amount = MAX_COINS;
        let v1 = ConstantProduct::new(FeeModel::V1, 0, 0, 0);
        assert_eq!(v1.swap(Trade::new(r, amount, Direction::ZeroToOne, None)), Err(PoolError::Overflow));
        let v2 = ConstantProduct::new(FeeModel::V2, 0, 0, 0);
        assert_eq!(v2.swap(Trade::new(r, amount, Direction::ZeroToOne, None)), Err(PoolError::ReserveOutOfRange));
    }

    #[test]
    fn with_two_output_fees_one_more_unit_in_can_pay_one_unit_less() {
        // Contract rule (dex_b v2): proto and ref are each ceil(base·fee/10000). At fees 100/100 on a deep
        // 1e12/1e12 pool: amount 101 → base floor(101e12/(1e12+101)) = 100, fees 1 + 1, out 98;
        // amount 102 → base 101, fees ceil(1.01) = 2 twice, out 97. The contract is not monotone here;
        // out + ref is (see tests/it/pool_properties.rs).
        let c = ConstantProduct::new(FeeModel::V2, 0, 100, 0);
        let r = [1_000_000_000_000, 1_000_000_000_000];
        let referral = Some(Referral { fee_bps: 100 });
        let a = c.swap(Trade::new(r, 101, Direction::ZeroToOne, referral)).unwrap();
        let b = c.swap(Trade::new(r, 102, Direction::ZeroToOne, referral)).unwrap();
        assert_eq!((a.amount_out, a.protocol_fee_out, a.ref_fee_out), (98, 1, 1));
        assert_eq!((b.amount_out, b.protocol_fee_out, b.ref_fee_out), (97, 2, 2));
    }
}
