//! `dex_b_v2`: swaps through a STON.fi-v2-style router (v2.1 and v2.2 build the same bytes), multi-hop within
//! one router as nested `cross_swap` bodies.
//!
//! Owns the v2 `swap`/`cross_swap` layouts and how they are wrapped per direction (a TON offer in a proxy-TON v2.1
//! `ton_transfer`, [`super::jetton::TonTransfer`]); must not pick wallets itself.
//!
//! ```text
//! swap#6664de2a token_wallet1:MsgAddress refund_address:MsgAddress excesses_address:MsgAddress tx_deadline:uint64
//!    ^[ min_out:Coins receiver:MsgAddress fwd_gas:Coins custom_payload:(Maybe ^Cell)
//!       refund_fwd_gas:Coins refund_payload:(Maybe ^Cell) ref_fee:uint16 ref_address:MsgAddress ]
//! cross_swap#69cf1a5b <same layout>
//! ton_transfer#01f3835d query_id:uint64 ton_amount:Coins refund_address:MsgAddress forward_payload:(Either Cell ^Cell)
//! ```
//!
//! | direction | message to | value | wrapper |
//! |---|---|---|---|
//! | jetton→* | user's offer jetton wallet | gas | TEP-74 transfer to the router, response = sender |
//! | TON→jetton | router's proxy-TON v2.1 wallet | offer + gas | `ton_transfer`, refund = sender, payload as ref |
//!
//! **Multi-hop.** Hop 1 is the `swap` body; hop *k*+1 is a `cross_swap` body in hop *k*'s `custom_payload`. The
//! router re-routes a payload that starts with `cross_swap` with all remaining value, ignoring `fwd_gas` and the
//! earlier hops' receiver; every hop checks its own deadline. Each [`Hop::address`](super::Hop) is the router's
//! wallet of that hop's ask token (its proxy-TON wallet when TON is asked).
//!
//! **Min-out convention.** Each hop carries its own `min_out`; this crate gives intermediate hops 0 and the last
//! hop the route min-out ([`super::route_min_outs`]). Receiver, refund, excesses, deadline and referral are the
//! same in every hop (the SDK oracle's convention).
//!
//! **Referral.** `ref_fee` is always written: [`DEFAULT_REF_FEE_BPS`] (the SDK default) unless overridden, also
//! when there is no referrer (`ref_address = addr_none`); values above [`MAX_REF_FEE_BPS`] are refused as the SDK
//! refuses them. An all-zero referrer address is treated as none.

use tonlib_core::cell::Cell;
use tonlib_core::TonAddress;

use super::Terms;
use super::{check_offer, message_value, non_hole, Builder, Gas, GasTable, Message, SwapArgs, SwapError};

/// Protocol slug.
pub const PROTOCOL: &str = "dex_b_v2";
/// v2 router `swap` op code.
pub const OP_SWAP: u32 = 0x6664_de2a;
/// v2 router `cross_swap` op code (2.x contracts; older SDK builds used `0xffffffef`).
pub const OP_CROSS_SWAP: u32 = 0x69cf_1a5b;
/// Proxy-TON v2.1 `ton_transfer` op code.
pub const OP_PTON_TON_TRANSFER: u32 = super::jetton::OP_TON_TRANSFER;
/// Referral fee the SDK writes when none is given, in basis points.
pub const DEFAULT_REF_FEE_BPS: u16 = 10;
/// Largest referral fee the SDK accepts, in basis points.
pub const MAX_REF_FEE_BPS: u16 = 100;

/// The `dex_b_v2` terms of `args`: refund, excesses and referral fee.
fn terms(args: &SwapArgs) -> Result<(Option<&TonAddress>, Option<&TonAddress>, u16), SwapError> {
    match &args.terms {
        Terms::DexBV2 { refund, excesses, ref_fee_bps } => Ok((refund.as_ref(), excesses.as_ref(), *ref_fee_bps)),
        _ => Err(args.mismatch(PROTOCOL)),
    }
}

/// Builds the (possibly nested) `swap` body: the payload of the transfer.
pub fn swap_body(args: &SwapArgs) -> Result<Cell, SwapError> {
    let (refund, excesses, ref_fee_bps) = terms(args)?;
    if ref_fee_bps > MAX_REF_FEE_BPS {
        return Err(SwapError::RefFeeOutOfRange { ref_fee_bps, max: MAX_REF_FEE_BPS });
    }
    if args.hops.is_empty() {
        return Err(SwapError::NoHops { protocol: PROTOCOL });
    }
    let receiver = args.recipient();
    let refund = refund.unwrap_or(&args.sender);
    let excesses = excesses.unwrap_or(refund);
    let referral = non_hole(args.referral.as_ref());
    // Innermost hop first: hop k carries hop k+1 as its custom_payload; the last hop carries the hand-over.
    let mut inner: Option<Cell> = None;
    let last = args.hops.len() - 1;
    for (i, hop) in args.hops.iter().enumerate().rev() {
        let (hop_receiver, fwd_gas, custom) = match (&args.then, i == last) {
            (Some(then), true) => (&then.target, then.forward_ton, Some(then.payload.clone())),
            _ => (receiver, 0, inner.take()),
        };
        let mut extra = Builder::new("dex_b_v2 swap additional data");
        extra
            .coins("min_out", hop.min_out)?
            .addr("receiver", hop_receiver)?
            .coins("fwd_gas", fwd_gas)?
            .maybe_ref(custom)?
            .coins("refund_fwd_gas", 0)?
            .maybe_ref(None)?
            .uint(16, u64::from(ref_fee_bps))?
            .addr_opt("referral", referral)?;
        let mut b = Builder::new("dex_b_v2 swap body");
        b.uint(32, u64::from(if i == 0 { OP_SWAP } else { OP_CROSS_SWAP }))?
            .addr("token_wallet1", &hop.address)?
            .addr("refund", refund)?
            .addr("excesses", excesses)?
            .uint(64, args.deadline)?
            .child(extra.build()?)?;
        inner = Some(b.build()?);
    }
    // The loop ran at least once (hops is non-empty), so `inner` is Some.
    inner.ok_or(SwapError::NoHops { protocol: PROTOCOL })
}

/// Builds the message for one v2 route (one or more hops in this router) with the table's gas.
pub fn build(args: &SwapArgs, gas: &GasTable) -> Result<Message, SwapError> {
    build_with(args, args.table_gas(gas)?)
}

/// [`build`] with the given gas: `attached` on top of a TON offer (or the whole value for a jetton
/// offer) and the jetton transfer's `forward`.
pub fn build_with(args: &SwapArgs, g: Gas) -> Result<Message, SwapError> {
    check_offer(args.offer_amount)?;
    let payload = swap_body(args)?;
    let value = message_value(args.direction, args.offer_amount, g)?;
    let wallet = args.need_offer_wallet(PROTOCOL)?.clone();
    if args.direction.offer_is_native() {
        args.ton_transfer(args.sender.clone(), payload).message("proxy-TON v2.1 ton_transfer", wallet, value)
    } else {
        args.jetton_transfer(Some(args.sender.clone()), g.forward, payload).message(wallet, value)
    }
}
