//! `tonroute sync --nats` (the built binary, as a user runs it) against the local replay of the exchanges and
//! toncenter (`tests/it/replay`) and a real `nats-server -js` (started by the test on a free loopback port with a
//! temporary store; the test FAILS when `nats-server` is not installed). Checked by an independent reader
//! (plain async-nats, not our publisher or replica): after the build the bucket holds every pool as a full
//! entry stamped with the build's block, with the reserves the replay serves; after a watch round it holds the
//! changed pool's new reserves stamped with the round's block, and nothing else was rewritten. A replica
//! (`tonroute serve --nats`) started on the build's file quotes the changed state exactly as a server loading
//! the final file does. An unreachable NATS server fails the command before anything is read or written.
#![cfg(all(feature = "sync", feature = "nats", feature = "server"))]

use crate::common;
use crate::replay;

use std::collections::BTreeMap;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::kv;
use common::bin::{spawn_serve_in, ServerGuard, TONROUTE};
use common::nats::NatsServer;
use futures_util::StreamExt;
use replay::payloads::*;
use replay::{block_of, head, raw, sync_command};
use serde_json::{json, Value};
use tonroute::feed::DEFAULT_BUCKET;
use tonroute::graph::PoolGraph;

/// The jetton DeDust pool 0 trades against TON (the only pool of the synced snapshot that has it).
const DEDUST0_JETTON: &str = "EQCIzSUwVaYwuK0iFraED--8awETZVC9VyLVzsXV9COW1RLs";

/// A sync process killed if the test ends early.
struct SyncGuard(Option<Child>);

