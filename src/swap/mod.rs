//! Swap messages: the internal messages a wallet signs to execute one route on one exchange.
//!
//! Owns the on-chain layouts of every swap body this crate emits (TEP-74 jetton transfers, the proxy-TON
//! `ton_transfer`, and each exchange's swap payload), the attached-TON ("gas") table, and the min-out rule.
//! Cells, bags of cells and addresses come from `tonlib-core`; nothing here hand-rolls BOC, CRC or base64.
//!
//! The layout builders must not know about graphs, quotes, JSON or the clock: every input (addresses already
//! resolved, `query_id`, deadline, per-hop min-outs) arrives in a plain per-protocol argument struct, so the
//! same inputs always give the same bytes. Checking a quote's `swap_data` against the pool graph and
//! resolving jetton wallets happen before these builders are called, in [`build`] (the only submodule
//! that reads the graph).
//!
//! | module | exchange layout | hops per message |
//! |---|---|---|
//! | [`jetton`] | TEP-74 `transfer` (used by every jetton-offer swap and by proxy-TON v1); proxy-TON v2 / v2.1 `ton_transfer` | n/a |
//! | [`dex_b_v1`] | `swap#25938561` in a jetton transfer to the router; TON via proxy-TON v1 | exactly 1 |
//! | [`dex_b_v2`] | `swap#6664de2a` + nested `cross_swap#69cf1a5b`; TON via proxy-TON v2.1 `ton_transfer` | 1 or more |
//! | [`dex_a`] | native vault `swap#ea06185d` / jetton vault `swap#e3a0d482`, `SwapStep` chain | 1 or more |
//! | [`dex_c`] | `POOLV3_SWAP#a7fb58f8`; TON via the router's proxy-TON v2 `ton_transfer` | exactly 1 |
//!
//! [`decode`] reads any of these bodies back (layout, offer, hops with their min-outs).
//! [`build`] checks a quote's `swap_data` against the graph and turns it into these messages
//! ([`build::build_swap`]).
//!
//! The byte layouts were checked against the exchanges' own SDKs (`tests/swap_messages.rs` compares root
//! cell hashes with SDK output for every vector in `tests/data/msg-oracle*`).
//!
//! ```
//! use tonroute::swap::{dex_a, Direction, GasTable, Hop};
//! use tonlib_core::TonAddress;
//!
//! let addr = |s: &str| s.parse::<TonAddress>().unwrap();
//! let args = dex_a::SwapArgs {
//!     direction: Direction::NativeToJetton,
//!     vault: addr("EQD5UdzONt-iE5J0KsaSp9ROR5nH_R8_Rxjd4GMjZrCMD9af"),
//!     sender: addr("UQCd5kt2jF28JNaRNsh8fng9bY3bLGmxTN_wFyWW_9-S06Yu"),
//!     receiver: None,
//!     offer_amount: 1_000_000_000,
//!     offer_wallet: None,
//!     hops: vec![Hop { address: addr("EQB0KiNHPEBNAi3bPE8So_F1HEDWq9bOG_295nPFSjPG6KFV"), min_out: 3_000_000 }],
//!     deadline: 0,
//!     referral: None,
//!     query_id: 0,
//!     then: None,
//! };
//! let msg = dex_a::build(&args, &GasTable::default()).unwrap();
//! assert_eq!(msg.value, 1_200_000_000); // offer + 0.2 TON, the SDK's default
//! assert_eq!(msg.body_hash_hex(), "707fee0d38e2d62b442925dfdb0f6c782ac7b084ec1c7a07a893eaaaca6b90d5");
//! ```

pub mod build;
pub mod decode;
pub mod dex_a;
pub mod dex_b_v1;
pub mod dex_b_v2;
pub mod dex_c;
pub mod jetton;

use std::fmt;

use base64::Engine as _;
use num_bigint::BigUint;
use tonlib_core::cell::{BagOfCells, Cell, CellBuilder, TonCellError};
use tonlib_core::TonAddress;

use crate::graph::Protocol;
use crate::route::{min_out, QuoteRequest, SlippageOutOfRange};

/// Nanotons in one TON.
pub const NANOTON: u128 = 1_000_000_000;

/// Largest value a TL-B `Coins` field (VarUInteger 16) can hold: 2^120 − 1.
pub const MAX_COINS: u128 = (1u128 << 120) - 1;

/// Which side of the swap is the native coin. The layout of every protocol depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// TON offered, a jetton asked.
    NativeToJetton,
    /// A jetton offered, TON asked.
    JettonToNative,
    /// A jetton offered, another jetton asked.
    JettonToJetton,
}

impl Direction {
    /// Whether the offer is the native coin (the message then carries the offer as value).
    pub fn offer_is_native(self) -> bool {
        matches!(self, Direction::NativeToJetton)
    }

    /// The direction's wire-style name, as in the SDK oracle's `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::NativeToJetton => "ton_to_jetton",
            Direction::JettonToNative => "jetton_to_ton",
            Direction::JettonToJetton => "jetton_to_jetton",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One hop of a route as the message encodes it.
///
/// What `address` names depends on the protocol: for `dex_b_v1`, `dex_b_v2` and `dex_c` it is **the router's
/// jetton wallet for the hop's ask asset** (the router's proxy-TON wallet when TON is asked); for `dex_a` it is
/// **the pool**. `min_out` is the hop's own minimum output; see [`route_min_outs`] for which value each hop gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// Router ask-side jetton wallet (`dex_b_*`, `dex_c`) or pool address (`dex_a`).
    pub address: TonAddress,
    /// Minimum output of this hop, in the ask asset's smallest units.
    pub min_out: u128,
}

