//! A pool's liquidity providers and deposits (docs/interface.md PoolProvidersResponse, DepositsResponse), from the stored
//! liquidity events ([`super::liquidity`]).
//!
//! Owns the typed queries ([`PoolProvidersQuery`], [`PoolDepositsQuery`]) and their answers over a
//! [`MarketView`]; must not parse query strings (`crate::api::market::screener` does).
//!
//! # Choices the spec leaves open
//!
//! - **LP held** by a wallet = Σ LP minted by its joins − Σ LP burned by its exits, over the pool's events at or
//!   before the store's "now"; wallets holding none are not providers.
//! - **Supply** = the LP the events put in circulation, plus [`LOCKED_LP`] when the pool's first stored event is
//!   its creating join (a join whose reserves after it are its own amounts), the way the contract counts it.
//!   `share` = LP held / supply, a fraction in 0..=1 (not a percentage).
//! - **Assets** of a provider: its share of the pool's reserves now, `floor(lp · reserve / supply)` per asset
//!   (exact, U256), keyed by asset id (`native`, `jetton:0:<hex>`), valued at the assets' USD prices now.
//! - **Order**: providers by LP held (largest first), ties by wallet (raw address); deposits (the pool's joins)
//!   newest first, ties latest arrival first. Paging: `limit` 1..=100 (default 20) and `offset`, like `/pools`;
//!   `total_count` counts before paging. An unknown pool is `None` (404); a pool without events answers empty.
//! - **Deposit** fields: `deposit_address` is the provider's LP account when the event names it, else `""` (as
//!   ResolverAddressResponse writes an unavailable address); `amount_x` / `amount_y` are in the pool's asset
//!   order; `minimal_liquidity` is the join's `min_lp_out` (the LP minted when the event does not say);
//!   `mc_seq_no` is the event's block ([`LiquidityEvent::block`]: mapped from time when not recorded).

use std::collections::HashMap;

use primitive_types::U256;
use tonlib_core::TonAddress;

use super::liquidity::{LiquidityEvent, LiquidityKind, LOCKED_LP};
use super::query::Page;
use super::replay::view::MarketView;
use super::types::{
    DateTime, Deposit, DepositsResponse, LargeFloat, LargeInteger, PoolProvider, PoolProvidersResponse, ProviderAsset,
};
use super::units::{friendly, friendly_wallet, whole};

/// `/pools/{address}/providers`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolProvidersQuery {
    /// The pool.
    pub pool: TonAddress,
    /// The page (`limit` within [`super::limits::PROVIDERS_LIMIT`]).
    pub page: Page,
}

/// `/pools/{address}/deposits`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolDepositsQuery {
    /// The pool.
    pub pool: TonAddress,
    /// The page (`limit` within [`super::limits::PROVIDERS_LIMIT`]).
    pub page: Page,
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A pool's LP book as its events tell it, applied one event at a time in time order: LP held per wallet and the
/// supply (see the module documentation). [`lp_book`] runs it over a whole history; the fee earnings of
/// [`super::positions`] step it between trades.
#[derive(Debug, Clone, Default)]
pub struct LpLedger {
    held: HashMap<TonAddress, u128>,
    supply: u128,
    seen: bool,
    locked: bool,
}

impl LpLedger {
    /// Applies the pool's next event.
    pub fn apply(&mut self, e: &LiquidityEvent) {
        if !self.seen && e.kind == LiquidityKind::Join && e.reserves_after == Some(e.amounts) {
            self.supply = self.supply.saturating_add(LOCKED_LP);
            self.locked = true;
        }
        self.seen = true;
        let h = self.held.entry(e.provider.clone()).or_default();
        match e.kind {
            LiquidityKind::Join => {
                *h = h.saturating_add(e.lp);
                self.supply = self.supply.saturating_add(e.lp);
            }
            LiquidityKind::Exit => {
                let burned = e.lp.min(*h);
                *h -= burned;
                self.supply = self.supply.saturating_sub(burned);
            }
        }
    }

    /// LP held by `wallet` now.
    pub fn held(&self, wallet: &TonAddress) -> u128 {
        self.held.get(wallet).copied().unwrap_or(0)
    }

    /// The supply now (the locked LP included when the creating join was applied).
    pub fn supply(&self) -> u128 {
        self.supply
    }

    /// Whether the pool's creating join (and with it the locked LP) was among the events.
    pub fn has_creation(&self) -> bool {
        self.locked
    }

