//! Wallets' liquidity positions and earnings (docs/interface.md PortfolioLiquidityPosition, PortfolioLiquidityPositionResponse,
//! PortfolioEarningsResponse), from the stored liquidity events ([`super::liquidity`]) and trades.
//!
//! Owns the typed queries ([`PositionQuery`]), the position and fee-earning arithmetic ([`fee_earnings`],
//! [`lp_fee`]) and the answers over a [`MarketView`]; must not parse query strings (`crate::api::market::traders`
//! does) nor read trades from anywhere but what it is handed (a database store reads a pool's trades by index and
//! hands them to [`earnings_with`]). Pure: no I/O, no clock.
//!
//! # Positions
//!
//! - A wallet's **LP** in a pool = Σ LP minted by its joins − Σ LP burned by its exits, over the pool's events at or
//!   before now; the **supply** is the events' ([`super::providers`]: the LP they put in circulation, plus the
//!   locked LP when the pool's creating join is stored). A wallet has a position in each pool where its LP is > 0.
//! - `liquidity_percentage` = LP / supply × 100 (a percentage, where the providers' `share` is a fraction).
//! - `assets`: the position's claim on the pool's reserves now, `floor(LP · reserve / supply)` per asset (exact,
//!   U256), keyed by asset id, valued at the prices the portfolio uses ([`super::traders::Prices`]: a coin's
//!   last trade, else its reference price); `value_usd` is their sum, and `value_ton` (an extension field) the
//!   same in TON.
//! - `apr` / `base_apr` / `boost_apr` are the pool's (`apr_fees + apr_rewards`, `apr_fees`, `apr_rewards`): a
//!   position earns its pool's rates. `rewards_total_usd` is `0` and `locked_liquidity` absent: the data holds
//!   reward programs but no farm (staked LP) records, so no reward accrues to a wallet, and the locked LP belongs
//!   to no wallet.
//! - `position_address`: the wallet's LP account contract in the pool (the `deposit_address` its latest join
//!   names), the one per-(wallet, pool) contract the events know; the LP jetton wallet itself is not in the data.
//!   `""` when no join names one (as deposits write an unknown address).
//! - Order: by `value_usd`, largest first, ties by pool address (raw). The portfolio lists them all; the single
//!   position resource is `/wallets/{address}/liquidity_positions/{pool_address}` (404 when the wallet holds no
//!   LP there).
//!
//! # Fee earnings
//!
//! Constant-product pools take the LP fee from the input and leave it in the pool, so a trade of `amount_in`
//! earns the pool's providers
//!
//! ```text
//! fee(trade) = floor(amount_in · lp_fee_bps / 10000)          (in the trade's input asset)
//! ```
//!
//! where `lp_fee_bps` is the curve's LP fee ([`super::pools::fees_of`]: `dex_b` `lp_fee`, the whole
//! `fee_bps` of a `dex_a` volatile pool). A provider's share of it is its LP over the supply **at the trade**,
//! from the events at or before the trade's time (an event in the same second counts as before it):
//!
//! ```text
//! earned[asset] = Σ over the pool's trades t with input asset:  floor(fee(t) · LP_wallet(t) / supply(t))
//! ```
//!
//! each term exact in U256, summed per asset; `amount_usd` values the sum at today's price. One entry per pool in
//! which the wallet ever joined (amounts may be 0), ordered by USD earned, largest first, ties by pool.
//! `claimed_assets` is empty: these pools pay LP fees into their reserves, never apart, so an exit's payout
//! (recorded in the exit event) already holds them and there is no separate claim to report.
//!
//! # Creator earnings, meme-creator earnings, boost rewards
//!
//! Empty lists, by what the data holds: every pool's creator fee is 0 (no contract modelled pays a pool creator);
//! launch-pad coins carry their bonding curve's TON but neither the launch pad's creator fee rate nor the curve's
//! trades; and boost rewards need farm records (who staked which LP when), which the data does not have.

use std::collections::{BTreeMap, BTreeSet};

use primitive_types::U256;
use tonlib_core::TonAddress;

