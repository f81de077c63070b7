//! Writing a replayed market (the bundled sample) into the database and reading the rows back as a market.
//!
//! Owns the mapping between [`MarketData`] and the tables. Writing is one transaction and idempotent: every row
//! has a natural key and is inserted with `ON CONFLICT DO NOTHING`, so loading the same sample twice (or from two
//! processes at once) stores it once.

use std::collections::{BTreeMap, HashMap};

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};
use tonlib_core::TonAddress;

use super::{db, SqlMarketStore, StoreError};
use crate::asset::Asset;
use crate::market::replay::{AffiliateRecord, CoinRecord, MarketData, MarketFile, RewardRecord};
use crate::market::stored::{StoredPoolState, StoredTrade};
use crate::market::types::DateTime;
use crate::market::units::whole;
use crate::pool::concentrated::ClState;

/// Parameters per multi-row INSERT: a statement carries `PARAMS / columns` rows (trades: 1,000 rows of 16
/// columns), well under both engines' limits (SQLite 32,766 since 3.32, PostgreSQL 65,535). Fewer, larger
/// statements are what makes a batch fast: one parse/plan (cached per connection by sqlx), one round trip and one
/// index descent per row instead of a statement per few rows.
const PARAMS: usize = 16_000;

/// Rows per statement for `columns` columns (at least one).
pub(super) fn rows_per_statement(columns: usize) -> usize {
    (PARAMS / columns.max(1)).max(1)
}

/// A value bound to a statement.
#[derive(Debug, Clone)]
pub(super) enum Value {
    Text(String),
    OptText(Option<String>),
    Int(i64),
    OptInt(Option<i64>),
    Float(f64),
}

/// `INSERT INTO table (cols) VALUES (…), (…) [suffix]` for `rows`, in `engine`'s placeholders: PostgreSQL numbers
/// them (`$1`, `$2::numeric` on amount columns, `numeric[i]`); SQLite gets anonymous `?` because its driver
/// (sqlx-sqlite) looks every NAMED parameter up by index in a list, `sqlite3_bind_parameter_name`, which is linear
/// in the statement's parameter count: numbered placeholders made binding a 3,200-parameter statement quadratic
/// (35% of the ingest profile at 200 rows per statement), anonymous ones bind in order at constant cost.
pub(super) fn insert_sql(
    engine: super::Engine,
    table: &str,
    cols: &[&str],
    numeric: &[bool],
    rows: usize,
    suffix: &str,
) -> String {
    use std::fmt::Write as _;
    let mut sql = format!("INSERT INTO {table} ({}) VALUES ", cols.join(", "));
    let mut n = 0;
    for r in 0..rows {
        if r > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        for (c, &num) in numeric.iter().enumerate() {
            n += 1;
            if c > 0 {
                sql.push_str(", ");
            }
            match engine {
                super::Engine::Sqlite => sql.push('?'),
                // Writing into a String cannot fail.
                super::Engine::Postgres => {
                    let _ = write!(sql, "${n}{}", if num { "::numeric" } else { "" });
                }
            }
        }
        sql.push(')');
    }
    sql.push(' ');
    sql.push_str(suffix);
    sql
}

/// The statement inserting `chunk` (a row per entry) into `table`, its values bound in order.
fn insert_query<'q>(
    store: &SqlMarketStore,
    sql: &'q mut String,
    table: &str,
    cols: &[(&str, bool)],
    chunk: &[Vec<Value>],
    suffix: &str,
) -> sqlx::query::Query<'q, Any, sqlx::any::AnyArguments<'q>> {
    let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
    let numeric: Vec<bool> = cols.iter().map(|c| c.1).collect();
    *sql = insert_sql(store.engine, table, &names, &numeric, chunk.len(), suffix);
    let mut q = sqlx::query(sql.as_str());
    for row in chunk {
        for v in row {
            q = match v {
                Value::Text(s) => q.bind(s.clone()),
                Value::OptText(s) => q.bind(s.clone()),
                Value::Int(i) => q.bind(*i),
                Value::OptInt(i) => q.bind(*i),
                Value::Float(f) => q.bind(*f),
            };
        }
    }
    q
}

