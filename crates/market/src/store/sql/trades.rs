//! Trades in the database (tables `trades` and `pool_states`): writing them (the bundled sample's, trade lines;
//! idempotent through each trade's natural key, with the pool state recorded beside a trade when known) and
//! reading a trade row back as a [`StoredTrade`].
//!
//! Owns the mapping between [`StoredTrade`] and its rows; must not check trades (the replay and the trade lines'
//! parser do) nor derive prices.

use std::collections::HashMap;

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};

use super::rows::{address, corrupt, float, insert, int, rows_per_statement, text, uint, Returning, Value};
use super::{db, SqlMarketStore, StoreError};
use crate::stored::{StoredPoolState, StoredTrade};
use tonroute_core::asset::Asset;
use tonroute_core::pool::concentrated::ClState;

/// The natural key of a trade (kept here for the store's callers; the conflict check owns it).
pub use crate::conflict::trade_key as natural_key;

const TRADE_COLS: &[(&str, bool)] = &[
    ("natural_key", false),
    ("time", false),
    ("pool", false),
    ("asset_in", false),
    ("asset_out", false),
    ("amount_in", true),
    ("amount_out", true),
    ("protocol_fee_out", true),
    ("whole_in", false),
    ("whole_out", false),
    ("price_usd_in", false),
    ("price_usd_out", false),
    ("ton_usd", false),
    ("volume_usd", false),
    ("trader", false),
    ("tx_hash", false),
];

