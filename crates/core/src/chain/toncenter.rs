//! toncenter API v3 answers about blocks and accounts: the latest masterchain block, the accounts a
//! masterchain block's transactions touched, and account states with their data cells.
//!
//! What `sync --watch` follows the chain with. Shapes as toncenter's v3 OpenAPI document
//! (`/api/v3/masterchainInfo`, `/api/v3/transactionsByMasterchainBlock`, `/api/v3/accountStates`) gives them;
//! only the fields read here are required, everything else is ignored. toncenter writes raw addresses with
//! upper-case hex (`0:83DF…`); any form [`crate::asset::parse_address`] accepts is read. An error answer
//! (`{"error": "…", "code": 429}`) is [`ChainError::Api`]; each answer is read through a serde-derived type
//! ([`crate::json`]), and a wrong shape is [`ChainError::Answer`] naming the field's path.

use serde::de::{IgnoredAny, Unexpected, Visitor};
use serde::Deserialize;
use serde_json::Value;
use tonlib_core::cell::ArcCell;
use tonlib_core::TonAddress;

use super::boc::parse_boc_text;
use super::ChainError;
use crate::json::{self, Object};

/// A toncenter error answer (`{"error": "…", "code": 429}`).
#[derive(Deserialize)]
struct Refusal {
    error: Message,
    #[serde(default)]
    code: Option<Code>,
}

/// The error's text: a string, or any other JSON written out.
#[derive(Deserialize)]
#[serde(untagged)]
enum Message {
    Text(String),
    Other(Value),
}

/// The error's code: an integer, or something else that is not one (then no code).
#[derive(Deserialize)]
#[serde(untagged)]
enum Code {
    Integer(i64),
    Other(IgnoredAny),
}

/// Reads `T` from an answer: [`ChainError::Api`] when the answer is an error answer, else `T` or
/// [`ChainError::Answer`] naming the field that failed.
fn answer<'a, T: Deserialize<'a>>(value: &'a Value) -> Result<T, ChainError> {
    if let Ok(Object(Refusal { error, code })) = json::from_value::<Object<Refusal>>(value) {
        let message = match error {
            Message::Text(text) => text,
            Message::Other(other) => other.to_string(),
        };
        let code = match code {
            Some(Code::Integer(c)) => Some(c),
            Some(Code::Other(_)) | None => None,
        };
        return Err(ChainError::Api { code, message });
    }
    json::from_value(value).map(|Object(t)| t).map_err(|source| ChainError::Answer { source })
}

/// An address in any form [`crate::asset::parse_address`] accepts (toncenter writes raw ones in upper case).
#[derive(Debug, Deserialize)]
#[serde(try_from = "String")]
struct Address(TonAddress);

impl TryFrom<String> for Address {
    type Error = crate::asset::AddressError;

    fn try_from(text: String) -> Result<Address, Self::Error> {
        crate::asset::parse_address(&text).map(Address)
    }
}

/// A non-negative integer written as a JSON number or a decimal string (toncenter writes `lt` as a string).
#[derive(Debug, Clone, Copy)]
struct Unsigned(u64);

impl<'de> Deserialize<'de> for Unsigned {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Unsigned, D::Error> {
        d.deserialize_any(UnsignedVisitor)
    }
}

struct UnsignedVisitor;

impl Visitor<'_> for UnsignedVisitor {
    type Value = Unsigned;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a non-negative integer")
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Unsigned, E> {
        Ok(Unsigned(v))
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Unsigned, E> {
        let digits = !v.is_empty() && v.len() <= 20 && v.bytes().all(|b| b.is_ascii_digit());
        digits
            .then(|| v.parse().ok())
            .flatten()
            .map(Unsigned)
            .ok_or_else(|| E::invalid_value(Unexpected::Str(v), &self))
    }
}

/// `masterchainInfo`: the fields read of it.
#[derive(Deserialize)]
struct MasterchainInfo {
    last: Object<LastBlock>,
}

