//! `tonroute sync --watch --market-db URL` (the built binary) against the local replay (`tests/it/replay`): over
//! one watch round covering two blocks, DeDust pool 0's reserves move apart (a swap) and pool 2's both rise
//! (liquidity). The market store (a temporary SQLite file, read back by the test with plain sqlx) then holds
//! exactly the one derived trade, whose pool, direction, amounts and time the test computes itself from the two
//! recorded states (the replay's scripted reserves and block time), and the one liquidity event (a join of the
//! two rises, at block 102);
//! and running the same sync again stores nothing twice. With tracked wallets (`--wallet`, `--wallets FILE`), the
//! stored balances are exactly the replay's toncenter answers (`accountStates` TON balances, `jetton/wallets`
//! pages), each with its read's block and block time; a later round's newer block replaces them; a jetton the read
//! no longer lists becomes 0; a jetton the snapshot does not know is left out; and a wallet whose read fails writes
//! nothing that round (not even the TON balance that was read), keeping what it had.
#![cfg(all(feature = "sync", feature = "store", feature = "server"))]

use crate::common;
use crate::replay;

use std::path::Path;
use std::process::Command;

use replay::payloads::*;
use replay::{block_of, head, jetton_page, num, raw, stack, wallet_state, Replay, Reply};
use serde_json::Value;
use sqlx::Row;

const TONROUTE: &str = env!("CARGO_BIN_EXE_tonroute");

/// Build at block 100 with the recorded reserves; one round up to block 102: block 101 touches DeDust pool 0
/// (reserve 0 up, reserve 1 down), block 102 pool 2 (both up).
fn script(r: &Replay, swap: [[u128; 2]; 2], join: [[u128; 2]; 2]) {
    r.script("head", vec![head(100), head(102)]);
    r.set("block 101", block_of(&[DEDUST[0]]));
    r.set("block 102", block_of(&[DEDUST[2]]));
    for (i, [before, after]) in [(0, swap), (2, join)] {
        r.script(
            &format!("get {} get_reserves", raw(DEDUST[i])),
            vec![stack(vec![num(before[0]), num(before[1])]), stack(vec![num(after[0]), num(after[1])])],
        );
    }
}

fn sync(dir: &Path, base: &str, db: &str) -> String {
    let o = Command::new(TONROUTE)
        .args(["sync", "--out", "live.json", "--sources", "stonfi,dedust", "--rate", "1000"])
        .args(["--watch", "--rounds", "1", "--poll-ms", "10", "--market-db", db])
        .env("TONROUTE_API_BASE", base)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("{TONROUTE}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{text}");
    text
}

/// A trade row: pool, asset in, asset out, amount in, amount out, time, trader, tx hash.
type TradeRow = (String, String, String, String, String, i64, String, Option<String>);

/// Every trade row, read with plain sqlx (not the store's code).
fn trades(db: &str) -> Vec<TradeRow> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let pool = sqlx::SqlitePool::connect(db).await.expect("opening the SQLite file");
        let rows = sqlx::query(
            "SELECT pool, asset_in, asset_out, amount_in, amount_out, time, trader, tx_hash FROM trades ORDER BY id",
        )
        .fetch_all(&pool)
        .await
        .expect("reading trades");
        rows.iter()
            .map(|r| {
                (
                    r.get("pool"),
                    r.get("asset_in"),
                    r.get("asset_out"),
                    r.get("amount_in"),
                    r.get("amount_out"),
                    r.get("time"),
                    r.get("trader"),
                    r.get("tx_hash"),
                )
            })
            .collect()
    })
}

/// Every liquidity event row, read with plain sqlx: pool, kind, amount0, amount1, mc_seq_no, time.
fn events(db: &str) -> Vec<(String, String, String, String, Option<i64>, i64)> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let pool = sqlx::SqlitePool::connect(db).await.expect("opening the SQLite file");
        let rows =
            sqlx::query("SELECT pool, kind, amount0, amount1, mc_seq_no, time FROM liquidity_events ORDER BY id")
                .fetch_all(&pool)
                .await
                .expect("reading liquidity events");
        rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5))).collect()
    })
}

