//! Routing: from a [`QuoteRequest`] on a [`PoolGraph`] to a [`Quote`].
//!
//! Owns path search (`paths/`), the planner both swap modes share (`plan`), the split of an amount over
//! several paths (`split/`, one file per stage, with float joint flows in `joint`), exact-out (`exact_out`),
//! exact joint simulation (`sim`), network-fee accounting (`gas`), the request and its limits (`request`),
//! the options of one quote (`options`), the quote types with min-out and max-in (`quote`) and the tuning
//! constants (`tuning`). Must not know about JSON, HTTP or cells: the API layer and
//! the swap builder sit on top of the types here.
//!
//! How a quote is made:
//! 1. **Bounds.** For every asset, an upper bound of the best product of spot rates (after fees) to the
//!    output asset within k hops, k < `max_length`, and the same over paths that avoid each hub passed: read
//!    from the graph's hub tables (best rates toward the few assets with hundreds of pools, kept valid under
//!    updates by rate ceilings, [`crate::graph::hubs`]) combined with a Bellman–Ford over the output's own
//!    neighbourhood that stops at hubs — the work of a quote follows the assets it can use, not the graph.
//!    A hub met by the search hands out its children from presorted lists, best rate first, skipping those
//!    whose rate and capacity together cannot pass; no path pays out more than its last hop into the output.
//! 2. **Paths.** Depth-first branch and bound over simple, chainable paths (see [`crate::graph::ChainKey`]):
//!    each path is summarised by a Möbius form `out(t) = s·t / (1 + c·t)` (exact for constant product up
//!    to rounding, fitted for other curves). A first pass keeps the best single paths for the whole amount;
//!    its best path's marginal rate there, λ, prices the second pass, which keeps the paths with the largest
//!    surplus `max_t out(t) − λ·t` (at most a few per first and last pool) and prunes every branch whose
//!    optimistic surplus cannot enter the kept set; hubs are expanded through a child list sorted once for
//!    both passes. The second pass keeps a long list only where the best single path moves the price ≥ 1 %.
//! 3. **Split.** Forward selection of up to `max_splits` paths — the next is the one with the largest
//!    surplus on the pools as the current split leaves them — then swaps of kept paths for outside ones.
//!    Pool-disjoint sets are valued in closed form (equal marginal rates), sets sharing a pool by a joint
//!    float water-fill, read as the routes would run on chain (one after the other). Then **pricing**
//!    (column generation, `joint`): on the pools as the split leaves them, a search for the paths with the
//!    largest surplus at the split's marginal rate; the best that raises the split joins it (or replaces
//!    its smallest route), until none does. Flows are equalised by Newton steps on the joint float output.
//!    Network fees decide how many routes and hops pay for themselves.
//! 4. **Settle.** Integer amounts that add up exactly to the request, simulated with the exact pool math
//!    (routes sharing a pool see the reserves the earlier ones left), improved by exact transfers between
//!    routes, and compared with the best single route, which the answer never falls below.
//!
//! Exact-out (`SwapMode::ExactOut`) brackets the input with exact-in plans and then lowers every route's
//! input to its own minimum, exactly.

pub mod budget;
pub mod certificate;
mod exact_out;
pub mod gas;
mod joint;
mod options;
mod paths;
mod plan;
pub mod quote;
pub mod request;
mod sim;
mod split;
#[cfg(test)]
mod testkit;
mod tuning;

use crate::asset::Asset;
use crate::graph::{AssetId, HandOffPolicy, PoolGraph, Reachability, Unroutable};
use crate::pool::PoolError;
pub use budget::Budget;
pub use certificate::{certify, certify_request, certify_request_within, certify_within, CertificateError, Limits};
pub use gas::{NetworkFees, ProtocolFee};
pub use options::QuoteOptions;
pub use quote::{max_in, min_out, Certificate, DexBDetails, DexCDetails, Quote, Route, Step, SwapData, SwapStep};
pub use request::{QuoteRequest, QuoteRequestBuilder, SlippageOutOfRange, SwapMode};
pub use sim::simulate_routes;

