//! The coin operations of [`MarketView`]: one coin, the coin listing (filters, sorts, pages), a coin's trades
//! and its resolver.
//!
//! Owns the Coin and CoinTransaction answers and the listing's ordering (missing sort keys last, ties by asset
//! id); the queries arrive valid ([`crate::query`]).

use std::cmp::Ordering;

use super::replay::data::Trade;
use super::replay::view::{metadata, pick, trade_prices, MarketView};
use super::units::{friendly, friendly_wallet, whole};
use crate::limits::COIN_LIQUIDITY_POOLS;
use crate::money::Money;
use crate::query::{CoinOptions, CoinQuery, CoinSort, CoinTransactionsQuery, CoinsQuery};
use crate::types::*;
use tonroute_core::asset::Asset;
use tonroute_core::graph::{AssetId, PoolId, Protocol};

fn period_data(f: impl Fn(StatPeriod) -> f64) -> PeriodData {
    PeriodData {
        m15: f(StatPeriod::M15),
        h1: f(StatPeriod::H1),
        h6: f(StatPeriod::H6),
        h24: f(StatPeriod::H24),
        d7: f(StatPeriod::D7),
    }
}

/// Per-period sums of money, written exactly.
fn period_money(f: impl Fn(StatPeriod) -> Money) -> PeriodDataLarge {
    PeriodDataLarge {
        m15: f(StatPeriod::M15).to_large_float(),
        h1: f(StatPeriod::H1).to_large_float(),
        h6: f(StatPeriod::H6).to_large_float(),
        h24: f(StatPeriod::H24).to_large_float(),
        d7: f(StatPeriod::D7).to_large_float(),
    }
}

/// A trade's `pool_type` and `platform` on a pool of `protocol`.
pub fn trade_labels(protocol: Protocol) -> (PoolType, Platform) {
    match protocol {
        Protocol::DexA => (PoolType::DexA, Platform::DexA),
        Protocol::DexBV1 => (PoolType::DexBV1, Platform::DexB),
        Protocol::DexBV2 => (PoolType::DexBV2, Platform::DexB),
        // The spec's pool-type list has no dex_c value; its platform list does. A dex_c trade is labelled
        // dex_c in both (an extension of the pool-type list, README "Market data").
        Protocol::DexC => (PoolType::DexC, Platform::DexC),
    }
}

