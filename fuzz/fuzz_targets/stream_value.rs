//! Any bytes as a stream entry (key, value or delete) applied to a replica's graph: decoding never panics, an
//! entry that is refused changes no reserve and no pool, and a rebuild of whatever was accepted succeeds and
//! keeps the graph's invariants (every pool reachable by address, reserves below 2^120). The stamp a publisher
//! reads from a stored value before overwriting it (`Stamp::of_value`) never panics, nor does showing it, and
//! for every value a replica accepts it is the stamp the replica applies.
#![no_main]

use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use tonroute::feed::value::{decode, Change};
use tonroute::feed::{Applier, FeedStats, Stamp};
use tonroute::graph::{LiveGraph, PoolGraph, PoolId};

const SNAPSHOT: &str = r#"{"assets": [
  {"asset": "native", "symbol": "TON", "decimals": 9},
  {"asset": "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe", "symbol": "USDT", "decimals": 6}],
 "pools": [
  {"address": "0:1111111111111111111111111111111111111111111111111111111111111111", "protocol": "dex_b_v2",
   "curve": "constant_product", "assets": ["native", "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe"],
   "reserves": ["1000000000", "2000000"], "lp_fee": 20, "protocol_fee": 10},
  {"address": "0:2222222222222222222222222222222222222222222222222222222222222222", "protocol": "dex_c",
   "curve": "concentrated", "assets": ["native", "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe"],
   "reserves": ["1000000000", "2000000"], "lp_fee": 30, "protocol_fee": 0,
   "sqrt_price_x96": "79228162514264337593543950336", "tick": 0, "liquidity": "1000000000000", "tick_spacing": 60,
   "ticks": [{"tick": -600, "liquidity_net": "1000000000000", "liquidity_gross": "1000000000000"},
             {"tick": 600, "liquidity_net": "-1000000000000", "liquidity_gross": "1000000000000"}]}]}"#;

const KEYS: [&str; 3] = [
    "1111111111111111111111111111111111111111111111111111111111111111",
    "2222222222222222222222222222222222222222222222222222222222222222",
    "3333333333333333333333333333333333333333333333333333333333333333",
];

fn state(g: &PoolGraph) -> Vec<(String, [u128; 2])> {
    (0..g.pool_count()).map(|i| PoolId(i as u32)).map(|id| (g.pool(id).address.to_hex(), g.reserves(id))).collect()
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    // Selector: which key (three known shapes or the first line of the input) and put or delete.
    let (key, value) = match selector % 4 {
        3 => match rest.iter().position(|b| *b == b'\n') {
            Some(i) => (String::from_utf8_lossy(&rest[..i]).into_owned(), &rest[i + 1..]),
            None => (String::from_utf8_lossy(rest).into_owned(), &[][..]),
        },
        k => (KEYS[usize::from(k)].to_string(), rest),
    };
    let value = (selector & 0x80 == 0).then_some(value);
    if let Some(v) = value {
        let stamp = Stamp::of_value(v);
        if let Some(s) = stamp {
            let _ = s.to_string();
        }
        if let Ok(Change::Reserves { stamp: s, .. } | Change::Pool { stamp: s, .. }) = decode(&key, Some(v)) {
            assert_eq!(stamp, Some(s), "the publisher reads another stamp than the replica applies");
        }
    }
    let graph = PoolGraph::from_json(SNAPSHOT).expect("the fixture loads");
    let live = Arc::new(LiveGraph::from(graph));
    let mut applier = Applier::new(Arc::clone(&live), Arc::new(FeedStats::new(0)));
    let before = state(&live.load());
    let result = applier.apply(&key, value);
    if result.is_err() {
        assert_eq!(state(&live.load()), before, "a refused entry changed the graph");
        assert_eq!(applier.pending(), 0, "a refused entry was queued");
    }
    applier.flush().expect("a rebuild of accepted changes succeeds");
    let g = live.load();
    for id in (0..g.pool_count()).map(|i| PoolId(i as u32)) {
        assert_eq!(g.pool_id(&g.pool(id).address), Some(id));
        assert!(g.reserves(id).iter().all(|r| *r < 1u128 << 120));
    }
});
