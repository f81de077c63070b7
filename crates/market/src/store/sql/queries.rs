//! The operations the database answers itself: candles (`/chart`, `/chart_by_pool_address`) aggregated by SQL
//! from each trade's recorded prices, and `/coin_transactions` (filters, order, paging in SQL).
//!
//! Owns the SQL of these operations; the candle rules are the replay's (`crate::chart`): buckets
//! aligned to the period, only buckets with trades, `raw_open` the bucket's first trade (by time, then arrival),
//! `close` its last, `open` the previous candle's close (a window function), the latest `limit` candles, and the
//! volume the exact [`Money`] sum of the trades' figures: each figure split into whole and nano-units in SQL by
//! `crate::money`'s rule ([`money_parts`]), the two columns summed as integers, joined in Rust.

use sqlx::any::AnyRow;
use sqlx::Row;

use super::{db, Engine, SqlMarketStore, StoreError};
use crate::coins::trade_labels;
use crate::error::MarketError;
use crate::money::{Money, MAX_FIGURE};
use crate::query::{CandleSpec, ChartByPoolQuery, ChartQuery, CoinTransactionsQuery};
use crate::store::StoreFailure;
use crate::types::{
    ChartByPoolAddressResponse, ChartResponse, CoinTransaction, CoinTransactionsResponse, DateTime, Hlocv, LargeFloat,
    LargeInteger, SortDirection, TradeType,
};
use crate::units::{friendly, friendly_wallet};
use tonroute_core::asset::Asset;

/// A statement's text and its parameters, numbered as they are added.
#[derive(Clone)]
struct Statement {
    params: Vec<Param>,
}

#[derive(Clone)]
enum Param {
    Text(String),
    Int(i64),
    Float(f64),
}

impl Statement {
    fn new() -> Statement {
        Statement { params: Vec::new() }
    }

    /// Adds a parameter and returns its placeholder.
    fn bind(&mut self, p: Param) -> String {
        self.params.push(p);
        format!("${}", self.params.len())
    }

    async fn fetch(self, store: &SqlMarketStore, sql: &str, op: &'static str) -> Result<Vec<AnyRow>, StoreError> {
        let mut q = sqlx::query(sql);
        for p in self.params {
            q = match p {
                Param::Text(s) => q.bind(s),
                Param::Int(i) => q.bind(i),
                Param::Float(f) => q.bind(f),
            };
        }
        q.fetch_all(store.pool()).await.map_err(db(op))
    }
}

const ZERO: &str = "CAST(0 AS DOUBLE PRECISION)";

/// The SQL of `crate::money::parts` for the figure `v` (a column of the row): its whole units and its
/// nano-units, two integers. The same IEEE-754 double operations as the Rust rule, in the same order: a clamp,
/// a floor (SQLite: `CAST … AS INTEGER` truncates, which is the floor of the non-negative value it gets;
/// PostgreSQL: `floor`, then an exact cast of the integral value), a subtraction (exact), a multiplication and
/// an addition, and a floor again.
fn money_parts(engine: Engine, v: &str) -> (String, String) {
    let clamped = format!(
        "(CASE WHEN {v} > {ZERO} THEN (CASE WHEN {v} < CAST({MAX_FIGURE:.1} AS DOUBLE PRECISION) THEN {v} \
         ELSE CAST({MAX_FIGURE:.1} AS DOUBLE PRECISION) END) ELSE {ZERO} END)"
    );
    let floor = |x: &str| match engine {
        Engine::Sqlite => format!("CAST({x} AS INTEGER)"),
        Engine::Postgres => format!("CAST(floor({x}) AS BIGINT)"),
    };
    let whole = floor(&clamped);
    let scaled =
        format!("(({clamped} - {whole}) * CAST(1000000000 AS DOUBLE PRECISION) + CAST(0.5 AS DOUBLE PRECISION))");
    (whole.clone(), floor(&scaled))
}

/// Price/volume series over the same rows: SQL expressions over a `trades` row (a price and a volume per series),
/// and the rows they cover. Series over the same rows are aggregated in one pass (the same buckets, the same first
/// and last trade of each), so `/chart`'s USD and TON series cost one scan, not two.
struct Series {
    series: Vec<(String, String)>,
    filter: String,
}

