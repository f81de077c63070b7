//! A `dex_c` (concentrated) pool in a snapshot next to a `dex_b_v2` pool: it loads, the router quotes through
//! it, and what it quotes for that pool is the exact concentrated swap (tests/it/contract_vectors.rs ties that
//! swap to the contract's own answers). Joint simulation carries the pool's state between routes.

use primitive_types::U256;
use tonroute::asset::Asset;
use tonroute::graph::{GraphError, PoolGraph, PoolId, Protocol};
use tonroute::pool::concentrated::{sqrt_ratio_at_tick, virtual_reserves, ClState};
use tonroute::pool::{Concentrated, Curve, Direction};
use tonroute::route::{simulate_routes, NetworkFees, QuoteOptions, QuoteRequest, Router, RouterConfig};

const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const CL: &str = "0:1111111111111111111111111111111111111111111111111111111111111111";
const CP: &str = "0:2222222222222222222222222222222222222222222222222222222222222222";
const W: &str = "0:3333333333333333333333333333333333333333333333333333333333333333";

/// TON (9 decimals) / USD₮ (6) at 1 TON = 5 USD₮: price token1/token0 = 5e6/1e9 = 0.005, tick ≈ −52983.
/// Three positions: a wide one, a tight one around the price, one above.
fn snapshot(cp_reserves: [&str; 2], cl_fee: u16) -> String {
    let tick = -52_983;
    let sqrt_price = sqrt_ratio_at_tick(tick).unwrap() + U256::from(12_345_678_901_234u64);
    let positions: [(i32, i32, u128); 3] =
        [(-60_000, -46_020, 2_000_000_000_000), (-53_040, -52_920, 30_000_000_000_000), (-51_000, -49_980, 1_000_000)];
    let mut ticks: std::collections::BTreeMap<i32, (i128, u128)> = Default::default();
    let mut liquidity = 0u128;
    for (lo, hi, l) in positions {
        let e = ticks.entry(lo).or_default();
        e.0 += l as i128;
        e.1 += l;
        let e = ticks.entry(hi).or_default();
        e.0 -= l as i128;
        e.1 += l;
        if lo <= tick && tick < hi {
            liquidity += l;
        }
    }
    let ticks: Vec<String> = ticks
        .iter()
        .map(|(t, (n, g))| format!(r#"{{"tick": {t}, "liquidity_net": "{n}", "liquidity_gross": "{g}"}}"#))
        .collect();
    format!(
        r#"{{"assets": [{{"asset": "native", "symbol": "TON", "decimals": 9}},
                      {{"asset": "{USDT}", "symbol": "USDT", "decimals": 6}}],
            "pools": [
              {{"address": "{CL}", "protocol": "dex_c", "curve": "concentrated", "assets": ["native", "{USDT}"],
                "reserves": ["1000000000000", "5000000000"], "lp_fee": {cl_fee}, "protocol_fee": 100,
                "sqrt_price_x96": "{sqrt_price}", "tick": {tick}, "liquidity": "{liquidity}", "tick_spacing": 60,
                "ticks": [{}], "router_wallets": ["{W}", "{W}"]}},
              {{"address": "{CP}", "protocol": "dex_b_v2", "curve": "constant_product", "assets": ["native", "{USDT}"],
                "reserves": ["{}", "{}"], "lp_fee": 20, "protocol_fee": 10, "router": "{W}"}}
            ]}}"#,
        ticks.join(","),
        cp_reserves[0],
        cp_reserves[1]
    )
}

fn usdt() -> Asset {
    USDT.parse().unwrap()
}

fn gross_router() -> Router {
    Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() })
}

fn cl_id(g: &PoolGraph) -> PoolId {
    g.pool_id(&CL.parse().unwrap()).unwrap()
}

