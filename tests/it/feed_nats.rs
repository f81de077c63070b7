//! The reserve stream against a real `nats-server -js` (started by the test on a free loopback port with a
//! temporary store; the test FAILS when `nats-server` is not installed).
//!
//! The library side: `Publisher` bootstraps a bucket from a snapshot, a `Replica` follows it into a
//! `LiveGraph`, changes are written by an independent client (plain async-nats, not our publisher), and the
//! graph is checked against the values written.
#![cfg(all(feature = "nats", feature = "server"))]

use crate::common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::kv;
use common::nats::NatsServer;
use common::SNAPSHOT;
use futures_util::TryStreamExt;
use tonroute::asset::Asset;
use tonroute::feed::{PoolChange, Publisher, Replica, ReplicaConfig, Stamp, StreamState, DEFAULT_BUCKET};
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::{LiveGraph, PoolGraph};
use tonroute::route::{QuoteOptions, QuoteRequest, Router};

/// The only pool trading jUSDT (USD₮/jUSDT stable swap): a quote into jUSDT goes through it alone.
const STABLE: &str = "e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1e1";
const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const JUSDT: &str = "jetton:0:5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee";
const NEW_POOL: &str = "f00df00df00df00df00df00df00df00df00df00df00df00df00df00df00df00d";
const NEW_ASSET: &str = "jetton:0:beefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeef";

/// An independent writer: plain async-nats on the bucket the publisher created.
async fn independent_writer(url: &str) -> kv::Store {
    let client = async_nats::connect(url).await.expect("connecting the independent writer");
    async_nats::jetstream::new(client).get_key_value(DEFAULT_BUCKET).await.expect("opening the bucket")
}

async fn wait_for(what: &str, limit: Duration, mut done: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "{what}: not within {limit:?}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    start.elapsed()
}

fn pool_address(key: &str) -> tonlib_core::TonAddress {
    tonroute::feed::value::parse_key(key).unwrap()
}

fn reserves(live: &LiveGraph, key: &str) -> Option<[u128; 2]> {
    let g = live.load();
    g.pool_id(&pool_address(key)).map(|id| g.reserves(id))
}

/// The test snapshot with one pool's reserves edited (the reference a stream change must reproduce).
fn with_reserves(key: &str, r: [&str; 2]) -> String {
    let mut snapshot: serde_json::Value = serde_json::from_str(SNAPSHOT).unwrap();
    let pools = snapshot["pools"].as_array_mut().unwrap();
    let pool = pools.iter_mut().find(|p| p["address"] == format!("0:{key}")).expect("pool in the snapshot");
    pool["reserves"] = serde_json::json!(r);
    snapshot.to_string()
}

