//! The `/v4` wire types, field for field as SPEC.md ("Router operations") lists them.
//!
//! Amounts are decimal strings (they exceed what a JSON number carries exactly); `price_impact` and
//! `in_percent` are numbers; addresses are raw `0:<64 hex>`; asset ids are `native` or `jetton:0:<64 hex>`.
//! Responses derive both `Serialize` and `Deserialize` so a client (the CLI's `swap`, the tests) can read them
//! back. Requests are *parsed* by [`super::parse`], which validates every field and names it in errors;
//! the request structs here serialise requests for clients and document the shape.

use serde::{Deserialize, Serialize};

/// `POST /v4/router/quote` request body.
///
/// Defaults of the optional fields: `swap_mode` = `exact_in`, `slippage_bps` = 100, `max_splits` = 4,
/// `max_length` = 3.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuoteRequestBody {
    /// Asset offered: `native`, `jetton:0:<hex>`, a raw `0:<hex>` or a friendly (`EQ…`/`UQ…`) master address.
    pub in_minter: String,
    /// Asset wanted (same forms).
    pub out_minter: String,
    /// Amount offered, decimal string in smallest units, 1 ≤ amount < 2^120.
    pub amount: String,
    /// `exact_in` (the default: `amount` is the input) or `exact_out` (`amount` is the output wanted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap_mode: Option<String>,
    /// Slippage tolerance in basis points, 0..=10000 (default 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slippage_bps: Option<u32>,
    /// Most parallel routes, 1..=20 (default 4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_splits: Option<u32>,
    /// Most hops per route, 1..=5 (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u32>,
}

/// `POST /v4/router/quote` response body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuoteResponse {
    /// Amount offered, decimal string (equals the request's `amount`).
    pub in_amount: String,
    /// Amount received over all routes, exact simulation, decimal string.
    pub out_amount: String,
    /// What `POST /v4/router/swap` needs back.
    pub swap_data: SwapDataWire,
    /// One entry per route, for display.
    pub display_data: Vec<DisplayRoute>,
    /// Relative gain of the split over the best single route for the whole amount,
    /// `(out_amount − best_single_out) / best_single_out`, as a decimal string with 12 fractional digits,
    /// rounded toward zero (e.g. `"0.001234567890"` = +0.12 %). `"0.000000000000"` for a single route.
    pub improvement: String,
    /// USD price of one whole `in_minter` token as the snapshot gives it, decimal string; `"0"` if unknown.
    pub in_minter_price: String,
    /// USD price of one whole `out_minter` token as the snapshot gives it, decimal string; `"0"` if unknown.
    pub out_minter_price: String,
    /// Loss against the spot rate (after pool fees) of the best marginal path, a fraction:
    /// `1 − out_amount / (in_amount · spot)`, never negative (0.0123 = 1.23 %).
    pub price_impact: f64,
    /// Whether the quote can be executed.
    pub swap_is_possible: bool,
}

/// The `swap_data` object of a quote response and of a swap request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapDataWire {
    /// Slippage for min-out, basis points.
    pub slippage_bps: u32,
    /// Routes; each route is an array of steps.
    pub routes: Vec<Vec<SwapStepWire>>,
}

/// One step of `swap_data`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapStepWire {
    /// The pool, raw address.
    pub pool_address: String,
    /// Whether the pool's curve is a stable one.
    pub is_stable: bool,
    /// Asset in (asset id).
    pub in_minter: String,
    /// Asset out (asset id).
    pub out_minter: String,
    /// Amount in, decimal string.
    pub in_amount: String,
    /// Amount out, decimal string.
    pub out_amount: String,
    /// Network fee attributed to this step, nanotons, decimal string.
    pub network_fee: String,
    /// Protocol slug: `dex_a`, `dex_b_v1`, `dex_b_v2`, `dex_c`.
    pub protocol_slug: String,
    /// Present on `dex_b_*` steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dex_b_extra_details: Option<DexBExtraDetails>,
    /// Present on `dex_c` steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dex_c_extra_details: Option<DexCExtraDetails>,
}

