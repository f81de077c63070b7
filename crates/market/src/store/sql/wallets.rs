//! Wallet balances in the database (table `wallet_balances`, migration 0020): writing them (the bundled
//! sample's, and balance lines of `tonroute market ingest`: latest as-of wins, idempotent, one transaction per
//! batch) and reading a wallet's.
//!
//! Owns the upsert's rule, the same as [`crate::wallets::latest`]: a row is replaced only by a balance
//! with a later (as_of, block), a missing block counting as older than any block, so re-running a batch or
//! receiving lines out of order leaves the latest balance.

use sqlx::{Any, Row, Transaction};

use super::rows::{insert, Returning, Value};
use super::{db, SqlMarketStore, StoreError};
use tonlib_core::TonAddress;

use crate::error::MarketError;
use crate::portfolio::{HoldingsResponse, PortfolioResponse, TopTradersResponse, TraderInfoListResponse};
use crate::positions;
use crate::store::StoreFailure;
use crate::traders::{self, HoldingsQuery, Prices, TopTradersQuery, TraderTrade, TradersQuery};
use crate::types::DateTime;
use crate::wallets::{latest, Balance};
use tonroute_core::asset::Asset;

const COLS: &[(&str, bool)] =
    &[("owner", false), ("asset", false), ("balance", true), ("as_of", false), ("block", false)];

/// What a batch of balances did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BalanceReport {
    /// Balances written (new, or later than the stored one).
    pub applied: usize,
    /// Balances not later than the stored one (or than another of the batch), skipped.
    pub stale: usize,
}

/// Writes `balances` in `tx`: within the batch the latest per (owner, asset) is kept (a multi-row upsert may
/// not touch a row twice), then each replaces the stored row only when later.
pub(super) async fn write_balances(
    store: &SqlMarketStore,
    tx: &mut Transaction<'_, Any>,
    balances: &[Balance],
) -> Result<BalanceReport, StoreError> {
    let kept = latest(balances.iter().cloned());
    let rows: Vec<Vec<Value>> = kept
        .iter()
        .map(|b| {
            vec![
                Value::Text(b.owner.to_hex()),
                Value::Text(b.asset.to_string()),
                Value::Text(b.balance.to_string()),
                Value::Int(b.as_of.unix()),
                Value::OptInt(b.block.map(i64::from)),
            ]
        })
        .collect();
    let applied = insert(
        store,
        tx,
        "wallet_balances",
        COLS,
        &rows,
        "ON CONFLICT (owner, asset) DO UPDATE SET balance = excluded.balance, as_of = excluded.as_of, \
         block = excluded.block \
         WHERE excluded.as_of > wallet_balances.as_of OR (excluded.as_of = wallet_balances.as_of \
         AND COALESCE(excluded.block, -1) > COALESCE(wallet_balances.block, -1)) RETURNING owner",
        Returning::Rows,
    )
    .await?
    .rows
    .len();
    Ok(BalanceReport { applied, stale: balances.len() - applied })
}

impl SqlMarketStore {
    /// The balances of `owner`, ordered by asset.
    pub fn balances(&self, owner: &tonlib_core::TonAddress) -> Result<Vec<Balance>, StoreError> {
        self.block_on(balances_of(self, &owner.to_hex()))
    }

    /// How many balances the store holds.
    pub fn balance_count(&self) -> Result<i64, StoreError> {
        self.count("SELECT COUNT(*) FROM wallet_balances", "counting balances")
    }
}

/// The balances of `owner` (raw address), ordered by asset.
pub(super) async fn balances_of(store: &SqlMarketStore, owner: &str) -> Result<Vec<Balance>, StoreError> {
    let rows = sqlx::query(
        "SELECT owner, asset, CAST(balance AS TEXT), as_of, block FROM wallet_balances WHERE owner = $1 ORDER BY asset",
    )
    .bind(owner.to_string())
    .fetch_all(store.pool())
    .await
    .map_err(db("reading balances"))?;
    let corrupt = |what: &'static str, value: String| StoreError::Corrupt { what, value };
    rows.iter()
        .map(|r| {
            let owner: String = r.try_get(0).map_err(db("reading a balance"))?;
            let asset: String = r.try_get(1).map_err(db("reading a balance"))?;
            let balance: String = r.try_get(2).map_err(db("reading a balance"))?;
            let as_of: i64 = r.try_get(3).map_err(db("reading a balance"))?;
            let block: Option<i64> = r.try_get(4).map_err(db("reading a balance"))?;
            Ok(Balance {
                owner: tonroute_core::asset::parse_address(&owner)
                    .map_err(|_| corrupt("balance owner", owner.clone()))?,
                asset: Asset::parse(&asset).map_err(|_| corrupt("balance asset", asset.clone()))?,
                balance: balance.parse().map_err(|_| corrupt("balance", balance.clone()))?,
                as_of: DateTime::from_unix(as_of).ok_or_else(|| corrupt("balance as_of", as_of.to_string()))?,
                block: block
                    .map(u32::try_from)
                    .transpose()
                    .map_err(|_| corrupt("balance block", format!("{block:?}")))?,
            })
        })
        .collect()
}

