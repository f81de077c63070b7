//! Floating-point pool models for ranking and allocation (never for amounts that are paid or sent).
//!
//! A constant-product hop is exactly (up to rounding) the Möbius map `out(t) = s·t / (1 + c·t)` with
//! `s = γ·(1−φ)·y/x` and `c = γ/x` (γ: the input-side fee factor, φ: output-side fees), and Möbius maps
//! compose: a path is again `s·t / (1 + c·t)` with `s = s₁·s₂`, `c = c₁ + c₂·s₁`. Stable curves are fitted
//! by their marginal rate at zero and one probe. A concentrated pool is modelled on the virtual reserves of its
//! active range (`x = L/√P`, `y = L·√P`, what a pool graph stores as its reserves): exact within the range,
//! blind to the liquidity beyond it — enough to rank it, the exact swap decides.
//! Weighted curves are not symmetric in their tokens, so the
//! float models take the swap direction too.

use super::{Curve, Direction, WeightedStableSwap};

/// Input-side fee factor γ and output-side keep factor (1 − φ) of a curve.
#[inline]
pub fn fee_factors(curve: &Curve) -> (f64, f64) {
    match curve {
        Curve::ConstantProduct(c) => (1.0 - f64::from(c.lp_fee) / 1e4, 1.0 - f64::from(c.protocol_fee) / 1e4),
        Curve::StableSwap(c) => (1.0 - f64::from(c.lp_fee) / 1e4, 1.0 - f64::from(c.protocol_fee) / 1e4),
        Curve::DexAVolatile(c) => (1.0 - f64::from(c.fee_bps) / 1e4, 1.0),
        Curve::DexAStable(c) => (1.0 - f64::from(c.fee_bps) / 1e4, 1.0),
        Curve::Concentrated(c) => (1.0 - f64::from(c.lp_fee()) / 1e4, 1.0),
        Curve::WeightedConstantProduct(c) => (1.0 - f64::from(c.lp_fee) / 1e4, 1.0 - f64::from(c.protocol_fee) / 1e4),
        Curve::WeightedStableSwap(c) => (1.0 - f64::from(c.lp_fee) / 1e4, 1.0 - f64::from(c.protocol_fee) / 1e4),
    }
}

/// A path (or hop) summary `out(t) = s·t / (1 + c·t)`: exact for constant product up to rounding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mobius {
    /// Rate at zero size (after fees).
    pub s: f64,
    /// Curvature: how fast the rate falls with size.
    pub c: f64,
}

impl Mobius {
    /// This map followed by `next`.
    #[inline]
    pub fn then(self, next: Mobius) -> Mobius {
        Mobius { s: self.s * next.s, c: self.c + next.c * self.s }
    }

    /// Output for input `t`.
    #[inline]
    pub fn out(self, t: f64) -> f64 {
        self.s * t / (1.0 + self.c * t)
    }

    /// Marginal rate at input `t`.
    #[inline]
    pub fn marginal(self, t: f64) -> f64 {
        let d = 1.0 + self.c * t;
        self.s / (d * d)
    }

    /// The surplus `max_{0 ≤ t ≤ cap} out(t) − λ·t` at price λ.
    #[inline]
    pub fn surplus(self, lambda: f64, cap: f64) -> f64 {
        if self.s <= lambda {
            return 0.0;
        }
        let t = if self.c > 0.0 { ((self.s / lambda).sqrt() - 1.0) / self.c } else { cap };
        let t = t.min(cap);
        self.out(t) - lambda * t
    }
}

/// Möbius form of one hop at the given reserves; `None` for an empty pool.
pub fn hop(curve: &Curve, reserves: [u128; 2], dir: Direction) -> Option<Mobius> {
    let (x, y) = dir.split(reserves);
    if x == 0 || y == 0 {
        return None;
    }
    hop_f(curve, dir, x as f64, y as f64)
}

/// [`hop`] on float reserves `(x, y)` = (in, out) of a swap in direction `dir`.
pub fn hop_f(curve: &Curve, dir: Direction, x: f64, y: f64) -> Option<Mobius> {
    if x <= 0.0 || y <= 0.0 {
        return None;
    }
    let (gamma, keep) = fee_factors(curve);
    match curve {
        // Concentrated: `(x, y)` are the active range's virtual reserves (L/√P, L·√P), on which the pool is
        // exactly constant product until the price leaves the range.
        Curve::ConstantProduct(_) | Curve::DexAVolatile(_) | Curve::Concentrated(_) => {
            Some(Mobius { s: gamma * keep * y / x, c: gamma / x })
        }
        Curve::WeightedConstantProduct(w) => {
            // y·(1 − (x/(x+t))^k) = y·k·t/x·(1 − (k+1)/2·t/x + …): the Möbius map with the same first two
            // terms (k = 1 is the plain product's).
            let k = w.weight_ratio(dir)?;
            let s = gamma * keep * k * y / x;
            Some(Mobius { s, c: (gamma * (k + 1.0) / (2.0 * x)).max(s / y) })
        }
        _ => {
            let spot = fee_free_spot(curve, dir, x, y)?;
            let s = gamma * keep * spot;
            // One probe at 1 % of the input reserve fixes the curvature.
            let t = x * 0.01;
            let o = float_out(curve, dir, [x, y], t)?.0;
            let c = if o > 0.0 { ((s * t / o) - 1.0).max(1e-12) / t } else { 1.0 / x };
            // The fitted map must never promise more than the pool holds: its ceiling s/c stays below y.
            Some(Mobius { s, c })
        }
    }
}

