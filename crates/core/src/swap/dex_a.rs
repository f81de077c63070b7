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
//! | TON | the native vault ([`SwapArgs::entry`](super::SwapArgs::entry)) | offer + gas |
//! | jetton | the user's offer jetton wallet: TEP-74 transfer to the **jetton vault contract** (not its wallet), response = sender, payload as ref | gas |
//!
//! Each [`Hop::address`](super::Hop) is a **pool**; the first step is inline, later ones a `Maybe ^SwapStep`
//! chain. **Min-out convention:** `limit` is the minimum output of *that* step; this crate gives earlier steps 0
//! and the last step the route min-out ([`super::route_min_outs`]).
//!
//! `recipient = None` writes `addr_none` (as the SDK does; the vault then pays the sender), and `deadline = 0`
//! means no deadline. Output direction does not change the layout (jetton→TON and jetton→jetton are the same).

use tonlib_core::cell::Cell;

use super::{check_offer, message_value, Builder, Gas, GasTable, Hop, Message, SwapArgs, SwapError, Terms};

/// Protocol slug.
pub const PROTOCOL: &str = "dex_a";
/// Native vault `swap` op code.
pub const OP_NATIVE_SWAP: u32 = 0xea06_185d;
/// Jetton vault `swap` op code (in the transfer's forward payload).
pub const OP_JETTON_SWAP: u32 = 0xe3a0_d482;

fn swap_params(args: &SwapArgs) -> Result<Cell, SwapError> {
    if args.terms != Terms::DexA {
        return Err(args.mismatch(PROTOCOL));
    }
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
    build_with(args, args.table_gas(gas)?)
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
        Ok(Message { to: args.entry.clone(), value, body: b.build()? })
    } else {
        let wallet = args.need_offer_wallet(PROTOCOL)?.clone();
        args.jetton_transfer(Some(args.sender.clone()), g.forward, jetton_payload(args)?).message(wallet, value)
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