/// Where a route goes on after this message's protocol: the contract that takes the hand-off (a router,
/// or a router's pTON wallet for TON), the TON forwarded with the tokens, and that contract's payload. The
/// layouts write it into their "next" fields: `dex_b_v2` `receiver` / `fwd_gas` / `custom_payload` of the
/// last hop, `dex_c` `payloads` (`target_address`, `ok_forward_amount`, `ok_forward_payload`), `dex_a`
/// `recipient_addr` / `fulfill_payload` (DeDust forwards what is left; `forward_ton` is then only the
/// budget the message value must carry). See [`crate::graph::handoff`] for which hand-offs are safe.
#[derive(Debug, Clone, PartialEq)]
pub struct HandOver {
    /// The next segment's entry contract.
    pub target: TonAddress,
    /// Nanotons forwarded with the tokens.
    pub forward_ton: u128,
    /// The next segment's payload.
    pub payload: Cell,
}

/// One internal message for a wallet to sign (TON Connect: `{address, amount, payload}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Destination: the user's jetton wallet, a proxy-TON wallet, or a vault.
    pub to: TonAddress,
    /// Nanotons attached: the offer plus gas for native input, gas alone for jetton input.
    pub value: u128,
    /// The message body.
    pub body: Cell,
}

impl Message {
    /// The body as a bag of cells (CRC32C on, no index, like `@ton/core`'s `toBoc()`), base64 standard.
    ///
    /// `tonlib-core` orders cells breadth-first and `@ton/core` depth-first, so bytes may differ from an SDK's
    /// for the same cell tree; [`Message::body_hash_hex`] does not.
    pub fn payload_base64(&self) -> Result<String, SwapError> {
        let boc = BagOfCells::from_root(self.body.clone())
            .serialize(true)
            .map_err(|e| SwapError::cell("serialising the body to a bag of cells", e))?;
        Ok(base64::engine::general_purpose::STANDARD.encode(boc))
    }

    /// The body's representation hash, lowercase hex (independent of BOC cell order).
    pub fn body_hash_hex(&self) -> String {
        Cell::cell_hash(&self.body).to_hex()
    }

    /// The destination in the user-friendly bounceable form (`EQ…`), as the SDKs print it.
    pub fn to_friendly(&self) -> String {
        self.to.to_base64_url()
    }
}

