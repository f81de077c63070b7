//! Hand-offs: whether the output of one pool may become the input of the next pool **in the same on-chain
//! message chain**, and the TON every contract on the way needs. This is the one rule the route search, the
//! no-route diagnosis and the swap builder follow (see `docs/cross-exchange.md` for the evidence behind it).
//!
//! Owns the chaining rule ([`classify`], [`PoolGraph::handoff_kind`], [`PoolGraph::chains`]), the policy that
//! enables kinds of hand-off ([`HandOffPolicy`]), the split of a path into message segments ([`segments`]) and
//! the TON budget of a path ([`ton_plan`]) with every gas constant it uses, each with its source. Must not
//! know about quotes, cells or the wire.
//!
//! # The rule
//!
//! A hand-off is **safe** when a failure after it can only return the tokens to the user: the receiving
//! contract reads an explicit refund / recipient address from the payload we write (STON.fi v2's
//! `refund_address`, TONCO's `recipient`), and every forward on the way carries at least the next contract's
//! floor (below). Safe kinds ([`HandOffKind`]):
//!
//! | kind | mechanism | source |
//! |---|---|---|
//! | `dex_b_v2` → same router | `cross_swap` in `custom_payload`, all remaining value | ston-fi/dex-core-v2@af0a955 `contracts/router/msgs/pool.fc` L30–55 |
//! | `dex_a` → `dex_a` | `SwapStep.next` (pool to pool) | docs.dedust.io/docs/swaps |
//! | `dex_b_v2` → other router, jetton | `receiver` = router, `custom_payload` = its `swap`, `fwd_gas` | `router/msgs/pool.fc` L56–88; `router/dex.fc` L42–99 |
//! | `dex_b_v2` → other router, TON | `receiver` = its pTON wallet (pTON → pTON `ton_transfer`) | ston-fi/pton-contracts@d3d0ea1 `wallet/msgs/owner.fc` L4–62, `msgs/any.fc` L4–50 |
//! | `dex_b_v2` → `dex_c`, jetton / TON | `receiver` = TONCO router / its pTON wallet, payload `POOLV3_SWAP` | as above; docs.tonco.io payload-formats; TONCO pTON: mainnet trace (docs) |
//! | `dex_c` → `dex_c`, jetton / TON | `payloads.target` = router / its pTON wallet | cryptoalgebra/tonco-sdk@a7f2c9c `PoolMessageManager.ts` L468–545; mainnet trace |
//! | `dex_c` → `dex_b_v2`, jetton / TON | `payloads.target` = v2 router / its pTON wallet | docs.tonco.io payload-formats |
//! | `dex_a` → `dex_b_v2` / `dex_c`, jetton | `recipient_addr` + `fulfill_payload`; the vault forwards what is left | docs.dedust.io; mainnet trace (docs) |
//!
//! Refused ([`Refusal`]): anything after `dex_b_v1` (it pays out with no forward TON and no payload), anything
//! into `dex_b_v1` or into `dex_a` after another exchange (both refund a failed swap to the contract that
//! delivered the tokens, which strands them), TON leaving `dex_a` mid-route (its native vault pays with
//! `payout#474f86cf`, which no pTON wallet accepts), and a `dex_c` hop that buys its pool's token0 followed by
//! anything (TONCO's pool pays only the token1 leg to the `payloads` target; token0 goes to the recipient, so
//! the next exchange never runs: executed on TONCO's code in `tests/e2e.rs`). TON *entering* `dex_a` mid-route
//! is "into `dex_a`".
//!
//! # Segments
//!
//! A path splits into **segments** at every hand-off that is not internal to one contract family: a segment
//! is a run of `dex_b_v2` hops on one router (`cross_swap`), a run of `dex_a` hops (`SwapStep.next`), or one
//! `dex_c` hop (TONCO chains even its own hops through the `payloads` hand-off), or one `dex_b_v1` hop. The
//! first segment's contract receives the user's message; each later one receives the previous segment's
//! payout with its payload and forward TON.
//!
//! # TON budget (one place; every figure with its source)
//!
//! [`ton_plan`] computes, from the last segment back, the TON that must **arrive at each segment's entry**
//! (with the transfer notification) so that its contracts run and its payout forwards the next segment's
//! need without being cut: STON.fi v2's `pay_to` silently forwards 0 TON (tokens then sit at the next
//! contract with no notification) when `msg_value − (fwd_fee + 0.016 + 0.010) − (0.07 + 2·fwd_fee) − fwd_gas
//! ≤ 0` (`router/msgs/pool.fc` L59–66), so every forward below is computed to clear that test with the
//! floors' own constants. Figures are nanotons.
//!
//! | figure | value | source |
//! |---|---|---|
//! | [`FWD_FEE_BOUND`] | 0.005 | bound on one message's forwarding fee: basechain config param 25 (lump 0.0004 + 400 per bit + 40,000 per cell nanotons) over our largest message; `tests/it/cross_exchange.rs` checks every built message |
//! | v2 router floor per hop ([`dex_b_v2_floor`]) | `7·fwd_fee + 0.168 + gas::pool::swap` | `router/dex.fc` L56–64; `common/gas.fc` L2–40 |
//! | `gas::pool::swap` | CPMM 0.021, stable 0.05, weighted CPMM 0.04, weighted stable 0.2 | `pool/pools/*/gas.fc` |
//! | v2 hop cost before `pay_to` ([`dex_b_v2_hop_cost`]) | `0.021 + 0.01 + swap + 0.01 + 2·fwd_fee`, + `0.031 + 3·fwd_fee` referral vault | `router/dex.fc` L83–90; `pool/msgs/router.fc` L120–151; `common/gas.fc` |
//! | v2 `pay_to` keep ([`DEX_B_V2_PAY_TO_KEEP`]) | `0.016 + 0.010 + 0.07 + 3·fwd_fee` | `router/msgs/pool.fc` L45–66 |
//! | pTON `ton_transfer` ([`PTON_TON_TRANSFER`]) | `0.01 + 0.01 + fwd_fee` | pton-contracts `common/gas.fc` L4–8 |
//! | TONCO hop ([`DEX_C_HOP`]) | 0.2 | measured on TONCO's code (`tests/e2e`): a hop with less than ~0.11 TON of its own is refunded (0.10 refunds, 0.12 swaps, jetton or TON out), and it burns ~0.06 ([`DEX_C_HOP_BURN`]); the SDK's multihop gives 0.5 (`SWAP_GAS` 0.4 + 2·`TRANSFER_GAS`, tonco-sdk `PoolMessageManager.ts` L498–503) |
//! | DeDust hop ([`DEX_A_HOP`]) / payout ([`DEX_A_PAYOUT`]) | 0.05 / 0.08 | closed source: mainnet trace (vault forwards its value − 0.0484576; two hops burnt 0.031); twice what was seen |
//!
//! A TONCO payout sends its change (`response_destination` = the target) to the next contract: when that is a
//! router and not a pTON wallet the change does not come back (a STON.fi v2 router refuses the `excesses`, the
//! TON stays there: seen in `tests/e2e`), and [`HandOff::lost`] counts it: the TONCO hop's budget less what the
//! hop burns. Every other forward comes back to the user as excess.

