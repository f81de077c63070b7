//! Swap messages: the internal messages a wallet signs to execute one route on one exchange.
//!
//! Owns the on-chain layouts of every swap body this crate emits (TEP-74 jetton transfers, the proxy-TON
//! `ton_transfer`, and each exchange's swap payload), the attached-TON ("gas") table, and the min-out rule.
//! This file holds the vocabulary (directions, hops, messages) and the min-out rule; the one argument
//! struct of every exchange ([`SwapArgs`]) is in `args.rs`, the error in `error.rs`, the gas table in `gas.rs`, and the cell writer the layouts share in `cell.rs`.
//! Cells, bags of cells and addresses come from `tonlib-core`; nothing here hand-rolls BOC, CRC or base64.
//!
//! The layout builders must not know about graphs, quotes, JSON or the clock: every input (addresses already
//! resolved, `query_id`, deadline, per-hop min-outs) arrives in a plain argument struct ([`SwapArgs`]), so the
//! same inputs always give the same bytes. Checking a quote's `swap_data` against the pool graph and
//! resolving jetton wallets happen before these builders are called, in [`build`] (the only submodule
//! that reads the graph).
//!
//! | module | exchange layout | hops per message |
//! |---|---|---|
//! | [`jetton`] | TEP-74 `transfer` (used by every jetton-offer swap and by proxy-TON v1); proxy-TON v2 / v2.1 `ton_transfer` | n/a |
//! | [`dex_b_v1`] | `swap#25938561` in a jetton transfer to the router; TON via proxy-TON v1 | exactly 1 |
//! | [`dex_b_v2`] | `swap#6664de2a` + nested `cross_swap#69cf1a5b`; TON via proxy-TON v2.1 `ton_transfer` | 1 or more |
//! | [`dex_a`] | native vault `swap#ea06185d` / jetton vault `swap#e3a0d482`, `SwapStep` chain | 1 or more |
//! | [`dex_c`] | `POOLV3_SWAP#a7fb58f8`; TON via the router's proxy-TON v2 `ton_transfer` | exactly 1 |
//!
//! [`decode`] reads any of these bodies back (layout, offer, hops with their min-outs).
//! [`build`] checks a quote's `swap_data` against the graph and turns it into these messages
//! ([`build::build_swap`]).
//!
//! The byte layouts were checked against the exchanges' own SDKs (`tests/it/swap_messages.rs` compares root
//! cell hashes with SDK output for every vector in `tests/data/msg-oracle*`).
//!
//! ```
//! use tonroute_core::swap::{Direction, GasTable, Hop, SwapArgs, Terms};
//! use tonlib_core::TonAddress;
//!
//! let addr = |s: &str| s.parse::<TonAddress>().unwrap();
//! let args = SwapArgs {
//!     direction: Direction::NativeToJetton,
//!     entry: addr("EQD5UdzONt-iE5J0KsaSp9ROR5nH_R8_Rxjd4GMjZrCMD9af"), // the native vault
//!     sender: addr("UQCd5kt2jF28JNaRNsh8fng9bY3bLGmxTN_wFyWW_9-S06Yu"),
//!     receiver: None,
//!     offer_amount: 1_000_000_000,
//!     offer_wallet: None,
//!     hops: vec![Hop { address: addr("EQB0KiNHPEBNAi3bPE8So_F1HEDWq9bOG_295nPFSjPG6KFV"), min_out: 3_000_000 }],
//!     deadline: 0,
//!     referral: None,
//!     query_id: 0,
//!     then: None,
//!     terms: Terms::DexA,
//! };
//! let msg = args.build(&GasTable::default()).unwrap();
//! assert_eq!(msg.value, 1_200_000_000); // offer + 0.2 TON, the SDK's default
//! assert_eq!(msg.body_hash_hex(), "707fee0d38e2d62b442925dfdb0f6c782ac7b084ec1c7a07a893eaaaca6b90d5");
//! ```

mod args;
pub mod build;
mod cell;
pub mod decode;
pub mod dex_a;
pub mod dex_b_v1;
pub mod dex_b_v2;
pub mod dex_c;
mod error;
mod gas;
pub mod jetton;

use std::fmt;

use base64::Engine as _;
use tonlib_core::cell::{BagOfCells, Cell};
use tonlib_core::TonAddress;

use crate::route::{min_out, QuoteRequest};
pub use args::{SwapArgs, Terms};
pub(crate) use cell::{non_hole, Builder};
pub use error::SwapError;
pub(crate) use gas::{lookup_gas, message_value};
pub use gas::{Gas, GasTable, ProtocolGas};

