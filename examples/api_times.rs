//! The `/v4` layer's speed natively, measured the way the npm package's is (bindings/wasm/bench/times.mjs), so
//! the two compare in one run (`scripts/wasm_figures.sh`, BENCHMARKS.md "WebAssembly"): the snapshot's load
//! (text → graph → [`Api`]) and [`Api::quote`] on JSON bodies, JSON text in and out, as the package's
//! `quoteJson` does.
//!
//! ```sh
//! cargo run --release --example api_times -- SNAPSHOT BODIES [--runs N]
//! cargo run --release --example api_times -- --peers DIR --write OUT
//! ```
//! `BODIES` is a JSON array of `/v4/router/quote` bodies. One pass over them gives the cold figures
//! (`cold_p50_ms`, `cold_p99_ms`); then each body is quoted `N` times (default 5) in a row and its least time
//! kept (the machine is shared and noisy): `p50_ms`, `p99_ms`, `max_ms`. The load is the first one
//! (`first_load_ms`) and the least of `N` (`load_ms`). Also `answers`, the SHA-256 of every answer's text (an
//! error's `{code, message}`), one per line: equal hashes mean equal answers.
//!
//! `--peers DIR --write OUT` writes a peers graph (`../shared/peers` format) as `OUT/snapshot.json` with its
//! queries as `OUT/bodies.json` (`benches/common/peers.rs`), after checking that the snapshot routes exactly as
//! the graph `examples/peers` builds: every query's routes and output equal on both.

#[path = "../benches/common/peers.rs"]
#[allow(dead_code)]
mod peers;

use std::sync::Arc;
use std::time::Instant;

use sha2::{Digest, Sha256};
use tonroute::api::Api;
use tonroute::graph::PoolGraph;
use tonroute::route::{QuoteOptions, QuoteRequest, Router};

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    if let Some(dir) = flag("--peers") {
        return write_peers(&dir, &flag("--write").ok_or("--peers DIR needs --write OUT")?);
    }
    let (Some(snapshot), Some(bodies)) = (args.first(), args.get(1)) else {
        return Err("usage: api_times SNAPSHOT BODIES [--runs N] | --peers DIR --write OUT".into());
    };
    let runs: usize = flag("--runs").map(|v| v.parse()).transpose()?.unwrap_or(5).max(1);
    let text = std::fs::read_to_string(snapshot)?;
    let bodies: Vec<serde_json::Value> = serde_json::from_str(&std::fs::read_to_string(bodies)?)?;
    let bodies: Vec<String> = bodies.iter().map(|b| b.to_string()).collect();

    let mut load_ms = f64::INFINITY;
    let mut first_load_ms = None;
    let mut api = None;
    for _ in 0..runs {
        let t0 = Instant::now();
        let loaded = Api::new(Arc::new(PoolGraph::from_json(&text)?));
        load_ms = load_ms.min(t0.elapsed().as_secs_f64() * 1e3);
        first_load_ms.get_or_insert(load_ms);
        api = Some(loaded);
    }
    let api = api.ok_or("no run")?;
    let answer = |body: &String| match api.quote(body.as_bytes()) {
        Ok(quote) => serde_json::to_string(&quote).map_err(|e| e.to_string()),
        Err(e) => Ok(e.to_json()),
    };
    let mut cold = Vec::with_capacity(bodies.len());
    for body in &bodies {
        let t0 = Instant::now();
        answer(body)?;
        cold.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    cold.sort_by(f64::total_cmp);

    let mut times = Vec::with_capacity(bodies.len());
    let mut hash = Sha256::new();
    for body in &bodies {
        let mut best = f64::INFINITY;
        let mut last = String::new();
        for _ in 0..runs {
            let t0 = Instant::now();
            let text = answer(body)?;
            best = best.min(t0.elapsed().as_secs_f64() * 1e3);
            last = text;
        }
        times.push(best);
        hash.update(last.as_bytes());
        hash.update(b"\n");
    }
    times.sort_by(f64::total_cmp);
    let answers: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    println!(
        "{}",
        serde_json::json!({
            "engine": "native", "pools": api.graph().pool_count(), "first_load_ms": first_load_ms,
            "load_ms": load_ms, "quotes": times.len(), "cold_p50_ms": pct(&cold, 0.5), "cold_p99_ms": pct(&cold, 0.99),
            "p50_ms": pct(&times, 0.5), "p99_ms": pct(&times, 0.99), "max_ms": times[times.len() - 1],
            "answers": answers,
        })
    );
    Ok(())
}

/// Writes the peers graph in `dir` as a snapshot and bodies into `out`, once the snapshot is shown to route as
/// the peers graph does.
fn write_peers(dir: &str, out: &str) -> Result<(), Box<dyn std::error::Error>> {
    let (snapshot, bodies) = peers::snapshot(dir)?;
    let direct = peers::load(dir)?;
    let from_snapshot = snapshot.into_graph()?;
    let router = Router::default();
    for q in &direct.queries {
        let req = QuoteRequest::builder(peers::asset_of(&q.from), peers::asset_of(&q.to), q.amount.parse()?)
            .max_splits(q.max_splits.unwrap_or(4))
            .max_length(q.max_length.unwrap_or(3))
            .build()
            .unwrap();
        let a = router
            .quote(&direct.graph, &req, QuoteOptions::default())
            .map(|q| (q.out_amount, q.swap_data(&direct.graph)));
        let b = router
            .quote(&from_snapshot, &req, QuoteOptions::default())
            .map(|q| (q.out_amount, q.swap_data(&from_snapshot)));
        if a != b {
            return Err(format!("query {}: the snapshot routes differently: {a:?} vs {b:?}", q.id).into());
        }
    }
    std::fs::create_dir_all(out)?;
    std::fs::write(format!("{out}/snapshot.json"), serde_json::to_string(&snapshot)?)?;
    std::fs::write(format!("{out}/bodies.json"), serde_json::to_string(&bodies)?)?;
    eprintln!(
        "{out}: {} pools, {} bodies; the snapshot routes every query as the peers graph does",
        from_snapshot.pool_count(),
        bodies.len()
    );
    Ok(())
}
