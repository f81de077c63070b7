//! Connecting to NATS and opening the bucket (feature `nats`), and the errors of the engine side.
//!
//! The bucket is a JetStream stream named `KV_<bucket>` over subjects `$KV.<bucket>.>` with one message per
//! subject (history 1), rollups allowed, deletes through markers, direct gets, and file storage: what
//! async-nats's `create_key_value` would create. It is created here directly because `create_key_value`
//! first reads account information whose fields (`reserved_memory`, `reserved_storage`) nats-server 2.9 does
//! not send (verified against the Debian 2.9.10 server).

use std::time::Duration;

use async_nats::jetstream::{self, kv, stream};

use super::value::{Stamp, ValueError};

/// What can go wrong talking to NATS.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FeedError {
    /// The URL is not a NATS server address, or no server answers there.
    #[error("cannot connect to NATS at {url}: {source}")]
    Connect {
        /// The URL.
        url: String,
        /// The client's reason.
        #[source]
        source: async_nats::ConnectError,
    },
    /// A bucket name NATS does not allow.
    #[error("bucket name `{bucket}` is not valid (letters, digits, `-` and `_` only)")]
    BucketName {
        /// The name.
        bucket: String,
    },
    /// The bucket could not be opened or created.
    #[error("bucket {bucket}: {source}")]
    Bucket {
        /// The bucket.
        bucket: String,
        /// The server's or client's reason.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A write was not acknowledged.
    #[error("bucket {bucket}: writing key {key}: {source}")]
    Write {
        /// The bucket.
        bucket: String,
        /// The key.
        key: String,
        /// The client's reason.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A key's current entry could not be read (nothing of the batch was written).
    #[error("bucket {bucket}: reading key {key}: {source}")]
    Read {
        /// The bucket.
        bucket: String,
        /// The key.
        key: String,
        /// The client's reason.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The bucket already holds, for some pools of the batch, values that replicas would keep over the ones
    /// about to be written (a newer stamp): the batch is refused whole and nothing of it was written, so a
    /// publish never moves the stream back.
    #[error(
        "bucket {bucket} already holds newer values for {pools} of the pools to publish (the bucket's newest: \
         {newest}; this publish: {stamp}); replicas would refuse these as stale; nothing published"
    )]
    Stale {
        /// The bucket.
        bucket: String,
        /// Pools whose stored value is newer.
        pools: usize,
        /// The newest stamp among those stored values (field by field, [`Stamp::max`]).
        newest: Stamp,
        /// The stamp of the first refused change of the batch.
        stamp: Stamp,
    },
    /// Values for `pools` pools were not written because another writer stored newer ones between this
    /// publisher's check and its write (the other pools of the batch were written).
    #[error(
        "bucket {bucket}: {pools} pools were not written: another writer stored newer values for them while this \
         publish ran (the newest: {newest}; this publish: {stamp}); the other {written} were written"
    )]
    Superseded {
        /// The bucket.
        bucket: String,
        /// Pools not written.
        pools: usize,
        /// Values written.
        written: usize,
        /// The newest stamp among the values that won.
        newest: Stamp,
        /// The stamp of the first change not written.
        stamp: Stamp,
    },
    /// A change that replicas would refuse (nothing of its batch was written).
    #[error("change {index}: {source}")]
    Change {
        /// Its position in the batch.
        index: usize,
        /// Why.
        #[source]
        source: ValueError,
    },
}

/// Whether NATS accepts `bucket` as a KV bucket name.
pub fn valid_bucket_name(bucket: &str) -> bool {
    !bucket.is_empty() && bucket.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Connects to `url` (e.g. `nats://127.0.0.1:4222`, several comma-separated), reconnecting forever after a
/// connection is lost. With `background`, the first connection is also made in the background (a replica
/// starts serving before NATS is reachable); without, a server that cannot be reached is an error now.
pub async fn connect(
    url: &str,
    background: bool,
    events: Option<tokio::sync::mpsc::UnboundedSender<async_nats::Event>>,
) -> Result<async_nats::Client, FeedError> {
    let mut options = async_nats::ConnectOptions::new()
        .name("tonroute")
        .connection_timeout(Duration::from_secs(5))
        // A half-open connection (a peer gone without closing) is noticed within two pings.
        .ping_interval(Duration::from_secs(10))
        // Retry soon after a loss: the state ages while disconnected.
        .reconnect_delay_callback(|attempts| Duration::from_millis(100 * attempts.min(10) as u64));
    if background {
        options = options.retry_on_initial_connect();
    }
    if let Some(tx) = events {
        options = options.event_callback(move |event| {
            let tx = tx.clone();
            async move {
                let _ = tx.send(event);
            }
        });
    }
    options.connect(url).await.map_err(|source| FeedError::Connect { url: url.to_string(), source })
}

/// The stream configuration of a KV bucket holding the latest value of each key (see the module comment).
fn stream_config(bucket: &str, replicas: usize) -> stream::Config {
    stream::Config {
        name: format!("KV_{bucket}"),
        description: Some("tonroute pool states: one entry per pool, the latest".into()),
        subjects: vec![format!("$KV.{bucket}.>")],
        max_messages_per_subject: 1,
        max_bytes: -1,
        max_messages: -1,
        max_message_size: -1,
        storage: stream::StorageType::File,
        num_replicas: replicas.max(1),
        allow_rollup: true,
        deny_delete: true,
        deny_purge: false,
        allow_direct: true,
        discard: stream::DiscardPolicy::New,
        ..Default::default()
    }
}

/// Opens `bucket`, creating it (history 1, file storage, `replicas` copies in a cluster) when it does not exist.
pub async fn open_or_create(js: &jetstream::Context, bucket: &str, replicas: usize) -> Result<kv::Store, FeedError> {
    if !valid_bucket_name(bucket) {
        return Err(FeedError::BucketName { bucket: bucket.to_string() });
    }
    let bucket_err =
        |source: Box<dyn std::error::Error + Send + Sync>| FeedError::Bucket { bucket: bucket.into(), source };
    if let Ok(store) = js.get_key_value(bucket).await {
        return Ok(store);
    }
    if let Err(create) = js.create_stream(stream_config(bucket, replicas)).await {
        // Another client may have created it meanwhile; then opening works.
        return js.get_key_value(bucket).await.map_err(|_| bucket_err(Box::new(create)));
    }
    js.get_key_value(bucket).await.map_err(|e| bucket_err(Box::new(e)))
}