use super::liquidity::{LiquidityEvent, LiquidityKind};
use super::money::Money;
use super::pools::fees_of;
use super::portfolio::{
    PortfolioAssetMap, PortfolioData, PortfolioEarningAssetDetails, PortfolioEarningsResponse, PortfolioFeeEarning,
    PortfolioLiquidityPosition, PortfolioLiquidityPositionResponse, PortfolioResponse,
};
use super::providers::LpLedger;
use super::replay::view::MarketView;
use super::traders::Prices;
use super::types::{CoinMetadata, LargeFloat, LargeInteger, PriceInfo};
use super::units::{friendly, whole};
use super::wallets::Balance;
use tonroute_core::graph::PoolId;

/// `/wallets/{address}/liquidity_positions/{pool_address}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionQuery {
    /// The wallet.
    pub wallet: TonAddress,
    /// The pool.
    pub pool: TonAddress,
}

/// A pool's trade as the fee computation reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolTrade {
    /// Unix seconds.
    pub time: i64,
    /// The input asset's index in the pool (0 or 1).
    pub input: usize,
    /// Amount in, smallest units.
    pub amount_in: u128,
}

/// The LP fee of a trade of `amount_in` on a pool whose LP fee is `lp_fee_bps` (1/10000): `floor(amount_in ·
/// lp_fee_bps / 10000)`, in the input asset.
pub fn lp_fee(amount_in: u128, lp_fee_bps: u32) -> u128 {
    let fee = U256::from(amount_in) * U256::from(lp_fee_bps) / U256::from(10_000u32);
    // lp_fee_bps ≤ 10000 for every curve, so the fee is at most amount_in; a larger rate is clamped.
    u128::try_from(fee).unwrap_or(u128::MAX).min(amount_in)
}

fn share(amount: u128, lp: u128, supply: u128) -> u128 {
    if supply == 0 {
        return 0;
    }
    let v = U256::from(amount) * U256::from(lp) / U256::from(supply);
    u128::try_from(v).unwrap_or(u128::MAX)
}

/// What `wallet` earned in LP fees from a pool's `trades` (time order), given the pool's `events` (time order) and
/// LP fee: per asset of the pool, Σ floor(fee · LP_wallet / supply) at each trade (see the module documentation).
pub fn fee_earnings<'a>(
    events: impl IntoIterator<Item = &'a LiquidityEvent>,
    trades: &[PoolTrade],
    lp_fee_bps: u32,
    wallet: &TonAddress,
) -> [u128; 2] {
    let mut events = events.into_iter().peekable();
    let mut ledger = LpLedger::default();
    let mut earned = [0u128; 2];
    for t in trades {
        while let Some(e) = events.next_if(|e| e.time <= t.time) {
            ledger.apply(e);
        }
        let held = ledger.held(wallet);
        if held == 0 || t.input > 1 {
            continue;
        }
        let part = share(lp_fee(t.amount_in, lp_fee_bps), held, ledger.supply());
        earned[t.input] = earned[t.input].saturating_add(part);
    }
    earned
}

/// A wallet's LP in one pool now.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Held {
    pool: PoolId,
    lp: u128,
    supply: u128,
    lp_account: Option<TonAddress>,
}

/// The pools in which `wallet` has an event at or before now, in pool order.
fn wallet_pools(view: &MarketView, wallet: &TonAddress) -> BTreeSet<PoolId> {
    let g = &view.data().graph;
    view.data()
        .liquidity
        .iter()
        .filter(|e| e.time <= view.now() && &e.provider == wallet)
        .filter_map(|e| g.pool_id(&e.pool))
        .collect()
}

fn held(view: &MarketView, wallet: &TonAddress, pool: PoolId) -> Held {
    let mut ledger = LpLedger::default();
    let mut lp_account = None;
    for e in view.pool_liquidity(pool) {
        ledger.apply(e);
        if &e.provider == wallet && e.kind == LiquidityKind::Join && e.deposit_address.is_some() {
            lp_account.clone_from(&e.deposit_address);
        }
    }
    Held { pool, lp: ledger.held(wallet), supply: ledger.supply(), lp_account }
}

