//! Bounded load generator for `tonroute serve`, loopback only.
//!
//! ```sh
//! cargo run --release --all-features --example load -- --snapshot data/snapshot.json --requests 5000 --concurrency 8
//! cargo run --release --all-features --example load -- --mix heavy --concurrency 128 --requests 3000
//! cargo run --release --all-features --example load -- --addr 127.0.0.1:8080 --snapshot data/snapshot.json
//! ```
//!
//! Without `--addr` it starts the server in-process on `127.0.0.1:0`. It sends a fixed number of
//! `POST /v4/router/quote` requests (stopping early at `--max-secs`) from `--concurrency` clients, with a
//! deterministic mix of pairs (TON against the snapshot's jettons, both ways, and jetton to jetton) and
//! amounts, then prints requests/s, latency percentiles and the status counts. Refuses non-loopback targets.
//!
//! `--mix heavy` is the overload case: whale quotes (5 % to 50 % of the deepest pool's input reserve) between
//! TON, USD₮ and NOT with `max_splits` 20 and `max_length` 4, a quarter of them exact-out. Goodput is the
//! rate of 200 answers; the in-process server's `--routing-slots` and `--queue` set its shedding.

#[path = "../benches/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use tonroute::api::Api;
use tonroute::graph::PoolGraph;
use tonroute::server::{serve, ServerConfig};

#[derive(Parser, Debug)]
struct Args {
    /// Snapshot: what the in-process server serves, and where the request mix takes its assets from.
    #[arg(long, default_value = "data/snapshot.json")]
    snapshot: String,
    /// Target an already running server (loopback address only) instead of starting one.
    #[arg(long)]
    addr: Option<SocketAddr>,
    /// Total requests.
    #[arg(long, default_value_t = 2000)]
    requests: usize,
    /// Concurrent clients.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
    /// Stop after this many seconds even if requests remain.
    #[arg(long, default_value_t = 60)]
    max_secs: u64,
    /// Routing budget of the in-process server, ms.
    #[arg(long, default_value_t = 2000)]
    budget_ms: u64,
    /// Request mix: `default` (the load mix) or `heavy` (whales with wide limits).
    #[arg(long, default_value = "default")]
    mix: String,
    /// In-process server: routing computations at once (default: one per core).
    #[arg(long)]
    routing_slots: Option<usize>,
    /// In-process server: requests that may wait for a slot (default: 64 per slot).
    #[arg(long)]
    queue: Option<usize>,
    /// First time the same bodies through the library on this thread, stage by stage (parse, route, wire
    /// conversion, JSON text): the baseline the server's 1-client latency is compared with.
    #[arg(long)]
    library: bool,
}

/// p50 per stage of the library path over `bodies` (each body once after a warm-up pass), microseconds:
/// parse, route, convert, serialise, and the whole of it.
fn library_stages(graph: &PoolGraph, bodies: &[String]) -> [f64; 5] {
    use tonroute::api::{convert, parse};
    let router = tonroute::route::Router::default();
    let mut stages: [Vec<f64>; 5] = Default::default();
    for pass in 0..2 {
        for body in bodies {
            // Refusals (no route, …) included, as the server answers them too.
            let t0 = Instant::now();
            let request = parse::parse_quote_request(body.as_bytes());
            let t1 = Instant::now();
            let quote = request.as_ref().ok().map(|r| router.quote(graph, r));
            let t2 = Instant::now();
            let response = match &quote {
                Some(Ok(q)) => Some(convert::quote_response(graph, q)),
                _ => None,
            };
            let t3 = Instant::now();
            let text = match (&response, quote) {
                (Some(r), _) => serde_json::to_string(r).unwrap_or_default(),
                (None, Some(Err(e))) => tonroute::api::ApiError::from(e).to_json(),
                (None, _) => String::new(),
            };
            let t4 = Instant::now();
            std::hint::black_box(text);
            if pass == 1 {
                for (i, d) in [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0].into_iter().enumerate() {
                    stages[i].push(d.as_secs_f64() * 1e6);
                }
            }
        }
    }
    stages.map(|mut v| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    })
}

