//! Every real recorded payload in `tests/data/ton/` (copies of `shared/fixtures/ton/`, origins in
//! `tests/data/README.md`) decodes to the values recorded beside it (`sdk_expected`, `decoded`), in both
//! toncenter encodings. Expected values are the fixture's own, never our output.
#![cfg(feature = "serde")]

use std::str::FromStr;

use num_bigint::BigInt;
use serde_json::{json, Value};
use tonlib_core::cell::ArcCell;
use tonlib_core::TonAddress;
use tonroute::chain::boc::{parse_boc, parse_boc_text};
use tonroute::chain::stack::{GetMethodResult, StackEntry};
use tonroute::chain::wallet::{WalletFamily, WalletSpec};
use tonroute::chain::{dex_b, ChainError};

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/data/ton/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

fn addr(s: &str) -> TonAddress {
    TonAddress::from_str(s).unwrap()
}

/// A decimal (as the SDK snapshots write numbers) in toncenter's hex spelling: `0x…`, `-0x…`.
fn hex(decimal: &str) -> String {
    let v = BigInt::from_str(decimal).unwrap();
    if v < BigInt::from(0) {
        format!("-0x{:x}", -v)
    } else {
        format!("0x{v:x}")
    }
}

/// The fixture's stack (SDK form) as a toncenter v2 response and as a v3 response.
fn encodings(stack: &Value) -> [String; 2] {
    let entries = stack.as_array().unwrap();
    let v2: Vec<Value> = entries
        .iter()
        .map(|e| match e["type"].as_str().unwrap() {
            "num" => json!(["num", hex(e["value"].as_str().unwrap())]),
            "cell" => json!(["cell", {"bytes": e["boc"], "object": {}}]),
            other => panic!("fixture kind {other}"),
        })
        .collect();
    let v3: Vec<Value> = entries
        .iter()
        .map(|e| match e["type"].as_str().unwrap() {
            "num" => json!({"type": "num", "value": hex(e["value"].as_str().unwrap())}),
            "cell" => json!({"type": "cell", "value": e["boc"]}),
            other => panic!("fixture kind {other}"),
        })
        .collect();
    [
        json!({"ok": true, "result": {"@type": "smc.runResult", "gas_used": 2000, "stack": v2, "exit_code": 0}})
            .to_string(),
        json!({"gas_used": 2000, "exit_code": 0, "stack": v3}).to_string(),
    ]
}

/// The stack in both encodings, checked to read the same.
fn stacks(stack: &Value) -> Vec<Vec<StackEntry>> {
    let [v2, v3] = encodings(stack);
    let a = GetMethodResult::from_json(&v2).unwrap().stack;
    let b = GetMethodResult::from_json(&v3).unwrap().stack;
    assert_eq!(a, b, "v2 and v3 encodings must read alike");
    vec![a, b]
}

fn u128_of(v: &Value) -> u128 {
    v.as_str().unwrap().parse().unwrap()
}

/// The fields the SDK prints alike for v1 and v2 pools, against `d`, a `v1_pool_data` or `v2_pool_data` answer:
/// reserves, token wallets, lp and protocol fees, and the collected protocol fees.
macro_rules! assert_sdk_pool_fields {
    ($d:expr, $want:expr) => {{
        let (d, want): (_, &Value) = (&$d, $want);
        assert_eq!(d.reserve0, u128_of(&want["reserve0"]));
        assert_eq!(d.reserve1, u128_of(&want["reserve1"]));
        assert_eq!(d.token0_wallet, addr(want["token0WalletAddress"].as_str().unwrap()));
        assert_eq!(d.token1_wallet, addr(want["token1WalletAddress"].as_str().unwrap()));
        assert_eq!(u128::from(d.lp_fee), u128_of(&want["lpFee"]));
        assert_eq!(u128::from(d.protocol_fee), u128_of(&want["protocolFee"]));
        assert_eq!(d.collected_token0_protocol_fee, u128_of(&want["collectedToken0ProtocolFee"]));
        assert_eq!(d.collected_token1_protocol_fee, u128_of(&want["collectedToken1ProtocolFee"]));
    }};
}

