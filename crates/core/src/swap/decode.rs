//! Reading swap bodies back: every TL-B field of the wrapper and of each nested swap payload
//! ([`decode_body`]), and the flat view "which layout, how much is offered, each hop's address and min-out"
//! ([`decode`]).
//!
//! Owns only the inverse of the layouts in the sibling modules (for tests, round-trip checks and logging);
//! it must not be used to decide anything about funds. Any bag of cells may come in: a body that is not one
//! of these layouts is a [`SwapError::Cell`], never a panic (`fuzz/fuzz_targets/swap_body.rs`).

use std::sync::Arc;

use primitive_types::U256;
use tonlib_core::cell::{Cell, CellParser, TonCellError};
use tonlib_core::tlb_types::block::msg_address::{MsgAddress, MsgAddressInt};
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

/// A decoded swap body, flat: the first payload's layout, the offer, and every hop of the route in order,
/// through every nested hand-over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedSwap {
    /// The first payload's layout.
    pub layout: Layout,
    /// Offer amount found in the wrapper (jetton amount, or TON amount for native offers).
    pub offer_amount: u128,
    /// Hops in route order: address (router ask wallet or pool) and min-out / limit.
    pub hops: Vec<Hop>,
}

/// The message body, field by field.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    /// TEP-74 `transfer#0f8a7ea5` to the user's jetton wallet.
    JettonTransfer {
        /// `query_id`.
        query_id: u64,
        /// `amount`.
        amount: u128,
        /// `destination` (`None` = `addr_none`).
        destination: Option<TonAddress>,
        /// `response_destination`.
        response_destination: Option<TonAddress>,
        /// Whether `custom_payload` is present.
        custom_payload: bool,
        /// `forward_ton_amount`.
        forward_ton_amount: u128,
        /// `forward_payload`, decoded.
        forward_payload: Payload,
        /// Whether `forward_payload` was a reference (`right$1 ^Cell`).
        forward_payload_in_ref: bool,
    },
    /// Proxy-TON v2 `ton_transfer#01f3835d` to a router's pTON wallet.
    TonTransfer {
        /// `query_id`.
        query_id: u64,
        /// `ton_amount`.
        ton_amount: u128,
        /// `refund_address`.
        refund_address: Option<TonAddress>,
        /// `forward_payload`, decoded.
        forward_payload: Payload,
        /// Whether `forward_payload` was a reference.
        forward_payload_in_ref: bool,
    },
    /// `dex_a` native vault `swap#ea06185d`.
    DexANative {
        /// `query_id`.
        query_id: u64,
        /// `amount`.
        amount: u128,
        /// The swap steps and parameters.
        swap: DexASwap,
    },
}

/// A swap payload (or whatever else rides in a payload field).
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// No payload bits at all.
    Empty,
    /// `dex_b_v1` `swap#25938561`.
    DexBV1(DexBV1Swap),
    /// `dex_b_v2` `swap#6664de2a` / `cross_swap#69cf1a5b`.
    DexBV2(Box<DexBV2Swap>),
    /// `dex_c` `POOLV3_SWAP#a7fb58f8`.
    DexC(Box<DexCSwap>),
    /// `dex_a` jetton vault `swap#e3a0d482`.
    DexA(Box<DexASwap>),
    /// Anything else: its representation hash (hex) and bit length.
    Other {
        /// Cell hash, lowercase hex.
        hash: String,
        /// Data bits.
        bits: usize,
    },
}

/// `swap#25938561 ask_jetton_wallet min_out to_address has_ref [ref_address]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DexBV1Swap {
    /// `ask_jetton_wallet`.
    pub ask_jetton_wallet: Option<TonAddress>,
    /// `min_out`.
    pub min_out: u128,
    /// `to_address`.
    pub to_address: Option<TonAddress>,
    /// The referral, when `has_ref`.
    pub referral: Option<TonAddress>,
}

/// The `dex_b_v2` `swap` / `cross_swap` layout.
#[derive(Debug, Clone, PartialEq)]
pub struct DexBV2Swap {
    /// Whether the op is `cross_swap`.
    pub cross: bool,
    /// `token_wallet1`.
    pub token_wallet1: Option<TonAddress>,
    /// `refund_address`.
    pub refund_address: Option<TonAddress>,
    /// `excesses_address`.
    pub excesses_address: Option<TonAddress>,
    /// `tx_deadline`.
    pub tx_deadline: u64,
    /// `min_out`.
    pub min_out: u128,
    /// `receiver`.
    pub receiver: Option<TonAddress>,
    /// `fwd_gas`.
    pub fwd_gas: u128,
    /// `custom_payload`, decoded.
    pub custom_payload: Option<Payload>,
    /// `refund_fwd_gas`.
    pub refund_fwd_gas: u128,
    /// `refund_payload`, decoded.
    pub refund_payload: Option<Payload>,
    /// `ref_fee`.
    pub ref_fee: u16,
    /// `ref_address`.
    pub ref_address: Option<TonAddress>,
}

