//! `dex_b_v1`: swaps through a STON.fi-v1-style router, one hop per message.
//!
//! Owns the v1 `swap` payload and how it is wrapped per direction; must not pick jetton wallets itself.
//!
//! ```text
//! swap#25938561 ask_jetton_wallet:MsgAddress min_out:Coins to_address:MsgAddress
//!               has_ref:uint1 [ref_address:MsgAddress if has_ref]
//! ```
//! The payload is the `forward_payload` of a TEP-74 transfer whose destination is the router:
//!
//! | direction | message to | value | transfer |
//! |---|---|---|---|
//! | jetton→jetton, jetton→TON | user's offer jetton wallet | gas | response = sender |
//! | TON→jetton | router's proxy-TON v1 wallet | offer + gas | amount = offer, response = `addr_none` |
//!
//! `ask_jetton_wallet` ([`Hop::address`](super::Hop)) is **the router's** wallet of the ask token (its proxy-TON
//! wallet when TON is asked). v1 has no on-chain multi-hop: a route with more than one hop is
//! [`SwapError::UnsupportedHops`]; the hop's `min_out` is the route min-out ([`crate::route::min_out`]).
//! A referral equal to the all-zero address is dropped (`has_ref = 0`), as the SDK does.

use tonlib_core::cell::Cell;
use tonlib_core::TonAddress;

use super::{check_offer, lookup_gas, message_value, non_hole, Builder, GasTable, Message, SwapArgs, SwapError, Terms};

/// Protocol slug.
pub const PROTOCOL: &str = "dex_b_v1";
/// v1 router `swap` op code.
pub const OP_SWAP: u32 = 0x2593_8561;
/// The mainnet v1 router the SDK hard-codes.
pub const MAINNET_ROUTER: &str = "EQB3ncyBUTjZUA5EnFKR5_EnOMI9V1tTEAAPaiU71gc4TiUt";
/// The mainnet proxy-TON v1 minter the SDK hard-codes.
pub const MAINNET_PTON_V1: &str = "EQCM3B12QK1e4yZSf8GtBRT0aLMNyEsBc_DhVfRRtOEffLez";

/// The v1 `swap` payload.
pub fn swap_payload(
    ask_wallet: &TonAddress,
    min_out: u128,
    to: &TonAddress,
    referral: Option<&TonAddress>,
) -> Result<Cell, SwapError> {
    let mut b = Builder::new("dex_b_v1 swap payload");
    b.uint(32, u64::from(OP_SWAP))?
        .addr("ask_jetton_wallet", ask_wallet)?
        .coins("min_out", min_out)?
        .addr("to_address", to)?;
    match non_hole(referral) {
        Some(r) => b.bit(true)?.addr("referral", r)?,
        None => b.bit(false)?,
    };
    b.build()
}

/// The v1 `swap` payload of `args` (its one hop, to the receiver).
pub fn payload(args: &SwapArgs) -> Result<Cell, SwapError> {
    if args.terms != Terms::DexBV1 {
        return Err(args.mismatch(PROTOCOL));
    }
    args.refuse(PROTOCOL, true, false, true)?;
    let hop = args.single_hop(PROTOCOL)?;
    swap_payload(&hop.address, hop.min_out, args.recipient(), args.referral.as_ref())
}

/// Builds the message for one v1 swap.
pub fn build(args: &SwapArgs, gas: &GasTable) -> Result<Message, SwapError> {
    check_offer(args.offer_amount)?;
    let payload = payload(args)?;
    let g = lookup_gas(&gas.dex_b_v1, PROTOCOL, args.direction, 1)?;
    // proxy-TON v1 needs addr_none as the response; jetton wallets send excess to the user.
    let response = if args.direction.offer_is_native() { None } else { Some(args.sender.clone()) };
    let transfer = args.jetton_transfer(response, g.forward, payload);
    transfer.message(args.need_offer_wallet(PROTOCOL)?.clone(), message_value(args.direction, args.offer_amount, g)?)
}
