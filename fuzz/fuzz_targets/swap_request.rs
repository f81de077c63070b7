//! Any bytes as a `/v4/router/swap` body: the parser never panics, accepted swap data is internally
//! consistent, and checking it against the test snapshot never panics.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use tonroute::api::parse::parse_swap_request;
use tonroute::api::{Api, SwapClock};
use tonroute::graph::PoolGraph;

fn api() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(|| {
        let graph = PoolGraph::from_json(include_str!("../../tests/data/api_snapshot.json")).expect("test snapshot");
        Api::new(Arc::new(graph))
    })
}

fuzz_target!(|data: &[u8]| {
    match parse_swap_request(data) {
        Ok(r) => {
            let sd = &r.swap_data;
            assert!(!sd.routes.is_empty() && sd.routes.len() <= 20 && sd.slippage_bps <= 10_000);
            for route in &sd.routes {
                assert!(!route.is_empty() && route.len() <= 5);
                for pair in route.windows(2) {
                    assert_eq!(pair[0].out_asset, pair[1].in_asset);
                    assert_eq!(pair[0].out_amount, pair[1].in_amount);
                }
            }
            let _ = api().swap(data, SwapClock::at(1_700_000_000_000));
        }
        Err(e) => assert!(e.status == 400 && (1000..2000).contains(&e.code), "{e:?}"),
    }
});
