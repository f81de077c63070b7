//! Jetton wallets of any owner: derived from the bundled snapshot's wallet families and checked against the
//! chain's own `get_wallet_address` answers (`tests/data/ton/jetton-wallet-address-vectors.json`), through
//! the graph, the swap builder, `POST /v4/router/swap` and the `tonroute swap` binary, for senders written
//! raw, bounceable and non-bounceable. Expected addresses come from the vectors, never from our code.
#![cfg(feature = "serde")]

use std::io::Write;
use std::process::{Command, Stdio};
use std::str::FromStr;
use std::sync::Arc;

use serde_json::Value;
use tonlib_core::TonAddress;
use tonroute::asset::Asset;
use tonroute::chain::wallet::WalletError;
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;
use tonroute::route::{QuoteOptions, QuoteRequest, Router};
use tonroute::swap::build::{build_swap, SwapRequest};
use tonroute::swap::{GasTable, SwapError};

const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

fn bundled_text() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/snapshot.json")).unwrap()
}

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ton/jetton-wallet-address-vectors.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// (owner as recorded, the owner's real USD₮ wallet in raw form) for every USD₮ vector.
fn usdt_cases() -> Vec<(String, String)> {
    let v = vectors();
    let mut cases: Vec<(String, String)> = v["vectors"][0]["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["owner"].as_str().unwrap().to_string(), c["wallet_raw"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(cases.len(), 2);
    // The wallet whose own state was recorded: its owner is in its data.
    let own = &v["vectors"][2];
    let data = tonroute::chain::boc::parse_boc_text(own["wallet_data_boc_hex"].as_str().unwrap()).unwrap();
    let mut p = data.parser();
    p.load_u8(4).unwrap();
    tonroute::chain::cell::read_coins(&mut p).unwrap();
    let owner = tonroute::chain::cell::read_address(&mut p).unwrap().unwrap();
    cases.push((owner.to_hex(), own["wallet_raw"].as_str().unwrap().to_string()));
    cases
}

/// The three spellings of an owner a client may send.
fn forms(owner: &str) -> [String; 3] {
    let a = TonAddress::from_str(owner).unwrap();
    [a.to_hex(), a.to_base64_url_flags(false, false), a.to_base64_url_flags(true, false)]
}

fn raw_of(friendly_or_raw: &str) -> String {
    TonAddress::from_str(friendly_or_raw).unwrap().to_hex()
}

/// A USD₮ → TON quote on the bundled snapshot (jetton offer: the first message goes to the sender's wallet).
fn usdt_quote(graph: &PoolGraph) -> tonroute::route::Quote {
    let req = QuoteRequest::new(Asset::from_str(USDT).unwrap(), Asset::Native, 100_000_000).unwrap();
    Router::default().quote(graph, &req, QuoteOptions::default()).unwrap()
}

#[test]
fn the_graph_derives_real_usdt_wallets_for_any_spelling() {
    let graph = PoolGraph::from_json(&bundled_text()).unwrap();
    let usdt = Asset::from_str(USDT).unwrap();
    for (owner, wallet) in usdt_cases() {
        for form in forms(&owner) {
            let sender = TonAddress::from_str(&form).unwrap();
            assert_eq!(graph.jetton_wallet(&sender, &usdt).unwrap().to_hex(), wallet, "owner {form}");
        }
    }
    // NOT's layout is not verified: a typed error for a stranger, the listed wallet for the demo user.
    let stranger = TonAddress::from_str(&usdt_cases()[0].0).unwrap();
    let not = Asset::from_str(NOT).unwrap();
    assert!(matches!(graph.jetton_wallet(&stranger, &not), Err(WalletError::UnknownFamily { .. })));
    let demo = TonAddress::from_str(&tonroute_synth::snapshot::demo_user()).unwrap();
    assert!(graph.jetton_wallet(&demo, &not).is_ok());
    assert_eq!(graph.jetton_wallet(&demo, &Asset::Native), Err(WalletError::NotAJetton));
}

#[test]
fn listed_wallets_override_derivation_and_other_families_derive_too() {
    let (owner, real) = usdt_cases().remove(0);
    let mut s = Snapshot::from_json(&bundled_text()).unwrap();
    let listed = "0:1111111111111111111111111111111111111111111111111111111111111111";
    s.jetton_wallets.entry(raw_of(&owner)).or_default().insert(USDT.to_string(), listed.to_string());
    let graph = s.into_graph().unwrap();
    let usdt = Asset::from_str(USDT).unwrap();
    let sender = TonAddress::from_str(&owner).unwrap();
    assert_eq!(graph.jetton_wallet(&sender, &usdt).unwrap().to_hex(), listed);
    assert_ne!(listed, real);

    // Monsoon (TEP-74) with its own wallet code in the snapshot, and STON.fi's STON (family unknown: only a
    // listed wallet works; the chain's answer from the SDK vectors is listed).
    let v = vectors();
    let monsoon = &v["vectors"][1];
    let master_data = tonroute::chain::boc::parse_boc_text(monsoon["master_data_boc_hex"].as_str().unwrap()).unwrap();
    let code = tonlib_core::cell::BagOfCells::new(&[master_data.references()[1].clone()]).serialize(true).unwrap();
    let code = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, code);
    let monsoon_id = Asset::from_str(monsoon["master"].as_str().unwrap()).unwrap().to_string();
    let ston: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/ton/stonfi-sdk-get_wallet_address-vectors.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let ston0 = &ston["vectors"][0];
    let ston_id = Asset::from_str(ston0["jetton_master"].as_str().unwrap()).unwrap().to_string();
    let text = serde_json::json!({
        "assets": [
            {"asset": "native", "symbol": "TON", "decimals": 9},
            {"asset": monsoon_id, "symbol": "MON", "decimals": 9, "wallet": {"family": "tep74", "code": code}},
            {"asset": ston_id, "symbol": "STON", "decimals": 9}
        ],
        "pools": [],
        "jetton_wallets": {ston0["owner_raw"].as_str().unwrap(): {ston_id.clone(): ston0["wallet_raw"]}}
    });
    let graph = PoolGraph::from_json(&text.to_string()).unwrap();
    let case = &monsoon["cases"][0];
    let owner = TonAddress::from_str(case["owner"].as_str().unwrap()).unwrap();
    let got = graph.jetton_wallet(&owner, &Asset::from_str(&monsoon_id).unwrap()).unwrap();
    assert_eq!(got.to_base64_url(), case["wallet_friendly"].as_str().unwrap());
    let ston_asset = Asset::from_str(&ston_id).unwrap();
    let ston_owner = TonAddress::from_str(ston0["owner"].as_str().unwrap()).unwrap();
    assert_eq!(graph.jetton_wallet(&ston_owner, &ston_asset).unwrap().to_base64_url(), ston0["wallet_friendly"]);
    assert!(matches!(graph.jetton_wallet(&owner, &ston_asset), Err(WalletError::UnknownFamily { .. })));

    // Bad wallet entries are refused with the asset named.
    for (wallet, needle) in [
        (serde_json::json!({"family": "taxable", "code": code}), "unknown family"),
        (serde_json::json!({"family": "tep74"}), "exactly one"),
        (serde_json::json!({"family": "tep74", "code_ref": "nope"}), "not in wallet_codes"),
        (serde_json::json!({"family": "tep74", "code": "AAAA"}), "wallet code"),
    ] {
        let bad = serde_json::json!({"assets": [{"asset": monsoon_id, "symbol": "MON", "decimals": 9, "wallet": wallet}], "pools": []});
        let err = PoolGraph::from_json(&bad.to_string()).unwrap_err().to_string();
        assert!(err.contains(&monsoon_id) && err.contains(needle), "{err}");
    }
}

