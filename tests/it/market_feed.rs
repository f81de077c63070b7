//! #23 part A over the bundled sample: the screener feed (`/latest-block`, `/asset`, `/pair`, `/events`) and a
//! pool's providers and deposits. Every required field and its type is checked against docs/interface.md, and
//! every value against an independent computation from the raw files (data/market.json's trades and liquidity records,
//! data/snapshot.json's pools): blocks mapped by hand, amounts written from the integers, LP per provider summed
//! by hand. `tests/it/market_store_sqlite.rs` and `tests/it/market_store_postgres.rs` run this file against the
//! database stores.
#![cfg(feature = "serde")]

use std::collections::BTreeMap;
use std::sync::OnceLock;

use primitive_types::U256;
use serde_json::Value;

#[path = "common/market.rs"]
mod market_common;

use market_common::{api, file, json, q, NOT, SNAPSHOT};

/// The dex_b_v1 TON/USD₮ pool.
const POOL: &str = "EQD8TJ8xEWB1SpnRE4d89YO3jl0W0EiBnNS4IBaHaUmdfizE";

// The store under test: the one of the module that mounts this file (the crate root's in-memory replay, or
// `market_store_sqlite` / `market_store_postgres`'s database store).
use super::market_store;

fn snapshot() -> &'static Value {
    static S: OnceLock<Value> = OnceLock::new();
    S.get_or_init(|| serde_json::from_str(SNAPSHOT).unwrap())
}

/// The mapping the README documents: 5-second blocks from 2019-11-15T00:00:00Z, block 1.
fn block_of(time: i64) -> i64 {
    1 + (time - 1_573_776_000) / 5
}

fn raw(friendly: &str) -> String {
    tonroute::asset::parse_address(friendly).unwrap().to_hex()
}

/// `amount / 10^decimals` in decimal: quotient and remainder by integer division (not the digit slicing the
/// crate's `whole_units` does), the remainder's trailing zeros dropped.
fn whole(amount: &str, decimals: u32) -> String {
    let v = U256::from_dec_str(amount).unwrap();
    let scale = U256::exp10(decimals as usize);
    let (int, frac) = (v / scale, v % scale);
    if frac.is_zero() {
        return int.to_string();
    }
    let frac = format!("{:0>width$}", frac.to_string(), width = decimals as usize);
    format!("{int}.{}", frac.trim_end_matches('0'))
}

fn snapshot_pool(raw_address: &str) -> &'static Value {
    snapshot()["pools"].as_array().unwrap().iter().find(|p| raw(p["address"].as_str().unwrap()) == raw_address).unwrap()
}

fn decimals_of(asset: &str) -> u32 {
    let a = snapshot()["assets"].as_array().unwrap().iter().find(|a| a["asset"] == asset).unwrap();
    a["decimals"].as_u64().unwrap() as u32
}

fn large_integer(v: &Value) -> bool {
    v.as_str().is_some_and(|s| {
        let d = s.strip_prefix(['-', '+']).unwrap_or(s);
        !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
    })
}

fn large_float(v: &Value) -> bool {
    v.as_str().is_some_and(|s| {
        let d = s.strip_prefix(['-', '+']).unwrap_or(s);
        let (i, f) = d.split_once('.').unwrap_or(("", d));
        !f.is_empty() && (i.bytes().chain(f.bytes())).all(|b| b.is_ascii_digit())
    })
}

fn int32(v: &Value) -> bool {
    v.as_i64().is_some_and(|n| i32::try_from(n).is_ok())
}

/// The pool's asset ids in contract order, from the snapshot.
fn pool_assets(raw_address: &str) -> (String, String) {
    let p = snapshot_pool(raw_address);
    let a = p["assets"].as_array().unwrap();
    (a[0].as_str().unwrap().to_string(), a[1].as_str().unwrap().to_string())
}

