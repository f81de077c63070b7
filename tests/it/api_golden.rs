//! Golden tests of `/v4/router/quote` on `tests/data/api_snapshot.json`: every response field is checked
//! against an independent computation made here from the snapshot JSON itself — routes re-simulated with the
//! pool math (`tonroute::pool`) in order with shared reserves, spot rates and price impact from the pools'
//! fee factors over every chainable path enumerated here, improvement and min-out re-derived with big
//! integers — never against a stored copy of our own output.
#![cfg(feature = "serde")]

use std::collections::HashMap;
use std::sync::Arc;

use num_bigint::BigInt;
use serde_json::Value;
use tonroute::api::parse::parse_swap_data;
use tonroute::api::{Api, ApiError, ErrorCode, SwapBuilder, SwapClock, Transaction};
use tonroute::graph::PoolGraph;
use tonroute::pool::{ConstantProduct, Curve, DexAVolatile, Direction, FeeModel, Pool};
use tonroute::route::{NetworkFees, QuoteOptions, QuoteRequest, Router, RouterConfig};
use tonroute::swap::build::CheckedSwap;

const SNAPSHOT: &str = include_str!("../data/api_snapshot.json");
const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
const USDT_FRIENDLY: &str = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs";

/// A pool as this test reads it from the snapshot JSON.
#[derive(Clone)]
struct P {
    address: String,
    protocol: String,
    assets: [String; 2],
    reserves: [u128; 2],
    lp: u16,
    pf: u16,
    reff: u16,
    router: Option<String>,
    wallets: Option<[String; 2]>,
    volatility: [f64; 4],
}

fn pools(snapshot: &Value) -> Vec<P> {
    let s = |v: &Value| v.as_str().unwrap().to_string();
    snapshot["pools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["curve"] == "constant_product")
        .map(|p| P {
            address: s(&p["address"]),
            protocol: s(&p["protocol"]),
            assets: [s(&p["assets"][0]), s(&p["assets"][1])],
            reserves: [s(&p["reserves"][0]).parse().unwrap(), s(&p["reserves"][1]).parse().unwrap()],
            lp: p["lp_fee"].as_u64().unwrap() as u16,
            pf: p["protocol_fee"].as_u64().unwrap_or(0) as u16,
            reff: p["ref_fee"].as_u64().unwrap_or(0) as u16,
            router: p.get("router").map(s),
            wallets: p.get("router_wallets").map(|w| [s(&w[0]), s(&w[1])]),
            volatility: ["m1", "m5", "m10", "m15"].map(|k| p["volatility"][k].as_f64().unwrap_or(0.0)),
        })
        .collect()
}

/// The contract math of each (constant-product) pool, from the snapshot's protocol and fee fields.
fn curve(p: &P) -> Curve {
    match p.protocol.as_str() {
        "dex_b_v1" => Curve::ConstantProduct(ConstantProduct::new(FeeModel::V1, p.lp, p.pf, p.reff)),
        "dex_b_v2" => Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, p.lp, p.pf, 0)),
        "dex_a" => Curve::DexAVolatile(DexAVolatile { fee_bps: p.lp }),
        other => panic!("no constant-product curve for {other}"),
    }
}

/// Marginal rate at zero size after fees: γ·(1−φ)·y/x (input-side fee γ, output-side protocol fee φ).
fn spot(p: &P, dir: Direction) -> f64 {
    let (x, y) = match dir {
        Direction::ZeroToOne => (p.reserves[0], p.reserves[1]),
        Direction::OneToZero => (p.reserves[1], p.reserves[0]),
    };
    let gamma = 1.0 - f64::from(p.lp) / 1e4;
    let keep = if p.protocol == "dex_a" { 1.0 } else { 1.0 - f64::from(p.pf) / 1e4 };
    gamma * keep * y as f64 / x as f64
}

/// Whether `next` may follow `prev` in one on-chain message: dex_a after dex_a, dex_b_v2 within one router.
/// The chaining rule (docs/cross-exchange.md) written out: each exchange's own multi-hop (`dex_a` within
/// itself, `dex_b_v2` within one router), any `dex_b_v2` / `dex_c` pool after another, `dex_b_v2` / `dex_c`
/// after `dex_a` unless TON is handed over; nothing after or into `dex_b_v1`, nothing into `dex_a` from
/// elsewhere.
fn chainable(prev: &P, next: &P, at: &str) -> bool {
    match (prev.protocol.as_str(), next.protocol.as_str()) {
        ("dex_b_v1", _) | (_, "dex_b_v1") => false,
        ("dex_a", "dex_a") => true,
        (_, "dex_a") => false,
        ("dex_a", _) => at != "native",
        _ => true,
    }
}

