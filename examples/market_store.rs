//! Figures of the market database store: ingest rate and `/chart`, `/coin_transactions`, `/coins` latency at a
//! given trade count, on SQLite or PostgreSQL.
//!
//! ```sh
//! cargo run --release --all-features --example market_store -- --db sqlite:///tmp/m.db --trades 1000000
//! cargo run --release --all-features --example market_store -- --db postgres://tonroute@127.0.0.1:5432/m --trades 1000000
//! ```
//!
//! Fills an empty database with the bundled sample (6,000 trades), then ingests `--trades` more: the sample's
//! `/coin_transactions` lines of every coin, cycled, each moved later by whole sample spans and given a fresh
//! `tx_hash`, as JSON text decoded by `parse_trade_line` (the `market ingest` path: decode, check, write) in
//! batches of `--batch` lines, one transaction each. Then times the routes through `MarketApi` (typed query →
//! store → answer, no HTTP): `--repeat` requests each, p50 and max. `/coins` is timed three ways: the first
//! request of the process (cold: the all-time figures are folded from every row once, then the recent window is
//! read), the next ones (warm: cached until a trade is added), and the first one after one more batch is ingested
//! (the fold reads only the new batch, then the window).

use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use serde_json::Value;
use tonroute::api::market::params::decode_query;
use tonroute::api::market::MarketApi;
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;
use tonroute::market::ingest::parse_trade_line;
use tonroute::market::store::sql::SqlMarketStore;
use tonroute::market::types::DateTime;
use tonroute::market::{MarketData, MarketFile, MarketView};

#[derive(Parser, Debug)]
struct Args {
    /// Database URL (an empty database, or one this example filled before: it then only adds trades).
    #[arg(long)]
    db: String,
    /// Trades to ingest on top of the sample.
    #[arg(long, default_value_t = 100_000)]
    trades: usize,
    /// Lines per batch (one transaction).
    #[arg(long, default_value_t = 10_000)]
    batch: usize,
    /// Requests per route.
    #[arg(long, default_value_t = 20)]
    repeat: usize,
}

const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