/// Runs `INSERT … suffix` (an `ON CONFLICT` clause) for `rows` in multi-row statements; returns the rows
/// `RETURNING` gave back.
pub(super) async fn insert_rows(
    store: &SqlMarketStore,
    tx: &mut Transaction<'_, Any>,
    table: &str,
    cols: &[(&str, bool)],
    rows: &[Vec<Value>],
    suffix: &str,
) -> Result<Vec<AnyRow>, StoreError> {
    let mut out = Vec::new();
    let mut sql = String::new();
    for chunk in rows.chunks(rows_per_statement(cols.len())) {
        let q = insert_query(store, &mut sql, table, cols, chunk, suffix);
        out.extend(q.fetch_all(&mut **tx).await.map_err(db("writing rows"))?);
    }
    Ok(out)
}

/// Runs `INSERT … suffix` (an `ON CONFLICT … DO NOTHING` clause, no `RETURNING`) for `rows` in multi-row
/// statements; returns how many rows were inserted (rows the conflict clause skipped do not count).
pub(super) async fn insert_count(
    store: &SqlMarketStore,
    tx: &mut Transaction<'_, Any>,
    table: &str,
    cols: &[(&str, bool)],
    rows: &[Vec<Value>],
    suffix: &str,
) -> Result<usize, StoreError> {
    let mut new = 0u64;
    let mut sql = String::new();
    for chunk in rows.chunks(rows_per_statement(cols.len())) {
        let q = insert_query(store, &mut sql, table, cols, chunk, suffix);
        new += q.execute(&mut **tx).await.map_err(db("writing rows"))?.rows_affected();
    }
    // At most `rows.len()` rows were inserted.
    Ok(usize::try_from(new).unwrap_or(usize::MAX))
}

/// The natural key of a trade: `tx:<hash>:<pool>` when the hash is known, else
/// `at:<pool>:<time>:<trader>:<asset_in>:<amount_in>:<amount_out>`.
pub fn natural_key(t: &StoredTrade) -> String {
    match &t.tx_hash {
        Some(h) => format!("tx:{}:{}", h.to_ascii_lowercase(), t.pool.to_hex()),
        None => format!(
            "at:{}:{}:{}:{}:{}:{}",
            t.pool.to_hex(),
            t.time,
            t.trader.to_hex(),
            t.asset_in,
            t.amount_in,
            t.amount_out
        ),
    }
}

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
            new += insert_count(store, tx, "trades", TRADE_COLS, &rows, "ON CONFLICT (natural_key) DO NOTHING").await?;
            continue;
        }
        let inserted = insert_rows(
            store,
            tx,
            "trades",
            TRADE_COLS,
            &rows,
            "ON CONFLICT (natural_key) DO NOTHING RETURNING id, natural_key",
        )
        .await?;
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
        insert_rows(
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
        )
        .await?;
    }
    Ok(new)
}

impl SqlMarketStore {
    /// Writes a replayed market (the bundled sample: coins, pools, trades with the prices and pool states the
    /// replay derived, reward programs, affiliate accounts) in one transaction; a second load of the same market
    /// writes nothing. Returns how many trades were new.
    pub fn load_market(&self, data: &MarketData, file: &MarketFile) -> Result<usize, StoreError> {
        self.block_on(write_market(self, data, file))
    }

    /// Whether the store holds a market (its header was written).
    pub fn has_market(&self) -> Result<bool, StoreError> {
        Ok(self.count("SELECT COUNT(*) FROM market_meta WHERE key = 'as_of'", "reading the header")? > 0)
    }
}

