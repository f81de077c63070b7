//! Concentrated liquidity as the `dex_c` (TONCO) pool contract computes it: Uniswap-v3 math with a Q64.96
//! square-root price, ticks and per-range liquidity, the fee in 1/10000 (docs/pool-math.md §3).
//!
//! Laid out as the Uniswap v3 SDKs lay it out: this file is the pool (state, tick map, the swap loop with tick
//! crossing); [`tick_math`] (`TickMath`), `sqrt_price_math` (`SqrtPriceMath`) and `swap_math`
//! (`SwapMath.computeSwapStep`) are the contract's integer math, in `U256`/`U512`, and `FullMath`'s
//! `mulDiv`/`mulDivRoundingUp` are `super::math`'s `muldiv`/`muldivc`, shared with the other curves. It must
//! not know about graphs or routes.
//!
//! # Where the state lives
//!
//! A [`Concentrated`] is a whole pool: fee parameters, tick spacing, the tick map (a sorted, shared
//! `Arc<[Tick]>`, cheap to clone) and the dynamic [`ClState`] (sqrt price, current tick, active liquidity).
//! The `[u128; 2]` reserves the other curves swap against cannot carry that state — the sqrt price alone is a
//! 160-bit number — so this curve does not use them:
//!
//! * [`Concentrated::swap_from`] swaps from any [`ClState`] and returns the state after the swap
//!   ([`ClSwap::state_after`]); [`Concentrated::swap_exact_in`] adds the router's refusals. A caller that
//!   simulates several swaps through one pool (the router's joint simulation) keeps the returned state and
//!   passes it back in — nothing is mutated.
//! * [`super::Curve::swap`] on a concentrated curve swaps from the curve's own state and ignores the reserves
//!   it is given; the `reserves_after` it reports are the pool's **virtual reserves** after the swap
//!   ([`virtual_reserves`]: `x = L·2^96/√P`, `y = L·√P/2^96`), which is also what a pool graph stores as the
//!   reserves of a concentrated pool, so the float ranking models (`estimate.rs`) can treat the current range
//!   as a constant-product pool. [`super::Pool::apply`] therefore updates only those virtual reserves; to
//!   continue from a swap, build a new curve with [`Concentrated::with_state`].
//!
//! # Contract behaviour reproduced
//!
//! * The next initialized tick is found in the ticks dictionary (`<= tick` going down, `> tick` going up,
//!   `MIN_TICK`/`MAX_TICK` when there is none) — no 256-tick bitmap words. After reaching a tick,
//!   `tick = zeroForOne ? t − 1 : t` and `L ∓= liquidity_net`; otherwise `tick = getTickAtSqrtRatio(P)`.
//! * An unlimited swap runs to `MIN_SQRT_RATIO + 1` / `MAX_SQRT_RATIO − 1`, the SDK's default limits. If the
//!   input is not used up there, the pool returns the rest: [`ClSwap::amount_in_used`] says how much it took.
//! * The protocol fee is a share of the LP fee taken from the input; it never changes the output.

mod sqrt_price_math;
mod swap_math;
pub mod tick_math;

use std::sync::Arc;

use primitive_types::{U256, U512};

use self::sqrt_price_math::amount0_delta_words;
use self::swap_math::{less_fee, swap_step};
use self::tick_math::{check_price, check_tick, u256_to_f64};
pub use self::tick_math::{max_sqrt_ratio, min_sqrt_ratio, sqrt_ratio_at_tick, tick_at_sqrt_ratio, MAX_TICK, MIN_TICK};
use super::math::{mul_high, word, WordDivisor};
use super::{Direction, PoolError, SwapResult, FEE_DIVIDER, MAX_COINS};

/// One initialized tick of the pool's tick map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tick {
    /// The tick index.
    pub tick: i32,
    /// Liquidity added when the price crosses this tick upwards (removed downwards).
    pub liquidity_net: i128,
    /// Total liquidity referencing this tick (bookkeeping; the swap does not read it).
    pub liquidity_gross: u128,
}

/// The dynamic state of a concentrated pool: what a swap changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClState {
    /// √price · 2^96 (token1 per token0), a 160-bit number.
    pub sqrt_price_x96: U256,
    /// The current tick (not always `getTickAtSqrtRatio(sqrt_price_x96)`: after a downward cross it is one
    /// below the crossed tick while the price sits exactly on it).
    pub tick: i32,
    /// Liquidity active at the current price.
    pub liquidity: u128,
}

