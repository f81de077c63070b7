//! Routes across exchanges on the bundled snapshot (`data/snapshot.json`), judged by computations that do not
//! use the router's graph:
//!
//! - **Coverage.** Which jetton pairs a chain of ≤ 3 pools joins with safe hand-offs is counted by an
//!   independent depth-first enumeration over the snapshot **file** (read with `serde_json`, the rule written
//!   out on its `protocol` / `router` / asset strings as `docs/cross-exchange.md` states it); at least 95 % of
//!   those pairs must get a route (issue #18, "Done when").
//! - **No refused hand-off** in any route, under either policy, as a property over random pairs, amounts and
//!   limits: every consecutive pair of steps is checked against the same written-out rule.
//! - **Exact re-execution.** Every route's steps are re-executed in order, each pool's state carried from one
//!   route to the next, with the contracts' formulas written out here in big integers (`dex_b_v1` / `dex_b_v2`
//!   constant product: ston-fi/dex-core `contracts/pool/amm.func`, ston-fi/dex-core-v2
//!   `contracts/pool/pools/constant_product/pool.fc`; `dex_a` volatile: the fee rounding DeDust's own `/v2/routing/plan` shows) from the
//!   snapshot's reserves and fees. The bundled snapshot's other 10 of its 1,000 pools (stable, weighted,
//!   concentrated) have formulas too long to restate here: their steps are re-executed with the library's pool
//!   code, which `tests/it/contract_vectors.rs` proves against the contracts' own answers.

use std::collections::{BTreeMap, HashMap};

use num_bigint::BigUint;
use proptest::prelude::*;
use serde_json::Value;
use std::sync::OnceLock;
use tonroute::asset::Asset;

use tonroute::graph::{HandOffPolicy, PoolGraph};
use tonroute::route::{Quote, QuoteOptions, QuoteRequest, Router, RouterConfig};

const SNAPSHOT: &str = include_str!("../../data/snapshot.json");

/// A pool as the snapshot file writes it.
#[derive(Debug, Clone)]
struct FilePool {
    protocol: String,
    curve: String,
    router: Option<String>,
    assets: [String; 2],
    reserves: [u128; 2],
    lp_fee: u32,
    protocol_fee: u32,
}

/// The snapshot file, read independently of `PoolGraph`.
struct File {
    pools: Vec<FilePool>,
    by_address: HashMap<String, usize>,
    /// Asset → (pool index, other asset) of every pool with both reserves positive.
    adjacency: BTreeMap<String, Vec<(usize, String)>>,
    jettons: Vec<String>,
    usd_price: HashMap<String, (f64, u32)>,
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_else(|| panic!("snapshot: `{key}` missing in {v}")).to_string()
}

fn number(v: &Value) -> u128 {
    match v {
        Value::String(s) => s.parse().unwrap_or_else(|_| panic!("snapshot: `{s}` is not an integer")),
        Value::Number(n) => n.as_u64().map(u128::from).unwrap_or_else(|| panic!("snapshot: {n}")),
        _ => panic!("snapshot: {v} is not an integer"),
    }
}

/// The file, read once per test binary.
fn file() -> &'static File {
    static FILE: OnceLock<File> = OnceLock::new();
    FILE.get_or_init(read_file)
}

