//! A local stand-in for the exchanges' APIs and toncenter (axum on 127.0.0.1): it replays recorded payloads
//! and injects faults on demand. Every route is a key (`stonfi/pools`, `get <raw> <method>`, `state <raw>`,
//! `accountStates`, `head`, `block <seqno>`, `jettons <raw owner> <offset>`, …) with a queue of scripted replies:
//! each request takes the next one, and the last one repeats. Hits are counted and timed per key.
#![allow(dead_code)]

pub(crate) mod payloads;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Query, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

/// One scripted answer.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub body: String,
    pub retry_after: Option<String>,
    pub delay: Duration,
}

impl Reply {
    pub(crate) fn json(v: Value) -> Reply {
        Reply::text(v.to_string())
    }
    pub(crate) fn text(body: impl Into<String>) -> Reply {
        Reply { status: 200, body: body.into(), retry_after: None, delay: Duration::ZERO }
    }
    pub(crate) fn status(status: u16) -> Reply {
        Reply {
            status,
            body: json!({"error": format!("status {status}")}).to_string(),
            retry_after: None,
            delay: Duration::ZERO,
        }
    }
    pub(crate) fn throttled(retry_after: &str) -> Reply {
        Reply { retry_after: Some(retry_after.to_string()), ..Reply::status(429) }
    }
    pub(crate) fn delayed(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

#[derive(Default)]
struct Inner {
    scripts: HashMap<String, Vec<Reply>>,
    hits: HashMap<String, Vec<Instant>>,
    headers: Vec<HeaderMap>,
    urls: Vec<String>,
}

/// The replay server's state, shared with the test.
#[derive(Clone, Default)]
pub(crate) struct Replay(Arc<Mutex<Inner>>);

impl Replay {
    /// Sets the replies of `key` (the last one repeats).
    pub(crate) fn script(&self, key: &str, replies: Vec<Reply>) {
        self.0.lock().unwrap().scripts.insert(key.to_string(), replies);
    }
    /// Sets one reply that always answers `key`.
    pub(crate) fn set(&self, key: &str, reply: Reply) {
        self.script(key, vec![reply]);
    }
    /// Requests `key` got.
    pub(crate) fn hits(&self, key: &str) -> usize {
        self.0.lock().unwrap().hits.get(key).map_or(0, Vec::len)
    }
    /// When `key` was hit.
    pub(crate) fn times(&self, key: &str) -> Vec<Instant> {
        self.0.lock().unwrap().hits.get(key).cloned().unwrap_or_default()
    }
    /// Every request's headers so far.
    pub(crate) fn headers(&self) -> Vec<HeaderMap> {
        self.0.lock().unwrap().headers.clone()
    }
    /// Every request's path and query so far.
    pub(crate) fn urls(&self) -> Vec<String> {
        self.0.lock().unwrap().urls.clone()
    }
    /// Forgets the hits.
    pub(crate) fn reset_hits(&self) {
        let mut inner = self.0.lock().unwrap();
        inner.hits.clear();
        inner.headers.clear();
        inner.urls.clear();
    }

    fn take(&self, key: &str, headers: &HeaderMap, url: String) -> Option<Reply> {
        let mut inner = self.0.lock().unwrap();
        inner.hits.entry(key.to_string()).or_default().push(Instant::now());
        inner.headers.push(headers.clone());
        inner.urls.push(url);
        let queue = inner.scripts.get_mut(key)?;
        if queue.len() > 1 {
            Some(queue.remove(0))
        } else {
            queue.first().cloned()
        }
    }

    async fn answer(&self, key: &str, headers: &HeaderMap, url: String) -> Response {
        let Some(reply) = self.take(key, headers, url) else {
            return (StatusCode::NOT_FOUND, format!("no script for `{key}`")).into_response();
        };
        if !reply.delay.is_zero() {
            tokio::time::sleep(reply.delay).await;
        }
        let mut response = (StatusCode::from_u16(reply.status).unwrap(), reply.body).into_response();
        response.headers_mut().insert("content-type", "application/json".parse().unwrap());
        if let Some(r) = reply.retry_after {
            response.headers_mut().insert("retry-after", r.parse().unwrap());
        }
        response
    }
}

/// The raw (lower-case) form of any address, as keys use it.
pub(crate) fn raw(address: &str) -> String {
    tonroute::asset::parse_address(address).unwrap().to_hex()
}

async fn simple(State(r): State<Replay>, key: &'static str, headers: HeaderMap, url: String) -> Response {
    r.answer(key, &headers, url).await
}

async fn run_get_method(State(r): State<Replay>, headers: HeaderMap, body: Bytes) -> Response {
    let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let address = v["address"].as_str().map(raw).unwrap_or_default();
    let key = format!("get {address} {}", v["method"].as_str().unwrap_or_default());
    r.answer(&key, &headers, "runGetMethod".to_string()).await
}

async fn account_states(State(r): State<Replay>, headers: HeaderMap, RawQuery(query): RawQuery) -> Response {
    let query = query.unwrap_or_default();
    // A scripted fault on the whole call wins; otherwise each account's `state <raw>` reply is its entry.
    let fault = {
        let inner = r.0.lock().unwrap();
        inner.scripts.get("accountStates").and_then(|q| q.first().cloned())
    };
    if fault.is_some() {
        return r.answer("accountStates", &headers, query).await;
    }
    r.take("accountStates", &headers, query.clone());
    let mut accounts = Vec::new();
    for pair in query.split('&') {
        if let Some(a) = pair.strip_prefix("address=") {
            let a = raw(&a.replace("%3A", ":"));
            // One request, one headers entry: the per-account lookups record none.
            if let Some(reply) = r.take(&format!("state {a}"), &HeaderMap::new(), String::new()) {
                accounts.push(serde_json::from_str::<Value>(&reply.body).unwrap());
            }
        }
    }
    (StatusCode::OK, json!({"accounts": accounts, "address_book": {}}).to_string()).into_response()
}

async fn jetton_wallets(
    State(r): State<Replay>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let owner = q.get("owner_address").map(|a| raw(a)).unwrap_or_default();
    let key = format!("jettons {owner} {}", q.get("offset").cloned().unwrap_or_default());
    let url = format!("limit={}", q.get("limit").cloned().unwrap_or_default());
    r.answer(&key, &headers, url).await
}

async fn block(State(r): State<Replay>, headers: HeaderMap, Query(q): Query<HashMap<String, String>>) -> Response {
    let key = format!("block {}", q.get("seqno").cloned().unwrap_or_default());
    let url = format!("offset={}", q.get("offset").cloned().unwrap_or_default());
    r.answer(&key, &headers, url).await
}

/// The replay on its own runtime (kept alive by the returned value) and its base URL.
pub(crate) fn serve(r: &Replay) -> (tokio::runtime::Runtime, String) {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let addr = rt.block_on(start(r.clone()));
    (rt, format!("http://{addr}"))
}

/// `tonroute sync` (the built binary, run in `dir`) writing `live.json` from both sources of the replay at `base`,
/// with the tests' rate and timeout, then `args`. The timeout is the product's default, 20 s: it times the whole
/// round trip, and on a loaded machine a prompt answer of the replay can take longer than 500 ms to be read; the
/// retry that follows would break the exact request counts (`13 requests (0 retries, …)`).
pub(crate) fn sync_command(dir: &std::path::Path, base: &str, args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(crate::common::bin::TONROUTE);
    c.arg("sync")
        .args(["--out", "live.json", "--sources", "stonfi,dedust", "--rate", "1000", "--timeout-ms", "20000"])
        .args(args)
        .env("TONROUTE_API_BASE", base)
        .current_dir(dir);
    c
}

/// Starts the server; every base URL of a `SyncConfig` points at the returned address.
pub(crate) async fn start(replay: Replay) -> SocketAddr {
    let app = Router::new()
        .route("/v1/pools", get(|s, h| simple(s, "stonfi/pools", h, String::new())))
        .route("/v1/routers", get(|s, h| simple(s, "stonfi/routers", h, String::new())))
        .route("/v1/assets", get(|s, h| simple(s, "stonfi/assets", h, String::new())))
        .route("/v2/pools", get(|s, h| simple(s, "dedust/pools", h, String::new())))
        .route("/tonco/graphql", post(|s, h| simple(s, "tonco", h, String::new())))
        .route("/api/v3/masterchainInfo", get(|s, h| simple(s, "head", h, String::new())))
        .route("/api/v3/runGetMethod", post(run_get_method))
        .route("/api/v3/accountStates", get(account_states))
        .route("/api/v3/transactionsByMasterchainBlock", get(block))
        .route("/api/v3/jetton/wallets", get(jetton_wallets))
        .with_state(replay);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

/// A v3 `runGetMethod` answer with these stack entries.
pub(crate) fn stack(entries: Vec<Value>) -> Reply {
    Reply::json(json!({"gas_used": 1000, "exit_code": 0, "stack": entries}))
}

/// A v3 integer entry (hex, as toncenter writes it).
pub(crate) fn num(v: u128) -> Value {
    json!({"type": "num", "value": format!("{v:#x}")})
}

/// The generation time the replay gives masterchain block `seqno` (Unix seconds, 5 s apart).
pub(crate) fn block_time(seqno: u32) -> i64 {
    1_700_000_000 + i64::from(seqno) * 5
}

/// The masterchain head (with its `gen_utime` as a decimal string, as toncenter's indexer writes it).
pub(crate) fn head(seqno: u32) -> Reply {
    Reply::json(json!({"first": {"workchain": -1, "shard": "8000000000000000", "seqno": 1},
                       "last": {"workchain": -1, "shard": "8000000000000000", "seqno": seqno,
                                "gen_utime": block_time(seqno).to_string()}}))
}

/// A block's transactions touching `accounts` (raw, written upper-case as toncenter does).
pub(crate) fn block_of(accounts: &[&str]) -> Reply {
    let txs: Vec<Value> = accounts
        .iter()
        .enumerate()
        .map(|(i, a)| json!({"account": raw(a).to_uppercase(), "lt": format!("{}", 1000 + i), "hash": "x"}))
        .collect();
    Reply::json(json!({"transactions": txs, "address_book": {}}))
}

/// An `accountStates` entry with a data cell.
pub(crate) fn account(address: &str, data_boc: &str) -> Reply {
    Reply::json(json!({"address": raw(address).to_uppercase(), "status": "active", "data_boc": data_boc,
                       "last_transaction_lt": "64954068000009"}))
}

/// An `accountStates` entry of a wallet holding `nanoton` (the shape of `tests/data/ton/toncenter-v3-account-states-balance.json`).
pub(crate) fn wallet_state(owner: &str, nanoton: u128) -> Reply {
    Reply::json(json!({"address": raw(owner).to_uppercase(), "balance": nanoton.to_string(), "status": "active",
                       "last_transaction_lt": "51364720000003"}))
}

/// A `jetton/wallets` page of `owner`'s wallets, one per (master, balance) (the shape of
/// `tests/data/ton/toncenter-v3-jetton-wallets.json`).
pub(crate) fn jetton_page(owner: &str, wallets: &[(&str, u128)]) -> Reply {
    let list: Vec<Value> = wallets
        .iter()
        .enumerate()
        .map(|(i, (master, balance))| {
            json!({"address": format!("0:{:064X}", 0xA000 + i), "balance": balance.to_string(),
                   "owner": raw(owner).to_uppercase(),
                   "jetton": raw(master.strip_prefix("jetton:").unwrap_or(master)).to_uppercase(),
                   "last_transaction_lt": "51364720000003", "code_hash": "x", "data_hash": "y"})
        })
        .collect();
    Reply::json(json!({"jetton_wallets": list, "address_book": {}, "metadata": {}}))
}
