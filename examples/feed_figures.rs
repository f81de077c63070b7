//! Figures of the reserve stream (BENCHMARKS.md, "Reserve stream"). Needs `nats-server` (Debian package) for
//! `latency` and `apply`: the example starts `nats-server -js` itself on a free loopback port with a temporary
//! store, as the tests do (`tests/it/common/nats.rs`).
//!
//! ```sh
//! cargo run --release --all-features --example feed_figures -- latency [--changes 1000] [--snapshot FILE]
//! cargo run --release --all-features --example feed_figures -- apply [--seconds 5] [--snapshot FILE]
//! cargo run --release --all-features --example feed_figures -- rebuild --snapshot FILE [--runs 5]
//! ```
//!
//! - `latency`: the bucket is bootstrapped from the snapshot (default: the bundled one) and a replica (the
//!   library's `Replica` on a `LiveGraph`, what `serve --nats` runs) follows it. Then `--changes` times: one
//!   reserves-only write of the pool the quote's first route goes through, by a plain async-nats client, and
//!   the time from just before the write until a quote on the replica returns the output a graph holding
//!   those reserves gives (computed beforehand on a reference graph). Also the time until the reserves alone
//!   are visible, and the quote's own duration for scale.
//! - `apply`: quotes run on one thread for `--seconds` without updates, then for `--seconds` while a publisher
//!   writes reserve changes of every non-concentrated pool as fast as it can (pipelined); prints the rate the
//!   replica applied, whether it kept up, and the quote latency in both phases (the ratio is what updates
//!   cost quotes). Then the applier alone (decode + apply, no NATS) as the replica's own ceiling.
//! - `rebuild`: what a topology change (a new pool) costs a replica at that graph size: `PoolGraph::rebuilt`
//!   (median of `--runs`) against loading the same snapshot from JSON.
//!
//! Memory: each mode prints the process's resident memory after loading the graph and after the replica
//! bootstrapped (Linux `/proc/self/status`).

#[path = "../tests/it/common/nats.rs"]
mod nats;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tonroute::asset::Asset;
use tonroute::feed::value::PoolChange;
use tonroute::feed::{Applier, FeedStats, Publisher, Replica, ReplicaConfig, Stamp, StreamState, DEFAULT_BUCKET};
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::{LiveGraph, PoolGraph, PoolSpec, TopologyChange};
use tonroute::pool::Curve;
use tonroute::route::{QuoteOptions, QuoteRequest, Router};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn flag(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned()
}

/// Resident memory of this process, KiB (Linux `/proc`).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_string))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        .unwrap_or(0)
}

