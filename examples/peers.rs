//! Runs tonroute on a peer-benchmark graph (`../shared/peers` format) and writes `results.<name>.json`.
//!
//! ```sh
//! cargo run --release --example peers -- DIR [--max-splits N] [--max-length N] [--name NAME] [--gas] [--out OUT]
//! ```
//! Reads `DIR/graph.json` and `DIR/queries.json`; the flags override every query's limits. Writes nothing into
//! `DIR` (the peers' directory is read-only input): the results go to `OUT` (default `target/peers/<DIR's
//! name>/`), next to copies of `graph.json`, `queries.json` and the peers' other `results.*.json`, so that
//! `compare.py OUT/results.*.json` compares every router on that graph. Pools map as the
//! peers README says: `cpmm` → `dex_b_v2` constant product (`lp_fee = fee_bps`, no protocol fee), `stable` →
//! `dex_b_v2` stable swap with `amp = 2 × amp`, all behind one router. Network fees are zero (gross output,
//! as the peers measure) unless `--gas`. `amount_out` is the exact joint re-simulation of the chosen routes;
//! `time_ms` is the wall time of the quote alone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::{json, Value};
use tonlib_core::TonAddress;
use tonroute::asset::{Asset, JettonMaster};
use tonroute::graph::{AssetMeta, GraphBuilder, PoolContext, PoolGraph, Protocol};
use tonroute::pool::{ConstantProduct, Curve, FeeModel, StableSwap};
use tonroute::route::{NetworkFees, QuoteRequest, Router, RouterConfig};

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

fn asset_of(id: &str) -> Asset {
    if id == "native" {
        Asset::Native
    } else {
        Asset::Jetton(JettonMaster(label_bytes(id, 1)))
    }
}

type Labels = (HashMap<TonAddress, String>, HashMap<Asset, String>);

