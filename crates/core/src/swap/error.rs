//! Why a swap message cannot be built or read: [`SwapError`], one variant per cause, each with the input that
//! caused it.
//!
//! Owns the error type and its constructors for `tonlib-core` cell errors. Must not build or read cells.

use tonlib_core::cell::TonCellError;

use super::Direction;
use crate::route::SlippageOutOfRange;

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
    /// A field the exchange's layout has no place for was set (see [`super::SwapArgs`]).
    #[error("{protocol}: `{field}` is not supported by this exchange's swap")]
    Unsupported {
        /// Protocol slug.
        protocol: &'static str,
        /// The field that was set.
        field: &'static str,
    },
    /// Arguments whose [`super::Terms`] are another exchange's were given to this exchange's builder.
    #[error("{protocol}: the arguments are for {found}")]
    TermsMismatch {
        /// Protocol slug of the builder.
        protocol: &'static str,
        /// Protocol slug of the arguments' terms.
        found: &'static str,
    },
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
    /// The sender cannot own funds: the zero ("hole") address, or a workchain other than 0 and −1; or cannot swap
    /// jettons: workchain −1 ([`super::build::MASTERCHAIN_SENDER`]).
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

#[cfg(test)]
mod tests {
    use tonlib_core::cell::CellBuilder;

    use super::*;
    use crate::swap::decode;

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
}