/// The `dex_c` `POOLV3_SWAP` request.
#[derive(Debug, Clone, PartialEq)]
pub struct DexCSwap {
    /// `target_jetton_wallet`.
    pub target_jetton_wallet: Option<TonAddress>,
    /// `price_limit_sqrt` (uint160).
    pub price_limit_sqrt: U256,
    /// `min_out`.
    pub min_out: u128,
    /// `recipient`.
    pub recipient: Option<TonAddress>,
    /// `payloads_cell`, when present.
    pub payloads: Option<DexCPayloads>,
    /// Data bits left after `payloads_cell` (a newer router's `referral` maybe-bit).
    pub tail_bits: usize,
}

/// TONCO's `payloads_cell`: where the output goes on.
#[derive(Debug, Clone, PartialEq)]
pub struct DexCPayloads {
    /// `target_address`.
    pub target_address: Option<TonAddress>,
    /// `ok_forward_amount`.
    pub ok_forward_amount: u128,
    /// `ok_forward_payload`, decoded.
    pub ok_forward_payload: Payload,
    /// `ret_forward_amount` (absent in some SDK builds' inner levels).
    pub ret_forward_amount: Option<u128>,
    /// `ret_forward_payload`, decoded.
    pub ret_forward_payload: Option<Payload>,
}

/// The `dex_a` `SwapStep` chain and `SwapParams`.
#[derive(Debug, Clone, PartialEq)]
pub struct DexASwap {
    /// Steps in order: pool and `limit`.
    pub steps: Vec<Hop>,
    /// `deadline`.
    pub deadline: u32,
    /// `recipient_addr`.
    pub recipient: Option<TonAddress>,
    /// `referral_addr`.
    pub referral: Option<TonAddress>,
    /// `fulfill_payload`, decoded.
    pub fulfill_payload: Option<Payload>,
    /// `reject_payload`, decoded.
    pub reject_payload: Option<Payload>,
}

/// Payloads nest; a body deeper than this is refused (our routes nest at most one payload per hop).
const MAX_NESTING: usize = 16;

const CTX: &str = "decoding a swap body";

fn bad(e: TonCellError) -> SwapError {
    SwapError::cell(CTX, e)
}

fn coins(p: &mut CellParser<'_>) -> Result<u128, SwapError> {
    let v = p.load_coins().map_err(bad)?;
    u128::try_from(v).map_err(|_| SwapError::malformed(CTX, "coins exceed u128"))
}

/// `MsgAddress`: `addr_none` is `None`; `addr_std` an address; anything else an error.
fn addr(p: &mut CellParser<'_>) -> Result<Option<TonAddress>, SwapError> {
    match p.load_msg_address().map_err(bad)? {
        MsgAddress::Ext(tonlib_core::tlb_types::block::msg_address::MsgAddressExt::None(_)) => Ok(None),
        MsgAddress::Int(MsgAddressInt::Std(a)) if a.anycast.is_none() && a.address.len() == 32 => {
            let mut hash = [0u8; 32];
            hash.copy_from_slice(&a.address);
            Ok(Some(TonAddress::new(a.workchain, hash.into())))
        }
        other => Err(SwapError::malformed(CTX, format!("unsupported address {other:?}"))),
    }
}

fn unknown_op(op: u32) -> SwapError {
    SwapError::malformed(CTX, format!("unexpected op 0x{op:08x}"))
}

/// Reads a message body: the wrapper and every nested payload.
pub fn decode_body(body: &Cell) -> Result<Body, SwapError> {
    let mut p = body.parser();
    let op = p.load_u32(32).map_err(bad)?;
    match op {
        jetton::OP_TRANSFER => {
            let query_id = p.load_u64(64).map_err(bad)?;
            let amount = coins(&mut p)?;
            let destination = addr(&mut p)?;
            let response_destination = addr(&mut p)?;
            let custom_payload = p.load_maybe_cell_ref().map_err(bad)?.is_some();
            let forward_ton_amount = coins(&mut p)?;
            let (forward_payload, forward_payload_in_ref) = either_payload(&mut p, 0)?;
            Ok(Body::JettonTransfer {
                query_id,
                amount,
                destination,
                response_destination,
                custom_payload,
                forward_ton_amount,
                forward_payload,
                forward_payload_in_ref,
            })
        }
        dex_b_v2::OP_PTON_TON_TRANSFER => {
            let query_id = p.load_u64(64).map_err(bad)?;
            let ton_amount = coins(&mut p)?;
            let refund_address = addr(&mut p)?;
            let (forward_payload, forward_payload_in_ref) = either_payload(&mut p, 0)?;
            Ok(Body::TonTransfer { query_id, ton_amount, refund_address, forward_payload, forward_payload_in_ref })
        }
        dex_a::OP_NATIVE_SWAP => {
            let query_id = p.load_u64(64).map_err(bad)?;
            let amount = coins(&mut p)?;
            Ok(Body::DexANative { query_id, amount, swap: dex_a_swap(&mut p, 0)? })
        }
        other => Err(unknown_op(other)),
    }
}

