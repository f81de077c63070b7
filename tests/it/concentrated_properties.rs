//! Properties of the concentrated-liquidity swap on random pools built from random positions (so the tick
//! map and the active liquidity agree, as on chain): no panic, output monotone in the input, the price moves
//! the way of the trade, the state after is consistent (tick against `getTickAtSqrtRatio`, liquidity against
//! the positions), continuing from the returned state never beats one swap, and a round trip never profits.

use std::collections::BTreeMap;

use primitive_types::U256;
use proptest::prelude::*;
use tonroute::pool::concentrated::{sqrt_ratio_at_tick, tick_at_sqrt_ratio, ClState, Tick, MAX_TICK, MIN_TICK};
use tonroute::pool::{Concentrated, Direction, PoolError};

type Position = (i32, i32, u128);

/// Active liquidity at `tick` from the positions: the sum of those with `lower <= tick < upper`.
fn active(positions: &[Position], tick: i32) -> u128 {
    positions.iter().filter(|(lo, hi, _)| *lo <= tick && tick < *hi).map(|p| p.2).sum()
}

fn pool(positions: &[Position], tick: i32, offset: u128, fee: u16) -> Concentrated {
    let mut map: BTreeMap<i32, (i128, u128)> = BTreeMap::new();
    for &(lo, hi, l) in positions {
        let e = map.entry(lo).or_default();
        e.0 += i128::try_from(l).unwrap();
        e.1 += l;
        let e = map.entry(hi).or_default();
        e.0 -= i128::try_from(l).unwrap();
        e.1 += l;
    }
    let ticks = map.into_iter().map(|(tick, (n, g))| Tick { tick, liquidity_net: n, liquidity_gross: g }).collect();
    let low = sqrt_ratio_at_tick(tick).unwrap();
    let high = sqrt_ratio_at_tick(tick + 1).unwrap();
    let sqrt_price_x96 = low + U256::from(offset) % (high - low);
    let state = ClState { sqrt_price_x96, tick, liquidity: active(positions, tick) };
    Concentrated::new(fee, 0, 1, ticks, state).unwrap()
}

fn positions() -> impl Strategy<Value = Vec<Position>> {
    prop::collection::vec((-300_000i32..300_000, 1i32..200_000, 1u128..(1u128 << 100)), 0..6).prop_map(|v| {
        v.into_iter().map(|(lo, w, l)| (lo, (lo + w).min(MAX_TICK), l)).filter(|(lo, hi, _)| lo < hi).collect()
    })
}

fn direction() -> impl Strategy<Value = Direction> {
    prop_oneof![Just(Direction::ZeroToOne), Just(Direction::OneToZero)]
}

fn amount() -> impl Strategy<Value = u128> {
    prop_oneof![1u128..1_000_000, 1u128..(1u128 << 64), 1u128..(1u128 << 120)]
}

/// The state after a swap: the tick is `getTickAtSqrtRatio(P)`, or one below a tick whose price `P` is exactly
/// (after crossing it downwards); the liquidity is what the positions give at that tick.
fn consistent(positions: &[Position], s: &ClState) -> bool {
    let at = tick_at_sqrt_ratio(s.sqrt_price_x96).unwrap();
    let tick_ok = s.tick == at || (s.tick == at - 1 && sqrt_ratio_at_tick(at).unwrap() == s.sqrt_price_x96);
    tick_ok && s.liquidity == active(positions, s.tick)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn swaps_are_monotone_directed_and_consistent(
        positions in positions(),
        tick in -200_000i32..200_000,
        offset in any::<u128>(),
        fee in prop_oneof![Just(1u16), Just(5), Just(30), Just(100), 0u16..9999],
        dir in direction(),
        a in amount(),
        extra in amount(),
    ) {
        let p = pool(&positions, tick, offset, fee);
        let s0 = *p.state();
        let b = a.saturating_add(extra).min((1u128 << 120) - 1);
        let ra = p.swap_from(&s0, a, dir).unwrap();
        let rb = p.swap_from(&s0, b, dir).unwrap();
        prop_assert!(ra.amount_out <= rb.amount_out, "out({a}) = {} > out({b}) = {}", ra.amount_out, rb.amount_out);
        prop_assert!(ra.amount_in_used <= a && ra.amount_in_used <= rb.amount_in_used);
        let (before, after) = (s0.sqrt_price_x96, ra.state_after.sqrt_price_x96);
        match dir {
            Direction::ZeroToOne => prop_assert!(after <= before),
            Direction::OneToZero => prop_assert!(after >= before),
        }
        prop_assert!(consistent(&positions, &ra.state_after), "{:?}", ra.state_after);
        prop_assert!(consistent(&positions, &rb.state_after), "{:?}", rb.state_after);

        // Continuing from the returned state: a swap in two parts never pays more than in one.
        let rest = p.swap_from(&ra.state_after, b - a, dir).unwrap();
        if ra.amount_in_used == a && rest.amount_in_used == b - a {
            prop_assert!(ra.amount_out + rest.amount_out <= rb.amount_out, "split pays more");
        }

        // A round trip from the returned state never gives back more than went in.
        if ra.amount_out > 0 {
            let back = p.swap_from(&ra.state_after, ra.amount_out, dir.reverse()).unwrap();
            prop_assert!(back.amount_out <= ra.amount_in_used, "round trip profits");
        }

        // The router-level swap refuses exactly what it must and otherwise agrees.
        match p.swap_exact_in(&s0, a, dir) {
            Ok((r, s)) => prop_assert!(r.amount_out == ra.amount_out && s == ra.state_after),
            Err(PoolError::ZeroOutput | PoolError::EmptyPool) => prop_assert_eq!(ra.amount_out, 0),
            Err(PoolError::PriceLimitReached { amount_in_used }) => {
                prop_assert!(amount_in_used < a && amount_in_used == ra.amount_in_used)
            }
            Err(e) => prop_assert!(false, "unexpected {e}"),
        }
    }

    /// States anywhere in the contract's range, with any liquidity and no tick map: never a panic.
    #[test]
    fn extreme_states_never_panic(
        tick in MIN_TICK..MAX_TICK,
        offset in any::<u128>(),
        liquidity in prop_oneof![Just(0u128), 1u128..1000, any::<u128>()],
        dir in direction(),
        a in amount(),
    ) {
        let p = pool(&[], tick, offset, 30);
        let state = ClState { liquidity, ..*p.state() };
        if let Ok(r) = p.swap_from(&state, a, dir) {
            prop_assert!(r.amount_in_used <= a);
        }
        let _ = p.swap_exact_in(&state, a, dir);
    }
}
