//! [`Publisher`]: writes pool changes into the bucket (feature `nats`), for `tonroute publish`, the importers
//! (`tonroute sync --nats`) and embedders.
//!
//! A batch is checked whole before anything is written (a change replicas would refuse fails the batch with
//! its index, and nothing of it is written); then its writes are pipelined (many in flight, each
//! acknowledged by the server). Writes of different pools are independent and idempotent, so a batch cut
//! short by a lost connection is repaired by publishing it again. When one batch names a pool twice, only the
//! last change of that pool is written (the bucket keeps only the latest anyway, and concurrent writes of one
//! key could land in either order).

use std::collections::HashMap;

use async_nats::jetstream::{self, kv};
use futures_util::stream::{self, StreamExt};

use super::bucket::{connect, open_or_create, FeedError};
use super::value::{PoolChange, Stamp};
use tonroute_core::graph::snapshot::Snapshot;

/// Writes in flight at once.
const IN_FLIGHT: usize = 256;

/// What a publish wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PublishReport {
    /// Values written (reserves or pool entries).
    pub written: usize,
    /// Keys deleted.
    pub deleted: usize,
    /// Highest stream revision among the writes (0 when only deletes).
    pub last_revision: u64,
}

/// Writes pool changes into one bucket.
#[derive(Debug, Clone)]
pub struct Publisher {
    store: kv::Store,
    bucket: String,
}

impl Publisher {
    /// Connects to `url` and opens `bucket`, creating it when missing (one copy; see [`Self::with_store`] for
    /// a bucket replicated in a cluster).
    pub async fn connect(url: &str, bucket: &str) -> Result<Publisher, FeedError> {
        let client = connect(url, false, None).await?;
        let store = open_or_create(&jetstream::new(client), bucket, 1).await?;
        Ok(Publisher { store, bucket: bucket.to_string() })
    }

    /// A publisher over a bucket the caller opened ([`super::bucket::open_or_create`]).
    pub fn with_store(store: kv::Store, bucket: &str) -> Publisher {
        Publisher { store, bucket: bucket.to_string() }
    }

    /// The bucket.
    pub fn bucket(&self) -> &str {
        &self.bucket
    }

    /// Writes `changes` (see the module documentation for checks and ordering).
    pub async fn publish_changes(&self, changes: &[PoolChange]) -> Result<PublishReport, FeedError> {
        let mut last: HashMap<String, usize> = HashMap::with_capacity(changes.len());
        let mut encoded = Vec::with_capacity(changes.len());
        for (index, change) in changes.iter().enumerate() {
            let (key, value) = change.encode().map_err(|source| FeedError::Change { index, source })?;
            last.insert(key.clone(), index);
            encoded.push((key, value));
        }
        let writes = encoded.into_iter().enumerate().filter(|(i, (key, _))| last.get(key) == Some(i)).map(|(_, kv)| kv);
        let mut results = stream::iter(writes)
            .map(|(key, value)| {
                let store = self.store.clone();
                async move {
                    let result = match value {
                        Some(bytes) => store.put(&key, bytes.into()).await.map(Some).map_err(|e| Box::new(e) as _),
                        None => store.delete(&key).await.map(|()| None).map_err(|e| Box::new(e) as _),
                    };
                    (key, result)
                }
            })
            .buffer_unordered(IN_FLIGHT);
        let mut report = PublishReport::default();
        while let Some((key, result)) = results.next().await {
            match result {
                Ok(Some(revision)) => {
                    report.written += 1;
                    report.last_revision = report.last_revision.max(revision);
                }
                Ok(None) => report.deleted += 1,
                Err(source) => return Err(FeedError::Write { bucket: self.bucket.clone(), key, source }),
            }
        }
        Ok(report)
    }

    /// Writes every pool of `snapshot` as a full entry with its assets' entries (bootstraps an empty bucket;
    /// replicas that have the pools already apply them in place).
    pub async fn publish_snapshot(&self, snapshot: &Snapshot, stamp: Stamp) -> Result<PublishReport, FeedError> {
        self.publish_changes(&PoolChange::from_snapshot(snapshot, stamp)).await
    }
}
