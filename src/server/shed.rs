//! Load shedding: a bounded number of routing computations at once and a bounded queue in front of them.
//!
//! Owns [`Shed`]: `slots` computations run at once (by default one per core: routing is CPU-bound, more only
//! time-slices the same cores), at most `queue` requests wait for a slot, and a request that finds the queue
//! full is refused at once with 503 [`ErrorCode::Overloaded`] and `Retry-After`, before any work. A queued
//! request waits no longer than its own deadline (the routing budget counts from its arrival), so it never
//! starts work it has no time left to finish. Must not know what the work is: the handlers hold a
//! [`Slot`] while they compute.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::api::{ApiError, ErrorCode};
use crate::route::Budget;

/// Seconds a shed client is told to wait (`Retry-After`).
pub const RETRY_AFTER_SECS: u64 = 1;

/// Settings of the shedder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShedConfig {
    /// Routing computations at once.
    pub slots: usize,
    /// Requests that may wait for a slot; beyond them, 503 at once.
    pub queue: usize,
}

impl Default for ShedConfig {
    fn default() -> ShedConfig {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        ShedConfig { slots: cores, queue: 64 * cores }
    }
}

/// The gate in front of the routing work.
#[derive(Debug)]
pub struct Shed {
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
    config: ShedConfig,
}

/// A held slot: the computation may run while it lives.
#[derive(Debug)]
pub struct Slot(#[allow(dead_code)] OwnedSemaphorePermit);

/// Why a request got no slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The queue was full: refused before any waiting.
    Full,
    /// It waited until its deadline.
    Expired,
}

impl Refused {
    /// The error answer.
    pub fn error(self, budget_ms: u128) -> ApiError {
        match self {
            Refused::Full => ApiError::new(
                ErrorCode::Overloaded,
                format!("the server is at capacity; retry after {RETRY_AFTER_SECS} s"),
            ),
            Refused::Expired => {
                ApiError::new(ErrorCode::RoutingTimeout, format!("routing exceeded the time budget of {budget_ms} ms"))
            }
        }
    }
}

impl Shed {
    /// A shedder with `config` (at least one slot).
    pub fn new(config: ShedConfig) -> Shed {
        let config = ShedConfig { slots: config.slots.max(1), ..config };
        Shed { slots: Arc::new(Semaphore::new(config.slots)), waiting: AtomicUsize::new(0), config }
    }

    /// The settings.
    pub fn config(&self) -> ShedConfig {
        self.config
    }

    /// A slot now, or after waiting in the queue until `deadline` at the latest.
    pub async fn admit(&self, deadline: Instant) -> Result<Slot, Refused> {
        if let Ok(p) = self.slots.clone().try_acquire_owned() {
            return Ok(Slot(p));
        }
        // Take a place in the queue, or leave at once when it is full.
        let mut current = self.waiting.load(Ordering::Relaxed);
        loop {
            if current >= self.config.queue {
                return Err(Refused::Full);
            }
            match self.waiting.compare_exchange_weak(current, current + 1, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => current = now,
            }
        }
        let waited = tokio::time::timeout_at(deadline.into(), self.slots.clone().acquire_owned()).await;
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        match waited {
            Ok(Ok(p)) => Ok(Slot(p)),
            // The semaphore is never closed; a closed one admits nobody.
            Ok(Err(_)) | Err(_) => Err(Refused::Expired),
        }
    }
}

/// What a routing computation gave: its result and whether its budget ran out (the answer is then the best
/// found by the deadline).
#[derive(Debug)]
pub struct Routed<T> {
    /// The operation's result.
    pub result: Result<T, ApiError>,
    /// Whether the budget stopped the search.
    pub cut_short: bool,
}

/// Runs `work` on the blocking pool once `shed` admits it, with a [`Budget`] that stops the search at
/// `deadline` (counted from the request's arrival, so time spent queued counts). Refusals come back as
/// errors: [`Refused::Full`] as 503 [`ErrorCode::Overloaded`], a deadline passed in the queue as 503
/// [`ErrorCode::RoutingTimeout`]. The budget is checked by the search itself; as a backstop, a computation
/// that overruns its deadline by half a budget more is answered 503 and left to finish in the background
/// (holding its slot, since it still holds a core).
pub async fn routed<T, F>(shed: &Shed, deadline: Instant, budget: Duration, work: F) -> Routed<T>
where
    T: Send + 'static,
    F: FnOnce(Budget<'_>) -> Result<T, ApiError> + Send + 'static,
{
    let refused = |r: Refused| Routed { result: Err(r.error(budget.as_millis())), cut_short: false };
    let slot = match shed.admit(deadline).await {
        Ok(slot) => slot,
        Err(r) => return refused(r),
    };
    let task = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let latch = Cell::new(false);
        let stop = || Instant::now() >= deadline;
        let result = work(Budget::until(&stop, &latch));
        Routed { result, cut_short: latch.get() }
    });
    let backstop = deadline + budget / 2 + Duration::from_millis(50);
    match tokio::time::timeout_at(backstop.into(), task).await {
        Ok(Ok(routed)) => routed,
        Ok(Err(join)) => Routed {
            result: Err(ApiError::new(ErrorCode::Internal, format!("routing task failed: {join}"))),
            cut_short: false,
        },
        Err(_) => refused(Refused::Expired),
    }
}
