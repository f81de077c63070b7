//! toncenter API v3 answers about what wallets hold: an owner's jetton wallets with their balances
//! (`GET /api/v3/jetton/wallets?owner_address=…&limit=…&offset=…`) and accounts' TON balances
//! (`GET /api/v3/accountStates?address=…&include_boc=false`). What `sync --wallets` writes into the market store.
//!
//! Shapes as toncenter's v3 OpenAPI document gives them (an example answer of each, with its origin, is in
//! `tests/data/ton/`): `{"jetton_wallets": [{"address", "balance", "owner", "jetton", "last_transaction_lt",
//! "code_hash", "data_hash", "mintless_info"}], "address_book": {…}, "metadata": {…}}` and `{"accounts":
//! [{"address", "balance", "status", …}], "address_book": {…}}`. Only the fields read here are required; the
//! rest is ignored. Addresses in any form [`crate::asset::parse_address`] accepts (toncenter writes raw ones with
//! upper-case hex); balances are decimal strings (a JSON number is accepted when it is a non-negative integer)
//! below 2^120, the chain's bound on coins (`VarUInteger 16`).
//!
//! Owns decoding only: every refusal is a [`HoldingsError`] naming the field's path; no I/O, no snapshot (which
//! jettons the market knows is the caller's question).

use serde_json::{Map, Value};
use tonlib_core::TonAddress;

/// Balances are below 2^120 (`VarUInteger 16`).
const BALANCE_BOUND_BITS: u32 = 120;

/// Why a holdings answer was refused: the field, by its JSON path, and what was wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HoldingsError {
    /// toncenter answered with an error object (`{"error": "…", "code": 429}`).
    #[error("toncenter error{}: {message}", code.map(|c| format!(" {c}")).unwrap_or_default())]
    Api {
        /// The error's code, when given.
        code: Option<i64>,
        /// Its message.
        message: String,
    },
    /// A value of the wrong JSON type.
    #[error("at `{path}`: expected {expected}, found {found}")]
    Shape {
        /// Where.
        path: String,
        /// What was expected.
        expected: &'static str,
        /// What was there (JSON, cut to 80 characters).
        found: String,
    },
    /// A required field absent (or null).
    #[error("at `{path}`: a required field is missing")]
    Missing {
        /// Where.
        path: String,
    },
    /// An address that does not parse.
    #[error("at `{path}`: `{text}` is not an address")]
    BadAddress {
        /// Where.
        path: String,
        /// The text.
        text: String,
    },
    /// A balance that is not a decimal integer from 0 to 2^120 − 1.
    #[error("at `{path}`: `{text}` is not a balance (a decimal integer from 0 to 2^120 - 1)")]
    BadBalance {
        /// Where.
        path: String,
        /// The text.
        text: String,
    },
    /// A jetton wallet of another owner than the one asked for (the answer cannot be this owner's holdings).
    #[error("at `{path}`: the wallet's owner {found} is not the owner asked for, {asked}")]
    WrongOwner {
        /// Where.
        path: String,
        /// The owner in the answer (raw).
        found: String,
        /// The owner asked for (raw).
        asked: String,
    },
}

fn found(v: &Value) -> String {
    let mut text = v.to_string();
    if text.len() > 80 {
        let mut cut = 80;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

fn shape(path: &str, expected: &'static str, v: &Value) -> HoldingsError {
    HoldingsError::Shape { path: path.to_string(), expected, found: found(v) }
}

/// The top-level object, or the error answer it is.
fn root(value: &Value) -> Result<&Map<String, Value>, HoldingsError> {
    if let Some(message) = value.get("error") {
        let message = message.as_str().map_or_else(|| message.to_string(), str::to_string);
        return Err(HoldingsError::Api { code: value.get("code").and_then(Value::as_i64), message });
    }
    value.as_object().ok_or_else(|| shape("$", "an object", value))
}

fn required<'a>(o: &'a Map<String, Value>, path: &str, name: &str) -> Result<&'a Value, HoldingsError> {
    match o.get(name) {
        None | Some(Value::Null) => Err(HoldingsError::Missing { path: format!("{path}.{name}") }),
        Some(v) => Ok(v),
    }
}

