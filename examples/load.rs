//! Bounded load generator for `tonroute serve`, loopback only.
//!
//! ```sh
//! cargo run --release --all-features --example load -- --snapshot data/snapshot.json --requests 5000 --concurrency 8
//! cargo run --release --all-features --example load -- --library --concurrency 1,8,32,128 --requests 20000
//! cargo run --release --all-features --example load -- --mix heavy --concurrency 128 --requests 3000
//! cargo run --release --all-features --example load -- --addr 127.0.0.1:8080 --server-pid 1234 --concurrency 1,32
//! ```
//!
//! Without `--addr` it starts the server in-process on `127.0.0.1:0` (sharing this process's runtime and
//! CPU accounting; for figures, run `tonroute serve` apart and give `--addr` and `--server-pid`). At each
//! concurrency of the `--concurrency` list it sends `--requests` `POST /v4/router/quote` requests (stopping
//! early at `--max-secs`) from that many clients, each on its own keep-alive connection, with a
//! deterministic mix of pairs (TON against the snapshot's jettons, both ways, and jetton to jetton) and
//! amounts, then prints requests/s, latency percentiles, the status counts, the CPU time the client (and,
//! with `--server-pid`, the server) used per request, and the load average. Refuses non-loopback targets.
//!
//! The client is a minimal HTTP/1.1 keep-alive client over a `TcpStream` (`--client raw`, the default: it
//! costs the shared cores a fraction of a general client) or `reqwest` (`--client reqwest`).
//!
//! `--library` first times the same bodies through the library on this thread, stage by stage (parse,
//! route, wire conversion, JSON text): the baseline the server's 1-client p50 is compared with.
//!
//! `--get PATH` sends `GET PATH` instead of quotes (the market routes, e.g. `/chart?asset=native&period=1s&limit=5000`).
//! `--health-every-ms N` probes `GET /health` on a fresh connection every N ms during each round, from a thread
//! of its own, and prints its p50 / p99 / max and failures (the server's responsiveness under that load).
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
    /// Requests at each concurrency.
    #[arg(long, default_value_t = 2000)]
    requests: usize,
    /// Concurrent clients; a comma list (`1,8,32,128`) runs one round per entry, in order.
    #[arg(long, value_delimiter = ',', default_value = "8")]
    concurrency: Vec<usize>,
    /// The HTTP client: `raw` (minimal HTTP/1.1 keep-alive) or `reqwest`.
    #[arg(long, default_value = "raw")]
    client: String,
    /// The pid of the server behind `--addr`: its CPU time per request is reported too (Linux `/proc`).
    #[arg(long)]
    server_pid: Option<u32>,
    /// Stop a round after this many seconds even if requests remain.
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
    /// With `--library`: also print the N bodies that took the library longest (what carries the mean).
    #[arg(long, default_value_t = 0)]
    slowest: usize,
    /// Send `GET PATH` instead of quote requests (a market route).
    #[arg(long, value_name = "PATH")]
    get: Option<String>,
    /// Probe `GET /health` every N ms during each round (0: no probe).
    #[arg(long, default_value_t = 0)]
    health_every_ms: u64,
    /// Client threads against `--addr`: 1 (the default) runs every client on one thread; any other value
    /// uses the multi-threaded runtime with one worker per core (as the in-process mode always does).
    #[arg(long, default_value_t = 1)]
    client_threads: usize,
}

