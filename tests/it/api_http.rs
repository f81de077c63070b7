//! The server over real HTTP on loopback: quotes keep being served while reserve updates land, every request
//! succeeds, and the new reserves show in later quotes exactly as the pool math says.
#![cfg(feature = "server")]

use crate::common;

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

/// The optimality certificate over real HTTP, from the built binary on the bundled data: only a request that
/// says `"certify": true` gets the `certificate` field, the quote itself is the same byte for byte, and
/// the bound is at least the output of every other routing of the same input the server gives (other limits,
/// wider ones than the certificate's own pricing quote included).
mod certificate {
    use serde_json::{json, Value};

    use super::common::bin::{spawn_serve, ServerGuard};
    use super::common::{NOT, USDT};

    const Q: &str = "/v4/router/quote";

    /// A generous budget: a debug build on a shared machine must not lose a certificate to the clock here
    /// (what the budget does to a certificate is `tests/it/route_budget.rs`'s).
    fn server() -> ServerGuard {
        spawn_serve(&["--budget-ms", "120000"])
    }

    /// The same data after the market sample's replay (`--market`): it moves some pools and not others, so the
    /// graph has arbitrage, concentrated pools included (a certificate used to be refused there).
    fn replayed_server() -> ServerGuard {
        spawn_serve(&["--budget-ms", "120000", "--market", "data/market.json"])
    }

    fn quote(server: &ServerGuard, body: &Value) -> (u16, String) {
        server.post(Q, &body.to_string())
    }

    fn answered(server: &ServerGuard, body: &Value) -> (Value, String) {
        let (status, text) = quote(server, body);
        assert_eq!(status, 200, "{body}: {text}");
        (serde_json::from_str(&text).unwrap_or_else(|e| panic!("{body}: {e}: {text}")), text)
    }

    fn amount(v: &Value) -> u128 {
        v.as_str().unwrap_or_else(|| panic!("not an amount string: {v}")).parse().unwrap()
    }

    #[test]
    fn the_certificate_is_there_only_when_asked_and_leaves_the_quote_alone() {
        let server = server();
        let base = json!({"in_minter": "native", "out_minter": USDT, "amount": "5000000000000"});
        let (plain, plain_text) = answered(&server, &base);
        assert!(plain.get("certificate").is_none(), "{plain_text}");
        for certify in [json!(false), Value::Null] {
            let mut body = base.clone();
            body["certify"] = certify.clone();
            let (_, text) = answered(&server, &body);
            assert_eq!(text, plain_text, "certify: {certify} must answer as without the field");
        }
        let mut body = base.clone();
        body["certify"] = json!(true);
        let (certified, text) = answered(&server, &body);
        // The same answer with one field more, at the end: the quote is not touched by its certificate.
        let head = plain_text.strip_suffix('}').expect("an object");
        let tail = text.strip_prefix(head).unwrap_or_else(|| panic!("the quote changed:\n{plain_text}\n{text}"));
        assert!(tail.starts_with(",\"certificate\":{"), "{tail}");
        let c = &certified["certificate"];
        let keys: Vec<&String> = c.as_object().expect("a certificate object").keys().collect();
        assert_eq!(keys, ["gap_bps", "upper_bound"], "{c}");
        let (bound, out) = (amount(&c["upper_bound"]), amount(&certified["out_amount"]));
        assert!(bound >= out, "bound {bound} < out_amount {out}");
        let gap = c["gap_bps"].as_f64().expect("gap_bps is a number");
        let expected = (bound - out) as f64 / bound as f64 * 1e4;
        assert!((gap - expected).abs() <= 1e-9 * expected.max(1.0), "gap {gap} bp, (bound − out)/bound {expected} bp");
        assert!((0.0..1e4).contains(&gap), "{gap}");
    }

    /// `(in, out, amount, mode)`: a whale and small amounts, both directions, a jetton pair, a route across
    /// exchanges (USD₮ → JT71 has none on one exchange; its id is read from `/v4/assets`), exact-out.
    fn cases() -> Vec<(String, String, &'static str, &'static str)> {
        vec![
            ("native".into(), USDT.into(), "5000000000000", "exact_in"),
            ("native".into(), USDT.into(), "1000000000", "exact_in"),
            (USDT.into(), "native".into(), "250000000000", "exact_in"),
            (NOT.into(), USDT.into(), "10000000000000000", "exact_in"),
            (USDT.into(), "JT71".into(), "25000000", "exact_in"),
            ("native".into(), USDT.into(), "1000000000000", "exact_out"),
        ]
    }

    #[test]
    fn the_bound_covers_every_other_routing_of_the_same_input() {
        covers_every_other_routing(&server());
    }

    #[test]
    fn on_a_graph_with_arbitrage_the_certificate_is_given_and_covers_every_other_routing() {
        covers_every_other_routing(&replayed_server());
    }