fn new_pool_value(r: [&str; 2]) -> String {
    format!(
        r#"{{"address": "0:{NEW_POOL}", "protocol": "dex_b_v2", "curve": "constant_product",
             "assets": ["{USDT}", "{NEW_ASSET}"], "reserves": ["{}", "{}"], "lp_fee": 20, "protocol_fee": 10,
             "router": "0:0000000000000000000000000000000000000000000000000000000000000001",
             "asset_entries": [{{"asset": "{NEW_ASSET}", "symbol": "NEW", "decimals": 9}}], "seqno": 5}}"#,
        r[0], r[1]
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publisher_bootstraps_and_a_replica_follows_every_kind_of_change() {
    let server = NatsServer::start("lib");
    let snapshot = Snapshot::from_json(SNAPSHOT).unwrap();
    let publisher = Publisher::connect(&server.url(), DEFAULT_BUCKET).await.unwrap();
    let report = publisher.publish_snapshot(&snapshot, Stamp::default()).await.unwrap();
    assert_eq!((report.written, report.deleted), (snapshot.pools.len(), 0));

    let live = Arc::new(LiveGraph::from(snapshot.into_graph().unwrap()));
    let first = live.load();
    let replica = Replica::spawn(Arc::clone(&live), ReplicaConfig::new(&server.url())).unwrap();
    let stats = Arc::clone(replica.stats());
    wait_for("bootstrap", Duration::from_secs(20), || stats.state() == StreamState::Live).await;
    let r = stats.report(0);
    assert_eq!(r.applied.pools, 7, "{r:?}");
    assert_eq!(r.rebuilds, 0, "the same pools apply in place: {r:?}");
    assert!(Arc::ptr_eq(&first, &live.load()), "no rebuild, same graph");

    // A reserve change from an independent client reaches the replica.
    let kv = independent_writer(&server.url()).await;
    kv.put(STABLE, r#"{"reserves": ["900000000000", "700000000000"], "seqno": 10}"#.into()).await.unwrap();
    wait_for("reserve change", Duration::from_secs(1), || {
        reserves(&live, STABLE) == Some([900_000_000_000, 700_000_000_000])
    })
    .await;
    // …and the quote through that pool moves with it: the same answer as a graph built from a snapshot that has
    // those reserves.
    let request = QuoteRequest::new(Asset::parse(USDT).unwrap(), Asset::parse(JUSDT).unwrap(), 1_000_000_000).unwrap();
    let reference = PoolGraph::from_json(&with_reserves(STABLE, ["900000000000", "700000000000"])).unwrap();
    let expected = Router::default().quote(&reference, &request, QuoteOptions::default()).unwrap().out_amount;
    assert_eq!(Router::default().quote(&live.load(), &request, QuoteOptions::default()).unwrap().out_amount, expected);

    // Bad values are counted and skipped, and change nothing.
    let skipped_before = stats.report(0).skipped_total;
    for (i, (key, value)) in [
        (STABLE, r#"{"reserves": ["0", "5"]}"#),
        (STABLE, r#"{"reserves": ["5"]}"#),
        (STABLE, "{not json"),
        (STABLE, r#"{"reserves": ["-5", "5"]}"#),
        (STABLE, r#"{"reserves": ["5", "5"], "seqno": 9}"#),
        ("0123", r#"{"reserves": ["5", "5"]}"#),
        ("abababababababababababababababababababababababababababababababab", r#"{"reserves": ["5", "5"]}"#),
    ]
    .into_iter()
    .enumerate()
    {
        // One at a time: the bucket keeps one revision per key, so a replica that falls behind a burst of
        // puts to one key (a loaded machine) only ever sees the last, and a count of the burst would flake.
        kv.put(key, value.to_string().into()).await.unwrap();
        let want = skipped_before + i as u64 + 1;
        wait_for("skip counted", Duration::from_secs(2), || stats.report(0).skipped_total == want).await;
    }
    let skipped = stats.report(0).skipped;
    assert_eq!(
        (skipped["reserves"], skipped["json"], skipped["stale"], skipped["key"], skipped["unknown_pool"]),
        (3, 1, 1, 1, 1),
        "{skipped:?}"
    );
    assert_eq!(reserves(&live, STABLE), Some([900_000_000_000, 700_000_000_000]));

    // A new pool with a new asset appears in routing (one rebuild).
    kv.put(NEW_POOL, new_pool_value(["5000000000", "7000000000"]).into()).await.unwrap();
    wait_for("new pool", Duration::from_secs(2), || reserves(&live, NEW_POOL).is_some()).await;
    let to_new = QuoteRequest::new(Asset::parse(USDT).unwrap(), Asset::parse(NEW_ASSET).unwrap(), 1_000_000).unwrap();
    let quote = Router::default().quote(&live.load(), &to_new, QuoteOptions::default()).unwrap();
    assert!(quote.out_amount > 0);
    assert_eq!(stats.report(0).rebuilds, 1);
    // Reserves of the new pool now apply in place.
    kv.put(NEW_POOL, r#"{"reserves": ["5000000001", "6999999999"]}"#.into()).await.unwrap();
    wait_for("new pool reserves", Duration::from_secs(1), || {
        reserves(&live, NEW_POOL) == Some([5_000_000_001, 6_999_999_999])
    })
    .await;

    // A delete removes it from routing.
    kv.delete(NEW_POOL).await.unwrap();
    wait_for("delete", Duration::from_secs(2), || reserves(&live, NEW_POOL).is_none()).await;
    assert!(Router::default().quote(&live.load(), &to_new, QuoteOptions::default()).is_err());
    assert_eq!(stats.report(0).applied.removed, 1);
    replica.stop().await;
}

/// Every entry of the bucket, key → (revision, value; `None` for a delete marker), read back by an
/// independent client (the bucket keeps one entry per key).
async fn bucket_entries(url: &str) -> BTreeMap<String, (u64, Option<Vec<u8>>)> {
    let kv = independent_writer(url).await;
    let keys: Vec<String> = kv.keys().await.expect("listing keys").try_collect().await.expect("listing keys");
    let mut entries = BTreeMap::new();
    for key in keys {
        let entry = kv.entry(key.clone()).await.expect("reading an entry").expect("a listed key has an entry");
        let value = (entry.operation == kv::Operation::Put).then(|| entry.value.to_vec());
        entries.insert(key, (entry.revision, value));
    }
    entries
}

/// A stored value's `seqno` field, read as plain JSON (not through the stream code under test).
fn seqno_of(value: &Option<Vec<u8>>) -> Option<u64> {
    let value: Value = serde_json::from_slice(value.as_deref()?).ok()?;
    value["seqno"].as_u64()
}

/// The library's publisher (what `sync --nats` uses) refuses a batch when the bucket holds a newer value for
/// any of its pools, as replicas would (by seqno when both have one, else by time), and writes nothing of it;
/// an equal stamp, an unstamped value and a delete pass, as replicas apply them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publisher_refuses_a_batch_older_than_the_bucket_and_writes_nothing() {
    let server = NatsServer::start("older-lib");
    let snapshot = Snapshot::from_json(SNAPSHOT).unwrap();
    let publisher = Publisher::connect(&server.url(), DEFAULT_BUCKET).await.unwrap();
    let at = |seqno, time| Stamp { seqno, time };
    publisher.publish_snapshot(&snapshot, at(Some(10), None)).await.unwrap();
    let before = bucket_entries(&server.url()).await;
    assert_eq!(before.len(), snapshot.pools.len());
    assert!(before.values().all(|(_, v)| seqno_of(v) == Some(10)), "{before:?}");

    let err = publisher.publish_snapshot(&snapshot, at(Some(5), None)).await.unwrap_err();
    match &err {
        tonroute::feed::FeedError::Stale { pools, newest, stamp, .. } => {
            assert_eq!((*pools, *newest, *stamp), (snapshot.pools.len(), at(Some(10), None), at(Some(5), None)));
        }
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().ends_with("nothing published"), "{err}");
    assert_eq!(bucket_entries(&server.url()).await, before, "a refused publish wrote something");

    // One pool older, one newer, in one batch: refused whole, the newer one is not written either.
    let stable = pool_address(STABLE);
    let other = snapshot.pools.iter().find(|p| p.address != format!("0:{STABLE}")).unwrap();
    let other_address = tonroute::feed::value::parse_key(other.address.trim_start_matches("0:")).unwrap();
    let mixed = [
        PoolChange::Reserves { pool: stable.clone(), reserves: [5, 6], stamp: at(Some(11), None) },
        PoolChange::Reserves { pool: other_address.clone(), reserves: [5, 6], stamp: at(Some(9), None) },
    ];
    let err = publisher.publish_changes(&mixed).await.unwrap_err();
    assert!(matches!(err, tonroute::feed::FeedError::Stale { pools: 1, .. }), "{err:?}");
    assert_eq!(bucket_entries(&server.url()).await, before);

    // Stamps replicas apply: the same block, a value without a stamp, stamps sharing no field.
    for stamp in [at(Some(10), None), at(None, None), at(None, Some(1))] {
        let change = PoolChange::Reserves { pool: stable.clone(), reserves: [5, 6], stamp };
        assert_eq!(publisher.publish_changes(&[change]).await.unwrap().written, 1, "{stamp}");
    }
    // By time when the seqno is not on both: the bucket now holds `time 1` for the stable pool.
    let err = publisher
        .publish_changes(&[PoolChange::Reserves {
            pool: stable.clone(),
            reserves: [5, 6],
            stamp: at(Some(3), Some(0)),
        }])
        .await
        .unwrap_err();
    assert!(matches!(err, tonroute::feed::FeedError::Stale { pools: 1, .. }), "{err:?}");
    // A delete carries no stamp: applied by replicas in stream order, so never refused.
    let report = publisher.publish_changes(&[PoolChange::Remove { pool: other_address }]).await.unwrap();
    assert_eq!(report.deleted, 1);
}

/// Two publishers racing on the same pools (the bundled 1000-pool snapshot, both started at once, three
/// rounds): whatever the interleaving of one's check and the other's writes, every pool ends at the newer
/// stamp. Without the compare-and-set, the older publisher's writes that pass its check before the newer one
/// writes would land after it and move those pools back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_publishers_never_move_a_pool_back() {
    let server = NatsServer::start("race");
    let text = std::fs::read_to_string(repo().join("data/snapshot.json")).expect("the bundled snapshot");
    let snapshot = Snapshot::from_json(&text).unwrap();
    let (older, newer) = (
        Publisher::connect(&server.url(), DEFAULT_BUCKET).await.unwrap(),
        Publisher::connect(&server.url(), DEFAULT_BUCKET).await.unwrap(),
    );
    let mut outcomes = BTreeMap::<&str, usize>::new();
    for round in 1..=3u32 {
        let at = |seqno| Stamp { seqno: Some(seqno), time: None };
        let (old, new) = tokio::join!(
            older.publish_snapshot(&snapshot, at(100 * round + 1)),
            newer.publish_snapshot(&snapshot, at(100 * round + 2)),
        );
        let report = new.expect("the newer publish always goes through");
        assert_eq!(report.written, snapshot.pools.len());
        let outcome = match old {
            Ok(_) => "older first",
            Err(tonroute::feed::FeedError::Stale { .. }) => "older refused whole",
            Err(tonroute::feed::FeedError::Superseded { pools, written, .. }) => {
                assert_eq!(pools + written, snapshot.pools.len());
                "interleaved"
            }
            Err(e) => panic!("round {round}: {e}"),
        };
        *outcomes.entry(outcome).or_default() += 1;
        let entries = bucket_entries(&server.url()).await;
        assert_eq!(entries.len(), snapshot.pools.len());
        let back: Vec<(&String, Option<u64>)> = entries
            .iter()
            .map(|(key, (_, v))| (key, seqno_of(v)))
            .filter(|(_, seqno)| *seqno != Some(u64::from(100 * round + 2)))
            .collect();
        assert!(back.is_empty(), "round {round}: {} pools moved back, e.g. {:?}", back.len(), back.first());
    }
    eprintln!("older publisher's outcomes over 3 rounds: {outcomes:?}");
}

// ---------------------------------------------------------------------------------------------------------
// The binary: `tonroute publish` and replicas `tonroute serve --nats`, each a child process, checked over HTTP.

use common::bin::{repo, run_tonroute, spawn_serve, ServerGuard};
use serde_json::Value;

const TEST_SNAPSHOT: &str = "tests/data/api_snapshot.json";

fn quote_body(out: &str) -> String {
    format!(r#"{{"in_minter": "{USDT}", "out_minter": "{out}", "amount": "1000000000"}}"#)
}

/// `POST /v4/router/quote` → (status, JSON).
fn quote(replica: &ServerGuard, out: &str) -> (u16, Value) {
    let (status, body) = replica.post("/v4/router/quote", &quote_body(out));
    (status, serde_json::from_str(&body).unwrap_or_else(|e| panic!("quote answer is not JSON ({e}): {body}")))
}

/// The stream object of `/health`.
fn stream(replica: &ServerGuard) -> Value {
    let (status, body) = replica.get("/health");
    assert_eq!(status, 200, "{body}");
    let health: Value = serde_json::from_str(&body).unwrap();
    assert!(health["stream"].is_object(), "no stream in /health: {health}");
    health
}

/// What a server loading `snapshot` answers to the quote (the reference a replica must reproduce). Read back
/// from its JSON text like a replica's answer: serde_json's float parsing is not always correctly rounded, so
/// both sides go through the same text → value path and compare equal exactly when the texts agree.
fn reference_quote(snapshot: &str, out: &str) -> Value {
    let api = tonroute::api::Api::new(Arc::new(PoolGraph::from_json(snapshot).unwrap()));
    let text = serde_json::to_string(&api.quote(quote_body(out).as_bytes()).unwrap()).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn spawn_replica(url: &str) -> ServerGuard {
    spawn_serve(&["--nats", url, "--snapshot", TEST_SNAPSHOT])
}

fn publish(url: &str) {
    let out = run_tonroute(&repo(), &["publish", "--nats", url, "--snapshot", TEST_SNAPSHOT], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "publish failed: {stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("published 7 pools"), "{stdout}");
}

/// A snapshot without a pool is refused before NATS is contacted (the URL names a port nothing listens on): a
/// publish of nothing is not reported as done.
#[test]
fn publish_refuses_a_snapshot_without_pools() {
    let dir = std::env::temp_dir().join(format!("tonroute-publish-empty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.json");
    std::fs::write(&empty, r#"{"assets":[],"pools":[]}"#).unwrap();
    let url = format!("nats://127.0.0.1:{}", free_port());
    let out = run_tonroute(&repo(), &["publish", "--nats", &url, "--snapshot", empty.to_str().unwrap()], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("the snapshot has no pool; nothing was published"), "{stderr}");
    assert!(!stderr.contains("NATS"), "NATS was contacted: {stderr}");
    assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    std::fs::remove_dir_all(&dir).unwrap();
}

fn publish_at(url: &str, snapshot: &str, seqno: Option<&str>) -> std::process::Output {
    let mut args = vec!["publish", "--nats", url, "--snapshot", snapshot];
    if let Some(seqno) = seqno {
        args.extend(["--seqno", seqno]);
    }
    run_tonroute(&repo(), &args, None)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The audit's case, run as a user does: `publish --seqno 10`, then a moved snapshot with `--seqno 5`. The
/// second is refused (exit 2, how many pools, both stamps, "nothing published") and the bucket is exactly as
/// before, so a replica started afterwards agrees with the running ones. The same block and a newer one still
/// publish, and replicas apply them. A stale entry written past the check (by an independent client) is
/// logged by the replica with its blocks in words.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn publish_with_an_older_seqno_is_refused_and_the_bucket_is_unchanged() {
    let nats = NatsServer::start("older");
    let url = nats.url();
    let dir = std::env::temp_dir().join(format!("tonroute-publish-older-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let moved_snapshot = with_reserves(STABLE, ["900000000000", "700000000000"]);
    let moved_path = dir.join("moved.json");
    std::fs::write(&moved_path, &moved_snapshot).unwrap();
    let moved = moved_path.to_str().unwrap();
    let (original, changed) = (reference_quote(SNAPSHOT, JUSDT), reference_quote(&moved_snapshot, JUSDT));
    assert_ne!(original, changed);

    let out = publish_at(&url, TEST_SNAPSHOT, Some("10"));
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    let a = spawn_replica(&url);
    wait_all("bootstrap", &[&a], Duration::from_secs(30), is_live);
    assert_eq!(stream(&a)["stream"]["newest_seqno"], 10);
    let before = bucket_entries(&url).await;
    assert_eq!(before.len(), 7);

    let out = publish_at(&url, moved, Some("5"));
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}{stderr}", text(&out.stdout));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    // The line the README shows.
    assert_eq!(
        stderr.trim_end(),
        "error: publishing to NATS: bucket tonroute-pools already holds newer values for 7 of the pools to publish \
         (the bucket's newest: block 10; this publish: block 5); replicas would refuse these as stale; nothing \
         published"
    );
    assert_eq!(bucket_entries(&url).await, before, "the refused publish changed the bucket");
    // A replica started now loads what the running one has: they quote alike.
    let b = spawn_replica(&url);
    wait_all("late bootstrap", &[&b], Duration::from_secs(30), is_live);
    for r in [&a, &b] {
        assert_eq!(quote(r, JUSDT), (200, original.clone()));
        let health = stream(r);
        assert_eq!(health["stream"]["newest_seqno"], 10, "{health}");
        assert_eq!(health["stream"]["skipped"]["stale"], 0, "{health}");
    }

    // The same block: replicas apply it, so it is published.
    let out = publish_at(&url, moved, Some("10"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("published 7 pools"), "{}", text(&out.stdout));
    wait_all("same block applied", &[&a, &b], Duration::from_secs(5), |r| quote(r, JUSDT).1 == changed);
    // A newer block is published too, every value stamped with it.
    let out = publish_at(&url, TEST_SNAPSHOT, Some("11"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    wait_all("newer block applied", &[&a, &b], Duration::from_secs(5), |r| quote(r, JUSDT).1 == original);
    let after = bucket_entries(&url).await;
    assert_eq!(after.len(), 7);
    assert!(after.values().all(|(_, v)| seqno_of(v) == Some(11)), "{after:?}");

    // Written past the publisher by an independent client, a stale value is skipped and logged in words.
    let kv = independent_writer(&url).await;
    kv.put(STABLE, r#"{"reserves": ["900000000000", "700000000000"], "seqno": 5, "time": 1732190700}"#.into())
        .await
        .unwrap();
    wait_all("stale skipped", &[&a], Duration::from_secs(5), |r| stream(r)["stream"]["skipped"]["stale"] == 1);
    let log = a.stderr();
    // 1732190700 is 2024-11-21 12:05:00 UTC (`date -u -d @1732190700`).
    let line = "stale value (block 5 at 2024-11-21T12:05:00Z is older than the applied block 11)";
    assert!(log.contains(line), "`{line}` not in the replica's log:\n{log}");
    assert!(!log.contains("Stamp {"), "debug text in the log:\n{log}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Polls until `done` holds on every replica (bounded); returns how long it took.
fn wait_all(what: &str, replicas: &[&ServerGuard], limit: Duration, done: impl Fn(&ServerGuard) -> bool) -> Duration {
    let start = Instant::now();
    for r in replicas {
        while !done(r) {
            if start.elapsed() >= limit {
                let (_, health) = r.get("/health");
                panic!("{what}: not within {limit:?}\n/health: {health}\nreplica log:\n{}", r.stderr());
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    start.elapsed()
}

fn is_live(r: &ServerGuard) -> bool {
    stream(r)["stream"]["state"] == "live"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_agree_follow_bootstrap_and_survive_a_nats_restart() {
    let mut nats = NatsServer::start("replicas");
    let url = nats.url();
    publish(&url);
    let (a, b) = (spawn_replica(&url), spawn_replica(&url));
    wait_all("bootstrap", &[&a, &b], Duration::from_secs(30), is_live);
    let before = reference_quote(SNAPSHOT, JUSDT);
    assert_eq!(quote(&a, JUSDT), (200, before.clone()));
    assert_eq!(quote(&b, JUSDT), (200, before.clone()));

    // An independent client changes one pool; both replicas quote the new state within 1 s.
    let changed = reference_quote(&with_reserves(STABLE, ["900000000000", "700000000000"]), JUSDT);
    assert_ne!(changed, before);
    let kv = independent_writer(&url).await;
    let written = Instant::now();
    kv.put(STABLE, r#"{"reserves": ["900000000000", "700000000000"]}"#.into()).await.unwrap();
    wait_all("change on both replicas", &[&a, &b], Duration::from_secs(1), |r| quote(r, JUSDT).1 == changed);
    eprintln!("write → changed quote on both replicas: {:?}", written.elapsed());

    // A replica started after the change bootstraps to it.
    let c = spawn_replica(&url);
    wait_all("late bootstrap", &[&c], Duration::from_secs(30), is_live);
    assert_eq!(quote(&c, JUSDT), (200, changed.clone()));
    drop(c);

    // NATS goes away: both keep answering from their last state and report the stream down.
    nats.stop();
    wait_all("stream down", &[&a, &b], Duration::from_secs(10), |r| stream(r)["stream"]["state"] == "down");
    std::thread::sleep(Duration::from_millis(50));
    for r in [&a, &b] {
        assert_eq!(quote(r, JUSDT), (200, changed.clone()));
        let health = stream(r);
        assert_eq!(health["status"], "degraded", "{health}");
        assert_eq!(health["stream"]["up"], false, "{health}");
        assert!(health["stream"]["state_age_ms"].as_u64().is_some_and(|age| age >= 50), "{health}");
    }

    // Back on the same port with the same store: both reconnect, and a new change reaches both.
    nats.restart();
    wait_all("reconnect", &[&a, &b], Duration::from_secs(30), is_live);
    let again = reference_quote(&with_reserves(STABLE, ["650000000000", "950000000000"]), JUSDT);
    let kv = independent_writer(&url).await;
    kv.put(STABLE, r#"{"reserves": ["650000000000", "950000000000"]}"#.into()).await.unwrap();
    wait_all("change after restart", &[&a, &b], Duration::from_secs(1), |r| quote(r, JUSDT).1 == again);
    for r in [&a, &b] {
        let health = stream(r);
        assert_eq!(health["status"], "ok", "{health}");
        assert_eq!(health["stream"]["state_age_ms"], 0, "{health}");
        assert!(health["stream"]["reconnects"].as_u64().is_some_and(|n| n >= 1), "{health}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_skip_bad_values_and_follow_new_and_deleted_pools() {
    let nats = NatsServer::start("pools");
    let url = nats.url();
    publish(&url);
    let (a, b) = (spawn_replica(&url), spawn_replica(&url));
    wait_all("bootstrap", &[&a, &b], Duration::from_secs(30), is_live);
    let kv = independent_writer(&url).await;

    // Bad values: logged, counted by reason, skipped; quotes unchanged.
    let before = reference_quote(SNAPSHOT, JUSDT);
    for (i, (key, value)) in [
        (STABLE, r#"{"reserves": ["0", "5"]}"#),
        (STABLE, r#"{"reserves": ["-1", "5"]}"#),
        (STABLE, r#"{"reserves": ["5", "5", "5"]}"#),
        (STABLE, "]"),
        ("abababababababababababababababababababababababababababababababab", r#"{"reserves": ["5", "5"]}"#),
    ]
    .into_iter()
    .enumerate()
    {
        // One at a time, as above: the bucket keeps one revision per key.
        kv.put(key, value.to_string().into()).await.unwrap();
        let want = i + 1;
        wait_all("skip counted", &[&a, &b], Duration::from_secs(2), |r| stream(r)["stream"]["skipped_total"] == want);
    }
    for r in [&a, &b] {
        let health = stream(r);
        let skipped = &health["stream"]["skipped"];
        assert_eq!(
            (&skipped["reserves"], &skipped["json"], &skipped["unknown_pool"]),
            (&3.into(), &1.into(), &1.into())
        );
        assert_eq!(quote(r, JUSDT), (200, before.clone()));
        assert!(r.stderr().contains("entry skipped"), "the skip is logged:\n{}", r.stderr());
    }

    // A new pool (with its new asset) appears in routing on both.
    let (status, body) = quote(&a, NEW_ASSET);
    assert_ne!(status, 200, "{body}");
    kv.put(NEW_POOL, new_pool_value(["5000000000", "7000000000"]).into()).await.unwrap();
    wait_all("new pool", &[&a, &b], Duration::from_secs(2), |r| quote(r, NEW_ASSET).0 == 200);
    for r in [&a, &b] {
        let (_, q) = quote(r, NEW_ASSET);
        let pool = &q["swap_data"]["routes"][0][0]["pool_address"];
        assert_eq!(pool.as_str(), Some(&format!("0:{NEW_POOL}")[..]), "{q}");
        assert_eq!(stream(r)["pools"], 8);
    }

    // A delete removes it.
    kv.delete(NEW_POOL).await.unwrap();
    wait_all("delete", &[&a, &b], Duration::from_secs(2), |r| quote(r, NEW_ASSET).0 != 200);
    for r in [&a, &b] {
        assert_eq!(stream(r)["pools"], 7);
        assert_eq!(quote(r, JUSDT), (200, before.clone()), "the other pools are untouched");
    }
}

// ---------------------------------------------------------------------------------------------------------
// The README's local demo, run line by line as written, with the built binary.

/// The README's stream demo: `nats-server … &` starts a real server (on a free port and a scratch store
/// instead of 4222, which the later lines are rewritten to), `cargo run … -- ARGS` lines run the built binary
/// (`serve … &` as child processes on free ports standing in for 8080 and 8081), the other lines run in
/// `bash` in a scratch directory that sees the source tree's `data/`. Between lines the test waits (bounded)
/// until both replicas have applied what the last `publish` wrote, as a user typing the next line would
/// find. Then: both replicas follow the stream and answer the README's quote from the moved reserves, exactly
/// as a server loading the moved snapshot does.
#[test]
fn readme_stream_demo_runs_as_written() {
    let lines = common::readme::block("nats-server -js");
    let dir = std::env::temp_dir().join(format!("tonroute-readme-nats-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    std::os::unix::fs::symlink(repo().join("data"), dir.join("data")).expect("linking data/");
    let mut nats: Option<NatsServer> = None;
    let mut replicas: Vec<ServerGuard> = Vec::new();
    let mut published_revision = 0u64;
    let mut outputs: Vec<(String, String)> = Vec::new();
    for line in &lines {
        if let Some(server) = line.strip_prefix("nats-server ") {
            assert!(
                server.contains("-js") && line.ends_with('&'),
                "the demo starts JetStream in the background: {line}"
            );
            nats = Some(NatsServer::start("readme"));
            continue;
        }
        let server = nats.as_ref().expect("the demo starts nats-server first");
        let mut line = common::readme::as_binary(line).replace("127.0.0.1:4222", &format!("127.0.0.1:{}", server.port));
        for (readme_port, replica) in ["8080", "8081"].iter().zip(&replicas) {
            for host in ["localhost", "127.0.0.1"] {
                line = line.replace(&format!("{host}:{readme_port}"), &replica.addr.to_string());
            }
        }
        if let Some(cmd) = line.strip_suffix('&') {
            let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
            assert_eq!(args.first(), Some(&"serve"), "background line that is not `serve`: {line}");
            replicas.push(common::bin::spawn_serve_in(&dir, &args[1..]));
            continue;
        }
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("set -eo pipefail\n{line}"))
            .current_dir(&dir)
            .env("TONROUTE", common::bin::TONROUTE)
            .output()
            .unwrap_or_else(|e| panic!("bash is needed to run the README's lines: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "README line failed ({}): {line}\nstderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        if line.contains(" publish ") {
            published_revision = stdout
                .split("last revision ")
                .nth(1)
                .and_then(|r| r.trim().trim_end_matches(')').parse().ok())
                .unwrap_or_else(|| panic!("publish does not say its last revision: {stdout}"));
            let caught_up = |r: &ServerGuard| stream(r)["stream"]["revision"].as_u64() >= Some(published_revision);
            let replicas: Vec<&ServerGuard> = replicas.iter().collect();
            wait_all("replicas apply the publish", &replicas, Duration::from_secs(30), |r| caught_up(r) && is_live(r));
        }
        outputs.push((line, stdout));
    }
    assert_eq!(replicas.len(), 2, "the demo runs two replicas");
    assert!(published_revision > 0, "the demo publishes");
    // The README's quote, against a server loading the moved snapshot the demo published.
    let (quote_line, answer) =
        outputs.iter().find(|(l, _)| l.contains("/v4/router/quote")).expect("the demo quotes on a replica");
    let body = quote_line.split("-d '").nth(1).and_then(|b| b.strip_suffix('\'')).expect("the quote's -d body");
    let moved = std::fs::read_to_string(dir.join("moved.json")).expect("the demo writes moved.json");
    let api = tonroute::api::Api::new(Arc::new(PoolGraph::from_json(&moved).unwrap()));
    let text = serde_json::to_string(&api.quote(body.as_bytes()).unwrap()).unwrap();
    let expected: Value = serde_json::from_str(&text).unwrap();
    let original = tonroute::api::Api::new(Arc::new(
        PoolGraph::from_json(&std::fs::read_to_string(repo().join("data/snapshot.json")).unwrap()).unwrap(),
    ));
    let before: Value =
        serde_json::from_str(&serde_json::to_string(&original.quote(body.as_bytes()).unwrap()).unwrap()).unwrap();
    assert_ne!(expected["out_amount"], before["out_amount"], "the demo's move changes the quote");
    let answer: Value =
        serde_json::from_str(answer).unwrap_or_else(|e| panic!("quote answer is not JSON ({e}): {answer}"));
    assert_eq!(answer, expected);
    for r in &replicas {
        let (status, text) = r.post("/v4/router/quote", body);
        assert_eq!(status, 200, "{text}");
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), expected);
        let health = stream(r);
        assert_eq!(health["status"], "ok", "{health}");
        assert_eq!(health["stream"]["skipped_total"], 0, "{health}");
    }
    // The README's `curl …/health` right after the second replica started: it opened its port once live.
    let health = outputs.iter().find(|(l, _)| l.contains("/health")).map(|(_, o)| o.clone()).unwrap_or_default();
    let health: Value = serde_json::from_str(&health).unwrap_or_else(|e| panic!("/health is not JSON ({e}): {health}"));
    assert_eq!((&health["status"], &health["stream"]["state"]), (&"ok".into(), &"live".into()), "{health}");
    drop(replicas);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------------------------------------------------
// The stream's series in the replica's Prometheus metrics (`GET /metrics`), over real HTTP.

/// The value of the series line `series` (name with its labels, as rendered) in a `/metrics` text.
fn series(text: &str, series: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.trim().parse().ok())
}

fn scrape(r: &ServerGuard) -> String {
    let (status, text) = r.get("/metrics");
    assert_eq!(status, 200, "{text}");
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_applied_and_skipped_entries_and_show_the_stream_down() {
    let mut nats = NatsServer::start("metrics");
    let url = nats.url();
    publish(&url);
    let replica = spawn_replica(&url);
    wait_all("bootstrap", &[&replica], Duration::from_secs(30), is_live);
    let before = scrape(&replica);
    assert_eq!(series(&before, "tonroute_stream_up"), Some(1.0), "{before}");
    assert_eq!(series(&before, "tonroute_stream_state_age_seconds"), Some(0.0), "{before}");
    // The bootstrap applied the 7 published pools as full entries.
    assert_eq!(series(&before, "tonroute_stream_entries_applied_total{kind=\"pool\"}"), Some(7.0), "{before}");
    let applied = series(&before, "tonroute_stream_entries_applied_total{kind=\"reserves\"}").expect("applied series");
    let skipped = series(&before, "tonroute_stream_entries_skipped_total{reason=\"reserves\"}").expect("skip series");
    let revision = series(&before, "tonroute_stream_revision").expect("revision series");

    // One good value, one bad (a zero reserve), from an independent client.
    let kv = independent_writer(&url).await;
    // One at a time: the bucket keeps one revision per key, so a replica behind a burst sees only the last.
    kv.put(STABLE, r#"{"reserves": ["900000000000", "700000000000"], "seqno": 10}"#.into()).await.unwrap();
    wait_all("good value handled", &[&replica], Duration::from_secs(5), |r| {
        series(&scrape(r), "tonroute_stream_revision") == Some(revision + 1.0)
    });
    kv.put(STABLE, r#"{"reserves": ["0", "700000000000"], "seqno": 11}"#.into()).await.unwrap();
    wait_all("both handled", &[&replica], Duration::from_secs(5), |r| {
        series(&scrape(r), "tonroute_stream_revision") == Some(revision + 2.0)
    });
    let after = scrape(&replica);
    assert_eq!(
        series(&after, "tonroute_stream_entries_applied_total{kind=\"reserves\"}"),
        Some(applied + 1.0),
        "{after}"
    );
    assert_eq!(
        series(&after, "tonroute_stream_entries_skipped_total{reason=\"reserves\"}"),
        Some(skipped + 1.0),
        "{after}"
    );
    for reason in ["json", "key", "stale", "unknown_pool"] {
        let line = format!("tonroute_stream_entries_skipped_total{{reason=\"{reason}\"}}");
        assert_eq!(series(&after, &line), series(&before, &line), "{line}: {after}");
    }
    assert!(series(&after, "tonroute_stream_last_update_age_seconds").is_some_and(|age| age >= 0.0), "{after}");

    // NATS goes away: the gauge reads down and the state ages.
    nats.stop();
    wait_all("stream down", &[&replica], Duration::from_secs(10), |r| {
        series(&scrape(r), "tonroute_stream_up") == Some(0.0)
    });
    std::thread::sleep(Duration::from_millis(50));
    let down = scrape(&replica);
    assert!(series(&down, "tonroute_stream_state_age_seconds").is_some_and(|age| age >= 0.05), "{down}");
    assert!(series(&down, "tonroute_stream_reconnects_total").is_some_and(|n| n >= 1.0), "{down}");
}

// ---------------------------------------------------------------------------------------------------------
// `serve --nats` at start: NATS down (reported `down` after a bounded wait, logged once with the URL and the
// reason, retried until it is up), and NATS up (the port opens once the replica is live, so `/health` is `ok`
// from its first answer).

/// A loopback port nothing listens on (bound by the kernel's choice, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn serve_with_nats_down_reports_down_logs_the_url_once_and_follows_when_it_comes_up() {
    let port = free_port();
    let url = format!("nats://127.0.0.1:{port}");
    let started = Instant::now();
    // As a user starts it: the default wait (`--nats-wait-ms 5000`).
    let replica = spawn_serve(&["--nats", &url, "--snapshot", TEST_SNAPSHOT]);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(5), "listened after {waited:?}:\n{}", replica.stderr());
    // The reason is logged before the port opens: the log up to the announcement already says why.
    let log = replica.stderr();
    let (down, listening) = (log.find("stream: down"), log.find("on http://"));
    assert!(down.is_some() && down < listening, "the down line comes before the listening line:\n{log}");
    // From the first answer on: down (not `connecting` forever), degraded, quoting on the snapshot.
    let health = stream(&replica);
    assert_eq!(
        (&health["status"], &health["stream"]["state"], &health["stream"]["up"]),
        (&"degraded".into(), &"down".into(), &false.into()),
        "{health}"
    );
    assert_eq!(quote(&replica, JUSDT), (200, reference_quote(SNAPSHOT, JUSDT)));
    let metrics = scrape(&replica);
    for (state, value) in [("down", 1.0), ("connecting", 0.0), ("live", 0.0), ("catching_up", 0.0)] {
        let line = format!("tonroute_stream_state{{state=\"{state}\"}}");
        assert_eq!(series(&metrics, &line), Some(value), "{line}:\n{metrics}");
    }
    assert_eq!(series(&metrics, "tonroute_stream_up"), Some(0.0), "{metrics}");
    // Three more seconds of retries (at least six attempts): the log names the URL and the reason, and says it
    // once when the first attempt fails and once when the stream goes down, not once a second.
    std::thread::sleep(Duration::from_secs(3));
    let log = replica.stderr();
    let about: Vec<&str> = log.lines().filter(|l| l.contains(&url) && l.contains("Connection refused")).collect();
    assert_eq!(about.len(), 2, "{log}");
    assert!(about[0].contains("cannot connect to NATS") && about[0].contains("WARN"), "{log}");
    assert!(about[1].contains("stream: down") && about[1].contains("ERROR"), "{log}");
    assert!(!log.contains("async_nats") && !log.contains("client error"), "the client's own per-attempt lines: {log}");
    // NATS comes up on that port: the replica (still retrying) connects, catches up and goes live.
    let nats = NatsServer::start_on("late", port);
    publish(&nats.url());
    wait_all("live once NATS is up", &[&replica], Duration::from_secs(30), is_live);
    let health = stream(&replica);
    assert_eq!(health["status"], "ok", "{health}");
    assert_eq!(health["stream"]["applied"]["pools"], 7, "{health}");
    assert_eq!(quote(&replica, JUSDT), (200, reference_quote(SNAPSHOT, JUSDT)));
}

#[test]
fn serve_with_nats_opens_its_port_once_live_so_health_is_ok_from_the_first_answer() {
    let nats = NatsServer::start("ready");
    let url = nats.url();
    // The bundled snapshot (1,000 pools) in the bucket: a bootstrap that takes a while in a debug build.
    let out = run_tonroute(&repo(), &["publish", "--nats", &url], None);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    let last: u64 = stdout
        .split("last revision ")
        .nth(1)
        .and_then(|r| r.trim().trim_end_matches(')').parse().ok())
        .unwrap_or_else(|| panic!("publish does not say its last revision: {stdout}"));
    for _ in 0..3 {
        // A generous wait: a debug build on a loaded machine may take seconds to apply 1,000 entries.
        let replica = spawn_serve(&["--nats", &url, "--snapshot", "data/snapshot.json", "--nats-wait-ms", "60000"]);
        let health = stream(&replica);
        assert_eq!((&health["status"], &health["stream"]["state"]), (&"ok".into(), &"live".into()), "{health}");
        assert_eq!(health["stream"]["revision"], last, "{health}");
        let log = replica.stderr();
        let (live, serving) = (log.find("stream live at revision"), log.find("on http://"));
        assert!(live.is_some() && live < serving, "live before listening:\n{log}");
    }
}
