//! Routes across exchanges, measured: how many pairs get a route before (each exchange's own multi-hop,
//! `HandOffPolicy::INTERNAL`) and after (every safe hand-off, `HandOffPolicy::SAFE`), why the rest do not,
//! the output gained on pairs that had a route already, and quote latency both ways, in one run.
//!
//! ```sh
//! cargo run --release --example cross_exchange -- [--snapshot data/snapshot.json] [--pairs 2000] [--seed 7]
//! ```
//! Three sets of pairs: random jetton→jetton (two distinct jettons, uniformly), jetton→USD₮ (a random jetton),
//! and `examples/load`'s own request mix (`common::load_mix`). Random pairs quote $100 of the input asset at
//! the snapshot's USD price. For each pair it also enumerates the simple chains of at most three pools between
//! the two assets, with any pools ("joined") and with safe hand-offs only ("joined safely"), to say why a pair
//! has no route: the refusals its chains run into. Quotes run on one thread, before and after interleaved.
//!
//! `scripts/cross_exchange_vs_base.sh` runs this same file linked against a second, older build of the
//! library as well (by default ac52457, main before the cross-exchange work): its router's answers and
//! latency are then measured in the same run, interleaved with the two above ([`main_with`]).

#![allow(dead_code)]

#[path = "../benches/common/mod.rs"]
mod common;

use std::collections::BTreeMap;
use std::time::Instant;

use tonroute::asset::Asset;
use tonroute::graph::{AssetId, HandOffPolicy, PoolGraph, PoolId, Refusal};
use tonroute::route::{QuoteOptions, QuoteRequest, Router, RouterConfig};
use tonroute_synth::snapshot::SplitMix64;

/// A deferred quote of the baseline router: built outside the timed section, run inside it; the output.
pub type Thunk = Box<dyn FnOnce() -> Option<u128>>;
/// The baseline router: `(from, to, amount)` in wire form (`native`, `jetton:0:…`) → a [`Thunk`].
pub type BaseQuote = Box<dyn Fn(&str, &str, u128) -> Thunk>;
/// Loads the baseline router over a snapshot's JSON text.
pub type BaseLoader<'a> = &'a dyn Fn(&str) -> BaseQuote;

/// Chains of at most `MAX_POOLS` pools are enumerated.
const MAX_POOLS: usize = 3;

/// What the chains of ≤ 3 pools between two assets look like.
#[derive(Default)]
struct Joined {
    /// Some chain exists, whatever its pools.
    any: bool,
    /// Some chain passes the rule under `INTERNAL`.
    internal: bool,
    /// Some chain passes the rule under `SAFE`.
    safe: bool,
    /// The refusals the chains that fail under `SAFE` run into (first failing pair of each).
    refusals: std::collections::BTreeSet<&'static str>,
}

fn refusal_name(r: Refusal) -> &'static str {
    match r {
        Refusal::AfterDexBV1 => "after dex_b_v1",
        Refusal::IntoDexBV1 => "into dex_b_v1",
        Refusal::IntoDexA => "into dex_a",
        Refusal::TonOutOfDexA => "TON out of dex_a",
        _ => "disabled",
    }
}

fn joined(g: &PoolGraph, src: AssetId, dst: AssetId) -> Joined {
    let mut j = Joined::default();
    let mut pools: Vec<PoolId> = Vec::new();
    let mut assets = vec![src];
    walk(g, dst, &mut pools, &mut assets, &mut j);
    j
}

fn walk(g: &PoolGraph, dst: AssetId, pools: &mut Vec<PoolId>, assets: &mut Vec<AssetId>, j: &mut Joined) {
    let at = *assets.last().unwrap_or(&dst);
    for e in g.edges(at) {
        if assets.contains(&e.to) {
            continue;
        }
        pools.push(e.pool);
        assets.push(e.to);
        if e.to == dst {
            j.any = true;
            let check = |policy: HandOffPolicy| {
                (1..pools.len()).find_map(|i| g.handoff(policy, pools[i - 1], pools[i], assets[i]).err())
            };
            j.internal |= check(HandOffPolicy::INTERNAL).is_none();
            match check(HandOffPolicy::SAFE) {
                None => j.safe = true,
                Some(r) => {
                    j.refusals.insert(refusal_name(r));
                }
            }
        } else if pools.len() < MAX_POOLS {
            walk(g, dst, pools, assets, j);
        }
        pools.pop();
        assets.pop();
    }
}

