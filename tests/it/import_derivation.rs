//! The addresses `tonroute import` derives offline, checked against recorded chain data and the exchanges'
//! own recorded answers — never against our own output:
//!
//! - jetton wallets of the `stablecoin` layout (USD₮'s library, jetton-contract 2.0's library) and proxy-TON
//!   v2.1 wallets: every such wallet in the mainnet traces of `tests/data/ton-traces/handoffs.json` (the wallet
//!   a message went to, its owner and jetton as the indexer recorded them);
//! - proxy-TON v1: the v1 router's wallet as ston-fi/sdk recorded `get_wallet_address`
//!   (`tests/data/ton/derivation-vectors.json`);
//! - DeDust: the two jetton vaults of a mainnet DeDust trace (the owners of the vault wallets it moved), the
//!   three pools of `tests/data/import/dedust-pools.json` (real addresses) from the factory's rule;
//! - an import of the saved STON.fi responses gives the USD₮/TON v2 pool the router wallets its recorded
//!   mainnet state holds (`stonfi-v2-pool-EQCGScrZ-account-state.ton-rs.json`).
#![cfg(feature = "serde")]

use std::str::FromStr;

use serde_json::Value;
use tonlib_core::TonAddress;
use tonroute::asset::Asset;
use tonroute::chain::dex_a;
use tonroute::chain::wallet::{known_jetton, WalletFamily, WalletSpec, JETTON2_WALLET_CODE, USDT_WALLET_CODE};
use tonroute::import::{import_files, Payload};

const USDT: &str = "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const PTON_V2_1: &str = "0:671963027f7f85659ab55b821671688601cdcf1ee674fc7fbbb1a776a18d34a3";

fn json(path: &str) -> Value {
    let full = format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"))).unwrap()
}

