//! Runs tonroute on a peer-benchmark graph (`../shared/peers` format) and writes `results.<name>.json`.
//!
//! ```sh
//! cargo run --release --example peers -- DIR [--max-splits N] [--max-length N] [--name NAME] [--gas] [--exact-out] [--out OUT]
//! ```
//! Reads `DIR/graph.json` and `DIR/queries.json` (see `benches/common/peers.rs` for how pools map); the flags
//! override every query's limits. Writes nothing into `DIR` (the peers' directory is read-only input): the
//! results go to `OUT` (default `target/peers/<DIR's name>/`), next to copies of `graph.json`,
//! `queries.json` and the peers' other `results.*.json`, so that `compare.py OUT/results.*.json` compares
//! every router on that graph. Network fees are zero (gross output, as the peers measure) unless
//! `--gas`. `amount_out` is the exact joint re-simulation of the chosen routes; `time_ms` is the wall time of
//! the quote alone (with `PEERS_TIMES=N`, the least of N runs: the machine is shared and noisy). Prints
//! p50 / p90 / p99 / max of the times and the process's peak RSS, graph loading included. With
//! `--exact-out`, every answered query is quoted again exact-out for the output it got, and the ratio of the
//! two times is reported (`exact_out_ms`, `exact_out_ratio`). `--certify` adds each quote's optimality
//! certificate (`upper_bound`, `gap_bps`, `certify_ms`: the wall time of the certificate alone) and prints its
//! cost as a ratio of the quote's, same run. The certificate is `route::certify_request` (priced by the quote
//! and by a quote with wider limits); with `CERTIFY_CHEAP=1` it is `route::certify` (the quote's prices only).

