//! Table of bad inputs across `/v4/router/quote`, `/v4/router/swap` and `/v4/admin/reserves`, sent over real
//! HTTP: each must answer with the expected status, the expected stable code and a message naming the field
//! (or the problem). The swap cases mutate a valid `swap_data` taken from a live quote.
#![cfg(feature = "server")]

use crate::common;

use common::{post, start, NOT, USDT};
use serde_json::{json, Value};

const Q: &str = "/v4/router/quote";
const S: &str = "/v4/router/swap";
const R: &str = "/v4/admin/reserves";
const SENDER: &str = "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p";
const V2_POOL: &str = "0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6";

fn quote(fields: Value) -> String {
    let mut base = json!({"in_minter": "native", "out_minter": USDT, "amount": "1000000000"});
    for (k, v) in fields.as_object().unwrap() {
        if v == "<remove>" {
            base.as_object_mut().unwrap().remove(k);
        } else {
            base[k] = v.clone();
        }
    }
    base.to_string()
}

/// A valid swap request with `edit` applied to the first step of the first route (or to the request).
fn swap(valid: &Value, edit: impl Fn(&mut Value)) -> String {
    let mut body = json!({"sender_address": SENDER, "swap_data": valid.clone()});
    edit(&mut body);
    body.to_string()
}