#[test]
fn swap_builder_sends_the_first_message_to_the_real_usdt_wallet() {
    let graph = PoolGraph::from_json(&bundled_text()).unwrap();
    let quote = usdt_quote(&graph);
    for (owner, wallet) in usdt_cases() {
        for form in forms(&owner) {
            let req = SwapRequest {
                sender: TonAddress::from_str(&form).unwrap(),
                swap_data: quote.swap_data(&graph),
                query_id: 7,
                deadline: 1_900_000_000,
                referral: None,
            };
            let resp = build_swap(&graph, &req, &GasTable::default(), &graph).unwrap();
            assert!(!resp.transactions.is_empty());
            for t in &resp.transactions {
                assert_eq!(raw_of(&t.address), wallet, "sender {form}");
            }
        }
    }
    // A NOT offer from a stranger is refused (typed), not sent to a guessed wallet.
    let req = QuoteRequest::new(Asset::from_str(NOT).unwrap(), Asset::Native, 1_000_000_000_000).unwrap();
    let q = Router::default().quote(&graph, &req, QuoteOptions::default()).unwrap();
    let stranger = TonAddress::from_str(&usdt_cases()[0].0).unwrap();
    let req = SwapRequest {
        sender: stranger,
        swap_data: q.swap_data(&graph),
        query_id: 7,
        deadline: 1_900_000_000,
        referral: None,
    };
    assert!(matches!(
        build_swap(&graph, &req, &GasTable::default(), &graph),
        Err(SwapError::UnknownJettonWallet { .. })
    ));
}