async fn write_market(store: &SqlMarketStore, data: &MarketData, file: &MarketFile) -> Result<usize, StoreError> {
    let g = &data.graph;
    let mut tx = store.pool().begin().await.map_err(db("starting a transaction"))?;
    let t = Value::Text;
    let mut meta = vec![
        vec![t("source".into()), t(file.source.clone())],
        vec![t("as_of".into()), t(data.as_of.to_string())],
        vec![t("program_address".into()), t(file.program_address.clone())],
    ];
    if let Some(s) = &file.snapshot_source {
        meta.push(vec![t("snapshot_source".into()), t(s.clone())]);
    }
    insert_rows(
        store,
        &mut tx,
        "market_meta",
        &[("key", false), ("value", false)],
        &meta,
        "ON CONFLICT (key) DO NOTHING",
    )
    .await?;
    let pools: Vec<Vec<Value>> = g
        .pools()
        .iter()
        .map(|p| {
            vec![
                t(p.address.to_hex()),
                t(p.protocol.slug().to_string()),
                t(g.asset(p.assets[0]).asset.to_string()),
                t(g.asset(p.assets[1]).asset.to_string()),
            ]
        })
        .collect();
    insert_rows(
        store,
        &mut tx,
        "pools",
        &[("address", false), ("protocol", false), ("asset0", false), ("asset1", false)],
        &pools,
        "ON CONFLICT (address) DO NOTHING",
    )
    .await?;
    let mut coins = Vec::new();
    for (i, c) in data.coins.iter().enumerate() {
        let m = g.asset(c.id);
        let record = serde_json::to_string(&c.record)
            .map_err(|e| StoreError::Corrupt { what: "coin record", value: e.to_string() })?;
        coins.push(vec![
            t(c.asset.to_string()),
            t(m.name.clone()),
            t(m.symbol.clone()),
            Value::Int(i64::from(m.decimals)),
            Value::Int(i64::from(c.record.verification_level)),
            Value::Int(c.record.created_at.unix()),
            t(c.total_supply.to_string()),
            t(c.circulating_supply.to_string()),
            t(record),
            Value::Int(i as i64),
        ]);
    }
    insert_rows(
        store,
        &mut tx,
        "coins",
        &[
            ("asset", false),
            ("name", false),
            ("ticker", false),
            ("decimals", false),
            ("verification_level", false),
            ("created_at", false),
            ("total_supply", true),
            ("circulating_supply", true),
            ("record", false),
            ("position", false),
        ],
        &coins,
        "ON CONFLICT (asset) DO NOTHING",
    )
    .await?;
    let trades: Vec<(StoredTrade, Asset, f64, f64)> = data
        .trades
        .iter()
        .map(|tr| {
            let (ain, aout) = (g.asset(tr.asset_in), g.asset(tr.asset_out));
            (
                StoredTrade {
                    time: tr.time,
                    pool: g.pool(tr.pool).address.clone(),
                    asset_in: ain.asset,
                    amount_in: tr.amount_in,
                    amount_out: tr.amount_out,
                    protocol_fee_out: tr.protocol_fee_out,
                    trader: data.traders[tr.trader].clone(),
                    tx_hash: Some(tr.tx_hash.clone()),
                    state_after: Some(StoredPoolState { reserves: tr.reserves_after, concentrated: tr.state_after }),
                    usd_in: tr.usd_in,
                    usd_out: tr.usd_out,
                    ton_usd: tr.ton_usd,
                    volume_usd: tr.volume_usd,
                },
                aout.asset,
                whole(tr.amount_in, ain.decimals),
                whole(tr.amount_out, aout.decimals),
            )
        })
        .collect();
    let new = write_trades(store, &mut tx, &trades).await?;
    super::liquidity::write_liquidity(store, &mut tx, &data.liquidity).await?;
    let rewards: Vec<Vec<Value>> = file
        .rewards
        .iter()
        .enumerate()
        .map(|(i, r)| {
            vec![
                t(canonical_address(&r.pool)),
                Value::Int(i64::from(r.reward_index)),
                t(r.asset.clone()),
                t(r.tokens_per_day.clone()),
                t(r.remaining_budget.clone()),
                Value::Int(r.end_date.unix()),
                Value::Int(i as i64),
            ]
        })
        .collect();
    insert_rows(
        store,
        &mut tx,
        "rewards",
        &[
            ("pool", false),
            ("reward_index", false),
            ("asset", false),
            ("tokens_per_day", true),
            ("remaining_budget", true),
            ("end_date", false),
            ("position", false),
        ],
        &rewards,
        "ON CONFLICT (pool, reward_index) DO NOTHING",
    )
    .await?;
    let mut accounts = Vec::new();
    let mut referrals = Vec::new();
    for (i, a) in file.affiliates.iter().enumerate() {
        accounts.push(vec![
            t(a.account_id.clone()),
            t(a.address.clone()),
            t(a.controller.clone()),
            Value::Int(i64::from(a.initialized)),
            t(a.account_type.clone()),
            Value::Int(i64::from(a.account_fee)),
            t(a.balance_for_claim.clone()),
            t(a.balance_claimed.clone()),
            Value::Int(i as i64),
        ]);
        for (k, w) in a.referrals.iter().enumerate() {
            referrals.push(vec![t(w.clone()), t(a.account_id.clone()), Value::Int(k as i64)]);
        }
    }
    insert_rows(
        store,
        &mut tx,
        "affiliates",
        &[
            ("account_id", false),
            ("address", false),
            ("controller", false),
            ("initialized", false),
            ("account_type", false),
            ("account_fee", false),
            ("balance_for_claim", true),
            ("balance_claimed", true),
            ("position", false),
        ],
        &accounts,
        "ON CONFLICT (account_id) DO NOTHING",
    )
    .await?;
    insert_rows(
        store,
        &mut tx,
        "referrals",
        &[("wallet", false), ("account_id", false), ("position", false)],
        &referrals,
        "ON CONFLICT (wallet) DO NOTHING",
    )
    .await?;
    super::wallets::write_balances(store, &mut tx, &data.balances).await?;
    tx.commit().await.map_err(db("committing"))?;
    Ok(new)
}

