//! Per-quote cost against the graph's size on the peers-shape graphs (issue #19): every query of a graph from
//! `../shared/peers/gen.py --pools N --seed 7 --queries 60`, at 10k and 100k pools (and any other size given).
//!
//! ```sh
//! python3 ../shared/peers/gen.py --pools 100000 --seed 7 --queries 60 --out ../graphs/p100000
//! TONROUTE_SCALE_GRAPHS=../shared/peers/graphs/p10000,../graphs/p100000 \
//!     cargo bench --bench scale -- --warm-up-time 1 --measurement-time 5
//! ```
//!
//! `scale/all_queries/{pools}` quotes a graph's queries one after another (exact-in, each query's own
//! limits, no network fees, as `examples/peers` runs them): criterion's mean divided by the query count is
//! the mean per quote, and the ratio of two sizes' means is the figure the issue's targets compare.
//! `scale/query/{pools}/q{id}` times the graph's median and 90th-percentile queries (by a first untimed
//! pass) alone, so the p50 / p90 ratios have criterion figures too. Graphs are read from the comma list in
//! `TONROUTE_SCALE_GRAPHS` (default `../shared/peers/graphs/p10000,../graphs/p100000`); a missing one is
//! reported and skipped, since benches are run by hand on a machine that generated them.

// The loader is shared with `examples/peers.rs`; this bench reads only the graph and the queries.
#[allow(dead_code)]
#[path = "common/peers.rs"]
mod peers;

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use tonroute::graph::PoolGraph;
use tonroute::route::{NetworkFees, QuoteOptions, QuoteRequest, Router, RouterConfig};

fn requests(queries: &[peers::Query]) -> Vec<(u64, QuoteRequest)> {
    queries
        .iter()
        .filter_map(|q| {
            let req = QuoteRequest::builder(peers::asset_of(&q.from), peers::asset_of(&q.to), q.amount.parse().ok()?)
                .max_splits(q.max_splits.unwrap_or(4))
                .max_length(q.max_length.unwrap_or(3))
                .build()
                .unwrap();
            Some((q.id, req))
        })
        .collect()
}

/// The queries at the median and the 90th percentile of one untimed-by-criterion pass (each the least of
/// three runs).
fn p50_p90(router: &Router, graph: &PoolGraph, reqs: &[(u64, QuoteRequest)]) -> Vec<(&'static str, usize)> {
    let mut times: Vec<(f64, usize)> = reqs
        .iter()
        .enumerate()
        .map(|(i, (_, r))| {
            let least = (0..3)
                .map(|_| {
                    let t = Instant::now();
                    let _ = black_box(router.quote(graph, r, QuoteOptions::default()));
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min);
            (least, i)
        })
        .collect();
    times.sort_by(|a, b| a.0.total_cmp(&b.0));
    let at = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize].1;
    vec![("p50", at(0.5)), ("p90", at(0.9))]
}

fn scale(c: &mut Criterion) {
    let dirs = std::env::var("TONROUTE_SCALE_GRAPHS")
        .unwrap_or_else(|_| "../shared/peers/graphs/p10000,../graphs/p100000".to_owned());
    let router = Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() });
    let mut group = c.benchmark_group("scale");
    group.sample_size(10);
    for dir in dirs.split(',').filter(|d| !d.is_empty()) {
        let loaded = match peers::load(dir) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("scale: skipping {dir}: {e}");
                continue;
            }
        };
        let graph = loaded.graph;
        let pools = graph.pool_count();
        let reqs = requests(&loaded.queries);
        group.bench_function(BenchmarkId::new("all_queries", pools), |b| {
            b.iter(|| {
                for (_, r) in &reqs {
                    let _ = black_box(router.quote(black_box(&graph), r, QuoteOptions::default()));
                }
            })
        });
        for (label, i) in p50_p90(&router, &graph, &reqs) {
            let (id, r) = &reqs[i];
            group.bench_function(BenchmarkId::new(format!("query/{pools}"), format!("{label}_q{id}")), |b| {
                b.iter(|| black_box(router.quote(black_box(&graph), r, QuoteOptions::default())))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, scale);
criterion_main!(benches);
