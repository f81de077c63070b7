//! `/v4/router/quote` and `/v4/router/swap` over real HTTP (`tonroute serve` on the bundled snapshot, a child
//! process on a free loopback port): a pair no single exchange joins gets a route across exchanges, and the
//! swap answer is the one message chain that carries it, decoded field by field with `tonlib-core`.
#![cfg(feature = "server")]

use crate::common;

use common::bin::spawn_serve;
use serde_json::Value;
use tonlib_core::cell::BagOfCells;
use tonlib_core::TonAddress;
use tonroute::swap::decode::{decode_body, Body, Payload};

/// USD₮ (the real master) and JT71 of the bundled snapshot: joined only through TON across exchanges.
const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const SENDER: &str = "UQAj-peZGPH-cC25EAv4Q-h8cBXszTmkch6ba6wXC8BM40qt";

#[test]
fn v4_swap_builds_the_chained_payloads_of_a_route_across_exchanges() {
    let server = spawn_serve(&[]);
    let snapshot: Value =
        serde_json::from_str(include_str!("../../data/snapshot.json")).expect("bundled snapshot is JSON");
    let jt71 = snapshot["assets"]
        .as_array()
        .and_then(|a| a.iter().find(|a| a["symbol"] == "JT71"))
        .and_then(|a| a["asset"].as_str())
        .expect("JT71 in the bundled snapshot")
        .to_string();
    let body = format!(r#"{{"in_minter": "{USDT}", "out_minter": "{jt71}", "amount": "25000000"}}"#);
    let (status, quote) = server.post("/v4/router/quote", &body);
    assert_eq!(status, 200, "{quote}");
    let quote: Value = serde_json::from_str(&quote).expect("quote JSON");
    let routes = quote["swap_data"]["routes"].as_array().expect("routes");
    // Every route switches exchange or router somewhere (no single one joins the pair).
    for steps in routes.iter().filter_map(Value::as_array) {
        let venue = |s: &Value| (s["protocol_slug"].clone(), s["dex_b_extra_details"]["router"].clone());
        assert!(steps.windows(2).any(|w| venue(&w[0]) != venue(&w[1])), "{steps:?}");
    }
    let request = format!(r#"{{"sender_address": "{SENDER}", "swap_data": {}}}"#, quote["swap_data"]);
    let (status, swap) = server.post("/v4/router/swap", &request);
    assert_eq!(status, 200, "{swap}");
    let swap: Value = serde_json::from_str(&swap).expect("swap JSON");
    let txs = swap["transactions"].as_array().expect("transactions");
    assert_eq!(txs.len(), routes.len(), "one message per route");
    let sender: TonAddress = SENDER.parse().expect("sender");
    for (tx, steps) in txs.iter().zip(routes.iter().filter_map(Value::as_array)) {
        let root = BagOfCells::parse_base64(tx["payload"].as_str().expect("payload"))
            .and_then(|b| b.single_root())
            .expect("a BOC");
        let Ok(Body::JettonTransfer { forward_payload, response_destination, .. }) = decode_body(&root) else {
            panic!("a USD₮ offer is a jetton transfer: {tx}")
        };
        assert_eq!(response_destination.as_ref(), Some(&sender));
        // Walk the nested payloads: one per segment, each naming the user where it refunds or pays.
        let mut payload = Some(forward_payload);
        let mut segments = 0;
        while let Some(p) = payload.take() {
            segments += 1;
            payload = match p {
                Payload::DexC(s) => {
                    assert_eq!(s.recipient.as_ref(), Some(&sender));
                    s.payloads.map(|h| {
                        assert!(h.ok_forward_amount > 0, "a hand-off forwards TON");
                        h.ok_forward_payload
                    })
                }
                Payload::DexBV2(s) => {
                    assert_eq!(s.refund_address.as_ref(), Some(&sender));
                    assert_eq!(s.excesses_address.as_ref(), Some(&sender));
                    match s.custom_payload {
                        Some(next) if !s.cross => {
                            assert!(s.fwd_gas > 0, "a hand-off forwards TON");
                            Some(next)
                        }
                        Some(next) => Some(next),
                        None => {
                            assert_eq!(s.receiver.as_ref(), Some(&sender), "the last swap pays the user");
                            None
                        }
                    }
                }
                other => panic!("unexpected payload on this pair: {other:?}"),
            };
        }
        assert!(segments >= 2, "{steps:?}: {segments} payloads");
    }
}
