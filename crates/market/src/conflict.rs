//! Conflicting ingest lines: a line whose record key (a trade's, a liquidity event's, a balance's) is already
//! taken, by a stored record or an earlier line of the same ingest, with different content. Such a line is not
//! "already stored" (that would drop what it says silently, and keep the other version for ever): the ingest
//! refuses its file and names both versions.
//!
//! Owns each kind's key and the facts that make two records with that key the same ([`Record`]), and the check
//! among the lines of one ingest ([`Seen`]). Pure: a store reads its stored facts and compares them with
//! [`Record::conflict`]; must not read or write anything.

use std::collections::HashMap;

use crate::ingest::TradeLine;
use crate::liquidity::LiquidityEvent;
use crate::stored::StoredTrade;
use crate::types::DateTime;
use crate::wallets::Balance;

/// The natural key of a trade: `tx:<hash>:<pool>` when the hash is known, else
/// `at:<pool>:<time>:<trader>:<asset_in>:<amount_in>:<amount_out>`.
pub fn trade_key(t: &StoredTrade) -> String {
    match &t.tx_hash {
        Some(h) => format!("tx:{}:{}", h.to_ascii_lowercase(), t.pool.to_hex()),
        None => format!(
            "at:{}:{}:{}:{}:{}:{}",
            t.pool.to_hex(),
            t.time,
            t.trader.to_hex(),
            t.asset_in,
            t.amount_in,
            t.amount_out
        ),
    }
}

/// A date as the lines write it (RFC 3339), or the Unix seconds when RFC 3339 cannot write it (outside years
/// 0 to 9999).
pub fn date_text(unix: i64) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    match DateTime::from_unix(unix).map(|d| write!(text, "{d}")) {
        Some(Ok(())) => text,
        _ => format!("Unix seconds {unix}"),
    }
}

/// The facts of a trade that make it the trade it is, named by the line's fields: its date, asset in, both
/// amounts and trader. Prices and volumes are not among them: they are quotes recorded beside the trade (and
/// rounded by an export of `/coin_transactions`), not what happened on chain.
pub fn trade_facts(time: i64, asset_in: &str, amount_in: u128, amount_out: u128, trader: &str) -> Facts {
    vec![
        ("trade_date", date_text(time)),
        ("trade_asset_in", asset_in.to_string()),
        ("trade_asset_in_amount", amount_in.to_string()),
        ("trade_asset_out_amount", amount_out.to_string()),
        ("trader_address", trader.to_string()),
    ]
}

/// The facts of a liquidity event: its date, provider, amounts (the pool's asset order) and LP.
pub fn liquidity_facts(time: i64, provider: &str, amounts: [u128; 2], lp: u128) -> Facts {
    vec![
        ("event_date", date_text(time)),
        ("provider_address", provider.to_string()),
        ("amounts (pool order)", format!("{} and {}", amounts[0], amounts[1])),
        ("lp_amount", lp.to_string()),
    ]
}

/// The facts of a balance (its key holds its owner, asset, `as_of` and block): the balance.
pub fn balance_facts(balance: u128) -> Facts {
    vec![("balance", balance.to_string())]
}

/// Named facts, in a fixed order per kind.
pub type Facts = Vec<(&'static str, String)>;

/// One line's record as the conflict check sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The key two versions of the record share (a store's natural key).
    pub key: String,
    /// The record for a reader: `trade tx <hash> on pool <pool>`, ….
    pub name: String,
    /// What must be equal for a second line to be the same record.
    pub facts: Facts,
}

/// The record of a trade line.
pub fn trade_record(line: &TradeLine) -> Record {
    let t = &line.trade;
    let name = match &t.tx_hash {
        Some(h) => format!("trade tx {h} on pool {}", t.pool.to_hex()),
        None => format!("trade on pool {} at {}", t.pool.to_hex(), date_text(t.time)),
    };
    Record {
        key: trade_key(t),
        name,
        facts: trade_facts(t.time, &t.asset_in.to_string(), t.amount_in, t.amount_out, &t.trader.to_hex()),
    }
}

/// The record of a liquidity event.
pub fn liquidity_record(e: &LiquidityEvent) -> Record {
    let name = match &e.tx_hash {
        Some(h) => format!("{} tx {h} on pool {}", e.kind.as_str(), e.pool.to_hex()),
        None => format!("{} on pool {} at {}", e.kind.as_str(), e.pool.to_hex(), date_text(e.time)),
    };
    Record { key: e.natural_key(), name, facts: liquidity_facts(e.time, &e.provider.to_hex(), e.amounts, e.lp) }
}

