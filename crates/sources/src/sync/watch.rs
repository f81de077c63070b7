//! Following the chain: after a [`super::Syncer::build`] at masterchain seqno N, each round reads the head,
//! walks blocks N+1..=head (`transactionsByMasterchainBlock`, paged), collects the accounts they touched that are
//! pools of the snapshot (plus pools whose last read failed), re-reads only those, and moves the cursor to the
//! head. A round that fails part-way (head or a block unreadable) leaves the cursor where it was, so the next
//! round walks the same blocks again: no block is skipped. More than `max_catch_up` blocks behind (after an
//! outage), a round re-reads every pool instead of walking the gap.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use super::http::{Endpoint, EndpointCount};
use super::pools::PoolFailure;
use super::publish::PoolChange;
use super::toncenter::ReadError;
use super::{requests_between, LiveSnapshot, Syncer};

/// One round of [`Watcher::next_round`].
#[derive(Debug)]
pub struct Round {
    /// Blocks walked: `(from, to]` (empty when nothing new).
    pub from: u32,
    /// Up to this seqno (the cursor after the round).
    pub to: u32,
    /// Block `to`'s generation time (Unix seconds), when toncenter gave it with the head.
    pub time: Option<u64>,
    /// Whether the round re-read every pool (too far behind).
    pub full: bool,
    /// Pools touched by the blocks (and retried failures), read this round.
    pub touched: usize,
    /// What changed.
    pub changes: Vec<PoolChange>,
    /// Pools whose read failed (they keep their state; retried next round).
    pub failed: Vec<PoolFailure>,
    /// Requests of this round, per endpoint.
    pub requests: BTreeMap<Endpoint, EndpointCount>,
}

/// Why a round did not complete (the cursor did not move; the next round retries).
#[derive(Debug, thiserror::Error)]
#[error("round after block {cursor}: {source}")]
pub struct RoundError {
    /// The cursor, unchanged.
    pub cursor: u32,
    /// Why.
    #[source]
    pub source: ReadError,
}

/// Follows the chain from a cursor, refreshing a [`LiveSnapshot`].
#[derive(Debug)]
pub struct Watcher {
    syncer: Syncer,
    live: LiveSnapshot,
    cursor: u32,
    poll: Duration,
    retry: BTreeSet<String>,
}

impl Watcher {
    /// Follows from `cursor` (the seqno of the build of `live`), polling the head every `poll`.
    pub fn new(syncer: Syncer, live: LiveSnapshot, cursor: u32, poll: Duration) -> Watcher {
        Watcher { syncer, live, cursor, poll, retry: BTreeSet::new() }
    }

    /// The snapshot as of the cursor.
    pub fn live(&self) -> &LiveSnapshot {
        &self.live
    }

    /// The last block done.
    pub fn cursor(&self) -> u32 {
        self.cursor
    }

    /// Waits for new blocks and refreshes the pools they touched. Cancel-safe: the snapshot and the cursor
    /// change only at the end, after every read.
    pub async fn next_round(&mut self) -> Result<Round, RoundError> {
        let before = self.syncer.requests();
        let tc = self.syncer.toncenter().clone();
        let fail = |cursor: u32| move |source: ReadError| RoundError { cursor, source };
        let (head, time) = loop {
            let head = tc.masterchain_head().await.map_err(fail(self.cursor))?;
            if head.seqno > self.cursor || !self.retry.is_empty() {
                // A head behind the cursor (a lagging indexer) is the cursor, whose time is not known here.
                break if head.seqno >= self.cursor { (head.seqno, head.time) } else { (self.cursor, None) };
            }
            tokio::time::sleep(self.poll).await;
        };
        let config = self.syncer.config();
        let full = head - self.cursor > config.max_catch_up;
        let mut touched: BTreeSet<String> = self.retry.clone();
        if full {
            touched.extend(self.live.addresses().cloned());
        } else {
            for seqno in self.cursor + 1..=head {
                let accounts = tc.block_accounts(seqno, config.block_page).await.map_err(fail(self.cursor))?;
                touched.extend(accounts.iter().map(|a| a.to_hex()).filter(|a| self.live.contains(a)));
            }
        }
        let touched: Vec<String> = touched.into_iter().collect();
        let refresh = self.syncer.refresh(&mut self.live, &touched).await;
        self.retry = refresh.failed.iter().map(|f| f.address.clone()).collect();
        let from = self.cursor;
        self.cursor = head;
        Ok(Round {
            from,
            to: head,
            time,
            full,
            touched: touched.len(),
            changes: refresh.changes,
            failed: refresh.failed,
            requests: requests_between(&before, &self.syncer.requests()),
        })
    }
}
