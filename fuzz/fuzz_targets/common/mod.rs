//! What the fuzz targets share: the graph of the bundled snapshot, the router API over the test snapshot, and the
//! latest date the ingest-line targets accept. Every target is its own binary (`mod common;`) and uses what it
//! needs.
#![allow(dead_code)]

use std::sync::{Arc, OnceLock};

use tonroute::api::Api;
use tonroute::graph::PoolGraph;

/// 2100-01-01: far enough ahead that the date rule is exercised on both sides.
pub const LATEST: i64 = 4_102_444_800;

/// The bundled snapshot's graph (data/snapshot.json), built once.
pub fn graph() -> &'static PoolGraph {
    static G: OnceLock<PoolGraph> = OnceLock::new();
    G.get_or_init(|| PoolGraph::from_json(include_str!("../../../data/snapshot.json")).expect("bundled snapshot"))
}

/// The router API over the test snapshot (tests/data/api_snapshot.json), built once.
pub fn api() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(|| {
        let graph = PoolGraph::from_json(include_str!("../../../tests/data/api_snapshot.json")).expect("test snapshot");
        Api::new(Arc::new(graph))
    })
}
