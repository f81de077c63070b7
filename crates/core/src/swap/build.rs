//! From a quote's `swap_data` to the messages a wallet signs: re-checking it against the graph, resolving the
//! addresses each protocol needs, and handing per-protocol arguments to the layout builders.
//!
//! Owns the security checks of `POST /v4/router/swap` and the mapping "route of steps → [`SwapArgs`]". It does
//! no I/O and reads no clock: `query_id` and `deadline` are inputs, so the same graph state and request give the
//! same bytes. It must not touch the layouts (sibling modules), the pool math or the router; it only calls them.
//!
//! # What is checked, before any message is built
//!
//! `swap_data` may have travelled through a client, so nothing in it is trusted. In order:
//!
//! 1. `slippage_bps` is within 0..=10000; the sender is a real account (not the zero address) of workchain 0
//!    (jetton wallets serve basechain owners only: [`MASTERCHAIN_SENDER`]).
//! 2. 1..=[`MAX_ROUTES`] routes, each of 1..=[`MAX_STEPS`] steps; every step amount is in 1..2^120, its two
//!    assets differ, it carries extra details only of its own exchange (`dex_b` on `dex_b_*`, `dex_c` on
//!    `dex_c`), and its input asset and `in_amount` are the previous step's output asset and `out_amount`.
//! 3. Per step, against the graph: the pool exists, is of the named protocol, trades exactly the step's two
//!    assets (this fixes the direction) and has the step's `is_stable` flag.
//! 4. Route shape: every step may follow the previous one under the hand-off rule ([`crate::graph::handoff`])
//!    with the hand-offs this builder makes ([`BUILT_HANDOFFS`]); `dex_b_*` / `dex_c` extra details equal to the
//!    graph's pool context. A pool whose context the graph lacks is quote-only ([`SwapError::QuoteOnlyPool`]);
//!    a step the quote marked quote-only on a pool this graph can swap, and a `swap_data` none of whose pools
//!    the graph has, were quoted on another graph ([`SwapError::QuotedElsewhere`],
//!    [`SwapError::PoolsNotInGraph`]).
//! 5. All routes go from the same asset to the same (different) asset.
//! 6. **Fresh simulation.** Every route is re-run with the exact pool math on the graph's current reserves, jointly
//!    and in the given order ([`crate::route::simulate_routes`], as the quote was made), from its first step's
//!    `in_amount`. A route whose fresh output is below its min-out is refused with [`SwapError::PriceMoved`].
//! 7. While building: addresses the messages need exist: `dex_a` vaults, the sender's jetton wallet for a jetton
//!    offer (from a [`JettonWalletResolver`]; an unknown wallet is [`SwapError::UnknownJettonWallet`], never a
//!    guess).
//!
//! Rules 1–6 are [`check_swap`], the one check of `swap_data` in the crate (the JSON layer parses the wire and
//! calls it; it does not check again): it returns a [`CheckedSwap`], and building from one
//! ([`build_checked`], [`plan_checked`]) neither checks nor simulates again, so a swap is simulated once.
//!
//! # Min-out
//!
//! Each route's min-out is `floor(quoted_out · (10000 − slippage_bps) / 10000)` of the **quoted** output (the
//! last step's `out_amount`), not of the fresh one: the user agreed to the quote, and a price that moved in their
//! favour must not tighten the limit into a refund. Intermediate hops of `dex_a` and `dex_b_v2` routes get 0
//! ([`super::route_min_outs`]).
//!
//! # Addresses per protocol
//!
//! | protocol | message to (TON offer / jetton offer) | hop addresses |
//! |---|---|---|
//! | `dex_b_v1` | step's `from_router_wallet` (router's pTON wallet) / user's jetton wallet | step's `to_router_wallet` |
//! | `dex_b_v2` | first step's `from_router_wallet` (pTON v2) / user's jetton wallet | each step's `to_router_wallet` |
//! | `dex_a` | the native vault / user's jetton wallet (transfer to the offer jetton's vault) | each pool |
//! | `dex_c` | step's `from_router_wallet` (router pTON wallet) / user's jetton wallet | step's `to_router_wallet` |
//!
//! The `dex_c` router is the pool context's `router` when the graph has one, else the SDK's
//! [`dex_c::MAINNET_ROUTER`]; its price limit is the loosest one ([`dex_c::no_price_limit`]). A referral applies
//! to `dex_a`, `dex_b_v1` and `dex_b_v2` (whose fee travels in the message); `dex_c` has no referral field.
//!
//! ```
//! use tonroute_core::asset::Asset;
//! use tonroute_core::graph::{AssetMeta, GraphBuilder, PoolContext, Protocol};
//! use tonroute_core::pool::{ConstantProduct, Curve, FeeModel};
//! use tonroute_core::route::{QuoteOptions, QuoteRequest, Router};
//! use tonroute_core::swap::build::{build_swap, SwapRequest};
//! use tonroute_core::swap::GasTable;
//! use tonlib_core::TonAddress;
//!
//! let a = |b: u8| TonAddress::new(0, [b; 32].into());
//! let usdt: Asset = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe".parse().unwrap();
//! let mut b = GraphBuilder::new();
//! let ton = b.add_asset(AssetMeta::new(Asset::Native, "TON", 9)).unwrap();
//! let usd = b.add_asset(AssetMeta::new(usdt, "USDT", 6)).unwrap();
//! // A dex_b_v2 pool with its router and the router's pTON / USDT wallets.
//! let context = PoolContext { router: Some(a(1)), router_wallets: Some([a(2), a(3)]) };
//! let curve = Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0));
//! b.add_pool(a(7), Protocol::DexBV2, [ton, usd], curve, [1_860_000_000_000_000, 2_570_000_000_000], context, None)
//!     .unwrap();
//! let graph = b.build();
//!
//! let quote = Router::default().quote(&graph, &QuoteRequest::new(Asset::Native, usdt, 10_000_000_000).unwrap(), QuoteOptions::default()).unwrap();
//! let req = SwapRequest {
//!     sender: a(9),
//!     swap_data: quote.swap_data(&graph),
//!     query_id: 1,
//!     deadline: 1_767_225_600,
//!     referral: None,
//! };
//! // A TON offer needs no jetton wallet, so the graph's (empty) wallet table is resolver enough.
//! let resp = build_swap(&graph, &req, &GasTable::default(), &graph).unwrap();
//! assert_eq!(resp.transactions.len(), 1);
//! assert_eq!(resp.transactions[0].address, a(2).to_base64_url()); // the router's pTON wallet
//! assert_eq!(resp.transactions[0].amount, 10_000_000_000 + 310_000_000); // offer + dex_b_v2 gas
//!
//! // The same data after the pool lost 5 % of its USDT is stale: refused, no message.
//! graph.update_reserves(graph.pool_id(&a(7)).unwrap(), [1_860_000_000_000_000, 2_441_500_000_000]).unwrap();
//! assert!(build_swap(&graph, &req, &GasTable::default(), &graph).is_err());
//! ```