fn pct(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn summary(name: &str, mut v: Vec<Duration>, scale: fn(Duration) -> f64, unit: &str) {
    v.sort();
    println!(
        "  {name:<38} p50 {:>9.3} {unit}  p90 {:>9.3} {unit}  p99 {:>9.3} {unit}  max {:>9.3} {unit}  (n = {})",
        scale(pct(&v, 0.50)),
        scale(pct(&v, 0.90)),
        scale(pct(&v, 0.99)),
        scale(v[v.len() - 1]),
        v.len()
    );
}

fn snapshot_path(args: &[String]) -> String {
    flag(args, "--snapshot").unwrap_or_else(|| format!("{}/data/snapshot.json", env!("CARGO_MANIFEST_DIR")))
}

/// Quotes from TON to the assets with the most pools and back, at 1e-4 and 1e-2 of TON's deepest pool: a
/// mix of short and split routes on whatever snapshot is loaded.
fn request_mix(graph: &PoolGraph) -> Vec<QuoteRequest> {
    let Some(native) = graph.native() else { return Vec::new() };
    let mut by_degree: Vec<_> = (0..graph.asset_count())
        .map(|i| graph.assets()[i].asset)
        .filter_map(|a| graph.asset_id(&a).map(|id| (graph.edges(id).len(), a, id)))
        .filter(|(_, _, id)| *id != native)
        .collect();
    by_degree.sort_by_key(|b| std::cmp::Reverse(b.0));
    let depth = graph
        .edges(native)
        .iter()
        .map(|e| graph.reserves(e.pool)[e.direction.in_index()])
        .max()
        .unwrap_or(1_000_000_000_000);
    let mut out = Vec::new();
    for (_, asset, _) in by_degree.into_iter().take(4) {
        for amount in [depth / 10_000, depth / 100] {
            out.extend(QuoteRequest::new(Asset::Native, asset, amount.max(1)).ok());
        }
        out.extend(QuoteRequest::new(asset, Asset::Native, 1_000_000_000).ok());
    }
    out
}

struct Setup {
    server: nats::NatsServer,
    snapshot: Snapshot,
    live: Arc<LiveGraph>,
    replica: Replica,
    rt: tokio::runtime::Runtime,
}

/// A NATS server, the bucket bootstrapped from the snapshot, a replica following it (live).
fn setup(args: &[String]) -> Res<Setup> {
    let rss0 = rss_kib();
    let text = std::fs::read_to_string(snapshot_path(args))?;
    let snapshot = Snapshot::from_json(&text)?;
    let live = Arc::new(LiveGraph::from(Snapshot::from_json(&text)?.into_graph()?));
    drop(text);
    let rss_graph = rss_kib();
    let server = nats::NatsServer::start("figures");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let url = server.url();
    let started = Instant::now();
    let published = rt.block_on(async {
        let publisher = Publisher::connect(&url, DEFAULT_BUCKET).await?;
        publisher.publish_snapshot(&snapshot, Stamp::default()).await
    })?;
    let publish_took = started.elapsed();
    let replica = rt.block_on(async { Replica::spawn(Arc::clone(&live), ReplicaConfig::new(&url)) })?;
    let started = Instant::now();
    while replica.stats().state() != StreamState::Live {
        if started.elapsed() > Duration::from_secs(60) {
            return Err("the replica did not bootstrap within 60 s".into());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let bootstrap = started.elapsed();
    let g = live.load();
    println!(
        "{} pools, {} assets; publish (bootstrap of the bucket) {:.0} ms = {:.0} pools/s; replica bootstrap {:.0} ms",
        g.pool_count(),
        g.asset_count(),
        ms(publish_took),
        published.written as f64 / publish_took.as_secs_f64(),
        ms(bootstrap)
    );
    println!(
        "resident memory: {} MiB at start, +{} MiB with the graph, +{} MiB more with the replica following (process {} MiB)",
        rss0 / 1024,
        rss_graph.saturating_sub(rss0) / 1024,
        rss_kib().saturating_sub(rss_graph) / 1024,
        rss_kib() / 1024
    );
    Ok(Setup { server, snapshot, live, replica, rt })
}

fn latency(args: &[String]) -> Res<()> {
    let changes: usize = flag(args, "--changes").map_or(Ok(1_000), |v| v.parse())?;
    let s = setup(args)?;
    let router = Router::default();
    // The request and the pool to change: the first request of the mix whose quote goes through a pool whose
    // curve takes plain reserves (on the bundled data the first TON pair may route through concentrated pools
    // only), and that pool.
    let graph = s.live.load();
    let (request, pool, step_pool) = request_mix(&graph)
        .into_iter()
        .find_map(|request| {
            let quote = router.quote(&graph, &request, QuoteOptions::default()).ok()?;
            let step = quote
                .routes
                .iter()
                .flat_map(|r| r.steps.iter())
                .find(|st| !matches!(graph.pool(st.pool).curve, Curve::Concentrated(_)))?;
            let (address, id) = (step.pool_address.clone(), step.pool);
            Some((request, address, id))
        })
        .ok_or("no request of the mix goes through a pool with plain reserves")?;
    drop(graph);
    let base = s.live.load().reserves(step_pool);
    let reference = s.snapshot.into_graph()?;
    let key = tonroute::feed::value::pool_key(&pool)?;
    let kv = s.rt.block_on(async {
        let client = async_nats::connect(s.server.url()).await?;
        Ok::<_, Box<dyn std::error::Error>>(async_nats::jetstream::new(client).get_key_value(DEFAULT_BUCKET).await?)
    })?;
    println!(
        "{changes} reserves-only writes to pool {} (first hop of {} → {}), each checked by quoting on the replica",
        pool.to_hex(),
        request.in_asset(),
        request.out_asset()
    );
    let (mut to_quote, mut to_reserves, mut quote_times) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..changes {
        // Each change moves the input-side reserve by a different 0.01 %–0.2 %, so consecutive quotes differ.
        let step_bp = (i % 20) as u128 + 1;
        let reserves = [base[0] + base[0] / 10_000 * step_bp, base[1]];
        reference.update_reserves_by_address(&pool, reserves)?;
        let expected = router.quote(&reference, &request, QuoteOptions::default())?.out_amount;
        let value = format!(r#"{{"reserves": ["{}", "{}"]}}"#, reserves[0], reserves[1]);
        let written = Instant::now();
        s.rt.block_on(kv.put(&key, value.into_bytes().into()))?;
        let mut seen_reserves = None;
        loop {
            let g = s.live.load();
            if seen_reserves.is_none() && g.pool_id(&pool).map(|id| g.reserves(id)) == Some(reserves) {
                seen_reserves = Some(written.elapsed());
            }
            let t = Instant::now();
            let out = router.quote(&g, &request, QuoteOptions::default())?.out_amount;
            quote_times.push(t.elapsed());
            if out == expected {
                to_quote.push(written.elapsed());
                to_reserves.push(seen_reserves.unwrap_or_else(|| written.elapsed()));
                break;
            }
            if written.elapsed() > Duration::from_secs(10) {
                return Err(format!("change {i} not seen within 10 s").into());
            }
        }
    }
    summary("write → reserves visible", to_reserves, ms, "ms");
    summary("write → changed quote (incl. the quote)", to_quote, ms, "ms");
    summary("one quote (for scale)", quote_times, us, "µs");
    let r = s.replica.stats().report(0);
    println!("  replica: {} reserves applied, {} skipped", r.applied.reserves, r.skipped_total);
    s.rt.block_on(s.replica.stop());
    Ok(())
}

/// Quotes the mix round-robin on this thread until `stop`, timing each.
fn quote_loop(live: &LiveGraph, mix: &[QuoteRequest], stop: &AtomicBool) -> Vec<Duration> {
    let router = Router::default();
    let mut times = Vec::new();
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        let g = live.load();
        let t = Instant::now();
        // A refused quote (no route after a reserve change) is timed like any other.
        let _ = router.quote(&g, &mix[i % mix.len()], QuoteOptions::default());
        times.push(t.elapsed());
        i += 1;
    }
    times
}

fn apply(args: &[String]) -> Res<()> {
    let seconds: u64 = flag(args, "--seconds").map_or(Ok(5), |v| v.parse())?;
    let s = setup(args)?;
    let mix = request_mix(&s.live.load());
    if mix.is_empty() {
        return Err("no TON pairs in the snapshot".into());
    }
    let phase = Duration::from_secs(seconds);
    // Phase 1: quotes alone.
    let stop = AtomicBool::new(false);
    let idle = std::thread::scope(|scope| {
        let h = scope.spawn(|| quote_loop(&s.live, &mix, &stop));
        std::thread::sleep(phase);
        stop.store(true, Ordering::Relaxed);
        h.join()
    })
    .map_err(|_| "quote thread panicked")?;
    // Phase 2: quotes while a publisher writes every plain pool's reserves, over and over.
    let g = s.live.load();
    let plain: Vec<_> = (0..g.pool_count())
        .map(|i| &g.pools()[i])
        .filter(|p| !matches!(p.curve, Curve::Concentrated(_)))
        .map(|p| (p.address.clone(), g.reserves(g.pool_id(&p.address).expect("listed pool"))))
        .collect();
    let applied_before = s.replica.stats().report(0).applied.reserves;
    let publisher = s.rt.block_on(Publisher::connect(&s.server.url(), DEFAULT_BUCKET))?;
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let (busy, written) = std::thread::scope(|scope| {
        let h = scope.spawn(|| quote_loop(&s.live, &mix, &stop));
        let mut written = 0usize;
        let mut round = 0u128;
        while started.elapsed() < phase {
            round += 1;
            let batch: Vec<PoolChange> = plain
                .iter()
                .map(|(pool, r)| PoolChange::Reserves {
                    pool: pool.clone(),
                    reserves: [r[0] + r[0] / 100_000 * (round % 50 + 1), r[1]],
                    stamp: Stamp::default(),
                })
                .collect();
            match s.rt.block_on(publisher.publish_changes(&batch)) {
                Ok(report) => written += report.written,
                Err(e) => eprintln!("publish: {e}"),
            }
        }
        let wrote_for = started.elapsed();
        // Let the replica drain what is in flight (bounded), then stop quoting.
        let drain = Instant::now();
        let target = applied_before + written as u64;
        while s.replica.stats().report(0).applied.reserves < target && drain.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(1));
        }
        stop.store(true, Ordering::Relaxed);
        (h.join(), (written, wrote_for, drain.elapsed()))
    });
    let busy = busy.map_err(|_| "quote thread panicked")?;
    let (written, wrote_for, drained) = written;
    let applied = s.replica.stats().report(0).applied.reserves - applied_before;
    let total = wrote_for + drained;
    println!(
        "{} plain pools rewritten for {seconds} s: {written} writes acknowledged ({:.0}/s), replica applied {applied} ({:.0}/s over the {:.2} s until it had them all; {:.0} ms behind at the end)",
        plain.len(),
        written as f64 / wrote_for.as_secs_f64(),
        applied as f64 / total.as_secs_f64(),
        total.as_secs_f64(),
        ms(drained)
    );
    let (idle_n, busy_n) = (idle.len(), busy.len());
    let p = |v: &mut Vec<Duration>, q| {
        v.sort();
        pct(v, q)
    };
    let (mut idle, mut busy) = (idle, busy);
    let (i50, i99, b50, b99) = (p(&mut idle, 0.5), p(&mut idle, 0.99), p(&mut busy, 0.5), p(&mut busy, 0.99));
    println!("  quotes without updates: {idle_n} in {seconds} s, p50 {:.1} µs, p99 {:.1} µs", us(i50), us(i99));
    println!(
        "  quotes during updates:  {busy_n} in {:.1} s, p50 {:.1} µs ({:.2}×), p99 {:.1} µs ({:.2}×)",
        total.as_secs_f64(),
        us(b50),
        b50.as_secs_f64() / i50.as_secs_f64(),
        us(b99),
        b99.as_secs_f64() / i99.as_secs_f64()
    );
    s.rt.block_on(s.replica.stop());
    drop(s.server);

    // The applier alone: decode + apply reserves-only values into the graph, no NATS.
    let graph = s.snapshot.into_graph()?;
    let mut applier = Applier::new(Arc::new(LiveGraph::from(graph)), Arc::new(FeedStats::new(0)));
    let values: Vec<(String, Vec<u8>)> = plain
        .iter()
        .map(|(pool, r)| {
            let key = tonroute::feed::value::pool_key(pool).expect("workchain-0 pools");
            (key, format!(r#"{{"reserves": ["{}", "{}"], "seqno": 1}}"#, r[0] + 1, r[1]).into_bytes())
        })
        .collect();
    let n = 200_000usize;
    let t = Instant::now();
    for i in 0..n {
        let (key, value) = &values[i % values.len()];
        applier.apply(key, Some(value))?;
    }
    let took = t.elapsed();
    println!(
        "  applier alone (decode + apply, one thread): {n} values in {:.0} ms = {:.2} M values/s ({:.2} µs each)",
        ms(took),
        n as f64 / took.as_secs_f64() / 1e6,
        us(took) / n as f64
    );
    Ok(())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn rebuild(args: &[String]) -> Res<()> {
    let runs: usize = flag(args, "--runs").map_or(Ok(5), |r| r.parse())?;
    let text = std::fs::read_to_string(snapshot_path(args))?;
    let before = rss_kib();
    let started = Instant::now();
    let snapshot = Snapshot::from_json(&text)?;
    let graph = snapshot.clone().into_graph()?;
    let load = started.elapsed();
    let graph_kib = rss_kib().saturating_sub(before);
    drop(text);
    // A new pool between two existing assets, as a stream's full entry would bring.
    let mut new =
        snapshot.pools.iter().find(|p| p.curve == "constant_product").ok_or("no constant-product pool")?.clone();
    new.address = "0:f00df00df00df00df00df00df00df00df00df00df00df00df00df00df00df00d".into();
    let spec: PoolSpec = new.to_spec()?;
    let change = TopologyChange { upserts: vec![spec], ..TopologyChange::default() };
    let mut times = Vec::with_capacity(runs);
    let mut built: Option<PoolGraph> = None;
    for _ in 0..runs {
        let t = Instant::now();
        let g = graph.rebuilt(&change)?;
        times.push(t.elapsed());
        built = Some(g);
    }
    let built = built.ok_or("no run")?;
    if built.pool_count() != graph.pool_count() + 1 {
        return Err("the rebuilt graph does not have the new pool".into());
    }
    let rebuild = median(times);
    println!(
        "{} pools, {} assets: load from JSON {:.1} ms, rebuild with one new pool {:.1} ms (median of {runs}, {:.2}× the load), graph + snapshot ≈ {} MiB resident",
        graph.pool_count(),
        graph.asset_count(),
        ms(load),
        ms(rebuild),
        rebuild.as_secs_f64() / load.as_secs_f64(),
        graph_kib / 1024
    );
    Ok(())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("latency") => latency(&args[1..]),
        Some("apply") => apply(&args[1..]),
        Some("rebuild") => rebuild(&args[1..]),
        _ => Err("usage: feed_figures latency|apply|rebuild [--snapshot FILE] (see the file's comment)".into()),
    }
}