#[derive(Deserialize)]
struct LastBlock {
    seqno: Unsigned,
    #[serde(default)]
    gen_utime: Option<Unsigned>,
}

/// `transactionsByMasterchainBlock`: the fields read of it.
#[derive(Deserialize)]
struct TransactionsPage {
    transactions: Vec<Object<Transaction>>,
}

#[derive(Deserialize)]
struct Transaction {
    account: Address,
}

/// `accountStates`: the fields read of it.
#[derive(Deserialize)]
struct AccountStates<'a> {
    #[serde(borrow)]
    accounts: Vec<Object<Account<'a>>>,
}

#[derive(Deserialize)]
struct Account<'a> {
    address: Address,
    #[serde(default)]
    status: Option<String>,
    #[serde(default, borrow)]
    data_boc: Option<&'a str>,
    #[serde(default)]
    last_transaction_lt: Option<Unsigned>,
}

fn head(value: &Value) -> Result<MasterchainHead, ChainError> {
    let MasterchainInfo { last: Object(last) } = answer(value)?;
    let seqno = u32::try_from(last.seqno.0).map_err(|_| ChainError::Encoding {
        path: "$.last.seqno".to_string(),
        expected: "a 32-bit block number",
        found: last.seqno.0.to_string(),
    })?;
    Ok(MasterchainHead { seqno, time: last.gen_utime.map(|t| t.0) })
}

/// `GET /api/v3/masterchainInfo` (`{"first": {…}, "last": {"workchain": -1, "seqno": N, …}}`): the seqno of
/// the latest masterchain block.
///
/// ```
/// let v = serde_json::json!({"first": {"seqno": 2}, "last": {"workchain": -1, "shard": "8000000000000000", "seqno": 51234567}});
/// assert_eq!(tonroute_core::chain::toncenter::masterchain_seqno(&v).unwrap(), 51234567);
/// ```
pub fn masterchain_seqno(value: &Value) -> Result<u32, ChainError> {
    head(value).map(|h| h.seqno)
}

/// The latest masterchain block of a `masterchainInfo` answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MasterchainHead {
    /// Its seqno.
    pub seqno: u32,
    /// Its generation time (`gen_utime`, Unix seconds; toncenter's indexer writes it as a decimal string), when
    /// the answer gives it.
    pub time: Option<u64>,
}

/// Reads the latest masterchain block's seqno and generation time (`$.last.gen_utime`, optional).
///
/// ```
/// let v = serde_json::json!({"last": {"workchain": -1, "seqno": 51234567, "gen_utime": "1732300000"}});
/// let head = tonroute_core::chain::toncenter::masterchain_head(&v).unwrap();
/// assert_eq!((head.seqno, head.time), (51234567, Some(1732300000)));
/// ```
pub fn masterchain_head(value: &Value) -> Result<MasterchainHead, ChainError> {
    head(value)
}

/// One page of `GET /api/v3/transactionsByMasterchainBlock?seqno=N&limit=L&offset=O`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockTransactions {
    /// The accounts of the page's transactions, in order, repeats included.
    pub accounts: Vec<TonAddress>,
    /// How many transactions the page held (a page shorter than the limit asked for is the last one).
    pub count: usize,
}

/// Reads one page of a masterchain block's transactions (from the masterchain block and every shard block it
/// commits): the accounts they touched.
pub fn block_transactions(value: &Value) -> Result<BlockTransactions, ChainError> {
    let TransactionsPage { transactions } = answer(value)?;
    Ok(BlockTransactions {
        count: transactions.len(),
        accounts: transactions.into_iter().map(|Object(t)| t.account.0).collect(),
    })
}

/// One account of `GET /api/v3/accountStates?address=…&include_boc=true`.
#[derive(Debug, Clone)]
pub struct AccountState {
    /// The account.
    pub address: TonAddress,
    /// `active`, `uninit`, `frozen` or `nonexist`, as written.
    pub status: String,
    /// Its data cell (absent for an account without state, or when the BOC was not asked for).
    pub data: Option<ArcCell>,
    /// Logical time of its last transaction, when given.
    pub last_transaction_lt: Option<u64>,
}

