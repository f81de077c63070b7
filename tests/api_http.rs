//! The server over real HTTP on loopback: quotes keep being served while reserve updates land, every request
//! succeeds, and the new reserves show in later quotes exactly as the pool math says.
#![cfg(feature = "server")]

mod common;

use common::{post, start, start_with, Slow, USDT};
use serde_json::Value;
use tonroute::pool::{ConstantProduct, Curve, Direction, FeeModel, Pool};

const V2_POOL: &str = "0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quotes_continue_during_reserve_updates() {
    let server = start().await;
    let client = reqwest::Client::new();
    let base = server.base.clone();

    let health: Value =
        serde_json::from_str(&client.get(format!("{base}/health")).send().await.unwrap().text().await.unwrap())
            .unwrap();
    assert_eq!((health["status"].as_str(), health["pools"].as_u64()), (Some("ok"), Some(7)));

    // Clients quoting in a loop.
    let mut clients = Vec::new();
    for k in 0..3u64 {
        let (client, base) = (client.clone(), base.clone());
        clients.push(tokio::spawn(async move {
            let mut statuses = Vec::new();
            for i in 0..40u64 {
                let amount = 1_000_000_000u64 * (1 + (k * 40 + i) % 500);
                let body = format!(r#"{{"in_minter": "native", "out_minter": "{USDT}", "amount": "{amount}"}}"#);
                let (status, text) = post(&client, &base, "/v4/router/quote", body).await;
                statuses.push((status, text));
            }
            statuses
        }));
    }
    // Meanwhile: reserve updates to the dex_b_v2 TON/USD₮ pool, its USD₮ side growing step by step.
    let ton = 1_806_615_000_000_000u128;
    let mut last = [0u128; 2];
    for step in 1..=20u128 {
        last = [ton, 2_501_328_000_000 + step * 50_000_000_000];
        let body = format!(r#"[{{"pool": "{V2_POOL}", "reserves": ["{}", "{}"]}}]"#, last[0], last[1]);
        let (status, text) = post(&client, &base, "/v4/admin/reserves", body).await;
        assert_eq!(status, 200, "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["updated"], 1);
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
    for c in clients {
        for (status, text) in c.await.unwrap() {
            assert_eq!(status, 200, "a quote failed during updates: {text}");
            let v: Value = serde_json::from_str(&text).unwrap();
            assert!(v["out_amount"].as_str().unwrap().parse::<u128>().unwrap() > 0);
        }
    }

    // The last update is what a quote now sees: 1 TON goes through the (now much better) v2 pool alone, and
    // its output is the contract math on the new reserves.
    let body = format!(r#"{{"in_minter": "native", "out_minter": "{USDT}", "amount": "1000000000", "max_splits": 1}}"#);
    let (status, text) = post(&client, &base, "/v4/router/quote", body).await;
    assert_eq!(status, 200, "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    let step = &v["swap_data"]["routes"][0][0];
    assert_eq!(step["pool_address"], V2_POOL);
    let pool = Pool::new(Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 20, 10, 0)), last);
    let want = pool.swap(1_000_000_000, Direction::ZeroToOne).unwrap().amount_out;
    assert_eq!(v["out_amount"].as_str().unwrap().parse::<u128>().unwrap(), want);
    let id = server.graph.pool_id(&V2_POOL.parse().unwrap()).unwrap();
    assert_eq!(server.graph.reserves(id), last);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_budget_is_503_with_the_error_object() {
    let config =
        tonroute::server::ServerConfig { routing_budget: std::time::Duration::from_millis(100), ..Default::default() };
    let server = start_with(|api| api.with_swap_builder(std::sync::Arc::new(Slow)), config).await;
    let client = reqwest::Client::new();
    let body = format!(r#"{{"in_minter": "native", "out_minter": "{USDT}", "amount": "1000000000", "max_splits": 1}}"#);
    let (status, text) = post(&client, &server.base, "/v4/router/quote", body).await;
    assert_eq!(status, 200, "{text}");
    let quote: Value = serde_json::from_str(&text).unwrap();
    let swap = serde_json::json!({"sender_address": "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p",
                                  "swap_data": quote["swap_data"]});
    let (status, text) = post(&client, &server.base, "/v4/router/swap", swap.to_string()).await;
    assert_eq!(status, 503, "{text}");
    let e: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(e["code"], 5002);
    assert!(e["message"].as_str().unwrap().contains("time budget of 100 ms"), "{text}");
}
