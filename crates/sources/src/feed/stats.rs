//! Counters and state of a replica's feed, shared lock-free between the watcher that writes them and whoever
//! reports them (`/health`, a metrics exporter). Times are Unix milliseconds passed in by the caller: the
//! library reads no clock.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use serde::Serialize;

use super::value::{SkipReason, Stamp};

/// Where the replica's stream stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StreamState {
    /// Not connected yet: the first connection (and opening the bucket) within the replica's connect wait.
    Connecting,
    /// Connected, applying the entries written before it (re)subscribed.
    CatchingUp,
    /// Connected and current: every change written so far has been applied.
    Live,
    /// The connection is lost, or was not made within the connect wait; quoting goes on with the last state
    /// (the snapshot's) while it keeps trying.
    Down,
}

impl StreamState {
    fn from_u8(v: u8) -> StreamState {
        match v {
            1 => StreamState::CatchingUp,
            2 => StreamState::Live,
            3 => StreamState::Down,
            _ => StreamState::Connecting,
        }
    }

    fn to_u8(self) -> u8 {
        match self {
            StreamState::Connecting => 0,
            StreamState::CatchingUp => 1,
            StreamState::Live => 2,
            StreamState::Down => 3,
        }
    }

    /// Every state, in the order above.
    pub const ALL: [StreamState; 4] =
        [StreamState::Connecting, StreamState::CatchingUp, StreamState::Live, StreamState::Down];

    /// The state's name as `/health` and the metrics write it (`connecting`, `catching_up`, `live`, `down`).
    pub fn name(self) -> &'static str {
        match self {
            StreamState::Connecting => "connecting",
            StreamState::CatchingUp => "catching_up",
            StreamState::Live => "live",
            StreamState::Down => "down",
        }
    }

    /// Whether the stream is up (connected: catching up or live).
    pub fn is_up(self) -> bool {
        matches!(self, StreamState::CatchingUp | StreamState::Live)
    }
}

/// A replica feed's counters (monotonic) and state.
#[derive(Debug)]
pub struct FeedStats {
    applied_reserves: AtomicU64,
    applied_pools: AtomicU64,
    removed_pools: AtomicU64,
    skipped: [AtomicU64; SkipReason::ALL.len()],
    rebuilds: AtomicU64,
    rebuild_failures: AtomicU64,
    last_rebuild_micros: AtomicU64,
    pending: AtomicU64,
    state: AtomicU8,
    reconnects: AtomicU64,
    revision: AtomicU64,
    /// Last time an entry was applied (0: never).
    last_applied_ms: AtomicU64,
    /// Until when the state was known current: the start, or when the stream last stopped being live.
    current_until_ms: AtomicU64,
    /// Newest stamp applied (`u64::MAX`: none).
    newest_seqno: AtomicU64,
    newest_time: AtomicU64,
}

const NONE: u64 = u64::MAX;

impl FeedStats {
    /// Fresh counters for a feed started at `now_ms`.
    pub fn new(now_ms: u64) -> FeedStats {
        FeedStats {
            applied_reserves: AtomicU64::new(0),
            applied_pools: AtomicU64::new(0),
            removed_pools: AtomicU64::new(0),
            skipped: std::array::from_fn(|_| AtomicU64::new(0)),
            rebuilds: AtomicU64::new(0),
            rebuild_failures: AtomicU64::new(0),
            last_rebuild_micros: AtomicU64::new(0),
            pending: AtomicU64::new(0),
            state: AtomicU8::new(StreamState::Connecting.to_u8()),
            reconnects: AtomicU64::new(0),
            revision: AtomicU64::new(0),
            last_applied_ms: AtomicU64::new(0),
            current_until_ms: AtomicU64::new(now_ms),
            newest_seqno: AtomicU64::new(NONE),
            newest_time: AtomicU64::new(NONE),
        }
    }

    pub(crate) fn count_reserves(&self) {
        self.applied_reserves.fetch_add(1, Relaxed);
    }

    pub(crate) fn count_pool(&self) {
        self.applied_pools.fetch_add(1, Relaxed);
    }

    pub(crate) fn count_removed(&self) {
        self.removed_pools.fetch_add(1, Relaxed);
    }

    /// Counts a skipped entry.
    pub fn count_skip(&self, reason: SkipReason) {
        if let Some(i) = SkipReason::ALL.iter().position(|r| *r == reason) {
            self.skipped[i].fetch_add(1, Relaxed);
        }
    }

    pub(crate) fn set_pending(&self, n: usize) {
        self.pending.store(n as u64, Relaxed);
    }

    pub(crate) fn note_stamp(&self, stamp: Stamp) {
        if let Some(s) = stamp.seqno {
            update_max(&self.newest_seqno, u64::from(s));
        }
        if let Some(t) = stamp.time {
            update_max(&self.newest_time, t);
        }
    }