/// The whole-token amount of `asset` (a placeholder) in a trade.
fn whole_of(asset: &str) -> String {
    format!("(CASE WHEN asset_in = {asset} THEN whole_in ELSE whole_out END)")
}

/// `of`'s price in `per` (whole tokens) in a trade; 0 when no `of` moved.
fn rate(of: &str, per: &str) -> String {
    let (a, b) = (whole_of(of), whole_of(per));
    format!("(CASE WHEN {a} > 0 THEN {b} / {a} ELSE {ZERO} END)")
}

/// The earliest and latest trade times of the store (`None` when it holds no trade), each by the `(time, id)`
/// index.
async fn time_span(store: &SqlMarketStore) -> Result<Option<(i64, i64)>, StoreError> {
    let row = sqlx::query("SELECT (SELECT MIN(time) FROM trades), (SELECT MAX(time) FROM trades)")
        .fetch_one(store.pool())
        .await
        .map_err(db("reading the time span"))?;
    let first = row.try_get::<Option<i64>, _>(0).map_err(db("reading the time span"))?;
    let last = row.try_get::<Option<i64>, _>(1).map_err(db("reading the time span"))?;
    Ok(first.zip(last))
}

/// Candles of `series` under `spec`, aggregated by the database.
///
/// Only buckets with trades are candles, so the latest `limit` of them may reach back anywhere. Rather than
/// aggregating an asset's whole history to keep its last buckets, the trades are read from a lower time bound
/// (aligned to a bucket, so every bucket read is whole): first `limit + 1` periods before the latest trade, then
/// four times further each round, until `limit + 1` buckets are found (the extra, oldest one gives the first
/// candle its previous close) or the bound passes the earliest trade or the query's own start date. Each round is
/// an indexed range scan; the answer is the one the whole history gives.
async fn candles(
    store: &SqlMarketStore,
    st: Statement,
    series: Series,
    spec: &CandleSpec,
) -> Result<Vec<Vec<Hlocv>>, StoreError> {
    let Some((first, last)) = time_span(store).await? else { return Ok(vec![Vec::new(); series.series.len()]) };
    let len = spec.period.seconds();
    let limit = i64::try_from(spec.limit.count()).unwrap_or(i64::MAX);
    let newest = spec.dates.max().map_or(last, |m| m.min(last));
    let mut span = limit.saturating_add(1).saturating_mul(len);
    loop {
        let lower = newest.saturating_sub(span);
        let aligned = lower - lower.rem_euclid(len);
        let bounded = aligned > first && spec.dates.min().is_none_or(|m| aligned > m);
        let rows = candle_rows(store, st.clone(), &series, spec, bounded.then_some(aligned), limit).await?;
        if !bounded || i64::try_from(rows.len()).unwrap_or(i64::MAX) > limit {
            return (0..series.series.len()).map(|k| decode_candles(&rows, k, limit)).collect();
        }
        span = span.saturating_mul(4);
    }
}