    fn covers_every_other_routing(server: &ServerGuard) {
        let (status, assets) = server.get("/v4/assets");
        assert_eq!(status, 200, "{assets}");
        let assets: Value = serde_json::from_str(&assets).unwrap();
        let id_of = |symbol: &str| -> String {
            let hits: Vec<&Value> =
                assets["assets"].as_array().unwrap().iter().filter(|a| a["symbol"] == symbol).collect();
            assert_eq!(hits.len(), 1, "{symbol}");
            hits[0]["address"].as_str().unwrap().to_string()
        };
        let mut compared = 0;
        for (from, to, wanted, mode) in cases() {
            let to = if to == "JT71" { id_of("JT71") } else { to };
            let body =
                json!({"in_minter": from, "out_minter": to, "amount": wanted, "swap_mode": mode, "certify": true});
            let (certified, _) = answered(server, &body);
            let c = &certified["certificate"];
            assert!(c.is_object(), "{body}: no certificate: {c}");
            let bound = amount(&c["upper_bound"]);
            let (input, out) = (amount(&certified["in_amount"]), amount(&certified["out_amount"]));
            assert!(bound >= out, "{body}: bound {bound} < out_amount {out}");
            if mode == "exact_out" {
                assert!(out >= amount(&json!(wanted)), "{body}: exact-out pays at least the amount wanted");
            }
            // Every routing of the same input the server finds with other limits gets at most the bound; exact-in
            // of the certified quote's input (for exact-out, the input it chose).
            let mut answered_here = 0;
            let limits = (1..=4usize).flat_map(|s| (1..=4usize).map(move |l| (s, l))).chain([(20, 5), (8, 5)]);
            for (splits, length) in limits {
                let other = json!({"in_minter": from, "out_minter": to, "amount": input.to_string(),
                                   "max_splits": splits, "max_length": length});
                let (status, text) = quote(server, &other);
                if status == 422 {
                    continue; // no route within these limits (e.g. one hop where none joins the pair)
                }
                assert_eq!(status, 200, "{other}: {text}");
                let v: Value = serde_json::from_str(&text).unwrap();
                let other_out = amount(&v["out_amount"]);
                assert!(
                    other_out <= bound,
                    "{other}: a routing with max_splits {splits}, max_length {length} gets {other_out} > bound {bound}"
                );
                answered_here += 1;
            }
            assert!(answered_here >= 9, "{body}: only {answered_here} other routings answered");
            compared += answered_here;
        }
        assert!(compared >= 60, "{compared} routings compared");
    }

    #[test]
    fn a_certify_of_the_wrong_type_is_a_400_and_never_a_crash() {
        let server = server();
        let base = json!({"in_minter": "native", "out_minter": USDT, "amount": "1000000000"});
        let with = |v: Value| {
            let mut b = base.clone();
            b["certify"] = v;
            b.to_string()
        };
        let base_text = base.to_string();
        let head = base_text.strip_suffix('}').unwrap();
        let cases: Vec<(String, u16, i32, &str)> = vec![
            (with(json!("yes")), 400, 1003, "field `certify`: expected a boolean, got a string"),
            (with(json!("true")), 400, 1003, "field `certify`: expected a boolean, got a string"),
            (with(json!(1)), 400, 1003, "field `certify`: expected a boolean, got a number"),
            (with(json!(0.5)), 400, 1003, "field `certify`: expected a boolean, got a number"),
            (with(json!([true])), 400, 1003, "field `certify`: expected a boolean, got an array"),
            (with(json!({"on": true})), 400, 1003, "field `certify`: expected a boolean, got an object"),
            (format!("{head},\"certify\":tru}}"), 400, 1000, "not valid JSON"),
            (format!("{head},\"certify\":true,\"certify\":false}}"), 400, 1000, "field `certify`: given twice"),
            (format!("{head},\"Certify\":true}}"), 400, 1004, "field `Certify`: unknown field"),
            (format!("{head},\"certify\":\"{}\"}}", "y".repeat(60_000)), 400, 1003, "field `certify`"),
            // The flag does not hide what else is wrong.
            (json!({"in_minter": "native", "out_minter": USDT, "amount": "1e9", "certify": true}).to_string(), 400, 1012, "field `amount`"),
            (json!({"in_minter": "native", "out_minter": format!("jetton:0:{}", "ab".repeat(32)), "amount": "1", "certify": true}).to_string(), 404, 2001, ""),
        ];
        for (body, status, code, needle) in cases {
            let (got, text) = server.post(Q, &body);
            let shown = &body[..body.len().min(200)];
            assert_eq!(got, status, "{shown}: {text}");
            let e: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{shown}: not JSON ({e}): {text}"));
            assert_eq!(e["code"], code, "{shown}: {text}");
            assert!(e["message"].as_str().is_some_and(|m| m.contains(needle)), "{shown}: {text}");
        }
        // Still serving, and a good request still certifies.
        assert_eq!(server.get("/health").0, 200, "{}", server.stderr());
        let (ok, _) = answered(&server, &serde_json::from_str::<Value>(&with(json!(true))).unwrap());
        assert!(ok["certificate"].is_object(), "{ok}");
    }
}