/// Why a swap message cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SwapError {
    /// Slippage must be within 0..=10000 basis points.
    #[error("slippage {slippage_bps} bps is out of range 0..=10000")]
    SlippageOutOfRange {
        /// The rejected value.
        slippage_bps: u32,
    },
    /// A referral fee outside what the protocol accepts.
    #[error("referral fee {ref_fee_bps} bps is out of range 0..={max}")]
    RefFeeOutOfRange {
        /// The rejected value.
        ref_fee_bps: u16,
        /// The protocol's maximum.
        max: u16,
    },
    /// A string that is not a TON address.
    #[error("`{field}`: {source}")]
    BadAddress {
        /// Which input field.
        field: &'static str,
        /// What is wrong with it (the input included).
        source: crate::asset::AddressError,
    },
    /// An address whose workchain does not fit the 8-bit field of `addr_std`.
    #[error("`{field}` has workchain {workchain}, which does not fit addr_std's int8")]
    UnsupportedWorkchain {
        /// Which input field.
        field: &'static str,
        /// The workchain it named.
        workchain: i32,
    },
    /// An amount above the `Coins` maximum (2^120 − 1).
    #[error("`{field}` = {amount} exceeds the Coins maximum 2^120-1")]
    AmountTooLarge {
        /// Which amount.
        field: &'static str,
        /// The rejected value.
        amount: u128,
    },
    /// The offer amount is zero.
    #[error("offer amount is zero")]
    ZeroOffer,
    /// Offer plus gas overflows the message value.
    #[error("offer {offer} plus gas {gas} overflows the message value")]
    ValueOverflow {
        /// The offer amount.
        offer: u128,
        /// The attached gas.
        gas: u128,
    },
    /// The route has no hops.
    #[error("{protocol}: route has no hops")]
    NoHops {
        /// Protocol slug.
        protocol: &'static str,
    },
    /// More hops than the protocol can encode in one message.
    #[error("{protocol}: {hops} hops in one message, at most {max} supported")]
    UnsupportedHops {
        /// Protocol slug.
        protocol: &'static str,
        /// Hops asked for.
        hops: usize,
        /// The protocol's limit.
        max: usize,
    },
    /// The gas table has no entry for this protocol, direction and hop count.
    #[error("{protocol}: no gas entry for {direction} with {hops} hops")]
    NoGasEntry {
        /// Protocol slug.
        protocol: &'static str,
        /// The swap direction.
        direction: Direction,
        /// Hop count.
        hops: usize,
    },
    /// A jetton offer without the user's offer jetton wallet.
    #[error("{protocol}: a jetton offer needs the user's offer jetton wallet")]
    MissingOfferWallet {
        /// Protocol slug.
        protocol: &'static str,
    },
    /// A deadline that does not fit the protocol's field.
    #[error("{protocol}: deadline {deadline} does not fit (max {max})")]
    DeadlineOutOfRange {
        /// Protocol slug.
        protocol: &'static str,
        /// The rejected deadline (unix seconds).
        deadline: u64,
        /// Largest value the field holds.
        max: u64,
    },
    /// A `dex_c` price limit that does not fit uint160.
    #[error("price_limit_sqrt does not fit in 160 bits")]
    PriceLimitOutOfRange,
    /// `tonlib-core` refused to build, serialise or read a cell (a cell overflow while building would mean a
    /// layout bug here), or a body being decoded is not one this crate builds.
    #[error("cell error while {context}: {reason}")]
    Cell {
        /// What was being built or read.
        context: &'static str,
        /// What went wrong, in words (`tonlib-core`'s text when its error is the source).
        reason: String,
        /// `tonlib-core`'s error, when that is why.
        #[source]
        source: Option<crate::error::Shared<TonCellError>>,
    },
    // ---- Checks of a quote's `swap_data` against the graph ([`build::build_swap`]). `route` and `step` are
    // 0-based indices into `swap_data.routes` and the route's steps; pools are named in raw form.
    /// The sender cannot own funds: the zero ("hole") address, or a workchain other than 0 and −1.
    #[error("sender {sender} is not a valid wallet address: {reason}")]
    BadSender {
        /// The sender, raw form.
        sender: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// `swap_data` has no route.
    #[error("swap_data has no route")]
    EmptySwapData,
    /// More routes than a quote can have.
    #[error("swap_data has {routes} routes, at most {max} allowed")]
    TooManyRoutes {
        /// Routes given.
        routes: usize,
        /// The limit.
        max: usize,
    },
    /// A route without steps.
    #[error("route {route} has no steps")]
    EmptyRoute {
        /// Route index.
        route: usize,
    },
    /// A route with more steps than a quote can have.
    #[error("route {route} has {steps} steps, at most {max} allowed")]
    RouteTooLong {
        /// Route index.
        route: usize,
        /// Steps given.
        steps: usize,
        /// The limit.
        max: usize,
    },
    /// A step amount that is zero or not below 2^120.
    #[error("route {route} step {step}: {field} = {amount} is not in 1..2^120")]
    StepAmountOutOfRange {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// `in_amount` or `out_amount`.
        field: &'static str,
        /// The rejected amount.
        amount: u128,
    },
    /// A pool the graph does not have.
    #[error("route {route} step {step}: unknown pool {pool}")]
    UnknownPool {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// The pool address, raw form.
        pool: String,
    },
    /// A step naming a protocol other than the pool's.
    #[error("route {route} step {step}: pool {pool} belongs to {actual}, not {claimed}")]
    ProtocolMismatch {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// The pool address, raw form.
        pool: String,
        /// Protocol slug the step names.
        claimed: &'static str,
        /// Protocol slug of the pool in the graph.
        actual: &'static str,
    },
    /// A step whose in/out assets are not the pool's two assets (or whose `is_stable` flag is not the pool's).
    #[error("route {route} step {step}: {in_asset} -> {out_asset} (is_stable {is_stable}) does not match pool {pool}")]
    PoolMismatch {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// The pool address, raw form.
        pool: String,
        /// The step's input asset, wire form.
        in_asset: String,
        /// The step's output asset, wire form.
        out_asset: String,
        /// The step's `is_stable` flag.
        is_stable: bool,
        /// The pool's two assets in the graph, wire form (token0, token1).
        pool_assets: Box<[String; 2]>,
    },
    /// A step whose input and output asset are the same.
    #[error("route {route} step {step}: input and output asset are both {asset}")]
    StepSameAsset {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// The asset, wire form.
        asset: String,
    },
    /// A step carrying the extra details of another exchange (`dex_b` details on a `dex_c` step, …).
    #[error("route {route} step {step}: a {protocol} step carries {details} details")]
    UnexpectedStepDetails {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// The step's protocol slug.
        protocol: &'static str,
        /// Whose details it carries: `dex_b` or `dex_c`.
        details: &'static str,
    },
    /// A step whose input asset is not the previous step's output asset.
    #[error("route {route} step {step}: input {found} does not follow the previous output {expected}")]
    BrokenChain {
        /// Route index.
        route: usize,
        /// Step index (≥ 1).
        step: usize,
        /// The previous step's output asset, wire form.
        expected: String,
        /// This step's input asset, wire form.
        found: String,
    },
    /// A step whose `in_amount` is not the previous step's quoted `out_amount`.
    #[error("route {route} step {step}: in_amount {found} is not the previous out_amount {expected}")]
    AmountsDoNotChain {
        /// Route index.
        route: usize,
        /// Step index (≥ 1).
        step: usize,
        /// The previous step's `out_amount`.
        expected: u128,
        /// This step's `in_amount`.
        found: u128,
    },
    /// Routes of one request that do not all go from the same asset to the same asset.
    #[error("route {route} goes {found_in} -> {found_out}, route 0 goes {expected_in} -> {expected_out}")]
    MixedAssets {
        /// Route index.
        route: usize,
        /// Route 0's input asset, wire form.
        expected_in: String,
        /// Route 0's output asset, wire form.
        expected_out: String,
        /// This route's input asset, wire form.
        found_in: String,
        /// This route's output asset, wire form.
        found_out: String,
    },
    /// The request's input and output asset are the same.
    #[error("input and output asset are both {asset}")]
    SameAssetInOut {
        /// The asset, wire form.
        asset: String,
    },
    /// A step that may not follow the previous one in one message chain (the hand-off rule,
    /// [`crate::graph::handoff`]): unsafe, or not one this builder makes.
    #[error("route {route} step {step}: {reason}")]
    HandOffRefused {
        /// Route index.
        route: usize,
        /// Step index (≥ 1).
        step: usize,
        /// Why.
        reason: crate::graph::Refusal,
    },
    /// A `dex_b_*` or `dex_c` step without its extra details (router, router wallets).
    #[error("route {route} step {step}: {protocol} step lacks its extra details")]
    MissingStepDetails {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// Protocol slug.
        protocol: &'static str,
    },
    /// Extra details (router, router wallets, direction) that differ from the graph's pool context.
    #[error("route {route} step {step}: `{field}` does not match pool {pool} in the graph")]
    StepDetailsMismatch {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// The pool address, raw form.
        pool: String,
        /// Which detail: `router`, `from_router_wallet`, `to_router_wallet` or `zero_to_one`.
        field: &'static str,
    },
    /// A pool the graph can quote but whose messages it cannot build ([`crate::graph::PoolGraph::swap_blocker`]):
    /// a quote-only pool, e.g. an imported one whose router wallets could not be derived offline.
    #[error(
        "route {route} step {step}: pool {pool} is quote-only in this graph: {blocker}{}",
        if *carried { " (the step carries router addresses: its swap_data was quoted on another graph)" } else { "" }
    )]
    QuoteOnlyPool {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// The pool address, raw form.
        pool: String,
        /// What the graph lacks.
        blocker: crate::graph::SwapBlocker,
        /// Whether the step itself carried the addresses the graph lacks (a sign of another graph's quote).
        carried: bool,
    },
    /// A step the quote marked quote-only on a pool this graph can swap: the swap_data was quoted on another
    /// graph (snapshot).
    #[error("route {route} step {step}: the quote marked pool {pool} quote-only, but this graph can swap it: the swap_data was quoted on another graph")]
    QuotedElsewhere {
        /// Route index.
        route: usize,
        /// Step index.
        step: usize,
        /// The pool address, raw form.
        pool: String,
    },
    /// None of the swap_data's pools is in the graph: it was quoted on another graph (snapshot).
    #[error("none of the {pools} pools of the swap_data is in this graph (route {route} step {step}: {pool}): it was quoted on another graph")]
    PoolsNotInGraph {
        /// Route index of the first one.
        route: usize,
        /// Step index of the first one.
        step: usize,
        /// The first pool's address, raw form.
        pool: String,
        /// How many pools the swap_data names (with repeats).
        pools: usize,
    },
    /// The graph lacks a protocol-wide address (e.g. a `dex_a` vault).
    #[error("{protocol}: the graph has no {what}")]
    MissingProtocolContext {
        /// Protocol slug.
        protocol: &'static str,
        /// What is missing.
        what: String,
    },
    /// The sender's jetton wallet for the offer asset is not known.
    #[error("unknown jetton wallet of {owner} for {jetton}: not listed, and the jetton's wallet layout is not a verified family to derive it from")]
    UnknownJettonWallet {
        /// The owner, raw form.
        owner: String,
        /// The jetton, wire form.
        jetton: String,
    },
    /// A pool refused the re-simulated amount on the current reserves.
    #[error("route {route} no longer executes on current reserves: {reason}")]
    SimulationFailed {
        /// Route index (routes are simulated jointly, in order).
        route: usize,
        /// What the pool math said.
        reason: crate::pool::PoolError,
    },
    /// Re-simulated on current reserves, the route's output fell below its min-out: the quote is stale.
    #[error("price moved: route {route} now gives {fresh_out}, below its min-out {min_out} (quoted {quoted_out})")]
    PriceMoved {
        /// Route index.
        route: usize,
        /// The route's quoted output.
        quoted_out: u128,
        /// `floor(quoted_out · (10000 − slippage_bps) / 10000)`.
        min_out: u128,
        /// Output on the current reserves.
        fresh_out: u128,
    },
}

