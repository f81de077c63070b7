//! Weighted stable swap as the `dex_b_v2` contract runs it.
//!
//! Invariant `k = amp·(x + rate·y) + x^p·(rate·y)^q` with `p = w0`, `q = 1 − w0`, everything in 1e18 fixed
//! point; the output balance is found by Newton's method on the output side (the powers rounded down by the
//! library's error bound, each step `start −= to(div(Δf, f′))`, until `|Δf| ≤ 1e24`, at most 255 steps: exit
//! 5103; a zero derivative: exit 5104). The LP fee is floored off the input first; protocol and referral
//! fees come off the output. Nothing bounds the Newton result, so `base_out` may be negative (then
//! `out < 1`) or exceed the reserve (then the reserve check refunds). Source: ston-fi/dex-core-v2
//! `contracts/pool/pools/weighted_stableswap/{math,pool}.fc`, fixed point from `super::fp`. Owns this
//! curve's arithmetic only.

use super::fp::{self, Int, ONE_18};
use super::weighted_constant_product::{prepare, settle_signed};
use super::{Direction, PoolError, SwapResult, Trade};

/// The contract's `__EPSILON`: 0.001 with 27 decimals of headroom, i.e. 1e24 on the 1e18 scale.
const EPSILON: Int = Int::from_u128(1_000_000_000_000_000_000_000_000);
const MAX_ITERATIONS: usize = 255;

/// Weighted stable-swap parameters, in the contract's units (each u128 in storage, 1e18 fixed point).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightedStableSwap {
    /// Amplification, 1e18 fixed point.
    pub amp: u128,
    /// Price of token1 in token0, 1e18 fixed point (`rate·y` is compared with `x`).
    pub rate: u128,
    /// Weight of token0 (`p`), 1e18 fixed point; token1's is `1e18 − w0`.
    pub w0: u128,
    /// LP fee (1/10000), floored off the input before the curve.
    pub lp_fee: u16,
    /// Protocol fee (1/10000), taken from the output and rounded up.
    pub protocol_fee: u16,
}

/// The curve's constants as the contract's math reads them.
struct Params {
    amp: Int,
    rate: Int,
    p: Int,
    q: Int,
}

impl WeightedStableSwap {
    /// A weighted stable-swap curve.
    pub fn new(amp: u128, rate: u128, w0: u128, lp_fee: u16, protocol_fee: u16) -> WeightedStableSwap {
        WeightedStableSwap { amp, rate, w0, lp_fee, protocol_fee }
    }

    /// One swap against `reserves`.
    pub fn swap(&self, trade: Trade) -> Result<SwapResult, PoolError> {
        let Trade { reserves, amount_in, direction, referral } = trade;
        let (ain, ref_fee) = prepare(reserves, amount_in, self.lp_fee, referral)?;
        let w0 = Int::from_u128(self.w0);
        let params =
            Params { amp: Int::from_u128(self.amp), rate: Int::from_u128(self.rate), p: w0, q: fp::complement(w0)? };
        let (x, y) = (Int::from_u128(reserves[0]), Int::from_u128(reserves[1]));
        let base_out = match direction {
            Direction::ZeroToOne => params.solve_dy(x, y, ain)?,
            Direction::OneToZero => params.solve_dx(x, y, ain)?,
        };
        settle_signed(reserves, direction, amount_in, base_out, self.protocol_fee, ref_fee)
    }

    /// Marginal price out/in before fees, from the invariant's gradient (floats: ranking only).
    pub fn spot_price(&self, reserves: [u128; 2], direction: Direction) -> f64 {
        self.float_spot(reserves[0] as f64, reserves[1] as f64, direction).unwrap_or(0.0)
    }

    /// The float model: `(amp, rate, p, q)` as reals.
    pub(crate) fn float_params(&self) -> (f64, f64, f64, f64) {
        let p = self.w0 as f64 / 1e18;
        (self.amp as f64 / 1e18, self.rate as f64 / 1e18, p, 1.0 - p)
    }

