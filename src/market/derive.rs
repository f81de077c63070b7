//! Trades derived from a pool's state change between two observations (the sync reads each pool's reserves at
//! masterchain blocks; `tonroute sync --market-db` turns the changes into trades). Pure: two states in, what
//! happened out; no I/O, no clock.
//!
//! Owns the classification of a reserve change and the amounts it implies; must not price trades in USD, know
//! stores or read the chain.
//!
//! # What a state change says
//!
//! Between two observations of a plain-reserve pool (constant product, stable, weighted), with `Δ0`, `Δ1` the
//! changes of its two reserves:
//! - **opposite directions** (one up, the other down): a **swap**. The asset whose reserve rose went in:
//!   `amount_in` = its increase, `amount_out` = the other reserve's decrease.
//! - **both up** (or one up, the other unchanged): liquidity **joined**; **both down** (or one down, the other
//!   unchanged): liquidity **exited**. Recorded as a [`LiquidityEvent`] with both changes, never as a trade.
//! - **unchanged**: nothing.
//!
//! **Fees.** A swap's `amount_in` is what the pool kept of the input: the LP fee stays in the reserve, so it is
//! *included* (the trader's offer minus any part of it the exchange paid out elsewhere in the same block).
//! `amount_out` is what left the output reserve: the trader's output plus any protocol fee paid from that
//! reserve. The derived price (`amount_out / amount_in`, in whole tokens) is therefore the pool's effective
//! rate with its fees, the rate a trader of that size got. The split of the fee between LP and protocol is not
//! visible in two reserve pairs and is not guessed.
//!
//! **Net effect.** Several swaps (or a swap and a deposit) between the two observations show as their net change:
//! one derived event per pool per observation interval. Swaps in both directions that cancel out partly are one
//! smaller swap; a swap and a deposit whose changes point the same way are one liquidity event. This is the most
//! the state alone tells; exact per-transaction trades need the transactions themselves.
//!
//! **Concentrated pools are excluded** ([`derive`] is not given them): their snapshot reserves are virtual
//! (`L/√P`, `L·√P`), whose changes equal the tokens that moved only while a swap stays inside one tick range and
//! no position changes; across ticks or with a mint/burn they give wrong amounts. Their real flows need the
//! pool's token balances, which the sync does not read.

use tonlib_core::TonAddress;

use crate::asset::Asset;

/// One observation of a pool's reserves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observation {
    /// Reserves in the pool's asset order.
    pub reserves: [u128; 2],
    /// Masterchain block seqno the state was read at.
    pub seqno: u32,
    /// That block's Unix time, seconds.
    pub time: i64,
}

/// A swap seen as a state change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DerivedSwap {
    /// The pool.
    pub pool: TonAddress,
    /// Index (0 or 1, pool order) of the asset that went in.
    pub index_in: usize,
    /// The asset that went in.
    pub asset_in: Asset,
    /// The asset that came out.
    pub asset_out: Asset,
    /// Increase of the input reserve (LP fee included; see the module documentation).
    pub amount_in: u128,
    /// Decrease of the output reserve.
    pub amount_out: u128,
    /// The earlier observation's block.
    pub from_seqno: u32,
    /// The later observation's block (the trade's logical time).
    pub seqno: u32,
    /// The later observation's Unix time.
    pub time: i64,
    /// The reserves after it.
    pub reserves_after: [u128; 2],
}

impl DerivedSwap {
    /// Whole tokens out per whole token in, given the pool's asset decimals (pool order). A float: for display
    /// and charts, never for an amount.
    pub fn price(&self, decimals: [u8; 2]) -> f64 {
        let whole = |amount: u128, d: u8| amount as f64 / 10f64.powi(i32::from(d));
        whole(self.amount_out, decimals[1 - self.index_in]) / whole(self.amount_in, decimals[self.index_in])
    }
}

/// Liquidity joined or exited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiquidityKind {
    /// Both reserves rose (or one rose, the other unchanged).
    Join,
    /// Both reserves fell (or one fell, the other unchanged).
    Exit,
}

impl LiquidityKind {
    /// `join` or `exit`.
    pub fn name(self) -> &'static str {
        match self {
            LiquidityKind::Join => "join",
            LiquidityKind::Exit => "exit",
        }
    }
}

