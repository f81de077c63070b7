//! The address scheme and hand-made steps of the message-glue tests (`swap_glue`, `cross_exchange`): assets,
//! context addresses built from tags, the graph's closing context, and a step or route through a fixture pool
//! computed by the pool's own math with its context details. Each file keeps its own pools and routers.

use tonlib_core::TonAddress;
use tonroute::asset::{Asset, JettonMaster};
use tonroute::graph::{GraphBuilder, PoolGraph, Protocol, ProtocolContext};
use tonroute::route::{DexBDetails, DexCDetails, SwapStep};

pub(crate) const USDT: Asset = Asset::Jetton(JettonMaster([0xa1; 32]));
pub(crate) const NOT: Asset = Asset::Jetton(JettonMaster([0xa2; 32]));
pub(crate) const XJ: Asset = Asset::Jetton(JettonMaster([0xa3; 32]));
pub(crate) const YJ: Asset = Asset::Jetton(JettonMaster([0xa4; 32]));
/// Every fixture asset; an asset's index here is its number in the addresses below.
pub(crate) const ASSETS: [Asset; 5] = [Asset::Native, USDT, NOT, XJ, YJ];

/// The basechain address whose hash is 32 bytes of `tag` with `n` last.
pub(crate) fn addr(tag: u8, n: u8) -> TonAddress {
    let mut h = [tag; 32];
    h[31] = n;
    TonAddress::new(0, h.into())
}

pub(crate) fn asset_index(a: &Asset) -> u8 {
    ASSETS.iter().position(|x| x == a).map(|i| i as u8).unwrap_or(0xff)
}

/// A router's jetton wallet of an asset (its pTON wallet for TON): `(router tag, 0x80 + asset)`.
pub(crate) fn router_wallet(router_tag: u8, a: &Asset) -> TonAddress {
    addr(router_tag, 0x80 + asset_index(a))
}

/// The user who sends the swaps.
pub(crate) fn user() -> TonAddress {
    addr(0x55, 1)
}

pub(crate) fn user_wallet(a: &Asset) -> TonAddress {
    addr(0x56, asset_index(a))
}

pub(crate) fn native_vault() -> TonAddress {
    addr(0x41, 0)
}

pub(crate) fn jetton_vault(a: &Asset) -> TonAddress {
    addr(0x42, asset_index(a))
}

pub(crate) fn pool_addr(tag: u8) -> TonAddress {
    addr(0x70, tag)
}

/// Puts `dex_a`'s native vault and a jetton vault for each of `jettons` into `ctx`.
pub(crate) fn add_dex_a_vaults(ctx: &mut ProtocolContext, jettons: &[Asset]) {
    ctx.dex_a_native_vault = Some(native_vault());
    for a in jettons {
        ctx.dex_a_jetton_vaults.insert(*a, jetton_vault(a));
    }
}

/// Closes a fixture graph: the protocols' context, the user's wallet of each of `jettons`, built.
pub(crate) fn finish_graph(mut b: GraphBuilder, ctx: ProtocolContext, jettons: &[Asset]) -> PoolGraph {
    b.set_protocols(ctx);
    for a in jettons {
        b.add_jetton_wallet(user(), *a, user_wallet(a));
    }
    b.build()
}

/// A hand-made step through pool `tag` from `from` (exact output on current reserves by the pool's own math),
/// with its context details.
pub(crate) fn step(graph: &PoolGraph, tag: u8, from: Asset, amount: u128) -> SwapStep {
    let id = graph.pool_id(&pool_addr(tag)).unwrap();
    let meta = graph.pool(id);
    let [a0, a1] = meta.assets.map(|a| graph.asset(a).asset);
    let dir = if from == a0 { tonroute::pool::Direction::ZeroToOne } else { tonroute::pool::Direction::OneToZero };
    let out = graph.pool_state(id).swap(amount, dir).unwrap().amount_out;
    let (i, o) = (dir.in_index(), 1 - dir.in_index());
    let w = meta.context.router_wallets.clone();
    SwapStep {
        pool_address: meta.address.clone(),
        protocol: meta.protocol,
        is_stable: meta.curve.is_stable(),
        in_asset: from,
        out_asset: if from == a0 { a1 } else { a0 },
        in_amount: amount,
        out_amount: out,
        network_fee: 0,
        dex_b: match (meta.protocol, &meta.context.router, &w) {
            (Protocol::DexBV1 | Protocol::DexBV2, Some(r), Some(w)) => Some(DexBDetails {
                router: r.clone(),
                from_router_wallet: w[i].clone(),
                to_router_wallet: w[o].clone(),
            }),
            _ => None,
        },
        dex_c: match (meta.protocol, &w) {
            (Protocol::DexC, Some(w)) => Some(DexCDetails {
                from_router_wallet: w[i].clone(),
                to_router_wallet: w[o].clone(),
                zero_to_one: i == 0,
            }),
            _ => None,
        },
        quote_only: false,
    }
}

/// A route of hand-made steps through the pools `tags`, each fed the previous output.
pub(crate) fn route(graph: &PoolGraph, tags: &[u8], from: Asset, amount: u128) -> Vec<SwapStep> {
    let (mut a, mut x) = (from, amount);
    tags.iter()
        .map(|&t| {
            let s = step(graph, t, a, x);
            (a, x) = (s.out_asset, s.out_amount);
            s
        })
        .collect()
}
