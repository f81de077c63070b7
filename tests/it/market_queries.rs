//! The market-data operations over the bundled `data/market.json` as pure functions: every filter, sort,
//! limit and error of docs/interface.md area (A). Expected values are recomputed in the test from other answers or
//! from the raw files (trades re-simulated with `tonroute::pool`, candles re-aggregated from the trade list,
//! filters re-applied to the unfiltered listing), never copied from an answer of the same operation.
#![cfg(feature = "serde")]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde_json::Value;
use tonroute::api::market::wire::*;
use tonroute::asset::Asset;
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;
use tonroute::market::types::*;
use tonroute::market::MarketData;
use tonroute::pool::{Curve, Direction};
use tonroute_synth::market::{generate, MarketGenConfig};

#[path = "common/market.rs"]
mod market_common;

use market_common::{api, code, f, file, json, q, view, MARKET, NOT, SNAPSHOT, USDT};

// The store under test: the one of the module that mounts this file (the crate root's in-memory replay, or
// `market_store_sqlite` / `market_store_postgres`'s database store).
use super::market_store;

fn now() -> i64 {
    view().now()
}

fn unix(date: &Value) -> i64 {
    DateTime::parse(date.as_str().unwrap()).unwrap().unix()
}

// ---------------------------------------------------------------- data

#[test]
fn bundled_market_file_regenerates_byte_identical() {
    let snapshot = Snapshot::from_json(SNAPSHOT).unwrap();
    let file = generate(&snapshot, &MarketGenConfig::default()).unwrap();
    let text = tonroute::market::replay::to_json_lines(&file).unwrap();
    assert!(text == MARKET, "data/market.json differs from the generator's output; see data/README.md");
}

#[test]
fn trades_replay_with_the_pool_math_and_move_prices() {
    // An independent replay: pools straight from the snapshot, every trade re-simulated with tonroute::pool.
    let graph = PoolGraph::from_json(SNAPSHOT).unwrap();
    let mut pools: BTreeMap<String, tonroute::pool::Pool> = BTreeMap::new();
    let mut moved = BTreeSet::new();
    let mut concentrated_trades = 0;
    for t in &file().trades {
        let id = graph.pool_id(&t.pool.parse().unwrap()).unwrap();
        let meta = graph.pool(id);
        let pool = pools.entry(t.pool.clone()).or_insert_with(|| graph.pool_state(id));
        let asset_in = Asset::parse(&t.asset_in).unwrap();
        let dir =
            if graph.asset(meta.assets[0]).asset == asset_in { Direction::ZeroToOne } else { Direction::OneToZero };
        let amount_in = t.amount_in.parse().unwrap();
        let r = pool.swap(amount_in, dir).unwrap();
        assert_eq!(r.amount_out.to_string(), t.amount_out, "trade at {} on {}", t.time, t.pool);
        pool.apply(&r);
        // A concentrated pool swaps from its own state: the next trade starts where this one left it.
        if let Curve::Concentrated(c) = &pool.curve {
            let (_, state) = c.swap_exact_in(c.state(), amount_in, dir).unwrap();
            pool.curve = Curve::Concentrated(c.with_state(state).unwrap());
            concentrated_trades += 1;
        }
        moved.insert(t.pool.clone());
    }
    assert!(moved.len() >= 50, "{} pools traded", moved.len());
    assert!(concentrated_trades >= 100, "{concentrated_trades} trades on dex_c pools");
    // The view's reserves are the replay's final reserves, and they differ from the snapshot's.
    for (addr, pool) in &pools {
        let got = api().get_pool(addr, None).unwrap();
        let reserves: Vec<u128> = got.pool.reserves.iter().map(|r| r.as_str().parse().unwrap()).collect();
        assert_eq!(reserves, pool.reserves.to_vec(), "{addr}");
        let id = graph.pool_id(&addr.parse().unwrap()).unwrap();
        assert_ne!(graph.reserves(id), pool.reserves, "{addr} did not move");
    }
    // The router's graph, moved to the end of the sample (what `serve --market` does), holds the replay's
    // pools: reserves, and for concentrated pools the state the last trade left (issue #15).
    let router_graph = PoolGraph::from_json(SNAPSHOT).unwrap();
    let moved_pools = view().data().apply_to(&router_graph, view().now()).unwrap();
    assert_eq!(moved_pools, pools.len());
    let mut concentrated = 0;
    for (addr, pool) in &pools {
        let id = router_graph.pool_id(&addr.parse().unwrap()).unwrap();
        assert_eq!(router_graph.reserves(id), pool.reserves, "{addr}");
        if let Curve::Concentrated(c) = &pool.curve {
            assert_eq!(router_graph.concentrated(id).unwrap().state(), c.state(), "{addr}");
            concentrated += 1;
        }
    }
    assert_eq!(concentrated, 4);
    // A trade that does not match the math is refused on load.
    let mut bad = file().clone();
    let n: u128 = bad.trades[10].amount_out.parse().unwrap();
    bad.trades[10].amount_out = (n + 1).to_string();
    let e = MarketData::load(PoolGraph::from_json(SNAPSHOT).unwrap(), &bad).unwrap_err();
    assert!(e.to_string().contains("trade #10"), "{e}");
}

// ---------------------------------------------------------------- /coin

#[test]
fn get_coin_happy_path_and_errors() {
    let c = json(&api().get_coin(&q("asset=native")).unwrap());
    assert_eq!(c["metadata"]["ticker"], "TON");
    assert_eq!(c["price"]["ton_value"], "1");
    assert!(c.get("extra_details").is_none() && c.get("memecoin_extra_details").is_none());
    // The friendly form of USD₮'s master names the same coin.
    let a = json(&api().get_coin(&q("asset=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs")).unwrap());
    assert_eq!(a["asset"], USDT);
    let x = json(&api().get_coin(&q(&format!("asset={NOT}&extra_details=true"))).unwrap());
    let pools = x["extra_details"]["liquidity_pools"].as_array().unwrap();
    assert!(!pools.is_empty());
    let w: f64 = pools.iter().map(|p| f(&p["weight"])).sum();
    assert!((w - 1.0).abs() < 1e-9, "weights sum to {w}");
    let (h7, l7) = (f(&x["extra_details"]["7d_high"]), f(&x["extra_details"]["7d_low"]));
    assert!(h7 >= l7 && f(&x["ath_usd"]) >= h7 && f(&x["atl_usd"]) <= l7);
    // The coin's price is its last trade's.
    let last = json(&api().get_coin_transactions(&q(&format!("asset={NOT}&limit=1"))).unwrap());
    assert_eq!(x["price"]["usd_value"], last["items"][0]["price_usd"]);
    // Memecoin details exist only for launch-pad coins.
    let meme = file().coins.iter().find(|c| c.memepad.is_some()).unwrap();
    let m = json(&api().get_coin(&q(&format!("asset={}&memecoin_extra_details=true", meme.asset))).unwrap());
    assert_eq!(m["memecoin_extra_details"]["curve_ton_max"], meme.memepad.as_ref().unwrap().curve_ton_max.as_str());
    assert_eq!(code(api().get_coin(&q(""))), (400, 6002));
    assert_eq!(code(api().get_coin(&q("asset=bogus"))), (400, 6008));
    assert_eq!(code(api().get_coin(&q("asset=native&extra_details=yes"))), (400, 6000));
    assert_eq!(code(api().get_coin(&q("asset=native&colour=red"))), (400, 6001));
    let unknown = format!("jetton:0:{}", "ab".repeat(32));
    assert_eq!(code(api().get_coin(&q(&format!("asset={unknown}")))), (404, 6400));
}