/// The overload mix: whales between the three majors with wide limits, a quarter exact-out.
fn heavy_bodies(graph: &PoolGraph, n: usize) -> Vec<String> {
    use tonroute::asset::known::{NOT, USDT};
    let majors: Vec<tonroute::asset::Asset> =
        [Some(tonroute::asset::Asset::Native), USDT.parse().ok(), NOT.parse().ok()].into_iter().flatten().collect();
    let depth = |a: &tonroute::asset::Asset, b: &tonroute::asset::Asset| -> u128 {
        let (Some(x), Some(y)) = (graph.asset_id(a), graph.asset_id(b)) else { return 0 };
        graph
            .edges(x)
            .iter()
            .filter(|e| e.to == y)
            .map(|e| graph.reserves(e.pool)[e.direction.in_index()])
            .max()
            .unwrap_or(0)
    };
    let mut pairs = Vec::new();
    for a in &majors {
        for b in &majors {
            let d = depth(a, b);
            if a != b && d > 0 {
                pairs.push((*a, *b, d));
            }
        }
    }
    (0..n)
        .filter_map(|i| {
            let (a, b, d) = pairs.get(i % pairs.len().max(1))?;
            let share = [5u128, 10, 20, 50][(i / pairs.len().max(1)) % 4];
            if i % 4 == 3 {
                // Exact-out: half the share of the output side's depth.
                let out = depth(b, a) * share / 200;
                Some(format!(
                    r#"{{"in_minter": "{a}", "out_minter": "{b}", "amount": "{}", "swap_mode": "exact_out", "max_splits": 20, "max_length": 4}}"#,
                    out.max(1)
                ))
            } else {
                Some(format!(
                    r#"{{"in_minter": "{a}", "out_minter": "{b}", "amount": "{}", "max_splits": 20, "max_length": 4}}"#,
                    (d * share / 100).max(1)
                ))
            }
        })
        .collect()
}

/// The deterministic request mix of [`common::load_mix`], as `/v4/router/quote` bodies.
fn bodies(graph: &PoolGraph, n: usize) -> Vec<String> {
    common::load_mix(graph, n)
        .into_iter()
        .map(|(a, b, amount)| format!(r#"{{"in_minter": "{a}", "out_minter": "{b}", "amount": "{amount}"}}"#))
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() - 1) as f64 * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let text = std::fs::read_to_string(&args.snapshot)?;
    let graph = Arc::new(PoolGraph::from_json(&text)?);
    let bodies = Arc::new(match args.mix.as_str() {
        "heavy" => heavy_bodies(&graph, args.requests),
        _ => bodies(&graph, args.requests),
    });

    if args.library {
        let [parse, route, convert, json, total] = library_stages(&graph, &bodies);
        println!(
            "library, one thread, the same bodies (p50 µs, refusals included): parse {parse:.1}, route {route:.1}, convert {convert:.1}, \
             json {json:.1}; whole {total:.1}"
        );
    }
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let target = match args.addr {
        Some(addr) if addr.ip().is_loopback() => addr,
        Some(addr) => return Err(format!("refusing non-loopback target {addr}").into()),
        None => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
            let addr = listener.local_addr()?;
            let mut config =
                ServerConfig { routing_budget: Duration::from_millis(args.budget_ms), ..ServerConfig::default() };
            if let Some(slots) = args.routing_slots {
                config.shed.slots = slots;
                config.shed.queue = 64 * slots;
            }
            if let Some(queue) = args.queue {
                config.shed.queue = queue;
            }
            tokio::spawn(serve(listener, Api::new(graph.clone()), config, async move {
                let _ = stop_rx.await;
            }));
            addr
        }
    };
    let url = format!("http://{target}/v4/router/quote");
    println!(
        "snapshot {} ({} assets, {} pools); {} requests, {} clients → {url}",
        args.snapshot,
        graph.asset_count(),
        graph.pool_count(),
        args.requests,
        args.concurrency
    );

    let client = reqwest::Client::new();
    let next = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + Duration::from_secs(args.max_secs);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..args.concurrency.max(1) {
        let (client, url, bodies, next) = (client.clone(), url.clone(), bodies.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= bodies.len() || Instant::now() > deadline {
                    break;
                }
                let t = Instant::now();
                let status = match client.post(&url).body(bodies[i].clone()).send().await {
                    Ok(r) => {
                        let s = r.status().as_u16();
                        let _ = r.bytes().await;
                        s
                    }
                    Err(_) => 0,
                };
                lat.push(t.elapsed());
                *statuses.entry(status).or_default() += 1;
            }
            (lat, statuses)
        }));
    }
    let mut lat = Vec::new();
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    for t in tasks {
        let (l, s) = t.await?;
        lat.extend(l);
        for (k, v) in s {
            *statuses.entry(k).or_default() += v;
        }
    }
    let elapsed = started.elapsed();
    lat.sort();
    let _ = stop_tx.send(());
    println!(
        "{} requests in {:.2} s: {:.0} req/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        lat.len(),
        elapsed.as_secs_f64(),
        lat.len() as f64 / elapsed.as_secs_f64(),
        percentile(&lat, 0.50).as_secs_f64() * 1e3,
        percentile(&lat, 0.90).as_secs_f64() * 1e3,
        percentile(&lat, 0.99).as_secs_f64() * 1e3,
        lat.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
    );
    println!("statuses (0 = transport error): {statuses:?}");
    let ok = statuses.get(&200).copied().unwrap_or(0);
    println!("goodput: {:.0} answered (200) per second", ok as f64 / elapsed.as_secs_f64());
    Ok(())
}