/// `forward_payload:(Either Cell ^Cell)`: an empty left branch is [`Payload::Empty`].
fn either_payload(p: &mut CellParser<'_>, depth: usize) -> Result<(Payload, bool), SwapError> {
    let in_ref = p.load_bit().map_err(bad)?;
    let cell: Arc<Cell> = if in_ref {
        p.next_reference().map_err(bad)?
    } else {
        // The left branch is the rest of this cell.
        Arc::new(p.load_remaining().map_err(bad)?)
    };
    Ok((payload(&cell, depth)?, in_ref))
}

fn maybe_payload(p: &mut CellParser<'_>, depth: usize) -> Result<Option<Payload>, SwapError> {
    p.load_maybe_cell_ref().map_err(bad)?.map(|c| payload(&c, depth)).transpose()
}

/// A payload cell: a known swap layout, or [`Payload::Other`].
fn payload(cell: &Cell, depth: usize) -> Result<Payload, SwapError> {
    if depth > MAX_NESTING {
        return Err(SwapError::malformed(CTX, "payloads nested too deep"));
    }
    if cell.bit_len() == 0 && cell.references().is_empty() {
        return Ok(Payload::Empty);
    }
    let other = || Payload::Other { hash: Cell::cell_hash(cell).to_hex(), bits: cell.bit_len() };
    if cell.bit_len() < 32 {
        return Ok(other());
    }
    let mut p = cell.parser();
    let op = p.load_u32(32).map_err(bad)?;
    let d = depth + 1;
    Ok(match op {
        dex_b_v1::OP_SWAP => {
            let ask_jetton_wallet = addr(&mut p)?;
            let min_out = coins(&mut p)?;
            let to_address = addr(&mut p)?;
            let referral = if p.load_bit().map_err(bad)? { addr(&mut p)? } else { None };
            Payload::DexBV1(DexBV1Swap { ask_jetton_wallet, min_out, to_address, referral })
        }
        dex_b_v2::OP_SWAP | dex_b_v2::OP_CROSS_SWAP => {
            let token_wallet1 = addr(&mut p)?;
            let refund_address = addr(&mut p)?;
            let excesses_address = addr(&mut p)?;
            let tx_deadline = p.load_u64(64).map_err(bad)?;
            let extra = p.next_reference().map_err(bad)?;
            let mut e = extra.parser();
            let min_out = coins(&mut e)?;
            let receiver = addr(&mut e)?;
            let fwd_gas = coins(&mut e)?;
            let custom_payload = maybe_payload(&mut e, d)?;
            let refund_fwd_gas = coins(&mut e)?;
            let refund_payload = maybe_payload(&mut e, d)?;
            let ref_fee = e.load_u16(16).map_err(bad)?;
            let ref_address = addr(&mut e)?;
            Payload::DexBV2(Box::new(DexBV2Swap {
                cross: op == dex_b_v2::OP_CROSS_SWAP,
                token_wallet1,
                refund_address,
                excesses_address,
                tx_deadline,
                min_out,
                receiver,
                fwd_gas,
                custom_payload,
                refund_fwd_gas,
                refund_payload,
                ref_fee,
                ref_address,
            }))
        }
        dex_c::OP_POOLV3_SWAP => {
            let target_jetton_wallet = addr(&mut p)?;
            let limit = p.load_uint(160).map_err(bad)?;
            let price_limit_sqrt = U256::from_big_endian(&limit.to_bytes_be());
            let min_out = coins(&mut p)?;
            let recipient = addr(&mut p)?;
            let payloads = match p.load_maybe_cell_ref().map_err(bad)? {
                Some(c) => {
                    let mut q = c.parser();
                    let target_address = addr(&mut q)?;
                    let ok_forward_amount = coins(&mut q)?;
                    let ok = q.next_reference().map_err(bad)?;
                    let ok_forward_payload = payload(&ok, d)?;
                    let (ret_forward_amount, ret_forward_payload) = if q.remaining_bits() > 0 {
                        let amount = coins(&mut q)?;
                        let ret = q.next_reference().map_err(bad)?;
                        (Some(amount), Some(payload(&ret, d)?))
                    } else {
                        (None, None)
                    };
                    Some(DexCPayloads {
                        target_address,
                        ok_forward_amount,
                        ok_forward_payload,
                        ret_forward_amount,
                        ret_forward_payload,
                    })
                }
                None => None,
            };
            let tail_bits = p.remaining_bits();
            Payload::DexC(Box::new(DexCSwap {
                target_jetton_wallet,
                price_limit_sqrt,
                min_out,
                recipient,
                payloads,
                tail_bits,
            }))
        }
        dex_a::OP_JETTON_SWAP => Payload::DexA(Box::new(dex_a_swap(&mut p, d)?)),
        _ => other(),
    })
}