/// A liquidity event seen as a state change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiquidityEvent {
    /// The pool.
    pub pool: TonAddress,
    /// Join or exit.
    pub kind: LiquidityKind,
    /// How much each reserve moved (absolute, pool order; one may be 0).
    pub amounts: [u128; 2],
    /// The earlier observation's block.
    pub from_seqno: u32,
    /// The later observation's block.
    pub seqno: u32,
    /// The later observation's Unix time.
    pub time: i64,
    /// The reserves after it.
    pub reserves_after: [u128; 2],
}

/// What a state change was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Derived {
    /// A swap.
    Swap(DerivedSwap),
    /// Liquidity joined or exited.
    Liquidity(LiquidityEvent),
    /// The reserves did not move.
    Unchanged,
}

/// Two observations that cannot be compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DeriveError {
    /// The later observation is not from a later block.
    #[error("pool {pool}: observation at block {after} does not follow block {before}")]
    NotLater {
        /// The pool (raw form).
        pool: String,
        /// The earlier observation's block.
        before: u32,
        /// The later observation's block.
        after: u32,
    },
    /// The same asset on both sides: not a pool.
    #[error("pool {pool}: both assets are {asset}")]
    SameAsset {
        /// The pool (raw form).
        pool: String,
        /// The asset.
        asset: Asset,
    },
}

