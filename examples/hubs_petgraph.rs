//! The hub tables' build (see `crates/core/src/graph/hubs.rs`) on a peers-shape graph, and the same hop-limited
//! Bellman–Ford over `petgraph::csr::Csr`, for the module doc's comparison.
//!
//! ```sh
//! cargo run --release --example hubs_petgraph -- DIR
//! ```
//! Times (least of 5 runs) and bytes of: the tables' full build (every hub's rate tables and child lists);
//! one hub's plain rate table by the hand-written loop over the graph's own CSR and rate ceilings (the
//! tables' code); building a `Csr<(), f32>` of the reversed edges (parallel pools merged to their best rate:
//! `from_sorted_edges` wants unique pairs) and the same loop over it. (`petgraph::algo::bellman_ford` on that
//! `Csr` with weights `−ln(rate)`, the reference algorithm petgraph has, is O(V·E) and not hop-limited: 60 s
//! per hub at 100k pools, and it reports a negative cycle where ceilings rounded up to f32 make a pool's
//! round trip worth 1; not usable here, so not run.)

// Shared with examples/peers.rs, which reads the queries and labels this one does not need.
#[allow(dead_code)]
#[path = "../benches/common/peers.rs"]
mod peers;

use std::time::Instant;

use petgraph::csr::Csr;
use tonroute::graph::{AssetId, PoolGraph};

const LEVELS: usize = 5;

fn best_of<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..5 {
        let t0 = Instant::now();
        out = Some(f());
        best = best.min(t0.elapsed().as_secs_f64() * 1e3);
    }
    (out.expect("five runs"), best)
}

/// The reverse-direction rate ceiling of every edge, in the graph's edge order (what the tables' build
/// reads), and where each asset's edges start in it.
fn reverse_rates(graph: &PoolGraph) -> (Vec<f32>, Vec<usize>) {
    let mut starts = Vec::with_capacity(graph.asset_count());
    let mut rates = Vec::with_capacity(2 * graph.pool_count());
    for u in 0..graph.asset_count() as u32 {
        starts.push(rates.len());
        rates.extend(graph.edges(AssetId(u)).iter().map(|e| graph.ceiling(e.pool, e.direction.reverse())));
    }
    (rates, starts)
}

/// The tables' loop: levels of best rates toward `hub` over the graph's CSR, reading `rates` (from
/// [`reverse_rates`], with `starts`) alongside the edges, or each pool's ceiling when `rates` is empty.
fn levels_own(graph: &PoolGraph, rates: &[f32], starts: &[usize], hub: AssetId) -> Vec<[f32; LEVELS]> {
    let n = graph.asset_count();
    let mut prev = vec![0.0f64; n];
    prev[hub.index()] = 1.0;
    let mut cur = prev.clone();
    let mut table = vec![[0.0f32; LEVELS]; n];
    let mut frontier = vec![hub];
    let mut in_next = vec![false; n];
    for level in 0..LEVELS {
        let mut next = Vec::new();
        for &u in &frontier {
            let via = prev[u.index()];
            let start = starts.get(u.index()).copied().unwrap_or(0);
            for (i, e) in graph.edges(u).iter().enumerate() {
                if e.to == hub {
                    continue;
                }
                let s = if rates.is_empty() { graph.ceiling(e.pool, e.direction.reverse()) } else { rates[start + i] };
                let r = f64::from(s) * via;
                if r > cur[e.to.index()] {
                    cur[e.to.index()] = r;
                    if !in_next[e.to.index()] {
                        in_next[e.to.index()] = true;
                        next.push(e.to);
                    }
                }
            }
        }
        for v in &next {
            in_next[v.index()] = false;
        }
        for (row, &r) in table.iter_mut().zip(&cur) {
            row[level] = r as f32;
        }
        prev.copy_from_slice(&cur);
        frontier = next;
    }
    table
}

