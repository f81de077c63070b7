//! The routing's tuning constants, in one place, each with why it has its value.
//!
//! Owns the numbers that trade answer quality against time (list sizes, round counts, chunk counts,
//! thresholds and tolerances) for the split (`split/`), the float polish (`joint`) and exact-out
//! (`exact_out`). Must not hold request limits (those are [`crate::route::QuoteRequest`]'s, part of the
//! interface) nor contract constants (pool math, `crate::pool`).
//!
//! Changing a value here changes answers: re-run the peers comparison and `examples/latency` (see
//! `BENCHMARKS.md`). The path search keeps its own few constants in `paths.rs` for now (`HUB_DEGREE`, the
//! 32 ordered first hops, the per-pool cap `keep / 8`, the floors 0.5 and 1e-3), because that search is
//! being reworked on its own.

// ---- Candidates (split/mod.rs) ----

/// Paths kept by the first search (best single route for the whole amount, by estimate); each is then
/// simulated exactly, which matters for small amounts where rounding, not the curve, decides.
pub(crate) const SINGLES: usize = 16;

/// Price impact of the best single path (estimated) from which the surplus search keeps [`WIDE`] times the
/// candidates it passes on, for diversification to choose among. On the peers' graphs, a threshold of 1 %
/// changes no answer by more than 0.01 bp and takes 15 % off the median relaxed-limit quote at 10k pools;
/// keeping the long list for every trade, or for none, costs time or up to 12 bp on whales.
pub(crate) const WIDE_IMPACT: f64 = 1e-2;

/// How many times the candidates passed on the surplus search keeps for trades past [`WIDE_IMPACT`].
pub(crate) const WIDE: usize = 4;

/// Candidates per allowed route at least (`max_splits · 3`), when that exceeds
/// [`crate::route::RouterConfig::max_candidates`]: forward selection and swaps need a few outside paths per
/// kept one to choose from.
pub(crate) const CANDIDATES_PER_SPLIT: usize = 3;

/// Floor of the surplus search's λ as a share of the best path's spot rate: a whale can drive the best
/// path's marginal to (nearly) zero, and a zero λ would make every path's surplus its whole output.
pub(crate) const LAMBDA_FLOOR: f64 = 1e-9;

/// Paths the search for exact refusals looks at when one of the best estimated paths refused the amount:
/// estimates know nothing of reserve ceilings or overflow, so many more are simulated exactly (a refusal is
/// rare, and then a few dozen exact swaps cost little against an answer).
pub(crate) const REFUSAL_PATHS: usize = 64;

/// Default of [`crate::route::RouterConfig::max_candidates`]: the candidate list the split chooses from.
/// A dozen outside paths per route of the default 4-route split gives the selection's swaps pool-diverse
/// alternatives; each extra candidate costs one evaluation per kept path and swap round.
pub(crate) const MAX_CANDIDATES: usize = 48;

// ---- Float water-fill (split/water_fill.rs) ----

/// Chunks of the final float water-filling: the allocation's granularity (0.5 %) before the Newton polish
/// and the exact refinement, which close the rest.
pub(crate) const CHUNKS: usize = 200;

/// Chunks of a coarse fill (3 %): the one that reads the kept paths' marginal rate while selection adds a
/// path, and pricing's first fill before its polish.
pub(crate) const CHUNKS_FAST: usize = 32;

/// Newton rounds while pricing compares a split with and without a new path: two rounds bring the routes'
/// marginals close enough that a real gain is not hidden by the fill's chunking.
pub(crate) const POLISH_PRICING: usize = 2;

/// Newton rounds after the final fill: the polish converges in a few rounds and stops by itself once a
/// round gains nothing, so six is a ceiling rather than a cost.
pub(crate) const POLISH: usize = 6;

/// Share of the amount used as the probe that reads a route's marginal rate on a float state: small enough
/// to stay on the tangent, large enough that `f64` keeps the difference.
pub(crate) const MARGINAL_PROBE: f64 = 1e-6;

// ---- Path selection (split/selection.rs) ----

/// Share of the current split's output a new path's surplus must exceed to join: below it, the path
/// cannot pay for a route even at zero network fee, and float noise would add empty routes.
pub(crate) const MIN_SURPLUS_SHARE: f64 = 1e-9;

