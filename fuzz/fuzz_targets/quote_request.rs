//! Any bytes as a `/v4/router/quote` body: the parser never panics, an accepted request is within the
//! documented limits, and quoting it on the test snapshot never panics either.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use tonroute::api::parse::parse_quote_request;
use tonroute::api::Api;
use tonroute::graph::PoolGraph;

fn api() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(|| {
        let graph = PoolGraph::from_json(include_str!("../../tests/data/api_snapshot.json")).expect("test snapshot");
        Api::new(Arc::new(graph))
    })
}

fuzz_target!(|data: &[u8]| {
    match parse_quote_request(data) {
        Ok(r) => {
            assert!(r.amount > 0 && r.amount < 1u128 << 120);
            assert!((1..=20).contains(&r.max_splits) && (1..=5).contains(&r.max_length));
            assert!(r.slippage_bps <= 10_000 && r.in_asset != r.out_asset);
            if let Ok(q) = api().quote(data) {
                assert_eq!(q.in_amount, r.amount.to_string());
            }
        }
        Err(e) => assert!(e.status == 400 && (1000..2000).contains(&e.code), "{e:?}"),
    }
});
