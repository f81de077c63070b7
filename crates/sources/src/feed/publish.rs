//! [`Publisher`]: writes pool changes into the bucket (feature `nats`), for `tonroute publish`, the importers
//! (`tonroute sync --nats`) and embedders.
//!
//! A batch is checked whole before anything is written: a change replicas would refuse fails the batch with
//! its index; then the current entry of every key it writes is read, and when the bucket already holds, for
//! any pool, a value replicas would keep over the one about to be written (by [`Stamp::is_older_than`], the
//! replicas' own rule: the new stamp is older by `seqno` when both have one, else by `time`), the batch is
//! refused whole ([`FeedError::Stale`]). An equal stamp, or stamps that share no field (one or both without
//! a stamp), pass, as replicas apply them. Deletes carry no stamp and are never refused, as on replicas. So
//! a publish never moves the stream back, and a replica started later never loads values the running
//! ones refused.
//!
//! Each value is then written only over the revision that was checked (a compare-and-set: the KV `update`
//! with the expected revision), so a writer racing between the check and the write cannot be overwritten
//! blindly: on a revision mismatch the key is read again, and the value is written over the new revision
//! unless the racing writer's value is newer, in which case that pool is left as it is and the publish ends
//! with [`FeedError::Superseded`] after the rest of the batch. That window is per key: the check and the
//! writes of a whole batch are not one atomic step (NATS KV has no multi-key transaction), so two
//! concurrent batches may each win some keys, but no key ever goes from a newer value to an older one.
//! Deletes are written unconditionally.
//!
//! Writes are pipelined (many in flight, each acknowledged by the server). Writes of different pools are
//! independent and idempotent, so a batch cut short by a lost connection is repaired by publishing it again.
//! When one batch names a pool twice, only the last change of that pool is written (the bucket keeps only the
//! latest anyway, and concurrent writes of one key could land in either order).

use std::collections::HashMap;

use async_nats::jetstream::{self, kv};
use futures_util::stream::{self, StreamExt, TryStreamExt};