/// Every simple chainable path from `from` to `to` of at most `max_len` hops, as (pool index, direction).
fn paths(ps: &[P], from: &str, to: &str, max_len: usize) -> Vec<Vec<(usize, Direction)>> {
    fn go(
        ps: &[P],
        at: &str,
        to: &str,
        max_len: usize,
        seen: &mut Vec<String>,
        cur: &mut Vec<(usize, Direction)>,
        out: &mut Vec<Vec<(usize, Direction)>>,
    ) {
        if at == to && !cur.is_empty() {
            out.push(cur.clone());
            return;
        }
        if cur.len() == max_len {
            return;
        }
        for (i, p) in ps.iter().enumerate() {
            let dir = if p.assets[0] == at {
                Direction::ZeroToOne
            } else if p.assets[1] == at {
                Direction::OneToZero
            } else {
                continue;
            };
            if let Some(&(prev, _)) = cur.last() {
                if !chainable(&ps[prev], p, at) {
                    continue;
                }
            }
            let next = p.assets[1 - dir.in_index()].clone();
            if seen.contains(&next) {
                continue;
            }
            seen.push(next.clone());
            cur.push((i, dir));
            go(ps, &next, to, max_len, seen, cur, out);
            cur.pop();
            seen.pop();
        }
    }
    let mut out = Vec::new();
    go(ps, from, to, max_len, &mut vec![from.to_string()], &mut Vec::new(), &mut out);
    out
}

fn single_out(ps: &[P], path: &[(usize, Direction)], amount: u128) -> Option<u128> {
    let mut x = amount;
    for &(i, dir) in path {
        x = Pool::new(curve(&ps[i]), ps[i].reserves).swap(x, dir).ok()?.amount_out;
    }
    Some(x)
}

/// `(out − best) / best` with 12 fractional digits, toward zero, in big integers.
fn improvement_text(out: u128, best: u128) -> String {
    let diff = BigInt::from(out) - BigInt::from(best);
    let scaled = diff.magnitude() * num_bigint::BigUint::from(10u64.pow(12)) / num_bigint::BigUint::from(best);
    let s = format!("{:013}", scaled);
    let (w, f) = s.split_at(s.len() - 12);
    let sign = if diff < BigInt::from(0) && scaled != num_bigint::BigUint::from(0u8) { "-" } else { "" };
    format!("{sign}{w}.{f}")
}

fn u(v: &Value) -> u128 {
    v.as_str().unwrap_or_else(|| panic!("{v} is not a string")).parse().unwrap()
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort();
    k
}

struct Golden {
    amount: u128,
    slippage: u32,
    max_length: usize,
    fees: NetworkFees,
}

