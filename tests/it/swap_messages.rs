//! Every swap-message vector produced by the exchanges' own SDKs (`tests/data/msg-oracle*`, see
//! tests/data/README.md) must come out of `tonroute::swap` with the same destination, the same value and the
//! same root cell hash. BOC bytes may legally differ (tonlib-core orders cells breadth-first, @ton/core
//! depth-first), so hashes are compared; on failure both cell trees are printed.
//!
//! Set `TONROUTE_MSG_VECTORS` to a directory holding `cases.json` and `outputs.json` to run the first test on
//! other vectors of the same format.

use std::collections::BTreeMap;

use primitive_types::U256;
use serde_json::Value;
use tonlib_core::cell::{BagOfCells, Cell};
use tonlib_core::TonAddress;
use tonroute::swap::decode::{decode, Layout};
use tonroute::swap::jetton::JettonTransfer;
use tonroute::swap::{
    dex_a, dex_b_v1, dex_b_v2, dex_c, Direction, Gas, GasTable, Hop, Message, ProtocolGas, SwapArgs, Terms,
};

/// The proxy-TON v2.1 `tonTransfer` gas the STON.fi SDK adds on top of `forwardGasAmount` for TON offers.
const PTON_V2_TON_TRANSFER_GAS: u128 = 10_000_000;
/// TONCO SDK `SWAP_GAS_SLIPPAGE`, added to `txFee` for the jetton transfer's forward amount.
const TONCO_SWAP_GAS_SLIPPAGE: u128 = 100_000_000;

fn load(dir: &str) -> (Vec<Value>, BTreeMap<String, Value>) {
    let read = |f: &str| -> Value {
        let path = format!("{dir}/{f}");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
    };
    let cases = read("cases.json");
    let cases = cases.get("cases").unwrap_or(&cases).as_array().expect("cases array").clone();
    let outputs = read("outputs.json");
    let outputs = outputs["results"]
        .as_array()
        .expect("results array")
        .iter()
        .map(|r| (r["id"].as_str().expect("id").to_string(), r.clone()))
        .collect();
    (cases, outputs)
}

fn s<'a>(c: &'a Value, k: &str) -> Option<&'a str> {
    c.get(k).and_then(Value::as_str)
}

fn int(c: &Value, k: &str) -> Option<u128> {
    c.get(k).map(|v| match v {
        Value::String(s) => s.parse().unwrap_or_else(|_| panic!("{k} = {s} not an integer")),
        Value::Number(n) => u128::from(n.as_u64().unwrap_or_else(|| panic!("{k} not u64"))),
        _ => panic!("{k} has a bad type"),
    })
}

fn addr(c: &Value, k: &str) -> Option<TonAddress> {
    s(c, k).map(|v| v.parse().unwrap_or_else(|e| panic!("{k} = {v}: {e}")))
}

fn req_addr(c: &Value, k: &str) -> TonAddress {
    addr(c, k).unwrap_or_else(|| panic!("case {} lacks {k}", c["id"]))
}

fn kind(c: &Value) -> Direction {
    match s(c, "kind") {
        Some("ton_to_jetton") | Some("native_to_any") => Direction::NativeToJetton,
        Some("jetton_to_ton") => Direction::JettonToNative,
        Some("jetton_to_jetton") | Some("jetton_to_any") => Direction::JettonToJetton,
        other => panic!("unknown kind {other:?}"),
    }
}

fn qid(c: &Value) -> u64 {
    u64::try_from(int(c, "query_id").unwrap_or(0)).expect("query_id fits u64")
}

/// Applies a case's `gas_amount` / `forward_gas_amount` (when given) the way the SDK uses them.
fn override_gas(t: &mut ProtocolGas, d: Direction, hops: usize, attached: Option<u128>, forward: Option<u128>) {
    let base = t.get(d, hops).expect("default gas entry");
    t.set(d, hops, Gas::new(attached.unwrap_or(base.attached), forward.unwrap_or(base.forward)));
}

fn hops_stonfi(c: &Value) -> Vec<Hop> {
    let mut hops =
        vec![Hop { address: req_addr(c, "ask_jetton_wallet"), min_out: int(c, "min_out").expect("min_out") }];
    for h in c.get("hops").and_then(Value::as_array).into_iter().flatten() {
        hops.push(Hop { address: req_addr(h, "ask_jetton_wallet"), min_out: int(h, "min_out").expect("hop min_out") });
    }
    hops
}