// ---------------------------------------------------------------- /coins

/// Every coin (all levels, with and without trades, every detail), in two pages.
fn universe() -> &'static Vec<Value> {
    static U: OnceLock<Vec<Value>> = OnceLock::new();
    U.get_or_init(|| {
        let mut all = Vec::new();
        for offset in [0, 500] {
            let r = api()
                .get_coins(&q(&format!(
                    "limit=500&offset={offset}&filter_by_verification_level=1,2,3,4&include_without_price=true\
                     &memecoin_extra_details=true&calculate_total_volume=true"
                )))
                .unwrap();
            all.extend(json(&r)["items"].as_array().unwrap().iter().cloned());
        }
        all
    })
}

fn coins(query: &str) -> (Vec<Value>, Option<i64>) {
    let r = api().get_coins(&q(query)).unwrap();
    (json(&r)["items"].as_array().unwrap().clone(), r.total_count)
}

fn assets(items: &[Value]) -> BTreeSet<String> {
    items.iter().map(|c| c["asset"].as_str().unwrap().to_string()).collect()
}

/// The coins `filter` adds to `base` (levels 1–4, with and without price) must be exactly the universe's
/// coins for which `keep` holds.
fn check_filter(filter: &str, keep: impl Fn(&Value) -> bool) {
    let base = "limit=500&filter_by_verification_level=1,2,3,4&include_without_price=true&memecoin_extra_details=true";
    let (items, total) = coins(&format!("{base}&{filter}"));
    let want: BTreeSet<String> = assets(&universe().iter().filter(|c| keep(c)).cloned().collect::<Vec<_>>());
    assert!(!want.is_empty() || filter.contains("none"), "filter {filter} selects nothing; pick another value");
    assert_eq!(total, Some(want.len() as i64), "{filter}");
    if want.len() <= 500 {
        assert_eq!(assets(&items), want, "{filter}");
    }
}

#[test]
fn coins_defaults() {
    let (items, total) = coins("");
    assert_eq!(items.len(), 20);
    // Default: levels 3 and 4, coins with trades only.
    let want = universe()
        .iter()
        .filter(|c| matches!(c["verification_level"].as_i64(), Some(3 | 4)) && c.get("price").is_some())
        .count();
    assert_eq!(total, Some(want as i64));
    assert!(items.iter().all(|c| c.get("volume").is_some() && c["volume"].get("total_volume").is_none()));
    // Default order: liquidity, descending.
    let l: Vec<f64> = items.iter().map(|c| f(&c["liquidity"])).collect();
    assert!(l.windows(2).all(|w| w[0] >= w[1]), "{l:?}");
    let (compact, _) = coins("compact=true&limit=3");
    for c in &compact {
        assert!(c.get("volume").is_none() && c.get("traders").is_none() && c["price"].get("usd_change").is_none());
        assert!(c.get("price").is_some() && c.get("market_cap").is_some());
    }
    let (_, none) = coins("skip_total_count=true");
    assert_eq!(none, None);
    let (with_total, _) = coins("calculate_total_volume=true&limit=1");
    assert!(with_total[0]["volume"]["total_volume"]["ton"].as_str().is_some());
    // Pagination: consecutive pages tile the whole ordering.
    let (all, _) = coins("limit=500");
    let (p1, _) = coins("limit=7&offset=3");
    assert_eq!(p1, all[3..10].to_vec());
}

#[test]
fn coins_every_filter() {
    let u = universe();
    let tagged = |c: &Value, t: &str| c["tags"].as_array().unwrap().iter().any(|x| x == t);
    check_filter("query=noTcOiN", |c| {
        c["metadata"]["name"].as_str().unwrap().to_lowercase().contains("notcoin")
            || c["metadata"]["ticker"].as_str().unwrap().to_lowercase().contains("notcoin")
    });
    check_filter("query=JT12", |c| {
        c["metadata"]["ticker"].as_str().unwrap().contains("JT12")
            || c["metadata"]["name"].as_str().unwrap().to_uppercase().contains("JT12")
    });
    check_filter(&format!("query={USDT}"), |c| c["asset"] == USDT);
    check_filter(&format!("filter_by_assets={USDT},{NOT}"), |c| c["asset"] == USDT || c["asset"] == NOT);
    check_filter(&format!("exclude_assets=native,{NOT}"), |c| c["asset"] != "native" && c["asset"] != NOT);
    check_filter("filter_by_tags=gaming", |c| tagged(c, "gaming"));
    check_filter("filter_by_tags=gaming,community", |c| tagged(c, "gaming") && tagged(c, "community"));
    check_filter("exclude_tags=memecoin,defi", |c| !tagged(c, "memecoin") && !tagged(c, "defi"));
    let author = &file().coins[7].author;
    let author_friendly = author.parse::<tonlib_core::TonAddress>().unwrap().to_base64_url();
    let by_author: BTreeSet<&str> =
        file().coins.iter().filter(|c| &c.author == author).map(|c| c.asset.as_str()).collect();
    check_filter(&format!("filter_by_author={author_friendly}"), |c| by_author.contains(c["asset"].as_str().unwrap()));
    check_filter("liquidity_usd_min=1000&liquidity_usd_max=50000", |c| {
        (1000.0..=50000.0).contains(&f(&c["liquidity"]))
    });
    check_filter("holders_min=1000&holders_max=5000", |c| (1000..=5000).contains(&c["holders"].as_i64().unwrap()));
    check_filter("market_cap_usd_min=100000", |c| c.get("market_cap").is_some_and(|m| f(m) >= 100000.0));
    check_filter("created_at_min=2024-06-01T00:00:00Z&created_at_max=2024-10-01T00:00:00Z", |c| {
        (1_717_200_000..=1_727_740_800).contains(&unix(&c["created_at"]))
    });
    check_filter("filter_period=24h&volume_usd_min=1000", |c| f(&c["volume"]["periods"]["h24"]) >= 1000.0);
    check_filter("filter_period=1h&transactions_min=1&transactions_max=3", |c| {
        let n = c["transactions"]["buy"]["h1"].as_f64().unwrap() + c["transactions"]["sell"]["h1"].as_f64().unwrap();
        (1.0..=3.0).contains(&n)
    });
    let progress = |c: &Value| {
        c.get("memecoin_extra_details").map(|m| f(&m["curve_ton_collected"]) / f(&m["curve_ton_max"]) * 100.0)
    };
    check_filter("bonding_curve_percentage_min=20&bonding_curve_percentage_max=80", |c| {
        progress(c).is_some_and(|p| (20.0..=80.0).contains(&p))
    });
    let (level1, _) = coins("limit=500&filter_by_verification_level=1&include_without_price=true");
    assert_eq!(
        assets(&level1),
        assets(&u.iter().filter(|c| c["verification_level"] == 1).cloned().collect::<Vec<_>>())
    );
    assert!(!level1.is_empty());
    // include_without_price: without it, coins without trades (no price) are left out.
    let base = "limit=500&filter_by_verification_level=1,2,3,4";
    let (priced, _) = coins(base);
    assert_eq!(assets(&priced), assets(&u.iter().filter(|c| c.get("price").is_some()).cloned().collect::<Vec<_>>()));
    assert!(u.len() > priced.len());
}