#[test]
fn latest_block_is_the_last_event_and_never_ahead() {
    let b = json(&api().get_latest_block(&q("")).unwrap());
    let block = &b["block"];
    assert!(block["blockNumber"].is_i64() && block["blockTimestamp"].is_i64(), "{b}");
    let last = file().trades.iter().map(|t| t.time).chain(file().liquidity.iter().map(|l| l.time)).max().unwrap();
    assert_eq!(block["blockNumber"].as_i64().unwrap(), block_of(last));
    let ts = block["blockTimestamp"].as_i64().unwrap();
    assert!(ts <= last && last - ts < 5, "the block's start: {ts} vs {last}");
    assert!(ts <= file().as_of.unix());
    // An unknown parameter is refused.
    assert_eq!(api().get_latest_block(&q("x=1")).unwrap_err().status(), 400);
}

#[test]
fn asset_has_its_snapshot_names_and_exact_supplies() {
    let a = json(&api().get_feed_asset(&q(&format!("id={NOT}"))).unwrap());
    let asset = &a["asset"];
    let meta = snapshot()["assets"].as_array().unwrap().iter().find(|x| x["asset"] == NOT).unwrap();
    assert_eq!(asset["id"], NOT);
    assert_eq!(asset["name"], meta["name"]);
    assert_eq!(asset["symbol"], meta["symbol"]);
    let coin = file().coins.iter().find(|c| c.asset == NOT).unwrap();
    assert_eq!(asset["totalSupply"], whole(&coin.total_supply, 9));
    assert_eq!(asset["circulatingSupply"], whole(&coin.circulating_supply, 9));
    assert!(large_float(&asset["totalSupply"]) || large_integer(&asset["totalSupply"]));
    assert_eq!(json(&api().get_feed_asset(&q("id=native")).unwrap())["asset"]["id"], "native");
    let e = api().get_feed_asset(&q(&format!("id=jetton:0:{}", "ab".repeat(32)))).unwrap_err();
    assert_eq!((e.status(), e.code()), (404, 6400));
    assert_eq!(api().get_feed_asset(&q("id=bogus")).unwrap_err().status(), 400);
    assert_eq!(api().get_feed_asset(&q("")).unwrap_err().status(), 400);
}

#[test]
fn pair_is_created_by_its_first_join() {
    let p = json(&api().get_feed_pair(&q(&format!("id={POOL}"))).unwrap());
    let pair = &p["pair"];
    let pool = raw(POOL);
    let first = file().liquidity.iter().find(|l| l.pool == pool).expect("the pool has liquidity history");
    let (a0, a1) = pool_assets(&pool);
    assert_eq!(pair["id"], POOL);
    assert_eq!(pair["dexKey"], snapshot_pool(&pool)["protocol"]);
    assert_eq!((pair["asset0Id"].as_str().unwrap(), pair["asset1Id"].as_str().unwrap()), (a0.as_str(), a1.as_str()));
    assert_eq!(pair["createdAtBlockNumber"].as_i64().unwrap(), block_of(first.time));
    assert_eq!(pair["createdAtBlockTimestamp"].as_i64().unwrap(), 1_573_776_000 + (block_of(first.time) - 1) * 5);
    assert_eq!(pair["createdAtTxnId"], first.tx_hash);
    let creator = tonroute::asset::parse_address(pair["creator"].as_str().unwrap()).unwrap().to_hex();
    assert_eq!(creator, first.provider);
    let fees = snapshot_pool(&pool);
    let fee = fees["lp_fee"].as_i64().unwrap() + fees["protocol_fee"].as_i64().unwrap();
    assert_eq!(pair["feeBps"].as_i64().unwrap(), fee);
    assert!(int32(&pair["feeBps"]) && pair["metadata"].is_object());
    // Any address form names it; an unknown pool, or one without any event, is 404.
    let by_raw = json(&api().get_feed_pair(&q(&format!("id={pool}"))).unwrap());
    assert_eq!(by_raw, p);
    let e = api().get_feed_pair(&q(&format!("id=0:{}", "12".repeat(32)))).unwrap_err();
    assert_eq!((e.status(), e.code()), (404, 6401));
    assert_eq!(api().get_feed_pair(&q("id=nope")).unwrap_err().status(), 400);
}

