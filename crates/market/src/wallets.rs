//! Wallet balances as data: what a wallet (its owner address) holds of an asset, in smallest units, as of a
//! time (and, when known, a masterchain block). They come from the market file's `balances` (the bundled sample)
//! and from balance lines of `tonroute market ingest` (fed by an indexer or toncenter's jetton wallets by owner),
//! and are what a portfolio values (beside the wallet's liquidity positions, [`crate::positions`]).
//!
//! Owns the balance record, its validation and the balance line's rules ([`BalanceLineError`] names each
//! refusal); must not value balances (prices are the store's) or write anything (a store does:
//! `market::store::sql::wallets`).
//!
//! # Latest as-of wins
//!
//! A store keeps one balance per (owner, asset): the one with the latest `as_of`, ties broken by the higher
//! `block` (a balance without a block is older than one with a block at the same time); an exact tie keeps the
//! balance already stored. Writing the same line twice therefore changes nothing, and lines may arrive in any
//! order. The native coin is an asset like any other (`"native"`): a portfolio shows TON beside its jettons.
//!
//! # The balance line
//!
//! One JSON object per line, told apart from trade lines by its `owner` field:
//!
//! ```json
//! {"owner": "0:…", "asset": "jetton:0:…", "balance": "1250000000", "as_of": "2024-11-21T12:00:00Z", "block": 42000000}
//! ```
//!
//! `owner` in any address form, `asset` an asset id of the snapshot (`native`, `jetton:<address>` or a bare
//! jetton master address), `balance` a LargeInteger below 2^120, `as_of` a date-time from TON's launch to the
//! latest date the caller accepts, `block` optional (a masterchain sequence number, 0..2^32). Unknown fields are
//! refused (a misspelt `block` must not pass silently).

use serde::{Deserialize, Serialize};
use tonlib_core::TonAddress;

use crate::error::RecordError;
use crate::ingest::{check_date, DateOutOfRange};
use crate::types::DateTime;
use tonroute_core::asset::{Asset, AssetError};
use tonroute_core::graph::PoolGraph;

/// Balances are below 2^120 (the router's bound on every amount).
const BALANCE_BOUND_BITS: u32 = 120;

/// A balance as the market file and a balance line write it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BalanceRecord {
    /// The wallet's owner (raw address in the file; any form in a line).
    pub owner: String,
    /// Asset id.
    pub asset: String,
    /// Smallest units, decimal string.
    pub balance: String,
    /// When the balance was read.
    pub as_of: DateTime,
    /// Masterchain block the balance was read at, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<u32>,
}

/// A validated balance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Balance {
    /// Owner.
    pub owner: TonAddress,
    /// Asset (one of the snapshot's).
    pub asset: Asset,
    /// Smallest units (< 2^120).
    pub balance: u128,
    /// When it was read.
    pub as_of: DateTime,
    /// Masterchain block, when known.
    pub block: Option<u32>,
}

impl Balance {
    /// The order "latest as-of wins" uses: (as_of, block), a missing block before any block.
    pub fn recency(&self) -> (i64, i64) {
        (self.as_of.unix(), self.block.map_or(-1, i64::from))
    }

    /// The record the market file writes.
    pub fn record(&self) -> BalanceRecord {
        BalanceRecord {
            owner: self.owner.to_hex(),
            asset: self.asset.to_string(),
            balance: self.balance.to_string(),
            as_of: self.as_of,
            block: self.block,
        }
    }
}

/// A non-negative decimal below 2^120.
fn amount(text: &str) -> Option<u128> {
    if text.is_empty() || text.len() > 39 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u128>().ok().filter(|v| *v < (1u128 << BALANCE_BOUND_BITS))
}

/// Validates a file's balance record against the snapshot (dates are not bounded here: the file says its own
/// `as_of`).
pub fn validate(graph: &PoolGraph, r: &BalanceRecord) -> Result<Balance, RecordError> {
    let owner = tonroute_core::asset::parse_address(&r.owner)?;
    let asset = Asset::parse(&r.asset)?;
    if graph.asset_id(&asset).is_none() {
        return Err(RecordError::NotInSnapshot { asset });
    }
    let balance = amount(&r.balance).ok_or(RecordError::NotDecimal { field: "balance" })?;
    Ok(Balance { owner, asset, balance, as_of: r.as_of, block: r.block })
}

/// Keeps, per (owner, asset), the latest balance (see the module documentation); the result is ordered by
/// owner, then asset.
pub fn latest(balances: impl IntoIterator<Item = Balance>) -> Vec<Balance> {
    let mut by_key: std::collections::BTreeMap<(String, String), Balance> = std::collections::BTreeMap::new();
    for b in balances {
        let key = (b.owner.to_hex(), b.asset.to_string());
        match by_key.get(&key) {
            Some(old) if old.recency() >= b.recency() => {}
            _ => {
                by_key.insert(key, b);
            }
        }
    }
    by_key.into_values().collect()
}

