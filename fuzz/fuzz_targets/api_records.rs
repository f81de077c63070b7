//! Any bytes as a saved exchange API response (STON.fi /v1/pools, /v1/routers, /v1/assets, DeDust /v2/pools,
//! TONCO indexer pools): the importer never panics, an import that succeeds is a snapshot that loads, every
//! record is either imported or counted as skipped, and the pools it reports quote-only are the graph's.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute::graph::PoolGraph;
use tonroute::import::{import_files, Payload};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The same text as the only payload, and next to a routers/assets payload that shapes the context.
    let routers = r#"{"router_list":[{"address":"EQCS4UEa5UaJLzOyyKieqQOQ2P9M-7kXpkO5HnP3Bv250cN3","major_version":2,"router_type":"StableSwap","pton_master_address":"EQBnGWMCf3-FZZq1W4IWcWiGAc3PHuZ0_H-7sad2oY00o83S"}]}"#;
    for payloads in [
        vec![Payload { name: "fuzz".into(), text: text.into() }],
        vec![
            Payload { name: "routers".into(), text: routers.into() },
            Payload { name: "fuzz".into(), text: text.into() },
        ],
    ] {
        if let Ok(report) = import_files(&payloads) {
            let pools: usize = report.files.iter().filter(|f| f.name == "fuzz").map(|f| f.records).sum();
            assert!(report.imported_total() + report.skipped_total() <= pools.max(report.imported_total()));
            assert_eq!(report.imported_total(), report.snapshot.pools.len());
            let json = serde_json::to_string(&report.snapshot).expect("serialisable");
            let graph = PoolGraph::from_json(&json).expect("an imported snapshot loads");
            // A pool reported quote-only is an imported one the graph cannot swap; the others it can.
            for q in &report.quote_only {
                let id = q.pool.parse().ok().and_then(|a| graph.pool_id(&a)).expect("a quote-only pool is imported");
                assert!(!graph.is_swappable(id), "{} is reported quote-only but swappable", q.pool);
            }
            // Deciding whether the result is worth writing never panics.
            let _ = report.check();
        }
    }
});
