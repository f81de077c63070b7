//! The schema's migrations, embedded in the binary (one list per engine; `migrations/README.md` says why the two
//! directories differ only in column types) and run by sqlx's migrator when a store is opened.

use std::borrow::Cow;

use sqlx::migrate::{Migration, MigrationType, Migrator};

use super::Engine;

const SQLITE: &[(i64, &str, &str)] = &[
    (1, "market", include_str!("../../../../migrations/sqlite/0001_market.sql")),
    (2, "trader_order", include_str!("../../../../migrations/sqlite/0002_trader_order.sql")),
    (3, "market_totals", include_str!("../../../../migrations/sqlite/0003_market_totals.sql")),
    (10, "liquidity", include_str!("../../../../migrations/sqlite/0010_liquidity.sql")),
    (20, "wallet_balances", include_str!("../../../../migrations/sqlite/0020_wallet_balances.sql")),
];
const POSTGRES: &[(i64, &str, &str)] = &[
    (1, "market", include_str!("../../../../migrations/postgres/0001_market.sql")),
    (2, "trader_order", include_str!("../../../../migrations/postgres/0002_trader_order.sql")),
    (3, "market_totals", include_str!("../../../../migrations/postgres/0003_market_totals.sql")),
    (10, "liquidity", include_str!("../../../../migrations/postgres/0010_liquidity.sql")),
    (20, "wallet_balances", include_str!("../../../../migrations/postgres/0020_wallet_balances.sql")),
];

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