use tonlib_core::TonAddress;

use super::{dex_a, dex_b_v2, dex_c, route_min_outs, Direction, Hop, SwapArgs, SwapError, Terms};
use super::{Gas, GasTable, HandOver, Message};
use crate::asset::Asset;
use crate::graph::handoff;
use crate::graph::{HandOffKind, HandOffPolicy, PoolGraph, PoolId, Protocol};
use crate::pool::{Direction as PoolDirection, MAX_COINS};
use crate::route::{min_out, simulate_routes, QuoteRequest, SwapData, SwapStep};

/// Most routes one request may carry (a quote's `max_splits` limit).
pub const MAX_ROUTES: usize = QuoteRequest::MAX_SPLITS;

/// Most steps one route may have (a quote's `max_length` limit).
pub const MAX_STEPS: usize = QuoteRequest::MAX_LENGTH;

/// The hand-offs this builder turns into messages: every safe kind ([`crate::graph::handoff`]).
pub const BUILT_HANDOFFS: HandOffPolicy = HandOffPolicy::SAFE;

/// Finds a user's jetton wallet (the contract holding `owner`'s balance of `jetton`).
///
/// Implemented by [`PoolGraph`] (the snapshot's `jetton_wallets` overrides, then derivation from the jetton's
/// verified wallet family, [`PoolGraph::jetton_wallet`]) and by any
/// `Fn(&TonAddress, &Asset) -> Option<TonAddress>`. `None` means unknown; the swap is then refused.
pub trait JettonWalletResolver {
    /// `owner`'s wallet for `jetton`, if known.
    fn wallet(&self, owner: &TonAddress, jetton: &Asset) -> Option<TonAddress>;
}

impl JettonWalletResolver for PoolGraph {
    fn wallet(&self, owner: &TonAddress, jetton: &Asset) -> Option<TonAddress> {
        self.jetton_wallet(owner, jetton).ok()
    }
}

