//! Exact joint simulation: routes executed in order with the contracts' integer math, each seeing the
//! reserves the earlier ones left in pools they share.
//!
//! A concentrated (`dex_c`) pool's state does not fit its reserve pair, so the overlay also carries the
//! [`ClState`] such a pool was left in, and swaps it from there (see `pool::concentrated`).

use smallvec::SmallVec;

use crate::graph::{PoolGraph, PoolId};
use crate::pool::concentrated::ClState;
use crate::pool::{Curve, Direction, PoolError, SwapResult};

/// One hop of a path: a pool and the way it is traversed.
pub type Hop = (PoolId, Direction);

/// Reserves changed by the routes simulated so far, over the graph's live ones.
#[derive(Default)]
pub(crate) struct Overlay {
    changed: SmallVec<[(PoolId, [u128; 2]); 16]>,
    /// States of concentrated pools changed so far.
    cl: SmallVec<[(PoolId, ClState); 2]>,
}

impl Overlay {
    #[inline]
    fn reserves(&self, graph: &PoolGraph, pool: PoolId) -> [u128; 2] {
        self.changed.iter().find(|(p, _)| *p == pool).map(|(_, r)| *r).unwrap_or_else(|| graph.reserves(pool))
    }

    #[inline]
    fn set(&mut self, pool: PoolId, reserves: [u128; 2]) {
        match self.changed.iter_mut().find(|(p, _)| *p == pool) {
            Some(slot) => slot.1 = reserves,
            None => self.changed.push((pool, reserves)),
        }
    }

    /// One swap through `pool` on the overlay's state; a concentrated pool also returns its state after.
    #[inline]
    fn swap(
        &self,
        graph: &PoolGraph,
        pool: PoolId,
        amount: u128,
        dir: Direction,
    ) -> Result<(SwapResult, Option<ClState>), PoolError> {
        let curve = &graph.pool(pool).curve;
        if !matches!(curve, Curve::Concentrated(_)) {
            return Ok((curve.swap(self.reserves(graph, pool), amount, dir, None)?, None));
        }
        // The graph holds a live state for every concentrated pool it built.
        let live = graph.concentrated(pool).ok_or(PoolError::EmptyPool)?;
        let state = self.cl.iter().find(|(p, _)| *p == pool).map_or(*live.state(), |(_, s)| *s);
        let (r, after) = live.swap_exact_in(&state, amount, dir)?;
        Ok((r, Some(after)))
    }

    /// Swaps `amount` along `path`, committing the new reserves; returns each hop's output.
    pub(crate) fn run(
        &mut self,
        graph: &PoolGraph,
        path: &[Hop],
        amount: u128,
    ) -> Result<SmallVec<[u128; 5]>, PoolError> {
        let mut outs = SmallVec::new();
        let mut x = amount;
        for &(pool, dir) in path {
            let (r, cl) = self.swap(graph, pool, x, dir)?;
            self.set(pool, r.reserves_after);
            if let Some(state) = cl {
                match self.cl.iter_mut().find(|(p, _)| *p == pool) {
                    Some(slot) => slot.1 = state,
                    None => self.cl.push((pool, state)),
                }
            }
            x = r.amount_out;
            outs.push(x);
        }
        Ok(outs)
    }

    /// Output of `amount` along `path` without committing anything.
    pub(crate) fn peek(&self, graph: &PoolGraph, path: &[Hop], amount: u128) -> Result<u128, PoolError> {
        let mut x = amount;
        for (i, &(pool, dir)) in path.iter().enumerate() {
            // A simple path meets each pool once, so earlier hops of this path never change a later one.
            debug_assert!(path[..i].iter().all(|(p, _)| *p != pool));
            x = self.swap(graph, pool, x, dir)?.0.amount_out;
        }
        Ok(x)
    }
}

/// Simulates routes in order (each `(path, amount_in)`), exactly; returns every hop's output per route.
/// Routes that share a pool see the reserves the earlier routes left. Any refusal is an error.
pub fn simulate_routes(graph: &PoolGraph, routes: &[(Vec<Hop>, u128)]) -> Result<Vec<Vec<u128>>, PoolError> {
    let mut overlay = Overlay::default();
    routes.iter().map(|(path, amount)| overlay.run(graph, path, *amount).map(|v| v.to_vec())).collect()
}

/// Total output of routes simulated jointly, or the first refusal.
pub(crate) fn joint_output(graph: &PoolGraph, routes: &[(&[Hop], u128)]) -> Result<u128, PoolError> {
    let mut overlay = Overlay::default();
    let mut total = 0u128;
    for (path, amount) in routes {
        if *amount == 0 {
            continue;
        }
        let outs = overlay.run(graph, path, *amount)?;
        total = total.saturating_add(outs.last().copied().unwrap_or(0));
    }
    Ok(total)
}