/// p50 per stage of the library path over `bodies` (each body once after a warm-up pass), microseconds:
/// parse, route, convert, serialise, the whole of it; then the mean and p99 of the whole (the mean bounds
/// the throughput: CPU per request).
fn library_stages(graph: &PoolGraph, bodies: &[String], slowest: usize) -> [f64; 7] {
    use tonroute::api::{convert, parse};
    let router = tonroute::route::Router::default();
    let mut stages: [Vec<f64>; 5] = Default::default();
    for pass in 0..2 {
        for body in bodies {
            // Refusals (no route, …) included, as the server answers them too.
            let t0 = Instant::now();
            let request = parse::parse_quote_request(body.as_bytes());
            let t1 = Instant::now();
            let quote = request.as_ref().ok().map(|r| router.quote(graph, r, tonroute::route::QuoteOptions::default()));
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
    let whole = stages[4].clone();
    if slowest > 0 {
        let mut by_time: Vec<(f64, &String)> = whole.iter().copied().zip(bodies).collect();
        by_time.sort_by(|a, b| b.0.total_cmp(&a.0));
        let total: f64 = whole.iter().sum();
        for (us, body) in by_time.iter().take(slowest) {
            println!("slow {us:9.1} µs ({:4.1} % of the total) {body}", 100.0 * us / total.max(1e-9));
        }
    }
    let [a, b, c, d, e] = stages.map(|mut v| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    });
    let mut sorted = whole;
    sorted.sort_by(f64::total_cmp);
    let mean = sorted.iter().sum::<f64>() / sorted.len().max(1) as f64;
    let p99 = sorted.get((sorted.len().saturating_sub(1)) * 99 / 100).copied().unwrap_or(0.0);
    [a, b, c, d, e, mean, p99]
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

/// CPU seconds (user + system) a process has used, from `/proc/<pid>/stat` (`self` for this one); `None`
/// off Linux.
fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces, hence the last ')'): utime and stime are the
    // 14th and 15th fields of the line, the 12th and 13th after it.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    // USER_HZ is 100 on every Linux configuration a process can observe (the kernel scales to it).
    Some(ticks / 100.0)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// A minimal HTTP/1.1 keep-alive client for one connection: writes a prepared request, reads the status
/// line, the headers and a `Content-Length` body. Anything else (chunked bodies, `Connection: close`, a
/// broken socket) ends the connection; the next request opens a new one.
struct RawConn {
    addr: SocketAddr,
    stream: Option<tokio::net::TcpStream>,
    buf: Vec<u8>,
}

impl RawConn {
    fn new(addr: SocketAddr) -> RawConn {
        RawConn { addr, stream: None, buf: Vec::with_capacity(16 * 1024) }
    }

    async fn send(&mut self, request: &[u8]) -> std::io::Result<u16> {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        if self.stream.is_none() {
            let s = tokio::net::TcpStream::connect(self.addr).await?;
            s.set_nodelay(true)?;
            self.stream = Some(s);
        }
        let result = async {
            let stream = self.stream.as_mut().ok_or(std::io::ErrorKind::NotConnected)?;
            stream.write_all(request).await?;
            self.buf.clear();
            let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_owned());
            let (head_end, status, length, close) = loop {
                let mut chunk = [0u8; 8192];
                let n = stream.read(&mut chunk).await?;
                if n == 0 {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                self.buf.extend_from_slice(&chunk[..n]);
                let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                let head = std::str::from_utf8(&self.buf[..end]).map_err(|_| bad("head is not UTF-8"))?;
                let mut lines = head.split("\r\n");
                let status: u16 = lines
                    .next()
                    .and_then(|l| l.split(' ').nth(1))
                    .and_then(|c| c.parse().ok())
                    .ok_or_else(|| bad("no status line"))?;
                let (mut length, mut close) = (None, false);
                for line in lines {
                    let Some((name, value)) = line.split_once(':') else { continue };
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse::<usize>().ok();
                    } else if name.eq_ignore_ascii_case("connection") {
                        close = value.trim().eq_ignore_ascii_case("close");
                    }
                }
                break (end + 4, status, length.ok_or_else(|| bad("no content-length"))?, close);
            };
            while self.buf.len() < head_end + length {
                let mut chunk = [0u8; 8192];
                let n = stream.read(&mut chunk).await?;
                if n == 0 {
                    return Err(std::io::ErrorKind::UnexpectedEof.into());
                }
                self.buf.extend_from_slice(&chunk[..n]);
            }
            Ok((status, close))
        }
        .await;
        match result {
            Ok((status, close)) => {
                if close {
                    self.stream = None;
                }
                Ok(status)
            }
            Err(e) => {
                self.stream = None;
                Err(e)
            }
        }
    }
}

