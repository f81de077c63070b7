//! Pure decoders of chain payloads: TVM stacks returned by get-methods (toncenter v2 and v3 encodings),
//! account-data cells (BOC) of the exchanges' pools, and jetton-wallet address derivation.
//!
//! Owns reading bytes and JSON that come from the chain into typed pool state, exactly (integers stay
//! integers; an amount that does not fit is an error, never a rounding). Every error is a [`ChainError`] that
//! names the entry index or field and says what was expected. This module does no I/O and must not know
//! about graphs, routes or HTTP clients: fetching belongs to `sync`, mapping to snapshot pools to `import`.
//!
//! | module | what it reads |
//! |---|---|
//! | [`boc`] | bags of cells, checked structurally before `tonlib-core` builds them (library cells allowed) |
//! | [`stack`] | get-method stacks in both toncenter encodings; [`stack::StackReader`] for typed reads; one-address results (`get_wallet_address`, `get_pool_address`) |
//! | [`dex_b`] | STON.fi v1 `get_pool_data`, `get_expected_outputs`; v2 `get_pool_data`, `get_pool_type` and pool storage (four pool types); routers' `get_router_data`, `get_router_version` |
//! | [`dex_a`] | DeDust `get_reserves`, `get_trade_fee`, `get_assets`, `is_stable` |
//! | [`toncenter`] | toncenter v3 `masterchainInfo`, `transactionsByMasterchainBlock` (accounts touched), `accountStates` (data cells) |
//! | [`jetton`] | TEP-74 `get_wallet_data` (a wallet's owner and master), `get_jetton_data` (the wallet code) |
//! | [`holdings`] | toncenter v3 `jetton/wallets` (an owner's jetton balances), `accountStates` (TON balances); its own [`holdings::HoldingsError`] per field |
//! | [`dex_c`] | TONCO `getPoolStateAndConfiguration`, `getAllTickInfos` (dictionary), `getTickInfosFrom` (pages) |
//! | [`dict`] | TL-B `HashmapE` with integer keys (the tick dictionary) |
//! | [`wallet`] | jetton-wallet addresses from the StateInit hash, per verified jetton family |
//!
//! ```
//! use tonroute_core::chain::{stack::GetMethodResult, dex_b};
//! // A toncenter v3 answer to `get_reserves` would go to `dex_a::reserves`; here a v2 `get_pool_type`:
//! let r = GetMethodResult::from_json(
//!     r#"{"ok":true,"result":{"exit_code":0,"stack":[["cell",{"bytes":"te6cckEBAQEAEgAAIGNvbnN0YW50X3Byb2R1Y3Svg+BE"}]]}}"#,
//! ).unwrap();
//! assert_eq!(dex_b::pool_type(&r.stack).unwrap(), dex_b::PoolType::ConstantProduct);
//! ```

pub mod boc;
pub mod cell;
pub mod dex_a;
pub mod dex_b;
pub mod dex_c;
pub mod dict;
#[cfg(feature = "serde")]
pub mod holdings;
pub mod jetton;
pub mod stack;
#[cfg(feature = "serde")]
pub mod toncenter;
pub mod wallet;

use boc::BocError;
use cell::FieldError;

/// `at `$.a.b``: a field path written from the answer's root, as [`ChainError::Encoding`]'s paths are.
#[cfg(feature = "serde")]
fn answer_path(path: &str) -> String {
    if path.is_empty() {
        "at `$`".to_string()
    } else {
        format!("at `$.{path}`")
    }
}