#[path = "../benches/common/peers.rs"]
mod peers;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::json;
use tonroute::route::{NetworkFees, QuoteOptions, QuoteRequest, Router, RouterConfig, SwapMode};

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .ok_or("usage: peers DIR [--max-splits N] [--max-length N] [--name NAME] [--gas] [--exact-out] [--certify] [--out OUT]")?
        .clone();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let out_dir = output_dir(Path::new(&dir), flag("--out").map(PathBuf::from))?;
    let splits: Option<usize> = flag("--max-splits").map(|v| v.parse()).transpose()?;
    let length: Option<usize> = flag("--max-length").map(|v| v.parse()).transpose()?;
    let name = flag("--name").unwrap_or_else(|| "tonroute".into());
    let gas = args.iter().any(|a| a == "--gas");
    let exact_out = args.iter().any(|a| a == "--exact-out");
    let certify = args.iter().any(|a| a == "--certify");
    let cheap = std::env::var("CERTIFY_CHEAP").is_ok();
    let mut certify_ratios = Vec::new();
    let mut certify_times = Vec::new();
    let t_load = Instant::now();
    let peers::Peers { graph, pool_labels, asset_labels, queries } = peers::load(&dir)?;
    let load_s = t_load.elapsed().as_secs_f64();
    let fees = if gas { NetworkFees::default() } else { NetworkFees::ZERO };
    let router = Router::new(RouterConfig { network_fees: fees, ..RouterConfig::default() });
    let times_per_query: usize = std::env::var("PEERS_TIMES").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
    let only: Option<u64> = std::env::var("PEERS_ONLY").ok().and_then(|v| v.parse().ok());
    let mut results = Vec::new();
    let mut times = Vec::new();
    let mut ratios = Vec::new();
    let timed = |req: &QuoteRequest| {
        let mut best = f64::INFINITY;
        let mut quote = None;
        for _ in 0..times_per_query {
            let t0 = Instant::now();
            let q = router.quote(&graph, req, QuoteOptions::default());
            best = best.min(t0.elapsed().as_secs_f64() * 1e3);
            quote = Some(q);
        }
        (quote.expect("at least one run"), best)
    };
    for q in &queries {
        if only.is_some_and(|o| q.id != o) {
            continue;
        }
        let req = QuoteRequest::builder(peers::asset_of(&q.from), peers::asset_of(&q.to), q.amount.parse()?)
            .max_splits(splits.unwrap_or(q.max_splits.unwrap_or(4)))
            .max_length(length.unwrap_or(q.max_length.unwrap_or(3)))
            .build()
            .unwrap();
        let (quote, ms) = timed(&req);
        times.push(ms);
        let mut result = match &quote {
            Ok(qt) => json!({
                "id": q.id, "amount_out": qt.out_amount.to_string(), "time_ms": ms,
                "paths": qt.routes.len(), "legs": qt.routes.iter().map(|r| r.steps.len()).sum::<usize>(),
                "max_hops": qt.routes.iter().map(|r| r.steps.len()).max().unwrap_or(0),
                "within_limits": qt.routes.len() <= req.max_splits() && qt.routes.iter().all(|r| r.steps.len() <= req.max_length()),
                "status": "ok", "best_single": qt.best_single_out.to_string(),
                // The chosen routes as (peer pool address, asset in) legs with their inputs, so the peers'
                // own math (amm.py) can re-execute them: see scripts/peers_reexec.py.
                "routes": qt.routes.iter().map(|r| json!({
                    "amount_in": r.in_amount.to_string(),
                    "legs": r.steps.iter().map(|s| json!({
                        "pool": pool_labels[s.pool.index()],
                        "asset_in": asset_labels[graph.asset_id(&s.in_asset).map_or(0, |a| a.index())],
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            }),
            Err(e) => json!({"id": q.id, "amount_out": null, "time_ms": ms, "status": e.to_string()}),
        };
        if let (true, Ok(qt)) = (exact_out, &quote) {
            let out_req = req.to_builder().amount(qt.out_amount).swap_mode(SwapMode::ExactOut).build()?;
            let (out_quote, out_ms) = timed(&out_req);
            result["exact_out_ms"] = json!(out_ms);
            result["exact_out_ratio"] = json!(out_ms / ms);
            result["exact_out_in"] = json!(out_quote.map(|o| o.in_amount.to_string()).unwrap_or_default());
            ratios.push(out_ms / ms);
        }
        if let (true, Ok(qt)) = (certify, &quote) {
            let t0 = Instant::now();
            let c = if cheap {
                tonroute::route::certify(&graph, qt)
            } else {
                tonroute::route::certify_request(&router, &graph, &req, qt)
            };
            let cms = t0.elapsed().as_secs_f64() * 1e3;
            match c {
                Ok(c) => {
                    result["upper_bound"] = json!(c.upper_bound.to_string());
                    result["gap_bps"] = json!(c.gap_bps);
                }
                Err(e) => result["certify_error"] = json!(e.to_string()),
            }
            result["certify_ms"] = json!(cms);
            certify_times.push(cms);
            certify_ratios.push(cms / ms.max(1e-6));
        }
        results.push(result);
    }
    times.sort_by(f64::total_cmp);
    let out = json!({
        "router": name, "graph": format!("{dir}/graph.json"), "upper_bound": false,
        "settings": {"max_splits": splits, "max_length": length, "network_fees": gas},
        "results": results,
    });
    let file = out_dir.join(format!("results.{name}.json"));
    std::fs::write(&file, serde_json::to_string_pretty(&out)?)?;
    eprintln!(
        "{} queries ({} pools, load {:.2} s): p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms; peak RSS {:.0} MB; \
         wrote {}",
        times.len(),
        graph.pool_count(),
        load_s,
        pct(&times, 0.5),
        pct(&times, 0.9),
        pct(&times, 0.99),
        times[times.len() - 1],
        peers::peak_rss_mb(),
        file.display()
    );
    if !ratios.is_empty() {
        ratios.sort_by(f64::total_cmp);
        eprintln!(
            "exact-out / exact-in time: median {:.2}, p90 {:.2}, max {:.2}",
            pct(&ratios, 0.5),
            pct(&ratios, 0.9),
            ratios[ratios.len() - 1]
        );
    }
    if !certify_times.is_empty() {
        let total = certify_times.iter().sum::<f64>() / times.iter().sum::<f64>();
        certify_times.sort_by(f64::total_cmp);
        certify_ratios.sort_by(f64::total_cmp);
        eprintln!(
            "certificate: p50 {:.3} ms, p90 {:.3} ms; certificate / quote time per query p50 {:.2}, p90 {:.2}; total {:.2}",
            pct(&certify_times, 0.5),
            pct(&certify_times, 0.9),
            pct(&certify_ratios, 0.5),
            pct(&certify_ratios, 0.9),
            total
        );
    }
    Ok(())
}

/// The directory results go to: `--out`, else `target/peers/<input dir's name>`; never the input directory.
/// Creates it and copies the graph, the queries and the other routers' results from the input into it
/// (streamed: a 1M-pool graph is 200 MB of text).
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
            // Streamed into a new file, not `fs::copy`: a copy would keep the input's read-only mode.
            std::io::copy(&mut std::fs::File::open(&path)?, &mut std::fs::File::create(out.join(&name))?)?;
        }
    }
    Ok(out)
}
