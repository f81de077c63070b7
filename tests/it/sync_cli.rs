//! `tonroute sync` run as a user runs it (the built binary, its flags, `TONCENTER_API_KEY` and
//! `TONROUTE_API_BASE` in the environment) against the local replay of the exchanges' APIs and toncenter
//! (`tests/it/replay`, payloads in `tests/it/replay/payloads.rs`), with faults injected. Checked: the file written,
//! what failed pools keep, that a failed sync writes nothing and leaves the old file byte for byte, that
//! watching rewrites the file with what the blocks changed and counts a failed round, and that the key never
//! shows.
#![cfg(all(feature = "sync", feature = "server"))]

use crate::common::scratch;
use crate::replay;

use std::path::Path;
use std::process::{Command, Output};

use replay::payloads::*;
use replay::{block_of, head, raw, serve, sync_command, Replay, Reply};
use serde_json::Value;

const TONROUTE: &str = env!("CARGO_BIN_EXE_tonroute");
const KEY: &str = "cli-secret-key-42";

fn sync(dir: &Path, base: &str, args: &[&str]) -> (Output, String) {
    let o = sync_command(dir, base, args)
        .env("TONCENTER_API_KEY", KEY)
        .output()
        .unwrap_or_else(|e| panic!("{TONROUTE}: {e}"));
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(!text.contains(KEY), "the API key was printed:\n{text}");
    (o, text)
}

fn reserves(dir: &Path, address: &str) -> [String; 2] {
    let s: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("live.json")).unwrap()).unwrap();
    let raw = raw(address);
    let p = s["pools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["address"] == raw.as_str())
        .unwrap_or_else(|| panic!("{address}"));
    [p["reserves"][0].as_str().unwrap().to_string(), p["reserves"][1].as_str().unwrap().to_string()]
}