impl<F> JettonWalletResolver for F
where
    F: Fn(&TonAddress, &Asset) -> Option<TonAddress>,
{
    fn wallet(&self, owner: &TonAddress, jetton: &Asset) -> Option<TonAddress> {
        self(owner, jetton)
    }
}

/// A referrer paid by the pools a swap goes through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Referrer {
    /// The referrer's address.
    pub address: TonAddress,
    /// Fee in basis points, written by `dex_b_v2` only (0..=[`dex_b_v2::MAX_REF_FEE_BPS`]); `dex_b_v1` pools apply
    /// their stored fee and `dex_a` its own.
    pub fee_bps: u16,
}

/// What `POST /v4/router/swap` asks for, with the inputs the server derives from the request time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapRequest {
    /// The wallet that signs (and receives the output, refunds and excess).
    pub sender: TonAddress,
    /// The `swap_data` of a quote, untrusted.
    pub swap_data: SwapData,
    /// Query id written into every message.
    pub query_id: u64,
    /// Deadline, unix seconds (`dex_b_v2` `tx_deadline`, `dex_a` `deadline`, which must fit 32 bits; 0 = none
    /// for `dex_a`).
    pub deadline: u64,
    /// Referrer, if any.
    pub referral: Option<Referrer>,
}

/// One message in TON Connect form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// Destination, user-friendly bounceable form (`EQ…`), as the SDKs print it.
    pub address: String,
    /// Nanotons attached: offer + gas for a TON offer, gas alone for a jetton offer.
    pub amount: u128,
    /// The body as a base64 bag of cells.
    pub payload: String,
}

/// The answer to a [`SwapRequest`]: one transaction per route, in route order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapResponse {
    /// The request's query id.
    pub query_id: u64,
    /// One per route.
    pub transactions: Vec<Transaction>,
}

/// A swap request that passed rules 1–6 of the [module documentation](self) on a graph. Only [`check_swap`]
/// makes one; building from it ([`build_checked`], [`plan_checked`]) checks and simulates nothing again.
#[derive(Debug, Clone)]
pub struct CheckedSwap<'a> {
    request: &'a SwapRequest,
    paths: Vec<Vec<(PoolId, PoolDirection)>>,
}

impl CheckedSwap<'_> {
    /// The request that was checked.
    pub fn request(&self) -> &SwapRequest {
        self.request
    }

    /// Its `swap_data`.
    pub fn swap_data(&self) -> &SwapData {
        &self.request.swap_data
    }

    /// Each route's pools and directions in the graph it was checked on.
    pub fn paths(&self) -> &[Vec<(PoolId, PoolDirection)>] {
        &self.paths
    }
}

/// Checks `req` against `graph` (rules 1–6 of the [module documentation](self), in that order, the first
/// failure reported): the one check of a quote's `swap_data`, with the one fresh simulation of its routes.
pub fn check_swap<'a>(graph: &PoolGraph, req: &'a SwapRequest) -> Result<CheckedSwap<'a>, SwapError> {
    let data = &req.swap_data;
    let slippage_bps = data.slippage_bps;
    if slippage_bps > QuoteRequest::MAX_SLIPPAGE_BPS {
        return Err(SwapError::SlippageOutOfRange { slippage_bps });
    }
    check_sender(&req.sender)?;
    if data.routes.is_empty() {
        return Err(SwapError::EmptySwapData);
    }
    if data.routes.len() > MAX_ROUTES {
        return Err(SwapError::TooManyRoutes { routes: data.routes.len(), max: MAX_ROUTES });
    }
    let paths = data
        .routes
        .iter()
        .enumerate()
        .map(|(r, steps)| check_route(graph, r, steps))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| match e {
            // Not one pool known: the data belongs to another graph (a quote on another snapshot).
            SwapError::UnknownPool { route, step, pool }
                if data.routes.iter().flatten().all(|s| graph.pool_id(&s.pool_address).is_none()) =>
            {
                SwapError::PoolsNotInGraph { route, step, pool, pools: data.routes.iter().map(Vec::len).sum() }
            }
            other => other,
        })?;
    let (asset_in, asset_out) = route_ends(&data.routes[0]);
    if asset_in == asset_out {
        return Err(SwapError::SameAssetInOut { asset: asset_in.to_string() });
    }
    for (r, steps) in data.routes.iter().enumerate().skip(1) {
        let (i, o) = route_ends(steps);
        if (i, o) != (asset_in, asset_out) {
            return Err(SwapError::MixedAssets {
                route: r,
                expected_in: asset_in.to_string(),
                expected_out: asset_out.to_string(),
                found_in: i.to_string(),
                found_out: o.to_string(),
            });
        }
    }
    check_fresh_outputs(graph, data, &paths)?;
    Ok(CheckedSwap { request: req, paths })
}

