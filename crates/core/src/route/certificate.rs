//! Optimality certificate: an upper bound on the output *any* routing could reach for a request on a graph
//! (any pools, splits, hops; for `dex_a` volatile pools, whose fee rounding favours the user, any routing of
//! at most the request's number of routes and hops: "Fee rounded down"), from the Lagrangian dual of the
//! routing problem (Angeris, Chitra, Evans, Boyd, "Optimal routing for constant function market makers",
//! 2022), priced by the quote's own marginal rates.
//!
//! Owns [`certify`] and the proof below ([`Certificate`], the value a quote carries, lives beside [`Quote`] so
//! that the quote does not import its checker). Reads the graph and a [`Quote`]; must not search,
//! change the graph or round an amount that is paid (the bound is informative: nothing is sent with it).
//!
//! # The bound
//! The relaxation: every pool, in each direction `a → b`, is a concave trade function `f(u)` of the input
//! `u ≥ 0` from its current state — the continuous curve with its fees, which pays at least what the
//! contract's integer math pays (the contracts round outputs down and fees up; the one exception, `dex_a`
//! volatile, is "Fee rounded down" below). A routing is a set of flows
//! `u_{p,a→b}` with outputs `v ≤ f_{p,a→b}(u)`; its net change of asset `t` is
//! `net_t = Σ v (into t) − Σ u (out of t)`. Feasible: `net_in ≥ −amount`, `net_t ≥ 0` for every other asset
//! (intermediate assets are not created from nothing). Its output is `net_out`. This is the model of
//! the convex-relaxation peer of BENCHMARKS.md's "Certificate" figures (each direction from the current state, no hop or split limit, continuous
//! amounts), so it contains every routing the router can produce: routes of at most `max_length` hops and
//! `max_splits` routes, integer amounts, routes run one after another (a pool met twice in the same direction
//! pays at most `f` of the summed input, by concavity).
//!
//! **Weak duality.** For any prices `ν_t ≥ 0` with `ν_out = 1`:
//! `net_out ≤ Σ_t ν_t·net_t + ν_in·amount` (add `ν_in·(net_in + amount) ≥ 0` and `ν_t·net_t ≥ 0`), and
//! `Σ_t ν_t·net_t = Σ_{p, a→b} (ν_b·v − ν_a·u) ≤ Σ_{p, a→b} arb_{p,a→b}(ν)` with
//! `arb(ν) = sup_{u ≥ 0} ν_b·f(u) − ν_a·u ≥ 0`. Hence every feasible routing's output is at most
//! `B(ν) = ν_in·amount + Σ arb(ν)`, for every `ν` (Angeris et al. §4; the minimum over `ν` equals the
//! relaxation's optimum when pools are convex, so good prices make the bound tight).
//!
//! **Arbitrage terms.**
//! - Constant product (`dex_b` constant product, `dex_a` volatile), input-side fee factor `γ`, output-side
//!   keep factor `κ` (protocol fee), reserves `x` in, `y` out: `f(u) ≤ κ·y·γu / (x + γu)`, and the supremum is
//!   in closed form: with `A = ν_b·κ·y` and `B = ν_a·x/γ`, `arb = (√A − √B)²` when `A > B`, else `0`
//!   (stationary point `x + γu = √(γ·ν_b·κ·x·y/ν_a)`).
//! - Every other curve (stable swap, weighted, `dex_a` stable, concentrated) is concave in `u`, so its
//!   marginal rate is largest at `u = 0`: `f(u) ≤ ρ·u` with `ρ` a ceiling of the rate at zero (the cached
//!   spot rate after fees times `1 + 10⁻⁹`, far above the float error of a spot price). If `ν_a ≥ ρ·ν_b` the
//!   arb is `0`; otherwise it is at most `ν_b·y·(1 − ν_a/(ρ·ν_b))` with `y` the out reserve (a pool pays out no
//!   more than it holds; `sup_u min(ρu, y)·ν_b − ν_a·u`). A concentrated pool has no such cap in its virtual
//!   reserves, so prices that leave one out of balance make the certificate refuse
//!   ([`CertificateError::Unbounded`]); the prices below never do that on a graph without arbitrage, and on
//!   one with arbitrage only when a cycle of concentrated pools through the output gains at them.
//! - An empty pool (a zero reserve) pays nothing: `arb = 0`. A pool whose out asset has `ν_b = 0` has
//!   `arb = 0`.
//!
//! **Prices.** `ν_t` = the best product of rates from `t` to the output, over any number of hops (a
//! label-correcting max-product search from the output over the whole component), where each pool direction
//! the quote trades with a constant-product curve counts at its marginal rate *after* the quote's total
//! input through it, `κγxy/(x + γU)²`, and every other pool direction at its rate ceiling at zero (rounded
//! up). So every pool the quote does not move is at or inside its fee band (`ν_a ≥ ρ_{a→b}·ν_b`): its arb is
//! exactly `0` without being evaluated; the input is worth its value at the margin after the trade, not
//! before; and the arb of a traded pool is what trading it back to those prices would earn — about the
//! price impact the quote paid there. These are the optimal dual prices when the quote is the optimal
//! routing, so the gap measures how far the quote is from the relaxation's optimum. Assets outside the
//! output's component get `ν = 0` (their pools have `arb = 0`: both prices are zero). On a graph with
//! arbitrage cycles the search stops improving an asset after [`MAX_IMPROVEMENTS`] raises; the bound is then
//! still valid because every pool's arb is checked (the check costs one pass over the pools). A concentrated
//! direction the search leaves out of its band (only with arbitrage: a direction out of the output asset,
//! whose price stays 1, or past the raises) then has its out asset's price lowered into the band, and so on
//! downstream, each asset at most [`MAX_IMPROVEMENTS`] times (`settle_ceilings`): lowering a price is always
//! allowed, and it moves the imbalance onto constant-product pools (closed-form terms) and capped curves
//! instead of an unbounded one. On a graph with arbitrage the bound includes what running it would earn (any
//! routing may), so there it is valid but can be far above the quote — the bundled data after `serve
//! --market`'s replay, which moves some pools and not others, is such a graph.
//!
//! **Fee rounded down (`dex_a` volatile).** Its contract charges `⌊u·f⌋` (`crate::pool::dex_a_volatile`), so
//! a swap's net input `u − ⌊u·f⌋` is below `γu + 1`, up to one unit more than the curve's; `s` swaps through
//! one direction pay at most what the curve pays for a net input `γU + s` (the contract credits the whole input
//! to its reserve, so a later swap sees no more than the curve composed). Each swap is therefore worth at most
//! `1/γ` more units of its input asset or `y/x` more units of its output (the curve's slope is at most `y/x`),
//! i.e. `c = min(ν_a/γ, ν_b·y/x)` in the dual, as if that much came from nowhere. A routing of at most `R`
//! routes of at most `H` hops, each a simple path, swaps at most `R` times through one direction and `R·H`
//! times in all, so its rounding is worth at most `R ×` the sum of the `H` largest `c` over the `dex_a`
//! volatile directions: that slack is added to `B(ν)`. `R`, `H` are the request's limits
//! ([`certify_request`]) or the router's ([`Limits::ROUTER`], [`certify`]). Without it the bound fell below a
//! two-hop `dex_a` quote on the bundled data by 1,226 units; with it, it costs about `R·H` units of the
//! dearest `dex_a` assets (10⁻⁴ USD on the bundled data at the default limits). Every other curve rounds
//! against the user: `dex_b` keeps the LP fee inside its one division and rounds the protocol fee up; stable,
//! weighted and concentrated curves floor the input after fee; `dex_a` stable rounds its fee up.
//!
//! **Rounding.** `ν` are just numbers (any `ν ≥ 0` gives a valid bound), so only the evaluation of `B(ν)`
//! must round up: each float quantity comes from fewer than 20 correctly rounded operations (relative error
//! < 20·2⁻⁵³ < 3·10⁻¹⁵) and is widened by a factor `1 ± 10⁻¹²` in the safe direction; sums of `n` terms by
//! `1 + (n + 2)·2⁻⁵²`; the result is rounded up to an integer.
//!
//! **What it ignores, and why it stays valid.** Network fees (gas, forward amounts) are paid outside the
//! pools and only lower what a routing nets; the hand-off rules only shrink the set of routings, and the
//! limits enter only the fee-rounding slack. So the bound holds for the request as asked, and the gap includes
//! what the limits cost. Exact-out quotes are certified on their input: the most output any routing could get
//! for `in_amount`. A live graph may change between the quote and the certificate; each pool is read once.
//!
//! **Cost.** One max-product search and one pass over the pools, both linear in the size of the graph:
//! see `examples/peers --certify` for its time next to the quote's. [`certify_request`] may add one quote
//! with wider limits.
//!
//! **Time budget.** [`certify_within`] and [`certify_request_within`] read the caller's [`Budget`] (the
//! server's per-request deadline, the one the quote ran under) every [`CHECK_EVERY`] steps of the price search
//! and of the pass over the pools; once it says stop, the certificate is [`CertificateError::BudgetExhausted`]
//! — an unfinished sum is no bound. [`certify_request_within`] keeps its first bound when the budget runs out
//! during the wider pricing quote or its bound (the first is complete and valid).
//!
//! **A moving graph.** A bound below the quote's own output can only come from reserves that changed between
//! the quote and its certificate (a live graph updated in place); such a certificate would describe another
//! state than the quote, so it is refused ([`CertificateError::GraphMoved`]) rather than handed out. (This
//! check is how the `dex_a` rounding gap above was found.)

