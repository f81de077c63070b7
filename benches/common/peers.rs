//! Loading a peer-benchmark graph (`../shared/peers` format) into a [`PoolGraph`], shared by
//! `examples/peers.rs` and `examples/hubs_petgraph.rs`.
//!
//! Pools map as the peers README says: `cpmm` → `dex_b_v2` constant product (`lp_fee = fee_bps`, no protocol
//! fee), `stable` → `dex_b_v2` stable swap with `amp = 2 × amp`, all behind one router. The file is read
//! into typed rows that borrow its text (no `serde_json::Value` tree: at 100k pools that tree alone took
//! ~200 MB), and the text is dropped once the graph is built.

use serde::Deserialize;
use tonlib_core::TonAddress;
use tonroute::asset::{Asset, JettonMaster};
use tonroute::graph::snapshot::{Snapshot, SnapshotAsset, SnapshotPool};
use tonroute::graph::{AssetId, AssetMeta, GraphBuilder, PoolContext, PoolGraph, Protocol};
use tonroute::pool::{ConstantProduct, Curve, FeeModel, StableSwap};

#[derive(Deserialize)]
struct GraphFile<'a> {
    #[serde(borrow)]
    assets: Vec<AssetRow<'a>>,
    #[serde(borrow)]
    pools: Vec<PoolRow<'a>>,
}

#[derive(Deserialize)]
struct AssetRow<'a> {
    id: &'a str,
    decimals: u8,
}

#[derive(Deserialize)]
struct PoolRow<'a> {
    address: &'a str,
    kind: &'a str,
    asset0: &'a str,
    asset1: &'a str,
    reserve0: &'a str,
    reserve1: &'a str,
    fee_bps: u16,
    amp: Option<u32>,
}

/// One peers query.
#[derive(Deserialize, Clone)]
pub(crate) struct Query {
    pub id: u64,
    pub from: String,
    pub to: String,
    pub amount: String,
    pub max_splits: Option<usize>,
    pub max_length: Option<usize>,
}

/// A peers graph: the pool graph, the peers' names of its pools and assets (by id), the queries.
pub(crate) struct Peers {
    pub graph: PoolGraph,
    pub pool_labels: Vec<String>,
    pub asset_labels: Vec<String>,
    pub queries: Vec<Query>,
}

fn label_bytes(label: &str, salt: u64) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h: u64 = 0xcbf29ce484222325 ^ salt.wrapping_add(i as u64).wrapping_mul(0x9e3779b97f4a7c15);
        for b in label.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100000001b3);
        }
        chunk.copy_from_slice(&h.to_be_bytes());
    }
    out
}

/// The asset a peers id stands for.
pub(crate) fn asset_of(id: &str) -> Asset {
    if id == "native" {
        Asset::Native
    } else {
        Asset::Jetton(JettonMaster(label_bytes(id, 1)))
    }
}

/// Reads `DIR/graph.json` and `DIR/queries.json`.
pub(crate) fn load(dir: &str) -> Result<Peers, Box<dyn std::error::Error>> {
    let queries: Vec<Query> = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/queries.json"))?)?;
    let text = std::fs::read_to_string(format!("{dir}/graph.json"))?;
    let file: GraphFile<'_> = serde_json::from_str(&text)?;
    let mut b = GraphBuilder::new();
    // `PEERS_HUB_MIN=N`: hub tables for assets with at least N pools (a huge N: none, the search as before
    // them), to check that the tables change speed and not answers.
    if let Some(d) = std::env::var("PEERS_HUB_MIN").ok().and_then(|v| v.parse().ok()) {
        b.hub_min_degree(d);
    }
    let mut asset_labels = Vec::with_capacity(file.assets.len());
    for a in &file.assets {
        b.add_asset(AssetMeta::new(asset_of(a.id), a.id, a.decimals))?;
        asset_labels.push(a.id.to_string());
    }
    let router = TonAddress::new(0, label_bytes("router", 2).into());
    let mut pool_labels = Vec::with_capacity(file.pools.len());
    for p in &file.pools {
        let id = |s: &str| b.asset_id(&asset_of(s)).ok_or_else(|| format!("pool {}: unknown asset {s}", p.address));
        let ids: [AssetId; 2] = [id(p.asset0)?, id(p.asset1)?];
        let curve = match p.kind {
            "cpmm" => Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, p.fee_bps, 0, 0)),
            "stable" => Curve::StableSwap(StableSwap::new(2 * p.amp.ok_or("stable pool without amp")?, p.fee_bps, 0)),
            k => return Err(format!("unknown pool kind {k}").into()),
        };
        let reserves = [p.reserve0.parse()?, p.reserve1.parse()?];
        let ctx = PoolContext { router: Some(router.clone()), router_wallets: None };
        let address = TonAddress::new(0, label_bytes(p.address, 3).into());
        b.add_pool(address, Protocol::DexBV2, ids, curve, reserves, ctx, None)?;
        pool_labels.push(p.address.to_string());
    }
    drop(file);
    drop(text);
    Ok(Peers { graph: b.build(), pool_labels, asset_labels, queries })
}