/// Parses an address (`0:<hex>`, or 48-char base64 `EQ…`/`UQ…`, url-safe or standard) for the named field.
pub fn parse_address(field: &'static str, input: &str) -> Result<TonAddress, SwapError> {
    crate::asset::parse_address(input).map_err(|source| SwapError::BadAddress { field, source })
}

impl SwapError {
    /// A [`SwapError::Cell`] caused by `tonlib-core`'s `source` (its text is the reason).
    pub(crate) fn cell(context: &'static str, source: TonCellError) -> SwapError {
        SwapError::Cell { context, reason: source.to_string(), source: Some(source.into()) }
    }

    /// A [`SwapError::Cell`] without an underlying error: the cells read, but are not what was expected.
    pub(crate) fn malformed(context: &'static str, reason: impl Into<String>) -> SwapError {
        SwapError::Cell { context, reason: reason.into(), source: None }
    }
}

impl From<SlippageOutOfRange> for SwapError {
    fn from(e: SlippageOutOfRange) -> SwapError {
        SwapError::SlippageOutOfRange { slippage_bps: e.slippage_bps }
    }
}

/// Per-hop min-outs for a multi-hop message, from the simulated output of each hop.
///
/// Convention (both `dex_a` and `dex_b_v2`): **every intermediate hop gets 0 and the last hop gets
/// [`min_out`](crate::route::min_out) of its output**. The user's guarantee is the route's final output; an intermediate limit could
/// only make a route fail earlier, and a failed hop leaves the user holding an intermediate asset either way
/// (`dex_a` returns the current asset, `dex_b_v2` refunds the current hop's offer to the refund address).
/// The SDK examples (and the oracle's multi-hop vectors) follow the same convention. Single-hop routes get
/// `[min_out(out)]`.
pub fn route_min_outs(hop_outs: &[u128], slippage_bps: u32) -> Result<Vec<u128>, SwapError> {
    let mut v = vec![0u128; hop_outs.len()];
    if let (Some(last), Some(out)) = (v.last_mut(), hop_outs.last()) {
        *last = min_out(*out, slippage_bps)?;
    } else if slippage_bps > QuoteRequest::MAX_SLIPPAGE_BPS {
        return Err(SwapError::SlippageOutOfRange { slippage_bps });
    }
    Ok(v)
}

/// TON attached to one message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gas {
    /// Native input: nanotons attached **on top of** the offer. Jetton input: the message's whole value.
    pub attached: u128,
    /// The `forward_ton_amount` of the jetton (or proxy-TON v1) transfer, where the layout has one; layouts
    /// without such a field (proxy-TON v2 `ton_transfer`, the `dex_a` native vault) ignore it.
    pub forward: u128,
}

impl Gas {
    /// Gas from TON amounts in nanotons.
    pub const fn new(attached: u128, forward: u128) -> Gas {
        Gas { attached, forward }
    }
}

/// Gas for one protocol: per direction, indexed by hop count − 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtocolGas {
    /// TON → jetton, `[1 hop, 2 hops, …]`.
    pub native_to_jetton: Vec<Gas>,
    /// Jetton → TON, `[1 hop, 2 hops, …]`.
    pub jetton_to_native: Vec<Gas>,
    /// Jetton → jetton, `[1 hop, 2 hops, …]`.
    pub jetton_to_jetton: Vec<Gas>,
}

impl ProtocolGas {
    fn per_direction(&self, direction: Direction) -> &Vec<Gas> {
        match direction {
            Direction::NativeToJetton => &self.native_to_jetton,
            Direction::JettonToNative => &self.jetton_to_native,
            Direction::JettonToJetton => &self.jetton_to_jetton,
        }
    }

