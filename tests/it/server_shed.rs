//! Overload over real HTTP on loopback: with every routing slot busy and the queue full, a quote is refused at
//! once with 503 code 5003 and `Retry-After` (counted in `/metrics`), and served again once a slot frees; a
//! request whose budget is already spent gets 503 code 5002 without a search.
#![cfg(feature = "server")]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::{post, start_with, Slow, USDT};
use serde_json::Value;
use tonroute::server::shed::ShedConfig;
use tonroute::server::ServerConfig;

fn sample(metrics: &str, series: &str) -> f64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(series).and_then(|r| r.strip_prefix(' ')))
        .map_or(0.0, |v| v.trim().parse().expect("a sample value"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_sheds_with_retry_after() {
    let config = ServerConfig { shed: ShedConfig { slots: 1, queue: 0 }, ..ServerConfig::default() };
    let server = start_with(|api| api.with_swap_builder(Arc::new(Slow)), config).await;
    let client = reqwest::Client::new();
    let quote =
        format!(r#"{{"in_minter": "native", "out_minter": "{USDT}", "amount": "1000000000", "max_splits": 1}}"#);
    let (status, text) = post(&client, &server.base, "/v4/router/quote", quote.clone()).await;
    assert_eq!(status, 200, "{text}");
    let q: Value = serde_json::from_str(&text).unwrap();
    let swap = serde_json::json!({"sender_address": "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p",
                                  "swap_data": q["swap_data"]});
    // The slow swap takes the only slot.
    let busy = {
        let (client, base) = (client.clone(), server.base.clone());
        tokio::spawn(async move { post(&client, &base, "/v4/router/swap", swap.to_string()).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let r = client
        .post(format!("{}/v4/router/quote", server.base))
        .header("content-type", "application/json")
        .body(quote.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 503);
    assert_eq!(r.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("1"));
    let e: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(e["code"], 5003, "{e}");
    assert!(!busy.is_finished(), "the refusal came while the slot was still held");

    assert_eq!(busy.await.unwrap().0, 200);
    let (status, text) = post(&client, &server.base, "/v4/router/quote", quote).await;
    assert_eq!(status, 200, "served again once the slot freed: {text}");
    let metrics = client.get(format!("{}/metrics", server.base)).send().await.unwrap().text().await.unwrap();
    assert_eq!(
        sample(&metrics, "tonroute_requests_shed_total{reason=\"queue_full\",route=\"/v4/router/quote\"}"),
        1.0,
        "{metrics}"
    );
    assert_eq!(sample(&metrics, "tonroute_quote_outcomes_total{outcome=\"shed\"}"), 1.0);
    assert_eq!(sample(&metrics, "tonroute_quote_outcomes_total{outcome=\"single\"}"), 2.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_budget_is_503_without_a_search() {
    let config = ServerConfig { routing_budget: Duration::ZERO, ..ServerConfig::default() };
    let server = start_with(|api| api, config).await;
    let client = reqwest::Client::new();
    let quote = format!(r#"{{"in_minter": "native", "out_minter": "{USDT}", "amount": "1000000000"}}"#);
    let (status, text) = post(&client, &server.base, "/v4/router/quote", quote).await;
    assert_eq!(status, 503, "{text}");
    let e: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(e["code"], 5002, "{text}");
    let metrics = client.get(format!("{}/metrics", server.base)).send().await.unwrap().text().await.unwrap();
    assert_eq!(sample(&metrics, "tonroute_quote_outcomes_total{outcome=\"timeout\"}"), 1.0, "{metrics}");
}