/// A pool state as the router's simulation carries it between swaps: the tick of a price that a swap left
/// inside a range is not computed (`None`: it is `tick_at_sqrt_ratio(sqrt_price_x96)`), since only the
/// state's place among the initialized ticks matters to the next swap ([`Concentrated::next_tick`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ClPoint {
    pub sqrt_price_x96: U256,
    pub tick: Option<i32>,
    pub liquidity: u128,
}

impl From<ClState> for ClPoint {
    fn from(s: ClState) -> ClPoint {
        ClPoint { sqrt_price_x96: s.sqrt_price_x96, tick: Some(s.tick), liquidity: s.liquidity }
    }
}

impl ClPoint {
    /// The state, its tick computed if it was not.
    pub(crate) fn state(&self) -> Result<ClState, PoolError> {
        let tick = match self.tick {
            Some(t) => t,
            None => tick_at_sqrt_ratio(self.sqrt_price_x96)?,
        };
        Ok(ClState { sqrt_price_x96: self.sqrt_price_x96, tick, liquidity: self.liquidity })
    }
}

/// A concentrated-liquidity pool: parameters, tick map and current state.
///
/// ```
/// use primitive_types::U256;
/// use tonroute_core::pool::concentrated::{ClState, Concentrated};
/// use tonroute_core::pool::Direction;
/// // docs/pool-math.md §3: L = 1e18, P = 2^96, tick 0, fee 30, 1e9 token0 in → 996999999.
/// let state = ClState { sqrt_price_x96: U256::one() << 96, tick: 0, liquidity: 1_000_000_000_000_000_000 };
/// let pool = Concentrated::new(30, 0, 60, Vec::new(), state).unwrap();
/// let r = pool.swap_from(&state, 1_000_000_000, Direction::ZeroToOne).unwrap();
/// assert_eq!((r.amount_out, r.amount_in_used), (996_999_999, 1_000_000_000));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Concentrated {
    lp_fee: u16,
    protocol_fee: u16,
    tick_spacing: i32,
    ticks: Arc<[Tick]>,
    /// `sqrt_ratio_at_tick` of each tick of `ticks`, computed once with the map: a swap reads the ratio of
    /// every initialized tick it reaches, and a router simulates the same pool thousands of times per quote.
    tick_ratios: Arc<[U256]>,
    state: ClState,
}

// The ratios are derived from the ticks: left out, so the pool reads as its contract state.
impl std::fmt::Debug for Concentrated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Concentrated")
            .field("lp_fee", &self.lp_fee)
            .field("protocol_fee", &self.protocol_fee)
            .field("tick_spacing", &self.tick_spacing)
            .field("ticks", &self.ticks)
            .field("state", &self.state)
            .finish()
    }
}

/// What one concentrated swap did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClSwap {
    /// Amount of the output token paid out (may be 0: the contract's estimate does not refuse it).
    pub amount_out: u128,
    /// Input the pool took, fees included; less than the amount offered when the price limit stopped it.
    pub amount_in_used: u128,
    /// LP fee taken from the input (the protocol's share included).
    pub fee_amount: u128,
    /// The state after the swap.
    pub state_after: ClState,
}

impl Concentrated {
    /// A pool; checks what the contract guarantees of its own storage: fee below 100 %, ticks strictly
    /// increasing within `MIN_TICK..=MAX_TICK`, `|liquidity_net| <= liquidity_gross`, the state in range.
    pub fn new(
        lp_fee: u16,
        protocol_fee: u16,
        tick_spacing: i32,
        ticks: Vec<Tick>,
        state: ClState,
    ) -> Result<Concentrated, PoolError> {
        if u128::from(lp_fee) >= FEE_DIVIDER {
            return Err(PoolError::FeeOutOfRange(u32::from(lp_fee)));
        }
        if tick_spacing <= 0 {
            return Err(PoolError::InvalidTickMap);
        }
        for t in &ticks {
            check_tick(t.tick)?;
            if t.liquidity_net.unsigned_abs() > t.liquidity_gross {
                return Err(PoolError::InvalidTickMap);
            }
        }
        if ticks.windows(2).any(|w| w[0].tick >= w[1].tick) {
            return Err(PoolError::InvalidTickMap);
        }
        check_state(&state)?;
        let tick_ratios = ticks.iter().map(|t| sqrt_ratio_at_tick(t.tick)).collect::<Result<_, _>>()?;
        Ok(Concentrated { lp_fee, protocol_fee, tick_spacing, ticks: ticks.into(), tick_ratios, state })
    }

