//! Any bytes as a market-data request (docs/interface.md area A): the first byte picks the route, the rest is its query
//! string, path segment or JSON body. Decoding and parsing never panic, an accepted query keeps its limits,
//! the bundled market data answers it without panicking, and every refusal is a market code (400 or 404).
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use tonroute::api::market::params::decode_query;
use tonroute::api::market::{parse, MarketApi};
use tonroute::api::ApiError;
use tonroute::graph::PoolGraph;
use tonroute::market::limits::{CHART_LIMIT, COINS_LIMIT, COIN_TRANSACTIONS_LIMIT};
use tonroute::market::{MarketData, MarketView};

fn api() -> &'static MarketApi {
    static API: OnceLock<MarketApi> = OnceLock::new();
    API.get_or_init(|| {
        let snapshot = include_str!("../../data/snapshot.json");
        let graph = PoolGraph::from_json(snapshot).expect("bundled snapshot");
        let data = MarketData::from_json(graph, include_str!("../../data/market.json")).expect("bundled market");
        let data = Arc::new(data);
        MarketApi::new(Arc::new(MarketView::new(data.clone(), data.as_of)))
    })
}

fn refusal<T>(r: Result<T, ApiError>) {
    if let Err(e) = r {
        assert!(matches!(e.status(), 400 | 404) && (6000..6500).contains(&e.code()), "{e:?}");
        assert!(!e.message().is_empty());
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&route, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let api = api();
    match route % 14 {
        11 => return refusal(parse::body(rest).map_err(ApiError::from).and_then(|r| api.get_pools(&r))),
        12 => return refusal(parse::body(rest).map_err(ApiError::from).and_then(|r| api.get_pair_pools(&r))),
        13 => return refusal(parse::body(rest).map_err(ApiError::from).and_then(|r| api.get_pool_summary(&r))),
        _ => {}
    }
    let pairs = match decode_query(&text) {
        Ok(p) => p,
        Err(e) => return refusal::<()>(Err(e.into())),
    };
    match route % 14 {
        0 => {
            if let Ok(q) = parse::coins(&pairs) {
                assert!((1..=COINS_LIMIT.max).contains(&q.page.limit.get()) && q.page.offset.get() >= 0);
            }
            refusal(api.get_coins(&pairs));
        }
        1 => refusal(api.get_coin(&pairs)),
        2 => {
            if let Ok(q) = parse::coin_transactions(&pairs) {
                assert!((1..=COIN_TRANSACTIONS_LIMIT.max).contains(&q.page.limit.get()));
            }
            refusal(api.get_coin_transactions(&pairs));
        }
        3 => {
            if let Ok(q) = parse::chart(&pairs) {
                assert!((1..=CHART_LIMIT.max).contains(&q.candles().limit.get()) && q.opposite() != Some(q.asset()));
            }
            refusal(api.get_chart(&pairs));
        }
        4 => refusal(api.get_chart_by_pool_address(&pairs)),
        5 => refusal(parse::pools_request(&pairs).map_err(ApiError::from).and_then(|r| api.get_pools(&r))),
        6 => refusal(parse::pair_pools_request(&pairs).map_err(ApiError::from).and_then(|r| api.get_pair_pools(&r))),
        7 => {
            refusal(parse::pool_summary_request(&pairs).map_err(ApiError::from).and_then(|r| api.get_pool_summary(&r)))
        }
        8 => refusal(api.get_affiliate_account_volume(&text, &[])),
        9 => refusal(api.get_affiliate_referrals(&text)),
        _ => {
            refusal(api.get_affiliate_account(&text));
            refusal(api.get_affiliate_referrer(&text));
            refusal(api.get_pool(&text, None));
            refusal(api.get_coin_resolver(&text, &[]));
        }
    }
});
