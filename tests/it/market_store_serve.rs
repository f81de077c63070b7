//! `tonroute serve` as a user runs it with each market store: the default (no flag: the embedded SQLite file
//! data/market.db, created and filled from the bundled sample on first start), `--market-db sqlite://PATH`
//! (a new file), `--market-db postgres://…` (a real server the test starts) and the in-memory replay
//! (`--market data/market.json`). Every market route answers the same on all of them, byte for byte: sums of
//! money (a candle's `volume` included) are exact sums of nano-units, whatever engine adds them.
#![cfg(feature = "server")]

use crate::common;

use serde_json::Value;

use common::bin::{spawn_serve, spawn_serve_env};
use common::market_db::{temp_db, MARKET};

const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

fn requests() -> Vec<String> {
    let file: Value = serde_json::from_str(MARKET).unwrap();
    let pool = file["rewards"][0]["pool"].as_str().unwrap().to_string();
    let trader = file["affiliates"][0]["referrals"][0].as_str().unwrap().to_string();
    let mut r = vec![
        "/coin?asset=native&extra_details=true".to_string(),
        format!("/coin?asset={NOT}&extra_details=true"),
        "/coins?limit=500&include_without_price=true".into(),
        "/coins?query=not&sort_by=volume&sort_period=24h&sort_direction=asc&limit=5&compact=true".into(),
        format!("/coins/{USDT}/resolver"),
        format!("/coin_transactions?asset={NOT}&limit=100"),
        format!("/coin_transactions?asset={NOT}&type=sell&limit=100&offset=30&sort_direction=asc"),
        format!("/coin_transactions?asset=native&trader_address={trader}&limit=100"),
        format!("/coin_transactions?asset=native&pool_address={pool}&volume_usd_min=10&volume_usd_max=5000&limit=100"),
        format!("/chart_by_pool_address?asset=native&pool_address={pool}&period=1h&limit=5000"),
        format!("/chart?asset={NOT}&period=1h&opposite_asset=native&limit=5000"),
        "/affiliate/accounts/ref_alpha".into(),
        format!("/affiliate/accounts/ref_alpha/volume?wallet_address={trader}"),
        "/affiliate/ref_beta/referrals".into(),
        format!("/affiliate/{trader}/referrer"),
        "/pools?limit=50&sort_by=tvl".into(),
        format!("/pools/pair?assets=native,{USDT}&sort_by=tvl"),
        "/pools/summary".into(),
        format!("/pools/{pool}"),
        "/coin?asset=jetton:0:0000000000000000000000000000000000000000000000000000000000000001".into(),
    ];
    for period in ["1s", "1m", "5m", "15m", "30m", "1h", "4h", "6h", "12h", "1d", "7d"] {
        r.push(format!("/chart?asset=native&period={period}&limit=5000"));
        r.push(format!("/chart?asset={USDT}&period={period}&opposite_asset=native&start_date=2024-11-18T00:00:00Z"));
    }
    r
}

/// `got` equals `want`, byte for byte (compared as JSON values: the first key, array index or value that
/// differs is named).
fn same(got: &Value, want: &Value, key: &str, what: &str) {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            assert_eq!(g.keys().collect::<Vec<_>>(), w.keys().collect::<Vec<_>>(), "{what}");
            for (k, wv) in w {
                same(&g[k], wv, k, what);
            }
        }
        (Value::Array(g), Value::Array(w)) => {
            assert_eq!(g.len(), w.len(), "{what}");
            for (gv, wv) in g.iter().zip(w) {
                same(gv, wv, key, what);
            }
        }
        _ => assert_eq!(got, want, "{what}: `{key}`"),
    }
}

#[test]
fn every_store_answers_the_same() {
    let replay = spawn_serve(&["--market", "data/market.json"]);
    let sqlite_url = format!("sqlite://{}", temp_db("serve").display());
    let sqlite = spawn_serve(&["--market-db", &sqlite_url]);
    assert!(sqlite.stderr().contains("filled from"), "a new database is filled from the sample:\n{}", sqlite.stderr());
    let pg_url = common::pg::server().fresh_database_url();
    let pg = spawn_serve(&["--market-db", &pg_url]);
    let default = spawn_serve(&[]);
    assert!(default.stderr().contains("market data from sqlite://"), "{}", default.stderr());
    assert!(default.stderr().contains("data/market.db"), "{}", default.stderr());
    let mut checked = 0;
    for path in requests() {
        let want = replay.get(&path);
        assert!(want.0 == 200 || want.0 == 404, "{path}: {}", want.1);
        for (name, server) in [("sqlite", &sqlite), ("postgres", &pg), ("default", &default)] {
            let got = server.get(&path);
            assert_eq!(got.0, want.0, "{name} {path}");
            let (g, w): (Value, Value) =
                (serde_json::from_str(&got.1).unwrap(), serde_json::from_str(&want.1).unwrap());
            same(&g, &w, "", &format!("{name} {path}"));
            assert_eq!(got.1, want.1, "{name} {path}: the same values, not the same text");
        }
        checked += 1;
    }
    assert_eq!(checked, requests().len());
    // A restart keeps the data: the same SQLite file serves again without refilling.
    drop(sqlite);
    let again = spawn_serve(&["--market-db", &sqlite_url]);
    assert!(!again.stderr().contains("filled from"), "{}", again.stderr());
    let path = format!("/coin_transactions?asset={NOT}&limit=100");
    assert_eq!(again.get(&path), replay.get(&path));
}