/// `usd` dollars of `a` in smallest units at the snapshot's price (one whole token when it has none).
fn usd_amount(g: &PoolGraph, a: AssetId, usd: f64) -> u128 {
    let m = g.asset(a);
    let whole = match m.usd_price {
        Some(p) if p > 0.0 => usd / p,
        _ => 1.0,
    };
    ((whole * 10f64.powi(i32::from(m.decimals))) as u128).max(1)
}

#[derive(Default)]
struct Tally {
    pairs: usize,
    joined: usize,
    joined_internal: usize,
    joined_safe: usize,
    routed_before: usize,
    routed_after: usize,
    routed_after_of_safe: usize,
    /// Why joined pairs have no route after: refusal sets, or the router's error.
    causes: BTreeMap<String, usize>,
    /// Pairs routed before: (after / before − 1) of the output.
    gains: Vec<f64>,
    worse: usize,
    cross_routes: usize,
    t_before: Vec<f64>,
    t_after: Vec<f64>,
    /// The baseline router, when one is given: pairs it routes (of the joined), its latency, and the
    /// output after against it on pairs both route.
    routed_base: usize,
    t_base: Vec<f64>,
    /// Latency by outcome: (baseline, after) on pairs both route; after on pairs only it routes; (baseline,
    /// after) on pairs neither routes (the no-route answer).
    t_both: (Vec<f64>, Vec<f64>),
    t_new: Vec<f64>,
    t_none: (Vec<f64>, Vec<f64>),
    gains_vs_base: Vec<f64>,
    worse_vs_base: usize,
    lost_vs_base: usize,
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn run(
    g: &PoolGraph,
    before: &Router,
    after: &Router,
    base: Option<&BaseQuote>,
    pairs: &[(Asset, Asset, u128)],
) -> Tally {
    let mut t = Tally::default();
    for &(from, to, amount) in pairs {
        let (Some(src), Some(dst)) = (g.asset_id(&from), g.asset_id(&to)) else { continue };
        // A pair the request's constructor refuses (a zero amount) is no routing question.
        let Ok(req) = QuoteRequest::new(from, to, amount) else { continue };
        t.pairs += 1;
        let j = joined(g, src, dst);
        t.joined += usize::from(j.any);
        t.joined_internal += usize::from(j.internal);
        t.joined_safe += usize::from(j.safe);
        let t0 = Instant::now();
        let qb = before.quote(g, &req, QuoteOptions::default());
        t.t_before.push(t0.elapsed().as_secs_f64() * 1e6);
        let t1 = Instant::now();
        let qa = after.quote(g, &req, QuoteOptions::default());
        t.t_after.push(t1.elapsed().as_secs_f64() * 1e6);
        if let Some(base) = base {
            let thunk = base(&from.to_string(), &to.to_string(), amount);
            let t2 = Instant::now();
            let qz = thunk();
            let tz = t2.elapsed().as_secs_f64() * 1e6;
            t.t_base.push(tz);
            let ta = *t.t_after.last().unwrap_or(&0.0);
            match (qz.is_some(), qa.is_ok()) {
                (true, true) => {
                    t.t_both.0.push(tz);
                    t.t_both.1.push(ta);
                }
                (false, true) => t.t_new.push(ta),
                (false, false) => {
                    t.t_none.0.push(tz);
                    t.t_none.1.push(ta);
                }
                (true, false) => {}
            }
            t.routed_base += usize::from(qz.is_some() && j.any);
            match (qz, &qa) {
                (Some(z), Ok(a)) => {
                    t.gains_vs_base.push(a.out_amount as f64 / z as f64 - 1.0);
                    t.worse_vs_base += usize::from(a.out_amount < z);
                }
                (Some(_), Err(_)) => t.lost_vs_base += 1,
                _ => {}
            }
        }
        t.routed_before += usize::from(qb.is_ok());
        t.routed_after += usize::from(qa.is_ok());
        if j.safe && qa.is_ok() {
            t.routed_after_of_safe += 1;
        }
        if let Ok(q) = &qa {
            let cross = q.routes.iter().any(|r| {
                r.steps.windows(2).any(|w| {
                    g.handoff_kind(w[0].pool, w[1].pool, g.asset_id(&w[0].out_asset).unwrap_or(AssetId(0)))
                        .is_ok_and(|k| !k.is_internal())
                })
            });
            t.cross_routes += usize::from(cross);
        }
        match (&qb, &qa) {
            (Ok(b), Ok(a)) => {
                let gain = a.out_amount as f64 / b.out_amount as f64 - 1.0;
                t.gains.push(gain);
                t.worse += usize::from(a.out_amount < b.out_amount);
            }
            (_, Err(e)) if j.any => {
                let cause = if !j.safe {
                    let list: Vec<&str> = j.refusals.iter().copied().collect();
                    format!("only through: {}", list.join(" + "))
                } else {
                    format!("router: {e}").split(" (").next().unwrap_or_default().to_string()
                };
                *t.causes.entry(cause).or_default() += 1;
            }
            _ => {}
        }
    }
    t
}

fn share(n: usize, d: usize) -> String {
    if d == 0 {
        "–".into()
    } else {
        format!("{:.1} %", 100.0 * n as f64 / d as f64)
    }
}

fn report(name: &str, base_name: &str, t: &mut Tally) {
    println!("\n## {name}: {} pairs", t.pairs);
    println!(
        "joined by ≤ 3 pools: {}; of those joined with each exchange's own chaining {} , with safe hand-offs {}",
        t.joined,
        share(t.joined_internal, t.joined),
        share(t.joined_safe, t.joined)
    );
    println!(
        "routable before: {} of joined ({}); after: {} of joined ({}); after, of those joined safely: {}",
        t.routed_before,
        share(t.routed_before, t.joined),
        t.routed_after,
        share(t.routed_after, t.joined),
        share(t.routed_after_of_safe, t.joined_safe)
    );
    println!("quotes using a cross-exchange route: {} of {}", t.cross_routes, t.routed_after);
    println!("no route after, by cause:");
    let mut causes: Vec<_> = t.causes.iter().collect();
    causes.sort_by(|a, b| b.1.cmp(a.1));
    for (c, n) in causes {
        println!("  {n:>5}  {c}");
    }
    let improved: Vec<f64> = t.gains.iter().copied().filter(|g| *g > 0.0).collect();
    let mut imp = improved.clone();
    println!(
        "already routable: {}; output higher after on {} ({}), lower on {}; gain among those improved: median {:.3} %, p90 {:.3} %, max {:.3} %",
        t.gains.len(),
        improved.len(),
        share(improved.len(), t.gains.len()),
        t.worse,
        100.0 * pct(&mut imp.clone(), 0.5),
        100.0 * pct(&mut imp.clone(), 0.9),
        100.0 * pct(&mut imp, 1.0),
    );
    let (b50, b99) = (pct(&mut t.t_before, 0.5), pct(&mut t.t_before, 0.99));
    let (a50, a99) = (pct(&mut t.t_after, 0.5), pct(&mut t.t_after, 0.99));
    println!(
        "latency µs: before p50 {b50:.0} p99 {b99:.0}; after p50 {a50:.0} p99 {a99:.0}; p50 ratio {:.2}",
        a50 / b50
    );
    if !t.t_base.is_empty() {
        let mut imp: Vec<f64> = t.gains_vs_base.iter().copied().filter(|g| *g > 0.0).collect();
        println!(
            "{base_name}: routable {} of joined ({}); after vs {base_name} on the {} pairs both route: higher on {}, \
             lower on {}, gain among those improved median {:.3} %, p90 {:.3} %; routed by {base_name} only: {}",
            t.routed_base,
            share(t.routed_base, t.joined),
            t.gains_vs_base.len(),
            imp.len(),
            t.worse_vs_base,
            100.0 * pct(&mut imp.clone(), 0.5),
            100.0 * pct(&mut imp, 0.9),
            t.lost_vs_base,
        );
        let (z50, z99) = (pct(&mut t.t_base, 0.5), pct(&mut t.t_base, 0.99));
        println!(
            "latency µs: {base_name} p50 {z50:.0} p99 {z99:.0}; after / {base_name}: p50 {:.2}, p99 {:.2}",
            a50 / z50,
            a99 / z99
        );
        let (mut bz, mut ba) = (t.t_both.0.clone(), t.t_both.1.clone());
        let (mut nz, mut na) = (t.t_none.0.clone(), t.t_none.1.clone());
        let mut new = t.t_new.clone();
        println!(
            "  by outcome, p50 / p99 µs: both route ({}) {base_name} {:.0} / {:.0}, after {:.0} / {:.0}; \
             newly routed ({}) after {:.0} / {:.0}; no route ({}) {base_name} {:.0} / {:.0}, after {:.0} / {:.0}",
            bz.len(),
            pct(&mut bz, 0.5),
            pct(&mut bz, 0.99),
            pct(&mut ba, 0.5),
            pct(&mut ba, 0.99),
            new.len(),
            pct(&mut new, 0.5),
            pct(&mut new, 0.99),
            nz.len(),
            pct(&mut nz, 0.5),
            pct(&mut nz, 0.99),
            pct(&mut na, 0.5),
            pct(&mut na, 0.99),
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    main_with(None)
}

/// The measurement, with a baseline router (named) when one is given.
pub fn main_with(base: Option<(&str, BaseLoader<'_>)>) -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).cloned();
    let path = flag("--snapshot").unwrap_or_else(|| "data/snapshot.json".into());
    let n: usize = flag("--pairs").map(|v| v.parse()).transpose()?.unwrap_or(2_000);
    let seed: u64 = flag("--seed").map(|v| v.parse()).transpose()?.unwrap_or(7);
    let json = std::fs::read_to_string(&path)?;
    let g = PoolGraph::from_json(&json)?;
    let base_name = base.map(|b| b.0).unwrap_or_default();
    let base = base.map(|(_, load)| load(&json));
    let before = Router::new(RouterConfig { handoffs: HandOffPolicy::INTERNAL, ..RouterConfig::default() });
    let after = Router::new(RouterConfig { handoffs: HandOffPolicy::SAFE, ..RouterConfig::default() });
    println!("{path}: {} pools, {} assets; seed {seed}", g.pool_count(), g.asset_count());
    let jettons: Vec<AssetId> =
        (0..g.asset_count() as u32).map(AssetId).filter(|a| !g.asset(*a).asset.is_native()).collect();
    let usdt: Asset = tonroute::asset::known::USDT.parse()?;
    let mut rng = SplitMix64(seed);
    let random: Vec<_> = (0..n)
        .map(|_| {
            let a = jettons[rng.index(jettons.len())];
            let mut b = jettons[rng.index(jettons.len())];
            while b == a {
                b = jettons[rng.index(jettons.len())];
            }
            (g.asset(a).asset, g.asset(b).asset, usd_amount(&g, a, 100.0))
        })
        .collect();
    let to_usdt: Vec<_> = (0..n)
        .filter_map(|_| {
            let a = jettons[rng.index(jettons.len())];
            (g.asset(a).asset != usdt).then(|| (g.asset(a).asset, usdt, usd_amount(&g, a, 100.0)))
        })
        .collect();
    let mix = common::load_mix(&g, n);
    let b = base.as_ref();
    report("random jetton → jetton", base_name, &mut run(&g, &before, &after, b, &random));
    report("jetton → USD₮", base_name, &mut run(&g, &before, &after, b, &to_usdt));
    report("examples/load mix", base_name, &mut run(&g, &before, &after, b, &mix));
    Ok(())
}
