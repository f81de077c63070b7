//! Liquidity events as data: the bundled sample's history (checked here with the constant-product LP formulas
//! written out independently, in U256), its round trip through the SQLite and PostgreSQL stores, and liquidity
//! lines through `tonroute market ingest` as a user runs it (the built binary): stored once however often a file
//! is ingested, beside trade lines in the same file, and a bad line refused with its line number, nothing of its
//! file stored.
#![cfg(feature = "store")]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;

use primitive_types::U256;
use serde_json::{json, Value};
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;
use tonroute::market::liquidity::LiquidityEvent;
use tonroute::market::store::sql::SqlMarketStore;
use tonroute::market::{MarketData, MarketFile};

use common::market_db::{ingest, temp_db, MARKET, SNAPSHOT};

fn file() -> MarketFile {
    serde_json::from_str(MARKET).unwrap()
}

fn replayed() -> Arc<MarketData> {
    Arc::new(MarketData::from_json(PoolGraph::from_json(SNAPSHOT).unwrap(), MARKET).unwrap())
}

fn n(text: &str) -> U256 {
    U256::from_dec_str(text).unwrap()
}

/// A pool's reserves, LP supply and LP per provider.
type Book = ([U256; 2], U256, BTreeMap<String, U256>);

#[test]
fn the_sample_history_ends_at_the_snapshot_reserves_with_exact_lp() {
    let f = file();
    let graph = PoolGraph::from_json(SNAPSHOT).unwrap();
    assert!(f.liquidity.len() >= 100, "the sample carries liquidity history: {}", f.liquidity.len());
    let first_trade: BTreeMap<String, i64> =
        f.trades.iter().rev().map(|t| (t.pool.clone(), t.time)).collect::<BTreeMap<_, _>>();
    // Per pool: reserves, LP supply, LP per provider, recomputed from the records alone.
    let mut pools: BTreeMap<String, Book> = BTreeMap::new();
    let (mut joins, mut exits) = (0, 0);
    for r in &f.liquidity {
        assert!(r.time < first_trade[&r.pool], "history is before the pool's first trade");
        let (res, supply, held) = pools.entry(r.pool.clone()).or_default();
        let (a0, a1, lp) = (n(&r.amount0), n(&r.amount1), n(&r.lp));
        match r.kind {
            tonroute::market::liquidity::LiquidityKind::Join => {
                joins += 1;
                let minted = if supply.is_zero() {
                    // The first join: isqrt(a0 · a1), 1,001 of it locked.
                    let s = (a0 * a1).integer_sqrt();
                    *supply = s;
                    s - U256::from(1_001)
                } else {
                    let m = (a0 * *supply / res[0]).min(a1 * *supply / res[1]);
                    *supply += m;
                    m
                };
                assert_eq!(lp, minted, "{r:?}");
                res[0] += a0;
                res[1] += a1;
                *held.entry(r.provider.clone()).or_default() += lp;
            }
            tonroute::market::liquidity::LiquidityKind::Exit => {
                exits += 1;
                assert_eq!((a0, a1), (lp * res[0] / *supply, lp * res[1] / *supply), "{r:?}");
                let h = held.get_mut(&r.provider).unwrap();
                assert!(*h >= lp);
                *h -= lp;
                *supply -= lp;
                res[0] -= a0;
                res[1] -= a1;
            }
        }
    }
    assert!(joins > 3 * exits && exits >= 20, "joins {joins}, exits {exits}");
    assert!(pools.len() >= 40, "pools with history: {}", pools.len());
    for (pool, (res, supply, held)) in &pools {
        let id = graph.pool_id(&tonroute::asset::parse_address(pool).unwrap()).unwrap();
        let snap = graph.reserves(id);
        assert_eq!((res[0], res[1]), (U256::from(snap[0]), U256::from(snap[1])), "{pool}");
        let outstanding = held.values().fold(U256::zero(), |a, b| a + *b);
        assert_eq!(outstanding + U256::from(1_001), *supply, "{pool}: LP held + locked = supply");
    }
    // The loader keeps every record, with the reserves after each.
    let data = replayed();
    assert_eq!(data.liquidity.len(), f.liquidity.len());
    assert!(data.liquidity.iter().all(|e| e.reserves_after.is_some() && e.tx_hash.is_some()));
}