use std::collections::VecDeque;

use ahash::AHashMap;

use super::budget::{Budget, CHECK_EVERY};
use super::quote::{Certificate, Quote};
use super::request::{QuoteRequest, SwapMode};
use super::{QuoteOptions, Router};
use crate::graph::{AssetId, PoolGraph, PoolId};
use crate::pool::{Curve, Direction};

/// How many times the price search may raise one asset's price (bounds the work on a graph with arbitrage
/// cycles; on one without, prices settle after as many raises as the longest best path has hops).
pub const MAX_IMPROVEMENTS: u32 = 64;

/// Widening of each float quantity against its rounding error (see the module doc).
const WIDEN: f64 = 1e-12;

/// Rate ceiling margin of the curves whose spot rate is itself a float estimate (stable, weighted,
/// concentrated): their rate at zero is computed to about 10⁻¹⁴; 10⁻⁹ covers it with room and costs 10⁻⁵ bp.
const CEILING_MARGIN: f64 = 1e-9;

/// Margin of a constant-product rate ceiling: above the closed-form check's own widening on both sides.
const CP_CEILING_MARGIN: f64 = 8e-12;

/// Why no certificate could be given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CertificateError {
    /// The quote's input or output asset is not in the graph.
    #[error("asset {asset} is not in the graph")]
    UnknownAsset {
        /// The asset, wire form.
        asset: String,
    },
    /// A concentrated pool is out of balance at the prices (only on a graph with arbitrage cycles), and its
    /// state gives no cap on what it could pay.
    #[error("pool {pool} could pay an unbounded arbitrage at the certificate's prices")]
    Unbounded {
        /// The pool's address.
        pool: String,
    },
    /// The caller's [`Budget`] ran out before the certificate was complete (the quote is unaffected).
    #[error("the time budget ran out before the certificate was complete")]
    BudgetExhausted,
    /// The bound came out below the quote's own output: the pools changed between the quote and its
    /// certificate (a reserve update landed in between), so the two describe different states.
    #[error("the pools moved between the quote and its certificate: bound {bound} is below the quote's output {out}")]
    GraphMoved {
        /// The bound computed on the graph as it is now.
        bound: u128,
        /// The quote's output.
        out: u128,
    },
}