#[test]
fn coins_every_sort() {
    let p = |c: &Value, path: &[&str]| -> Option<f64> {
        let mut v = c;
        for k in path {
            v = v.get(*k)?;
        }
        Some(v.as_f64().unwrap_or_else(|| f(v)))
    };
    type Key = Box<dyn Fn(&Value) -> Option<f64>>;
    let cases: Vec<(&str, Key)> = vec![
        ("sort_by=price", Box::new(move |c| p(c, &["price", "usd_value"]))),
        ("sort_by=market_cap", Box::new(move |c| p(c, &["market_cap"]))),
        ("sort_by=liquidity", Box::new(move |c| p(c, &["liquidity"]))),
        ("sort_by=holders", Box::new(move |c| p(c, &["holders"]))),
        ("sort_by=age", Box::new(|c| Some((now() - unix(&c["created_at"])) as f64))),
        ("sort_by=price_change&sort_period=1h", Box::new(move |c| p(c, &["price", "usd_change", "h1"]))),
        ("sort_by=volume&sort_period=7d", Box::new(move |c| p(c, &["volume", "periods", "d7"]))),
        (
            "sort_by=transactions&sort_period=6h",
            Box::new(move |c| Some(p(c, &["transactions", "buy", "h6"])? + p(c, &["transactions", "sell", "h6"])?)),
        ),
        (
            "sort_by=curve_progress",
            Box::new(move |c| {
                Some(
                    p(c, &["memecoin_extra_details", "curve_ton_collected"])?
                        / p(c, &["memecoin_extra_details", "curve_ton_max"])?,
                )
            }),
        ),
    ];
    for (sort, key) in cases {
        for dir in ["asc", "desc"] {
            let (items, _) = coins(&format!(
                "{sort}&sort_direction={dir}&limit=500&filter_by_verification_level=1,2,3,4&memecoin_extra_details=true"
            ));
            let keys: Vec<Option<f64>> = items.iter().map(&key).collect();
            // Present keys are ordered; absent ones come last.
            let present: Vec<f64> = keys.iter().map_while(|k| *k).collect();
            assert!(keys[present.len()..].iter().all(Option::is_none), "{sort}: missing keys not last");
            assert!(present.len() > 1, "{sort}");
            let ok = present.windows(2).all(|w| if dir == "asc" { w[0] <= w[1] } else { w[0] >= w[1] });
            assert!(ok, "{sort} {dir}: {present:?}");
        }
    }
}

#[test]
fn coins_limits_and_errors() {
    let e = |s: &str| code(api().get_coins(&q(s)));
    assert_eq!(coins("limit=500").0.len().min(500), coins("limit=500").0.len());
    assert_eq!(e("limit=501"), (400, 6004));
    assert_eq!(e("limit=0"), (400, 6004));
    assert_eq!(e("limit=ten"), (400, 6000));
    assert_eq!(e("offset=-1"), (400, 6005));
    assert_eq!(e("sort_by=volume"), (400, 6006));
    assert_eq!(e("sort_by=price_change"), (400, 6006));
    assert_eq!(e("sort_by=transactions"), (400, 6006));
    assert_eq!(e("sort_by=rank"), (400, 6000));
    assert_eq!(e("sort_by=price&sort_period=2h"), (400, 6000));
    assert_eq!(e("sort_direction=up"), (400, 6000));
    assert_eq!(e("volume_usd_min=5"), (400, 6006));
    assert_eq!(e("transactions_max=5"), (400, 6006));
    assert_eq!(e("filter_by_verification_level=0"), (400, 6000));
    assert_eq!(e("filter_by_verification_level=3,5"), (400, 6000));
    assert_eq!(e("filter_by_assets=native,nope"), (400, 6008));
    assert_eq!(e("filter_by_author=nope"), (400, 6009));
    assert_eq!(e("liquidity_usd_min=1e3"), (400, 6000));
    assert_eq!(e("holders_min=1.5"), (400, 6000));
    assert_eq!(e("created_at_min=2024-01-01"), (400, 6000));
    assert_eq!(e("liquidity_usd_min=10&liquidity_usd_max=5"), (400, 6007));
    assert_eq!(e("bonding_curve_percentage_max=101"), (400, 6013));
    assert_eq!(e("limit=5&limit=6"), (400, 6003));
    assert_eq!(e("sortby=price"), (400, 6001));
    assert_eq!(e("compact=1"), (400, 6000));
}

// ---------------------------------------------------------------- /coin_transactions

fn all_transactions(asset: &str, extra: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for page in 0.. {
        let r = api()
            .get_coin_transactions(&q(&format!(
                "asset={asset}&limit=100&offset={}&sort_direction=asc{extra}",
                page * 100
            )))
            .unwrap();
        let items = json(&r)["items"].as_array().unwrap().clone();
        let n = items.len();
        out.extend(items);
        if n < 100 {
            break;
        }
    }
    out
}

#[test]
fn coin_transactions_filters_sorts_and_prices() {
    let all = all_transactions(NOT, "");
    // Independent count: the raw trades naming NOT.
    let raw = file().trades.iter().filter(|t| t.asset_in == NOT || t.pool_has(NOT)).count();
    assert_eq!(all.len(), raw);
    let times: Vec<i64> = all.iter().map(|t| unix(&t["trade_date"])).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]));
    let desc = json(&api().get_coin_transactions(&q(&format!("asset={NOT}&limit=100"))).unwrap());
    assert_eq!(unix(&desc["items"][0]["trade_date"]), *times.last().unwrap());
    assert_eq!(desc["items"].as_array().unwrap().len(), 100);
    assert_eq!(
        json(&api().get_coin_transactions(&q(&format!("asset={NOT}"))).unwrap())["items"].as_array().unwrap().len(),
        20
    );
    // Buy = NOT came out; price_ton in a NOT/TON trade is the TON amount over the NOT amount.
    for t in &all {
        let buy = t["trade_asset_out"] == NOT;
        assert_eq!(t["type"], if buy { "buy" } else { "sell" });
        let (a_in, a_out) = (f(&t["trade_asset_in_amount"]), f(&t["trade_asset_out_amount"]));
        if t["trade_asset_in"] == "native" || t["trade_asset_out"] == "native" {
            let (not, ton) = if buy { (a_out, a_in) } else { (a_in, a_out) };
            let rate = ton / not; // both 9 decimals
            assert!((f(&t["price_ton"]) / rate - 1.0).abs() < 1e-9, "{t}");
        }
    }
    // Every filter, checked against the full list.
    let sub = |extra: &str, keep: &dyn Fn(&Value) -> bool| {
        let got = all_transactions(NOT, extra);
        let want: Vec<Value> = all.iter().filter(|t| keep(t)).cloned().collect();
        assert!(!want.is_empty(), "{extra}");
        assert_eq!(got, want, "{extra}");
    };
    sub("&type=buy", &|t| t["type"] == "buy");
    sub("&type=sell", &|t| t["type"] == "sell");
    let pool = all[0]["pool_address"].as_str().unwrap().to_string();
    sub(&format!("&pool_address={pool}"), &|t| t["pool_address"] == pool.as_str());
    let trader = all[3]["trader_address"].as_str().unwrap().to_string();
    sub(&format!("&trader_address={trader}"), &|t| t["trader_address"] == trader.as_str());
    // Inclusive bounds: a window that starts and ends exactly on trades keeps both.
    let (a, b) = (times[10], times[40]);
    let d = |s: i64| DateTime::from_unix(s).unwrap().to_string();
    sub(&format!("&start_date={}&end_date={}", d(a), d(b)), &|t| (a..=b).contains(&unix(&t["trade_date"])));
    sub(&format!("&start_date={}&end_date={}", d(a), d(a)), &|t| unix(&t["trade_date"]) == a);
    sub("&volume_usd_min=50&volume_usd_max=500", &|t| (50.0..=500.0).contains(&f(&t["volume_usd"])));
    sub("&sort_by=age", &|_| true);
}