fn dedust_hops(c: &Value) -> Vec<Hop> {
    let mut hops = vec![Hop { address: req_addr(c, "pool"), min_out: int(c, "limit").unwrap_or(0) }];
    for h in c.get("hops").and_then(Value::as_array).into_iter().flatten() {
        hops.push(Hop { address: req_addr(h, "pool"), min_out: int(h, "limit").unwrap_or(0) });
    }
    hops
}

/// What decoding the SDK's payload must give back, from the case's own fields.
fn expected_decoded(c: &Value) -> Option<(Layout, u128, Vec<Hop>)> {
    let offer = int(c, "offer_amount")?;
    match s(c, "dex")? {
        "stonfi" if s(c, "version") == Some("v1") => Some((Layout::DexBV1, offer, hops_stonfi(c))),
        "stonfi" => Some((Layout::DexBV2, offer, hops_stonfi(c))),
        "dedust" => Some((Layout::DexA, offer, dedust_hops(c))),
        "tonco" => Some((
            Layout::DexC,
            offer,
            vec![Hop { address: req_addr(c, "ask_jetton_wallet"), min_out: int(c, "min_out").expect("min_out") }],
        )),
        _ => None,
    }
}

fn build(c: &Value) -> Message {
    let mut gas = GasTable::default();
    match s(c, "dex").expect("dex") {
        "stonfi" => {
            let d = kind(c);
            let hops = hops_stonfi(c);
            let (ga, fa) = (int(c, "gas_amount"), int(c, "forward_gas_amount"));
            if s(c, "version") == Some("v1") {
                // SDK v1, TON offer: value = offer + forward, and the pTON transfer forwards `forward`.
                let attached = if d.offer_is_native() { fa } else { ga };
                override_gas(&mut gas.dex_b_v1, d, 1, attached, fa);
                let router = addr(c, "router").unwrap_or_else(|| dex_b_v1::MAINNET_ROUTER.parse().unwrap());
                let args = SwapArgs {
                    direction: d,
                    entry: router,
                    sender: req_addr(c, "user"),
                    receiver: None,
                    offer_amount: int(c, "offer_amount").expect("offer"),
                    offer_wallet: Some(req_addr(c, "offer_jetton_wallet")),
                    hops,
                    deadline: 0,
                    referral: addr(c, "referral"),
                    query_id: qid(c),
                    then: None,
                    terms: Terms::DexBV1,
                };
                dex_b_v1::build(&args, &gas).unwrap_or_else(|e| panic!("{}: {e}", c["id"]))
            } else {
                // SDK v2, TON offer: value = offer + forward + pTON tonTransfer gas; gas_amount unused.
                let attached = if d.offer_is_native() { fa.map(|f| f + PTON_V2_TON_TRANSFER_GAS) } else { ga };
                override_gas(&mut gas.dex_b_v2, d, hops.len(), attached, fa);
                let ref_fee_bps = int(c, "referral_value")
                    .map(|v| u16::try_from(v).expect("referral_value u16"))
                    .unwrap_or(dex_b_v2::DEFAULT_REF_FEE_BPS);
                let args = SwapArgs {
                    direction: d,
                    entry: req_addr(c, "router"),
                    sender: req_addr(c, "user"),
                    receiver: addr(c, "receiver"),
                    offer_amount: int(c, "offer_amount").expect("offer"),
                    offer_wallet: Some(req_addr(c, "offer_jetton_wallet")),
                    hops,
                    deadline: u64::try_from(int(c, "deadline").expect("v2 deadline")).expect("deadline u64"),
                    referral: addr(c, "referral"),
                    query_id: qid(c),
                    then: None,
                    terms: Terms::DexBV2 { refund: addr(c, "refund"), excesses: addr(c, "excesses"), ref_fee_bps },
                };
                dex_b_v2::build(&args, &gas).unwrap_or_else(|e| panic!("{}: {e}", c["id"]))
            }
        }
        "dedust" => {
            let d = kind(c);
            let hops = dedust_hops(c);
            override_gas(&mut gas.dex_a, d, hops.len(), int(c, "gas_amount"), int(c, "forward_gas_amount"));
            let args = SwapArgs {
                direction: d,
                entry: req_addr(c, "vault"),
                sender: addr(c, "user").unwrap_or(TonAddress::NULL),
                receiver: addr(c, "recipient"),
                offer_amount: int(c, "offer_amount").expect("offer"),
                offer_wallet: addr(c, "offer_jetton_wallet"),
                hops,
                deadline: u64::try_from(int(c, "deadline").unwrap_or(0)).expect("deadline u64"),
                referral: addr(c, "referral"),
                query_id: qid(c),
                then: None,
                terms: Terms::DexA,
            };
            dex_a::build(&args, &gas).unwrap_or_else(|e| panic!("{}: {e}", c["id"]))
        }
        "tonco" => {
            let d = kind(c);
            let (tx_fee, fwd) = (int(c, "tx_fee"), int(c, "forward_gas"));
            if tx_fee.is_some() || fwd.is_some() {
                // SDK: value = txFee + forwardGas (+ offer); jetton forward = txFee + SWAP_GAS_SLIPPAGE.
                let tx_fee = tx_fee.unwrap_or(400_000_000);
                let fwd = fwd.unwrap_or(200_000_000);
                override_gas(&mut gas.dex_c, d, 1, Some(tx_fee + fwd), Some(tx_fee + TONCO_SWAP_GAS_SLIPPAGE));
            }
            let offer_wallet = if d.offer_is_native() {
                dex_c::MAINNET_ROUTER_PTON_WALLET.parse().unwrap()
            } else {
                req_addr(c, "offer_jetton_wallet")
            };
            let price_limit_sqrt =
                U256::from_dec_str(s(c, "price_limit_sqrt").expect("price_limit_sqrt")).expect("price limit");
            let args = SwapArgs {
                direction: d,
                entry: dex_c::MAINNET_ROUTER.parse().unwrap(),
                sender: req_addr(c, "user"),
                receiver: addr(c, "recipient"),
                offer_amount: int(c, "offer_amount").expect("offer"),
                offer_wallet: Some(offer_wallet),
                hops: vec![Hop {
                    address: req_addr(c, "ask_jetton_wallet"),
                    min_out: int(c, "min_out").expect("min_out"),
                }],
                deadline: 0,
                referral: None,
                // The SDK always writes 0 in TONCO jetton transfers; the oracle pins the TON one to query_id.
                query_id: if d.offer_is_native() { qid(c) } else { 0 },
                then: None,
                terms: Terms::DexC { price_limit_sqrt },
            };
            dex_c::build(&args, &gas).unwrap_or_else(|e| panic!("{}: {e}", c["id"]))
        }
        "tep74" => {
            let cell = |k: &str| {
                s(c, k).map(|b| Cell::clone(&BagOfCells::parse_base64(b).expect("boc").single_root().expect("root")))
            };
            JettonTransfer {
                query_id: qid(c),
                amount: int(c, "offer_amount").expect("amount"),
                destination: req_addr(c, "destination"),
                response_destination: addr(c, "response_destination"),
                custom_payload: cell("custom_payload"),
                forward_ton_amount: int(c, "forward_gas_amount").unwrap_or(0),
                forward_payload: cell("forward_payload"),
            }
            .message(req_addr(c, "offer_jetton_wallet"), int(c, "gas_amount").expect("gas_amount"))
            .unwrap_or_else(|e| panic!("{}: {e}", c["id"]))
        }
        other => panic!("{}: dex `{other}` not covered", c["id"]),
    }
}

