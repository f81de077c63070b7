//! Any bytes as a balance line of `tonroute market ingest` (`{"owner", "asset", "balance", "as_of", "block"}`):
//! decoding never panics; an accepted line names an asset of the snapshot, a balance below 2^120 and a date in
//! range, and writes back (as the market file's record) to a line that decodes to the same balance.
#![no_main]

mod common;

use common::{graph, LATEST};
use libfuzzer_sys::fuzz_target;
use tonroute::market::ingest::EARLIEST_TRADE;
use tonroute::market::wallets::parse_balance_line;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(b) = parse_balance_line(text, graph(), LATEST) {
        assert!(graph().asset_id(&b.asset).is_some());
        assert!(b.balance < 1 << 120);
        assert!((EARLIEST_TRADE..=LATEST).contains(&b.as_of.unix()));
        let again = serde_json::to_string(&b.record()).expect("a record serialises");
        assert_eq!(parse_balance_line(&again, graph(), LATEST).expect("its own record decodes"), b);
    }
});
