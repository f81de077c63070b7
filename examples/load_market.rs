//! Bounded load run of the market-data routes on loopback: `GET /coins` and `GET /chart`.
//!
//! ```sh
//! cargo run --release --all-features --example load_market -- --requests 4000 --concurrency 8
//! ```
//!
//! Starts `tonroute serve` in-process on `127.0.0.1:0` with the bundled snapshot and `data/market.json`,
//! then, per route, sends a fixed number of requests from `--concurrency` clients with a deterministic mix of
//! parameters (sorts, filters, pages; chart periods and assets), and prints requests/s, latency percentiles
//! and status counts. Loopback only.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use tonroute::api::Api;
use tonroute::graph::PoolGraph;
use tonroute::market::{MarketData, MarketView};
use tonroute::server::{serve, ServerConfig};

#[derive(Parser, Debug)]
struct Args {
    /// Snapshot file.
    #[arg(long, default_value = "data/snapshot.json")]
    snapshot: String,
    /// Market-data file generated on that snapshot.
    #[arg(long, default_value = "data/market.json")]
    market: String,
    /// Requests per route.
    #[arg(long, default_value_t = 4000)]
    requests: usize,
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
}

fn coins_paths(n: usize) -> Vec<String> {
    let sorts = [
        "",
        "sort_by=volume&sort_period=24h",
        "sort_by=price_change&sort_period=1h&sort_direction=asc",
        "sort_by=market_cap",
        "sort_by=holders&filter_by_verification_level=1,2,3,4",
        "query=jt&include_without_price=true",
        "filter_period=24h&volume_usd_min=100&limit=100",
        "filter_by_tags=memecoin&memecoin_extra_details=true&filter_by_verification_level=1,2,3,4&include_without_price=true",
        "limit=500&filter_by_verification_level=1,2,3,4&include_without_price=true&compact=true",
        "calculate_total_volume=true&limit=50&offset=10",
    ];
    (0..n).map(|i| format!("/coins?{}", sorts[i % sorts.len()])).collect()
}

fn chart_paths(n: usize, assets: &[String]) -> Vec<String> {
    let periods = ["1m", "5m", "15m", "1h", "4h", "1d", "1s", "30m", "6h", "12h", "7d"];
    (0..n)
        .map(|i| {
            let a = &assets[i % assets.len()];
            let p = periods[(i / assets.len()) % periods.len()];
            let opp = if i % 3 == 0 && a != "native" { "&opposite_asset=native" } else { "" };
            format!("/chart?asset={a}&period={p}{opp}")
        })
        .collect()
}

async fn run(base: &str, paths: Vec<String>, concurrency: usize) -> (Duration, Vec<Duration>, BTreeMap<u16, usize>) {
    let paths = Arc::new(paths);
    let next = Arc::new(AtomicUsize::new(0));
    let client = reqwest::Client::new();
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency.max(1) {
        let (paths, next, client, base) = (paths.clone(), next.clone(), client.clone(), base.to_string());
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = paths.get(i) else { break };
                let t = Instant::now();
                let status = match client.get(format!("{base}{path}")).send().await {
                    Ok(r) => {
                        let s = r.status().as_u16();
                        let _ = r.bytes().await;
                        s
                    }
                    Err(_) => 0,
                };
                out.push((t.elapsed(), status));
            }
            out
        }));
    }
    let mut lat = Vec::new();
    let mut statuses = BTreeMap::new();
    for t in tasks {
        for (d, s) in t.await.unwrap_or_default() {
            lat.push(d);
            *statuses.entry(s).or_insert(0) += 1;
        }
    }
    lat.sort();
    (start.elapsed(), lat, statuses)
}

fn pct(lat: &[Duration], p: f64) -> f64 {
    if lat.is_empty() {
        return 0.0;
    }
    let i = ((lat.len() - 1) as f64 * p).round() as usize;
    lat[i].as_secs_f64() * 1000.0
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let text = std::fs::read_to_string(&args.snapshot)?;
    let data = Arc::new(MarketData::from_json(PoolGraph::from_json(&text)?, &std::fs::read_to_string(&args.market)?)?);
    let view = Arc::new(MarketView::new(data.clone(), data.as_of));
    // Chart assets: the coins with trades.
    let assets: Vec<String> = data
        .coins
        .iter()
        .enumerate()
        .filter(|(i, _)| view.coin_stats(*i).usd.is_some())
        .map(|(_, c)| c.asset.to_string())
        .collect();
    let api = Api::new(Arc::new(PoolGraph::from_json(&text)?)).with_market(view);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, api, ServerConfig::default(), async move {
        let _ = rx.await;
    }));
    for (name, paths) in [("/coins", coins_paths(args.requests)), ("/chart", chart_paths(args.requests, &assets))] {
        let (elapsed, lat, statuses) = run(&base, paths, args.concurrency).await;
        println!(
            "{name}: {} requests in {:.2} s = {:.0} req/s; latency ms p50 {:.2} p90 {:.2} p99 {:.2} max {:.2}; statuses {:?}",
            lat.len(),
            elapsed.as_secs_f64(),
            lat.len() as f64 / elapsed.as_secs_f64(),
            pct(&lat, 0.5),
            pct(&lat, 0.9),
            pct(&lat, 0.99),
            pct(&lat, 1.0),
            statuses
        );
    }
    let _ = tx.send(());
    Ok(())
}
