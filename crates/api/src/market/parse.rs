//! Market requests into typed queries: each operation's query-string parameters (or request body) read in
//! the spec's order, each value checked by its typed query's constructor as it is read, so the first problem
//! in the request is the one reported.
//!
//! Owns which parameters an operation takes and their wire names; the constraints are the typed queries'
//! (`tonroute_market::query`), the syntax [`Params`]'.

use std::collections::BTreeMap;

use super::error::{MarketFailure, QueryError};
use super::params::{parse_address, parse_asset, Params};
use super::wire::{GetPairPoolsRequest, GetPoolsRequest, PoolSummaryRequest};
use tonroute_core::asset::Asset;
use tonroute_market::limits::{CHART_LIMIT, COINS_LIMIT, COIN_TRANSACTIONS_LIMIT, POOLS_LIMIT, ROW_POOLS_LIMIT};
use tonroute_market::query::{
    ActivityFilter, AffiliateKey, AffiliateVolumeQuery, AssetPair, Bounds, CandleSpec, ChartByPoolQuery, ChartQuery,
    CoinFilter, CoinOptions, CoinQuery, CoinSort, CoinTransactionsQuery, CoinsQuery, Limit, Offset, Page,
    PairPoolsQuery, PoolFilter, PoolQuery, PoolSummaryQuery, PoolsQuery, VerificationLevel,
};
use tonroute_market::types::{
    ChartPeriod, CoinSortBy, PoolKind, PoolSortBy, SortDirection, StatPeriod, TradeType, TxSortBy,
};

type Parsed<T> = Result<T, MarketFailure>;

/// `limit` and `offset` of a listing, each checked as it is read.
pub(super) fn page(p: &mut Params<'_>, rule: tonroute_market::limits::LimitRule) -> Parsed<Page> {
    let limit = Limit::new(p.int("limit")?, rule)?;
    let offset = Offset::new(p.int("offset")?)?;
    Ok(Page { limit, offset })
}

/// The query string of a listing that takes nothing but its page (`limit` by `rule`, `offset`).
pub(super) fn page_only(pairs: &[(String, String)], rule: tonroute_market::limits::LimitRule) -> Parsed<Page> {
    let mut p = Params::new(pairs)?;
    let page = page(&mut p, rule)?;
    p.finish()?;
    Ok(page)
}

/// `/coin`.
pub fn coin(pairs: &[(String, String)]) -> Parsed<CoinQuery> {
    let mut p = Params::new(pairs)?;
    let asset = p.asset("asset")?;
    let extra_details = p.bool("extra_details")?;
    let memecoin_extra_details = p.bool("memecoin_extra_details")?;
    p.finish()?;
    Ok(CoinQuery { asset, options: CoinOptions { extra_details, memecoin_extra_details, ..CoinOptions::default() } })
}