/// The trades `filter` selects (a WHERE clause over `trades`, parameters `$1…` bound from `binds`), in time
/// order (ties in arrival order), as the trader answers read them.
async fn trader_trades(store: &SqlMarketStore, filter: &str, binds: &[Value]) -> Result<Vec<TraderTrade>, StoreError> {
    let sql = format!(
        "SELECT time, trader, asset_in, asset_out, CAST(amount_in AS TEXT), CAST(amount_out AS TEXT), volume_usd, \
         ton_usd FROM trades WHERE {filter} ORDER BY time, id"
    );
    let mut q = sqlx::query(&sql);
    for b in binds {
        q = match b {
            Value::Text(s) => q.bind(s.clone()),
            Value::Int(i) => q.bind(*i),
            _ => q,
        };
    }
    let rows = q.fetch_all(store.pool()).await.map_err(db("reading trades"))?;
    let corrupt = |what: &'static str, value: String| StoreError::Corrupt { what, value };
    rows.iter()
        .map(|r| {
            let get_text = |i: usize| r.try_get::<String, _>(i).map_err(db("reading a trade"));
            let (trader, asset_in, asset_out) = (get_text(1)?, get_text(2)?, get_text(3)?);
            let (amount_in, amount_out) = (get_text(4)?, get_text(5)?);
            Ok(TraderTrade {
                time: r.try_get(0).map_err(db("reading a trade"))?,
                trader: tonroute_core::asset::parse_address(&trader).map_err(|_| corrupt("trader", trader.clone()))?,
                asset_in: Asset::parse(&asset_in).map_err(|_| corrupt("asset_in", asset_in.clone()))?,
                asset_out: Asset::parse(&asset_out).map_err(|_| corrupt("asset_out", asset_out.clone()))?,
                amount_in: amount_in.parse().map_err(|_| corrupt("amount_in", amount_in.clone()))?,
                amount_out: amount_out.parse().map_err(|_| corrupt("amount_out", amount_out.clone()))?,
                volume_usd: r.try_get(6).map_err(db("reading a trade"))?,
                ton_usd: r.try_get(7).map_err(db("reading a trade"))?,
            })
        })
        .collect()
}

fn failed(operation: &'static str) -> impl FnOnce(StoreError) -> MarketError {
    move |e| MarketError::Store(StoreFailure::new(operation, e))
}

/// The wallet and trader operations of the SQL store: balances and trades come from indexed queries (by owner,
/// by trader, by coin), prices from the store's view of the rows, the arithmetic from `market::traders`.
impl SqlMarketStore {
    pub(super) fn portfolio_of(&self, wallet: &TonAddress) -> Result<PortfolioResponse, MarketError> {
        let view = self.view().map_err(failed("portfolio"))?;
        let balances = self.block_on(balances_of(self, &wallet.to_hex())).map_err(failed("portfolio"))?;
        Ok(positions::portfolio(&view, wallet, &balances))
    }

    pub(super) fn holdings_of(&self, query: &HoldingsQuery) -> Result<HoldingsResponse, MarketError> {
        let view = self.view().map_err(failed("holdings"))?;
        let trades = self
            .block_on(trader_trades(self, "trader = $1", &[Value::Text(query.wallet.to_hex())]))
            .map_err(failed("holdings"))?;
        Ok(traders::holdings(&trades, &*view, query))
    }

