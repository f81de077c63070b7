//! The `/v4` JSON layer (feature `serde`): strict wire types ([`wire`], whose values parse themselves,
//! [`value`]), body parsing with serde ([`parse`]), conversions from core types ([`convert`]), the
//! `{code, message}` errors with the one mapping of every core error ([`error`]), and [`Api`], the
//! transport-free handler that the binary, the HTTP server ([`crate::server`]) and the fuzz targets share.
//!
//! Owns the wire shapes and their meaning; must not validate what the core validates (request limits are
//! [`tonroute_core::route::QuoteRequest::try_new`]'s, `swap_data` is [`tonroute_core::swap::build::check_swap`]'s: the API
//! parses and maps their errors), compute routes or build cells itself (it calls [`tonroute_core::route::Router`] and a
//! [`SwapBuilder`]), nor speak HTTP. No clock here either: the caller passes the swap's `query_id` and
//! deadline ([`SwapClock`]).
//!
//! # Fields the spec leaves open
//!
//! - `improvement`: relative gain of the returned split over the best single route for the whole amount,
//!   `(out_amount − best_single_out) / best_single_out`, decimal string with 12 fractional digits rounded
//!   toward zero (`"0.000000000000"` when the quote is a single route).
//! - `in_minter_price`, `out_minter_price`: the snapshot's USD price of one whole token, decimal string;
//!   `"0"` when the snapshot has none.
//! - `volatility_1m/5m/10m/15m`: the pool's figures from the snapshot, `0` when it has none.
//! - `in_percent`: a route's input as a percentage of the request's amount (the routes add up to 100).
//! - `price_impact`: `1 − out_amount / (in_amount · spot)` with `spot` the best marginal path's rate after
//!   pool fees; a fraction, not a percentage.
//! - token objects: `address` is the asset id as in `swap_data`; `protocol` is `native` or `jetton`;
//!   `aliased` is `false`, `included` `true`; `description` empty; `image` from the snapshot or empty.
//! - protocol objects: neutral names (`DEX A`, `DEX B v1`, `DEX B v2`, `DEX C`), empty `image`/`website`.
//! - Addresses in responses are raw (`0:<hex>`); requests accept raw or friendly forms.
//! - `certificate` (an extension, only with `"certify": true` in the request): `{upper_bound, gap_bps}`, an
//!   upper bound (decimal string, output's smallest units) on what any routing of the quote's input could get
//!   on the graph, and the quote's gap to it in basis points ([`tonroute_core::route::certificate`]); `null` when
//!   none could be given. For exact-out the input is the quote's `in_amount`.
//!
//! # Request defaults
//!
//! `swap_mode` = `exact_in` (`exact_out` makes `amount` the output wanted), `slippage_bps` = 100, `max_splits` = 4, `max_length` = 3,
//! `certify` = `false`.
//! Unknown request fields are refused (a misspelt optional field would otherwise be silently defaulted);
//! `null` for an optional field means "use the default".
#![deny(missing_docs)]

pub mod admin;
pub mod convert;
pub mod error;
pub mod market;
pub mod number;
pub mod parse;
pub mod typed;
pub mod value;
pub mod wire;

use std::sync::Arc;

pub use error::{swap_error, ApiError, ErrorBody, ErrorCode};
pub use parse::MAX_BODY_BYTES;
pub use wire::{QuoteResponse, ReservesResponse, SwapResponse, TransactionWire};

use tonroute_core::graph::{LiveGraph, PoolGraph};
use tonroute_core::route::Router;
use tonroute_core::swap::build::{check_swap, CheckedSwap, SwapRequest};
use tonroute_core::swap::{self, GasTable};

/// One message a wallet signs, as a [`SwapBuilder`] returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// Destination (any address form the builder chooses; printed as is).
    pub address: String,
    /// Nanotons attached.
    pub amount: u128,
    /// Body, base64 bag of cells.
    pub payload: String,
}