/// Why no quote could be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RouteError {
    /// The input asset is not in the graph.
    #[error("unknown asset {asset}: no pool trades it")]
    UnknownAsset {
        /// The asset, wire form.
        asset: String,
    },
    /// In and out are the same asset.
    #[error("in and out asset are the same ({asset})")]
    SameAsset {
        /// The asset, wire form.
        asset: String,
    },
    /// Amount zero.
    #[error("amount must be positive")]
    ZeroAmount,
    /// Amount at or above 2^120.
    #[error("amount {amount} is not below 2^120")]
    AmountTooLarge {
        /// The amount.
        amount: u128,
    },
    /// `max_splits` outside [`QuoteRequest::MIN_SPLITS`]..=[`QuoteRequest::MAX_SPLITS`].
    #[error("max_splits {value} is out of range {}..={}", QuoteRequest::MIN_SPLITS, QuoteRequest::MAX_SPLITS)]
    MaxSplitsOutOfRange {
        /// The value given.
        value: usize,
    },
    /// `max_length` outside [`QuoteRequest::MIN_LENGTH`]..=[`QuoteRequest::MAX_LENGTH`].
    #[error("max_length {value} is out of range {}..={}", QuoteRequest::MIN_LENGTH, QuoteRequest::MAX_LENGTH)]
    MaxLengthOutOfRange {
        /// The value given.
        value: usize,
    },
    /// `slippage_bps` above 10000 ([`QuoteRequest::MAX_SLIPPAGE_BPS`]).
    #[error("slippage_bps {value} is out of range 0..={}", QuoteRequest::MAX_SLIPPAGE_BPS)]
    SlippageOutOfRange {
        /// The value given.
        value: u32,
    },
    /// The path search found no chainable path of at most `max_length` hops. [`Router::quote`] never returns
    /// it: it answers [`RouteError::NoRoute`], which says why.
    #[error("no route from {from} to {to} within {max_length} hops")]
    NoPath {
        /// In asset.
        from: String,
        /// Out asset.
        to: String,
        /// The hop limit.
        max_length: usize,
    },
    /// No route joins the two assets within the limits; `reason` says what would (the same answer for exact-in
    /// and exact-out).
    #[error("no route from {from} to {to}: {reason}")]
    NoRoute {
        /// The input asset: ticker and id, e.g. `JT5 (jetton:0:…)`.
        from: String,
        /// The output asset, the same way.
        to: String,
        /// Why (boxed: it carries text, and every `Result` of a quote would pay for it).
        reason: Box<NoRouteReason>,
    },
    /// Exact-out: no input below 2^120 yields the wanted output on the paths within the limits.
    #[error("the pools cannot pay out {wanted} within the limits")]
    OutputUnreachable {
        /// The output wanted.
        wanted: u128,
    },
    /// The caller's [`Budget`] ran out before any route was found ([`QuoteOptions::budget`]).
    #[error("the time budget ran out before any route was found")]
    BudgetExhausted,
    /// Paths exist, but every one refuses the amount (zero output, reserve limits, overflow...).
    #[error("every route refuses this amount ({reason})")]
    AmountRefused {
        /// Why the best path refused it.
        reason: PoolError,
    },
}

/// Refused hand-offs a no-route answer names, at most.
const REFUSALS_NAMED: usize = 3;

