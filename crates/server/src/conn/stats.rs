//! What the accept loop is configured with and counts: the limits, why a connection was refused or evicted,
//! the counters `/metrics` reads, and the answer-byte budget handlers ask. Holds no socket.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::logging::Throttle;

/// Connection limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// A started request head must be complete within this.
    pub header_timeout: Duration,
    /// A connection with nothing in flight and no byte moving is closed after this.
    pub idle_timeout: Duration,
    /// Most open connections.
    pub max_connections: usize,
    /// Most open connections from one client IP (the TCP peer); 0 = no per-IP cap.
    pub max_per_ip: usize,
    /// Bytes of answers held in memory at once (see the module doc); `usize::MAX` = no budget.
    pub answer_budget: usize,
}

impl Default for ConnLimits {
    fn default() -> ConnLimits {
        ConnLimits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections: 1024,
            max_per_ip: 512,
            answer_budget: usize::MAX,
        }
    }
}

/// Why a connection was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `--max-connections`, every connection busy.
    Cap,
    /// `--max-connections-per-ip`, every connection of that IP busy.
    PerIp,
}

/// Why a connection was closed to make room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eviction {
    /// No request in flight, no byte moving: the longest idle at a cap.
    Idle,
    /// A request body that stopped arriving, at a cap.
    BodyStalled,
    /// An answer its client stopped reading, while the answer budget was short.
    WriteStalled,
    /// Closed to give a file descriptor back after `accept` failed.
    AcceptFailed,
}

impl Refusal {
    /// Every refusal, in label order.
    pub const ALL: [Refusal; 2] = [Refusal::Cap, Refusal::PerIp];

    /// The `/metrics` label.
    pub fn label(self) -> &'static str {
        match self {
            Refusal::Cap => "cap",
            Refusal::PerIp => "per_ip",
        }
    }
}

impl Eviction {
    /// Every eviction, in label order.
    pub const ALL: [Eviction; 4] =
        [Eviction::Idle, Eviction::BodyStalled, Eviction::WriteStalled, Eviction::AcceptFailed];

    /// The `/metrics` label.
    pub fn label(self) -> &'static str {
        match self {
            Eviction::Idle => "idle",
            Eviction::BodyStalled => "body_stalled",
            Eviction::WriteStalled => "write_stalled",
            Eviction::AcceptFailed => "accept_failed",
        }
    }
}

/// The accept loop's counters, read by `/metrics` ([`crate::metrics`]); one per server, shared with the
/// [`crate::metrics::Metrics`] that reports them.
#[derive(Debug, Default)]
pub struct ConnStats {
    pub(super) refused: [AtomicU64; 2],
    pub(super) evicted: [AtomicU64; 4],
    pub(super) accept_errors: AtomicU64,
    pub(super) open: AtomicUsize,
    pub(super) answer_bytes: AtomicUsize,
    pub(super) answer_budget: AtomicUsize,
    pub(super) throttle_refused: Throttle,
    pub(super) throttle_evicted: Throttle,
    pub(super) throttle_accept: Throttle,
}

impl ConnStats {
    /// Connections refused for `why` so far.
    pub fn refused(&self, why: Refusal) -> u64 {
        self.refused[why as usize].load(Ordering::Relaxed)
    }

    /// Connections evicted for `why` so far.
    pub fn evicted(&self, why: Eviction) -> u64 {
        self.evicted[why as usize].load(Ordering::Relaxed)
    }

    /// `accept` calls that failed.
    pub fn accept_errors(&self) -> u64 {
        self.accept_errors.load(Ordering::Relaxed)
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    /// Bytes of answers held now, and the budget (`usize::MAX` = none).
    pub fn answer_bytes(&self) -> (usize, usize) {
        (self.answer_bytes.load(Ordering::Relaxed), self.answer_budget.load(Ordering::Relaxed))
    }

    pub(super) fn refuse(&self, why: Refusal, peer: SocketAddr) {
        self.refused[why as usize].fetch_add(1, Ordering::Relaxed);
        if let Some(more) = self.throttle_refused.pass() {
            tracing::warn!(target: "tonroute::conn", client_ip = %peer.ip(), reason = why.label(), suppressed = more,
                "connection refused with 503: every connection slot is busy");
        }
    }

    pub(super) fn evict(&self, why: Eviction, ip: IpAddr) {
        self.evicted[why as usize].fetch_add(1, Ordering::Relaxed);
        if let Some(more) = self.throttle_evicted.pass() {
            tracing::warn!(target: "tonroute::conn", client_ip = %ip, reason = why.label(), suppressed = more,
                "connection closed to make room");
        }
    }

    pub(super) fn accept_failed(&self, e: &io::Error, open: usize) {
        self.accept_errors.fetch_add(1, Ordering::Relaxed);
        if let Some(more) = self.throttle_accept.pass() {
            tracing::warn!(target: "tonroute::conn", open, suppressed = more, "accept failed: {e}");
        }
    }
}

/// The server's budget of answer bytes, as a request sees it (in its extensions): handlers of large answers
/// ask it before computing.
#[derive(Debug, Clone)]
pub struct AnswerBudget {
    pub(super) stats: Arc<ConnStats>,
    pub(super) limit: usize,
}

impl AnswerBudget {
    /// Whether `reserve` more bytes fit the budget now.
    pub fn has_room(&self, reserve: usize) -> bool {
        self.stats.answer_bytes.load(Ordering::Relaxed).saturating_add(reserve) <= self.limit
    }

    /// Whether three quarters of the budget are spent.
    pub(super) fn short(&self) -> bool {
        self.limit != usize::MAX && self.stats.answer_bytes.load(Ordering::Relaxed) >= self.limit / 4 * 3
    }

    pub(super) fn take(&self, n: usize) {
        self.stats.answer_bytes.fetch_add(n, Ordering::Relaxed);
    }

    pub(super) fn give_back(&self, n: usize) {
        self.stats.answer_bytes.fetch_sub(n, Ordering::Relaxed);
    }
}