fn step(body: &mut Value) -> &mut Value {
    &mut body["swap_data"]["routes"][0][0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_inputs_get_status_code_and_message() {
    let server = start().await;
    let client = reqwest::Client::new();
    let base = server.base.clone();

    // A valid swap_data: one dex_b_v2 step (max_splits 1; 10 TON, where the v2 pool is the best single hop).
    let body = quote(json!({"max_splits": 1, "max_length": 1, "slippage_bps": 50, "amount": "10000000000"}));
    let (status, text) = post(&client, &base, Q, body).await;
    assert_eq!(status, 200, "{text}");
    let valid: Value = serde_json::from_str::<Value>(&text).unwrap()["swap_data"].clone();
    assert_eq!(valid["routes"][0][0]["protocol_slug"], "dex_b_v2", "{valid}");
    // A valid jetton offer: the snapshot knows no jetton wallet of the sender, so it cannot be built.
    let body = json!({"in_minter": USDT, "out_minter": "native", "amount": "1000000", "max_splits": 1}).to_string();
    let (status, text) = post(&client, &base, Q, body).await;
    assert_eq!(status, 200, "{text}");
    let jetton_offer: Value = serde_json::from_str::<Value>(&text).unwrap()["swap_data"].clone();

    let two_120 = "1329227995784915872903807060280344576";
    let big_body = format!(r#"{{"in_minter": "native", "out_minter": "{USDT}", "amount": "{}"}}"#, "1".repeat(70_000));
    let bad_checksum = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt";
    // The sender's testnet form (non-bounceable, tag 0x51 + 0x80), as tonlib-core writes it.
    let testnet_sender = tonlib_core::TonAddress::from_base64_url(SENDER).unwrap().to_base64_url_flags(true, true);
    assert!(testnet_sender.starts_with("0Q"), "{testnet_sender}");
    let cases: Vec<(&str, String, u16, i32, &str)> = vec![
        // --- quote: body shape
        (Q, String::new(), 400, 1000, "not valid JSON"),
        (Q, "{".into(), 400, 1000, "not valid JSON"),
        (Q, "[]".into(), 400, 1000, "must be a JSON object"),
        (Q, "\"native\"".into(), 400, 1000, "must be a JSON object"),
        (Q, big_body, 413, 1001, "limit"),
        (Q, "{}".into(), 400, 1002, "field `in_minter`: missing"),
        (Q, quote(json!({"out_minter": "<remove>"})), 400, 1002, "field `out_minter`: missing"),
        (Q, quote(json!({"amount": "<remove>"})), 400, 1002, "field `amount`: missing"),
        (Q, quote(json!({"max_split": 3})), 400, 1004, "field `max_split`: unknown field"),
        // --- quote: types
        (Q, quote(json!({"in_minter": 5})), 400, 1003, "field `in_minter`: expected a string, got a number"),
        (Q, quote(json!({"amount": 1000})), 400, 1003, "field `amount`: expected a decimal integer string"),
        (Q, quote(json!({"amount": null})), 400, 1003, "field `amount`: expected a decimal integer string, got null"),
        (Q, quote(json!({"amount": ["1"]})), 400, 1003, "field `amount`"),
        (Q, quote(json!({"swap_mode": 1})), 400, 1003, "field `swap_mode`: expected a string"),
        (Q, quote(json!({"max_splits": 2.5})), 400, 1003, "field `max_splits`: expected an integer"),
        (Q, quote(json!({"max_splits": "4"})), 400, 1003, "field `max_splits`: expected an integer, got a string"),
        (Q, quote(json!({"slippage_bps": true})), 400, 1003, "field `slippage_bps`"),
        (Q, quote(json!({"certify": "yes"})), 400, 1003, "field `certify`: expected a boolean, got a string"),
        (Q, quote(json!({"certify": 1})), 400, 1003, "field `certify`: expected a boolean, got a number"),
        (Q, quote(json!({"certify": [true]})), 400, 1003, "field `certify`: expected a boolean, got an array"),
        (Q, quote(json!({"certify": true, "amount": "-5"})), 400, 1015, "field `amount`: `-5` is negative"),
        // --- quote: amounts
        (Q, quote(json!({"amount": "-5"})), 400, 1015, "field `amount`: `-5` is negative"),
        (Q, quote(json!({"amount": "1.5"})), 400, 1016, "field `amount`: `1.5` is fractional"),
        (Q, quote(json!({"amount": "0"})), 400, 1013, "field `amount`: must be positive"),
        (
            Q,
            quote(json!({"amount": two_120})),
            400,
            1014,
            "field `amount`: `1329227995784915872903807060280344576` is not below 2^120",
        ),
        (Q, quote(json!({"amount": "9".repeat(100)})), 400, 1014, "not below 2^120"),
        (Q, quote(json!({"amount": "1e9"})), 400, 1012, "field `amount`: `1e9` is not a decimal integer string"),
        (Q, quote(json!({"amount": ""})), 400, 1012, "field `amount`: empty"),
        (Q, quote(json!({"amount": "0x10"})), 400, 1012, "field `amount`"),
        // LargeInteger is `^[-+]?[0-9]+$` exactly: surrounding whitespace is a format error, not trimmed.
        (Q, quote(json!({"amount": " 1000000000"})), 400, 1012, "field `amount`: ` 1000000000` is not a decimal integer string"),
        (Q, quote(json!({"amount": "1000000000\n"})), 400, 1012, "is not a decimal integer string"),
        (
            S,
            swap(&valid, |b| step(b)["in_amount"] = json!(format!("{} ", step(b)["in_amount"].as_str().unwrap()))),
            400,
            1012,
            "field `swap_data.routes[0][0].in_amount`",
        ),
        // --- quote: assets
        (Q, quote(json!({"in_minter": "TON"})), 400, 1010, "field `in_minter`: `TON` is not an asset id"),
        (Q, quote(json!({"out_minter": "jetton:0:abc"})), 400, 1010, "field `out_minter`: malformed jetton id"),
        (
            Q,
            quote(json!({"out_minter": bad_checksum})),
            400,
            1010,
            "field `out_minter`: not an asset id: `EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt` is not a TON address: \
             its checksum (the last 3 characters) does not match the rest: a character is mistyped; a TON address is \
             raw `<workchain>:<64 hex digits>`",
        ),
        (Q, quote(json!({"in_minter": format!("0:xyz{}", &USDT[12..])})), 400, 1010, "character `x` at position 2 is not a hex digit"),
        (
            S,
            swap(&valid, |b| b["sender_address"] = json!(bad_checksum)),
            400,
            1011,
            "field `sender_address`: `EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt` is not a TON address: its checksum",
        ),
        (
            S,
            swap(&valid, |b| b["sender_address"] = json!("EQCxE6mUtQ")),
            400,
            1011,
            "it has 10 characters and no `:`; a friendly address has exactly 48; a TON address is raw \
             `<workchain>:<64 hex digits>` (e.g. `0:b113a994…3621dfe`) or 48 friendly base64url characters",
        ),
        (Q, quote(json!({"out_minter": format!("-1:{}", &USDT[9..])})), 400, 1010, "workchain -1"),
        (Q, quote(json!({"out_minter": "native"})), 400, 1024, "field `out_minter`: same asset as `in_minter`"),
        (
            Q,
            quote(json!({"in_minter": "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", "out_minter": USDT})),
            400,
            1024,
            "same asset",
        ),
        // --- quote: options
        (Q, quote(json!({"swap_mode": "exact_both"})), 400, 1023, "field `swap_mode`: `exact_both` is not supported"),
        (Q, quote(json!({"max_splits": 0})), 400, 1020, "field `max_splits`: 0 is out of range 1..=20"),
        (Q, quote(json!({"max_splits": 21})), 400, 1020, "field `max_splits`: 21 is out of range"),
        (Q, quote(json!({"max_splits": -1})), 400, 1020, "field `max_splits`: -1 is out of range"),
        (Q, quote(json!({"max_length": 0})), 400, 1021, "field `max_length`: 0 is out of range 1..=5"),
        (Q, quote(json!({"max_length": 6})), 400, 1021, "field `max_length`: 6 is out of range"),
        (Q, quote(json!({"slippage_bps": 10001})), 400, 1022, "field `slippage_bps`: 10001 is out of range 0..=10000"),
        (Q, quote(json!({"slippage_bps": -1})), 400, 1022, "field `slippage_bps`: -1 is out of range"),
        // --- quote: graph
        (Q, quote(json!({"out_minter": format!("jetton:0:{}", "12".repeat(32))})), 404, 2001, "unknown asset"),
        (
            Q,
            quote(
                json!({"out_minter": "jetton:0:5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee", "max_length": 1}),
            ),
            422,
            3001,
            "no route",
        ),
        (Q, quote(json!({"out_minter": NOT, "amount": two_120.replace("576", "575")})), 422, 3002, "refuses"),
        // --- swap: body and sender
        (S, "{}".into(), 400, 1002, "field `sender_address`: missing"),
        (S, "nope".into(), 400, 1000, "not valid JSON"),
        (
            S,
            swap(&valid, |b| b["sender_address"] = json!("nope")),
            400,
            1011,
            "field `sender_address`: `nope` is not a TON address",
        ),
        (S, swap(&valid, |b| b["sender_address"] = json!(12)), 400, 1003, "field `sender_address`: expected a string"),
        (S, swap(&valid, |b| b["sender_address"] = json!(format!("7:{}", &USDT[9..]))), 400, 1011, "names workchain 7"),
        // Addresses and asset ids refuse whitespace as amounts do (a no-break space included), and a swap's
        // sender flagged for testnet is refused on this mainnet server.
        (
            S,
            swap(&valid, |b| b["sender_address"] = json!(format!("{SENDER}\u{a0}"))),
            400,
            1011,
            "field `sender_address`: `UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p\u{a0}` is not a TON address: it has whitespace at position 48",
        ),
        (S, swap(&valid, |b| b["sender_address"] = json!(format!(" {SENDER}"))), 400, 1011, "whitespace at position 0"),
        (S, swap(&valid, |b| b["sender_address"] = json!(testnet_sender.clone())), 400, 1011, "flagged for testnet"),
        (Q, quote(json!({"in_minter": "native "})), 400, 1010, "field `in_minter`: asset id `native ` has whitespace at position 6"),
        (Q, quote(json!({"out_minter": format!("\u{a0}{USDT}")})), 400, 1010, "has whitespace at position 0"),
        (
            S,
            swap(&valid, |b| b.as_object_mut().unwrap().remove("swap_data").map(drop).unwrap_or(())),
            400,
            1002,
            "field `swap_data`: missing",
        ),
        (
            S,
            swap(&valid, |b| b["swap_data"] = json!([])),
            400,
            1003,
            "field `swap_data`: expected an object, got an array",
        ),
        (S, swap(&valid, |b| b["extra"] = json!(1)), 400, 1004, "field `extra`: unknown field"),
        // --- swap: swap_data shape
        (S, swap(&valid, |b| b["swap_data"]["routes"] = json!([])), 400, 1031, "field `swap_data.routes`: no routes"),
        (
            S,
            swap(&valid, |b| b["swap_data"]["routes"] = json!([[]])),
            400,
            1031,
            "field `swap_data.routes[0]`: 0 steps",
        ),
        (
            S,
            swap(&valid, |b| b["swap_data"]["routes"] = json!({})),
            400,
            1003,
            "field `swap_data.routes`: expected an array",
        ),
        (
            S,
            swap(&valid, |b| b["swap_data"]["slippage_bps"] = json!(20000)),
            400,
            1022,
            "field `swap_data.slippage_bps`: 20000",
        ),
        (
            S,
            swap(&valid, |b| step(b)["in_amount"] = json!("-1")),
            400,
            1015,
            "field `swap_data.routes[0][0].in_amount`: `-1` is negative",
        ),
        (
            S,
            swap(&valid, |b| step(b)["out_amount"] = json!("2.5")),
            400,
            1016,
            "field `swap_data.routes[0][0].out_amount`",
        ),
        (
            S,
            swap(&valid, |b| step(b)["network_fee"] = json!(5)),
            400,
            1003,
            "field `swap_data.routes[0][0].network_fee`",
        ),
        (
            S,
            swap(&valid, |b| step(b)["protocol_slug"] = json!("dex_z")),
            400,
            1030,
            "field `swap_data.routes[0][0].protocol_slug`: unknown protocol `dex_z`",
        ),
        (
            S,
            swap(&valid, |b| step(b)["pool_address"] = json!("xyz")),
            400,
            1011,
            "field `swap_data.routes[0][0].pool_address`",
        ),
        (
            S,
            swap(&valid, |b| step(b)["is_stable"] = json!("no")),
            400,
            1003,
            "field `swap_data.routes[0][0].is_stable`: expected a boolean",
        ),
        (
            S,
            swap(&valid, |b| step(b)["in_minter"] = json!("bogus")),
            400,
            1010,
            "field `swap_data.routes[0][0].in_minter`",
        ),
        (
            S,
            swap(&valid, |b| step(b)["out_minter"] = json!("native")),
            400,
            1024,
            "field `swap_data.routes[0][0].out_minter`: same asset",
        ),
        (
            S,
            swap(&valid, |b| {
                step(b).as_object_mut().unwrap().remove("out_minter");
            }),
            400,
            1002,
            "field `swap_data.routes[0][0].out_minter`: missing",
        ),
        (
            S,
            swap(&valid, |b| step(b)["hops"] = json!(1)),
            400,
            1004,
            "field `swap_data.routes[0][0].hops`: unknown field",
        ),
        (
            S,
            swap(&valid, |b| {
                step(b)["dex_c_extra_details"] =
                    json!({"from_router_wallet": V2_POOL, "to_router_wallet": V2_POOL, "zero_to_one": true})
            }),
            400,
            1031,
            "field `swap_data.routes[0][0].dex_c_extra_details`: not allowed on a `dex_b_v2` step",
        ),
        (
            S,
            swap(&valid, |b| step(b)["dex_b_extra_details"]["router"] = json!(1)),
            400,
            1003,
            "dex_b_extra_details.router",
        ),
        (
            S,
            swap(&valid, |b| {
                let r = b["swap_data"]["routes"][0].clone();
                let mut second = r[0].clone();
                second["in_amount"] = json!("1");
                second["in_minter"] = r[0]["out_minter"].clone();
                second["out_minter"] = json!("native");
                b["swap_data"]["routes"][0] = json!([r[0].clone(), second]);
            }),
            400,
            1031,
            "field `swap_data.routes[0][1].in_amount`",
        ),
        // --- swap: against the graph
        (
            S,
            swap(&valid, |b| step(b)["pool_address"] = json!(format!("0:{}", "77".repeat(32)))),
            404,
            2002,
            "unknown pool",
        ),
        (
            S,
            swap(&valid, |b| step(b)["dex_b_extra_details"]["router"] = json!(format!("0:{}", "b9".repeat(32)))),
            422,
            3003,
            "dex_b_extra_details`: does not match",
        ),
        (
            S,
            swap(&valid, |b| step(b)["protocol_slug"] = json!("dex_b_v1")),
            422,
            3003,
            "protocol_slug`: the pool is `dex_b_v2`",
        ),
        (S, swap(&valid, |b| step(b)["is_stable"] = json!(true)), 422, 3003, "is_stable"),
        (S, swap(&valid, |b| step(b)["in_minter"] = json!(NOT)), 422, 3003, "the pool trades"),
        (
            S,
            swap(&valid, |b| {
                let out: u128 = step(b)["out_amount"].as_str().unwrap().parse().unwrap();
                step(b)["out_amount"] = json!((out * 2).to_string());
            }),
            422,
            3004,
            "quote again",
        ),
        (S, swap(&jetton_offer, |_| {}), 422, 3005, "jetton wallet"),
        // --- admin reserves
        (R, "{}".into(), 400, 1000, "JSON array"),
        (
            R,
            format!(r#"[{{"pool": "0:{}", "reserves": ["1", "2"]}}]"#, "77".repeat(32)),
            404,
            2002,
            "field `[0].pool`: unknown pool",
        ),
        (R, format!(r#"[{{"pool": "{V2_POOL}", "reserves": ["1"]}}]"#), 400, 1003, "field `[0].reserves`"),
        (
            R,
            format!(r#"[{{"pool": "{V2_POOL}", "reserves": ["1", "{two_120}"]}}]"#),
            400,
            1014,
            "field `[0].reserves[1]`",
        ),
        (R, format!(r#"[{{"pool": "{V2_POOL}"}}]"#), 400, 1002, "field `[0].reserves`: missing"),
        // --- paths and methods
        ("/v4/router/nope", "{}".into(), 404, 2003, "no such path"),
    ];
    assert!(cases.len() >= 40, "{} cases", cases.len());

    let mut failures = Vec::new();
    for (i, (path, body, status, code, needle)) in cases.iter().enumerate() {
        let (got_status, text) = post(&client, &base, path, body.clone()).await;
        let v: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(_) => {
                failures.push(format!("#{i} {path}: body is not JSON: {text}"));
                continue;
            }
        };
        let ok = got_status == *status
            && v["code"].as_i64() == Some(i64::from(*code))
            && v["message"].as_str().is_some_and(|m| m.contains(needle))
            // No decoding library's wording leaks into a message.
            && v["message"].as_str().is_some_and(|m| !m.contains("Base64") && !m.contains("base64std"))
            && v.as_object().map(|o| o.len()) == Some(2);
        if !ok {
            failures.push(format!("#{i} {path}: want {status}/{code}/`{needle}`, got {got_status} {text}"));
        }
    }
    // The valid swap is built: one message per route, to a friendly address, with TON attached and a body.
    let (status, text) = post(&client, &base, S, swap(&valid, |_| {})).await;
    assert_eq!(status, 200, "{text}");
    let built: Value = serde_json::from_str(&text).unwrap();
    let txs = built["transactions"].as_array().unwrap();
    assert_eq!(txs.len(), 1);
    assert!(txs[0]["address"].as_str().unwrap().starts_with("EQ"));
    assert!(txs[0]["amount"].as_str().unwrap().parse::<u128>().unwrap() > 1_000_000_000);
    assert!(!txs[0]["payload"].as_str().unwrap().is_empty());
    assert!(built["query_id"].as_u64().unwrap() > 0);
    // A wrong method on a known path.
    let r = client.get(format!("{base}{Q}")).send().await.unwrap();
    assert_eq!(r.status().as_u16(), 405);
    let v: Value = serde_json::from_str(&r.text().await.unwrap()).unwrap();
    assert_eq!(v["code"], 2004);
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