/// Why no route joins two assets (see [`crate::graph::Reachability`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoRouteReason {
    /// No chain of pools joins them at any length.
    #[error("no chain of pools joins them, of any length or exchange")]
    Disconnected,
    /// Only chains that need a hand-off the rule refuses (or the router's policy leaves out) join them
    /// ([`crate::graph::handoff`]).
    #[error(
        "they meet only through hand-offs one route may not make{} (the input trades on {from_on}, the output \
         on {to_on}){}",
        if refused.is_empty() {
            String::new()
        } else {
            format!(
                ": {}",
                refused.iter().map(|(at, why)| format!("at {at}, {why}")).collect::<Vec<_>>().join("; ")
            )
        },
        via.as_ref().map(|v| format!("; swap in two steps, through {v}")).unwrap_or_default()
    )]
    AcrossExchanges {
        /// Where the input asset trades (protocols, `dex_b_v2` routers).
        from_on: String,
        /// Where the output asset trades.
        to_on: String,
        /// The refused hand-offs the chains of at most `max_length` pools between them run into, most
        /// frequent first: the asset handed over (ticker and id) and why
        /// ([`crate::graph::Reachability::refused_hand_offs`]).
        refused: Vec<(String, crate::graph::Refusal)>,
        /// An asset to swap through in two steps (ticker and id), when there is one.
        via: Option<String>,
    },
    /// Routes exist, but the shortest is longer than allowed.
    #[error(
        "the shortest route has {shortest} hops, more than max_length {max_length}{}",
        if *shortest <= QuoteRequest::MAX_LENGTH {
            format!(" (ask with max_length {shortest})")
        } else {
            format!(", and routes have at most {} hops", QuoteRequest::MAX_LENGTH)
        }
    )]
    TooLong {
        /// Hops of the shortest route.
        shortest: usize,
        /// The request's limit.
        max_length: usize,
    },
    /// Routes within `max_length` exist, but none has the liquidity to be quoted (empty pools).
    #[error("routes of at most {max_length} hops exist, but none has liquidity to quote")]
    NoLiquidity {
        /// The request's limit.
        max_length: usize,
    },
}

/// An asset as errors name it: ticker and id (`USD₮ (jetton:0:b113…)`, `TON (native)`).
fn named(graph: &PoolGraph, id: AssetId) -> String {
    let a = graph.asset(id);
    if a.symbol.is_empty() {
        a.asset.to_string()
    } else {
        format!("{} ({})", a.symbol, a.asset)
    }
}

/// Where an asset trades: the distinct protocols of its pools, `dex_b_v2` with its router (`dex_b_v2 router
/// 0:997a…9b1a`), at most four listed.
fn venues(graph: &PoolGraph, id: AssetId) -> String {
    let mut seen = std::collections::BTreeSet::new();
    for e in graph.edges(id) {
        let p = graph.pool(e.pool);
        seen.insert(match (p.protocol, &p.context.router) {
            (crate::graph::Protocol::DexBV2, Some(r)) => {
                let hex = r.to_hex();
                format!("dex_b_v2 router {}…{}", &hex[..6], &hex[hex.len() - 4..])
            }
            (protocol, _) => protocol.slug().to_string(),
        });
    }
    let more = seen.len().saturating_sub(4);
    let mut list: Vec<String> = seen.into_iter().take(4).collect();
    if more > 0 {
        list.push(format!("{more} more"));
    }
    list.join(", ")
}

/// Whether `alt` serves the request at least as well as `quote`: exact-in, no less output; exact-out, no
/// more input (both answer the same request, so the other side is the request's amount).
fn at_least_as_good(alt: &Quote, quote: &Quote) -> bool {
    match quote.swap_mode {
        SwapMode::ExactIn => alt.out_amount >= quote.out_amount,
        SwapMode::ExactOut => alt.in_amount <= quote.in_amount,
    }
}

/// Router settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterConfig {
    /// Network fee per protocol, per route and per hop. [`NetworkFees::ZERO`] maximises gross output.
    pub network_fees: NetworkFees,
    /// How many candidate paths the split step considers at most (before the `max_splits` cut).
    pub max_candidates: usize,
    /// Which hand-offs a route may use ([`crate::graph::handoff`]): [`HandOffPolicy::SAFE`] (every safe
    /// hand-off, across exchanges and routers) by default; [`HandOffPolicy::INTERNAL`] keeps each route on
    /// one exchange's own multi-hop.
    pub handoffs: HandOffPolicy,
    /// Route only through pools a swap can be built through ([`PoolGraph::is_swappable`]), leaving
    /// quote-only pools out. Off by default: [`Router::quote`] then prefers swappable pools by its own rule.
    pub swappable_only: bool,
}

impl Default for RouterConfig {
    fn default() -> RouterConfig {
        RouterConfig {
            network_fees: NetworkFees::default(),
            max_candidates: tuning::MAX_CANDIDATES,
            handoffs: HandOffPolicy::SAFE,
            swappable_only: false,
        }
    }
}