use smallvec::SmallVec;

use super::{AssetId, PoolGraph, PoolId, Protocol};
use crate::pool::{Curve, Direction};

/// One hop of a path: a pool and the way it is traversed.
pub type PathHop = (PoolId, Direction);

/// How the output of one pool becomes the next pool's input (see the module table). Every kind here is
/// safe; unsafe pairs are a [`Refusal`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum HandOffKind {
    /// `dex_b_v2` → a pool of the same router: nested `cross_swap`.
    DexBV2SameRouter = 0,
    /// `dex_a` → `dex_a`: the next `SwapStep`, pool to pool.
    DexAInternal = 1,
    /// `dex_b_v2` → another `dex_b_v2` router, jetton: `receiver` = that router.
    DexBV2ToDexBV2Jetton = 2,
    /// `dex_b_v2` → another `dex_b_v2` router, TON: `receiver` = that router's pTON wallet.
    DexBV2ToDexBV2Ton = 3,
    /// `dex_b_v2` → `dex_c`, jetton: `receiver` = the TONCO router.
    DexBV2ToDexCJetton = 4,
    /// `dex_b_v2` → `dex_c`, TON: `receiver` = the TONCO router's pTON wallet.
    DexBV2ToDexCTon = 5,
    /// `dex_c` → `dex_c` (same or another router), jetton: `payloads.target` = the router.
    DexCToDexCJetton = 6,
    /// `dex_c` → `dex_c` (same or another router), TON: `payloads.target` = the router's pTON wallet.
    DexCToDexCTon = 7,
    /// `dex_c` → `dex_b_v2`, jetton: `payloads.target` = the v2 router.
    DexCToDexBV2Jetton = 8,
    /// `dex_c` → `dex_b_v2`, TON: `payloads.target` = the v2 router's pTON wallet.
    DexCToDexBV2Ton = 9,
    /// `dex_a` → `dex_b_v2`, jetton: `recipient_addr` = the v2 router, `fulfill_payload` = its `swap`.
    DexAToDexBV2Jetton = 10,
    /// `dex_a` → `dex_c`, jetton: `recipient_addr` = the TONCO router, `fulfill_payload` = `POOLV3_SWAP`.
    DexAToDexCJetton = 11,
}

