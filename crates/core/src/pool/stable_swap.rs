//! Two-token stable swap as the `dex_b_v2` contract runs it.
//!
//! Curve's invariant with `amp` playing Curve's `Ann`, solved by the contract's own integer iterations
//! (255 rounds at most, convergence at |Δ| ≤ 1), the LP fee floored off the input first, and one extra unit
//! kept by the pool. Source: ston-fi/dex-core-v2 `contracts/pool/pools/stableswap/{math,pool}.fc`.

use primitive_types::U256;

use super::math::{abs_diff, add, div, divc, mul, muldiv, to_u128};
use super::{settle_dex_b, v2_fees, Direction, PoolError, SwapResult, Trade, FEE_DIVIDER};

const MAX_ITERATIONS: usize = 255;

/// Stable-swap parameters, in the contract's units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StableSwap {
    /// Amplification as the contract stores it (u32; Curve's `Ann`, i.e. 2·A for two tokens).
    pub amp: u32,
    /// LP fee (1/10000), floored off the input before the curve.
    pub lp_fee: u16,
    /// Protocol fee (1/10000), taken from the output and rounded up.
    pub protocol_fee: u16,
}

impl StableSwap {
    /// A stable-swap curve.
    pub fn new(amp: u32, lp_fee: u16, protocol_fee: u16) -> StableSwap {
        StableSwap { amp, lp_fee, protocol_fee }
    }

    /// One swap against `reserves`.
    pub fn swap(&self, trade: Trade) -> Result<SwapResult, PoolError> {
        let Trade { reserves, amount_in, direction, referral } = trade;
        if self.amp == 0 {
            return Err(PoolError::ZeroAmp);
        }
        let (keep, ref_fee) = v2_fees(reserves, self.lp_fee, referral)?;
        let side = direction == Direction::ZeroToOne;
        let y = match balance_in_words(u128::from(self.amp), reserves, amount_in, keep, side) {
            Some(y) => U256::from(y),
            None => balance_wide(U256::from(self.amp), reserves, amount_in, keep, side)?,
        };
        // base_out = balance_out − y − 1, which the contract lets go negative (then `out < 1` refunds).
        let (r0, r1) = (U256::from(reserves[0]), U256::from(reserves[1]));
        let balance_out = if side { r1 } else { r0 };
        let base_out = if y >= balance_out {
            -1
        } else {
            i128::try_from(to_u128(balance_out - y)?).map_err(|_| PoolError::Overflow)? - 1
        };
        settle_dex_b(reserves, direction, amount_in, base_out, self.protocol_fee, ref_fee)
    }

    /// Marginal price out/in before fees, from the invariant's gradient (floats: ranking only).
    pub fn spot_price(&self, reserves: [u128; 2], direction: Direction) -> f64 {
        // For Curve's 2-coin invariant, dy/dx = (x·(Ann·4xy·... )) is awkward; a tiny exact swap is simpler
        // and agrees to the fee-free marginal rate within its rounding.
        let (r_in, _) = direction.split(reserves);
        let probe = (r_in / 1_000_000).max(1);
        let unfeed = StableSwap { amp: self.amp, lp_fee: 0, protocol_fee: 0 };
        match unfeed.swap(Trade::new(reserves, probe, direction, None)) {
            Ok(r) => (r.amount_out + 1) as f64 / probe as f64,
            Err(_) => 0.0,
        }
    }
}

/// The output token's balance after `amount_in` (of which `keep / FEE_DIVIDER` reaches the curve) comes in:
/// the contract's arithmetic in 257-bit integers, every error as the contract's.
fn balance_wide(amp: U256, reserves: [u128; 2], amount_in: u128, keep: u128, side: bool) -> Result<U256, PoolError> {
    let (r0, r1) = (U256::from(reserves[0]), U256::from(reserves[1]));
    let ain = muldiv(U256::from(amount_in), U256::from(keep), U256::from(FEE_DIVIDER))?;
    let d = invariant(amp, r0, r1)?;
    let (left, right) = if side { (add(r0, ain)?, r1) } else { (r0, add(r1, ain)?) };
    out_balance(amp, left, right, d, side)
}

/// [`balance_wide`] in 128-bit words, where every intermediate fits (balances below 10¹⁶ units, at most
/// 1:100 off balance, at amplifications up to 10⁴: tested), else `None`. The same integer operations in
/// the same order, each exact in either width, so where this answers it answers what the wide arithmetic
/// does; anything it does not settle (an overflow, a zero divisor, no convergence) is left to the wide
/// arithmetic, which gives the contract's error. A quote simulates the USD₮–USDC pool on many candidate
/// routes; each wide run is some fifty 256-bit divisions.
fn balance_in_words(amp: u128, reserves: [u128; 2], amount_in: u128, keep: u128, side: bool) -> Option<u128> {
    let ain = amount_in.checked_mul(keep)? / FEE_DIVIDER;
    let (r0, r1) = (reserves[0], reserves[1]);
    let d = invariant_in_words(amp, r0, r1)?;
    let (left, right) = if side { (r0.checked_add(ain)?, r1) } else { (r0, r1.checked_add(ain)?) };
    out_balance_in_words(amp, left, right, d, side)
}