/// The latest `limit + 1` buckets of `series` (newest first), from `from` on when given.
async fn candle_rows(
    store: &SqlMarketStore,
    mut st: Statement,
    series: &Series,
    spec: &CandleSpec,
    from: Option<i64>,
    limit: i64,
) -> Result<Vec<AnyRow>, StoreError> {
    let len = st.bind(Param::Int(spec.period.seconds()));
    let mut filter = series.filter.clone();
    if let Some(min) = spec.dates.min() {
        filter.push_str(&format!(" AND time >= {}", st.bind(Param::Int(min))));
    }
    if let Some(max) = spec.dates.max() {
        filter.push_str(&format!(" AND time <= {}", st.bind(Param::Int(max))));
    }
    if let Some(from) = from {
        filter.push_str(&format!(" AND time >= {}", st.bind(Param::Int(from))));
    }
    let limit = st.bind(Param::Int(limit.saturating_add(1)));
    // Per series k: price{k} and volume{k} per trade, the volume's whole and nano parts (vw{k}, vn{k});
    // raw_open{k}, high{k}, low{k}, close{k}, the sums of vw{k} and vn{k} per bucket and the previous bucket's close.
    let n = series.series.len();
    let per_trade: String =
        series.series.iter().enumerate().map(|(k, (p, v))| format!(", {p} AS price{k}, {v} AS volume{k}")).collect();
    let carried: String = (0..n)
        .map(|k| {
            let (whole, nanos) = money_parts(store.engine(), &format!("volume{k}"));
            format!(", price{k}, {whole} AS vw{k}, {nanos} AS vn{k}")
        })
        .collect();
    let per_bucket: String = (0..n)
        .map(|k| {
            format!(
                ", MAX(CASE WHEN first_rank = 1 THEN price{k} END) AS raw_open{k}, MAX(price{k}) AS high{k}, \
                 MIN(price{k}) AS low{k}, MAX(CASE WHEN last_rank = 1 THEN price{k} END) AS close{k}, \
                 CAST(SUM(vw{k}) AS BIGINT) AS vw{k}, CAST(SUM(vn{k}) AS BIGINT) AS vn{k}"
            )
        })
        .collect();
    let out: String = (0..n)
        .map(|k| {
            format!(
                ", raw_open{k}, high{k}, low{k}, close{k}, vw{k}, vn{k}, LAG(close{k}) OVER (ORDER BY bucket) AS prev{k}"
            )
        })
        .collect();
    let sql = format!(
        "WITH base AS (SELECT time - (time % {len}) AS bucket, time, id{per_trade} FROM trades WHERE {filter}), \
         pts AS (SELECT bucket{carried}, \
           ROW_NUMBER() OVER (PARTITION BY bucket ORDER BY time, id) AS first_rank, \
           ROW_NUMBER() OVER (PARTITION BY bucket ORDER BY time DESC, id DESC) AS last_rank FROM base), \
         agg AS (SELECT bucket{per_bucket} FROM pts GROUP BY bucket) \
         SELECT bucket{out} FROM agg ORDER BY bucket DESC LIMIT {limit}",
    );
    st.fetch(store, &sql, "aggregating candles").await
}

/// The newest `limit` of `rows` (newest first) as candles of series `k`, oldest first.
fn decode_candles(rows: &[AnyRow], k: usize, limit: i64) -> Result<Vec<Hlocv>, StoreError> {
    let keep = usize::try_from(limit).unwrap_or(usize::MAX).min(rows.len());
    let mut out = Vec::with_capacity(keep);
    let at = 1 + 7 * k;
    for r in rows[..keep].iter().rev() {
        let get = |i: usize| r.try_get::<f64, _>(at + i).map_err(db("reading a candle"));
        let (raw_open, high, low, close) = (get(0)?, get(1)?, get(2)?, get(3)?);
        let part = |i: usize| r.try_get::<i64, _>(at + i).map_err(db("reading a candle"));
        let volume = Money::from_parts(i128::from(part(4)?), i128::from(part(5)?));
        let open = r.try_get::<Option<f64>, _>(at + 6).map_err(db("reading a candle"))?.unwrap_or(raw_open);
        out.push(Hlocv {
            time: r.try_get::<i64, _>(0).map_err(db("reading a candle"))?,
            open: LargeFloat::from_f64(open),
            raw_open: LargeFloat::from_f64(raw_open),
            high: LargeFloat::from_f64(high.max(open)),
            low: LargeFloat::from_f64(low.min(open)),
            close: LargeFloat::from_f64(close),
            volume: volume.to_large_float(),
        });
    }
    Ok(out)
}

pub(super) async fn chart(store: &SqlMarketStore, q: &ChartQuery) -> Result<ChartResponse, StoreError> {
    let asset = q.asset().to_string();
    let usd = "(CASE WHEN asset_in = $1 THEN price_usd_in ELSE price_usd_out END)".to_string();
    let ton_price = if q.asset().is_native() {
        "CAST(1 AS DOUBLE PRECISION)".to_string()
    } else {
        format!("(CASE WHEN ton_usd > 0 THEN {usd} / ton_usd ELSE {ZERO} END)")
    };
    let of_asset = "(asset_in = $1 OR asset_out = $1)".to_string();
    let with_asset = || {
        let mut st = Statement::new();
        st.bind(Param::Text(asset.clone()));
        st
    };
    let ton_volume = format!("(CASE WHEN ton_usd > 0 THEN volume_usd / ton_usd ELSE {ZERO} END)");
    let mut both = candles(
        store,
        with_asset(),
        Series { series: vec![(usd.clone(), "volume_usd".into()), (ton_price, ton_volume)], filter: of_asset.clone() },
        &q.candles(),
    )
    .await?
    .into_iter();
    let (usd_hlocv, ton_hlocv) = (both.next().unwrap_or_default(), both.next().unwrap_or_default());
    let opposite_asset_hlocv = match q.opposite() {
        Some(o) => {
            let mut st = with_asset();
            let o = st.bind(Param::Text(o.to_string()));
            let series = Series {
                series: vec![(rate("$1", &o), whole_of(&o))],
                filter: format!("{of_asset} AND (asset_in = {o} OR asset_out = {o})"),
            };
            candles(store, st, series, &q.candles()).await?.into_iter().next().unwrap_or_default()
        }
        None => vec![],
    };
    Ok(ChartResponse { ton_hlocv, usd_hlocv, opposite_asset_hlocv })
}

