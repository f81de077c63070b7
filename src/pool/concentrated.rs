//! Concentrated liquidity as the `dex_c` (TONCO) pool contract computes it: Uniswap-v3 math with a Q64.96
//! square-root price, ticks and per-range liquidity, the fee in 1/10000 (research/pool-math.md §3).
//!
//! Owns the TONCO integer math — `TickMath`, `SqrtPriceMath`, `SwapMath::computeSwapStep`, `FullMath` in
//! `U256`/`U512` — and the swap loop with tick crossing. It must not know about graphs or routes.
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

use std::sync::Arc;

use primitive_types::{U256, U512};

use super::math::{from_words, mul_high, word, words, WordDivisor};
use super::{Direction, PoolError, SwapResult, FEE_DIVIDER, MAX_COINS};

/// Lowest tick of the contract (`TickMath.MIN_TICK`).
pub const MIN_TICK: i32 = -887_272;
/// Highest tick of the contract.
pub const MAX_TICK: i32 = 887_272;

/// `getSqrtRatioAtTick(MIN_TICK)`: the lowest sqrt price.
pub fn min_sqrt_ratio() -> U256 {
    U256::from(4_295_128_739u64)
}

/// `getSqrtRatioAtTick(MAX_TICK)`: one above the highest sqrt price a pool can hold.
pub fn max_sqrt_ratio() -> U256 {
    // 1461446703485210103287273052203988822378723970342 = 0xfffd8963efd1fc6a506488495d951d5263988d26.
    U256([0x5d951d5263988d26, 0xefd1fc6a50648849, 0xfffd8963, 0])
}

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
/// use tonroute::pool::concentrated::{ClState, Concentrated};
/// use tonroute::pool::Direction;
/// // research/pool-math.md §3: L = 1e18, P = 2^96, tick 0, fee 30, 1e9 token0 in → 996999999.
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

/// Ticks beyond ±887272 are the contract's exit code 91.
#[inline]
fn check_tick(tick: i32) -> Result<(), PoolError> {
    if (MIN_TICK..=MAX_TICK).contains(&tick) {
        Ok(())
    } else {
        Err(PoolError::TickOutOfRange(tick))
    }
}

fn check_state(state: &ClState) -> Result<(), PoolError> {
    check_tick(state.tick)?;
    check_price(state.sqrt_price_x96)
}

