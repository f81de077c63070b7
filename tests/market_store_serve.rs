//! `tonroute serve` as a user runs it with each market store: the default (no flag: the embedded SQLite file
//! data/market.db, created and filled from the bundled sample on first start), `--market-db sqlite://PATH`
//! (a new file), `--market-db postgres://…` (a real server the test starts) and the in-memory replay
//! (`--market data/market.json`). Every market route answers the same on all of them, byte for byte: sums of
//! money (a candle's `volume` included) are exact sums of nano-units, whatever engine adds them.
#![cfg(feature = "server")]

mod common;

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
