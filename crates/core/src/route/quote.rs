//! What a quote says: routes, steps with exact amounts, fees, price impact, improvement, and the slippage
//! arithmetic ([`min_out`], [`max_in`]) that the router, the API and the swap builder all use.
//!
//! Owns the answer's types (the [`Certificate`] value too; `route::certificate` computes it) and the one
//! definition of min-out and max-in. Must not validate requests (that is
//! `route::request`) nor know the wire.

use primitive_types::U256;
use tonlib_core::TonAddress;

use super::request::{QuoteRequest, SlippageOutOfRange, SwapMode};
use crate::asset::Asset;
use crate::graph::{PoolId, Protocol};
use crate::pool::Direction;

/// A route's minimum output under `slippage_bps`: `floor(out · (10000 − slippage_bps) / 10000)`.
///
/// The product is taken in 256 bits: `out` may be close to 2^120 (or any `u128`) and `out · 10^4` does not
/// fit `u128`. A slippage above [`QuoteRequest::MAX_SLIPPAGE_BPS`] is refused, never clamped.
///
/// ```
/// use tonroute_core::route::min_out;
/// assert_eq!(min_out(1_000_001, 50).unwrap(), 995_000); // floor(1_000_001 · 9950 / 10000)
/// // floor((2^120 − 1) · 9999 / 10000), by Python's big integers:
/// assert_eq!(min_out((1u128 << 120) - 1, 1).unwrap(), 1_329_095_072_985_337_381_316_516_679_574_316_540);
/// assert_eq!(min_out(u128::MAX, 0).unwrap(), u128::MAX);
/// assert_eq!(min_out(7, 10_000).unwrap(), 0);
/// assert!(min_out(1, 10_001).is_err());
/// ```
pub fn min_out(out: u128, slippage_bps: u32) -> Result<u128, SlippageOutOfRange> {
    let keep = QuoteRequest::MAX_SLIPPAGE_BPS.checked_sub(slippage_bps).ok_or(SlippageOutOfRange { slippage_bps })?;
    let v = U256::from(out) * U256::from(keep) / U256::from(QuoteRequest::MAX_SLIPPAGE_BPS);
    // v ≤ out because the factor is at most 1, so it fits u128.
    Ok(v.low_u128())
}

/// The most input the same output could need if the price moved by the slippage:
/// `ceil(input · (10000 + slippage_bps) / 10000)`, in 256 bits.
///
/// Below 2^121 for inputs below 2^120 (every amount a quote holds); an input so large that the result does
/// not fit `u128` gives `u128::MAX`. A slippage above [`QuoteRequest::MAX_SLIPPAGE_BPS`] is refused.
///
/// ```
/// use tonroute_core::route::max_in;
/// assert_eq!(max_in(1_000_000, 100).unwrap(), 1_010_000);
/// assert_eq!(max_in(1_000_001, 50).unwrap(), 1_005_002); // ceil(1_005_001.005)
/// assert_eq!(max_in((1u128 << 120) - 1, 10_000).unwrap(), (1u128 << 121) - 2);
/// assert_eq!(max_in(u128::MAX, 1).unwrap(), u128::MAX);
/// assert!(max_in(1, 10_001).is_err());
/// ```
pub fn max_in(input: u128, slippage_bps: u32) -> Result<u128, SlippageOutOfRange> {
    if slippage_bps > QuoteRequest::MAX_SLIPPAGE_BPS {
        return Err(SlippageOutOfRange { slippage_bps });
    }
    let scale = U256::from(QuoteRequest::MAX_SLIPPAGE_BPS);
    let (q, r) = (U256::from(input) * (scale + U256::from(slippage_bps))).div_mod(scale);
    let v = if r.is_zero() { q } else { q + U256::one() };
    Ok(if v > U256::from(u128::MAX) { u128::MAX } else { v.low_u128() })
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
    /// The optimality certificate, when asked for ([`crate::route::QuoteOptions::certificate`]): an upper
    /// bound on the output any routing of `in_amount` could reach on the graph, and the gap to it.
    pub certificate: Option<Certificate>,
}

/// An upper bound on the output of any routing of the request on the graph, and how far the quote is from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Certificate {
    /// No routing of `in_amount` (within the [`Limits`](super::Limits) it was computed for) can get more output than this
    /// (smallest units, rounded up).
    pub upper_bound: u128,
    /// `10000 · (upper_bound − out_amount) / upper_bound`: the quote is within this many basis points of the
    /// best any routing could do.
    pub gap_bps: f64,
    /// How many pool directions carry a positive arbitrage term (the pools the quote moved, and any a
    /// cycle left out of balance).
    pub arbitrage_terms: usize,
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
    /// The quote marked the pool quote-only ([`crate::graph::PoolGraph::swap_blocker`]): its swap messages
    /// cannot be built from the graph the quote was made on. Travels with `swap_data`, so that a swap on a
    /// graph that can build them knows the data came from another one.
    pub quote_only: bool,
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
                            quote_only: !graph.is_swappable(s.pool),
                        }
                    })
                    .collect()
            })
            .collect();
        SwapData { slippage_bps: self.slippage_bps, routes }
    }
}

#[cfg(test)]
mod tests {
    use num_bigint::BigUint;

    use super::*;

    const OUTS: [u128; 8] = [0, 1, 9_999, 10_000, 123_456_789, (1 << 120) - 1, 1 << 127, u128::MAX];
    const BPS: [u32; 7] = [0, 1, 50, 333, 9_999, 10_000, 7];

    #[test]
    fn min_out_is_the_floor_of_the_exact_product() {
        for out in OUTS {
            for bps in BPS {
                let want = BigUint::from(out) * BigUint::from(10_000 - bps) / BigUint::from(10_000u32);
                assert_eq!(BigUint::from(min_out(out, bps).unwrap()), want, "out {out} bps {bps}");
            }
        }
        assert_eq!(min_out(5, 10_001), Err(SlippageOutOfRange { slippage_bps: 10_001 }));
        assert_eq!(min_out(5, u32::MAX), Err(SlippageOutOfRange { slippage_bps: u32::MAX }));
    }

    #[test]
    fn max_in_is_the_ceiling_of_the_exact_product_or_saturates() {
        for input in OUTS {
            for bps in BPS {
                let num = BigUint::from(input) * BigUint::from(10_000 + bps);
                let want = (num + BigUint::from(9_999u32)) / BigUint::from(10_000u32);
                let got = max_in(input, bps).unwrap();
                if want > BigUint::from(u128::MAX) {
                    assert_eq!(got, u128::MAX, "input {input} bps {bps}");
                } else {
                    assert_eq!(BigUint::from(got), want, "input {input} bps {bps}");
                }
            }
        }
        assert_eq!(max_in(5, 10_001), Err(SlippageOutOfRange { slippage_bps: 10_001 }));
    }
}
