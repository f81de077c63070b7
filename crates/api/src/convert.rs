//! Core types → the wire: a [`Quote`] into a [`QuoteResponse`] (token and protocol objects, prices, the
//! improvement figure). Requests go the other way in [`super::parse`]; `swap_data` both ways through
//! [`SwapDataWire`]'s `From` impls.

use primitive_types::U256;

use super::wire::{DisplayRoute, DisplayStep, ProtocolObject, QuoteResponse, SwapDataWire, TokenObject};
use tonroute_core::asset::Asset;
use tonroute_core::graph::{AssetMeta, PoolGraph, Protocol};
use tonroute_core::route::Quote;

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
/// use tonroute_api::convert::improvement_string;
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
                        quote_only: !graph.is_swappable(s.pool),
                    }
                })
                .collect(),
        })
        .collect();
    let price = |a: &Asset| meta_of(a).map(|m| usd_price(&m)).unwrap_or_else(|| "0".into());
    QuoteResponse {
        in_amount: quote.in_amount.to_string(),
        out_amount: quote.out_amount.to_string(),
        swap_data: SwapDataWire::from(&quote.swap_data(graph)),
        display_data,
        improvement: improvement_string(quote.out_amount, quote.best_single_out),
        in_minter_price: price(&quote.in_asset),
        out_minter_price: price(&quote.out_asset),
        price_impact: if quote.price_impact.is_finite() { quote.price_impact } else { 0.0 },
        swap_is_possible: quote.swap_is_possible
            && quote.routes.iter().flat_map(|r| &r.steps).all(|s| graph.is_swappable(s.pool)),
        // Only a request that asked for it gets the field ([`super::Api::quote_within`]).
        certificate: None,
    }
}

/// The `GET /v4/assets` listing of `graph`: every asset with its pool count, most pools first, then by symbol
/// and id (a stable order for pickers).
pub fn asset_list(graph: &PoolGraph) -> super::wire::AssetsResponse {
    let mut assets: Vec<super::wire::AssetEntry> = graph
        .assets()
        .iter()
        .map(|meta| super::wire::AssetEntry {
            address: meta.asset.to_string(),
            symbol: meta.symbol.clone(),
            name: meta.name.clone(),
            decimals: meta.decimals,
            image: meta.image.clone().unwrap_or_default(),
            pools: graph.asset_id(&meta.asset).map_or(0, |id| graph.edges(id).len()),
        })
        .collect();
    assets.sort_by(|a, b| {
        b.pools.cmp(&a.pools).then_with(|| a.symbol.cmp(&b.symbol)).then_with(|| a.address.cmp(&b.address))
    });
    super::wire::AssetsResponse { assets }
}
