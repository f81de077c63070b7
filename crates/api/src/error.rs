//! The `{code, message}` error object, its HTTP status, and the stable numeric code of every error variant.
//!
//! Codes are grouped by status: `1xxx` → 400 (malformed or out-of-range input), `2xxx` → 404 (unknown asset,
//! pool or path), `3xxx` → 422 (well-formed request that cannot be served: no route, stale swap data),
//! `5xxx` → 5xx (our side); market data (`/coins`, `/chart`, pools, affiliates) uses `60xx`–`63xx` → 400,
//! `64xx` → 404, `65xx` → 500 (except 6500, no market data on this server: 404). A code, once published in the README, never changes meaning.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use tonroute_core::graph::{GraphError, Protocol};
use tonroute_core::route::{QuoteRequest, RouteError, SwapData};
use tonroute_core::swap::SwapError;

/// Every error the JSON layer can return, with its stable numeric code (the discriminant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[repr(i32)]
pub enum ErrorCode {
    /// The body is not valid JSON, or not a JSON object/array where one is expected.
    MalformedJson = 1000,
    /// The body exceeds the size limit (status 413).
    BodyTooLarge = 1001,
    /// A required field is absent.
    MissingField = 1002,
    /// A field has the wrong JSON type (e.g. a number where a decimal string is expected).
    WrongType = 1003,
    /// A field the operation does not know (caught so that a misspelt optional field is not silently ignored).
    UnknownField = 1004,
    /// A JSON route called without `Content-Type: application/json` (status 415).
    UnsupportedMediaType = 1005,
    /// The request body did not arrive in time, e.g. shorter than its `Content-Length` (status 408).
    BodyTimeout = 1006,
    /// An asset id that does not parse (`native`, `jetton:0:<hex>`, raw or friendly address).
    BadAsset = 1010,
    /// An address that does not parse.
    BadAddress = 1011,
    /// An amount that is not a decimal integer string.
    BadAmount = 1012,
    /// An amount of zero where a positive one is needed.
    ZeroAmount = 1013,
    /// An amount at or above 2^120 (the chain's `Coins` limit).
    AmountTooLarge = 1014,
    /// A negative amount.
    NegativeAmount = 1015,
    /// A fractional amount (amounts are integers in smallest units).
    FractionalAmount = 1016,
    /// `max_splits` outside [`QuoteRequest::MIN_SPLITS`]..=[`QuoteRequest::MAX_SPLITS`].
    MaxSplitsOutOfRange = 1020,
    /// `max_length` outside [`QuoteRequest::MIN_LENGTH`]..=[`QuoteRequest::MAX_LENGTH`].
    MaxLengthOutOfRange = 1021,
    /// `slippage_bps` outside 0..=[`QuoteRequest::MAX_SLIPPAGE_BPS`].
    SlippageOutOfRange = 1022,
    /// A `swap_mode` other than `exact_in` / `exact_out`.
    UnsupportedSwapMode = 1023,
    /// In and out asset are the same.
    SameAsset = 1024,
    /// A `protocol_slug` we do not know.
    BadProtocol = 1030,
    /// `swap_data` that is self-contradictory: no routes, too many, steps that do not chain.
    InconsistentSwapData = 1031,
    /// An admin update the pool cannot take: reserves the pool math overflows on, a concentrated state out of
    /// the contract's range, or reserves for a concentrated pool (which is updated through its state).
    BadPoolState = 1032,
    /// An admin update that moves a pool's price by more than the server's limit (`--max-price-move`, default
    /// 100×), as reserves sent in the wrong order do; applied only when the batch says `"force": true`.
    PriceJump = 1033,
    /// An admin route without a valid `Authorization: Bearer <token>` (status 401).
    Unauthorized = 1040,
    /// An admin route on a server started without an admin token (status 403).
    AdminDisabled = 1041,
    /// The client exceeded the server's `--rate-limit` (status 429, with `Retry-After`).
    RateLimited = 1042,
    /// An asset no pool of the graph trades.
    UnknownAsset = 2001,
    /// A pool the graph does not have.
    UnknownPool = 2002,
    /// No such HTTP path.
    NotFound = 2003,
    /// The path exists but not with this method (status 405).
    MethodNotAllowed = 2004,
    /// No chainable path within `max_length` hops.
    NoRoute = 3001,
    /// Paths exist but every one refuses the amount.
    AmountRefused = 3002,
    /// Exact-out: the pools within the limits cannot pay the wanted output.
    OutputUnreachable = 3006,
    /// `swap_data` disagrees with the graph (protocol, assets, router addresses, chaining rules).
    SwapDataMismatch = 3003,
    /// A fresh simulation no longer reaches the quoted min-out: the quote is stale; quote again.
    StaleQuote = 3004,
    /// The message builder refused the swap (a `SwapError`).
    SwapRefused = 3005,
    /// Internal error.
    Internal = 5000,
    /// Swap-message building is not connected in this build (status 501).
    SwapUnavailable = 5001,
    /// Routing exceeded the per-request time budget (status 503).
    RoutingTimeout = 5002,
    /// The server is at capacity: the request was refused before any work (status 503, with `Retry-After`).
    Overloaded = 5003,
    /// The memory budget for answers held at once is spent (`--memory-budget-mb`): refused before any work
    /// (status 503, with `Retry-After`).
    AnswerBudgetSpent = 5004,
    /// Every connection slot is busy with a request in flight (status 503, with `Retry-After`).
    TooManyConnections = 5010,
    /// Every connection slot this client IP may hold is busy with a request in flight
    /// (`--max-connections-per-ip`; status 503, with `Retry-After`).
    TooManyConnectionsFromClient = 5011,
    /// Market data: a query parameter's value has the wrong format (not a boolean, integer, enumeration value,
    /// RFC 3339 date-time, LargeInteger or LargeFloat).
    MarketBadParameter = 6000,
    /// Market data: a query parameter the operation does not know.
    MarketUnknownParameter = 6001,
    /// Market data: a required query parameter is absent.
    MarketMissingParameter = 6002,
    /// Market data: a query parameter given twice.
    MarketDuplicateParameter = 6003,
    /// Market data: `limit` outside the operation's range.
    MarketLimitOutOfRange = 6004,
    /// Market data: a negative `offset`.
    MarketOffsetOutOfRange = 6005,
    /// Market data: `sort_period` / `filter_period` is required by the sort or filters used.
    MarketPeriodRequired = 6006,
    /// Market data: a range whose minimum is not below (or, for inclusive ranges, not at most) its maximum.
    MarketInvertedRange = 6007,
    /// Market data: a malformed asset identifier.
    MarketBadAsset = 6008,
    /// Market data: a malformed address (including an affiliate account id or controller address).
    MarketBadAddress = 6009,
    /// Market data: sorting by `value_usd` / `rewards_total_usd` without `wallet_address`.
    MarketWalletRequired = 6010,
    /// Market data: an asset pair that is not exactly two assets.
    MarketPairSize = 6011,
    /// Market data: a request body that is not the operation's JSON object.
    MarketBadBody = 6012,
    /// Market data: a value outside its allowed set or range (tag, pool type, percentage, equal assets).
    MarketValueOutOfRange = 6013,
    /// Market data: no coin with this asset id (status 404).
    CoinNotFound = 6400,
    /// Market data: no pool with this address (status 404).
    MarketPoolNotFound = 6401,
    /// Market data: no affiliate account with this id or controller (status 404).
    AffiliateNotFound = 6402,
    /// Market data: the wallet has no referrer (status 404).
    ReferrerNotFound = 6403,
    /// Market data: the wallet holds no liquidity position in the pool (status 404).
    PositionNotFound = 6404,
    /// Market data: the server has no market data loaded (status 404: the market routes are not served here,
    /// a configuration state, not a failure; the code keeps its number).
    MarketUnavailable = 6500,
    /// Market data: the market store failed to answer (e.g. its database is unreachable; status 500).
    MarketStoreFailed = 6501,
}