/// A pool address as the tables key it (raw `0:<hex>`); text that does not parse is kept as is (the replay
/// validated it already).
fn canonical_address(text: &str) -> String {
    crate::asset::parse_address(text).map_or_else(|_| text.to_string(), |a| a.to_hex())
}

fn corrupt(what: &'static str, value: &str) -> StoreError {
    StoreError::Corrupt { what, value: value.to_string() }
}

fn uint(what: &'static str, text: &str) -> Result<u128, StoreError> {
    text.parse().map_err(|_| corrupt(what, text))
}

fn address(what: &'static str, text: &str) -> Result<TonAddress, StoreError> {
    crate::asset::parse_address(text).map_err(|_| corrupt(what, text))
}

fn text(row: &AnyRow, i: usize) -> Result<String, StoreError> {
    row.try_get::<String, _>(i).map_err(db("reading a row"))
}

fn int(row: &AnyRow, i: usize) -> Result<i64, StoreError> {
    row.try_get::<i64, _>(i).map_err(db("reading a row"))
}

fn float(row: &AnyRow, i: usize) -> Result<f64, StoreError> {
    row.try_get::<f64, _>(i).map_err(db("reading a row"))
}

/// The market the rows hold: its header, coins, reward programs and accounts as a [`MarketFile`] without trades,
/// and the trades in time order (ties in arrival order) with the pool states recorded with them.
pub(super) async fn read_market(store: &SqlMarketStore) -> Result<(MarketFile, Vec<StoredTrade>), StoreError> {
    let file = read_header(store).await?;
    let rows = sqlx::query(&format!("{TRADE_SELECT} ORDER BY t.time, t.id"))
        .fetch_all(store.pool())
        .await
        .map_err(db("reading trades"))?;
    let trades = rows.iter().map(|r| stored_trade(r).map(|(_, t)| t)).collect::<Result<Vec<_>, _>>()?;
    Ok((file, trades))
}