    pub(super) fn top_traders_of(&self, query: &TopTradersQuery) -> Result<Option<TopTradersResponse>, MarketError> {
        let view = self.view().map_err(failed("top_traders"))?;
        let Some(price) = view.data().coin_index.get(&query.asset).and_then(|_| view.price(&query.asset)) else {
            return Ok(None);
        };
        let asset = Value::Text(query.asset.to_string());
        let trades = self
            .block_on(trader_trades(self, "asset_in = $1 OR asset_out = $2", &[asset.clone(), asset]))
            .map_err(failed("top_traders"))?;
        Ok(Some(traders::top_traders(&trades, price, query)))
    }

    pub(super) fn traders_of(&self, query: &TradersQuery) -> Result<Option<TraderInfoListResponse>, MarketError> {
        let view = self.view().map_err(failed("traders"))?;
        if !view.data().coin_index.contains_key(&query.asset) {
            return Ok(None);
        }
        let (start, end) = traders::period(query, view.now());
        let asset = Value::Text(query.asset.to_string());
        let trades = self
            .block_on(trader_trades(
                self,
                "(asset_in = $1 OR asset_out = $2) AND time > $3 AND time <= $4",
                &[asset.clone(), asset, Value::Int(start), Value::Int(end)],
            ))
            .map_err(failed("traders"))?;
        Ok(Some(traders::traders(&trades, query, view.now())))
    }

    pub(super) fn trending_of(
        &self,
        query: &crate::trending::TrendingQuery,
    ) -> Result<crate::trending::TrendingCoinsResponse, MarketError> {
        use crate::trending;
        let view = self.view().map_err(failed("trending"))?;
        let now = view.now();
        let trades = self
            .block_on(trader_trades(
                self,
                "time > $1 AND time <= $2",
                &[Value::Int(now - trending::TRENDING_LOOKBACK), Value::Int(now)],
            ))
            .map_err(failed("trending"))?;
        Ok(trending::trending(&trending::candidates(&view), &trades, now, query))
    }
}

/// A pool's trades with `from ≤ time ≤ to`, in time order (ties in arrival order), as the fee earnings read them:
/// the `(pool, time, id)` index, only the columns they need.
async fn pool_trades(
    store: &SqlMarketStore,
    pool: &str,
    first_asset: &str,
    from: i64,
    to: i64,
) -> Result<Vec<positions::PoolTrade>, StoreError> {
    let rows = sqlx::query(
        "SELECT time, asset_in, CAST(amount_in AS TEXT) FROM trades WHERE pool = $1 AND time >= $2 AND time <= $3 \
         ORDER BY time, id",
    )
    .bind(pool.to_string())
    .bind(from)
    .bind(to)
    .fetch_all(store.pool())
    .await
    .map_err(db("reading a pool's trades"))?;
    rows.iter()
        .map(|r| {
            let asset_in: String = r.try_get(1).map_err(db("reading a trade"))?;
            let amount: String = r.try_get(2).map_err(db("reading a trade"))?;
            Ok(positions::PoolTrade {
                time: r.try_get(0).map_err(db("reading a trade"))?,
                input: usize::from(asset_in != first_asset),
                amount_in: amount
                    .parse()
                    .map_err(|_| StoreError::Corrupt { what: "amount_in", value: amount.clone() })?,
            })
        })
        .collect()
}

/// Liquidity positions and earnings: the positions from the statistics view (current reserves and prices, every
/// liquidity event), the earnings from each of the wallet's pools' trades read by index since its first event.
impl SqlMarketStore {
    pub(super) fn liquidity_position_of(
        &self,
        query: &positions::PositionQuery,
    ) -> Result<Option<crate::portfolio::PortfolioLiquidityPositionResponse>, MarketError> {
        let view = self.stats_view().map_err(failed("liquidity_position"))?;
        Ok(positions::liquidity_position(&view, query))
    }

    pub(super) fn earnings_of(
        &self,
        wallet: &TonAddress,
    ) -> Result<crate::portfolio::PortfolioEarningsResponse, MarketError> {
        let view = self.stats_view().map_err(failed("earnings"))?;
        let g = &view.data().graph;
        positions::earnings_with(&view, wallet, |pool, from, to| {
            let meta = g.pool(pool);
            let first = g.asset(meta.assets[0]).asset.to_string();
            self.block_on(pool_trades(self, &meta.address.to_hex(), &first, from, to))
        })
        .map_err(failed("earnings"))
    }
}