/// Time-derived inputs of a swap, supplied by the caller so the library stays clock-free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwapClock {
    /// Query id written into the messages.
    pub query_id: u64,
    /// Unix time (seconds) after which the exchanges must refuse the swap.
    pub deadline: u64,
}

impl SwapClock {
    /// How long a built swap stays valid: 15 minutes, as the exchanges' SDKs default.
    pub const VALIDITY_SECS: u64 = 900;

    /// The clock for a request received at `unix_millis`: the query id is the millisecond timestamp (unique
    /// enough per wallet, and below 2^53 so JavaScript clients read it exactly), the deadline 15 minutes on.
    pub fn at(unix_millis: u64) -> SwapClock {
        SwapClock { query_id: unix_millis, deadline: unix_millis / 1000 + Self::VALIDITY_SECS }
    }
}

/// Turns a checked swap into messages. [`MessageSwapBuilder`] is the real one; tests substitute their own.
pub trait SwapBuilder: Send + Sync {
    /// Builds one message per route of `swap`, which passed [`check_swap`] on `graph` (so the builder checks
    /// and simulates nothing again). Its request carries the sender, the query id and the deadline.
    fn build(&self, graph: &PoolGraph, swap: &CheckedSwap<'_>) -> Result<Vec<Transaction>, ApiError>;
}

/// A builder that builds nothing: every swap is `501` with code [`ErrorCode::SwapUnavailable`] (after the
/// request has been fully validated). For deployments that quote but must not hand out messages.
#[derive(Debug, Clone, Copy, Default)]
pub struct UnavailableSwapBuilder;

impl SwapBuilder for UnavailableSwapBuilder {
    fn build(&self, _: &PoolGraph, _: &CheckedSwap<'_>) -> Result<Vec<Transaction>, ApiError> {
        Err(ApiError::new(
            ErrorCode::SwapUnavailable,
            "swap-message building is disabled on this server; the swap_data was valid",
        ))
    }
}

/// Message building through [`tonroute_core::swap::build::build_checked`] with a gas table, resolving users' jetton
/// wallets from the graph (the snapshot's `jetton_wallets` overrides, else derived from the jetton's verified
/// wallet family). Its [`swap::SwapError`]s map to codes by [`swap_error`].
#[derive(Debug, Clone, Default)]
pub struct MessageSwapBuilder {
    /// TON attached per protocol, direction and hop count.
    pub gas: GasTable,
}

impl SwapBuilder for MessageSwapBuilder {
    fn build(&self, graph: &PoolGraph, swap: &CheckedSwap<'_>) -> Result<Vec<Transaction>, ApiError> {
        let response =
            swap::build::build_checked(graph, swap, &self.gas, graph).map_err(|e| swap_error(e, swap.swap_data()))?;
        Ok(response
            .transactions
            .into_iter()
            .map(|t| Transaction { address: t.address, amount: t.amount, payload: t.payload })
            .collect())
    }
}

/// The builder this crate uses by default: [`MessageSwapBuilder`] with the default gas table. The single
/// place where the API meets `tonroute_core::swap`.
pub fn default_swap_builder() -> Arc<dyn SwapBuilder> {
    Arc::new(MessageSwapBuilder::default())
}

/// A `/v4/router/quote` request read and validated by [`Api::prepare_quote`], to be answered by
/// [`Api::answer_quote`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedQuote(parse::QuoteCall);

impl PreparedQuote {
    /// The quote's cost class: a hash of what decides its cost besides the graph (the pair, the mode, the
    /// amount's order of magnitude in bits, the limits, the certificate). Quotes of one class cost about the
    /// same, so a server can tell from a class's last quote where to compute the next one.
    pub fn class(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let (r, certify) = (&self.0.request, self.0.certify);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (r.in_asset(), r.out_asset(), r.swap_mode() == tonroute_core::route::SwapMode::ExactOut).hash(&mut h);
        (u128::BITS - r.amount().leading_zeros(), r.max_splits(), r.max_length(), certify).hash(&mut h);
        h.finish()
    }
}

/// A quote built from typed values (the CLI's arguments) rather than read from a body: its
/// [`QuoteRequest`](tonroute_core::route::QuoteRequest) was checked by its constructor already.
impl From<parse::QuoteCall> for PreparedQuote {
    fn from(call: parse::QuoteCall) -> PreparedQuote {
        PreparedQuote(call)
    }
}

/// The `/v4` operations over a shared graph, independent of HTTP: bytes in, wire types or [`ApiError`] out.
///
/// The graph is a [`LiveGraph`]: each request loads the current graph once and answers from it, so a
/// topology change published meanwhile (a stream replica's rebuild) never mixes two graphs in one answer.
#[derive(Clone)]
pub struct Api {
    graph: Arc<LiveGraph>,
    router: Router,
    builder: Arc<dyn SwapBuilder>,
    market: Option<market::MarketApi>,
    feed: Option<Arc<tonroute_sources::feed::FeedStats>>,
}

impl std::fmt::Debug for Api {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Api").field("pools", &self.graph.load().pool_count()).field("router", &self.router).finish()
    }
}