#[test]
fn a_round_s_swap_and_liquidity_are_stored_once() {
    let r = healthy();
    let recorded = dedust_reserves();
    let swap = [recorded[0], [recorded[0][0] + 1_000_000_000, recorded[0][1] - 1_234_567_890_123_456_789]];
    let join = [recorded[2], [recorded[2][0] + 10_000_000, recorded[2][1] + 175_000_000]];
    script(&r, swap, join);
    let (_rt, base) = replay::serve(&r);
    let dir = common::scratch("sync-market", "round");
    let db = format!("sqlite://{}", dir.join("market.db").display());

    let out = sync(&dir, &base, &db);
    assert!(out.contains("round 1: blocks 101..=102: 2 pools touched, 2 changed, 0 failed"), "{out}");
    assert!(
        out.contains(
            "round 1: derived 1 trades (1 stored, 0 already stored), 1 liquidity events (1 stored, 0 already stored)"
        ),
        "{out}"
    );
    assert!(out.contains("sync: liquidity event") && out.contains("join"), "{out}");

    // The trade, computed here from the two recorded states: the pool's assets in the synced file, the reserve
    // that rose went in, amounts are the two reserve changes, time is block 102's.
    let s: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("live.json")).unwrap()).unwrap();
    let pool = s["pools"].as_array().unwrap().iter().find(|p| p["address"] == raw(DEDUST[0]).as_str()).unwrap();
    assert_eq!(pool["reserves"], serde_json::json!([swap[1][0].to_string(), swap[1][1].to_string()]), "{pool}");
    let (asset0, asset1) = (pool["assets"][0].as_str().unwrap(), pool["assets"][1].as_str().unwrap());
    let expected = (
        raw(DEDUST[0]),
        asset0.to_string(),
        asset1.to_string(),
        (swap[1][0] - swap[0][0]).to_string(),
        (swap[0][1] - swap[1][1]).to_string(),
        replay::block_time(102),
        "0:0000000000000000000000000000000000000000000000000000000000000000".to_string(),
        None,
    );
    assert_eq!(trades(&db), vec![expected.clone()]);
    // The liquidity event: pool 2, both reserves up, the two rises, block 102.
    let joined = (
        raw(DEDUST[2]),
        "join".to_string(),
        (join[1][0] - join[0][0]).to_string(),
        (join[1][1] - join[0][1]).to_string(),
        Some(102i64),
        replay::block_time(102),
    );
    assert_eq!(events(&db), vec![joined.clone()]);

    // The same sync again over the same blocks: the same trade is derived and not stored twice.
    script(&r, swap, join);
    let out = sync(&dir, &base, &db);
    assert!(
        out.contains(
            "round 1: derived 1 trades (0 stored, 1 already stored), 1 liquidity events (0 stored, 1 already stored)"
        ),
        "{out}"
    );
    assert_eq!(trades(&db), vec![expected]);
    assert_eq!(events(&db), vec![joined]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every balance row, read with plain sqlx: owner, asset, balance, as_of, block.
fn balances(db: &str) -> Vec<(String, String, String, i64, Option<i64>)> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let pool = sqlx::SqlitePool::connect(db).await.expect("opening the SQLite file");
        let rows = sqlx::query("SELECT owner, asset, balance, as_of, block FROM wallet_balances ORDER BY owner, asset")
            .fetch_all(&pool)
            .await
            .expect("reading balances");
        rows.iter().map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4))).collect()
    })
}

/// STON, token0 of the replay's STON.fi v1 pool: a jetton of the synced snapshot.
const STON: &str = "EQA2kCVNwVsil2EM2mB0SkXytxCqQjS4mttjDpnXmwG9T6bO";