/// `/coins`.
pub fn coins(pairs: &[(String, String)]) -> Parsed<CoinsQuery> {
    let mut p = Params::new(pairs)?;
    let search = p.text("query").map(str::trim).filter(|q| !q.is_empty()).map(str::to_string);
    let page = page(&mut p, COINS_LIMIT)?;
    let sort_by = p.enumeration::<CoinSortBy>("sort_by")?;
    let sort_period = p.enumeration::<StatPeriod>("sort_period")?;
    let direction = p.enumeration("sort_direction")?.unwrap_or(SortDirection::Desc);
    let mut filter = CoinFilter { assets: p.assets("filter_by_assets")?, ..CoinFilter::default() };
    if let Some(items) = p.list("filter_by_verification_level")? {
        filter.verification_levels = items
            .iter()
            .map(|s| {
                s.parse()
                    .ok()
                    .and_then(VerificationLevel::new)
                    .ok_or_else(|| QueryError::NotVerificationLevel { text: s.to_string() })
            })
            .collect::<Result<_, _>>()?;
    }
    filter.exclude_tags = p.strings("exclude_tags")?;
    filter.tags = p.strings("filter_by_tags")?;
    filter.exclude_assets = p.assets("exclude_assets")?;
    let compact = p.bool("compact")?;
    filter.author = p.address("filter_by_author")?;
    let memecoin_extra_details = p.bool("memecoin_extra_details")?;
    let total_volume = p.bool("calculate_total_volume")?;
    let (lo, hi) = (p.large_float("liquidity_usd_min")?, p.large_float("liquidity_usd_max")?);
    filter.liquidity_usd = Bounds::amounts("liquidity_usd", lo, hi)?;
    let (lo, hi) = (p.large_int("holders_min")?, p.large_int("holders_max")?);
    filter.holders = Bounds::new("holders_min", "holders_max", lo, hi)?;
    let (lo, hi) = (p.large_float("market_cap_usd_min")?, p.large_float("market_cap_usd_max")?);
    filter.market_cap_usd = Bounds::amounts("market_cap_usd", lo, hi)?;
    let (lo, hi) = (p.date("created_at_min")?, p.date("created_at_max")?);
    filter.created_at = Bounds::new("created_at_min", "created_at_max", lo, hi)?;
    let filter_period = p.enumeration::<StatPeriod>("filter_period")?;
    let (lo, hi) = (p.large_float("volume_usd_min")?, p.large_float("volume_usd_max")?);
    let volume_usd = Bounds::amounts("volume_usd", lo, hi)?;
    let (lo, hi) = (p.large_int("transactions_min")?, p.large_int("transactions_max")?);
    let transactions = Bounds::new("transactions_min", "transactions_max", lo, hi)?;
    let skip_total_count = p.bool("skip_total_count")?;
    let (lo, hi) = (p.large_float("bonding_curve_percentage_min")?, p.large_float("bonding_curve_percentage_max")?);
    filter.bonding_curve_percentage = Bounds::percentages("bonding_curve_percentage", lo, hi)?;
    filter.include_without_price = p.bool("include_without_price")?;
    p.finish()?;
    filter.activity = ActivityFilter::new(filter_period, volume_usd, transactions)?;
    Ok(CoinsQuery {
        search,
        page,
        sort: CoinSort::new(sort_by, sort_period)?,
        direction,
        filter,
        options: CoinOptions { extra_details: false, memecoin_extra_details, total_volume, compact },
        skip_total_count,
    })
}

/// `/coins/{asset}/resolver` (no parameters).
pub fn coin_resolver(asset: &str, pairs: &[(String, String)]) -> Parsed<Asset> {
    no_parameters(pairs)?;
    Ok(parse_asset("asset", asset)?)
}

/// `/coin_transactions`.
pub fn coin_transactions(pairs: &[(String, String)]) -> Parsed<CoinTransactionsQuery> {
    let mut p = Params::new(pairs)?;
    let asset = p.asset("asset")?;
    let pool = p.address("pool_address")?;
    let trader = p.address("trader_address")?;
    let page = page(&mut p, COIN_TRANSACTIONS_LIMIT)?;
    let (start, end) = (p.date("start_date")?, p.date("end_date")?);
    let dates = Bounds::new("start_date", "end_date", start, end)?;
    let (lo, hi) = (p.large_float("volume_usd_min")?, p.large_float("volume_usd_max")?);
    let volume_usd = Bounds::distinct_amounts("volume_usd", lo, hi)?;
    let kind = p.enumeration::<TradeType>("type")?;
    // Trades sort by time only; `sort_by=age` is accepted and changes nothing.
    let _ = p.enumeration::<TxSortBy>("sort_by")?;
    let direction = p.enumeration("sort_direction")?.unwrap_or(SortDirection::Desc);
    p.finish()?;
    Ok(CoinTransactionsQuery { asset, pool, trader, page, dates, volume_usd, kind, direction })
}