    /// Partial derivatives `(∂k/∂x, ∂k/∂y)` of the real invariant.
    pub(crate) fn float_gradient(&self, x: f64, y: f64) -> (f64, f64) {
        let (amp, rate, p, q) = self.float_params();
        let ry = rate * y;
        let fx = amp + p * libm::pow(x, p - 1.0) * libm::pow(ry, q);
        let fy = amp * rate + q * rate * libm::pow(x, p) * libm::pow(ry, q - 1.0);
        (fx, fy)
    }

    /// The real invariant.
    pub(crate) fn float_invariant(&self, x: f64, y: f64) -> f64 {
        let (amp, rate, p, q) = self.float_params();
        amp * (x + rate * y) + libm::pow(x, p) * libm::pow(rate * y, q)
    }

    /// Marginal price out/in at reserves `(x, y)` (token0, token1).
    pub(crate) fn float_spot(&self, x: f64, y: f64, direction: Direction) -> Option<f64> {
        if x <= 0.0 || y <= 0.0 {
            return None;
        }
        let (fx, fy) = self.float_gradient(x, y);
        let s = match direction {
            Direction::ZeroToOne => fx / fy,
            Direction::OneToZero => fy / fx,
        };
        (s.is_finite() && s > 0.0).then_some(s)
    }
}

/// A power the Newton loop needs again with the same arguments. It is computed where the contract first
/// computes it and reused after, so a throw surfaces at the same point (and with the same code) as on chain.
#[derive(Default)]
struct Cached(Option<Int>);

impl Cached {
    #[inline]
    fn get(&mut self, f: impl FnOnce() -> Result<Int, PoolError>) -> Result<Int, PoolError> {
        match self.0 {
            Some(v) => Ok(v),
            None => {
                let v = f()?;
                self.0 = Some(v);
                Ok(v)
            }
        }
    }
}

impl Params {
    /// `_invariant(x, y, p, q)` on plain integers.
    fn invariant(&self, x: Int, y: Int) -> Result<Int, PoolError> {
        let x = fp::from(x)?;
        let y = fp::from(y)?;
        let ry = fp::mul(self.rate, y)?;
        let p1 = fp::mul(x.add(ry)?, self.amp)?;
        let p2 = fp::mul(fp::ow_pow(x, self.p)?, fp::ow_pow(ry, self.q)?)?;
        p1.add(p2)
    }

    /// `solve_dy`: token0 in (`dx`), the drop of token1's balance.
    ///
    /// Each round is the contract's `_invariant(x + dx, start_y) − k` and `_dy_invariant(x + dx, start_y)`
    /// (`amp·rate + q·y^(q−1)·rate^q·x^p`), step by step; `x^p` and `rate^q` do not change between rounds.
    fn solve_dy(&self, x: Int, y: Int, dx: Int) -> Result<Int, PoolError> {
        let k = self.invariant(x, y)?;
        let xf = fp::from(x.add(dx)?)?;
        let q_minus_one = self.q.sub(ONE_18)?;
        let (mut x_p, mut rate_q) = (Cached::default(), Cached::default());
        let mut start_y = y;
        let mut i = 0;
        loop {
            let yf = fp::from(start_y)?;
            let ry = fp::mul(self.rate, yf)?;
            let p1 = fp::mul(xf.add(ry)?, self.amp)?;
            let xp = x_p.get(|| fp::ow_pow(xf, self.p))?;
            let mut ry_base = fp::Base::new(ry);
            let p2 = fp::mul(xp, ry_base.ow_pow(self.q)?)?;
            let delta_f = p1.add(p2)?.sub(k)?;

            // `(rate·y)^q` and `y^(q−1)` share their logarithm when the rate is one (`rate·y = y`).
            let y_q_minus_one = if ry == yf { ry_base.ow_pow(q_minus_one)? } else { fp::ow_pow(yf, q_minus_one)? };
            let p2_0 = fp::mul(self.q, y_q_minus_one)?;
            let p2_1 = fp::mul(p2_0, rate_q.get(|| fp::ow_pow(self.rate, self.q))?)?;
            let df_d = fp::mul(self.amp, self.rate)?.add(fp::mul(p2_1, xp)?)?;

            start_y = start_y.sub(newton_step(delta_f, df_d)?)?;
            i += 1;
            // The contract counts before it tests: a 256th step throws even if it converged.
            if i > MAX_ITERATIONS {
                return Err(PoolError::NotConverged);
            }
            if converged(delta_f) {
                return y.sub(start_y);
            }
        }
    }

