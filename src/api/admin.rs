//! `POST /v4/admin/reserves`: a batch of pool updates, checked whole before any is applied.
//!
//! Owns the meaning of an admin batch: which update fits which pool (reserves for every curve but
//! `concentrated`; state, and optionally the tick map, for a concentrated pool, as
//! [`PoolGraph::update_concentrated`] takes it), the sanity of the new values, and all-or-nothing application.
//! Must not speak HTTP, authenticate or log: the server does that with the [`AdminChange`]s returned.
//!
//! Sanity: reserves must be below 2^120 (the chain's `Coins`, the bound every pool formula assumes; refused
//! with 1014 while parsing), and the pool's own math must handle them: a swap of one unit and one of half the
//! input reserve are simulated each way on the new reserves, and an overflow or a stable-swap iteration that
//! does not converge refuses the entry (1032). A concentrated state is checked by the pool itself
//! ([`Concentrated::new`] / [`Concentrated::with_state`]: tick and price in the contract's range, a tick map
//! the contract could hold).

use std::fmt;

use super::error::{ApiError, ErrorCode};
use super::parse;
use super::wire::{ReserveUpdate, ReservesResponse};
use crate::graph::{PoolGraph, PoolId};
use crate::pool::concentrated::{tick_at_sqrt_ratio, ClState, Concentrated, Tick};
use crate::pool::{Curve, Direction, Pool, PoolError};

/// One validated update, ready to apply.
#[derive(Debug, Clone)]
enum Planned {
    Reserves([u128; 2]),
    Concentrated(Concentrated),
}

/// What one applied update changed, for the audit log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminChange {
    /// The pool, raw address.
    pub pool: String,
    /// `reserves`, `state` (concentrated state only) or `state+ticks` (state and tick map).
    pub what: &'static str,
    /// The value before.
    pub old: String,
    /// The value after.
    pub new: String,
}

impl fmt::Display for AdminChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pool {} {}: {} -> {}", self.pool, self.what, self.old, self.new)
    }
}

/// The answer to a batch and what it changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminOutcome {
    /// The response body.
    pub response: ReservesResponse,
    /// One entry per pool updated, in the batch's order.
    pub changes: Vec<AdminChange>,
}

fn entry_error(index: usize, field: &str, kind: ErrorCode, reason: impl fmt::Display) -> ApiError {
    ApiError::field(kind, &format!("[{index}].{field}"), reason)
}

fn show_state(s: &ClState, ticks: Option<usize>) -> String {
    let ticks = ticks.map(|n| format!(", {n} ticks")).unwrap_or_default();
    format!("sqrt_price_x96 {} tick {} liquidity {}{ticks}", s.sqrt_price_x96, s.tick, s.liquidity)
}

