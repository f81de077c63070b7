//! What a quote says: routes, steps with exact amounts, fees, price impact, improvement, min-out.

use tonlib_core::TonAddress;

use crate::asset::Asset;
use crate::graph::{PoolId, Protocol};
use crate::pool::Direction;

/// Whether `amount` is the input offered or the output wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SwapMode {
    /// `amount` is the input; the quote maximises the output (wire `exact_in`).
    #[default]
    ExactIn,
    /// `amount` is the output wanted; the quote finds the smallest input that yields at least it, on every
    /// route minimal to the unit (wire `exact_out`). The chain only executes exact-in swaps, so the messages
    /// send the quoted input with each route's min-out under the slippage; [`Quote::max_in`] tells how far
    /// the input could rise for the same output if the price moved by the slippage.
    ExactOut,
}

impl SwapMode {
    /// The wire token.
    pub fn as_str(self) -> &'static str {
        match self {
            SwapMode::ExactIn => "exact_in",
            SwapMode::ExactOut => "exact_out",
        }
    }
}

/// What to quote. Build with [`QuoteRequest::new`] and adjust the public fields; [`crate::route::Router`]
/// validates them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteRequest {
    /// The asset offered.
    pub in_asset: Asset,
    /// The asset wanted.
    pub out_asset: Asset,
    /// Exact-in: amount of `in_asset` offered; exact-out: amount of `out_asset` wanted. Smallest units,
    /// 1..2^120.
    pub amount: u128,
    /// Which of the two `amount` is.
    pub swap_mode: SwapMode,
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
            swap_mode: SwapMode::ExactIn,
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
    /// The request's mode.
    pub swap_mode: SwapMode,
    /// Amount offered (sum of the routes' inputs): the request's amount for exact-in, the smallest input
    /// that yields the wanted output for exact-out.
    pub in_amount: u128,
    /// `ceil(in_amount · (10000 + slippage_bps) / 10000)`: the most input the same output could need if the
    /// price moved by the slippage (informative for exact-out; for exact-in the input is fixed).
    pub max_in: u128,
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

/// `dex_b_*` addresses a step carries so that the swap can be built from `swap_data` alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DexBDetails {
    /// The router the pool belongs to.
    pub router: TonAddress,
    /// The router's jetton wallet for the step's input asset (pTON wallet for `native`).
    pub from_router_wallet: TonAddress,
    /// The router's jetton wallet for the step's output asset.
    pub to_router_wallet: TonAddress,
}

/// `dex_c` addresses and direction of a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DexCDetails {
    /// The router's jetton wallet for the input asset.
    pub from_router_wallet: TonAddress,
    /// The router's jetton wallet for the output asset.
    pub to_router_wallet: TonAddress,
    /// Whether the step swaps token0 for token1.
    pub zero_to_one: bool,
}

/// One step of `swap_data`: what the swap builder needs, and what it re-checks against the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapStep {
    /// The pool.
    pub pool_address: TonAddress,
    /// Its exchange.
    pub protocol: Protocol,
    /// Whether its curve is stable.
    pub is_stable: bool,
    /// Asset in.
    pub in_asset: Asset,
    /// Asset out.
    pub out_asset: Asset,
    /// Amount in (quoted).
    pub in_amount: u128,
    /// Amount out (quoted).
    pub out_amount: u128,
    /// Network fee of the step, nanotons.
    pub network_fee: u128,
    /// `dex_b_*` addresses, when known.
    pub dex_b: Option<DexBDetails>,
    /// `dex_c` addresses, when known.
    pub dex_c: Option<DexCDetails>,
}

/// The part of a quote that a swap request sends back: slippage and the routes' steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapData {
    /// Slippage for min-out, bps.
    pub slippage_bps: u32,
    /// Routes, each a list of steps.
    pub routes: Vec<Vec<SwapStep>>,
}

impl Quote {
    /// The `swap_data` of this quote, with the router addresses each step needs from the graph.
    pub fn swap_data(&self, graph: &crate::graph::PoolGraph) -> SwapData {
        let routes = self
            .routes
            .iter()
            .map(|r| {
                r.steps
                    .iter()
                    .map(|s| {
                        let meta = graph.pool(s.pool);
                        let (i, o) = (s.direction.in_index(), 1 - s.direction.in_index());
                        let wallets = meta.context.router_wallets.as_ref();
                        let dex_b = match (s.protocol, &meta.context.router, wallets) {
                            (Protocol::DexBV1 | Protocol::DexBV2, Some(router), Some(w)) => Some(DexBDetails {
                                router: router.clone(),
                                from_router_wallet: w[i].clone(),
                                to_router_wallet: w[o].clone(),
                            }),
                            _ => None,
                        };
                        let dex_c = match (s.protocol, wallets) {
                            (Protocol::DexC, Some(w)) => Some(DexCDetails {
                                from_router_wallet: w[i].clone(),
                                to_router_wallet: w[o].clone(),
                                zero_to_one: s.direction == Direction::ZeroToOne,
                            }),
                            _ => None,
                        };
                        SwapStep {
                            pool_address: s.pool_address.clone(),
                            protocol: s.protocol,
                            is_stable: s.is_stable,
                            in_asset: s.in_asset,
                            out_asset: s.out_asset,
                            in_amount: s.in_amount,
                            out_amount: s.out_amount,
                            network_fee: s.network_fee,
                            dex_b,
                            dex_c,
                        }
                    })
                    .collect()
            })
            .collect();
        SwapData { slippage_bps: self.slippage_bps, routes }
    }
}
