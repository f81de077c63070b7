//! Liquidity events in the database (table `liquidity_events`, migration 0010): writing them (the bundled sample's
//! history, ingest lines; idempotent through each event's natural key) and reading them back for the view.
//!
//! Owns the mapping between [`LiquidityEvent`] and its rows; must not check events (the sample's are checked by
//! the replay, a line's by [`crate::liquidity::parse_liquidity_line`]).

use sqlx::{Any, Row, Transaction};

use super::rows::{address, corrupt, insert, uint, Returning, Value};
use super::{db, SqlMarketStore, StoreError};
use crate::liquidity::{LiquidityEvent, LiquidityKind};

const COLS: &[(&str, bool)] = &[
    ("natural_key", false),
    ("time", false),
    ("block", false),
    ("mc_seq_no", false),
    ("pool", false),
    ("kind", false),
    ("provider", false),
    ("amount0", true),
    ("amount1", true),
    ("lp", true),
    ("min_lp_out", true),
    ("deposit_address", false),
    ("tx_hash", false),
    ("reserve0_after", true),
    ("reserve1_after", true),
];

/// Writes `events` in `tx`; returns how many were new.
pub(super) async fn write_liquidity(
    store: &SqlMarketStore,
    tx: &mut Transaction<'_, Any>,
    events: &[LiquidityEvent],
) -> Result<usize, StoreError> {
    let rows: Vec<Vec<Value>> = events
        .iter()
        .map(|e| {
            vec![
                Value::Text(e.natural_key()),
                Value::Int(e.time),
                Value::Int(e.block()),
                Value::OptInt(e.mc_seq_no),
                Value::Text(e.pool.to_hex()),
                Value::Text(e.kind.as_str().to_string()),
                Value::Text(e.provider.to_hex()),
                Value::Text(e.amounts[0].to_string()),
                Value::Text(e.amounts[1].to_string()),
                Value::Text(e.lp.to_string()),
                Value::Text(e.min_lp_out.to_string()),
                Value::OptText(e.deposit_address.as_ref().map(|a| a.to_hex())),
                Value::OptText(e.tx_hash.clone()),
                Value::OptText(e.reserves_after.map(|r| r[0].to_string())),
                Value::OptText(e.reserves_after.map(|r| r[1].to_string())),
            ]
        })
        .collect();
    let inserted = insert(
        store,
        tx,
        "liquidity_events",
        COLS,
        &rows,
        "ON CONFLICT (natural_key) DO NOTHING RETURNING id",
        Returning::Rows,
    )
    .await?
    .rows;
    Ok(inserted.len())
}

/// Every stored liquidity event, in time order (ties in arrival order).
pub(super) async fn read_liquidity(store: &SqlMarketStore) -> Result<Vec<LiquidityEvent>, StoreError> {
    let rows = sqlx::query(
        "SELECT time, mc_seq_no, pool, kind, provider, CAST(amount0 AS TEXT), CAST(amount1 AS TEXT), \
         CAST(lp AS TEXT), CAST(min_lp_out AS TEXT), deposit_address, tx_hash, CAST(reserve0_after AS TEXT), \
         CAST(reserve1_after AS TEXT) FROM liquidity_events ORDER BY time, id",
    )
    .fetch_all(store.pool())
    .await
    .map_err(db("reading liquidity events"))?;
    let get = |r: &sqlx::any::AnyRow, i: usize| r.try_get::<String, _>(i).map_err(db("reading a row"));
    let opt = |r: &sqlx::any::AnyRow, i: usize| r.try_get::<Option<String>, _>(i).map_err(db("reading a row"));
    let mut out = Vec::with_capacity(rows.len());
    for r in &rows {
        let kind_text = get(r, 3)?;
        let reserves_after = match (opt(r, 11)?, opt(r, 12)?) {
            (Some(a), Some(b)) => Some([uint("reserve0_after", &a)?, uint("reserve1_after", &b)?]),
            _ => None,
        };
        out.push(LiquidityEvent {
            time: r.try_get::<i64, _>(0).map_err(db("reading a row"))?,
            mc_seq_no: r.try_get::<Option<i64>, _>(1).map_err(db("reading a row"))?,
            pool: address("pool", &get(r, 2)?)?,
            kind: LiquidityKind::parse(&kind_text).ok_or_else(|| corrupt("kind", &kind_text))?,
            provider: address("provider", &get(r, 4)?)?,
            amounts: [uint("amount0", &get(r, 5)?)?, uint("amount1", &get(r, 6)?)?],
            lp: uint("lp", &get(r, 7)?)?,
            min_lp_out: uint("min_lp_out", &get(r, 8)?)?,
            deposit_address: opt(r, 9)?.map(|a| address("deposit_address", &a)).transpose()?,
            tx_hash: opt(r, 10)?,
            reserves_after,
        });
    }
    Ok(out)
}

/// The highest liquidity-event id (0 when none): part of the view's generation.
pub(super) async fn latest_id(store: &SqlMarketStore) -> Result<i64, StoreError> {
    let row = sqlx::query("SELECT COALESCE(MAX(id), 0) FROM liquidity_events")
        .fetch_one(store.pool())
        .await
        .map_err(db("reading the latest liquidity event"))?;
    row.try_get::<i64, _>(0).map_err(db("reading the latest liquidity event"))
}

impl SqlMarketStore {
    /// How many liquidity events the store holds.
    pub fn liquidity_count(&self) -> Result<i64, StoreError> {
        self.count("SELECT COUNT(*) FROM liquidity_events", "counting liquidity events")
    }
}
