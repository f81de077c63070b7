//! The graph's vocabulary: dense ids, protocols, asset and pool metadata, the per-protocol context, and why a
//! pool cannot be swapped.
//!
//! Owns these value types. Must not hold a graph or validate one (that is the builder's).

use std::fmt;

use ahash::AHashMap;
use tonlib_core::TonAddress;

use crate::asset::Asset;
use crate::pool::{Curve, Direction};

/// Dense index of an asset in a [`PoolGraph`](super::PoolGraph).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AssetId(pub u32);

/// Dense index of a pool in a [`PoolGraph`](super::PoolGraph).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PoolId(pub u32);

impl AssetId {
    /// As an index into per-asset arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl PoolId {
    /// As an index into per-pool arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The exchanges we route through, by their wire slugs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Protocol {
    /// `dex_a`: vault-based exchange; multi-hop within itself.
    DexA,
    /// `dex_b_v1`: first-generation router; single-hop only.
    DexBV1,
    /// `dex_b_v2`: second-generation routers; multi-hop within one router, hand-offs to other routers.
    DexBV2,
    /// `dex_c`: concentrated liquidity; chains through payload hand-offs.
    DexC,
}

impl Protocol {
    /// All protocols.
    pub const ALL: [Protocol; 4] = [Protocol::DexA, Protocol::DexBV1, Protocol::DexBV2, Protocol::DexC];

    /// The wire slug (`dex_a`, `dex_b_v1`, `dex_b_v2`, `dex_c`).
    pub fn slug(self) -> &'static str {
        match self {
            Protocol::DexA => "dex_a",
            Protocol::DexBV1 => "dex_b_v1",
            Protocol::DexBV2 => "dex_b_v2",
            Protocol::DexC => "dex_c",
        }
    }

    /// Parses a wire slug.
    pub fn from_slug(slug: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.slug() == slug)
    }

    /// Whether the protocol chains its own pools inside one contract family (`dex_a`'s `SwapStep.next`,
    /// `dex_b_v2`'s `cross_swap` within one router). Every other chaining is a hand-off ([`handoff`](super::handoff)).
    pub fn multi_hop(self) -> bool {
        matches!(self, Protocol::DexA | Protocol::DexBV2)
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.slug())
    }
}

/// What the graph knows about an asset besides its id.
#[derive(Debug, Clone, PartialEq)]
pub struct AssetMeta {
    /// The asset.
    pub asset: Asset,
    /// Ticker, e.g. `TON`.
    pub symbol: String,
    /// Display name.
    pub name: String,
    /// Decimals of the smallest unit.
    pub decimals: u8,
    /// USD price as given by the snapshot (display only; never used for amounts).
    pub usd_price: Option<f64>,
    /// Image URL, if known.
    pub image: Option<String>,
}

impl AssetMeta {
    /// Metadata with a symbol and decimals only.
    pub fn new(asset: Asset, symbol: &str, decimals: u8) -> AssetMeta {
        AssetMeta {
            asset,
            symbol: symbol.to_string(),
            name: symbol.to_string(),
            decimals,
            usd_price: None,
            image: None,
        }
    }
}

/// Addresses a pool needs so that a route through it can be turned into messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolContext {
    /// `dex_b_*`: the router the pool belongs to.
    pub router: Option<TonAddress>,
    /// `dex_b_*`, `dex_c`: the router's jetton wallet for token0 and token1 (the pTON wallet for `native`).
    pub router_wallets: Option<[TonAddress; 2]>,
}

/// Recent price volatility of a pool (display only).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Volatility {
    /// Over 1 minute.
    pub m1: f64,
    /// Over 5 minutes.
    pub m5: f64,
    /// Over 10 minutes.
    pub m10: f64,
    /// Over 15 minutes.
    pub m15: f64,
}

/// A pool as the graph holds it: identity, protocol, assets in contract order and the curve.
#[derive(Debug, Clone)]
pub struct PoolMeta {
    /// On-chain address.
    pub address: TonAddress,
    /// The exchange.
    pub protocol: Protocol,
    /// token0, token1 in contract order.
    pub assets: [AssetId; 2],
    /// Curve and fee parameters (immutable; reserves live in the graph). For a concentrated pool this is the
    /// pool as built; its live state is [`PoolGraph::concentrated`](super::PoolGraph::concentrated).
    pub curve: Curve,
    /// Message-building context.
    pub context: PoolContext,
    /// Volatility figures, if the snapshot had them.
    pub volatility: Option<Volatility>,
}

impl PoolMeta {
    /// The pool's contract family: its protocol and, for `dex_b_v2` and `dex_c`, its router. Pools with equal
    /// keys run on the same contracts; whether one may follow another is [`handoff`](super::handoff)'s rule.
    pub fn chain_key(&self) -> ChainKey {
        ChainKey {
            protocol: self.protocol,
            router: match self.protocol {
                Protocol::DexBV2 | Protocol::DexC => self.context.router.as_ref().map(|a| a.hash_part.clone()),
                _ => None,
            },
        }
    }
}

/// A pool's contract family (see [`PoolMeta::chain_key`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChainKey {
    /// The protocol.
    pub protocol: Protocol,
    /// For `dex_b_v2` and `dex_c`, the router's account id.
    pub router: Option<tonlib_core::TonHash>,
}

/// One directed use of a pool from an asset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// The pool.
    pub pool: PoolId,
    /// The asset reached.
    pub to: AssetId,
    /// Which way the pool is traversed.
    pub direction: Direction,
}

/// Protocol-wide addresses (vaults, v1 router) needed to build messages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtocolContext {
    /// `dex_a`: the native vault.
    pub dex_a_native_vault: Option<TonAddress>,
    /// `dex_a`: jetton vault per jetton.
    pub dex_a_jetton_vaults: AHashMap<Asset, TonAddress>,
    /// `dex_b_v1`: the router.
    pub dex_b_v1_router: Option<TonAddress>,
    /// `dex_b_v1`: the router's proxy-TON wallet.
    pub dex_b_v1_pton_wallet: Option<TonAddress>,
}

/// What a quote-only pool lacks for its swap messages ([`PoolGraph::swap_blocker`](super::PoolGraph::swap_blocker)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SwapBlocker {
    /// A `dex_b_*` pool without its router.
    NoRouter,
    /// A `dex_b_*` or `dex_c` pool without the router's jetton wallets (`router_wallets`).
    NoRouterWallets,
    /// A `dex_a` pool one of whose assets has no vault in the snapshot's `protocols.dex_a`.
    NoVault {
        /// The asset.
        asset: Asset,
    },
}

impl std::fmt::Display for SwapBlocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SwapBlocker::NoRouter => f.write_str("the snapshot gives no `router` for it"),
            SwapBlocker::NoRouterWallets => {
                f.write_str("the snapshot gives no `router_wallets` for it (the router's wallets of its two assets)")
            }
            SwapBlocker::NoVault { asset } => write!(f, "the snapshot gives no dex_a vault for {asset}"),
        }
    }
}