#[test]
fn stonfi_v1_get_pool_data_matches_the_sdk() {
    let f = fixture("stonfi-v1-pool-get_pool_data.json");
    let want = &f["sdk_expected"];
    for stack in stacks(&f["stack"]) {
        let d = dex_b::v1_pool_data(&stack).unwrap();
        assert_sdk_pool_fields!(d, want);
        assert_eq!(u128::from(d.ref_fee), u128_of(&want["refFee"]));
        // The v1 pool stores the zero address (not addr_none): the SDK prints it as EQAAAA…AM9c.
        assert_eq!(d.protocol_fee_address, Some(addr(want["protocolFeeAddress"].as_str().unwrap())));
    }
    // Each address entry's recorded `decoded.address_raw`.
    for (i, e) in f["stack"].as_array().unwrap().iter().enumerate() {
        if let Some(raw) = e["decoded"]["address_raw"].as_str() {
            let stack = &stacks(&f["stack"])[0];
            let StackEntry::Cell(cell) = &stack[i] else { panic!("entry {i}") };
            let mut p = cell.parser();
            let got = tonroute::chain::cell::read_address(&mut p).unwrap().unwrap();
            assert_eq!(got.to_hex(), raw, "entry {i}");
        }
    }
}

#[test]
fn stonfi_v1_get_expected_outputs_decodes() {
    let f = fixture("stonfi-v1-pool-get_expected_outputs.json");
    let want: Vec<u128> = f["stack"].as_array().unwrap().iter().map(|e| u128_of(&e["value"])).collect();
    for stack in stacks(&f["stack"]) {
        let o = dex_b::v1_expected_outputs(&stack).unwrap();
        assert_eq!(vec![o.jetton_to_receive, o.protocol_fee_paid, o.ref_fee_paid], want);
    }
}

#[test]
fn stonfi_v2_1_get_pool_data_matches_the_sdk() {
    let f = fixture("stonfi-v2_1-pool-get_pool_data.testnet.json");
    let want = &f["sdk_expected"];
    for stack in stacks(&f["stack"]) {
        let d = dex_b::v2_pool_data(&stack, dex_b::PoolType::ConstantProduct).unwrap();
        assert_eq!(d.is_locked, want["isLocked"].as_bool().unwrap());
        assert_eq!(d.router, addr(want["routerAddress"].as_str().unwrap()));
        assert_eq!(d.total_supply_lp, u128_of(&want["totalSupplyLP"]));
        assert_sdk_pool_fields!(d, want);
        assert!(want["protocolFeeAddress"].is_null());
        assert_eq!(d.protocol_fee_address, None, "the 2-bit addr_none cell");
        assert_eq!(d.params, dex_b::V2Params::ConstantProduct);
        // Twelve entries are not a stableswap stack (13): a typed length error, not a misread.
        assert!(matches!(
            dex_b::v2_pool_data(&stack, dex_b::PoolType::StableSwap),
            Err(ChainError::StackLength { found: 12, .. })
        ));
    }
    let companion = &f["companion_get_pool_type"]["stack"];
    assert_eq!(companion[0]["decoded"]["text"], "constant_product");
    for stack in stacks(companion) {
        assert_eq!(dex_b::pool_type(&stack).unwrap(), dex_b::PoolType::ConstantProduct);
    }
}

/// Number of distinct cells under `root` (what the fixtures record as `decoded.cells`).
fn distinct_cells(root: &ArcCell) -> usize {
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![root.clone()];
    while let Some(c) = todo.pop() {
        if seen.insert(c.cell_hash()) {
            todo.extend(c.references().iter().cloned());
        }
    }
    seen.len()
}