/// The reversed graph as a `Csr`: row `u` holds `(v, rate v → u)`, the best over parallel pools.
fn csr_of(graph: &PoolGraph) -> Csr<(), f32, petgraph::Directed, u32> {
    let mut edges: Vec<(u32, u32, f32)> = Vec::with_capacity(2 * graph.pool_count());
    for u in 0..graph.asset_count() as u32 {
        for e in graph.edges(AssetId(u)) {
            edges.push((u, e.to.0, graph.ceiling(e.pool, e.direction.reverse())));
        }
    }
    edges.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(b.2.total_cmp(&a.2)));
    edges.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    Csr::from_sorted_edges(&edges).expect("sorted, unique")
}

fn levels_csr(csr: &Csr<(), f32, petgraph::Directed, u32>, hub: u32) -> Vec<[f32; LEVELS]> {
    let n = csr.node_count();
    let mut prev = vec![0.0f64; n];
    prev[hub as usize] = 1.0;
    let mut cur = prev.clone();
    let mut table = vec![[0.0f32; LEVELS]; n];
    let mut frontier = vec![hub];
    let mut in_next = vec![false; n];
    for level in 0..LEVELS {
        let mut next = Vec::new();
        for &u in &frontier {
            let via = prev[u as usize];
            for (&v, &s) in csr.neighbors_slice(u).iter().zip(csr.edges_slice(u)) {
                if v == hub {
                    continue;
                }
                let r = f64::from(s) * via;
                if r > cur[v as usize] {
                    cur[v as usize] = r;
                    if !in_next[v as usize] {
                        in_next[v as usize] = true;
                        next.push(v);
                    }
                }
            }
        }
        for &v in &next {
            in_next[v as usize] = false;
        }
        for (row, &r) in table.iter_mut().zip(&cur) {
            row[level] = r as f32;
        }
        prev.copy_from_slice(&cur);
        frontier = next;
    }
    table
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: hubs_petgraph DIR")?;
    let graph = peers::load(&dir)?.graph;
    let tables = graph.hub_tables();
    let hubs: Vec<AssetId> = tables.hubs().collect();
    let hub = *hubs.first().ok_or("no hub")?;
    println!(
        "{} pools, {} assets, hubs {:?} (degrees {:?})",
        graph.pool_count(),
        graph.asset_count(),
        hubs,
        hubs.iter().map(|h| graph.edges(*h).len()).collect::<Vec<_>>()
    );
    let (_, full) = best_of(|| graph.refresh_hub_tables());
    println!("hub tables, full build: {full:.2} ms, {:.1} MB", graph.hub_tables().heap_bytes() as f64 / 1e6);
    let (own, t_own) = best_of(|| levels_own(&graph, &[], &[], hub));
    println!("one rate table, own CSR + each pool's ceiling: {t_own:.2} ms (no extra memory)");
    let ((rates, starts), t_rates) = best_of(|| reverse_rates(&graph));
    let (own_seq, t_seq) = best_of(|| levels_own(&graph, &rates, &starts, hub));
    println!(
        "one rate table, own CSR + a sequential rate array: {t_seq:.2} ms (array: {t_rates:.2} ms, {:.1} MB while building)",
        rates.len() as f64 * 4.0 / 1e6
    );
    assert!(own == own_seq);
    let (csr, t_build) = best_of(|| csr_of(&graph));
    let bytes = (csr.node_count() + 1) * std::mem::size_of::<usize>() + csr.edge_count() * (4 + 4);
    println!("Csr<(), f32> of the reversed edges: build {t_build:.2} ms, {:.1} MB", bytes as f64 / 1e6);
    let (theirs, t_csr) = best_of(|| levels_csr(&csr, hub.0));
    println!("one rate table over the Csr: {t_csr:.2} ms");
    let same = own.iter().zip(&theirs).all(|(a, b)| a == b);
    println!("tables equal: {same}");
    Ok(())
}