use super::bucket::{connect, open_or_create, FeedError};
use super::value::{PoolChange, Stamp};
use tonroute_core::graph::snapshot::Snapshot;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

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

    /// Writes `changes` (see the module documentation for checks, ordering and the compare-and-set).
    pub async fn publish_changes(&self, changes: &[PoolChange]) -> Result<PublishReport, FeedError> {
        let mut last: HashMap<String, usize> = HashMap::with_capacity(changes.len());
        let mut encoded = Vec::with_capacity(changes.len());
        for (index, change) in changes.iter().enumerate() {
            let (key, value) = change.encode().map_err(|source| FeedError::Change { index, source })?;
            last.insert(key.clone(), index);
            encoded.push((key, value, change.stamp()));
        }
        let writes: Vec<_> =
            encoded.into_iter().enumerate().filter(|(i, (key, ..))| last.get(key) == Some(i)).map(|(_, w)| w).collect();

        // What the bucket holds for every key written.
        let held: HashMap<String, Held> = stream::iter(writes.iter().map(|(key, ..)| key.clone()))
            .map(|key| {
                let store = self.store.clone();
                async move {
                    match held(&store, &key).await {
                        Ok(h) => Ok((key, h)),
                        Err(source) => Err(FeedError::Read { bucket: self.bucket.clone(), key, source }),
                    }
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .try_collect()
            .await?;
        let mut stale: Option<(usize, Stamp, Stamp)> = None;
        for (key, _, stamp) in &writes {
            let Some(stamp) = stamp else { continue };
            if let Some(newer) = held.get(key).and_then(|h| h.stamp).filter(|h| stamp.is_older_than(h)) {
                let (pools, newest, _) = stale.get_or_insert((0, newer, *stamp));
                *pools += 1;
                *newest = newest.max(newer);
            }
        }
        if let Some((pools, newest, stamp)) = stale {
            return Err(FeedError::Stale { bucket: self.bucket.clone(), pools, newest, stamp });
        }

        let mut results = stream::iter(writes)
            .map(|(key, value, stamp)| {
                let store = self.store.clone();
                let revision = held.get(&key).map_or(0, |h| h.revision);
                async move {
                    let result = write(&store, &key, value, stamp, revision).await;
                    (key, stamp, result)
                }
            })
            .buffer_unordered(IN_FLIGHT);
        let mut report = PublishReport::default();
        let mut superseded: Option<(usize, Stamp, Stamp)> = None;
        while let Some((key, stamp, result)) = results.next().await {
            match result {
                Ok(Written::Put(revision)) => {
                    report.written += 1;
                    report.last_revision = report.last_revision.max(revision);
                }
                Ok(Written::Deleted) => report.deleted += 1,
                Ok(Written::Superseded(newer)) => {
                    let (pools, newest, _) = superseded.get_or_insert((0, newer, stamp.unwrap_or_default()));
                    *pools += 1;
                    *newest = newest.max(newer);
                }
                Err(source) => return Err(FeedError::Write { bucket: self.bucket.clone(), key, source }),
            }
        }
        if let Some((pools, newest, stamp)) = superseded {
            return Err(FeedError::Superseded {
                bucket: self.bucket.clone(),
                pools,
                written: report.written + report.deleted,
                newest,
                stamp,
            });
        }
        Ok(report)
    }

    /// Writes every pool of `snapshot` as a full entry with its assets' entries (bootstraps an empty bucket;
    /// replicas that have the pools already apply them in place).
    pub async fn publish_snapshot(&self, snapshot: &Snapshot, stamp: Stamp) -> Result<PublishReport, FeedError> {
        self.publish_changes(&PoolChange::from_snapshot(snapshot, stamp)).await
    }
}

/// How many times a value is written again after another writer changed its key in between (each time the
/// key is read again first; a racing value that is newer ends the attempts at once).
const CAS_ATTEMPTS: usize = 8;

/// A key's current entry, as far as a publisher cares.
#[derive(Debug, Clone, Copy)]
struct Held {
    /// Its revision (0: the key was never written, so a write expects no entry).
    revision: u64,
    /// The stamp of its value (`None` for a delete marker or a value that is not a stamped JSON object).
    stamp: Option<Stamp>,
}

async fn held(store: &kv::Store, key: &str) -> Result<Held, BoxError> {
    Ok(match store.entry(key).await? {
        None => Held { revision: 0, stamp: None },
        Some(entry) => Held {
            revision: entry.revision,
            stamp: match entry.operation {
                kv::Operation::Put => Stamp::of_value(&entry.value),
                kv::Operation::Delete | kv::Operation::Purge => None,
            },
        },
    })
}

/// What writing one key did.
enum Written {
    /// The value was stored at this revision.
    Put(u64),
    /// The key was deleted.
    Deleted,
    /// Another writer stored a newer value (this stamp) first; this one was not written.
    Superseded(Stamp),
}

/// Writes `value` (a delete when `None`) over the entry at `revision`; see the module documentation.
async fn write(
    store: &kv::Store,
    key: &str,
    value: Option<Vec<u8>>,
    stamp: Option<Stamp>,
    mut revision: u64,
) -> Result<Written, BoxError> {
    let Some(value) = value else {
        store.delete(key).await?;
        return Ok(Written::Deleted);
    };
    for _ in 0..CAS_ATTEMPTS {
        match store.update(key, value.clone().into(), revision).await {
            Ok(revision) => return Ok(Written::Put(revision)),
            Err(e) if e.kind() == kv::UpdateErrorKind::WrongLastRevision => {
                let now = held(store, key).await?;
                if let (Some(stamp), Some(newer)) = (stamp, now.stamp) {
                    if stamp.is_older_than(&newer) {
                        return Ok(Written::Superseded(newer));
                    }
                }
                revision = now.revision;
            }
            Err(e) => return Err(Box::new(e)),
        }
    }
    Err(format!("the key changed under {CAS_ATTEMPTS} attempts to write it (other writers keep writing it)").into())
}
