//! When no route joins two assets, the answer says why — the same for exact-in and exact-out — and names the
//! assets by ticker and id: unreachable at any length, reachable only beyond `max_length` (with the length that
//! works), or joined only through hand-offs one route may not make (naming them, with a two-swap way). Checked through the built binary the way a
//! user runs it, against an independent breadth-first search over the snapshot's JSON.
#![cfg(feature = "server")]

use crate::common;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use common::bin::{repo, run_tonroute};
use serde_json::Value;
use tonroute::asset::Asset;
use tonroute::graph::{AssetMeta, GraphBuilder, PoolContext, Protocol};
use tonroute::pool::{ConstantProduct, Curve, FeeModel};
use tonroute::route::{NoRouteReason, QuoteOptions, QuoteRequest, RouteError, Router, SwapMode};

/// `tonroute quote ARGS --json`: (exit code, the `{code, message}` error on stderr's first line: the API's
/// message, as `--json` machine output keeps it).
fn quote_error(args: &[&str]) -> (i32, i64, String) {
    let mut argv = vec!["quote"];
    argv.extend_from_slice(args);
    argv.push("--json");
    let out = run_tonroute(&repo(), &argv, None);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let first = stderr.lines().next().unwrap_or_default();
    let v: Value = serde_json::from_str(first).unwrap_or_else(|e| panic!("{argv:?}: {e}: {stderr}"));
    (out.status.code().unwrap_or(-1), v["code"].as_i64().unwrap_or(0), v["message"].as_str().unwrap_or("").to_string())
}

/// Independent reading of the snapshot: symbol → id, and every pool as (protocol, router, asset pair).
struct Units {
    id: BTreeMap<String, String>,
    pools: Vec<(String, String, String, String)>,
    all: Vec<(String, String)>,
}

fn units() -> Units {
    let snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("data/snapshot.json")).unwrap()).unwrap();
    let id = snapshot["assets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["symbol"].as_str().unwrap().to_string(), a["asset"].as_str().unwrap().to_string()))
        .collect();
    let mut pools = Vec::new();
    let mut all = Vec::new();
    for p in snapshot["pools"].as_array().unwrap() {
        let pair = (p["assets"][0].as_str().unwrap().to_string(), p["assets"][1].as_str().unwrap().to_string());
        all.push(pair.clone());
        let router = p["router"].as_str().unwrap_or_default().to_string();
        pools.push((p["protocol"].as_str().unwrap().to_string(), router, pair.0, pair.1));
    }
    Units { id, pools, all }
}

/// Hops of the shortest path from `a` to `b` over `pools`, if any.
fn bfs(pools: &[(String, String)], a: &str, b: &str) -> Option<usize> {
    let mut adj: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (x, y) in pools {
        adj.entry(x).or_default().push(y);
        adj.entry(y).or_default().push(x);
    }
    let mut seen = BTreeSet::from([a]);
    let mut queue = VecDeque::from([(a, 0)]);
    while let Some((at, d)) = queue.pop_front() {
        if at == b {
            return Some(d);
        }
        for n in adj.get(at).into_iter().flatten() {
            if seen.insert(n) {
                queue.push_back((n, d + 1));
            }
        }
    }
    None
}

impl Units {
    /// The hand-off rule (docs/cross-exchange.md) on protocols and the asset handed over: nothing after or
    /// into dex_b_v1, nothing into dex_a from elsewhere, no TON out of dex_a; everything else may follow.
    fn may_follow(&self, prev: usize, next: usize, at: &str) -> bool {
        match (self.pools[prev].0.as_str(), self.pools[next].0.as_str()) {
            ("dex_b_v1", _) | (_, "dex_b_v1") => false,
            ("dex_a", "dex_a") => true,
            (_, "dex_a") => false,
            ("dex_a", _) => at != "native",
            _ => true,
        }
    }

    /// Shortest single route: breadth-first over (asset, pool that reached it), each pool allowed to follow
    /// the previous one by the rule.
    fn shortest_route(&self, a: &str, b: &str) -> Option<usize> {
        let next = |at: &str| -> Vec<(usize, String)> {
            self.pools
                .iter()
                .enumerate()
                .filter_map(|(i, p)| match () {
                    _ if p.2 == at => Some((i, p.3.clone())),
                    _ if p.3 == at => Some((i, p.2.clone())),
                    _ => None,
                })
                .collect()
        };
        let mut seen: BTreeSet<(String, usize)> = BTreeSet::new();
        let mut queue: VecDeque<(String, usize, usize)> = VecDeque::new();
        for (i, to) in next(a) {
            if to == b {
                return Some(1);
            }
            if seen.insert((to.clone(), i)) {
                queue.push_back((to, i, 1));
            }
        }
        while let Some((at, prev, hops)) = queue.pop_front() {
            for (i, to) in next(&at) {
                if i == prev || !self.may_follow(prev, i, &at) {
                    continue;
                }
                if to == b {
                    return Some(hops + 1);
                }
                if seen.insert((to.clone(), i)) {
                    queue.push_back((to, i, hops + 1));
                }
            }
        }
        None
    }
}

