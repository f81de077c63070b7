//! Where a refresh's changes go besides the snapshot file: a [`Publisher`]. The NATS JetStream publisher of
//! the replicas' stream (`src/feed/`) plugs in here; [`NoPublisher`] is the default.

use std::future::Future;
use std::pin::Pin;

use crate::graph::snapshot::SnapshotPool;

/// One pool's change in a refresh.
#[derive(Debug, Clone)]
pub enum PoolChange {
    /// Only the reserves moved (a constant-product, stable or weighted pool whose fees and parameters are as
    /// before).
    Reserves {
        /// The pool's raw address.
        address: String,
        /// The new reserves, decimal strings.
        reserves: [String; 2],
    },
    /// Anything else: a new pool, a concentrated pool's state and ticks, a fee or parameter change.
    Pool(Box<SnapshotPool>),
    /// The pool left the exchange's list.
    Removed {
        /// The pool's raw address.
        address: String,
    },
}

impl PoolChange {
    /// The pool's raw address.
    pub fn address(&self) -> &str {
        match self {
            PoolChange::Reserves { address, .. } | PoolChange::Removed { address } => address,
            PoolChange::Pool(p) => &p.address,
        }
    }
}

/// Why publishing failed (the snapshot file is written regardless; the publisher gets the next refresh).
#[derive(Debug, thiserror::Error)]
#[error("publishing {changes} changes: {source}")]
pub struct PublishError {
    /// Changes that were to go.
    pub changes: usize,
    /// The publisher's error.
    #[source]
    pub source: Box<dyn std::error::Error + Send + Sync>,
}

/// A boxed future, so that publishers can be chosen at run time.
pub type PublishFuture<'a> = Pin<Box<dyn Future<Output = Result<(), PublishError>> + Send + 'a>>;

/// Takes the changes of each refresh, with the masterchain seqno they are as of.
pub trait Publisher: Send + Sync {
    /// Publishes `changes` (never empty).
    fn publish<'a>(&'a self, seqno: u32, changes: &'a [PoolChange]) -> PublishFuture<'a>;
}

/// Publishes nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoPublisher;

impl Publisher for NoPublisher {
    fn publish<'a>(&'a self, _seqno: u32, _changes: &'a [PoolChange]) -> PublishFuture<'a> {
        Box::pin(async { Ok(()) })
    }
}
