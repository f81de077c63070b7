//! Quote latency, reserve-update throughput and graph build time on synthetic TON-shaped graphs of 100,
//! 1,000 and 10,000 pools (`tonroute_synth::snapshot::generate`, the bundled seed).
//!
//! ```sh
//! cargo bench --bench quote -- --warm-up-time 1 --measurement-time 3
//! ```
//! Quotes: popular (TON→USD₮, USD₮→NOT) and long-tail (jetton→jetton through TON) pairs, small / medium /
//! whale sizes (1e-5, 1e-3, 5e-2 of the pair's depth), `max_length` 3, `max_splits` 4, default network fees;
//! every timed quote is asserted `Ok`. Criterion reports means; `examples/latency.rs` prints p50/p99.
//!
//! `quote_curves/{1000,10000}/...`: the concentrated, weighted and exact-out cases of
//! `benches/common/mod.rs` (`curve_cases`) on the same graphs, which carry `dex_c` and weighted pools.

mod common;

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use tonroute::graph::{PoolGraph, PoolId};
use tonroute::route::{QuoteOptions, Router};
use tonroute_synth::snapshot::{generate, SyntheticConfig, DEFAULT_SEED};

const SIZES: [usize; 3] = [100, 1_000, 10_000];

fn graph(pools: usize) -> PoolGraph {
    generate(&SyntheticConfig::new(pools, DEFAULT_SEED)).into_graph().expect("generated snapshots are valid")
}

fn quotes(c: &mut Criterion) {
    let router = Router::default();
    for pools in SIZES {
        let g = graph(pools);
        let mut group = c.benchmark_group(format!("quote/{pools}"));
        for pair in common::pairs(&g) {
            for (size, num, den) in common::SIZES {
                let req = pair.request(num, den);
                group.bench_function(BenchmarkId::new(format!("{}/{}", pair.class, pair.name), size), |b| {
                    b.iter(|| {
                        let q = router.quote(black_box(&g), black_box(&req), QuoteOptions::default());
                        assert!(q.is_ok(), "{q:?}");
                        q
                    })
                });
            }
        }
        group.finish();
    }
}

fn curves(c: &mut Criterion) {
    let router = Router::default();
    for pools in [1_000, 10_000] {
        let g = graph(pools);
        let cases = common::curve_cases(&g).expect("graphs of 1,000 pools and more have the curve pools");
        let mut group = c.benchmark_group(format!("quote_curves/{pools}"));
        for case in &cases {
            group.bench_function(case.name, |b| {
                b.iter(|| {
                    let q = router.quote(black_box(&g), black_box(&case.request), QuoteOptions::default());
                    assert!(q.is_ok(), "{q:?}");
                    q
                })
            });
        }
        group.finish();
    }
}

fn updates(c: &mut Criterion) {
    const BATCH: usize = 10_000;
    let mut group = c.benchmark_group("update_reserves");
    group.throughput(Throughput::Elements(BATCH as u64));
    for pools in SIZES {
        let g = graph(pools);
        // A batch of 10k new reserve pairs over the pools in turn (pools repeat on the small graphs).
        // Concentrated pools change through their state (`update_concentrated_state`), not reserves.
        let plain: Vec<PoolId> =
            (0..g.pool_count() as u32).map(PoolId).filter(|id| g.concentrated(*id).is_none()).collect();
        let batch: Vec<(PoolId, [u128; 2])> = (0..BATCH)
            .map(|i| {
                let id = plain[i % plain.len()];
                let [r0, r1] = g.reserves(id);
                (id, [r0 + (i as u128 % 7), r1.saturating_sub(i as u128 % 5).max(1)])
            })
            .collect();
        group.bench_function(BenchmarkId::new("batch_10k", pools), |b| {
            b.iter(|| {
                for (id, r) in &batch {
                    g.update_reserves(*id, black_box(*r)).expect("ids and reserves are in range");
                }
            })
        });
    }
    group.finish();
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    for pools in SIZES {
        let snapshot = generate(&SyntheticConfig::new(pools, DEFAULT_SEED));
        let text = serde_json::to_string(&snapshot).expect("snapshots serialise");
        group.bench_function(BenchmarkId::new("from_json", pools), |b| {
            b.iter(|| {
                let g = PoolGraph::from_json(black_box(&text)).expect("valid");
                assert_eq!(g.pool_count(), pools);
                g
            })
        });
        group.bench_function(BenchmarkId::new("from_snapshot", pools), |b| {
            b.iter(|| snapshot.into_graph().expect("valid"))
        });
    }
    group.finish();
}

criterion_group!(benches, quotes, curves, updates, build);
criterion_main!(benches);
