//! `tonroute::sync` against a local replay of the exchanges' APIs and toncenter (`tests/it/replay`), with faults
//! injected: 429 with `Retry-After`, 5xx, timeouts, malformed JSON, a truncated BOC. Checked: what every pool
//! reads to (against the recorded payloads' own values, not our output), the requests per endpoint and the
//! retries, that a failed pool keeps its last good state, and that watching re-reads only the pools a block
//! touched.
//!
//! Payloads: `tests/it/replay/payloads.rs` says which are recorded and which are built from recorded ones.
#![cfg(all(feature = "sync", feature = "server"))]

use crate::replay;

use std::time::Duration;

use base64::Engine as _;
use primitive_types::U256;
use replay::payloads::*;
use replay::{account, block_of, head, num, raw, stack, Reply};
use serde_json::json;
use tonroute::asset::Asset;
use tonroute::graph::snapshot::Snapshot;
use tonroute::route::{QuoteOptions, QuoteRequest, Router};
use tonroute::sync::config::{ApiKey, Endpoints, Limits, Sources, SyncConfig};
use tonroute::sync::http::Endpoint;
use tonroute::sync::publish::PoolChange;
use tonroute::sync::watch::Watcher;
use tonroute::sync::Syncer;

/// The per-attempt timeout of every test but the one about timeouts. It is a stopwatch on the whole round trip,
/// fake server included, and the replay runs on the test's own runtime thread: on a loaded machine that thread
/// can wait its turn for longer than half a second while an answer is due, and the client then rightly gives up
/// and retries an answer that was ready (one `masterchainInfo` retry in a suite run beside two builds), breaking
/// the exact request counts. The product's default (20 s): far above any stall.
const TIMEOUT: Duration = Duration::from_secs(20);

fn config(addr: std::net::SocketAddr) -> SyncConfig {
    config_with_timeout(addr, TIMEOUT)
}

fn config_with_timeout(addr: std::net::SocketAddr, timeout: Duration) -> SyncConfig {
    SyncConfig {
        endpoints: Endpoints::all_at(&format!("http://{addr}")),
        api_key: ApiKey::new("test-key-123"),
        limits: Limits {
            rate: 1000.0,
            burst: 100,
            attempts: 5,
            backoff_base: Duration::from_millis(20),
            backoff_max: Duration::from_millis(100),
            retry_after_max: Duration::from_secs(5),
            timeout,
            concurrency: 4,
        },
        sources: Sources { stonfi: true, dedust: true, tonco: false },
        ..SyncConfig::default()
    }
}

fn pool<'a>(s: &'a Snapshot, address: &str) -> Option<&'a tonroute::graph::snapshot::SnapshotPool> {
    let raw = raw(address);
    s.pools.iter().find(|p| p.address == raw)
}

fn reserves(s: &Snapshot, address: &str) -> [u128; 2] {
    let p = pool(s, address).unwrap_or_else(|| panic!("{address} not in the snapshot"));
    [p.reserves[0].parse().unwrap(), p.reserves[1].parse().unwrap()]
}

