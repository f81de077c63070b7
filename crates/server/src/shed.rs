//! Load shedding: a bounded number of computations at once, a bounded queue in front of them, and a refusal at
//! once for a request that would not be served within its deadline.
//!
//! Owns [`Shed`]: `slots` computations run at once (by default one per core: routing is CPU-bound, more only
//! time-slices the same cores), at most `queue` requests wait for a slot. A request is refused at once with 503
//! [`ErrorCode::Overloaded`] and `Retry-After`, before any work, when the queue is full, or when the measured
//! service time (an average of how long a slot is held, [`ServiceTime`]) says that the requests queued ahead
//! of it and its own computation would not be done by its deadline: it is better told now, to retry
//! elsewhere or later, than after waiting out its whole budget. A queued request waits no longer than its
//! deadline less one service time, so it never starts work it has no time left to finish (503
//! [`ErrorCode::RoutingTimeout`], also with `Retry-After`). Must not know what the work is: the handlers hold
//! a [`Slot`] while they compute. The quotes and swaps have one shedder, the market routes another.
//!
//! Where the work runs: [`routed`] moves it to the blocking pool. [`routed_inline_first`] (quotes, whose
//! search reads its [`Budget`]) first runs it on the async worker that received the request, for at most a
//! short slice; a quote that is not done by then is dropped and computed again, from scratch and with the
//! request's full deadline, on the blocking pool. Most quotes on a normal request mix finish well inside the
//! slice, and for them the two thread hand-offs of the blocking pool (a wake-up each way) cost more than the
//! search itself; a heavy quote loses at most one slice. The worker is held for about the slice (the search
//! reads the clock every few hundred steps and between stages), so the reactor stays responsive.
//!
//! A dropped inline run is work thrown away, and a heavy request mix repeats its heavy quotes: [`SlowClasses`]
//! remembers the classes of quote (pair, mode, the amount's order of magnitude, limits) whose inline run
//! overran its slice or held the worker long (the server's `QUOTE_LONG`: other connections on the worker
//! wait meanwhile), and the next quote of such a class goes to the blocking pool at once; a class computed
//! there in less than that is forgotten again. A wrong guess (a hash collision, a pool that got deeper) only
//! moves a computation between threads: the answer does not depend on where it is computed.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use tonroute_api::{ApiError, ErrorCode};
use tonroute_core::route::Budget;

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
        let cores = cores();
        ShedConfig { slots: cores, queue: 64 * cores }
    }
}

