//! The integration tests of the `tonroute` package, as one test binary (`cargo test --test it`): each file below
//! is the former `tests/NAME.rs` binary, now module `NAME`, with its cases unchanged (a test's name is
//! `NAME::case`, so `cargo test --test it NAME::` runs one former binary). One binary links the crate once
//! instead of once per file, which is most of the test build on a 2-core machine. The one other binary is
//! `tests/e2e.rs`, which needs the machine to itself (it says why).
//!
//! A file that needs features says so itself at its top (`#![cfg(feature = "…")]`, which leaves its module out
//! when they are off). What the files share lives in `common/` (helpers, one copy per process: the PostgreSQL
//! server, the npm package build) and `replay/` (the local stand-in for the exchanges' APIs). proptest keeps the
//! failure seeds of `NAME.rs` in `tests/proptest-regressions/NAME.txt` (its default place for a source file
//! under a directory holding `main.rs`).
//!
//! All modules run on the threads of one process, so no test may change process-wide state (environment,
//! current directory, rlimits, signal handlers, a global logger): settings go to the child processes a test
//! starts. Tests that need the machine to themselves take [`common::alone`].
//!
//! The market files (`market_queries`, `market_feed`, `market_positions`, `market_wallets`, `market_http`) are
//! mounted three times: here, over the in-memory replay ([`market_store`]), and inside `market_store_sqlite` /
//! `market_store_postgres` over the database stores. Each mount asks its parent module for the store under test
//! (`super::market_store`), and each has its own copy of `common/market.rs` (its memoised routes are per store).
// The market files and their setup are mounted once per store (see above).
#![allow(clippy::duplicate_mod)]

/// Mounts the market files under a database store's module (`market_store_sqlite`, `market_store_postgres`),
/// which provides `market_store()`: the same files, cases and assertions for every store.
macro_rules! mount_market_files {
    () => {
        #[path = "market_queries.rs"]
        mod queries;

        #[path = "market_feed.rs"]
        mod feed;
        #[path = "market_positions.rs"]
        mod positions;
        #[path = "market_wallets.rs"]
        mod wallets;

        #[cfg(feature = "server")]
        #[path = "market_http.rs"]
        mod http;
    };
}

/// Two tests that run `$check(url)` on a database store: `$sqlite` on a fresh SQLite file named after `$db`,
/// `$postgres` on a fresh database of the tests' PostgreSQL server.
#[cfg(feature = "store")]
macro_rules! on_sqlite_and_postgres {
    ($check:ident, $db:literal, $sqlite:ident, $postgres:ident) => {
        #[test]
        fn $sqlite() {
            $check(&format!("sqlite://{}", crate::common::market_db::temp_db($db).display()));
        }

        #[test]
        fn $postgres() {
            $check(&crate::common::pg::server().fresh_database_url());
        }
    };
}

mod common;
#[cfg(feature = "server")]
mod replay;

/// The store the market files test when mounted here: the in-memory replay of the bundled data (one per
/// process).
#[cfg(feature = "serde")]
fn market_store() -> std::sync::Arc<dyn tonroute::market::MarketStore> {
    use std::sync::{Arc, OnceLock};
    use tonroute::graph::PoolGraph;
    use tonroute::market::{MarketData, MarketView};
    static V: OnceLock<Arc<MarketView>> = OnceLock::new();
    V.get_or_init(|| {
        let graph = PoolGraph::from_json(include_str!("../../data/snapshot.json")).unwrap();
        let data = Arc::new(MarketData::from_json(graph, include_str!("../../data/market.json")).unwrap());
        Arc::new(MarketView::new(data.clone(), data.as_of))
    })
    .clone()
}

mod api_bad_inputs;
mod api_golden;
mod api_http;
mod bundled_data;
mod certificate_peers;
mod chain_fixtures;
mod chain_layouts;
mod cli_audit;
mod cli_import;
mod cli_messages;
mod concentrated_properties;
mod concentrated_routing;
mod contract_vectors;
mod cross_exchange;
mod cross_exchange_http;
mod cross_exchange_snapshot;
mod dex_a_curves;
mod explorer_browser;
mod features;
mod feed_nats;
mod import_derivation;
mod import_records;
mod jetton_wallets;
mod layers;
mod market_balances;
mod market_feed;
mod market_http;
mod market_ingest;
mod market_liquidity;
mod market_positions;
mod market_queries;
mod market_schemas;
mod market_store_postgres;
mod market_store_serve;
mod market_store_setup;
mod market_store_sqlite;
mod market_store_window;
mod market_wallets;
mod no_route;
mod openapi;
mod peers_example;
mod peers_quality;
mod pool_properties;
mod readme_commands;
mod route_budget;
mod route_fixtures;
mod route_properties;
mod server_admin;
mod server_attacks;
mod server_connections;
mod server_limits;
mod server_ops;
mod server_shed;
mod server_weak_points;
mod swap_glue;
mod swap_messages;
mod swap_other_snapshot_http;
mod sync_cli;
mod sync_live;
mod sync_market;
mod sync_nats;
mod wasm_package;
mod weighted_properties;
