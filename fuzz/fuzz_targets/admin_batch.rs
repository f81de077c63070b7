//! Any bytes as a `/v4/admin/reserves` body (either form: the array, or `{"force": …, "updates": […]}`) on the
//! bundled snapshot (1000 pools, 4 concentrated), under a price-move limit taken from the input's length
//! (1×..=200×): never a panic; a refused batch is a 400/404/413 input error and changes no pool; an accepted
//! one leaves every reserve below 2^120 and every pool it did not name untouched, and a change past the limit
//! only in a batch that says `"force": true`.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use tonroute::api::admin::{apply_batch_with, AdminPolicy};
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

/// One graph for the whole run, restored after every accepted batch: parsing the 1000-pool snapshot per input
/// cost ~99 % of each run (1,374 runs in 180 s); restoring the few pools a batch named costs microseconds.
fn graph() -> &'static PoolGraph {
    static GRAPH: OnceLock<PoolGraph> = OnceLock::new();
    GRAPH.get_or_init(|| PoolGraph::from_json(snapshot()).expect("bundled snapshot"))
}

fuzz_target!(|data: &[u8]| {
    let g = graph();
    // Taken before the first batch can change a pool.
    originals();
    let before = state(g);
    let policy = AdminPolicy { max_price_move: 1 + (data.len() % 200) as u64 };
    match apply_batch_with(g, data, policy) {
        Ok(outcome) => {
            assert_eq!(outcome.response.updated, outcome.changes.len());
            if outcome.changes.iter().any(|c| c.forced.is_some()) {
                let forced = tonroute::api::parse::parse_admin_batch(data).map(|b| b.force);
                assert_eq!(forced, Ok(true), "a change past the limit without force");
            }
            let after = state(g);
            for (i, (b, a)) in before.iter().zip(&after).enumerate() {
                assert!(a.0.iter().all(|r| *r < 1u128 << 120));
                if b != a {
                    let address = g.pool(PoolId(i as u32)).address.to_hex();
                    assert!(outcome.changes.iter().any(|c| c.pool == address), "{address} changed unnamed");
                }
            }
            // Put back what the batch changed, so that the next input starts from the bundled state.
            for (i, (b, a)) in before.iter().zip(&after).enumerate() {
                if b != a {
                    let id = PoolId(i as u32);
                    match &originals()[i] {
                        Some(pool) => g.update_concentrated(id, (**pool).clone()).expect("restore a dex_c pool"),
                        None => g.update_reserves(id, b.0).expect("restore reserves"),
                    }
                }
            }
            assert!(state(g) == before, "restoring the batch's pools did not give the state back");
        }
        Err(e) => {
            assert!(matches!(e.status(), 400 | 404 | 413), "{e:?}");
            assert!(state(g) == before, "a refused batch changed a pool: {e:?}");
        }
    }
});

/// The concentrated pools as loaded, to restore them exactly (their reserves are derived from the state).
fn originals() -> &'static Vec<Option<std::sync::Arc<tonroute::pool::Concentrated>>> {
    static ORIGINALS: OnceLock<Vec<Option<std::sync::Arc<tonroute::pool::Concentrated>>>> = OnceLock::new();
    ORIGINALS.get_or_init(|| {
        let g = graph();
        (0..g.pool_count()).map(|i| g.concentrated(PoolId(i as u32))).collect()
    })
}