#[test]
fn snapshot_loads_the_concentrated_state() {
    let g = PoolGraph::from_json(&snapshot(["1000000000000", "5000000000"], 30)).unwrap();
    let id = cl_id(&g);
    assert_eq!(g.pool(id).protocol, Protocol::DexC);
    let live = g.concentrated(id).unwrap();
    assert_eq!(live.state().tick, -52_983);
    assert_eq!(live.ticks().len(), 6);
    assert!(live.ticks().windows(2).all(|w| w[0].tick < w[1].tick));
    // The reserve pair of a concentrated pool is its virtual reserves, not the balances of the file.
    assert_eq!(g.reserves(id), virtual_reserves(live.state()));
    assert!(matches!(g.update_reserves(id, [1, 1]), Err(GraphError::BadField { field: "reserves", .. })));
    assert!(g.concentrated(g.pool_id(&CP.parse().unwrap()).unwrap()).is_none());
}

#[test]
fn snapshot_errors_name_the_pool() {
    let good = snapshot(["1000000000000", "5000000000"], 30);
    for (from, to, needle) in [
        (r#""sqrt_price_x96": ""#, r#""sqrt_price_x9": ""#, "sqrt_price_x96"),
        (r#""tick": -52983"#, r#""tick": -952983"#, "exit code 91"),
        (r#""liquidity_net": "-30000000000000""#, r#""liquidity_net": "-3x""#, "liquidity_net"),
        (r#""lp_fee": 30"#, r#""lp_fee": 10000"#, "lp_fee"),
        (r#""curve": "concentrated""#, r#""curve": "constant_product""#, "dex_c"),
    ] {
        assert!(good.contains(from), "{from}");
        let err = PoolGraph::from_json(&good.replacen(from, to, 1)).unwrap_err().to_string();
        assert!(err.contains(CL) && err.contains(needle), "`{err}` should name the pool and `{needle}`");
    }
}

/// The router ranks the deep, cheap CL pool first and its quoted output for that pool is the exact swap.
#[test]
fn router_quotes_the_exact_concentrated_swap() {
    let g = PoolGraph::from_json(&snapshot(["2000000000000", "10000000000"], 5)).unwrap();
    let id = cl_id(&g);
    let live = g.concentrated(id).unwrap();
    for amount in [1_000_000_000u128, 300_000_000_000, 5_000_000_000_000] {
        for splits in [1, 4] {
            let req = QuoteRequest::builder(Asset::Native, usdt(), amount).max_splits(splits).build().unwrap();
            let q = gross_router().quote(&g, &req, QuoteOptions::default()).unwrap();
            let cl_route = q.routes.iter().find(|r| r.steps[0].pool == id).expect("a route through dex_c");
            assert_eq!(cl_route.steps.len(), 1, "dex_c routes are single-hop");
            let exact = live.swap_from(live.state(), cl_route.in_amount, Direction::ZeroToOne).unwrap();
            assert_eq!(exact.amount_in_used, cl_route.in_amount);
            assert_eq!(cl_route.out_amount, exact.amount_out, "amount {amount}, splits {splits}");
            assert_eq!(q.routes.iter().map(|r| r.in_amount).sum::<u128>(), amount);
            assert!(q.out_amount >= q.best_single_out);
        }
    }
    // The other way as well.
    let q = gross_router()
        .quote(&g, &QuoteRequest::new(usdt(), Asset::Native, 50_000_000).unwrap(), QuoteOptions::default())
        .unwrap();
    let r = q.routes.iter().find(|r| r.steps[0].pool == id).expect("a route through dex_c");
    let exact = live.swap_from(live.state(), r.in_amount, Direction::OneToZero).unwrap();
    assert_eq!(r.out_amount, exact.amount_out);
}

/// Two routes through the same CL pool: the second sees the state the first left.
#[test]
fn joint_simulation_carries_the_state() {
    let g = PoolGraph::from_json(&snapshot(["2000000000000", "10000000000"], 30)).unwrap();
    let id = cl_id(&g);
    let live = g.concentrated(id).unwrap();
    let (a, b) = (700_000_000_000u128, 900_000_000_000u128);
    let outs =
        simulate_routes(&g, &[(vec![(id, Direction::ZeroToOne)], a), (vec![(id, Direction::ZeroToOne)], b)]).unwrap();
    let first = live.swap_from(live.state(), a, Direction::ZeroToOne).unwrap();
    let second = live.swap_from(&first.state_after, b, Direction::ZeroToOne).unwrap();
    assert_eq!(outs, vec![vec![first.amount_out], vec![second.amount_out]]);
    assert!(second.amount_out * a < first.amount_out * b, "the second route sees a worse price");
}

/// Updating the live state in place changes later quotes; the tick map stays.
#[test]
fn state_updates_reach_quotes() {
    let g = PoolGraph::from_json(&snapshot(["2000", "10"], 30)).unwrap();
    let id = cl_id(&g);
    let before = g.concentrated(id).unwrap();
    let req = QuoteRequest::new(Asset::Native, usdt(), 5_000_000_000).unwrap();
    let q0 = gross_router().quote(&g, &req, QuoteOptions::default()).unwrap();
    let moved = before.swap_from(before.state(), 2_000_000_000_000, Direction::ZeroToOne).unwrap().state_after;
    g.update_concentrated_state(id, moved).unwrap();
    let after = g.concentrated(id).unwrap();
    assert_eq!(after.state(), &moved);
    assert_eq!(after.ticks(), before.ticks());
    assert_eq!(g.reserves(id), virtual_reserves(&moved));
    let q1 = gross_router().quote(&g, &req, QuoteOptions::default()).unwrap();
    assert_eq!(q1.out_amount, after.swap_from(&moved, 5_000_000_000, Direction::ZeroToOne).unwrap().amount_out);
    assert!(q1.out_amount < q0.out_amount);
    // Out-of-range states and non-concentrated pools are refused by name.
    let bad = ClState { tick: 1_000_000, ..moved };
    assert!(matches!(g.update_concentrated_state(id, bad), Err(GraphError::BadField { field: "state", .. })));
    let cp = g.pool_id(&CP.parse().unwrap()).unwrap();
    assert!(matches!(g.update_concentrated_state(cp, moved), Err(GraphError::BadField { field: "curve", .. })));
    // pool_state hands out the live curve.
    assert!(matches!(g.pool_state(id).curve, Curve::Concentrated(c) if c.state() == &moved));
    let _ = Concentrated::clone(&after);
}

/// A trade larger than the concentrated pool's ranges can take: the split gives that pool what it can
/// take (its share shrunk to the input it uses before running out of range) and the rest to the other pool,
/// which beats the other pool alone; the quoted figures are the exact joint simulation.
#[test]
fn a_concentrated_pool_that_runs_out_of_range_still_takes_its_share() {
    let g = PoolGraph::from_json(&snapshot(["2000000000000", "10000000000"], 30)).unwrap();
    let amount = 20_000_000_000_000u128; // 20,000 TON
    let req = QuoteRequest::builder(Asset::Native, usdt(), amount).max_splits(4).build().unwrap();
    let q = gross_router().quote(&g, &req, QuoteOptions::default()).unwrap();
    let cp_alone = {
        let one = req.to_builder().max_splits(1).build().unwrap();
        gross_router().quote(&g, &one, QuoteOptions::default()).unwrap().out_amount
    };
    let uses_cl = q.routes.iter().any(|r| r.steps[0].pool == cl_id(&g));
    assert!(uses_cl, "the concentrated pool should take part: {q:#?}");
    assert!(q.out_amount > cp_alone, "{} ≤ {cp_alone}", q.out_amount);
    let routes: Vec<_> =
        q.routes.iter().map(|r| (r.steps.iter().map(|s| (s.pool, s.direction)).collect(), r.in_amount)).collect();
    let outs = simulate_routes(&g, &routes).unwrap();
    assert_eq!(outs.iter().map(|o| *o.last().unwrap()).sum::<u128>(), q.out_amount);
    assert_eq!(q.routes.iter().map(|r| r.in_amount).sum::<u128>(), amount);
}