/// Checks `req` against `graph` and builds one message per route, in TON Connect form.
///
/// Every check in the [module documentation](self) runs before anything is built; any failure is a typed
/// [`SwapError`] and no message.
pub fn build_swap(
    graph: &PoolGraph,
    req: &SwapRequest,
    gas: &GasTable,
    resolver: &dyn JettonWalletResolver,
) -> Result<SwapResponse, SwapError> {
    build_checked(graph, &check_swap(graph, req)?, gas, resolver)
}

/// [`build_swap`] of a request already checked on `graph`.
pub fn build_checked(
    graph: &PoolGraph,
    swap: &CheckedSwap<'_>,
    gas: &GasTable,
    resolver: &dyn JettonWalletResolver,
) -> Result<SwapResponse, SwapError> {
    let transactions = plan_checked(graph, swap, resolver)?
        .iter()
        .map(|a| {
            let m = a.build(gas)?;
            Ok(Transaction { address: m.to_friendly(), amount: m.value, payload: m.payload_base64()? })
        })
        .collect::<Result<_, SwapError>>()?;
    Ok(SwapResponse { query_id: swap.request.query_id, transactions })
}

/// [`build_swap`] before serialisation: the messages as cells.
pub fn build_messages(
    graph: &PoolGraph,
    req: &SwapRequest,
    gas: &GasTable,
    resolver: &dyn JettonWalletResolver,
) -> Result<Vec<Message>, SwapError> {
    plan_swap(graph, req, resolver)?.iter().map(|a| a.build(gas)).collect()
}

/// Checks `req` against `graph` and returns the arguments of each route's message.
pub fn plan_swap(
    graph: &PoolGraph,
    req: &SwapRequest,
    resolver: &dyn JettonWalletResolver,
) -> Result<Vec<RouteArgs>, SwapError> {
    plan_checked(graph, &check_swap(graph, req)?, resolver)
}

/// The arguments of each route's message of a checked request (rule 7: the addresses they need).
pub fn plan_checked(
    graph: &PoolGraph,
    swap: &CheckedSwap<'_>,
    resolver: &dyn JettonWalletResolver,
) -> Result<Vec<RouteArgs>, SwapError> {
    let req = swap.request;
    let data = &req.swap_data;
    let (asset_in, _) = route_ends(&data.routes[0]);
    let offer_wallet = match asset_in {
        Asset::Native => None,
        jetton => Some(resolver.wallet(&req.sender, &jetton).ok_or_else(|| SwapError::UnknownJettonWallet {
            owner: req.sender.to_hex(),
            jetton: jetton.to_string(),
        })?),
    };
    data.routes
        .iter()
        .zip(&swap.paths)
        .enumerate()
        .map(|(r, (steps, path))| route_args(graph, req, r, steps, path, offer_wallet.as_ref()))
        .collect()
}

/// Why a masterchain (workchain −1) sender is refused ([`SwapError::BadSender`]).
pub const MASTERCHAIN_SENDER: &str = "it is in workchain -1 (the masterchain), and jetton wallets (TEP-74, USD₮'s \
     stablecoin contract, jetton 2.0) hold balances of workchain 0 owners only: a jetton it offers or receives \
     would be refused on chain (exit code 333, wrong workchain); swap from a workchain 0 wallet";

fn check_sender(sender: &TonAddress) -> Result<(), SwapError> {
    let reason = if sender.hash_part.as_slice().iter().all(|b| *b == 0) {
        "the zero address owns no wallet"
    } else if sender.workchain == -1 {
        // Every swap sends or receives a jetton (its two ends differ, and only one can be TON), and the jetton
        // contracts keep balances of basechain owners only: TEP-74's reference wallet (`force_chain`) and the
        // stablecoin contract of USD₮ and jetton 2.0 (`check_same_workchain`) refuse a transfer to an owner of
        // another workchain (exit code 333). A masterchain wallet has no jetton wallet to offer from, and an
        // output sent to it would be refused by the pool's or router's jetton wallet.
        MASTERCHAIN_SENDER
    } else if sender.workchain != 0 {
        "workchain must be 0 or -1"
    } else {
        return Ok(());
    };
    Err(SwapError::BadSender { sender: sender.to_hex(), reason })
}

