//! Writing decoded trade lines ([`crate::ingest`]) into the store: one transaction per batch, idempotent
//! through each trade's natural key (`ON CONFLICT (natural_key) DO NOTHING`).
//!
//! Owns the batch's atomicity: a batch is written whole or not at all (a failure or a crash before the commit
//! leaves the store as it was), and a trade already stored is skipped, so re-running a batch after a crash
//! stores each trade once.

use super::trades::write_trades;
use super::{db, SqlMarketStore, StoreError};
use crate::ingest::TradeLine;

/// What a batch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IngestReport {
    /// Trades written.
    pub new: usize,
    /// Trades already stored (same natural key), skipped.
    pub duplicates: usize,
}

impl SqlMarketStore {
    /// Writes `lines` as one transaction. The pools they name must be in the store (a store filled with a
    /// market, e.g. with [`SqlMarketStore::load_market`], has every pool of its snapshot).
    pub fn ingest(&self, lines: &[TradeLine]) -> Result<IngestReport, StoreError> {
        self.block_on(async {
            let rows: Vec<_> = lines.iter().map(|l| (l.trade.clone(), l.asset_out, l.whole_in, l.whole_out)).collect();
            let mut tx = self.pool().begin().await.map_err(db("starting a transaction"))?;
            let new = write_trades(self, &mut tx, &rows).await?;
            tx.commit().await.map_err(db("committing"))?;
            Ok(IngestReport { new, duplicates: lines.len() - new })
        })
    }
}
