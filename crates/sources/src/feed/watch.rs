//! [`Replica`]: keeps a [`LiveGraph`] following the bucket (feature `nats`), on a tokio task.
//!
//! 1. Connects (in the background: the server quotes on its snapshot meanwhile) and opens the bucket, retrying
//!    (100 ms, doubling up to 2 s) until it can. The state is `connecting` for at most `connect_wait`; a server
//!    not reachable by then (or a bucket that cannot be opened) makes it `down`. The URL and the reason are
//!    logged at the first failure, when the stream goes down, when the reason changes, and at most once a
//!    minute while it stays the same ([`Throttle`]); the client's own per-attempt lines are left to
//!    `async_nats`'s log target.
//! 2. Watches it: the first time from the latest entry of every key (deliver policy last-per-subject), after
//!    a loss from the revision after the last one handled, so a returning replica reads only what changed.
//!    The stream's last revision when the watch opens is the target: the state is `catching_up` until an
//!    entry at or past it (or one with nothing pending behind it) arrives, then `live`.
//! 3. Applies each entry through the [`Applier`]; a bad one is logged (`tracing` warn), counted and skipped.
//!    Topology changes are rebuilt on the blocking pool, debounced so that a burst costs one rebuild, and
//!    deferred while catching up (up to `max_defer`) so a bootstrap costs one.
//! 4. When the connection drops (the client's `Disconnected` event, or the watch failing), the state is
//!    `down`: quotes go on with the last state, the client reconnects, and step 2 resumes from the last
//!    revision. This does not rely on the client's own consumer recovery.
//!
//! The clock (Unix milliseconds for [`FeedStats`]) is read here, at the edge.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use async_nats::jetstream::{self, kv};
use futures_util::StreamExt;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::apply::{Applied, Applier};
use super::bucket::{connect, open_or_create, FeedError};
use super::stats::{FeedStats, StreamState};
use super::value::DEFAULT_BUCKET;
use tonroute_core::graph::{GraphError, LiveGraph, PoolGraph};

/// How a replica follows the bucket.
#[derive(Debug, Clone)]
pub struct ReplicaConfig {
    /// NATS server URL(s), comma-separated.
    pub url: String,
    /// The bucket.
    pub bucket: String,
    /// Quiet time after the last topology change before rebuilding.
    pub debounce: Duration,
    /// Longest a topology change waits for its rebuild (bursts and catch-up included).
    pub max_defer: Duration,
    /// Wait before opening the watch again after it failed while connected.
    pub retry: Duration,
    /// Longest the state stays `connecting` at the start: NATS not reachable (or the bucket not opened) by
    /// then is reported `down` while the replica keeps trying.
    pub connect_wait: Duration,
}

/// [`ReplicaConfig::connect_wait`]'s default (`serve --nats-wait-ms`): a NATS server on the same network
/// answers within milliseconds; five seconds also covers one that is still starting.
pub const DEFAULT_CONNECT_WAIT: Duration = Duration::from_secs(5);

/// How often a failure that keeps the same reason is logged again.
const REPEAT_LOG: Duration = Duration::from_secs(60);

/// Logs a recurring failure once, then again when its reason changes or [`REPEAT_LOG`] has passed, with how
/// many attempts were not logged in between.
#[derive(Debug, Default)]
struct Throttle {
    last: Option<(String, Instant)>,
    quiet: u64,
}

impl Throttle {
    /// Whether to log `reason` now; `Some(n)`: log it, `n` attempts were not logged since the last line.
    fn admit(&mut self, reason: &str, now: Instant) -> Option<u64> {
        match &self.last {
            Some((last, at)) if last == reason && now.duration_since(*at) < REPEAT_LOG => {
                self.quiet += 1;
                None
            }
            _ => {
                self.last = Some((reason.to_string(), now));
                Some(std::mem::take(&mut self.quiet))
            }
        }
    }
}

impl ReplicaConfig {
    /// Defaults for `url`: bucket [`DEFAULT_BUCKET`], debounce 20 ms, at most 500 ms before a rebuild, retry
    /// after 500 ms, `down` after [`DEFAULT_CONNECT_WAIT`] without a connection.
    pub fn new(url: &str) -> ReplicaConfig {
        ReplicaConfig {
            url: url.to_string(),
            bucket: DEFAULT_BUCKET.to_string(),
            debounce: Duration::from_millis(20),
            max_defer: Duration::from_millis(500),
            retry: Duration::from_millis(500),
            connect_wait: DEFAULT_CONNECT_WAIT,
        }
    }
}