/// The input asset of the first step and the output asset of the last (routes were checked non-empty).
fn route_ends(steps: &[SwapStep]) -> (Asset, Asset) {
    match (steps.first(), steps.last()) {
        (Some(f), Some(l)) => (f.in_asset, l.out_asset),
        // check_route refused empty routes before this is called.
        _ => (Asset::Native, Asset::Native),
    }
}

/// Checks one route's steps in themselves (rule 2), then against the graph (rules 3 and 4); returns its path.
fn check_route(graph: &PoolGraph, r: usize, steps: &[SwapStep]) -> Result<Vec<(PoolId, PoolDirection)>, SwapError> {
    if steps.is_empty() {
        return Err(SwapError::EmptyRoute { route: r });
    }
    if steps.len() > MAX_STEPS {
        return Err(SwapError::RouteTooLong { route: r, steps: steps.len(), max: MAX_STEPS });
    }
    let mut path = Vec::with_capacity(steps.len());
    for (j, s) in steps.iter().enumerate() {
        // The step in itself (rule 2), before the graph is asked anything.
        for (field, amount) in [("in_amount", s.in_amount), ("out_amount", s.out_amount)] {
            if amount == 0 || amount > MAX_COINS {
                return Err(SwapError::StepAmountOutOfRange { route: r, step: j, field, amount });
            }
        }
        if s.in_asset == s.out_asset {
            return Err(SwapError::StepSameAsset { route: r, step: j, asset: s.in_asset.to_string() });
        }
        let foreign = |details: &'static str| SwapError::UnexpectedStepDetails {
            route: r,
            step: j,
            protocol: s.protocol.slug(),
            details,
        };
        if s.dex_b.is_some() && !matches!(s.protocol, Protocol::DexBV1 | Protocol::DexBV2) {
            return Err(foreign("dex_b"));
        }
        if s.dex_c.is_some() && s.protocol != Protocol::DexC {
            return Err(foreign("dex_c"));
        }
        if let Some(prev) = j.checked_sub(1).map(|p| &steps[p]) {
            if prev.out_asset != s.in_asset {
                return Err(SwapError::BrokenChain {
                    route: r,
                    step: j,
                    expected: prev.out_asset.to_string(),
                    found: s.in_asset.to_string(),
                });
            }
            if prev.out_amount != s.in_amount {
                return Err(SwapError::AmountsDoNotChain {
                    route: r,
                    step: j,
                    expected: prev.out_amount,
                    found: s.in_amount,
                });
            }
        }
        // Against the graph (rules 3 and 4).
        let pool = || s.pool_address.to_hex();
        let id =
            graph.pool_id(&s.pool_address).ok_or_else(|| SwapError::UnknownPool { route: r, step: j, pool: pool() })?;
        let meta = graph.pool(id);
        if meta.protocol != s.protocol {
            return Err(SwapError::ProtocolMismatch {
                route: r,
                step: j,
                pool: pool(),
                claimed: s.protocol.slug(),
                actual: meta.protocol.slug(),
            });
        }
        let [a0, a1] = meta.assets.map(|a| graph.asset(a).asset);
        let dir = match (s.in_asset, s.out_asset) {
            (i, o) if (i, o) == (a0, a1) => Some(PoolDirection::ZeroToOne),
            (i, o) if (i, o) == (a1, a0) => Some(PoolDirection::OneToZero),
            _ => None,
        };
        let dir = match dir {
            Some(d) if s.is_stable == meta.curve.is_stable() => d,
            _ => {
                return Err(SwapError::PoolMismatch {
                    route: r,
                    step: j,
                    pool: pool(),
                    in_asset: s.in_asset.to_string(),
                    out_asset: s.out_asset.to_string(),
                    is_stable: s.is_stable,
                    pool_assets: Box::new([a0.to_string(), a1.to_string()]),
                })
            }
        };
        check_details(graph, r, j, s, id, dir)?;
        path.push((id, dir));
    }
    if let Some((step, reason)) = graph.path_refusal(BUILT_HANDOFFS, &path) {
        return Err(SwapError::HandOffRefused { route: r, step, reason });
    }
    Ok(path)
}

