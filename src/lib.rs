//! # tonroute
//!
//! Exact swap routing for the decentralised exchanges of the TON blockchain.
//!
//! The flow: a snapshot of pools becomes a [`graph::PoolGraph`]; a quote finds simple paths between two
//! assets, splits the amount over up to `max_splits` of them with exact integer simulation, and returns
//! routes with per-step amounts; the swap step turns a quote's `swap_data` into the messages a wallet signs.
//! The core (everything but `api`, `server` and the binary) is pure and synchronous: no I/O, no clock, no globals.
//!
//! # Entry points
//!
//! | to | use |
//! |---|---|
//! | load pools | [`graph::PoolGraph::from_json`] (a snapshot, format in [`graph::snapshot`]) or [`graph::GraphBuilder`] |
//! | keep them live | [`graph::PoolGraph::update_reserves`], [`graph::PoolGraph::update_concentrated_state`] (in place, while quotes run) |
//! | follow a stream | `feed::Replica` (feature `nats`) keeps a [`graph::LiveGraph`] following a NATS JetStream KV bucket; `feed::Publisher` writes it; format in [`feed::value`] |
//! | quote | [`route::Router::quote`] with a [`route::QuoteRequest`] → [`route::Quote`] (or a [`route::RouteError`] that says why not) |
//! | build the messages | [`route::Quote::swap_data`] → [`swap::build::build_swap`] (checks the data against the graph once, [`swap::build::check_swap`], then builds) |
//! | one pool's exact math | [`pool::Pool::swap`] and the curves of [`pool`] |
//! | parse ids and addresses | [`asset::Asset::parse`], [`asset::parse_address`] |
//! | market data | [`market::MarketStore`] over typed [`market::query`]s; in memory: [`market::MarketView`] (a replayed market file) |
//! | serve JSON | [`api::Api`] (`/v4/router/quote`, `/v4/router/swap`, market data), [`server`] with feature `server` |
//!
//! # Example
//!
//! The bundled snapshot, a quote of 100 TON into USD₮, and the message a wallet signs for it:
//!
//! ```
//! # #[cfg(feature = "serde")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use tonroute::asset::{parse_address, Asset};
//! use tonroute::graph::PoolGraph;
//! use tonroute::route::{QuoteOptions, QuoteRequest, Router};
//! use tonroute::swap::build::{build_swap, SwapRequest};
//! use tonroute::swap::GasTable;
//!
//! let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/snapshot.json");
//! let graph = PoolGraph::from_json(&std::fs::read_to_string(path)?)?;
//!
//! let usdt = Asset::parse("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs")?;
//! let quote = Router::default().quote(&graph, &QuoteRequest::new(Asset::Native, usdt, 100_000_000_000)?, QuoteOptions::default())?;
//! assert!(quote.out_amount > 100_000_000); // more than 100 USD₮ (6 decimals) for 100 TON
//! assert_eq!(quote.routes.iter().map(|r| r.in_amount).sum::<u128>(), 100_000_000_000);
//!
//! let request = SwapRequest {
//!     sender: parse_address("UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p")?,
//!     swap_data: quote.swap_data(&graph),
//!     query_id: 1,                // the caller's clock: the library reads none
//!     deadline: 1_767_225_600,
//!     referral: None,
//! };
//! // A TON offer needs no jetton wallet of the sender; the graph's wallet table resolves the rest.
//! let messages = build_swap(&graph, &request, &GasTable::default(), &graph)?;
//! assert_eq!(messages.transactions.len(), quote.routes.len());
//! assert!(messages.transactions.iter().all(|t| t.amount > 0 && !t.payload.is_empty()));
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "serde"))]
//! # fn main() {}
//! ```
#![deny(missing_docs)]
//
// The facade: the layers are crates of their own (crates/*, ARCHITECTURE.md), so that the compiler keeps each
// one from reaching above itself; this package re-exports them under the paths every user, example, bench and
// test has always named, and holds the `tonroute` binary.

pub use tonroute_core::{asset, chain, decimal, error, graph, pool, route, swap, token_bucket};

#[cfg(feature = "serde")]
pub use tonroute_api as api;
#[cfg(feature = "serde")]
pub use tonroute_market as market;
#[cfg(feature = "server")]
pub use tonroute_server as server;
#[cfg(feature = "sync")]
pub use tonroute_sources::sync;
#[cfg(feature = "serde")]
pub use tonroute_sources::{feed, import};