#[test]
fn router_data_cells_and_library_cells_decode() {
    for name in ["stonfi-v1-router-get_router_data.json", "stonfi-v2_1-router-get_router_data.testnet.json"] {
        let f = fixture(name);
        let stack = &stacks(&f["stack"])[0];
        for (i, e) in f["stack"].as_array().unwrap().iter().enumerate() {
            let d = &e["decoded"];
            let cell = match &stack[i] {
                StackEntry::Cell(c) => c,
                StackEntry::Int(v) => {
                    assert_eq!(v.to_string(), e["value"].as_str().unwrap());
                    continue;
                }
                other => panic!("{name} entry {i}: {other:?}"),
            };
            if let Some(raw) = d["address_raw"].as_str() {
                let got = tonroute::chain::cell::read_address(&mut cell.parser()).unwrap().unwrap();
                assert_eq!(got.to_hex(), raw, "{name} entry {i}");
            }
            if let Some(text) = d["text"].as_str() {
                assert_eq!(dex_b::read_text(cell, 64).unwrap(), text);
            }
            if let Some(n) = d["cells"].as_u64() {
                assert_eq!(distinct_cells(cell) as u64, n, "{name} entry {i}");
                assert_eq!(cell.bit_len() as u64, d["root_bits"].as_u64().unwrap());
                assert_eq!(cell.references().len() as u64, d["root_refs"].as_u64().unwrap());
                assert_eq!(cell.is_exotic(), d["exotic"].as_bool().unwrap());
                assert_eq!(cell.is_library(), d["exotic"].as_bool().unwrap(), "the exotic cells are libraries");
            }
        }
    }
    // The typed decoders: v2.1 router (id 101, constant_product, library codes) and its version.
    let f = fixture("stonfi-v2_1-router-get_router_data.testnet.json");
    for stack in stacks(&f["stack"]) {
        let d = dex_b::router_data(&stack).unwrap();
        assert_eq!(d.router_id, Some(101));
        assert_eq!(d.pool_type, Some(dex_b::PoolType::ConstantProduct));
        assert!(!d.is_locked);
        assert_eq!(d.admin.unwrap().to_hex(), f["stack"][3]["decoded"]["address_raw"].as_str().unwrap());
        assert!(d.pool_code.is_library() && d.lp_wallet_code.is_library() && d.lp_account_code.is_library());
        assert!(d.vault_code.unwrap().is_library());
    }
    for stack in stacks(&f["companion_get_router_version"]["stack"]) {
        assert_eq!(dex_b::router_version(&stack).unwrap(), (2, 1, "beta3.2".to_string()));
    }
    // The v1 router: six entries, full (non-library) codes, and its get_pool_address companion.
    let f = fixture("stonfi-v1-router-get_router_data.json");
    for stack in stacks(&f["stack"]) {
        let d = dex_b::router_data(&stack).unwrap();
        assert_eq!((d.router_id, d.pool_type, d.vault_code.is_none()), (None, None, true));
        assert_eq!(d.admin.unwrap().to_hex(), f["stack"][1]["decoded"]["address_raw"].as_str().unwrap());
        assert!(!d.pool_code.is_exotic());
    }
    let c = &f["companion_get_pool_address"];
    for stack in stacks(&c["stack"]) {
        let pool = tonroute::chain::stack::single_address(&stack, "get_pool_address").unwrap();
        assert_eq!(pool.to_hex(), c["stack"][0]["decoded"]["address_raw"].as_str().unwrap());
        assert_eq!(pool, addr(c["sdk_expected"].as_str().unwrap()));
    }
}

fn bytes_of(v: &Value) -> Vec<u8> {
    v.as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect()
}

#[test]
fn stonfi_v2_mainnet_pool_storage_decodes() {
    let f = fixture("stonfi-v2-pool-EQCGScrZ-account-state.ton-rs.json");
    let data = bytes_of(&f["data_boc"]);
    let d = dex_b::v2_pool_storage_boc(&data, dex_b::PoolType::ConstantProduct).unwrap();
    // Values recorded in ORIGINS.md / research 07 for this state.
    assert_eq!(d.reserve0, 2_543_727_890_452, "USD₮, 6 decimals");
    assert_eq!(d.reserve1, 1_727_085_023_286_242, "nanoTON");
    assert_eq!((d.lp_fee, d.protocol_fee), (20, 10));
    assert_eq!(d.protocol_fee_address, None);
    assert_eq!(d.router, addr("EQCS4UEa5UaJLzOyyKieqQOQ2P9M-7kXpkO5HnP3Bv250cN3"));
    assert!(d.token0_wallet.to_base64_url().starts_with("EQCSLWJ9"), "{}", d.token0_wallet);
    assert!(d.token1_wallet.to_base64_url().starts_with("EQCSIMGB"), "{}", d.token1_wallet);
    assert!(!d.is_locked);
    // The same cell is not a stableswap (32 more bits) nor a weighted_stableswap (one more reference).
    for other in [dex_b::PoolType::StableSwap, dex_b::PoolType::WeightedConstProduct] {
        assert!(matches!(dex_b::v2_pool_storage_boc(&data, other), Err(ChainError::DataField { .. })), "{other:?}");
    }
    assert!(dex_b::v2_pool_storage_boc(&data, dex_b::PoolType::WeightedStableSwap).is_err());
    // Its code is a library cell a9338ecd…81b4.
    let code = parse_boc(&bytes_of(&f["code_boc"])).unwrap();
    assert!(code.is_library());
    let hash: String = code.data()[1..].iter().map(|b| format!("{b:02x}")).collect();
    assert!(hash.starts_with("a9338ecd") && hash.ends_with("81b4"), "{hash}");
}

