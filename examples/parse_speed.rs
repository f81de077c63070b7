//! How long the `/v4` request parsers take on the load generator's request mix (parsing only: no routing).
//!
//! ```sh
//! cargo run --release --example parse_speed -- [snapshot] [rounds]
//! ```
//!
//! Builds the quote bodies of `examples/load.rs`'s mix ([`common::load_mix`], 2,000 requests over the
//! bundled snapshot) and, for every 10th one that quotes, the `/v4/router/swap` body of its `swap_data`; then
//! parses all of them `rounds` times (default 30) with `tonroute::api::parse::{parse_quote_request,
//! parse_swap_request}` and prints the fastest round per body. Only those two functions of the API are used,
//! so the same file measures an older checkout too (BENCHMARKS.md compares the serde parsers with the
//! `serde_json::Value` walk they replaced).

#[path = "../benches/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tonroute::api::parse::{parse_quote_request, parse_swap_request};
use tonroute::api::Api;
use tonroute::graph::PoolGraph;

const SENDER: &str = "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p";

fn fastest(rounds: usize, bodies: &[String], parse: impl Fn(&[u8]) -> bool) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut accepted = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        accepted = bodies.iter().filter(|b| black_box(parse(black_box(b.as_bytes())))).count();
        best = best.min(start.elapsed());
    }
    (best, accepted)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let snapshot = args.next().unwrap_or_else(|| "data/snapshot.json".into());
    let rounds: usize = args.next().map(|r| r.parse()).transpose()?.unwrap_or(30);
    let graph = Arc::new(PoolGraph::from_json(&std::fs::read_to_string(&snapshot)?)?);
    let quotes: Vec<String> = common::load_mix(&graph, 2000)
        .into_iter()
        .map(|(a, b, amount)| format!(r#"{{"in_minter": "{a}", "out_minter": "{b}", "amount": "{amount}"}}"#))
        .collect();
    let api = Api::new(graph);
    let swaps: Vec<String> = quotes
        .iter()
        .step_by(10)
        .filter_map(|q| api.quote(q.as_bytes()).ok())
        .map(|r| {
            let swap_data = serde_json::to_value(&r).map(|v| v["swap_data"].clone()).unwrap_or_default();
            serde_json::json!({"sender_address": SENDER, "swap_data": swap_data}).to_string()
        })
        .collect();
    for (name, bodies, parse) in [
        ("quote", &quotes, (|b: &[u8]| parse_quote_request(b).is_ok()) as fn(&[u8]) -> bool),
        ("swap", &swaps, |b: &[u8]| parse_swap_request(b).is_ok()),
    ] {
        let (best, accepted) = fastest(rounds, bodies, parse);
        let bytes: usize = bodies.iter().map(String::len).sum();
        println!(
            "{name}: {} bodies ({} bytes on average), {accepted} accepted, {:.0} ns per body (fastest of {rounds} rounds)",
            bodies.len(),
            bytes / bodies.len().max(1),
            best.as_nanos() as f64 / bodies.len().max(1) as f64,
        );
    }
    Ok(())
}
