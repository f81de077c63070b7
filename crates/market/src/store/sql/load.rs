//! Writing a replayed market (the bundled sample) into the database and reading the rows back as a market.
//!
//! Owns the mapping between [`MarketData`] and the tables. Writing is one transaction and idempotent: every row
//! has a natural key and is inserted with `ON CONFLICT DO NOTHING`, so loading the same sample twice (or from two
//! processes at once) stores it once.

use std::collections::BTreeMap;

use super::rows::{corrupt, insert, int, text, Returning, Value};
use super::trades::{stored_trade, write_trades, TRADE_SELECT};
use super::{db, SqlMarketStore, StoreError};
use crate::replay::{AffiliateRecord, CoinRecord, MarketData, MarketFile, RewardRecord};
use crate::stored::{StoredPoolState, StoredTrade};
use crate::types::DateTime;
use crate::units::whole;
use tonroute_core::asset::Asset;

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
    insert(
        store,
        &mut tx,
        "market_meta",
        &[("key", false), ("value", false)],
        &meta,
        "ON CONFLICT (key) DO NOTHING",
        Returning::Rows,
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
    insert(
        store,
        &mut tx,
        "pools",
        &[("address", false), ("protocol", false), ("asset0", false), ("asset1", false)],
        &pools,
        "ON CONFLICT (address) DO NOTHING",
        Returning::Rows,
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
    insert(
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
        Returning::Rows,
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
    insert(
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
        Returning::Rows,
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
    insert(
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
        Returning::Rows,
    )
    .await?;
    insert(
        store,
        &mut tx,
        "referrals",
        &[("wallet", false), ("account_id", false), ("position", false)],
        &referrals,
        "ON CONFLICT (wallet) DO NOTHING",
        Returning::Rows,
    )
    .await?;
    super::wallets::write_balances(store, &mut tx, &data.balances).await?;
    tx.commit().await.map_err(db("committing"))?;
    Ok(new)
}

/// A pool address as the tables key it (raw `0:<hex>`); text that does not parse is kept as is (the replay
/// validated it already).
fn canonical_address(text: &str) -> String {
    tonroute_core::asset::parse_address(text).map_or_else(|_| text.to_string(), |a| a.to_hex())
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
