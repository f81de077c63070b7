//! Reading swap bodies back: which layout, how much is offered, and each hop's address and min-out.
//!
//! Owns only the inverse of the layouts in the sibling modules (for tests, round-trip checks and logging);
//! it must not be used to decide anything about funds.

use tonlib_core::cell::{Cell, CellParser, TonCellError};
use tonlib_core::TonAddress;

use super::{dex_a, dex_b_v1, dex_b_v2, dex_c, jetton, Hop, SwapError};

/// Which swap payload a body carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Layout {
    /// `dex_b_v1` `swap` (in a jetton or proxy-TON v1 transfer).
    DexBV1,
    /// `dex_b_v2` `swap` with its `cross_swap` chain.
    DexBV2,
    /// `dex_a` native-vault or jetton-vault swap.
    DexA,
    /// `dex_c` `POOLV3_SWAP`.
    DexC,
}

/// A decoded swap body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedSwap {
    /// The payload's layout.
    pub layout: Layout,
    /// Offer amount found in the wrapper (jetton amount, or TON amount for native offers).
    pub offer_amount: u128,
    /// Hops in route order: address (router ask wallet or pool) and min-out / limit.
    pub hops: Vec<Hop>,
}

fn bad(context: &'static str) -> impl Fn(TonCellError) -> SwapError {
    move |e| SwapError::Cell { context, reason: e.to_string() }
}

fn coins(p: &mut CellParser, context: &'static str) -> Result<u128, SwapError> {
    let v = p.load_coins().map_err(bad(context))?;
    u128::try_from(v).map_err(|_| SwapError::Cell { context, reason: "coins exceed u128".into() })
}

fn addr(p: &mut CellParser, context: &'static str) -> Result<TonAddress, SwapError> {
    p.load_address().map_err(bad(context))
}

fn unknown_op(context: &'static str, op: u32) -> SwapError {
    SwapError::Cell { context, reason: format!("unexpected op 0x{op:08x}") }
}

/// Decodes a message body built by this module (or by the exchanges' SDKs).
pub fn decode(body: &Cell) -> Result<DecodedSwap, SwapError> {
    const CTX: &str = "decoding the message body";
    let mut p = body.parser();
    let op = p.load_u32(32).map_err(bad(CTX))?;
    match op {
        jetton::OP_TRANSFER => {
            p.load_u64(64).map_err(bad(CTX))?;
            let amount = coins(&mut p, CTX)?;
            addr(&mut p, CTX)?;
            addr(&mut p, CTX)?;
            p.load_maybe_cell_ref().map_err(bad(CTX))?;
            coins(&mut p, CTX)?;
            let payload = p.load_either_cell_or_cell_ref().map_err(bad(CTX))?;
            let (layout, hops) = decode_payload(&payload)?;
            Ok(DecodedSwap { layout, offer_amount: amount, hops })
        }
        dex_b_v2::OP_PTON_TON_TRANSFER => {
            p.load_u64(64).map_err(bad(CTX))?;
            let amount = coins(&mut p, CTX)?;
            addr(&mut p, CTX)?;
            let payload = p.load_either_cell_or_cell_ref().map_err(bad(CTX))?;
            let (layout, hops) = decode_payload(&payload)?;
            Ok(DecodedSwap { layout, offer_amount: amount, hops })
        }
        dex_a::OP_NATIVE_SWAP => {
            p.load_u64(64).map_err(bad(CTX))?;
            let amount = coins(&mut p, CTX)?;
            Ok(DecodedSwap { layout: Layout::DexA, offer_amount: amount, hops: dex_a_steps(&mut p)? })
        }
        other => Err(unknown_op(CTX, other)),
    }
}

fn dex_a_steps(p: &mut CellParser) -> Result<Vec<Hop>, SwapError> {
    const CTX: &str = "decoding a dex_a SwapStep";
    let mut hops = Vec::new();
    let mut next: Option<std::sync::Arc<Cell>>;
    let address = addr(p, CTX)?;
    p.load_bit().map_err(bad(CTX))?;
    hops.push(Hop { address, min_out: coins(p, CTX)? });
    next = p.load_maybe_cell_ref().map_err(bad(CTX))?;
    while let Some(cell) = next {
        let mut q = cell.parser();
        let address = addr(&mut q, CTX)?;
        q.load_bit().map_err(bad(CTX))?;
        hops.push(Hop { address, min_out: coins(&mut q, CTX)? });
        next = q.load_maybe_cell_ref().map_err(bad(CTX))?;
    }
    Ok(hops)
}

fn decode_payload(payload: &Cell) -> Result<(Layout, Vec<Hop>), SwapError> {
    const CTX: &str = "decoding the swap payload";
    let mut p = payload.parser();
    let op = p.load_u32(32).map_err(bad(CTX))?;
    match op {
        dex_b_v1::OP_SWAP => {
            let address = addr(&mut p, CTX)?;
            Ok((Layout::DexBV1, vec![Hop { address, min_out: coins(&mut p, CTX)? }]))
        }
        dex_b_v2::OP_SWAP => {
            let mut hops = Vec::new();
            let mut cur = Some(std::sync::Arc::new(payload.clone()));
            let mut first = true;
            while let Some(cell) = cur {
                let mut q = cell.parser();
                let op = q.load_u32(32).map_err(bad(CTX))?;
                let want = if first { dex_b_v2::OP_SWAP } else { dex_b_v2::OP_CROSS_SWAP };
                if op != want {
                    return Err(unknown_op(CTX, op));
                }
                first = false;
                let address = addr(&mut q, CTX)?;
                let extra = q.next_reference().map_err(bad(CTX))?;
                let mut e = extra.parser();
                hops.push(Hop { address, min_out: coins(&mut e, CTX)? });
                addr(&mut e, CTX)?;
                coins(&mut e, CTX)?;
                cur = e.load_maybe_cell_ref().map_err(bad(CTX))?;
            }
            Ok((Layout::DexBV2, hops))
        }
        dex_a::OP_JETTON_SWAP => Ok((Layout::DexA, dex_a_steps(&mut p)?)),
        dex_c::OP_POOLV3_SWAP => {
            let address = addr(&mut p, CTX)?;
            p.load_uint(160).map_err(bad(CTX))?;
            Ok((Layout::DexC, vec![Hop { address, min_out: coins(&mut p, CTX)? }]))
        }
        other => Err(unknown_op(CTX, other)),
    }
}