fn read_file() -> File {
    let doc: Value = serde_json::from_str(SNAPSHOT).expect("bundled snapshot is JSON");
    let mut pools = Vec::new();
    let mut by_address = HashMap::new();
    let mut adjacency: BTreeMap<String, Vec<(usize, String)>> = BTreeMap::new();
    for (i, p) in doc["pools"].as_array().expect("pools").iter().enumerate() {
        let assets = [p["assets"][0].as_str().unwrap().to_string(), p["assets"][1].as_str().unwrap().to_string()];
        let reserves = [number(&p["reserves"][0]), number(&p["reserves"][1])];
        let fee = |k: &str| p.get(k).map(|v| number(v) as u32).unwrap_or(0);
        let pool = FilePool {
            protocol: text(p, "protocol"),
            curve: text(p, "curve"),
            router: p.get("router").and_then(Value::as_str).map(str::to_string),
            assets: assets.clone(),
            reserves,
            lp_fee: fee("lp_fee"),
            protocol_fee: fee("protocol_fee"),
        };
        by_address.insert(text(p, "address"), i);
        if reserves[0] > 0 && reserves[1] > 0 {
            adjacency.entry(assets[0].clone()).or_default().push((i, assets[1].clone()));
            adjacency.entry(assets[1].clone()).or_default().push((i, assets[0].clone()));
        }
        pools.push(pool);
    }
    let mut jettons = Vec::new();
    let mut usd_price = HashMap::new();
    for a in doc["assets"].as_array().expect("assets") {
        let id = text(a, "asset");
        let price = a.get("usd_price").and_then(Value::as_str).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
        usd_price.insert(id.clone(), (price, a["decimals"].as_u64().unwrap_or(9) as u32));
        if id != "native" {
            jettons.push(id);
        }
    }
    File { pools, by_address, adjacency, jettons, usd_price }
}

/// The hand-off rule of `docs/cross-exchange.md`, on the file's strings. With `safe`, every safe hand-off;
/// without, each exchange's own multi-hop only (`dex_a` within itself, `dex_b_v2` within one router).
fn may_follow(prev: &FilePool, next: &FilePool, at: &str, safe: bool) -> bool {
    let own = match (prev.protocol.as_str(), next.protocol.as_str()) {
        ("dex_a", "dex_a") => true,
        ("dex_b_v2", "dex_b_v2") => prev.router.is_some() && prev.router == next.router,
        _ => false,
    };
    own || (safe
        && match (prev.protocol.as_str(), next.protocol.as_str()) {
            // Nothing after dex_b_v1 (pays out with no forward TON), nothing into it or into dex_a after another
            // exchange (both refund the previous contract).
            ("dex_b_v1", _) | (_, "dex_b_v1") | (_, "dex_a") => false,
            // Out of dex_a with a jetton only: its native vault's TON payout is accepted by no pTON wallet.
            ("dex_a", "dex_b_v2" | "dex_c") => at != "native",
            ("dex_b_v2" | "dex_c", "dex_b_v2" | "dex_c") => true,
            (p, n) => panic!("unknown protocols {p} → {n}"),
        })
}

/// Whether a chain of at most `max_pools` pools with distinct assets joins `src` to `dst` under the rule.
fn joined(f: &File, src: &str, dst: &str, max_pools: usize, safe: bool) -> bool {
    fn walk(f: &File, dst: &str, left: usize, safe: bool, assets: &mut Vec<String>, last: Option<usize>) -> bool {
        let at = assets.last().cloned().unwrap_or_default();
        for (pool, to) in f.adjacency.get(&at).map(Vec::as_slice).unwrap_or_default() {
            if assets.contains(to) {
                continue;
            }
            if let Some(prev) = last {
                if !may_follow(&f.pools[prev], &f.pools[*pool], &at, safe) {
                    continue;
                }
            }
            if to == dst {
                return true;
            }
            if left > 1 {
                assets.push(to.clone());
                let found = walk(f, dst, left - 1, safe, assets, Some(*pool));
                assets.pop();
                if found {
                    return true;
                }
            }
        }
        false
    }
    walk(f, dst, max_pools, safe, &mut vec![src.to_string()], None)
}

/// `usd` dollars of `asset` in smallest units at the file's price (one whole token without a price).
fn usd_amount(f: &File, asset: &str, usd: f64) -> u128 {
    let (price, decimals) = f.usd_price[asset];
    let whole = if price > 0.0 { usd / price } else { 1.0 };
    ((whole * 10f64.powi(decimals as i32)) as u128).max(1)
}

/// xorshift64, seeded: the pairs are the same on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn graph() -> &'static PoolGraph {
    static GRAPH: OnceLock<PoolGraph> = OnceLock::new();
    GRAPH.get_or_init(|| PoolGraph::from_json(SNAPSHOT).expect("bundled snapshot loads"))
}

fn router(policy: HandOffPolicy) -> Router {
    Router::new(RouterConfig { handoffs: policy, ..RouterConfig::default() })
}