/// The candle parameters both charts share.
fn candles(p: &mut Params<'_>) -> Parsed<CandleSpec> {
    let period = p.required_enumeration::<ChartPeriod>("period")?;
    let (start, end) = (p.date("start_date")?, p.date("end_date")?);
    let dates = Bounds::new("start_date", "end_date", start, end)?;
    let limit = Limit::new(p.int("limit")?, CHART_LIMIT)?;
    Ok(CandleSpec { period, dates, limit })
}

/// `/chart`.
pub fn chart(pairs: &[(String, String)]) -> Parsed<ChartQuery> {
    let mut p = Params::new(pairs)?;
    let candles = candles(&mut p)?;
    let asset = p.asset("asset")?;
    let opposite = p.text("opposite_asset").map(|v| parse_asset("opposite_asset", v)).transpose()?;
    // Every candle is computed from the trades: `use_materialized` is accepted and changes nothing.
    let _ = p.bool("use_materialized")?;
    p.finish()?;
    Ok(ChartQuery::new(asset, opposite, candles)?)
}

/// `/chart_by_pool_address`.
pub fn chart_by_pool(pairs: &[(String, String)]) -> Parsed<ChartByPoolQuery> {
    let mut p = Params::new(pairs)?;
    let candles = candles(&mut p)?;
    let asset = p.asset("asset")?;
    let pool = parse_address("pool_address", p.required("pool_address")?)?;
    p.finish()?;
    Ok(ChartByPoolQuery { asset, pool, candles })
}

/// A JSON request body of a pool operation.
pub fn body<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, QueryError> {
    tonroute_core::json::from_slice(bytes).map_err(|source| QueryError::BadBody { source })
}

/// The parameters `/pools` and `/pools/pair` end with, alike.
struct ListingTail {
    pool_addresses: Option<Vec<String>>,
    sort_by: Option<PoolSortBy>,
    sort_direction: Option<SortDirection>,
    tags: Option<Vec<String>>,
    wallet_address: Option<String>,
}

/// Reads a pool listing's last parameters (in the spec's order), then ends the query string.
fn listing_tail(mut p: Params<'_>) -> Result<ListingTail, QueryError> {
    let tail = ListingTail {
        pool_addresses: p.strings("pool_addresses")?,
        sort_by: p.enumeration("sort_by")?,
        sort_direction: p.enumeration("sort_direction")?,
        tags: p.strings("tags")?,
        wallet_address: p.text("wallet_address").map(str::to_string),
    };
    p.finish()?;
    Ok(tail)
}

/// GetPoolsRequest from query parameters: lists comma-separated, `pair_pools` as JSON text.
pub fn pools_request(pairs: &[(String, String)]) -> Result<GetPoolsRequest, QueryError> {
    let mut p = Params::new(pairs)?;
    let filter_by_assets = p.strings("filter_by_assets")?;
    let filter_by_type = p.strings("filter_by_type")?;
    let include_assets = p.strings("include_assets")?;
    let limit = p.int("limit")?;
    let offset = p.int("offset")?;
    let pair_pools = match p.text("pair_pools") {
        None => None,
        Some(t) => Some(tonroute_core::json::from_str(t).map_err(|source| QueryError::PairPoolsJson { source })?),
    };
    let ListingTail { pool_addresses, sort_by, sort_direction, tags, wallet_address } = listing_tail(p)?;
    Ok(GetPoolsRequest {
        filter_by_assets,
        filter_by_type,
        include_assets,
        limit,
        offset,
        pair_pools,
        pool_addresses,
        sort_by,
        sort_direction,
        tags,
        wallet_address,
    })
}

/// GetPairPoolsRequest from query parameters (`assets` comma-separated).
pub fn pair_pools_request(pairs: &[(String, String)]) -> Result<GetPairPoolsRequest, QueryError> {
    let mut p = Params::new(pairs)?;
    let assets = p.required("assets")?.split(',').map(|s| s.trim().to_string()).collect();
    let filter_by_type = p.strings("filter_by_type")?;
    let limit = p.int("limit")?;
    let offset = p.int("offset")?;
    let ListingTail { pool_addresses, sort_by, sort_direction, tags, wallet_address } = listing_tail(p)?;
    Ok(GetPairPoolsRequest {
        assets,
        filter_by_type,
        limit,
        offset,
        pool_addresses,
        sort_by,
        sort_direction,
        tags,
        wallet_address,
    })
}

