//! The market tests' setup, shared by `market_queries.rs`, `market_feed.rs`, `market_wallets.rs` and
//! `market_http.rs`: the bundled sample, its in-memory replay, the routes over the store under test, and small
//! readers of answers.
//!
//! Each of those files is mounted at the crate root over the replay, and inside `market_store_sqlite.rs` /
//! `market_store_postgres.rs` over a database store; the store under test is always the including file's
//! `market_store` (which it takes from the module mounting it). So this file is included with
//! `#[path = "common/market.rs"]` by each of them, one copy per mount (not through `common/mod.rs`, which is
//! one copy for the whole binary): its memoised routes ([`api`]) belong to one store.
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

use serde_json::Value;
use tonroute::api::market::params::decode_query;
use tonroute::api::market::MarketApi;
use tonroute::api::ApiError;
use tonroute::graph::PoolGraph;
use tonroute::market::{MarketData, MarketFile, MarketView};

pub(crate) const SNAPSHOT: &str = include_str!("../../../data/snapshot.json");
pub(crate) const MARKET: &str = include_str!("../../../data/market.json");
pub(crate) const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
pub(crate) const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

/// The in-memory replay of the bundled sample, built once.
pub(crate) fn view() -> &'static Arc<MarketView> {
    static V: OnceLock<Arc<MarketView>> = OnceLock::new();
    V.get_or_init(|| {
        let data = Arc::new(MarketData::from_json(PoolGraph::from_json(SNAPSHOT).unwrap(), MARKET).unwrap());
        Arc::new(MarketView::new(data.clone(), data.as_of))
    })
}

/// The market routes over the store under test, as the server calls them.
pub(crate) fn api() -> &'static MarketApi {
    static A: OnceLock<MarketApi> = OnceLock::new();
    A.get_or_init(|| MarketApi::new(super::market_store()))
}

/// The bundled market file.
pub(crate) fn file() -> &'static MarketFile {
    static F: OnceLock<MarketFile> = OnceLock::new();
    F.get_or_init(|| serde_json::from_str(MARKET).unwrap())
}

/// A query string as the routes receive it.
pub(crate) fn q(s: &str) -> Vec<(String, String)> {
    decode_query(s).unwrap()
}

/// An answer as JSON.
pub(crate) fn json<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap()
}

/// A decimal string of an answer as a number.
pub(crate) fn f(v: &Value) -> f64 {
    v.as_str().unwrap_or_else(|| panic!("not a decimal string: {v}")).parse().unwrap()
}

/// The status and code of an answer that must be an error.
pub(crate) fn code(r: Result<impl std::fmt::Debug, ApiError>) -> (u16, i32) {
    let e = r.expect_err("expected an error");
    (e.status(), e.code())
}