/// [`invariant`] in words (`None`: let the wide arithmetic decide).
fn invariant_in_words(amp: u128, left: u128, right: u128) -> Option<u128> {
    let sum = left.checked_add(right)?;
    if sum == 0 || amp == 0 {
        return None;
    }
    let mut d = sum;
    let (two_left, two_right) = (left.checked_mul(2)?, right.checked_mul(2)?);
    for _ in 0..MAX_ITERATIONS {
        let d_p = d.checked_mul(d)?.checked_div(two_left)?;
        let d_p = d_p.checked_mul(d)?.checked_div(two_right)?;
        let prev = d;
        let first = amp.checked_mul(sum)?.checked_add(d_p.checked_mul(2)?)?;
        let second = (amp - 1).checked_mul(d)?.checked_add(d_p.checked_mul(3)?)?;
        d = first.checked_mul(d)?.checked_div(second)?;
        if d.abs_diff(prev) <= 1 {
            return Some(d);
        }
    }
    None
}

/// [`out_balance`] in words (`None`: let the wide arithmetic decide).
fn out_balance_in_words(amp: u128, left: u128, right: u128, d: u128, side: bool) -> Option<u128> {
    let divc = |a: u128, b: u128| -> Option<u128> { a.checked_div(b)?.checked_add(u128::from(!a.is_multiple_of(b))) };
    let p_d = left.checked_mul(2)?.checked_mul(right)?.checked_mul(2)?.checked_div(d)?;
    let (sum, other) = if side { (left, right) } else { (right, left) };
    let inv2 = d.checked_mul(d)?;
    let c = divc(inv2, amp.checked_mul(p_d)?)?.checked_mul(other)?;
    let b = sum.checked_add(d.checked_div(amp)?)?;
    let mut y = divc(inv2.checked_add(c)?, d.checked_add(b)?)?;
    for _ in 0..MAX_ITERATIONS {
        let prev = y;
        let numerator = y.checked_mul(y)?.checked_add(c)?;
        let two_y_b = y.checked_mul(2)?.checked_add(b)?;
        if two_y_b <= d {
            return None;
        }
        y = divc(numerator, two_y_b - d)?;
        if y.abs_diff(prev) <= 1 {
            return Some(y);
        }
    }
    None
}

/// The contract's `calculate_invariant`: D by Newton iteration, exit 5103 if it does not settle.
fn invariant(amp: U256, left: U256, right: U256) -> Result<U256, PoolError> {
    let sum = add(left, right)?;
    if sum.is_zero() {
        return Ok(U256::zero());
    }
    let two = U256::from(2u8);
    let mut d = sum;
    let amp_minus_one = amp - U256::one(); // amp ≥ 1, checked by the caller
    for _ in 0..MAX_ITERATIONS {
        let mut d_p = d;
        d_p = div(mul(d_p, d)?, mul(left, two)?)?;
        d_p = div(mul(d_p, d)?, mul(right, two)?)?;
        let prev = d;
        let first = add(mul(amp, sum)?, mul(d_p, two)?)?;
        let second = add(mul(amp_minus_one, d)?, mul(d_p, U256::from(3u8))?)?;
        d = muldiv(first, d, second)?;
        if abs_diff(d, prev) <= U256::one() {
            return Ok(d);
        }
    }
    Err(PoolError::NotConverged)
}

