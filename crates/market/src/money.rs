//! [`Money`]: sums of money (USD or TON values, whole-token volumes) that every store adds to the same digit.
//!
//! A trade's USD and TON values, a pool's TVL and an asset's whole-token amount are floats (prices are). A sum of
//! floats depends on the order of the terms and on who adds them: SQLite's `SUM` compensates rounding errors,
//! PostgreSQL's and a loop in Rust do not, so one hourly candle's volume read `928.9044402640001` on one store and
//! `928.904440264` on another. Here every figure is rounded once, on its own, to an integer number of
//! **nano-units** (10⁻⁹ of a dollar, of a TON — the chain's nanoton — or of a whole token), and the integers are
//! added: exactly, in any order, in Rust or in SQL. A sum is written as the exact decimal of its nano-units
//! (`928.904440264`), and read as a float only to compare or rank.
//!
//! The rounding is a few IEEE-754 double operations that SQL engines repeat bit for bit, with no function an
//! engine might lack: a figure `v` (clamped to `0..=`[`MAX_FIGURE`]; a negative or NaN figure counts 0) is
//! `w = ⌊v⌋` whole units and `n = ⌊(v − w)·10⁹ + 0.5⌋` nano-units (`v − w` is exact; `n` may be 10⁹), in all
//! `w·10⁹ + n` ([`parts`]). A database sums `w` and `n` apart (two exact `BIGINT` sums that cannot overflow for
//! any realistic market) and Rust joins them ([`Money::from_parts`]); the SQL text is the store's
//! (`crates/market/src/store/sql/queries.rs`).
//!
//! Owns the rule; must not know where figures come from.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign};

use tonroute_core::decimal::LargeFloat;

/// Nano-units in one unit.
pub const NANOS: i128 = 1_000_000_000;

/// The largest figure counted as it is (2^62 units; a larger one counts as this): far above any trade's value,
/// and small enough that a figure's whole part is a `BIGINT` on every engine.
pub const MAX_FIGURE: f64 = 4_611_686_018_427_387_904.0;

/// The figure `v` as (whole units, nano-units) by the module's rule; `w·10⁹ + n` is its value in nano-units.
pub fn parts(v: f64) -> (i64, i64) {
    // `!(v > 0)` also catches NaN.
    let v = if v > 0.0 { v.min(MAX_FIGURE) } else { 0.0 };
    let whole = v.floor();
    let nanos = ((v - whole) * 1e9 + 0.5).floor();
    // Both are integers in range: `whole` ≤ 2^62, `nanos` in 0..=10⁹.
    (whole as i64, nanos as i64)
}

/// A sum of money in nano-units (see the module documentation).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(i128);

impl Money {
    /// Zero.
    pub const ZERO: Money = Money(0);

    /// One figure, rounded by the module's rule.
    pub fn of(v: f64) -> Money {
        let (whole, nanos) = parts(v);
        Money::from_parts(i128::from(whole), i128::from(nanos))
    }

    /// The sum of figures whose whole parts add up to `whole` and nano parts to `nanos` (a database's two sums).
    pub fn from_parts(whole: i128, nanos: i128) -> Money {
        Money(whole.saturating_mul(NANOS).saturating_add(nanos))
    }

    /// A sum of `nanos` nano-units (e.g. nanotons).
    pub fn from_nanos(nanos: i128) -> Money {
        Money(nanos)
    }

    /// The sum in nano-units.
    pub fn nanos(self) -> i128 {
        self.0
    }

    /// The sum as a float, for comparing, ranking and ratios (never written as a sum: see [`Money::to_large_float`]).
    pub fn to_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// The exact decimal: `928.904440264`, `0.000000001`, `12`, `0`.
    pub fn to_large_float(self) -> LargeFloat {
        // The text is digits, at most one point and a leading sign: always a LargeFloat.
        LargeFloat::new(self.to_string()).unwrap_or_else(|_| LargeFloat::zero())
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let (whole, frac) = (abs / NANOS.unsigned_abs(), abs % NANOS.unsigned_abs());
        if frac == 0 {
            return write!(f, "{sign}{whole}");
        }
        let digits = format!("{frac:09}");
        write!(f, "{sign}{whole}.{}", digits.trim_end_matches('0'))
    }
}

/// Adds one figure (rounded by the module's rule).
impl AddAssign<f64> for Money {
    fn add_assign(&mut self, v: f64) {
        *self += Money::of(v);
    }
}

impl AddAssign for Money {
    fn add_assign(&mut self, other: Money) {
        self.0 = self.0.saturating_add(other.0);
    }
}

impl Add for Money {
    type Output = Money;

    fn add(mut self, other: Money) -> Money {
        self += other;
        self
    }
}

impl Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        iter.fold(Money::ZERO, Add::add)
    }
}

/// The sum of figures, each rounded by the module's rule.
impl Sum<f64> for Money {
    fn sum<I: Iterator<Item = f64>>(iter: I) -> Money {
        iter.fold(Money::ZERO, |mut s, v| {
            s += v;
            s
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_figures_sum_to_their_exact_decimal_in_any_order() {
        // Nine decimals or fewer: each figure is its decimal exactly, and so is the sum.
        let figures = [0.1, 0.2, 928.904440264, 0.000000001, 12.5, 3e-10, 7.000000007];
        let forward: Money = figures.iter().copied().sum();
        let backward: Money = figures.iter().rev().copied().sum();
        assert_eq!(forward, backward);
        // 0.1 + 0.2 + 928.904440264 + 0.000000001 + 12.5 + 0 (3e-10 rounds to 0) + 7.000000007, by hand.
        assert_eq!(forward.to_string(), "948.704440272");
        assert_eq!(Money::of(0.1).to_string(), "0.1");
        assert_eq!(Money::of(6.999999999999999e-9).to_string(), "0.000000007");
        assert_eq!(Money::of(5e-10).to_string(), "0.000000001", "a half rounds up");
        assert_eq!(Money::of(4.999e-10), Money::ZERO);
        assert_eq!(Money::of(0.9999999999).to_string(), "1", "n may reach 10⁹");
        assert_eq!(Money::of(12.0).to_large_float().as_str(), "12");
        assert_eq!(Money::ZERO.to_large_float().as_str(), "0");
    }

    #[test]
    fn odd_figures_are_bounded() {
        assert_eq!(Money::of(-1.0), Money::ZERO);
        assert_eq!(Money::of(f64::NAN), Money::ZERO);
        assert_eq!(Money::of(f64::INFINITY), Money::of(MAX_FIGURE));
        assert_eq!(parts(MAX_FIGURE), (1 << 62, 0));
        assert_eq!(Money::from_parts(3, 2_000_000_000).to_string(), "5");
        assert_eq!(Money::from_nanos(-1_500_000_000).to_string(), "-1.5");
        assert_eq!((Money::of(1.25) + Money::of(2.5)).to_f64(), 3.75);
    }
}
