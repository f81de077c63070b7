//! The inputs of one swap message, whatever the exchange: [`SwapArgs`], with what only one exchange's layout
//! has in its [`Terms`].
//!
//! Owns the argument vocabulary and which exchange honours which field; must not write cells (each exchange's
//! file does) nor resolve addresses (the caller, e.g. [`super::build`], does).

use primitive_types::U256;
use tonlib_core::cell::Cell;
use tonlib_core::TonAddress;

use super::jetton::{JettonTransfer, TonTransfer};
use super::{dex_a, dex_b_v1, dex_b_v2, dex_c, Direction, Gas, GasTable, HandOver, Hop, Message, SwapError};
use crate::graph::Protocol;

/// Inputs of one swap message: a route segment through one entry contract (a router, or a `dex_a` vault).
///
/// A field an exchange's layout has no place for is refused when set ([`SwapError::Unsupported`]), never
/// dropped: `dex_b_v1` writes no deadline and hands nothing on, `dex_c` writes no deadline or referrer.
#[derive(Debug, Clone, PartialEq)]
pub struct SwapArgs {
    /// Which side is TON (of the whole route).
    pub direction: Direction,
    /// The entry contract: the router (`dex_b_v1`, `dex_b_v2`, `dex_c`: destination of the jetton transfer) or
    /// the vault (`dex_a`: the native vault for a TON offer, the offer jetton's vault otherwise).
    pub entry: TonAddress,
    /// The user's wallet (signer; response destination for jetton offers).
    pub sender: TonAddress,
    /// Who receives the output; `None` = the sender (`dex_a` writes `addr_none`, which means the same).
    pub receiver: Option<TonAddress>,
    /// Offer amount, smallest units (nanotons for TON).
    pub offer_amount: u128,
    /// Jetton offer: the user's jetton wallet of the offer token. TON offer: the router's proxy-TON wallet
    /// (`dex_b_*`, `dex_c`; required there), unused by `dex_a` (the message goes to its native vault).
    pub offer_wallet: Option<TonAddress>,
    /// The hops in route order ([`Hop`] says what each address is per exchange).
    pub hops: Vec<Hop>,
    /// Unix seconds: `dex_b_v2`'s `tx_deadline` (required in the future when each hop executes), `dex_a`'s
    /// deadline (0 = none; must fit uint32). Must be 0 for `dex_b_v1` and `dex_c`, which have none.
    pub deadline: u64,
    /// Referrer, if any. Must be `None` for `dex_c`, which has no referral field.
    pub referral: Option<TonAddress>,
    /// Query id of the transfer (and of `dex_a`'s native vault body).
    pub query_id: u64,
    /// Where the last hop's output goes on, if not to the receiver ([`HandOver`]). Must be `None` for
    /// `dex_b_v1`, whose swap cannot forward.
    pub then: Option<HandOver>,
    /// The exchange, with what only its layout has.
    pub terms: Terms,
}

/// The exchange of a [`SwapArgs`], with the fields only its layout has.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Terms {
    /// DeDust-style vault swap.
    DexA,
    /// STON.fi-style v1 router swap.
    DexBV1,
    /// STON.fi-style v2 router swap.
    DexBV2 {
        /// Where a failed swap refunds; `None` = the sender.
        refund: Option<TonAddress>,
        /// Where excess TON goes; `None` = the refund address.
        excesses: Option<TonAddress>,
        /// Referral fee in basis points, 0..=[`dex_b_v2::MAX_REF_FEE_BPS`]; written even without a referrer.
        ref_fee_bps: u16,
    },
    /// TONCO-style CLMM swap.
    DexC {
        /// Price limit (sqrt price, Q64.96, uint160): slightly above [`dex_c::MIN_SQRT_RATIO`] when the swap
        /// moves the price down (token0 in), slightly below [`dex_c::MAX_SQRT_RATIO`] when it moves it up.
        price_limit_sqrt: U256,
    },
}

impl Terms {
    /// `dex_b_v2` terms with the SDK's defaults: refunds and excesses to the sender, the default referral fee.
    pub fn dex_b_v2() -> Terms {
        Terms::DexBV2 { refund: None, excesses: None, ref_fee_bps: dex_b_v2::DEFAULT_REF_FEE_BPS }
    }

    /// The exchange these terms are for.
    pub fn protocol(&self) -> Protocol {
        match self {
            Terms::DexA => Protocol::DexA,
            Terms::DexBV1 => Protocol::DexBV1,
            Terms::DexBV2 { .. } => Protocol::DexBV2,
            Terms::DexC { .. } => Protocol::DexC,
        }
    }
}

impl SwapArgs {
    /// The exchange these arguments are for.
    pub fn protocol(&self) -> Protocol {
        self.terms.protocol()
    }

    /// Builds the one message of this segment with the gas table's TON.
    pub fn build(&self, gas: &GasTable) -> Result<Message, SwapError> {
        self.build_with(gas, None)
    }