/// Marginal rate out/in at zero size, before fees.
fn fee_free_spot(curve: &Curve, dir: Direction, x: f64, y: f64) -> Option<f64> {
    match curve {
        Curve::StableSwap(c) => {
            let amp = f64::from(c.amp);
            let d = stable_d(amp, x, y)?;
            let d3 = d * d * d;
            let fx = amp + d3 / (4.0 * x * x * y);
            let fy = amp + d3 / (4.0 * x * y * y);
            Some(fx / fy)
        }
        Curve::DexAStable(_) => {
            let num = 3.0 * x * x * y + y * y * y;
            let den = x * x * x + 3.0 * x * y * y;
            (den > 0.0).then_some(num / den)
        }
        Curve::WeightedConstantProduct(c) => Some(c.weight_ratio(dir)? * y / x),
        Curve::WeightedStableSwap(c) => {
            let [x0, x1] = float_join(dir, x, y);
            c.float_spot(x0, x1, dir)
        }
        _ => Some(y / x),
    }
}

fn stable_d(amp: f64, x: f64, y: f64) -> Option<f64> {
    let s = x + y;
    let mut d = s;
    for _ in 0..64 {
        let dp = d * d * d / (4.0 * x * y);
        let next = (amp * s + 2.0 * dp) * d / ((amp - 1.0) * d + 3.0 * dp);
        if (next - d).abs() <= d * 1e-15 {
            return Some(next);
        }
        d = next;
    }
    d.is_finite().then_some(d)
}

/// `[token0, token1]` from `(in, out)`.
#[inline]
fn float_join(dir: Direction, x: f64, y: f64) -> [f64; 2] {
    match dir {
        Direction::ZeroToOne => [x, y],
        Direction::OneToZero => [y, x],
    }
}

/// Floating-point swap of `t` (input units) in direction `dir` on reserves `[x, y]` = (in, out); returns the
/// output the user gets and the new `[x, y]`.
pub fn float_out(curve: &Curve, dir: Direction, r: [f64; 2], t: f64) -> Option<(f64, [f64; 2])> {
    float_out_with(curve, fee_factors(curve), dir, r, t)
}

/// [`float_out`] with the curve's [`fee_factors`] computed once by the caller (a water-fill runs the same
/// pools thousands of times); the same result to the bit. The constant-product formula (constant product,
/// `dex_a` volatile, a concentrated pool's current range) is inlined into the caller, whose independent
/// paths then overlap their divisions; the other curves are a call.
#[inline(always)]
pub fn float_out_with(
    curve: &Curve,
    (gamma, keep): (f64, f64),
    dir: Direction,
    r: [f64; 2],
    t: f64,
) -> Option<(f64, [f64; 2])> {
    let [x, y] = r;
    if x <= 0.0 || y <= 0.0 || t <= 0.0 {
        return None;
    }
    let net = gamma * t;
    let base = match curve {
        Curve::ConstantProduct(_) | Curve::DexAVolatile(_) | Curve::Concentrated(_) => y * net / (x + net),
        _ => curve_base_out(curve, dir, x, y, net)?,
    };
    if !base.is_finite() || base >= y {
        return None;
    }
    Some((base * keep, [x + t, y - base]))
}

/// The output before the output-side fee of the curves other than constant product, for [`float_out_with`].
#[inline(never)]
fn curve_base_out(curve: &Curve, dir: Direction, x: f64, y: f64, net: f64) -> Option<f64> {
    Some(match curve {
        Curve::ConstantProduct(_) | Curve::DexAVolatile(_) | Curve::Concentrated(_) => y * net / (x + net),
        Curve::StableSwap(c) => {
            let amp = f64::from(c.amp);
            let d = stable_d(amp, x, y)?;
            let x2 = x + net;
            let b = x2 + d / amp;
            let cc = d * d * d / (4.0 * x2 * amp);
            let bd = b - d;
            let y2 = (-bd + (bd * bd + 4.0 * cc).sqrt()) / 2.0;
            (y - y2).max(0.0)
        }
        Curve::DexAStable(_) => {
            let k = x * y * (x * x + y * y);
            let x2 = x + net;
            let mut y2 = y;
            for _ in 0..32 {
                let f = x2 * y2 * (x2 * x2 + y2 * y2) - k;
                let df = x2 * x2 * x2 + 3.0 * x2 * y2 * y2;
                let next = y2 - f / df;
                if (next - y2).abs() <= y2 * 1e-14 {
                    y2 = next;
                    break;
                }
                y2 = next;
            }
            (y - y2).max(0.0)
        }
        Curve::WeightedConstantProduct(c) => {
            // The contract refuses more than 30 % of the input reserve.
            if net > 0.3 * x {
                return None;
            }
            let k = c.weight_ratio(dir)?;
            y * -(libm::pow(x / (x + net), k) - 1.0)
        }
        Curve::WeightedStableSwap(c) => weighted_stable_out(c, dir, x, y, net)?,
    })
}

/// Newton on the real weighted stable-swap invariant for the output balance after `net` comes in.
fn weighted_stable_out(c: &WeightedStableSwap, dir: Direction, x: f64, y: f64, net: f64) -> Option<f64> {
    let [x0, x1] = float_join(dir, x, y);
    let k = c.float_invariant(x0, x1);
    let x2 = x + net;
    let mut y2 = y;
    for _ in 0..64 {
        let [a, b] = float_join(dir, x2, y2);
        let f = c.float_invariant(a, b) - k;
        let (fa, fb) = c.float_gradient(a, b);
        let df = match dir {
            Direction::ZeroToOne => fb,
            Direction::OneToZero => fa,
        };
        if df.is_nan() || df <= 0.0 {
            return None;
        }
        let next = (y2 - f / df).max(y2 * 1e-9);
        if (next - y2).abs() <= y2 * 1e-14 {
            y2 = next;
            break;
        }
        y2 = next;
    }
    Some((y - y2).max(0.0))
}