#[test]
fn a_file_whose_history_misses_the_snapshot_is_refused() {
    let mut f = file();
    // An LP figure off by one, an exit paying one unit too much, a history dropped from its last join.
    let graph = || PoolGraph::from_json(SNAPSHOT).unwrap();
    let join = f.liquidity.iter().position(|r| r.kind == tonroute::market::liquidity::LiquidityKind::Join).unwrap();
    let lp: u128 = f.liquidity[join].lp.parse().unwrap();
    f.liquidity[join].lp = (lp + 1).to_string();
    let e = MarketData::load(graph(), &f).unwrap_err().to_string();
    assert!(e.contains(&format!("liquidity event #{join}")) && e.contains("LP formulas"), "{e}");
    let mut f = file();
    let exit = f.liquidity.iter().position(|r| r.kind == tonroute::market::liquidity::LiquidityKind::Exit).unwrap();
    let a: u128 = f.liquidity[exit].amount0.parse().unwrap();
    f.liquidity[exit].amount0 = (a + 1).to_string();
    let e = MarketData::load(graph(), &f).unwrap_err().to_string();
    assert!(e.contains(&format!("liquidity event #{exit}")) && e.contains("amount0"), "{e}");
    let mut f = file();
    let last = f.liquidity.len() - 1;
    f.liquidity.remove(last);
    let e = MarketData::load(graph(), &f).unwrap_err().to_string();
    assert!(e.contains("the snapshot holds"), "{e}");
}

fn open(url: &str) -> SqlMarketStore {
    let url = url.to_string();
    std::thread::spawn(move || SqlMarketStore::open(&url, Snapshot::from_json(SNAPSHOT).unwrap()).unwrap())
        .join()
        .unwrap()
}

fn stored_events(url: &str) -> Vec<LiquidityEvent> {
    let store = open(url);
    std::thread::spawn(move || store.view().unwrap().data().liquidity.clone()).join().unwrap()
}

