//! What a quote says: routes, steps with exact amounts, fees, price impact, improvement, min-out.

use tonlib_core::TonAddress;

use crate::asset::Asset;
use crate::graph::{PoolId, Protocol};
use crate::pool::Direction;

/// What to quote. Build with [`QuoteRequest::new`] and adjust the public fields; [`crate::route::Router`]
/// validates them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteRequest {
    /// The asset offered.
    pub in_asset: Asset,
    /// The asset wanted.
    pub out_asset: Asset,
    /// Amount of `in_asset` offered, smallest units, 1..2^120.
    pub amount: u128,
    /// Most parallel routes, 1..=20 (default 4).
    pub max_splits: usize,
    /// Most hops per route, 1..=5 (default 3).
    pub max_length: usize,
    /// Slippage tolerance for min-out, 0..=10000 bps (default 100 = 1 %).
    pub slippage_bps: u32,
}

impl QuoteRequest {
    /// Default `max_splits`.
    pub const DEFAULT_MAX_SPLITS: usize = 4;
    /// Default `max_length`.
    pub const DEFAULT_MAX_LENGTH: usize = 3;
    /// Default `slippage_bps`.
    pub const DEFAULT_SLIPPAGE_BPS: u32 = 100;
    /// Largest `max_splits`.
    pub const MAX_SPLITS: usize = 20;
    /// Largest `max_length`.
    pub const MAX_LENGTH: usize = 5;

    /// A request with the default limits and slippage.
    pub fn new(in_asset: Asset, out_asset: Asset, amount: u128) -> QuoteRequest {
        QuoteRequest {
            in_asset,
            out_asset,
            amount,
            max_splits: Self::DEFAULT_MAX_SPLITS,
            max_length: Self::DEFAULT_MAX_LENGTH,
            slippage_bps: Self::DEFAULT_SLIPPAGE_BPS,
        }
    }
}

/// One hop of a route: one pool swap.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The pool.
    pub pool: PoolId,
    /// The pool's address.
    pub pool_address: TonAddress,
    /// The pool's exchange.
    pub protocol: Protocol,
    /// Whether the pool's curve is a stable one.
    pub is_stable: bool,
    /// Which way the pool is traversed.
    pub direction: Direction,
    /// Asset in.
    pub in_asset: Asset,
    /// Asset out.
    pub out_asset: Asset,
    /// Exact amount in.
    pub in_amount: u128,
    /// Exact amount out.
    pub out_amount: u128,
    /// Network fee attributed to this hop, nanotons.
    pub network_fee: u128,
}

/// A path with its own input: one on-chain message chain.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The hops, in order; each step's `out_asset` is the next step's `in_asset`.
    pub steps: Vec<Step>,
    /// Input of the first step.
    pub in_amount: u128,
    /// Output of the last step.
    pub out_amount: u128,
    /// Share of the request's amount, in percent (0..=100).
    pub in_percent: f64,
    /// Network fee of the route (sum of its steps'), nanotons.
    pub network_fee: u128,
    /// `floor(out_amount · (10000 − slippage_bps) / 10000)`.
    pub min_out: u128,
}

/// The answer to a [`QuoteRequest`].
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// Asset offered.
    pub in_asset: Asset,
    /// Asset received.
    pub out_asset: Asset,
    /// Amount offered (sum of the routes' inputs).
    pub in_amount: u128,
    /// Amount received (sum of the routes' outputs), simulated exactly with routes sharing pools applied
    /// in order.
    pub out_amount: u128,
    /// The routes, largest input first.
    pub routes: Vec<Route>,
    /// Output of the best single route for the whole amount (exact).
    pub best_single_out: u128,
    /// `(out_amount − best_single_out) / best_single_out`, as a fraction (0.001 = 0.1 %).
    pub improvement: f64,
    /// Loss against the spot rate of the best marginal path: `1 − out_amount / (in_amount · spot)`, a fraction.
    pub price_impact: f64,
    /// Spot rate (output units per input unit, after pool fees) of the best marginal path.
    pub spot_rate: f64,
    /// Sum of the routes' min-outs.
    pub min_out: u128,
    /// Slippage the min-outs were computed with.
    pub slippage_bps: u32,
    /// Total network fee, nanotons.
    pub network_fee: u128,
    /// Whether the quote can be executed (always true for a returned quote; the wire keeps the field).
    pub swap_is_possible: bool,
}
