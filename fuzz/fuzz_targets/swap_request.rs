//! Any bytes as a `/v4/router/swap` body: parsing never panics, the one check of `swap_data`
//! ([`check_swap`]) never panics, swap data it accepts is internally consistent, and every refusal through
//! the handler is a `{code, message}` of the README's classes.
#![no_main]

mod common;

use common::api;
use libfuzzer_sys::fuzz_target;
use tonroute::api::parse::parse_swap_request;
use tonroute::api::SwapClock;
use tonroute::route::QuoteRequest as Q;
use tonroute::swap::build::{check_swap, SwapRequest};

fuzz_target!(|data: &[u8]| {
    match parse_swap_request(data) {
        Ok(r) => {
            let request =
                SwapRequest { sender: r.sender, swap_data: r.swap_data, query_id: 1, deadline: 1, referral: None };
            if let Ok(checked) = check_swap(&api().graph(), &request) {
                let sd = checked.swap_data();
                assert!(!sd.routes.is_empty() && sd.routes.len() <= Q::MAX_SPLITS);
                assert!(sd.slippage_bps <= Q::MAX_SLIPPAGE_BPS);
                for route in &sd.routes {
                    assert!(!route.is_empty() && route.len() <= Q::MAX_LENGTH);
                    for pair in route.windows(2) {
                        assert_eq!(pair[0].out_asset, pair[1].in_asset);
                        assert_eq!(pair[0].out_amount, pair[1].in_amount);
                    }
                }
            }
            if let Err(e) = api().swap(data, SwapClock::at(1_700_000_000_000)) {
                assert!(matches!(e.status(), 400 | 404 | 422 | 500), "{e:?}");
            }
        }
        Err(e) => assert!(e.status() == 400 && (1000..2000).contains(&e.code()), "{e:?}"),
    }
});