impl SyncGuard {
    fn exited(&mut self) -> bool {
        self.0.as_mut().is_some_and(|c| c.try_wait().ok().flatten().is_some())
    }
    /// Waits (bounded) for the process to end; its exit status and stdout + stderr.
    fn finish(&mut self, limit: Duration) -> (std::process::ExitStatus, String, String) {
        let start = Instant::now();
        while !self.exited() {
            if start.elapsed() > limit {
                let _ = self.0.as_mut().map(Child::kill);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = self.0.take().expect("the process").wait_with_output().expect("its output");
        (out.status, String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
    }
}

impl Drop for SyncGuard {
    fn drop(&mut self) {
        if let Some(c) = &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// The pool's bucket key: the account id's 64 lowercase hex digits.
fn key(address: &str) -> String {
    raw(address).trim_start_matches("0:").to_string()
}

/// Every entry of the bucket, read by an independent client: key → (value, revision).
async fn entries(store: &kv::Store) -> BTreeMap<String, (Value, u64)> {
    let mut out = BTreeMap::new();
    let mut keys = store.keys().await.expect("listing the bucket's keys");
    while let Some(k) = keys.next().await {
        let k = k.expect("a key");
        let entry = store.entry(&k).await.expect("reading an entry").expect("the entry exists");
        let value = serde_json::from_slice(&entry.value).unwrap_or_else(|e| panic!("{k}: not JSON ({e})"));
        out.insert(k, (value, entry.revision));
    }
    out
}

/// Opens the bucket once `tonroute sync` has created it and written `pools` keys (bounded wait).
async fn bucket_with(url: &str, pools: usize, sync: &mut SyncGuard) -> kv::Store {
    let client = async_nats::connect(url).await.expect("connecting the independent reader");
    let js = async_nats::jetstream::new(client);
    let start = Instant::now();
    loop {
        if let Ok(store) = js.get_key_value(DEFAULT_BUCKET).await {
            if entries(&store).await.len() == pools {
                return store;
            }
        }
        if sync.exited() || start.elapsed() > Duration::from_secs(60) {
            let (status, out, err) = sync.finish(Duration::ZERO);
            panic!("the bucket never held {pools} pools (sync {status}):\n{out}\n{err}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn quote_body() -> String {
    json!({"in_minter": "native", "out_minter": format!("jetton:{}", raw(DEDUST0_JETTON)), "amount": "1000000000"})
        .to_string()
}

/// What a server loading `snapshot` answers (read back from JSON text, as a replica's answer is).
fn reference_quote(snapshot: &str) -> Value {
    let api = tonroute::api::Api::new(Arc::new(PoolGraph::from_json(snapshot).unwrap()));
    let text = serde_json::to_string(&api.quote(quote_body().as_bytes()).unwrap()).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn replica_quote(r: &ServerGuard) -> Value {
    let (status, body) = r.post("/v4/router/quote", &quote_body());
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

fn reserves_of(v: &Value) -> [u128; 2] {
    [int(&v["reserves"][0]), int(&v["reserves"][1])]
}

#[test]
fn sync_publishes_every_pool_then_what_each_round_changed() {
    let nats = NatsServer::start("sync");
    let url = nats.url();
    let r = healthy();
    // The build reads head 100; the watch waits at 100 until the test moves the head to 102.
    r.set("head", head(100));
    r.set("block 101", block_of(&[DEDUST[0]]));
    r.set("block 102", block_of(&["EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"]));
    let (_rt, base) = replay::serve(&r);
    let dir = common::scratch("sync-nats", "watch");
    let mut sync = SyncGuard(Some(
        sync_command(&dir, &base, &["--watch", "--rounds", "1", "--poll-ms", "10", "--nats", &url])
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{TONROUTE}: {e}")),
    ));

    // After the build: every pool as a full entry at block 100, with the reserves the chain (replay) gave.
    let rt = &_rt;
    let store = rt.block_on(bucket_with(&url, 5, &mut sync));
    let built = rt.block_on(entries(&store));
    let dedust = dedust_reserves();
    let (_, v1) = v1_stack();
    let expected: BTreeMap<String, [u128; 2]> = [
        (key(V2_POOL), [2_543_727_890_452, 1_727_085_023_286_242]),
        (key(V1_POOL), [int(&v1["sdk_expected"]["reserve0"]), int(&v1["sdk_expected"]["reserve1"])]),
        (key(DEDUST[0]), dedust[0]),
        (key(DEDUST[1]), dedust[1]),
        (key(DEDUST[2]), dedust[2]),
    ]
    .into_iter()
    .collect();
    assert_eq!(built.keys().collect::<Vec<_>>(), expected.keys().collect::<Vec<_>>());
    for (k, (value, _)) in &built {
        assert_eq!(value["address"], format!("0:{k}"), "{value}");
        assert_eq!(value["seqno"], 100, "{value}");
        assert_eq!(reserves_of(value), expected[k], "{k}: {value}");
    }
    let dedust0 = &built[&key(DEDUST[0])].0;
    let jetton = format!("jetton:{}", raw(DEDUST0_JETTON));
    assert!(
        dedust0["asset_entries"].as_array().is_some_and(|a| a.iter().any(|e| e["asset"] == jetton.as_str())),
        "a full entry carries its assets' entries: {dedust0}"
    );
    let build_file = std::fs::read_to_string(dir.join("live.json")).unwrap();
    std::fs::write(dir.join("build.json"), &build_file).unwrap();

    // Block 101 touches DeDust pool 0, whose reserves moved: one round, one reserves-only value at block 102.
    let moved = [56_045_095u128 + 1_000_000_000, 82_155_766_840_929_579_571_808 - 1_234_567_890_123_456_789];
    set_dedust(&r, 0, moved);
    r.set("head", head(102));
    let (status, out, err) = sync.finish(Duration::from_secs(60));
    assert!(status.success(), "{out}\n{err}");
    assert!(out.contains("published 5 pools to bucket tonroute-pools"), "{out}");
    assert!(out.contains("round 1: blocks 101..=102: 1 pools touched, 1 changed, 0 failed"), "{out}");
    assert!(out.contains("(block 102, last revision 6)"), "{out}");
    // The watch loop reports its rounds in the log (RUST_LOG=info).
    assert!(err.contains("sync: round") && err.contains("changed=1"), "{err}");
    let after = rt.block_on(entries(&store));
    let (value, revision) = &after[&key(DEDUST[0])];
    assert_eq!(value, &json!({"reserves": [moved[0].to_string(), moved[1].to_string()], "seqno": 102}));
    assert_eq!(*revision, 6);
    for (k, entry) in &after {
        if *k != key(DEDUST[0]) {
            assert_eq!(entry, &built[k], "{k} was not changed by the round, so not rewritten");
        }
    }

    // A replica started on the build's file follows the bucket and quotes the changed state exactly as a
    // server loading the file the round wrote.
    let final_file = std::fs::read_to_string(dir.join("live.json")).unwrap();
    let changed = reference_quote(&final_file);
    assert_ne!(changed, reference_quote(&build_file), "the move changes the quote");
    let replica = spawn_serve_in(&dir, &["--nats", &url, "--snapshot", "build.json"]);
    let start = Instant::now();
    while replica_quote(&replica) != changed {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the replica never quoted the changed state; last: {}\n{}",
            replica_quote(&replica),
            replica.stderr()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(replica);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unreachable_nats_fails_the_sync_before_anything_is_read_or_written() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("nats://127.0.0.1:{port}");
    let r = healthy();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let addr = rt.block_on(replay::start(r.clone()));
    let dir = common::scratch("sync-nats", "down");
    let o = sync_command(&dir, &format!("http://{addr}"), &["--nats", &url]).env("RUST_LOG", "info").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("error: publishing to NATS: cannot connect to NATS at {url}")), "{err}");
    assert!(!dir.join("live.json").exists(), "nothing is written");
    assert_eq!(r.hits("head") + r.hits("stonfi/pools") + r.hits("dedust/pools"), 0, "nothing is read");
    let _ = std::fs::remove_dir_all(&dir);
}
