//! Conversions between core types and the wire: a [`Quote`] into a [`QuoteResponse`], [`SwapData`] into
//! its wire form, and the check of a client's `swap_data` against the graph before any message is built.

use primitive_types::U256;

use super::error::{ApiError, ErrorCode};
use super::wire::{
    DexBExtraDetails, DexCExtraDetails, DisplayRoute, DisplayStep, ProtocolObject, QuoteResponse, SwapDataWire,
    SwapStepWire, TokenObject,
};
use crate::asset::Asset;
use crate::graph::{AssetMeta, PoolGraph, PoolMeta, Protocol};
use crate::pool::Direction;
use crate::route::{min_out, simulate_routes, DexBDetails, DexCDetails, Quote, RouteError, SwapData, SwapStep};

/// Raw address form used on the wire: `0:<64 lowercase hex>`.
pub fn raw(a: &tonlib_core::TonAddress) -> String {
    a.to_hex()
}

/// The protocol object of a slug. Names are neutral like the slugs; `image` and `website` are empty.
pub fn protocol_object(p: Protocol) -> ProtocolObject {
    let name = match p {
        Protocol::DexA => "DEX A",
        Protocol::DexBV1 => "DEX B v1",
        Protocol::DexBV2 => "DEX B v2",
        Protocol::DexC => "DEX C",
    };
    ProtocolObject { name: name.into(), slug: p.slug().into(), image: String::new(), website: String::new() }
}

/// The token object of an asset, from the graph's metadata.
pub fn token_object(meta: &AssetMeta) -> TokenObject {
    TokenObject {
        address: meta.asset.to_string(),
        name: meta.name.clone(),
        symbol: meta.symbol.clone(),
        description: String::new(),
        image: meta.image.clone().unwrap_or_default(),
        decimals: meta.decimals,
        aliased: false,
        included: true,
        protocol: if meta.asset.is_native() { "native" } else { "jetton" }.into(),
    }
}

/// `(out − best) / best` as a decimal string with 12 fractional digits, rounded toward zero, computed in
/// integers (the float in [`Quote::improvement`] would lose the small gains a split typically makes).
///
/// ```
/// use tonroute::api::convert::improvement_string;
/// assert_eq!(improvement_string(1_001_000, 1_000_000), "0.001000000000");
/// assert_eq!(improvement_string(3, 3), "0.000000000000");
/// assert_eq!(improvement_string(2, 3), "-0.333333333333");
/// assert_eq!(improvement_string(7, 0), "0.000000000000");
/// ```
pub fn improvement_string(out: u128, best: u128) -> String {
    const SCALE: u64 = 1_000_000_000_000;
    if best == 0 {
        return "0.000000000000".into();
    }
    let (diff, negative) = if out >= best { (out - best, false) } else { (best - out, true) };
    // diff < 2^128 and SCALE < 2^40: the product fits 256 bits.
    let v = U256::from(diff) * U256::from(SCALE) / U256::from(best);
    let whole = v / U256::from(SCALE);
    let frac = (v % U256::from(SCALE)).low_u64();
    let sign = if negative && !v.is_zero() { "-" } else { "" };
    format!("{sign}{whole}.{frac:012}")
}

/// USD price text of an asset: the snapshot's figure in shortest round-trip form, `"0"` when unknown.
pub fn usd_price(meta: &AssetMeta) -> String {
    match meta.usd_price {
        Some(p) if p.is_finite() && p >= 0.0 => format!("{p}"),
        _ => "0".into(),
    }
}

/// The wire form of one swap step.
pub fn swap_step_wire(s: &SwapStep) -> SwapStepWire {
    SwapStepWire {
        pool_address: raw(&s.pool_address),
        is_stable: s.is_stable,
        in_minter: s.in_asset.to_string(),
        out_minter: s.out_asset.to_string(),
        in_amount: s.in_amount.to_string(),
        out_amount: s.out_amount.to_string(),
        network_fee: s.network_fee.to_string(),
        protocol_slug: s.protocol.slug().into(),
        dex_b_extra_details: s.dex_b.as_ref().map(|d| DexBExtraDetails {
            router: raw(&d.router),
            from_router_wallet: raw(&d.from_router_wallet),
            to_router_wallet: raw(&d.to_router_wallet),
        }),
        dex_c_extra_details: s.dex_c.as_ref().map(|d| DexCExtraDetails {
            from_router_wallet: raw(&d.from_router_wallet),
            to_router_wallet: raw(&d.to_router_wallet),
            zero_to_one: d.zero_to_one,
        }),
    }
}

