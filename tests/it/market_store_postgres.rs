//! The market tests (`market_queries.rs`: every operation, filter, sort, limit and error; `market_http.rs`:
//! every route over HTTP) with their assertions unchanged, against the PostgreSQL store (a real server the test
//! starts, tests/it/common/pg.rs) filled with the bundled sample instead of the in-memory replay. Each file asks
//! this module for the store under test (`super::market_store`); its cases are `market_store_postgres::queries::…`.
#![cfg(feature = "store")]

use std::sync::Arc;

use tonroute::market::MarketStore;

use crate::common;

/// The store under test.
pub(crate) fn market_store() -> Arc<dyn MarketStore> {
    common::market_db::postgres()
}

mount_market_files!();