#[test]
fn a_postgres_store_opened_again_logs_no_migration_notice() {
    let url = common::pg::server().fresh_database_url();
    let first = spawn_serve(&["--market-db", &url]);
    assert!(first.stderr().contains("filled from"), "{}", first.stderr());
    drop(first);
    // Migrated and filled: the second start only opens it, and says nothing about the migrations table.
    let again = spawn_serve_env(&common::bin::repo(), &["--market-db", &url], &[("RUST_LOG", "info")]);
    let log = again.stderr();
    assert!(!log.contains("filled from"), "{log}");
    assert!(!log.contains("_sqlx_migrations") && !log.contains("already exists"), "{log}");
    assert!(!log.lines().any(|l| l.contains("sqlx::postgres::notice")), "{log}");
    assert_eq!(again.get("/coin?asset=native").0, 200);
}

/// `n` trade lines of NOT as `market ingest` reads them: the replay's own /coin_transactions answers (every field
/// consistent with the snapshot), moved to ten minutes apart from two days after the sample's end, with fresh
/// hashes and USD volumes of nine decimals (`v(i)`).
fn ingest_lines(n: usize, v: impl Fn(usize) -> String) -> (Vec<Value>, i64) {
    use std::sync::Arc;
    use tonroute::api::market::params::decode_query;
    use tonroute::api::market::MarketApi;
    use tonroute::graph::PoolGraph;
    use tonroute::market::types::DateTime;
    use tonroute::market::{MarketData, MarketView};
    let data =
        Arc::new(MarketData::from_json(PoolGraph::from_json(common::market_db::SNAPSHOT).unwrap(), MARKET).unwrap());
    let api = MarketApi::new(Arc::new(MarketView::new(data.clone(), data.as_of)));
    let q = decode_query(&format!("asset={NOT}&limit=100")).unwrap();
    let base =
        serde_json::to_value(api.get_coin_transactions(&q).unwrap()).unwrap()["items"].as_array().unwrap().clone();
    let start = data.as_of + 2 * 86_400;
    let start = start - start % 3_600;
    let lines = (0..n)
        .map(|i| {
            let mut line = base[i % base.len()].clone();
            line["trade_date"] = Value::String(DateTime::from_unix(start + 600 * i as i64).unwrap().to_string());
            line["tx_hash"] = Value::String(format!("{:064x}", 0xfeed_0000 + i));
            line["volume_usd"] = Value::String(v(i));
            line
        })
        .collect();
    (lines, start)
}

/// `text` (digits, an optional point and at most nine decimals) in nano-units, by integer arithmetic.
fn nanos(text: &str) -> i128 {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    assert!(frac.len() <= 9, "{text}");
    whole.parse::<i128>().unwrap() * 1_000_000_000 + format!("{frac:0<9}").parse::<i128>().unwrap()
}

/// Nano-units as the shortest decimal (`928.904440264`).
fn decimal(n: i128) -> String {
    let (whole, frac) = (n / 1_000_000_000, n % 1_000_000_000);
    if frac == 0 {
        return whole.to_string();
    }
    format!("{whole}.{}", format!("{frac:09}").trim_end_matches('0'))
}

#[test]
fn the_same_ingest_charts_the_same_volumes_on_sqlite_and_postgres() {
    // Six trades an hour for ten hours, each worth a USD figure of nine decimals.
    let (lines, start) =
        ingest_lines(60, |i| format!("{}.{:09}", 90 + 37 * i % 113, (i as u64 * 387_420_489 + 12_345) % 1_000_000_000));
    let file = temp_db("chart-ingest").with_extension("jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let sqlite_url = format!("sqlite://{}", temp_db("chart-sqlite").display());
    let pg_url = common::pg::server().fresh_database_url();
    for url in [&sqlite_url, &pg_url] {
        let out = common::bin::run_tonroute(
            &common::bin::repo(),
            &["market", "ingest", "--db", url, file.to_str().unwrap()],
            None,
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{url}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout.contains("60 trades stored"), "{url}: {stdout}");
    }
    let (sqlite, pg) = (spawn_serve(&["--market-db", &sqlite_url]), spawn_serve(&["--market-db", &pg_url]));
    let from = tonroute::market::types::DateTime::from_unix(start).unwrap();
    let chart = format!("/chart?asset={NOT}&period=1h&opposite_asset=native&start_date={from}");
    let (a, b) = (sqlite.get(&chart), pg.get(&chart));
    assert_eq!(a.0, 200, "{}", a.1);
    assert_eq!(a, b, "the same text from both stores");
    // Each hourly USD volume is the exact decimal sum of its six trades' figures.
    let answer: Value = serde_json::from_str(&a.1).unwrap();
    let candles = answer["usd_hlocv"].as_array().unwrap();
    assert_eq!(candles.len(), 10, "{answer}");
    for (k, candle) in candles.iter().enumerate() {
        let want: i128 = lines[6 * k..6 * k + 6].iter().map(|l| nanos(l["volume_usd"].as_str().unwrap())).sum();
        assert_eq!(candle["volume"].as_str(), Some(decimal(want).as_str()), "hour {k}: {candle}");
    }
    for path in [
        format!("/coin?asset={NOT}&extra_details=true"),
        "/pools/summary".to_string(),
        format!(
            "/chart_by_pool_address?asset={NOT}&pool_address={}&period=4h",
            lines[0]["pool_address"].as_str().unwrap()
        ),
    ] {
        assert_eq!(sqlite.get(&path), pg.get(&path), "{path}");
    }
}
