//! Shared by the HTTP tests: a `tonroute serve` instance on a loopback port over the test snapshot (in-process),
//! and the built binary run as a user runs it ([`bin`]).
#![allow(dead_code)]

pub(crate) mod attack;
pub(crate) mod bin;
pub(crate) mod dex_a_reference;
#[cfg(feature = "store")]
pub(crate) mod market_db;
pub(crate) mod nats;
#[cfg(feature = "store")]
pub(crate) mod pg;
pub(crate) mod pool_props;
pub(crate) mod readme;
pub(crate) mod route_sim;
pub(crate) mod swap_fixture;
pub(crate) mod wasm;

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tonroute::api::Api;
use tonroute::graph::PoolGraph;
use tonroute::server::{serve, ServerConfig};

pub(crate) const SNAPSHOT: &str = include_str!("../../data/api_snapshot.json");
pub(crate) const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
pub(crate) const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

/// An empty scratch directory for one test, `tonroute-<file>-<name>-<pid>` in the temp dir (emptied first if a
/// former run left it).
pub(crate) fn scratch(file: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tonroute-{file}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Held for its whole run by a test that measures the machine under load (the attacks of `server_attacks`): two
/// such tests at once on 2 cores would measure each other. The lock was the attack file's own when each file was
/// its own binary; in one binary it is shared, so that any other such test can take it too.
pub(crate) fn alone() -> MutexGuard<'static, ()> {
    static ALONE: Mutex<()> = Mutex::new(());
    // A poisoned lock only means another such test failed; this one can still run alone.
    ALONE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A swap builder that takes a second, then builds nothing: 10× a test's short routing budget (so the budget
/// runs out whatever the machine's speed), and long enough to hold a routing slot while other requests arrive.
pub(crate) struct Slow;

impl tonroute::api::SwapBuilder for Slow {
    fn build(
        &self,
        _: &PoolGraph,
        _: &tonroute::swap::build::CheckedSwap<'_>,
    ) -> Result<Vec<tonroute::api::Transaction>, tonroute::api::ApiError> {
        std::thread::sleep(std::time::Duration::from_millis(1000));
        Ok(Vec::new())
    }
}

/// A running server; dropping it stops the server.
pub(crate) struct Server {
    pub base: String,
    pub graph: Arc<PoolGraph>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The admin token of [`start`]'s server (`name:token`); [`post`] sends it on every request.
pub(crate) const ADMIN_ENTRY: &str = "tests:test-admin-token-0123456789";
/// The token part of [`ADMIN_ENTRY`].
pub(crate) const ADMIN_TOKEN: &str = "test-admin-token-0123456789";

/// Starts a server on 127.0.0.1:0 with the test snapshot, admin routes on with [`ADMIN_ENTRY`].
pub(crate) async fn start() -> Server {
    let admin = tonroute::server::AdminAuth::from_sources(Some(ADMIN_ENTRY), None).unwrap();
    start_with(|api| api, ServerConfig { admin, ..ServerConfig::default() }).await
}

/// Starts a server with the API adjusted by `adjust` and the given settings.
pub(crate) async fn start_with(adjust: impl FnOnce(Api) -> Api, config: ServerConfig) -> Server {
    let graph = Arc::new(PoolGraph::from_json(SNAPSHOT).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let api = adjust(Api::new(graph.clone()));
    tokio::spawn(serve(listener, api, config, async move {
        let _ = rx.await;
    }));
    Server { base, graph, stop: Some(tx) }
}

/// POSTs `body` to `path` as JSON, with [`ADMIN_TOKEN`] as the bearer token; returns status and body text.
pub(crate) async fn post(client: &reqwest::Client, base: &str, path: &str, body: String) -> (u16, String) {
    let r = client
        .post(format!("{base}{path}"))
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {ADMIN_TOKEN}"))
        .body(body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}