/// PoolSummaryRequest from query parameters.
pub fn pool_summary_request(pairs: &[(String, String)]) -> Result<PoolSummaryRequest, QueryError> {
    let mut p = Params::new(pairs)?;
    let include_assets = p.strings("include_assets")?;
    p.finish()?;
    Ok(PoolSummaryRequest { include_assets })
}

/// The filter and the page of a pool listing, `/pools` or `/pools/pair`: their request bodies
/// ([`GetPoolsRequest`], [`GetPairPoolsRequest`]) are separate spec types that name these fields alike.
macro_rules! pool_listing {
    ($req:expr) => {{
        let req = $req;
        let filter = pool_filter(
            &req.filter_by_type,
            &req.pool_addresses,
            &req.tags,
            &req.wallet_address,
            req.sort_by,
            req.sort_direction,
        )?;
        (filter, Page { limit: Limit::new(req.limit, POOLS_LIMIT)?, offset: Offset::new(req.offset)? })
    }};
}

/// The filter fields the pool listings share, in the spec's order of checks.
fn pool_filter(
    filter_by_type: &Option<Vec<String>>,
    pool_addresses: &Option<Vec<String>>,
    tags: &Option<Vec<String>>,
    wallet_address: &Option<String>,
    sort_by: Option<PoolSortBy>,
    sort_direction: Option<SortDirection>,
) -> Parsed<PoolFilter> {
    let kinds = filter_by_type
        .as_ref()
        .map(|v| {
            v.iter()
                .map(|t| PoolKind::parse_any_case(t).ok_or_else(|| QueryError::BadPoolType { text: t.clone() }))
                .collect::<Result<Vec<_>, _>>()
        })
        .transpose()?;
    let pool_addresses = pool_addresses
        .as_ref()
        .map(|v| v.iter().map(|a| parse_address("pool_addresses", a)).collect::<Result<Vec<_>, _>>())
        .transpose()?;
    let mut boosted = false;
    for t in tags.iter().flatten() {
        if t != "boosted" {
            return Err(QueryError::UnsupportedTag { text: t.clone() }.into());
        }
        boosted = true;
    }
    let wallet = wallet_address.as_deref().map(|w| parse_address("wallet_address", w)).transpose()?;
    Ok(PoolFilter::new(kinds, pool_addresses, boosted, wallet, sort_by, sort_direction)?)
}

fn assets(name: &str, v: &Option<Vec<String>>) -> Result<Option<Vec<Asset>>, QueryError> {
    v.as_ref().map(|items| items.iter().map(|s| parse_asset(name, s)).collect()).transpose()
}

fn pair(name: &str, v: &[String]) -> Parsed<AssetPair> {
    let [a, b] = v else {
        return Err(QueryError::PairSize { name: name.to_string(), got: v.len() }.into());
    };
    Ok(AssetPair::new(name, parse_asset(name, a)?, parse_asset(name, b)?)?)
}

/// `/pools`, from the body or the query-string form.
pub fn pools(req: &GetPoolsRequest) -> Parsed<PoolsQuery> {
    let (filter, page) = pool_listing!(req);
    let priority_assets = assets("filter_by_assets", &req.filter_by_assets)?;
    let include_assets = assets("include_assets", &req.include_assets)?;
    let mut row_pages = BTreeMap::new();
    for (k, o) in req.pair_pools.iter().flatten().enumerate() {
        let key = pair(&format!("pair_pools[{k}].assets"), &o.assets)?;
        let row_page = Page { limit: Limit::new(o.limit, ROW_POOLS_LIMIT)?, offset: Offset::new(o.offset)? };
        row_pages.insert(key, row_page);
    }
    Ok(PoolsQuery { filter, page, priority_assets, include_assets, row_pages })
}