    /// Records a rebuild that took `micros` (failed or not).
    pub fn record_rebuild(&self, micros: u64, ok: bool) {
        if ok {
            self.rebuilds.fetch_add(1, Relaxed);
        } else {
            self.rebuild_failures.fetch_add(1, Relaxed);
        }
        self.last_rebuild_micros.store(micros, Relaxed);
    }

    /// Records that the entry at stream `revision` was handled at `now_ms`.
    pub fn record_entry(&self, revision: u64, now_ms: u64) {
        self.revision.fetch_max(revision, Relaxed);
        self.last_applied_ms.store(now_ms, Relaxed);
    }

    /// Moves the stream to `state` at `now_ms`; leaving [`StreamState::Live`] marks the state's age from now.
    pub fn set_state(&self, state: StreamState, now_ms: u64) {
        let before = StreamState::from_u8(self.state.swap(state.to_u8(), Relaxed));
        if before == StreamState::Live && state != StreamState::Live {
            self.current_until_ms.store(now_ms, Relaxed);
        }
        if before.is_up() && state == StreamState::Down {
            self.reconnects.fetch_add(1, Relaxed);
        }
    }

    /// The stream's state.
    pub fn state(&self) -> StreamState {
        StreamState::from_u8(self.state.load(Relaxed))
    }

    /// The last stream revision handled (0: none).
    pub fn revision(&self) -> u64 {
        self.revision.load(Relaxed)
    }

    /// Everything, as of `now_ms`.
    pub fn report(&self, now_ms: u64) -> FeedReport {
        let state = self.state();
        let opt = |v: u64| (v != NONE).then_some(v);
        let last_applied = self.last_applied_ms.load(Relaxed);
        FeedReport {
            state,
            up: state.is_up(),
            state_age_ms: if state == StreamState::Live {
                0
            } else {
                now_ms.saturating_sub(self.current_until_ms.load(Relaxed))
            },
            last_update_age_ms: (last_applied != 0).then(|| now_ms.saturating_sub(last_applied)),
            revision: self.revision(),
            newest_seqno: opt(self.newest_seqno.load(Relaxed)),
            newest_time: opt(self.newest_time.load(Relaxed)),
            applied: Applied {
                reserves: self.applied_reserves.load(Relaxed),
                pools: self.applied_pools.load(Relaxed),
                removed: self.removed_pools.load(Relaxed),
            },
            skipped: SkipReason::ALL.iter().zip(&self.skipped).map(|(r, c)| (r.name(), c.load(Relaxed))).collect(),
            skipped_total: self.skipped.iter().map(|c| c.load(Relaxed)).sum(),
            pending_changes: self.pending.load(Relaxed),
            rebuilds: self.rebuilds.load(Relaxed),
            rebuild_failures: self.rebuild_failures.load(Relaxed),
            last_rebuild_ms: self.last_rebuild_micros.load(Relaxed) as f64 / 1000.0,
            reconnects: self.reconnects.load(Relaxed),
        }
    }
}

fn update_max(cell: &AtomicU64, v: u64) {
    let _ = cell.fetch_update(Relaxed, Relaxed, |old| (old == NONE || v > old).then_some(v));
}

/// Entries applied, by kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Applied {
    /// Reserves-only values.
    pub reserves: u64,
    /// Full pool entries (in place or by rebuild).
    pub pools: u64,
    /// Deletes of pools the replica had.
    pub removed: u64,
}

/// A feed's state and counters at one moment (the `stream` object of `/health`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeedReport {
    /// `connecting`, `catching_up`, `live` or `down`.
    pub state: StreamState,
    /// Connected (catching up or live).
    pub up: bool,
    /// How long the state may have been missing changes: 0 while live, else the time since the stream was
    /// last live (or since the start).
    pub state_age_ms: u64,
    /// Time since the last entry was applied or skipped (`null`: none yet).
    pub last_update_age_ms: Option<u64>,
    /// Last stream revision handled.
    pub revision: u64,
    /// Newest block seqno among applied stamps.
    pub newest_seqno: Option<u64>,
    /// Newest Unix time among applied stamps.
    pub newest_time: Option<u64>,
    /// Entries applied.
    pub applied: Applied,
    /// Entries skipped, by reason (`key`, `json`, `reserves`, `pool`, `unknown_pool`, `stale`, `refused`).
    pub skipped: std::collections::BTreeMap<&'static str, u64>,
    /// Sum of `skipped`.
    pub skipped_total: u64,
    /// Topology changes waiting for the next rebuild.
    pub pending_changes: u64,
    /// Graph rebuilds done.
    pub rebuilds: u64,
    /// Graph rebuilds that failed (their changes were dropped).
    pub rebuild_failures: u64,
    /// Duration of the last rebuild, milliseconds.
    pub last_rebuild_ms: f64,
    /// Times the stream went down after being up.
    pub reconnects: u64,
}
