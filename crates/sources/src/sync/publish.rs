//! Where a refresh's changes go besides the snapshot file: a [`Publisher`]. The NATS JetStream publisher of
//! the replicas' stream (`crates/sources/src/feed/`) plugs in here; [`NoPublisher`] is the default.

use std::future::Future;
use std::pin::Pin;

use tonroute_core::graph::snapshot::SnapshotPool;

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

/// A refresh's change that cannot be stated on the reserve stream (it came from a snapshot entry whose address
/// or reserves do not parse: a snapshot the sync did not write).
#[cfg(feature = "nats")]
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamChangeError {
    /// The pool's address does not parse.
    #[error("pool {address}: {source}")]
    Address {
        /// The address as written.
        address: String,
        /// Why.
        #[source]
        source: tonroute_core::asset::AddressError,
    },
    /// A reserve that is not an integer below 2^128.
    #[error("pool {address}: reserve `{reserve}` is not an integer")]
    Reserve {
        /// The pool.
        address: String,
        /// The reserve as written.
        reserve: String,
    },
}

/// A refresh's changes as reserve-stream changes (`crates/sources/src/feed/`), stamped with the masterchain block they were
/// read at: reserves stay reserves-only values, a changed or new pool becomes a full entry carrying its two
/// assets' entries from `snapshot` (the snapshot after the refresh), a removed pool a delete. The stream's own
/// checks (reserves in `1..2^120`, …) are made by [`crate::feed::Publisher::publish_changes`].
#[cfg(feature = "nats")]
pub fn stream_changes(
    changes: &[PoolChange],
    snapshot: &tonroute_core::graph::snapshot::Snapshot,
    seqno: u32,
) -> Result<Vec<crate::feed::PoolChange>, StreamChangeError> {
    use crate::feed::{PoolChange as Stream, Stamp};
    let stamp = Stamp { seqno: Some(seqno), time: None };
    let address = |text: &str| {
        tonroute_core::asset::parse_address(text)
            .map_err(|source| StreamChangeError::Address { address: text.to_string(), source })
    };
    let mut out = Vec::with_capacity(changes.len());
    for change in changes {
        out.push(match change {
            PoolChange::Reserves { address: text, reserves } => {
                let one = |r: &String| {
                    r.parse::<u128>()
                        .map_err(|_| StreamChangeError::Reserve { address: text.clone(), reserve: r.clone() })
                };
                Stream::Reserves { pool: address(text)?, reserves: [one(&reserves[0])?, one(&reserves[1])?], stamp }
            }
            PoolChange::Pool(pool) => {
                // One pool in, one entry out: `from_pools` maps each pool it is given.
                let mut entry = Stream::from_pools(snapshot, [pool.as_ref()], stamp);
                match entry.pop() {
                    Some(e) => e,
                    None => continue,
                }
            }
            PoolChange::Removed { address: text } => Stream::Remove { pool: address(text)? },
        });
    }
    Ok(out)
}
