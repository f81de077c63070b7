//! The schema's migrations, embedded in the binary (one list per engine; `migrations/README.md` says why the two
//! directories differ only in column types) and run by sqlx's migrator when a store is opened ([`migrate`]).
//!
//! A database that already has every migration is left alone rather than handed to the migrator: the migrator
//! starts with `CREATE TABLE IF NOT EXISTS _sqlx_migrations`, on which PostgreSQL answers the notice
//! "relation \"_sqlx_migrations\" already exists, skipping", which sqlx logs at `info` — at every start of a
//! server on a PostgreSQL store. The check reads the migrations table (when it exists) and compares versions
//! and checksums; anything else (a new database, a migration to apply, a changed or failed one) goes to the
//! migrator, which applies or reports it as before.

use std::borrow::Cow;

use sqlx::migrate::{MigrateError, Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Row};

use super::Engine;

/// The migrations, one list for both engines: each entry's version, name and file, read from `migrations/$dir/`
/// (the two directories hold the same files, in each engine's column types).
macro_rules! migrations {
    ($dir:literal) => {
        &[
            (1, "market", include_str!(concat!("../../../../../migrations/", $dir, "/0001_market.sql"))),
            (2, "trader_order", include_str!(concat!("../../../../../migrations/", $dir, "/0002_trader_order.sql"))),
            (3, "market_totals", include_str!(concat!("../../../../../migrations/", $dir, "/0003_market_totals.sql"))),
            (10, "liquidity", include_str!(concat!("../../../../../migrations/", $dir, "/0010_liquidity.sql"))),
            (
                20,
                "wallet_balances",
                include_str!(concat!("../../../../../migrations/", $dir, "/0020_wallet_balances.sql")),
            ),
        ]
    };
}

const SQLITE: &[(i64, &str, &str)] = migrations!("sqlite");
const POSTGRES: &[(i64, &str, &str)] = migrations!("postgres");

/// The migrator of `engine`'s migrations.
pub(super) fn migrator(engine: Engine) -> Migrator {
    let list = match engine {
        Engine::Sqlite => SQLITE,
        Engine::Postgres => POSTGRES,
    };
    let migrations: Vec<Migration> = list
        .iter()
        .map(|&(version, name, sql)| {
            Migration::new(version, Cow::Borrowed(name), MigrationType::Simple, Cow::Borrowed(sql), false)
        })
        .collect();
    Migrator { migrations: Cow::Owned(migrations), ignore_missing: false, locking: true, no_tx: false }
}

/// Runs `engine`'s migrations on `pool` unless every one is applied already (see the module documentation).
pub(super) async fn migrate(pool: &AnyPool, engine: Engine) -> Result<(), MigrateError> {
    let migrator = migrator(engine);
    if up_to_date(pool, engine, &migrator).await {
        return Ok(());
    }
    migrator.run(pool).await
}

/// Whether `pool`'s database records exactly `migrator`'s migrations, each applied successfully with the same
/// checksum. Any doubt (a read that fails included) is `false`: the migrator then decides.
async fn up_to_date(pool: &AnyPool, engine: Engine, migrator: &Migrator) -> bool {
    // Asked of the catalog first, so that a new database gets no failed query (PostgreSQL would log its error).
    let exists = match engine {
        Engine::Sqlite => "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '_sqlx_migrations'",
        Engine::Postgres => {
            "SELECT COUNT(*) FROM pg_catalog.pg_tables WHERE tablename = '_sqlx_migrations' \
                             AND schemaname = ANY (current_schemas(false))"
        }
    };
    match sqlx::query(exists).fetch_one(pool).await.and_then(|r| r.try_get::<i64, _>(0)) {
        Ok(n) if n > 0 => {}
        _ => return false,
    }
    let Ok(rows) = sqlx::query("SELECT version, checksum, success FROM _sqlx_migrations").fetch_all(pool).await else {
        return false;
    };
    let mut applied = Vec::with_capacity(rows.len());
    for row in rows {
        let (Ok(version), Ok(checksum), Ok(success)) =
            (row.try_get::<i64, _>(0), row.try_get::<Vec<u8>, _>(1), row.try_get::<bool, _>(2))
        else {
            return false;
        };
        applied.push((version, checksum, success));
    }
    applied.len() == migrator.migrations.len()
        && migrator
            .migrations
            .iter()
            .all(|m| applied.iter().any(|(v, c, ok)| *v == m.version && *ok && c.as_slice() == m.checksum.as_ref()))
}