impl HandOffKind {
    /// Every kind.
    pub const ALL: [HandOffKind; 12] = [
        HandOffKind::DexBV2SameRouter,
        HandOffKind::DexAInternal,
        HandOffKind::DexBV2ToDexBV2Jetton,
        HandOffKind::DexBV2ToDexBV2Ton,
        HandOffKind::DexBV2ToDexCJetton,
        HandOffKind::DexBV2ToDexCTon,
        HandOffKind::DexCToDexCJetton,
        HandOffKind::DexCToDexCTon,
        HandOffKind::DexCToDexBV2Jetton,
        HandOffKind::DexCToDexBV2Ton,
        HandOffKind::DexAToDexBV2Jetton,
        HandOffKind::DexAToDexCJetton,
    ];

    /// Whether the two pools run in one contract family's own multi-hop (one segment).
    pub fn is_internal(self) -> bool {
        matches!(self, HandOffKind::DexBV2SameRouter | HandOffKind::DexAInternal)
    }

    /// Whether the asset handed over is TON (through the receiving exchange's pTON wallet).
    pub fn is_ton(self) -> bool {
        matches!(
            self,
            HandOffKind::DexBV2ToDexBV2Ton
                | HandOffKind::DexBV2ToDexCTon
                | HandOffKind::DexCToDexCTon
                | HandOffKind::DexCToDexBV2Ton
        )
    }

    /// A short description, e.g. `dex_b_v2 → dex_c (TON)`.
    pub fn describe(self) -> &'static str {
        match self {
            HandOffKind::DexBV2SameRouter => "dex_b_v2 → same router",
            HandOffKind::DexAInternal => "dex_a → dex_a",
            HandOffKind::DexBV2ToDexBV2Jetton => "dex_b_v2 → other dex_b_v2 router (jetton)",
            HandOffKind::DexBV2ToDexBV2Ton => "dex_b_v2 → other dex_b_v2 router (TON)",
            HandOffKind::DexBV2ToDexCJetton => "dex_b_v2 → dex_c (jetton)",
            HandOffKind::DexBV2ToDexCTon => "dex_b_v2 → dex_c (TON)",
            HandOffKind::DexCToDexCJetton => "dex_c → dex_c (jetton)",
            HandOffKind::DexCToDexCTon => "dex_c → dex_c (TON)",
            HandOffKind::DexCToDexBV2Jetton => "dex_c → dex_b_v2 (jetton)",
            HandOffKind::DexCToDexBV2Ton => "dex_c → dex_b_v2 (TON)",
            HandOffKind::DexAToDexBV2Jetton => "dex_a → dex_b_v2 (jetton)",
            HandOffKind::DexAToDexCJetton => "dex_a → dex_c (jetton)",
        }
    }

    fn bit(self) -> u16 {
        1 << (self as u8)
    }
}

/// Why the output of one pool may not feed the next in one message chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// `dex_b_v1` pays out with a plain transfer, no forward TON and no payload (ston-fi/dex-core
    /// `contracts/router.func` L43–78): nothing can follow it.
    #[error("nothing can follow a dex_b_v1 swap (it pays out with no forward TON and no payload)")]
    AfterDexBV1,
    /// `dex_b_v1` refunds a failed swap to the contract that delivered the tokens, with no forward TON
    /// (`contracts/pool/router-calls.func`): the user would lose them.
    #[error("dex_b_v1 cannot take a hand-off (a failed swap refunds the previous exchange's contract)")]
    IntoDexBV1,
    /// `dex_a` returns a rejected swap to the sender, which after another exchange is that exchange's contract
    /// (docs.dedust.io "Building advanced mechanics"); TON could not even enter (its native vault needs the
    /// amount inside the body).
    #[error("dex_a cannot take a hand-off from another exchange (a rejected swap returns to the previous exchange's contract)")]
    IntoDexA,
    /// `dex_a`'s native vault pays TON with `payout#474f86cf`, which no pTON wallet or router accepts.
    #[error("TON on dex_a cannot be chained into another exchange (its payout is accepted by no pTON wallet)")]
    TonOutOfDexA,
    /// A safe kind the router's [`HandOffPolicy`] leaves out.
    #[error("the hand-off {} is disabled", .0.describe())]
    Disabled(HandOffKind),
    /// A `dex_c` swap that buys its pool's token0 pays the recipient, not the `payloads` target: TONCO's pool
    /// (code `bc947d16…`, `@toncodex/sdk` 1.0.26 to 1.0.43) writes the target as the token1 payee only, so the
    /// output would reach the user instead of the next exchange (run on that code by `tests/e2e.rs`).
    #[error(
        "a dex_c swap that buys token0 cannot hand over (TONCO pays token0 to the recipient, not to the next exchange)"
    )]
    DexCToken0Out,
}

/// Which kinds of hand-off routes may use. [`HandOffPolicy::SAFE`] is every kind in the module table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandOffPolicy(u16);

