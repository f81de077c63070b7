//! Why a market request got no answer, and the one mapping of every such reason to the spec's
//! `{code, message}` with its status: a request whose text does not parse ([`QueryError`]), a query the domain
//! refuses ([`MarketError`]), or a name that names nothing ([`NotFound`]).
//!
//! Owns the `60xx`–`64xx` codes of the market routes (the README's "Error codes" table); the messages are the
//! errors' own `Display`, so a message is written once, beside the condition it describes. On the wire a
//! message repeats at most [`ECHO_CHARS`] characters of any one piece of the request (the rest is `…`), and
//! is at most [`MAX_MESSAGE_CHARS`] long: a 60 KB parameter is not sent back.

use crate::{ApiError, ErrorCode};
use tonroute_core::asset::{AddressError, AssetError};
use tonroute_core::json::JsonError;

/// The most characters of one piece of the request (a parameter's name or value, a path segment) that an
/// error message repeats.
pub const ECHO_CHARS: usize = 64;

/// The longest error message, in characters (a bound for what the pieces' own sources may quote).
pub const MAX_MESSAGE_CHARS: usize = 400;

/// `text` cut after `max` characters, with `…` when cut.
fn cut(text: &mut String, max: usize) {
    if let Some((end, _)) = text.char_indices().nth(max) {
        text.truncate(end);
        text.push('…');
    }
}

fn clip(text: &mut String) {
    cut(text, ECHO_CHARS);
}

fn clip_asset(e: &mut AssetError) {
    match e {
        AssetError::MalformedJetton { input }
        | AssetError::Unrecognised { input }
        | AssetError::UnsupportedWorkchain { input, .. }
        | AssetError::Whitespace { input, .. } => clip(input),
        AssetError::BadAddress(a) => clip(&mut a.input),
        _ => {}
    }
}
use tonroute_market::types::DecimalError;
use tonroute_market::MarketError;

/// A market request whose text does not parse: query-string syntax, a value of the wrong format, an asset id
/// or address that does not parse, a body that is not the operation's JSON object.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QueryError {
    /// `%` not followed by two hex digits.
    #[error("bad percent-encoding in `{text}`")]
    PercentEncoding {
        /// The encoded text.
        text: String,
    },
    /// Percent-decoded bytes that are not UTF-8.
    #[error("`{text}` is not UTF-8 once decoded")]
    NotUtf8 {
        /// The encoded text.
        text: String,
    },
    /// A parameter given twice (the second could only be ignored or guessed at).
    #[error("parameter `{name}` is given more than once")]
    Repeated {
        /// The parameter.
        name: String,
    },
    /// A parameter the operation does not know (a misspelt optional one would otherwise be silently defaulted).
    #[error("unknown parameter `{name}` for this operation")]
    Unknown {
        /// The parameter.
        name: String,
    },
    /// A required parameter absent or empty.
    #[error("parameter `{name}` is required")]
    Missing {
        /// The parameter.
        name: &'static str,
    },
    /// Not `true` or `false`.
    #[error("parameter `{name}`: `{text}` is not a boolean (true or false)")]
    NotBoolean {
        /// The parameter.
        name: &'static str,
        /// Its text.
        text: String,
    },
    /// Not a 32-bit integer.
    #[error("parameter `{name}`: `{text}` is not an int32")]
    NotInt32 {
        /// The parameter.
        name: &'static str,
        /// Its text.
        text: String,
    },
    /// Not one of an enumeration's values.
    #[error("parameter `{name}`: `{text}` is not one of {allowed}")]
    NotOneOf {
        /// The parameter.
        name: &'static str,
        /// Its text.
        text: String,
        /// The values accepted, comma-separated.
        allowed: String,
    },
    /// A verification level outside [`tonroute_market::limits::VERIFICATION_LEVELS`].
    #[error("parameter `filter_by_verification_level`: `{text}` is not a level 1 to 4")]
    NotVerificationLevel {
        /// The item's text.
        text: String,
    },
    /// Not an RFC 3339 date-time.
    #[error("parameter `{name}`: `{text}` is not an RFC 3339 date-time ({source})")]
    NotDateTime {
        /// The parameter.
        name: &'static str,
        /// Its text.
        text: String,
        /// Why.
        source: time::error::Parse,
    },
    /// Not a LargeInteger or LargeFloat.
    #[error("parameter `{name}`: {source}")]
    NotDecimal {
        /// The parameter.
        name: &'static str,
        /// Why.
        source: DecimalError,
    },
    /// A LargeInteger beyond 128 bits.
    #[error("parameter `{name}`: `{text}` does not fit 128 bits")]
    TooLarge {
        /// The parameter.
        name: &'static str,
        /// Its text.
        text: String,
    },
    /// A comma-separated list with an empty item.
    #[error("parameter `{name}`: `{text}` has an empty item")]
    EmptyItem {
        /// The parameter.
        name: &'static str,
        /// Its text.
        text: String,
    },
    /// `pair_pools` that is not a JSON list of PairPoolsRequest objects.
    #[error("parameter `pair_pools`: {source}")]
    PairPoolsJson {
        /// Why, with the failing field's path.
        source: JsonError,
    },
    /// An asset id that does not parse.
    #[error("parameter `{name}`: `{text}`: {source}")]
    BadAsset {
        /// Where (a parameter, or a body field such as `pair_pools[0].assets`).
        name: String,
        /// Its text.
        text: String,
        /// Why.
        source: AssetError,
    },
    /// An address that does not parse.
    #[error("parameter `{name}`: {source}")]
    BadAddress {
        /// The parameter.
        name: &'static str,
        /// Why.
        source: AddressError,
    },
    /// An affiliate path segment that is neither an address nor an account id.
    #[error("`{text}` is neither an address nor an affiliate account id")]
    BadAccountKey {
        /// The segment.
        text: String,
    },
    /// An asset pair that is not exactly two assets.
    #[error("`{name}` must have exactly 2 assets, not {got}")]
    PairSize {
        /// Where the pair was given.
        name: String,
        /// How many assets it had.
        got: usize,
    },
    /// A pool type the listings do not know.
    #[error("`filter_by_type`: `{text}` is not cpmm_v1, cpmm_v2, stable or concentrated")]
    BadPoolType {
        /// The type's text.
        text: String,
    },
    /// A pool tag other than `boosted`.
    #[error("`tags`: `{text}` is not supported (supported: boosted)")]
    UnsupportedTag {
        /// The tag.
        text: String,
    },
    /// A request body that is not the operation's JSON object.
    #[error("request body: {source}")]
    BadBody {
        /// Why, with the failing field's path.
        source: JsonError,
    },
}