/// What one whole read of a wallet's holdings (its TON balance and every jetton wallet it owns, e.g.
/// `sync --wallets` reading toncenter) makes of it in the store, at `as_of` / `block`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HoldingsBalances {
    /// The balances to write: TON, each jetton of the snapshot, and 0 for each of `stored` the read no longer
    /// lists (the read is the wallet's whole list: a jetton wallet gone means nothing is held).
    pub balances: Vec<Balance>,
    /// Jetton masters the snapshot does not list (the market cannot value them): left out.
    pub unknown: usize,
}

/// The balances of `owner` from one whole read of its holdings: `ton` nanoTON and, per jetton master, the balance
/// of its jetton wallet (several wallets of one master add up); `stored` is the assets the store holds a balance of
/// for `owner` (see [`HoldingsBalances`]). Each balance gets `as_of` and `block`, so the store's latest-as-of rule
/// keeps the newest read.
pub fn from_holdings(
    graph: &PoolGraph,
    owner: &TonAddress,
    ton: u128,
    jettons: &[(TonAddress, u128)],
    stored: &[Asset],
    as_of: DateTime,
    block: Option<u32>,
) -> HoldingsBalances {
    let mut held: std::collections::BTreeMap<String, (Asset, u128)> = std::collections::BTreeMap::new();
    held.insert(Asset::Native.to_string(), (Asset::Native, ton.min((1 << BALANCE_BOUND_BITS) - 1)));
    let mut unknown = 0;
    for (master, amount) in jettons {
        // A master outside the basechain is no asset id the market has.
        let Some(asset) = Asset::parse(&master.to_hex()).ok().filter(|a| graph.asset_id(a).is_some()) else {
            unknown += 1;
            continue;
        };
        let entry = held.entry(asset.to_string()).or_insert((asset, 0));
        entry.1 = entry.1.saturating_add(*amount).min((1 << BALANCE_BOUND_BITS) - 1);
    }
    for asset in stored {
        held.entry(asset.to_string()).or_insert((*asset, 0));
    }
    let balances = held
        .into_values()
        .map(|(asset, balance)| Balance { owner: owner.clone(), asset, balance, as_of, block })
        .collect();
    HoldingsBalances { balances, unknown }
}