impl HandOffPolicy {
    /// Only each exchange's own multi-hop: `dex_b_v2` within one router, `dex_a` within itself.
    pub const INTERNAL: HandOffPolicy =
        HandOffPolicy(1 << HandOffKind::DexBV2SameRouter as u8 | 1 << HandOffKind::DexAInternal as u8);
    /// Every safe kind.
    pub const SAFE: HandOffPolicy = HandOffPolicy((1 << HandOffKind::ALL.len()) - 1);

    /// Whether `kind` is enabled.
    #[inline]
    pub fn allows(self, kind: HandOffKind) -> bool {
        self.0 & kind.bit() != 0
    }

    /// This policy with `kind` enabled.
    pub fn with(self, kind: HandOffKind) -> HandOffPolicy {
        HandOffPolicy(self.0 | kind.bit())
    }

    /// This policy with `kind` disabled.
    pub fn without(self, kind: HandOffKind) -> HandOffPolicy {
        HandOffPolicy(self.0 & !kind.bit())
    }

    /// Whether any enabled hand-off starts from a pool of `protocol` (the search skips expanding a path
    /// whose last pool nothing may follow).
    #[inline]
    pub fn continues_after(self, protocol: Protocol) -> bool {
        use HandOffKind as K;
        let from: &[HandOffKind] = match protocol {
            Protocol::DexBV1 => &[],
            Protocol::DexBV2 => &[
                K::DexBV2SameRouter,
                K::DexBV2ToDexBV2Jetton,
                K::DexBV2ToDexBV2Ton,
                K::DexBV2ToDexCJetton,
                K::DexBV2ToDexCTon,
            ],
            Protocol::DexC => &[K::DexCToDexCJetton, K::DexCToDexCTon, K::DexCToDexBV2Jetton, K::DexCToDexBV2Ton],
            Protocol::DexA => &[K::DexAInternal, K::DexAToDexBV2Jetton, K::DexAToDexCJetton],
        };
        from.iter().any(|k| self.allows(*k))
    }
}

impl Default for HandOffPolicy {
    /// [`HandOffPolicy::SAFE`]: the swap builder makes messages for every safe kind.
    fn default() -> HandOffPolicy {
        HandOffPolicy::SAFE
    }
}

/// The chaining rule on protocols alone: `same_group` says whether both pools share a router (`dex_b_v2`,
/// `dex_c`), `ton` whether the asset handed over is the native coin.
#[inline]
pub fn classify(prev: Protocol, next: Protocol, same_group: bool, ton: bool) -> Result<HandOffKind, Refusal> {
    use HandOffKind as K;
    use Protocol::{DexA, DexBV1, DexBV2, DexC};
    match (prev, next) {
        (DexBV1, _) => Err(Refusal::AfterDexBV1),
        (_, DexBV1) => Err(Refusal::IntoDexBV1),
        (DexA, DexA) => Ok(K::DexAInternal),
        (_, DexA) => Err(Refusal::IntoDexA),
        (DexA, _) if ton => Err(Refusal::TonOutOfDexA),
        (DexA, DexBV2) => Ok(K::DexAToDexBV2Jetton),
        (DexA, DexC) => Ok(K::DexAToDexCJetton),
        (DexBV2, DexBV2) if same_group => Ok(K::DexBV2SameRouter),
        (DexBV2, DexBV2) => Ok(if ton { K::DexBV2ToDexBV2Ton } else { K::DexBV2ToDexBV2Jetton }),
        (DexBV2, DexC) => Ok(if ton { K::DexBV2ToDexCTon } else { K::DexBV2ToDexCJetton }),
        (DexC, DexC) => Ok(if ton { K::DexCToDexCTon } else { K::DexCToDexCJetton }),
        (DexC, DexBV2) => Ok(if ton { K::DexCToDexBV2Ton } else { K::DexCToDexBV2Jetton }),
    }
}

impl PoolGraph {
    /// The hand-off from pool `prev` to pool `next` at asset `at` (the output of `prev`, the input of
    /// `next`), whatever the policy: [`classify`] on the two venues, and a `dex_c` pool hands over only its
    /// token1 ([`Refusal::DexCToken0Out`]).
    #[inline]
    pub fn handoff_kind(&self, prev: PoolId, next: PoolId, at: AssetId) -> Result<HandOffKind, Refusal> {
        let (p, n) = (self.venue[prev.index()], self.venue[next.index()]);
        let kind = classify(p.0, n.0, p.1 == n.1, Some(at) == self.native)?;
        if self.exit_side(prev, at) != 0 {
            return Err(Refusal::DexCToken0Out);
        }
        Ok(kind)
    }