#[cfg(feature = "server")]
#[tokio::test]
async fn v4_router_swap_works_for_any_sender() {
    use tonroute::api::Api;
    use tonroute::server::{serve, ServerConfig};

    let graph = Arc::new(PoolGraph::from_json(&bundled_text()).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, Api::new(graph), ServerConfig::default(), async move {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::new();
    let post = |path: &str, body: String| {
        let req = client.post(format!("{base}{path}")).header("content-type", "application/json").body(body);
        async move {
            let r = req.send().await.unwrap();
            (r.status().as_u16(), r.text().await.unwrap())
        }
    };
    let (status, quote) = post(
        "/v4/router/quote",
        format!(r#"{{"in_minter": "{USDT}", "out_minter": "native", "amount": "100000000"}}"#),
    )
    .await;
    assert_eq!(status, 200, "{quote}");
    let quote: Value = serde_json::from_str(&quote).unwrap();
    for (owner, wallet) in usdt_cases() {
        for form in forms(&owner) {
            let body = serde_json::json!({"sender_address": form, "swap_data": quote["swap_data"]}).to_string();
            let (status, text) = post("/v4/router/swap", body).await;
            assert_eq!(status, 200, "{form}: {text}");
            let resp: Value = serde_json::from_str(&text).unwrap();
            let first = resp["transactions"][0]["address"].as_str().unwrap();
            assert_eq!(raw_of(first), wallet, "sender {form}");
        }
    }
    // NOT from a stranger: 422, code 3005.
    let (_, q) = post(
        "/v4/router/quote",
        format!(r#"{{"in_minter": "{NOT}", "out_minter": "native", "amount": "1000000000000"}}"#),
    )
    .await;
    let q: Value = serde_json::from_str(&q).unwrap();
    let body = serde_json::json!({"sender_address": usdt_cases()[0].0, "swap_data": q["swap_data"]}).to_string();
    let (status, text) = post("/v4/router/swap", body).await;
    assert_eq!(status, 422, "{text}");
    assert_eq!(serde_json::from_str::<Value>(&text).unwrap()["code"], 3005);
    let _ = stop.send(());
}

#[cfg(feature = "cli")]
#[test]
fn tonroute_swap_binary_works_for_any_sender() {
    let bin = env!("CARGO_BIN_EXE_tonroute");
    let snapshot = concat!(env!("CARGO_MANIFEST_DIR"), "/data/snapshot.json");
    let quote = Command::new(bin)
        .args(["quote", "USDT", "TON", "100000000", "--json", "--snapshot", snapshot])
        .output()
        .unwrap();
    assert!(quote.status.success(), "{}", String::from_utf8_lossy(&quote.stderr));
    for (owner, wallet) in usdt_cases() {
        for form in forms(&owner) {
            let mut child = Command::new(bin)
                .args(["swap", "--sender", &form, "--snapshot", snapshot])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(&quote.stdout).unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(out.status.success(), "{form}: {}", String::from_utf8_lossy(&out.stderr));
            let resp: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(raw_of(resp["transactions"][0]["address"].as_str().unwrap()), wallet, "sender {form}");
        }
    }
}
