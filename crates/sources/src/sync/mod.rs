//! Live TON state (feature `sync`): a snapshot built from the exchanges' APIs and the chain, then kept fresh.
//!
//! Owns every network read of the crate: the rate-limited, retrying HTTP client ([`http`]), the exchanges'
//! pool lists ([`sources`]), toncenter ([`toncenter`]), exact pool state per exchange ([`pools`]), tracked
//! wallets' holdings ([`holdings`]), the follow-the-chain loop ([`watch`]) and where changes go ([`publish`]). Decoding is not here: answers go to
//! the pure [`crate::import`] (API lists) and [`tonroute_core::chain`] (get-methods, data cells, blocks). Files are not
//! here either: callers get [`Snapshot`]s and write them (the binary writes them atomically).
//!
//! **Exact or kept.** A pool enters a snapshot only with state read from the chain ([`crate::import::chain`]).
//! A pool whose read fails keeps its last good state (from the previous snapshot given to
//! [`Syncer::build`], or from the previous refresh while watching) and is reported; one that never had a good
//! state is left out and reported. A pool list that cannot be fetched keeps that exchange's pools of the
//! previous snapshot.
//!
//! **Freshness** ([`watch`]): follow masterchain blocks by seqno through toncenter v3
//! (`transactionsByMasterchainBlock`), intersect the accounts they touched with the pool set, and re-read only
//! those pools. Chosen over the streaming API because a seqno cursor cannot miss a change: after a failure or a
//! restart the walk resumes from the last block done, where a stream reconnect must resync every pool (it does
//! not replay gaps); it needs no subscription of 100k addresses, and it runs on the plain HTTP API the initial
//! build needs anyway. Its cost: one `masterchainInfo` per poll and one `transactionsByMasterchainBlock` page per
//! block (≈ 1 page of 256 transactions at today's load), plus the reads of the pools that changed.

pub mod config;
pub mod holdings;
pub mod http;
pub mod pools;
pub mod publish;
pub mod sources;
pub mod toncenter;
pub mod watch;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use config::SyncConfig;
use http::{Endpoint, EndpointCount, FetchError, Http};
use pools::PoolFailure;
use publish::PoolChange;
use toncenter::{ReadError, Toncenter};

use crate::import::{import_with, Context, ImportError, ImportOptions, SkipReason, Skipped};
use tonroute_core::graph::snapshot::{Snapshot, SnapshotPool};
use tonroute_core::graph::GraphError;