/// `_:SwapStep swap_params:^SwapParams`.
fn dex_a_swap(p: &mut CellParser<'_>, depth: usize) -> Result<DexASwap, SwapError> {
    let mut steps = Vec::new();
    let pool = addr(p)?.ok_or_else(|| SwapError::malformed(CTX, "dex_a step without a pool"))?;
    p.load_bit().map_err(bad)?;
    steps.push(Hop { address: pool, min_out: coins(p)? });
    let mut next = p.load_maybe_cell_ref().map_err(bad)?;
    while let Some(cell) = next {
        if steps.len() > MAX_NESTING {
            return Err(SwapError::malformed(CTX, "dex_a steps nested too deep"));
        }
        let mut q = cell.parser();
        let pool = addr(&mut q)?.ok_or_else(|| SwapError::malformed(CTX, "dex_a step without a pool"))?;
        q.load_bit().map_err(bad)?;
        steps.push(Hop { address: pool, min_out: coins(&mut q)? });
        next = q.load_maybe_cell_ref().map_err(bad)?;
    }
    let params = p.next_reference().map_err(bad)?;
    let mut q = params.parser();
    let deadline = q.load_u32(32).map_err(bad)?;
    let recipient = addr(&mut q)?;
    let referral = addr(&mut q)?;
    let fulfill_payload = maybe_payload(&mut q, depth + 1)?;
    let reject_payload = maybe_payload(&mut q, depth + 1)?;
    Ok(DexASwap { steps, deadline, recipient, referral, fulfill_payload, reject_payload })
}

impl Payload {
    /// The payload's layout, when it is a swap.
    pub fn layout(&self) -> Option<Layout> {
        match self {
            Payload::DexBV1(_) => Some(Layout::DexBV1),
            Payload::DexBV2(_) => Some(Layout::DexBV2),
            Payload::DexC(_) => Some(Layout::DexC),
            Payload::DexA(_) => Some(Layout::DexA),
            Payload::Empty | Payload::Other { .. } => None,
        }
    }

    /// Every hop of this payload and of the payloads it hands over to, in route order.
    pub fn hops(&self) -> Vec<Hop> {
        let mut out = Vec::new();
        self.collect_hops(&mut out);
        out
    }

    fn collect_hops(&self, out: &mut Vec<Hop>) {
        let addr = |a: &Option<TonAddress>| a.clone().unwrap_or(TonAddress::NULL);
        match self {
            Payload::DexBV1(s) => out.push(Hop { address: addr(&s.ask_jetton_wallet), min_out: s.min_out }),
            Payload::DexBV2(s) => {
                out.push(Hop { address: addr(&s.token_wallet1), min_out: s.min_out });
                if let Some(next) = &s.custom_payload {
                    next.collect_hops(out);
                }
            }
            Payload::DexC(s) => {
                out.push(Hop { address: addr(&s.target_jetton_wallet), min_out: s.min_out });
                if let Some(p) = &s.payloads {
                    p.ok_forward_payload.collect_hops(out);
                }
            }
            Payload::DexA(s) => {
                out.extend(s.steps.iter().cloned());
                if let Some(next) = &s.fulfill_payload {
                    next.collect_hops(out);
                }
            }
            Payload::Empty | Payload::Other { .. } => {}
        }
    }
}

/// Decodes a message body built by this module (or by the exchanges' SDKs), flat.
pub fn decode(body: &Cell) -> Result<DecodedSwap, SwapError> {
    let (offer_amount, layout, hops) = match decode_body(body)? {
        Body::JettonTransfer { amount, forward_payload, .. } => {
            (amount, forward_payload.layout(), forward_payload.hops())
        }
        Body::TonTransfer { ton_amount, forward_payload, .. } => {
            (ton_amount, forward_payload.layout(), forward_payload.hops())
        }
        Body::DexANative { amount, swap, .. } => {
            let p = Payload::DexA(Box::new(swap));
            (amount, Some(Layout::DexA), p.hops())
        }
    };
    let layout = layout.ok_or_else(|| SwapError::malformed(CTX, "the forward payload is not a swap"))?;
    Ok(DecodedSwap { layout, offer_amount, hops })
}
