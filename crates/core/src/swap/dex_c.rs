//! `dex_c`: swaps through a TONCO-style concentrated-liquidity router, one hop per message segment (a route
//! goes on through the request's `payloads` hand-off, [`SwapArgs::then`](super::SwapArgs::then)).
//!
//! Owns the `POOLV3_SWAP` layout and its wrappers; must not pick wallets or price limits itself.
//!
//! ```text
//! POOLV3_SWAP#a7fb58f8 target_jetton_wallet:MsgAddress price_limit_sqrt:uint160 min_out:Coins
//!                      recipient:MsgAddress payload:(Maybe ^Cell) = 0
//! ton_transfer#01f3835d query_id:uint64 ton_amount:Coins refund_address:MsgAddress forward_payload:(Either Cell ^Cell)
//! ```
//!
//! | direction | message to | value | wrapper |
//! |---|---|---|---|
//! | TON→jetton | router's proxy-TON v2 wallet ([`SwapArgs::offer_wallet`](super::SwapArgs::offer_wallet)) | offer + gas | `ton_transfer`, refund = recipient |
//! | jetton→* | user's offer jetton wallet | gas | TEP-74 transfer to the router, response = recipient |
//!
//! [`Hop::address`](super::Hop) (`target_jetton_wallet`) is **the router's** wallet of the ask token (the
//! router's proxy-TON wallet when TON is asked); the hop's `min_out` is the route min-out. The SDK (1.0.26) has
//! no multi-hop builder, so more than one hop is [`SwapError::UnsupportedHops`].
//!
//! `query_id` is an input here. The SDK draws the `ton_transfer` query id at random below 2^31 and always writes
//! 0 in jetton transfers; the contracts do not read it, so any value is valid.

use num_bigint::BigUint;
use primitive_types::U256;
use tonlib_core::cell::Cell;
use tonlib_core::TonAddress;

use super::Terms;
use super::{check_offer, lookup_gas, message_value, Builder, Gas, GasTable, HandOver, Message, SwapArgs, SwapError};

/// Protocol slug.
pub const PROTOCOL: &str = "dex_c";
/// Router `POOLV3_SWAP` op code.
pub const OP_POOLV3_SWAP: u32 = 0xa7fb_58f8;
/// Proxy-TON v2 `ton_transfer` op code.
pub const OP_PTON_TON_TRANSFER: u32 = super::jetton::OP_TON_TRANSFER;
/// The mainnet router the SDK hard-codes.
pub const MAINNET_ROUTER: &str = "EQC_-t0nCnOFMdp7E7qPxAOCbCWGFz-e3pwxb6tTvFmshjt5";
/// The mainnet router's proxy-TON wallet the SDK hard-codes.
pub const MAINNET_ROUTER_PTON_WALLET: &str = "EQCHHakhWxSQIWbw6ioW21YnjVKBCDd_gVjF9Mz9_dIuFy23";
/// TickMath minimum sqrt price (Q64.96): 4295128739.
pub const MIN_SQRT_RATIO: U256 = U256([4_295_128_739, 0, 0, 0]);
/// TickMath maximum sqrt price (Q64.96): 1461446703485210103287273052203988822378723970342.
pub const MAX_SQRT_RATIO: U256 = U256([0x5d95_1d52_6398_8d26, 0xefd1_fc6a_5064_8849, 0xfffd_8963, 0]);

/// The loosest price limit for a swap in the given pool direction: `MIN_SQRT_RATIO + 1` when token0 is sold
/// (`zero_to_one`, the price moves down), `MAX_SQRT_RATIO − 1` otherwise — the TickMath convention the SDK's
/// examples and the oracle vectors use. The route min-out, not this limit, is then the user's protection.
pub fn no_price_limit(zero_to_one: bool) -> U256 {
    if zero_to_one {
        MIN_SQRT_RATIO + U256::one()
    } else {
        MAX_SQRT_RATIO - U256::one()
    }
}

/// The `POOLV3_SWAP` request cell. With `then`, the output goes to `then.target` with `then.forward_ton`
/// and `then.payload` (`payloads_cell = target_address ok_forward_amount ^ok_forward_payload
/// ret_forward_amount ^ret_forward_payload`, docs.tonco.io payload formats; the change goes to the
/// recipient with no forward and an empty payload); without it, to `recipient`.
pub fn swap_request(
    target_wallet: &TonAddress,
    price_limit_sqrt: U256,
    min_out: u128,
    recipient: &TonAddress,
    then: Option<&HandOver>,
) -> Result<Cell, SwapError> {
    if price_limit_sqrt.bits() > 160 {
        return Err(SwapError::PriceLimitOutOfRange);
    }
    let limit = BigUint::from_bytes_be(&price_limit_sqrt.to_big_endian());
    let payloads = match then {
        Some(h) => {
            let mut p = Builder::new("dex_c payloads");
            p.addr("target_address", &h.target)?
                .coins("ok_forward_amount", h.forward_ton)?
                .child(h.payload.clone())?
                .coins("ret_forward_amount", 0)?
                .child(Builder::new("dex_c ret_forward_payload").build()?)?;
            Some(p.build()?)
        }
        None => None,
    };
    let mut b = Builder::new("dex_c POOLV3_SWAP request");
    b.uint(32, u64::from(OP_POOLV3_SWAP))?
        .addr("target_jetton_wallet", target_wallet)?
        .big_uint(160, &limit)?
        .coins("min_out", min_out)?
        .addr("recipient", recipient)?
        .maybe_ref(payloads)?;
    b.build()
}

/// The `POOLV3_SWAP` request of `args` (its one hop, to the receiver or on through `then`).
pub fn request(args: &SwapArgs) -> Result<Cell, SwapError> {
    let Terms::DexC { price_limit_sqrt } = args.terms else {
        return Err(args.mismatch(PROTOCOL));
    };
    args.refuse(PROTOCOL, true, true, false)?;
    let hop = args.single_hop(PROTOCOL)?;
    swap_request(&hop.address, price_limit_sqrt, hop.min_out, args.recipient(), args.then.as_ref())
}

/// Builds the message for one single-hop CLMM swap with the table's gas.
pub fn build(args: &SwapArgs, gas: &GasTable) -> Result<Message, SwapError> {
    build_with(args, lookup_gas(&gas.dex_c, PROTOCOL, args.direction, 1)?)
}

/// [`build`] with the given gas.
pub fn build_with(args: &SwapArgs, g: Gas) -> Result<Message, SwapError> {
    check_offer(args.offer_amount)?;
    let request = request(args)?;
    let value = message_value(args.direction, args.offer_amount, g)?;
    let wallet = args.need_offer_wallet(PROTOCOL)?.clone();
    // Refunds and excess go to the recipient, as the SDK sends them.
    let recipient = args.recipient().clone();
    if args.direction.offer_is_native() {
        args.ton_transfer(recipient, request).message("dex_c proxy-TON ton_transfer", wallet, value)
    } else {
        args.jetton_transfer(Some(recipient), g.forward, request).message(wallet, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqrt_ratio_bounds_match_tickmath_decimals() {
        assert_eq!(MIN_SQRT_RATIO, U256::from_dec_str("4295128739").unwrap());
        assert_eq!(MAX_SQRT_RATIO, U256::from_dec_str("1461446703485210103287273052203988822378723970342").unwrap());
        assert_eq!(no_price_limit(true), U256::from(4_295_128_740u64));
        assert_eq!(
            no_price_limit(false),
            U256::from_dec_str("1461446703485210103287273052203988822378723970341").unwrap()
        );
        assert!(MAX_SQRT_RATIO.bits() <= 160);
    }
}
