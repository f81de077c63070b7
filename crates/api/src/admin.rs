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
//!
//! Operator safety ([`AdminPolicy`]): an update that moves a pool's price by more than a factor (default
//! [`DEFAULT_MAX_PRICE_MOVE`]×, `serve --max-price-move`) is refused (1033) unless the batch says
//! `"force": true` — reserves sent in the wrong order move a TON/USD₮ pool's price by about a million times.
//! The price compared is the pool's marginal price: exactly (integer cross-products) for the curves whose
//! price is the reserve ratio up to constant weights (constant product, `dex_a` volatile, weighted constant
//! product) and for a concentrated pool (its `sqrt_price_x96` squared); as a float for the stable curves (a
//! threshold, not an amount). An update to or from an empty side has no price to compare and passes. The
//! check runs once every entry is otherwise valid, so a batch learns of its mistakes before the question of
//! force. Forced changes are marked in the [`AdminChange`]s for the audit log.

use std::fmt;

use super::error::{ApiError, ErrorCode};
use primitive_types::U512;

use super::parse::{self, AdminBatch};
use super::wire::{ReserveUpdate, ReservesResponse};
use tonroute_core::graph::{PoolGraph, PoolId};
use tonroute_core::pool::concentrated::{tick_at_sqrt_ratio, ClState, Concentrated, Tick};
use tonroute_core::pool::{Curve, Direction, Pool, PoolError};

/// One validated update, ready to apply.
#[derive(Debug, Clone)]
enum Planned {
    Reserves([u128; 2]),
    Concentrated(Concentrated),
}

/// [`AdminPolicy::max_price_move`]'s default: a price may move up to 100× in one update.
pub const DEFAULT_MAX_PRICE_MOVE: u64 = 100;

/// The server's rules for admin batches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AdminPolicy {
    /// Largest factor by which one update may move a pool's price (either way) without `"force": true`; at
    /// least 1 (a smaller value is read as 1).
    pub max_price_move: u64,
}

impl Default for AdminPolicy {
    fn default() -> AdminPolicy {
        AdminPolicy { max_price_move: DEFAULT_MAX_PRICE_MOVE }
    }
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
    /// `Some(factor)` when the update moved the price beyond the policy's limit and was applied because the
    /// batch said `"force": true`: the factor, rounded, as the log shows it (`521663×`).
    pub forced: Option<String>,
}

impl fmt::Display for AdminChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pool {} {}: {} -> {}", self.pool, self.what, self.old, self.new)?;
        match &self.forced {
            Some(factor) => write!(f, " (forced: price moved {factor})"),
            None => Ok(()),
        }
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

/// An error about entry `index`'s `field`; `path` is where the entries sit (see [`AdminBatch::path`]).
fn entry_error(path: &str, index: usize, field: &str, kind: ErrorCode, reason: impl fmt::Display) -> ApiError {
    ApiError::field(kind, &format!("{path}[{index}].{field}"), reason)
}

/// A pool's price, for comparing one state with another of the same pool.
#[derive(Debug, Clone, Copy)]
enum Price {
    /// Exactly `num / den` (both positive), up to a constant factor the update does not change.
    Ratio(U512, U512),
    /// The curve's marginal price as a float (positive, finite).
    Float(f64),
}

/// The price of a non-concentrated pool at `reserves`; `None` when a side is empty (no price).
fn reserves_price(curve: &Curve, reserves: [u128; 2]) -> Option<Price> {
    if reserves.contains(&0) {
        return None;
    }
    match curve {
        // Marginal price r1/r0 (weighted: (r1/w1)/(r0/w0), the weights a constant of the pool).
        Curve::ConstantProduct(_) | Curve::DexAVolatile(_) | Curve::WeightedConstantProduct(_) => {
            Some(Price::Ratio(U512::from(reserves[1]), U512::from(reserves[0])))
        }
        _ => {
            // The fee factor spot_rate includes is the same before and after: it cancels in the ratio.
            let rate = Pool::new(curve.clone(), reserves).spot_rate(Direction::ZeroToOne);
            (rate.is_finite() && rate > 0.0).then_some(Price::Float(rate))
        }
    }
}

/// A concentrated pool's price: (√P·2^96)², exactly (√P·2^96 is below 2^160, checked by the pool).
fn concentrated_price(state: &ClState) -> Price {
    let s = U512::from(state.sqrt_price_x96);
    Price::Ratio(s * s, U512::one())
}

/// `v` as a float (for messages: the factor rounded).
fn u512_f64(v: U512) -> f64 {
    let shift = v.bits().saturating_sub(64);
    // After the shift at most 64 bits remain.
    ((v >> shift).low_u64() as f64) * 2f64.powi(i32::try_from(shift).unwrap_or(i32::MAX))
}