    /// The entry for `hops` hops, if any.
    pub fn get(&self, direction: Direction, hops: usize) -> Option<Gas> {
        hops.checked_sub(1).and_then(|i| self.per_direction(direction).get(i).copied())
    }

    /// Overrides the entry for `hops` hops (`hops` ≥ 1; 0 is ignored). Missing entries below `hops` are
    /// filled with the same `gas`.
    pub fn set(&mut self, direction: Direction, hops: usize, gas: Gas) {
        let Some(i) = hops.checked_sub(1) else { return };
        let v = match direction {
            Direction::NativeToJetton => &mut self.native_to_jetton,
            Direction::JettonToNative => &mut self.jetton_to_native,
            Direction::JettonToJetton => &mut self.jetton_to_jetton,
        };
        if v.len() <= i {
            v.resize(i + 1, gas);
        }
        v[i] = gas;
    }
}

/// Attached TON per protocol, direction and hop count. Every field is public so a deployment can override it.
///
/// Defaults (TON; `attached / forward`):
///
/// | protocol | direction | 1 hop | 2 hops | 3 hops | 4 hops | source |
/// |---|---|---|---|---|---|---|
/// | `dex_b_v1` | TON→jetton | 0.185 / 0.185 | – | – | – | `@ston-fi/sdk` 2.7 v1 `swapTonToJetton` |
/// | `dex_b_v1` | jetton→TON | 0.17 / 0.125 | – | – | – | SDK v1 `swapJettonToTon` |
/// | `dex_b_v1` | jetton→jetton | 0.22 / 0.175 | – | – | – | SDK v1 `swapJettonToJetton` |
/// | `dex_b_v2` | TON→jetton | 0.31 / – | 0.51 | 0.71 | 0.91 | SDK v2 fwd 0.3 + pTON `tonTransfer` 0.01; extra hops: estimate |
/// | `dex_b_v2` | jetton→* | 0.3 / 0.24 | 0.5 / 0.44 | 0.7 / 0.64 | 0.9 / 0.84 | SDK v2 `swapJettonTo*`; extra hops: estimate |
/// | `dex_a` | TON→jetton | 0.2 / – | 0.3 | 0.4 | 0.5 | `@dedust/sdk` 0.8.7 `gasAmount`; extra hops: estimate |
/// | `dex_a` | jetton→* | 0.3 / 0.25 | 0.4 / 0.35 | 0.5 / 0.45 | 0.6 / 0.55 | no SDK default: public integrations; estimate |
/// | `dex_c` | TON→jetton | 0.6 / – | – | – | – | `@toncodex/sdk` 1.0.26 SWAP_GAS 0.4 + 4×TRANSFER_GAS |
/// | `dex_c` | jetton→* | 0.6 / 0.5 | – | – | – | same; forward = SWAP_GAS + SWAP_GAS_SLIPPAGE 0.1 |
///
/// "Estimate" means: no SDK gives a multi-hop value; each extra hop adds 0.2 TON (`dex_b_v2`, whose router
/// re-forwards all remaining value to the next hop and checks a per-hop minimum) or 0.1 TON (`dex_a`).
/// These were not measured on chain; surplus TON is returned to the user as excess by every protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GasTable {
    /// STON.fi-style v1 router.
    pub dex_b_v1: ProtocolGas,
    /// STON.fi-style v2 router (v2.1 and v2.2 build the same bytes).
    pub dex_b_v2: ProtocolGas,
    /// DeDust-style vaults.
    pub dex_a: ProtocolGas,
    /// TONCO-style CLMM router.
    pub dex_c: ProtocolGas,
}

const fn ton_milli(m: u128) -> u128 {
    m * 1_000_000
}

fn ladder(first: Gas, step: u128, count: u128) -> Vec<Gas> {
    (0..count)
        .map(|i| {
            let fwd = if first.forward == 0 { 0 } else { first.forward + i * step };
            Gas::new(first.attached + i * step, fwd)
        })
        .collect()
}

impl Default for GasTable {
    fn default() -> Self {
        let g = |a: u128, f: u128| Gas::new(ton_milli(a), ton_milli(f));
        GasTable {
            dex_b_v1: ProtocolGas {
                native_to_jetton: vec![g(185, 185)],
                jetton_to_native: vec![g(170, 125)],
                jetton_to_jetton: vec![g(220, 175)],
            },
            dex_b_v2: ProtocolGas {
                native_to_jetton: ladder(g(310, 0), ton_milli(200), 4),
                jetton_to_native: ladder(g(300, 240), ton_milli(200), 4),
                jetton_to_jetton: ladder(g(300, 240), ton_milli(200), 4),
            },
            dex_a: ProtocolGas {
                native_to_jetton: ladder(g(200, 0), ton_milli(100), 4),
                jetton_to_native: ladder(g(300, 250), ton_milli(100), 4),
                jetton_to_jetton: ladder(g(300, 250), ton_milli(100), 4),
            },
            dex_c: ProtocolGas {
                native_to_jetton: vec![g(600, 0)],
                jetton_to_native: vec![g(600, 500)],
                jetton_to_jetton: vec![g(600, 500)],
            },
        }
    }
}

impl GasTable {
    /// The table of one protocol.
    pub fn of(&self, protocol: Protocol) -> &ProtocolGas {
        match protocol {
            Protocol::DexA => &self.dex_a,
            Protocol::DexBV1 => &self.dex_b_v1,
            Protocol::DexBV2 => &self.dex_b_v2,
            Protocol::DexC => &self.dex_c,
        }
    }
}

pub(crate) fn lookup_gas(
    table: &ProtocolGas,
    protocol: &'static str,
    direction: Direction,
    hops: usize,
) -> Result<Gas, SwapError> {
    table.get(direction, hops).ok_or(SwapError::NoGasEntry { protocol, direction, hops })
}

/// Value of a message: offer + gas for native input, gas alone for jetton input.
pub(crate) fn message_value(direction: Direction, offer: u128, gas: Gas) -> Result<u128, SwapError> {
    if direction.offer_is_native() {
        offer.checked_add(gas.attached).ok_or(SwapError::ValueOverflow { offer, gas: gas.attached })
    } else {
        Ok(gas.attached)
    }
}