/// Checks every field of the response to `native → USD₮` against the independent computation. Returns the
/// response and the best single-path output.
fn check(g: &Golden) -> Value {
    let snapshot: Value = serde_json::from_str(SNAPSHOT).unwrap();
    let ps = pools(&snapshot);
    let graph = Arc::new(PoolGraph::from_json(SNAPSHOT).unwrap());
    let api = Api::new(graph.clone())
        .with_router(Router::new(RouterConfig { network_fees: g.fees, ..RouterConfig::default() }));
    let body = format!(
        r#"{{"in_minter": "native", "out_minter": "{USDT_FRIENDLY}", "amount": "{}", "swap_mode": "exact_in",
            "slippage_bps": {}, "max_splits": 4, "max_length": {}}}"#,
        g.amount, g.slippage, g.max_length
    );
    let response = api.quote(body.as_bytes()).unwrap();
    let r: Value = serde_json::to_value(&response).unwrap();

    assert_eq!(
        keys(&r),
        [
            "display_data",
            "improvement",
            "in_amount",
            "in_minter_price",
            "out_amount",
            "out_minter_price",
            "price_impact",
            "swap_data",
            "swap_is_possible"
        ]
    );
    assert_eq!(u(&r["in_amount"]), g.amount);
    assert_eq!(r["swap_is_possible"], Value::Bool(true));
    assert_eq!(r["in_minter_price"], "5.21");
    assert_eq!(r["out_minter_price"], "1");
    assert_eq!(keys(&r["swap_data"]), ["routes", "slippage_bps"]);
    assert_eq!(r["swap_data"]["slippage_bps"].as_u64(), Some(u64::from(g.slippage)));

    let routes = r["swap_data"]["routes"].as_array().unwrap();
    let display = r["display_data"].as_array().unwrap();
    assert!(!routes.is_empty() && routes.len() <= 4);
    assert_eq!(routes.len(), display.len());
    let by_addr: HashMap<&str, usize> = ps.iter().enumerate().map(|(i, p)| (p.address.as_str(), i)).collect();
    let assets: HashMap<String, &Value> =
        snapshot["assets"].as_array().unwrap().iter().map(|a| (a["asset"].as_str().unwrap().to_string(), a)).collect();

    // Re-simulate all routes in order, pools shared between routes seeing the earlier routes' effect.
    let mut live: HashMap<usize, [u128; 2]> = HashMap::new();
    let (mut total_in, mut total_out, mut min_out_sum) = (0u128, 0u128, BigInt::from(0));
    for (route, shown) in routes.iter().zip(display) {
        let steps = route.as_array().unwrap();
        let dsteps = shown["steps"].as_array().unwrap();
        assert_eq!(steps.len(), dsteps.len());
        assert!(steps.len() <= g.max_length);
        assert_eq!(steps[0]["in_minter"], "native");
        assert_eq!(steps[steps.len() - 1]["out_minter"], USDT);
        let route_in = u(&steps[0]["in_amount"]);
        let mut x = route_in;
        let mut route_fee = 0u128;
        for (j, (s, d)) in steps.iter().zip(dsteps).enumerate() {
            let i = by_addr[s["pool_address"].as_str().unwrap()];
            let p = &ps[i];
            let (a_in, a_out) = (s["in_minter"].as_str().unwrap(), s["out_minter"].as_str().unwrap());
            let dir = if [a_in, a_out] == [p.assets[0].as_str(), p.assets[1].as_str()] {
                Direction::ZeroToOne
            } else {
                assert_eq!([a_out, a_in], [p.assets[0].as_str(), p.assets[1].as_str()]);
                Direction::OneToZero
            };
            // A step starts a new message segment unless it continues its exchange's own multi-hop (dex_a, or
            // dex_b_v2 on the same router); a dex_c payout to a router (a jetton hand-off) keeps its change
            // there (TONCO's 0.2 TON hop budget less the 0.05 the hop burns, docs/cross-exchange.md); the route
            // pays a jetton (USD₮), which costs its last step `jetton_out`.
            let mut new_segment = j == 0;
            let mut lost = 0u128;
            if j > 0 {
                let prev = &ps[by_addr[steps[j - 1]["pool_address"].as_str().unwrap()]];
                assert!(chainable(prev, p, a_in), "step {j} cannot follow step {}", j - 1);
                let own = match (prev.protocol.as_str(), p.protocol.as_str()) {
                    ("dex_a", "dex_a") => true,
                    ("dex_b_v2", "dex_b_v2") => prev.router == p.router,
                    _ => false,
                };
                new_segment = !own;
                if prev.protocol == "dex_c" && a_in != "native" {
                    lost = 150_000_000;
                }
            }
            let reserves = *live.get(&i).unwrap_or(&p.reserves);
            let res = Pool::new(curve(p), reserves).swap(x, dir).unwrap();
            live.insert(i, res.reserves_after);
            assert_eq!(u(&s["in_amount"]), x);
            assert_eq!(u(&s["out_amount"]), res.amount_out, "step {j} output");
            assert_eq!(s["protocol_slug"], p.protocol.as_str());
            assert_eq!(s["is_stable"], Value::Bool(false));
            let fee = g.fees.of(tonroute::graph::Protocol::from_slug(&p.protocol).unwrap());
            let jetton_out = if j + 1 == steps.len() { g.fees.jetton_out } else { 0 };
            let want_fee = fee.per_hop + if new_segment { fee.per_route } else { 0 } + lost + jetton_out;
            assert_eq!(u(&s["network_fee"]), want_fee);
            route_fee += want_fee;
            // dex_b details: the pool's router and its wallets for the in and out side.
            match (&p.router, &p.wallets) {
                (Some(router), Some(w)) if p.protocol.starts_with("dex_b") => {
                    let det = &s["dex_b_extra_details"];
                    assert_eq!(keys(det), ["from_router_wallet", "router", "to_router_wallet"]);
                    assert_eq!(det["router"], router.as_str());
                    assert_eq!(det["from_router_wallet"], w[dir.in_index()].as_str());
                    assert_eq!(det["to_router_wallet"], w[1 - dir.in_index()].as_str());
                }
                _ => assert!(s.get("dex_b_extra_details").is_none()),
            }
            assert!(s.get("dex_c_extra_details").is_none());
            // The display step mirrors the swap step and adds tokens, protocol, volatility.
            assert_eq!(
                keys(d),
                [
                    "in_amount",
                    "in_minter",
                    "network_fee",
                    "out_amount",
                    "out_minter",
                    "pool_address",
                    "protocol",
                    "volatility_10m",
                    "volatility_15m",
                    "volatility_1m",
                    "volatility_5m"
                ]
            );
            for k in ["pool_address", "in_amount", "out_amount", "network_fee"] {
                assert_eq!(d[k], s[k], "{k}");
            }
            for (side, id) in [("in_minter", a_in), ("out_minter", a_out)] {
                let t = &d[side];
                let a = assets[id];
                assert_eq!(
                    keys(t),
                    [
                        "address",
                        "aliased",
                        "decimals",
                        "description",
                        "image",
                        "included",
                        "name",
                        "protocol",
                        "symbol"
                    ]
                );
                assert_eq!(t["address"], id);
                assert_eq!(t["symbol"], a["symbol"]);
                assert_eq!(t["name"], a["name"]);
                assert_eq!(t["decimals"], a["decimals"]);
                assert_eq!(t["protocol"], if id == "native" { "native" } else { "jetton" });
                assert_eq!((t["aliased"].as_bool(), t["included"].as_bool()), (Some(false), Some(true)));
            }
            assert_eq!(keys(&d["protocol"]), ["image", "name", "slug", "website"]);
            assert_eq!(d["protocol"]["slug"], p.protocol.as_str());
            for (k, v) in
                ["volatility_1m", "volatility_5m", "volatility_10m", "volatility_15m"].iter().zip(p.volatility)
            {
                assert_eq!(d[*k].as_f64(), Some(v), "{k}");
            }
            x = res.amount_out;
        }
        assert_eq!(u(&shown["network_fee"]), route_fee);
        let pct = shown["in_percent"].as_f64().unwrap();
        assert!((pct - route_in as f64 * 100.0 / g.amount as f64).abs() < 1e-9, "in_percent {pct}");
        total_in += route_in;
        total_out += x;
        min_out_sum += BigInt::from(x) * BigInt::from(10_000 - g.slippage) / BigInt::from(10_000);
    }
    assert_eq!(total_in, g.amount, "routes' inputs add up to the request");
    assert_eq!(u(&r["out_amount"]), total_out);

    // Price impact: against the best spot rate over every chainable path.
    let all = paths(&ps, "native", USDT, g.max_length);
    let best_spot = all.iter().map(|p| p.iter().map(|&(i, d)| spot(&ps[i], d)).product::<f64>()).fold(0.0, f64::max);
    let impact = (1.0 - total_out as f64 / (g.amount as f64 * best_spot)).max(0.0);
    let got = r["price_impact"].as_f64().unwrap();
    assert!((got - impact).abs() < 1e-9, "price_impact {got} vs {impact}");

    // Improvement: over a single path for the whole amount (the best one when fees are zero).
    let singles: Vec<u128> = all.iter().filter_map(|p| single_out(&ps, p, g.amount)).collect();
    let best_single = *singles.iter().max().unwrap();
    let text = r["improvement"].as_str().unwrap();
    if g.fees == NetworkFees::ZERO {
        assert_eq!(text, improvement_text(total_out, best_single));
    } else {
        // With fees the reference single path is the best one net of its fee; it is one of the paths.
        assert!(singles.iter().any(|&s| improvement_text(total_out, s) == text), "improvement {text}");
    }
    assert!(total_out >= best_single || g.fees != NetworkFees::ZERO);

    // Min-out (not on the wire; the swap uses it): the core quote's agrees with the big-integer one.
    let req = QuoteRequest::builder(tonroute::asset::Asset::Native, USDT.parse().unwrap(), g.amount)
        .slippage_bps(g.slippage)
        .max_length(g.max_length)
        .build()
        .unwrap();
    let q = Router::new(RouterConfig { network_fees: g.fees, ..RouterConfig::default() })
        .quote(&graph, &req, QuoteOptions::default())
        .unwrap();
    assert_eq!(BigInt::from(q.min_out), min_out_sum);
    r
}