impl ErrorCode {
    /// All codes, for documentation and tests.
    pub const ALL: [ErrorCode; 64] = [
        ErrorCode::MalformedJson,
        ErrorCode::BodyTooLarge,
        ErrorCode::MissingField,
        ErrorCode::WrongType,
        ErrorCode::UnknownField,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::BodyTimeout,
        ErrorCode::BadAsset,
        ErrorCode::BadAddress,
        ErrorCode::BadAmount,
        ErrorCode::ZeroAmount,
        ErrorCode::AmountTooLarge,
        ErrorCode::NegativeAmount,
        ErrorCode::FractionalAmount,
        ErrorCode::MaxSplitsOutOfRange,
        ErrorCode::MaxLengthOutOfRange,
        ErrorCode::SlippageOutOfRange,
        ErrorCode::UnsupportedSwapMode,
        ErrorCode::SameAsset,
        ErrorCode::BadProtocol,
        ErrorCode::InconsistentSwapData,
        ErrorCode::BadPoolState,
        ErrorCode::PriceJump,
        ErrorCode::Unauthorized,
        ErrorCode::AdminDisabled,
        ErrorCode::RateLimited,
        ErrorCode::UnknownAsset,
        ErrorCode::UnknownPool,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
        ErrorCode::NoRoute,
        ErrorCode::AmountRefused,
        ErrorCode::OutputUnreachable,
        ErrorCode::SwapDataMismatch,
        ErrorCode::StaleQuote,
        ErrorCode::SwapRefused,
        ErrorCode::Internal,
        ErrorCode::SwapUnavailable,
        ErrorCode::RoutingTimeout,
        ErrorCode::Overloaded,
        ErrorCode::AnswerBudgetSpent,
        ErrorCode::TooManyConnections,
        ErrorCode::TooManyConnectionsFromClient,
        ErrorCode::MarketBadParameter,
        ErrorCode::MarketUnknownParameter,
        ErrorCode::MarketMissingParameter,
        ErrorCode::MarketDuplicateParameter,
        ErrorCode::MarketLimitOutOfRange,
        ErrorCode::MarketOffsetOutOfRange,
        ErrorCode::MarketPeriodRequired,
        ErrorCode::MarketInvertedRange,
        ErrorCode::MarketBadAsset,
        ErrorCode::MarketBadAddress,
        ErrorCode::MarketWalletRequired,
        ErrorCode::MarketPairSize,
        ErrorCode::MarketBadBody,
        ErrorCode::MarketValueOutOfRange,
        ErrorCode::CoinNotFound,
        ErrorCode::MarketPoolNotFound,
        ErrorCode::AffiliateNotFound,
        ErrorCode::ReferrerNotFound,
        ErrorCode::PositionNotFound,
        ErrorCode::MarketUnavailable,
        ErrorCode::MarketStoreFailed,
    ];

