//! # tonroute-synth
//!
//! Deterministic generators of test data for tonroute, kept out of the library: TON-shaped pool snapshots
//! ([`snapshot`], the bundled `data/snapshot.json`), market-data samples over a snapshot ([`market`], the
//! bundled `data/market.json`), the example files of `tonroute market ingest` ([`ingest`],
//! `data/examples/*.jsonl`) and exchange API answers of any size for the import figures ([`api`]).
//! Dev-only: the `tonroute` crate lists it as a dev-dependency for its examples, benches and integration
//! tests; nothing in `tonroute`'s crates may use it (its unit tests use `crates/core/src/graph/testkit.rs` and
//! `crates/core/src/route/testkit.rs`), and production code reads known asset ids from `tonroute::asset::known`.
//!
//! Owns generation only; must not know about routing, and is a pure function of its config (no clock, no I/O).

#![deny(missing_docs)]

pub mod api;
pub mod ingest;
pub mod market;
pub mod snapshot;