/// `GET /health` on a fresh connection every `every` until `stop`; the latencies of the 200s and the failures.
fn probe_health(
    target: SocketAddr,
    every: Duration,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> (Vec<Duration>, usize) {
    use std::io::{Read, Write};
    let (mut lat, mut failed) = (Vec::new(), 0);
    while !stop.load(Ordering::Relaxed) {
        let t = Instant::now();
        let ok = (|| -> std::io::Result<bool> {
            let mut s = std::net::TcpStream::connect_timeout(&target, Duration::from_secs(5))?;
            s.set_read_timeout(Some(Duration::from_secs(5)))?;
            s.write_all(b"GET /health HTTP/1.1\r\nhost: probe\r\nconnection: close\r\n\r\n")?;
            let mut answer = Vec::new();
            s.read_to_end(&mut answer)?;
            Ok(answer.starts_with(b"HTTP/1.1 200"))
        })();
        match ok {
            Ok(true) => lat.push(t.elapsed()),
            _ => failed += 1,
        }
        std::thread::sleep(every);
    }
    lat.sort();
    (lat, failed)
}

/// One round's figures.
struct Round {
    latencies: Vec<Duration>,
    statuses: BTreeMap<u16, usize>,
    elapsed: Duration,
}

/// `concurrency` clients send `bodies` (each once) to `target`, stopping at `max_secs`.
async fn round(args: &Args, target: SocketAddr, bodies: &Arc<Vec<String>>, concurrency: usize) -> Round {
    let url = format!("http://{target}/v4/router/quote");
    let requests: Arc<Vec<Vec<u8>>> = Arc::new(
        bodies
            .iter()
            .map(|b| match &args.get {
                Some(path) => format!("GET {path} HTTP/1.1\r\nhost: {target}\r\n\r\n").into_bytes(),
                None => format!(
                    "POST /v4/router/quote HTTP/1.1\r\nhost: {target}\r\ncontent-type: application/json\r\n\
                     content-length: {}\r\n\r\n{b}",
                    b.len()
                )
                .into_bytes(),
            })
            .collect(),
    );
    let raw = args.client != "reqwest" || args.get.is_some();
    let client = reqwest::Client::new();
    let next = Arc::new(AtomicUsize::new(0));
    let deadline = Instant::now() + Duration::from_secs(args.max_secs);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..concurrency.max(1) {
        let (client, url, bodies, requests, next) =
            (client.clone(), url.clone(), bodies.clone(), requests.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut conn = RawConn::new(target);
            let mut lat = Vec::new();
            let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= bodies.len() || Instant::now() > deadline {
                    break;
                }
                let t = Instant::now();
                let status = if raw {
                    conn.send(&requests[i]).await.unwrap_or(0)
                } else {
                    let sent = client
                        .post(&url)
                        .header("content-type", "application/json")
                        .body(bodies[i].clone())
                        .send()
                        .await;
                    match sent {
                        Ok(r) => {
                            let s = r.status().as_u16();
                            let _ = r.bytes().await;
                            s
                        }
                        Err(_) => 0,
                    }
                };
                lat.push(t.elapsed());
                *statuses.entry(status).or_default() += 1;
            }
            (lat, statuses)
        }));
    }
    let mut latencies = Vec::new();
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    for t in tasks {
        // A client task does not panic (every error is counted as status 0); a join error loses its figures.
        let Ok((l, s)) = t.await else { continue };
        latencies.extend(l);
        for (k, v) in s {
            *statuses.entry(k).or_default() += v;
        }
    }
    let elapsed = started.elapsed();
    latencies.sort();
    Round { latencies, statuses, elapsed }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    // Against a server of its own (`--addr`), the clients share one thread: a client's work per request is
    // a write and a read, and a second worker thread would only add wake-ups and migrations on the cores the
    // server is measured on. The in-process server needs the multi-threaded runtime.
    let runtime = if args.addr.is_some() && args.client_threads == 1 {
        tokio::runtime::Builder::new_current_thread().enable_all().build()?
    } else {
        tokio::runtime::Builder::new_multi_thread().enable_all().build()?
    };
    runtime.block_on(run(args))
}