#[test]
fn coin_transactions_limits_and_errors() {
    let e = |s: &str| code(api().get_coin_transactions(&q(s)));
    assert_eq!(e(""), (400, 6002));
    assert_eq!(e("asset=native&limit=101"), (400, 6004));
    assert_eq!(e("asset=native&limit=0"), (400, 6004));
    assert_eq!(e("asset=native&offset=-5"), (400, 6005));
    assert_eq!(e("asset=native&volume_usd_min=10&volume_usd_max=10"), (400, 6007));
    assert_eq!(e("asset=native&volume_usd_min=10&volume_usd_max=5"), (400, 6007));
    assert_eq!(e("asset=native&start_date=2024-11-21T00:00:00Z&end_date=2024-11-20T00:00:00Z"), (400, 6007));
    assert_eq!(e("asset=native&type=swap"), (400, 6000));
    assert_eq!(e("asset=native&sort_by=price"), (400, 6000));
    assert_eq!(e("asset=native&pool_address=xyz"), (400, 6009));
    assert_eq!(e("asset=native&start_date=today"), (400, 6000));
    assert_eq!(e("asset=x"), (400, 6008));
    assert_eq!(e(&format!("asset=jetton:0:{}", "cd".repeat(32))), (404, 6400));
    // An offset past the end is an empty page, not an error.
    assert!(api().get_coin_transactions(&q("asset=native&offset=100000")).unwrap().items.is_empty());
}

// ---------------------------------------------------------------- charts

/// OHLCV re-aggregated in the test from `(time, price, volume)` points.
fn aggregate(points: &[(i64, f64, f64)], len: i64) -> Vec<(i64, f64, f64, f64, f64, f64, f64)> {
    let mut out: Vec<(i64, f64, f64, f64, f64, f64, f64)> = Vec::new();
    for &(t, p, v) in points {
        let b = t - t.rem_euclid(len);
        match out.last_mut() {
            Some(c) if c.0 == b => {
                c.3 = c.3.max(p);
                c.4 = c.4.min(p);
                c.5 = p;
                c.6 += v;
            }
            _ => {
                let open = out.last().map_or(p, |c| c.5);
                out.push((b, open, p, p.max(open), p.min(open), p, v));
            }
        }
    }
    for c in &mut out {
        c.3 = c.3.max(c.1);
        c.4 = c.4.min(c.1);
    }
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
}

fn same_candles(got: &Value, want: &[(i64, f64, f64, f64, f64, f64, f64)], what: &str) {
    let got = got.as_array().unwrap();
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g["time"].as_i64().unwrap(), w.0, "{what}");
        for (k, x) in [("open", w.1), ("raw_open", w.2), ("high", w.3), ("low", w.4), ("close", w.5), ("volume", w.6)] {
            assert!(close(f(&g[k]), x), "{what} {k}: {} vs {x}", g[k]);
        }
    }
}

#[test]
fn chart_candles_come_from_the_trades_for_every_period() {
    let trades = all_transactions(NOT, "");
    let usd: Vec<(i64, f64, f64)> =
        trades.iter().map(|t| (unix(&t["trade_date"]), f(&t["price_usd"]), f(&t["volume_usd"]))).collect();
    let ton: Vec<(i64, f64, f64)> =
        trades.iter().map(|t| (unix(&t["trade_date"]), f(&t["price_ton"]), f(&t["volume_ton"]))).collect();
    for period in ChartPeriod::ALL {
        let r = json(&api().get_chart(&q(&format!("asset={NOT}&period={period}&limit=5000"))).unwrap());
        same_candles(&r["usd_hlocv"], &aggregate(&usd, period.seconds()), &format!("usd {period}"));
        same_candles(&r["ton_hlocv"], &aggregate(&ton, period.seconds()), &format!("ton {period}"));
        assert_eq!(r["opposite_asset_hlocv"], Value::Array(vec![]));
    }
    // Opposite asset: the NOT price in TON from NOT/TON trades only, volume in TON.
    let opp: Vec<(i64, f64, f64)> = trades
        .iter()
        .filter(|t| t["trade_asset_in"] == "native" || t["trade_asset_out"] == "native")
        .map(|t| {
            let (ai, ao) = (f(&t["trade_asset_in_amount"]) / 1e9, f(&t["trade_asset_out_amount"]) / 1e9);
            let (not, ton) = if t["trade_asset_out"] == NOT { (ao, ai) } else { (ai, ao) };
            (unix(&t["trade_date"]), ton / not, ton)
        })
        .collect();
    let r = json(&api().get_chart(&q(&format!("asset={NOT}&period=1h&opposite_asset=native&limit=5000"))).unwrap());
    same_candles(&r["opposite_asset_hlocv"], &aggregate(&opp, 3600), "opposite 1h");
    // Bounds are inclusive and limit keeps the latest candles.
    let full = aggregate(&usd, 3600);
    let r = json(&api().get_chart(&q(&format!("asset={NOT}&period=1h&limit=5"))).unwrap());
    assert_eq!(r["usd_hlocv"].as_array().unwrap().len(), 5);
    assert_eq!(r["usd_hlocv"][4]["time"].as_i64().unwrap(), full.last().unwrap().0);
    let d = |s: i64| DateTime::from_unix(s).unwrap().to_string();
    let (s, e) = (usd[5].0, usd[60].0);
    let r =
        json(&api().get_chart(&q(&format!("asset={NOT}&period=1h&start_date={}&end_date={}", d(s), d(e)))).unwrap());
    let inside: Vec<(i64, f64, f64)> = usd.iter().copied().filter(|p| (s..=e).contains(&p.0)).collect();
    same_candles(&r["usd_hlocv"], &aggregate(&inside, 3600), "bounded");
    // Default limit 1000: the 1s series of TON has more trades than that.
    let r = json(&api().get_chart(&q("asset=native&period=1s")).unwrap());
    assert_eq!(r["usd_hlocv"].as_array().unwrap().len(), 1000);
    // An unknown asset has empty series (no 404 for charts).
    let r = api().get_chart(&q(&format!("asset=jetton:0:{}&period=1d", "ef".repeat(32)))).unwrap();
    assert!(r.usd_hlocv.is_empty() && r.ton_hlocv.is_empty());
}

