//! The row helpers every table's file shares: values bound to a statement, multi-row `INSERT`s in each engine's
//! placeholders, and readers of a row's columns (a value that does not decode is a corrupt row).
//!
//! Owns the statement shapes and the column conversions; must not know a table (each table's file names its
//! columns and its conflict clause).

use sqlx::any::AnyRow;
use sqlx::{Any, Row, Transaction};
use tonlib_core::TonAddress;

use super::{db, SqlMarketStore, StoreError};

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

/// What a batch of `INSERT`s gives back.
#[derive(Clone, Copy)]
pub(super) enum Returning {
    /// The rows the statements' `RETURNING` clause gave back.
    Rows,
    /// Only how many rows were inserted (no `RETURNING`; rows the conflict clause skipped do not count).
    Count,
}

/// The answer of [`insert`]: the returned rows (with [`Returning::Rows`]) and the count of inserted rows (with
/// [`Returning::Count`]).
#[derive(Default)]
pub(super) struct Inserted {
    /// The rows `RETURNING` gave back.
    pub rows: Vec<AnyRow>,
    /// How many rows were inserted; at most the number of rows given.
    pub count: usize,
}

/// Runs `INSERT … suffix` (an `ON CONFLICT` clause, with `RETURNING …` for [`Returning::Rows`]) for `rows` in
/// multi-row statements.
pub(super) async fn insert(
    store: &SqlMarketStore,
    tx: &mut Transaction<'_, Any>,
    table: &str,
    cols: &[(&str, bool)],
    rows: &[Vec<Value>],
    suffix: &str,
    returning: Returning,
) -> Result<Inserted, StoreError> {
    let mut out = Inserted::default();
    let mut affected = 0u64;
    let mut sql = String::new();
    for chunk in rows.chunks(rows_per_statement(cols.len())) {
        let q = insert_query(store, &mut sql, table, cols, chunk, suffix);
        match returning {
            Returning::Rows => out.rows.extend(q.fetch_all(&mut **tx).await.map_err(db("writing rows"))?),
            Returning::Count => affected += q.execute(&mut **tx).await.map_err(db("writing rows"))?.rows_affected(),
        }
    }
    // At most `rows.len()` rows were inserted.
    out.count = usize::try_from(affected).unwrap_or(usize::MAX);
    Ok(out)
}

pub(super) fn corrupt(what: &'static str, value: &str) -> StoreError {
    StoreError::Corrupt { what, value: value.to_string() }
}

pub(super) fn uint(what: &'static str, text: &str) -> Result<u128, StoreError> {
    text.parse().map_err(|_| corrupt(what, text))
}

pub(super) fn address(what: &'static str, text: &str) -> Result<TonAddress, StoreError> {
    tonroute_core::asset::parse_address(text).map_err(|_| corrupt(what, text))
}

pub(super) fn text(row: &AnyRow, i: usize) -> Result<String, StoreError> {
    row.try_get::<String, _>(i).map_err(db("reading a row"))
}

pub(super) fn int(row: &AnyRow, i: usize) -> Result<i64, StoreError> {
    row.try_get::<i64, _>(i).map_err(db("reading a row"))
}

pub(super) fn float(row: &AnyRow, i: usize) -> Result<f64, StoreError> {
    row.try_get::<f64, _>(i).map_err(db("reading a row"))
}