    /// The numeric code on the wire.
    pub fn code(self) -> i32 {
        // A fieldless `repr(i32)` enum: the cast reads the discriminant, nothing is truncated.
        self as i32
    }

    /// The HTTP status that goes with the code.
    pub fn status(self) -> u16 {
        match self {
            ErrorCode::BodyTooLarge => 413,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::BodyTimeout => 408,
            ErrorCode::Unauthorized => 401,
            ErrorCode::AdminDisabled => 403,
            ErrorCode::RateLimited => 429,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::SwapUnavailable => 501,
            ErrorCode::RoutingTimeout
            | ErrorCode::Overloaded
            | ErrorCode::AnswerBudgetSpent
            | ErrorCode::TooManyConnections
            | ErrorCode::TooManyConnectionsFromClient => 503,
            ErrorCode::MarketUnavailable => 404,
            c if c.code() >= 6000 => match c.code() / 100 {
                60..=63 => 400,
                64 => 404,
                _ => 500,
            },
            c => match c.code() / 1000 {
                1 => 400,
                2 => 404,
                3 => 422,
                _ => 500,
            },
        }
    }
}

/// An error answer: the spec's `{code, message}` and its HTTP status, both derived from the [`ErrorCode`]
/// (built from the kind only, so the status, the code and the kind cannot disagree), with the core error it
/// was mapped from, when there is one, as its [`std::error::Error::source`].
#[derive(Debug, Clone)]
pub struct ApiError {
    kind: ErrorCode,
    message: String,
    source: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {}, HTTP {})", self.message, self.code(), self.status())
    }
}