    /// The same pool at another state (checked like [`Concentrated::new`]).
    pub fn with_state(&self, state: ClState) -> Result<Concentrated, PoolError> {
        check_state(&state)?;
        Ok(Concentrated { state, ..self.clone() })
    }

    /// The LP fee the swap charges, 1/10000 (the contract's `lp_fee_current`).
    pub fn lp_fee(&self) -> u16 {
        self.lp_fee
    }

    /// The protocol's share of the LP fee (as stored; display only).
    pub fn protocol_fee(&self) -> u16 {
        self.protocol_fee
    }

    /// Tick spacing.
    pub fn tick_spacing(&self) -> i32 {
        self.tick_spacing
    }

    /// The tick map, sorted by tick.
    pub fn ticks(&self) -> &[Tick] {
        &self.ticks
    }

    /// The shared tick map (to build another state of the same pool without copying it).
    pub fn ticks_arc(&self) -> &Arc<[Tick]> {
        &self.ticks
    }

    /// The current state.
    pub fn state(&self) -> &ClState {
        &self.state
    }

    /// The pool's virtual reserves at its current state (see [`virtual_reserves`]).
    pub fn virtual_reserves(&self) -> [u128; 2] {
        virtual_reserves(&self.state)
    }

    /// The contract's swap of `amount_in` from `state`, exact input, no price limit beyond the SDK's default.
    ///
    /// Answers as the pool's `getSwapEstimateGas` does: a swap that pays 0 or stops at the price limit is
    /// not an error here ([`Concentrated::swap_exact_in`] refuses those).
    pub fn swap_from(&self, state: &ClState, amount_in: u128, direction: Direction) -> Result<ClSwap, PoolError> {
        check_state(state)?;
        let (out, used, fees, after) = self.swap_loop(&ClPoint::from(*state), amount_in, direction)?;
        Ok(ClSwap { amount_out: out, amount_in_used: used, fee_amount: fees, state_after: after.state()? })
    }

    /// The swap loop of [`Concentrated::swap_from`] from a checked point: amount out, input used, fees and the
    /// point after. The tick after a step that stops inside a range is left `None` (it is
    /// `tick_at_sqrt_ratio` of the price, which a next swap from that point does not need: see
    /// [`Concentrated::next_tick`]); a tick crossed sets it as the contract does.
    fn swap_loop(
        &self,
        start: &ClPoint,
        amount_in: u128,
        direction: Direction,
    ) -> Result<(u128, u128, u128, ClPoint), PoolError> {
        if u128::from(self.lp_fee) >= FEE_DIVIDER {
            return Err(PoolError::FeeOutOfRange(u32::from(self.lp_fee)));
        }
        if direction == Direction::OneToZero {
            if let Some(swap) = self.inside_step_up(start, amount_in) {
                return Ok(swap);
            }
        }
        self.swap_loop_general(start, amount_in, direction)
    }