/// An entry of a top-level list: its path and its object.
type Entry<'a> = (String, &'a Map<String, Value>);

/// The entries of the top-level list `name`, each an object with its path (`$.name[i]`), checked one at a time
/// as they are read.
fn objects<'a>(
    value: &'a Value,
    name: &'a str,
) -> Result<impl ExactSizeIterator<Item = Result<Entry<'a>, HoldingsError>>, HoldingsError> {
    let v = required(root(value)?, "$", name)?;
    let items = v.as_array().ok_or_else(|| shape(&format!("$.{name}"), "an array", v))?;
    Ok(items.iter().enumerate().map(move |(i, item)| {
        let path = format!("$.{name}[{i}]");
        match item.as_object() {
            Some(o) => Ok((path, o)),
            None => Err(shape(&path, "an object", item)),
        }
    }))
}

fn address(o: &Map<String, Value>, path: &str, name: &str) -> Result<TonAddress, HoldingsError> {
    let v = required(o, path, name)?;
    let text = v.as_str().ok_or_else(|| shape(&format!("{path}.{name}"), "an address string", v))?;
    crate::asset::parse_address(text)
        .map_err(|_| HoldingsError::BadAddress { path: format!("{path}.{name}"), text: text.to_string() })
}

/// A balance: a decimal string (or a non-negative JSON integer) below 2^120.
fn balance(v: &Value, path: &str) -> Result<u128, HoldingsError> {
    let bad = |text: String| HoldingsError::BadBalance { path: path.to_string(), text };
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) if n.is_u64() => n.to_string(),
        Value::Number(n) => return Err(bad(n.to_string())),
        other => return Err(shape(path, "a decimal string", other)),
    };
    if text.is_empty() || text.len() > 39 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad(text));
    }
    text.parse::<u128>().ok().filter(|b| *b < (1u128 << BALANCE_BOUND_BITS)).ok_or_else(|| bad(text))
}

/// One jetton wallet of an owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JettonWallet {
    /// The jetton wallet contract.
    pub address: TonAddress,
    /// Its owner.
    pub owner: TonAddress,
    /// The jetton's master contract.
    pub jetton: TonAddress,
    /// Smallest units.
    pub balance: u128,
}

/// One page of `GET /api/v3/jetton/wallets`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JettonWalletsPage {
    /// The wallets, in the answer's order.
    pub wallets: Vec<JettonWallet>,
    /// How many entries the page held (a page shorter than the limit asked for is the last one).
    pub count: usize,
}

/// Reads one page of an owner's jetton wallets. With `owner`, every wallet must be that owner's
/// ([`HoldingsError::WrongOwner`] otherwise).
///
/// ```
/// let v = serde_json::json!({"jetton_wallets": [{
///     "address": "0:7A6E1D0F2B3AC6B0F4C0D2E1A9B8C7D6E5F4A3B2C1D0E9F8A7B6C5D4E3F2A1B0",
///     "balance": "12500000",
///     "owner": "0:83DFD552E63729B472FCBCC8C45EBCC6691702558B68EC7527E1BA403A0F31A8",
///     "jetton": "0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE"}],
///     "address_book": {}, "metadata": {}});
/// let page = tonroute_core::chain::holdings::jetton_wallets(&v, None).unwrap();
/// assert_eq!((page.count, page.wallets[0].balance), (1, 12_500_000));
/// ```
pub fn jetton_wallets(value: &Value, owner: Option<&TonAddress>) -> Result<JettonWalletsPage, HoldingsError> {
    let items = objects(value, "jetton_wallets")?;
    let count = items.len();
    let mut wallets = Vec::with_capacity(count);
    for item in items {
        let (path, w) = item?;
        let wallet = JettonWallet {
            address: address(w, &path, "address")?,
            owner: address(w, &path, "owner")?,
            jetton: address(w, &path, "jetton")?,
            balance: balance(required(w, &path, "balance")?, &format!("{path}.balance"))?,
        };
        if let Some(asked) = owner {
            if &wallet.owner != asked {
                return Err(HoldingsError::WrongOwner {
                    path: format!("{path}.owner"),
                    found: wallet.owner.to_hex(),
                    asked: asked.to_hex(),
                });
            }
        }
        wallets.push(wallet);
    }
    Ok(JettonWalletsPage { wallets, count })
}