pub(super) async fn chart_by_pool(
    store: &SqlMarketStore,
    q: &ChartByPoolQuery,
) -> Result<ChartByPoolAddressResponse, MarketError> {
    let g = store.graph();
    let Some((_, id, other)) = q.resolve(g)? else {
        return Ok(ChartByPoolAddressResponse { hlocv: vec![], opposite_asset_hlocv: vec![] });
    };
    // The asset's price in the other and the other's in the asset, over the pool's trades: one pass.
    let mut st = Statement::new();
    let pool = st.bind(Param::Text(q.pool.to_hex()));
    let of = st.bind(Param::Text(g.asset(id).asset.to_string()));
    let per = st.bind(Param::Text(g.asset(other).asset.to_string()));
    let series = Series {
        series: vec![(rate(&of, &per), "volume_usd".into()), (rate(&per, &of), "volume_usd".into())],
        filter: format!("pool = {pool}"),
    };
    let failed = |e: StoreError| MarketError::Store(StoreFailure::new("chart_by_pool", e));
    let mut both = candles(store, st, series, &q.candles).await.map_err(failed)?.into_iter();
    let (hlocv, opposite_asset_hlocv) = (both.next().unwrap_or_default(), both.next().unwrap_or_default());
    Ok(ChartByPoolAddressResponse { hlocv, opposite_asset_hlocv })
}