#[test]
fn chart_by_pool_address_and_chart_errors() {
    let trades = all_transactions(NOT, "");
    let pool =
        trades.iter().find(|t| t["trade_asset_in"] == "native").unwrap()["pool_address"].as_str().unwrap().to_string();
    let in_pool: Vec<&Value> = trades.iter().filter(|t| t["pool_address"] == pool.as_str()).collect();
    let ratio = |t: &Value, of_not: bool| {
        let (ai, ao) = (f(&t["trade_asset_in_amount"]), f(&t["trade_asset_out_amount"]));
        let (not, ton) = if t["trade_asset_out"] == NOT { (ao, ai) } else { (ai, ao) };
        if of_not {
            ton / not
        } else {
            not / ton
        }
    };
    let a: Vec<(i64, f64, f64)> =
        in_pool.iter().map(|t| (unix(&t["trade_date"]), ratio(t, true), f(&t["volume_usd"]))).collect();
    let b: Vec<(i64, f64, f64)> =
        in_pool.iter().map(|t| (unix(&t["trade_date"]), ratio(t, false), f(&t["volume_usd"]))).collect();
    for period in [ChartPeriod::M5, ChartPeriod::H4, ChartPeriod::D1] {
        let r = json(
            &api()
                .get_chart_by_pool_address(&q(&format!("asset={NOT}&pool_address={pool}&period={period}&limit=5000")))
                .unwrap(),
        );
        same_candles(&r["hlocv"], &aggregate(&a, period.seconds()), "pool");
        same_candles(&r["opposite_asset_hlocv"], &aggregate(&b, period.seconds()), "pool opposite");
    }
    let e = |s: &str| code(api().get_chart_by_pool_address(&q(s)));
    assert_eq!(e(&format!("asset={NOT}&pool_address={pool}")), (400, 6002));
    assert_eq!(e(&format!("asset={NOT}&period=1h")), (400, 6002));
    assert_eq!(e(&format!("asset={NOT}&pool_address=zzz&period=1h")), (400, 6009));
    assert_eq!(e(&format!("asset={USDT}&pool_address={pool}&period=1h")), (400, 6013));
    assert_eq!(e(&format!("asset={NOT}&pool_address={pool}&period=1h&limit=5001")), (400, 6004));
    let unknown = format!("0:{}", "12".repeat(32));
    let r = api().get_chart_by_pool_address(&q(&format!("asset={NOT}&pool_address={unknown}&period=1h"))).unwrap();
    assert!(r.hlocv.is_empty());
    let c = |s: &str| code(api().get_chart(&q(s)));
    assert_eq!(c("asset=native"), (400, 6002));
    assert_eq!(c("period=1h"), (400, 6002));
    assert_eq!(c("asset=native&period=2h"), (400, 6000));
    assert_eq!(c("asset=native&period=1h&limit=0"), (400, 6004));
    assert_eq!(c("asset=native&period=1h&limit=5001"), (400, 6004));
    assert_eq!(c("asset=native&period=1h&opposite_asset=native"), (400, 6013));
    assert_eq!(c("asset=native&period=1h&start_date=2024-11-21T00:00:00Z&end_date=2024-11-20T00:00:00Z"), (400, 6007));
    assert_eq!(c("asset=native&period=1h&use_materialized=maybe"), (400, 6000));
    assert!(api().get_chart(&q("asset=native&period=1h&use_materialized=true")).is_ok());
}

// ---------------------------------------------------------------- pools

fn pairs_in_snapshot() -> BTreeMap<(String, String), usize> {
    let s = Snapshot::from_json(SNAPSHOT).unwrap();
    let mut m = BTreeMap::new();
    for p in &s.pools {
        let (a, b) = (Asset::parse(&p.assets[0]).unwrap(), Asset::parse(&p.assets[1]).unwrap());
        let k = if a <= b { (a.to_string(), b.to_string()) } else { (b.to_string(), a.to_string()) };
        *m.entry(k).or_default() += 1;
    }
    m
}

fn pools(req: Value) -> Value {
    json(&api().get_pools(&serde_json::from_value(req).unwrap()).unwrap())
}

fn pools_err(req: Value) -> (u16, i32) {
    code(api().get_pools(&serde_json::from_value(req).unwrap()))
}