/// Nanotons in one TON.
pub const NANOTON: u128 = 1_000_000_000;

/// Largest value a TL-B `Coins` field (VarUInteger 16) can hold: 2^120 − 1.
pub const MAX_COINS: u128 = (1u128 << 120) - 1;

/// Which side of the swap is the native coin. The layout of every protocol depends on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// TON offered, a jetton asked.
    NativeToJetton,
    /// A jetton offered, TON asked.
    JettonToNative,
    /// A jetton offered, another jetton asked.
    JettonToJetton,
}

impl Direction {
    /// Whether the offer is the native coin (the message then carries the offer as value).
    pub fn offer_is_native(self) -> bool {
        matches!(self, Direction::NativeToJetton)
    }

    /// The direction's wire-style name, as in the SDK oracle's `kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::NativeToJetton => "ton_to_jetton",
            Direction::JettonToNative => "jetton_to_ton",
            Direction::JettonToJetton => "jetton_to_jetton",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One hop of a route as the message encodes it.
///
/// What `address` names depends on the protocol: for `dex_b_v1`, `dex_b_v2` and `dex_c` it is **the router's
/// jetton wallet for the hop's ask asset** (the router's proxy-TON wallet when TON is asked); for `dex_a` it is
/// **the pool**. `min_out` is the hop's own minimum output; see [`route_min_outs`] for which value each hop gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hop {
    /// Router ask-side jetton wallet (`dex_b_*`, `dex_c`) or pool address (`dex_a`).
    pub address: TonAddress,
    /// Minimum output of this hop, in the ask asset's smallest units.
    pub min_out: u128,
}

/// Where a route goes on after this message's protocol: the contract that takes the hand-off (a router,
/// or a router's pTON wallet for TON), the TON forwarded with the tokens, and that contract's payload. The
/// layouts write it into their "next" fields: `dex_b_v2` `receiver` / `fwd_gas` / `custom_payload` of the
/// last hop, `dex_c` `payloads` (`target_address`, `ok_forward_amount`, `ok_forward_payload`), `dex_a`
/// `recipient_addr` / `fulfill_payload` (DeDust forwards what is left; `forward_ton` is then only the
/// budget the message value must carry). See [`crate::graph::handoff`] for which hand-offs are safe.
#[derive(Debug, Clone, PartialEq)]
pub struct HandOver {
    /// The next segment's entry contract.
    pub target: TonAddress,
    /// Nanotons forwarded with the tokens.
    pub forward_ton: u128,
    /// The next segment's payload.
    pub payload: Cell,
}

/// One internal message for a wallet to sign (TON Connect: `{address, amount, payload}`).
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    /// Destination: the user's jetton wallet, a proxy-TON wallet, or a vault.
    pub to: TonAddress,
    /// Nanotons attached: the offer plus gas for native input, gas alone for jetton input.
    pub value: u128,
    /// The message body.
    pub body: Cell,
}

impl Message {
    /// The body as a bag of cells (CRC32C on, no index, like `@ton/core`'s `toBoc()`), base64 standard.
    ///
    /// `tonlib-core` orders cells breadth-first and `@ton/core` depth-first, so bytes may differ from an SDK's
    /// for the same cell tree; [`Message::body_hash_hex`] does not.
    pub fn payload_base64(&self) -> Result<String, SwapError> {
        let boc = BagOfCells::from_root(self.body.clone())
            .serialize(true)
            .map_err(|e| SwapError::cell("serialising the body to a bag of cells", e))?;
        Ok(base64::engine::general_purpose::STANDARD.encode(boc))
    }

    /// The body's representation hash, lowercase hex (independent of BOC cell order).
    pub fn body_hash_hex(&self) -> String {
        Cell::cell_hash(&self.body).to_hex()
    }

    /// The destination in the user-friendly bounceable form (`EQ…`), as the SDKs print it.
    pub fn to_friendly(&self) -> String {
        self.to.to_base64_url()
    }
}

/// Parses an address (`0:<hex>`, or 48-char base64 `EQ…`/`UQ…`, url-safe or standard) for the named field.
pub fn parse_address(field: &'static str, input: &str) -> Result<TonAddress, SwapError> {
    crate::asset::parse_address(input).map_err(|source| SwapError::BadAddress { field, source })
}