pub(crate) fn check_offer(offer: u128) -> Result<(), SwapError> {
    if offer == 0 {
        return Err(SwapError::ZeroOffer);
    }
    if offer > MAX_COINS {
        return Err(SwapError::AmountTooLarge { field: "offer_amount", amount: offer });
    }
    Ok(())
}

/// A `tonlib-core` [`CellBuilder`] whose errors carry the context and which writes addresses the way the SDKs
/// (`@ton/core`) do.
pub(crate) struct Builder {
    b: CellBuilder,
    context: &'static str,
}

impl Builder {
    pub(crate) fn new(context: &'static str) -> Builder {
        Builder { b: CellBuilder::new(), context }
    }

    fn err(&self, e: TonCellError) -> SwapError {
        SwapError::cell(self.context, e)
    }

    pub(crate) fn uint(&mut self, bits: usize, v: u64) -> Result<&mut Self, SwapError> {
        self.b.store_u64(bits, v).map_err(|e| SwapError::cell(self.context, e))?;
        Ok(self)
    }

    pub(crate) fn big_uint(&mut self, bits: usize, v: &BigUint) -> Result<&mut Self, SwapError> {
        if let Err(e) = self.b.store_uint(bits, v) {
            return Err(self.err(e));
        }
        Ok(self)
    }

    pub(crate) fn bit(&mut self, v: bool) -> Result<&mut Self, SwapError> {
        if let Err(e) = self.b.store_bit(v) {
            return Err(self.err(e));
        }
        Ok(self)
    }

    /// `Coins` (VarUInteger 16), refusing values above 2^120 − 1 instead of writing a bad length.
    pub(crate) fn coins(&mut self, field: &'static str, v: u128) -> Result<&mut Self, SwapError> {
        if v > MAX_COINS {
            return Err(SwapError::AmountTooLarge { field, amount: v });
        }
        if let Err(e) = self.b.store_coins(&BigUint::from(v)) {
            return Err(self.err(e));
        }
        Ok(self)
    }

    /// `addr_std` with no anycast. Unlike `CellBuilder::store_address`, the all-zero address is written as
    /// itself (as `@ton/core` does) and not collapsed to `addr_none`.
    pub(crate) fn addr(&mut self, field: &'static str, a: &TonAddress) -> Result<&mut Self, SwapError> {
        let wc =
            i8::try_from(a.workchain).map_err(|_| SwapError::UnsupportedWorkchain { field, workchain: a.workchain })?;
        let r = self
            .b
            .store_u8(2, 0b10)
            .and_then(|b| b.store_bit(false))
            .and_then(|b| b.store_i8(8, wc))
            .and_then(|b| b.store_slice(a.hash_part.as_slice()));
        if let Err(e) = r {
            return Err(self.err(e));
        }
        Ok(self)
    }

    /// `addr_none` (two zero bits) for `None`, else [`Builder::addr`].
    pub(crate) fn addr_opt(&mut self, field: &'static str, a: Option<&TonAddress>) -> Result<&mut Self, SwapError> {
        match a {
            Some(a) => self.addr(field, a),
            None => self.uint(2, 0),
        }
    }

    /// A reference to `cell`.
    pub(crate) fn child(&mut self, cell: Cell) -> Result<&mut Self, SwapError> {
        if let Err(e) = self.b.store_child(cell) {
            return Err(self.err(e));
        }
        Ok(self)
    }

    /// `Maybe ^Cell`: bit 0, or bit 1 and a reference.
    pub(crate) fn maybe_ref(&mut self, cell: Option<Cell>) -> Result<&mut Self, SwapError> {
        match cell {
            Some(c) => {
                self.bit(true)?;
                self.child(c)
            }
            None => self.bit(false),
        }
    }

    pub(crate) fn build(&mut self) -> Result<Cell, SwapError> {
        self.b.build().map_err(|e| SwapError::cell(self.context, e))
    }
}

/// A referral address equal to the all-zero ("hole") address means "no referral" for the STON.fi-style
/// routers (their SDKs drop it the same way).
pub(crate) fn non_hole(a: Option<&TonAddress>) -> Option<&TonAddress> {
    a.filter(|a| **a != TonAddress::NULL)
}

/// Arguments for any protocol, so a caller holding a route of one protocol can build its message uniformly.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ProtocolArgs {
    /// DeDust-style vault swap.
    DexA(dex_a::SwapArgs),
    /// STON.fi-style v1 router swap.
    DexBV1(dex_b_v1::SwapArgs),
    /// STON.fi-style v2 router swap.
    DexBV2(dex_b_v2::SwapArgs),
    /// TONCO-style CLMM swap.
    DexC(dex_c::SwapArgs),
}

impl ProtocolArgs {
    /// Builds the one message of this route with the gas table's TON.
    pub fn build(&self, gas: &GasTable) -> Result<Message, SwapError> {
        self.build_with(gas, None)
    }

    /// Builds the one message of this route with `gas` instead of the table's entry when given (a route
    /// that hands off to another exchange carries the TON its whole chain needs).
    pub fn build_with(&self, table: &GasTable, gas: Option<Gas>) -> Result<Message, SwapError> {
        match self {
            ProtocolArgs::DexA(a) => {
                dex_a::build_with(a, gas_or(table, gas, a.direction, a.hops.len(), Protocol::DexA)?)
            }
            ProtocolArgs::DexBV1(a) => dex_b_v1::build(a, table),
            ProtocolArgs::DexBV2(a) => {
                dex_b_v2::build_with(a, gas_or(table, gas, a.direction, a.hops.len(), Protocol::DexBV2)?)
            }
            ProtocolArgs::DexC(a) => {
                dex_c::build_with(a, gas_or(table, gas, a.direction, a.hops.len(), Protocol::DexC)?)
            }
        }
    }
}