/// Rounds of swaps (a kept path for an outside one) after forward selection; each round costs one
/// evaluation per kept path and candidate, and a round that improves nothing ends them early.
pub(crate) const SWAP_ROUNDS: usize = 3;

/// Relative gain a float comparison must show to count as better (selection swaps and pricing): below it,
/// the difference is float noise and accepting it could cycle.
pub(crate) const MIN_RELATIVE_GAIN: f64 = 1e-12;

// ---- Pricing / column generation (split/pricing.rs) ----

/// Price impact (share of the spot value, 0.2 bp) below which a split is not priced: nothing a new path
/// could win back there is worth a search.
pub(crate) const PRICING_IMPACT: f64 = 2e-5;

/// New paths tried per pricing round, past the split's own routes (which are usually among the best on
/// its state).
pub(crate) const PRICING_FRESH: usize = 4;

/// Assets with at most this many pools open their neighbours to pricing; a hub would open the whole graph.
pub(crate) const ENDPOINT_DEGREE: usize = 256;

/// Rings of neighbours around the input and the output that pricing may pass: the pools near either end
/// decide a whale's price, and two rings keep the area small.
pub(crate) const ENDPOINT_RINGS: usize = 2;

/// Relative spread of the routes' marginal rates below which the largest route's rate stands for all.
pub(crate) const LAMBDA_SPREAD: f64 = 1e-4;

/// Rounds of pricing: each searches the graph on the split's own state for a path worth adding. 30 covers
/// a 20-route split with room for replacements; 60 doubled the 1k-pool worst case for 0.4 bp on one
/// query of the peers comparison.
pub(crate) const PRICING_ROUNDS: usize = 30;

/// Share of the split's output a path found by pricing must add to be worth a route.
pub(crate) const PRICING_MIN_SHARE: f64 = 1e-6;

// ---- Splicing (split/splice.rs) ----

/// Rounds of splicing: each keeps one splice (a route re-paired with another's head or tail) that raises
/// the split; a re-pairing of four routes through one hub takes up to four.
pub(crate) const SPLICE_ROUNDS: usize = 8;

/// Splice trials polished per quote at most, over all rounds: each costs a joint polish of the split.
pub(crate) const SPLICE_TRIALS: usize = 12;

/// Splice trials polished per round, best estimated gain first: the estimate (surplus at the split's
/// marginal rate) ranks the few that pay at the top, and a round whose best few do not pay ends the search.
pub(crate) const SPLICE_TRIES_PER_ROUND: usize = 3;

/// Float gain of a spliced split (share of its output net of network fees, 0.1 bp) past which the split as it
/// was is not settled beside it: settlement ends within rounding of the float optimum, far below this, and a
/// settlement is most of what a spliced quote adds. Smaller gains settle both and keep the larger.
pub(crate) const SPLICE_CLEAR_GAIN: f64 = 1e-5;

// ---- Exact settlement (split/settle.rs) ----

/// Attempts at settling float flows into amounts every route accepts: each failed attempt drops or
/// shrinks one route, so this exceeds any split (20 routes) with room for shrinking.
pub(crate) const SETTLE_ATTEMPTS: usize = 32;

/// Share of a concentrated pool's usable input a shrunk route keeps, below what the pool used, for the
/// float error of the proportional split; a cap within this share of the route's current flow drops the
/// route instead (shrinking it that little would refuse again).
pub(crate) const RANGE_MARGIN: f64 = 0.999;

/// First step of the exact refinement as a divisor of the amount (1/256): the float split is usually
/// within a few hundredths; a step that pays doubles.
pub(crate) const REFINE_FIRST_STEP: u128 = 256;

/// Largest refinement step as a divisor of the amount (1/8): a step that pays doubles up to this.
pub(crate) const REFINE_LARGEST_STEP: u128 = 8;

/// Moves below `amount >> REFINE_FINEST_SHIFT` (2^-24 of the amount) gain nothing worth their cost (each
/// move re-simulates every route, and a concentrated pool's swap walks its ticks).
pub(crate) const REFINE_FINEST_SHIFT: u32 = 24;

/// Joint exact simulations the refinement may spend: bounds its time on 20-route splits.
pub(crate) const REFINE_EVALUATIONS: usize = 400;