#[test]
fn pools_listing() {
    let pairs = pairs_in_snapshot();
    let r = pools(serde_json::json!({}));
    assert_eq!(r["total_count"].as_u64().unwrap() as usize, pairs.len());
    let rows = r["pool_rows"].as_array().unwrap();
    assert_eq!(rows.len(), 20);
    let v: Vec<f64> = rows.iter().map(|r| f(&r["volume_24h_usd"])).collect();
    assert!(v.windows(2).all(|w| w[0] >= w[1]));
    for row in rows {
        let key = (row["assets"][0].as_str().unwrap().to_string(), row["assets"][1].as_str().unwrap().to_string());
        assert_eq!(row["total_pools"].as_u64().unwrap() as usize, pairs[&key]);
        let ps = row["pools"].as_array().unwrap();
        assert_eq!(ps.len(), pairs[&key].min(3));
        let sum: f64 = ps.iter().map(|p| f(&p["tvl_usd"])).sum();
        if pairs[&key] <= 3 {
            assert!(close(sum, f(&row["tvl_usd"])));
        }
        for p in ps {
            assert!(r["assets_metadata"].get(p["assets"][0].as_str().unwrap()).is_some());
            let fee = f(&p["trade_fee"]) / 10_000.0;
            // Sums of money are exact nano-units: the fees are the volume times the rate, rounded to one.
            let (fees, want) = (f(&p["fees_24h_usd"]), f(&p["volume_24h_usd"]) * fee);
            assert!((fees - want).abs() <= 1e-9 + 1e-12 * want.abs(), "{fees} vs {want}");
        }
    }
    // TON/USD₮ has three pools: a per-pair override pages them.
    let ton_usdt_pools = pairs[&("native".to_string(), USDT.to_string())];
    assert!(ton_usdt_pools >= 3);
    let r = pools(serde_json::json!({"include_assets": [USDT], "filter_by_assets": ["native"], "limit": 100,
        "pair_pools": [{"assets": ["native", USDT], "limit": 1, "offset": 1}]}));
    let row =
        r["pool_rows"].as_array().unwrap().iter().find(|r| r["assets"] == serde_json::json!(["native", USDT])).unwrap();
    assert_eq!(
        (row["pools_limit"].as_i64(), row["pools_offset"].as_i64(), row["total_pools"].as_i64()),
        (Some(1), Some(1), Some(ton_usdt_pools as i64))
    );
    assert_eq!(row["pools"].as_array().unwrap().len(), 1);
    // filter_by_assets puts pairs holding the asset first.
    let r = pools(serde_json::json!({"filter_by_assets": [NOT], "limit": 3}));
    assert!(r["pool_rows"][0]["assets"].as_array().unwrap().iter().any(|a| a == NOT));
    // include_assets keeps only pairs holding one of them; total before pagination.
    let r = pools(serde_json::json!({"include_assets": [NOT], "limit": 1}));
    let want = pairs.keys().filter(|k| k.0 == NOT || k.1 == NOT).count();
    assert_eq!(r["total_count"].as_u64().unwrap() as usize, want);
    assert_eq!(r["pool_rows"].as_array().unwrap().len(), 1);
    // Types, case-insensitive.
    for (t, want) in [("STABLE", "stable"), ("cpmm_v1", "cpmm_v1"), ("Cpmm_V2", "cpmm_v2")] {
        let r = pools(serde_json::json!({"filter_by_type": [t], "limit": 100}));
        let rows = r["pool_rows"].as_array().unwrap();
        assert!(!rows.is_empty(), "{t}");
        assert!(rows.iter().flat_map(|r| r["pools"].as_array().unwrap()).all(|p| p["type"] == want));
    }
    // Boosted: only pools with reward programs.
    let r = pools(serde_json::json!({"tags": ["boosted"], "limit": 100}));
    let boosted: Vec<&Value> =
        r["pool_rows"].as_array().unwrap().iter().flat_map(|r| r["pools"].as_array().unwrap()).collect();
    assert_eq!(boosted.len(), file().rewards.len());
    assert!(boosted
        .iter()
        .all(|p| f(&p["apr_rewards"]) > 0.0 && p["rewards"].as_array().is_some_and(|r| !r.is_empty())));
    // pool_addresses: only these.
    let one = file().rewards[0].pool.parse::<tonlib_core::TonAddress>().unwrap().to_base64_url();
    let r = pools(serde_json::json!({"pool_addresses": [one]}));
    assert_eq!(r["total_count"], 1);
    assert_eq!(r["pool_rows"][0]["pools"][0]["address"], one.as_str());
    // Every sort key in both directions orders the rows.
    for (key, field) in [
        ("volume_24h", "volume_24h_usd"),
        ("tvl", "tvl_usd"),
        ("fees_24h", "fees_24h_usd"),
        ("apr", "apr"),
        ("base_apr", "apr_fees"),
        ("boost_apr", "apr_rewards"),
    ] {
        for dir in ["asc", "desc"] {
            let r = pools(serde_json::json!({"sort_by": key, "sort_direction": dir, "limit": 100}));
            let v: Vec<f64> = r["pool_rows"].as_array().unwrap().iter().map(|r| f(&r[field])).collect();
            assert!(v.windows(2).all(|w| if dir == "asc" { w[0] <= w[1] } else { w[0] >= w[1] }), "{key} {dir}");
        }
    }
    let w = friendly_wallet(&file().trades[0].trader);
    let r = pools(serde_json::json!({"sort_by": "value_usd", "wallet_address": w, "limit": 2}));
    assert_eq!(r["pool_rows"][0]["pools"][0]["value_usd"], "0");
    // Pagination: offset shifts the rows.
    let a = pools(serde_json::json!({"limit": 10}));
    let b = pools(serde_json::json!({"limit": 5, "offset": 5}));
    assert_eq!(a["pool_rows"].as_array().unwrap()[5..], b["pool_rows"].as_array().unwrap()[..]);
}

#[test]
fn pools_errors_pair_single_and_summary() {
    assert_eq!(pools_err(serde_json::json!({"limit": 0})), (400, 6004));
    assert_eq!(pools_err(serde_json::json!({"limit": 101})), (400, 6004));
    assert_eq!(pools_err(serde_json::json!({"offset": -1})), (400, 6005));
    assert_eq!(pools_err(serde_json::json!({"sort_by": "value_usd"})), (400, 6010));
    assert_eq!(pools_err(serde_json::json!({"sort_by": "rewards_total_usd"})), (400, 6010));
    assert_eq!(pools_err(serde_json::json!({"filter_by_type": ["clmm"]})), (400, 6013));
    assert_eq!(pools_err(serde_json::json!({"tags": ["hot"]})), (400, 6013));
    assert_eq!(pools_err(serde_json::json!({"include_assets": ["x"]})), (400, 6008));
    assert_eq!(pools_err(serde_json::json!({"wallet_address": "x"})), (400, 6009));
    assert_eq!(pools_err(serde_json::json!({"pair_pools": [{"assets": ["native"]}]})), (400, 6011));
    assert_eq!(pools_err(serde_json::json!({"pair_pools": [{"assets": ["native", USDT], "limit": 51}]})), (400, 6004));
    assert_eq!(pools_err(serde_json::json!({"pair_pools": [{"assets": ["native", "native"]}]})), (400, 6013));
    // Pair pools.
    let pair = |v: Value| api().get_pair_pools(&serde_json::from_value(v).unwrap());
    let r = json(&pair(serde_json::json!({"assets": [USDT, "native"], "sort_by": "tvl", "limit": 2})).unwrap());
    let ton_usdt_pools = pairs_in_snapshot()[&("native".to_string(), USDT.to_string())];
    assert_eq!(r["total_count"].as_u64().unwrap() as usize, ton_usdt_pools);
    let ps = r["pools"].as_array().unwrap();
    assert_eq!(ps.len(), 2);
    assert!(f(&ps[0]["tvl_usd"]) >= f(&ps[1]["tvl_usd"]));
    let r = json(
        &pair(serde_json::json!({"assets": ["native", USDT], "sort_by": "tvl", "sort_direction": "asc", "offset": 2}))
            .unwrap(),
    );
    assert_eq!(r["pools"].as_array().unwrap().len(), ton_usdt_pools - 2);
    assert_eq!(code(pair(serde_json::json!({"assets": ["native"]}))), (400, 6011));
    assert_eq!(code(pair(serde_json::json!({"assets": ["native", USDT, NOT]}))), (400, 6011));
    assert_eq!(code(pair(serde_json::json!({"assets": ["native", USDT], "limit": 101}))), (400, 6004));
    // Single pool.
    let addr = &file().rewards[0].pool;
    let p = api().get_pool(addr, None).unwrap();
    assert_eq!(p.pool.address, addr.parse::<tonlib_core::TonAddress>().unwrap().to_base64_url());
    assert!(p.pool.value_usd.is_none());
    assert!(api().get_pool(addr, Some(&friendly_wallet(&file().trades[0].trader))).unwrap().pool.value_usd.is_some());
    assert_eq!(p.assets_metadata.len(), 2);
    assert_eq!(code(api().get_pool(&format!("0:{}", "34".repeat(32)), None)), (404, 6401));
    assert_eq!(code(api().get_pool("nope", None)), (400, 6009));
    // Summary = sums over the listing's pools.
    let everything = pools(serde_json::json!({"limit": 100, "include_assets": [NOT],
        "pair_pools": pairs_in_snapshot().keys().filter(|k| k.0 == NOT || k.1 == NOT)
            .map(|k| serde_json::json!({"assets": [k.0, k.1], "limit": 50})).collect::<Vec<_>>()}));
    let listed: Vec<&Value> =
        everything["pool_rows"].as_array().unwrap().iter().flat_map(|r| r["pools"].as_array().unwrap()).collect();
    let s = json(&api().get_pool_summary(&PoolSummaryRequest { include_assets: Some(vec![NOT.into()]) }).unwrap());
    for (k, field) in
        [("total_value_locked_usd", "tvl_usd"), ("volume_24h_usd", "volume_24h_usd"), ("fees_24h_usd", "fees_24h_usd")]
    {
        let sum: f64 = listed.iter().map(|p| f(&p[field])).sum();
        assert!(close(f(&s[k]), sum), "{k}");
    }
    let all = json(&api().get_pool_summary(&PoolSummaryRequest::default()).unwrap());
    assert!(f(&all["total_value_locked_usd"]) > f(&s["total_value_locked_usd"]));
    assert_eq!(
        code(api().get_pool_summary(&PoolSummaryRequest { include_assets: Some(vec!["?".into()]) })),
        (400, 6008)
    );
}