/// The Coin answer of the coin at `index` in [`MarketData::coins`](super::MarketData).
fn coin_at(view: &MarketView, index: usize, o: CoinOptions) -> Coin {
    let data = view.data();
    let c = &data.coins[index];
    let s = &view.coin_stats(index);
    let dec = data.graph.asset(c.id).decimals;
    let price = match (s.usd, s.ton) {
        (Some(u), Some(t)) => Some(PriceInfo {
            usd_value: LargeFloat::from_f64(u),
            ton_value: LargeFloat::from_f64(t),
            usd_change: (!o.compact).then(|| period_data(|p| pick(p, &s.usd_change))),
            ton_change: (!o.compact).then(|| period_data(|p| pick(p, &s.ton_change))),
        }),
        _ => None,
    };
    let mut coin = Coin {
        asset: c.asset.to_string(),
        metadata: metadata(data, c.id, s.usd),
        price,
        ath_date: None,
        atl_date: None,
        ath_usd: None,
        atl_usd: None,
        ath_market_cap_usd: None,
        atl_market_cap_usd: None,
        buy_tax: None,
        sell_tax: None,
        circulating_supply: None,
        total_supply: None,
        created_at: None,
        extra_details: None,
        memecoin_extra_details: None,
        fully_diluted_market_cap: None,
        liquidity: Some(s.liquidity.to_large_float()),
        market_cap: s.market_cap.map(LargeFloat::from_f64),
        holders: None,
        tags: None,
        traders: None,
        transactions: None,
        verification_level: Some(i32::from(c.record.verification_level)),
        volume: None,
    };
    if !o.compact {
        let circ = whole(c.circulating_supply, dec);
        coin.ath_usd = s.ath.map(|(p, _)| LargeFloat::from_f64(p));
        coin.ath_date = s.ath.and_then(|(_, t)| DateTime::from_unix(t));
        coin.ath_market_cap_usd = s.ath.map(|(p, _)| LargeFloat::from_f64(p * circ));
        coin.atl_usd = s.atl.map(|(p, _)| LargeFloat::from_f64(p));
        coin.atl_date = s.atl.and_then(|(_, t)| DateTime::from_unix(t));
        coin.atl_market_cap_usd = s.atl.map(|(p, _)| LargeFloat::from_f64(p * circ));
        coin.buy_tax = Some(i32::from(c.record.buy_tax));
        coin.sell_tax = Some(i32::from(c.record.sell_tax));
        coin.circulating_supply = Some(LargeInteger::from(c.circulating_supply));
        coin.total_supply = Some(LargeInteger::from(c.total_supply));
        coin.created_at = Some(c.record.created_at);
        coin.fully_diluted_market_cap = s.fdv.map(LargeFloat::from_f64);
        coin.holders = i64::try_from(c.record.holders).ok();
        coin.tags = Some(c.record.tags.clone());
        coin.traders = Some(TradersInfo {
            total: period_data(|p| pick(p, &s.traders)),
            buy: period_data(|p| pick(p, &s.buyers)),
            sell: period_data(|p| pick(p, &s.sellers)),
        });
        coin.transactions =
            Some(TransactionsInfo { buy: period_data(|p| pick(p, &s.buys)), sell: period_data(|p| pick(p, &s.sells)) });
        coin.volume = Some(VolumeInfo {
            periods: period_money(|p| pick(p, &s.volume)),
            buy_periods: period_money(|p| pick(p, &s.buy_volume)),
            sell_periods: period_money(|p| pick(p, &s.sell_volume)),
            change: period_data(|p| pick(p, &s.volume_change)),
            total_volume: o.total_volume.then(|| TotalVolume {
                usd: s.total_volume_usd.to_large_float(),
                ton: LargeInteger::from(s.total_volume_ton.nanos()),
            }),
        });
    }
    if o.extra_details {
        let weight = |id: PoolId| {
            if s.liquidity > Money::ZERO {
                view.pool_stats(id).tvl_usd.to_f64() / s.liquidity.to_f64()
            } else {
                0.0
            }
        };
        let mut trading: Vec<PoolId> = (0..data.graph.pool_count())
            .map(|i| PoolId(u32::try_from(i).unwrap_or(u32::MAX)))
            .filter(|&id| data.graph.pool(id).assets.contains(&c.id))
            .collect();
        // Deepest first; ties by pool order so the answer is stable.
        trading.sort_by(|&a, &b| view.pool_stats(b).tvl_usd.cmp(&view.pool_stats(a).tvl_usd).then(a.0.cmp(&b.0)));
        let total = trading.len();
        let rest: f64 = trading.iter().skip(COIN_LIQUIDITY_POOLS).map(|&i| weight(i)).sum();
        let pools: Vec<LiquidityPool> = trading
            .into_iter()
            .take(COIN_LIQUIDITY_POOLS)
            .map(|i| {
                let p = data.graph.pool(i);
                LiquidityPool {
                    pool_address: friendly(&p.address),
                    pool_type: p.protocol.slug().to_string(),
                    asset0: data.graph.asset(p.assets[0]).asset.to_string(),
                    asset1: data.graph.asset(p.assets[1]).asset.to_string(),
                    weight: LargeFloat::from_f64(weight(i)),
                }
            })
            .collect();
        coin.extra_details = Some(CoinExtraDetails {
            high_30d: s.high_low_30d.map(|(h, _)| LargeFloat::from_f64(h)),
            low_30d: s.high_low_30d.map(|(_, l)| LargeFloat::from_f64(l)),
            high_7d: s.high_low_7d.map(|(h, _)| LargeFloat::from_f64(h)),
            low_7d: s.high_low_7d.map(|(_, l)| LargeFloat::from_f64(l)),
            liquidity_pools: Some(pools),
            liquidity_pools_total: Some(i32::try_from(total).unwrap_or(i32::MAX)),
            liquidity_pools_rest_weight: Some(LargeFloat::from_f64(rest)),
        });
    }
    if o.memecoin_extra_details {
        coin.memecoin_extra_details = c.record.memepad.as_ref().map(|m| MemeCoinExtraDetails {
            curve_ton_collected: LargeInteger::new(m.curve_ton_collected.clone())
                .unwrap_or_else(|_| LargeInteger::from(0u64)),
            curve_ton_max: LargeInteger::new(m.curve_ton_max.clone()).unwrap_or_else(|_| LargeInteger::from(0u64)),
            author: friendly_wallet(&c.author),
            memepad: m.memepad.clone(),
            contract_type: m.contract_type.clone(),
            migration_date: m.migration_date,
        });
    }
    coin
}

