//! The reserve stream against a real `nats-server -js` (started by the test on a free loopback port with a
//! temporary store; the test FAILS when `nats-server` is not installed).
//!
//! The library side: `Publisher` bootstraps a bucket from a snapshot, a `Replica` follows it into a
//! `LiveGraph`, changes are written by an independent client (plain async-nats, not our publisher), and the
//! graph is checked against the values written.
#![cfg(all(feature = "nats", feature = "server"))]

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_nats::jetstream::kv;
use common::nats::NatsServer;
use common::SNAPSHOT;
use tonroute::asset::Asset;
use tonroute::feed::{Publisher, Replica, ReplicaConfig, Stamp, StreamState, DEFAULT_BUCKET};
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::{LiveGraph, PoolGraph};
use tonroute::route::{QuoteRequest, Router};

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
    let request = QuoteRequest::new(Asset::parse(USDT).unwrap(), Asset::parse(JUSDT).unwrap(), 1_000_000_000);
    let reference = PoolGraph::from_json(&with_reserves(STABLE, ["900000000000", "700000000000"])).unwrap();
    let expected = Router::default().quote(&reference, &request).unwrap().out_amount;
    assert_eq!(Router::default().quote(&live.load(), &request).unwrap().out_amount, expected);

    // Bad values are counted and skipped, and change nothing.
    let skipped_before = stats.report(0).skipped_total;
    for (key, value) in [
        (STABLE, r#"{"reserves": ["0", "5"]}"#),
        (STABLE, r#"{"reserves": ["5"]}"#),
        (STABLE, "{not json"),
        (STABLE, r#"{"reserves": ["-5", "5"]}"#),
        (STABLE, r#"{"reserves": ["5", "5"], "seqno": 9}"#),
        ("0123", r#"{"reserves": ["5", "5"]}"#),
        ("abababababababababababababababababababababababababababababababab", r#"{"reserves": ["5", "5"]}"#),
    ] {
        kv.put(key, value.to_string().into()).await.unwrap();
    }
    wait_for("skips counted", Duration::from_secs(2), || stats.report(0).skipped_total == skipped_before + 7).await;
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
    let to_new = QuoteRequest::new(Asset::parse(USDT).unwrap(), Asset::parse(NEW_ASSET).unwrap(), 1_000_000);
    let quote = Router::default().quote(&live.load(), &to_new).unwrap();
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
    assert!(Router::default().quote(&live.load(), &to_new).is_err());
    assert_eq!(stats.report(0).applied.removed, 1);
    replica.stop().await;
}
