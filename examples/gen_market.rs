//! Writes the market-data sample for a snapshot (see `tonroute_synth::market`, `tools/synth`).
//!
//! ```sh
//! cargo run --release --example gen_market -- [--snapshot data/snapshot.json] [--seed S] [--trades N] [--pools P] [--out FILE]
//! ```
//! Defaults: the bundled snapshot and settings; compact JSON (one trade per line) on standard output. The
//! bundled `data/market.json` is `--out data/market.json` with the defaults. The file is then loaded back
//! (every trade replayed against the pools) and a summary goes to standard error.

use tonroute::graph::snapshot::Snapshot;
use tonroute::market::{MarketData, MarketView};
use tonroute_synth::market::{generate, MarketGenConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let snapshot_path = flag("--snapshot").unwrap_or_else(|| "data/snapshot.json".into());
    let mut config = MarketGenConfig::default();
    if let Some(s) = flag("--seed") {
        config.seed = s.parse()?;
    }
    if let Some(n) = flag("--trades") {
        config.trades = n.parse()?;
    }
    if let Some(n) = flag("--pools") {
        config.traded_pools = n.parse()?;
    }
    let snapshot = Snapshot::from_json(&std::fs::read_to_string(&snapshot_path)?)?;
    let file = generate(&snapshot, &config)?;
    let text = tonroute::market::replay::to_json_lines(&file)?;
    match flag("--out") {
        Some(path) => std::fs::write(&path, &text)?,
        None => print!("{text}"),
    }
    let data = std::sync::Arc::new(MarketData::from_json(snapshot.into_graph()?, &text)?);
    let view = MarketView::new(data.clone(), data.as_of);
    let traded = data.coins.iter().enumerate().filter(|(i, _)| view.coin_stats(*i).usd.is_some()).count();
    eprintln!(
        "coins {} (with trades {traded}), trades {}, wallets {}, rewards {}, affiliate accounts {}",
        data.coins.len(),
        data.trades.len(),
        data.traders.len(),
        data.rewards.len(),
        data.affiliates.len()
    );
    Ok(())
}