/// Why a balance line is refused.
#[derive(Debug, thiserror::Error)]
pub enum BalanceLineError {
    /// Not JSON, not an object, a field missing, unknown or of the wrong type (the error names the field's path).
    #[error("not a balance object: {0}")]
    Malformed(#[source] tonroute_core::json::JsonError),
    /// `owner` does not parse.
    #[error("`owner` is not an address")]
    BadOwner(#[source] tonroute_core::asset::AddressError),
    /// `asset` does not parse.
    #[error("`asset` is not an asset id")]
    BadAsset(#[source] AssetError),
    /// An asset the snapshot does not list.
    #[error("asset {0} is not in the snapshot")]
    UnknownAsset(Asset),
    /// `balance` is not a decimal integer from 0 to 2^120 − 1.
    #[error("`balance` is not a decimal integer from 0 to 2^120 - 1")]
    BadBalance,
    /// `as_of` before TON's launch or after the latest accepted date.
    #[error(transparent)]
    DateOutOfRange(#[from] DateOutOfRange),
}

/// Decodes one balance line and checks it against `graph`'s assets; dates after `latest` (Unix seconds) are
/// refused.
pub fn parse_balance_line(line: &str, graph: &PoolGraph, latest: i64) -> Result<Balance, BalanceLineError> {
    let r: BalanceRecord = tonroute_core::json::from_str(line).map_err(BalanceLineError::Malformed)?;
    let owner = tonroute_core::asset::parse_address(&r.owner).map_err(BalanceLineError::BadOwner)?;
    let asset = Asset::parse(&r.asset).map_err(BalanceLineError::BadAsset)?;
    if graph.asset_id(&asset).is_none() {
        return Err(BalanceLineError::UnknownAsset(asset));
    }
    let balance = amount(&r.balance).ok_or(BalanceLineError::BadBalance)?;
    check_date("as_of", r.as_of.unix(), latest)?;
    Ok(Balance { owner, asset, balance, as_of: r.as_of, block: r.block })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph() -> PoolGraph {
        PoolGraph::from_json(include_str!("../../../data/snapshot.json")).expect("the bundled snapshot")
    }

    const OWNER: &str = "0:1111111111111111111111111111111111111111111111111111111111111111";

    fn line(balance: &str, as_of: &str, block: Option<u32>) -> String {
        let block = block.map_or(String::new(), |b| format!(", \"block\": {b}"));
        format!(r#"{{"owner": "{OWNER}", "asset": "native", "balance": "{balance}", "as_of": "{as_of}"{block}}}"#)
    }

    #[test]
    fn a_balance_line_decodes_and_each_bad_field_is_named() {
        let g = graph();
        let latest = 1_800_000_000;
        let b = parse_balance_line(&line("1250000000", "2024-11-21T12:00:00Z", Some(7)), &g, latest).unwrap();
        assert_eq!(
            (b.balance, b.as_of.unix(), b.block, b.asset),
            (1_250_000_000, 1_732_190_400, Some(7), Asset::Native)
        );
        let refused = |l: &str| parse_balance_line(l, &g, latest).unwrap_err();
        assert!(matches!(refused(&line("-1", "2024-11-21T12:00:00Z", None)), BalanceLineError::BadBalance));
        assert!(matches!(refused(&line("1.5", "2024-11-21T12:00:00Z", None)), BalanceLineError::BadBalance));
        let too_big = (1u128 << 120).to_string();
        assert!(matches!(refused(&line(&too_big, "2024-11-21T12:00:00Z", None)), BalanceLineError::BadBalance));
        let max = ((1u128 << 120) - 1).to_string();
        assert!(parse_balance_line(&line(&max, "2024-11-21T12:00:00Z", None), &g, latest).is_ok());
        assert!(matches!(refused(&line("1", "2019-01-01T00:00:00Z", None)), BalanceLineError::DateOutOfRange { .. }));
        assert!(matches!(refused(&line("1", "2030-01-01T00:00:00Z", None)), BalanceLineError::DateOutOfRange { .. }));
        assert!(matches!(
            refused(r#"{"owner": "x", "asset": "native", "balance": "1", "as_of": "2024-11-21T12:00:00Z"}"#),
            BalanceLineError::BadOwner(_)
        ));
        let unknown_jetton = format!(
            r#"{{"owner": "{OWNER}", "asset": "jetton:0:{}", "balance": "1", "as_of": "2024-11-21T12:00:00Z"}}"#,
            "ab".repeat(32)
        );
        assert!(matches!(refused(&unknown_jetton), BalanceLineError::UnknownAsset(_)));
        let misspelt = line("1", "2024-11-21T12:00:00Z", None)
            .replace("\"as_of\"", "\"as_of\": \"2024-11-21T12:00:00Z\", \"blok\"");
        assert!(matches!(refused(&misspelt), BalanceLineError::Malformed(_)));
        assert!(matches!(refused("[]"), BalanceLineError::Malformed(_)));
    }

    #[test]
    fn a_whole_read_gives_ton_the_known_jettons_and_zeros_for_what_it_no_longer_lists() {
        let g = graph();
        let owner = tonroute_core::asset::parse_address(OWNER).unwrap();
        let not = Asset::parse("jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc").unwrap();
        let usdt = Asset::parse("jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe").unwrap();
        let not_master = tonroute_core::asset::parse_address(&not.to_string()["jetton:".len()..]).unwrap();
        let stranger = tonroute_core::asset::parse_address(&format!("0:{}", "ab".repeat(32))).unwrap();
        let at = DateTime::from_unix(1_732_190_400).unwrap();
        let got = from_holdings(
            &g,
            &owner,
            5,
            &[(not_master.clone(), 7), (stranger, 9), (not_master, 1)],
            &[usdt],
            at,
            Some(42),
        );
        assert_eq!(got.unknown, 1);
        let pairs: Vec<(Asset, u128)> = got.balances.iter().map(|b| (b.asset, b.balance)).collect();
        assert_eq!(pairs, vec![(not, 8), (usdt, 0), (Asset::Native, 5)], "ordered by asset id");
        assert!(got.balances.iter().all(|b| b.owner == owner && b.as_of == at && b.block == Some(42)));
    }

    #[test]
    fn the_latest_as_of_wins_then_the_higher_block_and_an_exact_tie_keeps_the_first() {
        let g = graph();
        let b =
            |bal: &str, at: &str, block: Option<u32>| parse_balance_line(&line(bal, at, block), &g, i64::MAX).unwrap();
        let kept = latest([
            b("5", "2024-11-21T12:00:00Z", None),
            b("3", "2024-11-20T12:00:00Z", Some(99)),
            b("7", "2024-11-21T12:00:00Z", Some(1)),
            b("8", "2024-11-21T12:00:00Z", Some(1)),
        ]);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].balance, 7);
    }
}