impl std::error::Error for ApiError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Two errors are equal when they say the same to the client (kind and message); the source is not compared.
impl PartialEq for ApiError {
    fn eq(&self, other: &ApiError) -> bool {
        self.kind == other.kind && self.message == other.message
    }
}

impl Eq for ApiError {}

/// The wire form of an error: the spec's Error object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ErrorBody {
    /// Stable numeric code.
    pub code: i32,
    /// Human-readable message.
    pub message: String,
}

impl ApiError {
    /// An error of the given kind.
    pub fn new(kind: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { kind, message: message.into(), source: None }
    }

    /// An error about one request field: the message starts with the field's path.
    pub fn field(kind: ErrorCode, field: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError::new(kind, format!("field `{field}`: {message}"))
    }

    /// The same error, keeping `source` (the core error it was mapped from) for logs and callers.
    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> ApiError {
        self.source = Some(Arc::new(source));
        self
    }

    /// The variant.
    pub fn kind(&self) -> ErrorCode {
        self.kind
    }

    /// HTTP status (400, 404, 405, 422, 500, 501, 503), from the kind.
    pub fn status(&self) -> u16 {
        self.kind.status()
    }

    /// Stable numeric code (see [`ErrorCode`] and the README's "Error codes"), from the kind.
    pub fn code(&self) -> i32 {
        self.kind.code()
    }

    /// Human-readable message; names the offending field for input errors.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The `{code, message}` body.
    pub fn body(&self) -> ErrorBody {
        ErrorBody { code: self.code(), message: self.message.clone() }
    }

    /// The body as JSON text.
    pub fn to_json(&self) -> String {
        // Serialising a struct of an integer and a string cannot fail.
        serde_json::to_string(&self.body()).unwrap_or_else(|_| String::from("{}"))
    }
}

/// The accepted range of a bounded request field as messages print it, from the core's limits
/// ([`QuoteRequest`]'s constants); empty for other kinds.
pub(crate) fn limit_range(kind: ErrorCode) -> String {
    match kind {
        ErrorCode::MaxSplitsOutOfRange => format!("{}..={}", QuoteRequest::MIN_SPLITS, QuoteRequest::MAX_SPLITS),
        ErrorCode::MaxLengthOutOfRange => format!("{}..={}", QuoteRequest::MIN_LENGTH, QuoteRequest::MAX_LENGTH),
        ErrorCode::SlippageOutOfRange => format!("0..={}", QuoteRequest::MAX_SLIPPAGE_BPS),
        _ => String::new(),
    }
}

fn out_of_range(kind: ErrorCode, field: &str, value: impl std::fmt::Display) -> ApiError {
    ApiError::field(kind, field, format!("{value} is out of range {}", limit_range(kind)))
}