/// Refuses reserves on which the pool's math overflows or does not converge: one-unit and half-reserve
/// swaps each way (the contract would throw on them, so every quote through the pool would be an error).
fn check_pool_math(curve: &Curve, reserves: [u128; 2]) -> Result<(), PoolError> {
    let pool = Pool::new(curve.clone(), reserves);
    for direction in [Direction::ZeroToOne, Direction::OneToZero] {
        let input = reserves[direction.in_index()];
        for amount in [1, (input / 2).max(1)] {
            // Empty pools, outputs that round to zero, reserves leaving the range: the contract refunds, the
            // router skips the pool; nothing is wrong with the update. Overflow and divergence are.
            if let Err(e @ (PoolError::Overflow | PoolError::NotConverged)) = pool.swap(amount, direction) {
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Checks one entry against the graph.
fn plan_entry(graph: &PoolGraph, index: usize, u: ReserveUpdate) -> Result<(PoolId, Planned), ApiError> {
    let id = graph.pool_id(&u.pool.0).ok_or_else(|| {
        entry_error(index, "pool", ErrorCode::UnknownPool, format!("unknown pool {}", u.pool.0.to_hex()))
    })?;
    let live = graph.concentrated(id);
    let has_state = u.sqrt_price_x96.is_some() || u.tick.is_some() || u.liquidity.is_some() || u.ticks.is_some();
    match (live, u.reserves) {
        (None, Some(reserves)) if !has_state => {
            let reserves = reserves.map(|r| r.0);
            check_pool_math(&graph.pool(id).curve, reserves).map_err(|e| {
                entry_error(
                    index,
                    "reserves",
                    ErrorCode::BadPoolState,
                    format!("the pool's math cannot take these reserves ({e}); reserves must be below 2^120"),
                )
            })?;
            Ok((id, Planned::Reserves(reserves)))
        }
        (None, _) => Err(entry_error(
            index,
            "reserves",
            if has_state { ErrorCode::BadPoolState } else { ErrorCode::MissingField },
            if has_state {
                "missing; this pool is not concentrated: only `reserves` apply".to_string()
            } else {
                "missing".to_string()
            },
        )),
        (Some(_), Some(_)) => Err(entry_error(
            index,
            "reserves",
            ErrorCode::BadPoolState,
            "a concentrated (dex_c) pool is updated through its state: `sqrt_price_x96`, `tick`, `liquidity` \
             (and optionally `ticks`), not `reserves`",
        )),
        (Some(pool), None) => {
            let (Some(price), Some(tick), Some(liquidity)) = (u.sqrt_price_x96, u.tick, u.liquidity) else {
                let field = [("sqrt_price_x96", u.sqrt_price_x96.is_none()), ("tick", u.tick.is_none())]
                    .into_iter()
                    .find(|(_, absent)| *absent)
                    .map_or("liquidity", |(f, _)| f);
                return Err(entry_error(
                    index,
                    field,
                    ErrorCode::MissingField,
                    "missing (required for a concentrated pool)",
                ));
            };
            let state = ClState { sqrt_price_x96: price.0, tick, liquidity: liquidity.0 };
            // The contract keeps `tick` = the tick of the price, or one below it right after a downward
            // crossing left the price exactly on a tick; any other pair is a state no pool can be in.
            if let Ok(at_price) = tick_at_sqrt_ratio(price.0) {
                if tick != at_price && tick != at_price - 1 {
                    return Err(entry_error(
                        index,
                        "tick",
                        ErrorCode::BadPoolState,
                        format!("tick {tick} does not match sqrt_price_x96 (its tick is {at_price})"),
                    ));
                }
            }
            let has_ticks = u.ticks.is_some();
            let refused = |e: PoolError| {
                let field = match e {
                    PoolError::TickOutOfRange(_) => "tick",
                    PoolError::SqrtPriceOutOfRange => "sqrt_price_x96",
                    _ if has_ticks => "ticks",
                    _ => "liquidity",
                };
                entry_error(index, field, ErrorCode::BadPoolState, format!("the pool refuses this state: {e}"))
            };
            let next = match u.ticks {
                None => pool.with_state(state).map_err(refused)?,
                Some(ticks) => {
                    let mut ticks: Vec<Tick> = ticks
                        .into_iter()
                        .map(|t| Tick {
                            tick: t.tick,
                            liquidity_net: t.liquidity_net.0,
                            liquidity_gross: t.liquidity_gross.0,
                        })
                        .collect();
                    ticks.sort_by_key(|t| t.tick);
                    Concentrated::new(pool.lp_fee(), pool.protocol_fee(), pool.tick_spacing(), ticks, state)
                        .map_err(refused)?
                }
            };
            Ok((id, Planned::Concentrated(next)))
        }
    }
}

/// Parses and checks every entry of `body` against `graph`, then applies them all; a bad entry (named by its
/// index and field) leaves every pool as it was.
pub fn apply_batch(graph: &PoolGraph, body: &[u8]) -> Result<AdminOutcome, ApiError> {
    let updates = parse::parse_admin_batch(body)?;
    let mut planned = Vec::with_capacity(updates.len());
    for (index, update) in updates.into_iter().enumerate() {
        planned.push(plan_entry(graph, index, update)?);
    }
    let mut changes = Vec::with_capacity(planned.len());
    for (id, plan) in planned {
        let pool = graph.pool(id).address.to_hex();
        let change = match plan {
            Planned::Reserves(new) => {
                let old = graph.reserves(id);
                // Checked above against the same graph: a known, non-concentrated pool, reserves below 2^120.
                graph.update_reserves(id, new)?;
                AdminChange { pool, what: "reserves", old: format!("{old:?}"), new: format!("{new:?}") }
            }
            Planned::Concentrated(next) => {
                let before = graph.concentrated(id);
                let ticks_changed = before.as_ref().is_some_and(|b| b.ticks() != next.ticks());
                let old = before.map(|b| show_state(b.state(), ticks_changed.then_some(b.ticks().len())));
                let new = show_state(next.state(), ticks_changed.then_some(next.ticks().len()));
                graph.update_concentrated(id, next)?;
                AdminChange {
                    pool,
                    what: if ticks_changed { "state+ticks" } else { "state" },
                    old: old.unwrap_or_default(),
                    new,
                }
            }
        };
        changes.push(change);
    }
    Ok(AdminOutcome { response: ReservesResponse { updated: changes.len() }, changes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::MAX_COINS;

    #[test]
    fn pool_math_sanity_refuses_overflow_and_passes_real_reserves() {
        let g = PoolGraph::from_json(include_str!("../../data/snapshot.json")).unwrap();
        let mut refused = 0;
        for id in (0..g.pool_count()).map(|i| PoolId(u32::try_from(i).unwrap())) {
            let curve = &g.pool(id).curve;
            if matches!(curve, Curve::Concentrated(_)) {
                continue;
            }
            // Every pool at its real reserves passes (no false alarms on the bundled data).
            assert_eq!(check_pool_math(curve, g.reserves(id)), Ok(()), "{}", g.pool(id).address.to_hex());
            if matches!(curve, Curve::StableSwap(_)) {
                // The stable-swap invariant overflows 257 bits at these (contract exit code 4 / 5103).
                assert_eq!(check_pool_math(curve, [1, MAX_COINS]), Err(PoolError::Overflow));
                assert_eq!(check_pool_math(curve, [MAX_COINS, 1]), Err(PoolError::NotConverged));
                refused += 1;
            }
        }
        assert_eq!(refused, 3, "the bundled snapshot's dex_b_v2 stable pools");
    }
}