fn addr(text: &str) -> TonAddress {
    TonAddress::from_str(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Every (wallet, owner, jetton) the traces recorded: a message to a jetton wallet, with its owner and master.
fn trace_wallets() -> Vec<(TonAddress, TonAddress, TonAddress)> {
    let traces = json("ton-traces/handoffs.json");
    let mut out = Vec::new();
    for t in traces["traces"].as_array().unwrap() {
        for m in t["messages"].as_array().unwrap() {
            let Some(of) = m["to_jetton_wallet_of"].as_object() else { continue };
            let triple = (
                addr(m["to"].as_str().unwrap()),
                addr(of["owner"].as_str().unwrap()),
                addr(of["jetton"].as_str().unwrap()),
            );
            if !out.contains(&triple) {
                out.push(triple);
            }
        }
    }
    out
}

fn spec(family: WalletFamily, code: &str) -> WalletSpec {
    WalletSpec { family, code: tonroute::chain::boc::parse_boc_text(code).unwrap() }
}

#[test]
fn stablecoin_layout_wallets_derive_to_the_wallets_of_mainnet_traces() {
    let usdt = spec(WalletFamily::Stablecoin, USDT_WALLET_CODE);
    let jetton2 = spec(WalletFamily::Stablecoin, JETTON2_WALLET_CODE);
    let (mut usdt_checked, mut jetton2_checked) = (0, 0);
    let mut jetton2_masters = std::collections::BTreeSet::new();
    for (wallet, owner, master) in trace_wallets() {
        if master.to_hex() == USDT {
            assert_eq!(usdt.wallet_address(&owner, &master).unwrap(), wallet, "USD₮ wallet of {owner}");
            usdt_checked += 1;
        } else if jetton2.wallet_address(&owner, &master).unwrap() == wallet {
            jetton2_checked += 1;
            jetton2_masters.insert(master.to_hex());
        }
    }
    // Six USD₮ wallets (routers of STON.fi and TONCO, users); seven wallets of three jetton-2.0 jettons.
    assert_eq!(usdt_checked, 6);
    assert_eq!((jetton2_checked, jetton2_masters.len()), (7, 3));
}

#[test]
fn proxy_ton_wallets_derive_to_the_recorded_ones() {
    // v2.1: the routers' pTON wallets that TON went through in the traces.
    let v2 = known_jetton(&addr(PTON_V2_1)).expect("pTON v2.1 is known");
    assert_eq!(v2.family, WalletFamily::Pton);
    let recorded: Vec<_> = trace_wallets().into_iter().filter(|(_, _, m)| m.to_hex() == PTON_V2_1).collect();
    assert_eq!(recorded.len(), 2);
    for (wallet, owner, master) in recorded {
        assert_eq!(v2.wallet_address(&owner, &master).unwrap(), wallet, "pTON v2.1 wallet of {owner}");
    }
    // v1: the v1 router's wallet as the SDK recorded get_wallet_address (the cell decoded here).
    let v = &json("ton/derivation-vectors.json")["pton_v1_router_wallet"];
    let cell = tonroute::chain::boc::parse_boc_text(v["boc"].as_str().unwrap()).unwrap();
    let recorded = tonroute::chain::cell::read_address(&mut cell.parser()).unwrap().unwrap();
    assert_eq!(recorded.to_hex(), v["wallet_raw"].as_str().unwrap());
    let master = addr(v["master"].as_str().unwrap());
    let v1 = known_jetton(&master).expect("pTON v1 is known");
    assert_eq!(v1.wallet_address(&addr(v["owner"].as_str().unwrap()), &master).unwrap(), recorded);
}

#[test]
fn not_router_wallet_is_the_one_third_party_sources_list() {
    let v = &json("ton/derivation-vectors.json")["not_v1_router_wallet"];
    let master = addr(v["master"].as_str().unwrap());
    let spec = known_jetton(&master).expect("NOT is known");
    let wallet = spec.wallet_address(&addr(v["owner"].as_str().unwrap()), &master).unwrap();
    assert_eq!(wallet.to_base64_url(), v["wallet_friendly"].as_str().unwrap());
}

#[test]
fn dedust_vaults_and_pools_follow_the_factory_rule() {
    let factory = addr(dex_a::MAINNET_FACTORY);
    // The jetton vaults of the DeDust trace: each owns the wallet its jetton moved through.
    let traces = json("ton-traces/handoffs.json");
    let trace = traces["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["about"].as_str().unwrap().starts_with("DeDust"))
        .expect("the DeDust trace");
    let owners: Vec<(TonAddress, TonAddress)> = trace["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["to_jetton_wallet_of"].as_object())
        .map(|of| (addr(of["owner"].as_str().unwrap()), addr(of["jetton"].as_str().unwrap())))
        .collect();
    for jetton in [
        "0:896E9D240693F03E8046F94E42F9C59F3FF8E792CBE8B467C0ACF179D10F508A",
        "0:CD0EFE78BFF4C4539B76EAB17293296C74F42CBF99EC499687FEFEC94893ED32",
    ] {
        let master = addr(jetton);
        let asset = Asset::parse(jetton).unwrap();
        let vault = dex_a::vault_address(&factory, &asset).unwrap();
        assert!(
            owners.contains(&(vault.clone(), master)),
            "vault {vault} of {jetton} owns none of the trace's wallets"
        );
    }
    // The native vault third-party integrations hard-code.
    let v = &json("ton/derivation-vectors.json")["dedust_native_vault"];
    assert_eq!(addr(v["factory"].as_str().unwrap()), factory);
    assert_eq!(dex_a::vault_address(&factory, &Asset::Native).unwrap().to_hex(), v["vault_raw"].as_str().unwrap());
    // The pools of the saved /v2/pools response: their addresses are the factory's for their assets and type.
    for record in json("import/dedust-pools.json").as_array().unwrap() {
        let assets: Vec<Asset> = record["assets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| match a["address"].as_str() {
                Some(m) => Asset::parse(m).unwrap(),
                None => Asset::Native,
            })
            .collect();
        let stable = record["type"] == "stable";
        let derived = dex_a::pool_address(&factory, stable, [&assets[0], &assets[1]]).unwrap();
        assert_eq!(derived, addr(record["address"].as_str().unwrap()));
    }
}

#[test]
fn an_import_gives_the_usdt_pool_the_router_wallets_of_its_mainnet_state() {
    let f = json("ton/stonfi-v2-pool-EQCGScrZ-account-state.ton-rs.json");
    let data: Vec<u8> = f["data_boc"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
    let state =
        tonroute::chain::dex_b::v2_pool_storage_boc(&data, tonroute::chain::dex_b::PoolType::ConstantProduct).unwrap();
    let payload = |name: &str| Payload {
        name: name.to_string(),
        text: std::fs::read_to_string(format!("{}/tests/data/import/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap(),
    };
    // The routers' response gives no pTON wallet for this router: both wallets are derived.
    let report = import_files(&[payload("stonfi-pools.json"), payload("stonfi-routers.json")]).unwrap();
    let pool = report.snapshot.pools.iter().find(|p| addr(&p.address) == addr(f["address"].as_str().unwrap())).unwrap();
    assert_eq!(pool.router.as_deref(), Some(state.router.to_hex().as_str()));
    let wallets = pool.router_wallets.clone().expect("derived");
    assert_eq!([addr(&wallets[0]), addr(&wallets[1])], [state.token0_wallet, state.token1_wallet]);
    assert!(report.quote_only.iter().all(|q| q.pool != pool.address), "{:?}", report.quote_only);
}

#[test]
fn an_imported_tonco_pool_gets_the_router_wallets_of_the_mainnet_traces() {
    const TONCO_PTON: &str = "0:949c4c66760c002800e2fa3d8a3ca4e1c90a9373b53ae7472033483bf14cd95e";
    let pool = "0:a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1";
    let payload = serde_json::json!({"data": {
        "pools": [{"address": pool, "jetton0": {"address": TONCO_PTON}, "jetton1": {"address": USDT},
                   "fee": 30, "liquidity": "1000000000000000000", "tick": 0, "tickSpacing": 60,
                   "priceSqrt": "79228162514264337593543950336"}],
        "positions": [{"pool": pool, "tickLower": -600, "tickUpper": 600, "liquidity": "1000000000000000000"}]
    }});
    let report = import_files(&[Payload { name: "tonco.json".into(), text: payload.to_string() }]).unwrap();
    assert!(report.quote_only.is_empty(), "{:?}", report.quote_only);
    let wallets = report.snapshot.pools[0].router_wallets.clone().expect("derived");
    // The TONCO mainnet router's own wallets, as the traces recorded them (its pTON wallet received TON, its
    // USD₮ wallet a USD₮ transfer).
    let router = addr(tonroute::swap::dex_c::MAINNET_ROUTER);
    let of = |jetton: &str| {
        trace_wallets()
            .into_iter()
            .find(|(_, owner, master)| *owner == router && master.to_hex() == jetton)
            .map(|(wallet, _, _)| wallet)
            .unwrap_or_else(|| panic!("the traces hold no wallet of the router for {jetton}"))
    };
    assert_eq!([addr(&wallets[0]), addr(&wallets[1])], [of(TONCO_PTON), of(USDT)]);
}

#[test]
fn a_base_snapshots_wallet_family_makes_its_jettons_pools_swappable() {
    // The second v1 record's jetton has no known wallet code: quote-only, unless the base gives it one.
    let jetton = "jetton:0:2aad318290a01e42a7bc8af5f67ec3fb7643d3056577ff9f551c789b785792f2";
    let payload = Payload {
        name: "stonfi-pools.json".into(),
        text: std::fs::read_to_string(format!("{}/tests/data/import/stonfi-pools.json", env!("CARGO_MANIFEST_DIR")))
            .unwrap(),
    };
    let alone = import_files(std::slice::from_ref(&payload)).unwrap();
    let listed: Vec<&str> = alone.quote_only.iter().map(|q| q.assets[0].as_str()).collect();
    assert_eq!(listed, [jetton]);
    let mut base = tonroute::graph::snapshot::Snapshot::default();
    base.assets.push(tonroute::graph::snapshot::SnapshotAsset {
        asset: jetton.into(),
        symbol: "J".into(),
        name: "J".into(),
        decimals: 9,
        usd_price: None,
        image: None,
        wallet: Some(tonroute::graph::snapshot::SnapshotWallet {
            family: "stablecoin".into(),
            code: Some(JETTON2_WALLET_CODE.into()),
            code_ref: None,
        }),
    });
    let onto = tonroute::import::import_onto(Some(&base), &[payload]).unwrap();
    assert!(onto.quote_only.is_empty(), "{:?}", onto.quote_only);
    let pool = onto.snapshot.pools.iter().find(|p| p.assets[0] == jetton).unwrap();
    let master = addr(&jetton["jetton:".len()..]);
    let router = addr(pool.router.as_deref().unwrap());
    let expected = spec(WalletFamily::Stablecoin, JETTON2_WALLET_CODE).wallet_address(&router, &master).unwrap();
    assert_eq!(addr(&pool.router_wallets.as_ref().unwrap()[0]), expected);
}