/// The wire form of [`SwapData`]; [`super::parse::parse_swap_data`] reads it back to an equal value.
pub fn swap_data_wire(sd: &SwapData) -> SwapDataWire {
    SwapDataWire {
        slippage_bps: sd.slippage_bps,
        routes: sd.routes.iter().map(|r| r.iter().map(swap_step_wire).collect()).collect(),
    }
}

/// The `/v4/router/quote` response of a quote made on `graph`.
pub fn quote_response(graph: &PoolGraph, quote: &Quote) -> QuoteResponse {
    let meta_of = |a: &Asset| graph.asset_id(a).map(|id| graph.asset(id).clone());
    let fallback = |a: &Asset| AssetMeta::new(*a, "", 0);
    let token = |a: &Asset| token_object(&meta_of(a).unwrap_or_else(|| fallback(a)));
    let display_data = quote
        .routes
        .iter()
        .map(|r| DisplayRoute {
            in_percent: r.in_percent,
            network_fee: r.network_fee.to_string(),
            steps: r
                .steps
                .iter()
                .map(|s| {
                    let v = graph.pool(s.pool).volatility.unwrap_or_default();
                    DisplayStep {
                        pool_address: raw(&s.pool_address),
                        in_minter: token(&s.in_asset),
                        out_minter: token(&s.out_asset),
                        in_amount: s.in_amount.to_string(),
                        out_amount: s.out_amount.to_string(),
                        network_fee: s.network_fee.to_string(),
                        protocol: protocol_object(s.protocol),
                        volatility_1m: v.m1,
                        volatility_5m: v.m5,
                        volatility_10m: v.m10,
                        volatility_15m: v.m15,
                    }
                })
                .collect(),
        })
        .collect();
    let price = |a: &Asset| meta_of(a).map(|m| usd_price(&m)).unwrap_or_else(|| "0".into());
    QuoteResponse {
        in_amount: quote.in_amount.to_string(),
        out_amount: quote.out_amount.to_string(),
        swap_data: swap_data_wire(&quote.swap_data(graph)),
        display_data,
        improvement: improvement_string(quote.out_amount, quote.best_single_out),
        in_minter_price: price(&quote.in_asset),
        out_minter_price: price(&quote.out_asset),
        price_impact: if quote.price_impact.is_finite() { quote.price_impact } else { 0.0 },
        swap_is_possible: quote.swap_is_possible,
    }
}

/// The `dex_b` / `dex_c` details the graph gives a step through `meta` in direction `dir` (what
/// [`Quote::swap_data`] writes).
fn expected_details(meta: &PoolMeta, dir: Direction) -> (Option<DexBDetails>, Option<DexCDetails>) {
    let (i, o) = (dir.in_index(), 1 - dir.in_index());
    let wallets = meta.context.router_wallets.as_ref();
    let b = match (meta.protocol, &meta.context.router, wallets) {
        (Protocol::DexBV1 | Protocol::DexBV2, Some(router), Some(w)) => Some(DexBDetails {
            router: router.clone(),
            from_router_wallet: w[i].clone(),
            to_router_wallet: w[o].clone(),
        }),
        _ => None,
    };
    let c = match (meta.protocol, wallets) {
        (Protocol::DexC, Some(w)) => Some(DexCDetails {
            from_router_wallet: w[i].clone(),
            to_router_wallet: w[o].clone(),
            zero_to_one: dir == Direction::ZeroToOne,
        }),
        _ => None,
    };
    (b, c)
}

fn mismatch(path: &str, message: impl std::fmt::Display) -> ApiError {
    ApiError::field(ErrorCode::SwapDataMismatch, path, message)
}