#[tokio::test]
async fn build_reads_every_pool_from_the_chain_and_quotes_like_the_contract() {
    let r = healthy();
    let addr = replay::start(r.clone()).await;
    let syncer = Syncer::new(config(addr)).unwrap();
    let (live, report) = syncer.build(None).await.unwrap();
    let s = live.snapshot();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!((report.refreshed, report.kept, report.dropped, report.seqno), (5, 0, 0, 100));
    assert_eq!(s.pools.len(), 5);

    // The v2 pool's real data cell, as ORIGINS.md decodes it; its router wallets from the same cell.
    assert_eq!(reserves(s, V2_POOL), [2_543_727_890_452, 1_727_085_023_286_242]);
    let v2 = pool(s, V2_POOL).unwrap();
    assert_eq!((v2.lp_fee, v2.protocol_fee), (20, 10));
    assert_eq!(v2.router.as_deref(), Some(raw("EQCS4UEa5UaJLzOyyKieqQOQ2P9M-7kXpkO5HnP3Bv250cN3").as_str()));
    // The v1 pool's recorded stack, as the SDK expected it.
    let (_, v1) = v1_stack();
    let e = &v1["sdk_expected"];
    assert_eq!(reserves(s, V1_POOL), [int(&e["reserve0"]), int(&e["reserve1"])]);
    let wallets = pool(s, V1_POOL).unwrap().router_wallets.clone().unwrap();
    assert_eq!(
        wallets,
        [raw(e["token0WalletAddress"].as_str().unwrap()), raw(e["token1WalletAddress"].as_str().unwrap())]
    );
    for (i, want) in dedust_reserves().into_iter().enumerate() {
        assert_eq!(reserves(s, DEDUST[i]), want);
    }

    // One request per list, one head, one accountStates batch for the v2 pool, one get-method for the v1
    // pool and two per DeDust pool; no retries.
    let count = |e: Endpoint| report.requests.get(&e).map(|c| (c.sent, c.retries, c.failed));
    assert_eq!(count(Endpoint::DexBPools), Some((1, 0, 0)));
    assert_eq!(count(Endpoint::DexBRouters), Some((1, 0, 0)));
    assert_eq!(count(Endpoint::DexBAssets), Some((1, 0, 0)));
    assert_eq!(count(Endpoint::DexAPools), Some((1, 0, 0)));
    assert_eq!(count(Endpoint::MasterchainInfo), Some((1, 0, 0)));
    assert_eq!(count(Endpoint::AccountStates), Some((1, 0, 0)));
    assert_eq!(count(Endpoint::RunGetMethod), Some((7, 0, 0)));
    assert_eq!(r.hits("accountStates"), 1);

    // The key goes to toncenter in a header, never to the exchanges, never in a URL.
    let headers = r.headers();
    assert_eq!(headers.iter().filter(|h| h.get("x-api-key").is_some_and(|v| v == "test-key-123")).count(), 1 + 1 + 7);
    assert!(r.urls().iter().all(|u| !u.contains("test-key")));

    // A quote on the synced pool pays what STON.fi v2's constant-product formula gives on the chain's reserves
    // (research 04 §2a: LP fee from the input, one floor division, protocol fee from the output rounded up).
    let graph = s.into_graph().unwrap();
    let req =
        QuoteRequest::builder(Asset::parse(USDT).unwrap(), Asset::Native, 100_000_000).max_splits(1).build().unwrap();
    let q = Router::default().quote(&graph, &req, QuoteOptions::default()).unwrap();
    let (r_in, r_out) = (2_543_727_890_452u128, 1_727_085_023_286_242u128);
    let aif = U256::from(100_000_000u128) * U256::from(10_000 - 20);
    let base = (aif * U256::from(r_out) / (U256::from(r_in) * U256::from(10_000u32) + aif)).as_u128();
    assert_eq!(q.out_amount, base - (base * 10).div_ceil(10_000));
}

#[tokio::test]
async fn retry_after_is_honoured_and_server_errors_back_off() {
    let r = healthy();
    let v1_key = format!("get {} get_pool_data", raw(V1_POOL));
    r.script(&v1_key, vec![Reply::throttled("1"), Reply::throttled("1"), v1_stack().0]);
    let reserves_key = format!("get {} get_reserves", raw(DEDUST[1]));
    let want = dedust_reserves()[1];
    r.script(&reserves_key, vec![Reply::status(502), Reply::status(500), stack(vec![num(want[0]), num(want[1])])]);
    let addr = replay::start(r.clone()).await;
    let syncer = Syncer::new(config(addr)).unwrap();
    let (live, report) = syncer.build(None).await.unwrap();
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(r.hits(&v1_key), 3, "two 429s, then the answer");
    let times = r.times(&v1_key);
    for pair in times.windows(2) {
        assert!(pair[1] - pair[0] >= Duration::from_millis(990), "a retry came before Retry-After: {times:?}");
    }
    assert_eq!(r.hits(&reserves_key), 3, "502, 500, then the answer");
    let get = report.requests[&Endpoint::RunGetMethod];
    assert_eq!((get.sent, get.retries, get.failed), (7 + 4, 4, 0));
    assert_eq!(reserves(live.snapshot(), DEDUST[1]), want);
}