/// `v` widened up against rounding.
#[inline]
fn up(v: f64) -> f64 {
    v * (1.0 + WIDEN)
}

/// `v` widened down against rounding.
#[inline]
fn down(v: f64) -> f64 {
    v * (1.0 - WIDEN)
}

/// `(γ, κ)` of a constant-product curve (input-side fee factor, output-side keep factor), `None` for the
/// other curves.
fn constant_product(curve: &Curve) -> Option<(f64, f64)> {
    match curve {
        Curve::ConstantProduct(c) => Some((1.0 - f64::from(c.lp_fee) / 1e4, 1.0 - f64::from(c.protocol_fee) / 1e4)),
        Curve::DexAVolatile(c) => Some((1.0 - f64::from(c.fee_bps) / 1e4, 1.0)),
        _ => None,
    }
}

/// The routings a bound covers: at most `routes` routes of at most `hops` hops, each a simple path (module
/// doc, "Fee rounded down"; only the `dex_a` volatile rounding slack depends on them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most routes (so most swaps through one pool direction).
    pub routes: usize,
    /// Most hops of a route.
    pub hops: usize,
}

impl Limits {
    /// Every routing the router can make: [`QuoteRequest::MAX_SPLITS`] routes of [`QuoteRequest::MAX_LENGTH`]
    /// hops.
    pub const ROUTER: Limits = Limits { routes: QuoteRequest::MAX_SPLITS, hops: QuoteRequest::MAX_LENGTH };

    /// A request's limits (clamped to [`Self::ROUTER`]'s, which its validation already enforces).
    pub fn of(request: &QuoteRequest) -> Limits {
        Limits {
            routes: request.max_splits().clamp(1, QuoteRequest::MAX_SPLITS),
            hops: request.max_length().clamp(1, QuoteRequest::MAX_LENGTH),
        }
    }
}

/// The fee fraction `f` of a `dex_a` volatile curve when it is positive: its contract rounds the fee down.
fn fee_rounded_down(curve: &Curve) -> Option<f64> {
    match curve {
        Curve::DexAVolatile(c) if c.fee_bps > 0 => Some(f64::from(c.fee_bps) / 1e4),
        _ => None,
    }
}

/// The fee-rounding slack (module doc, "Fee rounded down"): the `hops` largest per-swap values met so far,
/// largest first, each to be counted `routes` times.
struct Slack {
    top: [f64; QuoteRequest::MAX_LENGTH],
    limits: Limits,
}

impl Slack {
    fn new(limits: Limits) -> Slack {
        Slack { top: [0.0; QuoteRequest::MAX_LENGTH], limits }
    }

    /// Offers one direction's per-swap value.
    fn offer(&mut self, value: f64) {
        let last = self.limits.hops - 1;
        if value > self.top[last] {
            self.top[last] = value;
            self.top[..=last].sort_by(|a, b| b.total_cmp(a));
        }
    }

    /// `routes · Σ top`, rounded up: the most the rounding can add to a covered routing's value.
    fn total(&self) -> f64 {
        let sum: f64 = self.top.iter().sum();
        let n = (QuoteRequest::MAX_LENGTH + 2) as f64;
        up(up(sum * (1.0 + n * f64::EPSILON)) * self.limits.routes as f64)
    }
}

/// `sup_u ν_b·κy·γu/(x + γu) − ν_a·u`, rounded up: `(√A − √B)²` with `A = ν_b·κ·y`, `B = ν_a·x/γ`.
fn constant_product_arb(gamma: f64, keep: f64, x: f64, y: f64, nu_in: f64, nu_out: f64) -> f64 {
    let a_hi = up(nu_out * keep * y);
    let b_lo = down(nu_in * x / gamma);
    if a_hi <= b_lo {
        return 0.0;
    }
    // (√A − √B)² grows with A and falls with B while A > B, so the widened ends bound it from above.
    let d = up(up(a_hi.sqrt()) - down(b_lo.sqrt()));
    up(d * d)
}

/// The certificate of `quote` on `graph`: prices from the quote's own marginal rates (module doc), covering
/// every routing the router can make ([`Limits::ROUTER`]).
pub fn certify(graph: &PoolGraph, quote: &Quote) -> Result<Certificate, CertificateError> {
    certify_within(graph, quote, Limits::ROUTER, Budget::UNLIMITED)
}

/// [`certify`] for the routings within `limits`, within a [`Budget`]: [`CertificateError::BudgetExhausted`]
/// when it runs out first (also when it already had, e.g. during the quote).
pub fn certify_within(
    graph: &PoolGraph,
    quote: &Quote,
    limits: Limits,
    budget: Budget<'_>,
) -> Result<Certificate, CertificateError> {
    if budget.exhausted() {
        return Err(CertificateError::BudgetExhausted);
    }
    let (src, dst) = ends(graph, quote)?;
    let first = bound(graph, src, dst, quote.in_amount, &flows_of(quote), limits, budget)?;
    certificate_of(&first, quote.out_amount)
}

/// The graph ids of the quote's input and output assets.
fn ends(graph: &PoolGraph, quote: &Quote) -> Result<(AssetId, AssetId), CertificateError> {
    let id = |a: &crate::asset::Asset| {
        graph.asset_id(a).ok_or_else(|| CertificateError::UnknownAsset { asset: a.to_string() })
    };
    Ok((id(&quote.in_asset)?, id(&quote.out_asset)?))
}