    /// Which side of `pool` the route leaves by at `at` (its output), as far as the chaining rule tells sides
    /// apart: 1 for a `dex_c` pool's token0 (which it cannot hand over), 0 otherwise. With the two venues and
    /// whether `at` is TON, this is everything [`Self::handoff_kind`] reads.
    #[inline]
    pub fn exit_side(&self, pool: PoolId, at: AssetId) -> u8 {
        u8::from(self.venue[pool.index()].0 == Protocol::DexC && self.pools[pool.index()].assets[0] == at)
    }

    /// Whether `next` may follow `prev` at `at` under `policy` (the search's test, O(1)).
    #[inline]
    pub fn chains(&self, policy: HandOffPolicy, prev: PoolId, next: PoolId, at: AssetId) -> bool {
        self.handoff_kind(prev, next, at).is_ok_and(|k| policy.allows(k))
    }

    /// [`Self::handoff_kind`] under `policy`, with the TON the hand-off needs.
    pub fn handoff(&self, policy: HandOffPolicy, prev: PoolId, next: PoolId, at: AssetId) -> Result<HandOff, Refusal> {
        let kind = self.handoff_kind(prev, next, at)?;
        if !policy.allows(kind) {
            return Err(Refusal::Disabled(kind));
        }
        Ok(HandOff { kind, lost: lost_ton(kind) })
    }

    /// Where `path` first breaks `policy`: the index of the hop that may not follow its predecessor, and why.
    pub fn path_refusal(&self, policy: HandOffPolicy, path: &[PathHop]) -> Option<(usize, Refusal)> {
        path.windows(2).enumerate().find_map(|(i, w)| {
            let at = self.pool(w[0].0).assets[1 - w[0].1.in_index()];
            self.handoff(policy, w[0].0, w[1].0, at).err().map(|r| (i + 1, r))
        })
    }
}

/// A permitted hand-off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandOff {
    /// How the tokens move.
    pub kind: HandOffKind,
    /// TON that does not come back to the user (nanotons): a TONCO payout's change when the target is a
    /// router (see the module docs); 0 for every other kind.
    pub lost: u128,
}

// ---- TON figures (module docs: "TON budget"). All nanotons. ----

const fn milli(m: u128) -> u128 {
    m * 1_000_000
}

/// Bound on one message's forwarding fee (`fwd_fee` in the contracts' formulas).
pub const FWD_FEE_BOUND: u128 = milli(5);

/// `dex_b_v2` `gas::pool::swap` of a curve (`contracts/pool/pools/*/gas.fc`).
pub fn dex_b_v2_pool_swap_gas(curve: &Curve) -> u128 {
    match curve {
        Curve::StableSwap(_) => milli(50),
        Curve::WeightedConstantProduct(_) => milli(40),
        Curve::WeightedStableSwap(_) => milli(200),
        _ => milli(21),
    }
}

/// The v2 router's low-gas floor for a swap (`router/dex.fc` L56–64): seven forwarding fees plus
/// `storage_fee::router` 0.01, `gas::router::route` 0.021, `storage_fee::pool` 0.01, `gas::pool::swap`,
/// `gas::router::pay_to` 0.016, `storage_fee::vault` 0.001, `gas::router::pay_vault` 0.02,
/// `gas::vault::deposit_ref_fee` 0.01, `storage_fee::est_jetton_wallet` 0.01 and
/// `gas::jetton_wallet::est_transfer` 0.07.
pub fn dex_b_v2_floor(curve: &Curve) -> u128 {
    7 * FWD_FEE_BOUND + milli(168) + dex_b_v2_pool_swap_gas(curve)
}

/// What a v2 hop may use between the router's notification and its `pay_to`: router route gas 0.021 and
/// storage reserve 0.01, pool swap gas and storage reserve 0.01, two messages, and the referral vault
/// payment `3·fwd_fee + 0.001 + 0.02 + 0.01` (`pool/msgs/router.fc` L121–133).
pub fn dex_b_v2_hop_cost(curve: &Curve) -> u128 {
    milli(21)
        + milli(10)
        + dex_b_v2_pool_swap_gas(curve)
        + milli(10)
        + 2 * FWD_FEE_BOUND
        + milli(31)
        + 3 * FWD_FEE_BOUND
}

/// What a v2 `pay_to` keeps before its jetton transfer may forward `fwd_gas` (`router/msgs/pool.fc`
/// L45–66: `fwd_fee + gas::router::pay_to 0.016 + storage_fee::router 0.010`, then
/// `gas::jetton_wallet::est_transfer 0.07 + 2·fwd_fee`).
pub const DEX_B_V2_PAY_TO_KEEP: u128 = milli(16) + milli(10) + milli(70) + 3 * FWD_FEE_BOUND;

/// What a `cross_swap` `pay_to` keeps before re-routing the rest (`router/msgs/pool.fc` L45–55).
pub const DEX_B_V2_CROSS_KEEP: u128 = milli(16) + FWD_FEE_BOUND;