pub(super) async fn coin_transactions(
    store: &SqlMarketStore,
    q: &CoinTransactionsQuery,
) -> Result<Option<CoinTransactionsResponse>, StoreError> {
    let coin = q.asset.to_string();
    let listed = sqlx::query("SELECT COUNT(*) FROM coins WHERE asset = $1")
        .bind(coin.clone())
        .fetch_one(store.pool())
        .await
        .map_err(db("looking the coin up"))?;
    if listed.try_get::<i64, _>(0).map_err(db("looking the coin up"))? == 0 {
        return Ok(None);
    }
    let mut st = Statement::new();
    let c = st.bind(Param::Text(coin));
    let mut filter = String::new();
    if let Some(pool) = &q.pool {
        filter.push_str(&format!(" AND pool = {}", st.bind(Param::Text(pool.to_hex()))));
    }
    if let Some(trader) = &q.trader {
        filter.push_str(&format!(" AND trader = {}", st.bind(Param::Text(trader.to_hex()))));
    }
    if let Some(min) = q.dates.min() {
        filter.push_str(&format!(" AND time >= {}", st.bind(Param::Int(min))));
    }
    if let Some(max) = q.dates.max() {
        filter.push_str(&format!(" AND time <= {}", st.bind(Param::Int(max))));
    }
    if let Some(min) = q.volume_usd.min() {
        filter.push_str(&format!(" AND volume_usd >= {}", st.bind(Param::Float(min))));
    }
    if let Some(max) = q.volume_usd.max() {
        filter.push_str(&format!(" AND volume_usd <= {}", st.bind(Param::Float(max))));
    }
    // A coin's trades are its sells (asset_in) and its buys (asset_out), never both: each side is read in order
    // from its own `(asset, time, id)` index, at most `offset + limit` rows, and the two are merged. (An `OR` of
    // the sides would read and sort every trade of the coin before paging.)
    let sides: &[&str] = match q.kind {
        Some(TradeType::Buy) => &["asset_out"],
        Some(TradeType::Sell) => &["asset_in"],
        None => &["asset_in", "asset_out"],
    };
    let order = match q.direction {
        SortDirection::Asc => "time ASC, id ASC",
        SortDirection::Desc => "time DESC, id DESC",
    };
    let limit = st.bind(Param::Int(i64::try_from(q.page.limit.count()).unwrap_or(i64::MAX)));
    let offset = st.bind(Param::Int(i64::from(q.page.offset.get())));
    let arms: Vec<String> = sides
        .iter()
        .enumerate()
        .map(|(i, side)| {
            format!(
                "SELECT * FROM (SELECT time, pool, asset_in, asset_out, CAST(amount_in AS TEXT) AS amount_in, \
                 CAST(amount_out AS TEXT) AS amount_out, price_usd_in, price_usd_out, ton_usd, volume_usd, trader, \
                 tx_hash, id FROM trades WHERE {side} = {c}{filter} ORDER BY {order} LIMIT {limit} + {offset}) \
                 AS side{i}"
            )
        })
        .collect();
    let sql = format!(
        "SELECT * FROM ({}) AS coin_trades ORDER BY {order} LIMIT {limit} OFFSET {offset}",
        arms.join(" UNION ALL ")
    );
    let rows = st.fetch(store, &sql, "listing trades").await?;
    let g = store.graph();
    let mut items = Vec::with_capacity(rows.len());
    for r in &rows {
        let text = |i: usize| r.try_get::<String, _>(i).map_err(db("reading a trade"));
        let float = |i: usize| r.try_get::<f64, _>(i).map_err(db("reading a trade"));
        let corrupt = |what: &'static str, value: String| StoreError::Corrupt { what, value };
        let pool_text = text(1)?;
        let pool = tonroute_core::asset::parse_address(&pool_text).map_err(|_| corrupt("pool", pool_text.clone()))?;
        let pid = g.pool_id(&pool).ok_or_else(|| corrupt("pool", pool_text.clone()))?;
        let (asset_in, asset_out) = (text(2)?, text(3)?);
        let lookup = |text: &str| {
            Asset::parse(text).ok().and_then(|a| g.asset_id(&a)).ok_or_else(|| corrupt("asset", text.to_string()))
        };
        let (ain, aout) = (g.asset(lookup(&asset_in)?), g.asset(lookup(&asset_out)?));
        let amount = |i: usize, what: &'static str| {
            let t = text(i)?;
            t.parse::<u128>().map(LargeInteger::from).map_err(|_| corrupt(what, t))
        };
        let buy = aout.asset == q.asset;
        let (usd_in, usd_out, ton_usd, volume_usd) = (float(6)?, float(7)?, float(8)?, float(9)?);
        let usd = if buy { usd_out } else { usd_in };
        let ton = if q.asset.is_native() {
            1.0
        } else if ton_usd > 0.0 {
            usd / ton_usd
        } else {
            0.0
        };
        let volume_ton = if ton_usd > 0.0 { volume_usd / ton_usd } else { 0.0 };
        let trader_text = text(10)?;
        let trader =
            tonroute_core::asset::parse_address(&trader_text).map_err(|_| corrupt("trader", trader_text.clone()))?;
        let time = r.try_get::<i64, _>(0).map_err(db("reading a trade"))?;
        let (pool_type, platform) = trade_labels(g.pool(pid).protocol);
        items.push(CoinTransaction {
            trade_date: DateTime::from_unix(time).ok_or_else(|| corrupt("time", time.to_string()))?,
            pool_address: friendly(&pool),
            pool_type,
            trade_asset_in: asset_in,
            trade_asset_out: asset_out,
            trade_asset_in_amount: amount(4, "amount_in")?,
            trade_asset_out_amount: amount(5, "amount_out")?,
            trade_asset_in_ticker: ain.symbol.clone(),
            trade_asset_out_ticker: aout.symbol.clone(),
            trade_asset_in_decimals: i32::from(ain.decimals),
            trade_asset_out_decimals: i32::from(aout.decimals),
            kind: if buy { TradeType::Buy } else { TradeType::Sell },
            price_usd: LargeFloat::from_f64(usd),
            price_ton: LargeFloat::from_f64(ton),
            volume_usd: LargeFloat::from_f64(volume_usd),
            volume_ton: LargeFloat::from_f64(volume_ton),
            trader_address: friendly_wallet(&trader),
            platform,
            tx_hash: r.try_get::<Option<String>, _>(11).map_err(db("reading a trade"))?,
        });
    }
    Ok(Some(CoinTransactionsResponse { items }))
}
