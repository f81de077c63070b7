//! The `/v4` wire types, field for field as docs/interface.md ("Router operations") lists them: one type per shape,
//! read strictly from requests and written in responses.
//!
//! Amounts are decimal strings ([`LargeInteger`]: they exceed what a JSON number carries exactly);
//! `price_impact` and `in_percent` are numbers; addresses are written raw (`0:<64 hex>`) and read in any form;
//! asset ids are `native` or `jetton:0:<64 hex>`. Request types are strict: every object refuses unknown
//! fields (a misspelt optional field would otherwise be silently defaulted) and arrays in its place, every
//! value parses itself once into its core type ([`super::value`]), `null` for an optional field is its
//! default. Ranges are the core's to check ([`tonroute_core::route::QuoteRequest::try_new`],
//! [`tonroute_core::swap::build::check_swap`]). Responses derive `Deserialize` too, so a client (the CLI's `swap`, the
//! tests) can read them back.

use serde::{Deserialize, Serialize};

use super::value::{self, strict_object, Address, AssetId, LargeInteger, ProtocolSlug, SwapModeWire};
use tonroute_core::route::{DexBDetails, DexCDetails, QuoteRequest, RouteError, SwapData, SwapStep};

/// `POST /v4/router/quote` request body.
///
/// Defaults of the optional fields: `swap_mode` = `exact_in`, `slippage_bps` = 100, `max_splits` = 4,
/// `max_length` = 3.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct QuoteRequestBody {
    /// Asset offered: `native`, `jetton:0:<hex>`, a raw `0:<hex>` or a friendly (`EQ…`/`UQ…`) master address.
    pub in_minter: AssetId,
    /// Asset wanted (same forms).
    pub out_minter: AssetId,
    /// Exact-in: amount offered; exact-out: amount wanted. Decimal string in smallest units, 1 ≤ amount < 2^120.
    pub amount: LargeInteger,
    /// `exact_in` (the default: `amount` is the input) or `exact_out` (`amount` is the output wanted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swap_mode: Option<SwapModeWire>,
    /// Slippage tolerance in basis points, 0..=[`QuoteRequest::MAX_SLIPPAGE_BPS`] (default
    /// [`QuoteRequest::DEFAULT_SLIPPAGE_BPS`]).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "value::slippage_opt")]
    pub slippage_bps: Option<u32>,
    /// Most parallel routes, [`QuoteRequest::MIN_SPLITS`]..=[`QuoteRequest::MAX_SPLITS`] (default
    /// [`QuoteRequest::DEFAULT_MAX_SPLITS`]).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "value::max_splits")]
    pub max_splits: Option<usize>,
    /// Most hops per route, [`QuoteRequest::MIN_LENGTH`]..=[`QuoteRequest::MAX_LENGTH`] (default
    /// [`QuoteRequest::DEFAULT_MAX_LENGTH`]).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "value::max_length")]
    pub max_length: Option<usize>,
    /// `true`: the answer also carries the quote's optimality certificate (`certificate`: an upper bound on the
    /// output any routing of the quote's input could get, and the quote's gap to it). `false`, `null` or
    /// absent: no certificate, and the answer is the same as without the field.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub certify: Option<bool>,
}
strict_object!(QuoteRequestBody);

impl QuoteRequestBody {
    /// Whether the request asks for the certificate (`certify: true`).
    pub fn wants_certificate(&self) -> bool {
        self.certify == Some(true)
    }

    /// The core request, through its validating constructor (defaults for absent fields).
    pub fn into_request(self) -> Result<QuoteRequest, RouteError> {
        QuoteRequest::try_new(
            self.in_minter.0,
            self.out_minter.0,
            self.amount.0,
            self.swap_mode.unwrap_or_default().0,
            self.max_splits.unwrap_or(QuoteRequest::DEFAULT_MAX_SPLITS),
            self.max_length.unwrap_or(QuoteRequest::DEFAULT_MAX_LENGTH),
            self.slippage_bps.unwrap_or(QuoteRequest::DEFAULT_SLIPPAGE_BPS),
        )
    }
}

/// `POST /v4/router/quote` response body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// Whether the quote can be executed: `false` when a step's pool is quote-only (its step says
    /// `"quote_only": true`).
    pub swap_is_possible: bool,
    /// Only when the request said `certify: true` (absent otherwise): the quote's optimality certificate, or
    /// `null` when none could be given — the routing time budget ran out after the quote was found (the quote
    /// is complete and exact; only its certificate is missing), or the graph admits no certificate (see
    /// [`tonroute_core::route::CertificateError`]).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<CertificateWire>))]
    pub certificate: Option<Option<CertificateWire>>,
}