/// `dex_b_extra_details` of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DexBExtraDetails {
    /// The router the pool belongs to, raw address.
    pub router: String,
    /// The router's jetton wallet for the step's input asset (pTON wallet for `native`).
    pub from_router_wallet: String,
    /// The router's jetton wallet for the step's output asset.
    pub to_router_wallet: String,
}

/// `dex_c_extra_details` of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DexCExtraDetails {
    /// The router's jetton wallet for the input asset.
    pub from_router_wallet: String,
    /// The router's jetton wallet for the output asset.
    pub to_router_wallet: String,
    /// Whether the step swaps the pool's token0 for token1.
    pub zero_to_one: bool,
}

/// One route of `display_data`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisplayRoute {
    /// This route's share of the request's amount, in percent (0..=100; the routes' shares add up to 100
    /// up to float rounding).
    pub in_percent: f64,
    /// Network fee of the route (sum of its steps'), nanotons, decimal string.
    pub network_fee: String,
    /// The route's steps.
    pub steps: Vec<DisplayStep>,
}

/// One step of a display route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DisplayStep {
    /// The pool, raw address.
    pub pool_address: String,
    /// Token offered.
    pub in_minter: TokenObject,
    /// Token received.
    pub out_minter: TokenObject,
    /// Amount in, decimal string.
    pub in_amount: String,
    /// Amount out, decimal string.
    pub out_amount: String,
    /// Network fee of the step, nanotons, decimal string.
    pub network_fee: String,
    /// The exchange.
    pub protocol: ProtocolObject,
    /// Pool price volatility over 1 minute, from the snapshot (0 when it has none).
    pub volatility_1m: f64,
    /// Over 5 minutes (same source).
    pub volatility_5m: f64,
    /// Over 10 minutes (same source).
    pub volatility_10m: f64,
    /// Over 15 minutes (same source).
    pub volatility_15m: f64,
}

/// A token object (display only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenObject {
    /// The asset id as in `swap_data` (`native` or `jetton:0:<hex>`), so display and swap data match.
    pub address: String,
    /// Display name.
    pub name: String,
    /// Ticker.
    pub symbol: String,
    /// Description; empty (snapshots carry none).
    pub description: String,
    /// Image URL from the snapshot, or empty.
    pub image: String,
    /// Decimals of the smallest unit.
    pub decimals: u8,
    /// Whether the id is an alias of another token; always `false` (we keep no alias table).
    pub aliased: bool,
    /// Whether the token is in the router's asset list; `true` for every token of a quote.
    pub included: bool,
    /// Token standard: `native` for TON, `jetton` (TEP-74) otherwise.
    pub protocol: String,
}

/// A protocol object (display only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProtocolObject {
    /// Display name (neutral, like the slugs).
    pub name: String,
    /// Wire slug.
    pub slug: String,
    /// Logo URL; empty (neutral naming carries no brand assets).
    pub image: String,
    /// Web site; empty for the same reason.
    pub website: String,
}

/// `POST /v4/router/swap` request body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapRequestBody {
    /// The wallet that signs and receives; any address form.
    pub sender_address: String,
    /// The `swap_data` of a quote response, unchanged.
    pub swap_data: SwapDataWire,
}

/// `POST /v4/router/swap` response body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwapResponse {
    /// The query id written into every message (derived from the request time by the server).
    pub query_id: u64,
    /// One message per route, wallet-connect format.
    pub transactions: Vec<TransactionWire>,
}

/// One message to sign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransactionWire {
    /// Destination address.
    pub address: String,
    /// Nanotons attached, decimal string.
    pub amount: String,
    /// Body, base64 bag of cells.
    pub payload: String,
}

/// `POST /v4/admin/reserves` request entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReserveUpdate {
    /// Pool address, any form.
    pub pool: String,
    /// New reserves of token0 and token1, decimal strings.
    pub reserves: [String; 2],
}

/// `POST /v4/admin/reserves` response body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservesResponse {
    /// How many pools were updated.
    pub updated: usize,
}