impl ProtocolArgs {
    /// The swap payload alone (what a previous segment hands over with the tokens): the `dex_b_v2` `swap`
    /// body, the `dex_c` `POOLV3_SWAP` request, the `dex_a` jetton-vault payload, the `dex_b_v1` `swap`.
    pub fn payload(&self) -> Result<Cell, SwapError> {
        match self {
            ProtocolArgs::DexBV2(a) => dex_b_v2::swap_body(a),
            ProtocolArgs::DexC(a) => {
                let hop = match a.hops.as_slice() {
                    [h] => h,
                    [] => return Err(SwapError::NoHops { protocol: dex_c::PROTOCOL }),
                    more => {
                        return Err(SwapError::UnsupportedHops { protocol: dex_c::PROTOCOL, hops: more.len(), max: 1 })
                    }
                };
                let recipient = a.receiver.as_ref().unwrap_or(&a.sender);
                dex_c::swap_request(&hop.address, a.price_limit_sqrt, hop.min_out, recipient, a.then.as_ref())
            }
            ProtocolArgs::DexA(a) => dex_a::jetton_payload(a),
            ProtocolArgs::DexBV1(a) => {
                let hop = a.hops.first().ok_or(SwapError::NoHops { protocol: dex_b_v1::PROTOCOL })?;
                dex_b_v1::swap_payload(
                    &hop.address,
                    hop.min_out,
                    a.receiver.as_ref().unwrap_or(&a.sender),
                    a.referral.as_ref(),
                )
            }
        }
    }
}

fn gas_or(
    table: &GasTable,
    gas: Option<Gas>,
    direction: Direction,
    hops: usize,
    protocol: Protocol,
) -> Result<Gas, SwapError> {
    match gas {
        Some(g) => Ok(g),
        None => lookup_gas(table.of(protocol), protocol.slug(), direction, hops),
    }
}

#[cfg(test)]
mod tests {
    use primitive_types::U256;

    use super::*;

    #[test]
    fn cell_errors_keep_the_tonlib_error_underneath() {
        use std::error::Error;
        // An empty body has no op to read: `tonlib-core`'s error is kept as the source, its text as the reason.
        let empty = CellBuilder::new().build().unwrap();
        let e = decode::decode_body(&empty).unwrap_err();
        let SwapError::Cell { source: Some(source), reason, .. } = &e else { panic!("not a cell error: {e}") };
        assert_eq!(reason, &source.get().to_string());
        assert_eq!(e.source().map(|s| s.to_string()), Some(source.get().to_string()));
        // An op this crate never writes reads fine but is not ours: no underlying error.
        let mut b = CellBuilder::new();
        b.store_u32(32, 0xdead_beef).unwrap();
        let e = decode::decode_body(&b.build().unwrap()).unwrap_err();
        assert!(matches!(&e, SwapError::Cell { source: None, .. }), "{e}");
        assert!(e.to_string().contains("unexpected op 0xdeadbeef"), "{e}");
        assert!(e.source().is_none());
    }

    #[test]
    fn min_out_matches_bigint_rederivation() {
        // The route's min-out the swap builder uses (`crate::route::min_out`), and its refusal as a swap error.
        let outs = [0u128, 1, 9_999, 10_000, 123_456_789, MAX_COINS, u128::MAX];
        for &o in &outs {
            for bps in [0u32, 1, 50, 333, 9_999, 10_000] {
                let want = BigUint::from(o) * BigUint::from(10_000 - bps) / BigUint::from(10_000u32);
                assert_eq!(BigUint::from(min_out(o, bps).unwrap()), want, "out {o} bps {bps}");
            }
        }
        assert_eq!(
            min_out(5, 10_001).map_err(SwapError::from),
            Err(SwapError::SlippageOutOfRange { slippage_bps: 10_001 })
        );
        assert_eq!(route_min_outs(&[5], 10_001), Err(SwapError::SlippageOutOfRange { slippage_bps: 10_001 }));
    }

    #[test]
    fn route_min_outs_zero_then_last() {
        assert_eq!(route_min_outs(&[100, 200, 10_000], 100).unwrap(), vec![0, 0, 9_900]);
        assert_eq!(route_min_outs(&[10_000], 0).unwrap(), vec![10_000]);
        assert!(route_min_outs(&[], 10_001).is_err());
        assert!(route_min_outs(&[1, 2], 20_000).is_err());
    }

    #[test]
    fn gas_table_lookup_and_override() {
        let mut t = GasTable::default();
        assert_eq!(t.dex_b_v1.get(Direction::JettonToJetton, 1), Some(Gas::new(220_000_000, 175_000_000)));
        assert_eq!(t.dex_b_v1.get(Direction::JettonToJetton, 2), None);
        assert_eq!(t.dex_b_v1.get(Direction::JettonToJetton, 0), None);
        assert_eq!(t.dex_b_v2.get(Direction::JettonToNative, 2), Some(Gas::new(500_000_000, 440_000_000)));
        assert_eq!(t.dex_a.get(Direction::NativeToJetton, 3), Some(Gas::new(400_000_000, 0)));
        t.dex_c.set(Direction::JettonToNative, 3, Gas::new(1, 2));
        assert_eq!(t.dex_c.get(Direction::JettonToNative, 2), Some(Gas::new(1, 2)));
        assert_eq!(t.dex_c.get(Direction::JettonToNative, 1), Some(Gas::new(600_000_000, 500_000_000)));
    }

    #[test]
    fn zero_address_is_written_as_addr_std() {
        let mut b = Builder::new("test");
        b.addr("a", &TonAddress::NULL).unwrap();
        assert_eq!(b.build().unwrap().bit_len(), 267);
        let mut b = Builder::new("test");
        b.addr_opt("a", None).unwrap();
        assert_eq!(b.build().unwrap().bit_len(), 2);
    }

    #[test]
    fn coins_above_max_is_an_error() {
        let mut b = Builder::new("test");
        assert!(b.coins("x", MAX_COINS).is_ok());
        assert_eq!(
            b.coins("x", MAX_COINS + 1).err(),
            Some(SwapError::AmountTooLarge { field: "x", amount: MAX_COINS + 1 })
        );
    }

