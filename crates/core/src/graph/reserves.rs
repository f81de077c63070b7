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
    /// Float summaries (`s`, `c` of each direction) derived from the reserves, as f64 bits; written under
    /// the same sequence so they always match the reserves.
    forms: [AtomicU64; 4],
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
    pub(crate) fn new(reserves: [u128; 2], forms: [f64; 4]) -> ReserveCell {
        let cell = ReserveCell::default();
        cell.store(reserves, forms);
        cell
    }

    /// The seqlock read: runs `read` (relaxed loads of the cell's words) until no write ran meanwhile; an odd
    /// sequence is a write in progress. Every reader below goes through here.
    #[inline]
    fn consistent<T>(&self, read: impl Fn() -> T) -> T {
        loop {
            let before = self.seq.load(Ordering::Acquire);
            if before & 1 == 1 {
                std::hint::spin_loop();
                continue;
            }
            let value = read();
            fence(Ordering::Acquire);
            if self.seq.load(Ordering::Relaxed) == before {
                return value;
            }
        }
    }

    /// The float summary `(s, c)` of one direction (0: token0 in).
    #[inline]
    pub(crate) fn form(&self, direction: usize) -> (f64, f64) {
        let (s, c) = self.consistent(|| {
            (self.forms[direction * 2].load(Ordering::Relaxed), self.forms[direction * 2 + 1].load(Ordering::Relaxed))
        });
        (f64::from_bits(s), f64::from_bits(c))
    }

    /// Both directions' float summaries `[s01, c01, s10, c10]`, consistently.
    #[inline]
    pub(crate) fn forms(&self) -> [f64; 4] {
        let f: [u64; 4] = self.consistent(|| std::array::from_fn(|i| self.forms[i].load(Ordering::Relaxed)));
        f.map(f64::from_bits)
    }

    /// A consistent copy of the two reserves.
    #[inline]
    pub(crate) fn load(&self) -> [u128; 2] {
        let w: [u64; 4] = self.consistent(|| std::array::from_fn(|i| self.words[i].load(Ordering::Relaxed)));
        [join(w[0], w[1]), join(w[2], w[3])]
    }

    /// Replaces the reserves; concurrent readers see either the old or the new pair.
    #[inline]
    pub(crate) fn store(&self, reserves: [u128; 2], forms: [f64; 4]) {
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
        for (slot, v) in self.forms.iter().zip(forms) {
            slot.store(v.to_bits(), Ordering::Relaxed);
        }
        self.seq.store(seq + 2, Ordering::Release);
    }
}