/// The routing entry point. Stateless apart from its configuration; share one across threads.
///
/// ```
/// use tonroute_core::asset::Asset;
/// use tonroute_core::graph::{AssetMeta, GraphBuilder, PoolContext, Protocol};
/// use tonroute_core::pool::{ConstantProduct, Curve, FeeModel};
/// use tonroute_core::route::{QuoteOptions, QuoteRequest, Router};
/// use tonlib_core::TonAddress;
///
/// let usdt: Asset = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe".parse().unwrap();
/// let mut b = GraphBuilder::new();
/// let ton = b.add_asset(AssetMeta::new(Asset::Native, "TON", 9)).unwrap();
/// let usd = b.add_asset(AssetMeta::new(usdt, "USDT", 6)).unwrap();
/// let curve = Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0));
/// b.add_pool(TonAddress::new(0, [7u8; 32].into()), Protocol::DexBV2, [ton, usd], curve,
///            [1_860_000_000_000_000, 2_570_000_000_000], PoolContext::default(), None).unwrap();
/// let graph = b.build();
/// let request = QuoteRequest::new(Asset::Native, usdt, 100_000_000_000).unwrap();
/// let quote = Router::default().quote(&graph, &request, QuoteOptions::default()).unwrap();
/// assert_eq!(quote.routes.len(), 1);
/// assert!(quote.out_amount > 0 && quote.min_out < quote.out_amount);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Router {
    /// Settings.
    pub config: RouterConfig,
}

impl Router {
    /// A router with the given settings.
    pub fn new(config: RouterConfig) -> Router {
        Router { config }
    }

    /// Checks a request against the graph (its limits were checked when it was made: a [`QuoteRequest`] that
    /// exists is within them); returns the in and out asset ids.
    pub fn validate(&self, graph: &PoolGraph, request: &QuoteRequest) -> Result<(AssetId, AssetId), RouteError> {
        debug_assert_eq!(request.check(), Ok(()), "every QuoteRequest constructor checks the limits");
        let id = |a: Asset| graph.asset_id(&a).ok_or_else(|| RouteError::UnknownAsset { asset: a.to_string() });
        Ok((id(request.in_asset())?, id(request.out_asset())?))
    }

    /// The best way to swap `request.amount()` of `in_asset` into `out_asset`, computed as `options` say
    /// ([`QuoteOptions`]: a search [`Budget`], and whether to certify the answer).
    ///
    /// When no route joins the two assets the answer is [`RouteError::NoRoute`] with the reason, the same for
    /// both swap modes: a pair no route can join is refused before any search.
    ///
    /// **Budget.** When it runs out, the search stops and the answer is the best plan found so far (exact and
    /// settled like any other; often the best single route), or [`RouteError::BudgetExhausted`] when none was
    /// found yet.
    ///
    /// **Certificate.** With [`QuoteOptions::certificate`], [`Quote::certificate`] holds the quote's
    /// optimality [`Certificate`]: an upper bound on what any routing of the same input could get on this
    /// graph, and the quote's gap to it ([`certificate`]; priced by [`certify_request_within`], which may
    /// quote once more with wider limits), computed after the quote on what is left of the same budget. The
    /// quote never waits for it: when none can be given (the budget ran out during the certificate, a cycle
    /// of concentrated pools that gains through the output, or reserves that moved under the quote:
    /// [`CertificateError`], which [`certify_request_within`] returns), the quote is answered as found and
    /// `certificate` is `None`.
    ///
    /// **Swappable pools first.** A quote-only pool ([`PoolGraph::swap_blocker`]: an imported pool whose swap
    /// messages cannot be built) may be quoted, but when the best plan uses one, the search runs again over
    /// the swappable pools alone ([`RouterConfig::swappable_only`]), and that plan is answered instead when
    /// it is at least as good: exact-in, an output at least as large; exact-out, an input at most as large.
    /// Otherwise the quote-only plan stands (its steps are marked quote-only on the wire). Graphs whose pools
    /// are all swappable, or all quote-only, are searched once.
    pub fn quote(
        &self,
        graph: &PoolGraph,
        request: &QuoteRequest,
        options: QuoteOptions<'_>,
    ) -> Result<Quote, RouteError> {
        let mut quote = self.quote_preferring_swappable(graph, request, options.budget)?;
        if options.certificate {
            quote.certificate = certify_request_within(self, graph, request, &quote, options.budget).ok();
        }
        Ok(quote)
    }