/// `/pools/pair`, from the body or the query-string form.
pub fn pair_pools(req: &GetPairPoolsRequest) -> Parsed<PairPoolsQuery> {
    let pair = pair("assets", &req.assets)?;
    let (filter, page) = pool_listing!(req);
    Ok(PairPoolsQuery { pair, filter, page })
}

/// `/pools/{address}`.
pub fn pool(address: &str, wallet_address: Option<&str>) -> Parsed<PoolQuery> {
    let address = parse_address("address", address)?;
    let wallet = wallet_address.map(|w| parse_address("wallet_address", w)).transpose()?;
    Ok(PoolQuery { address, wallet })
}

/// `/pools/summary`, from the body or the query-string form.
pub fn pool_summary(req: &PoolSummaryRequest) -> Parsed<PoolSummaryQuery> {
    Ok(PoolSummaryQuery { include_assets: assets("include_assets", &req.include_assets)? })
}

/// An affiliate path segment that must name accounts (`/volume`, `/referrals`: anything else is a 400).
pub fn affiliate_key(text: &str) -> Result<AffiliateKey, QueryError> {
    AffiliateKey::parse(text).ok_or_else(|| QueryError::BadAccountKey { text: text.to_string() })
}

/// `/affiliate/accounts/{id}/volume`.
pub fn affiliate_volume(text: &str, pairs: &[(String, String)]) -> Parsed<AffiliateVolumeQuery> {
    let mut p = Params::new(pairs)?;
    let wallet = p.address("wallet_address")?;
    p.finish()?;
    Ok(AffiliateVolumeQuery { key: affiliate_key(text)?, wallet })
}

/// `/pools/{address}`: its one query parameter, `wallet_address` (parsed with the path by [`pool`]).
pub fn pool_wallet(pairs: &[(String, String)]) -> Result<Option<&str>, QueryError> {
    let mut p = Params::new(pairs)?;
    let wallet = p.text("wallet_address");
    p.finish()?;
    Ok(wallet)
}

