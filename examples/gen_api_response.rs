//! Writes a synthetic STON.fi `/v1/pools` answer of any size (`tonroute_synth::api`) for `tonroute import` to be
//! timed on (BENCHMARKS.md, "Import"):
//!
//! ```sh
//! cargo run --release --example gen_api_response -- --pools 100000 --out /tmp/pools-100k.json
//! /usr/bin/time -v target/release/tonroute import /tmp/pools-100k.json --out /tmp/imported-100k.json
//! ```
//! Defaults: 100,000 records, seed 17.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let pools: usize = flag("--pools").map(|v| v.parse()).transpose()?.unwrap_or(100_000);
    let seed: u64 = flag("--seed").map(|v| v.parse()).transpose()?.unwrap_or(17);
    let out = flag("--out").ok_or("--out FILE is required")?;
    let text = tonroute_synth::api::stonfi_pools_response(pools, seed);
    std::fs::write(&out, &text)?;
    println!("wrote {out} ({pools} records, {} bytes)", text.len());
    Ok(())
}