/// Checks a client's `swap_data` against the graph before messages are built: every pool known (404), its
/// protocol, stability, assets and router addresses as the graph has them, consecutive steps chainable in
/// one message, and a fresh exact simulation (routes in order, shared pools updated) still reaching each
/// route's min-out at the given slippage (otherwise the quote is stale: 422 [`ErrorCode::StaleQuote`]).
/// Router addresses are compared because a tampered router would send the user's funds elsewhere.
pub fn check_swap_data(graph: &PoolGraph, sd: &SwapData) -> Result<(), ApiError> {
    let mut plan = Vec::with_capacity(sd.routes.len());
    for (i, route) in sd.routes.iter().enumerate() {
        let mut hops: Vec<(crate::graph::PoolId, Direction)> = Vec::with_capacity(route.len());
        for (j, step) in route.iter().enumerate() {
            let path = format!("swap_data.routes[{i}][{j}]");
            let id = graph.pool_id(&step.pool_address).ok_or_else(|| {
                ApiError::field(
                    ErrorCode::UnknownPool,
                    &format!("{path}.pool_address"),
                    format!("unknown pool {}", raw(&step.pool_address)),
                )
            })?;
            let meta = graph.pool(id);
            if meta.protocol != step.protocol {
                return Err(mismatch(
                    &format!("{path}.protocol_slug"),
                    format!("the pool is `{}`, not `{}`", meta.protocol.slug(), step.protocol.slug()),
                ));
            }
            if meta.curve.is_stable() != step.is_stable {
                return Err(mismatch(
                    &format!("{path}.is_stable"),
                    format!("the pool's is_stable is {}", !step.is_stable),
                ));
            }
            let [a0, a1] = meta.assets.map(|a| graph.asset(a).asset);
            let dir = if (step.in_asset, step.out_asset) == (a0, a1) {
                Direction::ZeroToOne
            } else if (step.in_asset, step.out_asset) == (a1, a0) {
                Direction::OneToZero
            } else {
                return Err(mismatch(
                    &format!("{path}.in_minter"),
                    format!("the pool trades {a0} and {a1}, not {} → {}", step.in_asset, step.out_asset),
                ));
            };
            let (b, c) = expected_details(meta, dir);
            if step.dex_b != b {
                return Err(mismatch(
                    &format!("{path}.dex_b_extra_details"),
                    "does not match the pool's router and router wallets",
                ));
            }
            if step.dex_c != c {
                return Err(mismatch(
                    &format!("{path}.dex_c_extra_details"),
                    "does not match the pool's router wallets and direction",
                ));
            }
            if let Some(&(prev, prev_dir)) = hops.last() {
                let at = graph.pool(prev).assets[1 - prev_dir.in_index()];
                if let Err(reason) = graph.handoff(crate::swap::build::BUILT_HANDOFFS, prev, id, at) {
                    return Err(mismatch(
                        &path,
                        format!("this pool cannot follow the previous step in one message: {reason}"),
                    ));
                }
            }
            hops.push((id, dir));
        }
        let first_in = route.first().map_or(0, |s| s.in_amount);
        plan.push((hops, first_in));
    }
    let outs = simulate_routes(graph, &plan).map_err(|e| {
        ApiError::new(ErrorCode::StaleQuote, format!("a fresh simulation of swap_data refuses it ({e}); quote again"))
    })?;
    for (i, (route, fresh)) in sd.routes.iter().zip(&outs).enumerate() {
        let quoted = route.last().map_or(0, |s| s.out_amount);
        let fresh_out = fresh.last().copied().unwrap_or(0);
        let min = min_out(quoted, sd.slippage_bps).map_err(RouteError::from)?;
        if fresh_out < min {
            return Err(ApiError::new(
                ErrorCode::StaleQuote,
                format!(
                    "route {i}: the pools now give {fresh_out}, below the min-out {min} (quoted {quoted}, slippage {} bps); quote again",
                    sd.slippage_bps
                ),
            ));
        }
    }
    Ok(())
}