fn load(dir: &str) -> Result<(PoolGraph, Vec<Value>, Labels), Box<dyn std::error::Error>> {
    let graph: Value = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/graph.json"))?)?;
    let queries: Vec<Value> = serde_json::from_str(&std::fs::read_to_string(format!("{dir}/queries.json"))?)?;
    let mut b = GraphBuilder::new();
    let (mut labels, mut names) = (HashMap::new(), HashMap::new());
    for a in graph["assets"].as_array().ok_or("assets")? {
        let id = a["id"].as_str().ok_or("asset id")?;
        names.insert(asset_of(id), id.to_string());
        let decimals = u8::try_from(a["decimals"].as_u64().ok_or("decimals")?)?;
        b.add_asset(AssetMeta::new(asset_of(id), id, decimals))?;
    }
    let router = TonAddress::new(0, label_bytes("router", 2).into());
    for p in graph["pools"].as_array().ok_or("pools")? {
        let s = |k: &str| p[k].as_str().ok_or(format!("pool field {k}"));
        let ids = [
            b.asset_id(&asset_of(s("asset0")?)).ok_or("asset0")?,
            b.asset_id(&asset_of(s("asset1")?)).ok_or("asset1")?,
        ];
        let fee = u16::try_from(p["fee_bps"].as_u64().ok_or("fee_bps")?)?;
        let curve = match s("kind")? {
            "cpmm" => Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, fee, 0, 0)),
            "stable" => Curve::StableSwap(StableSwap::new(2 * u32::try_from(p["amp"].as_u64().ok_or("amp")?)?, fee, 0)),
            k => return Err(format!("unknown pool kind {k}").into()),
        };
        let reserves = [s("reserve0")?.parse()?, s("reserve1")?.parse()?];
        let ctx = PoolContext { router: Some(router.clone()), router_wallets: None };
        let address = TonAddress::new(0, label_bytes(s("address")?, 3).into());
        labels.insert(address.clone(), s("address")?.to_string());
        b.add_pool(address, Protocol::DexBV2, ids, curve, reserves, ctx, None)?;
    }
    Ok((b.build(), queries, (labels, names)))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: peers DIR [--max-splits N] [--max-length N] [--name NAME] [--gas] [--out OUT]";
    let dir = args.first().ok_or(usage)?.clone();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let out_dir = output_dir(Path::new(&dir), flag("--out").map(PathBuf::from))?;
    let splits: Option<usize> = flag("--max-splits").map(|v| v.parse()).transpose()?;
    let length: Option<usize> = flag("--max-length").map(|v| v.parse()).transpose()?;
    let name = flag("--name").unwrap_or_else(|| "tonroute".into());
    let gas = args.iter().any(|a| a == "--gas");
    let (graph, queries, (labels, names)) = load(&dir)?;
    let fees = if gas { NetworkFees::default() } else { NetworkFees::ZERO };
    let router = Router::new(RouterConfig { network_fees: fees, ..RouterConfig::default() });
    let mut results = Vec::new();
    let mut times = Vec::new();
    let only: Option<u64> = std::env::var("PEERS_ONLY").ok().and_then(|v| v.parse().ok());
    for q in &queries {
        if only.is_some_and(|o| q["id"].as_u64() != Some(o)) {
            continue;
        }
        let s = |k: &str| q[k].as_str().unwrap_or_default().to_string();
        let mut req = QuoteRequest::new(asset_of(&s("from")), asset_of(&s("to")), s("amount").parse()?);
        req.max_splits = splits.unwrap_or(usize::try_from(q["max_splits"].as_u64().unwrap_or(4))?);
        req.max_length = length.unwrap_or(usize::try_from(q["max_length"].as_u64().unwrap_or(3))?);
        // Profiling aid: PEERS_REPEAT=N quotes each query N extra times first.
        for _ in 0..std::env::var("PEERS_REPEAT").ok().and_then(|v| v.parse::<usize>().ok()).unwrap_or(0) {
            let _ = router.quote(&graph, &req);
        }
        let t0 = Instant::now();
        let quote = router.quote(&graph, &req);
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        times.push(ms);
        results.push(match quote {
            Ok(qt) => json!({
                "id": q["id"], "amount_out": qt.out_amount.to_string(), "time_ms": ms,
                "paths": qt.routes.len(), "legs": qt.routes.iter().map(|r| r.steps.len()).sum::<usize>(),
                "max_hops": qt.routes.iter().map(|r| r.steps.len()).max().unwrap_or(0),
                "within_limits": qt.routes.len() <= req.max_splits && qt.routes.iter().all(|r| r.steps.len() <= req.max_length),
                "status": "ok", "best_single": qt.best_single_out.to_string(),
                // The chosen routes as (peer pool address, asset in) legs with their inputs, so the peers'
                // own math (amm.py) can re-execute them: see scripts/peers_reexec.py.
                "routes": qt.routes.iter().map(|r| json!({
                    "amount_in": r.in_amount.to_string(),
                    "legs": r.steps.iter().map(|s| json!({
                        "pool": labels.get(&s.pool_address).cloned().unwrap_or_default(),
                        "asset_in": names.get(&s.in_asset).cloned().unwrap_or_default(),
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            }),
            Err(e) => json!({"id": q["id"], "amount_out": null, "time_ms": ms, "status": e.to_string()}),
        });
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    let out = json!({
        "router": name, "graph": format!("{dir}/graph.json"), "upper_bound": false,
        "settings": {"max_splits": splits, "max_length": length, "network_fees": gas},
        "results": results,
    });
    let file = out_dir.join(format!("results.{name}.json"));
    std::fs::write(&file, serde_json::to_string_pretty(&out)?)?;
    eprintln!("{} queries: p50 {:.3} ms, p99 {:.3} ms; wrote {}", queries.len(), pct(0.5), pct(0.99), file.display());
    Ok(())
}

/// The directory results go to: `--out`, else `target/peers/<input dir's name>`; never the input directory.
/// Creates it and copies the graph, the queries and the other routers' results from the input into it.
fn output_dir(input: &Path, out: Option<PathBuf>) -> Result<PathBuf, Box<dyn std::error::Error>> {
    let input = input.canonicalize().map_err(|e| format!("{}: {e}", input.display()))?;
    let out = out.unwrap_or_else(|| {
        let name = input.file_name().map_or_else(|| "graph".into(), |n| n.to_os_string());
        Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("peers").join(name)
    });
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    if out.canonicalize()? == input {
        return Err(format!("--out {} is the input directory; results go elsewhere", out.display()).into());
    }
    for entry in std::fs::read_dir(&input)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
        if name == "graph.json" || name == "queries.json" || (name.starts_with("results.") && name.ends_with(".json")) {
            // Read and written, not `fs::copy`: a copy would keep the input's read-only mode.
            std::fs::write(out.join(&name), std::fs::read(&path)?)?;
        }
    }
    Ok(out)
}