impl Api {
    /// An API over `graph` with the default router and [`default_swap_builder`].
    pub fn new(graph: Arc<PoolGraph>) -> Api {
        Api::live(Arc::new(LiveGraph::new(graph)))
    }

    /// An API over a graph that may be replaced while it serves (e.g. followed from a stream).
    pub fn live(graph: Arc<LiveGraph>) -> Api {
        Api { graph, router: Router::default(), builder: default_swap_builder(), market: None, feed: None }
    }

    /// Adds the market-data operations (answered by `store`, e.g. a [`tonroute_market::MarketView`]; without it
    /// they answer 404 [`ErrorCode::MarketUnavailable`]).
    pub fn with_market(mut self, store: Arc<dyn tonroute_market::MarketStore>) -> Api {
        self.market = Some(market::MarketApi::new(store));
        self
    }

    /// The market routes, or the 500 error the market operations answer without them.
    pub fn market(&self) -> Result<&market::MarketApi, ApiError> {
        self.market
            .as_ref()
            .ok_or_else(|| ApiError::new(ErrorCode::MarketUnavailable, "this server has no market data loaded"))
    }

    /// Reports the state of the stream this API's graph follows (`/health`'s `stream` object).
    pub fn with_feed(mut self, stats: Arc<tonroute_sources::feed::FeedStats>) -> Api {
        self.feed = Some(stats);
        self
    }

    /// The stream's counters and state, when the graph follows one.
    pub fn feed(&self) -> Option<&Arc<tonroute_sources::feed::FeedStats>> {
        self.feed.as_ref()
    }

    /// Replaces the router (e.g. other network fees).
    pub fn with_router(mut self, router: Router) -> Api {
        self.router = router;
        self
    }

    /// Replaces the swap builder.
    pub fn with_swap_builder(mut self, builder: Arc<dyn SwapBuilder>) -> Api {
        self.builder = builder;
        self
    }

    /// The current graph (reserve updates apply in place; a topology change replaces it).
    pub fn graph(&self) -> Arc<PoolGraph> {
        self.graph.load()
    }

    /// The replaceable graph this API serves.
    pub fn live_graph(&self) -> &Arc<LiveGraph> {
        &self.graph
    }

    /// `POST /v4/router/quote`.
    pub fn quote(&self, body: &[u8]) -> Result<QuoteResponse, ApiError> {
        self.quote_within(body, tonroute_core::route::Budget::UNLIMITED)
    }

    /// [`Self::quote`] within a routing [`tonroute_core::route::Budget`] (the server's per-request deadline): the best
    /// quote found when it runs out, or 503 [`ErrorCode::RoutingTimeout`] when none was.
    ///
    /// With `"certify": true` the certificate is computed after the quote, on the same graph and within the
    /// same budget ([`tonroute_core::route::QuoteOptions::certificate`]); the answer's `certificate` is `null` when it could not
    /// be given (the budget ran out after the quote, or [`tonroute_core::route::CertificateError`]). Without it, the
    /// answer has no `certificate` field.
    pub fn quote_within(
        &self,
        body: &[u8],
        budget: tonroute_core::route::Budget<'_>,
    ) -> Result<QuoteResponse, ApiError> {
        self.answer_quote(&self.prepare_quote(body)?, budget)
    }

