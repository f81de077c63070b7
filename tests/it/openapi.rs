//! `GET /openapi.json` against the real answers: the built binary serves the bundled snapshot and market
//! sample on loopback; every documented operation is called over HTTP (an answer and an error each), and
//! every answer body is validated with a JSON-Schema validator against the schema the document gives for
//! that path, method and status (`$ref`s resolved into the document's components). Objects are validated
//! closed (`additionalProperties: false` added where the document leaves it open), so a field renamed or
//! added in a wire type without the document following fails here. The route list is checked both ways against
//! the router itself: every documented operation is exercised below (and answered by its handler, not by the
//! router's fallbacks), and on every documented path the methods the router serves (its `Allow` header of a
//! 405) are exactly the documented ones. The router has no other paths: it is built from the same list of
//! handlers as the document (`crates/server/src/openapi.rs`, `served!`).
#![cfg(feature = "server")]

use crate::common;

use std::collections::BTreeSet;

use common::bin::{repo, spawn_serve_env, ServerGuard};
use serde_json::{json, Map, Value};

const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";
const SENDER: &str = "0:1111111111111111111111111111111111111111111111111111111111111111";

/// Closes every object schema that lists properties and says nothing about others.
fn close_objects(v: &mut Value) {
    match v {
        Value::Object(map) => {
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                map.insert("additionalProperties".into(), Value::Bool(false));
            }
            map.values_mut().for_each(close_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// The validator of one operation's answer: its schema as the root, the document's components beside it so
/// that `#/components/schemas/…` resolves.
struct Doc {
    doc: Value,
    components: Value,
}

impl Doc {
    fn new(doc: Value) -> Doc {
        let mut components = doc["components"].clone();
        close_objects(&mut components);
        Doc { doc, components }
    }

    fn validator(&self, path: &str, method: &str, status: u16) -> jsonschema::Validator {
        let op = &self.doc["paths"][path][method];
        assert!(op.is_object(), "{method} {path} is not in /openapi.json");
        let response = &op["responses"][status.to_string()];
        assert!(response.is_object(), "{method} {path}: status {status} is not documented");
        let mut schema = response["content"]["application/json"]["schema"].clone();
        assert!(schema.is_object(), "{method} {path} {status}: no application/json schema");
        close_objects(&mut schema);
        let mut root = Map::new();
        root.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
        root.insert("components".into(), self.components.clone());
        root.insert("allOf".into(), json!([schema]));
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&Value::Object(root))
            .unwrap_or_else(|e| panic!("{method} {path} {status}: the schema does not compile: {e}"))
    }

    fn check(&self, path: &str, method: &str, status: u16, body: &Value) {
        let v = self.validator(path, method, status);
        let errors: Vec<String> = v.iter_errors(body).map(|e| format!("{} at {}", e, e.instance_path())).collect();
        assert!(
            errors.is_empty(),
            "{method} {path} {status}: the answer breaks its schema:\n{}\n{body:#}",
            errors.join("\n")
        );
    }
}

/// One call: the documented path (template), method, the concrete request, the body, the status expected.
struct Call {
    template: &'static str,
    method: &'static str,
    uri: String,
    body: Option<String>,
    status: u16,
}

fn get(template: &'static str, uri: impl Into<String>, status: u16) -> Call {
    Call { template, method: "get", uri: uri.into(), body: None, status }
}

fn post(template: &'static str, uri: impl Into<String>, body: impl Into<String>, status: u16) -> Call {
    Call { template, method: "post", uri: uri.into(), body: Some(body.into()), status }
}

fn call(server: &ServerGuard, c: &Call) -> Value {
    let (status, text) = match &c.body {
        None => server.get(&c.uri),
        Some(b) => server.post(&c.uri, b),
    };
    assert_eq!(status, c.status, "{} {}: {text}", c.method, c.uri);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} {}: not JSON ({e}): {text}", c.method, c.uri))
}

/// The methods the router serves on `path` (a documented template, its `{segments}` filled in): the `Allow`
/// header of its 405 answer to `DELETE` (or `PATCH`, where `DELETE` is documented), upper-case, sorted.
fn allowed_methods(server: &ServerGuard, path: &str, documented: &BTreeSet<String>) -> BTreeSet<String> {
    let uri = path.split('/').map(|s| if s.starts_with('{') { "x" } else { s }).collect::<Vec<_>>().join("/");
    let probe = if documented.contains("delete") { "PATCH" } else { "DELETE" };
    let request = format!(
        "{probe} {uri} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nAuthorization: Bearer {}\r\nContent-Length: 0\r\n\r\n",
        server.addr,
        common::bin::ADMIN_TOKEN
    );
    let (status, head, body) =
        common::bin::http_raw(server.addr, request.as_bytes(), std::time::Duration::from_secs(30))
            .unwrap_or_else(|e| panic!("{probe} {uri}: {e}"));
    assert_eq!(status, 405, "{probe} {uri} is served though not documented: {head}\n{body}");
    let allow = head
        .lines()
        .find_map(|l| {
            l.split_once(':').filter(|(name, _)| name.eq_ignore_ascii_case("allow")).map(|(_, v)| v.to_string())
        })
        .unwrap_or_else(|| panic!("{probe} {uri}: a 405 without `Allow`: {head}"));
    allow.split(',').map(|m| m.trim().to_ascii_uppercase()).filter(|m| !m.is_empty()).collect()
}

#[test]
fn openapi_describes_every_route_and_every_answer() {
    let server = spawn_serve_env(
        &repo(),
        &["--market", "data/market.json"],
        &[("TONROUTE_ADMIN_TOKEN", common::bin::ADMIN_ENTRY)],
    );
    let (status, text) = server.get("/openapi.json");
    assert_eq!(status, 200, "{text}");
    let raw: Value = serde_json::from_str(&text).expect("the document is JSON");
    assert!(raw["openapi"].as_str().is_some_and(|v| v.starts_with("3.1")), "{}", raw["openapi"]);
    let doc = Doc::new(raw.clone());

    // The schemas docs/interface.md fixes.
    let schemas = &raw["components"]["schemas"];
    assert_eq!(schemas["LargeInteger"]["pattern"], "^[-+]?[0-9]+$");
    assert_eq!(schemas["LargeFloat"]["pattern"], r"^[-+]?[0-9]*\.?[0-9]+$");
    assert_eq!(schemas["ErrorBody"]["required"], json!(["code", "message"]));

    let market: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("data/market.json")).unwrap()).unwrap();
    let pool = market["rewards"][0]["pool"].as_str().unwrap().to_string();
    let trader = market["affiliates"][0]["referrals"][0].as_str().unwrap().to_string();
    let snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("data/snapshot.json")).unwrap()).unwrap();
    let first = &snapshot["pools"][0];
    let reserves = json!([{"pool": first["address"], "reserves": first["reserves"]}]).to_string();

    // The screener feed around the end of the liquidity history and the first trades (5-second blocks from
    // 2019-11-15T00:00:00Z, block 1), on the dex_b_v1 TON/USD₮ pool that has a liquidity history.
    let feed_start = 1 + (market["trades"][0]["time"].as_i64().unwrap() - 1_573_776_000) / 5;
    const TON_USDT: &str = "0:fc4c9f311160754a99d113877cf583b78e5d16d048819cd4b820168769499d7e";
    // A liquidity provider of the sample, holding LP in TON_USDT.
    const LP_WALLET: &str = "0:730dca126bec472850f68d3b6d054fa5531080e3c660c0dbeed38dbfe3c5eac1";
    let quote_body = json!({"in_minter": "native", "out_minter": USDT, "amount": "200000000000000"}).to_string();
    let certified_body =
        json!({"in_minter": "native", "out_minter": USDT, "amount": "200000000000000", "certify": true}).to_string();
    let calls = vec![
        post("/v4/router/quote", "/v4/router/quote", quote_body.clone(), 200),
        post("/v4/router/quote", "/v4/router/quote", r#"{"in_minter": "native"}"#, 400),
        // With the optimality certificate, and a `certify` of the wrong type.
        post("/v4/router/quote", "/v4/router/quote", certified_body.clone(), 200),
        post("/v4/router/quote", "/v4/router/quote", json!({"in_minter": "native", "out_minter": USDT, "amount": "1", "certify": "yes"}).to_string(), 400),
        post("/v4/router/quote", "/v4/router/quote", json!({"in_minter": "native", "out_minter": USDT, "amount": "1", "max_splits": 99}).to_string(), 400),
        post("/v4/router/quote", "/v4/router/quote", json!({"in_minter": "native", "out_minter": format!("jetton:0:{}", "ab".repeat(32)), "amount": "1"}).to_string(), 404),
        // More USD₮ than every pool holds.
        post("/v4/router/quote", "/v4/router/quote", json!({"in_minter": "native", "out_minter": USDT, "amount": "1000000000000000000000000", "swap_mode": "exact_out"}).to_string(), 422),
        post("/v4/router/swap", "/v4/router/swap", "{}", 400),
        post("/v4/admin/reserves", "/v4/admin/reserves", reserves, 200),
        post("/v4/admin/reserves", "/v4/admin/reserves", "[{}]", 400),
        post("/v4/admin/reserves", "/v4/admin/reserves", json!([{"pool": format!("0:{}", "12".repeat(32)), "reserves": ["1", "1"]}]).to_string(), 404),
        get("/health", "/health", 200),
        get("/v4/assets", "/v4/assets", 200),
        get("/coin", format!("/coin?asset={NOT}&extra_details=true&memecoin_extra_details=true"), 200),
        get("/coin", "/coin", 400),
        get("/coin", format!("/coin?asset=jetton:0:{}", "ab".repeat(32)), 404),
        get("/coins", "/coins?limit=50", 200),
        get("/coins", "/coins?calculate_total_volume=true&compact=true&limit=3", 200),
        get("/coins", "/coins?limit=501", 400),
        get("/coins/{asset}/resolver", format!("/coins/{USDT}/resolver"), 200),
        get("/coins/{asset}/resolver", format!("/coins/jetton:0:{}/resolver", "ab".repeat(32)), 404),
        get("/coin_transactions", format!("/coin_transactions?asset={NOT}&limit=100"), 200),
        get("/coin_transactions", "/coin_transactions?asset=native&limit=101", 400),
        get("/chart", format!("/chart?asset={NOT}&period=1h&opposite_asset=native&limit=24"), 200),
        get("/chart", "/chart?asset=native&period=2m", 400),
        get("/chart_by_pool_address", format!("/chart_by_pool_address?asset=native&pool_address={pool}&period=4h"), 200),
        get("/chart_by_pool_address", "/chart_by_pool_address?asset=native&period=1m&pool_address=x", 400),
        get("/affiliate/accounts/{id}", "/affiliate/accounts/ref_alpha", 200),
        get("/affiliate/accounts/{id}", "/affiliate/accounts/ref_none", 404),
        get("/affiliate/accounts/{id}/volume", format!("/affiliate/accounts/ref_alpha/volume?wallet_address={trader}"), 200),
        get("/affiliate/accounts/{id}/volume", "/affiliate/accounts/ref_alpha/volume?wallet_address=x", 400),
        get("/affiliate/{id}/referrals", "/affiliate/ref_beta/referrals", 200),
        get("/affiliate/{id}/referrals", "/affiliate/ref_none/referrals", 404),
        get("/affiliate/{wallet}/referrer", format!("/affiliate/{trader}/referrer"), 200),
        get("/affiliate/{wallet}/referrer", "/affiliate/nobody/referrer", 404),
        get("/pools", "/pools?limit=20&sort_by=tvl", 200),
        get("/pools", "/pools?limit=0", 400),
        post("/pools", "/pools", format!(r#"{{"include_assets": ["{NOT}"], "limit": 2}}"#), 200),
        post("/pools", "/pools", r#"{"limt": 2}"#, 400),
        get("/pools/pair", format!("/pools/pair?assets=native,{USDT}&sort_by=tvl"), 200),
        get("/pools/pair", "/pools/pair?assets=native", 400),
        post("/pools/pair", "/pools/pair", format!(r#"{{"assets": ["native", "{USDT}"]}}"#), 200),
        post("/pools/pair", "/pools/pair", r#"{"assets": ["native"]}"#, 400),
        get("/pools/summary", format!("/pools/summary?include_assets={USDT}"), 200),
        get("/pools/summary", "/pools/summary?nonsense=1", 400),
        post("/pools/summary", "/pools/summary", "{}", 200),
        post("/pools/summary", "/pools/summary", r#"{"x": 1}"#, 400),
        get("/pools/{address}", format!("/pools/{pool}"), 200),
        get("/pools/{address}", format!("/pools/0:{}", "12".repeat(32)), 404),
        // Wallets and traders (issue #23 part B).
        get("/wallets/{address}/portfolio", format!("/wallets/{trader}/portfolio"), 200),
        get("/wallets/{address}/portfolio", "/wallets/x/portfolio", 400),
        get("/wallets/{address}/holdings", format!("/wallets/{trader}/holdings?limit=5"), 200),
        get("/wallets/{address}/portfolio", format!("/wallets/{LP_WALLET}/portfolio"), 200),
        get("/wallets/{address}/liquidity_positions/{pool_address}", format!("/wallets/{LP_WALLET}/liquidity_positions/{TON_USDT}"), 200),
        get("/wallets/{address}/liquidity_positions/{pool_address}", format!("/wallets/{trader}/liquidity_positions/0:{}", "12".repeat(32)), 404),
        get("/wallets/{address}/liquidity_positions/{pool_address}", format!("/wallets/x/liquidity_positions/{TON_USDT}"), 400),
        get("/wallets/{address}/earnings", format!("/wallets/{LP_WALLET}/earnings"), 200),
        get("/wallets/{address}/earnings", "/wallets/x/earnings", 400),
        get("/wallets/{address}/holdings", format!("/wallets/{trader}/holdings?limit=501"), 400),
        get("/coins/{asset}/top_traders", format!("/coins/{NOT}/top_traders?limit=5"), 200),
        get("/coins/{asset}/top_traders", format!("/coins/jetton:0:{}/top_traders", "ab".repeat(32)), 404),
        get("/traders", format!("/traders?asset={NOT}&start_date=2024-11-11T12:00:00Z"), 200),
        get("/coins/trending", "/coins/trending?limit=100", 200),
        get("/coins/trending", "/coins/trending?tier=huge", 400),
        get("/traders", format!("/traders?asset={NOT}&start_date=2024-11-21T12:00:00Z&end_date=2024-11-11T12:00:00Z"), 400),
        get("/pools/{address}/providers", format!("/pools/{TON_USDT}/providers?limit=5"), 200),
        get("/pools/{address}/providers", format!("/pools/{TON_USDT}/providers?limit=0"), 400),
        get("/pools/{address}/providers", format!("/pools/0:{}/providers", "12".repeat(32)), 404),
        get("/pools/{address}/deposits", format!("/pools/{TON_USDT}/deposits?limit=5"), 200),
        get("/pools/{address}/deposits", format!("/pools/0:{}/deposits", "12".repeat(32)), 404),
        get("/latest-block", "/latest-block", 200),
        get("/asset", format!("/asset?id={NOT}"), 200),
        get("/asset", "/asset?id=native", 200),
        get("/asset", "/asset", 400),
        get("/asset", format!("/asset?id=jetton:0:{}", "ab".repeat(32)), 404),
        get("/pair", format!("/pair?id={TON_USDT}"), 200),
        get("/pair", "/pair?id=x", 400),
        get("/pair", format!("/pair?id=0:{}", "12".repeat(32)), 404),
        get("/events", format!("/events?fromBlock={}&toBlock={}", feed_start - 9_000, feed_start + 999), 200),
        get("/events", "/events?fromBlock=1&toBlock=20000", 400),
    ];

    let mut exercised = BTreeSet::new();
    for c in &calls {
        let body = call(&server, c);
        doc.check(c.template, c.method, c.status, &body);
        exercised.insert((c.template.to_string(), c.method.to_string()));
    }
    // The swap of a fresh quote (after the admin call above moved a pool; multi-route, so every step kind
    // the quote used appears in the messages).
    let quote = call(&server, &calls[0]);
    assert!(quote["swap_data"]["routes"].as_array().is_some_and(|r| r.len() > 1), "{quote}");
    let swap_body = json!({"sender_address": SENDER, "swap_data": quote["swap_data"]}).to_string();
    let swap = post("/v4/router/swap", "/v4/router/swap", swap_body, 200);
    doc.check(swap.template, swap.method, swap.status, &call(&server, &swap));
    // The document itself is an answer too; `/metrics` answers in the Prometheus text format it documents.
    exercised.insert(("/openapi.json".into(), "get".into()));
    let (status, metrics) = server.get("/metrics");
    assert!(status == 200 && metrics.contains("# TYPE "), "{status}: {metrics}");
    let documented_type = raw["paths"]["/metrics"]["get"]["responses"]["200"]["content"].as_object().unwrap();
    assert!(documented_type.keys().all(|k| k.starts_with("text/plain")), "{documented_type:?}");
    exercised.insert(("/metrics".into(), "get".into()));
    // The explorer page is HTML, documented as such.
    let (status, page) = server.get("/");
    assert!(status == 200 && page.starts_with("<!doctype html>"), "{status}: {}", &page[..page.len().min(200)]);
    let documented_type = raw["paths"]["/"]["get"]["responses"]["200"]["content"].as_object().unwrap();
    assert!(documented_type.keys().all(|k| k.starts_with("text/html")), "{documented_type:?}");
    exercised.insert(("/".into(), "get".into()));

    let documented: BTreeSet<(String, String)> = raw["paths"]
        .as_object()
        .unwrap()
        .iter()
        .flat_map(|(p, item)| item.as_object().unwrap().keys().map(move |m| (p.clone(), m.clone())))
        .filter(|(_, m)| ["get", "post", "put", "delete", "patch"].contains(&m.as_str()))
        .collect();
    let untested: Vec<_> = documented.difference(&exercised).collect();
    assert!(untested.is_empty(), "documented but not exercised here: {untested:?}");
    // The other way: on each documented path the router serves the documented methods and no other (axum
    // answers `HEAD` wherever it answers `GET`).
    let mut by_path = std::collections::BTreeMap::<&str, BTreeSet<String>>::new();
    for (path, method) in &documented {
        by_path.entry(path).or_default().insert(method.clone());
    }
    assert!(by_path.len() >= 30, "too few documented paths: {:?}", by_path.keys());
    for (path, methods) in &by_path {
        let mut want: BTreeSet<String> = methods.iter().map(|m| m.to_ascii_uppercase()).collect();
        if want.contains("GET") {
            want.insert("HEAD".into());
        }
        assert_eq!(allowed_methods(&server, path, methods), want, "the methods served on {path}");
    }

    // The certificate: documented on both sides, present in the certified answer (validated above with the
    // other calls), and its `null` (not given) is valid too; a bound that is not a decimal string is not.
    let request_schema = &schemas["QuoteRequestBody"]["properties"]["certify"];
    assert!(request_schema.to_string().contains("boolean"), "{request_schema}");
    assert!(!schemas["QuoteRequestBody"]["required"].as_array().unwrap().contains(&json!("certify")));
    assert!(!schemas["QuoteResponse"]["required"].as_array().unwrap().contains(&json!("certificate")));
    let certified = calls.iter().find(|c| c.body.as_deref() == Some(certified_body.as_str())).unwrap();
    let certified = call(&server, certified);
    assert!(certified["certificate"]["upper_bound"].is_string(), "{certified}");
    let validator = doc.validator("/v4/router/quote", "post", 200);
    let mut withheld = certified.clone();
    withheld["certificate"] = Value::Null;
    assert!(validator.is_valid(&withheld), "a withheld certificate (null) breaks the schema");
    let mut bad = certified.clone();
    bad["certificate"]["upper_bound"] = json!(12.5);
    assert!(!validator.is_valid(&bad), "a numeric upper_bound passed");
    let mut bad = certified.clone();
    bad["certificate"]["gap"] = json!(1);
    assert!(!validator.is_valid(&bad), "an extra certificate field passed");
    assert!(quote.get("certificate").is_none(), "an uncertified quote has no certificate field: {quote}");

    // The validation is closed: a renamed field or an extra one is refused.
    let mut renamed = quote.clone();
    let out = renamed.as_object_mut().unwrap().remove("out_amount").unwrap();
    renamed.as_object_mut().unwrap().insert("amount_out".into(), out);
    assert!(!doc.validator("/v4/router/quote", "post", 200).is_valid(&renamed), "a renamed field passed");
    let mut step = quote.clone();
    step["swap_data"]["routes"][0][0]["extra"] = json!(1);
    assert!(!doc.validator("/v4/router/quote", "post", 200).is_valid(&step), "an extra step field passed");
    let mut amount = quote.clone();
    amount["swap_data"]["routes"][0][0]["in_amount"] = json!("1e9");
    assert!(!doc.validator("/v4/router/quote", "post", 200).is_valid(&amount), "a LargeInteger off its pattern passed");
}
