//! The database store's statistics (`/coin`, `/coins`, pools, affiliate volumes) come from the trades of the
//! last 30 days, a few anchor trades before them and all-time figures folded as trades arrive, never from every
//! row. Checked on both engines against the whole market replayed from every row ([`SqlMarketStore::view`], the
//! store's former way of answering): trades are ingested in rounds that push the bundled sample out of the
//! window (so coins and pools whose only trades are old answer from anchors and the fold) and that leave some
//! coins with recent trades only in the last 7 days (their period changes start from a trade found by index);
//! after each round, every coin, the coin listing, every traded pool, the pool listing and summary, the
//! affiliate volumes, the screener feed (latest block, every pair, block ranges over the whole history) and every
//! pool's providers and deposits answer byte for byte as the whole-market view does.
#![cfg(feature = "store")]

use crate::common;

use std::sync::Arc;

use serde_json::{json, Value};
use tonroute::api::market::params::decode_query;
use tonroute::api::market::MarketApi;
use tonroute::graph::PoolGraph;
use tonroute::market::ingest::parse_trade_line;
use tonroute::market::liquidity::parse_liquidity_line;
use tonroute::market::store::sql::SqlMarketStore;
use tonroute::market::types::DateTime;
use tonroute::market::{MarketData, MarketFile, MarketView};

use common::market_db::{filled, temp_db, MARKET, SNAPSHOT};

const DAY: i64 = 86_400;

/// Every listed coin's trades of the sample as CoinTransaction lines (a trade once per listed side), with their
/// times, from the replay.
fn sample_lines() -> Vec<(i64, Value)> {
    let file: MarketFile = serde_json::from_str(MARKET).unwrap();
    let data = Arc::new(MarketData::load(PoolGraph::from_json(SNAPSHOT).unwrap(), &file).unwrap());
    let replay = MarketApi::new(Arc::new(MarketView::new(data.clone(), data.as_of)));
    let mut lines = Vec::new();
    for c in &file.coins {
        let mut offset = 0;
        loop {
            let q = decode_query(&format!("asset={}&limit=100&offset={offset}", c.asset)).unwrap();
            let page = serde_json::to_value(replay.get_coin_transactions(&q).unwrap()).unwrap();
            let items = page["items"].as_array().cloned().unwrap_or_default();
            if items.is_empty() {
                break;
            }
            offset += items.len();
            for v in items {
                let t = DateTime::parse(v["trade_date"].as_str().unwrap()).unwrap().unix();
                lines.push((t, v));
            }
        }
    }
    lines
}

/// Ingests the lines `pick` selects, moved `shift` seconds later, with fresh hashes tagged `round`, in time order
/// (as a chain's history arrives).
fn ingest_round(store: &SqlMarketStore, base: &[(i64, Value)], round: u64, shift: i64, pick: impl Fn(usize) -> bool) {
    let mut lines: Vec<(i64, String)> = base
        .iter()
        .enumerate()
        .filter(|(j, _)| pick(*j))
        .map(|(j, (t, v))| {
            let mut v = v.clone();
            let at = t + shift;
            v["trade_date"] = Value::String(DateTime::from_unix(at).unwrap().to_string());
            v["tx_hash"] = Value::String(format!("{round:016x}{j:048x}"));
            (at, v.to_string())
        })
        .collect();
    lines.sort_by_key(|(t, _)| *t);
    let parsed: Vec<_> =
        lines.iter().map(|(_, l)| parse_trade_line(l, store.graph(), 4_102_444_800).unwrap()).collect();
    let report = store.ingest(&parsed).unwrap();
    assert_eq!(report.new, parsed.len(), "round {round}: every line is new");
}