#[tokio::test]
async fn a_timeout_is_retried() {
    // One answer that never comes in time (a minute late), every other one prompt. The timeout is short enough
    // to keep the test quick and long enough that a loaded machine's stall does not time out a prompt answer
    // too (which would add a retry the count below does not expect).
    let (timeout, late) = (Duration::from_secs(5), Duration::from_secs(60));
    let r = healthy();
    let key = format!("get {} get_trade_fee", raw(DEDUST[2]));
    r.script(&key, vec![stack(vec![num(25), num(10_000)]).delayed(late), stack(vec![num(25), num(10_000)])]);
    let addr = replay::start(r.clone()).await;
    let started = std::time::Instant::now();
    let (live, report) = Syncer::new(config_with_timeout(addr, timeout)).unwrap().build(None).await.unwrap();
    assert!(started.elapsed() >= timeout, "the late answer was waited for {:?}", started.elapsed());
    assert!(report.failed.is_empty(), "{:?}", report.failed);
    assert_eq!(r.hits(&key), 2);
    assert_eq!(report.requests[&Endpoint::RunGetMethod].retries, 1);
    assert_eq!(pool(live.snapshot(), DEDUST[2]).unwrap().lp_fee, 25);
}

#[tokio::test]
async fn failed_pools_keep_their_last_good_state() {
    // A first build: every pool good.
    let r = healthy();
    let addr = replay::start(r.clone()).await;
    let syncer = Syncer::new(config(addr)).unwrap();
    let (first, _) = syncer.build(None).await.unwrap();
    let previous = first.snapshot().clone();

    // The chain moves: DeDust pool 0 changes reserves. Then faults on four pools: malformed JSON (v1), a
    // truncated data cell (v2), a 500 every time (DeDust 1), an exit code (DeDust 2).
    let moved = [1_000_000_007, 2_000_000_011];
    set_dedust(&r, 0, moved);
    let v1_key = format!("get {} get_pool_data", raw(V1_POOL));
    r.set(&v1_key, Reply::text(r#"{"gas_used": 1, "exit_code": 0, "stack": [{"type": "num", "#));
    let boc = base64::engine::general_purpose::STANDARD.decode(v2_data_boc()).unwrap();
    let cut = base64::engine::general_purpose::STANDARD.encode(&boc[..boc.len() / 2]);
    r.set(&format!("state {}", raw(V2_POOL)), account(V2_POOL, &cut));
    let failing = format!("get {} get_reserves", raw(DEDUST[1]));
    r.set(&failing, Reply::status(500));
    r.set(
        &format!("get {} get_reserves", raw(DEDUST[2])),
        Reply::json(json!({"gas_used": 1, "exit_code": -13, "stack": []})),
    );
    r.reset_hits();

    let (second, report) = syncer.build(Some(&previous)).await.unwrap();
    let s = second.snapshot();
    let failed: Vec<String> = report.failed.iter().map(|f| f.address.clone()).collect();
    let mut want: Vec<String> = [V1_POOL, V2_POOL, DEDUST[1], DEDUST[2]].iter().map(|a| raw(a)).collect();
    want.sort();
    assert_eq!(failed, want, "{:?}", report.failed);
    assert_eq!((report.kept, report.dropped, report.refreshed), (4, 0, 1));
    // Not retried: a body that is not JSON, a cell that does not decode, an exit code. Retried: the 500s.
    assert_eq!(r.hits(&v1_key), 1);
    assert_eq!(r.hits("accountStates"), 1);
    assert_eq!(r.hits(&failing), 5, "every attempt");
    // The failed pools read as before; the good one moved.
    for a in [V1_POOL, V2_POOL, DEDUST[1], DEDUST[2]] {
        assert_eq!(reserves(s, a), reserves(&previous, a), "{a}");
    }
    assert_eq!(reserves(s, DEDUST[0]), moved);
    let text = report.failed.iter().map(|f| f.error.to_string()).collect::<Vec<_>>().join("\n");
    assert!(text.contains("not JSON") && text.contains("bad bag of cells") && text.contains("exit code -13"), "{text}");

    // Without a previous snapshot the same failures leave those pools out.
    let (third, report) = syncer.build(None).await.unwrap();
    assert_eq!((report.kept, report.dropped), (0, 4));
    assert_eq!(third.snapshot().pools.len(), 1);
}

#[tokio::test]
async fn no_list_at_all_is_an_error_and_a_missing_list_keeps_its_pools() {
    let r = healthy();
    let addr = replay::start(r.clone()).await;
    let syncer = Syncer::new(config(addr)).unwrap();
    let (first, _) = syncer.build(None).await.unwrap();
    r.set("dedust/pools", Reply::status(404));
    let (second, report) = syncer.build(Some(first.snapshot())).await.unwrap();
    assert_eq!(second.snapshot().pools.len(), 5, "DeDust's pools kept from the previous snapshot and re-read");
    assert!(report.lists.iter().any(|l| l.endpoint == Endpoint::DexAPools && l.result.is_err()));
    r.set("stonfi/pools", Reply::status(404));
    assert!(syncer.build(None).await.is_err());
}

#[tokio::test]
async fn watching_rereads_only_the_pools_a_block_touched() {
    let r = healthy();
    let addr = replay::start(r.clone()).await;
    let syncer = Syncer::new(config(addr)).unwrap();
    let (live, report) = syncer.build(None).await.unwrap();
    let mut watcher = Watcher::new(syncer, live, report.seqno, Duration::from_millis(10));

    // Blocks 101 (DeDust pool 0 and an account that is no pool) and 102 (the v2 pool, unchanged).
    r.set("head", head(102));
    r.set("block 101", block_of(&[DEDUST[0], "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs"]));
    r.set("block 102", block_of(&[V2_POOL]));
    let moved = [1_000_000_007, 2_000_000_011];
    set_dedust(&r, 0, moved);
    let round = watcher.next_round().await.unwrap();
    assert_eq!((round.from, round.to, round.full, round.touched), (100, 102, false, 2));
    assert!(round.failed.is_empty(), "{:?}", round.failed);
    match round.changes.as_slice() {
        [PoolChange::Reserves { address, reserves }] => {
            assert_eq!(address, &raw(DEDUST[0]));
            assert_eq!(reserves, &[moved[0].to_string(), moved[1].to_string()]);
        }
        other => panic!("{other:?}"),
    }
    let count = |e: Endpoint| round.requests.get(&e).map_or(0, |c| c.sent);
    assert_eq!(count(Endpoint::MasterchainInfo), 1);
    assert_eq!(count(Endpoint::BlockTransactions), 2);
    assert_eq!(count(Endpoint::RunGetMethod), 2, "DeDust pool 0: reserves and fee");
    assert_eq!(count(Endpoint::AccountStates), 1, "the v2 pool");
    assert_eq!(reserves(watcher.live().snapshot(), DEDUST[0]), moved);

    // A block that cannot be read: the round fails and the cursor stays; the next round walks it again.
    r.set("head", head(103));
    r.script(
        "block 103",
        vec![
            Reply::status(500),
            Reply::status(500),
            Reply::status(500),
            Reply::status(500),
            Reply::status(500),
            block_of(&[DEDUST[1]]),
        ],
    );
    let e = watcher.next_round().await.unwrap_err();
    assert_eq!(e.cursor, 102);
    assert_eq!(watcher.cursor(), 102);
    let round = watcher.next_round().await.unwrap();
    assert_eq!((round.from, round.to, round.touched), (102, 103, 1));
    assert!(round.changes.is_empty(), "DeDust pool 1 did not change");
}