/// The certificate of a bound for a quote that got `out`; a bound below `out` is [`CertificateError::GraphMoved`].
fn certificate_of(b: &Bound, out: u128) -> Result<Certificate, CertificateError> {
    if b.value < out {
        return Err(CertificateError::GraphMoved { bound: b.value, out });
    }
    Ok(Certificate { upper_bound: b.value, gap_bps: gap_bps(b.value, out), arbitrage_terms: b.arbitrage_terms })
}

/// Most routes of the pricing quote of [`certify_request`].
pub const PRICING_SPLITS: usize = QuoteRequest::MAX_SPLITS;

/// Most hops per route of the pricing quote of [`certify_request`].
pub const PRICING_LENGTH: usize = 4;

/// The certificate of `quote`, the router's answer to `request`, priced twice: by the quote's own flows
/// ([`certify`]) and, when the request's limits are tighter than [`PRICING_SPLITS`] routes of
/// [`PRICING_LENGTH`] hops, by the flows of a quote of the same input with those limits — closer to the
/// unconstrained optimum, so its marginal rates are closer to the optimal dual prices. Both are valid bounds;
/// the certificate keeps the lower one, and its gap is the quote's own. The second pricing only ever lowers
/// the bound: when its quote or its bound fails, the first bound stands.
///
/// For an exact-out quote the bound is on the output of its input: the most any routing of `in_amount`
/// could get (the module doc, "What it ignores").
pub fn certify_request(
    router: &Router,
    graph: &PoolGraph,
    request: &QuoteRequest,
    quote: &Quote,
) -> Result<Certificate, CertificateError> {
    certify_request_within(router, graph, request, quote, Budget::UNLIMITED)
}

/// [`certify_request`] within a [`Budget`] (the one the quote ran under): the first bound must be complete
/// ([`CertificateError::BudgetExhausted`] otherwise); the wider pricing quote reads the same budget, and when
/// the budget runs out during it or its bound, the first bound is the answer.
pub fn certify_request_within(
    router: &Router,
    graph: &PoolGraph,
    request: &QuoteRequest,
    quote: &Quote,
    budget: Budget<'_>,
) -> Result<Certificate, CertificateError> {
    let limits = Limits::of(request);
    let mut best = certify_within(graph, quote, limits, budget)?;
    if request.max_splits() < PRICING_SPLITS || request.max_length() < PRICING_LENGTH {
        let relaxed = request
            .to_builder()
            .amount(quote.in_amount)
            .swap_mode(SwapMode::ExactIn)
            .max_splits(request.max_splits().max(PRICING_SPLITS))
            .max_length(request.max_length().max(PRICING_LENGTH))
            .build();
        // A pricing quote that fails (the budget ran out before any route) only leaves the first bound; one cut
        // short still prices a valid bound, which is computed only while the budget lasts. (A relaxed request
        // out of the limits, which the widened bounds cannot make, is refused like a failed quote.)
        let pricing = relaxed.and_then(|r| router.quote(graph, &r, QuoteOptions::default().within(budget)));
        if let Ok(pricing) = pricing {
            let (src, dst) = ends(graph, quote)?;
            let other = bound(graph, src, dst, quote.in_amount, &flows_of(&pricing), limits, budget)
                .and_then(|b| certificate_of(&b, quote.out_amount));
            if let Ok(other) = other {
                if other.upper_bound < best.upper_bound {
                    best = other;
                }
            }
        }
    }
    Ok(best)
}

/// Total input of the quote per pool direction.
fn flows_of(quote: &Quote) -> AHashMap<(PoolId, Direction), u128> {
    let mut flows: AHashMap<(PoolId, Direction), u128> = AHashMap::new();
    for step in quote.routes.iter().flat_map(|r| &r.steps) {
        *flows.entry((step.pool, step.direction)).or_default() += step.in_amount;
    }
    flows
}

/// `10000 · (bound − out) / bound`.
pub(crate) fn gap_bps(bound: u128, out: u128) -> f64 {
    if bound == 0 {
        return 0.0;
    }
    (bound as f64 - out as f64) / bound as f64 * 1e4
}

/// A bound and how many arbitrage terms it has.
pub(crate) struct Bound {
    /// The bound, rounded up.
    pub value: u128,
    /// Pool directions with a positive arb term.
    pub arbitrage_terms: usize,
    /// The fee-rounding slack in it, rounded down (read by the tests).
    #[cfg_attr(not(test), allow(dead_code))]
    pub slack: u128,
}

/// The pricing rate of a pool direction: the marginal rate after the flow for a traded constant-product
/// direction, else the rate ceiling at zero; `None` for an empty pool.
fn pricing_rate(graph: &PoolGraph, pool: PoolId, dir: Direction, flow: Option<u128>) -> Option<f64> {
    let (x, y) = dir.split(graph.reserves(pool));
    if x == 0 || y == 0 {
        return None;
    }
    let (x, y) = (x as f64, y as f64);
    match (constant_product(&graph.pool(pool).curve), flow) {
        (Some((gamma, keep)), Some(u)) if u > 0 => {
            let d = x + gamma * u as f64;
            Some(keep * gamma * x * y / (d * d))
        }
        (Some((gamma, keep)), _) => Some(keep * gamma * y / x * (1.0 + CP_CEILING_MARGIN)),
        (None, _) => Some(graph.form(pool, dir)?.s * (1.0 + CEILING_MARGIN)),
    }
}

