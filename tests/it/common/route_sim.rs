//! Re-simulation of a quote's routes from their input amounts only, by the pools' own swap on reserves carried
//! from hop to hop (so routes sharing a pool see each other's trades): what `route_fixtures` and
//! `route_properties` compare exact-out quotes with.

use std::collections::HashMap;

use tonroute::graph::{PoolGraph, PoolId};
use tonroute::pool::Pool;
use tonroute::route::Quote;

/// Total output of `quote`'s routes fed `inputs` (one per route, in order), 0 for a route that refuses.
pub(crate) fn output_from_inputs(graph: &PoolGraph, quote: &Quote, inputs: &[u128]) -> u128 {
    let mut state: HashMap<PoolId, [u128; 2]> = HashMap::new();
    let mut total = 0u128;
    for (route, &input) in quote.routes.iter().zip(inputs) {
        let mut x = input;
        for step in &route.steps {
            if x == 0 {
                break;
            }
            let reserves = *state.entry(step.pool).or_insert_with(|| graph.reserves(step.pool));
            match Pool::new(graph.pool(step.pool).curve.clone(), reserves).swap(x, step.direction) {
                Ok(r) => {
                    state.insert(step.pool, r.reserves_after);
                    x = r.amount_out;
                }
                Err(_) => x = 0,
            }
        }
        total += x;
    }
    total
}