async fn run(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(&args.snapshot)?;
    let graph = Arc::new(PoolGraph::from_json(&text)?);
    let bodies = Arc::new(match args.mix.as_str() {
        "heavy" => heavy_bodies(&graph, args.requests),
        _ => bodies(&graph, args.requests),
    });

    if args.library {
        let [parse, route, convert, json, total, mean, p99] = library_stages(&graph, &bodies, args.slowest);
        println!(
            "library, one thread, the same bodies (p50 µs, refusals included): parse {parse:.1}, route {route:.1}, convert {convert:.1}, \
             json {json:.1}; whole {total:.1} (mean {mean:.1}, p99 {p99:.1})"
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
    println!(
        "snapshot {} ({} assets, {} pools); {} requests per round, {} client → http://{target}/v4/router/quote",
        args.snapshot,
        graph.asset_count(),
        graph.pool_count(),
        args.requests,
        args.client
    );
    let server_pid = args.server_pid.map(|p| p.to_string());
    for &concurrency in &args.concurrency {
        let load_before = load_average();
        let client_cpu = cpu_seconds("self");
        let server_cpu = server_pid.as_deref().and_then(cpu_seconds);
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let prober = (args.health_every_ms > 0).then(|| {
            let (every, stop) = (Duration::from_millis(args.health_every_ms), stop.clone());
            std::thread::spawn(move || probe_health(target, every, stop))
        });
        let Round { latencies: lat, statuses, elapsed } = round(&args, target, &bodies, concurrency).await;
        stop.store(true, Ordering::Relaxed);
        if let Some(Ok((health, failed))) = prober.map(std::thread::JoinHandle::join) {
            println!(
                "      /health meanwhile: {} answered, {failed} failed; p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
                health.len(),
                percentile(&health, 0.50).as_secs_f64() * 1e3,
                percentile(&health, 0.99).as_secs_f64() * 1e3,
                health.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
            );
        }
        let client_cpu = cpu_seconds("self").zip(client_cpu).map(|(a, b)| a - b);
        let server_cpu = server_pid.as_deref().and_then(cpu_seconds).zip(server_cpu).map(|(a, b)| a - b);
        let n = lat.len().max(1) as f64;
        let ok = statuses.get(&200).copied().unwrap_or(0);
        println!(
            "{concurrency:>4} clients: {} requests in {:.2} s: {:.0} req/s; latency p50 {:.3} ms, p90 {:.3} ms, \
             p99 {:.3} ms, max {:.2} ms; goodput {:.0}/s (200s)",
            lat.len(),
            elapsed.as_secs_f64(),
            lat.len() as f64 / elapsed.as_secs_f64(),
            percentile(&lat, 0.50).as_secs_f64() * 1e3,
            percentile(&lat, 0.90).as_secs_f64() * 1e3,
            percentile(&lat, 0.99).as_secs_f64() * 1e3,
            lat.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
            ok as f64 / elapsed.as_secs_f64(),
        );
        let per_request = |cpu: Option<f64>| cpu.map_or("?".to_owned(), |s| format!("{:.1} µs", s / n * 1e6));
        println!(
            "      statuses (0 = transport error) {statuses:?}; CPU per request: client {}, server {}{}; \
             load average before {load_before}",
            per_request(client_cpu),
            per_request(server_cpu),
            if server_pid.is_none() && args.addr.is_none() { " (in-process: counted in the client's)" } else { "" },
        );
    }
    let _ = stop_tx.send(());
    Ok(())
}
