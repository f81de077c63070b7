//! Why a graph or an update was refused: [`GraphError`] (errors about a pool name it) and [`FieldError`], the
//! reason a field of a pool did not check.
//!
//! Owns the error types. Must not build or read a graph.

/// Why a graph or an update was refused. Errors about a pool name it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum GraphError {
    /// An asset listed twice.
    #[error("asset {asset} is listed twice")]
    DuplicateAsset {
        /// The asset.
        asset: String,
    },
    /// An asset id that does not parse.
    #[error("asset `{asset}`: {source}")]
    BadAsset {
        /// The text.
        asset: String,
        /// Why.
        source: crate::asset::AssetError,
    },
    /// Two pools with one address.
    #[error("pool {pool}: duplicate pool address")]
    DuplicatePool {
        /// The pool address.
        pool: String,
    },
    /// A pool naming an asset that the snapshot does not list.
    #[error("pool {pool}: unknown asset {asset}")]
    UnknownAsset {
        /// The pool address.
        pool: String,
        /// The asset.
        asset: String,
    },
    /// A pool whose two assets are the same.
    #[error("pool {pool}: both assets are {asset}")]
    SameAssets {
        /// The pool address.
        pool: String,
        /// The asset.
        asset: String,
    },
    /// A reserve at or above 2^120.
    #[error("pool {pool}: reserve {value} is not below 2^120")]
    ReserveTooLarge {
        /// The pool address.
        pool: String,
        /// The reserve.
        value: String,
    },
    /// A field with a value that does not parse or is out of range.
    #[error("pool {pool}: field `{field}`: {reason}")]
    BadField {
        /// The pool address (or `-` for snapshot-level fields).
        pool: String,
        /// The field.
        field: &'static str,
        /// Why, in words (the source's text when there is one).
        reason: String,
        /// The parser's or the pool math's error, when the refusal comes from one.
        #[source]
        source: Option<FieldError>,
    },
    /// A curve the protocol does not run (e.g. stable swap on `dex_b_v1`) or that we do not support yet.
    #[error("pool {pool}: protocol {protocol} has no curve `{curve}`")]
    UnsupportedCurve {
        /// The pool address.
        pool: String,
        /// The protocol slug.
        protocol: String,
        /// The curve name.
        curve: String,
    },
    /// An update naming a pool the graph does not have.
    #[error("unknown pool {pool}")]
    UnknownPool {
        /// The pool address or id.
        pool: String,
    },
    /// An asset's jetton-wallet derivation data (`wallet`) that is unusable.
    #[error("asset {asset}: field `wallet`: {reason}")]
    BadWalletSpec {
        /// The asset.
        asset: String,
        /// Why, in words (with the source's text when there is one).
        reason: String,
        /// The wallet code's decoding error, when that is why.
        #[source]
        source: Option<crate::error::Shared<crate::chain::boc::BocError>>,
    },
    /// More than 2^32 assets or pools.
    #[error("graph too large")]
    TooLarge,
    /// The snapshot is not valid JSON, not an object, or a field does not read (the error names its path).
    #[cfg(feature = "serde")]
    #[error("snapshot: {0}")]
    Json(#[source] crate::error::Shared<crate::json::JsonError>),
}

/// The error under a refused field ([`GraphError::BadField`]). Each is boxed so that [`GraphError`], which
/// every graph update returns, stays small.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldError {
    /// An address that does not parse.
    #[error(transparent)]
    Address(Box<crate::asset::AddressError>),
    /// An asset id that does not parse.
    #[error(transparent)]
    Asset(Box<crate::asset::AssetError>),
    /// A pool (state) the contract math refuses.
    #[error(transparent)]
    Pool(Box<crate::pool::PoolError>),
}

impl From<crate::asset::AddressError> for FieldError {
    fn from(e: crate::asset::AddressError) -> FieldError {
        FieldError::Address(Box::new(e))
    }
}

impl From<crate::asset::AssetError> for FieldError {
    fn from(e: crate::asset::AssetError) -> FieldError {
        FieldError::Asset(Box::new(e))
    }
}

impl From<crate::pool::PoolError> for FieldError {
    fn from(e: crate::pool::PoolError) -> FieldError {
        FieldError::Pool(Box::new(e))
    }
}

impl GraphError {
    /// A [`GraphError::BadField`] without an underlying error.
    pub fn bad_field(pool: impl Into<String>, field: &'static str, reason: impl Into<String>) -> GraphError {
        GraphError::BadField { pool: pool.into(), field, reason: reason.into(), source: None }
    }

    /// A [`GraphError::BadField`] caused by `source` (its text is the reason).
    pub(crate) fn field_source(
        pool: impl Into<String>,
        field: &'static str,
        source: impl Into<FieldError>,
    ) -> GraphError {
        let source = source.into();
        GraphError::BadField { pool: pool.into(), field, reason: source.to_string(), source: Some(source) }
    }
}
