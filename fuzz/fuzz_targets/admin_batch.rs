//! Any bytes as a `/v4/admin/reserves` body on the bundled snapshot (1000 pools, 4 concentrated): never a
//! panic; a refused batch is a 400/404/413 input error and changes no pool; an accepted one leaves every
//! reserve below 2^120 and every pool it did not name untouched.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tonroute::api::admin::apply_batch;
use tonroute::graph::{PoolGraph, PoolId};

fn snapshot() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| include_str!("../../data/snapshot.json").to_string())
}

fn state(g: &PoolGraph) -> Vec<([u128; 2], Option<String>)> {
    (0..g.pool_count())
        .map(|i| PoolId(i as u32))
        .map(|id| (g.reserves(id), g.concentrated(id).map(|c| format!("{:?}", c))))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    // A fresh graph per input: an accepted batch must not leak into the next one.
    let g = PoolGraph::from_json(snapshot()).expect("bundled snapshot");
    let before = state(&g);
    match apply_batch(&g, data) {
        Ok(outcome) => {
            assert_eq!(outcome.response.updated, outcome.changes.len());
            let after = state(&g);
            for (i, (b, a)) in before.iter().zip(&after).enumerate() {
                assert!(a.0.iter().all(|r| *r < 1u128 << 120));
                if b != a {
                    let address = g.pool(PoolId(i as u32)).address.to_hex();
                    assert!(outcome.changes.iter().any(|c| c.pool == address), "{address} changed unnamed");
                }
            }
        }
        Err(e) => {
            assert!(matches!(e.status(), 400 | 404 | 413), "{e:?}");
            assert!(state(&g) == before, "a refused batch changed a pool: {e:?}");
        }
    }
});