/// A pTON v2 wallet taking a `ton_transfer` (`gas::wallet::ton_transfer` 0.01, `storage_fee::wallet` 0.01,
/// one message): added to a forward into any pTON wallet.
pub const PTON_TON_TRANSFER: u128 = milli(10) + milli(10) + FWD_FEE_BOUND;

/// A TONCO hop's own budget, beyond what it forwards. Measured on TONCO's router and pool code in `@ton/sandbox`
/// (`tests/e2e`): a hop that brings less than about 0.11 TON of its own is refunded to the recipient (0.10 refunds,
/// 0.12 swaps, for a jetton and a TON payout alike), and the hop burns ~0.06 ([`DEX_C_HOP_BURN`]); 0.2 clears
/// the check 1.8-fold. (TONCO's own multihop builder gives every hop 0.5: `SWAP_GAS` 0.4 + 2·`TRANSFER_GAS`
/// 0.05, tonco-sdk `PoolMessageManager.ts` L498–503; the change of a jetton hand-off is lost, so less is better.)
pub const DEX_C_HOP: u128 = milli(200);

/// What a TONCO hop burns of its [`DEX_C_HOP`] budget: router, pool, router again and the payout's jetton
/// transfer (measured in `tests/e2e`, median over its routes); the rest is the payout's change.
pub const DEX_C_HOP_BURN: u128 = milli(50);

/// A DeDust hop (closed source; a mainnet trace burnt 0.031 for two hops).
pub const DEX_A_HOP: u128 = milli(50);

/// A DeDust jetton-vault payout with a `fulfill_payload` (a mainnet trace: it forwarded its value minus
/// 0.0484576).
pub const DEX_A_PAYOUT: u128 = milli(80);

/// TONCO's pTON entry for a TON offer: what its pTON wallet keeps of a `ton_transfer` before notifying the
/// router. TONCO's pTON code is not public; it takes the same `ton_transfer` as STON.fi's pTON v2 (whose
/// figure, [`PTON_TON_TRANSFER`], this is), and everything above it flows on into the TONCO hop, whose budget
/// ([`DEX_C_HOP`]) clears its refund check 1.8-fold. (The SDK attaches 0.1 more for a TON offer than it
/// forwards with a jetton one; on a route that hands a jetton on from TONCO that surplus would stay at the
/// next router.)
pub const DEX_C_PTON_ENTRY: u128 = PTON_TON_TRANSFER;

/// What a TON offer's first contract keeps before the segment's entry receives its TON: the router's pTON
/// wallet (`dex_b_v2`: [`PTON_TON_TRANSFER`]; `dex_c`: [`DEX_C_PTON_ENTRY`]); `dex_a`'s native vault is the
/// entry itself.
pub fn ton_offer_entry_cost(protocol: Protocol) -> u128 {
    match protocol {
        Protocol::DexBV2 => PTON_TON_TRANSFER,
        Protocol::DexC => DEX_C_PTON_ENTRY,
        Protocol::DexA | Protocol::DexBV1 => 0,
    }
}

/// TON a hand-off of `kind` does not return to the user: the change of a TONCO payout to a router.
pub fn lost_ton(kind: HandOffKind) -> u128 {
    match kind {
        HandOffKind::DexCToDexCJetton | HandOffKind::DexCToDexBV2Jetton => DEX_C_HOP - DEX_C_HOP_BURN,
        _ => 0,
    }
}

/// A run of hops one contract family executes in one go (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// The exchange.
    pub protocol: Protocol,
    /// Index of the segment's first hop in the path.
    pub start: usize,
    /// One past its last hop.
    pub end: usize,
    /// How the previous segment hands over to this one (`None` for the first).
    pub handoff_in: Option<HandOffKind>,
}

impl Segment {
    /// Number of hops.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the segment has no hop (never, for segments [`segments`] returns).
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// The segments of `path`, or where and why a hand-off breaks `policy`.
pub fn segments(
    graph: &PoolGraph,
    policy: HandOffPolicy,
    path: &[PathHop],
) -> Result<SmallVec<[Segment; 4]>, (usize, Refusal)> {
    let mut out: SmallVec<[Segment; 4]> = SmallVec::new();
    let Some(&(first, _)) = path.first() else { return Ok(out) };
    let mut current = Segment { protocol: graph.pool(first).protocol, start: 0, end: 1, handoff_in: None };
    for (i, w) in path.windows(2).enumerate() {
        let at = graph.pool(w[0].0).assets[1 - w[0].1.in_index()];
        let kind = graph.handoff(policy, w[0].0, w[1].0, at).map_err(|r| (i + 1, r))?.kind;
        if kind.is_internal() {
            current.end = i + 2;
        } else {
            out.push(current);
            current =
                Segment { protocol: graph.pool(w[1].0).protocol, start: i + 1, end: i + 2, handoff_in: Some(kind) };
        }
    }
    out.push(current);
    Ok(out)
}

/// The TON a path's messages must carry, per segment (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TonPlan {
    /// The segments.
    pub segments: SmallVec<[Segment; 4]>,
    /// TON that must arrive at each segment's entry contract with the tokens.
    pub entry: SmallVec<[u128; 4]>,
    /// TON each segment's payout must forward to the next (0 for the last); includes the receiving pTON
    /// wallet's cost for TON hand-offs.
    pub forward: SmallVec<[u128; 4]>,
    /// TON the hand-offs do not return to the user.
    pub lost: u128,
}