#[test]
fn most_pairs_joined_by_safe_hand_offs_get_a_route() {
    let f = file();
    let g = graph();
    let safe = router(HandOffPolicy::SAFE);
    let internal = router(HandOffPolicy::INTERNAL);
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut pairs, mut joined_safely, mut joined_internally, mut routed, mut routed_internal) = (0, 0, 0, 0, 0);
    let mut missed = Vec::new();
    while pairs < 400 {
        let a = &f.jettons[rng.below(f.jettons.len())];
        let b = &f.jettons[rng.below(f.jettons.len())];
        if a == b {
            continue;
        }
        pairs += 1;
        let internal_join = joined(f, a, b, 3, false);
        if !joined(f, a, b, 3, true) {
            // Whatever the router does, it may not beat the rule: no safe chain, no route.
            let req = QuoteRequest::new(a.parse().unwrap(), b.parse().unwrap(), usd_amount(f, a, 100.0)).unwrap();
            assert!(
                safe.quote(g, &req, QuoteOptions::default()).is_err(),
                "{a} → {b}: a route where no safe chain of ≤ 3 pools exists"
            );
            assert!(!internal_join);
            continue;
        }
        joined_safely += 1;
        joined_internally += usize::from(internal_join);
        let req = QuoteRequest::new(a.parse().unwrap(), b.parse().unwrap(), usd_amount(f, a, 100.0)).unwrap();
        match safe.quote(g, &req, QuoteOptions::default()) {
            Ok(_) => routed += 1,
            Err(e) => missed.push(format!("{a} → {b}: {e}")),
        }
        if internal_join {
            routed_internal += usize::from(internal.quote(g, &req, QuoteOptions::default()).is_ok());
        }
    }
    let share = routed as f64 / joined_safely as f64;
    eprintln!(
        "{pairs} random jetton pairs: {joined_safely} joined by ≤ 3 pools with safe hand-offs ({joined_internally} \
         within one exchange's own chaining); routed {routed} ({:.1} %), with INTERNAL {routed_internal}",
        100.0 * share
    );
    assert!(joined_safely >= 100, "too few joined pairs to judge: {joined_safely}");
    assert!(
        share >= 0.95,
        "{routed} of {joined_safely} routed ({:.1} %); missed:\n{}",
        100.0 * share,
        missed.join("\n")
    );
    // The hand-offs are what makes the difference: one exchange's own chaining joins far fewer pairs.
    assert!(joined_internally < joined_safely, "{joined_internally} vs {joined_safely}");
}

/// A pool's state while the routes of a quote run one after the other.
enum Live {
    /// Re-executed with the formulas below (reserves).
    Written([u128; 2]),
    /// Re-executed with the library's pool code (stable, weighted, concentrated).
    Library(tonroute::pool::Pool),
    Concentrated(tonroute::pool::Concentrated),
}

fn big(v: u128) -> BigUint {
    BigUint::from(v)
}

fn small(v: BigUint) -> u128 {
    u128::try_from(v).expect("fits in u128")
}

/// `ceil(a·b / 10000)`.
fn ceil_bps(a: u128, bps: u32) -> u128 {
    small((big(a) * BigUint::from(bps) + BigUint::from(9_999u32)) / BigUint::from(10_000u32))
}

/// `floor(a·b / 10000)`.
fn floor_bps(a: u128, bps: u32) -> u128 {
    small(big(a) * BigUint::from(bps) / BigUint::from(10_000u32))
}

