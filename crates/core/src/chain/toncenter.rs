//! toncenter API v3 answers about blocks and accounts: the latest masterchain block, the accounts a
//! masterchain block's transactions touched, and account states with their data cells.
//!
//! What `sync --watch` follows the chain with. Shapes as toncenter's v3 OpenAPI document
//! (`/api/v3/masterchainInfo`, `/api/v3/transactionsByMasterchainBlock`, `/api/v3/accountStates`) gives them;
//! only the fields read here are required, everything else is ignored. toncenter writes raw addresses with
//! upper-case hex (`0:83DF…`); any form [`crate::asset::parse_address`] accepts is read. An error answer
//! (`{"error": "…", "code": 429}`) is [`ChainError::Api`]; a wrong shape is [`ChainError::Encoding`] naming the
//! path.

use serde_json::Value;
use tonlib_core::cell::ArcCell;
use tonlib_core::TonAddress;

use super::boc::parse_boc_text;
use super::stack::json::shape;
use super::ChainError;

/// A toncenter error answer (`{"error": "…"}`, optionally with `code`), if `value` is one.
fn api_error(value: &Value) -> Option<ChainError> {
    let message = value.get("error")?;
    let message = message.as_str().map_or_else(|| message.to_string(), str::to_string);
    Some(ChainError::Api { code: value.get("code").and_then(Value::as_i64), message })
}

fn object<'a>(path: &str, value: &'a Value) -> Result<&'a serde_json::Map<String, Value>, ChainError> {
    if let Some(e) = api_error(value) {
        return Err(e);
    }
    value.as_object().ok_or_else(|| shape(path, "an object", value))
}

fn field<'a>(o: &'a serde_json::Map<String, Value>, path: &str, name: &str) -> Result<&'a Value, ChainError> {
    o.get(name).ok_or_else(|| ChainError::Encoding {
        path: format!("{path}.{name}"),
        expected: "a field",
        found: "nothing".to_string(),
    })
}

/// Reads each entry of the answer's top-level array `key` with `read`, which is given the entry's path
/// (`$.key[i]`, for errors) and object.
fn read_list<T>(
    value: &Value,
    key: &str,
    mut read: impl FnMut(&str, &serde_json::Map<String, Value>) -> Result<T, ChainError>,
) -> Result<Vec<T>, ChainError> {
    let list = field(object("$", value)?, "$", key)?;
    let items = list.as_array().ok_or_else(|| shape(&format!("$.{key}"), "an array", list))?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let path = format!("$.{key}[{i}]");
            read(&path, object(&path, item)?)
        })
        .collect()
}

fn address(path: &str, value: &Value) -> Result<TonAddress, ChainError> {
    value
        .as_str()
        .and_then(|s| crate::asset::parse_address(s).ok())
        .ok_or_else(|| shape(path, "an address (`0:<64 hex>` or friendly)", value))
}

/// A non-negative integer written as a JSON number or a decimal string (toncenter writes `lt` as a string).
fn unsigned(path: &str, value: &Value) -> Result<u64, ChainError> {
    match value {
        Value::Number(n) => n.as_u64(),
        Value::String(s) if !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok(),
        _ => None,
    }
    .ok_or_else(|| shape(path, "a non-negative integer", value))
}

/// `GET /api/v3/masterchainInfo` (`{"first": {…}, "last": {"workchain": -1, "seqno": N, …}}`): the seqno of
/// the latest masterchain block.
///
/// ```
/// let v = serde_json::json!({"first": {"seqno": 2}, "last": {"workchain": -1, "shard": "8000000000000000", "seqno": 51234567}});
/// assert_eq!(tonroute_core::chain::toncenter::masterchain_seqno(&v).unwrap(), 51234567);
/// ```
pub fn masterchain_seqno(value: &Value) -> Result<u32, ChainError> {
    let o = object("$", value)?;
    let last = field(o, "$", "last")?;
    let last = object("$.last", last)?;
    let seqno = unsigned("$.last.seqno", field(last, "$.last", "seqno")?)?;
    u32::try_from(seqno).map_err(|_| ChainError::Encoding {
        path: "$.last.seqno".to_string(),
        expected: "a 32-bit block number",
        found: seqno.to_string(),
    })
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
    let seqno = masterchain_seqno(value)?;
    // `masterchain_seqno` checked that `$.last` is an object.
    let time = match value.get("last").and_then(|last| last.get("gen_utime")) {
        None | Some(Value::Null) => None,
        Some(t) => Some(unsigned("$.last.gen_utime", t)?),
    };
    Ok(MasterchainHead { seqno, time })
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
    let accounts =
        read_list(value, "transactions", |path, t| address(&format!("{path}.account"), field(t, path, "account")?))?;
    // One account per transaction.
    Ok(BlockTransactions { count: accounts.len(), accounts })
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
    read_list(value, "accounts", |path, a| {
        let address = address(&format!("{path}.address"), field(a, path, "address")?)?;
        let status = match a.get("status") {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            Some(other) => return Err(shape(&format!("{path}.status"), "a string", other)),
        };
        let data = match a.get("data_boc") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.is_empty() => None,
            Some(Value::String(s)) => {
                Some(parse_boc_text(s).map_err(|source| ChainError::Boc { what: format!("{path}.data_boc"), source })?)
            }
            Some(other) => return Err(shape(&format!("{path}.data_boc"), "a base64 bag of cells", other)),
        };
        let last_transaction_lt = match a.get("last_transaction_lt") {
            None | Some(Value::Null) => None,
            Some(v) => Some(unsigned(&format!("{path}.last_transaction_lt"), v)?),
        };
        Ok(AccountState { address, status, data, last_transaction_lt })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const POOL: &str = "0:8649CAD97B5C5BC96A960EF748EA6CCFF8601C01616FE995EE6893AE4AA7A6C6";

    #[test]
    fn masterchain_info() {
        assert_eq!(masterchain_seqno(&json!({"last": {"seqno": "7"}})).unwrap(), 7);
        for bad in [
            json!({}),
            json!({"last": {}}),
            json!({"last": {"seqno": -1}}),
            json!({"last": {"seqno": 1u64 << 40}}),
            json!([1]),
        ] {
            assert!(matches!(masterchain_seqno(&bad), Err(ChainError::Encoding { .. })), "{bad}");
        }
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