    fn a(label: u8) -> TonAddress {
        TonAddress::new(0, [label; 32].into())
    }

    fn v2_args() -> dex_b_v2::SwapArgs {
        dex_b_v2::SwapArgs {
            direction: Direction::JettonToJetton,
            router: a(1),
            sender: a(2),
            receiver: None,
            refund: None,
            excesses: None,
            offer_amount: 1_000,
            offer_wallet: a(3),
            hops: vec![Hop { address: a(4), min_out: 0 }, Hop { address: a(5), min_out: 7 }],
            deadline: 1_767_225_600,
            referral: None,
            ref_fee_bps: dex_b_v2::DEFAULT_REF_FEE_BPS,
            query_id: 9,
            then: None,
        }
    }

    #[test]
    fn builders_are_deterministic() {
        let g = GasTable::default();
        let m1 = dex_b_v2::build(&v2_args(), &g).unwrap();
        let m2 = dex_b_v2::build(&v2_args(), &g).unwrap();
        assert_eq!(m1.payload_base64().unwrap(), m2.payload_base64().unwrap());
        assert_eq!(m1, m2);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let g = GasTable::default();
        let mut v2 = v2_args();
        v2.ref_fee_bps = 101;
        assert_eq!(dex_b_v2::build(&v2, &g), Err(SwapError::RefFeeOutOfRange { ref_fee_bps: 101, max: 100 }));
        let mut v2 = v2_args();
        v2.hops.clear();
        assert_eq!(dex_b_v2::build(&v2, &g), Err(SwapError::NoHops { protocol: "dex_b_v2" }));
        let mut v2 = v2_args();
        v2.hops = vec![Hop { address: a(4), min_out: 0 }; 5];
        assert_eq!(
            dex_b_v2::build(&v2, &g),
            Err(SwapError::NoGasEntry { protocol: "dex_b_v2", direction: Direction::JettonToJetton, hops: 5 })
        );
        let mut v2 = v2_args();
        v2.offer_amount = 0;
        assert_eq!(dex_b_v2::build(&v2, &g), Err(SwapError::ZeroOffer));
        let mut v2 = v2_args();
        v2.offer_amount = MAX_COINS + 1;
        assert_eq!(
            dex_b_v2::build(&v2, &g),
            Err(SwapError::AmountTooLarge { field: "offer_amount", amount: MAX_COINS + 1 })
        );
        let mut v2 = v2_args();
        v2.hops[1].min_out = u128::MAX;
        assert_eq!(dex_b_v2::build(&v2, &g), Err(SwapError::AmountTooLarge { field: "min_out", amount: u128::MAX }));
        let mut v2 = v2_args();
        v2.receiver = Some(TonAddress::new(300, [0; 32].into()));
        assert_eq!(
            dex_b_v2::build(&v2, &g),
            Err(SwapError::UnsupportedWorkchain { field: "receiver", workchain: 300 })
        );

        let mut huge = GasTable::default();
        huge.dex_b_v2.set(Direction::NativeToJetton, 2, Gas::new(u128::MAX, 0));
        let mut v2 = v2_args();
        v2.direction = Direction::NativeToJetton;
        assert_eq!(dex_b_v2::build(&v2, &huge), Err(SwapError::ValueOverflow { offer: 1_000, gas: u128::MAX }));

        let v1 = dex_b_v1::SwapArgs {
            direction: Direction::JettonToNative,
            router: a(1),
            sender: a(2),
            receiver: None,
            offer_amount: 5,
            offer_wallet: a(3),
            hops: vec![Hop { address: a(4), min_out: 1 }; 2],
            referral: None,
            query_id: 0,
        };
        assert_eq!(dex_b_v1::build(&v1, &g), Err(SwapError::UnsupportedHops { protocol: "dex_b_v1", hops: 2, max: 1 }));

        let mut c = dex_c::SwapArgs {
            direction: Direction::JettonToJetton,
            router: a(1),
            sender: a(2),
            receiver: None,
            offer_amount: 5,
            offer_wallet: a(3),
            hops: vec![Hop { address: a(4), min_out: 1 }],
            price_limit_sqrt: U256::one() << 160,
            query_id: 0,
            then: None,
        };
        assert_eq!(dex_c::build(&c, &g), Err(SwapError::PriceLimitOutOfRange));
        c.price_limit_sqrt = (U256::one() << 160) - 1;
        assert!(dex_c::build(&c, &g).is_ok());
        c.hops.push(Hop { address: a(5), min_out: 1 });
        assert_eq!(dex_c::build(&c, &g), Err(SwapError::UnsupportedHops { protocol: "dex_c", hops: 2, max: 1 }));

        let mut d = dex_a::SwapArgs {
            direction: Direction::JettonToNative,
            vault: a(1),
            sender: a(2),
            receiver: None,
            offer_amount: 5,
            offer_wallet: None,
            hops: vec![Hop { address: a(4), min_out: 1 }],
            deadline: 0,
            referral: None,
            query_id: 0,
            then: None,
        };
        assert_eq!(dex_a::build(&d, &g), Err(SwapError::MissingOfferWallet { protocol: "dex_a" }));
        d.offer_wallet = Some(a(3));
        d.deadline = u64::from(u32::MAX) + 1;
        assert_eq!(
            dex_a::build(&d, &g),
            Err(SwapError::DeadlineOutOfRange {
                protocol: "dex_a",
                deadline: u64::from(u32::MAX) + 1,
                max: 4_294_967_295
            })
        );
        d.deadline = u64::from(u32::MAX);
        assert!(dex_a::build(&d, &g).is_ok());

        assert!(matches!(
            parse_address("sender", "not-an-address"),
            Err(SwapError::BadAddress { field: "sender", .. })
        ));
        assert_eq!(
            parse_address("sender", "0:0000000000000000000000000000000000000000000000000000000000000000"),
            Ok(TonAddress::NULL)
        );
    }
}