fn coin_index(view: &MarketView, asset: &Asset) -> Option<usize> {
    view.data().coin_index.get(asset).copied()
}

fn sort_floats(a: Option<f64>, b: Option<f64>, dir: SortDirection) -> Ordering {
    // Missing values go last in either direction.
    match (a, b) {
        (Some(x), Some(y)) => match dir {
            SortDirection::Asc => x.total_cmp(&y),
            SortDirection::Desc => y.total_cmp(&x),
        },
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// `/coin`: the coin, `None` when it is not listed.
pub fn coin(view: &MarketView, q: &CoinQuery) -> Option<Coin> {
    let options = CoinOptions { total_volume: false, compact: false, ..q.options };
    coin_index(view, &q.asset).map(|i| coin_at(view, i, options))
}

/// `/coins/{asset}/resolver`: the data has no resolvers, so a listed coin's resolver address is empty.
pub fn coin_resolver(view: &MarketView, asset: &Asset) -> Option<ResolverAddressResponse> {
    coin_index(view, asset).map(|_| ResolverAddressResponse { resolver_address: String::new() })
}

/// Whether the coin at `index` passes `q`'s search and filters.
fn listed(view: &MarketView, index: usize, q: &CoinsQuery, search: Option<(&str, Option<Asset>)>) -> bool {
    let data = view.data();
    let (c, s, f) = (&data.coins[index], &view.coin_stats(index), &q.filter);
    let meta = data.graph.asset(c.id);
    let r = &c.record;
    if !f.include_without_price && s.usd.is_none() {
        return false;
    }
    if let Some((text, asset)) = search {
        let hit = meta.name.to_lowercase().contains(text)
            || meta.symbol.to_lowercase().contains(text)
            || asset == Some(c.asset);
        if !hit {
            return false;
        }
    }
    if f.assets.as_ref().is_some_and(|a| !a.contains(&c.asset))
        || f.exclude_assets.as_ref().is_some_and(|a| a.contains(&c.asset))
        || !f.verification_levels.iter().any(|l| l.get() == r.verification_level)
        || f.exclude_tags.as_ref().is_some_and(|t| r.tags.iter().any(|x| t.contains(x)))
        || f.tags.as_ref().is_some_and(|t| !t.iter().all(|x| r.tags.contains(x)))
        || f.author.as_ref().is_some_and(|a| *a != c.author)
        || !f.liquidity_usd.contains(s.liquidity.to_f64())
        || !f.holders.contains(i128::from(r.holders))
        || !f.created_at.contains(r.created_at.unix())
    {
        return false;
    }
    // A bound on a figure the coin does not have (no price, no curve) excludes it.
    let bounded = |v: Option<f64>, b: &crate::query::Bounds<f64>| b.is_any() || v.is_some_and(|v| b.contains(v));
    if !bounded(s.market_cap, &f.market_cap_usd) || !bounded(c.curve_progress, &f.bonding_curve_percentage) {
        return false;
    }
    f.activity.is_none_or(|a| {
        a.volume_usd.contains(s.volume(a.period).to_f64()) && a.transactions.contains(s.transactions(a.period) as i128)
    })
}

/// `/coins`: the listed coins passing the query's search and filters, sorted, one page.
pub fn coins(view: &MarketView, q: &CoinsQuery) -> CoinsResponse {
    let data = view.data();
    let search = q.search.as_deref().map(|text| (text.to_lowercase(), Asset::parse(text).ok()));
    let search = search.as_ref().map(|(text, asset)| (text.as_str(), *asset));
    let mut matches: Vec<usize> = (0..data.coins.len()).filter(|&i| listed(view, i, q, search)).collect();
    let key = |i: usize| -> Option<f64> {
        let s = &view.coin_stats(i);
        let c = &data.coins[i];
        match q.sort {
            CoinSort::Price => s.usd,
            CoinSort::MarketCap => s.market_cap,
            CoinSort::Liquidity => Some(s.liquidity.to_f64()),
            CoinSort::Holders => Some(c.record.holders as f64),
            CoinSort::Age => Some((view.now() - c.record.created_at.unix()) as f64),
            CoinSort::PriceChange(p) => s.usd.map(|_| pick(p, &s.usd_change)),
            CoinSort::Transactions(p) => Some(s.transactions(p)),
            CoinSort::Volume(p) => Some(s.volume(p).to_f64()),
            CoinSort::CurveProgress => c.curve_progress,
        }
    };
    matches.sort_by(|&a, &b| {
        sort_floats(key(a), key(b), q.direction).then_with(|| data.coins[a].asset.cmp(&data.coins[b].asset))
    });
    let options = CoinOptions { extra_details: false, ..q.options };
    let items = q.page.of(&matches).iter().map(|&i| coin_at(view, i, options)).collect();
    let total = i64::try_from(matches.len()).unwrap_or(i64::MAX);
    CoinsResponse { items, total_count: (!q.skip_total_count).then_some(total) }
}

fn coin_transaction(view: &MarketView, t: &Trade, coin: AssetId) -> CoinTransaction {
    let g = &view.data().graph;
    let meta = g.pool(t.pool);
    let (usd, ton) = trade_prices(view.data(), t, coin);
    let (ain, aout) = (g.asset(t.asset_in), g.asset(t.asset_out));
    let (pool_type, platform) = trade_labels(meta.protocol);
    CoinTransaction {
        trade_date: DateTime::from_unix(t.time).unwrap_or(DateTime(time::OffsetDateTime::UNIX_EPOCH)),
        pool_address: friendly(&meta.address),
        pool_type,
        trade_asset_in: ain.asset.to_string(),
        trade_asset_out: aout.asset.to_string(),
        trade_asset_in_amount: LargeInteger::from(t.amount_in),
        trade_asset_out_amount: LargeInteger::from(t.amount_out),
        trade_asset_in_ticker: ain.symbol.clone(),
        trade_asset_out_ticker: aout.symbol.clone(),
        trade_asset_in_decimals: i32::from(ain.decimals),
        trade_asset_out_decimals: i32::from(aout.decimals),
        kind: if t.asset_out == coin { TradeType::Buy } else { TradeType::Sell },
        price_usd: LargeFloat::from_f64(usd),
        price_ton: LargeFloat::from_f64(ton),
        volume_usd: LargeFloat::from_f64(t.volume_usd),
        volume_ton: LargeFloat::from_f64(t.volume_ton()),
        trader_address: friendly_wallet(&view.data().traders[t.trader]),
        platform,
        tx_hash: Some(t.tx_hash.clone()),
    }
}

/// `/coin_transactions`: one page of the coin's trades passing the filters, `None` when it is not listed.
pub fn coin_transactions(view: &MarketView, q: &CoinTransactionsQuery) -> Option<CoinTransactionsResponse> {
    let coin = view.data().coins[coin_index(view, &q.asset)?].id;
    // A pool or trader the data does not know matches no trade.
    let pool_id = q.pool.as_ref().map(|a| view.data().graph.pool_id(a));
    let trader_id = q.trader.as_ref().map(|a| view.data().trader_index.get(a).copied());
    let mut hits: Vec<&Trade> = view
        .asset_trades(coin)
        .filter(|t| {
            pool_id.is_none_or(|p| p == Some(t.pool))
                && trader_id.is_none_or(|w| w == Some(t.trader))
                && q.dates.contains(t.time)
                && q.volume_usd.contains(t.volume_usd)
                && q.kind.is_none_or(|k| (k == TradeType::Buy) == (t.asset_out == coin))
        })
        .collect();
    if q.direction == SortDirection::Desc {
        // Trades are stored in time order; equal times keep file order reversed, which is still stable.
        hits.reverse();
    }
    Some(CoinTransactionsResponse { items: q.page.of(&hits).iter().map(|t| coin_transaction(view, t, coin)).collect() })
}