/// Writes `trades` (each with its asset out and the whole-token amounts) in `tx`; returns how many were new.
/// Pool states recorded with a trade are written beside it.
pub(super) async fn write_trades(
    store: &SqlMarketStore,
    tx: &mut Transaction<'_, Any>,
    trades: &[(StoredTrade, Asset, f64, f64)],
) -> Result<usize, StoreError> {
    if store.engine() == super::Engine::Postgres {
        // Writers of trades take turns (the lock ends with the transaction), so trade ids become visible in
        // increasing order: the statistics fold reads the ids above the last one it folded, and two writers
        // committing out of order would hide the lower ids from it. SQLite has one writer at a time anyway.
        sqlx::query("SELECT 1 FROM (SELECT pg_advisory_xact_lock(2207)) AS writers")
            .execute(&mut **tx)
            .await
            .map_err(db("waiting for other writers of trades"))?;
    }
    let mut new = 0;
    for chunk in trades.chunks(rows_per_statement(TRADE_COLS.len())) {
        let rows: Vec<Vec<Value>> = chunk
            .iter()
            .map(|(t, out, whole_in, whole_out)| {
                vec![
                    Value::Text(natural_key(t)),
                    Value::Int(t.time),
                    Value::Text(t.pool.to_hex()),
                    Value::Text(t.asset_in.to_string()),
                    Value::Text(out.to_string()),
                    Value::Text(t.amount_in.to_string()),
                    Value::Text(t.amount_out.to_string()),
                    Value::Text(t.protocol_fee_out.to_string()),
                    Value::Float(*whole_in),
                    Value::Float(*whole_out),
                    Value::Float(t.usd_in),
                    Value::Float(t.usd_out),
                    Value::Float(t.ton_usd),
                    Value::Float(t.volume_usd),
                    Value::Text(t.trader.to_hex()),
                    Value::OptText(t.tx_hash.clone()),
                ]
            })
            .collect();
        // Trade lines carry no pool state: the count of inserted rows is all a chunk needs to report, so the
        // ids (one returned row per new trade) are only asked for when states are written beside the trades.
        if chunk.iter().all(|(t, ..)| t.state_after.is_none()) {
            new += insert(
                store,
                tx,
                "trades",
                TRADE_COLS,
                &rows,
                "ON CONFLICT (natural_key) DO NOTHING",
                Returning::Count,
            )
            .await?
            .count;
            continue;
        }
        let inserted = insert(
            store,
            tx,
            "trades",
            TRADE_COLS,
            &rows,
            "ON CONFLICT (natural_key) DO NOTHING RETURNING id, natural_key",
            Returning::Rows,
        )
        .await?
        .rows;
        new += inserted.len();
        let by_key: HashMap<String, i64> = inserted
            .iter()
            .map(|r| Ok((r.try_get::<String, _>(1)?, r.try_get::<i64, _>(0)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(db("reading new trade ids"))?;
        let states: Vec<Vec<Value>> = chunk
            .iter()
            .filter_map(|(t, ..)| {
                let id = *by_key.get(&natural_key(t))?;
                let s = t.state_after?;
                let cl = s.concentrated;
                Some(vec![
                    Value::Text(t.pool.to_hex()),
                    Value::Int(t.time),
                    Value::Int(id),
                    Value::Text(s.reserves[0].to_string()),
                    Value::Text(s.reserves[1].to_string()),
                    Value::OptText(cl.map(|c| c.sqrt_price_x96.to_string())),
                    Value::OptInt(cl.map(|c| i64::from(c.tick))),
                    Value::OptText(cl.map(|c| c.liquidity.to_string())),
                ])
            })
            .collect();
        insert(
            store,
            tx,
            "pool_states",
            &[
                ("pool", false),
                ("time", false),
                ("trade_id", false),
                ("reserve0", true),
                ("reserve1", true),
                ("sqrt_price_x96", false),
                ("tick", false),
                ("liquidity", true),
            ],
            &states,
            "ON CONFLICT (trade_id) DO NOTHING",
            Returning::Rows,
        )
        .await?;
    }
    Ok(new)
}

/// The columns [`stored_trade`] reads: a trade (`t`) and the pool state recorded with it (`s`, when any).
pub(super) const TRADE_SELECT: &str = "SELECT t.time, t.pool, t.asset_in, CAST(t.amount_in AS TEXT), \
     CAST(t.amount_out AS TEXT), CAST(t.protocol_fee_out AS TEXT), t.trader, t.tx_hash, t.price_usd_in, \
     t.price_usd_out, t.ton_usd, t.volume_usd, CAST(s.reserve0 AS TEXT), CAST(s.reserve1 AS TEXT), \
     s.sqrt_price_x96, s.tick, CAST(s.liquidity AS TEXT), t.id \
     FROM trades t LEFT JOIN pool_states s ON s.trade_id = t.id";

/// A row of [`TRADE_SELECT`]: the trade's id and the trade.
pub(super) fn stored_trade(r: &AnyRow) -> Result<(i64, StoredTrade), StoreError> {
    let asset_text = text(r, 2)?;
    let state_after = match r.try_get::<Option<String>, _>(12).map_err(db("reading a row"))? {
        None => None,
        Some(r0) => {
            let r1 = text(r, 13)?;
            let concentrated = match r.try_get::<Option<String>, _>(14).map_err(db("reading a row"))? {
                None => None,
                Some(sqrt) => Some(ClState {
                    sqrt_price_x96: primitive_types::U256::from_dec_str(&sqrt)
                        .map_err(|_| corrupt("sqrt_price_x96", &sqrt))?,
                    tick: i32::try_from(int(r, 15)?).map_err(|_| corrupt("tick", "out of range"))?,
                    liquidity: uint("liquidity", &text(r, 16)?)?,
                }),
            };
            Some(StoredPoolState { reserves: [uint("reserve0", &r0)?, uint("reserve1", &r1)?], concentrated })
        }
    };

    let trade = StoredTrade {
        time: int(r, 0)?,
        pool: address("pool", &text(r, 1)?)?,
        asset_in: Asset::parse(&asset_text).map_err(|_| corrupt("asset_in", &asset_text))?,
        amount_in: uint("amount_in", &text(r, 3)?)?,
        amount_out: uint("amount_out", &text(r, 4)?)?,
        protocol_fee_out: uint("protocol_fee_out", &text(r, 5)?)?,
        trader: address("trader", &text(r, 6)?)?,
        tx_hash: r.try_get::<Option<String>, _>(7).map_err(db("reading a row"))?,
        state_after,
        usd_in: float(r, 8)?,
        usd_out: float(r, 9)?,
        ton_usd: float(r, 10)?,
        volume_usd: float(r, 11)?,
    };
    Ok((int(r, 17)?, trade))
}