fn main() {
    let args = Args::parse();
    let snapshot_text = std::fs::read_to_string("data/snapshot.json").expect("data/snapshot.json");
    let market_text = std::fs::read_to_string("data/market.json").expect("data/market.json");
    let file: MarketFile = serde_json::from_str(&market_text).expect("market file");
    let data = MarketData::load(PoolGraph::from_json(&snapshot_text).expect("snapshot"), &file).expect("market");
    let store =
        Arc::new(SqlMarketStore::open(&args.db, Snapshot::from_json(&snapshot_text).expect("snapshot")).expect("open"));
    if !store.has_market().expect("header") {
        store.load_market(&data, &file).expect("sample");
    }
    let before = store.trade_count().expect("count");

    // Every listed coin's trades as CoinTransaction lines (each trade appears once per listed side).
    let data = Arc::new(data);
    let replay = MarketApi::new(Arc::new(MarketView::new(data.clone(), data.as_of)));
    let mut base: Vec<Value> = Vec::new();
    for c in &file.coins {
        let mut offset = 0;
        loop {
            let q = decode_query(&format!("asset={}&limit=100&offset={offset}", c.asset)).expect("query");
            let page = serde_json::to_value(replay.get_coin_transactions(&q).expect("page")).expect("json");
            let items = page["items"].as_array().cloned().unwrap_or_default();
            if items.is_empty() {
                break;
            }
            offset += items.len();
            base.extend(items);
        }
    }
    let span = data.as_of - data.trades.first().map_or(data.as_of, |t| t.time) + 1;
    let dates: Vec<i64> =
        base.iter().map(|v| DateTime::parse(v["trade_date"].as_str().unwrap_or("")).expect("date").unix()).collect();
    // Dates up to 2100 are accepted here (the CLI's clock bound is not what is measured).
    let latest = 4_102_444_800;
    let graph = store.graph();
    let start = Instant::now();
    let mut done = 0usize;
    let round = (before as usize) / base.len().max(1) + 1;
    let make_batch = |done: usize, n: usize| {
        let mut lines = Vec::with_capacity(n);
        for k in 0..n {
            let i = done + k;
            let j = i % base.len();
            let lap = (round + i / base.len()) as i64;
            let mut v = base[j].clone();
            let moved = DateTime::from_unix(dates[j] + lap * span).expect("date");
            v["trade_date"] = Value::String(moved.to_string());
            v["tx_hash"] = Value::String(format!("{lap:016x}{j:048x}"));
            let text = v.to_string();
            lines.push(parse_trade_line(&text, graph, latest).expect("a valid line"));
        }
        lines
    };
    while done < args.trades {
        let n = args.batch.min(args.trades - done);
        store.ingest(&make_batch(done, n)).expect("ingest");
        done += n;
    }
    let took = start.elapsed();
    let total = store.trade_count().expect("count");
    println!(
        "ingest: {} trades in {:.1} s = {:.0} trades/s (decode + check + write, batches of {}); store holds {total}",
        args.trades,
        took.as_secs_f64(),
        args.trades as f64 / took.as_secs_f64().max(1e-9),
        args.batch
    );

    let api = MarketApi::new(store.clone());
    let time = |name: &str, f: &dyn Fn() -> usize| {
        let mut t: Vec<Duration> = Vec::new();
        let mut size = 0;
        for _ in 0..args.repeat {
            let s = Instant::now();
            size = f();
            t.push(s.elapsed());
        }
        t.sort();
        println!(
            "{name}: p50 {:.1} ms, max {:.1} ms ({size} items)",
            t[t.len() / 2].as_secs_f64() * 1e3,
            t[t.len() - 1].as_secs_f64() * 1e3
        );
    };
    let q = |s: &str| decode_query(s).expect("query");
    let cold = Instant::now();
    let coins = api.get_coins(&q("limit=100")).expect("coins");
    println!(
        "/coins?limit=100 cold (first request of the process, {total} rows): {:.0} ms",
        cold.elapsed().as_secs_f64() * 1e3
    );
    drop(coins);
    time("/coins?limit=100 warm", &|| api.get_coins(&q("limit=100")).expect("coins").items.len());
    let more = args.batch.min(10_000);
    store.ingest(&make_batch(done, more)).expect("ingest");
    let after = Instant::now();
    let coins = api.get_coins(&q("limit=100")).expect("coins");
    println!("/coins?limit=100 after ingesting {more} more trades: {:.0} ms", after.elapsed().as_secs_f64() * 1e3);
    drop(coins);
    time("/coin NOT extra_details", &|| {
        usize::from(api.get_coin(&q(&format!("asset={NOT}&extra_details=true"))).expect("coin").price.is_some())
    });
    time("/pools limit=100", &|| {
        let req = serde_json::from_value(serde_json::json!({"limit": 100})).expect("request");
        api.get_pools(&req).expect("pools").pool_rows.len()
    });
    time("/coins?sort_by=volume&sort_period=24h", &|| {
        api.get_coins(&q("sort_by=volume&sort_period=24h&limit=20")).expect("coins").items.len()
    });
    for period in ["1m", "1h", "1d"] {
        time(&format!("/chart NOT {period} limit=1000"), &|| {
            api.get_chart(&q(&format!("asset={NOT}&period={period}&limit=1000"))).expect("chart").usd_hlocv.len()
        });
    }
    time("/chart native 1h limit=1000", &|| {
        api.get_chart(&q("asset=native&period=1h&limit=1000")).expect("chart").usd_hlocv.len()
    });
    time("/coin_transactions NOT limit=100", &|| {
        api.get_coin_transactions(&q(&format!("asset={NOT}&limit=100"))).expect("tx").items.len()
    });
}