/// A name in the request that names nothing in the data (404). The message repeats the name as it was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotFound {
    /// `/coin`, `/coins/{asset}/resolver`: the coin is not listed.
    #[error("coin {asset} not found")]
    Coin {
        /// The asset id (canonical form).
        asset: String,
    },
    /// `/coin_transactions`: the coin is not listed.
    #[error("asset {asset} not found")]
    CoinTrades {
        /// The asset id (canonical form).
        asset: String,
    },
    /// `/pools/{address}`: no such pool.
    #[error("pool {address} not found")]
    Pool {
        /// The address as sent.
        address: String,
    },
    /// The affiliate routes: no account by that id or address.
    #[error("no affiliate account `{key}`")]
    Affiliate {
        /// The id or address as sent.
        key: String,
    },
    /// `/asset`: no asset with this id in the snapshot (code 6400).
    #[error("asset {id} not found")]
    FeedAsset {
        /// The id as sent.
        id: String,
    },
    /// `/pair`: no pool with this address, or one without any event (code 6401).
    #[error("pair {id} not found")]
    Pair {
        /// The id as sent.
        id: String,
    },
    /// `/latest-block`: the store holds no event yet (code 6401).
    #[error("no block: the market store holds no event yet")]
    NoBlock,
    /// `/wallets/{address}/liquidity_positions/{pool_address}`: the wallet holds no LP in the pool, or there is no
    /// such pool (code 6404).
    #[error("wallet {wallet} has no liquidity position in pool {pool}")]
    Position {
        /// The wallet as sent.
        wallet: String,
        /// The pool as sent.
        pool: String,
    },
    /// `/affiliate/{wallet}/referrer`: no account referred the wallet (or the text is no wallet).
    #[error("wallet `{wallet}` has no referrer")]
    Referrer {
        /// The wallet as sent.
        wallet: String,
    },
}

