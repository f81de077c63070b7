//! The one token bucket: `rate` tokens a second up to `burst`, one token per request. Both rate limits of the
//! crate use it: the server's per-client limit (`server::limits`) and the outside-API client's (`sync::http`).
//!
//! Owns the arithmetic only. Pure: the caller passes the current time in (so it never reads a clock, and
//! stays in the synchronous core that both the server and the I/O sources sit above); must not lock, sleep
//! or know who is asking.

use std::time::{Duration, Instant};

/// A token bucket at one moment: what is left, and when that was.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenBucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    at: Instant,
}

impl TokenBucket {
    /// A full bucket at `now`. A rate that is not a positive finite number becomes 1 a second (a bucket that
    /// never refills would block for ever); a burst below 1 becomes 1.
    pub fn full(rate: f64, burst: f64, now: Instant) -> TokenBucket {
        let rate = if rate.is_finite() && rate > 0.0 { rate } else { 1.0 };
        let burst = if burst >= 1.0 { burst } else { 1.0 };
        TokenBucket { rate, burst, tokens: burst, at: now }
    }

    /// Takes a token at `now`, or says how long until one is back. A `now` before the last call counts as no
    /// time passed.
    pub fn take(&mut self, now: Instant) -> Result<(), Duration> {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        self.at = self.at.max(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - self.tokens) / self.rate))
        }
    }

    /// Throws away the tokens left (a server asked us to back off).
    pub fn drain(&mut self) {
        self.tokens = 0.0;
    }

    /// When the bucket last counted its tokens.
    pub fn last_seen(&self) -> Instant {
        self.at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_then_refills_at_the_rate() {
        let t0 = Instant::now();
        let mut b = TokenBucket::full(2.0, 2.0, t0);
        assert_eq!(b.take(t0), Ok(()));
        assert_eq!(b.take(t0), Ok(()));
        // Empty: one token is back after 1/rate = 0.5 s.
        assert_eq!(b.take(t0), Err(Duration::from_millis(500)));
        assert_eq!(b.take(t0 + Duration::from_millis(250)), Err(Duration::from_millis(250)));
        assert_eq!(b.take(t0 + Duration::from_millis(500)), Ok(()));
        // A long idle time refills to the burst, not beyond.
        let later = t0 + Duration::from_secs(60);
        assert_eq!((b.take(later), b.take(later)), (Ok(()), Ok(())));
        assert!(b.take(later).is_err());
    }

    #[test]
    fn drain_empties_and_time_going_back_adds_nothing() {
        let t0 = Instant::now() + Duration::from_secs(10);
        let mut b = TokenBucket::full(1.0, 5.0, t0);
        b.drain();
        assert_eq!(b.take(t0), Err(Duration::from_secs(1)));
        assert_eq!(b.take(t0 - Duration::from_secs(5)), Err(Duration::from_secs(1)));
        assert_eq!(b.last_seen(), t0);
    }

    #[test]
    fn nonsense_rates_and_bursts_are_clamped() {
        let t0 = Instant::now();
        for rate in [0.0, -3.0, f64::NAN, f64::INFINITY] {
            let mut b = TokenBucket::full(rate, 0.0, t0);
            assert_eq!(b.take(t0), Ok(()));
            assert_eq!(b.take(t0), Err(Duration::from_secs(1)), "rate {rate}");
        }
    }
}