    /// The first half of [`Self::quote_within`]: the `/v4/router/quote` body read and validated (every error a
    /// bad body gets), before any routing. A server reads the quote's [`PreparedQuote::class`] here to decide
    /// where to compute it, then answers it with [`Self::answer_quote`].
    pub fn prepare_quote(&self, body: &[u8]) -> Result<PreparedQuote, ApiError> {
        Ok(PreparedQuote(parse::parse_quote_call(body)?))
    }

    /// The second half of [`Self::quote_within`]: routes a quote [`Self::prepare_quote`] accepted, on the graph
    /// current now, within `budget`.
    pub fn answer_quote(
        &self,
        quote: &PreparedQuote,
        budget: tonroute_core::route::Budget<'_>,
    ) -> Result<QuoteResponse, ApiError> {
        let call = &quote.0;
        let graph = self.graph.load();
        let options = tonroute_core::route::QuoteOptions { budget, certificate: call.certify };
        let quote = self.router.quote(&graph, &call.request, options)?;
        let mut response = convert::quote_response(&graph, &quote);
        if call.certify {
            response.certificate = Some(quote.certificate.as_ref().map(wire::CertificateWire::from));
        }
        Ok(response)
    }

    /// `POST /v4/router/swap`: parse, check against the graph (once, with the one fresh simulation), build.
    pub fn swap(&self, body: &[u8], clock: SwapClock) -> Result<SwapResponse, ApiError> {
        self.swap_parsed(parse::parse_swap_request(body)?, clock)
    }

    /// [`Self::swap`] for a request already read into its types (the CLI reads `swap_data` from a quote on
    /// stdin): check against the graph, build.
    pub fn swap_parsed(&self, parsed: parse::SwapRequest, clock: SwapClock) -> Result<SwapResponse, ApiError> {
        let request = SwapRequest {
            sender: parsed.sender,
            swap_data: parsed.swap_data,
            query_id: clock.query_id,
            deadline: clock.deadline,
            referral: None,
        };
        let graph = self.graph.load();
        let checked = check_swap(&graph, &request).map_err(|e| swap_error(e, &request.swap_data))?;
        let txs = self.builder.build(&graph, &checked)?;
        Ok(SwapResponse {
            query_id: clock.query_id,
            transactions: txs
                .into_iter()
                .map(|t| TransactionWire { address: t.address, amount: t.amount.to_string(), payload: t.payload })
                .collect(),
        })
    }

    /// `POST /v4/admin/reserves`: `[{"pool": addr, "reserves": ["r0", "r1"]}, …]` (a concentrated pool:
    /// `sqrt_price_x96`, `tick`, `liquidity`, optionally `ticks`), or `{"force": true, "updates": […]}` to
    /// apply updates that move a price beyond the limit. Every entry is validated before any is applied, so a
    /// bad batch changes nothing ([`admin::apply_batch`]). Quotes keep running meanwhile.
    pub fn update_reserves(&self, body: &[u8]) -> Result<ReservesResponse, ApiError> {
        Ok(self.admin_batch(body)?.response)
    }

    /// [`Self::update_reserves`] with what each entry changed (old → new), for an audit log.
    pub fn admin_batch(&self, body: &[u8]) -> Result<admin::AdminOutcome, ApiError> {
        admin::apply_batch(&self.graph.load(), body)
    }

    /// [`Self::admin_batch`] under `policy` (the price-move limit; [`admin::apply_batch_with`]).
    pub fn admin_batch_with(&self, body: &[u8], policy: admin::AdminPolicy) -> Result<admin::AdminOutcome, ApiError> {
        admin::apply_batch_with(&self.graph.load(), body, policy)
    }
}