/// Per-hop min-outs for a multi-hop message, from the simulated output of each hop.
///
/// Convention (both `dex_a` and `dex_b_v2`): **every intermediate hop gets 0 and the last hop gets
/// [`min_out`](crate::route::min_out) of its output**. The user's guarantee is the route's final output; an intermediate limit could
/// only make a route fail earlier, and a failed hop leaves the user holding an intermediate asset either way
/// (`dex_a` returns the current asset, `dex_b_v2` refunds the current hop's offer to the refund address).
/// The SDK examples (and the oracle's multi-hop vectors) follow the same convention. Single-hop routes get
/// `[min_out(out)]`.
pub fn route_min_outs(hop_outs: &[u128], slippage_bps: u32) -> Result<Vec<u128>, SwapError> {
    let mut v = vec![0u128; hop_outs.len()];
    if let (Some(last), Some(out)) = (v.last_mut(), hop_outs.last()) {
        *last = min_out(*out, slippage_bps)?;
    } else if slippage_bps > QuoteRequest::MAX_SLIPPAGE_BPS {
        return Err(SwapError::SlippageOutOfRange { slippage_bps });
    }
    Ok(v)
}

pub(crate) fn check_offer(offer: u128) -> Result<(), SwapError> {
    if offer == 0 {
        return Err(SwapError::ZeroOffer);
    }
    if offer > MAX_COINS {
        return Err(SwapError::AmountTooLarge { field: "offer_amount", amount: offer });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use num_bigint::BigUint;
    use primitive_types::U256;

    use super::*;

    #[test]
    fn min_out_matches_bigint_rederivation() {
        // The route's min-out the swap builder uses (`crate::route::min_out`), and its refusal as a swap error.
        let outs = [0u128, 1, 9_999, 10_000, 123_456_789, MAX_COINS, u128::MAX];
        for &o in &outs {
            for bps in [0u32, 1, 50, 333, 9_999, 10_000] {
                let want = BigUint::from(o) * BigUint::from(10_000 - bps) / BigUint::from(10_000u32);
                assert_eq!(BigUint::from(min_out(o, bps).unwrap()), want, "out {o} bps {bps}");
            }
        }
        assert_eq!(
            min_out(5, 10_001).map_err(SwapError::from),
            Err(SwapError::SlippageOutOfRange { slippage_bps: 10_001 })
        );
        assert_eq!(route_min_outs(&[5], 10_001), Err(SwapError::SlippageOutOfRange { slippage_bps: 10_001 }));
    }

    #[test]
    fn route_min_outs_zero_then_last() {
        assert_eq!(route_min_outs(&[100, 200, 10_000], 100).unwrap(), vec![0, 0, 9_900]);
        assert_eq!(route_min_outs(&[10_000], 0).unwrap(), vec![10_000]);
        assert!(route_min_outs(&[], 10_001).is_err());
        assert!(route_min_outs(&[1, 2], 20_000).is_err());
    }

    fn a(label: u8) -> TonAddress {
        TonAddress::new(0, [label; 32].into())
    }

    fn v2_args() -> SwapArgs {
        SwapArgs {
            direction: Direction::JettonToJetton,
            entry: a(1),
            sender: a(2),
            receiver: None,
            offer_amount: 1_000,
            offer_wallet: Some(a(3)),
            hops: vec![Hop { address: a(4), min_out: 0 }, Hop { address: a(5), min_out: 7 }],
            deadline: 1_767_225_600,
            referral: None,
            query_id: 9,
            then: None,
            terms: Terms::dex_b_v2(),
        }
    }

    /// `args` for another exchange: the one-hop, no-deadline shape every exchange takes.
    fn one_hop(terms: Terms) -> SwapArgs {
        let hops = vec![Hop { address: a(4), min_out: 1 }];
        SwapArgs { direction: Direction::JettonToNative, offer_amount: 5, hops, deadline: 0, terms, ..v2_args() }
    }

    #[test]
    fn builders_are_deterministic() {
        let g = GasTable::default();
        let m1 = dex_b_v2::build(&v2_args(), &g).unwrap();
        let m2 = dex_b_v2::build(&v2_args(), &g).unwrap();
        assert_eq!(m1.payload_base64().unwrap(), m2.payload_base64().unwrap());
        assert_eq!(m1, m2);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let g = GasTable::default();
        let mut v2 = v2_args();
        v2.terms = Terms::DexBV2 { refund: None, excesses: None, ref_fee_bps: 101 };
        assert_eq!(dex_b_v2::build(&v2, &g), Err(SwapError::RefFeeOutOfRange { ref_fee_bps: 101, max: 100 }));
        let mut v2 = v2_args();
        v2.hops.clear();
        assert_eq!(dex_b_v2::build(&v2, &g), Err(SwapError::NoHops { protocol: "dex_b_v2" }));
        let mut v2 = v2_args();
        v2.hops = vec![Hop { address: a(4), min_out: 0 }; 5];
        assert_eq!(
            dex_b_v2::build(&v2, &g),
            Err(SwapError::NoGasEntry { protocol: "dex_b_v2", direction: Direction::JettonToJetton, hops: 5 })
        );
        let mut v2 = v2_args();
        v2.offer_amount = 0;
        assert_eq!(dex_b_v2::build(&v2, &g), Err(SwapError::ZeroOffer));
        let mut v2 = v2_args();
        v2.offer_amount = MAX_COINS + 1;
        assert_eq!(
            dex_b_v2::build(&v2, &g),
            Err(SwapError::AmountTooLarge { field: "offer_amount", amount: MAX_COINS + 1 })
        );
        let mut v2 = v2_args();
        v2.hops[1].min_out = u128::MAX;
        assert_eq!(dex_b_v2::build(&v2, &g), Err(SwapError::AmountTooLarge { field: "min_out", amount: u128::MAX }));
        let mut v2 = v2_args();
        v2.receiver = Some(TonAddress::new(300, [0; 32].into()));
        assert_eq!(
            dex_b_v2::build(&v2, &g),
            Err(SwapError::UnsupportedWorkchain { field: "receiver", workchain: 300 })
        );

        let mut huge = GasTable::default();
        huge.dex_b_v2.set(Direction::NativeToJetton, 2, Gas::new(u128::MAX, 0));
        let mut v2 = v2_args();
        v2.direction = Direction::NativeToJetton;
        assert_eq!(dex_b_v2::build(&v2, &huge), Err(SwapError::ValueOverflow { offer: 1_000, gas: u128::MAX }));

        let mut v1 = one_hop(Terms::DexBV1);
        v1.hops.push(Hop { address: a(5), min_out: 1 });
        assert_eq!(v1.build(&g), Err(SwapError::UnsupportedHops { protocol: "dex_b_v1", hops: 2, max: 1 }));
        v1.hops.pop();
        assert!(v1.build(&g).is_ok());
        v1.deadline = 1;
        assert_eq!(v1.build(&g), Err(SwapError::Unsupported { protocol: "dex_b_v1", field: "deadline" }));
        v1.deadline = 0;
        v1.then = Some(HandOver { target: a(6), forward_ton: 1, payload: Cell::default() });
        assert_eq!(v1.build(&g), Err(SwapError::Unsupported { protocol: "dex_b_v1", field: "then" }));
        assert_eq!(dex_a::build(&v1, &g), Err(SwapError::TermsMismatch { protocol: "dex_a", found: "dex_b_v1" }));
        assert_eq!(dex_b_v2::swap_body(&v1), Err(SwapError::TermsMismatch { protocol: "dex_b_v2", found: "dex_b_v1" }));

        let mut c = one_hop(Terms::DexC { price_limit_sqrt: U256::one() << 160 });
        c.direction = Direction::JettonToJetton;
        assert_eq!(c.build(&g), Err(SwapError::PriceLimitOutOfRange));
        c.terms = Terms::DexC { price_limit_sqrt: (U256::one() << 160) - 1 };
        assert!(c.build(&g).is_ok());
        c.referral = Some(a(7));
        assert_eq!(c.build(&g), Err(SwapError::Unsupported { protocol: "dex_c", field: "referral" }));
        c.referral = None;
        c.hops.push(Hop { address: a(5), min_out: 1 });
        assert_eq!(c.build(&g), Err(SwapError::UnsupportedHops { protocol: "dex_c", hops: 2, max: 1 }));

        let mut d = SwapArgs { offer_wallet: None, ..one_hop(Terms::DexA) };
        assert_eq!(d.build(&g), Err(SwapError::MissingOfferWallet { protocol: "dex_a" }));
        d.offer_wallet = Some(a(3));
        d.deadline = u64::from(u32::MAX) + 1;
        assert_eq!(
            d.build(&g),
            Err(SwapError::DeadlineOutOfRange {
                protocol: "dex_a",
                deadline: u64::from(u32::MAX) + 1,
                max: 4_294_967_295
            })
        );
        d.deadline = u64::from(u32::MAX);
        assert!(d.build(&g).is_ok());

        assert!(matches!(
            parse_address("sender", "not-an-address"),
            Err(SwapError::BadAddress { field: "sender", .. })
        ));
        assert_eq!(
            parse_address("sender", "0:0000000000000000000000000000000000000000000000000000000000000000"),
            Ok(TonAddress::NULL)
        );
    }
}
