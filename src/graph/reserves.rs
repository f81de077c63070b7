//! Per-pool reserves that writers replace in place while readers keep quoting.
//!
//! A sequence lock per pool: a writer makes the sequence odd, stores the four 64-bit words of the two
//! reserves and makes it even again; a reader retries until it sees the same even sequence before and after
//! its read. Readers never block writers and never see a torn pair. Writers to the same pool serialise on
//! the sequence with a compare-exchange.

use std::sync::atomic::{fence, AtomicU64, Ordering};

/// Two `u128` reserves behind a sequence lock.
#[derive(Debug, Default)]
pub(crate) struct ReserveCell {
    seq: AtomicU64,
    words: [AtomicU64; 4],
}

#[inline]
fn split(v: u128) -> (u64, u64) {
    // Truncation is the point: low and high halves of the value.
    (v as u64, (v >> 64) as u64)
}

#[inline]
fn join(lo: u64, hi: u64) -> u128 {
    u128::from(lo) | (u128::from(hi) << 64)
}

impl ReserveCell {
    pub(crate) fn new(reserves: [u128; 2]) -> ReserveCell {
        let cell = ReserveCell::default();
        cell.store(reserves);
        cell
    }

    /// A consistent copy of the two reserves.
    #[inline]
    pub(crate) fn load(&self) -> [u128; 2] {
        loop {
            let before = self.seq.load(Ordering::Acquire);
            if before & 1 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let w: [u64; 4] = std::array::from_fn(|i| self.words[i].load(Ordering::Relaxed));
            fence(Ordering::Acquire);
            if self.seq.load(Ordering::Relaxed) == before {
                return [join(w[0], w[1]), join(w[2], w[3])];
            }
        }
    }

    /// Replaces the reserves; concurrent readers see either the old or the new pair.
    #[inline]
    pub(crate) fn store(&self, reserves: [u128; 2]) {
        let mut seq = self.seq.load(Ordering::Relaxed);
        loop {
            if seq & 1 == 1 {
                std::hint::spin_loop();
                seq = self.seq.load(Ordering::Relaxed);
                continue;
            }
            match self.seq.compare_exchange_weak(seq, seq + 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => break,
                Err(now) => seq = now,
            }
        }
        fence(Ordering::Release);
        let (a, b) = split(reserves[0]);
        let (c, d) = split(reserves[1]);
        for (slot, v) in self.words.iter().zip([a, b, c, d]) {
            slot.store(v, Ordering::Relaxed);
        }
        self.seq.store(seq + 2, Ordering::Release);
    }
}
