//! Quote latency distribution on one thread: p50 / p99 per class on a synthetic graph.
//!
//! ```sh
//! cargo run --release --example latency -- [--pools N] [--n QUOTES_PER_CASE] [--seed S] [--classic]
//! ```
//! `--case TEXT` runs only the cases whose name contains TEXT (for a profiler). `--answers FILE` writes
//! every quote (`Debug`, one line per quote, outside the timed part) to FILE, so two builds can be compared
//! answer by answer (`cmp`).
//!
//! Defaults: 10,000 pools, 1,000 quotes per (pair, size) case, the bundled seed. The cases are those of
//! `benches/quote.rs` (`benches/common/mod.rs`): popular and long-tail pairs, small / medium / whale sizes,
//! `max_length` 3, `max_splits` 4, default network fees. Each quote's amount is nudged by its index so no two
//! are identical. Criterion gives means; the targets are about p50 / p99, hence this.
//!
//! Then the curve cases of `benches/quote.rs` (`quote_curves`, `curve_cases` in `benches/common/mod.rs`):
//! a TON→USD₮ whale through the `dex_c` pool, NOT→TON through the 80/20 weighted pool, sUSD1→sUSD2 through
//! the weighted stable pool, exact-out TON→USD₮ small and whale; `via` says whether the quote went through
//! the case's pool.

#[path = "../benches/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use tonroute::route::{QuoteOptions, Router};
use tonroute_synth::snapshot::{generate, SyntheticConfig};

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let mut config = SyntheticConfig { pools: 10_000, ..SyntheticConfig::default() };
    if let Some(v) = flag("--pools") {
        config.pools = v.parse()?;
    }
    if let Some(v) = flag("--seed") {
        config.seed = v.parse()?;
    }
    // Without the concentrated and weighted pools, for comparison with earlier runs.
    config.more_curves = !args.iter().any(|a| a == "--classic");
    let n: usize = flag("--n").map(|v| v.parse()).transpose()?.unwrap_or(1_000);
    let answers_path = flag("--answers");
    // Only the cases whose name contains this (e.g. for a profiler).
    let only = flag("--case").unwrap_or_default();
    let mut answers = String::new();
    let mut record = |case: &str, k: usize, q: &tonroute::route::Quote| {
        if answers_path.is_some() {
            answers.push_str(&format!("{case} {k} {q:?}\n"));
        }
    };
    let graph = generate(&config).into_graph()?;
    let router = Router::default();
    println!("{} pools, {} assets, {n} quotes per case, one thread", graph.pool_count(), graph.asset_count());
    println!("{:<34} {:>9} {:>9} {:>9} {:>9} {:>9}  routes", "case", "p50 µs", "p90 µs", "p99 µs", "max µs", "mean µs");
    let mut by_class: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for pair in common::pairs(&graph) {
        for (size, num, den) in common::SIZES {
            if !format!("{}/{}/{size}", pair.class, pair.name).contains(&only) {
                continue;
            }
            let base = pair.request(num, den);
            // Warm up the caches and the branch predictors a little.
            for _ in 0..10 {
                router.quote(&graph, &base, QuoteOptions::default())?;
            }
            let mut times = Vec::with_capacity(n);
            let mut routes = 0;
            for k in 0..n {
                let req = base.to_builder().amount(base.amount() + k as u128).build()?;
                let t0 = Instant::now();
                let q = router.quote(&graph, &req, QuoteOptions::default())?;
                times.push(t0.elapsed().as_secs_f64() * 1e6);
                routes = q.routes.len();
                record(&format!("{}/{}/{size}", pair.class, pair.name), k, &q);
            }
            times.sort_by(f64::total_cmp);
            let mean = times.iter().sum::<f64>() / times.len() as f64;
            println!(
                "{:<34} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}  {routes}",
                format!("{}/{}/{size}", pair.class, pair.name),
                pct(&times, 0.5),
                pct(&times, 0.9),
                pct(&times, 0.99),
                times[times.len() - 1],
                mean
            );
            by_class.entry(format!("{}/{size}", pair.class)).or_default().extend(&times);
            by_class.entry("all".into()).or_default().extend(&times);
        }
    }
    println!();
    for (class, mut times) in by_class {
        times.sort_by(f64::total_cmp);
        println!(
            "{:<34} {:>9.1} {:>9.1} {:>9.1}  (p90 {:.1})",
            class,
            pct(&times, 0.5),
            pct(&times, 0.99),
            times[times.len() - 1],
            pct(&times, 0.9)
        );
    }
    let Some(cases) = common::curve_cases(&graph) else {
        println!("\nno concentrated / weighted pools in this graph: curve cases skipped");
        if let Some(path) = &answers_path {
            std::fs::write(path, &answers)?;
        }
        return Ok(());
    };
    println!();
    println!(
        "{:<34} {:>9} {:>9} {:>9} {:>9} {:>9}  routes via",
        "curve case", "p50 µs", "p90 µs", "p99 µs", "max µs", "mean µs"
    );
    for case in cases.iter().filter(|c| c.name.contains(&only)) {
        for _ in 0..10 {
            router.quote(&graph, &case.request, QuoteOptions::default())?;
        }
        let mut times = Vec::with_capacity(n);
        let (mut routes, mut via) = (0, false);
        for k in 0..n {
            let req = case.request.to_builder().amount(case.request.amount() + k as u128).build()?;
            let t0 = Instant::now();
            let q = router.quote(&graph, &req, QuoteOptions::default())?;
            times.push(t0.elapsed().as_secs_f64() * 1e6);
            routes = q.routes.len();
            via = case.uses_pool(&q);
            record(case.name, k, &q);
        }
        times.sort_by(f64::total_cmp);
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        println!(
            "{:<34} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}  {routes:>6} {via}",
            case.name,
            pct(&times, 0.5),
            pct(&times, 0.9),
            pct(&times, 0.99),
            times[times.len() - 1],
            mean
        );
    }
    if let Some(path) = &answers_path {
        std::fs::write(path, &answers)?;
    }
    Ok(())
}
