//! The market-data routes of `tonroute serve` over real HTTP on loopback: every operation's path, query
//! parameters and status codes, and the `{code, message}` error body.
#![cfg(feature = "server")]

use std::sync::Arc;

use serde_json::Value;
use tonroute::api::Api;
use tonroute::graph::PoolGraph;
use tonroute::server::{serve, ServerConfig};

#[path = "common/market.rs"]
mod market_common;

use market_common::{MARKET, NOT, SNAPSHOT, USDT};

async fn start(with_market: bool) -> (String, tokio::sync::oneshot::Sender<()>) {
    let graph = Arc::new(PoolGraph::from_json(SNAPSHOT).unwrap());
    let mut api = Api::new(graph);
    if with_market {
        api = api.with_market(market_store());
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, api, ServerConfig::default(), async move {
        let _ = rx.await;
    }));
    (base, tx)
}

// The store under test: the one of the module that mounts this file (the crate root's in-memory replay, or
// `market_store_sqlite` / `market_store_postgres`'s database store).
use super::market_store;

async fn get(c: &reqwest::Client, base: &str, path: &str) -> (u16, Value) {
    let r = c.get(format!("{base}{path}")).send().await.unwrap();
    let status = r.status().as_u16();
    let ct = r.headers().get("content-type").map(|v| v.to_str().unwrap().to_string());
    assert_eq!(ct.as_deref(), Some("application/json"), "{path}");
    (status, serde_json::from_str(&r.text().await.unwrap()).unwrap())
}

async fn post(c: &reqwest::Client, base: &str, path: &str, body: &str) -> (u16, Value) {
    let r = c
        .post(format!("{base}{path}"))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), serde_json::from_str(&r.text().await.unwrap()).unwrap())
}