/// `B(ν)` for the prices the flows give (module doc), plus the fee-rounding slack of the routings within
/// `limits`, rounded up; [`CertificateError::BudgetExhausted`] when `budget` runs out first.
pub(crate) fn bound(
    graph: &PoolGraph,
    src: AssetId,
    dst: AssetId,
    amount: u128,
    flows: &AHashMap<(PoolId, Direction), u128>,
    limits: Limits,
    budget: Budget<'_>,
) -> Result<Bound, CertificateError> {
    let nu = prices(graph, dst, flows, budget)?;
    let mut terms = 0usize;
    let mut sum = up(nu[src.index()] * amount as f64);
    let mut slack = Slack::new(limits);
    for (i, meta) in graph.pools().iter().enumerate() {
        if i as u32 % CHECK_EVERY == CHECK_EVERY - 1 && budget.exhausted() {
            return Err(CertificateError::BudgetExhausted);
        }
        let pool = PoolId(i as u32);
        let reserves = graph.reserves(pool);
        for dir in [Direction::ZeroToOne, Direction::OneToZero] {
            let (x, y) = dir.split(reserves);
            let (a, b) = (meta.assets[dir.in_index()], meta.assets[1 - dir.in_index()]);
            let (nu_a, nu_b) = (nu[a.index()], nu[b.index()]);
            if x == 0 || y == 0 || nu_b == 0.0 {
                continue;
            }
            let arb = match constant_product(&meta.curve) {
                Some((gamma, keep)) => {
                    if fee_rounded_down(&meta.curve).is_some() {
                        // One swap's rounding is worth less than 1/γ unit in or y/x unit out (module doc).
                        slack.offer(up(nu_a / gamma).min(up(up(nu_b * y as f64) / x as f64)));
                    }
                    constant_product_arb(gamma, keep, x as f64, y as f64, nu_a, nu_b)
                }
                None => {
                    // The same ceiling the prices were built with, so untraded pools pass exactly.
                    let Some(rho) = pricing_rate(graph, pool, dir, None) else { continue };
                    // ρ is above the true ceiling by 10⁻⁹, far more than the product's rounding.
                    if nu_a >= rho * nu_b {
                        0.0
                    } else if matches!(meta.curve, Curve::Concentrated(_)) {
                        return Err(CertificateError::Unbounded { pool: meta.address.to_hex() });
                    } else {
                        // ν_b·y·(1 − ν_a/(ρ·ν_b)) ≤ ν_b·y, widened up.
                        up(up(nu_b * y as f64) * (1.0 - down(nu_a / up(rho * nu_b))).max(0.0))
                    }
                }
            };
            if arb > 0.0 {
                terms += 1;
                sum += arb;
            }
        }
    }
    let slack = slack.total();
    sum += slack;
    let n = (terms + 3) as f64;
    let total = sum * (1.0 + n * f64::EPSILON);
    let value = if total >= u128::MAX as f64 { u128::MAX } else { total.ceil() as u128 };
    Ok(Bound { value, arbitrage_terms: terms, slack: slack as u128 })
}

/// `ν_t`: the best product of pricing rates from `t` to `dst` (`ν_dst = 1`), `0` outside `dst`'s component;
/// [`CertificateError::BudgetExhausted`] when `budget` runs out first.
fn prices(
    graph: &PoolGraph,
    dst: AssetId,
    flows: &AHashMap<(PoolId, Direction), u128>,
    budget: Budget<'_>,
) -> Result<Vec<f64>, CertificateError> {
    let mut nu = vec![0.0f64; graph.asset_count()];
    let mut raises = vec![0u32; graph.asset_count()];
    let mut queued = vec![false; graph.asset_count()];
    nu[dst.index()] = 1.0;
    let mut queue = VecDeque::from([dst]);
    queued[dst.index()] = true;
    // Edges looked at, for the budget (a hub has thousands: counting assets would read the clock too rarely).
    let mut looked = 0u32;
    while let Some(b) = queue.pop_front() {
        queued[b.index()] = false;
        let nu_b = nu[b.index()];
        // Each edge b → a of the adjacency is a pool that trades a → b the other way round.
        for e in graph.edges(b) {
            looked = looked.wrapping_add(1);
            if looked.is_multiple_of(CHECK_EVERY) && budget.exhausted() {
                return Err(CertificateError::BudgetExhausted);
            }
            let a = e.to;
            if a == dst {
                continue;
            }
            let dir = e.direction.reverse();
            let Some(rate) = pricing_rate(graph, e.pool, dir, flows.get(&(e.pool, dir)).copied()) else {
                continue;
            };
            let candidate = up(rate * nu_b);
            let slot = &mut nu[a.index()];
            let first = *slot == 0.0;
            if candidate > *slot && (first || raises[a.index()] < MAX_IMPROVEMENTS) {
                *slot = candidate;
                if !first {
                    raises[a.index()] += 1;
                }
                if !queued[a.index()] {
                    queued[a.index()] = true;
                    queue.push_back(a);
                }
            }
        }
    }
    settle_ceilings(graph, dst, &mut nu, budget)?;
    Ok(nu)
}