/// `amount` of the pool's asset `k` as an asset-map entry, with its USD and TON values.
fn valued(view: &MarketView, pool: PoolId, k: usize, amount: u128) -> (String, PortfolioEarningAssetDetails, f64, f64) {
    let g = &view.data().graph;
    let asset = g.asset(g.pool(pool).assets[k]).asset;
    let price = view.price(&asset);
    let units = price.map_or(0.0, |p| whole(amount, p.decimals));
    let (usd, ton) = price.map_or((0.0, 0.0), |p| (units * p.usd, units * p.ton));
    let details =
        PortfolioEarningAssetDetails { amount: LargeInteger::from(amount), amount_usd: LargeFloat::from_f64(usd) };
    (asset.to_string(), details, usd, ton)
}

/// The position resource of a held LP, with its USD and TON values.
fn position(view: &MarketView, h: &Held) -> (PortfolioLiquidityPosition, f64, f64) {
    let reserves = view.pool_stats(h.pool).reserves;
    let stats = view.pool_stats(h.pool);
    let mut assets = PortfolioAssetMap::new();
    let (mut usd, mut ton) = (0.0, 0.0);
    for (k, reserve) in reserves.iter().enumerate() {
        let (id, details, in_usd, in_ton) = valued(view, h.pool, k, share(*reserve, h.lp, h.supply));
        usd += in_usd;
        ton += in_ton;
        assets.insert(id, details);
    }
    let percentage = if h.supply == 0 { 0.0 } else { h.lp as f64 / h.supply as f64 * 100.0 };
    let position = PortfolioLiquidityPosition {
        position_address: h.lp_account.as_ref().map(friendly).unwrap_or_default(),
        pool_address: friendly(&view.data().graph.pool(h.pool).address),
        liquidity: LargeInteger::from(h.lp),
        liquidity_percentage: LargeFloat::from_f64(percentage),
        assets,
        value_usd: LargeFloat::from_f64(usd),
        value_ton: Some(LargeFloat::from_f64(ton)),
        apr: LargeFloat::from_f64(stats.apr_fees + stats.apr_rewards),
        base_apr: LargeFloat::from_f64(stats.apr_fees),
        boost_apr: LargeFloat::from_f64(stats.apr_rewards),
        rewards_total_usd: LargeFloat::zero(),
        locked_liquidity: None,
    };
    (position, usd, ton)
}

/// `wallet`'s positions now, largest USD value first, with their total USD and TON values.
pub fn liquidity_positions(view: &MarketView, wallet: &TonAddress) -> (Vec<PortfolioLiquidityPosition>, Money, Money) {
    let mut rows: Vec<(f64, f64, String, PortfolioLiquidityPosition)> = wallet_pools(view, wallet)
        .into_iter()
        .map(|pool| held(view, wallet, pool))
        .filter(|h| h.lp > 0)
        .map(|h| {
            let (p, usd, ton) = position(view, &h);
            (usd, ton, view.data().graph.pool(h.pool).address.to_hex(), p)
        })
        .collect();
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
    let usd: Money = rows.iter().map(|r| r.0).sum();
    let ton: Money = rows.iter().map(|r| r.1).sum();
    (rows.into_iter().map(|r| r.3).collect(), usd, ton)
}

/// `/wallets/{address}/liquidity_positions/{pool_address}`: `None` for an unknown pool or one in which the
/// wallet holds no LP.
pub fn liquidity_position(view: &MarketView, q: &PositionQuery) -> Option<PortfolioLiquidityPositionResponse> {
    let g = &view.data().graph;
    let pool = g.pool_id(&q.pool)?;
    let h = held(view, &q.wallet, pool);
    if h.lp == 0 {
        return None;
    }
    let (position, _, _) = position(view, &h);
    let assets_metadata: BTreeMap<String, CoinMetadata> =
        g.pool(pool).assets.iter().map(|a| (g.asset(*a).asset.to_string(), view.metadata_of(*a))).collect();
    Some(PortfolioLiquidityPositionResponse { position, assets_metadata })
}