fn err(v: &Value) -> i64 {
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()), "{v}");
    assert_eq!(v.as_object().unwrap().len(), 2, "{v}");
    v["code"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_market_route_over_http() {
    let (base, _stop) = start(true).await;
    let c = reqwest::Client::new();
    let file: Value = serde_json::from_str(MARKET).unwrap();
    let pool = file["rewards"][0]["pool"].as_str().unwrap();
    let trader = file["affiliates"][0]["referrals"][0].as_str().unwrap();

    let ok = [
        "/coin?asset=native&extra_details=true".to_string(),
        format!("/coin?asset={NOT}&memecoin_extra_details=true"),
        "/coins".into(),
        "/coins?query=not&sort_by=volume&sort_period=24h&sort_direction=asc&limit=5&compact=true".into(),
        "/coins?filter_by_verification_level=1%2C2%2C3%2C4&include_without_price=true&skip_total_count=true".into(),
        format!("/coins/{USDT}/resolver"),
        format!("/coin_transactions?asset={NOT}&type=buy&limit=100&start_date=2024-11-20T00%3A00%3A00Z"),
        format!("/chart?asset={NOT}&period=1h&opposite_asset=native&limit=24"),
        "/chart?asset=native&period=1d&start_date=2024-11-15T00:00:00Z&end_date=2024-11-21T12:00:00Z".into(),
        format!("/chart_by_pool_address?asset=native&pool_address={pool}&period=4h"),
        "/affiliate/accounts/ref_alpha".into(),
        format!("/affiliate/accounts/ref_alpha/volume?wallet_address={trader}"),
        "/affiliate/ref_beta/referrals".into(),
        format!("/affiliate/{trader}/referrer"),
        "/pools?limit=5&sort_by=tvl&filter_by_type=stable%2Ccpmm_v2".into(),
        format!("/pools?include_assets={NOT}&pair_pools=%5B%7B%22assets%22%3A%5B%22native%22%2C%22{NOT}%22%5D%2C%22limit%22%3A1%7D%5D"),
        format!("/pools/pair?assets=native,{USDT}&sort_by=tvl"),
        format!("/pools/summary?include_assets={USDT}"),
        format!("/pools/{pool}"),
        "/health".into(),
    ];
    for path in &ok {
        let (status, body) = get(&c, &base, path).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let (_, coins) = get(&c, &base, "/coins?limit=3").await;
    assert_eq!(coins["items"].as_array().unwrap().len(), 3);
    assert!(coins["total_count"].as_i64().unwrap() > 3);
    let (_, chart) = get(&c, &base, &format!("/chart?asset={NOT}&period=1h&opposite_asset=native&limit=24")).await;
    assert_eq!(chart["usd_hlocv"].as_array().unwrap().len(), 24);
    assert!(!chart["opposite_asset_hlocv"].as_array().unwrap().is_empty());
    let (_, referrer) = get(&c, &base, &format!("/affiliate/{trader}/referrer")).await;
    assert_eq!(referrer["account_id"], "ref_alpha");

    // POST bodies of the pool operations.
    let (s, b) = post(&c, &base, "/pools", &format!(r#"{{"include_assets": ["{NOT}"], "limit": 2}}"#)).await;
    assert_eq!((s, b["pool_rows"].as_array().unwrap().len()), (200, 2));
    let (s, b) = post(&c, &base, "/pools/pair", &format!(r#"{{"assets": ["native", "{USDT}"]}}"#)).await;
    assert!(s == 200 && b["total_count"].as_i64().unwrap() >= 3);
    let (s, _) = post(&c, &base, "/pools/summary", "{}").await;
    assert_eq!(s, 200);
    let (s, b) = post(&c, &base, "/pools", r#"{"limt": 2}"#).await;
    assert_eq!((s, err(&b)), (400, 6012));
    let (s, b) = post(&c, &base, "/pools/pair", r#"{"assets": ["native"]}"#).await;
    assert_eq!((s, err(&b)), (400, 6011));

    let errors = [
        ("/coin".to_string(), 400, 6002),
        ("/coin?asset=%ZZ".into(), 400, 6000),
        (format!("/coin?asset=jetton:0:{}", "ab".repeat(32)), 404, 6400),
        ("/coins?limit=501".into(), 400, 6004),
        ("/coins?sort_by=price_change".into(), 400, 6006),
        ("/coins?volume_usd_min=1".into(), 400, 6006),
        ("/coins?limit=1&limit=2".into(), 400, 6003),
        ("/coins?nonsense=1".into(), 400, 6001),
        (format!("/coins/jetton:0:{}/resolver", "ab".repeat(32)), 404, 6400),
        ("/coin_transactions?asset=native&limit=101".into(), 400, 6004),
        ("/coin_transactions?asset=native&volume_usd_min=5&volume_usd_max=1".into(), 400, 6007),
        (format!("/coin_transactions?asset=jetton:0:{}", "ab".repeat(32)), 404, 6400),
        ("/chart?asset=native&period=2m".into(), 400, 6000),
        ("/chart?asset=native&period=1m&limit=5001".into(), 400, 6004),
        ("/chart_by_pool_address?asset=native&period=1m&pool_address=x".into(), 400, 6009),
        ("/affiliate/accounts/ref_none".into(), 404, 6402),
        ("/affiliate/accounts/ref_alpha/volume?wallet_address=x".into(), 400, 6009),
        ("/affiliate/accounts/bad%21id/volume".into(), 400, 6009),
        ("/affiliate/bad%21id/referrals".into(), 400, 6009),
        ("/affiliate/ref_none/referrals".into(), 404, 6402),
        ("/affiliate/nobody/referrer".into(), 404, 6403),
        ("/pools?limit=0".into(), 400, 6004),
        ("/pools?sort_by=value_usd".into(), 400, 6010),
        ("/pools?pair_pools=notjson".into(), 400, 6000),
        ("/pools/pair?assets=native".into(), 400, 6011),
        (format!("/pools/0:{}", "12".repeat(32)), 404, 6401),
        ("/nowhere".into(), 404, 2003),
    ];
    for (path, status, code) in &errors {
        let (s, b) = get(&c, &base, path).await;
        assert_eq!((s, err(&b)), (*status, i64::from(*code)), "{path}: {b}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_market_data_the_routes_answer_404() {
    let (base, _stop) = start(false).await;
    let c = reqwest::Client::new();
    for path in ["/coins", "/coin?asset=native", "/chart?asset=native&period=1h", "/pools", "/affiliate/accounts/x"] {
        let (s, b) = get(&c, &base, path).await;
        assert_eq!((s, err(&b)), (404, 6500), "{path}");
    }
}