/// The contract's `_get_out_balance`: the output token's balance that keeps D, rounded up.
fn out_balance(amp: U256, left: U256, right: U256, d: U256, side: bool) -> Result<U256, PoolError> {
    let two = U256::from(2u8);
    let p_d = muldiv(mul(mul(left, two)?, right)?, two, d)?;
    // The sum of the balances other than the output token's: the input token's balance.
    let (sum, other) = if side { (left, right) } else { (right, left) };
    let inv2 = mul(d, d)?;
    let c = mul(divc(inv2, mul(amp, p_d)?)?, other)?;
    let b = add(sum, div(d, amp)?)?;
    let mut y = divc(add(inv2, c)?, add(d, b)?)?;
    for _ in 0..MAX_ITERATIONS {
        let prev = y;
        let numerator = add(mul(y, y)?, c)?;
        let two_y_b = add(mul(y, two)?, b)?;
        // The contract divides by 2y + b − D as a signed value; a non-positive divisor only arises from
        // degenerate states, and dividing by it would not give a balance, so it counts as non-convergence.
        if two_y_b <= d {
            return Err(PoolError::NotConverged);
        }
        y = divc(numerator, two_y_b - d)?;
        if abs_diff(y, prev) <= U256::one() {
            return Ok(y);
        }
    }
    Err(PoolError::NotConverged)
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: [u128; 2] = [1_000_000_000, 2_000_000_000];

    /// The word path answers exactly what the wide arithmetic answers, wherever it answers: random balances
    /// and amounts of every magnitude up to 2¹²⁸, amplifications from 1 to u32::MAX, fees from none to all but
    /// one unit; and it does answer for every pool below 10¹⁶ units at amplification ≤ 10⁴ (a pool
    /// at most 1:100 off balance, amounts up to its balance).
    #[test]
    fn word_balances_equal_the_wide_arithmetic() {
        use crate::pool::math::tests::{next, random_word as rand_bits};
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let amps = [1u128, 2, 10, 100, 200, 2_000, 10_000, u128::from(u32::MAX)];
        let keeps = [10_000u128, 9_980, 5_000, 1];
        let (mut answered, mut total) = (0usize, 0usize);
        for i in 0..200_000 {
            let reserves = [rand_bits(&mut x).max(1), rand_bits(&mut x).max(1)];
            let amount = rand_bits(&mut x);
            let (amp, keep, side) = (amps[i % amps.len()], keeps[(i / 8) % keeps.len()], i % 2 == 0);
            total += 1;
            if let Some(y) = balance_in_words(amp, reserves, amount, keep, side) {
                answered += 1;
                assert_eq!(
                    balance_wide(U256::from(amp), reserves, amount, keep, side),
                    Ok(U256::from(y)),
                    "{reserves:?} {amount} amp {amp} keep {keep} side {side}"
                );
            }
        }
        assert!(answered > total / 10, "the random cases barely reach the word path: {answered} of {total}");
        let mut realistic = 0;
        for i in 0..100_000 {
            let r0 = 1_000_000_000 + u128::from(next(&mut x)) % 9_999_000_000_000_000;
            let r1 = (r0 / 100).max(1) + u128::from(next(&mut x)) % (r0 * 100 - r0 / 100);
            let r1 = r1.min(9_999_999_999_999_999);
            let reserves = [r0, r1];
            let amount = 1 + u128::from(next(&mut x)) % r0.min(r1);
            let (amp, keep, side) = (amps[i % 7].min(10_000), keeps[(i / 7) % 3], i % 2 == 1);
            let wide = balance_wide(U256::from(amp), reserves, amount, keep, side);
            let words = balance_in_words(amp, reserves, amount, keep, side);
            if let Ok(y) = wide {
                assert_eq!(words.map(U256::from), Some(y), "{reserves:?} {amount} amp {amp} keep {keep}");
                realistic += 1;
            }
        }
        assert!(realistic > 90_000, "{realistic}");
    }

    #[test]
    fn research_vector() {
        // docs/pool-math.md §2b: amp 100, fees 20/10, 1e6 token1 in → out 980_759, proto 982.
        let r = StableSwap::new(100, 20, 10).swap(Trade::new(R, 1_000_000, Direction::OneToZero, None)).unwrap();
        assert_eq!((r.amount_out, r.protocol_fee_out, r.ref_fee_out), (980_759, 982, 0));
        assert_eq!(r.reserves_after, [R[0] - 980_759 - 982, R[1] + 1_000_000]);
    }

    #[test]
    fn amp_zero_is_its_own_error() {
        assert_eq!(
            StableSwap::new(0, 20, 10).swap(Trade::new(R, 1_000_000, Direction::ZeroToOne, None)),
            Err(PoolError::ZeroAmp)
        );
    }

    #[test]
    fn an_lp_fee_of_100_percent_is_a_fee_error() {
        for lp in [10_000, 10_001, u16::MAX] {
            let c = StableSwap::new(100, lp, 0);
            assert_eq!(
                c.swap(Trade::new(R, 1_000_000, Direction::ZeroToOne, None)),
                Err(PoolError::FeeOutOfRange(lp.into()))
            );
        }
    }

    #[test]
    fn a_referral_fee_above_100_bps_is_rejected() {
        let c = StableSwap::new(100, 20, 10);
        let referral = Some(crate::pool::Referral { fee_bps: 101 });
        assert_eq!(
            c.swap(Trade::new(R, 1_000_000, Direction::ZeroToOne, referral)),
            Err(PoolError::RefFeeOutOfRange(101))
        );
    }

    #[test]
    fn empty_pool() {
        let c = StableSwap::new(100, 20, 10);
        assert_eq!(c.swap(Trade::new([0, 5], 1_000, Direction::ZeroToOne, None)), Err(PoolError::EmptyPool));
        assert_eq!(c.swap(Trade::new([5, 0], 1_000, Direction::OneToZero, None)), Err(PoolError::EmptyPool));
    }

    #[test]
    fn the_extra_unit_makes_a_one_unit_swap_pay_nothing() {
        // ain = 1 on a balanced pool gives y = balance − 1 at best, and base_out = balance − y − 1 ≤ 0.
        let c = StableSwap::new(100, 0, 0);
        assert_eq!(c.swap(Trade::new(R, 1, Direction::ZeroToOne, None)), Err(PoolError::ZeroOutput));
    }
}
