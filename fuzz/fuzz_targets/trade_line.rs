//! Any bytes as a trade line of `tonroute market ingest` (one CoinTransaction JSON object): decoding never
//! panics; an accepted line names a pool of the snapshot and two of its assets, amounts above 0 and below 2^120,
//! a date in range and finite non-negative prices.
#![no_main]

mod common;

use common::{graph, LATEST};
use libfuzzer_sys::fuzz_target;
use tonroute::market::ingest::{parse_trade_line, EARLIEST_TRADE};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(line) = parse_trade_line(text, graph(), LATEST) {
        let g = graph();
        let t = &line.trade;
        let pool = g.pool_id(&t.pool).expect("an accepted line names a pool of the snapshot");
        let assets = g.pool(pool).assets;
        let (i, o) = (g.asset_id(&t.asset_in).expect("asset in"), g.asset_id(&line.asset_out).expect("asset out"));
        assert!(i != o && assets.contains(&i) && assets.contains(&o));
        assert!(t.amount_in < 1 << 120 && t.amount_out < 1 << 120);
        assert!(t.amount_in > 0 && t.amount_out > 0, "a trade moves both assets");
        assert!((EARLIEST_TRADE..=LATEST).contains(&t.time));
        for v in [t.usd_in, t.usd_out, t.ton_usd, t.volume_usd, line.whole_in, line.whole_out] {
            assert!(v.is_finite() && v >= 0.0, "{v}");
        }
    }
});