    /// Whether some event put LP in circulation (a sync-derived event carries no LP amount).
    pub fn carries_lp(&self) -> bool {
        self.supply > 0
    }

    /// Wallets holding LP now, with their LP.
    pub fn holders(self) -> HashMap<TonAddress, u128> {
        let mut held = self.held;
        held.retain(|_, lp| *lp > 0);
        held
    }
}

/// LP held per wallet and the supply, from a pool's events in time order (see the module documentation).
pub fn lp_book<'a>(events: impl IntoIterator<Item = &'a LiquidityEvent>) -> (HashMap<TonAddress, u128>, u128) {
    let mut ledger = LpLedger::default();
    for e in events {
        ledger.apply(e);
    }
    let supply = ledger.supply();
    (ledger.holders(), supply)
}

/// The events of `pool` at or before now, in time order (none for a pool the snapshot does not hold).
pub fn pool_events<'a>(view: &'a MarketView, pool: &'a TonAddress) -> impl Iterator<Item = &'a LiquidityEvent> + 'a {
    view.data().graph.pool_id(pool).into_iter().flat_map(move |id| view.pool_liquidity(id))
}

/// `/pools/{address}/providers`: `None` for an unknown pool.
pub fn pool_providers(view: &MarketView, q: &PoolProvidersQuery) -> Option<PoolProvidersResponse> {
    let data = view.data();
    let g = &data.graph;
    let id = g.pool_id(&q.pool)?;
    let meta = g.pool(id);
    let reserves = view.pool_stats(id).reserves;
    let (held, supply) = lp_book(pool_events(view, &q.pool));
    let mut list: Vec<(TonAddress, u128)> = held.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.to_hex().cmp(&b.0.to_hex())));
    let total = list.len();
    let providers = q
        .page
        .of(&list)
        .iter()
        .map(|(wallet, lp)| {
            let assets = (0..2)
                .map(|k| {
                    let a = meta.assets[k];
                    let amount = if supply == 0 {
                        0
                    } else {
                        let v = U256::from(*lp) * U256::from(reserves[k]) / U256::from(supply);
                        u128::try_from(v).unwrap_or(u128::MAX)
                    };
                    let usd = whole(amount, g.asset(a).decimals) * view.usd_price(a);
                    (
                        g.asset(a).asset.to_string(),
                        ProviderAsset { amount: LargeInteger::from(amount), amount_usd: LargeFloat::from_f64(usd) },
                    )
                })
                .collect();
            let share = if supply == 0 { 0.0 } else { *lp as f64 / supply as f64 };
            PoolProvider {
                wallet_address: friendly_wallet(wallet),
                liquidity: LargeInteger::from(*lp),
                share: LargeFloat::from_f64(share),
                assets,
            }
        })
        .collect();
    let assets_metadata = meta.assets.iter().map(|a| (g.asset(*a).asset.to_string(), view.metadata_of(*a))).collect();
    Some(PoolProvidersResponse { providers, assets_metadata, total_count: count(total) })
}

/// `/pools/{address}/deposits`: `None` for an unknown pool.
pub fn pool_deposits(view: &MarketView, q: &PoolDepositsQuery) -> Option<DepositsResponse> {
    let id = view.data().graph.pool_id(&q.pool)?;
    let pool_address = friendly(&view.data().graph.pool(id).address);
    let mut joins: Vec<&LiquidityEvent> =
        pool_events(view, &q.pool).filter(|e| e.kind == LiquidityKind::Join).collect();
    // Newest first; the events are in time order, so reversing keeps later arrivals first on ties.
    joins.reverse();
    let total = joins.len();
    let deposits = q
        .page
        .of(&joins)
        .iter()
        .filter_map(|e| {
            // A stored event's time is a valid date (checked when it was taken in).
            let added_at = DateTime::from_unix(e.time)?;
            Some(Deposit {
                deposit_address: e.deposit_address.as_ref().map(friendly).unwrap_or_default(),
                pool_address: pool_address.clone(),
                initiator_address: friendly_wallet(&e.provider),
                amount_x: LargeInteger::from(e.amounts[0]),
                amount_y: LargeInteger::from(e.amounts[1]),
                minimal_liquidity: LargeInteger::from(e.min_lp_out),
                added_at,
                mc_seq_no: i32::try_from(e.block()).unwrap_or(i32::MAX),
            })
        })
        .collect();
    Some(DepositsResponse { deposits, total_count: count(total) })
}