/// A quote request's error, naming the request field it is about.
impl From<RouteError> for ApiError {
    fn from(e: RouteError) -> ApiError {
        use ErrorCode as C;
        let error = match &e {
            RouteError::UnknownAsset { .. } => ApiError::new(C::UnknownAsset, e.to_string()),
            RouteError::SameAsset { asset } => {
                ApiError::field(C::SameAsset, "out_minter", format!("same asset as `in_minter` ({asset})"))
            }
            RouteError::ZeroAmount => ApiError::field(C::ZeroAmount, "amount", "must be positive"),
            RouteError::AmountTooLarge { amount } => ApiError::field(
                C::AmountTooLarge,
                "amount",
                format!("`{amount}` is not below 2^120 (the chain's Coins limit)"),
            ),
            RouteError::MaxSplitsOutOfRange { value } => out_of_range(C::MaxSplitsOutOfRange, "max_splits", value),
            RouteError::MaxLengthOutOfRange { value } => out_of_range(C::MaxLengthOutOfRange, "max_length", value),
            RouteError::SlippageOutOfRange { value } => out_of_range(C::SlippageOutOfRange, "slippage_bps", value),
            RouteError::NoPath { .. } | RouteError::NoRoute { .. } => ApiError::new(C::NoRoute, e.to_string()),
            RouteError::AmountRefused { .. } => ApiError::new(C::AmountRefused, e.to_string()),
            RouteError::OutputUnreachable { .. } => ApiError::new(C::OutputUnreachable, e.to_string()),
            RouteError::BudgetExhausted => ApiError::new(C::RoutingTimeout, e.to_string()),
            // RouteError is non-exhaustive: a variant added later is an internal error until it is mapped.
            #[allow(unreachable_patterns)]
            _ => ApiError::new(C::Internal, e.to_string()),
        };
        error.with_source(e)
    }
}

/// A reserve update's error.
impl From<GraphError> for ApiError {
    fn from(e: GraphError) -> ApiError {
        let kind = match &e {
            GraphError::UnknownPool { .. } => ErrorCode::UnknownPool,
            GraphError::ReserveTooLarge { .. } => ErrorCode::AmountTooLarge,
            GraphError::BadField { .. } => ErrorCode::BadPoolState,
            _ => ErrorCode::Internal,
        };
        ApiError::new(kind, e.to_string()).with_source(e)
    }
}