/// The `dex_b_*` / `dex_c` extra details must be the graph's pool context (rule 4).
fn check_details(
    graph: &PoolGraph,
    r: usize,
    j: usize,
    s: &SwapStep,
    id: PoolId,
    dir: PoolDirection,
) -> Result<(), SwapError> {
    let meta = graph.pool(id);
    let pool = || meta.address.to_hex();
    let missing = || SwapError::MissingStepDetails { route: r, step: j, protocol: s.protocol.slug() };
    let mismatch = |field| SwapError::StepDetailsMismatch { route: r, step: j, pool: pool(), field };
    if matches!(s.protocol, Protocol::DexBV1 | Protocol::DexBV2 | Protocol::DexC) {
        if let Some(blocker) = graph.swap_blocker(id) {
            let carried = s.dex_b.is_some() || s.dex_c.is_some();
            return Err(SwapError::QuoteOnlyPool { route: r, step: j, pool: pool(), blocker, carried });
        }
        if s.quote_only && s.dex_b.is_none() && s.dex_c.is_none() {
            return Err(SwapError::QuotedElsewhere { route: r, step: j, pool: pool() });
        }
    }
    // The graph has both (swap_blocker said so); the errors keep this total.
    let wallets = || meta.context.router_wallets.as_ref().ok_or_else(missing);
    let (i, o) = (dir.in_index(), 1 - dir.in_index());
    match s.protocol {
        Protocol::DexBV1 | Protocol::DexBV2 => {
            let d = s.dex_b.as_ref().ok_or_else(missing)?;
            let router = meta.context.router.as_ref().ok_or_else(missing)?;
            let w = wallets()?;
            if d.router != *router {
                return Err(mismatch("router"));
            }
            if d.from_router_wallet != w[i] {
                return Err(mismatch("from_router_wallet"));
            }
            if d.to_router_wallet != w[o] {
                return Err(mismatch("to_router_wallet"));
            }
        }
        Protocol::DexC => {
            let d = s.dex_c.as_ref().ok_or_else(missing)?;
            let w = wallets()?;
            if d.from_router_wallet != w[i] {
                return Err(mismatch("from_router_wallet"));
            }
            if d.to_router_wallet != w[o] {
                return Err(mismatch("to_router_wallet"));
            }
            if d.zero_to_one != (dir == PoolDirection::ZeroToOne) {
                return Err(mismatch("zero_to_one"));
            }
        }
        Protocol::DexA => {}
    }
    Ok(())
}

/// Rule 6: re-simulates all routes jointly on current reserves; each must still reach its quoted min-out.
fn check_fresh_outputs(
    graph: &PoolGraph,
    data: &SwapData,
    paths: &[Vec<(PoolId, PoolDirection)>],
) -> Result<(), SwapError> {
    let runs: Vec<_> = data.routes.iter().zip(paths).map(|(steps, path)| (path.clone(), steps[0].in_amount)).collect();
    let outs = match simulate_routes(graph, &runs) {
        Ok(outs) => outs,
        Err(reason) => {
            // Name the first route whose prefix fails (routes are few; this runs only on failure).
            let route = (1..=runs.len()).find(|&k| simulate_routes(graph, &runs[..k]).is_err()).map_or(0, |k| k - 1);
            return Err(SwapError::SimulationFailed { route, reason });
        }
    };
    for (r, (steps, hop_outs)) in data.routes.iter().zip(&outs).enumerate() {
        let quoted_out = steps[steps.len() - 1].out_amount;
        let floor = min_out(quoted_out, data.slippage_bps)?;
        let fresh_out = hop_outs.last().copied().unwrap_or(0);
        if fresh_out < floor {
            return Err(SwapError::PriceMoved { route: r, quoted_out, min_out: floor, fresh_out });
        }
    }
    Ok(())
}

fn dex_b(s: &SwapStep) -> Result<&crate::route::DexBDetails, SwapError> {
    // check_details required them; the error keeps this total.
    s.dex_b.as_ref().ok_or(SwapError::MissingStepDetails { route: 0, step: 0, protocol: s.protocol.slug() })
}

fn dex_c_details(s: &SwapStep) -> Result<&crate::route::DexCDetails, SwapError> {
    // check_details required them; the error keeps this total.
    s.dex_c.as_ref().ok_or(SwapError::MissingStepDetails { route: 0, step: 0, protocol: s.protocol.slug() })
}

/// One route's message: the first segment's protocol arguments, with every later segment nested in its
/// hand-over ([`super::HandOver`]), and the TON that must reach the first segment's entry contract.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteArgs {
    /// The first segment's arguments.
    pub args: SwapArgs,
    /// TON the first segment's entry contract must receive ([`crate::graph::handoff::ton_plan`]): the
    /// message carries at least this (and at least the gas table's figure). 0 for `dex_b_v1`.
    pub entry_ton: u128,
}