/// A field that may be `null`: present (even as `null`) is `Some`, absent is the field's default (`None`).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// The `certificate` of a quote response ([`tonroute_core::route::certificate`]): no routing of the quote's input on
/// the graph — any pools, any split — gets more output than `upper_bound`, network fees aside (the request's
/// `max_splits` and `max_length` matter only to how many swaps may gain from `dex_a` volatile pools' fee
/// rounding). For an exact-out quote the input is the quote's `in_amount`: the bound is on what that input
/// could get.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CertificateWire {
    /// The upper bound on the output, in the output asset's smallest units, decimal string (rounded up; never
    /// below the quote's `out_amount`).
    #[cfg_attr(feature = "openapi", schema(pattern = "^[0-9]+$"))]
    pub upper_bound: String,
    /// `10000 · (upper_bound − out_amount) / upper_bound`: the quote is within this many basis points of the best
    /// any routing could do (0 ≤ gap < 10000).
    pub gap_bps: f64,
}

impl From<&tonroute_core::route::Certificate> for CertificateWire {
    fn from(c: &tonroute_core::route::Certificate) -> CertificateWire {
        CertificateWire { upper_bound: c.upper_bound.to_string(), gap_bps: c.gap_bps }
    }
}

/// The `swap_data` object of a quote response and of a swap request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct SwapDataWire {
    /// Slippage for min-out, basis points.
    #[serde(deserialize_with = "value::slippage")]
    pub slippage_bps: u32,
    /// Routes; each route is an array of steps.
    pub routes: Vec<Vec<SwapStepWire>>,
}
strict_object!(SwapDataWire);

/// One step of `swap_data`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct SwapStepWire {
    /// The pool (written raw).
    pub pool_address: Address,
    /// Whether the pool's curve is a stable one.
    pub is_stable: bool,
    /// Asset in (asset id).
    pub in_minter: AssetId,
    /// Asset out (asset id).
    pub out_minter: AssetId,
    /// Amount in, decimal string.
    pub in_amount: LargeInteger,
    /// Amount out, decimal string.
    pub out_amount: LargeInteger,
    /// Network fee attributed to this step, nanotons, decimal string.
    pub network_fee: LargeInteger,
    /// Protocol slug: `dex_a`, `dex_b_v1`, `dex_b_v2`, `dex_c`.
    pub protocol_slug: ProtocolSlug,
    /// Present on `dex_b_*` steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dex_b_extra_details: Option<DexBExtraDetails>,
    /// Present on `dex_c` steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dex_c_extra_details: Option<DexCExtraDetails>,
    /// Extension: `true` when the step's pool is quote-only (its swap message cannot be built from the snapshot
    /// the quote was made on; the step then has no extra details); absent otherwise. A swap request may send it
    /// back as it came.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quote_only: bool,
}
strict_object!(SwapStepWire);

/// `dex_b_extra_details` of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct DexBExtraDetails {
    /// The router the pool belongs to.
    pub router: Address,
    /// The router's jetton wallet for the step's input asset (pTON wallet for `native`).
    pub from_router_wallet: Address,
    /// The router's jetton wallet for the step's output asset.
    pub to_router_wallet: Address,
}
strict_object!(DexBExtraDetails);

/// `dex_c_extra_details` of a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct DexCExtraDetails {
    /// The router's jetton wallet for the input asset.
    pub from_router_wallet: Address,
    /// The router's jetton wallet for the output asset.
    pub to_router_wallet: Address,
    /// Whether the step swaps the pool's token0 for token1.
    pub zero_to_one: bool,
}
strict_object!(DexCExtraDetails);

impl From<&SwapStep> for SwapStepWire {
    fn from(s: &SwapStep) -> SwapStepWire {
        SwapStepWire {
            pool_address: Address(s.pool_address.clone()),
            is_stable: s.is_stable,
            in_minter: AssetId(s.in_asset),
            out_minter: AssetId(s.out_asset),
            in_amount: LargeInteger(s.in_amount),
            out_amount: LargeInteger(s.out_amount),
            network_fee: LargeInteger(s.network_fee),
            protocol_slug: ProtocolSlug(s.protocol),
            dex_b_extra_details: s.dex_b.as_ref().map(|d| DexBExtraDetails {
                router: Address(d.router.clone()),
                from_router_wallet: Address(d.from_router_wallet.clone()),
                to_router_wallet: Address(d.to_router_wallet.clone()),
            }),
            dex_c_extra_details: s.dex_c.as_ref().map(|d| DexCExtraDetails {
                from_router_wallet: Address(d.from_router_wallet.clone()),
                to_router_wallet: Address(d.to_router_wallet.clone()),
                zero_to_one: d.zero_to_one,
            }),
            quote_only: s.quote_only,
        }
    }
}

