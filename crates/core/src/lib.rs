//! # tonroute-core
//!
//! The pure, synchronous core of tonroute: assets and addresses ([`asset`]), every exchange's contract-exact
//! pool math ([`pool`]), the pool graph ([`graph`]), routing and its certificates ([`route`]), swap messages
//! ([`swap`]), the decoders of chain payloads ([`chain`]), decimal wire numbers ([`decimal`]), the shared
//! error vocabulary ([`error`]) and the rate limiter's arithmetic ([`token_bucket`], the caller passes the time).
//!
//! Owns everything a quote touches on its hot path (pool → graph → route stay in this one crate, so none of
//! their generic or inlined functions crosses a crate line). Must not do I/O, read a clock, keep globals, or
//! depend on an async runtime, a database, HTTP or NATS: `tests/it/layers.rs` keeps tokio, sqlx, axum, hyper,
//! reqwest, async-nats and clap out of its `cargo tree`. The layers above (market, sources, api, server and
//! the `tonroute` facade with its binary) depend on it, never the other way round.
#![deny(missing_docs)]

pub mod asset;
pub mod chain;
pub mod decimal;
pub mod error;
pub mod graph;
#[cfg(feature = "serde")]
pub mod json;
pub mod pool;
pub mod route;
pub mod swap;
pub mod token_bucket;