impl RouteArgs {
    /// The message, with TON enough for the route's whole chain: the gas table's figure raised to the
    /// TON plan where the plan needs more (jetton offers: the jetton transfer's forward, and the value by as
    /// much; TON offers: the value on top of the offer, plus what the entry wallet keeps).
    ///
    /// A `dex_c` segment that hands over gets the plan's TON exactly, not the table's: TONCO's payout sends its
    /// change to the next contract ([`crate::graph::handoff`]), so every nanoton above the plan would stay
    /// there (seen executing TONCO's code, `tests/e2e`).
    pub fn build(&self, table: &GasTable) -> Result<Message, SwapError> {
        let protocol = self.args.protocol();
        if protocol == Protocol::DexBV1 {
            return self.args.build(table);
        }
        let direction = self.args.direction;
        let hands_over = protocol == Protocol::DexC && self.args.then.is_some();
        let t = self.args.table_gas(table)?;
        let gas = if direction.offer_is_native() {
            let plan = self.entry_ton + handoff::ton_offer_entry_cost(protocol);
            Gas::new(if hands_over { plan } else { t.attached.max(plan) }, t.forward)
        } else {
            let forward = if hands_over { self.entry_ton } else { t.forward.max(self.entry_ton) };
            // What the user's jetton wallet needs above the forward: the table's margin.
            Gas::new(forward + t.attached.saturating_sub(t.forward), forward)
        };
        self.args.build_with(table, Some(gas))
    }
}

/// The direction of a run of steps.
fn direction_of(steps: &[SwapStep]) -> Direction {
    match (steps.first().map(|s| s.in_asset), steps.last().map(|s| s.out_asset)) {
        (Some(Asset::Native), _) => Direction::NativeToJetton,
        (_, Some(Asset::Native)) => Direction::JettonToNative,
        _ => Direction::JettonToJetton,
    }
}

/// The arguments of one checked route's message: its segments from the last back, each later one the
/// hand-over of the one before.
fn route_args(
    graph: &PoolGraph,
    req: &SwapRequest,
    r: usize,
    steps: &[SwapStep],
    path: &[(PoolId, PoolDirection)],
    user_wallet: Option<&TonAddress>,
) -> Result<RouteArgs, SwapError> {
    let hop_outs: Vec<u128> = steps.iter().map(|s| s.out_amount).collect();
    let min_outs = route_min_outs(&hop_outs, req.swap_data.slippage_bps)?;
    let plan = handoff::ton_plan(graph, BUILT_HANDOFFS, path).map_err(|(step, reason)| SwapError::HandOffRefused {
        route: r,
        step,
        reason,
    })?;
    let mut then: Option<HandOver> = None;
    for (k, seg) in plan.segments.iter().enumerate().skip(1).rev() {
        let range = seg.start..seg.end;
        let args = segment_args(graph, req, &steps[range.clone()], &path[range.clone()], &min_outs[range], None, then)?;
        let kind = seg.handoff_in.ok_or(SwapError::HandOffRefused {
            route: r,
            step: seg.start,
            reason: crate::graph::Refusal::AfterDexBV1,
        })?;
        let target = entry_contract(graph, &steps[seg.start], path[seg.start].0, kind)?;
        then = Some(HandOver { target, forward_ton: plan.forward[k - 1], payload: args.payload()? });
    }
    let seg = plan.segments[0];
    let range = seg.start..seg.end;
    let args =
        segment_args(graph, req, &steps[range.clone()], &path[range.clone()], &min_outs[range], user_wallet, then)?;
    Ok(RouteArgs { args, entry_ton: plan.entry[0] })
}

/// The contract that takes a hand-off of `kind` into the segment starting with `step` (on pool `pool`):
/// a `dex_b_v2` router or its pTON wallet, the TONCO router or its pTON wallet.
fn entry_contract(
    graph: &PoolGraph,
    step: &SwapStep,
    pool: PoolId,
    kind: HandOffKind,
) -> Result<TonAddress, SwapError> {
    match (step.protocol, kind.is_ton()) {
        (Protocol::DexBV2, false) => Ok(dex_b(step)?.router.clone()),
        (Protocol::DexBV2, true) | (Protocol::DexC, true) => Ok(from_router_wallet(step)?.clone()),
        (Protocol::DexC, false) => dex_c_router(graph, pool),
        // Nothing hands into dex_a or dex_b_v1 (the rule refuses it before this is reached).
        (Protocol::DexA | Protocol::DexBV1, _) => {
            Err(SwapError::MissingStepDetails { route: 0, step: 0, protocol: step.protocol.slug() })
        }
    }
}