/// One swap with the contract's formula, on reserves `(r_in, r_out)`: `(amount_out, reserve_in_after,
/// reserve_out_after)`, or `None` where the contract refuses (nothing out, reserve out of range).
fn written_swap(p: &FilePool, r_in: u128, r_out: u128, x: u128) -> Option<(u128, u128, u128)> {
    const MAX: u128 = (1 << 120) - 1;
    match (p.protocol.as_str(), p.curve.as_str()) {
        // dex_b v1 / v2: base = floor(x·(10000 − lp)·r_out / (r_in·10000 + x·(10000 − lp))), protocol fee
        // ceil(base·pf / 10000) taken from the output, no referral; the pool pays base out of its reserve.
        ("dex_b_v1" | "dex_b_v2", "constant_product") => {
            let aif = big(x) * BigUint::from(10_000 - p.lp_fee);
            let base = small(&aif * big(r_out) / (big(r_in) * BigUint::from(10_000u32) + &aif));
            let fee = if p.protocol_fee > 0 { ceil_bps(base, p.protocol_fee) } else { 0 };
            let out = base.checked_sub(fee)?;
            (out > 0 && base < r_out && r_in + x <= MAX).then_some((out, r_in + x, r_out - base))
        }
        // dex_a volatile: the fee floor(x·fee / 10000) is taken from the input (DeDust's own routing plan,
        // tests/data/ton/dedust-routing-plan-response.json), out = floor(net·r_out / (r_in + net)), the whole
        // input credited to the pool.
        ("dex_a", "constant_product") => {
            let net = x - floor_bps(x, p.lp_fee).min(x);
            let out = small(big(net) * big(r_out) / (big(r_in) + big(net)));
            (net > 0 && out > 0 && out < r_out && r_in + x <= MAX).then_some((out, r_in + x, r_out - out))
        }
        _ => None,
    }
}

fn written(p: &FilePool) -> bool {
    matches!((p.protocol.as_str(), p.curve.as_str()), ("dex_b_v1" | "dex_b_v2" | "dex_a", "constant_product"))
}

/// Checks every route of `q` against the rule (`safe` or internal) and re-executes it step by step; returns
/// the number of cross-exchange hand-offs it uses.
fn check_quote(f: &File, g: &PoolGraph, q: &Quote, amount: u128, safe: bool) -> usize {
    let mut live: HashMap<usize, Live> = HashMap::new();
    let (mut total_in, mut total_out, mut cross) = (0u128, 0u128, 0);
    for (k, r) in q.routes.iter().enumerate() {
        let mut x = r.in_amount;
        total_in += x;
        assert_eq!(r.steps.first().map(|s| s.in_asset), Some(q.in_asset), "route {k} starts at the input");
        assert_eq!(r.steps.last().map(|s| s.out_asset), Some(q.out_asset), "route {k} ends at the output");
        for (j, s) in r.steps.iter().enumerate() {
            let i = f.by_address[&s.pool_address.to_hex()];
            let pool = &f.pools[i];
            assert_eq!(pool.protocol, s.protocol.to_string(), "route {k} step {j}");
            let in_index = pool.assets.iter().position(|a| *a == s.in_asset.to_string()).expect("the pool's asset");
            assert_eq!(
                pool.assets[1 - in_index],
                s.out_asset.to_string(),
                "route {k} step {j}: the pool's other asset"
            );
            if j > 0 {
                let prev = &f.pools[f.by_address[&r.steps[j - 1].pool_address.to_hex()]];
                let at = s.in_asset.to_string();
                assert_eq!(r.steps[j - 1].out_asset, s.in_asset, "route {k}: steps chain");
                assert!(
                    may_follow(prev, pool, &at, safe),
                    "route {k} step {j}: {} ({:?}) → {} ({:?}) at {at} is a refused hand-off",
                    prev.protocol,
                    prev.router,
                    pool.protocol,
                    pool.router
                );
                cross += usize::from(!may_follow(prev, pool, &at, false));
            }
            assert_eq!(s.in_amount, x, "route {k} step {j} takes the previous step's exact output");
            let state = live.entry(i).or_insert_with(|| {
                if written(pool) {
                    Live::Written(pool.reserves)
                } else {
                    match g.concentrated(s.pool) {
                        Some(c) => Live::Concentrated(c.as_ref().clone()),
                        None => Live::Library(g.pool_state(s.pool)),
                    }
                }
            });
            let out = match state {
                Live::Written(res) => {
                    let (r_in, r_out) = (res[in_index], res[1 - in_index]);
                    let (out, new_in, new_out) = written_swap(pool, r_in, r_out, x)
                        .unwrap_or_else(|| panic!("route {k} step {j}: the contract would refuse {x}"));
                    res[in_index] = new_in;
                    res[1 - in_index] = new_out;
                    out
                }
                Live::Library(p) => {
                    let res = p.swap(x, s.direction).expect("the pool swaps");
                    p.apply(&res);
                    res.amount_out
                }
                Live::Concentrated(c) => {
                    let (res, after) = c.swap_exact_in(c.state(), x, s.direction).expect("the pool swaps");
                    *c = c.with_state(after).expect("state after a swap");
                    res.amount_out
                }
            };
            assert_eq!(
                s.out_amount, out,
                "route {k} step {j} ({} {}): the contract's formula",
                pool.protocol, pool.curve
            );
            x = out;
        }
        assert_eq!(r.out_amount, x, "route {k}");
        total_out += x;
    }
    assert_eq!((total_in, total_out), (amount, q.out_amount), "the routes add up to the quote");
    cross
}