    /// [`Self::quote`] without the certificate: one search, and a second over swappable pools alone where the
    /// first used a quote-only pool.
    fn quote_preferring_swappable(
        &self,
        graph: &PoolGraph,
        request: &QuoteRequest,
        budget: Budget<'_>,
    ) -> Result<Quote, RouteError> {
        let quote = self.quote_once(graph, request, budget)?;
        let uses_quote_only = || quote.routes.iter().flat_map(|r| &r.steps).any(|s| !graph.is_swappable(s.pool));
        if self.config.swappable_only || !graph.mixes_quote_only() || !uses_quote_only() {
            return Ok(quote);
        }
        let swappable = Router::new(RouterConfig { swappable_only: true, ..self.config.clone() });
        match swappable.quote_once(graph, request, budget) {
            Ok(alt) if at_least_as_good(&alt, &quote) => Ok(alt),
            _ => Ok(quote),
        }
    }

    /// One search ([`Self::quote_preferring_swappable`] without the preference for swappable pools).
    fn quote_once(&self, graph: &PoolGraph, request: &QuoteRequest, budget: Budget<'_>) -> Result<Quote, RouteError> {
        let (src, dst) = self.validate(graph, request)?;
        // The search's chaining policy (paths.rs); the graph's reachability is built for the default one.
        let policy = self.config.handoffs;
        let built;
        let reach = if graph.reachability().policy() == policy {
            graph.reachability()
        } else {
            built = Reachability::build(graph, policy);
            &built
        };
        let no_route = |why: Unroutable| {
            let reason = match why {
                Unroutable::Disconnected => NoRouteReason::Disconnected,
                Unroutable::AcrossExchanges { via } => NoRouteReason::AcrossExchanges {
                    from_on: venues(graph, src),
                    to_on: venues(graph, dst),
                    refused: reach
                        .refused_hand_offs(graph, src, dst, request.max_length(), REFUSALS_NAMED)
                        .into_iter()
                        .map(|(at, why)| (named(graph, at), why))
                        .collect(),
                    via: via.map(|v| named(graph, v)),
                },
            };
            RouteError::NoRoute { from: named(graph, src), to: named(graph, dst), reason: Box::new(reason) }
        };
        let named_error =
            |reason| RouteError::NoRoute { from: named(graph, src), to: named(graph, dst), reason: Box::new(reason) };
        let too_long = |shortest, max_length| named_error(NoRouteReason::TooLong { shortest, max_length });
        reach.reach(graph, src, dst).map_err(no_route)?;
        let ask = plan::Ask { graph, config: &self.config, request, src, dst, budget };
        let found = match request.swap_mode() {
            SwapMode::ExactIn => plan::best_plan(ask),
            SwapMode::ExactOut => exact_out::best_plan(ask),
        };
        let found = match found {
            // Too long for the request, none carries anything, or (one-way hand-offs) no route after all.
            Err(RouteError::NoPath { max_length, .. }) => Err(match reach.shortest_route(graph, src, dst) {
                Some(shortest) if shortest > max_length => too_long(shortest, max_length),
                Some(_) => named_error(NoRouteReason::NoLiquidity { max_length }),
                None => no_route(reach.unroutable(graph, src, dst)),
            }),
            // Exact-out finds no input that pays: when no route is short enough, that is a missing route,
            // answered as exact-in answers it.
            Err(e @ RouteError::OutputUnreachable { .. }) => match reach.shortest_route(graph, src, dst) {
                Some(shortest) if shortest > request.max_length() => Err(too_long(shortest, request.max_length())),
                Some(_) => Err(e),
                None => Err(no_route(reach.unroutable(graph, src, dst))),
            },
            other => other,
        }?;
        split::build_quote(graph, request, &found, &self.config.network_fees)
    }
}