/// A running replica feed; [`Replica::stop`] ends it (dropping it leaves the task running with the runtime).
#[derive(Debug)]
pub struct Replica {
    stats: Arc<FeedStats>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// Unix time in milliseconds (0 for a clock before 1970).
pub(crate) fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl Replica {
    /// Starts following `config.bucket` into `live`, on the current tokio runtime. Fails only on a bucket
    /// name NATS refuses; an unreachable server is retried in the background (see the module documentation).
    pub fn spawn(live: Arc<LiveGraph>, config: ReplicaConfig) -> Result<Replica, FeedError> {
        if !super::bucket::valid_bucket_name(&config.bucket) {
            return Err(FeedError::BucketName { bucket: config.bucket });
        }
        let stats = Arc::new(FeedStats::new(now_ms()));
        let (stop, stopped) = oneshot::channel();
        let task = tokio::spawn(run(Applier::new(live, Arc::clone(&stats)), config, stopped));
        Ok(Replica { stats, stop: Some(stop), task: Some(task) })
    }

    /// The feed's counters and state.
    pub fn stats(&self) -> &Arc<FeedStats> {
        &self.stats
    }

    /// Stops following (the graph keeps its last state) and waits for the task to end.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

/// Awaits `f` if there is one, else never completes (a disabled `select!` branch).
async fn maybe<F: Future>(f: Option<F>) -> F::Output {
    match f {
        Some(f) => f.await,
        None => std::future::pending().await,
    }
}

type Built = (Result<PoolGraph, GraphError>, Duration);

/// The watch and the revision that makes the replica current.
struct Watching {
    watch: kv::Watch,
    target: u64,
    /// Whether it starts from the latest entry of every key rather than after the last revision handled.
    from_start: bool,
}

async fn open_watch(js: &jetstream::Context, bucket: &str, after: u64) -> Result<Watching, FeedError> {
    let store = open_or_create(js, bucket, 1).await?;
    let bucket_err = |e: kv::WatchError| FeedError::Bucket { bucket: bucket.to_string(), source: Box::new(e) };
    // The stream info was read just now by opening the store.
    let last = store.status().await.map(|s| s.info.state.last_sequence).unwrap_or(u64::MAX);
    // First watch, or the bucket was recreated behind our back (its revisions restarted): everything.
    let from_start = after == 0 || last < after;
    let watch =
        if from_start { store.watch_with_history(">").await } else { store.watch_all_from_revision(after + 1).await };
    Ok(Watching { watch: watch.map_err(bucket_err)?, target: last, from_start })
}

/// Marks the stream `down` when it is still `connecting` at `down_at` (logged once, with the URL and the last
/// reason); afterwards a no-op.
fn give_up_connecting(stats: &FeedStats, config: &ReplicaConfig, down_at: Instant, reason: &str) {
    if stats.state() == StreamState::Connecting && Instant::now() >= down_at {
        // Logged before the state moves: `serve --nats` opens its port once the state leaves `connecting`, so the
        // reason the stream is down comes before the listening line in the log, never after it.
        tracing::error!(
            url = %config.url, bucket = %config.bucket, wait_ms = config.connect_wait.as_millis() as u64,
            reason = %reason,
            "stream: down: NATS at {} not ready within {:?} ({reason}); quoting on the snapshot's state, \
             retrying in the background",
            config.url, config.connect_wait
        );
        stats.set_state(StreamState::Down, now_ms());
    }
}

/// Connects to NATS, retrying until it answers (or `stopped`); see step 1 of the module documentation.
async fn first_connection(
    config: &ReplicaConfig,
    stats: &FeedStats,
    events: &mpsc::UnboundedSender<async_nats::Event>,
    down_at: Instant,
    stopped: &mut oneshot::Receiver<()>,
) -> Option<async_nats::Client> {
    let mut throttle = Throttle::default();
    let mut reason = String::from("no answer yet");
    let mut delay = Duration::from_millis(100);
    loop {
        let attempt = connect(&config.url, false, Some(events.clone()));
        tokio::pin!(attempt);
        // An attempt may take up to the client's connection timeout: the wait for `down` does not.
        let result = loop {
            let deadline = (stats.state() == StreamState::Connecting).then_some(down_at);
            tokio::select! {
                result = &mut attempt => break result,
                _ = maybe(deadline.map(|t| tokio::time::sleep_until(t.into()))) => {
                    give_up_connecting(stats, config, down_at, &reason);
                }
                _ = &mut *stopped => return None,
            }
        };
        match result {
            // Logged by `run` when the client's `Connected` event arrives.
            Ok(client) => return Some(client),
            Err(e) => {
                // The error names the URL; its source says why (refused, timed out, a name that does not resolve).
                reason = match std::error::Error::source(&e) {
                    Some(source) => source.to_string(),
                    None => e.to_string(),
                };
                if let Some(quiet) = throttle.admit(&reason, Instant::now()) {
                    tracing::warn!(url = %config.url, reason = %reason, attempts_not_logged = quiet,
                        "stream: cannot connect to NATS at {}: {reason}; retrying", config.url);
                }
                give_up_connecting(stats, config, down_at, &reason);
            }
        }
        let deadline = (stats.state() == StreamState::Connecting).then_some(down_at);
        tokio::select! {
            _ = tokio::time::sleep(delay) => {}
            _ = maybe(deadline.map(|t| tokio::time::sleep_until(t.into()))) => {
                give_up_connecting(stats, config, down_at, &reason);
            }
            _ = &mut *stopped => return None,
        }
        delay = (delay * 2).min(Duration::from_secs(2));
    }
}

async fn run(mut applier: Applier, config: ReplicaConfig, mut stopped: oneshot::Receiver<()>) {
    let stats = Arc::clone(applier.stats());
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let down_at = Instant::now() + config.connect_wait;
    let Some(client) = first_connection(&config, &stats, &events_tx, down_at, &mut stopped).await else { return };
    let js = jetstream::new(client.clone());
    let mut watching: Option<Watching> = None;
    // The last revision handled: a new watch resumes after it (0: read the bucket whole).
    let mut after = 0u64;
    let mut retry_at = Instant::now();
    let mut rebuild: Option<JoinHandle<Built>> = None;
    let mut first_change: Option<Instant> = None;
    let mut last_change = Instant::now();
    let mut bucket_failures = Throttle::default();
    let mut reconnecting = Throttle::default();
    loop {
        if watching.is_none() {
            give_up_connecting(&stats, &config, down_at, "the bucket could not be opened");
        }
        if watching.is_none()
            && client.connection_state() == async_nats::connection::State::Connected
            && Instant::now() >= retry_at
        {
            match open_watch(&js, &config.bucket, after).await {
                Ok(w) => {
                    if w.from_start && after > 0 {
                        tracing::warn!(bucket = %config.bucket, "stream: the bucket restarted its revisions; reading it whole");
                        after = 0;
                    }
                    let state = if w.target <= after { StreamState::Live } else { StreamState::CatchingUp };
                    tracing::info!(bucket = %config.bucket, from = after + 1, target = w.target, "stream: watching");
                    stats.set_state(state, now_ms());
                    watching = Some(w);
                }
                Err(e) => {
                    let reason = e.to_string();
                    if let Some(quiet) = bucket_failures.admit(&reason, Instant::now()) {
                        tracing::warn!(url = %config.url, error = %reason, attempts_not_logged = quiet,
                            "stream: cannot open the bucket; retrying");
                    }
                    retry_at = Instant::now() + config.retry;
                }
            }
        }
        let catching_up = stats.state() == StreamState::CatchingUp;
        let rebuild_at = match first_change {
            Some(first) if rebuild.is_none() && applier.pending() > 0 => {
                let deadline = first + config.max_defer;
                Some(if catching_up { deadline } else { deadline.min(last_change + config.debounce) })
            }
            _ => None,
        };
        let wake =
            if watching.is_none() { Some(retry_at.max(Instant::now() + Duration::from_millis(50))) } else { None };
        tokio::select! {
            entry = maybe(watching.as_mut().map(|w| w.watch.next())) => {
                match entry {
                    Some(Ok(entry)) => {
                        let value = match entry.operation {
                            kv::Operation::Put => Some(&entry.value[..]),
                            kv::Operation::Delete | kv::Operation::Purge => None,
                        };
                        match applier.apply(&entry.key, value) {
                            Ok(Applied::Queued) => {
                                last_change = Instant::now();
                                first_change.get_or_insert(last_change);
                            }
                            Ok(_) => {}
                            Err(e) => tracing::warn!(revision = entry.revision, reason = e.reason().name(), error = %e, "stream: entry skipped"),
                        }
                        after = after.max(entry.revision);
                        stats.record_entry(entry.revision, now_ms());
                        let target = watching.as_ref().map_or(0, |w| w.target);
                        if stats.state() == StreamState::CatchingUp && (entry.revision >= target || entry.delta == 0) {
                            stats.set_state(StreamState::Live, now_ms());
                        }
                    }
                    Some(Err(e)) => {
                        tracing::warn!(error = %e, "stream: watch failed; resuming from revision {}", after + 1);
                        watching = None;
                        retry_at = Instant::now() + config.retry;
                        stats.set_state(StreamState::Down, now_ms());
                    }
                    None => {
                        tracing::warn!("stream: watch ended; resuming from revision {}", after + 1);
                        watching = None;
                        retry_at = Instant::now() + config.retry;
                        stats.set_state(StreamState::Down, now_ms());
                    }
                }
            }
            event = events.recv() => {
                match event {
                    Some(async_nats::Event::Disconnected) => {
                        tracing::warn!(url = %config.url,
                            "stream: disconnected from NATS at {}; quoting on the last state while reconnecting",
                            config.url);
                        watching = None;
                        stats.set_state(StreamState::Down, now_ms());
                    }
                    Some(async_nats::Event::Connected) => {
                        reconnecting = Throttle::default();
                        tracing::info!(url = %config.url, "stream: connected");
                    }
                    // One per reconnect attempt while NATS is away: logged as the first connection's failures are.
                    Some(async_nats::Event::ClientError(e)) => {
                        let reason = e.to_string();
                        if let Some(quiet) = reconnecting.admit(&reason, Instant::now()) {
                            tracing::warn!(url = %config.url, reason = %reason, attempts_not_logged = quiet,
                                "stream: cannot reconnect to NATS at {}: {reason}; retrying", config.url);
                        }
                    }
                    Some(other) => tracing::debug!(event = %other, "stream: client event"),
                    None => {}
                }
            }
            built = maybe(rebuild.as_mut()) => {
                rebuild = None;
                match built {
                    Ok((result, took)) => {
                        let ok = result.is_ok();
                        stats.record_rebuild(u64::try_from(took.as_micros()).unwrap_or(u64::MAX), ok);
                        match applier.finish_rebuild(result) {
                            Ok(()) => tracing::debug!(ms = took.as_secs_f64() * 1e3, "stream: graph rebuilt"),
                            Err(e) => tracing::error!(error = %e, "stream: rebuild failed; its changes are dropped"),
                        }
                    }
                    Err(join) => {
                        stats.record_rebuild(0, false);
                        applier.abandon_rebuild();
                        tracing::error!(error = %join, "stream: rebuild task failed; its changes are dropped");
                    }
                }
                if applier.pending() > 0 {
                    first_change = Some(Instant::now());
                }
            }
            _ = maybe(rebuild_at.map(|t| tokio::time::sleep_until(t.into()))) => {
                if let Some(job) = applier.take_rebuild() {
                    first_change = None;
                    rebuild = Some(tokio::task::spawn_blocking(move || {
                        let started = Instant::now();
                        let result = job.run();
                        (result, started.elapsed())
                    }));
                }
            }
            _ = maybe(wake.map(|t| tokio::time::sleep_until(t.into()))) => {}
            _ = &mut stopped => break,
        }
    }
    if let Some(task) = rebuild {
        if let Ok((result, _)) = task.await {
            let _ = applier.finish_rebuild(result);
        }
    }
    let _ = client.drain().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recurring_failure_is_logged_once_a_minute_or_when_its_reason_changes() {
        let mut t = Throttle::default();
        let start = Instant::now();
        let at = |secs: u64| start + Duration::from_secs(secs);
        assert_eq!(t.admit("refused", at(0)), Some(0));
        assert_eq!(t.admit("refused", at(1)), None);
        assert_eq!(t.admit("refused", at(2)), None);
        assert_eq!(t.admit("timed out", at(3)), Some(2), "a new reason at once, with the count not logged");
        assert_eq!(t.admit("timed out", at(62)), None);
        assert_eq!(t.admit("timed out", at(63)), Some(1), "the same reason again after a minute");
    }
}