/// The market's header, coins, reward programs and accounts as a [`MarketFile`] without trades.
pub(super) async fn read_header(store: &SqlMarketStore) -> Result<MarketFile, StoreError> {
    let pool = store.pool();
    let meta: BTreeMap<String, String> = sqlx::query("SELECT key, value FROM market_meta")
        .fetch_all(pool)
        .await
        .map_err(db("reading the header"))?
        .iter()
        .map(|r| Ok((text(r, 0)?, text(r, 1)?)))
        .collect::<Result<_, StoreError>>()?;
    let as_of: i64 = meta.get("as_of").map_or(Ok(0), |v| v.parse().map_err(|_| corrupt("as_of", v)))?;
    let mut coins = Vec::new();
    for r in sqlx::query("SELECT record FROM coins ORDER BY position, asset")
        .fetch_all(pool)
        .await
        .map_err(db("reading coins"))?
    {
        let record = text(&r, 0)?;
        coins.push(serde_json::from_str::<CoinRecord>(&record).map_err(|_| corrupt("coin record", &record))?);
    }
    let mut rewards = Vec::new();
    for r in sqlx::query(
        "SELECT pool, reward_index, asset, CAST(tokens_per_day AS TEXT), CAST(remaining_budget AS TEXT), end_date \
         FROM rewards ORDER BY position, pool, reward_index",
    )
    .fetch_all(pool)
    .await
    .map_err(db("reading rewards"))?
    {
        let end = int(&r, 5)?;
        rewards.push(RewardRecord {
            pool: text(&r, 0)?,
            reward_index: i32::try_from(int(&r, 1)?).map_err(|_| corrupt("reward_index", "out of range"))?,
            asset: text(&r, 2)?,
            tokens_per_day: text(&r, 3)?,
            remaining_budget: text(&r, 4)?,
            end_date: DateTime::from_unix(end).ok_or_else(|| corrupt("end_date", &end.to_string()))?,
        });
    }
    let mut referred: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in sqlx::query("SELECT account_id, wallet FROM referrals ORDER BY account_id, position")
        .fetch_all(pool)
        .await
        .map_err(db("reading referrals"))?
    {
        referred.entry(text(&r, 0)?).or_default().push(text(&r, 1)?);
    }
    let mut affiliates = Vec::new();
    for r in sqlx::query(
        "SELECT account_id, address, controller, initialized, account_type, account_fee, \
         CAST(balance_for_claim AS TEXT), CAST(balance_claimed AS TEXT) FROM affiliates ORDER BY position, account_id",
    )
    .fetch_all(pool)
    .await
    .map_err(db("reading affiliates"))?
    {
        let account_id = text(&r, 0)?;
        affiliates.push(AffiliateRecord {
            referrals: referred.remove(&account_id).unwrap_or_default(),
            account_id,
            address: text(&r, 1)?,
            controller: text(&r, 2)?,
            initialized: int(&r, 3)? != 0,
            account_type: text(&r, 4)?,
            account_fee: i32::try_from(int(&r, 5)?).map_err(|_| corrupt("account_fee", "out of range"))?,
            balance_for_claim: text(&r, 6)?,
            balance_claimed: text(&r, 7)?,
        });
    }
    let file = MarketFile {
        source: meta.get("source").cloned().unwrap_or_default(),
        snapshot_source: meta.get("snapshot_source").cloned(),
        as_of: DateTime::from_unix(as_of).ok_or_else(|| corrupt("as_of", &as_of.to_string()))?,
        program_address: meta.get("program_address").cloned().unwrap_or_default(),
        coins,
        trades: Vec::new(),
        liquidity: Vec::new(),
        rewards,
        affiliates,
        // Balances are read per owner by the queries (`wallets`), not into the view.
        balances: Vec::new(),
    };
    Ok(file)
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