/// The record of a balance: one per owner, asset, `as_of` and block (a later one replaces it, an earlier one is
/// stale; neither conflicts).
pub fn balance_record(b: &Balance) -> Record {
    let block = b.block.map_or_else(|| "no block".to_string(), |n| format!("block {n}"));
    let name = format!("balance of {} in {} as of {} ({block})", b.owner.to_hex(), b.asset, b.as_of);
    Record {
        key: format!("{}:{}:{}:{:?}", b.owner.to_hex(), b.asset, b.as_of.unix(), b.block),
        name,
        facts: balance_facts(b.balance),
    }
}

/// Where the other version of a conflicting record is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Against {
    /// In the store.
    Stored,
    /// On an earlier line of the same ingest (`FILE:LINE`).
    Line(String),
}

/// A line whose record key is taken by a different version of the record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name} is {} with {stored}; this line gives {given}", match against {
    Against::Stored => "already stored".to_string(),
    Against::Line(at) => format!("given by {at}"),
})]
pub struct Conflict {
    /// The record ([`Record::name`]).
    pub name: String,
    /// Where the other version is.
    pub against: Against,
    /// The other version's facts that differ (`field value, …`).
    pub stored: String,
    /// This line's.
    pub given: String,
}

impl Record {
    /// The conflict between this record and `other`'s facts (the version `against` holds), `None` when they are
    /// the same.
    pub fn conflict(&self, other: &[(&'static str, String)], against: Against) -> Option<Conflict> {
        let differ: Vec<(&str, &str, &str)> = self
            .facts
            .iter()
            .zip(other)
            .filter(|(mine, theirs)| mine.1 != theirs.1)
            .map(|(mine, theirs)| (mine.0, mine.1.as_str(), theirs.1.as_str()))
            .collect();
        if differ.is_empty() {
            return None;
        }
        // This line's values (`given`) or the other version's.
        let list = |given: bool| {
            let pick =
                |(name, mine, theirs): &(&str, &str, &str)| format!("{name} {}", if given { mine } else { theirs });
            differ.iter().map(pick).collect::<Vec<_>>().join(", ")
        };
        Some(Conflict { name: self.name.clone(), against, stored: list(false), given: list(true) })
    }
}

/// The records of one ingest seen so far (every line of every file), each with where it was given.
#[derive(Debug, Default)]
pub struct Seen {
    records: HashMap<String, (Facts, String)>,
}

impl Seen {
    /// Notes `record`, given at `origin` (`FILE:LINE`); a different version of it given earlier is a conflict.
    /// The same record again is not (it is "already stored" when its file is written).
    pub fn check(&mut self, record: Record, origin: String) -> Result<(), Box<Conflict>> {
        match self.records.get(&record.key) {
            Some((facts, at)) => match record.conflict(facts, Against::Line(at.clone())) {
                Some(c) => Err(Box::new(c)),
                None => Ok(()),
            },
            None => {
                self.records.insert(record.key, (record.facts, origin));
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(amount_in: u128) -> Record {
        Record {
            key: "tx:ab:0:cd".to_string(),
            name: "trade tx ab on pool 0:cd".to_string(),
            facts: trade_facts(1_732_190_700, "native", amount_in, 5, "0:ef"),
        }
    }

    #[test]
    fn only_a_different_version_conflicts_and_the_message_names_both() {
        assert_eq!(record(7).conflict(&record(7).facts, Against::Stored), None);
        assert_eq!(date_text(1_573_776_000), "2019-11-15T00:00:00Z");
        assert_eq!(date_text(i64::MAX / 2), format!("Unix seconds {}", i64::MAX / 2));
        let c = record(0).conflict(&record(250).facts, Against::Stored).expect("amounts differ");
        assert_eq!(
            c.to_string(),
            "trade tx ab on pool 0:cd is already stored with trade_asset_in_amount 250; this line gives \
             trade_asset_in_amount 0"
        );
        let mut seen = Seen::default();
        seen.check(record(250), "f.jsonl:1".to_string()).unwrap();
        seen.check(record(250), "f.jsonl:2".to_string()).unwrap();
        let c = seen.check(record(1), "f.jsonl:3".to_string()).unwrap_err();
        assert_eq!(c.against, Against::Line("f.jsonl:1".to_string()));
        assert!(c.to_string().contains("is given by f.jsonl:1 with trade_asset_in_amount 250"), "{c}");
    }
}