    /// The loop below for a token1-in swap whose first step stops inside the current range (the input is
    /// used up before the next initialized tick), when the prices involved are below 2^128: that one step
    /// of `swap_step`, in 128-bit words, and what the loop makes of it. `None` leaves the swap to the loop
    /// (a tick reached, a price or amount out of the words' range, an error to report).
    #[inline]
    fn inside_step_up(&self, start: &ClPoint, amount_in: u128) -> Option<(u128, u128, u128, ClPoint)> {
        const LOW96: u128 = (1 << 96) - 1;
        let liquidity = start.liquidity;
        let current = word(start.sqrt_price_x96)?;
        // The limit (MAX_SQRT_RATIO − 1) is above 2^128: a target below it is the next tick, and the price
        // is movable.
        let (_, _, next_price) = self.next_tick(start.tick, start.sqrt_price_x96, false);
        let target = word(next_price)?;
        if amount_in == 0 || liquidity == 0 || current >= target {
            return None;
        }
        let remaining = amount_in;
        let less_fee = less_fee(remaining, u128::from(self.lp_fee));
        // to_target = ⌈L·(target − current)/2^96⌉; a step that reaches it crosses the tick.
        let d = target - current;
        let (high, low) = (mul_high(liquidity, d), liquidity.wrapping_mul(d));
        if high >> 96 == 0 {
            let to_target = (high << 32 | low >> 96).checked_add(u128::from(low & LOW96 != 0))?;
            if less_fee >= to_target {
                return None;
            }
        }
        // next = current + ⌊less_fee·2^96 / L⌋ (below target, since less_fee < to_target).
        let (high, low) = (less_fee >> 32, less_fee << 96);
        if high >= liquidity {
            return None;
        }
        let next = current.checked_add(WordDivisor::new(liquidity).div_words(high, low).0)?;
        if next >= target {
            return None;
        }
        // amount_in = ⌈L·(next − current)/2^96⌉, amount_out = amount0_delta(current, next) rounded down.
        let dn = next - current;
        let (high, low) = (mul_high(liquidity, dn), liquidity.wrapping_mul(dn));
        if high >> 96 != 0 {
            return None;
        }
        let used = (high << 32 | low >> 96).checked_add(u128::from(low & LOW96 != 0))?;
        let out = word(amount0_delta_words(current, next, liquidity, false).ok()?)?;
        // The step stops short of the target: its fee is the rest, and nothing remains.
        let fee = remaining.checked_sub(used)?;
        // The price moved: the tick is the price's (computed when read); unmoved, it stays.
        let tick = if next != current { None } else { start.tick };
        Some((out, amount_in, fee, ClPoint { sqrt_price_x96: U256::from(next), tick, liquidity }))
    }

    /// The contract's swap loop, step by step (see [`Concentrated::swap_loop`]).
    fn swap_loop_general(
        &self,
        start: &ClPoint,
        amount_in: u128,
        direction: Direction,
    ) -> Result<(u128, u128, u128, ClPoint), PoolError> {
        let zero_for_one = direction == Direction::ZeroToOne;
        let limit = if zero_for_one { min_sqrt_ratio() + 1 } else { max_sqrt_ratio() - 1 };
        // The SDK asserts the limit lies beyond the current price; an unlimited swap from a price at the limit
        // moves nothing.
        let movable = if zero_for_one { limit < start.sqrt_price_x96 } else { limit > start.sqrt_price_x96 };
        let fee = u128::from(self.lp_fee);
        let mut remaining = amount_in;
        let mut out = 0u128;
        let mut fees = 0u128;
        let mut price = start.sqrt_price_x96;
        let mut tick = start.tick;
        let mut liquidity = start.liquidity;
        while movable && remaining != 0 && price != limit {
            let step_start = price;
            // Ticks of the map are within MIN_TICK..=MAX_TICK (checked in `new`), and so are the bounds.
            let (tick_next, net, next_price) = self.next_tick(tick, price, zero_for_one);
            let beyond = if zero_for_one { next_price < limit } else { next_price > limit };
            let target = if beyond { limit } else { next_price };
            let step = swap_step(price, target, liquidity, remaining, fee)?;
            price = step.next;
            // The step never takes more than what remains (amount_in ≤ less-fee ≤ remaining, and the fee is
            // the rest or a ceiling that the contract's check keeps within it); checked anyway.
            remaining = step
                .amount_in
                .checked_add(step.fee)
                .and_then(|used| remaining.checked_sub(used))
                .ok_or(PoolError::Overflow)?;
            out = out.checked_add(step.amount_out).ok_or(PoolError::Overflow)?;
            fees = fees.checked_add(step.fee).ok_or(PoolError::Overflow)?;
            if price == next_price {
                if let Some(net) = net {
                    let delta = if zero_for_one { net.checked_neg().ok_or(PoolError::Overflow)? } else { net };
                    liquidity = add_delta(liquidity, delta)?;
                }
                tick = Some(if zero_for_one { tick_next - 1 } else { tick_next });
            } else if price != step_start {
                // The contract's `getTickAtSqrtRatio(price)`, computed when the state is read.
                tick = None;
            }
        }
        Ok((out, amount_in - remaining, fees, ClPoint { sqrt_price_x96: price, tick, liquidity }))
    }