impl ShedConfig {
    /// The market routes' default: one computation per two cores (at least one) and 16 waiting per slot. A
    /// market answer takes milliseconds of CPU (a 5,000-candle chart, tens): with a slot per core a flood of
    /// them would hold every core, and `/health`, the quotes and the reactor would wait for the scheduler
    /// (measured on 2 cores, slow-reader attack: `/health` p99 101 ms with 2 slots). A quote takes
    /// microseconds: a shorter queue already spans the budget.
    pub fn market() -> ShedConfig {
        let slots = (cores() / 2).max(1);
        ShedConfig { slots, queue: 16 * slots }
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// The gate in front of the routing work.
#[derive(Debug)]
pub struct Shed {
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
    config: ShedConfig,
    slow: SlowClasses,
    service: Arc<ServiceTime>,
}

/// Classes of quote whose last inline run overran its slice or held the worker long, in a fixed table of hashes (a class is a
/// 64-bit hash chosen by the caller; two classes in one slot overwrite each other).
#[derive(Debug)]
pub struct SlowClasses {
    slots: Box<[AtomicU64]>,
}

/// Slots of [`SlowClasses`]: far more than the heavy classes of any request mix we have seen (tens).
const SLOW_CLASS_SLOTS: usize = 4096;

impl SlowClasses {
    fn new() -> SlowClasses {
        SlowClasses { slots: (0..SLOW_CLASS_SLOTS).map(|_| AtomicU64::new(0)).collect() }
    }

    fn slot(&self, class: u64) -> &AtomicU64 {
        // The modulus keeps the index below the table's length.
        &self.slots[(class % SLOW_CLASS_SLOTS as u64) as usize]
    }

    /// Whether `class` was slow last time. (Stored with the low bit set, so that an empty slot, 0,
    /// never matches.)
    pub fn is_slow(&self, class: u64) -> bool {
        self.slot(class).load(Ordering::Relaxed) == class | 1
    }

    fn mark(&self, class: u64) {
        self.slot(class).store(class | 1, Ordering::Relaxed);
    }

    fn forget(&self, class: u64) {
        let _ = self.slot(class).compare_exchange(class | 1, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

/// How long a slot is held, on average: an exponentially weighted mean (weight 1/8 for each new computation)
/// in microseconds; 0 until the first computation.
#[derive(Debug, Default)]
pub struct ServiceTime {
    mean_us: AtomicU64,
}

impl ServiceTime {
    /// The current estimate of one computation's time.
    pub fn estimate(&self) -> Duration {
        Duration::from_micros(self.mean_us.load(Ordering::Relaxed))
    }

    fn record(&self, took: Duration) {
        let x = u64::try_from(took.as_micros()).unwrap_or(u64::MAX / 8).max(1);
        let _ = self.mean_us.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |old| {
            Some(if old == 0 { x } else { (old * 7 + x) / 8 })
        });
    }
}

/// A held slot: the computation may run while it lives; dropping it records how long it was held.
#[derive(Debug)]
pub struct Slot {
    _permit: OwnedSemaphorePermit,
    since: Instant,
    service: Arc<ServiceTime>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.service.record(self.since.elapsed());
    }
}

/// Why a request got no slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// The queue was full: refused before any waiting.
    Full,
    /// The requests queued ahead and its own computation would end past its deadline: refused before any
    /// waiting.
    Late,
    /// It waited until its deadline (less one service time) without getting a slot.
    Expired,
}

impl Refused {
    /// The error answer (every one a 503 that the server sends with `Retry-After`).
    pub fn error(self, budget_ms: u128) -> ApiError {
        match self {
            Refused::Full => ApiError::new(
                ErrorCode::Overloaded,
                format!("the server is at capacity; retry after {RETRY_AFTER_SECS} s"),
            ),
            Refused::Late => ApiError::new(
                ErrorCode::Overloaded,
                format!(
                    "the server is at capacity: the requests queued ahead would not leave time to answer within \
                     {budget_ms} ms; retry after {RETRY_AFTER_SECS} s"
                ),
            ),
            Refused::Expired => ApiError::new(
                ErrorCode::RoutingTimeout,
                format!("no computing slot came free within the time budget of {budget_ms} ms; retry after {RETRY_AFTER_SECS} s"),
            ),
        }
    }

    /// The `reason` label of `tonroute_requests_shed_total`.
    pub fn label(self) -> &'static str {
        match self {
            Refused::Full => "queue_full",
            Refused::Late => "late",
            Refused::Expired => "expired",
        }
    }
}

impl Shed {
    /// A shedder with `config` (at least one slot).
    pub fn new(config: ShedConfig) -> Shed {
        let config = ShedConfig { slots: config.slots.max(1), ..config };
        Shed {
            slots: Arc::new(Semaphore::new(config.slots)),
            waiting: AtomicUsize::new(0),
            config,
            slow: SlowClasses::new(),
            service: Arc::default(),
        }
    }

    /// The measured service time.
    pub fn service_time(&self) -> &ServiceTime {
        &self.service
    }

    fn slot(&self, permit: OwnedSemaphorePermit) -> Slot {
        Slot { _permit: permit, since: Instant::now(), service: self.service.clone() }
    }

    /// The settings.
    pub fn config(&self) -> ShedConfig {
        self.config
    }

