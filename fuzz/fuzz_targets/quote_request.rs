//! Any bytes as a `/v4/router/quote` body: parsing (serde into the strict wire types, then the core's
//! validating constructor) never panics, an accepted request is within the core's limits, a refused one is a
//! 400 with an input code, and quoting it on the test snapshot never panics either.
#![no_main]

mod common;

use common::api;
use libfuzzer_sys::fuzz_target;
use tonroute::api::parse::parse_quote_request;
use tonroute::route::QuoteRequest as Q;

fuzz_target!(|data: &[u8]| {
    match parse_quote_request(data) {
        Ok(r) => {
            assert!(r.amount() > 0 && r.amount() <= Q::MAX_AMOUNT);
            assert!((Q::MIN_SPLITS..=Q::MAX_SPLITS).contains(&r.max_splits()));
            assert!((Q::MIN_LENGTH..=Q::MAX_LENGTH).contains(&r.max_length()));
            assert!(r.slippage_bps() <= Q::MAX_SLIPPAGE_BPS && r.in_asset() != r.out_asset());
            match api().quote(data) {
                Ok(q) => assert_eq!(q.in_amount, r.amount().to_string()),
                // Accepted by the parser: only the graph can refuse it now.
                Err(e) => assert!(e.code() >= 2000, "{e:?}"),
            }
        }
        Err(e) => {
            assert!(e.status() == 400 && (1000..2000).contains(&e.code()), "{e:?}");
            assert!(api().quote(data).is_err_and(|again| again == e), "the handler answers what the parser does");
        }
    }
});