/// Every statistic route answers from the store as from the whole-market view of the same rows.
fn same_answers(store: &Arc<SqlMarketStore>, round: &str) {
    let whole = MarketApi::new(store.view().unwrap());
    let windowed = MarketApi::new(store.clone());
    let both = |what: &str, f: &dyn Fn(&MarketApi) -> Value| {
        let (got, want) = (f(&windowed), f(&whole));
        assert_eq!(got, want, "{round}: {what}");
    };
    let q = |s: &str| decode_query(s).unwrap();
    let file: MarketFile = serde_json::from_str(MARKET).unwrap();
    let mut priced = 0;
    for c in &file.coins {
        let path = format!("asset={}&extra_details=true", c.asset);
        both(&format!("/coin?{path}"), &|api| serde_json::to_value(api.get_coin(&q(&path)).unwrap()).unwrap());
        let coin = serde_json::to_value(windowed.get_coin(&q(&path)).unwrap()).unwrap();
        priced += usize::from(!coin["price"].is_null());
    }
    assert!(priced > 20, "{round}: the coins with trades have prices ({priced})");
    for s in [
        "limit=500&include_without_price=true&calculate_total_volume=true",
        "limit=500&offset=500&include_without_price=true",
        "sort_by=volume&sort_period=7d&limit=50",
        "sort_by=price_change&sort_period=24h&limit=50&sort_direction=asc",
        "sort_by=transactions&sort_period=15m&limit=50",
        "sort_by=liquidity&limit=50",
    ] {
        both(&format!("/coins?{s}"), &|api| serde_json::to_value(api.get_coins(&q(s)).unwrap()).unwrap());
    }
    let pools: std::collections::BTreeSet<String> =
        file.trades.iter().map(|t| t.pool.clone()).chain(file.rewards.iter().map(|r| r.pool.clone())).collect();
    assert!(pools.len() > 10);
    for p in &pools {
        both(&format!("/pools/{p}"), &|api| serde_json::to_value(api.get_pool(p, None).unwrap()).unwrap());
    }
    for body in [json!({"limit": 100}), json!({"limit": 100, "offset": 100}), json!({"limit": 50, "sort_by": "tvl"})] {
        both(&format!("/pools {body}"), &|api| {
            serde_json::to_value(api.get_pools(&serde_json::from_value(body.clone()).unwrap()).unwrap()).unwrap()
        });
    }
    both("/pools/summary", &|api| {
        serde_json::to_value(api.get_pool_summary(&serde_json::from_value(json!({})).unwrap()).unwrap()).unwrap()
    });
    // The screener feed and a pool's providers and deposits: read by index per request (the feed) or from the
    // statistics view (providers, deposits), never from every row.
    both("/latest-block", &|api| serde_json::to_value(api.get_latest_block(&[]).unwrap()).unwrap());
    let with_liquidity: std::collections::BTreeSet<String> =
        file.liquidity.iter().map(|e| e.pool.clone()).chain(pools.iter().cloned()).collect();
    for p in &with_liquidity {
        let id = q(&format!("id={p}"));
        both(&format!("/pair?id={p}"), &|api| match api.get_feed_pair(&id) {
            Ok(pair) => serde_json::to_value(pair).unwrap(),
            Err(e) => json!({"status": e.status()}),
        });
        let page = q("limit=100");
        both(&format!("/pools/{p}/providers"), &|api| {
            serde_json::to_value(api.get_pool_providers(p, &page).unwrap()).unwrap()
        });
        both(&format!("/pools/{p}/deposits"), &|api| {
            serde_json::to_value(api.get_pool_deposits(p, &page).unwrap()).unwrap()
        });
    }
    // Block ranges around trades spread over the whole history (the sample's and each round's), the largest a
    // request may ask (10,000 blocks), and one from block 0.
    let times: Vec<i64> = store.view().unwrap().trades().iter().map(|t| t.time).collect();
    let mut ranges = vec![(0, 9_999)];
    for k in 0..12 {
        let b = tonroute::market::liquidity::block_of_time(times[k * (times.len() - 1) / 11]);
        ranges.push((b - 3_000, b + 6_999));
    }
    let mut seen = 0;
    for (from, to) in ranges {
        let range = q(&format!("fromBlock={from}&toBlock={to}"));
        both(&format!("/events {from}..={to}"), &|api| serde_json::to_value(api.get_events(&range).unwrap()).unwrap());
        seen += windowed.get_events(&range).unwrap().events.len();
    }
    assert!(seen > 100, "{round}: the ranges hold events ({seen})");
    for a in &file.affiliates {
        let wallet = a.referrals.first().cloned().unwrap_or_default();
        let pairs = q(&format!("wallet_address={wallet}"));
        both(&format!("/affiliate/accounts/{}/volume", a.account_id), &|api| {
            serde_json::to_value(api.get_affiliate_account_volume(&a.account_id, &pairs).unwrap()).unwrap()
        });
    }
}