/// A route that takes no query parameters.
pub fn no_parameters(pairs: &[(String, String)]) -> Result<(), QueryError> {
    Params::new(pairs)?.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::market::params::decode_query;
    use tonroute_market::MarketError;

    fn q(s: &str) -> Vec<(String, String)> {
        decode_query(s).unwrap()
    }

    fn query_error<T: std::fmt::Debug>(r: Parsed<T>) -> QueryError {
        match r {
            Err(MarketFailure::Query(e)) => e,
            other => panic!("expected a query error, got {other:?}"),
        }
    }

    fn market_error<T: std::fmt::Debug>(r: Parsed<T>) -> MarketError {
        match r {
            Err(MarketFailure::Market(e)) => e,
            other => panic!("expected a market error, got {other:?}"),
        }
    }

    #[test]
    fn syntax_errors_name_the_parameter() {
        assert!(matches!(query_error(coins(&q("limit=1&limit=2"))), QueryError::Repeated { name } if name == "limit"));
        assert!(matches!(query_error(coins(&q("colour=red"))), QueryError::Unknown { name } if name == "colour"));
        assert!(matches!(query_error(coin(&q("asset="))), QueryError::Missing { name: "asset" }));
        assert!(matches!(query_error(coins(&q("compact=yes"))), QueryError::NotBoolean { name: "compact", .. }));
        assert!(matches!(query_error(coins(&q("limit=1.5"))), QueryError::NotInt32 { name: "limit", .. }));
        let e = query_error(coins(&q("sort_by=hot")));
        assert!(matches!(&e, QueryError::NotOneOf { name: "sort_by", .. }));
        assert_eq!(
            e.to_string(),
            "parameter `sort_by`: `hot` is not one of price, market_cap, liquidity, holders, age, price_change, \
             transactions, volume, curve_progress"
        );
        assert!(matches!(
            query_error(coins(&q("filter_by_verification_level=3,5"))),
            QueryError::NotVerificationLevel { text } if text == "5"
        ));
        assert!(matches!(
            query_error(coins(&q("created_at_min=yesterday"))),
            QueryError::NotDateTime { name: "created_at_min", .. }
        ));
        assert!(matches!(
            query_error(coins(&q("holders_min=1e3"))),
            QueryError::NotDecimal { name: "holders_min", .. }
        ));
        assert!(matches!(
            query_error(coins(&q(&format!("holders_max={}", "9".repeat(40))))),
            QueryError::TooLarge { name: "holders_max", .. }
        ));
        assert!(matches!(
            query_error(coins(&q("exclude_tags=ai,"))),
            QueryError::EmptyItem { name: "exclude_tags", .. }
        ));
        assert!(matches!(query_error(coin(&q("asset=bogus"))), QueryError::BadAsset { name, .. } if name == "asset"));
        let e = query_error(coin_transactions(&q("asset=native&trader_address=x")));
        assert!(matches!(e, QueryError::BadAddress { name: "trader_address", .. }), "{e}");
        let e = query_error(chart(&q("asset=native&period=2m")));
        assert!(matches!(e, QueryError::NotOneOf { name: "period", .. }), "{e}");
        assert!(matches!(decode_query("a=%ZZ"), Err(QueryError::PercentEncoding { .. })));
        assert!(matches!(decode_query("a=%C3%28"), Err(QueryError::NotUtf8 { .. })));
    }

    #[test]
    fn bad_bodies_and_pair_pools_name_the_field_that_failed() {
        use serde_json::error::Category;
        let e = body::<GetPoolsRequest>(br#"{"pair_pools": [{"assets": ["native", 5]}]}"#).unwrap_err();
        assert!(matches!(&e, QueryError::BadBody { source } if source.path() == "pair_pools[0].assets[1]"), "{e}");
        assert!(e.to_string().starts_with("request body: at `pair_pools[0].assets[1]`: invalid type"), "{e}");
        let eof = body::<GetPoolsRequest>(b"{");
        assert!(matches!(eof, Err(QueryError::BadBody { source }) if source.category() == Category::Eof));
        let e = pools_request(&q("pair_pools=%5B%7B%22assets%22%3A7%7D%5D")).unwrap_err();
        assert!(matches!(&e, QueryError::PairPoolsJson { source } if source.path() == "[0].assets"), "{e}");
    }

    #[test]
    fn values_meet_the_typed_queries() {
        assert_eq!(market_error(coins(&q("limit=501"))), MarketError::LimitOutOfRange { value: 501, min: 1, max: 500 });
        assert_eq!(market_error(coins(&q("offset=-1"))), MarketError::OffsetOutOfRange { value: -1 });
        assert_eq!(market_error(coins(&q("sort_by=volume"))), MarketError::SortPeriodRequired);
        assert_eq!(market_error(coins(&q("transactions_min=1"))), MarketError::FilterPeriodRequired);
        assert!(matches!(
            market_error(coins(&q("holders_min=5&holders_max=1"))),
            MarketError::InvertedBounds { min_field: "holders_min", max_field: "holders_max" }
        ));
        assert!(matches!(
            market_error(coins(&q("bonding_curve_percentage_max=101"))),
            MarketError::PercentageOutOfRange { .. }
        ));
        assert!(matches!(
            market_error(coin_transactions(&q("asset=native&volume_usd_min=2&volume_usd_max=2"))),
            MarketError::InvertedAmounts { strict: true, .. }
        ));
        assert_eq!(
            market_error(chart(&q("asset=native&period=1h&opposite_asset=native"))),
            MarketError::OppositeIsAsset
        );
        assert_eq!(
            market_error(chart(&q("asset=native&period=1h&limit=5001"))),
            MarketError::LimitOutOfRange { value: 5001, min: 1, max: 5000 }
        );
        let q = coins(&q("sort_by=volume&sort_period=1h&filter_period=24h&volume_usd_min=5&limit=7")).unwrap();
        assert_eq!((q.sort, q.page.limit.get()), (CoinSort::Volume(StatPeriod::H1), 7));
        assert_eq!(q.filter.activity.map(|a| (a.period, a.volume_usd.min())), Some((StatPeriod::H24, Some(5.0))));
    }

    #[test]
    fn the_first_problem_in_the_request_is_reported() {
        // Parameters are read in the operation's order, whatever their order in the request: `limit` (read and
        // checked) before `sort_by`, and every parameter before the cross-parameter rules.
        assert!(matches!(market_error(coins(&q("limit=0&sort_by=bogus"))), MarketError::LimitOutOfRange { .. }));
        assert!(matches!(market_error(coins(&q("sort_by=bogus&limit=0"))), MarketError::LimitOutOfRange { .. }));
        assert!(matches!(market_error(coins(&q("sort_by=bogus&offset=-1"))), MarketError::OffsetOutOfRange { .. }));
        assert!(matches!(query_error(coins(&q("offset=3&sort_by=bogus"))), QueryError::NotOneOf { .. }));
        assert!(matches!(query_error(coins(&q("sort_by=volume&nonsense=1"))), QueryError::Unknown { .. }));
        assert_eq!(market_error(coins(&q("sort_by=volume&volume_usd_min=1"))), MarketError::FilterPeriodRequired);
    }

    #[test]
    fn pool_bodies_and_query_strings_meet_the_same_checks() {
        let body: GetPoolsRequest = super::body(br#"{"filter_by_type": ["STABLE"], "tags": ["boosted"]}"#).unwrap();
        let from_body = pools(&body).unwrap();
        let from_query = pools(&pools_request(&q("filter_by_type=STABLE&tags=boosted")).unwrap()).unwrap();
        assert_eq!(from_body, from_query);
        assert_eq!(from_body.filter.kinds(), Some(&[PoolKind::Stable][..]));
        assert!(from_body.filter.boosted());
        assert!(matches!(super::body::<GetPoolsRequest>(br#"{"limt": 2}"#), Err(QueryError::BadBody { .. })));
        assert!(matches!(pools_request(&q("pair_pools=notjson")), Err(QueryError::PairPoolsJson { .. })));
        let req = |v: serde_json::Value| serde_json::from_value::<GetPoolsRequest>(v).unwrap();
        assert!(matches!(
            query_error(pools(&req(serde_json::json!({"filter_by_type": ["cpmm_v3"]})))),
            QueryError::BadPoolType { .. }
        ));
        assert!(matches!(
            query_error(pools(&req(serde_json::json!({"tags": ["hot"]})))),
            QueryError::UnsupportedTag { .. }
        ));
        assert!(matches!(
            query_error(pools(&req(serde_json::json!({"pair_pools": [{"assets": ["native"]}]})))),
            QueryError::PairSize { got: 1, .. }
        ));
        assert_eq!(
            market_error(pools(&req(serde_json::json!({"pair_pools": [{"assets": ["native", "native"]}]})))),
            MarketError::EqualAssets { field: "pair_pools[0].assets".into() }
        );
        assert_eq!(
            market_error(pools(&req(serde_json::json!({"sort_by": "value_usd"})))),
            MarketError::WalletRequired { sort_by: PoolSortBy::ValueUsd }
        );
        assert_eq!(
            market_error(pools(&req(
                serde_json::json!({"pair_pools": [{"assets": ["native", "native"], "limit": 51}]})
            ))),
            MarketError::EqualAssets { field: "pair_pools[0].assets".into() }
        );
        let usdt = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
        assert_eq!(
            market_error(pools(&req(serde_json::json!({"pair_pools": [{"assets": ["native", usdt], "limit": 51}]})))),
            MarketError::LimitOutOfRange { value: 51, min: 1, max: 50 }
        );
        assert!(matches!(affiliate_key("bad id!"), Err(QueryError::BadAccountKey { .. })));
    }
}