// ---------------------------------------------------------------- affiliates

fn friendly_wallet(raw: &str) -> String {
    raw.parse::<tonlib_core::TonAddress>().unwrap().to_base64_url_flags(true, false)
}

#[test]
fn affiliate_operations() {
    let a = &file().affiliates;
    let r = api().get_affiliate_account("ref_gamma").unwrap();
    assert_eq!(r.len(), 1);
    assert_eq!((r[0].account_id.as_str(), r[0].account_fee), ("ref_gamma", a[2].account_fee));
    // ref_alpha and ref_beta share a controller: both come back, by raw or friendly controller address.
    let ctl = &a[0].controller;
    let by_raw = api().get_affiliate_account(ctl).unwrap();
    let by_friendly = api().get_affiliate_account(&friendly_wallet(ctl)).unwrap();
    assert_eq!(by_raw, by_friendly);
    assert_eq!(by_raw.iter().map(|x| x.account_id.as_str()).collect::<Vec<_>>(), ["ref_alpha", "ref_beta"]);
    assert_eq!(code(api().get_affiliate_account("ref_nobody")), (404, 6402));
    assert_eq!(code(api().get_affiliate_account("not an id!")), (404, 6402));

    // Referrals.
    let r = api().get_affiliate_referrals("ref_delta").unwrap();
    assert_eq!(r.total_count as usize, a[3].referrals.len());
    let want: Vec<String> = a[3].referrals.iter().map(|w| friendly_wallet(w)).collect();
    assert_eq!(r.referrals["ref_delta"], want);
    let both = api().get_affiliate_referrals(ctl).unwrap();
    assert_eq!(both.total_count as usize, a[0].referrals.len() + a[1].referrals.len());
    assert_eq!(code(api().get_affiliate_referrals("bad id!")), (400, 6009));
    assert_eq!(code(api().get_affiliate_referrals("ref_nobody")), (404, 6402));

    // Volume: each referral's volume is the sum of its trades' volumes, counted from the raw trades.
    let v = api().get_affiliate_account_volume("ref_alpha", &q("")).unwrap();
    let acc = &v.accounts[0];
    let mut total = 0.0;
    for rv in &acc.referral_volumes {
        let raw = a[0].referrals.iter().find(|w| friendly_wallet(w) == rv.wallet_address).unwrap();
        let n = file().trades.iter().filter(|t| &t.trader == raw).count();
        let listed: f64 = view()
            .trades()
            .iter()
            .filter(|t| view().data().traders[t.trader] == raw.parse().unwrap())
            .map(|t| t.volume_usd)
            .sum();
        assert!(close(f(&json(&rv.volume.volume_in_usd)), listed));
        assert_eq!(n == 0, listed == 0.0);
        total += listed;
    }
    assert!(close(f(&json(&acc.referrals_total_volume.volume_in_usd)), total));
    assert!(total > 0.0);
    let w = &a[0].referrals[0];
    let v =
        api().get_affiliate_account_volume("ref_alpha", &q(&format!("wallet_address={}", friendly_wallet(w)))).unwrap();
    let wv = v.wallet_volume.unwrap();
    assert_eq!(wv.transactions as usize, file().trades.iter().filter(|t| &t.trader == w).count());
    assert_eq!(code(api().get_affiliate_account_volume("ref_alpha", &q("wallet_address=nope"))), (400, 6009));
    assert_eq!(code(api().get_affiliate_account_volume("bad id!", &q(""))), (400, 6009));
    assert_eq!(code(api().get_affiliate_account_volume("ref_nobody", &q(""))), (404, 6402));
    assert_eq!(code(api().get_affiliate_account_volume("ref_alpha", &q("wallet=x"))), (400, 6001));

    // Referrer by wallet.
    let r = api().get_affiliate_referrer(&friendly_wallet(&a[4].referrals[2])).unwrap();
    assert_eq!((r.account_id.as_str(), r.account_fee), ("ref_epsilon", a[4].account_fee));
    let unreferred =
        file().trades.iter().map(|t| &t.trader).find(|t| !a.iter().any(|x| x.referrals.contains(t))).unwrap();
    assert_eq!(code(api().get_affiliate_referrer(unreferred)), (404, 6403));
    assert_eq!(code(api().get_affiliate_referrer("garbage")), (404, 6403));
}

/// `pool_has` for raw trades: whether the trade's pool holds `asset` (in or out).
trait PoolHas {
    fn pool_has(&self, asset: &str) -> bool;
}

impl PoolHas for tonroute::market::replay::TradeRecord {
    fn pool_has(&self, asset: &str) -> bool {
        static POOLS: OnceLock<BTreeMap<String, [String; 2]>> = OnceLock::new();
        let pools = POOLS.get_or_init(|| {
            Snapshot::from_json(SNAPSHOT)
                .unwrap()
                .pools
                .iter()
                .map(|p| {
                    let n = |s: &str| Asset::parse(s).unwrap().to_string();
                    (p.address.clone(), [n(&p.assets[0]), n(&p.assets[1])])
                })
                .collect()
        });
        pools[&self.pool].iter().any(|a| a == asset)
    }
}

// ---------------------------------------------------------------- dex_c labels (issue #15)