#[inline]
fn check_price(sqrt_price_x96: U256) -> Result<(), PoolError> {
    if sqrt_price_x96 < min_sqrt_ratio() || sqrt_price_x96 >= max_sqrt_ratio() {
        return Err(PoolError::SqrtPriceOutOfRange);
    }
    Ok(())
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

fn u256_to_f64(v: U256) -> f64 {
    let mut f = 0.0;
    for word in v.0.iter().rev() {
        f = f * 18_446_744_073_709_551_616.0 + *word as f64;
    }
    f
}

// ---- FullMath ----

/// `FullMath.mulDivRoundingUp` (SDK: exact big-integer product, ceiling quotient); the result must fit 256 bits.
#[inline]
fn mul_div_up(a: U256, b: U256, d: U256) -> Result<U256, PoolError> {
    if d.is_zero() {
        return Err(PoolError::Overflow);
    }
    // The same quotient; 256-bit division is much cheaper than 512-bit when the product fits.
    if let (p, false) = a.overflowing_mul(b) {
        return div_up(p, d);
    }
    let (q, r) = a.full_mul(b).div_mod(U512::from(d));
    let q = if r.is_zero() { q } else { q + 1 };
    U256::try_from(q).map_err(|_| PoolError::Overflow)
}

/// Floor of `a·b/d` with a 512-bit product.
#[inline]
fn mul_div(a: U256, b: U256, d: U256) -> Result<U256, PoolError> {
    if d.is_zero() {
        return Err(PoolError::Overflow);
    }
    if let (p, false) = a.overflowing_mul(b) {
        return Ok(p / d);
    }
    U256::try_from(a.full_mul(b) / U512::from(d)).map_err(|_| PoolError::Overflow)
}

#[inline]
fn div_up(a: U256, d: U256) -> Result<U256, PoolError> {
    if d.is_zero() {
        return Err(PoolError::Overflow);
    }
    let (q, r) = a.div_mod(d);
    Ok(if r.is_zero() { q } else { q + 1 })
}

// ---- TickMath ----

/// The factors of `TickMath.getSqrtRatioAtTick`: for each bit of |tick| from 0x2 up, the 128-bit fixed-point
/// multiplier the contract applies when that bit is set.
static TICK_FACTORS: [(u32, u128); 19] = [
    (0x2, 0xfff97272373d413259a46990580e213a),
    (0x4, 0xfff2e50f5f656932ef12357cf3c7fdcc),
    (0x8, 0xffe5caca7e10e4e61c3624eaa0941cd0),
    (0x10, 0xffcb9843d60f6159c9db58835c926644),
    (0x20, 0xff973b41fa98c081472e6896dfb254c0),
    (0x40, 0xff2ea16466c96a3843ec78b326b52861),
    (0x80, 0xfe5dee046a99a2a811c461f1969c3053),
    (0x100, 0xfcbe86c7900a88aedcffc83b479aa3a4),
    (0x200, 0xf987a7253ac413176f2b074cf7815e54),
    (0x400, 0xf3392b0822b70005940c7a398e4b70f3),
    (0x800, 0xe7159475a2c29b7443b29c7fa6e889d9),
    (0x1000, 0xd097f3bdfd2022b8845ad8f792aa5825),
    (0x2000, 0xa9f746462d870fdf8a65dc1f90e061e5),
    (0x4000, 0x70d869a156d2a1b890bb3df62baf32f7),
    (0x8000, 0x31be135f97d08fd981231505542fcfa6),
    (0x10000, 0x9aa508b5b7a84e1c677de54f3e99bc9),
    (0x20000, 0x5d6af8dedb81196699c329225ee604),
    (0x40000, 0x2216e584f5fa1ea926041bedfe98),
    (0x80000, 0x48a170391f7dc42444e8fa2),
];

/// `TickMath.getSqrtRatioAtTick`: √1.0001^tick · 2^96, rounded up.
///
/// The contract's algorithm step for step, in 128-bit words: its `ratio` starts at `2^128` or a constant
/// below it, and each `(ratio · factor) >> 128` with a factor below `2^128` keeps it below `2^128` (the
/// first product from `2^128` is the factor itself), so every step is [`mul_high`] of two `u128`s instead
/// of a 256-bit multiplication. A swap computes this for every tick it reaches and twice for the tick it
/// stops in ([`tick_at_sqrt_ratio`]). `tests::sqrt_ratio_at_tick_matches_the_u256_port` checks it against
/// the 256-bit transcription.
pub fn sqrt_ratio_at_tick(tick: i32) -> Result<U256, PoolError> {
    check_tick(tick)?;
    let ratio = match tick_ratio(tick.unsigned_abs()) {
        // tick 0: 2^128 >> 32, no remainder.
        None => return Ok(U256::one() << 96),
        Some(r) => r,
    };
    // ratio > 0: every factor keeps it positive for |tick| ≤ MAX_TICK.
    let ratio = if tick > 0 { U256::MAX / U256::from(ratio) } else { U256::from(ratio) };
    // Shift right by 32, rounding up.
    let q = ratio >> 32;
    Ok(if ratio.low_u32() == 0 { q } else { q + 1 })
}

/// The contract's `ratio` of `getSqrtRatioAtTick` for |tick| = `abs` before the inversion of positive ticks
/// and the rounding shift: below 2^128, or `None` for exactly 2^128 (tick 0).
#[inline]
fn tick_ratio(abs: u32) -> Option<u128> {
    // None: exactly 2^128 (the contract's start for an even |tick|).
    let mut ratio: Option<u128> = (abs & 1 != 0).then_some(0xfffcb933bd6fad37aa2d162d1a594001u128);
    for &(bit, by) in TICK_FACTORS.iter() {
        if abs & bit != 0 {
            ratio = Some(ratio.map_or(by, |r| mul_high(r, by)));
        }
    }
    ratio
}

/// `sqrt_ratio_at_tick(tick) <= price` for a tick in range and a price below 2^160, without the ratio's
/// 256-bit division. With `r` the [`tick_ratio`] and integers throughout: `⌈r/2^32⌉ ≤ p ⟺ r ≤ p·2^32`; and
/// for a positive tick `⌈⌊(2^256 − 1)/r⌋/2^32⌉ ≤ p ⟺ ⌊(2^256 − 1)/r⌋ ≤ p·2^32 ⟺ 2^256 − 1 < (p·2^32 + 1)·r`,
/// i.e. that product does not fit 256 bits. In 128-bit words: `p·2^32 = h·2^128 + l` with `h < 2^64` and the
/// low 32 bits of `l` clear, so `(p·2^32 + 1)·r = (h·r + ⌊(l + 1)·r / 2^128⌋)·2^128 + …` reaches 2^256 when
/// that sum reaches 2^128.
#[inline]
fn ratio_at_most(tick: i32, price: U256) -> bool {
    debug_assert!(check_tick(tick).is_ok() && price.bits() <= 160);
    let (high, low) = words(price);
    let (high, low) = (high << 32 | low >> 96, low << 32);
    match tick_ratio(tick.unsigned_abs()) {
        None => high != 0,
        Some(r) if tick < 0 => high != 0 || r <= low,
        Some(r) => high.checked_mul(r).and_then(|v| v.checked_add(mul_high(low | 1, r))).is_none(),
    }
}

/// Arithmetic right shift of a two's-complement 256-bit value.
fn sar(v: U256, n: usize) -> U256 {
    if v.bit(255) {
        !((!v) >> n)
    } else {
        v >> n
    }
}

fn from_i128(v: i128) -> U256 {
    if v < 0 {
        !U256::from((!v) as u128)
    } else {
        U256::from(v as u128)
    }
}

/// Low 32 bits of a two's-complement 256-bit value as `i32` (the tick results are within ±887272).
fn to_i32(v: U256) -> i32 {
    v.low_u32() as i32
}

/// `TickMath.getTickAtSqrtRatio`: the greatest tick whose sqrt ratio is ≤ `sqrt_price_x96`.
///
/// That tick is what the contract's log₂ approximation ([`tick_at_sqrt_ratio_log2`]) returns for every price
/// in range (TickMath's specification, which its last comparison against `getSqrtRatioAtTick` ensures), and
/// [`sqrt_ratio_at_tick`] is strictly increasing; so a candidate `t` with `ratio(t) ≤ price < ratio(t + 1)`
/// is that tick. The candidate comes from the float logarithm (within one tick: the price's 53-bit mantissa
/// puts the float tick within ~1e-11 of the real one), and two exact comparisons with the ratios prove it
/// ([`ratio_at_most`]), at a tenth of the log₂ loop's cost; a swap that stops inside a range computes this
/// once. Should the float
/// ever miss by more than a tick, the contract's own algorithm answers.
pub fn tick_at_sqrt_ratio(sqrt_price_x96: U256) -> Result<i32, PoolError> {
    if sqrt_price_x96 < min_sqrt_ratio() || sqrt_price_x96 >= max_sqrt_ratio() {
        return Err(PoolError::SqrtPriceOutOfRange);
    }
    // tick = log_1.0001(price²) with price = √P·2^-96.
    let ln_price = libm::log(u256_to_f64(sqrt_price_x96)) - 96.0 * std::f64::consts::LN_2;
    let estimate = (2.0 * ln_price / libm::log(1.0001)).floor();
    // In range: MIN_TICK ≤ answer ≤ MAX_TICK − 1 (the price is below the ratio of MAX_TICK).
    let mut t = (estimate as i32).clamp(MIN_TICK, MAX_TICK - 1);
    let mut low = ratio_at_most(t, sqrt_price_x96);
    for _ in 0..2 {
        if !low {
            // t > MIN_TICK here: the ratio of MIN_TICK is at most any price in range.
            t -= 1;
            low = ratio_at_most(t, sqrt_price_x96);
            continue;
        }
        // t + 1 ≤ MAX_TICK, whose ratio exceeds any price in range.
        if !ratio_at_most(t + 1, sqrt_price_x96) {
            return Ok(t);
        }
        t += 1;
    }
    tick_at_sqrt_ratio_log2(sqrt_price_x96)
}

/// `TickMath.getTickAtSqrtRatio` as the contract computes it: log₂ by 14 squarings, the two candidate ticks
/// of its error bound, the higher one if its ratio is within the price. [`tick_at_sqrt_ratio`]'s fallback
/// and its reference in the tests.
fn tick_at_sqrt_ratio_log2(sqrt_price_x96: U256) -> Result<i32, PoolError> {
    if sqrt_price_x96 < min_sqrt_ratio() || sqrt_price_x96 >= max_sqrt_ratio() {
        return Err(PoolError::SqrtPriceOutOfRange);
    }
    let x128 = sqrt_price_x96 << 32;
    let msb = x128.bits() - 1;
    let mut r = if msb >= 128 { x128 >> (msb - 127) } else { x128 << (127 - msb) };
    // msb < 192, so (msb − 128) · 2^64 fits i128.
    let mut log2: i128 = (msb as i128 - 128) << 64;
    for i in 0..14 {
        // r < 2^128, so r² < 2^256.
        r = r.overflowing_mul(r).0 >> 127;
        let f = (r >> 128).low_u32();
        log2 |= i128::from(f) << (63 - i);
        r >>= f as usize;
    }
    let log_sqrt10001 = from_i128(log2).overflowing_mul(U256::from(255_738_958_999_603_826_347_141u128)).0;
    let low_c = U256::from(3_402_992_956_809_132_418_596_140_100_660_247_210u128);
    let high_c = U256::from(291_339_464_771_989_622_907_027_621_153_398_088_495u128);
    let tick_low = to_i32(sar(log_sqrt10001.overflowing_sub(low_c).0, 128));
    let tick_high = to_i32(sar(log_sqrt10001.overflowing_add(high_c).0, 128));
    if tick_low == tick_high {
        return Ok(tick_low);
    }
    Ok(if sqrt_ratio_at_tick(tick_high)? <= sqrt_price_x96 { tick_high } else { tick_low })
}

// ---- SqrtPriceMath ----

/// `getAmount0Delta`: `L·2^96·(B − A)/B/A`, up (nested ceilings) or down.
fn amount0_delta(a: U256, b: U256, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    let (a, b) = if a > b { (b, a) } else { (a, b) };
    if b.bits() <= 128 && !a.is_zero() {
        return amount0_delta_words(a.low_u128(), b.low_u128(), liquidity, up);
    }
    amount0_delta_wide(a, b, liquidity, up)
}

/// [`amount0_delta`] in 256/512-bit arithmetic, for ordered prices of any size.
fn amount0_delta_wide(a: U256, b: U256, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    let n1 = U256::from(liquidity) << 96;
    let n2 = b - a;
    if up {
        div_up(mul_div_up(n1, n2, b)?, a)
    } else {
        let q = mul_div(n1, n2, b)?;
        if a.is_zero() {
            return Err(PoolError::Overflow);
        }
        Ok(q / a)
    }
}

/// [`amount0_delta`] for prices `0 < a ≤ b < 2^128` (√P below 2^32, every pool with a price below 2^64):
/// `n1·n2 = L·(b − a)·2^96` is three 128-bit words, divided by `b` word by word, the quotient (which must fit
/// 256 bits, as `mul_div` requires) then by `a`; floors, or ceilings at both divisions for `up`.
fn amount0_delta_words(a: u128, b: u128, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    let n2 = b - a;
    let (high, low) = (mul_high(liquidity, n2), liquidity.wrapping_mul(n2));
    // (high·2^128 + low)·2^96 as words w2·2^256 + w1·2^128 + w0.
    let (w2, w1, w0) = (high >> 32, high << 96 | low >> 32, low << 96);
    if w2 >= b {
        // The quotient by b needs more than 256 bits: `mul_div`'s overflow.
        return Err(PoolError::Overflow);
    }
    let by_b = WordDivisor::new(b);
    let (q1, r) = by_b.div_words(w2, w1);
    let (q0, r) = by_b.div_words(r, w0);
    let q = from_words(q1, q0);
    let q = if up && r != 0 { q.checked_add(U256::one()).ok_or(PoolError::Overflow)? } else { q };
    let (q, r) = WordDivisor::new(a).div_u256(q);
    Ok(if up && r != 0 { q + 1 } else { q })
}

/// `getAmount1Delta`: `L·(B − A)/2^96`, up or down.
fn amount1_delta(a: U256, b: U256, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    let (a, b) = if a > b { (b, a) } else { (a, b) };
    let d = b - a;
    if d.bits() <= 128 {
        // The usual case (prices within a factor 2^32 of each other): a 128 × 128-bit product, whose
        // quotient by 2^96 is below 2^160; the same shift and rounding as below, in words.
        let d = d.low_u128();
        let (high, low) = (mul_high(liquidity, d), liquidity.wrapping_mul(d));
        let floor = U256([(low >> 96 | high << 32) as u64, (high >> 32) as u64, (high >> 96) as u64, 0]);
        let exact = low & ((1u128 << 96) - 1) == 0;
        return Ok(if up && !exact { floor + 1 } else { floor });
    }
    amount1_delta_wide(d, liquidity, up)
}

/// [`amount1_delta`] of a price difference `d` in 512-bit arithmetic.
fn amount1_delta_wide(d: U256, liquidity: u128, up: bool) -> Result<U256, PoolError> {
    // Dividing by 2^96 is a shift: floor is `>> 96`, ceiling adds one when any of the low 96 bits is set.
    let p = U256::from(liquidity).full_mul(d);
    let floor = p >> 96;
    let q = if up && !(p & ((U512::one() << 96) - 1)).is_zero() { floor + 1 } else { floor };
    U256::try_from(q).map_err(|_| PoolError::Overflow)
}

/// `getNextSqrtPriceFromInput` (exact input; `L > 0`).
fn next_sqrt_price_from_input(p: U256, liquidity: u128, amount: U256, zero_for_one: bool) -> Result<U256, PoolError> {
    if zero_for_one {
        if amount.is_zero() {
            return Ok(p);
        }
        let n1 = U256::from(liquidity) << 96;
        // The SDK multiplies in 256 bits and falls back when the product or the sum wraps.
        let (product, wrapped) = amount.overflowing_mul(p);
        if !wrapped {
            let (den, wrapped) = n1.overflowing_add(product);
            if !wrapped {
                return mul_div_up(n1, p, den);
            }
        }
        let den = (n1 / p).checked_add(amount).ok_or(PoolError::Overflow)?;
        div_up(n1, den)
    } else {
        // (amount << 96) / L; amount < 2^120 keeps the shift within 256 bits.
        if liquidity == 0 {
            return Err(PoolError::Overflow);
        }
        let q = if amount.bits() <= 160 {
            WordDivisor::new(liquidity).div_u256(amount << 96).0
        } else {
            mul_div(amount, U256::one() << 96, U256::from(liquidity))?
        };
        p.checked_add(q).ok_or(PoolError::Overflow)
    }
}

// ---- SwapMath ----

/// The input less the fee, `⌊remaining·(D − fee)/D⌋`, in 128 bits: with `remaining = q·D + s` it is
/// `q·(D − fee) + ⌊s·(D − fee)/D⌋` (`q·(D − fee)` is below `remaining`, `s·(D − fee)` below D²), the
/// contract's 256-bit product and quotient; `D` divides through its reciprocal, made at compile time.
#[inline]
fn less_fee(remaining: u128, fee: u128) -> u128 {
    const BY_D: WordDivisor = WordDivisor::new(FEE_DIVIDER);
    let m = FEE_DIVIDER - fee;
    let (q, s) = BY_D.div_words(0, remaining);
    q * m + (s * m) / FEE_DIVIDER
}

struct Step {
    next: U256,
    amount_in: u128,
    amount_out: u128,
    fee: u128,
}

fn small(v: U256) -> Result<u128, PoolError> {
    u128::try_from(v).map_err(|_| PoolError::Overflow)
}

/// `SwapMath.computeSwapStep`, exact input, fee in 1/10000.
fn swap_step(current: U256, target: U256, liquidity: u128, remaining: u128, fee: u128) -> Result<Step, PoolError> {
    let zero_for_one = current >= target;
    // ⌊remaining·m/D⌋ with m = D − fee, in 128 bits: remaining = q·D + s gives q·m + ⌊s·m/D⌋ (q·m is below
    // remaining, s·m below D²), the contract's 256-bit product and quotient without a 256-bit division.
    let less_fee = U256::from(less_fee(remaining, fee));
    let to_target = if zero_for_one {
        amount0_delta(target, current, liquidity, true)?
    } else {
        amount1_delta(current, target, liquidity, true)?
    };
    let next = if less_fee >= to_target {
        target
    } else {
        next_sqrt_price_from_input(current, liquidity, less_fee, zero_for_one)?
    };
    let max = next == target;
    let (amount_in, amount_out) = if zero_for_one {
        let i = if max { to_target } else { amount0_delta(next, current, liquidity, true)? };
        (i, amount1_delta(next, current, liquidity, false)?)
    } else {
        let i = if max { to_target } else { amount1_delta(current, next, liquidity, true)? };
        (i, amount0_delta(current, next, liquidity, false)?)
    };
    // Either amount_in ≤ less_fee ≤ remaining, or the step stops short and amount_in ≤ less_fee by the
    // choice of `next`.
    let amount_in = small(amount_in)?;
    let fee_amount = if next != target {
        remaining.checked_sub(amount_in).ok_or(PoolError::Overflow)?
    } else {
        small(mul_div_up(U256::from(amount_in), U256::from(fee), U256::from(FEE_DIVIDER - fee))?)?
    };
    Ok(Step { next, amount_in, amount_out: small(amount_out)?, fee: fee_amount })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mul_shift(ratio: U256, by: u128) -> U256 {
        // ratio ≤ 2^128 and by < 2^128: the product is below 2^256, so the 256-bit product is exact.
        ratio.overflowing_mul(U256::from(by)).0 >> 128
    }

    /// The 256-bit transcription of `TickMath.getSqrtRatioAtTick` that [`sqrt_ratio_at_tick`] replaced.
    fn sqrt_ratio_at_tick_u256(tick: i32) -> Result<U256, PoolError> {
        check_tick(tick)?;
        let abs = tick.unsigned_abs();
        let mut ratio =
            if abs & 1 != 0 { U256::from(0xfffcb933bd6fad37aa2d162d1a594001u128) } else { U256::one() << 128 };
        for &(bit, by) in TICK_FACTORS.iter() {
            if abs & bit != 0 {
                ratio = mul_shift(ratio, by);
            }
        }
        if tick > 0 {
            // ratio > 0: every factor keeps it positive for |tick| ≤ MAX_TICK.
            ratio = U256::MAX / ratio;
        }
        let (q, r) = ratio.div_mod(U256::one() << 32);
        Ok(if r.is_zero() { q } else { q + 1 })
    }

    // The word-arithmetic tests' reproducible pseudo-random numbers.
    use crate::pool::math::tests::{next, random as random_u256};

    #[test]
    fn the_word_paths_of_the_deltas_match_the_wide_ones() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..100_000 {
            // Prices below 2^128 (the word paths' domain), near each other or not, liquidity of any size.
            let a = random_u256(&mut x, 128).max(U256::one());
            let b = if i % 2 == 0 { a + random_u256(&mut x, 100) } else { random_u256(&mut x, 128).max(a) };
            let b = if b.bits() > 128 { a } else { b };
            let liquidity = random_u256(&mut x, 128).low_u128();
            for up in [false, true] {
                assert_eq!(
                    amount0_delta(a, b, liquidity, up),
                    amount0_delta_wide(a, b, liquidity, up),
                    "{a} {b} {liquidity} {up}"
                );
                assert_eq!(amount1_delta(a, b, liquidity, up), amount1_delta_wide(b - a, liquidity, up));
            }
            let amount = random_u256(&mut x, 160);
            let want = if liquidity == 0 {
                Err(PoolError::Overflow)
            } else {
                mul_div(amount, U256::one() << 96, U256::from(liquidity))
                    .and_then(|q| a.checked_add(q).ok_or(PoolError::Overflow))
            };
            assert_eq!(next_sqrt_price_from_input(a, liquidity, amount, false), want);
        }
    }

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
    fn tick_math_end_points() {
        assert_eq!(sqrt_ratio_at_tick(MIN_TICK).unwrap(), min_sqrt_ratio());
        assert_eq!(sqrt_ratio_at_tick(MAX_TICK).unwrap(), max_sqrt_ratio());
        assert_eq!(max_sqrt_ratio().to_string(), "1461446703485210103287273052203988822378723970342");
        assert_eq!(sqrt_ratio_at_tick(0).unwrap(), U256::one() << 96);
        assert_eq!(tick_at_sqrt_ratio(min_sqrt_ratio()).unwrap(), MIN_TICK);
        assert_eq!(tick_at_sqrt_ratio(max_sqrt_ratio() - 1).unwrap(), MAX_TICK - 1);
        assert_eq!(sqrt_ratio_at_tick(MAX_TICK + 1), Err(PoolError::TickOutOfRange(MAX_TICK + 1)));
        assert_eq!(tick_at_sqrt_ratio(max_sqrt_ratio()), Err(PoolError::SqrtPriceOutOfRange));
    }

    #[test]
    fn sqrt_ratio_at_tick_matches_the_u256_port() {
        // Every tick near the middle, a stride over the whole range, and the ends (the full range, 1.77M
        // ticks, was compared once in release).
        let ticks = (-20_000..=20_000).chain((MIN_TICK..=MAX_TICK).step_by(97)).chain([MIN_TICK, MAX_TICK]);
        for t in ticks {
            assert_eq!(sqrt_ratio_at_tick(t), sqrt_ratio_at_tick_u256(t), "tick {t}");
        }
        assert_eq!(sqrt_ratio_at_tick(MAX_TICK + 1), sqrt_ratio_at_tick_u256(MAX_TICK + 1));
        assert_eq!(sqrt_ratio_at_tick(MIN_TICK - 1), sqrt_ratio_at_tick_u256(MIN_TICK - 1));
    }

    /// The whole tick range, both TickMath functions against their contract transcriptions (seconds in
    /// release: `cargo test --release --lib -- --ignored tick_math_whole_range`).
    #[test]
    #[ignore]
    fn tick_math_whole_range() {
        for t in MIN_TICK..=MAX_TICK {
            let p = sqrt_ratio_at_tick_u256(t).unwrap();
            assert_eq!(sqrt_ratio_at_tick(t), Ok(p), "tick {t}");
            assert!(ratio_at_most(t, p) && !ratio_at_most(t, p - 1), "tick {t}");
            if t < MAX_TICK {
                assert_eq!(tick_at_sqrt_ratio(p), tick_at_sqrt_ratio_log2(p), "tick {t}");
                assert_eq!(tick_at_sqrt_ratio(p - 1), tick_at_sqrt_ratio_log2(p - 1), "tick {t}");
            }
        }
    }

    #[test]
    fn tick_at_sqrt_ratio_matches_the_contracts_log2() {
        // At, just below and just above tick ratios, midway between neighbours, and pseudo-random prices
        // over the whole range.
        let ticks = (-3_000..=3_000).chain((MIN_TICK..MAX_TICK).step_by(211)).chain([MIN_TICK, MAX_TICK - 1]);
        for t in ticks {
            let (p, next) = (sqrt_ratio_at_tick(t).unwrap(), sqrt_ratio_at_tick(t + 1).unwrap());
            for price in [p, p + 1, p - 1, (p + next) / 2, next - 1] {
                assert_eq!(tick_at_sqrt_ratio(price), tick_at_sqrt_ratio_log2(price), "{price}");
                assert_eq!(ratio_at_most(t, price), p <= price, "{t} {price}");
                assert_eq!(ratio_at_most(t + 1, price), next <= price, "{t} {price}");
            }
        }
        let (lo, hi) = (min_sqrt_ratio(), max_sqrt_ratio());
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // A price with a random number of significant bits, so every order of magnitude is hit.
            let bits = 32 + (x % 129) as usize;
            let words = [x, x.rotate_left(21), x.rotate_left(42), 0];
            let price = (U256(words) >> (256 - bits)).max(lo).min(hi - 1);
            assert_eq!(tick_at_sqrt_ratio(price), tick_at_sqrt_ratio_log2(price), "{price}");
        }
        assert_eq!(tick_at_sqrt_ratio(hi), tick_at_sqrt_ratio_log2(hi));
        assert_eq!(tick_at_sqrt_ratio(lo - 1), tick_at_sqrt_ratio_log2(lo - 1));
    }

    #[test]
    fn tick_at_ratio_inverts_ratio_at_tick() {
        for t in [-887_271, -200_000, -60, -1, 0, 1, 59, 60, 12_345, 200_000, 887_271] {
            let p = sqrt_ratio_at_tick(t).unwrap();
            assert_eq!(tick_at_sqrt_ratio(p).unwrap(), t);
            assert_eq!(tick_at_sqrt_ratio(p - 1).unwrap(), t - 1);
        }
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
