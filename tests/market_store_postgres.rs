//! The market tests (`market_queries.rs`: every operation, filter, sort, limit and error; `market_http.rs`:
//! every route over HTTP) with their assertions unchanged, against the PostgreSQL store (a real server the test starts, tests/common/pg.rs) filled with the bundled
//! sample instead of the in-memory replay.
#![cfg(feature = "store")]
// Each included file loads `common/market.rs` (its setup) as it does when it runs alone: one copy per file.
#![allow(clippy::duplicate_mod)]

mod common;

use std::sync::Arc;

use tonroute::market::MarketStore;

/// The store under test.
pub fn market_store() -> Arc<dyn MarketStore> {
    common::market_db::postgres()
}

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