/// Top-level fields of a jetton transfer or proxy-TON `ton_transfer` body, for failure messages.
fn describe(c: &Cell) -> String {
    let mut p = c.parser();
    let Ok(op) = p.load_u32(32) else { return "empty body".into() };
    let mut out = format!("op 0x{op:08x}");
    let mut field = |name: &str, v: Result<String, tonlib_core::cell::TonCellError>| {
        out.push_str(&format!(", {name} {}", v.unwrap_or_else(|e| format!("<{e}>"))));
    };
    match op {
        0x0f8a_7ea5 => {
            field("query_id", p.load_u64(64).map(|v| v.to_string()));
            field("amount", p.load_coins().map(|v| v.to_string()));
            field("destination", p.load_address().map(|a| a.to_hex()));
            field("response", p.load_address().map(|a| a.to_hex()));
            field("custom_payload", p.load_bit().map(|b| b.to_string()));
            field("forward_ton", p.load_coins().map(|v| v.to_string()));
        }
        0x01f3_835d => {
            field("query_id", p.load_u64(64).map(|v| v.to_string()));
            field("ton_amount", p.load_coins().map(|v| v.to_string()));
            field("refund", p.load_address().map(|a| a.to_hex()));
        }
        _ => {}
    }
    if let Some(r) = c.references().first() {
        if let Ok(op) = r.parser().load_u32(32) {
            out.push_str(&format!("; first ref op 0x{op:08x}"));
        }
    }
    out
}