impl From<SwapStepWire> for SwapStep {
    fn from(s: SwapStepWire) -> SwapStep {
        SwapStep {
            pool_address: s.pool_address.0,
            protocol: s.protocol_slug.0,
            is_stable: s.is_stable,
            in_asset: s.in_minter.0,
            out_asset: s.out_minter.0,
            in_amount: s.in_amount.0,
            out_amount: s.out_amount.0,
            network_fee: s.network_fee.0,
            dex_b: s.dex_b_extra_details.map(|d| DexBDetails {
                router: d.router.0,
                from_router_wallet: d.from_router_wallet.0,
                to_router_wallet: d.to_router_wallet.0,
            }),
            dex_c: s.dex_c_extra_details.map(|d| DexCDetails {
                from_router_wallet: d.from_router_wallet.0,
                to_router_wallet: d.to_router_wallet.0,
                zero_to_one: d.zero_to_one,
            }),
            quote_only: s.quote_only,
        }
    }
}

impl From<&SwapData> for SwapDataWire {
    fn from(sd: &SwapData) -> SwapDataWire {
        SwapDataWire {
            slippage_bps: sd.slippage_bps,
            routes: sd.routes.iter().map(|r| r.iter().map(SwapStepWire::from).collect()).collect(),
        }
    }
}

/// The core's swap data: the values are parsed; whether they are consistent and match a graph is
/// [`tonroute_core::swap::build::check_swap`]'s to say.
impl From<SwapDataWire> for SwapData {
    fn from(sd: SwapDataWire) -> SwapData {
        SwapData {
            slippage_bps: sd.slippage_bps,
            routes: sd.routes.into_iter().map(|r| r.into_iter().map(SwapStep::from).collect()).collect(),
        }
    }
}

/// One route of `display_data`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
    /// Extension: `true` when the pool is quote-only (as the `swap_data` step says); absent otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quote_only: bool,
}

/// A token object (display only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
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
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct SwapRequestBody {
    /// The wallet that signs and receives; any address form.
    pub sender_address: Address,
    /// The `swap_data` of a quote response, unchanged.
    pub swap_data: SwapDataWire,
}
strict_object!(SwapRequestBody);

/// `POST /v4/router/swap` response body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SwapResponse {
    /// The query id written into every message (derived from the request time by the server).
    pub query_id: u64,
    /// One message per route, wallet-connect format.
    pub transactions: Vec<TransactionWire>,
}

/// One message to sign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TransactionWire {
    /// Destination address.
    pub address: String,
    /// Nanotons attached, decimal string.
    pub amount: String,
    /// Body, base64 bag of cells.
    pub payload: String,
}

/// `POST /v4/admin/reserves` request entry: a pool and either its new `reserves` (every curve but
/// `concentrated`) or, for a concentrated (`dex_c`) pool, its state `sqrt_price_x96`, `tick`, `liquidity`
/// (all three) and optionally its whole tick map `ticks` (the fields and forms of the snapshot's pool entry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct ReserveUpdate {
    /// Pool address, any form.
    pub pool: Address,
    /// New reserves of token0 and token1, decimal strings below 2^120 (zero allowed: an emptied pool).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserves: Option<[LargeInteger; 2]>,
    /// Concentrated: √price · 2^96, decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqrt_price_x96: Option<value::SqrtPriceX96>,
    /// Concentrated: the current tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick: Option<i32>,
    /// Concentrated: the active liquidity, decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity: Option<value::Liquidity>,
    /// Concentrated: the initialized ticks (any order), replacing the pool's tick map; absent = unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticks: Option<Vec<TickWire>>,
}
strict_object!(ReserveUpdate);

/// `POST /v4/admin/reserves` request body in its object form: the updates, and whether the operator forces
/// those that move a pool's price by more than the server's limit (the array form `[…]` is `force: false`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct AdminBatchBody {
    /// Apply updates that move a pool's price by more than the server's `--max-price-move` factor (each one
    /// is marked `forced` in the audit log); default `false`.
    #[serde(default)]
    pub force: bool,
    /// The updates, as in the array form (required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updates: Option<Vec<ReserveUpdate>>,
}
strict_object!(AdminBatchBody);

/// One initialized tick of a concentrated pool in an admin update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(remote = "Self", deny_unknown_fields)]
pub struct TickWire {
    /// Tick index.
    pub tick: i32,
    /// Signed liquidity change when the price crosses the tick upwards, decimal string.
    pub liquidity_net: value::LiquidityNet,
    /// Liquidity referencing the tick, decimal string.
    pub liquidity_gross: value::Liquidity,
}
strict_object!(TickWire);

/// `POST /v4/admin/reserves` response body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ReservesResponse {
    /// How many pools were updated.
    pub updated: usize,
}

/// `GET /v4/assets` response body: the assets the router knows, for pickers (the route explorer page).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AssetsResponse {
    /// Every asset of the graph, most pools first (then by symbol).
    pub assets: Vec<AssetEntry>,
}

/// One asset of [`AssetsResponse`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AssetEntry {
    /// The asset id as the router takes it (`native` or `jetton:0:<hex>`).
    pub address: String,
    /// Ticker.
    pub symbol: String,
    /// Display name.
    pub name: String,
    /// Decimals of the smallest unit.
    pub decimals: u8,
    /// Image URL from the snapshot, or empty.
    pub image: String,
    /// How many pools hold the asset.
    pub pools: usize,
}