// ---- Joint float polish (joint.rs) ----

/// Central-difference step of the polish, as a share of the amount.
pub(crate) const POLISH_DIFFERENCE: f64 = 1e-4;

/// The longest multiple of a Newton step the polish tries.
pub(crate) const MAX_STEP_LENGTH: f64 = 8.0;

/// Halvings of a Newton step before the polish gives up on it.
pub(crate) const POLISH_HALVINGS: usize = 5;

/// Relative gain below which a polish round counts as converged.
pub(crate) const POLISH_CONVERGED: f64 = 1e-13;

/// A Newton step that moves less than this share of the amount is no step.
pub(crate) const POLISH_SMALLEST_STEP: f64 = 1e-12;

// ---- Exact-out (exact_out.rs) ----

/// Relative distance between the input the float model finds for a plan's routes and the plan's own input
/// below which the plan stands for a new one at the model's input: within a percent the split would be the
/// same, and a plan (the split stage) is most of exact-out's cost.
pub(crate) const EXACT_OUT_NEAR: f64 = 1e-2;

/// Plans exact-out may make where the first plan's routes cannot pay the output at any input (or the pools
/// refuse the first input): each at a larger input, searched afresh, until one pays.
pub(crate) const BRACKET_ROUNDS: usize = 40;

/// Factor the input grows by when a plan pays nothing at all.
pub(crate) const BRACKET_GROWTH: u128 = 4;

/// Factor beyond the secant when a plan pays less than wanted: concave outputs make the secant undershoot.
pub(crate) const BRACKET_OVERSHOOT: f64 = 1.02;

/// Steps the least-paying search may take (each one or two exact evaluations): secant steps usually end it
/// in one to three; bisection over 2^120 needs 120, doubling steps from one side another 120.
pub(crate) const LEAST_PAYING_STEPS: usize = 256;

/// Probes of the gallop that follows each estimate of the least-paying search (at its precision, then twice
/// as far each time): a guess off by up to 2^6 times its precision is bracketed by its own gallop; past that
/// the next estimate (a secant through the new points) does better than galloping on.
pub(crate) const GALLOP_PROBES: usize = 6;

/// Relative precision of a hop's least input guessed from its Möbius map where the map is the curve
/// (constant product): four of the float's 2^-52 ulps, beyond a few units of the contract's rounding (the
/// gallop from the guess starts at the larger).
pub(crate) const GUESS_PRECISION_EXACT: f64 = 4.0 * f64::EPSILON;

/// Relative precision of a hop's least input guessed on a fitted curve (stable swap, weighted, concentrated
/// beyond its range), refined by [`HOP_NEWTON`] steps on the float curve: the float solver and the
/// contract's integer iterations agree to about this.
pub(crate) const GUESS_PRECISION_FITTED: f64 = 1e-9;

/// Newton steps on a fitted hop's float curve before its least input is searched exactly: from the Möbius
/// fit, three bring the float answer to its own precision.
pub(crate) const HOP_NEWTON: usize = 4;

/// Relative precision of the total a plan's float model gives for the wanted output (calibrated on the
/// plan's own exact output): the float curves and the contracts' integer rounding agree to about this.
pub(crate) const GUESS_PRECISION_MODEL: f64 = 1e-9;

/// Secant steps a plan's float model may take to find the total that pays the wanted output: from the plan's
/// own input (the first plan is off by the trade's price impact, up to a factor of 100 on drained pools),
/// the steps through the reciprocals converge in five to ten.
pub(crate) const MODEL_STEPS: usize = 40;

/// Relative distance from the wanted output at which the float model's total is taken.
pub(crate) const MODEL_TOLERANCE: f64 = 1e-13;

/// Relative distance between two points of the least-paying search above which the curve through them is
/// a Möbius map (a line through their reciprocals) rather than a straight line: below it the reciprocals'
/// difference loses most of its digits to cancellation, and the two curves agree anyway.
pub(crate) const MOBIUS_SECANT_SPAN: f64 = 1e-6;

/// Rounds of lowering each route to its own minimum: a route lowered changes what the others must pay,
/// which settles in one or two rounds.
pub(crate) const MINIMISE_ROUNDS: usize = 4;