/// An account's TON balance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TonBalance {
    /// The account.
    pub address: TonAddress,
    /// nanoTON.
    pub balance: u128,
    /// `active`, `uninit`, `frozen` or `nonexist`, as written (empty when absent).
    pub status: String,
}

/// Reads the TON balances of an `accountStates` answer. An account that does not exist (`"status":
/// "nonexist"`) may come without a balance: it holds 0.
///
/// ```
/// let v = serde_json::json!({"accounts": [
///     {"address": "0:83DFD552E63729B472FCBCC8C45EBCC6691702558B68EC7527E1BA403A0F31A8", "balance": "2220156241",
///      "status": "active"}], "address_book": {}});
/// let b = tonroute_core::chain::holdings::ton_balances(&v).unwrap();
/// assert_eq!(b[0].balance, 2_220_156_241);
/// ```
pub fn ton_balances(value: &Value) -> Result<Vec<TonBalance>, HoldingsError> {
    let items = objects(value, "accounts")?;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let (path, a) = item?;
        let address = address(a, &path, "address")?;
        let status = match a.get("status") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.clone(),
            Some(other) => return Err(shape(&format!("{path}.status"), "a string", other)),
        };
        let balance = match a.get("balance") {
            None | Some(Value::Null) if status == "nonexist" => 0,
            _ => balance(required(a, &path, "balance")?, &format!("{path}.balance"))?,
        };
        out.push(TonBalance { address, balance, status });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const JETTONS: &str = include_str!("../../../../tests/data/ton/toncenter-v3-jetton-wallets.json");
    const ACCOUNTS: &str = include_str!("../../../../tests/data/ton/toncenter-v3-account-states-balance.json");

    fn answer(text: &str) -> Value {
        let v: Value = serde_json::from_str(text).expect("the example answer is JSON");
        v["response"].clone()
    }

    fn owner() -> TonAddress {
        crate::asset::parse_address("0:83DFD552E63729B472FCBCC8C45EBCC6691702558B68EC7527E1BA403A0F31A8").unwrap()
    }

    #[test]
    fn the_example_jetton_wallets_decode() {
        let page = jetton_wallets(&answer(JETTONS), Some(&owner())).unwrap();
        assert_eq!(page.count, 3);
        let usdt = crate::asset::parse_address("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs").unwrap();
        let not = crate::asset::parse_address("EQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__NOT").unwrap();
        assert_eq!(page.wallets[0].jetton, usdt);
        assert_eq!(page.wallets[0].balance, 12_500_000);
        assert_eq!(page.wallets[1].jetton, not);
        assert_eq!(page.wallets[1].balance, 184_467_440_737_095_516_160_000);
        assert_eq!(page.wallets[2].balance, 0, "a wallet emptied to zero is listed");
        assert!(page.wallets.iter().all(|w| w.owner == owner() && w.address != w.jetton));
    }

    #[test]
    fn the_example_account_states_give_ton_balances() {
        let b = ton_balances(&answer(ACCOUNTS)).unwrap();
        assert_eq!(b.len(), 2);
        let recycle = crate::asset::parse_address("EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zB").unwrap();
        assert_eq!((b[0].address.clone(), b[0].balance, b[0].status.as_str()), (recycle, 2_220_156_241, "active"));
        assert_eq!((b[1].balance, b[1].status.as_str()), (0, "nonexist"));
    }

    #[test]
    fn each_bad_field_is_named() {
        let good = answer(JETTONS);
        let with = |k: &str, v: Value| {
            let mut x = good.clone();
            x["jetton_wallets"][1][k] = v;
            jetton_wallets(&x, Some(&owner())).unwrap_err()
        };
        let path = |e: &HoldingsError| e.to_string();
        let e = with("balance", json!("-5"));
        assert!(matches!(&e, HoldingsError::BadBalance { path, .. } if path == "$.jetton_wallets[1].balance"), "{e}");
        assert!(matches!(with("balance", json!("1.5")), HoldingsError::BadBalance { .. }));
        assert!(matches!(with("balance", json!((1u128 << 120).to_string())), HoldingsError::BadBalance { .. }));
        assert!(matches!(with("balance", json!(-1)), HoldingsError::BadBalance { .. }));
        assert!(matches!(with("balance", json!(true)), HoldingsError::Shape { .. }));
        assert!(jetton_wallets(
            &{
                let mut x = good.clone();
                x["jetton_wallets"][1]["balance"] = json!(((1u128 << 120) - 1).to_string());
                x
            },
            Some(&owner())
        )
        .is_ok());
        let e = with("balance", Value::Null);
        assert!(matches!(&e, HoldingsError::Missing { path } if path == "$.jetton_wallets[1].balance"), "{e}");
        let e = with("jetton", json!("0:xyz"));
        assert!(matches!(&e, HoldingsError::BadAddress { path, .. } if path == "$.jetton_wallets[1].jetton"), "{e}");
        assert!(matches!(with("address", json!(7)), HoldingsError::Shape { .. }));
        let e = with("owner", json!(format!("0:{}", "55".repeat(32))));
        assert!(matches!(&e, HoldingsError::WrongOwner { .. }), "{}", path(&e));
        // Without an owner to check, another owner's wallet reads.
        let mut other = good.clone();
        other["jetton_wallets"][1]["owner"] = json!(format!("0:{}", "55".repeat(32)));
        assert!(jetton_wallets(&other, None).is_ok());
        assert!(matches!(jetton_wallets(&json!({"jetton_wallets": {}}), None), Err(HoldingsError::Shape { .. })));
        assert!(matches!(jetton_wallets(&json!({}), None), Err(HoldingsError::Missing { .. })));
        assert!(matches!(jetton_wallets(&json!([1]), None), Err(HoldingsError::Shape { .. })));
        assert!(matches!(jetton_wallets(&json!({"jetton_wallets": [3]}), None), Err(HoldingsError::Shape { .. })));
        let e = jetton_wallets(&json!({"error": "Ratelimit exceeded", "code": 429}), None).unwrap_err();
        assert_eq!(e, HoldingsError::Api { code: Some(429), message: "Ratelimit exceeded".into() });
        assert_eq!(e.to_string(), "toncenter error 429: Ratelimit exceeded");
        // Accounts: a missing balance is an error unless the account does not exist.
        let e = ton_balances(&json!({"accounts": [{"address": owner().to_hex(), "status": "active"}]})).unwrap_err();
        assert!(matches!(&e, HoldingsError::Missing { path } if path == "$.accounts[0].balance"), "{e}");
        let e = ton_balances(&json!({"accounts": [{"address": owner().to_hex(), "balance": "x"}]})).unwrap_err();
        assert!(matches!(e, HoldingsError::BadBalance { .. }));
        let e = ton_balances(&json!({"accounts": [{"address": owner().to_hex(), "balance": "1", "status": 3}]}));
        assert!(matches!(e, Err(HoldingsError::Shape { .. })));
        assert!(matches!(ton_balances(&json!({"accounts": [{"balance": "1"}]})), Err(HoldingsError::Missing { .. })));
    }

    #[test]
    fn a_long_value_is_cut_in_the_message() {
        let e = jetton_wallets(&json!({"jetton_wallets": "é".repeat(100)}), None).unwrap_err();
        assert!(e.to_string().len() < 200, "{e}");
    }
}