/// How much `new` moves the price from `old` (≥ 1, either direction) when that is more than `limit`×, else
/// `None`.
fn price_jump(old: Price, new: Price, limit: u64) -> Option<f64> {
    let limit = limit.max(1);
    match (old, new) {
        (Price::Ratio(on, od), Price::Ratio(nn, nd)) => {
            // new/old = (nn·od)/(on·nd); each product is below 2^320, times the limit below 2^384.
            let (up, down) = (nn * od, on * nd);
            let l = U512::from(limit);
            if up > down * l {
                Some(u512_f64(up) / u512_f64(down))
            } else if down > up * l {
                Some(u512_f64(down) / u512_f64(up))
            } else {
                None
            }
        }
        (Price::Float(o), Price::Float(n)) => {
            let factor = if n >= o { n / o } else { o / n };
            (factor > limit as f64).then_some(factor)
        }
        // One pool has one kind of price.
        _ => None,
    }
}

fn show_factor(factor: f64) -> String {
    if factor < 1e6 {
        format!("{factor:.0}×")
    } else {
        format!("{factor:.1e}×")
    }
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
fn plan_entry(graph: &PoolGraph, path: &str, index: usize, u: ReserveUpdate) -> Result<(PoolId, Planned), ApiError> {
    let id = graph.pool_id(&u.pool.0).ok_or_else(|| {
        entry_error(path, index, "pool", ErrorCode::UnknownPool, format!("unknown pool {}", u.pool.0.to_hex()))
    })?;
    let live = graph.concentrated(id);
    let has_state = u.sqrt_price_x96.is_some() || u.tick.is_some() || u.liquidity.is_some() || u.ticks.is_some();
    match (live, u.reserves) {
        (None, Some(reserves)) if !has_state => {
            let reserves = reserves.map(|r| r.0);
            check_pool_math(&graph.pool(id).curve, reserves).map_err(|e| {
                entry_error(
                    path,
                    index,
                    "reserves",
                    ErrorCode::BadPoolState,
                    format!("the pool's math cannot take these reserves ({e}); reserves must be below 2^120"),
                )
            })?;
            Ok((id, Planned::Reserves(reserves)))
        }
        (None, _) => Err(entry_error(
            path,
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
            path,
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
                    path,
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
                        path,
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
                entry_error(path, index, field, ErrorCode::BadPoolState, format!("the pool refuses this state: {e}"))
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

/// Parses and checks every entry of `body` against `graph` under the default [`AdminPolicy`], then applies
/// them all; a bad entry (named by its index and field) leaves every pool as it was.
pub fn apply_batch(graph: &PoolGraph, body: &[u8]) -> Result<AdminOutcome, ApiError> {
    apply_batch_with(graph, body, AdminPolicy::default())
}

/// [`apply_batch`] under `policy`.
pub fn apply_batch_with(graph: &PoolGraph, body: &[u8], policy: AdminPolicy) -> Result<AdminOutcome, ApiError> {
    let AdminBatch { force, updates, path } = parse::parse_admin_batch(body)?;
    let mut planned = Vec::with_capacity(updates.len());
    for (index, update) in updates.into_iter().enumerate() {
        planned.push(plan_entry(graph, path, index, update)?);
    }
    // Every entry is valid; now the price moves, against the pools as they are.
    let mut jumps = Vec::with_capacity(planned.len());
    for (index, (id, plan)) in planned.iter().enumerate() {
        let (old, new, field) = match plan {
            Planned::Reserves(new) => {
                let curve = &graph.pool(*id).curve;
                (reserves_price(curve, graph.reserves(*id)), reserves_price(curve, *new), "reserves")
            }
            Planned::Concentrated(next) => (
                graph.concentrated(*id).map(|c| concentrated_price(c.state())),
                Some(concentrated_price(next.state())),
                "sqrt_price_x96",
            ),
        };
        let jump = match (old, new) {
            (Some(old), Some(new)) => price_jump(old, new, policy.max_price_move),
            _ => None,
        };
        if let (Some(factor), false) = (jump, force) {
            return Err(entry_error(
                path,
                index,
                field,
                ErrorCode::PriceJump,
                format!(
                    "moves the pool's price {} (limit {}×, `--max-price-move`): reserves in the wrong order? \
                     Nothing was applied; to apply it anyway send {{\"force\": true, \"updates\": [...]}}",
                    show_factor(factor),
                    policy.max_price_move.max(1)
                ),
            ));
        }
        jumps.push(jump);
    }
    let mut changes = Vec::with_capacity(planned.len());
    for ((id, plan), jump) in planned.into_iter().zip(jumps) {
        let forced = jump.map(show_factor);
        let pool = graph.pool(id).address.to_hex();
        let change = match plan {
            Planned::Reserves(new) => {
                let old = graph.reserves(id);
                // Checked above against the same graph: a known, non-concentrated pool, reserves below 2^120.
                graph.update_reserves(id, new)?;
                AdminChange { pool, what: "reserves", old: format!("{old:?}"), new: format!("{new:?}"), forced }
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
                    forced,
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
    use tonroute_core::pool::MAX_COINS;

    #[test]
    fn pool_math_sanity_refuses_overflow_and_passes_real_reserves() {
        let g = PoolGraph::from_json(include_str!("../../../data/snapshot.json")).unwrap();
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

    /// The price `b/a` of reserves `[a, b]`, as the constant-product curves compare it.
    fn ratio(a: u128, b: u128) -> Price {
        Price::Ratio(U512::from(b), U512::from(a))
    }

    #[test]
    fn price_moves_are_compared_exactly_both_ways() {
        // 0.01 → 100: up 10^4 times; → 1: exactly 100 times (not more than 100); → 0.001: down 10 times.
        assert_eq!(price_jump(ratio(1000, 10), ratio(10, 1000), 100), Some(10_000.0));
        assert_eq!(price_jump(ratio(1000, 10), ratio(1000, 1000), 100), None);
        assert_eq!(price_jump(ratio(1000, 10), ratio(1000, 1000), 99), Some(100.0));
        assert_eq!(price_jump(ratio(1000, 1000), ratio(1000, 10), 99), Some(100.0), "downwards too");
        assert_eq!(price_jump(ratio(1000, 10), ratio(1000, 1), 100), None);
        // One unit past 100× on reserves near 2^120 (products near 2^240, compared without rounding).
        let big = (1u128 << 119) - 1;
        assert_eq!(price_jump(ratio(big, big / 100), ratio(big, big), 100), Some(100.0));
        assert_eq!(price_jump(ratio(big, big / 100 + 1), ratio(big, big), 100), None);
        assert_eq!(price_jump(Price::Float(2.0), Price::Float(300.0), 100), Some(150.0));
        assert_eq!(price_jump(Price::Float(300.0), Price::Float(2.0), 200), None);
        // A concentrated pool's price is √P squared: ×10 on √P is exactly 100× the price.
        let state = |s: u64| ClState { sqrt_price_x96: primitive_types::U256::from(s) << 96, tick: 0, liquidity: 1 };
        assert_eq!(price_jump(concentrated_price(&state(3)), concentrated_price(&state(30)), 100), None);
        assert_eq!(price_jump(concentrated_price(&state(3)), concentrated_price(&state(33)), 100), Some(121.0));
        assert_eq!(show_factor(521_663.4), "521663×");
        assert_eq!(show_factor(2.5e9), "2.5e9×");
    }

    #[test]
    fn a_batch_forces_a_price_jump_in_its_object_form_only() {
        let g = PoolGraph::from_json(include_str!("../../../data/snapshot.json")).unwrap();
        let v2 = "0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6";
        let stable = "0:568fdfda86ca00a2667a868e8ed25318d92011f08b56fa75dd43b7a8160819ae";
        let swapped = format!(r#"{{"pool": "{v2}", "reserves": ["2501328000000", "1806615000000000"]}}"#);
        let e = apply_batch(&g, format!("[{swapped}]").as_bytes()).unwrap_err();
        assert_eq!(e.kind(), ErrorCode::PriceJump);
        assert!(e.message().starts_with("field `[0].reserves`: moves the pool's price 521"), "{e}");
        let e = apply_batch(&g, format!(r#"{{"force": false, "updates": [{swapped}]}}"#).as_bytes()).unwrap_err();
        assert!(e.message().starts_with("field `updates[0].reserves`: moves"), "{e}");
        let e = apply_batch(&g, br#"{"force": true}"#).unwrap_err();
        assert_eq!(e.kind(), ErrorCode::MalformedJson);
        let e = apply_batch(&g, br#"{"force": true, "updates": [], "extra": 1}"#).unwrap_err();
        assert_eq!(e.kind(), ErrorCode::UnknownField);
        // A balanced stable pool's price barely moves when its reserves swap places: no force needed.
        let outcome = apply_batch(
            &g,
            format!(r#"[{{"pool": "{stable}", "reserves": ["21184424589", "21184424588"]}}]"#).as_bytes(),
        )
        .unwrap();
        assert_eq!(outcome.changes[0].forced, None);
        let outcome = apply_batch(&g, format!(r#"{{"force": true, "updates": [{swapped}]}}"#).as_bytes()).unwrap();
        assert_eq!(outcome.changes[0].forced.as_deref(), Some("521663×"));
        assert!(outcome.changes[0].to_string().ends_with("(forced: price moved 521663×)"), "{}", outcome.changes[0]);
        let id = g.pool_id(&tonroute_core::asset::parse_address(v2).unwrap()).unwrap();
        assert_eq!(g.reserves(id), [2_501_328_000_000, 1_806_615_000_000_000]);
    }
}
