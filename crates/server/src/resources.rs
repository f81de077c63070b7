//! The process's resources at start: file descriptors (raise the soft `RLIMIT_NOFILE` toward the hard limit,
//! fit the connection cap under what is left) and memory (the share of `--memory-budget-mb` left for answers).
//!
//! Owns the arithmetic of [`fit_connections`] and [`answer_budget`] and the reads around them ([`raise_limit`],
//! [`open_descriptors`], [`resident_bytes`]). Every connection is one descriptor; the store, the log, a second listener and the
//! runtime need some too, so the cap is clamped to the limit less the descriptors open now less a headroom
//! ([`headroom`]), and a cap above that is lowered (the binary says so at start). Without this, a cap over the
//! limit turns a flood of idle connections into `accept` failing with `EMFILE` (which the accept loop
//! survives, [`super::conn`], but every new client waits for an eviction). Must not open sockets.

/// Descriptors kept free for everything that is not a client connection: an eighth of the limit, at least 32
/// and at most 1,024 (the market store's pool, files, a metrics listener, the runtime's own).
pub fn headroom(limit: u64) -> u64 {
    (limit / 8).clamp(32, 1024)
}

/// The connection cap that fits `limit` descriptors with `open` already in use: `wanted`, or less when that
/// does not fit (at least 8, so that a tiny limit still serves someone).
pub fn fit_connections(wanted: usize, limit: u64, open: u64) -> usize {
    let available = limit.saturating_sub(open).saturating_sub(headroom(limit));
    let available = usize::try_from(available).unwrap_or(usize::MAX);
    wanted.min(available.max(8))
}

/// Raises the soft `RLIMIT_NOFILE` to the hard limit; the soft limit in force afterwards (`None` when it is
/// unlimited or cannot be read). A failure leaves the limit as it was.
#[cfg(unix)]
pub fn raise_limit() -> Option<u64> {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        let raised = rustix::process::Rlimit { current: limit.maximum, maximum: limit.maximum };
        if setrlimit(Resource::Nofile, raised).is_err() {
            // Some systems refuse an unlimited soft limit; the usual hard cap of a process is 2^20.
            let capped = rustix::process::Rlimit {
                current: Some(limit.maximum.unwrap_or(1 << 20).min(1 << 20)),
                maximum: limit.maximum,
            };
            let _ = setrlimit(Resource::Nofile, capped);
        }
    }
    getrlimit(Resource::Nofile).current
}

/// No descriptor limit to raise off Unix.
#[cfg(not(unix))]
pub fn raise_limit() -> Option<u64> {
    None
}

/// Memory a connection may hold outside the answer budget: hyper's read and write buffers
/// ([`super::conn::HYPER_BUFFER`] each), one answer piece beyond them, the task and its state.
pub const PER_CONNECTION: u64 = 2 * super::conn::HYPER_BUFFER as u64 + super::conn::ANSWER_CHUNK as u64 + 16 * 1024;

/// Memory kept for everything else the process allocates while serving: the computations in flight (routing
/// and market work, bounded by their slots), thread stacks, the allocator's free lists.
pub const HEADROOM: u64 = 96 * 1024 * 1024;

/// The bytes of answers the server may hold at once within `budget` bytes of resident memory, with
/// `resident` already in use (the graph, the market data) and `connections` at most open: what is left
/// after [`PER_CONNECTION`] per connection and [`HEADROOM`]; `None` when nothing (or less than 8 MiB) is.
pub fn answer_budget(budget: u64, resident: u64, connections: usize) -> Option<u64> {
    let held = resident + PER_CONNECTION * connections as u64 + HEADROOM;
    budget.checked_sub(held).filter(|left| *left >= 8 * 1024 * 1024)
}

/// The resident memory of this process now, bytes (Linux `VmRSS` of `/proc/self/status`; `None` elsewhere).
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmRSS:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib * 1024)
}

/// Descriptors this process has open now (Linux `/proc/self/fd`; `None` elsewhere).
pub fn open_descriptors() -> Option<u64> {
    std::fs::read_dir("/proc/self/fd").ok().map(|d| d.count() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_fits_under_the_limit_with_headroom() {
        // `ulimit -n 1024`, 20 open: 1024 − 20 − 128 = 876 connections at most.
        assert_eq!(fit_connections(1024, 1024, 20), 876);
        assert_eq!(fit_connections(500, 1024, 20), 500);
        // A large limit leaves the cap alone.
        assert_eq!(fit_connections(1024, 1 << 20, 30), 1024);
        // 256: headroom 32.
        assert_eq!(fit_connections(1024, 256, 20), 204);
        // A limit below what is open still serves a few.
        assert_eq!(fit_connections(1024, 40, 30), 8);
    }

    #[test]
    fn the_answer_budget_is_what_the_rest_leaves() {
        const MB: u64 = 1024 * 1024;
        // 512 MB, 63 MB resident, 1024 connections of 96 KiB (96 MB), 96 MB headroom: 257 MB.
        assert_eq!(PER_CONNECTION, 96 * 1024);
        assert_eq!(answer_budget(512 * MB, 63 * MB, 1024), Some(257 * MB));
        assert_eq!(answer_budget(128 * MB, 63 * MB, 1024), None);
        assert!(resident_bytes().is_some_and(|b| b > MB), "a test process has some resident memory");
    }
}