/// `/wallets/{address}/earnings`, the trades of each pool read by `trades_of(pool, from, to)`: the pool's
/// trades with `from ≤ time ≤ to` in time order (`from` is the wallet's first event in the pool: no trade
/// before it earns the wallet anything). See the module documentation.
pub fn earnings_with<E>(
    view: &MarketView,
    wallet: &TonAddress,
    mut trades_of: impl FnMut(PoolId, i64, i64) -> Result<Vec<PoolTrade>, E>,
) -> Result<PortfolioEarningsResponse, E> {
    let g = &view.data().graph;
    let mut rows: Vec<(f64, String, PortfolioFeeEarning)> = Vec::new();
    for pool in wallet_pools(view, wallet) {
        let Some(first) = view.pool_liquidity(pool).find(|e| &e.provider == wallet).map(|e| e.time) else {
            continue;
        };
        let trades = trades_of(pool, first, view.now())?;
        let (lp_fee_bps, _) = fees_of(&g.pool(pool).curve);
        let earned = fee_earnings(view.pool_liquidity(pool), &trades, lp_fee_bps, wallet);
        let mut assets = PortfolioAssetMap::new();
        let mut usd = 0.0;
        for (k, amount) in earned.iter().enumerate() {
            let (id, details, in_usd, _) = valued(view, pool, k, *amount);
            usd += in_usd;
            assets.insert(id, details);
        }
        let h = held(view, wallet, pool);
        rows.push((
            usd,
            g.pool(pool).address.to_hex(),
            PortfolioFeeEarning {
                pool_address: friendly(&g.pool(pool).address),
                position_address: h.lp_account.as_ref().map(friendly).unwrap_or_default(),
                assets,
                claimed_assets: PortfolioAssetMap::new(),
            },
        ));
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(PortfolioEarningsResponse {
        fee_earnings: rows.into_iter().map(|r| r.2).collect(),
        creator_earnings: Vec::new(),
        meme_creator_earnings: Vec::new(),
        boost_rewards: Vec::new(),
    })
}

/// `/wallets/{address}/earnings` over the trades this view holds (the replay holds every trade).
pub fn earnings(view: &MarketView, wallet: &TonAddress) -> PortfolioEarningsResponse {
    let g = &view.data().graph;
    let result: Result<_, std::convert::Infallible> = earnings_with(view, wallet, |pool, from, to| {
        let first = g.pool(pool).assets[0];
        Ok(view
            .pool_trades(pool)
            .filter(|t| t.time >= from && t.time <= to)
            .map(|t| PoolTrade { time: t.time, input: usize::from(t.asset_in != first), amount_in: t.amount_in })
            .collect())
    });
    match result {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

/// `wallet`'s portfolio from its balances and the prices of a view: each balance valued at the coin's price now
/// (its last trade's; an asset without trades at its reference price), ordered by USD value descending, ties by
/// asset id; zero balances are left out. Beside them (extension fields), the wallet's liquidity positions from the
/// view's liquidity events ([`crate::positions`]) and their value; `total_value_*` stay the balances'.
pub fn portfolio(view: &MarketView, wallet: &TonAddress, balances: &[Balance]) -> PortfolioResponse {
    let data = view.data();
    let mut rows: Vec<(f64, f64, String, PortfolioData)> = Vec::new();
    for b in balances.iter().filter(|b| b.balance > 0) {
        let (Some(id), Some(price)) = (data.graph.asset_id(&b.asset), view.price(&b.asset)) else { continue };
        let amount = whole(b.balance, price.decimals);
        let (value_usd, value_ton) = (amount * price.usd, amount * price.ton);
        let level = data.coin_index.get(&b.asset).map_or(0, |&i| data.coins[i].record.verification_level);
        let f = LargeFloat::from_f64;
        rows.push((
            value_usd,
            value_ton,
            b.asset.to_string(),
            PortfolioData {
                asset: b.asset.to_string(),
                balance: LargeInteger::from(b.balance),
                balance_formatted: f(amount),
                metadata: view.metadata_of(id),
                price: PriceInfo {
                    usd_value: f(price.usd),
                    ton_value: f(price.ton),
                    usd_change: None,
                    ton_change: None,
                },
                price_usd: f(price.usd),
                price_ton: f(price.ton),
                value_usd: f(value_usd),
                value_ton: f(value_ton),
                verification_level: i32::from(level),
                jetton_wallet: None,
                memecoin_extra_details: None,
            },
        ));
    }
    rows.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.2.cmp(&b.2)));
    let total_usd: Money = rows.iter().map(|r| r.0).sum();
    let total_ton: Money = rows.iter().map(|r| r.1).sum();
    let (positions, lp_usd, lp_ton) = liquidity_positions(view, wallet);
    PortfolioResponse {
        total_value_usd: total_usd.to_large_float(),
        total_value_ton: total_ton.to_large_float(),
        jetton_balances: rows.into_iter().map(|r| r.3).collect(),
        liquidity_positions: Some(positions),
        liquidity_value_usd: Some(lp_usd.to_large_float()),
        liquidity_value_ton: Some(lp_ton.to_large_float()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(byte: u8) -> TonAddress {
        tonroute_core::asset::parse_address(&format!("0:{}", format!("{byte:02x}").repeat(32))).expect("an address")
    }

    fn event(time: i64, kind: LiquidityKind, provider: u8, lp: u128, creating: bool) -> LiquidityEvent {
        LiquidityEvent {
            time,
            mc_seq_no: None,
            pool: addr(0xee),
            kind,
            provider: addr(provider),
            amounts: [10, 10],
            lp,
            min_lp_out: lp,
            deposit_address: None,
            tx_hash: None,
            reserves_after: Some(if creating { [10, 10] } else { [20, 20] }),
        }
    }

    #[test]
    fn the_lp_fee_is_floored_in_the_input() {
        assert_eq!(lp_fee(1_000_000, 20), 2_000);
        assert_eq!(lp_fee(12_345, 25), 30); // 30.8625
        assert_eq!(lp_fee(u128::MAX, 30), u128::MAX / 10_000 * 30 + (u128::MAX % 10_000) * 30 / 10_000);
        assert_eq!(lp_fee(7, 20_000), 7);
    }

    #[test]
    fn a_provider_earns_its_share_at_each_trade_while_it_holds() {
        let (a, b) = (1, 2);
        // a creates with 9,000 LP (+1,001 locked: supply 10,001); b joins 10,001 at t=20; a exits 4,500 at t=30.
        let events = [
            event(10, LiquidityKind::Join, a, 9_000, true),
            event(20, LiquidityKind::Join, b, 10_001, false),
            event(30, LiquidityKind::Exit, a, 4_500, false),
        ];
        let trades = [
            PoolTrade { time: 5, input: 0, amount_in: 1_000_000 }, // before any LP: nobody earns
            PoolTrade { time: 10, input: 0, amount_in: 1_000_000 }, // same second as the creation: counts
            PoolTrade { time: 25, input: 1, amount_in: 2_000_000 }, // a: 9,000 / 20,002
            PoolTrade { time: 40, input: 0, amount_in: 3_000_000 }, // a: 4,500 / 15,502
        ];
        let fee = |x: u128| x * 30 / 10_000;
        let a_earned = fee_earnings(&events, &trades, 30, &addr(a));
        assert_eq!(
            a_earned,
            [fee(1_000_000) * 9_000 / 10_001 + fee(3_000_000) * 4_500 / 15_502, fee(2_000_000) * 9_000 / 20_002]
        );
        let b_earned = fee_earnings(&events, &trades, 30, &addr(b));
        assert_eq!(b_earned, [fee(3_000_000) * 10_001 / 15_502, fee(2_000_000) * 10_001 / 20_002]);
        assert_eq!(fee_earnings(&events, &trades, 30, &addr(3)), [0, 0]);
    }
}
