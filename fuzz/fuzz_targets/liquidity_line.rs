//! #23 part A's decoders of outside input. The first byte picks one: a liquidity line of `tonroute market
//! ingest` (a join or exit JSON object), or an `/events` query string answered over the bundled sample, or two
//! i128 as an `/events` block range. Decoding never panics; an accepted line names a pool of the snapshot,
//! amounts and LP below 2^120 (LP above zero, `min_lp_out` at most the LP of a join), a date in range and a
//! 32-bit block when given; an accepted range is ordered, non-negative and at most `MAX_EVENT_BLOCKS` long, and
//! its answer is in feed order; every refusal of the query is a 400 market code.
#![no_main]

mod common;

use std::sync::{Arc, OnceLock};

use common::{graph, LATEST};
use libfuzzer_sys::fuzz_target;
use tonroute::api::market::params::decode_query;
use tonroute::api::market::MarketApi;
use tonroute::graph::PoolGraph;
use tonroute::market::ingest::EARLIEST_TRADE;
use tonroute::market::limits::MAX_EVENT_BLOCKS;
use tonroute::market::liquidity::{parse_liquidity_line, LiquidityKind};
use tonroute::market::screener::EventsQuery;
use tonroute::market::{MarketData, MarketView};

fn api() -> &'static MarketApi {
    static API: OnceLock<MarketApi> = OnceLock::new();
    API.get_or_init(|| {
        let data = MarketData::from_json(
            PoolGraph::from_json(include_str!("../../data/snapshot.json")).expect("bundled snapshot"),
            include_str!("../../data/market.json"),
        )
        .expect("bundled market");
        let data = Arc::new(data);
        MarketApi::new(Arc::new(MarketView::new(data.clone(), data.as_of)))
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    match mode % 3 {
        0 => {
            let Ok(text) = std::str::from_utf8(rest) else { return };
            if let Ok(e) = parse_liquidity_line(text, graph(), LATEST) {
                assert!(graph().pool_id(&e.pool).is_some(), "an accepted line names a pool of the snapshot");
                assert!(e.amounts.iter().all(|a| *a < 1 << 120) && e.lp > 0 && e.lp < 1 << 120);
                assert!(e.kind == LiquidityKind::Exit || e.min_lp_out <= e.lp);
                assert!((EARLIEST_TRADE..=LATEST).contains(&e.time));
                assert!(e.mc_seq_no.is_none_or(|s| (0..=i64::from(i32::MAX)).contains(&s)));
                assert!(e.tx_hash.as_ref().is_none_or(|h| h.len() == 64));
                let _ = e.natural_key();
            }
        }
        1 => {
            let text = String::from_utf8_lossy(rest);
            let Ok(pairs) = decode_query(&text) else { return };
            match api().get_events(&pairs) {
                Ok(r) => {
                    let keys: Vec<(i64, i32)> = r.events.iter().map(|e| (e.block.block_number, e.txn_index)).collect();
                    assert!(keys.windows(2).all(|w| w[0] < w[1]), "feed order");
                }
                Err(e) => assert!(e.status() == 400 && (6000..6100).contains(&e.code()), "{e:?}"),
            }
        }
        _ => {
            if rest.len() < 32 {
                return;
            }
            let from = i128::from_le_bytes(rest[..16].try_into().expect("16 bytes"));
            let to = i128::from_le_bytes(rest[16..32].try_into().expect("16 bytes"));
            if let Ok(q) = EventsQuery::new(from, to) {
                assert!(0 <= q.from_block() && q.from_block() <= q.to_block());
                assert!(q.to_block() - q.from_block() < MAX_EVENT_BLOCKS);
            }
        }
    }
});