/// Why a market request got no answer.
#[derive(Debug, thiserror::Error)]
pub enum MarketFailure {
    /// The request's text does not parse.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// The domain refuses the query.
    #[error(transparent)]
    Market(#[from] MarketError),
    /// A name that names nothing.
    #[error(transparent)]
    NotFound(#[from] NotFound),
}

impl MarketFailure {
    /// The code of each reason: the one place where market errors meet the wire's codes.
    pub fn code(&self) -> ErrorCode {
        match self {
            MarketFailure::Query(e) => match e {
                QueryError::PercentEncoding { .. }
                | QueryError::NotUtf8 { .. }
                | QueryError::NotBoolean { .. }
                | QueryError::NotInt32 { .. }
                | QueryError::NotOneOf { .. }
                | QueryError::NotVerificationLevel { .. }
                | QueryError::NotDateTime { .. }
                | QueryError::NotDecimal { .. }
                | QueryError::TooLarge { .. }
                | QueryError::EmptyItem { .. }
                | QueryError::PairPoolsJson { .. } => ErrorCode::MarketBadParameter,
                QueryError::Unknown { .. } => ErrorCode::MarketUnknownParameter,
                QueryError::Missing { .. } => ErrorCode::MarketMissingParameter,
                QueryError::Repeated { .. } => ErrorCode::MarketDuplicateParameter,
                QueryError::BadAsset { .. } => ErrorCode::MarketBadAsset,
                QueryError::BadAddress { .. } | QueryError::BadAccountKey { .. } => ErrorCode::MarketBadAddress,
                QueryError::PairSize { .. } => ErrorCode::MarketPairSize,
                QueryError::BadBody { .. } => ErrorCode::MarketBadBody,
                QueryError::BadPoolType { .. } | QueryError::UnsupportedTag { .. } => ErrorCode::MarketValueOutOfRange,
            },
            MarketFailure::Market(e) => match e {
                MarketError::LimitOutOfRange { .. } => ErrorCode::MarketLimitOutOfRange,
                MarketError::OffsetOutOfRange { .. } => ErrorCode::MarketOffsetOutOfRange,
                MarketError::FilterPeriodRequired | MarketError::SortPeriodRequired => ErrorCode::MarketPeriodRequired,
                MarketError::InvertedBounds { .. } | MarketError::InvertedAmounts { .. } => {
                    ErrorCode::MarketInvertedRange
                }
                MarketError::WalletRequired { .. } => ErrorCode::MarketWalletRequired,
                MarketError::PercentageOutOfRange { .. }
                | MarketError::EqualAssets { .. }
                | MarketError::OppositeIsAsset
                | MarketError::AssetNotInPool { .. }
                | MarketError::BlockOutOfRange { .. }
                | MarketError::TooManyBlocks { .. } => ErrorCode::MarketValueOutOfRange,
                MarketError::Store(_) => ErrorCode::MarketStoreFailed,
            },
            MarketFailure::NotFound(e) => match e {
                NotFound::Coin { .. } | NotFound::CoinTrades { .. } => ErrorCode::CoinNotFound,
                NotFound::Pool { .. } | NotFound::Pair { .. } | NotFound::NoBlock => ErrorCode::MarketPoolNotFound,
                NotFound::FeedAsset { .. } => ErrorCode::CoinNotFound,
                NotFound::Affiliate { .. } => ErrorCode::AffiliateNotFound,
                NotFound::Referrer { .. } => ErrorCode::ReferrerNotFound,
                NotFound::Position { .. } => ErrorCode::PositionNotFound,
            },
        }
    }
}

impl MarketFailure {
    /// The same refusal with every piece of the request it repeats cut to [`ECHO_CHARS`].
    fn clipped(mut self) -> MarketFailure {
        match &mut self {
            MarketFailure::Query(q) => match q {
                QueryError::PercentEncoding { text }
                | QueryError::NotUtf8 { text }
                | QueryError::NotBoolean { text, .. }
                | QueryError::NotInt32 { text, .. }
                | QueryError::NotOneOf { text, .. }
                | QueryError::NotVerificationLevel { text }
                | QueryError::NotDateTime { text, .. }
                | QueryError::TooLarge { text, .. }
                | QueryError::EmptyItem { text, .. }
                | QueryError::BadAccountKey { text }
                | QueryError::BadPoolType { text }
                | QueryError::UnsupportedTag { text } => clip(text),
                QueryError::Repeated { name } | QueryError::Unknown { name } | QueryError::PairSize { name, .. } => {
                    clip(name)
                }
                QueryError::BadAsset { name, text, source } => {
                    clip(name);
                    clip(text);
                    clip_asset(source);
                }
                QueryError::BadAddress { source, .. } => clip(&mut source.input),
                QueryError::NotDecimal { source, .. } => match source {
                    DecimalError::NotInteger { value } | DecimalError::NotFloat { value } => clip(value),
                },
                QueryError::Missing { .. } | QueryError::PairPoolsJson { .. } | QueryError::BadBody { .. } => {}
            },
            MarketFailure::NotFound(n) => match n {
                NotFound::Coin { asset } | NotFound::CoinTrades { asset } => clip(asset),
                NotFound::Pool { address } => clip(address),
                NotFound::Affiliate { key } => clip(key),
                NotFound::FeedAsset { id } | NotFound::Pair { id } => clip(id),
                NotFound::Position { wallet, pool } => {
                    clip(wallet);
                    clip(pool);
                }
                NotFound::Referrer { wallet } => clip(wallet),
                NotFound::NoBlock => {}
            },
            MarketFailure::Market(_) => {}
        }
        self
    }
}

/// The refusal as the wire says it (code, status, the refusal's own message with the request's pieces cut
/// short), keeping it as the source.
impl From<MarketFailure> for ApiError {
    fn from(e: MarketFailure) -> ApiError {
        let e = e.clipped();
        let mut message = e.to_string();
        cut(&mut message, MAX_MESSAGE_CHARS);
        ApiError::new(e.code(), message).with_source(e)
    }
}

impl From<QueryError> for ApiError {
    fn from(e: QueryError) -> ApiError {
        MarketFailure::from(e).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonroute_market::types::PoolSortBy;

    fn code(e: impl Into<MarketFailure>) -> (u16, i32) {
        let e = ApiError::from(e.into());
        (e.status(), e.code())
    }

    #[test]
    fn each_refusal_has_the_readme_code() {
        let q = |e: QueryError| code(e);
        assert_eq!(q(QueryError::PercentEncoding { text: "%".into() }), (400, 6000));
        assert_eq!(q(QueryError::NotBoolean { name: "compact", text: "yes".into() }), (400, 6000));
        assert_eq!(q(QueryError::Unknown { name: "x".into() }), (400, 6001));
        assert_eq!(q(QueryError::Missing { name: "asset" }), (400, 6002));
        assert_eq!(q(QueryError::Repeated { name: "limit".into() }), (400, 6003));
        assert_eq!(code(MarketError::LimitOutOfRange { value: 0, min: 1, max: 5 }), (400, 6004));
        assert_eq!(code(MarketError::OffsetOutOfRange { value: -1 }), (400, 6005));
        assert_eq!(code(MarketError::SortPeriodRequired), (400, 6006));
        assert_eq!(code(MarketError::FilterPeriodRequired), (400, 6006));
        assert_eq!(code(MarketError::InvertedBounds { min_field: "a", max_field: "b" }), (400, 6007));
        let bad_asset = tonroute_core::asset::Asset::parse("bogus").unwrap_err();
        assert_eq!(
            q(QueryError::BadAsset { name: "asset".into(), text: "bogus".into(), source: bad_asset }),
            (400, 6008)
        );
        assert_eq!(q(QueryError::BadAccountKey { text: "bad id!".into() }), (400, 6009));
        assert_eq!(code(MarketError::WalletRequired { sort_by: PoolSortBy::ValueUsd }), (400, 6010));
        assert_eq!(q(QueryError::PairSize { name: "assets".into(), got: 1 }), (400, 6011));
        let body = tonroute_core::json::from_str::<serde_json::Value>("{").unwrap_err();
        assert_eq!(q(QueryError::BadBody { source: body }), (400, 6012));
        assert_eq!(code(MarketError::OppositeIsAsset), (400, 6013));
        assert_eq!(q(QueryError::UnsupportedTag { text: "hot".into() }), (400, 6013));
        assert_eq!(code(NotFound::Coin { asset: "native".into() }), (404, 6400));
        assert_eq!(code(NotFound::Pool { address: "0:00".into() }), (404, 6401));
        assert_eq!(code(NotFound::Affiliate { key: "x".into() }), (404, 6402));
        assert_eq!(code(NotFound::Referrer { wallet: "x".into() }), (404, 6403));
        assert_eq!(code(NotFound::Position { wallet: "x".into(), pool: "y".into() }), (404, 6404));
    }

    #[test]
    fn a_long_input_is_echoed_as_a_short_prefix() {
        let long = "x".repeat(60_000);
        let e = ApiError::from(QueryError::NotInt32 { name: "limit", text: long.clone() });
        assert_eq!(e.message(), format!("parameter `limit`: `{}…` is not an int32", "x".repeat(ECHO_CHARS)));
        let e = ApiError::from(QueryError::Unknown { name: long.clone() });
        assert!(e.message().chars().count() < 120, "{}", e.message());
        let e = ApiError::from(MarketFailure::from(NotFound::Pool { address: long.clone() }));
        assert!(e.message().chars().count() < 100, "{}", e.message());
        let asset = tonroute_core::asset::Asset::parse(&long).unwrap_err();
        let e = ApiError::from(QueryError::BadAsset { name: "asset".into(), text: long, source: asset });
        assert!(e.message().chars().count() <= MAX_MESSAGE_CHARS + 1, "{}", e.message());
        assert!(e.message().len() < 600, "{}", e.message());
    }

    #[test]
    fn messages_are_the_errors_own() {
        let e = ApiError::from(MarketFailure::from(MarketError::InvertedAmounts {
            name: "volume_usd",
            min: 5.0,
            max: 1.0,
            strict: true,
        }));
        assert_eq!(e.message(), "`volume_usd_min` (5) must be less than `volume_usd_max` (1)");
        let e = ApiError::from(QueryError::Repeated { name: "limit".into() });
        assert_eq!(e.message(), "parameter `limit` is given more than once");
        // The refusal travels on as the source, for logs and library callers.
        let source = std::error::Error::source(&e).expect("the refusal");
        assert!(source.downcast_ref::<MarketFailure>().is_some_and(|f| matches!(f, MarketFailure::Query(_))));
    }
}
