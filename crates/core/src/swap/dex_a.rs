//! `dex_a`: swaps through DeDust-style vaults, multi-hop as a `SwapStep` chain.
//!
//! Owns the vault swap layouts; must not pick vaults or wallets itself.
//!
//! ```text
//! step#_ pool_addr:MsgAddressInt params:SwapStepParams = SwapStep;
//! step_params#_ kind:SwapKind(given_in$0) limit:Coins next:(Maybe ^SwapStep) = SwapStepParams;
//! swap_params#_ deadline:uint32 recipient_addr:MsgAddressInt referral_addr:MsgAddress
//!               fulfill_payload:(Maybe ^Cell) reject_payload:(Maybe ^Cell) = SwapParams;
//! native vault:               swap#ea06185d query_id:uint64 amount:Coins _:SwapStep swap_params:^SwapParams
//! jetton vault (fwd payload): swap#e3a0d482 _:SwapStep swap_params:^SwapParams
//! ```
//!
//! | input | message to | value |
//! |---|---|---|
//! | TON | the native vault ([`SwapArgs::vault`]) | offer + gas |
//! | jetton | the user's offer jetton wallet: TEP-74 transfer to the **jetton vault contract** (not its wallet), response = sender, payload as ref | gas |
//!
//! Each [`Hop::address`](super::Hop) is a **pool**; the first step is inline, later ones a `Maybe ^SwapStep`
//! chain. **Min-out convention:** `limit` is the minimum output of *that* step; this crate gives earlier steps 0
//! and the last step the route min-out ([`super::route_min_outs`]).
//!
//! `recipient = None` writes `addr_none` (as the SDK does; the vault then pays the sender), and `deadline = 0`
//! means no deadline. Output direction does not change the layout (jetton→TON and jetton→jetton are the same).

use tonlib_core::cell::Cell;
use tonlib_core::TonAddress;

use super::jetton::JettonTransfer;
use super::SwapError;
use super::{check_offer, lookup_gas, message_value, Builder, Direction, Gas, GasTable, HandOver, Hop, Message};

/// Protocol slug.
pub const PROTOCOL: &str = "dex_a";
/// Native vault `swap` op code.
pub const OP_NATIVE_SWAP: u32 = 0xea06_185d;
/// Jetton vault `swap` op code (in the transfer's forward payload).
pub const OP_JETTON_SWAP: u32 = 0xe3a0_d482;

/// Inputs of one vault swap message.
#[derive(Debug, Clone, PartialEq)]
pub struct SwapArgs {
    /// Which side is TON; only whether the offer is TON changes the layout.
    pub direction: Direction,
    /// TON offer: the native vault. Jetton offer: the offer jetton's vault.
    pub vault: TonAddress,
    /// The user's wallet (signer; response destination for jetton offers).
    pub sender: TonAddress,
    /// `recipient_addr`; `None` writes `addr_none` and the output goes to the sender.
    pub receiver: Option<TonAddress>,
    /// Offer amount, smallest units (nanotons for TON).
    pub offer_amount: u128,
    /// Jetton offer: the user's jetton wallet of the offer token (required). Unused for TON offers.
    pub offer_wallet: Option<TonAddress>,
    /// Pools in route order with each step's limit.
    pub hops: Vec<Hop>,
    /// Unix seconds, 0 = none; must fit uint32.
    pub deadline: u64,
    /// Referrer, if any (`addr_none` when absent).
    pub referral: Option<TonAddress>,
    /// Query id (native vault body and jetton transfer).
    pub query_id: u64,
    /// Where the output goes on: `recipient_addr` = its target, `fulfill_payload` = its payload (the vault
    /// forwards what is left of the message's TON, see [`crate::graph::handoff`]); overrides `receiver`.
    pub then: Option<HandOver>,
}

fn swap_params(args: &SwapArgs) -> Result<Cell, SwapError> {
    let deadline = u32::try_from(args.deadline).map_err(|_| SwapError::DeadlineOutOfRange {
        protocol: PROTOCOL,
        deadline: args.deadline,
        max: u64::from(u32::MAX),
    })?;
    let recipient = args.then.as_ref().map(|h| &h.target).or(args.receiver.as_ref());
    let mut b = Builder::new("dex_a SwapParams");
    b.uint(32, u64::from(deadline))?
        .addr_opt("recipient", recipient)?
        .addr_opt("referral", args.referral.as_ref())?
        .maybe_ref(args.then.as_ref().map(|h| h.payload.clone()))?
        .maybe_ref(None)?;
    b.build()
}

/// Writes `pool, given_in, limit, next` of `hops[0]` into `b`, with `hops[1..]` as the `next` chain.
fn write_step(b: &mut Builder, hops: &[Hop]) -> Result<(), SwapError> {
    let Some((first, rest)) = hops.split_first() else {
        return Err(SwapError::NoHops { protocol: PROTOCOL });
    };
    let next = if rest.is_empty() {
        None
    } else {
        let mut nb = Builder::new("dex_a SwapStep");
        write_step(&mut nb, rest)?;
        Some(nb.build()?)
    };
    b.addr("pool", &first.address)?.bit(false)?.coins("limit", first.min_out)?.maybe_ref(next)?;
    Ok(())
}

/// Builds the message for one vault route with the table's gas.
pub fn build(args: &SwapArgs, gas: &GasTable) -> Result<Message, SwapError> {
    if args.hops.is_empty() {
        return Err(SwapError::NoHops { protocol: PROTOCOL });
    }
    build_with(args, lookup_gas(&gas.dex_a, PROTOCOL, args.direction, args.hops.len())?)
}

/// [`build`] with the given gas.
pub fn build_with(args: &SwapArgs, g: Gas) -> Result<Message, SwapError> {
    check_offer(args.offer_amount)?;
    if args.hops.is_empty() {
        return Err(SwapError::NoHops { protocol: PROTOCOL });
    }
    let value = message_value(args.direction, args.offer_amount, g)?;
    let params = swap_params(args)?;
    if args.direction.offer_is_native() {
        let mut b = Builder::new("dex_a native vault swap");
        b.uint(32, u64::from(OP_NATIVE_SWAP))?.uint(64, args.query_id)?.coins("offer_amount", args.offer_amount)?;
        write_step(&mut b, &args.hops)?;
        b.child(params)?;
        Ok(Message { to: args.vault.clone(), value, body: b.build()? })
    } else {
        let wallet = args.offer_wallet.clone().ok_or(SwapError::MissingOfferWallet { protocol: PROTOCOL })?;
        JettonTransfer {
            query_id: args.query_id,
            amount: args.offer_amount,
            destination: args.vault.clone(),
            response_destination: Some(args.sender.clone()),
            custom_payload: None,
            forward_ton_amount: g.forward,
            forward_payload: Some(jetton_payload(args)?),
        }
        .message(wallet, value)
    }
}

/// The jetton vault's `swap#e3a0d482` payload (the forward payload of the transfer to the vault).
pub fn jetton_payload(args: &SwapArgs) -> Result<Cell, SwapError> {
    let mut b = Builder::new("dex_a jetton vault swap payload");
    b.uint(32, u64::from(OP_JETTON_SWAP))?;
    write_step(&mut b, &args.hops)?;
    b.child(swap_params(args)?)?;
    b.build()
}
