//! [`LiveGraph`]: the graph a server quotes on, replaced whole when its topology changes.
//!
//! Reserve and concentrated-state updates go into the current [`PoolGraph`] in place (its lock-free cells);
//! a pool added, replaced or removed needs a new graph ([`PoolGraph::rebuilt`]), which [`LiveGraph::store`]
//! publishes atomically. A quote loads the current graph once ([`LiveGraph::load`]) and keeps that `Arc` to the
//! end, so it sees one topology throughout; quotes still running on the previous graph finish on it, and it is
//! freed with its last reader. Readers never block and never wait for a writer.

use std::sync::Arc;

use arc_swap::ArcSwap;

use super::PoolGraph;

/// The current [`PoolGraph`], swappable while quotes run.
#[derive(Debug)]
pub struct LiveGraph {
    current: ArcSwap<PoolGraph>,
}

impl LiveGraph {
    /// Starts with `graph`.
    pub fn new(graph: Arc<PoolGraph>) -> LiveGraph {
        LiveGraph { current: ArcSwap::new(graph) }
    }

    /// The graph now. Hold the `Arc` for the whole of one request: every lookup then sees one topology.
    #[inline]
    pub fn load(&self) -> Arc<PoolGraph> {
        self.current.load_full()
    }

    /// Replaces the graph; requests already running keep the one they loaded.
    pub fn store(&self, graph: Arc<PoolGraph>) {
        self.current.store(graph);
    }
}

impl From<PoolGraph> for LiveGraph {
    fn from(graph: PoolGraph) -> LiveGraph {
        LiveGraph::new(Arc::new(graph))
    }
}