/// Why no snapshot was built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SyncError {
    /// The HTTP client could not be made (TLS setup).
    #[error("cannot start the HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    /// toncenter's head block could not be read.
    #[error("reading the masterchain head: {0}")]
    Head(#[source] ReadError),
    /// No pool list could be fetched and no previous snapshot holds pools.
    #[error("no pool list could be fetched: {}", errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    NoLists {
        /// Each list's failure.
        errors: Vec<FetchError>,
    },
    /// No pool's state could be read, so the build has nothing to give (not even the previous snapshot's pools
    /// refreshed): every source that failed is named. Nothing is written; a previous snapshot stays as it was.
    #[error(
        "no pool state could be read from any source: {}",
        failures.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
    )]
    NothingRead {
        /// Each source that failed or gave nothing, in the order they are read.
        failures: Vec<SourceFailure>,
    },
    /// The fetched lists do not import.
    #[error(transparent)]
    Import(#[from] ImportError),
    /// The result does not load as a graph.
    #[error("the synced snapshot does not load: {0}")]
    Graph(#[source] GraphError),
}

/// A source that gave a build nothing ([`SyncError::NothingRead`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceFailure {
    /// A pool list (or the routers / assets list) could not be fetched; the error names the endpoint.
    #[error("{0}")]
    List(#[source] FetchError),
    /// A pool list was fetched but gave no pool (empty, or every record skipped).
    #[error("{}: {records} records, no pool", endpoint.name())]
    NoPools {
        /// The list.
        endpoint: Endpoint,
        /// Records it held.
        records: usize,
    },
    /// Every pool's chain state read failed.
    #[error("toncenter: the state of all {failed} pools could not be read (first, {}: {})", first.address, first.error)]
    Reads {
        /// Pools whose read failed.
        failed: usize,
        /// The first failure.
        first: PoolFailure,
    },
}

/// A snapshot with its pools indexed by address (what a refresh updates in place).
#[derive(Debug, Clone)]
pub struct LiveSnapshot {
    snapshot: Snapshot,
    index: HashMap<String, usize>,
}

impl LiveSnapshot {
    /// Indexes `snapshot`.
    pub fn new(snapshot: Snapshot) -> LiveSnapshot {
        let index = snapshot.pools.iter().enumerate().map(|(i, p)| (p.address.clone(), i)).collect();
        LiveSnapshot { snapshot, index }
    }

    /// The snapshot.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

    /// The pool at `address` (raw form).
    pub fn pool(&self, address: &str) -> Option<&SnapshotPool> {
        self.index.get(address).map(|i| &self.snapshot.pools[*i])
    }

    /// Whether `address` (raw form) is a pool of the snapshot.
    pub fn contains(&self, address: &str) -> bool {
        self.index.contains_key(address)
    }

    /// Every pool address.
    pub fn addresses(&self) -> impl Iterator<Item = &String> {
        self.index.keys()
    }

    /// Replaces a pool (same address) and says what changed, `None` when nothing did.
    fn replace(&mut self, pool: SnapshotPool) -> Option<PoolChange> {
        let i = *self.index.get(&pool.address)?;
        let old = &self.snapshot.pools[i];
        let same = |a: &SnapshotPool, b: &SnapshotPool| serde_json::to_value(a).ok() == serde_json::to_value(b).ok();
        if same(old, &pool) {
            return None;
        }
        let only_reserves = pool.curve != "concentrated" && {
            let mut probe = old.clone();
            probe.reserves = pool.reserves.clone();
            same(&probe, &pool)
        };
        let change = if only_reserves {
            PoolChange::Reserves { address: pool.address.clone(), reserves: pool.reserves.clone() }
        } else {
            PoolChange::Pool(Box::new(pool.clone()))
        };
        self.snapshot.pools[i] = pool;
        Some(change)
    }
}

/// What one list fetch gave.
#[derive(Debug)]
pub struct ListOutcome {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// Records in it, or why it was not fetched.
    pub result: Result<usize, FetchError>,
}

/// What [`Syncer::build`] did.
#[derive(Debug)]
pub struct BuildReport {
    /// The masterchain seqno read before any pool state: watching continues from here.
    pub seqno: u32,
    /// That block's generation time (Unix seconds), when toncenter gave it with the head.
    pub time: Option<u64>,
    /// Each pool list.
    pub lists: Vec<ListOutcome>,
    /// Pools the lists gave, per `protocol/curve`.
    pub listed: BTreeMap<String, usize>,
    /// Records of the lists skipped, per reason.
    pub skipped: BTreeMap<SkipReason, usize>,
    /// A few skipped records.
    pub skipped_examples: Vec<Skipped>,
    /// Pools whose chain state was read.
    pub refreshed: usize,
    /// Pools whose read failed.
    pub failed: Vec<PoolFailure>,
    /// Of the failed pools, those kept at their previous state.
    pub kept: usize,
    /// Of the failed pools, those left out (no previous state).
    pub dropped: usize,
    /// Requests per endpoint.
    pub requests: BTreeMap<Endpoint, EndpointCount>,
}

/// The result of re-reading some pools.
#[derive(Debug, Default)]
pub struct RefreshReport {
    /// Pools whose state changed, as changes.
    pub changes: Vec<PoolChange>,
    /// Pools read and unchanged.
    pub unchanged: usize,
    /// Pools whose read failed (they keep their state).
    pub failed: Vec<PoolFailure>,
}

/// Requests made between two counter snapshots.
pub fn requests_between(
    before: &BTreeMap<Endpoint, EndpointCount>,
    after: &BTreeMap<Endpoint, EndpointCount>,
) -> BTreeMap<Endpoint, EndpointCount> {
    after
        .iter()
        .map(|(e, a)| {
            let b = before.get(e).copied().unwrap_or_default();
            (*e, EndpointCount { sent: a.sent - b.sent, retries: a.retries - b.retries, failed: a.failed - b.failed })
        })
        .filter(|(_, c)| c.sent > 0 || c.failed > 0)
        .collect()
}

/// Builds and refreshes snapshots from the live APIs.
#[derive(Debug, Clone)]
pub struct Syncer {
    config: SyncConfig,
    http: Http,
    toncenter: Toncenter,
    ctx: Arc<Context>,
}

impl Syncer {
    /// A syncer for `config`.
    pub fn new(config: SyncConfig) -> Result<Syncer, SyncError> {
        let http = Http::new(config.limits.clone(), config.api_key.clone()).map_err(SyncError::Client)?;
        let toncenter = Toncenter::new(http.clone(), &config.endpoints.toncenter);
        Ok(Syncer { config, http, toncenter, ctx: Arc::new(Context::new()) })
    }

    /// Its configuration.
    pub fn config(&self) -> &SyncConfig {
        &self.config
    }

    /// The toncenter client (shared rate limit and counters).
    pub fn toncenter(&self) -> &Toncenter {
        &self.toncenter
    }

    /// Requests so far, per endpoint.
    pub fn requests(&self) -> BTreeMap<Endpoint, EndpointCount> {
        self.http.counters().snapshot()
    }

    /// Builds a snapshot: the pool lists, then every pool's state from the chain. `previous` (the last
    /// snapshot written, if any) gives the last good state of pools whose read fails and keeps the pools of an
    /// exchange whose list cannot be fetched; its assets, protocol addresses and wallets are kept.
    pub async fn build(&self, previous: Option<&Snapshot>) -> Result<(LiveSnapshot, BuildReport), SyncError> {
        let before = self.requests();
        let head = self.toncenter.masterchain_head().await.map_err(SyncError::Head)?;
        let seqno = head.seqno;
        let fetched = sources::fetch_lists(&self.http, &self.config.endpoints, self.config.sources).await;
        let mut payloads = Vec::new();
        let mut lists = Vec::new();
        let mut failed_protocols: HashSet<&str> = HashSet::new();
        for f in fetched {
            match f.result {
                Ok(payload) => {
                    payloads.push(payload);
                    lists.push(ListOutcome { endpoint: f.endpoint, result: Ok(0) });
                }
                Err(e) => {
                    failed_protocols.extend(f.protocols.iter().copied());
                    lists.push(ListOutcome { endpoint: f.endpoint, result: Err(e) });
                }
            }
        }
        let base = previous.map(|p| {
            let mut base = p.clone();
            base.pools.retain(|pool| failed_protocols.contains(pool.protocol.as_str()));
            base
        });
        let has_pool_list = lists.iter().any(|l| l.result.is_ok() && l.endpoint.is_pool_list());
        if !has_pool_list && base.as_ref().is_none_or(|b| b.pools.is_empty()) {
            let errors = lists.into_iter().filter_map(|l| l.result.err()).collect();
            return Err(SyncError::NoLists { errors });
        }
        let report = if has_pool_list {
            import_with(base.as_ref(), &payloads, &ImportOptions { ticks_from_chain: true })?
        } else {
            // Every list failed: the previous snapshot is all there is; refresh its pools.
            let snapshot = base.clone().unwrap_or_default();
            crate::import::ImportReport::unchanged(snapshot)
        };
        for l in &mut lists {
            if let Ok(n) = &mut l.result {
                *n = report.files.iter().find(|f| f.name == l.endpoint.name()).map_or(0, |f| f.records);
            }
        }
        let mut live = LiveSnapshot::new(report.snapshot);
        let all: Vec<String> = live.addresses().cloned().collect();
        let refresh = self.refresh(&mut live, &all).await;
        // A build that read no pool's state has nothing fresh to give: it fails, naming every source, rather than
        // write an empty snapshot (or the previous one again) as a success.
        if refresh.changes.is_empty() && refresh.unchanged == 0 {
            let mut failures = Vec::new();
            for l in lists {
                match l.result {
                    Err(e) => failures.push(SourceFailure::List(e)),
                    Ok(records) if l.endpoint.is_pool_list() => {
                        failures.push(SourceFailure::NoPools { endpoint: l.endpoint, records })
                    }
                    Ok(_) => {}
                }
            }
            let failed = refresh.failed.len();
            if let Some(first) = refresh.failed.into_iter().next() {
                failures.push(SourceFailure::Reads { failed, first });
            }
            return Err(SyncError::NothingRead { failures });
        }
        // Pools never read (their read failed): the previous state, or out.
        let mut kept = 0;
        let mut out = HashSet::new();
        for f in &refresh.failed {
            match previous.and_then(|p| p.pools.iter().find(|q| q.address == f.address)) {
                Some(old)
                    if live.pool(&f.address).is_some_and(|p| p.protocol == old.protocol && p.curve == old.curve) =>
                {
                    live.replace(old.clone());
                    kept += 1;
                }
                _ => {
                    out.insert(f.address.clone());
                }
            }
        }
        let mut snapshot = live.snapshot;
        snapshot.pools.retain(|p| !out.contains(&p.address));
        snapshot.into_graph().map_err(SyncError::Graph)?;
        let live = LiveSnapshot::new(snapshot);
        let report = BuildReport {
            seqno,
            time: head.time,
            lists,
            listed: report.imported,
            skipped: report.skipped,
            skipped_examples: report.examples,
            refreshed: refresh.changes.len() + refresh.unchanged,
            dropped: out.len(),
            kept,
            failed: refresh.failed,
            requests: requests_between(&before, &self.requests()),
        };
        Ok((live, report))
    }

    /// Re-reads the pools at `addresses` (raw form; unknown ones are ignored) and applies what changed. A pool
    /// whose read fails keeps its state and is reported.
    pub async fn refresh(&self, live: &mut LiveSnapshot, addresses: &[String]) -> RefreshReport {
        let pools: Vec<SnapshotPool> = addresses.iter().filter_map(|a| live.pool(a).cloned()).collect();
        let asked: HashSet<String> = pools.iter().map(|p| p.address.clone()).collect();
        let results = pools::refresh(&self.toncenter, pools, &self.ctx, self.config.limits.concurrency).await;
        let mut report = RefreshReport::default();
        let mut answered = HashSet::new();
        for r in results {
            match r {
                Ok(pool) => {
                    answered.insert(pool.address.clone());
                    match live.replace(pool) {
                        Some(change) => report.changes.push(change),
                        None => report.unchanged += 1,
                    }
                }
                Err(f) => {
                    answered.insert(f.address.clone());
                    report.failed.push(f);
                }
            }
        }
        for missing in asked.difference(&answered) {
            report.failed.push(PoolFailure { address: missing.clone(), error: Box::new(pools::PoolReadError::Lost) });
        }
        report.changes.sort_by(|a, b| a.address().cmp(b.address()));
        report.failed.sort_by(|a, b| a.address.cmp(&b.address));
        report
    }
}
