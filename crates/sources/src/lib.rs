//! # tonroute-sources
//!
//! Where pool state comes from: importers of the exchanges' APIs and of chain state ([`import`]), the
//! reserve stream's value format and NATS JetStream publisher and replica ([`feed`], the I/O parts behind
//! feature `nats`), and `tonroute sync`'s fetch-and-refresh loop ([`sync`], feature `sync`).
//!
//! Owns the outside world's pool data and its delivery; must not route, price, serve HTTP or store market
//! data (that is core's, server's and market's). Without features it is pure decoding (what the WebAssembly
//! package may link).
#![deny(missing_docs)]

pub mod feed;
pub mod import;
#[cfg(feature = "sync")]
pub mod sync;