#[test]
fn joined_only_across_exchanges_says_so_in_both_modes() {
    let u = units();
    let (jt5, jt9) = (&u.id["JT5"], &u.id["JT9"]);
    // Independently: no single route at any length, some chain of pools, and TON is a two-swap way.
    assert_eq!(u.shortest_route(jt5, jt9), None);
    assert!(bfs(&u.all, jt5, jt9).is_some());
    assert!(u.shortest_route(jt5, "native").is_some() && u.shortest_route("native", jt9).is_some());

    let exact_in = quote_error(&["JT5", "JT9", "1000000000000"]);
    let longer = quote_error(&["JT5", "JT9", "1000000000000", "--max-length", "5"]);
    let exact_out = quote_error(&["JT5", "JT9", "1000000000000", "--exact-out"]);
    assert_eq!(exact_in.0, 1);
    assert_eq!((exact_in.1, exact_out.1, longer.1), (3001, 3001, 3001));
    assert_eq!(exact_in.2, exact_out.2, "exact-in and exact-out answer alike");
    assert_eq!(exact_in.2, longer.2, "a longer max_length does not help, and the message says why");
    let m = &exact_in.2;
    assert!(m.starts_with(&format!("no route from JT5 ({jt5}) to JT9 ({jt9}): ")), "{m}");
    assert!(m.contains("they meet only through hand-offs one route may not make: "), "{m}");
    // JT5 trades on dex_b_v2, JT9 against TON only on dex_a: TON would have to enter dex_a from dex_b_v2.
    assert!(m.contains("at TON (native), dex_a cannot take a hand-off from another exchange"), "{m}");
    assert!(m.contains("the output on dex_a, dex_b_v1"), "{m}");
    assert!(m.ends_with("swap in two steps, through TON (native)"), "{m}");
    assert!(!m.contains("within 3 hops"), "{m}");
}

#[test]
fn reachable_only_beyond_max_length_names_the_length_that_works() {
    let u = units();
    let (from, to) = (&u.id["sUSD1"], &u.id["JT859"]);
    assert_eq!(u.shortest_route(from, to), Some(4), "the independent search");
    for max_length in ["2", "3"] {
        let exact_in = quote_error(&["sUSD1", "JT859", "1000000000", "--max-length", max_length]);
        let exact_out = quote_error(&["sUSD1", "JT859", "1000", "--max-length", max_length, "--exact-out"]);
        assert_eq!((exact_in.1, exact_out.1), (3001, 3001));
        assert_eq!(exact_in.2, exact_out.2);
        assert_eq!(
            exact_in.2,
            format!(
                "no route from sUSD1 ({from}) to JT859 ({to}): the shortest route has 4 hops, more than max_length \
                 {max_length} (ask with max_length 4)"
            )
        );
    }
    // And with the length it names, there is a quote.
    let ok = run_tonroute(&repo(), &["quote", "sUSD1", "JT859", "1000000000", "--max-length", "4", "--json"], None);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    let q: Value = serde_json::from_slice(&ok.stdout).unwrap();
    assert!(q["swap_data"]["routes"].as_array().unwrap().iter().any(|r| r.as_array().unwrap().len() == 4));
}

#[test]
fn unknown_tickers_suggest_the_nearest_ones() {
    let u = units();
    let (exit, code, m) = quote_error(&["USDTT", "TON", "100"]);
    assert_eq!((exit, code), (1, 2001));
    assert!(m.starts_with("field `in_minter`: `USDTT` is neither an asset id"), "{m}");
    assert!(m.contains(&format!("nearest tickers: USD₮ ({})", u.id["USD₮"])), "{m}");
    let (_, code, m) = quote_error(&["TON", "jt5x", "100"]);
    assert_eq!(code, 2001);
    assert!(m.contains("field `out_minter`: `jt5x`") && m.contains(&format!("JT5 ({})", u.id["JT5"])), "{m}");
    // An address-looking input still gets the address parser's answer.
    let (_, code, m) = quote_error(&["EQabc", "TON", "100"]);
    assert_eq!(code, 1010);
    assert!(m.contains("a friendly address has exactly 48"), "{m}");
}

#[test]
fn disconnected_assets_are_named_in_both_modes() {
    // Two islands: TON–A on dex_b_v2, B–C on dex_a.
    let mut b = GraphBuilder::new();
    let jetton = |n: u8| Asset::Jetton(tonroute::asset::JettonMaster([n; 32]));
    let ton = b.add_asset(AssetMeta::new(Asset::Native, "TON", 9)).unwrap();
    let a = b.add_asset(AssetMeta::new(jetton(1), "A", 9)).unwrap();
    let bb = b.add_asset(AssetMeta::new(jetton(2), "B", 9)).unwrap();
    let c = b.add_asset(AssetMeta::new(jetton(3), "C", 9)).unwrap();
    let cp = || Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 30, 0, 0));
    let addr = |n: u8| tonlib_core::TonAddress::new(0, [n; 32].into());
    let r = [10u128.pow(15); 2];
    b.add_pool(addr(9), Protocol::DexBV2, [ton, a], cp(), r, PoolContext::default(), None).unwrap();
    b.add_pool(addr(8), Protocol::DexA, [bb, c], cp(), r, PoolContext::default(), None).unwrap();
    let g = b.build();
    let req = QuoteRequest::new(Asset::Native, jetton(3), 1_000_000).unwrap();
    let e_in = Router::default().quote(&g, &req, QuoteOptions::default()).unwrap_err();
    let req = req.to_builder().swap_mode(SwapMode::ExactOut).build().unwrap();
    let e_out = Router::default().quote(&g, &req, QuoteOptions::default()).unwrap_err();
    assert_eq!(e_in, e_out);
    assert!(matches!(&e_in, RouteError::NoRoute { reason, .. } if **reason == NoRouteReason::Disconnected), "{e_in:?}");
    assert_eq!(
        e_in.to_string(),
        format!(
            "no route from TON (native) to C ({}): no chain of pools joins them, of any length or exchange",
            jetton(3)
        )
    );
}