#[test]
fn tracked_wallets_balances_follow_the_blocks_and_a_failed_read_writes_nothing_of_its_wallet() {
    let r = healthy();
    // Build at 100, round 1 up to 102, round 2 up to 103; the blocks touch no pool.
    r.script("head", vec![head(100), head(102), head(103)]);
    for b in [101, 102, 103] {
        r.set(&format!("block {b}"), block_of(&[]));
    }
    let a = "0:".to_string() + &"a1".repeat(32);
    let b = "UQCD39VS5jcptHL8vMjEXrzGaRcCVYto7HUn4bpAOg8xqEBI"; // given friendly, stored raw
    let unknown = "0:".to_string() + &"ee".repeat(32);
    // Wallet A: TON 1,000 → 2,000 → 3,000; USD₮ 50 → 60 → 70; STON 7, then no longer listed; an unknown jetton.
    r.script(
        &format!("state {}", raw(&a)),
        vec![wallet_state(&a, 1_000), wallet_state(&a, 2_000), wallet_state(&a, 3_000)],
    );
    r.script(
        &format!("jettons {} 0", raw(&a)),
        vec![
            jetton_page(&a, &[(USDT, 50), (STON, 7), (&unknown, 9)]),
            jetton_page(&a, &[(USDT, 60), (STON, 0)]),
            jetton_page(&a, &[(USDT, 70)]),
        ],
    );
    // Wallet B: read whole at the build and round 1; in round 2 its TON balance reads (700) but its jetton
    // wallets answer 500 on every attempt.
    r.script(&format!("state {}", raw(b)), vec![wallet_state(b, 500), wallet_state(b, 600), wallet_state(b, 700)]);
    r.script(
        &format!("jettons {} 0", raw(b)),
        vec![jetton_page(b, &[(USDT, 5)]), jetton_page(b, &[(USDT, 6)]), Reply::status(500)],
    );
    let (_rt, base) = replay::serve(&r);
    let dir = common::scratch("sync-market", "wallets");
    std::fs::write(dir.join("wallets.txt"), format!("# tracked\n\n{b}   # TON Foundation\n{a}\n")).unwrap();
    let db = format!("sqlite://{}", dir.join("market.db").display());

    let o = Command::new(TONROUTE)
        .args(["sync", "--out", "live.json", "--sources", "stonfi,dedust", "--rate", "1000"])
        .args(["--watch", "--rounds", "2", "--poll-ms", "10", "--attempts", "2", "--market-db", &db])
        .args(["--wallet", &a, "--wallets", "wallets.txt"])
        .env("TONROUTE_API_BASE", &base)
        .current_dir(&dir)
        .output()
        .unwrap();
    let out = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(o.status.success(), "{out}");
    assert!(out.contains("build: holdings of 2 wallets read at block 100, 0 failed; 5 balances to store, 1 jettons not in the snapshot left out"), "{out}");
    assert!(out.contains("round 1: holdings of 2 wallets read at block 102, 0 failed"), "{out}");
    assert!(out.contains("round 2: holdings of 1 wallets read at block 103, 1 failed"), "{out}");
    assert!(out.contains("none of its balances written"), "{out}");
    // Wallet A's jettons of the synced snapshot (STON among them, the unknown one not).
    let s: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("live.json")).unwrap()).unwrap();
    let ston = format!("jetton:{}", raw(STON));
    let assets: Vec<&str> = s["assets"].as_array().unwrap().iter().map(|x| x["asset"].as_str().unwrap()).collect();
    assert!(assets.contains(&ston.as_str()) && assets.contains(&USDT), "{assets:?}");

    let row = |owner: &str, asset: &str, balance: u128, block: u32| {
        (raw(owner), asset.to_string(), balance.to_string(), replay::block_time(block), Some(i64::from(block)))
    };
    let mut expected = vec![
        // A: the newest block's read; STON no longer listed at 103 → 0 at 103.
        row(&a, &ston, 0, 103),
        row(&a, USDT, 70, 103),
        row(&a, "native", 3_000, 103),
        // B: round 2 failed for it, so round 1's read stands whole (not the TON 700 read at 103).
        row(b, USDT, 6, 102),
        row(b, "native", 600, 102),
    ];
    expected.sort();
    assert_eq!(balances(&db), expected);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wallet_that_is_no_address_is_refused_before_anything_is_read() {
    let dir = common::scratch("sync-market", "bad-wallet");
    std::fs::write(dir.join("wallets.txt"), "0:zz\n").unwrap();
    let db = format!("sqlite://{}", dir.join("market.db").display());
    let o = Command::new(TONROUTE)
        .args(["sync", "--out", "live.json", "--watch", "--market-db", &db, "--wallets", "wallets.txt"])
        .env("TONROUTE_API_BASE", "http://127.0.0.1:9")
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("wallets.txt:1: `0:zz` is not a wallet address"), "{err}");
    assert!(!dir.join("live.json").exists() && !dir.join("market.db").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
