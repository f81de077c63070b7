//! Wallet balances as data: the bundled sample's balances are consistent with its trades (recomputed here from
//! the raw trade records), and `tonroute market ingest` takes balance lines as a user runs it (the built binary,
//! JSON-lines files) on SQLite and on a real PostgreSQL: the latest as-of wins, re-running a file changes
//! nothing, a bad line is refused with its line number and nothing of its file is stored.
#![cfg(feature = "store")]

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use sha2::{Digest, Sha256};
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolGraph;
use tonroute::market::store::sql::SqlMarketStore;

use common::market_db::{temp_db, MARKET, SNAPSHOT};

#[test]
fn bundled_balances_follow_the_trades() {
    let file: Value = serde_json::from_str(MARKET).unwrap();
    let graph = PoolGraph::from_json(SNAPSHOT).unwrap();
    // Per (trader, asset): running balance change, its lowest point, the largest single amount moved.
    let mut flows: BTreeMap<(String, String), (i128, i128, u128)> = BTreeMap::new();
    for t in file["trades"].as_array().unwrap() {
        let pool =
            graph.pool(graph.pool_id(&tonroute::asset::parse_address(t["pool"].as_str().unwrap()).unwrap()).unwrap());
        let asset_in = t["asset_in"].as_str().unwrap().to_string();
        let asset_out = pool.assets.iter().map(|a| graph.asset(*a).asset.to_string()).find(|a| *a != asset_in).unwrap();
        let amount_in: u128 = t["amount_in"].as_str().unwrap().parse().unwrap();
        let amount_out: u128 = t["amount_out"].as_str().unwrap().parse().unwrap();
        let trader = t["trader"].as_str().unwrap().to_string();
        for (asset, delta, moved) in
            [(asset_in, -(amount_in as i128), amount_in), (asset_out, amount_out as i128, amount_out)]
        {
            let f = flows.entry((trader.clone(), asset)).or_insert((0, 0, 0));
            f.0 += delta;
            f.1 = f.1.min(f.0);
            f.2 = f.2.max(moved);
        }
    }
    let balances = file["balances"].as_array().expect("the sample has balances");
    let mut seen = 0;
    for b in balances {
        let key = (b["owner"].as_str().unwrap().to_string(), b["asset"].as_str().unwrap().to_string());
        let (running, lowest, largest) = flows[&key];
        let balance: u128 = b["balance"].as_str().unwrap().parse().unwrap();
        // Never below what the trades need (the wallet never sends more than it holds) ...
        let needed = (running - lowest) as u128;
        assert!(balance >= needed, "{key:?}: {balance} < {needed}");
        // ... plus the documented extra: 0, ½ or 1 times the largest amount moved, by the pair's hash.
        let pick = Sha256::digest(format!("tonroute synthetic balance {} {}", key.0, key.1).as_bytes())[0] % 3;
        let extra = [0, largest / 2, largest][usize::from(pick)];
        assert_eq!(balance, needed + extra, "{key:?}");
        assert_eq!(b["as_of"], file["as_of"]);
        seen += 1;
    }
    // Every pair that ends with something holds a record.
    let nonzero = flows.iter().filter(|(k, (r, l, m))| {
        let pick = Sha256::digest(format!("tonroute synthetic balance {} {}", k.0, k.1).as_bytes())[0] % 3;
        (r - l) as u128 + [0, m / 2, *m][usize::from(pick)] > 0
    });
    assert_eq!(nonzero.count(), seen);
    assert!(seen > 1000, "{seen} balances");
}

const OWNER: &str = "0:7777777777777777777777777777777777777777777777777777777777777777";
const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

