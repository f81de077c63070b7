//! Load shedding: a bounded number of routing computations at once and a bounded queue in front of them.
//!
//! Owns [`Shed`]: `slots` computations run at once (by default one per core: routing is CPU-bound, more only
//! time-slices the same cores), at most `queue` requests wait for a slot, and a request that finds the queue
//! full is refused at once with 503 [`ErrorCode::Overloaded`] and `Retry-After`, before any work. A queued
//! request waits no longer than its own deadline (the routing budget counts from its arrival), so it never
//! starts work it has no time left to finish. Must not know what the work is: the handlers hold a
//! [`Slot`] while they compute.
//!
//! Where the work runs: [`routed`] moves it to the blocking pool. [`routed_inline_first`] (quotes, whose
//! search reads its [`Budget`]) first runs it on the async worker that received the request, for at most a
//! short slice; a quote that is not done by then is dropped and computed again, from scratch and with the
//! request's full deadline, on the blocking pool. Most quotes on a normal request mix finish well inside the
//! slice, and for them the two thread hand-offs of the blocking pool (a wake-up each way) cost more than the
//! search itself; a heavy quote loses at most one slice. The worker is held for about the slice (the search
//! reads the clock every few hundred steps and between stages), so the reactor stays responsive.

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

/// [`routed`] for work that reads its [`Budget`] (a quote): once `shed` admits it, `work` runs here, on the
/// async worker, with a budget that stops it after `slice` (or at `deadline`, if that comes first); when the
/// slice stopped it, its answer is dropped and `work` runs again on the blocking pool with the full deadline,
/// keeping the slot. A zero `slice` is [`routed`]. A panic in the inline run answers 500, like one on the
/// blocking pool.
pub async fn routed_inline_first<T, F>(
    shed: &Shed,
    deadline: Instant,
    budget: Duration,
    slice: Duration,
    work: F,
) -> Routed<T>
where
    T: Send + 'static,
    F: Fn(Budget<'_>) -> Result<T, ApiError> + Send + 'static,
{
    if slice.is_zero() {
        return routed(shed, deadline, budget, work).await;
    }
    let slot = match shed.admit(deadline).await {
        Ok(slot) => slot,
        Err(r) => return Routed { result: Err(r.error(budget.as_millis())), cut_short: false },
    };
    let slice_end = (Instant::now() + slice).min(deadline);
    let (result, cut_short) = {
        let latch = Cell::new(false);
        let stop = || Instant::now() >= slice_end;
        let inline = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(Budget::until(&stop, &latch))));
        let result =
            inline.unwrap_or_else(|_| Err(ApiError::new(ErrorCode::Internal, "routing task failed: it panicked")));
        (result, latch.get())
    };
    if !cut_short || slice_end >= deadline {
        // Done within the slice, or stopped by the request's own deadline: that is the answer.
        return Routed { result, cut_short };
    }
    on_blocking_pool(slot, deadline, budget, work).await
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
    let slot = match shed.admit(deadline).await {
        Ok(slot) => slot,
        Err(r) => return Routed { result: Err(r.error(budget.as_millis())), cut_short: false },
    };
    on_blocking_pool(slot, deadline, budget, work).await
}

/// The blocking-pool half of [`routed`]: `work` runs there holding `slot`.
async fn on_blocking_pool<T, F>(slot: Slot, deadline: Instant, budget: Duration, work: F) -> Routed<T>
where
    T: Send + 'static,
    F: FnOnce(Budget<'_>) -> Result<T, ApiError> + Send + 'static,
{
    let refused = |r: Refused| Routed { result: Err(r.error(budget.as_millis())), cut_short: false };
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

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::thread::ThreadId;

    use super::*;

    const LONG: Duration = Duration::from_secs(5);

    /// Work that spins for `runs_for`, reading its budget all along; says on which thread it ran and whether
    /// it finished (rather than being stopped). Every run is recorded in `runs`.
    fn spinning(
        runs_for: Duration,
        runs: Arc<Mutex<Vec<ThreadId>>>,
    ) -> impl Fn(Budget<'_>) -> Result<(ThreadId, bool), ApiError> + Send + 'static {
        move |budget| {
            let me = std::thread::current().id();
            runs.lock().unwrap().push(me);
            let start = Instant::now();
            while start.elapsed() < runs_for {
                if budget.exhausted() {
                    return Ok((me, false));
                }
            }
            Ok((me, true))
        }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_quick_quote_is_answered_on_the_worker_that_received_it() {
        let shed = Shed::new(ShedConfig { slots: 1, queue: 0 });
        let runs = Arc::default();
        let work = spinning(Duration::ZERO, Arc::clone(&runs));
        let routed = routed_inline_first(&shed, Instant::now() + LONG, LONG, Duration::from_millis(200), work).await;
        let here = std::thread::current().id();
        assert_eq!(routed.result.unwrap(), (here, true));
        assert!(!routed.cut_short);
        assert_eq!(*runs.lock().unwrap(), vec![here], "one run, inline");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_quote_cut_by_the_slice_is_computed_again_on_the_blocking_pool_in_full() {
        let shed = Shed::new(ShedConfig { slots: 1, queue: 0 });
        let runs = Arc::default();
        let work = spinning(Duration::from_millis(40), Arc::clone(&runs));
        let routed = routed_inline_first(&shed, Instant::now() + LONG, LONG, Duration::from_millis(2), work).await;
        let here = std::thread::current().id();
        let (thread, finished) = routed.result.unwrap();
        assert!(finished && !routed.cut_short, "the second run had the whole deadline");
        assert_ne!(thread, here, "the second run is on the blocking pool");
        assert_eq!(*runs.lock().unwrap(), vec![here, thread], "first inline (cut), then on the pool");
        assert!(shed.slots.try_acquire().is_ok(), "the slot is given back");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_deadline_inside_the_slice_ends_the_quote_inline() {
        let shed = Shed::new(ShedConfig { slots: 1, queue: 0 });
        let runs = Arc::default();
        let work = spinning(Duration::from_millis(200), Arc::clone(&runs));
        let deadline = Instant::now() + Duration::from_millis(5);
        let routed = routed_inline_first(&shed, deadline, LONG, Duration::from_secs(1), work).await;
        let (thread, finished) = routed.result.unwrap();
        assert!(!finished && routed.cut_short, "stopped by the request's deadline: the best so far is the answer");
        assert_eq!(*runs.lock().unwrap(), vec![thread], "not computed again");
    }
}
