//! TEP-74 jetton `transfer` bodies, and the proxy-TON wallet's `ton_transfer` (TON offered as a jetton), written
//! exactly as the exchanges' SDKs write them.
//!
//! Owns the two transfer layouts only; which payload rides in them belongs to each protocol module.
//!
//! ```text
//! transfer#0f8a7ea5 query_id:uint64 amount:Coins destination:MsgAddress response_destination:MsgAddress
//!                   custom_payload:(Maybe ^Cell) forward_ton_amount:Coins forward_payload:(Either Cell ^Cell)
//! ton_transfer#01f3835d query_id:uint64 ton_amount:Coins refund_address:MsgAddress forward_payload:(Either Cell ^Cell)
//! ```
//! SDK conventions kept here: `custom_payload` absent is a single `0` bit; a present `forward_payload` is always
//! a reference (`1` + ref, never inlined); an absent one is a lone `0` bit (an empty inline cell).
//! `tonlib-core`'s own `JettonTransferMessage` writes an empty payload as `1` + ref to an empty cell, which hashes
//! differently, so the body is assembled here from `CellBuilder` primitives.

use tonlib_core::cell::Cell;
use tonlib_core::TonAddress;

use super::{Builder, Message, SwapError};

/// TEP-74 `transfer` op code.
pub const OP_TRANSFER: u32 = 0x0f8a_7ea5;
/// Proxy-TON (v2, v2.1) `ton_transfer` op code.
pub const OP_TON_TRANSFER: u32 = 0x01f3_835d;

/// A jetton transfer request (the body sent to the sender's own jetton wallet).
#[derive(Debug, Clone, PartialEq)]
pub struct JettonTransfer {
    /// Echoed in the notifications and excesses.
    pub query_id: u64,
    /// Jetton amount, smallest units.
    pub amount: u128,
    /// Owner-level destination (a router, a vault, a user).
    pub destination: TonAddress,
    /// Where excess TON goes; `None` writes `addr_none` (proxy-TON v1 swaps need that).
    pub response_destination: Option<TonAddress>,
    /// Optional custom payload for the wallet (`Maybe ^Cell`).
    pub custom_payload: Option<Cell>,
    /// Nanotons forwarded with the transfer notification.
    pub forward_ton_amount: u128,
    /// Payload forwarded to the destination (always as a reference when present).
    pub forward_payload: Option<Cell>,
}

impl JettonTransfer {
    /// The transfer body cell.
    pub fn body(&self) -> Result<Cell, SwapError> {
        let mut b = Builder::new("jetton transfer body");
        b.uint(32, u64::from(OP_TRANSFER))?
            .uint(64, self.query_id)?
            .coins("amount", self.amount)?
            .addr("destination", &self.destination)?
            .addr_opt("response_destination", self.response_destination.as_ref())?
            .maybe_ref(self.custom_payload.clone())?
            .coins("forward_ton_amount", self.forward_ton_amount)?
            // Either Cell ^Cell: absent → left branch with an empty cell (one 0 bit); present → right branch.
            .maybe_ref(self.forward_payload.clone())?;
        b.build()
    }

    /// The message to the sender's jetton wallet `wallet`, carrying `value` nanotons.
    pub fn message(&self, wallet: TonAddress, value: u128) -> Result<Message, SwapError> {
        Ok(Message { to: wallet, value, body: self.body()? })
    }
}

/// A proxy-TON `ton_transfer` request (the body sent to a router's proxy-TON v2 / v2.1 wallet, with the TON
/// offered on top of the gas): the swap `payload` always as a reference.
#[derive(Debug, Clone, PartialEq)]
pub struct TonTransfer {
    /// Query id.
    pub query_id: u64,
    /// The TON offered, nanotons.
    pub ton_amount: u128,
    /// Where a failed swap refunds.
    pub refund_address: TonAddress,
    /// The router's swap payload.
    pub payload: Cell,
}

impl TonTransfer {
    /// The `ton_transfer` body cell; `context` names it in errors.
    pub fn body(&self, context: &'static str) -> Result<Cell, SwapError> {
        let mut b = Builder::new(context);
        b.uint(32, u64::from(OP_TON_TRANSFER))?
            .uint(64, self.query_id)?
            .coins("offer_amount", self.ton_amount)?
            .addr("refund_address", &self.refund_address)?
            .maybe_ref(Some(self.payload.clone()))?;
        b.build()
    }

    /// The message to the proxy-TON wallet `wallet`, carrying `value` nanotons; `context` names the body in errors.
    pub fn message(&self, context: &'static str, wallet: TonAddress, value: u128) -> Result<Message, SwapError> {
        Ok(Message { to: wallet, value, body: self.body(context)? })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_payloads_are_single_bits() {
        let t = JettonTransfer {
            query_id: 0,
            amount: 0,
            destination: TonAddress::NULL,
            response_destination: None,
            custom_payload: None,
            forward_ton_amount: 0,
            forward_payload: None,
        };
        // 32 op + 64 qid + 4 amount + 267 dest + 2 resp + 1 custom + 4 fwd + 1 payload
        let c = t.body().unwrap();
        assert_eq!(c.bit_len(), 32 + 64 + 4 + 267 + 2 + 1 + 4 + 1);
        assert!(c.references().is_empty());
    }
}
