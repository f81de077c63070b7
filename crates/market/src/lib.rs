//! # tonroute-market
//!
//! The market-data domain of docs/interface.md area (A): coins, their trades, candles and statistics, pools and
//! affiliates. Pure and synchronous: no I/O, no clock ("now" is an input), no HTTP.
//!
//! Three layers, each using only the ones above it in this list:
//!
//! 1. **Records and units**, which know no store and no view: [`types`] and [`portfolio`], the spec's shapes
//!    (the answers *are* the wire shapes, so no store translates and no shape is written twice); [`units`]
//!    (whole-token amounts, addresses), [`money`] (sums every store adds to the same digit), [`limits`],
//!    [`error`] ([`MarketError`]: a query refused, [`MarketDataError`]: a market file refused, [`StoreFailure`]);
//!    [`query`], the typed queries, valid by construction; the records taken in: [`stored`] (a trade as a store
//!    keeps it), [`liquidity`] (liquidity events, LP formulas), [`wallets`] (balances), [`ingest`] (trade lines),
//!    [`lines`] (an ingest file's line of any of those three kinds, told apart and decoded by one entry),
//!    [`derive`](mod@derive) (trades and liquidity events from a pool's state change between two blocks, the sync's
//!    observations).
//! 2. **The replay and one file per resource.** [`replay`]: a market file replayed with the exact pool math
//!    ([`MarketData`]) and seen at a "now" with its statistics computed once ([`MarketView`]). The pure
//!    computations of the answers from a view, one file per resource: [`coins`], [`chart`], [`pools`],
//!    [`affiliate`], [`screener`] (the DEX-screener feed), [`providers`] (a pool's providers and deposits),
//!    [`positions`] (a wallet's portfolio, liquidity positions and earnings), [`traders`] (holdings and PnL),
//!    [`trending`].
//! 3. **The stores** behind one port, [`MarketStore`] ([`store`], typed query in, answer out): the in-memory store
//!    (a [`MarketView`], `store::memory`) and the database store (`store::sql`, feature `store`), which builds its
//!    views from its rows and answers through the same computations.
//!
//! Owns the meaning of market data; must not parse query strings or bodies, know HTTP statuses or codes
//! (`crate::api::market` does: text in, typed query, [`MarketStore`], `{code, message}` out), route or build
//! swaps.
//!
//! # Choices the spec leaves open
//!
//! - Prices are execution prices of the replayed trades. A trade's reference side (USD₮ at $1, else TON at the
//!   deepest TON/USD₮ pool's mid price, else an asset's deepest TON or USD₮ pool) is valued at its reference
//!   price; the other side's price is the trade's exchange rate. A coin's price is its last trade's.
//! - Period statistics cover `(now − period, now]`; changes compare with the last trade at or before the
//!   period's start (else the first inside it); volume change compares with the previous period of equal
//!   length. Coins without trades have no `price` and are listed only with `include_without_price`.
//! - `/coins`: default order is liquidity, descending; ties by asset id; coins missing the sort key last.
//!   `sort_by=age` sorts by time since creation (`desc` = oldest first). `limit` is 1..=500. Range filters
//!   are inclusive and refuse min > max. `compact` keeps asset, metadata, price without changes, liquidity,
//!   market cap and verification level. `query` matches a name or ticker
//!   substring (case-insensitive) or the asset id in any accepted form.
//! - `/coin_transactions`: `volume_usd_min < volume_usd_max` when both are set; `type` is seen from the coin
//!   (buy = the coin came out of the pool).
//! - Charts: candles only for buckets with trades; `open` is the previous candle's close, `raw_open` the
//!   bucket's first trade (high and low include `open`); `limit` keeps the latest candles; `start_date` /
//!   `end_date` bound the trades; `use_materialized` is accepted and changes nothing (every candle is
//!   computed). `/chart`'s opposite-asset series uses the trades of pools pairing the two assets (price of `asset` in `opposite_asset`, volume in the opposite asset). An
//!   unknown asset or pool gives empty series (these operations have no 404).
//! - Pools: rows group pools by unordered asset pair; row figures are sums (APRs TVL-weighted); rows holding
//!   a `filter_by_assets` asset come first; a row shows 3 pools unless `pair_pools` says otherwise. Types:
//!   `cpmm_v1` = `dex_b_v1` constant product, `stable` = stable curves, `concentrated` = `dex_c` (an extension of
//!   the spec's three), `cpmm_v2` = other constant-product pools. A `dex_c` trade's `platform` and `pool_type`
//!   are `dex_c` (the pool-type enumeration extended). `/coin`'s `liquidity_pools` lists the 20 deepest pools,
//!   with `liquidity_pools_total` and `liquidity_pools_rest_weight` for the rest.
//! - Replay: a concentrated pool's trades run from its state (sqrt price, tick, liquidity) as the previous trade
//!   left it; its reserve pair is its virtual reserves. `verified` = every asset at verification level ≥ 3.
//!   A pool listing does not join wallets' positions (they are served by `/wallets/{address}/…`,
//!   [`positions`]), so with a `wallet_address` its `value_usd` and `rewards_total_usd` are `0`.
//! - Affiliates: a path segment that parses as an address names a controller (or account contract), else an
//!   account id (`[A-Za-z0-9_-]{1,64}`). A wallet's volume counts each of its trades once.
//! - Sums of money (volumes, fees, TVL, liquidity, portfolio totals) are exact sums of nano-units, each figure
//!   rounded once ([`money`]), so every store writes the same digits; a pool's 24 h fees are its 24 h volume
//!   times its fee rate. Figures that are not plain sums (prices, ratios, APRs, PnL) stay floats.
#![deny(missing_docs)]

pub mod affiliate;
pub mod chart;
pub mod coins;
pub mod conflict;
pub mod derive;
pub mod error;
pub mod ingest;
pub mod limits;
pub mod lines;
pub mod liquidity;
pub mod money;
pub mod pools;
pub mod portfolio;
pub mod positions;
pub mod providers;
pub mod query;
pub mod replay;
pub mod screener;
pub mod store;
pub mod stored;
pub mod traders;
pub mod trending;
pub mod types;
pub mod units;
pub mod wallets;

pub use error::{MarketDataError, MarketError, RecordError, StoreFailure};
pub use replay::{MarketData, MarketFile, MarketView};
pub use store::MarketStore;
