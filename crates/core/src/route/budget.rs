//! How long a quote may search: the caller's stop condition, read by the search at coarse points.
//!
//! The core has no clock. A [`Budget`] wraps a caller's `Fn() -> bool` ("stop now?"): the server passes one
//! that reads its deadline, tests pass one that counts calls (deterministic), and [`Budget::UNLIMITED`] never
//! stops. The search asks it every [`CHECK_EVERY`] path steps and between stages; once it says stop, every
//! later search returns at once with what it has kept, the remaining stages are skipped, and the quote is the
//! best of what was found (exact, settled like any other), or [`super::RouteError::BudgetExhausted`] when
//! nothing was.
//!
//! Why a closure and not an iteration count: the server's promise is about time, and the time one step takes
//! varies by graph size, by request and by how many other requests share the cores; a count would either cut
//! quotes that had time left or overrun under load. The closure keeps the clock at the edge (the server) and
//! the core pure; an iteration budget is still one closure away (`|| { n.set(n.get() + 1); n.get() > N }`).

use std::cell::Cell;

/// Path steps between two reads of the stop condition (a deadline read costs about 25 ns; a step about as
/// much, so reading every 256th keeps the overhead under a percent and the overrun under a millisecond).
pub const CHECK_EVERY: u32 = 256;

/// The stop condition of one quote. Once it has said stop it is remembered: a deadline does not come back.
#[derive(Clone, Copy)]
pub struct Budget<'a> {
    stop: Option<&'a dyn Fn() -> bool>,
    stopped: Option<&'a Cell<bool>>,
}

impl std::fmt::Debug for Budget<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Budget").field("limited", &self.stop.is_some()).finish()
    }
}

/// [`Budget::UNLIMITED`].
impl Default for Budget<'_> {
    fn default() -> Self {
        Budget::UNLIMITED
    }
}

impl<'a> Budget<'a> {
    /// Never stops.
    pub const UNLIMITED: Budget<'static> = Budget { stop: None, stopped: None };

    /// Stops once `stop` returns true; `latch` remembers it (and tells the caller afterwards whether the
    /// quote was cut short).
    pub fn until(stop: &'a dyn Fn() -> bool, latch: &'a Cell<bool>) -> Budget<'a> {
        Budget { stop: Some(stop), stopped: Some(latch) }
    }

    /// Whether the stop condition already said stop (no call to it: cheap enough for every step).
    #[inline(always)]
    pub fn latched(&self) -> bool {
        self.stopped.is_some_and(Cell::get)
    }

    /// Whether the search must stop now (asks the stop condition unless it already said so).
    #[inline]
    pub fn exhausted(&self) -> bool {
        match (self.stop, self.stopped) {
            (Some(stop), Some(latch)) => {
                if latch.get() {
                    return true;
                }
                let now = stop();
                latch.set(now);
                now
            }
            _ => false,
        }
    }
}
