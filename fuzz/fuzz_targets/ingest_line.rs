//! The one entry of `tonroute market ingest` for a line of any kind (`market::lines`): a line goes to the
//! decoder its top-level keys name, never panics, and is answered exactly as that kind's own decoder answers
//! it. The kind is checked against an independent reading (the line as a `serde_json::Value`, looked up by key)
//! wherever that reading succeeds; a line it cannot read is refused.
#![no_main]

mod common;

use common::{graph, LATEST};
use libfuzzer_sys::fuzz_target;
use tonroute::market::ingest::parse_trade_line;
use tonroute::market::lines::{parse_ingest_line, IngestLine, LineKind};
use tonroute::market::liquidity::parse_liquidity_line;
use tonroute::market::wallets::parse_balance_line;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else { return };
    let kind = LineKind::of(line);
    // A JSON reader that keeps values refuses some lines the key scan reads (a number past f64's range): such
    // a line goes to the kind its keys name and is refused there. Every line the reader takes, it kinds alike.
    let readable = serde_json::from_str::<serde_json::Value>(line).ok();
    if let Some(v) = &readable {
        let by_value = if v.get("event").is_some() {
            LineKind::Liquidity
        } else if v.get("owner").is_some() {
            LineKind::Balance
        } else {
            LineKind::Trade
        };
        assert_eq!(kind, by_value, "the key scan and a JSON reader disagree on {line:?}");
    }
    let answer = parse_ingest_line(line, graph(), LATEST);
    assert!(readable.is_some() || answer.is_err(), "a line no JSON reader takes is refused: {line:?}");
    match kind {
        LineKind::Trade => {
            let own = parse_trade_line(line, graph(), LATEST);
            assert_eq!(own.is_ok(), answer.is_ok());
            assert!(answer.is_err() || matches!(answer, Ok(IngestLine::Trade(ref t)) if own.as_ref().ok() == Some(t)));
        }
        LineKind::Liquidity => {
            let own = parse_liquidity_line(line, graph(), LATEST);
            assert_eq!(own.is_ok(), answer.is_ok());
            assert!(
                answer.is_err() || matches!(answer, Ok(IngestLine::Liquidity(ref e)) if own.as_ref().ok() == Some(e))
            );
        }
        LineKind::Balance => {
            let own = parse_balance_line(line, graph(), LATEST);
            assert_eq!(own.is_ok(), answer.is_ok());
            assert!(
                answer.is_err() || matches!(answer, Ok(IngestLine::Balance(ref b)) if own.as_ref().ok() == Some(b))
            );
        }
    }
});