#[test]
fn sync_writes_a_snapshot_keeps_failed_pools_and_writes_nothing_when_it_fails() {
    let r = healthy();
    let (_rt, base) = serve(&r);
    let dir = scratch("sync-cli", "build");

    let (o, out) = sync(&dir, &base, &[]);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("masterchain block 100"), "{out}");
    assert!(out.contains("chain state read for 5 pools; 0 failed"), "{out}");
    // 4 lists, the head, one accountStates batch (the v2 pool), 1 + 2·3 get-methods.
    assert!(out.contains("13 requests (0 retries, 0 failed calls)"), "{out}");
    assert!(out.contains("wrote live.json: 5 pools"), "{out}");
    assert_eq!(reserves(&dir, V2_POOL), ["2543727890452".to_string(), "1727085023286242".to_string()]);
    let q = Command::new(TONROUTE)
        .args(["quote", USDT, "native", "100000000", "--snapshot", "live.json", "--json"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(q.status.success(), "{}", String::from_utf8_lossy(&q.stderr));

    // Faults on two pools: a 500 on every attempt, a body that is not JSON. They keep the file's state.
    let before_v1 = reserves(&dir, V1_POOL);
    let before_d1 = reserves(&dir, DEDUST[1]);
    r.set(&format!("get {} get_reserves", raw(DEDUST[1])), Reply::status(500));
    r.set(&format!("get {} get_pool_data", raw(V1_POOL)), Reply::text(r#"{"exit_code": 0, "stack": [{"#));
    set_dedust(&r, 0, [1_000_000_007, 2_000_000_011]);
    let (o, out) = sync(&dir, &base, &["--attempts", "3"]);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("2 failed (2 kept at their last good state, 0 left out)"), "{out}");
    assert!(out.contains("HTTP 500") && out.contains("not JSON"), "{out}");
    assert_eq!(reserves(&dir, V1_POOL), before_v1);
    assert_eq!(reserves(&dir, DEDUST[1]), before_d1);
    assert_eq!(reserves(&dir, DEDUST[0]), ["1000000007".to_string(), "2000000011".to_string()]);

    // Nothing can be read: an error, exit 2, the file byte for byte as it was, no temporary file left.
    let before = std::fs::read(dir.join("live.json")).unwrap();
    r.set("head", Reply::status(503));
    let (o, out) = sync(&dir, &base, &["--attempts", "2"]);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("nothing written"), "{out}");
    assert_eq!(std::fs::read(dir.join("live.json")).unwrap(), before);
    r.set("head", head(100));
    r.set("stonfi/pools", Reply::text("[{\"truncated"));
    r.set("dedust/pools", Reply::status(404));
    let (o, out) = sync(&dir, &base, &["--attempts", "2"]);
    // Both pool lists failed: the previous snapshot's pools are all there is, re-read from the chain.
    assert!(o.status.success(), "{out}");
    assert!(out.contains("stonfi /v1/pools: FAILED") && out.contains("dedust /v2/pools: FAILED"), "{out}");
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["live.json"], "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_rewrites_the_file_with_what_blocks_changed_and_counts_failed_rounds() {
    let r = healthy();
    let (_rt, base) = serve(&r);
    let dir = scratch("sync-cli", "watch");
    // Build at 100; round 1 sees 102 (block 101 touches DeDust pool 0, 102 nothing of ours); round 2 sees 103,
    // whose block answers 500 every time: a failed round, counted, the file as round 1 left it.
    r.script("head", vec![head(100), head(102), head(103)]);
    r.set("block 101", block_of(&[DEDUST[0]]));
    r.set("block 102", block_of(&["EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"]));
    r.set("block 103", Reply::status(500));
    let moved = [1_000_000_007u128, 2_000_000_011];
    let original = dedust_reserves()[0];
    // The build reads the original reserves, round 1 the moved ones.
    r.script(
        &format!("get {} get_reserves", raw(DEDUST[0])),
        vec![
            replay::stack(vec![replay::num(original[0]), replay::num(original[1])]),
            replay::stack(vec![replay::num(moved[0]), replay::num(moved[1])]),
        ],
    );
    let (o, out) = sync(&dir, &base, &["--watch", "--rounds", "2", "--poll-ms", "10", "--attempts", "2"]);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("round 1: blocks 101..=102: 1 pools touched, 1 changed, 0 failed"), "{out}");
    // Round 1: the head, two block pages, DeDust pool 0's reserves and fee.
    assert!(out.contains("5 requests (0 retries, 0 failed calls)"), "{out}");
    assert!(out.contains("round 2: FAILED"), "{out}");
    assert!(
        out.contains("watched 2 rounds up to block 102: 1 pool changes, 1 failed rounds, 0 failed pool reads"),
        "{out}"
    );
    assert_eq!(reserves(&dir, DEDUST[0]), [moved[0].to_string(), moved[1].to_string()]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue #35 item 2: a sync that reads no pool's state is a failure, not `wrote live.json: 0 pools` with exit 0.
/// Three ways to read nothing, each answered with exit 2, every failed source named on the one `error:` line, and
/// the file as it was (not created when there was none, byte for byte when there was one):
/// - the lists answer, but every pool's chain state read fails (no previous file: every pool would be left out);
/// - the lists answer with no pool at all;
/// - with a previous file, every list and every read fails (only the previous states, read again from nowhere).
#[test]
fn a_sync_that_reads_nothing_fails_naming_each_source_and_keeps_the_file() {
    let failing_reads = |r: &Replay| {
        r.set(&format!("get {} get_pool_data", raw(V1_POOL)), Reply::status(500));
        r.set("accountStates", Reply::status(500));
        for d in DEDUST {
            r.set(&format!("get {} get_reserves", raw(d)), Reply::status(500));
            r.set(&format!("get {} get_trade_fee", raw(d)), Reply::status(500));
        }
    };
    // A sync that fails (exit 2) with one error line, which names each of `named`; returns the output.
    let failed_sync = |dir: &Path, base: &str, named: &[&str]| -> String {
        let (o, out) = sync(dir, base, &["--attempts", "2"]);
        assert_eq!(o.status.code(), Some(2), "{out}");
        let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("error:")).collect();
        assert_eq!(errors.len(), 1, "one error line: {out}");
        for name in named {
            assert!(errors[0].contains(name), "{name} not named: {}", errors[0]);
        }
        out
    };

    // Every read fails, no previous file: nothing is created.
    let r = healthy();
    failing_reads(&r);
    let (_rt, base) = serve(&r);
    let dir = scratch("sync-cli", "nothing-read");
    let out = failed_sync(
        &dir,
        &base,
        &["nothing written to live.json", "toncenter: the state of all 5 pools could not be read"],
    );
    assert!(!dir.join("live.json").exists(), "a file was written: {out}");

    // The lists hold no pool.
    let r = healthy();
    r.set("stonfi/pools", Reply::json(serde_json::json!({"pool_list": []})));
    r.set("dedust/pools", Reply::json(serde_json::json!([])));
    let (_rt2, base) = serve(&r);
    let out =
        failed_sync(&dir, &base, &["stonfi /v1/pools: 0 records, no pool", "dedust /v2/pools: 0 records, no pool"]);
    assert!(!dir.join("live.json").exists(), "a file was written: {out}");

    // A good file first; then every list and every read fails: each source named, the file byte for byte.
    let r = healthy();
    let (_rt3, base) = serve(&r);
    let (o, out) = sync(&dir, &base, &[]);
    assert!(o.status.success(), "{out}");
    let before = std::fs::read(dir.join("live.json")).unwrap();
    r.set("stonfi/pools", Reply::status(404));
    r.set("stonfi/routers", Reply::status(404));
    r.set("dedust/pools", Reply::text("[{\"truncated"));
    failing_reads(&r);
    failed_sync(
        &dir,
        &base,
        &["stonfi /v1/pools: HTTP 404", "stonfi /v1/routers: HTTP 404", "dedust /v2/pools", "toncenter:"],
    );
    assert_eq!(std::fs::read(dir.join("live.json")).unwrap(), before, "the previous snapshot changed");
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["live.json"], "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