/// The router's wallet of a step's input asset (its pTON wallet when the input is TON).
fn from_router_wallet(s: &SwapStep) -> Result<&TonAddress, SwapError> {
    match s.protocol {
        Protocol::DexC => Ok(&dex_c_details(s)?.from_router_wallet),
        _ => Ok(&dex_b(s)?.from_router_wallet),
    }
}

fn dex_c_router(graph: &PoolGraph, pool: PoolId) -> Result<TonAddress, SwapError> {
    match &graph.pool(pool).context.router {
        Some(r) => Ok(r.clone()),
        None => super::parse_address("dex_c router", dex_c::MAINNET_ROUTER),
    }
}

/// The arguments of one segment (steps of one contract family), its output going on through `then`.
fn segment_args(
    graph: &PoolGraph,
    req: &SwapRequest,
    steps: &[SwapStep],
    path: &[(PoolId, PoolDirection)],
    min_outs: &[u128],
    user_wallet: Option<&TonAddress>,
    then: Option<HandOver>,
) -> Result<SwapArgs, SwapError> {
    let first = &steps[0];
    let direction = direction_of(steps);
    let offer_amount = first.in_amount;
    let referral = req.referral.as_ref().map(|r| r.address.clone());
    // The offer goes to the user's jetton wallet, or (TON offer) to the router's proxy-TON wallet.
    let offer_wallet = |pton: &TonAddress| Some(user_wallet.cloned().unwrap_or_else(|| pton.clone()));
    let args = move |entry, offer_wallet, hops, deadline, referral, terms| SwapArgs {
        direction,
        entry,
        sender: req.sender.clone(),
        receiver: None,
        offer_amount,
        offer_wallet,
        hops,
        deadline,
        referral,
        query_id: req.query_id,
        then,
        terms,
    };
    Ok(match first.protocol {
        Protocol::DexBV1 => {
            let d = dex_b(first)?;
            let hops = vec![Hop { address: d.to_router_wallet.clone(), min_out: min_outs[0] }];
            args(d.router.clone(), offer_wallet(&d.from_router_wallet), hops, 0, referral, Terms::DexBV1)
        }
        Protocol::DexBV2 => {
            let d = dex_b(first)?;
            let hops = steps
                .iter()
                .zip(min_outs)
                .map(|(s, &m)| Ok(Hop { address: dex_b(s)?.to_router_wallet.clone(), min_out: m }))
                .collect::<Result<_, SwapError>>()?;
            let ref_fee_bps = req.referral.as_ref().map_or(dex_b_v2::DEFAULT_REF_FEE_BPS, |r| r.fee_bps);
            let terms = Terms::DexBV2 { refund: None, excesses: None, ref_fee_bps };
            args(d.router.clone(), offer_wallet(&d.from_router_wallet), hops, req.deadline, referral, terms)
        }
        Protocol::DexA => {
            let ctx = graph.protocols();
            let vault = match first.in_asset {
                Asset::Native => ctx.dex_a_native_vault.clone(),
                jetton => ctx.dex_a_jetton_vaults.get(&jetton).cloned(),
            }
            .ok_or_else(|| SwapError::MissingProtocolContext {
                protocol: dex_a::PROTOCOL,
                what: match first.in_asset {
                    Asset::Native => "native vault".to_string(),
                    jetton => format!("jetton vault for {jetton}"),
                },
            })?;
            let hops = path
                .iter()
                .zip(min_outs)
                .map(|(&(id, _), &m)| Hop { address: graph.pool(id).address.clone(), min_out: m })
                .collect();
            args(vault, user_wallet.cloned(), hops, req.deadline, referral, Terms::DexA)
        }
        Protocol::DexC => {
            let d = dex_c_details(first)?;
            let hops = vec![Hop { address: d.to_router_wallet.clone(), min_out: min_outs[0] }];
            let terms = Terms::DexC { price_limit_sqrt: dex_c::no_price_limit(d.zero_to_one) };
            // TONCO's swap has no deadline or referral field.
            args(dex_c_router(graph, path[0].0)?, offer_wallet(&d.from_router_wallet), hops, 0, None, terms)
        }
    })
}
