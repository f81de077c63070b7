//! `/v4/admin/reserves` hardening over real HTTP on loopback: the authentication matrix and the audit trail
//! against the built binary (`TONROUTE_ADMIN_TOKEN`, `--admin-token-file`), and, on an in-process server over
//! the bundled snapshot, batches applied all or nothing, reserve sanity and concentrated (`dex_c`) state.
#![cfg(feature = "server")]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::bin::{http_raw, repo, run_tonroute, spawn_serve_env};
use serde_json::{json, Value};
use tonroute::api::Api;
use tonroute::graph::PoolGraph;
use tonroute::server::{serve, AdminAuth, ServerConfig};

const V2_POOL: &str = "0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6";
const V1_POOL: &str = "0:fc4c9f311160754a99d113877cf583b78e5d16d048819cd4b820168769499d7e";
const STABLE_POOL: &str = "0:568fdfda86ca00a2667a868e8ed25318d92011f08b56fa75dd43b7a8160819ae";
const CL_POOL: &str = "0:ca78d6c5d6ea955688bebbed578857f8378e85607fbc66c8916300bbc921d1a5";
/// 2^120 − 1, the largest reserve.
const MAX_COINS: &str = "1329227995784915872903807060280344575";

fn admin_post(addr: std::net::SocketAddr, auth: Option<&str>, content_type: &str, body: &str) -> (u16, Value) {
    let auth = auth.map(|a| format!("Authorization: {a}\r\n")).unwrap_or_default();
    let request = format!(
        "POST /v4/admin/reserves HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{auth}Content-Type: {content_type}\r\n\
         Content-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let (status, _, text) = http_raw(addr, request.as_bytes(), Duration::from_secs(30)).expect("admin request");
    (status, serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
}

fn one_update(reserves: [&str; 2]) -> String {
    json!([{"pool": V2_POOL, "reserves": reserves}]).to_string()
}

#[test]
fn without_a_token_admin_is_off() {
    let server = spawn_serve_env(&repo(), &[], &[]);
    let (status, v) =
        admin_post(server.addr, Some("Bearer 0123456789abcdef0123"), "application/json", &one_update(["1", "2"]));
    assert_eq!((status, v["code"].as_i64()), (403, Some(1041)), "{v}");
    assert!(v["message"].as_str().unwrap().contains("TONROUTE_ADMIN_TOKEN"), "{v}");
    assert!(server.stderr().contains("admin routes off"), "{}", server.stderr());
}

#[test]
fn auth_matrix_and_audit_trail() {
    let dir = common::scratch("server-admin", "matrix");
    let file = dir.join("tokens");
    std::fs::write(&file, "# operators\n\nci:file-token-fedcba9876543210\n").unwrap();
    let env_token = "env-token-0123456789abcdef";
    let server = spawn_serve_env(
        &repo(),
        &["--admin-token-file", file.to_str().unwrap()],
        &[("TONROUTE_ADMIN_TOKEN", &format!("ops:{env_token}")), ("RUST_LOG", "info")],
    );
    let body = one_update(["1806615000000000", "2601328000000"]);
    for (auth, status, code) in [
        (None, 401, 1040),
        (Some("Bearer wrong-token-0123456789abcdef"), 401, 1040),
        (Some(&format!("Bearer {env_token}x") as &str), 401, 1040),
        (Some(&format!("Bearer ops:{env_token}") as &str), 401, 1040),
        (Some(&format!("Basic {env_token}") as &str), 401, 1040),
        (Some("Bearer"), 401, 1040),
    ] {
        let (got, v) = admin_post(server.addr, auth, "application/json", &body);
        assert_eq!((got, v["code"].as_i64()), (status, Some(code)), "{auth:?}: {v}");
    }
    let (status, v) = admin_post(server.addr, Some(&format!("Bearer {env_token}")), "application/json", &body);
    assert_eq!((status, &v), (200, &json!({"updated": 1})));
    let body2 = one_update(["1806615000000001", "2601328000001"]);
    let (status, v) = admin_post(server.addr, Some("bearer file-token-fedcba9876543210"), "application/json", &body2);
    assert_eq!((status, &v), (200, &json!({"updated": 1})));
    // Every audit line was written before its answer; the log up to a later request holds them all.
    let log = server.log_so_far();
    let audit: Vec<&str> =
        log.lines().filter(|l| l.contains("tonroute::audit") && l.contains("admin change")).collect();
    assert_eq!(audit.len(), 2, "{log}");
    // who, what, old → new: the bundled reserves, then the first update's, then the second's.
    for (line, who, old, new) in [
        (audit[0], "ops", "[1806615000000000, 2501328000000]", "[1806615000000000, 2601328000000]"),
        (audit[1], "ci", "[1806615000000000, 2601328000000]", "[1806615000000001, 2601328000001]"),
    ] {
        assert!(
            line.contains(&format!("who={who}")) && line.contains(V2_POOL) && line.contains("what=\"reserves\""),
            "{line}"
        );
        assert!(line.contains(&format!("old={old}")) && line.contains(&format!("new={new}")), "{line}");
    }
    assert!(log.contains("admin request refused"), "refusals are logged too: {log}");
    assert!(!log.contains(env_token) && !log.contains("file-token-fedcba9876543210"), "a token leaked:\n{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unusable_token_configuration_stops_the_server() {
    let dir = common::scratch("server-admin", "bad");
    let file = dir.join("tokens");
    std::fs::write(&file, "ci:short-secret\n").unwrap();
    let out =
        run_tonroute(&repo(), &["serve", "--addr", "127.0.0.1:0", "--admin-token-file", file.to_str().unwrap()], None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("shorter than 16 bytes") && stderr.contains(":1"), "{stderr}");
    assert!(!stderr.contains("short-secret"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// An in-process server over the bundled snapshot with admin on; the graph is shared with the test.
async fn bundled_server() -> (std::net::SocketAddr, Arc<PoolGraph>, tokio::sync::oneshot::Sender<()>) {
    let text = std::fs::read_to_string(repo().join("data/snapshot.json")).unwrap();
    let graph = Arc::new(PoolGraph::from_json(&text).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let admin = AdminAuth::from_sources(Some(common::ADMIN_ENTRY), None).unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(listener, Api::new(graph.clone()), ServerConfig { admin, ..ServerConfig::default() }, async {
        let _ = rx.await;
    }));
    (addr, graph, tx)
}

fn pool_id(g: &PoolGraph, address: &str) -> tonroute::graph::PoolId {
    g.pool_id(&tonroute::asset::parse_address(address).unwrap()).unwrap()
}

async fn post_admin(addr: std::net::SocketAddr, body: Value) -> (u16, Value) {
    let auth = format!("Bearer {}", common::ADMIN_TOKEN);
    tokio::task::spawn_blocking(move || admin_post(addr, Some(&auth), "application/json", &body.to_string()))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_apply_all_or_nothing_with_sane_values() {
    let (addr, g, _stop) = bundled_server().await;
    let (v2, v1, stable, cl) =
        (pool_id(&g, V2_POOL), pool_id(&g, V1_POOL), pool_id(&g, STABLE_POOL), pool_id(&g, CL_POOL));
    let before = [g.reserves(v2), g.reserves(v1), g.reserves(stable)];
    let cl_before = g.concentrated(cl).unwrap();
    // Within 100× of both pools' prices (TON/USD₮ near 1.4e-3 per unit; this is 2e-3).
    let ok = |pool: &str| json!({"pool": pool, "reserves": ["1000000000000000", "2000000000000"]});
    let state = cl_before.state();
    let cases = [
        // The third entry is bad: the first two must not be applied.
        (json!([ok(V2_POOL), ok(V1_POOL), {"pool": CL_POOL, "reserves": ["1", "2"]}]), 400, 1032, "field `[2].reserves`: a concentrated (dex_c) pool"),
        (json!([ok(V2_POOL), {"pool": format!("0:{}", "77".repeat(32)), "reserves": ["1", "2"]}]), 404, 2002, "field `[1].pool`: unknown pool"),
        (json!([ok(V2_POOL), {"pool": V1_POOL, "reserves": ["1", "1329227995784915872903807060280344576"]}]), 400, 1014, "field `[1].reserves[1]`: `1329227995784915872903807060280344576` is not below 2^120"),
        // Within 2^120 but beyond what the stable-swap math can hold (the contract throws: exit code 4).
        (json!([ok(V2_POOL), {"pool": STABLE_POOL, "reserves": ["1", MAX_COINS]}]), 400, 1032, "field `[1].reserves`: the pool's math cannot take these reserves (integer overflow in pool math (exit code 4)); reserves must be below 2^120"),
        (json!([ok(V2_POOL), {"pool": V1_POOL, "tick": 5}]), 400, 1032, "field `[1].reserves`: missing; this pool is not concentrated"),
        (json!([ok(V2_POOL), {"pool": CL_POOL, "sqrt_price_x96": state.sqrt_price_x96.to_string(), "tick": state.tick}]), 400, 1002, "field `[1].liquidity`: missing"),
        (json!([ok(V2_POOL), {"pool": CL_POOL, "sqrt_price_x96": state.sqrt_price_x96.to_string(), "tick": 900000, "liquidity": "1"}]), 400, 1032, "field `[1].tick`"),
        (json!([ok(V2_POOL), {"pool": CL_POOL, "sqrt_price_x96": state.sqrt_price_x96.to_string(), "tick": state.tick + 600, "liquidity": "1"}]), 400, 1032, "does not match sqrt_price_x96"),
        (json!([ok(V2_POOL), {"pool": CL_POOL, "sqrt_price_x96": "1", "tick": state.tick, "liquidity": "1"}]), 400, 1032, "field `[1].sqrt_price_x96`"),
        (json!([ok(V2_POOL), {"pool": CL_POOL, "sqrt_price_x96": state.sqrt_price_x96.to_string(), "tick": state.tick, "liquidity": "1", "ticks": [{"tick": 7, "liquidity_net": "5", "liquidity_gross": "1"}]}]), 400, 1032, "field `[1].ticks`"),
        (json!([ok(V2_POOL), {"pool": CL_POOL, "sqrt_price_x96": " 1", "tick": state.tick, "liquidity": "1"}]), 400, 1012, "field `[1].sqrt_price_x96`"),
    ];
    for (body, status, code, needle) in cases {
        let (got, v) = post_admin(addr, body.clone()).await;
        assert_eq!((got, v["code"].as_i64()), (status, Some(code)), "{body}: {v}");
        assert!(v["message"].as_str().unwrap().contains(needle), "{body}: {v}");
        assert_eq!([g.reserves(v2), g.reserves(v1), g.reserves(stable)], before, "{body} changed reserves");
        assert_eq!(*g.concentrated(cl).unwrap(), *cl_before, "{body} changed the dex_c pool");
    }
    // A valid batch applies everything.
    let (got, v) = post_admin(addr, json!([ok(V2_POOL), ok(V1_POOL)])).await;
    assert_eq!((got, &v), (200, &json!({"updated": 2})));
    assert_eq!([g.reserves(v2), g.reserves(v1)], [[1_000_000_000_000_000, 2_000_000_000_000]; 2]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concentrated_pools_take_their_state_and_tick_map() {
    let (addr, g, _stop) = bundled_server().await;
    let cl = pool_id(&g, CL_POOL);
    let before = g.concentrated(cl).unwrap();
    let s = *before.state();
    // The state alone (after a mint in range the liquidity doubles, the price stays).
    let liquidity = s.liquidity * 2;
    let body = json!([{"pool": CL_POOL, "sqrt_price_x96": s.sqrt_price_x96.to_string(), "tick": s.tick, "liquidity": liquidity.to_string()}]);
    assert_eq!(post_admin(addr, body).await, (200, json!({"updated": 1})));
    let after = g.concentrated(cl).unwrap();
    assert_eq!(
        (after.state().liquidity, after.state().tick, after.state().sqrt_price_x96),
        (liquidity, s.tick, s.sqrt_price_x96)
    );
    assert_eq!(after.ticks(), before.ticks(), "the tick map stays");
    // Virtual reserves follow the state: x = L·2^96/√P doubles with L (up to a unit of rounding).
    let [x0, _] = before.virtual_reserves();
    let [x1, _] = g.reserves(cl);
    assert!(x1.abs_diff(2 * x0) <= 2, "{x0} → {x1}");
    // State and a new tick map: the snapshot's ticks without the outermost pair.
    let text = std::fs::read_to_string(repo().join("data/snapshot.json")).unwrap();
    let snapshot: Value = serde_json::from_str(&text).unwrap();
    let entry = snapshot["pools"].as_array().unwrap().iter().find(|p| p["address"] == CL_POOL).unwrap().clone();
    let mut ticks = entry["ticks"].as_array().unwrap().clone();
    let (first, last) = (ticks.remove(0), ticks.pop().unwrap());
    assert_eq!(
        first["liquidity_net"].as_str().map(|t| t.trim_start_matches('-')),
        last["liquidity_net"].as_str().map(|t| t.trim_start_matches('-')),
        "a position's two ends"
    );
    let body = json!([{"pool": CL_POOL, "sqrt_price_x96": entry["sqrt_price_x96"], "tick": entry["tick"], "liquidity": entry["liquidity"], "ticks": ticks}]);
    let (status, v) = post_admin(addr, body).await;
    assert_eq!((status, &v), (200, &json!({"updated": 1})), "{v}");
    let after = g.concentrated(cl).unwrap();
    assert_eq!(after.ticks().len(), before.ticks().len() - 2);
    assert_eq!(after.state(), before.state());
}

/// `POST /v4/router/quote` of 100 TON into USD₮ on `server` → its `out_amount`.
fn ton_usdt_out(server: &common::bin::ServerGuard) -> String {
    let body = json!({"in_minter": "native", "out_minter": USDT, "amount": "100000000000", "max_splits": 1});
    let (status, text) = server.post("/v4/router/quote", &body.to_string());
    assert_eq!(status, 200, "{text}");
    serde_json::from_str::<Value>(&text).unwrap()["out_amount"].as_str().unwrap().to_string()
}

const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";

/// The bundled `dex_c` pool's state, as the snapshot writes it.
fn cl_entry() -> Value {
    let text = std::fs::read_to_string(repo().join("data/snapshot.json")).unwrap();
    let snapshot: Value = serde_json::from_str(&text).unwrap();
    snapshot["pools"].as_array().unwrap().iter().find(|p| p["address"] == CL_POOL).unwrap().clone()
}

/// A `dex_c` update moving the bundled pool's √price to `num/den` of it (its tick follows the price).
fn cl_moved(num: u64, den: u64) -> Value {
    let entry = cl_entry();
    let sqrt = primitive_types::U256::from_dec_str(entry["sqrt_price_x96"].as_str().unwrap()).unwrap();
    let moved = sqrt * num / den;
    let tick = tonroute::pool::concentrated::tick_at_sqrt_ratio(moved).unwrap();
    json!({"pool": CL_POOL, "sqrt_price_x96": moved.to_string(), "tick": tick, "liquidity": entry["liquidity"]})
}

#[test]
fn a_price_jump_is_refused_unless_the_batch_forces_it_and_the_audit_log_says_so() {
    let server = spawn_serve_env(
        &repo(),
        &["--snapshot", "data/snapshot.json"],
        &[("TONROUTE_ADMIN_TOKEN", common::ADMIN_ENTRY), ("RUST_LOG", "info")],
    );
    let auth = format!("Bearer {}", common::ADMIN_TOKEN);
    let post = |body: &Value| admin_post(server.addr, Some(&auth), "application/json", &body.to_string());
    let before = ton_usdt_out(&server);
    // The bundled TON/USD₮ dex_b_v2 reserves in the wrong order: the price moves about 5e5 times.
    let (r0, r1) = (1_806_615_000_000_000u128, 2_501_328_000_000u128);
    let swapped = json!([{"pool": V2_POOL, "reserves": [r1.to_string(), r0.to_string()]}]);
    let (status, v) = post(&swapped);
    assert_eq!((status, v["code"].as_i64()), (400, Some(1033)), "{v}");
    let message = v["message"].as_str().unwrap();
    // The factor, from the reserves: (r0/r1)², about 5.2e5.
    let factor = format!("field `[0].reserves`: moves the pool's price {:.0}×", (r0 as f64 / r1 as f64).powi(2));
    for needle in [factor.as_str(), "limit 100×", "wrong order", r#""force": true"#] {
        assert!(message.contains(needle), "`{needle}` in {message}");
    }
    // The object form without `force` is the same batch; `force` must be a boolean.
    let (status, v) = post(&json!({"updates": swapped}));
    assert_eq!((status, v["code"].as_i64()), (400, Some(1033)), "{v}");
    assert!(v["message"].as_str().unwrap().starts_with("field `updates[0].reserves`: moves"), "{v}");
    let (status, v) = post(&json!({"force": "yes", "updates": swapped}));
    assert_eq!((status, v["code"].as_i64()), (400, Some(1003)), "{v}");
    // Refused whole: the good entry before it is not applied either; quotes are unchanged.
    let batch = json!([{"pool": V1_POOL, "reserves": ["1861480000000001", "2572361000000"]}, swapped[0]]);
    let (status, v) = post(&batch);
    assert_eq!((status, v["code"].as_i64()), (400, Some(1033)), "{v}");
    assert!(v["message"].as_str().unwrap().starts_with("field `[1].reserves`"), "{v}");
    assert_eq!(ton_usdt_out(&server), before);

    // The limit is "more than 100×", compared exactly: r1·100 is exactly 100×, one unit more is past it.
    let exactly = json!([{"pool": V2_POOL, "reserves": [r0.to_string(), (r1 * 100).to_string()]}]);
    let past = json!([{"pool": V2_POOL, "reserves": [r0.to_string(), (r1 * 100 + 1).to_string()]}]);
    assert_eq!(post(&past).1["code"], 1033);
    assert_eq!(post(&exactly), (200, json!({"updated": 1})));
    let back = json!([{"pool": V2_POOL, "reserves": [r0.to_string(), r1.to_string()]}]);
    assert_eq!(post(&back), (200, json!({"updated": 1})));
    assert_eq!(ton_usdt_out(&server), before);

    // The same rule on a dex_c pool's price (√price squared): ×11 on √price is 121× the price, ×10 is 100×.
    let (status, v) = post(&json!([cl_moved(11, 1)]));
    assert_eq!((status, v["code"].as_i64()), (400, Some(1033)), "{v}");
    assert!(
        v["message"].as_str().unwrap().starts_with("field `[0].sqrt_price_x96`: moves the pool's price 121×"),
        "{v}"
    );
    assert_eq!(post(&json!([cl_moved(1, 11)])).1["code"], 1033, "downwards too");
    assert_eq!(post(&json!([cl_moved(10, 1)])), (200, json!({"updated": 1})));
    assert_eq!(post(&json!([cl_moved(1, 1)])), (200, json!({"updated": 1})), "back: exactly 100× down");

    // Forced: applied, and the audit log marks the forced change (and only it).
    let forced = json!({"force": true, "updates": [swapped[0], {"pool": V1_POOL, "reserves": ["1861480000000001", "2572361000000"]}]});
    assert_eq!(post(&forced), (200, json!({"updated": 2})));
    assert_ne!(ton_usdt_out(&server), before);
    let log = server.log_so_far();
    let audit: Vec<&str> =
        log.lines().filter(|l| l.contains("tonroute::audit") && l.contains("admin change")).collect();
    let marked: Vec<&&str> = audit.iter().filter(|l| l.contains("forced=true")).collect();
    assert_eq!(marked.len(), 1, "{log}");
    assert!(
        marked[0].contains(V2_POOL) && marked[0].contains("who=tests") && marked[0].contains("price_move="),
        "{log}"
    );
    assert!(audit.iter().any(|l| l.contains(V1_POOL) && !l.contains("forced")), "{log}");
}

#[test]
fn the_price_move_limit_is_a_server_flag() {
    let server = spawn_serve_env(
        &repo(),
        &["--snapshot", "data/snapshot.json", "--max-price-move", "2"],
        &[("TONROUTE_ADMIN_TOKEN", common::ADMIN_ENTRY)],
    );
    let auth = format!("Bearer {}", common::ADMIN_TOKEN);
    let post = |r1: &str| {
        let body = json!([{"pool": V2_POOL, "reserves": ["1806615000000000", r1]}]).to_string();
        admin_post(server.addr, Some(&auth), "application/json", &body)
    };
    let (status, v) = post("7503984000000");
    assert_eq!((status, v["code"].as_i64()), (400, Some(1033)), "3×: {v}");
    assert!(v["message"].as_str().unwrap().contains("moves the pool's price 3× (limit 2×"), "{v}");
    assert_eq!(post("5002656000000"), (200, json!({"updated": 1})), "2×");
    let out = run_tonroute(&repo(), &["serve", "--addr", "127.0.0.1:0", "--max-price-move", "1"], None);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--max-price-move"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
