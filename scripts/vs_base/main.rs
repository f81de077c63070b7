//! `examples/cross_exchange.rs` with a baseline: the library as it was at an older commit (linked as the
//! crate `tonroute_base`) quotes every pair too, interleaved with today's routers in the same process.
//! Built and run by `scripts/cross_exchange_vs_base.sh`; not part of the crate.

#[path = "../examples/cross_exchange.rs"]
mod example;

use example::{BaseQuote, Thunk};

fn load(json: &str) -> BaseQuote {
    // Leaked once per run: the closures below borrow the graph and the router for the whole measurement.
    let graph: &'static tonroute_base::graph::PoolGraph =
        Box::leak(Box::new(tonroute_base::graph::PoolGraph::from_json(json).expect("the baseline loads the snapshot")));
    let router: &'static tonroute_base::route::Router =
        Box::leak(Box::new(tonroute_base::route::Router::new(tonroute_base::route::RouterConfig::default())));
    Box::new(move |from: &str, to: &str, amount: u128| -> Thunk {
        let request = tonroute_base::route::QuoteRequest::new(
            from.parse().expect("wire asset id"),
            to.parse().expect("wire asset id"),
            amount,
        );
        Box::new(move || router.quote(graph, &request).ok().map(|q| q.out_amount))
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let name = std::env::var("BASE_NAME").unwrap_or_else(|_| "base".into());
    example::main_with(Some((name.as_str(), &load)))
}