#[test]
fn golden_split_with_network_fees() {
    let r = check(&Golden { amount: 100_000_000_000_000, slippage: 50, max_length: 3, fees: NetworkFees::default() });
    assert!(r["swap_data"]["routes"].as_array().unwrap().len() >= 2, "100k TON should split");
}

#[test]
fn golden_split_without_network_fees() {
    check(&Golden { amount: 250_000_000_000_000, slippage: 100, max_length: 3, fees: NetworkFees::ZERO });
}

#[test]
fn golden_small_single_route() {
    let r = check(&Golden { amount: 1_000_000_000, slippage: 0, max_length: 2, fees: NetworkFees::default() });
    assert_eq!(r["swap_data"]["routes"].as_array().unwrap().len(), 1);
    assert_eq!(r["improvement"], "0.000000000000");
}

/// A builder that records what it was given and answers one message per route.
struct Recorder;

impl SwapBuilder for Recorder {
    fn build(&self, _: &PoolGraph, swap: &CheckedSwap<'_>) -> Result<Vec<Transaction>, ApiError> {
        let req = swap.request();
        Ok(req
            .swap_data
            .routes
            .iter()
            .map(|r| Transaction {
                address: req.sender.to_hex(),
                amount: r[0].in_amount,
                payload: format!("{}:{}", req.query_id, req.deadline),
            })
            .collect())
    }
}