/// Why a chain payload could not be decoded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChainError {
    /// The text is not JSON.
    #[cfg(feature = "serde")]
    #[error("not JSON: {source}")]
    Json {
        /// The JSON parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// An API answer without the documented shape (a field missing or of the wrong type), read through its
    /// serde-derived type: the path (`$.accounts[2].address`) and serde_json's error as data.
    #[cfg(feature = "serde")]
    #[error("{}: {}", answer_path(source.path()), source.inner())]
    Answer {
        /// The failing field's path and the reader's error.
        #[source]
        source: crate::json::JsonError,
    },
    /// The JSON is not a get-method response in a known encoding.
    #[error("at `{path}`: expected {expected}, found {found}")]
    Encoding {
        /// Where in the response (e.g. `stack[3].elements[0]`).
        path: String,
        /// What was expected there.
        expected: &'static str,
        /// What was there (shortened).
        found: String,
    },
    /// The API said the call failed (toncenter v2 `{"ok":false}`).
    #[error("the API refused the call (code {code:?}): {message}")]
    Api {
        /// The API's error code, if given.
        code: Option<i64>,
        /// The API's message.
        message: String,
    },
    /// The get-method ended with an error exit code; its stack means nothing.
    #[error("the get-method failed with TVM exit code {exit_code}")]
    ExitCode {
        /// The exit code.
        exit_code: i64,
    },
    /// A bag of cells that does not decode.
    #[error("{what}: bad bag of cells: {source}")]
    Boc {
        /// Which entry or field held it.
        what: String,
        /// Why.
        #[source]
        source: BocError,
    },
    /// The stack has the wrong number of entries for the method.
    #[error("{method}: expected {min}..={max} stack entries, found {found}")]
    StackLength {
        /// The get-method.
        method: &'static str,
        /// Fewest entries accepted.
        min: usize,
        /// Most entries accepted.
        max: usize,
        /// How many there were.
        found: usize,
    },
    /// A stack entry of the wrong kind.
    #[error("{method}: entry {index} (`{field}`): expected {expected}, found {found}")]
    EntryType {
        /// The get-method.
        method: &'static str,
        /// Entry index (0 = first returned value).
        index: usize,
        /// The field the entry holds.
        field: &'static str,
        /// What kind was expected.
        expected: &'static str,
        /// What kind was there.
        found: &'static str,
    },
    /// An integer entry outside the field's range.
    #[error("{method}: entry {index} (`{field}`): {value} is not {expected}")]
    EntryRange {
        /// The get-method.
        method: &'static str,
        /// Entry index.
        index: usize,
        /// The field.
        field: &'static str,
        /// The value.
        value: String,
        /// The accepted range.
        expected: &'static str,
    },
    /// A slice entry that is not an address.
    #[error("{method}: entry {index} (`{field}`): not an address: {source}")]
    EntryAddress {
        /// The get-method.
        method: &'static str,
        /// Entry index.
        index: usize,
        /// The field.
        field: &'static str,
        /// Why.
        #[source]
        source: FieldError,
    },
    /// A cell entry whose content does not read as its layout says.
    #[error("{method}: entry {index} (`{field}`): {source}")]
    EntryLayout {
        /// The get-method.
        method: &'static str,
        /// Entry index.
        index: usize,
        /// The field.
        field: &'static str,
        /// Why.
        #[source]
        source: FieldError,
    },
    /// A slice entry with data after the value it should hold.
    #[error("{method}: entry {index} (`{field}`): {bits} bits and {refs} references left after the value")]
    EntryTrailing {
        /// The get-method.
        method: &'static str,
        /// Entry index.
        index: usize,
        /// The field.
        field: &'static str,
        /// Bits left.
        bits: usize,
        /// References left.
        refs: usize,
    },
    /// A field of an account-data cell that does not read.
    #[error("{what}: field `{field}`: {source}")]
    DataField {
        /// Which layout (e.g. `STON.fi v2 stableswap pool data`).
        what: &'static str,
        /// The field.
        field: &'static str,
        /// Why.
        #[source]
        source: FieldError,
    },
    /// Data left over after an account-data layout: the cell is not of that layout.
    #[error("{what}: {bits} bits and {refs} references left after the last field (not this layout)")]
    DataTrailing {
        /// Which layout.
        what: &'static str,
        /// Bits left.
        bits: usize,
        /// References left.
        refs: usize,
    },
    /// A field value the contract never stores.
    #[error("{what}: field `{field}`: {value} is not {expected}")]
    DataRange {
        /// Which layout.
        what: &'static str,
        /// The field.
        field: &'static str,
        /// The value.
        value: String,
        /// The accepted range.
        expected: &'static str,
    },
    /// A STON.fi v2 pool type string we do not know.
    #[error("unknown STON.fi v2 pool type `{found}` (known: constant_product, stableswap, weighted_const_product, weighted_stableswap)")]
    UnknownPoolType {
        /// The string.
        found: String,
    },
    /// A dictionary whose structure is broken.
    #[error("{what}: bad dictionary: {source}")]
    Dict {
        /// Which dictionary.
        what: &'static str,
        /// What is wrong.
        #[source]
        source: dict::DictError,
    },
}