fn out(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

const TON_USDT_V1: &str = "0:fc4c9f31";
const TON_USDT_V1_FULL: &str = "0:fc4c9f311160754a99d113877cf583b78e5d16d048819cd4b820168769499d7e";
const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";
const NOT_IN_POOL: &str = ", not jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc and";

/// A join line on the largest TON/USD₮ pool (assets given in the reverse of the pool's order).
fn join_line(data: &MarketData, k: u64) -> Value {
    let pool = data.graph.pools().iter().find(|p| p.address.to_hex().starts_with(TON_USDT_V1)).unwrap();
    let (a0, a1) = (data.graph.asset(pool.assets[0]).asset, data.graph.asset(pool.assets[1]).asset);
    json!({
        "event": "join",
        "event_date": "2024-11-21T11:00:00Z",
        "pool_address": pool.address.to_base64_url(),
        "provider_address": format!("0:{:064x}", 0xabc0 + k),
        "asset0": a1.to_string(),
        "amount0": (2_000_000 + k).to_string(),
        "asset1": a0.to_string(),
        "amount1": "1000000000",
        "lp_amount": "5000000",
        "min_lp_out": "4900000",
        "mc_seq_no": 42_000_000 + k,
        "tx_hash": format!("{:064x}", 0x11_0000 + k),
        "reserve0_after": "9",
        "reserve1_after": "8"
    })
}

fn write(name: &str, lines: &[String]) -> std::path::PathBuf {
    let path = temp_db(name).with_extension("jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

fn round_trip_and_ingest(url: &str) {
    let data = replayed();
    // Filled with the bundled sample: every event, as the replay has them. (An ingest of an empty file no longer
    // fills a database: it is refused as an ingest of nothing, `market_ingest::a_file_without_lines_is_refused…`.)
    drop(common::market_db::filled(url.to_string()));
    assert_eq!(stored_events(url), data.liquidity);

    // Three join lines (one without hash nor block) and a trade-shaped line in one file.
    let mut lines: Vec<String> = (0..2).map(|k| join_line(&data, k).to_string()).collect();
    let mut bare = join_line(&data, 2);
    for k in ["tx_hash", "mc_seq_no", "min_lp_out", "reserve0_after", "reserve1_after"] {
        bare.as_object_mut().unwrap().remove(k);
    }
    lines.push(bare.to_string());
    let path = write("liq", &lines);
    let o = ingest(url, &[&path]);
    assert!(o.status.success(), "{}", out(&o));
    assert!(out(&o).contains("3 liquidity events stored, 0 already stored"), "{}", out(&o));
    let o = ingest(url, &[&path]);
    assert!(out(&o).contains("0 liquidity events stored, 3 already stored"), "{}", out(&o));
    let events = stored_events(url);
    assert_eq!(events.len(), data.liquidity.len() + 3);
    let pool = data.graph.pools().iter().find(|p| p.address.to_hex().starts_with(TON_USDT_V1)).unwrap();
    let got = events.iter().find(|e| e.tx_hash.as_deref() == Some(&format!("{:064x}", 0x11_0001))).unwrap();
    // Amounts and reserves in the pool's order (the line named the assets reversed).
    assert_eq!(
        (got.pool.clone(), got.amounts, got.reserves_after),
        (pool.address.clone(), [1_000_000_000, 2_000_001], Some([8, 9]))
    );
    assert_eq!(
        (got.lp, got.min_lp_out, got.mc_seq_no, got.block()),
        (5_000_000, 4_900_000, Some(42_000_001), 42_000_001)
    );
    let bare = events.iter().find(|e| e.tx_hash.is_none()).unwrap();
    assert_eq!((bare.min_lp_out, bare.mc_seq_no, bare.block()), (5_000_000, None, 31_682_161));

    // The feed and the providers see them: real block numbers, the reserves the lines gave, the new providers.
    let u = url.to_string();
    let api = std::thread::spawn(move || {
        tonroute::api::market::MarketApi::new(Arc::new(open(&u)) as Arc<dyn tonroute::market::MarketStore>)
    })
    .join()
    .unwrap();
    let q = |s: &str| tonroute::api::market::params::decode_query(s).unwrap();
    let latest = serde_json::to_value(api.get_latest_block(&q("")).unwrap()).unwrap();
    assert_eq!(latest["block"]["blockNumber"], 42_000_001, "{latest}");
    assert_eq!(latest["block"]["blockTimestamp"], 1_732_186_800, "a real block shows its event's time");
    let events = serde_json::to_value(api.get_events(&q("fromBlock=42000000&toBlock=42000001")).unwrap()).unwrap();
    let events = events["events"].as_array().unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[1]["txnId"], format!("{:064x}", 0x11_0001));
    assert_eq!((events[1]["eventType"].as_str(), events[1]["txnIndex"].as_i64()), (Some("join"), Some(0)));
    // Reserves as the line gave them (reserve0_after of asset0 = USD₮ in the line; the pool's asset1).
    assert_eq!(events[1]["reserves"]["asset0"], "0.000000008");
    assert_eq!(events[1]["reserves"]["asset1"], "0.000009");
    let providers = serde_json::to_value(api.get_pool_providers(TON_USDT_V1_FULL, &q("limit=100")).unwrap()).unwrap();
    let wallets: Vec<String> = providers["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| tonroute::asset::parse_address(p["wallet_address"].as_str().unwrap()).unwrap().to_hex())
        .collect();
    for k in 0..3u64 {
        assert!(wallets.contains(&format!("0:{:064x}", 0xabc0 + k)), "{wallets:?}");
    }
    let deposits = serde_json::to_value(api.get_pool_deposits(TON_USDT_V1_FULL, &q("limit=1")).unwrap()).unwrap();
    assert_eq!(
        deposits["deposits"][0]["initiator_address"]
            .as_str()
            .map(|a| tonroute::asset::parse_address(a).unwrap().to_hex()),
        Some(format!("0:{:064x}", 0xabc2)),
        "the newest deposit: the last line (same time, later arrival)"
    );

    // A bad line 3 refuses the whole file, naming the line and the reason.
    let good = |k| join_line(&data, k).to_string();
    // The good line 9 with one field replaced, and the reason the refusal names.
    let with = |field: &str, value: Value| {
        let mut v = join_line(&data, 9);
        v[field] = value;
        v.to_string()
    };
    let mut cases: Vec<(String, &str)> = [
        ("pool_address", json!(format!("0:{}", "12".repeat(32))), "unknown pool"),
        ("asset0", json!(NOT), NOT_IN_POOL),
        ("amount0", json!("-1"), "`amount0` is not a decimal integer"),
        ("lp_amount", json!("0"), "must move LP tokens"),
        ("min_lp_out", json!("5000001"), "above the LP minted"),
        ("event_date", json!("2999-01-01T00:00:00Z"), "out of range"),
        ("colour", json!("red"), "unknown field `colour`"),
        ("event", json!("swap"), "not a liquidity event object"),
    ]
    .into_iter()
    .map(|(field, value, reason)| (with(field, value), reason))
    .collect();
    let mut v = join_line(&data, 9);
    v.as_object_mut().unwrap().remove("reserve1_after");
    cases.push((v.to_string(), "go together"));
    let before = stored_events(url).len();
    for (bad, reason) in cases {
        let path = write("bad", &[good(7), good(8), bad]);
        let o = ingest(url, &[&path]);
        common::market_db::assert_file_refused(&o, &out(&o), &path, 3, "liquidity event", reason);
        assert_eq!(stored_events(url).len(), before, "{reason}");
    }
}

on_sqlite_and_postgres!(round_trip_and_ingest, "liquidity", liquidity_on_sqlite, liquidity_on_postgres);

/// A join ingested between a pool's trades dilutes the earlier providers' LP fee share from its own time on, and
/// earns its provider the same share of the later trades: the earnings step with the events (through the
/// database store, which reads the pool's trades by index). By hand: the pool's raw trades, its LP supply from the
/// raw records, `floor(floor(amount_in · lp_fee / 10000) · LP / supply)` with the supply of each trade's time.
fn earnings_step_with_a_join_between_trades(url: &str) {
    use tonroute::market::MarketStore;
    let f = file();
    let graph = PoolGraph::from_json(SNAPSHOT).unwrap();
    let pool_raw = TON_USDT_V1_FULL;
    let id = graph.pool_id(&pool_raw.parse().unwrap()).unwrap();
    let asset0 = graph.asset(graph.pool(id).assets[0]).asset.to_string();
    let trades: Vec<&tonroute::market::replay::TradeRecord> = f.trades.iter().filter(|t| t.pool == pool_raw).collect();
    assert!(trades.len() > 100);
    // The join lands on the second of trade 100 (an event in the same second counts before the trade).
    let at = trades[100].time;
    let (newcomer, added) = ("0:".to_string() + &"5a".repeat(32), 40_000_000_000_000u128);
    let (mut supply, mut held) = (1_001u128, BTreeMap::<String, u128>::new());
    for r in f.liquidity.iter().filter(|r| r.pool == pool_raw) {
        let lp: u128 = r.lp.parse().unwrap();
        match r.kind {
            tonroute::market::liquidity::LiquidityKind::Join => {
                supply += lp;
                *held.entry(r.provider.clone()).or_default() += lp;
            }
            tonroute::market::liquidity::LiquidityKind::Exit => {
                supply -= lp;
                *held.get_mut(&r.provider).unwrap() -= lp;
            }
        }
    }
    let (old, old_lp) = held.iter().max_by_key(|(_, lp)| **lp).map(|(w, lp)| (w.clone(), *lp)).unwrap();
    let by_hand = |lp_from: &dyn Fn(i64) -> (u128, u128)| {
        let mut earned = [0u128; 2];
        for t in &trades {
            let (lp, supply) = lp_from(t.time);
            let input = usize::from(t.asset_in != asset0);
            let fee = U256::from(t.amount_in.parse::<u128>().unwrap()) * U256::from(20u32) / U256::from(10_000u32);
            earned[input] += u128::try_from(fee * U256::from(lp) / U256::from(supply)).unwrap();
        }
        earned
    };
    let old_expected = by_hand(&|t| (old_lp, if t >= at { supply + added } else { supply }));
    let new_expected = by_hand(&|t| if t >= at { (added, supply + added) } else { (0, supply) });
    assert_eq!(graph.pool(id).curve.total_fee_bps(), 30, "the dex_b_v1 pool: LP fee 20 + protocol fee 10");

    let store = common::market_db::filled(url.to_string());
    let line = json!({
        "event": "join",
        "event_date": tonroute::market::types::DateTime::from_unix(at).unwrap(),
        "pool_address": pool_raw,
        "provider_address": newcomer,
        "asset0": asset0,
        "amount0": "1000000000000",
        "asset1": graph.asset(graph.pool(id).assets[1]).asset.to_string(),
        "amount1": "1000000000",
        "lp_amount": added.to_string()
    })
    .to_string();
    let (old2, newcomer2) = (old.clone(), newcomer.clone());
    let (old_got, new_got, position) = std::thread::spawn(move || {
        let event = tonroute::market::liquidity::parse_liquidity_line(&line, store.graph(), i64::MAX).unwrap();
        store.ingest_batch(&[], &[event]).unwrap();
        let earned = |w: &str| {
            let e = store.earnings(&tonroute::asset::parse_address(w).unwrap()).unwrap();
            let row = e.fee_earnings.iter().find(|r| r.pool_address == EQ_TON_USDT_V1).unwrap().clone();
            let amounts: Vec<u128> = row.assets.values().map(|a| a.amount.as_str().parse().unwrap()).collect();
            (row.assets.keys().cloned().collect::<Vec<_>>(), amounts)
        };
        let q = tonroute::market::positions::PositionQuery {
            wallet: tonroute::asset::parse_address(&newcomer2).unwrap(),
            pool: TON_USDT_V1_FULL.parse().unwrap(),
        };
        (earned(&old2), earned(&newcomer2), store.liquidity_position(&q).unwrap().unwrap())
    })
    .join()
    .unwrap();
    // The asset map is keyed by asset id in order: `jetton:…` (USD₮, the pool's asset 1) before `native`.
    let order = |e: [u128; 2]| if old_got.0[0] == asset0 { vec![e[0], e[1]] } else { vec![e[1], e[0]] };
    assert_eq!(old_got.1, order(old_expected), "the largest earlier provider");
    assert_eq!(new_got.1, order(new_expected), "the newcomer");
    assert!(new_expected.iter().all(|e| *e > 0) && old_expected[0] > 0);
    assert_eq!(position.position.liquidity.as_str(), added.to_string());
    assert_eq!(position.position.position_address, "", "the line names no LP account");
}

const EQ_TON_USDT_V1: &str = "EQD8TJ8xEWB1SpnRE4d89YO3jl0W0EiBnNS4IBaHaUmdfizE";

on_sqlite_and_postgres!(
    earnings_step_with_a_join_between_trades,
    "earnings",
    earnings_step_on_sqlite,
    earnings_step_on_postgres
);