#[test]
fn recorded_transaction_hashes_to_its_id() {
    let text = std::fs::read_to_string(format!(
        "{}/tests/data/ton/stonfi-v2-pool-EQCGScrZ-last-tx-64954068000009.hex",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let tx = parse_boc_text(&text).unwrap();
    let want =
        fixture("stonfi-v2-pool-EQCGScrZ-account-state.ton-rs.json")["last_tx_id"]["hash"].as_str().unwrap().to_owned();
    let want = tonroute::chain::boc::decode_base64(&want).unwrap();
    assert_eq!(tx.cell_hash().as_slice(), want.as_slice());
}

fn cell_hex(hex: &str) -> ArcCell {
    parse_boc_text(hex).unwrap()
}

#[test]
fn jetton_wallets_derive_to_the_chains_answers() {
    let f = fixture("jetton-wallet-address-vectors.json");
    let v = f["vectors"].as_array().unwrap();
    // USD₮: the wallet code is the library cell the master stores (its data's first reference).
    let usdt = &v[0];
    let master_data = cell_hex(usdt["master_data_boc_hex"].as_str().unwrap());
    let code = master_data.references()[0].clone();
    assert!(code.is_library());
    let spec = WalletSpec { family: WalletFamily::Stablecoin, code };
    let master = addr(usdt["master"].as_str().unwrap());
    for case in usdt["cases"].as_array().unwrap() {
        let owner = addr(case["owner"].as_str().unwrap());
        let wallet = spec.wallet_address(&owner, &master).unwrap();
        assert_eq!(wallet.to_hex(), case["wallet_raw"].as_str().unwrap(), "USD₮ wallet of {owner}");
        if let Some(friendly) = case["wallet_friendly"].as_str() {
            assert_eq!(wallet.to_base64_url(), friendly);
        }
    }
    // Monsoon, TEP-74: the wallet code is the master data's second reference (content, then wallet code).
    let monsoon = &v[1];
    let master_data = cell_hex(monsoon["master_data_boc_hex"].as_str().unwrap());
    let spec = WalletSpec { family: WalletFamily::Tep74, code: master_data.references()[1].clone() };
    let master = addr(monsoon["master"].as_str().unwrap());
    for case in monsoon["cases"].as_array().unwrap() {
        let owner = addr(case["owner"].as_str().unwrap());
        let wallet = spec.wallet_address(&owner, &master).unwrap();
        assert_eq!(wallet.to_hex(), case["wallet_raw"].as_str().unwrap());
        assert_eq!(wallet.to_base64_url(), case["wallet_friendly"].as_str().unwrap());
    }
    // A USD₮ wallet's own recorded state: our initial data for its owner is its data cell, bit for bit, and
    // tonlib-core's StateInit hash over the library code gives its address.
    let own = &v[2];
    let code = cell_hex(own["wallet_code_boc_hex"].as_str().unwrap());
    let data = cell_hex(own["wallet_data_boc_hex"].as_str().unwrap());
    let mut p = data.parser();
    assert_eq!(p.load_u8(4).unwrap(), 0, "status");
    assert_eq!(tonroute::chain::cell::read_coins(&mut p).unwrap(), 0, "balance");
    let owner = tonroute::chain::cell::read_address(&mut p).unwrap().unwrap();
    let master = tonroute::chain::cell::read_address(&mut p).unwrap().unwrap();
    assert_eq!(master, addr(usdt["master"].as_str().unwrap()));
    let spec = WalletSpec { family: WalletFamily::Stablecoin, code: code.clone() };
    assert_eq!(spec.initial_data(&owner, &master).unwrap().cell_hash(), data.cell_hash());
    assert_eq!(TonAddress::derive(0, code, data).unwrap().to_hex(), own["wallet_raw"].as_str().unwrap());
    assert_eq!(spec.wallet_address(&owner, &master).unwrap().to_base64_url(), own["wallet_friendly"].as_str().unwrap());
}

#[test]
fn stonfi_get_wallet_address_results_decode() {
    let f = fixture("stonfi-sdk-get_wallet_address-vectors.json");
    for v in f["vectors"].as_array().unwrap() {
        let stack = json!([{"type": "cell", "boc": v["stack"][0]["boc"]}]);
        for s in stacks(&stack) {
            let wallet = tonroute::chain::stack::single_address(&s, "get_wallet_address").unwrap();
            assert_eq!(wallet.to_hex(), v["wallet_raw"].as_str().unwrap());
            assert_eq!(wallet.to_base64_url(), v["wallet_friendly"].as_str().unwrap());
        }
        assert_eq!(addr(v["owner"].as_str().unwrap()).to_hex(), v["owner_raw"].as_str().unwrap());
    }
}