    /// Builds the one message of this segment with `gas` instead of the table's entry when given (a route
    /// that hands off to another exchange carries the TON its whole chain needs). `dex_b_v1` always takes the
    /// table's.
    pub fn build_with(&self, table: &GasTable, gas: Option<Gas>) -> Result<Message, SwapError> {
        match (self.protocol(), gas) {
            (Protocol::DexBV1, _) => dex_b_v1::build(self, table),
            (Protocol::DexA, None) => dex_a::build(self, table),
            (Protocol::DexA, Some(g)) => dex_a::build_with(self, g),
            (Protocol::DexBV2, None) => dex_b_v2::build(self, table),
            (Protocol::DexBV2, Some(g)) => dex_b_v2::build_with(self, g),
            (Protocol::DexC, None) => dex_c::build(self, table),
            (Protocol::DexC, Some(g)) => dex_c::build_with(self, g),
        }
    }

    /// The swap payload alone (what a previous segment hands over with the tokens): the `dex_b_v2` `swap`
    /// body, the `dex_c` `POOLV3_SWAP` request, the `dex_a` jetton-vault payload, the `dex_b_v1` `swap`.
    pub fn payload(&self) -> Result<Cell, SwapError> {
        match self.protocol() {
            Protocol::DexBV2 => dex_b_v2::swap_body(self),
            Protocol::DexC => dex_c::request(self),
            Protocol::DexA => dex_a::jetton_payload(self),
            Protocol::DexBV1 => dex_b_v1::payload(self),
        }
    }

    /// The gas table's entry for this segment: its exchange, direction and hop count (one for the exchanges
    /// that swap one hop per message, which refuse more when they build). No hops is refused here.
    pub(crate) fn table_gas(&self, table: &GasTable) -> Result<Gas, SwapError> {
        let protocol = self.protocol();
        if self.hops.is_empty() {
            return Err(SwapError::NoHops { protocol: protocol.slug() });
        }
        let hops = match protocol {
            Protocol::DexBV1 | Protocol::DexC => 1,
            Protocol::DexA | Protocol::DexBV2 => self.hops.len(),
        };
        super::lookup_gas(table.of(protocol), protocol.slug(), self.direction, hops)
    }

    /// Who receives the output: the receiver, else the sender.
    pub(crate) fn recipient(&self) -> &TonAddress {
        self.receiver.as_ref().unwrap_or(&self.sender)
    }

    /// The one hop of an exchange that swaps one hop per message.
    pub(crate) fn single_hop(&self, protocol: &'static str) -> Result<&Hop, SwapError> {
        match self.hops.as_slice() {
            [] => Err(SwapError::NoHops { protocol }),
            [h] => Ok(h),
            more => Err(SwapError::UnsupportedHops { protocol, hops: more.len(), max: 1 }),
        }
    }

    /// The offer wallet, which `protocol` needs.
    pub(crate) fn need_offer_wallet(&self, protocol: &'static str) -> Result<&TonAddress, SwapError> {
        self.offer_wallet.as_ref().ok_or(SwapError::MissingOfferWallet { protocol })
    }

    /// The TEP-74 transfer of the offer to the entry contract with `payload` as its forward payload (excess
    /// TON to `response`), for the user's offer jetton wallet (or proxy-TON v1) to send.
    pub(crate) fn jetton_transfer(&self, response: Option<TonAddress>, forward: u128, payload: Cell) -> JettonTransfer {
        JettonTransfer {
            query_id: self.query_id,
            amount: self.offer_amount,
            destination: self.entry.clone(),
            response_destination: response,
            custom_payload: None,
            forward_ton_amount: forward,
            forward_payload: Some(payload),
        }
    }

    /// The proxy-TON `ton_transfer` of a TON offer with `payload` (refunds to `refund`).
    pub(crate) fn ton_transfer(&self, refund: TonAddress, payload: Cell) -> TonTransfer {
        TonTransfer { query_id: self.query_id, ton_amount: self.offer_amount, refund_address: refund, payload }
    }

    /// Refuses the fields `protocol`'s layout has no place for, when they are set.
    pub(crate) fn refuse(
        &self,
        protocol: &'static str,
        deadline: bool,
        referral: bool,
        then: bool,
    ) -> Result<(), SwapError> {
        let set = [
            (deadline && self.deadline != 0, "deadline"),
            (referral && self.referral.is_some(), "referral"),
            (then && self.then.is_some(), "then"),
        ];
        match set.iter().find(|(is_set, _)| *is_set) {
            Some(&(_, field)) => Err(SwapError::Unsupported { protocol, field }),
            None => Ok(()),
        }
    }

    /// The terms of `protocol`, or why these arguments are another exchange's.
    pub(crate) fn mismatch(&self, protocol: &'static str) -> SwapError {
        SwapError::TermsMismatch { protocol, found: self.protocol().slug() }
    }
}
