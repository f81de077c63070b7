//! Writing batches into the store: decoded trade lines ([`crate::ingest`]), liquidity events and wallet balances,
//! each batch in one transaction ([`SqlMarketStore::write_batch`]), idempotent through each record's natural key
//! (`ON CONFLICT (natural_key) DO NOTHING`; a balance through its latest-wins upsert).
//!
//! Owns the batch's atomicity: a batch is written whole or not at all (a failure or a crash before the commit
//! leaves the store as it was), and a record already stored is skipped, so re-running a batch after a crash
//! stores each record once. The rows of each kind are the kind's file's (`trades`, `liquidity`, `wallets`).
//!
//! A record whose key is stored with different content is not "already stored": after its rows are written (so
//! that a version committed meanwhile by another writer is seen too) each record is compared with the stored
//! version of its key ([`crate::conflict`]), and a difference fails the batch with [`StoreError::Conflict`],
//! rolling it back.

use super::liquidity::write_liquidity;
use super::trades::write_trades;
use super::wallets::{write_balances, BalanceReport};
use std::collections::HashMap;

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

use super::rows::{int, text, uint};
use super::{db, Engine, RecordKind, SqlMarketStore, StoreError};
use crate::conflict::{self, Against, Facts, Record};
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
                let records: Vec<Record> = lines.iter().map(conflict::trade_record).collect();
                check_keys(self, &mut tx, RecordKind::Trade, &records).await?;
                report.trades = IngestReport { new, duplicates: lines.len() - new };
            }
            if let Some(events) = batch.events {
                let new = write_liquidity(self, &mut tx, events).await?;
                let records: Vec<Record> = events.iter().map(conflict::liquidity_record).collect();
                check_keys(self, &mut tx, RecordKind::Liquidity, &records).await?;
                report.liquidity = IngestReport { new, duplicates: events.len() - new };
            }
            if let Some(balances) = batch.balances {
                balance_report = write_balances(self, &mut tx, balances).await?;
                check_balances(&mut tx, balances).await?;
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

/// The stored facts of trades or liquidity events by natural key: `SELECT natural_key, <facts> FROM <table> WHERE
/// natural_key IN (…)`, and each row's facts read by `facts`.
async fn stored_facts(
    store: &SqlMarketStore,
    tx: &mut Transaction<'_, Any>,
    kind: RecordKind,
    keys: &[&str],
) -> Result<HashMap<String, Facts>, StoreError> {
    let select = match kind {
        RecordKind::Trade => {
            "SELECT natural_key, time, asset_in, CAST(amount_in AS TEXT), CAST(amount_out AS TEXT), trader \
             FROM trades WHERE natural_key IN "
        }
        _ => {
            "SELECT natural_key, time, provider, CAST(amount0 AS TEXT), CAST(amount1 AS TEXT), CAST(lp AS TEXT) \
             FROM liquidity_events WHERE natural_key IN "
        }
    };
    let facts = |r: &AnyRow| -> Result<Facts, StoreError> {
        Ok(match kind {
            RecordKind::Trade => conflict::trade_facts(
                int(r, 1)?,
                &text(r, 2)?,
                uint("amount_in", &text(r, 3)?)?,
                uint("amount_out", &text(r, 4)?)?,
                &text(r, 5)?,
            ),
            _ => conflict::liquidity_facts(
                int(r, 1)?,
                &text(r, 2)?,
                [uint("amount0", &text(r, 3)?)?, uint("amount1", &text(r, 4)?)?],
                uint("lp", &text(r, 5)?)?,
            ),
        })
    };
    let mut out = HashMap::new();
    for chunk in keys.chunks(1_000) {
        let marks: Vec<String> = (1..=chunk.len())
            .map(|n| if store.engine() == Engine::Postgres { format!("${n}") } else { "?".to_string() })
            .collect();
        let sql = format!("{select}({})", marks.join(", "));
        let mut q = sqlx::query(&sql);
        for key in chunk {
            q = q.bind(key.to_string());
        }
        for r in q.fetch_all(&mut **tx).await.map_err(db("reading stored records to compare"))? {
            out.insert(text(&r, 0)?, facts(&r)?);
        }
    }
    Ok(out)
}

/// Fails with [`StoreError::Conflict`] at the first of `records` (trades or liquidity events, just written)
/// whose key is stored with other facts.
async fn check_keys(
    store: &SqlMarketStore,
    tx: &mut Transaction<'_, Any>,
    kind: RecordKind,
    records: &[Record],
) -> Result<(), StoreError> {
    let keys: Vec<&str> = records.iter().map(|r| r.key.as_str()).collect();
    let stored = stored_facts(store, tx, kind, &keys).await?;
    for (index, record) in records.iter().enumerate() {
        let found = stored.get(&record.key).and_then(|facts| record.conflict(facts, Against::Stored));
        if let Some(c) = found {
            return Err(StoreError::Conflict { kind, index, conflict: Box::new(c) });
        }
    }
    Ok(())
}

/// Fails with [`StoreError::Conflict`] at the first balance (just written) whose owner and asset are stored with
/// the same `as_of` and block but another balance: the same reading cannot give two balances.
async fn check_balances(tx: &mut Transaction<'_, Any>, balances: &[Balance]) -> Result<(), StoreError> {
    for (index, b) in balances.iter().enumerate() {
        let row = sqlx::query(
            "SELECT CAST(balance AS TEXT), as_of, block FROM wallet_balances WHERE owner = $1 AND asset = $2",
        )
        .bind(b.owner.to_hex())
        .bind(b.asset.to_string())
        .fetch_optional(&mut **tx)
        .await
        .map_err(db("reading stored balances to compare"))?;
        let Some(r) = row else { continue };
        let block: Option<i64> = r.try_get(2).map_err(db("reading a balance"))?;
        if int(&r, 1)? != b.as_of.unix() || block != b.block.map(i64::from) {
            continue;
        }
        let stored = conflict::balance_facts(uint("balance", &text(&r, 0)?)?);
        if let Some(c) = conflict::balance_record(b).conflict(&stored, Against::Stored) {
            return Err(StoreError::Conflict { kind: RecordKind::Balance, index, conflict: Box::new(c) });
        }
    }
    Ok(())
}