/// Reads an `accountStates` answer (`{"accounts": [{address, status, data_boc, last_transaction_lt, …}]}`).
/// A data BOC that does not decode is an error naming the account's entry: the state of that account cannot
/// be trusted, and the caller keeps what it had.
pub fn account_states(value: &Value) -> Result<Vec<AccountState>, ChainError> {
    let AccountStates { accounts } = answer(value)?;
    let mut out = Vec::with_capacity(accounts.len());
    for (i, Object(a)) in accounts.into_iter().enumerate() {
        let data = match a.data_boc {
            None | Some("") => None,
            Some(text) => Some(
                parse_boc_text(text)
                    .map_err(|source| ChainError::Boc { what: format!("$.accounts[{i}].data_boc"), source })?,
            ),
        };
        out.push(AccountState {
            address: a.address.0,
            status: a.status.unwrap_or_default(),
            data,
            last_transaction_lt: a.last_transaction_lt.map(|t| t.0),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const POOL: &str = "0:8649CAD97B5C5BC96A960EF748EA6CCFF8601C01616FE995EE6893AE4AA7A6C6";

    #[test]
    fn masterchain_info() {
        assert_eq!(masterchain_seqno(&json!({"last": {"seqno": "7"}})).unwrap(), 7);
        for (bad, path) in [
            (json!({}), ""),
            (json!({"last": {}}), "last"),
            (json!({"last": {"seqno": -1}}), "last.seqno"),
            (json!({"last": {"seqno": "0x10"}}), "last.seqno"),
            (json!([1]), ""),
        ] {
            let e = masterchain_seqno(&bad).unwrap_err();
            assert!(matches!(&e, ChainError::Answer { source } if source.path() == path), "{bad}: {e}");
        }
        let e = masterchain_seqno(&json!({"last": {"seqno": 1u64 << 40}})).unwrap_err();
        assert!(matches!(&e, ChainError::Encoding { path, .. } if path == "$.last.seqno"), "{e}");
        let e = masterchain_seqno(&json!({"error": "rate limit exceeded", "code": 429})).unwrap_err();
        assert!(matches!(e, ChainError::Api { code: Some(429), .. }), "{e}");
    }

    #[test]
    fn block_accounts_in_any_case() {
        let page = json!({"transactions": [{"account": POOL, "lt": "1"}, {"account": POOL.to_lowercase()}], "address_book": {}});
        let b = block_transactions(&page).unwrap();
        assert_eq!(b.count, 2);
        assert_eq!(b.accounts[0], b.accounts[1]);
        assert_eq!(b.accounts[0].to_hex(), POOL.to_lowercase());
        let e = block_transactions(&json!({"transactions": [{"account": "0:xyz"}]})).unwrap_err();
        assert!(e.to_string().contains("$.transactions[0].account"), "{e}");
        assert!(block_transactions(&json!({"transactions": {}})).is_err());
    }

    #[test]
    fn account_states_with_and_without_data() {
        let v = json!({"accounts": [
            {"address": POOL, "status": "active", "data_boc": "te6cckEBAQEAAwAAASCUQYZV", "last_transaction_lt": "64954068000009"},
            {"address": POOL, "status": "nonexist", "data_boc": null}
        ]});
        let s = account_states(&v).unwrap();
        assert_eq!(s.len(), 2);
        assert!(s[0].data.is_some() && s[1].data.is_none());
        assert_eq!(s[0].last_transaction_lt, Some(64_954_068_000_009));
        let cut = json!({"accounts": [{"address": POOL, "data_boc": "te6cckEBAQEAAwAAAS"}]});
        let e = account_states(&cut).unwrap_err();
        assert!(matches!(&e, ChainError::Boc { what, .. } if what == "$.accounts[0].data_boc"), "{e}");
    }
}