/// Lowers prices until every direction priced by its rate ceiling (every curve but constant product) is inside
/// its fee band, `ν_a ≥ ρ·ν_b`, wherever that needs no change of `ν_dst` (module doc, "Prices"): such a
/// direction's term is then exactly zero, where it would otherwise be capped only by the pool's reserve, or,
/// for a concentrated pool, unbounded. The search leaves a direction out of its band only out of the output
/// asset (whose price stays 1) on a graph with an arbitrage cycle through it, or past [`MAX_IMPROVEMENTS`]
/// raises; on a graph without arbitrage this changes nothing. Each asset is lowered at most
/// [`MAX_IMPROVEMENTS`] times.
fn settle_ceilings(
    graph: &PoolGraph,
    dst: AssetId,
    nu: &mut [f64],
    budget: Budget<'_>,
) -> Result<(), CertificateError> {
    let mut lowered = vec![0u32; graph.asset_count()];
    let mut queue = VecDeque::new();
    // Lowers `ν_b` into the band of a direction `a → b` out of it (the test is `bound`'s, so the term is 0).
    let mut settle = |nu: &mut [f64], pool: PoolId, dir: Direction, a: AssetId, b: AssetId| -> bool {
        if b == dst
            || lowered[b.index()] >= MAX_IMPROVEMENTS
            || !matches!(graph.pool(pool).curve, Curve::Concentrated(_))
        {
            return false;
        }
        let Some(rho) = pricing_rate(graph, pool, dir, None) else { return false };
        let nu_a = nu[a.index()];
        if nu_a >= rho * nu[b.index()] {
            return false;
        }
        let mut v = nu_a / rho;
        while v > 0.0 && nu_a < rho * v {
            v = down(v);
        }
        nu[b.index()] = v;
        lowered[b.index()] += 1;
        true
    };
    for (i, meta) in graph.pools().iter().enumerate() {
        if i as u32 % CHECK_EVERY == CHECK_EVERY - 1 && budget.exhausted() {
            return Err(CertificateError::BudgetExhausted);
        }
        for dir in [Direction::ZeroToOne, Direction::OneToZero] {
            let (a, b) = (meta.assets[dir.in_index()], meta.assets[1 - dir.in_index()]);
            if settle(nu, PoolId(i as u32), dir, a, b) {
                queue.push_back(b);
            }
        }
    }
    let mut looked = 0u32;
    while let Some(a) = queue.pop_front() {
        for e in graph.edges(a) {
            looked = looked.wrapping_add(1);
            if looked.is_multiple_of(CHECK_EVERY) && budget.exhausted() {
                return Err(CertificateError::BudgetExhausted);
            }
            if settle(nu, e.pool, e.direction, a, e.to) {
                queue.push_back(e.to);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::Asset;
    use crate::graph::testkit::jetton;
    use crate::route::testkit::{graph, DEPTH, FEE_BPS};
    use crate::route::{QuoteOptions, QuoteRequest, Router, RouterConfig};

    fn quote(g: &PoolGraph, from: Asset, to: Asset, amount: u128, splits: usize) -> Quote {
        let req = QuoteRequest::builder(from, to, amount).max_splits(splits).build().unwrap();
        let router = Router::new(RouterConfig { network_fees: crate::route::NetworkFees::ZERO, ..Default::default() });
        router.quote(g, &req, QuoteOptions::default()).unwrap()
    }

    /// The continuous constant-product output `γ·a·y/(x + γ·a)` (γ = 1 − FEE_BPS/10⁴) as an exact fraction.
    fn cp_exact(x: u128, y: u128, a: u128) -> (u128, u128) {
        let keep = 10_000 - u128::from(FEE_BPS);
        (keep * a * y, x * 10_000 + keep * a)
    }

    #[test]
    fn one_pool_bound_is_its_continuous_output() {
        // One pool: the optimum of every routing is f(a) exactly, and at the quote's marginal price the dual
        // is tight (strong duality), so the bound is f(a) up to rounding.
        let (x, y) = (DEPTH, 3 * DEPTH);
        let g = graph(2, &[(0, 1, [x, y])]);
        for a in [1_000u128, 1_000_000_000, 50_000_000_000, 400_000_000_000] {
            let q = quote(&g, Asset::Native, jetton(1), a, 1);
            let c = certify(&g, &q).unwrap();
            let (num, den) = cp_exact(x, y, a);
            let optimum_ceil = num.div_ceil(den);
            assert!(c.upper_bound >= optimum_ceil, "a {a}: bound {} < optimum {optimum_ceil}", c.upper_bound);
            assert!(c.upper_bound >= q.out_amount);
            // Tight: within 10⁻⁹ of the optimum plus two units.
            let slack = optimum_ceil / 1_000_000_000 + 2;
            assert!(c.upper_bound <= optimum_ceil + slack, "a {a}: bound {} vs optimum {optimum_ceil}", c.upper_bound);
            assert_eq!(c.arbitrage_terms, 1, "only the traded direction is out of balance");
        }
    }

    /// The optimum over two parallel constant-product pools with the same fee, both in use: marginal rates
    /// equal at λ, `x_i + γu_i = √(γx_iy_i/λ)`, so `1/√λ = (x₁ + x₂ + γa)/Σ√(γx_iy_i)` and the output is
    /// `Σy_i − √λ·Σ√(x_iy_i/γ)`.
    fn two_pools_optimum(p: [(f64, f64); 2], a: f64) -> f64 {
        let gamma = 1.0 - f64::from(FEE_BPS) / 1e4;
        let root: f64 = p.iter().map(|(x, y)| (gamma * x * y).sqrt()).sum();
        let sqrt_lambda = root / (p[0].0 + p[1].0 + gamma * a);
        p.iter().map(|(x, y)| y - sqrt_lambda * (x * y / gamma).sqrt()).sum()
    }

    #[test]
    fn two_parallel_pools_bound_meets_the_closed_form_split() {
        // Spot rates 2γ and 1.952γ: from about 1.2 % of the first pool's depth on, both pools are in use.
        let p = [(DEPTH, 2 * DEPTH), (3 * DEPTH, 6 * DEPTH - DEPTH / 7)];
        let g = graph(2, &[(0, 1, p[0].into()), (0, 1, p[1].into())]);
        let pf = [(p[0].0 as f64, p[0].1 as f64), (p[1].0 as f64, p[1].1 as f64)];
        for a in [20_000_000_000u128, 300_000_000_000, 900_000_000_000] {
            let optimum = two_pools_optimum(pf, a as f64);
            // Both pools in use at this size (the spot rates differ by less than the impact).
            let q = quote(&g, Asset::Native, jetton(1), a, 2);
            assert_eq!(q.routes.len(), 2);
            let c = certify(&g, &q).unwrap();
            assert!(c.upper_bound as f64 >= optimum * (1.0 - 1e-12), "a {a}: {} < {optimum}", c.upper_bound);
            assert!(c.upper_bound >= q.out_amount);
            assert!((c.upper_bound as f64 - optimum) / optimum < 1e-6, "a {a}: {} vs {optimum}", c.upper_bound);
            // With one route allowed the quote is below the optimum, and the bound still covers it.
            let single = quote(&g, Asset::Native, jetton(1), a, 1);
            let c1 = certify(&g, &single).unwrap();
            assert!(c1.upper_bound as f64 >= optimum, "a {a}: single-route prices {} < {optimum}", c1.upper_bound);
            assert!(c1.gap_bps > c.gap_bps);
        }
    }

    #[test]
    fn a_farther_pool_the_quote_does_not_move_adds_nothing() {
        // A chain 0–1–2 plus a side pool 1–3: the side pool is inside its fee band at the prices, so only the
        // traded directions carry terms, and the bound is the one of the two-hop path alone.
        let g = graph(4, &[(0, 1, [DEPTH, DEPTH]), (1, 2, [DEPTH, 2 * DEPTH]), (1, 3, [DEPTH, 9 * DEPTH])]);
        let a = 10_000_000_000;
        let q = quote(&g, Asset::Native, jetton(2), a, 1);
        let c = certify(&g, &q).unwrap();
        assert_eq!(c.arbitrage_terms, 2);
        // The two-hop continuous output, composed exactly: f₂(f₁(a)).
        let (n1, d1) = cp_exact(DEPTH, DEPTH, a);
        let mid = n1 as f64 / d1 as f64;
        let gamma = 1.0 - f64::from(FEE_BPS) / 1e4;
        let optimum = gamma * mid * 2.0 * DEPTH as f64 / (DEPTH as f64 + gamma * mid);
        assert!(c.upper_bound as f64 >= optimum && (c.upper_bound as f64 - optimum) / optimum < 1e-9);
    }

    #[test]
    fn an_arbitrage_cycle_is_counted_not_ignored() {
        // 0→1→2→0 gains 2x around the cycle: any routing from 0 to 2 can also run the cycle, so the optimum is
        // above the best path; the bound must cover the cycle's pools too (they are out of balance at any
        // prices) and stays finite.
        let g = graph(3, &[(0, 1, [DEPTH, DEPTH]), (1, 2, [DEPTH, DEPTH]), (2, 0, [DEPTH, 2 * DEPTH])]);
        let a = 1_000_000_000;
        let q = quote(&g, Asset::Native, jetton(2), a, 2);
        let c = certify(&g, &q).unwrap();
        assert!(c.upper_bound >= q.out_amount);
        assert!(c.arbitrage_terms >= 1);
        // The cycle is worth something even at zero input, so the bound exceeds the quote.
        assert!(c.upper_bound > q.out_amount);
    }

    #[test]
    fn a_budget_that_runs_out_gives_no_certificate_and_a_spent_one_none_at_all() {
        // A chain long enough that the price search reads the budget (400 edges; the pool pass reads it every
        // 256 pools, more than a test graph holds).
        let pools: Vec<(u32, u32, [u128; 2])> = (0..200u32).map(|i| (i, i + 1, [DEPTH, DEPTH])).collect();
        let g = graph(201, &pools);
        let q = quote(&g, Asset::Native, jetton(3), 1_000_000_000, 1);
        let full = certify(&g, &q).unwrap();
        // Counting budgets: stop at the k-th read; a complete certificate is the unlimited one, exactly.
        let reads = |limit: u64| {
            let calls = std::cell::Cell::new(0u64);
            let stop = || {
                calls.set(calls.get() + 1);
                calls.get() > limit
            };
            let latch = std::cell::Cell::new(false);
            let c = certify_within(&g, &q, Limits::ROUTER, Budget::until(&stop, &latch));
            (c, calls.get(), latch.get())
        };
        let (c, needed, latched) = reads(u64::MAX);
        assert_eq!(c.unwrap(), full);
        assert!(!latched && needed >= 2, "the start and the price search read it ({needed})");
        for limit in 0..needed {
            let (c, calls, latched) = reads(limit);
            assert_eq!(c, Err(CertificateError::BudgetExhausted), "stopped at read {}", limit + 1);
            assert!(latched && calls == limit + 1, "stopped at the first read that said stop");
        }
    }

    #[test]
    fn a_pool_drained_after_the_quote_is_named_not_certified() {
        let g = graph(2, &[(0, 1, [DEPTH, DEPTH])]);
        let q = quote(&g, Asset::Native, jetton(1), 10_000_000_000, 1);
        assert!(certify(&g, &q).is_ok());
        // The output reserve falls below the quote's output: no routing now gets what the quote says.
        g.update_reserves(PoolId(0), [DEPTH, q.out_amount / 2]).unwrap();
        match certify(&g, &q) {
            Err(CertificateError::GraphMoved { bound, out }) => assert!(bound < out && out == q.out_amount),
            other => panic!("expected GraphMoved, got {other:?}"),
        }
        // certify_request keeps its first answer: no certificate either.
        let router = Router::new(RouterConfig { network_fees: crate::route::NetworkFees::ZERO, ..Default::default() });
        let req = QuoteRequest::builder(Asset::Native, jetton(1), 10_000_000_000).max_splits(1).build().unwrap();
        assert!(matches!(certify_request(&router, &g, &req, &q), Err(CertificateError::GraphMoved { .. })));
    }

    /// One `dex_a` volatile pool `(x, y)`, fee `fee_bps`, between native (0) and jetton 1.
    fn dex_a_graph(x: u128, y: u128, fee_bps: u16) -> PoolGraph {
        use crate::graph::{PoolContext, Protocol};
        use crate::pool::DexAVolatile;
        let (mut b, _) = crate::graph::testkit::builder_with_assets(1);
        let curve = Curve::DexAVolatile(DexAVolatile { fee_bps });
        let address = tonlib_core::TonAddress::new(0, [9u8; 32].into());
        b.add_pool(address, Protocol::DexA, [AssetId(0), AssetId(1)], curve, [x, y], PoolContext::default(), None)
            .unwrap();
        b.build()
    }

    #[test]
    fn a_fee_rounded_down_is_covered_swap_by_swap() {
        // 1 native buys 1000 jetton; at 30 bp a swap below 334 units pays no fee at all (⌊u·0.003⌋ = 0), so the
        // contract pays up to 0.3 % more than the continuous curve with its fee — the old bound's blind spot.
        let g = dex_a_graph(1_000_000_000, 1_000_000_000_000, 30);
        let router = Router::new(RouterConfig { network_fees: crate::route::NetworkFees::ZERO, ..Default::default() });
        let mut beaten = 0;
        for u in (1u128..=1_000).chain([1_333, 3_333, 33_333, 333_333, 1_000_000]) {
            let req = QuoteRequest::builder(Asset::Native, jetton(1), u).max_splits(1).max_length(1).build().unwrap();
            let q = router.quote(&g, &req, QuoteOptions::default()).unwrap();
            // Without the slack: the curve's bound, which the contract beats wherever the fee rounds away.
            let (src, dst) = ends(&g, &q).unwrap();
            let b = bound(&g, src, dst, u, &flows_of(&q), Limits { routes: 1, hops: 1 }, Budget::UNLIMITED).unwrap();
            let tight = b.value - b.slack;
            beaten += usize::from(q.out_amount > tight);
            let c = certify_request(&router, &g, &req, &q).unwrap_or_else(|e| panic!("u {u}: {e}"));
            assert!(c.upper_bound >= q.out_amount, "u {u}: bound {} < out {}", c.upper_bound, q.out_amount);
            // One route of one hop: the slack is one swap's rounding, at most one unit in (worth ~1000 out).
            assert!(
                c.upper_bound <= q.out_amount * 1_004 / 1_000 + 1_100,
                "u {u}: bound {} for out {}",
                c.upper_bound,
                q.out_amount
            );
            // The router's limits allow 20 swaps here and 100 in all: a looser, still valid bound.
            assert!(certify(&g, &q).unwrap().upper_bound >= c.upper_bound);
        }
        assert!(beaten > 100, "the rounding beat the curve's bound on {beaten} amounts only");
    }

    /// Native (0) and jetton 1 in a `dex_c` pool at price 1 (one wide position, fee 30 bp).
    fn concentrated(liquidity: u128) -> Curve {
        use crate::pool::concentrated::{ClState, Tick};
        let l = liquidity;
        let net = i128::try_from(l).unwrap();
        let ticks = vec![
            Tick { tick: -200_000, liquidity_net: net, liquidity_gross: l },
            Tick { tick: 200_000, liquidity_net: -net, liquidity_gross: l },
        ];
        let state = ClState { sqrt_price_x96: primitive_types::U256::one() << 96, tick: 0, liquidity: l };
        Curve::Concentrated(crate::pool::Concentrated::new(30, 0, 1, ticks, state).unwrap())
    }

    #[test]
    fn an_arbitrage_through_a_concentrated_pool_is_bounded_and_counted() {
        use crate::graph::{PoolContext, Protocol};
        // The dex_c pool sells jetton at 1 native, a dex_b_v2 pool buys it at 0.5: jetton → dex_c → native →
        // dex_b → jetton gains ~2x. At the search's prices the dex_c direction out of the output (jetton, price
        // 1) is out of its band; it used to make the certificate refuse (Unbounded).
        let (mut b, _) = crate::graph::testkit::builder_with_assets(1);
        let ctx =
            || PoolContext { router: Some(tonlib_core::TonAddress::new(0, [200; 32].into())), router_wallets: None };
        let (p0, p1) =
            (tonlib_core::TonAddress::new(0, [1; 32].into()), tonlib_core::TonAddress::new(0, [2; 32].into()));
        let pair = [AssetId(0), AssetId(1)];
        let conc = b.add_pool(p0, Protocol::DexC, pair, concentrated(DEPTH), [0, 0], ctx(), None).unwrap();
        let cp = Curve::ConstantProduct(crate::pool::ConstantProduct::new(crate::pool::FeeModel::V2, FEE_BPS, 0, 0));
        let cpmm = b.add_pool(p1, Protocol::DexBV2, pair, cp, [DEPTH, 2 * DEPTH], ctx(), None).unwrap();
        let g = b.build();
        let q = quote(&g, Asset::Native, jetton(1), 1_000_000_000, 2);
        let c = certify(&g, &q).expect("a certificate despite the cycle");
        assert!(c.upper_bound >= q.out_amount && c.arbitrage_terms >= 1, "{c:?}");
        // A routing of the same input that also runs the cycle with its output: the bound must cover it.
        let routes = [
            (vec![(cpmm, Direction::ZeroToOne)], q.in_amount),
            (vec![(conc, Direction::OneToZero), (cpmm, Direction::ZeroToOne)], q.out_amount),
        ];
        let outs = crate::route::simulate_routes(&g, &routes).unwrap();
        let cycled = *outs[1].last().unwrap();
        assert!(cycled > q.out_amount, "the cycle gains: {cycled} vs {}", q.out_amount);
        assert!(c.upper_bound >= cycled, "bound {} below a routing that ran the cycle, {cycled}", c.upper_bound);
    }

    #[test]
    fn gap_is_in_basis_points_of_the_bound() {
        assert_eq!(gap_bps(10_000, 9_999), 1.0);
        assert_eq!(gap_bps(0, 0), 0.0);
        assert_eq!(gap_bps(1_000_000, 1_000_000), 0.0);
    }
}
