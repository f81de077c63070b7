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
//!   unchanged): liquidity **exited**. Recorded as a [`LiquidityEvent`] with both changes (the store's liquidity
//!   event: [`LiquidityEvent::store_event`]), never as a trade.
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

use crate::ingest::TradeLine;
use crate::stored::{StoredPoolState, StoredTrade};
use crate::units::whole;
use tonroute_core::asset::{known, Asset};
use tonroute_core::graph::snapshot::Snapshot;

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

pub use crate::liquidity::LiquidityKind;

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

impl LiquidityEvent {
    /// The event as the market store keeps liquidity events ([`crate::liquidity::LiquidityEvent`]):
    /// block `seqno` as its `mc_seq_no`, the provider unknown (the null address: a state change does not say who
    /// deposited), the LP tokens minted or burned unknown (0: the sync does not read LP supplies), no transaction
    /// hash (the natural key is then pool + time + amounts: derived again, stored once), the reserves after it.
    pub fn store_event(&self) -> crate::liquidity::LiquidityEvent {
        crate::liquidity::LiquidityEvent {
            time: self.time,
            mc_seq_no: Some(i64::from(self.seqno)),
            pool: self.pool.clone(),
            kind: self.kind,
            provider: TonAddress::NULL,
            amounts: self.amounts,
            lp: 0,
            min_lp_out: 0,
            deposit_address: None,
            tx_hash: None,
            reserves_after: Some(self.reserves_after),
        }
    }
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

impl DerivedSwap {
    /// The trade this swap is, for the market store ([`crate::ingest::TradeLine`], what
    /// `tonroute market ingest` writes too): amounts exact; `time` the later observation's block time; the trader
    /// unknown, so the null address (a state change does not say who traded); no transaction hash, so the
    /// store's natural key is the pool, the block time and the amounts, and the same swap derived again is
    /// stored once; the pool's reserves after it. `usd` gives the USD price of one whole token of each pool
    /// asset where known (pool order): a side without one takes the trade's own rate against the other, and
    /// with neither the prices and volume are 0. `ton_usd`: TON's USD price (0 when unknown).
    pub fn trade_line(&self, decimals: [u8; 2], usd: [Option<f64>; 2], ton_usd: f64) -> TradeLine {
        let (i, o) = (self.index_in, 1 - self.index_in);
        let (whole_in, whole_out) = (whole(self.amount_in, decimals[i]), whole(self.amount_out, decimals[o]));
        let finite = |v: f64| if v.is_finite() && v >= 0.0 { v } else { 0.0 };
        let (usd_in, usd_out) = match (usd[i], usd[o]) {
            (Some(a), Some(b)) => (a, b),
            (Some(a), None) => (a, finite(a * whole_in / whole_out)),
            (None, Some(b)) => (finite(b * whole_out / whole_in), b),
            (None, None) => (0.0, 0.0),
        };
        let volume_usd = finite(if usd[i].is_some() { usd_in * whole_in } else { usd_out * whole_out });
        TradeLine {
            trade: StoredTrade {
                time: self.time,
                pool: self.pool.clone(),
                asset_in: self.asset_in,
                amount_in: self.amount_in,
                amount_out: self.amount_out,
                protocol_fee_out: 0,
                trader: TonAddress::NULL,
                tx_hash: None,
                state_after: Some(StoredPoolState { reserves: self.reserves_after, concentrated: None }),
                usd_in: finite(usd_in),
                usd_out: finite(usd_out),
                ton_usd: finite(ton_usd),
                volume_usd,
            },
            asset_out: self.asset_out,
            whole_in,
            whole_out,
        }
    }
}

/// TON's USD price in a snapshot: the mid price (reserve ratio, in whole tokens) of its deepest TON/USD₮
/// constant-product pool by USD₮ reserve; `None` without one. A reference for pricing derived trades, not an
/// amount.
pub fn ton_usd(snapshot: &Snapshot) -> Option<f64> {
    let usdt = Asset::parse(known::USDT).ok()?;
    let decimals =
        |asset: Asset| snapshot.assets.iter().find(|e| Asset::parse(&e.asset).ok() == Some(asset)).map(|e| e.decimals);
    let (ton_decimals, usdt_decimals) = (decimals(Asset::Native)?, decimals(usdt)?);
    snapshot
        .pools
        .iter()
        .filter(|p| p.curve == "constant_product")
        .filter_map(|p| {
            let assets = [Asset::parse(&p.assets[0]).ok()?, Asset::parse(&p.assets[1]).ok()?];
            let reserves = [p.reserves[0].parse::<u128>().ok()?, p.reserves[1].parse::<u128>().ok()?];
            let (ton, usd) = match assets {
                [Asset::Native, a] if a == usdt => (reserves[0], reserves[1]),
                [a, Asset::Native] if a == usdt => (reserves[1], reserves[0]),
                _ => return None,
            };
            (ton > 0 && usd > 0).then(|| (usd, whole(usd, usdt_decimals) / whole(ton, ton_decimals)))
        })
        .max_by_key(|(depth, _)| *depth)
        .map(|(_, price)| price)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> TonAddress {
        tonroute_core::asset::parse_address("0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6")
            .unwrap()
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

    #[test]
    fn a_swap_becomes_a_trade_line_priced_from_the_known_side() {
        let before = at([1_000_000_000_000, 2_000_000_000_000], 100);
        // 1,000 TON in (9 decimals), 1,974.3 USD₮-like out (6 decimals).
        let after = at([2_000_000_000_000, 2_000_000_000_000 - 1_974_300_000], 101);
        let Derived::Swap(s) = derive(&pool(), assets(), &before, &after).unwrap() else { panic!("a swap") };
        // TON at $2.5 known, the jetton not: its price is the trade's rate, 1,000 · 2.5 / 1,974.3.
        let line = s.trade_line([9, 6], [Some(2.5), None], 2.5);
        let t = &line.trade;
        assert_eq!(
            (t.amount_in, t.amount_out, t.time, t.asset_in),
            (1_000_000_000_000, 1_974_300_000, 1_700_000_505, Asset::Native)
        );
        assert_eq!((t.trader.clone(), t.tx_hash.clone(), t.protocol_fee_out), (TonAddress::NULL, None, 0));
        assert_eq!(t.state_after.map(|s| s.reserves), Some([2_000_000_000_000, 1_998_025_700_000]));
        assert_eq!((line.whole_in, line.whole_out), (1_000.0, 1_974.3));
        assert!((t.volume_usd - 2_500.0).abs() < 1e-9 && (t.usd_in - 2.5).abs() < 1e-12);
        assert!((t.usd_out - 2_500.0 / 1_974.3).abs() < 1e-12, "{}", t.usd_out);
        // Nothing known: prices and volume 0, amounts unchanged.
        let bare = s.trade_line([9, 6], [None, None], 0.0);
        assert_eq!((bare.trade.usd_in, bare.trade.usd_out, bare.trade.volume_usd), (0.0, 0.0, 0.0));
    }

    #[test]
    fn ton_usd_is_the_deepest_ton_usdt_pool_mid_price() {
        let snapshot: Snapshot = serde_json::from_value(serde_json::json!({
            "assets": [
                {"asset": "native", "symbol": "TON", "name": "TON", "decimals": 9},
                {"asset": known::USDT, "symbol": "USDT", "name": "Tether USD", "decimals": 6}
            ],
            "pools": [
                {"address": "0:1111111111111111111111111111111111111111111111111111111111111111", "protocol": "dex_b_v2",
                 "curve": "constant_product", "assets": ["native", known::USDT], "reserves": ["1000000000000", "2000000000"],
                 "lp_fee": 20, "protocol_fee": 10, "router": "0:0000000000000000000000000000000000000000000000000000000000000001"},
                {"address": "0:2222222222222222222222222222222222222222222222222222222222222222", "protocol": "dex_b_v2",
                 "curve": "constant_product", "assets": [known::USDT, "native"], "reserves": ["5000000000", "2000000000000"],
                 "lp_fee": 20, "protocol_fee": 10, "router": "0:0000000000000000000000000000000000000000000000000000000000000001"}
            ]
        }))
        .unwrap();
        // The second pool is deeper (5,000 USD₮ against 2,000 TON): 2.5 USD per TON.
        assert_eq!(ton_usd(&snapshot), Some(2.5));
    }
}
