//! The API importers on real records (`tests/data/import/`, origins in `tests/data/README.md`): what they
//! import, what they skip and why, and quotes on imported pools against the contracts' formulas computed
//! here independently (or the exchange's own recorded answer).
#![cfg(feature = "serde")]

use primitive_types::U256;
use serde_json::json;
use tonroute::asset::Asset;
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;
use tonroute::import::{detect, import_files, import_onto, ImportError, Payload, PayloadKind, SkipReason};
use tonroute::route::{QuoteOptions, QuoteRequest, Router};

/// A recorded chain payload of `tests/data/ton/`, as JSON.
fn ton_fixture(name: &str) -> serde_json::Value {
    let path = format!("{}/tests/data/ton/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn file(name: &str) -> Payload {
    let path = format!("{}/tests/data/import/{name}", env!("CARGO_MANIFEST_DIR"));
    Payload { name: name.to_string(), text: std::fs::read_to_string(path).unwrap() }
}

fn text(name: &str, v: serde_json::Value) -> Payload {
    Payload { name: name.to_string(), text: v.to_string() }
}

const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";
const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";

fn asset(s: &str) -> Asset {
    Asset::parse(s).unwrap()
}

/// STON.fi v1/v2 constant product, as research 04 §1/§2a states the contracts: LP fee from the input, one
/// floor division, protocol (and referral) fee from the output rounded up.
fn stonfi_cp(amount: u128, r_in: u128, r_out: u128, lp: u128, protocol: u128) -> u128 {
    let aif = U256::from(amount) * U256::from(10_000 - lp);
    let base = aif * U256::from(r_out) / (U256::from(r_in) * U256::from(10_000u32) + aif);
    let base = base.as_u128();
    let proto = (base * protocol).div_ceil(10_000);
    base - proto
}

fn quote(graph: &PoolGraph, from: &str, to: &str, amount: u128) -> tonroute::route::Quote {
    let req = QuoteRequest::builder(asset(from), asset(to), amount).max_splits(1).build().unwrap();
    Router::default().quote(graph, &req, QuoteOptions::default()).unwrap()
}

#[test]
fn payload_kinds_are_recognised_from_content() {
    let kinds = [
        ("stonfi-pools.json", PayloadKind::DexBPools),
        ("stonfi-routers.json", PayloadKind::DexBRouters),
        ("dedust-pools.json", PayloadKind::DexAPools),
    ];
    for (name, kind) in kinds {
        let v: serde_json::Value = serde_json::from_str(&file(name).text).unwrap();
        assert_eq!(detect(&v), Some(kind), "{name}");
    }
    assert_eq!(detect(&json!({"asset_list": []})), Some(PayloadKind::DexBAssets));
    assert_eq!(detect(&json!({"data": {"pools": []}})), Some(PayloadKind::DexCPools));
    assert_eq!(detect(&json!({"pool": {"address": "x", "router_address": "y"}})), Some(PayloadKind::DexBPools));
    assert_eq!(detect(&json!({"hello": 1})), None);
    assert!(matches!(import_files(&[text("x.json", json!({"hello": 1}))]), Err(ImportError::UnknownKind { .. })));
    assert!(matches!(
        import_files(&[Payload { name: "bad.json".into(), text: "{\"pool_list\": [".into() }]),
        Err(ImportError::Json { .. })
    ));
    assert!(matches!(import_files(&[file("stonfi-routers.json")]), Err(ImportError::NoPools)));
    assert!(matches!(
        import_files(&[text("p.json", json!({"pool_list": 5}))]),
        Err(ImportError::Shape { field: "pool_list", .. })
    ));
}

#[test]
fn stonfi_pools_alone_import_and_quote_like_the_contract() {
    let report = import_files(&[file("stonfi-pools.json")]).unwrap();
    assert_eq!(report.imported_total(), 3, "{:?}", report.skipped);
    assert_eq!(report.skipped_total(), 0);
    assert_eq!(report.imported.get("dex_b_v1/constant_product"), Some(&2));
    assert_eq!(report.imported.get("dex_b_v2/constant_product"), Some(&1), "no routers: no amp/w0/rate → CP");
    let s = &report.snapshot;
    // TON written as the zero address (v1) and as the pTON v2.1 master (v2) both became `native`.
    let by = |a: &str| s.pools.iter().find(|p| p.address == a).unwrap();
    let not_ton = by("0:9a63c21f9764ba95104c049798df92c8b8c5cf73c25f22d586e2d97b9411ab4a");
    assert_eq!(not_ton.assets, [NOT.to_string(), "native".to_string()]);
    assert_eq!((not_ton.lp_fee, not_ton.protocol_fee, not_ton.ref_fee), (70, 30, 30));
    let usdt_ton = by("0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6");
    assert_eq!(usdt_ton.assets, [USDT.to_string(), "native".to_string()]);
    assert_eq!(usdt_ton.router.as_deref(), Some("0:92e1411ae546892f33b2c8a89ea90390d8ff4cfbb917a643b91e73f706fdb9d1"));
    // Without /v1/assets the jettons get TEP-64's default decimals and are counted as lacking metadata.
    assert_eq!(report.assets_without_metadata, 3);

    let graph = PoolGraph::from_json(&serde_json::to_string(s).unwrap()).unwrap();
    // v1 NOT/TON record: 10^12 nanoNOT in (1,000 NOT).
    let q = quote(&graph, NOT, "native", 1_000_000_000_000);
    assert_eq!(q.out_amount, stonfi_cp(1_000_000_000_000, 327_026_382_098_709_038, 562_652_470_746_670, 70, 30));
    // v2 USD₮/TON state from the chain: 1,000 USD₮ in, and 5 TON the other way.
    let q = quote(&graph, USDT, "native", 1_000_000_000);
    assert_eq!(q.out_amount, stonfi_cp(1_000_000_000, 2_543_727_890_452, 1_727_085_023_286_242, 20, 10));
    let q = quote(&graph, "native", USDT, 5_000_000_000);
    assert_eq!(q.out_amount, stonfi_cp(5_000_000_000, 1_727_085_023_286_242, 2_543_727_890_452, 20, 10));
}

#[test]
fn stonfi_routers_and_assets_are_used_when_given() {
    let assets = text(
        "assets.json",
        json!({"asset_list": [
            {"contract_address": "EQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__NOT", "symbol": "NOT", "display_name": "Notcoin",
             "decimals": 9, "kind": "Jetton", "dex_price_usd": "0.0072", "image_url": "https://example.invalid/not.png"},
            {"contract_address": "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", "symbol": "USD₮", "display_name": "Tether USD",
             "decimals": 6, "kind": "Jetton"}
        ]}),
    );
    // Routers and assets given after the pools: read first anyway.
    let report = import_files(&[file("stonfi-pools.json"), file("stonfi-routers.json"), assets]).unwrap();
    assert_eq!(report.imported_total(), 3);
    let s = &report.snapshot;
    let usdt = s.assets.iter().find(|a| a.asset == USDT).unwrap();
    assert_eq!((usdt.symbol.as_str(), usdt.decimals), ("USD₮", 6));
    let not = s.assets.iter().find(|a| a.asset == NOT).unwrap();
    assert_eq!((not.symbol.as_str(), not.usd_price.as_deref()), ("NOT", Some("0.0072")));
    assert_eq!(report.assets_without_metadata, 1, "only the third jetton lacks metadata");
    assert_eq!(report.files.iter().map(|f| f.records).collect::<Vec<_>>(), vec![3, 2, 2]);

    // A router whose type we cannot price makes its pools `unknown_type`, whole.
    let routers = text(
        "routers.json",
        json!({"router_list": [{"address": "EQCS4UEa5UaJLzOyyKieqQOQ2P9M-7kXpkO5HnP3Bv250cN3", "major_version": 2,
                                "router_type": "ConstantSum"}]}),
    );
    let report = import_files(&[file("stonfi-pools.json"), routers]).unwrap();
    assert_eq!(report.imported_total(), 2);
    assert_eq!(report.skipped.get(&SkipReason::UnknownType), Some(&1));
    assert!(report.snapshot.assets.iter().all(|a| a.asset != USDT), "no asset of a skipped pool");
}

/// An address or router address that does not parse is skipped with the reason it does not (the parser's own
/// error after the text), not the bare text: "address `garbage`" left the user guessing.
#[test]
fn an_unreadable_address_is_skipped_with_why() {
    let pools = json!({"pool_list": [
        v2(1, json!({})),
        v2(2, json!({"address": "garbage"})),
        v2(3, json!({"router_address": "EQ-short"})),
    ]});
    let report = import_files(&[text("pools.json", pools)]).unwrap();
    assert_eq!(report.imported_total(), 1);
    let details: Vec<&str> =
        report.examples.iter().filter(|e| e.reason == SkipReason::Malformed).map(|e| e.detail.as_str()).collect();
    let why = |text: &str| tonroute::asset::parse_address(text).expect_err("not an address").to_string();
    assert_eq!(
        details,
        [format!("address `garbage`: {}", why("garbage")), format!("router_address `EQ-short`: {}", why("EQ-short"))]
    );
    assert!(!why("garbage").is_empty() && !why("EQ-short").is_empty());
}

/// A v2 pool record with fields set for the skip cases (synthetic addresses `EQ…` from raw ones).
fn v2(address_byte: u8, fields: serde_json::Value) -> serde_json::Value {
    let mut base = json!({
        "address": format!("0:{}", format!("{address_byte:02x}").repeat(32)),
        "router_address": "EQByADL5Ra2dldrMSBctgfSm2X2W1P61NVW2RYDb8eJNJGx6",
        "token0_address": "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs",
        "token1_address": "EQBnGWMCf3-FZZq1W4IWcWiGAc3PHuZ0_H-7sad2oY00o83S",
        "reserve0": "1000000000", "reserve1": "2000000000",
        "lp_fee": "20", "protocol_fee": "10", "ref_fee": "10", "deprecated": false
    });
    for (k, v) in fields.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

#[test]
fn unroutable_records_are_skipped_by_reason_and_never_half_imported() {
    let pools = json!({"pool_list": [
        v2(1, json!({})),
        v2(2, json!({"deprecated": true})),
        v2(3, json!({"reserve1": "0"})),
        v2(4, json!({"amp": "200", "rate": "1"})),
        v2(5, json!({"reserve0": "12abc"})),
        v2(6, json!({"lp_fee": "20000"})),
        v2(7, json!({"amp": "0.5"})),
        v2(8, json!({"token1_address": "-1:0000000000000000000000000000000000000000000000000000000000000001"})),
        v2(9, json!({"token1_address": "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"})),
        v2(1, json!({})),
        {"address": 5},
        v2(10, json!({"reserve0": "1329227995784915872903807060280344576"})),
        v2(11, json!({"amp": "300"})),
        v2(12, json!({"w0": "800000000000000000"})),
        v2(13, json!({"amp": "100000000000000000000", "rate": "1000000000000000000", "w0": "500000000000000000"})),
    ]});
    let report = import_files(&[text("pools.json", pools)]).unwrap();
    let count = |r: SkipReason| report.skipped.get(&r).copied().unwrap_or(0);
    assert_eq!(count(SkipReason::Deprecated), 1);
    assert_eq!(count(SkipReason::ZeroReserves), 1);
    assert_eq!(count(SkipReason::UnknownType), 1, "amp + rate without w0");
    assert_eq!(count(SkipReason::Malformed), 3, "bad reserve, fractional amp, address not a string");
    assert_eq!(count(SkipReason::Invalid), 3, "fee ≥ 100 %, same asset twice, reserve ≥ 2^120");
    assert_eq!(count(SkipReason::UnsupportedAsset), 1);
    assert_eq!(count(SkipReason::Duplicate), 1);
    assert_eq!(report.imported_total(), 4);
    assert_eq!(report.imported_total() + report.skipped_total(), 15);
    let curves: Vec<&str> = report.snapshot.pools.iter().map(|p| p.curve.as_str()).collect();
    assert_eq!(curves, ["constant_product", "stable_swap", "weighted_constant_product", "weighted_stable_swap"]);
    let stable = &report.snapshot.pools[1];
    assert_eq!((stable.amp.as_deref(), stable.w0.as_deref()), (Some("300"), None));
    // Examples say which record and why.
    let e = report.examples.iter().find(|e| e.reason == SkipReason::Deprecated).unwrap();
    assert_eq!(
        (e.record, e.pool.as_deref()),
        (1, Some("0:0202020202020202020202020202020202020202020202020202020202020202"))
    );
    // The result loads.
    PoolGraph::from_json(&serde_json::to_string(&report.snapshot).unwrap()).unwrap();
}

#[test]
fn dedust_pools_import_and_reproduce_the_recorded_routing_plan() {
    let report = import_files(&[file("dedust-pools.json")]).unwrap();
    assert_eq!(report.imported_total(), 3);
    assert_eq!(report.imported.get("dex_a/constant_product"), Some(&3));
    let s = &report.snapshot;
    assert!(s.pools.iter().all(|p| p.lp_fee == 25), "tradeFee 0.25 % = 25 bps");
    let not = s.assets.iter().find(|a| a.asset == NOT).unwrap();
    assert_eq!((not.symbol.as_str(), not.decimals), ("NOT", 9));
    let graph = PoolGraph::from_json(&serde_json::to_string(s).unwrap()).unwrap();
    // The DeDust API's own plan (fixture dedust-routing-plan-response.json): 1e9 NOT → 1,316,076 nanoTON on
    // EQCUhnOl…, then 1,316,076 nanoTON → 23,047,790 of jetton 716d… on EQAZrva4….
    let plan: serde_json::Value = ton_fixture("dedust-routing-plan-response.json");
    let hops = plan[0].as_array().unwrap();
    let reserves = |hop: &serde_json::Value| -> [u128; 2] {
        let r = &hop["pool"]["reserves"];
        [r[0].as_str().unwrap().parse().unwrap(), r[1].as_str().unwrap().parse().unwrap()]
    };
    // Volatile x·y = k with the fee from the input: `fee` rounded by `round`, output floored.
    let volatile = |amount: u128, r_in: u128, r_out: u128, round_up: bool| {
        let fee = if round_up { (amount * 25).div_ceil(10_000) } else { amount * 25 / 10_000 };
        let net = U256::from(amount - fee);
        (net * U256::from(r_out) / (U256::from(r_in) + net)).as_u128()
    };
    // Hop 1, 1e9 NOT in: the fee is exactly 2,500,000, so every rounding agrees with the plan.
    let [ton, not_reserve] = reserves(&hops[0]);
    let q = quote(&graph, hops[0]["assetIn"].as_str().unwrap(), "native", 1_000_000_000);
    assert_eq!(q.out_amount.to_string(), hops[0]["amountOut"].as_str().unwrap());
    assert_eq!(q.out_amount, volatile(1_000_000_000, not_reserve, ton, false));
    // Hop 2, 1,316,076 nanoTON in: the fee is 3,290.19. The API's quoter floors it (its `tradeFee` is 3290 and
    // its output is the floor formula's, 18 units above a rounded-up fee's); the quote on the imported pool
    // pays exactly the plan's output.
    let [ton, jetton] = reserves(&hops[1]);
    let amount: u128 = hops[1]["amountIn"].as_str().unwrap().parse().unwrap();
    assert_eq!(hops[1]["tradeFee"].as_str().unwrap(), (amount * 25 / 10_000).to_string());
    assert_eq!(volatile(amount, ton, jetton, false).to_string(), hops[1]["amountOut"].as_str().unwrap());
    assert_eq!(volatile(amount, ton, jetton, true) + 18, volatile(amount, ton, jetton, false));
    let target = hops[1]["assetOut"].as_str().unwrap();
    let q = quote(&graph, "native", target, amount);
    assert_eq!(q.out_amount.to_string(), hops[1]["amountOut"].as_str().unwrap());
    // Both hops in one route: the plan's final output.
    let whole = quote(&graph, hops[0]["assetIn"].as_str().unwrap(), target, 1_000_000_000);
    assert_eq!(whole.routes.len(), 1);
    assert_eq!(whole.out_amount.to_string(), hops[1]["amountOut"].as_str().unwrap());

    // Unusable records.
    let bad = json!([
        {"address": "EQCUhnOllvxtLDEj3_9k0yMeTQ4Wv6rFBtXr2wnzKzucZeER", "type": "weighted", "tradeFee": "0.25",
         "assets": [{"type": "native"}, {"type": "jetton", "address": NOT}], "reserves": ["1", "1"]},
        {"address": "EQAZrva4n6ZBxryEuDcp062flYrWdxEXn7mEX2kNjqwrBdG8", "type": "volatile", "tradeFee": "0.255",
         "assets": [{"type": "native"}, {"type": "jetton", "address": NOT}], "reserves": ["1", "1"]},
        {"address": "EQAUlzQPu1QE7H9NiUIpsTOSq_OveXfeU8nLjFdGwOeBeGc6", "type": "stable", "tradeFee": "0.05",
         "assets": [{"type": "extra_currency", "id": 1}, {"type": "jetton", "address": NOT}], "reserves": ["1", "1"]},
        {"address": "0:0101010101010101010101010101010101010101010101010101010101010101", "type": "stable", "tradeFee": "0.05",
         "assets": [{"type": "native"}, {"type": "jetton", "address": NOT}], "reserves": ["0", "1"]}
    ]);
    let report = import_files(&[text("d.json", bad)]).unwrap();
    assert_eq!(report.imported_total(), 0);
    for r in [SkipReason::UnknownType, SkipReason::Invalid, SkipReason::UnsupportedAsset, SkipReason::ZeroReserves] {
        assert_eq!(report.skipped.get(&r), Some(&1), "{r:?}");
    }
}

/// A TONCO indexer answer (synthetic: no recorded one exists). Pool A: TON (TONCO's pTON) / USD₮, fee 30,
/// √P = 2^96 at tick 0, one position [−600, 600) of L = 10^18 plus one out of range. Pool B lists
/// liquidity its positions do not account for; C has no position; D was never initialized.
fn tonco_payload(with_positions: bool) -> serde_json::Value {
    let pool = |n: u8, liquidity: &str, initialized: bool| {
        json!({
            "address": format!("0:{}", format!("{n:02x}").repeat(32)),
            "name": "TON-USD₮",
            "jetton0": {"address": "0:949c4c66760c002800e2fa3d8a3ca4e1c90a9373b53ae7472033483bf14cd95e", "symbol": "pTON", "name": "Proxy TON", "decimals": 9},
            "jetton1": {"address": "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe", "symbol": "USD₮", "name": "Tether USD", "decimals": 6},
            "fee": 30, "liquidity": liquidity, "tick": 0, "tickSpacing": 60,
            "priceSqrt": "79228162514264337593543950336", "isInitialized": initialized,
            "feeGrowthGlobal0X128": "0", "feeGrowthGlobal1X128": "0", "totalValueLockedJetton0": 12.5
        })
    };
    let mut data = json!({"pools": [
        pool(0xa1, "1000000000000000000", true),
        pool(0xb2, "2000000000000000000", true),
        pool(0xc3, "0", true),
        pool(0xd4, "0", false),
    ]});
    if with_positions {
        let a = "0:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
        let b = "0:b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2";
        data["positions"] = json!([
            {"id": "1", "pool": a, "tickLower": -600, "tickUpper": 600, "liquidity": "1000000000000000000"},
            {"id": "2", "pool": a, "tickLower": 600, "tickUpper": 1200, "liquidity": "5000000000000000"},
            {"id": "3", "pool": a, "tickLower": -60, "tickUpper": 60, "liquidity": "0"},
            {"id": "4", "pool": b, "tickLower": -600, "tickUpper": 600, "liquidity": "1000000000000000000"},
        ]);
    }
    json!({"data": data})
}

#[test]
fn tonco_pools_import_with_ticks_from_positions() {
    let report = import_files(&[text("tonco.json", tonco_payload(true))]).unwrap();
    assert_eq!(report.imported_total(), 1);
    for r in [SkipReason::InconsistentTicks, SkipReason::ZeroReserves, SkipReason::Uninitialized] {
        assert_eq!(report.skipped.get(&r), Some(&1), "{r:?}");
    }
    let p = &report.snapshot.pools[0];
    assert_eq!(p.assets, ["native".to_string(), USDT.to_string()], "TONCO's pTON is TON");
    let ticks: Vec<(i32, &str, &str)> = p
        .concentrated
        .ticks
        .as_ref()
        .unwrap()
        .iter()
        .map(|t| (t.tick, t.liquidity_net.as_str(), t.liquidity_gross.as_str()))
        .collect();
    assert_eq!(
        ticks,
        [
            (-600, "1000000000000000000", "1000000000000000000"),
            (600, "-995000000000000000", "1005000000000000000"),
            (1200, "-5000000000000000", "5000000000000000"),
        ]
    );
    // research 04 §3 (checked against TONCO's code in the oracle): L = 1e18, √P = 2^96, tick 0, fee 30,
    // 1e9 token0 in → 996,999,999 token1.
    let graph = PoolGraph::from_json(&serde_json::to_string(&report.snapshot).unwrap()).unwrap();
    assert_eq!(quote(&graph, "native", USDT, 1_000_000_000).out_amount, 996_999_999);
    // Without positions nothing can be priced exactly.
    let report = import_files(&[text("tonco.json", tonco_payload(false))]).unwrap();
    assert_eq!(report.imported_total(), 0);
    assert_eq!(report.skipped.get(&SkipReason::MissingData), Some(&3));
}

#[test]
fn import_onto_a_base_replaces_pools_of_the_same_address() {
    let base_text =
        std::fs::read_to_string(format!("{}/tests/data/api_snapshot.json", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let base = Snapshot::from_json(&base_text).unwrap();
    let report = import_onto(Some(&base), &[file("stonfi-pools.json"), file("dedust-pools.json")]).unwrap();
    // The base's NOT/TON v1 pool (same address as the real record) and its v2 USD₮/TON pool are replaced.
    assert_eq!(report.replaced, 2);
    assert_eq!(report.snapshot.pools.len(), base.pools.len() - 2 + 6);
    let v2 = report.snapshot.pools.iter().find(|p| p.address.starts_with("0:8649cad9")).unwrap();
    assert_eq!(v2.reserves, ["2543727890452".to_string(), "1727085023286242".to_string()]);
    assert_eq!(report.snapshot.protocols.dex_a.is_some(), base.protocols.dex_a.is_some(), "base context kept");
    PoolGraph::from_json(&serde_json::to_string(&report.snapshot).unwrap()).unwrap();
}

/// Real chain state written onto imported records: the mainnet v2 USD₮/TON pool's storage (ton-rs fixture)
/// onto its `/v1/pools` record gives the router wallets the API lacks, and a USD₮ → TON swap for a real owner
/// then goes to that owner's real USD₮ wallet and names the router's real pTON wallet as the ask wallet.
#[test]
fn chain_state_completes_imported_pools_for_swaps() {
    use tonroute::chain::{dex_a, dex_b};
    use tonroute::import::chain::{self as update, UpdateError};
    use tonroute::swap::build::{build_messages, SwapRequest};
    use tonroute::swap::GasTable;

    let report = import_files(&[file("stonfi-pools.json"), file("dedust-pools.json")]).unwrap();
    let mut s = report.snapshot;
    let f: serde_json::Value = ton_fixture("stonfi-v2-pool-EQCGScrZ-account-state.ton-rs.json");
    let data: Vec<u8> = f["data_boc"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
    let state = dex_b::v2_pool_storage_boc(&data, dex_b::PoolType::ConstantProduct).unwrap();
    let i = s.pools.iter().position(|p| p.address.starts_with("0:8649cad9")).unwrap();
    // Applied to the wrong pool kind: refused, pool untouched.
    let v1 = s.pools.iter().position(|p| p.protocol == "dex_b_v1").unwrap();
    let before = s.pools[v1].clone();
    assert!(matches!(update::dex_b_v2(&mut s.pools[v1], &state), Err(UpdateError::KindMismatch { .. })));
    assert_eq!(s.pools[v1].address, before.address);
    assert_eq!(s.pools[v1].router_wallets, before.router_wallets);
    update::dex_b_v2(&mut s.pools[i], &state).unwrap();
    let pool = &s.pools[i];
    assert_eq!(pool.router_wallets.as_ref().unwrap()[0], state.token0_wallet.to_hex());
    assert_eq!(pool.router.as_deref(), Some(state.router.to_hex().as_str()));

    // Give USD₮ its wallet family (the real code) and build a swap for a real owner.
    let usdt = s.assets.iter_mut().find(|a| a.asset == USDT).unwrap();
    usdt.wallet = Some(tonroute::graph::snapshot::SnapshotWallet {
        family: "stablecoin".into(),
        code: Some(tonroute::chain::wallet::USDT_WALLET_CODE.into()),
        code_ref: None,
    });
    let graph = PoolGraph::from_json(&serde_json::to_string(&s).unwrap()).unwrap();
    let q = quote(&graph, USDT, "native", 1_000_000_000);
    let vectors: serde_json::Value = ton_fixture("jetton-wallet-address-vectors.json");
    let case = &vectors["vectors"][0]["cases"][1];
    let req = SwapRequest {
        sender: case["owner"].as_str().unwrap().parse().unwrap(),
        swap_data: q.swap_data(&graph),
        query_id: 1,
        deadline: 1_900_000_000,
        referral: None,
    };
    let messages = build_messages(&graph, &req, &GasTable::default(), &graph).unwrap();
    assert_eq!(messages[0].to_friendly(), case["wallet_friendly"].as_str().unwrap());
    let decoded = tonroute::swap::decode::decode(&messages[0].body).unwrap();
    assert_eq!(decoded.hops[0].address, state.token1_wallet, "ask wallet: the router's pTON wallet from the chain");

    // DeDust: reserves and fee from the get-methods; a fee that is not whole basis points is refused whole.
    let d = s.pools.iter().position(|p| p.protocol == "dex_a").unwrap();
    let before = s.pools[d].clone();
    let err = update::dex_a(&mut s.pools[d], [5, 6], dex_a::TradeFee { numerator: 1, denominator: 3 }).unwrap_err();
    assert!(matches!(err, UpdateError::Fee { .. }));
    assert_eq!(s.pools[d].reserves, before.reserves);
    update::dex_a(&mut s.pools[d], [5, 6], dex_a::TradeFee { numerator: 3, denominator: 1000 }).unwrap();
    assert_eq!((s.pools[d].reserves.clone(), s.pools[d].lp_fee), (["5".to_string(), "6".to_string()], 30));
}

#[test]
fn tonco_chain_state_updates_an_imported_pool() {
    use std::str::FromStr;
    use tonlib_core::TonAddress;
    use tonroute::chain::dex_c::{PoolState, TickInfo};
    use tonroute::import::chain::{self as update, UpdateError};
    use tonroute::import::Context;

    let mut s = import_files(&[text("tonco.json", tonco_payload(true))]).unwrap().snapshot;
    let a = |t: &str| TonAddress::from_str(t).unwrap();
    let mut state = PoolState {
        router: a("EQC_-t0nCnOFMdp7E7qPxAOCbCWGFz-e3pwxb6tTvFmshjt5"),
        admin: None,
        controller: None,
        jetton0_wallet: a("EQCHHakhWxSQIWbw6ioW21YnjVKBCDd_gVjF9Mz9_dIuFy23"),
        jetton1_wallet: a("EQDZwYOajSRXMeg2YQKEXvcZT0lnnWkDDib0xCBZfbJWLBpD"),
        jetton0_minter: a("0:949c4c66760c002800e2fa3d8a3ca4e1c90a9373b53ae7472033483bf14cd95e"),
        jetton1_minter: a("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"),
        pool_active: true,
        tick_spacing: 60,
        lp_fee_base: 30,
        protocol_fee: 20,
        lp_fee_current: 25,
        tick: -5,
        price_sqrt: U256::from_dec_str("79208358626640436316281591000").unwrap(),
        liquidity: 2_000_000_000_000_000_000,
        fee_growth_global0_x128: U256::zero(),
        fee_growth_global1_x128: U256::zero(),
        collected_protocol_fee0: 0,
        collected_protocol_fee1: 0,
        nft_counter: 3,
        reserve0: 7,
        reserve1: 8,
        nft_active: 2,
        ticks_occupied: 2,
        seqno: 9,
    };
    let ticks = [
        TickInfo {
            tick: 600,
            liquidity_gross: 2_000_000_000_000_000_000,
            liquidity_net: -2_000_000_000_000_000_000,
            fee_growth_outside0: None,
            fee_growth_outside1: None,
        },
        TickInfo {
            tick: -600,
            liquidity_gross: 2_000_000_000_000_000_000,
            liquidity_net: 2_000_000_000_000_000_000,
            fee_growth_outside0: None,
            fee_growth_outside1: None,
        },
    ];
    let ctx = Context::new();
    update::dex_c(&mut s.pools[0], &state, &ticks, &ctx).unwrap();
    let p = &s.pools[0];
    assert_eq!((p.lp_fee, p.protocol_fee, p.concentrated.tick), (25, 20, Some(-5)));
    assert_eq!(p.concentrated.ticks.as_ref().unwrap()[0].tick, -600, "sorted");
    assert_eq!(p.router_wallets.as_ref().unwrap()[1], state.jetton1_wallet.to_hex());
    PoolGraph::from_json(&serde_json::to_string(&s).unwrap()).unwrap();
    // Minters in the other order: not this pool's state.
    std::mem::swap(&mut state.jetton0_minter, &mut state.jetton1_minter);
    assert!(matches!(update::dex_c(&mut s.pools[0], &state, &ticks, &ctx), Err(UpdateError::AssetMismatch { .. })));
}