fn line(asset: &str, balance: &str, as_of: &str, block: Option<u32>) -> String {
    let block = block.map_or(String::new(), |b| format!(", \"block\": {b}"));
    format!(r#"{{"owner": "{OWNER}", "asset": "{asset}", "balance": "{balance}", "as_of": "{as_of}"{block}}}"#)
}

fn write(name: &str, lines: &[String]) -> std::path::PathBuf {
    let path = temp_db(name).with_extension("jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

fn ingest(url: &str, file: &Path) -> std::process::Output {
    common::market_db::ingest(url, &[file])
}

fn out(o: &std::process::Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// (balance, as_of, block) of OWNER per asset.
type Mine = BTreeMap<String, (u128, i64, Option<u32>)>;

/// OWNER's balances, and how many balances the store holds.
fn stored(url: &str) -> (Mine, i64) {
    let url = url.to_string();
    std::thread::spawn(move || {
        let store = SqlMarketStore::open(&url, Snapshot::from_json(SNAPSHOT).unwrap()).unwrap();
        let owner = tonroute::asset::parse_address(OWNER).unwrap();
        let mine = store
            .balances(&owner)
            .unwrap()
            .into_iter()
            .map(|b| (b.asset.to_string(), (b.balance, b.as_of.unix(), b.block)))
            .collect();
        (mine, store.balance_count().unwrap())
    })
    .join()
    .unwrap()
}

fn latest_wins_and_reruns_change_nothing(url: &str) {
    let sample = serde_json::from_str::<Value>(MARKET).unwrap()["balances"].as_array().unwrap().len() as i64;
    // One file: TON read twice (the later read wins inside the batch), NOT once.
    let first = write(
        "balances",
        &[
            line("native", "5000000000", "2024-11-22T00:00:00Z", None),
            line("native", "9000000000", "2024-11-20T00:00:00Z", Some(99)),
            line(NOT, "123456789012", "2024-11-22T00:00:00Z", Some(10)),
        ],
    );
    let o = ingest(url, &first);
    assert!(o.status.success(), "{}", out(&o));
    assert!(out(&o).contains("2 balances stored, 1 not newer than stored"), "{}", out(&o));
    let (mine, count) = stored(url);
    assert_eq!(count, sample + 2, "the sample's balances were filled first");
    assert_eq!(mine["native"], (5_000_000_000, 1_732_233_600, None));
    assert_eq!(mine[NOT], (123_456_789_012, 1_732_233_600, Some(10)));
    // The same file again: nothing is newer.
    let o = ingest(url, &first);
    assert!(out(&o).contains("0 balances stored, 3 not newer than stored"), "{}", out(&o));
    // A later read of TON, an older one of NOT, and the same time for NOT with a higher block.
    let second = write(
        "balances2",
        &[
            line("native", "1", "2024-11-23T00:00:00Z", None),
            line(NOT, "7", "2024-11-21T00:00:00Z", Some(500)),
            line(NOT, "8", "2024-11-22T00:00:00Z", Some(11)),
        ],
    );
    let o = ingest(url, &second);
    assert!(out(&o).contains("2 balances stored, 1 not newer than stored"), "{}", out(&o));
    let (mine, count) = stored(url);
    assert_eq!(count, sample + 2);
    assert_eq!(mine["native"], (1, 1_732_320_000, None));
    assert_eq!(mine[NOT], (8, 1_732_233_600, Some(11)));

    // A bad line (line 2) refuses the file: its good line 1 is not stored either.
    for (bad, reason) in [
        (line("native", "-3", "2024-11-24T00:00:00Z", None), "`balance` is not a decimal integer"),
        (line("native", "3", "2999-01-01T00:00:00Z", None), "out of range"),
        (line(&format!("jetton:0:{}", "ab".repeat(32)), "3", "2024-11-24T00:00:00Z", None), "not in the snapshot"),
        (
            line("native", "3", "2024-11-24T00:00:00Z", None).replace("\"balance\"", "\"balanse\""),
            "not a balance object",
        ),
    ] {
        let file = write("bad", &[line(NOT, "99", "2024-11-24T00:00:00Z", None), bad]);
        let o = ingest(url, &file);
        common::market_db::assert_file_refused(&o, &out(&o), &file, 2, "balance", reason);
        assert_eq!(stored(url).0[NOT].0, 8, "{reason}");
    }
}

on_sqlite_and_postgres!(
    latest_wins_and_reruns_change_nothing,
    "balances",
    balance_lines_on_sqlite,
    balance_lines_on_postgres
);
