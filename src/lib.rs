//! # tonroute
//!
//! Exact swap routing for the decentralised exchanges of the TON blockchain.
//!
//! The flow: a snapshot of pools becomes a [`graph::PoolGraph`]; a quote finds simple paths between two
//! assets, splits the amount over up to `max_splits` of them with exact integer simulation, and returns
//! routes with per-step amounts; the swap step turns a quote's `swap_data` into the messages a wallet signs.
//! The core (everything but `api` and the binary) is pure and synchronous: no I/O, no clock, no globals.
#![deny(missing_docs)]

#[cfg(feature = "serde")]
pub mod api;
pub mod asset;
pub mod chain;
pub mod graph;
#[cfg(feature = "serde")]
pub mod import;
pub mod pool;
pub mod route;
pub mod swap;
