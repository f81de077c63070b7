//! Writes a synthetic TON-shaped snapshot (see `tonroute_synth::snapshot`, `tools/synth`).
//!
//! ```sh
//! cargo run --release --example gen_snapshot -- [--pools N] [--seed S] [--classic] [--out FILE] [--compact]
//! ```
//! Defaults: 1,000 pools, the bundled seed, all curves (`--classic`: no `dex_c` or weighted pools), pretty
//! JSON on standard output. The bundled `data/snapshot.json`
//! is `--pools 1000 --seed 4 --out data/snapshot.json`. A summary of the shape goes to standard error.

use std::collections::BTreeMap;

use tonroute::graph::snapshot::Snapshot;
use tonroute_synth::snapshot::{generate, SyntheticConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let mut config = SyntheticConfig::default();
    if let Some(n) = flag("--pools") {
        config.pools = n.parse()?;
    }
    if let Some(s) = flag("--seed") {
        config.seed = s.parse()?;
    }
    config.more_curves = !args.iter().any(|a| a == "--classic");
    let snapshot = generate(&config);
    let mut text = if args.iter().any(|a| a == "--compact") {
        serde_json::to_string(&snapshot)?
    } else {
        serde_json::to_string_pretty(&snapshot)?
    };
    text.push('\n');
    match flag("--out") {
        Some(path) => std::fs::write(&path, &text)?,
        None => print!("{text}"),
    }
    summary(&snapshot);
    Ok(())
}

/// Pool count, native share, top-3 TVL share (at the snapshot's USD prices) and pools per protocol/curve.
fn summary(s: &Snapshot) {
    let price: BTreeMap<&str, (f64, i32)> = s
        .assets
        .iter()
        .map(|a| {
            let p = a.usd_price.as_deref().and_then(|p| p.parse().ok()).unwrap_or(0.0);
            (a.asset.as_str(), (p, i32::from(a.decimals)))
        })
        .collect();
    let mut tvls: Vec<f64> = s
        .pools
        .iter()
        .map(|p| {
            (0..2)
                .map(|i| {
                    let (usd, dec) = price[p.assets[i].as_str()];
                    p.reserves[i].parse::<f64>().unwrap_or(0.0) / 10f64.powi(dec) * usd
                })
                .sum()
        })
        .collect();
    tvls.sort_by(|a, b| b.total_cmp(a));
    let total: f64 = tvls.iter().sum();
    let native = s.pools.iter().filter(|p| p.assets.iter().any(|a| a == "native")).count();
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for p in &s.pools {
        *kinds.entry(format!("{}/{}", p.protocol, p.curve)).or_default() += 1;
    }
    eprintln!(
        "{} pools, {} assets; native in {:.1} % of pools; TVL ${:.0}, top 3 {:.1} %; {:?}",
        s.pools.len(),
        s.assets.len(),
        100.0 * native as f64 / s.pools.len().max(1) as f64,
        total,
        100.0 * tvls.iter().take(3).sum::<f64>() / total.max(1.0),
        kinds
    );
}
