//! Writes the example files of `tonroute market ingest` (see `tonroute_synth::ingest`, `tools/synth`):
//! `data/examples/trades.jsonl` and `data/examples/more.jsonl`, trades right after the bundled market sample.
//!
//! ```sh
//! cargo run --release --example gen_ingest_examples -- [--out-dir data/examples]
//! ```
//! Reads the bundled `data/snapshot.json` and `data/market.json`; `tests/it/market_ingest.rs` regenerates the files
//! and requires byte-identical output.

use tonroute::graph::snapshot::Snapshot;
use tonroute::market::MarketFile;

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let dir = std::path::PathBuf::from(flag("--out-dir").unwrap_or_else(|| "data/examples".into()));
    let snapshot = Snapshot::from_json(&std::fs::read_to_string("data/snapshot.json")?)?;
    let sample: MarketFile = serde_json::from_str(&std::fs::read_to_string("data/market.json")?)?;
    let files = tonroute_synth::ingest::ingest_examples(&snapshot, &sample)?;
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("trades.jsonl"), &files.trades)?;
    std::fs::write(dir.join("more.jsonl"), &files.more)?;
    eprintln!("wrote {} and {}", dir.join("trades.jsonl").display(), dir.join("more.jsonl").display());
    Ok(())
}