/// The events of `from..=to` recomputed from the file: (block, kind, tx hash).
fn expected_events(from: i64, to: i64) -> Vec<(i64, &'static str, String)> {
    let mut out: Vec<(i64, i64, u8, usize, &'static str, String)> = Vec::new();
    for (i, t) in file().trades.iter().enumerate() {
        let b = block_of(t.time);
        if (from..=to).contains(&b) {
            out.push((b, t.time, 1, i, "swap", t.tx_hash.clone()));
        }
    }
    for (i, l) in file().liquidity.iter().enumerate() {
        let b = block_of(l.time);
        if (from..=to).contains(&b) {
            let kind = if l.kind == tonroute::market::liquidity::LiquidityKind::Join { "join" } else { "exit" };
            out.push((b, l.time, 0, i, kind, l.tx_hash.clone()));
        }
    }
    out.sort();
    out.into_iter().map(|(b, _, _, _, k, h)| (b, k, h)).collect()
}

#[test]
fn events_are_the_stored_trades_and_liquidity_events_of_the_range() {
    // A range around the end of the liquidity history and the start of the trades.
    let start = file().as_of.unix() - 10 * 86_400;
    let (from, to) = (block_of(start) - 9_000, block_of(start) + 999);
    let got = json(&api().get_events(&q(&format!("fromBlock={from}&toBlock={to}"))).unwrap());
    let events = got["events"].as_array().unwrap();
    let want = expected_events(from, to);
    assert!(want.iter().any(|w| w.1 == "swap") && want.iter().any(|w| w.1 == "join"), "{want:?}");
    let seen: Vec<(i64, &str, String)> = events
        .iter()
        .map(|e| {
            (
                e["block"]["blockNumber"].as_i64().unwrap(),
                e["eventType"].as_str().unwrap(),
                e["txnId"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(seen, want);
    let mut last = (i64::MIN, -1i64);
    for e in events {
        for k in ["block", "eventType", "txnId", "txnIndex", "eventIndex", "maker", "pairId"] {
            assert!(!e[k].is_null(), "{k} missing: {e}");
        }
        assert!(int32(&e["txnIndex"]) && int32(&e["eventIndex"]));
        let b = e["block"]["blockNumber"].as_i64().unwrap();
        let idx = e["txnIndex"].as_i64().unwrap();
        // Ordered by block, then txnIndex counting from 0 in each block.
        assert!(if b == last.0 { idx == last.1 + 1 } else { b > last.0 && idx == 0 }, "{e}");
        last = (b, idx);
        assert_eq!(e["block"]["blockTimestamp"].as_i64().unwrap(), 1_573_776_000 + (b - 1) * 5);
        let pool = raw(e["pairId"].as_str().unwrap());
        let (a0, a1) = pool_assets(&pool);
        let (d0, d1) = (decimals_of(&a0), decimals_of(&a1));
        let r = &e["reserves"];
        assert!(large_float(&r["asset0"]) || large_integer(&r["asset0"]), "{e}");
        assert!(large_float(&r["asset1"]) || large_integer(&r["asset1"]), "{e}");
        let hash = e["txnId"].as_str().unwrap();
        if e["eventType"] == "swap" {
            let t = file().trades.iter().find(|t| t.tx_hash == hash).unwrap();
            assert_eq!(raw(e["maker"].as_str().unwrap()), t.trader);
            let (amount_in, amount_out) = (t.amount_in.as_str(), t.amount_out.as_str());
            let (x0, x1) = if t.asset_in == a0 {
                assert!(e["asset0Out"].is_null() && e["asset1In"].is_null());
                assert_eq!(e["asset0In"], whole(amount_in, d0));
                assert_eq!(e["asset1Out"], whole(amount_out, d1));
                (amount_in, amount_out)
            } else {
                assert!(e["asset0In"].is_null() && e["asset1Out"].is_null());
                assert_eq!(e["asset1In"], whole(amount_in, d1));
                assert_eq!(e["asset0Out"], whole(amount_out, d0));
                (amount_out, amount_in)
            };
            let price = e["priceNative"].as_str().unwrap().parse::<f64>().unwrap();
            let want = (x1.parse::<f64>().unwrap() / 10f64.powi(d1 as i32))
                / (x0.parse::<f64>().unwrap() / 10f64.powi(d0 as i32));
            assert!((price - want).abs() <= 1e-12 * want, "priceNative {price} vs {want}");
        } else {
            let l = file().liquidity.iter().find(|l| l.tx_hash == hash).unwrap();
            assert_eq!(raw(e["maker"].as_str().unwrap()), l.provider);
            assert_eq!(e["amount0"], whole(&l.amount0, d0));
            assert_eq!(e["amount1"], whole(&l.amount1, d1));
            // Reserves after: the pool's records up to this one, summed by hand.
            let mut res = [U256::zero(); 2];
            for x in file().liquidity.iter().filter(|x| x.pool == l.pool) {
                let a = [U256::from_dec_str(&x.amount0).unwrap(), U256::from_dec_str(&x.amount1).unwrap()];
                if x.kind == tonroute::market::liquidity::LiquidityKind::Join {
                    res = [res[0] + a[0], res[1] + a[1]];
                } else {
                    res = [res[0] - a[0], res[1] - a[1]];
                }
                if x.tx_hash == l.tx_hash {
                    break;
                }
            }
            assert_eq!(r["asset0"], whole(&res[0].to_string(), d0), "{e}");
            assert_eq!(r["asset1"], whole(&res[1].to_string(), d1), "{e}");
        }
    }
    // The range's limits.
    let bad = |s: &str| api().get_events(&q(s)).unwrap_err();
    assert_eq!((bad("fromBlock=10&toBlock=10010").status(), bad("fromBlock=10&toBlock=10010").code()), (400, 6013));
    assert_eq!(api().get_events(&q("fromBlock=10&toBlock=10009")).unwrap().events.len(), 0);
    assert_eq!(bad("fromBlock=11&toBlock=10").code(), 6007);
    assert_eq!(bad("fromBlock=-1&toBlock=10").code(), 6013);
    assert_eq!(bad("toBlock=10").code(), 6002);
    assert_eq!(bad("fromBlock=x&toBlock=10").status(), 400);
}

/// LP per provider of `pool` from the file's records, and the supply (+ 1,001 locked by the creating join).
fn lp_by_hand(pool: &str) -> (BTreeMap<String, U256>, U256) {
    let mut held: BTreeMap<String, U256> = BTreeMap::new();
    let mut supply = U256::from(1_001);
    for l in file().liquidity.iter().filter(|l| l.pool == pool) {
        let lp = U256::from_dec_str(&l.lp).unwrap();
        let h = held.entry(l.provider.clone()).or_default();
        if l.kind == tonroute::market::liquidity::LiquidityKind::Join {
            *h += lp;
            supply += lp;
        } else {
            *h -= lp;
            supply -= lp;
        }
    }
    held.retain(|_, v| !v.is_zero());
    (held, supply)
}

#[test]
fn providers_hold_their_lp_share_of_the_reserves() {
    let pool = raw(POOL);
    let (held, supply) = lp_by_hand(&pool);
    assert!(held.len() >= 2);
    let got = json(&api().get_pool_providers(POOL, &q("limit=100")).unwrap());
    assert_eq!(got["total_count"].as_i64().unwrap(), held.len() as i64);
    // Reserves now, from another operation's answer.
    let p = json(&api().get_pool(POOL, None).unwrap());
    let reserves: Vec<U256> = p["pool"]["reserves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| U256::from_dec_str(r.as_str().unwrap()).unwrap())
        .collect();
    let (a0, a1) = pool_assets(&pool);
    let providers = got["providers"].as_array().unwrap();
    assert_eq!(providers.len(), held.len());
    let mut previous = U256::MAX;
    for pr in providers {
        for k in ["wallet_address", "liquidity", "share", "assets"] {
            assert!(!pr[k].is_null(), "{k} missing: {pr}");
        }
        assert!(large_integer(&pr["liquidity"]) && (large_float(&pr["share"]) || large_integer(&pr["share"])));
        let wallet = raw(pr["wallet_address"].as_str().unwrap());
        let lp = held[&wallet];
        assert_eq!(pr["liquidity"], lp.to_string());
        assert!(lp <= previous, "sorted by liquidity share");
        previous = lp;
        let share = pr["share"].as_str().unwrap().parse::<f64>().unwrap();
        let want = lp.as_u128() as f64 / supply.as_u128() as f64;
        assert!((share - want).abs() <= 1e-12 * want);
        for (k, asset) in [(0, &a0), (1, &a1)] {
            let entry = &pr["assets"][asset.as_str()];
            assert!(large_integer(&entry["amount"]) && !entry["amount_usd"].is_null(), "{pr}");
            assert_eq!(entry["amount"], (lp * reserves[k] / supply).to_string());
        }
    }
    assert!(got["assets_metadata"][a0.as_str()].is_object() && got["assets_metadata"][a1.as_str()].is_object());
    // Paging like /coins; an unknown pool is 404, a bad limit 400.
    let page = json(&api().get_pool_providers(POOL, &q("limit=1&offset=1")).unwrap());
    assert_eq!(page["providers"][0], providers[1]);
    assert_eq!(page["total_count"], got["total_count"]);
    let e = api().get_pool_providers(&format!("0:{}", "12".repeat(32)), &q("")).unwrap_err();
    assert_eq!((e.status(), e.code()), (404, 6401));
    assert_eq!(api().get_pool_providers(POOL, &q("limit=0")).unwrap_err().code(), 6004);
    assert_eq!(api().get_pool_providers(POOL, &q("offset=-1")).unwrap_err().code(), 6005);
    assert_eq!(api().get_pool_providers("nope", &q("")).unwrap_err().status(), 400);
}

#[test]
fn deposits_are_the_pool_joins_newest_first() {
    let pool = raw(POOL);
    let mut joins: Vec<_> = file()
        .liquidity
        .iter()
        .filter(|l| l.pool == pool && l.kind == tonroute::market::liquidity::LiquidityKind::Join)
        .collect();
    joins.reverse();
    let got = json(&api().get_pool_deposits(POOL, &q("limit=100")).unwrap());
    assert_eq!(got["total_count"].as_i64().unwrap(), joins.len() as i64);
    let deposits = got["deposits"].as_array().unwrap();
    assert_eq!(deposits.len(), joins.len());
    for (d, l) in deposits.iter().zip(&joins) {
        for k in [
            "deposit_address",
            "pool_address",
            "initiator_address",
            "amount_x",
            "amount_y",
            "minimal_liquidity",
            "added_at",
            "mc_seq_no",
        ] {
            assert!(!d[k].is_null(), "{k} missing: {d}");
        }
        assert_eq!(d["pool_address"], POOL);
        assert_eq!(raw(d["initiator_address"].as_str().unwrap()), l.provider);
        assert_eq!(raw(d["deposit_address"].as_str().unwrap()), *l.deposit_address.as_ref().unwrap());
        assert_eq!(
            (d["amount_x"].as_str().unwrap(), d["amount_y"].as_str().unwrap()),
            (l.amount0.as_str(), l.amount1.as_str())
        );
        assert_eq!(d["minimal_liquidity"], *l.min_lp_out.as_ref().unwrap());
        assert_eq!(tonroute::market::types::DateTime::parse(d["added_at"].as_str().unwrap()).unwrap().unix(), l.time);
        assert_eq!(d["mc_seq_no"].as_i64().unwrap(), block_of(l.time));
        assert!(int32(&d["mc_seq_no"]));
    }
    let page = json(&api().get_pool_deposits(POOL, &q("limit=2&offset=1")).unwrap());
    assert_eq!(page["deposits"].as_array().unwrap().as_slice(), &deposits[1..3]);
    let e = api().get_pool_deposits(&format!("0:{}", "12".repeat(32)), &q("")).unwrap_err();
    assert_eq!((e.status(), e.code()), (404, 6401));
    assert_eq!(api().get_pool_deposits(POOL, &q("limit=101")).unwrap_err().code(), 6004);
}