/// A new process on the same database (a second store, its own caches) starts its statistics from the stored
/// checkpoint of the fold and answers as the whole-market view does.
fn from_checkpoint(url: &str, first: &SqlMarketStore, round: &str) {
    let saved = first.statistics_checkpoint().unwrap();
    assert!(saved.is_some_and(|s| s >= 6_000), "{round}: the first fold stored its checkpoint ({saved:?})");
    let again = filled(url.to_string());
    same_answers(&again, &format!("{round}, a new process from the checkpoint at trade {saved:?}"));
}

fn rounds(url: String) {
    let store = filled(url.clone());
    let base = sample_lines();
    same_answers(&store, "the sample");
    // Round 1: half of the sample again, 40 days later: the sample's own trades leave the 30-day window.
    ingest_round(&store, &base, 1, 40 * DAY, |j| j % 2 == 0);
    same_answers(&store, "40 days later");
    from_checkpoint(&url, &store, "40 days later");
    // Round 2 (folded on top of round 1): a few trades 75 days later: most coins have no trade in the window any
    // more, some have trades only in its last days.
    ingest_round(&store, &base, 2, 75 * DAY, |j| j % 9 == 0);
    same_answers(&store, "75 days later");
    from_checkpoint(&url, &store, "75 days later");
    // Round 3: liquidity events after the last trade (one with its block, one mapped from its time): "now" moves
    // to the last of them on every route, as in the whole-market view.
    let file: MarketFile = serde_json::from_str(MARKET).unwrap();
    let pool = store.graph().pools().iter().find(|p| p.address.to_hex().starts_with("0:fc4c9f31")).unwrap();
    let (a0, a1) = (store.graph().asset(pool.assets[0]).asset, store.graph().asset(pool.assets[1]).asset);
    let events: Vec<_> = (0..2u64)
        .map(|k| {
            let at = DateTime::from_unix(file.as_of.unix() + 90 * DAY + 3_600 * k as i64).unwrap();
            let mut line = json!({
                "event": "join",
                "event_date": at.to_string(),
                "pool_address": pool.address.to_base64_url(),
                "provider_address": format!("0:{:064x}", 0xabc0 + k),
                "asset0": a0.to_string(),
                "amount0": (2_000_000_000 + k).to_string(),
                "asset1": a1.to_string(),
                "amount1": "1000000000",
                "lp_amount": "5000000",
                "min_lp_out": "4900000",
                "tx_hash": format!("{:064x}", 0x33_0000 + k),
            });
            if k == 0 {
                line["mc_seq_no"] = json!(90_000_000);
            }
            parse_liquidity_line(&line.to_string(), store.graph(), 4_102_444_800).unwrap()
        })
        .collect();
    assert_eq!(store.ingest_batch(&[], &events).unwrap().liquidity.new, 2);
    same_answers(&store, "liquidity events after the last trade");
}

#[test]
fn sqlite_statistics_from_the_window_equal_the_whole_market() {
    rounds(format!("sqlite://{}", temp_db("window").display()));
}

#[test]
fn postgres_statistics_from_the_window_equal_the_whole_market() {
    rounds(common::pg::server().fresh_database_url());
}