/// The TON budget of `path` under `policy`, or where and why it breaks the policy.
pub fn ton_plan(graph: &PoolGraph, policy: HandOffPolicy, path: &[PathHop]) -> Result<TonPlan, (usize, Refusal)> {
    let segments = segments(graph, policy, path)?;
    let n = segments.len();
    let mut entry: SmallVec<[u128; 4]> = SmallVec::from_elem(0, n);
    let mut forward: SmallVec<[u128; 4]> = SmallVec::from_elem(0, n);
    let mut lost = 0u128;
    let mut next_need = 0u128;
    for (k, seg) in segments.iter().enumerate().rev() {
        forward[k] = next_need;
        let hops = &path[seg.start..seg.end];
        entry[k] = match seg.protocol {
            Protocol::DexBV2 => {
                let mut need = 0u128;
                for (j, &(pool, _)) in hops.iter().enumerate().rev() {
                    let curve = &graph.pool(pool).curve;
                    let at_pay_to =
                        if j + 1 == hops.len() { DEX_B_V2_PAY_TO_KEEP + next_need } else { DEX_B_V2_CROSS_KEEP + need };
                    need = dex_b_v2_floor(curve).max(dex_b_v2_hop_cost(curve) + at_pay_to);
                }
                need
            }
            Protocol::DexC => DEX_C_HOP * hops.len() as u128 + next_need,
            Protocol::DexA => DEX_A_HOP * hops.len() as u128 + if k + 1 < n { DEX_A_PAYOUT + next_need } else { 0 },
            // A v1 hop is always a route of its own (nothing chains with it); the SDK table covers it.
            Protocol::DexBV1 => 0,
        };
        if let Some(kind) = seg.handoff_in {
            lost += lost_ton(kind);
            next_need = entry[k] + if kind.is_ton() { PTON_TON_TRANSFER } else { 0 };
        }
    }
    Ok(TonPlan { segments, entry, forward, lost })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Protocol::{DexA, DexBV1, DexBV2, DexC};

    #[test]
    fn the_rule_refuses_what_strands_funds() {
        // Everything after or into v1, into dex_a after another exchange, TON out of dex_a.
        for p in Protocol::ALL {
            for ton in [false, true] {
                for same in [false, true] {
                    assert_eq!(classify(DexBV1, p, same, ton), Err(Refusal::AfterDexBV1));
                    if p != DexBV1 {
                        assert_eq!(classify(p, DexBV1, same, ton), Err(Refusal::IntoDexBV1));
                    }
                    if p != DexBV1 && p != DexA {
                        assert_eq!(classify(p, DexA, same, ton), Err(Refusal::IntoDexA));
                    }
                }
            }
        }
        assert_eq!(classify(DexA, DexBV2, false, true), Err(Refusal::TonOutOfDexA));
        assert_eq!(classify(DexA, DexC, false, true), Err(Refusal::TonOutOfDexA));
        // TON stays inside dex_a: pool to pool.
        assert_eq!(classify(DexA, DexA, true, true), Ok(HandOffKind::DexAInternal));
    }

    #[test]
    fn the_rule_names_every_safe_kind_once() {
        use HandOffKind as K;
        let cases = [
            ((DexBV2, DexBV2, true, false), K::DexBV2SameRouter),
            ((DexBV2, DexBV2, true, true), K::DexBV2SameRouter),
            ((DexA, DexA, true, false), K::DexAInternal),
            ((DexBV2, DexBV2, false, false), K::DexBV2ToDexBV2Jetton),
            ((DexBV2, DexBV2, false, true), K::DexBV2ToDexBV2Ton),
            ((DexBV2, DexC, false, false), K::DexBV2ToDexCJetton),
            ((DexBV2, DexC, false, true), K::DexBV2ToDexCTon),
            ((DexC, DexC, true, false), K::DexCToDexCJetton),
            ((DexC, DexC, false, true), K::DexCToDexCTon),
            ((DexC, DexBV2, false, false), K::DexCToDexBV2Jetton),
            ((DexC, DexBV2, false, true), K::DexCToDexBV2Ton),
            ((DexA, DexBV2, false, false), K::DexAToDexBV2Jetton),
            ((DexA, DexC, false, false), K::DexAToDexCJetton),
        ];
        let mut seen = std::collections::BTreeSet::new();
        for ((p, n, same, ton), want) in cases {
            assert_eq!(classify(p, n, same, ton), Ok(want), "{p} → {n} same {same} ton {ton}");
            seen.insert(want);
        }
        assert_eq!(seen.len(), HandOffKind::ALL.len());
        assert_eq!(HandOffKind::ALL.iter().filter(|k| k.is_internal()).count(), 2);
    }

    #[test]
    fn policies() {
        // continues_after agrees with classify: a kind starting at protocol p is enabled iff some next pool
        // could follow a pool of p.
        for policy in
            [HandOffPolicy::INTERNAL, HandOffPolicy::SAFE, HandOffPolicy::SAFE.without(HandOffKind::DexAInternal)]
        {
            for p in Protocol::ALL {
                let any = Protocol::ALL.iter().any(|&n| {
                    [(false, false), (false, true), (true, false), (true, true)]
                        .iter()
                        .any(|&(same, ton)| classify(p, n, same, ton).is_ok_and(|k| policy.allows(k)))
                });
                assert_eq!(policy.continues_after(p), any, "{p} {policy:?}");
            }
        }
        for k in HandOffKind::ALL {
            assert!(HandOffPolicy::SAFE.allows(k));
            assert_eq!(HandOffPolicy::INTERNAL.allows(k), k.is_internal());
            assert!(!HandOffPolicy::SAFE.without(k).allows(k));
            assert!(HandOffPolicy::INTERNAL.with(k).allows(k));
        }
    }

    #[test]
    fn dex_c_hands_over_token1_only() {
        use crate::graph::testkit::{addr, jetton};
        use crate::graph::{AssetMeta, GraphBuilder, PoolContext};
        use crate::pool::Direction::{OneToZero, ZeroToOne};
        use crate::pool::{ConstantProduct, FeeModel};
        // X/Y on TONCO, Y/Z and X/W on a v2 router: TONCO may hand Y (its token1) on, not X (its token0).
        let mut b = GraphBuilder::new();
        let a: Vec<_> = (1..=4u8).map(|i| b.add_asset(AssetMeta::new(jetton(i), "A", 9)).unwrap()).collect();
        let cp = || Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0));
        let ctx = |r: u8| PoolContext { router: Some(addr(r)), router_wallets: None };
        let pool = |i: u8| addr(0x50 + i);
        let big = [1u128 << 60; 2];
        let c = b.add_pool(pool(0), DexC, [a[0], a[1]], cp(), big, ctx(1), None).unwrap();
        let v_yz = b.add_pool(pool(1), DexBV2, [a[1], a[2]], cp(), big, ctx(2), None).unwrap();
        let v_xw = b.add_pool(pool(2), DexBV2, [a[0], a[3]], cp(), big, ctx(2), None).unwrap();
        let g = b.build();
        assert_eq!(g.handoff_kind(c, v_yz, a[1]), Ok(HandOffKind::DexCToDexBV2Jetton));
        assert_eq!(g.handoff_kind(c, v_xw, a[0]), Err(Refusal::DexCToken0Out));
        assert_eq!(g.path_refusal(HandOffPolicy::SAFE, &[(c, ZeroToOne), (v_yz, ZeroToOne)]), None);
        assert_eq!(
            g.path_refusal(HandOffPolicy::SAFE, &[(c, OneToZero), (v_xw, ZeroToOne)]),
            Some((1, Refusal::DexCToken0Out))
        );
        // Into dex_c, either side is fine: only what TONCO pays out matters.
        assert_eq!(g.handoff_kind(v_xw, c, a[0]), Ok(HandOffKind::DexBV2ToDexCJetton));
        assert_eq!((g.exit_side(c, a[0]), g.exit_side(c, a[1]), g.exit_side(v_xw, a[0])), (1, 0, 0));
    }

    #[test]
    fn v2_floor_matches_the_router_constants() {
        use crate::pool::{ConstantProduct, FeeModel};
        let cp = Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0));
        // router/dex.fc L56–64 with common/gas.fc: 0.01 + 0.021 + 0.01 + 0.021 + 0.016 + 0.001 + 0.02 + 0.01
        // + 0.01 + 0.07 = 0.189, plus 7 forwarding fees.
        assert_eq!(dex_b_v2_floor(&cp), 189_000_000 + 7 * FWD_FEE_BOUND);
        // The SDK's default forward (0.24) clears a constant-product hop's need with fees at their bound.
        let need = dex_b_v2_floor(&cp).max(dex_b_v2_hop_cost(&cp) + DEX_B_V2_PAY_TO_KEEP);
        assert!(need <= 240_000_000, "{need}");
    }
}