fn tree(c: &Cell, depth: usize, out: &mut String) {
    let hex: String = c.data().iter().map(|b| format!("{b:02x}")).collect();
    out.push_str(&format!(
        "{:indent$}[{} bits] {} (hash {})\n",
        "",
        c.bit_len(),
        hex,
        &Cell::cell_hash(c).to_hex()[..16],
        indent = depth * 2
    ));
    for r in c.references() {
        tree(r, depth + 1, out);
    }
}

/// Runs every case of `dir`; returns (matched per dex, byte-identical BOCs).
fn run_dir(dir: &str) -> (BTreeMap<String, usize>, usize, usize) {
    let (cases, outputs) = load(dir);
    assert!(!cases.is_empty(), "{dir}: no cases");
    let mut per_dex = BTreeMap::new();
    let mut failures = Vec::new();
    let mut same_bytes = 0;
    let mut decoded = 0;
    for c in &cases {
        let id = s(c, "id").expect("id");
        let want = outputs.get(id).unwrap_or_else(|| panic!("{dir}: no output for {id}"));
        assert!(want.get("error").is_none(), "{id}: the oracle failed on this case: {}", want["error"]);
        let msg = build(c);
        let want_to: TonAddress = s(want, "to_raw").or(s(want, "to")).expect("to").parse().expect("to parses");
        let want_value: u128 = s(want, "value").expect("value").parse().expect("value u128");
        let want_hash = s(want, "payload_hash").expect("payload_hash");
        let ours_b64 = msg.payload_base64().expect("serialise");
        // Round trip our own BOC through the parser: it must give back the same root.
        let reparsed = BagOfCells::parse_base64(&ours_b64).expect("parse ours").single_root().expect("root");
        assert_eq!(Cell::cell_hash(&reparsed).to_hex(), msg.body_hash_hex(), "{id}: BOC round trip");
        if ours_b64 == s(want, "payload").unwrap_or("") {
            same_bytes += 1;
        }
        let mut problems = Vec::new();
        if msg.to != want_to {
            problems.push(format!("to: ours {} sdk {}", msg.to.to_hex(), want_to.to_hex()));
        }
        if msg.value != want_value {
            problems.push(format!("value: ours {} sdk {want_value}", msg.value));
        }
        if msg.body_hash_hex() != want_hash {
            let sdk = BagOfCells::parse_base64(s(want, "payload").expect("payload")).expect("sdk boc");
            let sdk = sdk.single_root().expect("sdk root");
            let (mut a, mut b) = (String::new(), String::new());
            tree(&msg.body, 0, &mut a);
            tree(&sdk, 0, &mut b);
            problems.push(format!(
                "root hash: ours {} sdk {want_hash}\n-- ours: {}\n{a}-- sdk: {}\n{b}",
                msg.body_hash_hex(),
                describe(&msg.body),
                describe(&sdk)
            ));
        }
        if let Some((layout, offer, hops)) = expected_decoded(c) {
            let sdk = BagOfCells::parse_base64(s(want, "payload").expect("payload")).expect("sdk boc");
            let sdk = sdk.single_root().expect("sdk root");
            match decode(&sdk) {
                Ok(got) => {
                    if (got.layout, got.offer_amount, &got.hops) != (layout, offer, &hops) {
                        problems.push(format!(
                            "decoding the SDK payload gave {got:?}, case says {layout:?} {offer} {hops:?}"
                        ));
                    }
                }
                Err(e) => problems.push(format!("decoding the SDK payload failed: {e}")),
            }
            decoded += 1;
        }
        if problems.is_empty() {
            *per_dex.entry(s(c, "dex").expect("dex").to_string()).or_insert(0) += 1;
        } else {
            failures.push(format!("{id}:\n  {}", problems.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{dir}: {} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
    println!("{dir}: {decoded} SDK payloads decoded back to the case's layout, offer and hops");
    (per_dex, same_bytes, cases.len())
}

fn report(name: &str, (per_dex, same_bytes, total): (BTreeMap<String, usize>, usize, usize)) {
    let matched: usize = per_dex.values().sum();
    println!(
        "{name}: {matched}/{total} SDK vectors match (to, value, root hash); {same_bytes} also byte-identical BOC"
    );
    for (dex, n) in &per_dex {
        println!("  {dex}: {n}");
    }
    assert_eq!(matched, total);
}

#[test]
fn sdk_vectors_match() {
    let dir = std::env::var("TONROUTE_MSG_VECTORS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/msg-oracle").to_string());
    report(&dir, run_dir(&dir));
}

#[test]
fn extra_sdk_vectors_match() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/msg-oracle-extra");
    report(dir, run_dir(dir));
}