    /// The quote classes remembered as slow.
    pub fn slow_classes(&self) -> &SlowClasses {
        &self.slow
    }

    /// A slot now, or after waiting in the queue; refused at once when the queue is full or the wait the
    /// queue ahead predicts (`ahead + 1` service times over `slots`) and one service time would end past
    /// `deadline`; refused when no slot came by `deadline` less one service time.
    pub async fn admit(&self, deadline: Instant) -> Result<Slot, Refused> {
        if let Ok(p) = self.slots.clone().try_acquire_owned() {
            return Ok(self.slot(p));
        }
        let service = self.service.estimate();
        // Take a place in the queue, or leave at once when it is full.
        let mut ahead = self.waiting.load(Ordering::Relaxed);
        loop {
            if ahead >= self.config.queue {
                return Err(Refused::Full);
            }
            match self.waiting.compare_exchange_weak(ahead, ahead + 1, Ordering::AcqRel, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => ahead = now,
            }
        }
        let now = Instant::now();
        let rounds = u32::try_from(ahead + 1).unwrap_or(u32::MAX);
        let slots = u32::try_from(self.config.slots).unwrap_or(u32::MAX).max(1);
        let wait = service.saturating_mul(rounds) / slots;
        if now + wait + service > deadline {
            self.waiting.fetch_sub(1, Ordering::AcqRel);
            return Err(Refused::Late);
        }
        let latest = deadline.checked_sub(service).unwrap_or(now);
        let waited = tokio::time::timeout_at(latest.into(), self.slots.clone().acquire_owned()).await;
        self.waiting.fetch_sub(1, Ordering::AcqRel);
        match waited {
            Ok(Ok(p)) => Ok(self.slot(p)),
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
    /// Why it got no slot, when it was refused before any work.
    pub refused: Option<Refused>,
}

impl<T> Routed<T> {
    fn computed(result: Result<T, ApiError>, cut_short: bool) -> Routed<T> {
        Routed { result, cut_short, refused: None }
    }

    fn refused(r: Refused, budget: Duration) -> Routed<T> {
        Routed { result: Err(r.error(budget.as_millis())), cut_short: false, refused: Some(r) }
    }
}

/// [`routed`] for work that reads its [`Budget`] (a quote): once `shed` admits it, `work` runs here, on the
/// async worker, with a budget that stops it after `slice` (or at `deadline`, if that comes first); when the
/// slice stopped it, its answer is dropped and `work` runs again on the blocking pool with the full deadline,
/// keeping the slot. A zero `slice` is [`routed`]. A panic in the inline run answers 500, like one on the
/// blocking pool.
///
/// With a `class`, a quote of a class whose inline run overran its slice, or held the worker `long` or more,
/// goes to the blocking pool at once next time ([`SlowClasses`]); one computed there in less than `long`
/// clears its class.
pub async fn routed_inline_first<T, F>(
    shed: &Shed,
    deadline: Instant,
    budget: Duration,
    slice: Duration,
    long: Duration,
    class: Option<u64>,
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
        Err(r) => return Routed::refused(r, budget),
    };
    // A quote that held the worker `long` or more is remembered too (it finished, so nothing was thrown
    // away), so that its class leaves the worker next time: the other connections on it waited for it.
    let long = long.min(slice);
    if let Some(class) = class.filter(|&c| shed.slow.is_slow(c)) {
        let started = Instant::now();
        let routed = on_blocking_pool(slot, deadline, budget, work).await;
        if started.elapsed() < long {
            shed.slow.forget(class);
        }
        return routed;
    }
    let started = Instant::now();
    let slice_end = (started + slice).min(deadline);
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
        if let Some(class) = class.filter(|_| started.elapsed() >= long) {
            shed.slow.mark(class);
        }
        return Routed::computed(result, cut_short);
    }
    if let Some(class) = class {
        shed.slow.mark(class);
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
        Err(r) => return Routed::refused(r, budget),
    };
    on_blocking_pool(slot, deadline, budget, work).await
}

/// The blocking-pool half of [`routed`]: `work` runs there holding `slot`.
async fn on_blocking_pool<T, F>(slot: Slot, deadline: Instant, budget: Duration, work: F) -> Routed<T>
where
    T: Send + 'static,
    F: FnOnce(Budget<'_>) -> Result<T, ApiError> + Send + 'static,
{
    let task = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let latch = Cell::new(false);
        let stop = || Instant::now() >= deadline;
        let result = work(Budget::until(&stop, &latch));
        Routed::computed(result, latch.get())
    });
    let backstop = deadline + budget / 2 + Duration::from_millis(50);
    match tokio::time::timeout_at(backstop.into(), task).await {
        Ok(Ok(routed)) => routed,
        Ok(Err(join)) => {
            Routed::computed(Err(ApiError::new(ErrorCode::Internal, format!("routing task failed: {join}"))), false)
        }
        // The backstop: the computation overran its deadline by half a budget (counted as a timeout, not a
        // refusal: it had a slot).
        Err(_) => Routed::computed(
            Err(ApiError::new(
                ErrorCode::RoutingTimeout,
                format!("routing exceeded the time budget of {} ms", budget.as_millis()),
            )),
            false,
        ),
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
    async fn a_request_that_the_queue_would_make_late_is_refused_at_once() {
        let shed = Shed::new(ShedConfig { slots: 1, queue: 10 });
        // Measured: a computation holds its slot 100 ms.
        shed.service.record(Duration::from_millis(100));
        let held = shed.admit(Instant::now() + LONG).await.unwrap();
        // One slot busy, nobody queued: a request with 150 ms left would wait ~100 ms and compute ~100 ms.
        let started = Instant::now();
        let refused = shed.admit(Instant::now() + Duration::from_millis(150)).await.unwrap_err();
        assert_eq!(refused, Refused::Late);
        assert!(started.elapsed() < Duration::from_millis(50), "refused at once, not after waiting");
        assert_eq!(refused.error(150).kind(), ErrorCode::Overloaded);
        // With 250 ms left it queues, and gets the slot when it frees.
        let waiting = {
            let shed = &shed;
            async move { shed.admit(Instant::now() + Duration::from_millis(250)).await }
        };
        let release = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            drop(held);
        };
        let (slot, ()) = tokio::join!(waiting, release);
        let slot = slot.expect("admitted once the slot freed");
        // A queued request gives up one service time before its deadline.
        let started = Instant::now();
        let expired = shed.admit(Instant::now() + Duration::from_millis(260)).await.unwrap_err();
        assert_eq!(expired, Refused::Expired);
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(100) && waited < Duration::from_millis(250), "{waited:?}");
        drop(slot);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_quick_quote_is_answered_on_the_worker_that_received_it() {
        let shed = Shed::new(ShedConfig { slots: 1, queue: 0 });
        let runs = Arc::default();
        let work = spinning(Duration::ZERO, Arc::clone(&runs));
        let routed =
            routed_inline_first(&shed, Instant::now() + LONG, LONG, Duration::from_millis(200), LONG, None, work).await;
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
        let routed =
            routed_inline_first(&shed, Instant::now() + LONG, LONG, Duration::from_millis(2), LONG, None, work).await;
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
        let routed = routed_inline_first(&shed, deadline, LONG, Duration::from_secs(1), LONG, None, work).await;
        let (thread, finished) = routed.result.unwrap();
        assert!(!finished && routed.cut_short, "stopped by the request's deadline: the best so far is the answer");
        assert_eq!(*runs.lock().unwrap(), vec![thread], "not computed again");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_class_that_overran_its_slice_goes_to_the_blocking_pool_at_once_until_it_is_quick_again() {
        let shed = Shed::new(ShedConfig { slots: 1, queue: 0 });
        let here = std::thread::current().id();
        let slice = Duration::from_millis(2);
        let (heavy, other) = (0x5eed_u64, 0x0dd_u64);
        // First heavy quote: inline, cut by the slice, computed again on the pool; its class is remembered.
        let runs = Arc::default();
        let work = spinning(Duration::from_millis(40), Arc::clone(&runs));
        let routed = routed_inline_first(&shed, Instant::now() + LONG, LONG, slice, LONG, Some(heavy), work).await;
        assert!(routed.result.unwrap().1);
        assert_eq!(runs.lock().unwrap().len(), 2, "inline, then on the pool");
        assert!(shed.slow_classes().is_slow(heavy) && !shed.slow_classes().is_slow(other));
        // The next of its class: one run, on the pool, none thrown away.
        let runs = Arc::default();
        let work = spinning(Duration::from_millis(40), Arc::clone(&runs));
        let routed = routed_inline_first(&shed, Instant::now() + LONG, LONG, slice, LONG, Some(heavy), work).await;
        let (thread, finished) = routed.result.unwrap();
        assert!(finished);
        assert_eq!(*runs.lock().unwrap(), vec![thread], "one run");
        assert_ne!(thread, here, "on the blocking pool");
        // Another class is still tried inline (a wide slice: a preemption must not cut this quick quote).
        let runs = Arc::default();
        let work = spinning(Duration::ZERO, Arc::clone(&runs));
        let wide = Duration::from_secs(1);
        let routed = routed_inline_first(&shed, Instant::now() + LONG, LONG, wide, LONG, Some(other), work).await;
        assert_eq!(routed.result.unwrap(), (here, true));
        // The heavy class, now quick on the pool, is forgotten: the next one runs inline again.
        let work = spinning(Duration::ZERO, Arc::default());
        let _ = routed_inline_first(&shed, Instant::now() + LONG, LONG, wide, LONG, Some(heavy), work).await;
        assert!(!shed.slow_classes().is_slow(heavy));
        let work = spinning(Duration::ZERO, Arc::default());
        let routed = routed_inline_first(&shed, Instant::now() + LONG, LONG, wide, LONG, Some(heavy), work).await;
        assert_eq!(routed.result.unwrap().0, here, "inline again");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_class_that_held_the_worker_long_leaves_it_next_time_though_it_finished() {
        let shed = Shed::new(ShedConfig { slots: 1, queue: 0 });
        let here = std::thread::current().id();
        // `long` far above a preemption, so that the quick quote below is never taken for a long one.
        let (slice, long, class) = (Duration::from_secs(2), Duration::from_millis(50), 0xbeef_u64);
        // Inline and finished within the slice, but it held the worker 120 ms ≥ `long`: remembered.
        let runs = Arc::default();
        let work = spinning(Duration::from_millis(120), Arc::clone(&runs));
        let routed = routed_inline_first(&shed, Instant::now() + LONG, LONG, slice, long, Some(class), work).await;
        assert_eq!(routed.result.unwrap(), (here, true));
        assert_eq!(runs.lock().unwrap().len(), 1, "one run, nothing thrown away");
        assert!(shed.slow_classes().is_slow(class));
        // The next one of its class is computed on the blocking pool, once.
        let runs = Arc::default();
        let work = spinning(Duration::from_millis(120), Arc::clone(&runs));
        let routed = routed_inline_first(&shed, Instant::now() + LONG, LONG, slice, long, Some(class), work).await;
        let (thread, finished) = routed.result.unwrap();
        assert!(finished && thread != here);
        assert_eq!(*runs.lock().unwrap(), vec![thread]);
        // A quick inline quote of another class is not remembered.
        let work = spinning(Duration::ZERO, Arc::default());
        let _ = routed_inline_first(&shed, Instant::now() + LONG, LONG, slice, long, Some(1), work).await;
        assert!(!shed.slow_classes().is_slow(1));
    }
}