#[test]
fn the_written_formulas_cover_nearly_every_pool() {
    // The independent re-execution is the contracts' formulas for all but a handful of pools.
    let f = file();
    let others = f.pools.iter().filter(|p| !written(p)).count();
    assert!(others * 50 <= f.pools.len(), "{others} of {} pools outside the written formulas", f.pools.len());
}

#[test]
fn cross_exchange_quotes_re_execute_exactly_and_hand_off_safely() {
    // Deterministic sweep (complements the property below): jetton → jetton / USD₮ / TON at three sizes,
    // and it must meet real cross-exchange routes.
    let f = file();
    let g = graph();
    let safe = router(HandOffPolicy::SAFE);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let usdt = tonroute::asset::known::USDT.to_string();
    let (mut quoted, mut cross) = (0, 0);
    for k in 0..300 {
        let a = f.jettons[rng.below(f.jettons.len())].clone();
        let b = match k % 3 {
            0 => f.jettons[rng.below(f.jettons.len())].clone(),
            1 => usdt.clone(),
            _ => "native".to_string(),
        };
        if a == b {
            continue;
        }
        let amount = usd_amount(f, &a, [10.0, 1_000.0, 100_000.0][rng.below(3)]);
        let Ok(q) = safe.quote(
            g,
            &QuoteRequest::new(a.parse().unwrap(), b.parse().unwrap(), amount).unwrap(),
            QuoteOptions::default(),
        ) else {
            continue;
        };
        quoted += 1;
        cross += check_quote(f, g, &q, amount, true);
    }
    assert!(quoted > 150, "{quoted} quotes");
    assert!(cross > 20, "only {cross} cross-exchange hand-offs in {quoted} quotes");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Random pairs (jetton → jetton, USD₮, TON, and TON → jetton), amounts from one cent to a million
    /// dollars, any limits, either policy: no route contains a hand-off the policy refuses, and every route
    /// re-executes exactly.
    #[test]
    fn no_route_contains_a_refused_hand_off(
        a in any::<prop::sample::Index>(),
        b in any::<prop::sample::Index>(),
        target in 0usize..4,
        log_usd in -2.0f64..6.0,
        max_splits in 1usize..=6,
        max_length in 1usize..=4,
        safe in any::<bool>(),
    ) {
        let f = file();
        let g = graph();
        let from = a.get(&f.jettons).clone();
        let to = match target {
            0 => b.get(&f.jettons).clone(),
            1 => tonroute::asset::known::USDT.to_string(),
            _ => "native".to_string(),
        };
        let (from, to) = if target == 3 { (to, from) } else { (from, to) };
        prop_assume!(from != to);
        let amount = usd_amount(f, &from, 10f64.powf(log_usd));
        let req = QuoteRequest::builder(from.parse::<Asset>().unwrap(), to.parse().unwrap(), amount).max_splits(max_splits).max_length(max_length).build().unwrap();
        let policy = if safe { HandOffPolicy::SAFE } else { HandOffPolicy::INTERNAL };
        if let Ok(q) = router(policy).quote(g, &req, QuoteOptions::default()) {
            for r in &q.routes {
                prop_assert!(r.steps.len() <= max_length);
            }
            prop_assert!(q.routes.len() <= max_splits);
            let cross = check_quote(f, g, &q, amount, safe);
            if !safe {
                prop_assert_eq!(cross, 0);
            }
        }
    }
}