    /// `solve_dx`: token1 in (`dy`), the drop of token0's balance.
    ///
    /// Each round is `_invariant(start_x, y + dy) − k` and `_dx_invariant(start_x, y + dy)`
    /// (`amp + p·x^(p−1)·rate^q·y^q`); `(rate·y)^q`, `rate^q` and `y^q` do not change between rounds.
    fn solve_dx(&self, x: Int, y: Int, dy: Int) -> Result<Int, PoolError> {
        let k = self.invariant(x, y)?;
        let yf = fp::from(y.add(dy)?)?;
        let ry = fp::mul(self.rate, yf)?;
        let p_minus_one = self.p.sub(ONE_18)?;
        let (mut ry_q, mut rate_q, mut y_q) = (Cached::default(), Cached::default(), Cached::default());
        let mut start_x = x;
        let mut i = 0;
        loop {
            let xf = fp::from(start_x)?;
            let p1 = fp::mul(xf.add(ry)?, self.amp)?;
            // `x^p` and `x^(p−1)`: one logarithm of x for both.
            let mut x_base = fp::Base::new(xf);
            let xp = x_base.ow_pow(self.p)?;
            let p2 = fp::mul(xp, ry_q.get(|| fp::ow_pow(ry, self.q))?)?;
            let delta_f = p1.add(p2)?.sub(k)?;

            let p2_0 = fp::mul(self.p, x_base.ow_pow(p_minus_one)?)?;
            let p2_1 = fp::mul(p2_0, rate_q.get(|| fp::ow_pow(self.rate, self.q))?)?;
            let p2_2 = fp::mul(p2_1, y_q.get(|| fp::ow_pow(yf, self.q))?)?;
            let df_d = self.amp.add(p2_2)?;

            start_x = start_x.sub(newton_step(delta_f, df_d)?)?;
            i += 1;
            if i > MAX_ITERATIONS {
                return Err(PoolError::NotConverged);
            }
            if converged(delta_f) {
                return x.sub(start_x);
            }
        }
    }
}

/// `to(div(Δf, f′))`, exit 5104 on a zero derivative.
#[inline]
fn newton_step(delta_f: Int, df_d: Int) -> Result<Int, PoolError> {
    if df_d.is_zero() {
        return Err(PoolError::ZeroDerivative);
    }
    fp::to(fp::div(delta_f, df_d)?)
}

#[inline]
fn converged(delta_f: Int) -> bool {
    let abs = if delta_f.is_neg() { delta_f.negate() } else { delta_f };
    abs <= EPSILON
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_weight_above_one_is_a_complement_error() {
        let c = WeightedStableSwap::new(1_000_000_000_000_000_000, 1_000_000_000_000_000_000, 2 * 10u128.pow(18), 0, 0);
        assert_eq!(
            c.swap(Trade::new([1_000_000, 1_000_000], 1_000, Direction::ZeroToOne, None)),
            Err(PoolError::ComplementOutOfRange)
        );
    }

    #[test]
    fn float_spot_is_one_on_a_balanced_pegged_pool() {
        let c = WeightedStableSwap::new(10u128.pow(20), 10u128.pow(18), 5 * 10u128.pow(17), 0, 0);
        let s = c.float_spot(1e9, 1e9, Direction::ZeroToOne).unwrap();
        assert!((s - 1.0).abs() < 1e-12, "{s}");
    }
}