/// What happened to `pool` (a plain-reserve pool trading `assets`, pool order) between `before` and `after`.
pub fn derive(
    pool: &TonAddress,
    assets: [Asset; 2],
    before: &Observation,
    after: &Observation,
) -> Result<Derived, DeriveError> {
    if after.seqno <= before.seqno {
        return Err(DeriveError::NotLater { pool: pool.to_hex(), before: before.seqno, after: after.seqno });
    }
    if assets[0] == assets[1] {
        return Err(DeriveError::SameAsset { pool: pool.to_hex(), asset: assets[0] });
    }
    let [b0, b1] = before.reserves;
    let [a0, a1] = after.reserves;
    let liquidity = |kind| {
        Derived::Liquidity(LiquidityEvent {
            pool: pool.clone(),
            kind,
            amounts: [a0.abs_diff(b0), a1.abs_diff(b1)],
            from_seqno: before.seqno,
            seqno: after.seqno,
            time: after.time,
            reserves_after: after.reserves,
        })
    };
    let swap = |index_in: usize, amount_in: u128, amount_out: u128| {
        Derived::Swap(DerivedSwap {
            pool: pool.clone(),
            index_in,
            asset_in: assets[index_in],
            asset_out: assets[1 - index_in],
            amount_in,
            amount_out,
            from_seqno: before.seqno,
            seqno: after.seqno,
            time: after.time,
            reserves_after: after.reserves,
        })
    };
    use std::cmp::Ordering::{Equal, Greater, Less};
    Ok(match (a0.cmp(&b0), a1.cmp(&b1)) {
        (Equal, Equal) => Derived::Unchanged,
        (Greater, Less) => swap(0, a0 - b0, b1 - a1),
        (Less, Greater) => swap(1, a1 - b1, b0 - a0),
        (Greater | Equal, Greater | Equal) => liquidity(LiquidityKind::Join),
        (Less | Equal, Less | Equal) => liquidity(LiquidityKind::Exit),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> TonAddress {
        crate::asset::parse_address("0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6").unwrap()
    }

    fn assets() -> [Asset; 2] {
        [
            Asset::Native,
            Asset::parse("jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe").unwrap(),
        ]
    }

    fn at(reserves: [u128; 2], seqno: u32) -> Observation {
        Observation { reserves, seqno, time: 1_700_000_000 + i64::from(seqno) * 5 }
    }

    #[test]
    fn a_constant_product_swap_with_its_lp_fee_is_the_reserves_moving_apart() {
        // A trader offers 10,000 of asset 0 to a (1,000,000, 2,000,000) pool with a 0.3 % LP fee, the fee staying
        // in the pool: out = ⌊9,970 · 2,000,000 / (1,000,000 + 9,970)⌋ = ⌊19,940,000,000 / 1,009,970⌋ = 19,743
        // (1,009,970 · 19,743 = 19,939,837,710 ≤ 19,940,000,000 < 1,009,970 · 19,744 = 19,940,847,680).
        let before = at([1_000_000, 2_000_000], 100);
        let after = at([1_010_000, 2_000_000 - 19_743], 101);
        let Derived::Swap(s) = derive(&pool(), assets(), &before, &after).unwrap() else { panic!("a swap") };
        // The input includes the 30 units of LP fee: the pool kept the whole offer.
        assert_eq!((s.index_in, s.amount_in, s.amount_out), (0, 10_000, 19_743));
        assert_eq!((s.asset_in, s.asset_out), (assets()[0], assets()[1]));
        assert_eq!((s.from_seqno, s.seqno, s.time), (100, 101, 1_700_000_505));
        assert_eq!(s.reserves_after, [1_010_000, 1_980_257]);
        // 19,743 / 10,000 in smallest units; with 9 and 6 decimals, 19,743e-6 / 10,000e-9 = 1,974.3.
        assert!((s.price([9, 6]) - 1_974.3).abs() < 1e-9, "{}", s.price([9, 6]));
        // Below the fee-free rate 2,000,000 / 1,010,000 · … : the effective rate carries the fee.
        assert!(s.amount_out * 1_000_000 < 10_000 * 2_000_000);
    }

    #[test]
    fn the_other_direction_and_a_protocol_fee_paid_from_the_output() {
        // Asset 1 in: 50,000 raises reserve 1; the trader gets 24,000 and a protocol fee of 12 leaves from reserve 0
        // too: the output reserve falls by 24,012, which is the derived amount out.
        let before = at([1_000_000, 2_000_000], 7);
        let after = at([1_000_000 - 24_012, 2_050_000], 9);
        let Derived::Swap(s) = derive(&pool(), assets(), &before, &after).unwrap() else { panic!("a swap") };
        assert_eq!((s.index_in, s.amount_in, s.amount_out), (1, 50_000, 24_012));
        assert_eq!((s.asset_in, s.asset_out), (assets()[1], assets()[0]));
        // 24,012e-9 whole TON per 50,000e-6 whole jetton = 0.00048024.
        assert!((s.price([9, 6]) - 0.000_480_24).abs() < 1e-15, "{}", s.price([9, 6]));
    }

    #[test]
    fn reserves_moving_together_are_liquidity_never_a_trade() {
        let before = at([1_000_000, 2_000_000], 10);
        let join = derive(&pool(), assets(), &before, &at([1_100_000, 2_200_000], 11)).unwrap();
        let Derived::Liquidity(e) = join else { panic!("liquidity: {join:?}") };
        assert_eq!((e.kind, e.amounts, e.seqno), (LiquidityKind::Join, [100_000, 200_000], 11));
        let exit = derive(&pool(), assets(), &before, &at([900_000, 1_800_001], 12)).unwrap();
        let Derived::Liquidity(e) = exit else { panic!("liquidity: {exit:?}") };
        assert_eq!((e.kind, e.amounts), (LiquidityKind::Exit, [100_000, 199_999]));
        // One side only: a one-sided deposit or a withdrawal of fees, still liquidity.
        let one = derive(&pool(), assets(), &before, &at([1_000_000, 2_000_005], 13)).unwrap();
        assert!(matches!(one, Derived::Liquidity(LiquidityEvent { kind: LiquidityKind::Join, amounts: [0, 5], .. })));
        let one = derive(&pool(), assets(), &before, &at([999_000, 2_000_000], 13)).unwrap();
        assert!(matches!(
            one,
            Derived::Liquidity(LiquidityEvent { kind: LiquidityKind::Exit, amounts: [1_000, 0], .. })
        ));
    }

    #[test]
    fn unchanged_reserves_are_nothing_and_observations_must_move_forward() {
        let before = at([1_000_000, 2_000_000], 10);
        assert_eq!(derive(&pool(), assets(), &before, &at([1_000_000, 2_000_000], 11)), Ok(Derived::Unchanged));
        let stale = derive(&pool(), assets(), &before, &at([1, 2], 10)).unwrap_err();
        assert_eq!(
            stale.to_string(),
            format!("pool {}: observation at block 10 does not follow block 10", pool().to_hex())
        );
        assert!(derive(&pool(), [Asset::Native; 2], &before, &at([1, 2], 11)).is_err());
    }

    #[test]
    fn extreme_reserves_do_not_overflow() {
        let top = (1u128 << 120) - 1;
        let before = at([1, top], 1);
        let Derived::Swap(s) = derive(&pool(), assets(), &before, &at([top, 1], 2)).unwrap() else { panic!() };
        assert_eq!((s.amount_in, s.amount_out), (top - 1, top - 1));
    }
}