#[test]
fn quote_json_swap_round_trip() {
    let graph = Arc::new(PoolGraph::from_json(SNAPSHOT).unwrap());
    let api = Api::new(graph.clone());
    let body = format!(r#"{{"in_minter": "native", "out_minter": "{USDT}", "amount": "100000000000000"}}"#);
    let quote = api.quote(body.as_bytes()).unwrap();
    // The swap_data read back from JSON text is exactly the core's.
    let text = serde_json::to_string(&quote).unwrap();
    let value: Value = serde_json::from_str(&text).unwrap();
    let parsed = parse_swap_data(&value["swap_data"], "swap_data").unwrap();
    let core = Router::default()
        .quote(
            &graph,
            &QuoteRequest::new(tonroute::asset::Asset::Native, USDT.parse().unwrap(), 100_000_000_000_000).unwrap(),
            QuoteOptions::default(),
        )
        .unwrap();
    assert_eq!(parsed, core.swap_data(&graph));

    let sender = "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p";
    let swap_body = format!(r#"{{"sender_address": "{sender}", "swap_data": {}}}"#, value["swap_data"]);
    let clock = SwapClock::at(1_700_000_000_123);
    // The default builder builds one message per route; a disabled one answers 501 after validation.
    let built = api.swap(swap_body.as_bytes(), clock).unwrap();
    assert_eq!((built.query_id, built.transactions.len()), (1_700_000_000_123, parsed.routes.len()));
    let off = api.clone().with_swap_builder(Arc::new(tonroute::api::UnavailableSwapBuilder));
    let e = off.swap(swap_body.as_bytes(), clock).unwrap_err();
    assert_eq!((e.status(), e.kind()), (501, ErrorCode::SwapUnavailable));
    // With a builder: one transaction per route, the clock passed through.
    let api = api.with_swap_builder(Arc::new(Recorder));
    let s = api.swap(swap_body.as_bytes(), clock).unwrap();
    assert_eq!(s.query_id, 1_700_000_000_123);
    assert_eq!(s.transactions.len(), parsed.routes.len());
    assert_eq!(s.transactions[0].payload, format!("1700000000123:{}", 1_700_000_000 + 900));
    assert_eq!(s.transactions[0].amount, parsed.routes[0][0].in_amount.to_string());

    // The pools move against the quote: the same swap_data is now stale.
    let pool = graph.pool_id(&parsed.routes[0][0].pool_address).unwrap();
    let [r0, r1] = graph.reserves(pool);
    let (r_ton, r_usd) = if graph.asset(graph.pool(pool).assets[0]).asset.is_native() { (r0, r1) } else { (r1, r0) };
    let moved =
        if graph.asset(graph.pool(pool).assets[0]).asset.is_native() { [r_ton, r_usd / 2] } else { [r_usd / 2, r_ton] };
    graph.update_reserves(pool, moved).unwrap();
    let e = api.swap(swap_body.as_bytes(), clock).unwrap_err();
    assert_eq!((e.status(), e.kind()), (422, ErrorCode::StaleQuote), "{e}");
    graph.update_reserves(pool, [r0, r1]).unwrap();
    assert!(api.swap(swap_body.as_bytes(), clock).is_ok());

    // A tampered router address is refused, never built.
    let tampered = swap_body.replacen("0:b2b2b2b2", "0:b2b2b2b3", 1);
    assert_ne!(tampered, swap_body, "the quote should route through the dex_b_v2 router");
    let e = api.swap(tampered.as_bytes(), clock).unwrap_err();
    assert_eq!((e.status(), e.kind()), (422, ErrorCode::SwapDataMismatch), "{e}");
    assert!(e.message().contains("dex_b_extra_details"), "{e}");
}
