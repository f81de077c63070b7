//! `POST /v4/router/swap` with a `swap_data` quoted on another snapshot than the server's (issue 35, item 4),
//! over real HTTP against `tonroute serve` as a user starts it: the answer says that the pools of the
//! `swap_data` are not in this snapshot (404, code 2002), or that the quote was made on another snapshot
//! (422, code 3003) when the pools are there with other router addresses.
#![cfg(all(feature = "cli", feature = "server"))]

use crate::common;

use std::path::{Path, PathBuf};

use common::bin::{run_tonroute, spawn_serve};
use serde_json::{json, Value};

const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";
/// The jetton of a saved DeDust record whose pool the bundled snapshot does not have.
const DEDUST_ONLY: &str = "jetton:0:716d0cad2fae30b93cf9d4a72938b7530d23a1aab5752da3ca0eb84ea8b077bf";
const SENDER: &str = "UQAQnxLqlX2B6w4jQzzzPWA8eyWZVZBz6Y0D_8noARLOaEAn";

fn saved(name: &str) -> String {
    format!("{}/tests/data/import/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The saved responses imported into a scratch directory with `tonroute import`; the directory.
fn imported() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tonroute-other-snapshot-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (p, r, d) = (saved("stonfi-pools.json"), saved("stonfi-routers.json"), saved("dedust-pools.json"));
    let o = run_tonroute(&dir, &["import", &p, &r, &d, "--out", "imported.json"], None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    dir
}

fn quote(dir: &Path, from: &str, to: &str, amount: &str) -> Value {
    let args = ["quote", from, to, amount, "--max-splits", "1", "--snapshot", "imported.json", "--json"];
    let o = run_tonroute(dir, &args, None);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn a_swap_data_of_another_snapshot_is_named_as_such_over_http() {
    let dir = imported();
    let server = spawn_serve(&[]);
    let q = quote(&dir, "native", DEDUST_ONLY, "1000000");
    let (status, body) =
        server.post("/v4/router/swap", &json!({"sender_address": SENDER, "swap_data": q["swap_data"]}).to_string());
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, v["code"].as_i64()), (404, Some(2002)), "{body}");
    let message = v["message"].as_str().unwrap();
    assert!(message.contains("unknown pool"), "{message}");
    assert!(message.contains("the pool of swap_data is not in this snapshot"), "{message}");
    assert!(message.contains("quoted on another snapshot"), "{message}");

    // The real NOT/TON pool is in both snapshots, with other router wallets in the bundled one.
    let q = quote(&dir, NOT, "native", "1000000000000");
    let (status, body) =
        server.post("/v4/router/swap", &json!({"sender_address": SENDER, "swap_data": q["swap_data"]}).to_string());
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!((status, v["code"].as_i64()), (422, Some(3003)), "{body}");
    assert!(v["message"].as_str().unwrap().contains("quoted on another snapshot"), "{body}");
    let _ = std::fs::remove_dir_all(&dir);
}