    /// [`Concentrated::swap_from`] with a router's refusals: an amount of 0 or from 2^120, a swap that pays
    /// nothing ([`PoolError::ZeroOutput`], or [`PoolError::EmptyPool`] when the pool has no liquidity at all)
    /// and one that stops at the price limit with input left ([`PoolError::PriceLimitReached`]). Returns
    /// the swap as the other curves report it (virtual reserves after) and the state after.
    pub fn swap_exact_in(
        &self,
        state: &ClState,
        amount_in: u128,
        direction: Direction,
    ) -> Result<(SwapResult, ClState), PoolError> {
        let (amount_out, after) = self.swap_exact_in_point(&ClPoint::from(*state), amount_in, direction)?;
        let after = after.state()?;
        let result =
            SwapResult { amount_out, protocol_fee_out: 0, ref_fee_out: 0, reserves_after: virtual_reserves(&after) };
        Ok((result, after))
    }

    /// [`Concentrated::swap_exact_in`] from and to a [`ClPoint`], without the virtual reserves: the amount out
    /// and the point after. For the router's joint simulation, which continues from the point and never
    /// reads the reserve pair (a 512-bit division) nor the tick of a price inside a range (a logarithm and
    /// two ratios). The point is checked as [`Concentrated::swap_from`] checks a state.
    pub(crate) fn swap_exact_in_point(
        &self,
        start: &ClPoint,
        amount_in: u128,
        direction: Direction,
    ) -> Result<(u128, ClPoint), PoolError> {
        if amount_in == 0 {
            return Err(PoolError::ZeroInput);
        }
        if amount_in > MAX_COINS {
            return Err(PoolError::AmountTooLarge(amount_in));
        }
        if let Some(tick) = start.tick {
            check_tick(tick)?;
        }
        check_price(start.sqrt_price_x96)?;
        let (out, used, _, after) = self.swap_loop(start, amount_in, direction)?;
        if out == 0 {
            if start.liquidity == 0 && self.ticks.iter().all(|t| t.liquidity_gross == 0) {
                return Err(PoolError::EmptyPool);
            }
            return Err(PoolError::ZeroOutput);
        }
        if used < amount_in {
            return Err(PoolError::PriceLimitReached { amount_in_used: used });
        }
        Ok((out, after))
    }

    /// Marginal rate out/in at zero size before fees, as a float (ranking only).
    pub fn spot_price(&self, direction: Direction) -> f64 {
        let p = u256_to_f64(self.state.sqrt_price_x96) / 2f64.powi(96);
        match direction {
            Direction::ZeroToOne => p * p,
            Direction::OneToZero => 1.0 / (p * p),
        }
    }

    /// The next initialized tick from the dictionary, its `liquidity_net` and its sqrt ratio;
    /// `MIN_TICK`/`MAX_TICK` with no net when there is none.
    ///
    /// The dictionary is split at the current tick (`<= tick` below). A tick not computed is
    /// `T = tick_at_sqrt_ratio(price)`, the greatest tick with `ratio(T) ≤ price`; as the ratio is strictly
    /// increasing, an initialized tick `t` has `t ≤ T` exactly when `ratio(t) ≤ price`, so the split is read
    /// from the ratios kept with the map instead.
    #[inline]
    fn next_tick(&self, tick: Option<i32>, price: U256, zero_for_one: bool) -> (i32, Option<i128>, U256) {
        let i = match tick {
            Some(tick) => self.ticks.partition_point(|t| t.tick <= tick),
            None => self.tick_ratios.partition_point(|r| *r <= price),
        };
        let at = |j: usize| (self.ticks[j].tick, Some(self.ticks[j].liquidity_net), self.tick_ratios[j]);
        if zero_for_one {
            match i.checked_sub(1) {
                Some(j) => at(j),
                None => (MIN_TICK, None, min_sqrt_ratio()),
            }
        } else if i < self.ticks.len() {
            at(i)
        } else {
            (MAX_TICK, None, max_sqrt_ratio())
        }
    }
}

fn check_state(state: &ClState) -> Result<(), PoolError> {
    check_tick(state.tick)?;
    check_price(state.sqrt_price_x96)
}

/// `LiquidityMath.addDelta`; active liquidity below zero means a tick map that contradicts the state.
#[inline]
fn add_delta(liquidity: u128, delta: i128) -> Result<u128, PoolError> {
    if delta < 0 {
        liquidity.checked_sub(delta.unsigned_abs()).ok_or(PoolError::InvalidTickMap)
    } else {
        liquidity.checked_add(delta.unsigned_abs()).ok_or(PoolError::Overflow)
    }
}

