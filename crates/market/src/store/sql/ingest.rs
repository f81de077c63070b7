//! Writing batches into the store: decoded trade lines ([`crate::ingest`]), liquidity events and wallet balances,
//! each batch in one transaction ([`SqlMarketStore::write_batch`]), idempotent through each record's natural key
//! (`ON CONFLICT (natural_key) DO NOTHING`; a balance through its latest-wins upsert).
//!
//! Owns the batch's atomicity: a batch is written whole or not at all (a failure or a crash before the commit
//! leaves the store as it was), and a record already stored is skipped, so re-running a batch after a crash
//! stores each record once. The rows of each kind are the kind's file's (`trades`, `liquidity`, `wallets`).

use super::liquidity::write_liquidity;
use super::trades::write_trades;
use super::wallets::{write_balances, BalanceReport};
use super::{db, SqlMarketStore, StoreError};
use crate::ingest::TradeLine;
use crate::liquidity::LiquidityEvent;
use crate::wallets::Balance;

/// What a batch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct IngestReport {
    /// Trades written.
    pub new: usize,
    /// Trades already stored (same natural key), skipped.
    pub duplicates: usize,
}

/// What a mixed batch did: trades and liquidity events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BatchReport {
    /// Trades.
    pub trades: IngestReport,
    /// Liquidity events.
    pub liquidity: IngestReport,
}

/// What one transaction writes: the parts given, trades first, then liquidity events, then balances.
#[derive(Default)]
struct Batch<'a> {
    trades: Option<&'a [TradeLine]>,
    events: Option<&'a [LiquidityEvent]>,
    balances: Option<&'a [Balance]>,
}

impl SqlMarketStore {
    /// Writes `batch` as ONE transaction; a part not given reports zeros.
    fn write_batch(&self, batch: Batch<'_>) -> Result<(BatchReport, BalanceReport), StoreError> {
        self.block_on(async {
            let mut tx = self.pool().begin().await.map_err(db("starting a transaction"))?;
            let (mut report, mut balance_report) = (BatchReport::default(), BalanceReport::default());
            if let Some(lines) = batch.trades {
                let rows: Vec<_> =
                    lines.iter().map(|l| (l.trade.clone(), l.asset_out, l.whole_in, l.whole_out)).collect();
                let new = write_trades(self, &mut tx, &rows).await?;
                report.trades = IngestReport { new, duplicates: lines.len() - new };
            }
            if let Some(events) = batch.events {
                let new = write_liquidity(self, &mut tx, events).await?;
                report.liquidity = IngestReport { new, duplicates: events.len() - new };
            }
            if let Some(balances) = batch.balances {
                balance_report = write_balances(self, &mut tx, balances).await?;
            }
            tx.commit().await.map_err(db("committing"))?;
            Ok((report, balance_report))
        })
    }

    /// Writes `lines` as one transaction. The pools they name must be in the store (a store filled with a
    /// market, e.g. with [`SqlMarketStore::load_market`], has every pool of its snapshot).
    pub fn ingest(&self, lines: &[TradeLine]) -> Result<IngestReport, StoreError> {
        Ok(self.write_batch(Batch { trades: Some(lines), ..Batch::default() })?.0.trades)
    }

    /// Writes decoded trade lines and liquidity events as ONE transaction (a file of `tonroute market ingest`),
    /// each kind idempotent through its natural key.
    pub fn ingest_batch(&self, trades: &[TradeLine], events: &[LiquidityEvent]) -> Result<BatchReport, StoreError> {
        Ok(self.write_batch(Batch { trades: Some(trades), events: Some(events), balances: None })?.0)
    }

    /// Writes a market's liquidity events alone (one transaction, idempotent): fills a database that was filled
    /// with a market before the liquidity table existed. Returns how many were new.
    pub fn load_liquidity(&self, events: &[LiquidityEvent]) -> Result<usize, StoreError> {
        Ok(self.write_batch(Batch { events: Some(events), ..Batch::default() })?.0.liquidity.new)
    }

    /// Writes a file's trade lines, liquidity events and balance lines as ONE transaction (a failure writes
    /// none of them).
    pub fn ingest_with_balances(
        &self,
        lines: &[TradeLine],
        events: &[LiquidityEvent],
        balances: &[Balance],
    ) -> Result<(BatchReport, BalanceReport), StoreError> {
        self.write_batch(Batch { trades: Some(lines), events: Some(events), balances: Some(balances) })
    }

    /// Writes `balances` as one transaction (see [`BalanceReport`]).
    pub fn ingest_balances(&self, balances: &[Balance]) -> Result<BalanceReport, StoreError> {
        Ok(self.write_batch(Batch { balances: Some(balances), ..Batch::default() })?.1)
    }
}
