//! The reserve stream: one NATS JetStream key-value bucket holding the latest state of every pool, written by
//! publishers and watched by any number of quoting replicas.
//!
//! Owns the stream format ([`value`]: key ↔ pool address, JSON value ↔ change, staleness), applying entries to
//! a [`tonroute_core::graph::LiveGraph`] while quotes run ([`apply`]), the replica's counters ([`stats`]), and with
//! feature `nats` the engine side: creating/opening the bucket, the [`Publisher`] and the replica watcher
//! ([`watch`]) with its reconnect and catch-up. Must not know about HTTP, the CLI or routing; the graph is
//! changed only through its own update and rebuild methods.
//!
//! **Why a KV bucket.** A watcher of a JetStream KV bucket first receives the latest entry of every key, then
//! each later change, from one ordered consumer: a new replica bootstraps and follows without a window
//! between "load" and "subscribe", and a replica that was away resumes from the last revision it applied.
//! The bucket keeps one value per key (history 1), so catching up costs at most one entry per changed pool.
//!
//! **Server compatibility.** async-nats is used without its `server_2_10`+ features, so it speaks to the
//! nats-server 2.9 Debian ships. One call still needs a newer server — `create_key_value` reads account fields
//! 2.9 does not send — so the bucket's stream is created directly with the configuration the client would
//! give it ([`bucket`]).

pub mod apply;
#[cfg(feature = "nats")]
pub mod bucket;
#[cfg(feature = "nats")]
pub mod publish;
pub mod stats;
pub mod value;
#[cfg(feature = "nats")]
pub mod watch;

pub use apply::{Applied, Applier, ApplyError};
#[cfg(feature = "nats")]
pub use bucket::FeedError;
#[cfg(feature = "nats")]
pub use publish::{PublishReport, Publisher};
pub use stats::{FeedReport, FeedStats, StreamState};
pub use value::{PoolChange, SkipReason, Stamp, ValueError, DEFAULT_BUCKET};
#[cfg(feature = "nats")]
pub use watch::{Replica, ReplicaConfig};