/// The API error of a [`SwapError`] from checking or building `data` (the request's `swap_data`): input
/// problems name the field (`swap_data.routes[0][1].in_amount`) with the README's code.
pub fn swap_error(e: SwapError, data: &SwapData) -> ApiError {
    use ErrorCode as C;
    const ROUTES: &str = "swap_data.routes";
    let route = |r: &usize| format!("{ROUTES}[{r}]");
    let step = |r: &usize, s: &usize, field: &str| match field {
        "" => format!("{ROUTES}[{r}][{s}]"),
        f => format!("{ROUTES}[{r}][{s}].{f}"),
    };
    // Which extra details a step of `swap_data` carries, by its protocol.
    let details = |r: &usize, s: &usize| match data.routes.get(*r).and_then(|x| x.get(*s)).map(|x| x.protocol) {
        Some(Protocol::DexC) => "dex_c_extra_details",
        _ => "dex_b_extra_details",
    };
    let error = match &e {
        SwapError::SlippageOutOfRange { slippage_bps } => {
            out_of_range(C::SlippageOutOfRange, "swap_data.slippage_bps", slippage_bps)
        }
        SwapError::BadSender { .. } => ApiError::field(C::BadAddress, "sender_address", &e),
        SwapError::BadAddress { .. } | SwapError::UnsupportedWorkchain { .. } => {
            ApiError::new(C::BadAddress, e.to_string())
        }
        SwapError::EmptySwapData => ApiError::field(C::InconsistentSwapData, ROUTES, "no routes"),
        SwapError::TooManyRoutes { routes, max } => {
            ApiError::field(C::InconsistentSwapData, ROUTES, format!("{routes} routes; at most {max}"))
        }
        SwapError::EmptyRoute { route: r } => ApiError::field(
            C::InconsistentSwapData,
            &route(r),
            format!("0 steps; a route has 1..={}", tonroute_core::swap::build::MAX_STEPS),
        ),
        SwapError::RouteTooLong { route: r, steps, max } => {
            ApiError::field(C::InconsistentSwapData, &route(r), format!("{steps} steps; a route has 1..={max}"))
        }
        SwapError::StepAmountOutOfRange { route: r, step: s, field, amount: 0 } => {
            ApiError::field(C::ZeroAmount, &step(r, s, field), "must be positive")
        }
        SwapError::StepAmountOutOfRange { route: r, step: s, field, amount } => ApiError::field(
            C::AmountTooLarge,
            &step(r, s, field),
            format!("`{amount}` is not below 2^120 (the chain's Coins limit)"),
        ),
        SwapError::StepSameAsset { route: r, step: s, asset } => {
            ApiError::field(C::SameAsset, &step(r, s, "out_minter"), format!("same asset as `in_minter` ({asset})"))
        }
        SwapError::UnexpectedStepDetails { route: r, step: s, protocol, details } => ApiError::field(
            C::InconsistentSwapData,
            &step(r, s, &format!("{details}_extra_details")),
            format!("not allowed on a `{protocol}` step"),
        ),
        SwapError::BrokenChain { route: r, step: s, expected, found } => ApiError::field(
            C::InconsistentSwapData,
            &step(r, s, "in_minter"),
            format!("{found} does not continue the previous step's out_minter {expected}"),
        ),
        SwapError::AmountsDoNotChain { route: r, step: s, expected, found } => ApiError::field(
            C::InconsistentSwapData,
            &step(r, s, "in_amount"),
            format!("{found} differs from the previous step's out_amount {expected}"),
        ),
        SwapError::MixedAssets { route: r, expected_in, expected_out, found_in, found_out } => ApiError::field(
            C::InconsistentSwapData,
            &route(r),
            format!(
                "swaps a different pair of assets than routes[0] ({found_in} → {found_out}, not {expected_in} → \
                 {expected_out})"
            ),
        ),
        SwapError::SameAssetInOut { .. } => ApiError::field(C::SameAsset, ROUTES, &e),
        SwapError::UnknownPool { route: r, step: s, pool } => {
            ApiError::field(C::UnknownPool, &step(r, s, "pool_address"), format!("unknown pool {pool}"))
        }
        SwapError::PoolsNotInGraph { route: r, step: s, pool, pools } => ApiError::field(
            C::UnknownPool,
            &step(r, s, "pool_address"),
            format!(
                "unknown pool {pool}: {} — it was quoted on another snapshot; swap with the snapshot the quote was \
                 made on, or quote again on this one",
                if *pools == 1 {
                    "the pool of swap_data is not in this snapshot".to_string()
                } else {
                    format!("none of the {pools} pools of swap_data is in this snapshot")
                }
            ),
        ),
        SwapError::QuotedElsewhere { route: r, step: s, pool } => ApiError::field(
            C::SwapDataMismatch,
            &step(r, s, "quote_only"),
            format!(
                "the quote marked pool {pool} quote-only, but this snapshot can swap it: swap_data was quoted on \
                 another snapshot; quote again on this one"
            ),
        ),
        SwapError::QuoteOnlyPool { route: r, step: s, pool, blocker, carried } => ApiError::field(
            C::SwapRefused,
            &step(r, s, "pool_address"),
            format!(
                "pool {pool} is quote-only in this snapshot: it can be quoted, but its swap message cannot be built, \
                 because {blocker}{}",
                if *carried {
                    "; the step carries router addresses, so swap_data was quoted on another snapshot: swap with that \
                     one"
                } else {
                    "; `tonroute import` could not derive them offline (its report says why): read the pool from the \
                     chain with `tonroute sync`, or give them in the snapshot"
                }
            ),
        ),
        SwapError::ProtocolMismatch { route: r, step: s, claimed, actual, .. } => ApiError::field(
            C::SwapDataMismatch,
            &step(r, s, "protocol_slug"),
            format!("the pool is `{actual}`, not `{claimed}`"),
        ),
        SwapError::PoolMismatch { route: r, step: s, in_asset, out_asset, is_stable, pool_assets, .. } => {
            let [a0, a1] = &**pool_assets;
            let assets_match = (in_asset == a0 && out_asset == a1) || (in_asset == a1 && out_asset == a0);
            if assets_match {
                let field = step(r, s, "is_stable");
                ApiError::field(C::SwapDataMismatch, &field, format!("the pool's is_stable is {}", !is_stable))
            } else {
                ApiError::field(
                    C::SwapDataMismatch,
                    &step(r, s, "in_minter"),
                    format!("the pool trades {a0} and {a1}, not {in_asset} → {out_asset}"),
                )
            }
        }
        SwapError::MissingStepDetails { route: r, step: s, .. } => ApiError::field(
            C::SwapDataMismatch,
            &step(r, s, details(r, s)),
            "missing; the step must carry the pool's router addresses (a quote on this snapshot gives them: was \
             swap_data quoted on another snapshot?)",
        ),
        SwapError::StepDetailsMismatch { route: r, step: s, field, .. } => ApiError::field(
            C::SwapDataMismatch,
            &step(r, s, details(r, s)),
            format!(
                "does not match the pool in the graph (`{field}` differs): swap_data was altered or quoted on another \
                 snapshot; quote again on this one"
            ),
        ),
        SwapError::HandOffRefused { route: r, step: s, reason } => ApiError::field(
            C::SwapDataMismatch,
            &step(r, s, ""),
            format!("this pool cannot follow the previous step in one message: {reason}"),
        ),
        SwapError::SimulationFailed { .. } => {
            ApiError::new(C::StaleQuote, format!("a fresh simulation of swap_data refuses it ({e}); quote again"))
        }
        SwapError::PriceMoved { route: r, quoted_out, min_out, fresh_out } => ApiError::new(
            C::StaleQuote,
            format!(
                "route {r}: the pools now give {fresh_out}, below the min-out {min_out} (quoted {quoted_out}, \
                 slippage {} bps); quote again",
                data.slippage_bps
            ),
        ),
        SwapError::AmountTooLarge { .. } => ApiError::new(C::AmountTooLarge, e.to_string()),
        SwapError::Cell { .. } => ApiError::new(C::Internal, e.to_string()),
        _ => ApiError::new(C::SwapRefused, e.to_string()),
    };
    error.with_source(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_statuses_follow_groups() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ErrorCode::ALL {
            seen.insert(c.code());
            assert!(matches!(c.status(), 400 | 401 | 403 | 404 | 405 | 408 | 413 | 415 | 422 | 429 | 500 | 501 | 503));
        }
        assert_eq!(seen.len(), ErrorCode::ALL.len());
        assert_eq!(ErrorCode::NoRoute.status(), 422);
        assert_eq!(ErrorCode::UnknownPool.status(), 404);
        assert_eq!(ErrorCode::BadAmount.status(), 400);
        assert_eq!(ErrorCode::Internal.status(), 500);
        assert_eq!(ErrorCode::MarketBadParameter.status(), 400);
        assert_eq!(ErrorCode::MarketValueOutOfRange.status(), 400);
        assert_eq!(ErrorCode::CoinNotFound.status(), 404);
        assert_eq!(ErrorCode::ReferrerNotFound.status(), 404);
        // No market data on this server is a configuration state: 404, the code keeping its number.
        assert_eq!(ErrorCode::MarketUnavailable.status(), 404);
        assert_eq!(ErrorCode::AnswerBudgetSpent.status(), 503);
        assert_eq!(ErrorCode::TooManyConnectionsFromClient.status(), 503);
        assert_eq!(ErrorCode::MarketStoreFailed.status(), 500);
        assert_eq!(ErrorCode::BodyTooLarge.status(), 413);
        assert_eq!(ErrorCode::UnsupportedMediaType.status(), 415);
        assert_eq!(ErrorCode::Unauthorized.status(), 401);
        assert_eq!(ErrorCode::AdminDisabled.status(), 403);
        assert_eq!(ErrorCode::RateLimited.status(), 429);
        assert_eq!(ErrorCode::TooManyConnections.status(), 503);
    }
}