/// The same graph as a snapshot (the `data/snapshot.json` format) with the queries as `/v4/router/quote`
/// bodies, for what loads snapshots rather than this file (the npm package's figures, `examples/api_times.rs`):
/// the assets, curves, reserves, addresses and router [`load`] gives the builder, each as the snapshot spells
/// it (a stable pool's `amp` is the contract's stored value, twice the peers' `amp`).
#[allow(dead_code)] // examples/peers.rs loads the graph directly
pub(crate) fn snapshot(dir: &str) -> Result<(Snapshot, Vec<serde_json::Value>), Box<dyn std::error::Error>> {
    let queries: Vec<Query> = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/queries.json"))?)?;
    let text = std::fs::read_to_string(format!("{dir}/graph.json"))?;
    let file: GraphFile<'_> = serde_json::from_str(&text)?;
    let raw = |bytes: [u8; 32]| TonAddress::new(0, bytes.into()).to_hex();
    let router = raw(label_bytes("router", 2));
    let assets = file
        .assets
        .iter()
        .map(|a| SnapshotAsset {
            asset: asset_of(a.id).to_string(),
            symbol: a.id.to_string(),
            name: a.id.to_string(),
            decimals: a.decimals,
            usd_price: None,
            image: None,
            wallet: None,
        })
        .collect();
    let mut pools = Vec::with_capacity(file.pools.len());
    for p in &file.pools {
        let (curve, amp) = match p.kind {
            "cpmm" => ("constant_product", None),
            "stable" => ("stable_swap", Some((2 * p.amp.ok_or("stable pool without amp")?).to_string())),
            k => return Err(format!("unknown pool kind {k}").into()),
        };
        pools.push(SnapshotPool {
            address: raw(label_bytes(p.address, 3)),
            protocol: "dex_b_v2".into(),
            curve: curve.into(),
            assets: [asset_of(p.asset0).to_string(), asset_of(p.asset1).to_string()],
            reserves: [p.reserve0.to_string(), p.reserve1.to_string()],
            lp_fee: p.fee_bps,
            protocol_fee: 0,
            ref_fee: 0,
            amp,
            w0: None,
            rate: None,
            router: Some(router.clone()),
            router_wallets: None,
            volatility: None,
            concentrated: Default::default(),
        });
    }
    let bodies = queries
        .iter()
        .map(|q| {
            serde_json::json!({
                "in_minter": asset_of(&q.from).to_string(), "out_minter": asset_of(&q.to).to_string(),
                "amount": q.amount, "max_splits": q.max_splits.unwrap_or(4), "max_length": q.max_length.unwrap_or(3),
            })
        })
        .collect();
    Ok((Snapshot { source: Some(format!("peers graph {dir}")), assets, pools, ..Snapshot::default() }, bodies))
}

/// Peak resident memory of this process so far, in MB (Linux `VmHWM`; 0 elsewhere).
pub(crate) fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM:")).map(|l| l.to_string()))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<f64>().ok()))
        .map_or(0.0, |kb| kb / 1024.0)
}