/// The snapshot's `dex_c` pools (address, the non-TON asset or token0), read from the JSON itself.
fn dex_c_pools() -> Vec<(tonlib_core::TonAddress, String)> {
    let snapshot: Value = serde_json::from_str(SNAPSHOT).unwrap();
    snapshot["pools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["protocol"] == "dex_c")
        .map(|p| {
            let assets: Vec<&str> = p["assets"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
            let coin = assets.iter().find(|a| **a != "native").unwrap_or(&assets[0]).to_string();
            (tonroute::asset::parse_address(p["address"].as_str().unwrap()).unwrap(), coin)
        })
        .collect()
}

#[test]
fn dex_c_trades_and_pools_are_labelled_dex_c() {
    let snapshot: Value = serde_json::from_str(SNAPSHOT).unwrap();
    let protocol_of: BTreeMap<String, String> = snapshot["pools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let a = tonroute::asset::parse_address(p["address"].as_str().unwrap()).unwrap();
            (a.to_hex(), p["protocol"].as_str().unwrap().to_string())
        })
        .collect();
    let pools = dex_c_pools();
    assert_eq!(pools.len(), 4);
    let mut dex_c_trades = 0;
    for (_, coin) in &pools {
        let items = json(&api().get_coin_transactions(&q(&format!("asset={coin}&limit=100"))).unwrap());
        for t in items["items"].as_array().unwrap() {
            let pool = tonroute::asset::parse_address(t["pool_address"].as_str().unwrap()).unwrap();
            // The SPEC's labels per exchange; dex_c's pool type is our extension of its list.
            let want = match protocol_of[&pool.to_hex()].as_str() {
                "dex_a" => ("dex_a", "dex_a"),
                "dex_b_v1" => ("dex_b_v1", "dex_b"),
                "dex_b_v2" => ("dex_b_v2", "dex_b"),
                "dex_c" => ("dex_c", "dex_c"),
                other => panic!("protocol {other}"),
            };
            assert_eq!((t["pool_type"].as_str().unwrap(), t["platform"].as_str().unwrap()), want, "{t}");
            dex_c_trades += usize::from(want.0 == "dex_c");
        }
    }
    assert!(dex_c_trades >= 50, "{dex_c_trades} dex_c trades seen");
    // /pools: each dex_c pool is `concentrated` on `dex_c`, and the type filter finds exactly them.
    let addresses: Vec<String> = pools.iter().map(|(a, _)| a.to_hex()).collect();
    let listed = json(
        &api()
            .get_pools(&serde_json::from_value(serde_json::json!({"pool_addresses": addresses, "limit": 100})).unwrap())
            .unwrap(),
    );
    let filtered = json(
        &api()
            .get_pools(
                &serde_json::from_value(serde_json::json!({"filter_by_type": ["Concentrated"], "limit": 100})).unwrap(),
            )
            .unwrap(),
    );
    for answer in [listed, filtered] {
        let mut seen: Vec<String> = Vec::new();
        for row in answer["pool_rows"].as_array().unwrap() {
            for p in row["pools"].as_array().unwrap() {
                assert_eq!((p["type"].as_str().unwrap(), p["dex"].as_str().unwrap()), ("concentrated", "dex_c"), "{p}");
                seen.push(tonroute::asset::parse_address(p["address"].as_str().unwrap()).unwrap().to_hex());
            }
        }
        seen.sort();
        let mut want = addresses.clone();
        want.sort();
        assert_eq!(seen, want);
    }
    let one = json(&api().get_pool(&addresses[0], None).unwrap());
    assert_eq!(
        (one["pool"]["type"].as_str().unwrap(), one["pool"]["dex"].as_str().unwrap()),
        ("concentrated", "dex_c")
    );
}

// ---------------------------------------------------------------- /coin liquidity pools cap (issue #15)

#[test]
fn coin_liquidity_pools_are_capped_deepest_first() {
    let x = json(&api().get_coin(&q("asset=native&extra_details=true")).unwrap());
    let d = &x["extra_details"];
    let pools = d["liquidity_pools"].as_array().unwrap();
    // Independent count: every snapshot pool with TON on one side.
    let snapshot: Value = serde_json::from_str(SNAPSHOT).unwrap();
    let with_ton = snapshot["pools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["assets"].as_array().unwrap().contains(&"native".into()))
        .count();
    assert!(with_ton > 800, "{with_ton}");
    assert_eq!(d["liquidity_pools_total"], with_ton);
    assert_eq!(pools.len(), CoinExtraDetails::MAX_POOLS);
    let weights: Vec<f64> = pools.iter().map(|p| f(&p["weight"])).collect();
    assert!(weights.windows(2).all(|w| w[0] >= w[1]), "{weights:?}");
    let rest = f(&d["liquidity_pools_rest_weight"]);
    assert!(rest > 0.0 && rest < weights[CoinExtraDetails::MAX_POOLS - 1] * (with_ton as f64), "{rest}");
    let total: f64 = weights.iter().sum::<f64>() + rest;
    assert!((total - 1.0).abs() < 1e-9, "weights sum to {total}");
    // The answer stays small: the whole coin under 20 KB (it was 206 KB).
    let size = serde_json::to_string(&x).unwrap().len();
    assert!(size < 20_000, "{size} bytes");
    // A coin with few pools lists them all.
    let n = json(&api().get_coin(&q(&format!("asset={NOT}&extra_details=true"))).unwrap());
    let listed = n["extra_details"]["liquidity_pools"].as_array().unwrap().len();
    assert_eq!(n["extra_details"]["liquidity_pools_total"], listed);
    assert_eq!(n["extra_details"]["liquidity_pools_rest_weight"], "0");
}

// ---------------------------------------------------------------- LargeFloat text (issue #15)

#[test]
fn large_floats_are_shortest_round_trip_decimals() {
    // 9934.338675 is not exactly representable; twelve fixed decimals printed the neighbour's digits.
    assert_eq!(LargeFloat::from_f64(9934.338675).as_str(), "9934.338675");
    assert_eq!(LargeFloat::from_f64(0.1 + 0.2).as_str(), "0.30000000000000004");
    assert_eq!(LargeFloat::from_f64(1e-20).as_str(), "0.00000000000000000001");
    assert_eq!(LargeFloat::from_f64(-0.0).as_str(), "0");
    // Every LargeFloat the market API writes for the bundled data has no digit beyond what the value needs
    // (checked on the /coins listing): a float reads back as the same f64 from the shortest text; a sum of money
    // (`liquidity`, the `volume` figures) is an exact sum of nano-units (`crate::market::money`), written with at
    // most nine decimals and no trailing zero.
    let coins = json(&api().get_coins(&q("limit=500&include_without_price=true")).unwrap());
    let (mut checked, mut money) = (0, 0);
    let mut walk = vec![(&coins, false)];
    while let Some((v, is_money)) = walk.pop() {
        match v {
            Value::Object(m) => {
                walk.extend(m.iter().map(|(k, v)| (v, is_money || k == "liquidity" || k == "volume")));
            }
            Value::Array(a) => walk.extend(a.iter().map(|v| (v, is_money))),
            Value::String(s) if s.contains('.') && s.parse::<f64>().is_ok() => {
                if is_money {
                    let decimals = s.split_once('.').map_or(0, |(_, d)| d.len());
                    assert!(decimals <= 9 && !s.ends_with('0'), "not an exact sum of nano-units: {s}");
                    money += 1;
                } else {
                    let x: f64 = s.parse().unwrap();
                    assert_eq!(s, &format!("{x}"), "not the shortest text of its value");
                }
                checked += 1;
            }
            _ => {}
        }
    }
    assert!(money > 500, "{money} sums of money checked");
    assert!(checked > 1_000, "{checked} decimals checked");
}
