//! The recorded payloads the replay serves, as the exchanges and toncenter would answer them.
//!
//! STON.fi v2 USD₮/TON pool `EQCGScrZ…` — its `/v1/pools` record (`tests/data/import/stonfi-pools.json`,
//! built from the chain state) and its real mainnet data cell (`tests/data/ton/stonfi-v2-pool-EQCGScrZ-…`, the
//! values ORIGINS.md decodes); STON.fi v1 pool `EQCl-ax-…` — its real recorded `get_pool_data` stack
//! (`tests/data/ton/stonfi-v1-pool-get_pool_data.json`) behind a `/v1/pools` record **built** here from that
//! stack (masters: STON and GEMSTON, as ORIGINS.md names the pool); DeDust `/v2/pools`
//! (`tests/data/import/dedust-pools.json`) with `get_reserves` / `get_trade_fee` stacks **built** from those
//! records (no recorded DeDust stack exists).

use base64::Engine as _;
use serde_json::{json, Value};

use super::{account, head, num, raw, stack, Replay, Reply};

pub(crate) const V2_POOL: &str = "EQCGScrZe1xbyWqWDvdI6mzP-GAcAWFv6ZXuaJOuSqemxku4";
pub(crate) const V1_POOL: &str = "EQCl-ax-5QC06ub096s2bqTbhYZWigZ1-FkJm2IVIMSazp7U";
pub(crate) const DEDUST: [&str; 3] = [
    "EQAUlzQPu1QE7H9NiUIpsTOSq_OveXfeU8nLjFdGwOeBeGc6",
    "EQCUhnOllvxtLDEj3_9k0yMeTQ4Wv6rFBtXr2wnzKzucZeER",
    "EQAZrva4n6ZBxryEuDcp062flYrWdxEXn7mEX2kNjqwrBdG8",
];
pub(crate) const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";

pub(crate) fn data(path: &str) -> Value {
    let text = std::fs::read_to_string(format!("{}/tests/data/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

pub(crate) fn int(v: &Value) -> u128 {
    v.as_str().unwrap().parse().unwrap()
}

/// The recorded v1 `get_pool_data` as a toncenter v3 answer (numbers as hex, cells as base64, as toncenter
/// writes them) and the values the SDK expected from it.
pub(crate) fn v1_stack() -> (Reply, Value) {
    let f = data("ton/stonfi-v1-pool-get_pool_data.json");
    let entries = f["stack"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| match e["type"].as_str().unwrap() {
            "num" => num(int(&e["value"])),
            _ => json!({"type": "cell", "value": e["boc"]}),
        })
        .collect();
    (stack(entries), f)
}

/// The real v2 pool data cell, base64 (toncenter's encoding; the fixture has it as an array of bytes).
pub(crate) fn v2_data_boc() -> String {
    let f = data("ton/stonfi-v2-pool-EQCGScrZ-account-state.ton-rs.json");
    let bytes: Vec<u8> =
        f["data_boc"].as_array().unwrap().iter().map(|b| u8::try_from(b.as_u64().unwrap()).unwrap()).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

pub(crate) fn stonfi_pools() -> Value {
    let mut pools = data("import/stonfi-pools.json");
    let (_, v1) = v1_stack();
    let e = &v1["sdk_expected"];
    let list = pools["pool_list"].as_array_mut().unwrap();
    list.retain(|p| p["address"] == V2_POOL);
    list.push(json!({
        "address": V1_POOL, "router_address": "EQB3ncyBUTjZUA5EnFKR5_EnOMI9V1tTEAAPaiU71gc4TiUt",
        "token0_address": "EQA2kCVNwVsil2EM2mB0SkXytxCqQjS4mttjDpnXmwG9T6bO",
        "token1_address": "EQBX6K9aXVl3nXINCyPPL86C4ONVmQ8vK360u6dykFKXpHCa",
        "reserve0": e["reserve0"], "reserve1": e["reserve1"],
        "lp_fee": "20", "protocol_fee": "10", "ref_fee": "10", "deprecated": false
    }));
    pools
}

/// DeDust reserves as the `/v2/pools` records give them.
pub(crate) fn dedust_reserves() -> Vec<[u128; 2]> {
    let pools = data("import/dedust-pools.json");
    pools.as_array().unwrap().iter().map(|p| [int(&p["reserves"][0]), int(&p["reserves"][1])]).collect()
}

pub(crate) fn set_dedust(r: &Replay, i: usize, reserves: [u128; 2]) {
    r.set(&format!("get {} get_reserves", raw(DEDUST[i])), stack(vec![num(reserves[0]), num(reserves[1])]));
}

/// Every route answering normally.
pub(crate) fn healthy() -> Replay {
    let r = Replay::default();
    r.set("stonfi/pools", Reply::json(stonfi_pools()));
    r.set("stonfi/routers", Reply::json(data("import/stonfi-routers.json")));
    r.set("stonfi/assets", Reply::json(json!({"asset_list": []})));
    r.set("dedust/pools", Reply::json(data("import/dedust-pools.json")));
    r.set("head", head(100));
    r.set(&format!("get {} get_pool_data", raw(V1_POOL)), v1_stack().0);
    r.set(&format!("state {}", raw(V2_POOL)), account(V2_POOL, &v2_data_boc()));
    for (i, reserves) in dedust_reserves().into_iter().enumerate() {
        set_dedust(&r, i, reserves);
        r.set(&format!("get {} get_trade_fee", raw(DEDUST[i])), stack(vec![num(25), num(10_000)]));
    }
    r
}