/// Virtual reserves of the active range: `x = L·2^96/√P`, `y = L·√P/2^96` (floors), scaled down together
/// when one exceeds 2^120 − 1 so that their ratio — the price — stays. Float ranking only.
pub fn virtual_reserves(state: &ClState) -> [u128; 2] {
    if state.liquidity == 0 || state.sqrt_price_x96.is_zero() {
        return [0, 0];
    }
    let l = U512::from(state.liquidity);
    let p = U512::from(state.sqrt_price_x96);
    let x = (l << 96) / p;
    let y = (l * p) >> 96;
    let cap = U512::from(MAX_COINS);
    let biggest = x.max(y);
    let (x, y) = if biggest > cap { (x * cap / biggest, y * cap / biggest) } else { (x, y) };
    // Both are at most MAX_COINS now.
    [x.low_u128(), y.low_u128()]
}

#[cfg(test)]
mod tests {
    use super::*;

    // The word-arithmetic tests' reproducible pseudo-random numbers.
    use crate::pool::math::tests::{next, random as random_u256};

    #[test]
    fn the_inside_step_matches_the_loop() {
        let mut x = 0x5851_f42d_4c95_7f2du64;
        let mut inside = 0;
        for i in 0..20_000 {
            // Ticks spaced around a price below 2^128 (√P up to 2^32), liquidity and amounts of any size.
            let spacing = 1 + (next(&mut x) % 200) as i32;
            let centre = (next(&mut x) % 600_000) as i32 - 400_000;
            let ticks: Vec<Tick> = (-3..=3)
                .map(|k| centre / spacing * spacing + k * spacing * (1 + (next(&mut x) % 20) as i32))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .filter(|t| (MIN_TICK..=MAX_TICK).contains(t))
                .map(|tick| Tick { tick, liquidity_net: 0, liquidity_gross: 1 })
                .collect();
            let liquidity = random_u256(&mut x, 127).low_u128();
            let tick = centre + (next(&mut x) % 50) as i32 - 25;
            let low = sqrt_ratio_at_tick(tick).unwrap();
            let high = sqrt_ratio_at_tick(tick + 1).unwrap();
            let price = low + random_u256(&mut x, 256) % (high - low);
            // Some states carry the tick, some leave it to the price (as after an inside step).
            let start = ClPoint { sqrt_price_x96: price, tick: (i % 2 == 0).then_some(tick), liquidity };
            let fee = (next(&mut x) % 300) as u16;
            let pool = Concentrated::new(fee, 0, 1, ticks, ClState { sqrt_price_x96: price, tick, liquidity }).unwrap();
            let amount = random_u256(&mut x, 120).low_u128();
            let general = pool.swap_loop_general(&start, amount, Direction::OneToZero);
            if let Some(fast) = pool.inside_step_up(&start, amount) {
                inside += 1;
                assert_eq!(Ok(fast), general, "{start:?} {amount} {fee}");
            }
            assert_eq!(pool.swap_loop(&start, amount, Direction::OneToZero), general);
        }
        assert!(inside > 5_000, "{inside}");
    }

    #[test]
    fn bad_pools_are_refused() {
        let state = ClState { sqrt_price_x96: U256::one() << 96, tick: 0, liquidity: 1 };
        let t = |tick, net: i128, gross| Tick { tick, liquidity_net: net, liquidity_gross: gross };
        assert_eq!(Concentrated::new(10_000, 0, 1, vec![], state), Err(PoolError::FeeOutOfRange(10_000)));
        assert_eq!(
            Concentrated::new(30, 0, 1, vec![t(-887_273, 1, 1)], state),
            Err(PoolError::TickOutOfRange(-887_273))
        );
        assert_eq!(Concentrated::new(30, 0, 1, vec![t(5, 1, 1), t(5, -1, 1)], state), Err(PoolError::InvalidTickMap));
        assert_eq!(Concentrated::new(30, 0, 1, vec![t(5, 2, 1)], state), Err(PoolError::InvalidTickMap));
        let bad = ClState { tick: 900_000, ..state };
        assert_eq!(Concentrated::new(30, 0, 1, vec![], bad), Err(PoolError::TickOutOfRange(900_000)));
        let bad = ClState { sqrt_price_x96: U256::one(), ..state };
        assert_eq!(Concentrated::new(30, 0, 1, vec![], bad), Err(PoolError::SqrtPriceOutOfRange));
    }
}
