//! One line of an ingest file (`tonroute market ingest`), whichever of the three kinds it is: a trade
//! ([`crate::ingest`]), a liquidity event ([`crate::liquidity`]) or a wallet balance ([`crate::wallets`]).
//!
//! Owns telling the kinds apart (one pass over the line's top-level keys, values skipped, never failing) and
//! handing the line to its kind's decoder, so a caller has one entry and no JSON of its own; must not hold any
//! kind's rules (each decoder does) nor read or write files.

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::ingest::{parse_trade_line, LineError, TradeLine};
use crate::liquidity::{parse_liquidity_line, LiquidityEvent, LiquidityLineError};
use crate::wallets::{parse_balance_line, Balance, BalanceLineError};
use tonroute_core::graph::PoolGraph;

/// Which decoder a line goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// An object with an `event` field.
    Liquidity,
    /// An object with an `owner` field (and no `event`).
    Balance,
    /// Anything else, including text that is not a JSON object: the trade decoder refuses it with the
    /// field's path, as it refuses any malformed trade.
    Trade,
}

impl LineKind {
    /// The kind of `line`, from its top-level keys alone (`event` first, then `owner`). Values are skipped
    /// unread, and a line that is not a well-formed JSON object is a [`LineKind::Trade`]. A line whose keys
    /// name a kind but one of whose values is unreadable (a number past `f64`'s range) is of that kind, so it
    /// is refused as the kind it claims to be, with the field's path.
    pub fn of(line: &str) -> LineKind {
        let mut de = serde_json::Deserializer::from_str(line);
        match de.deserialize_any(KeysSeen) {
            // Trailing text after the object makes the line malformed, hence a trade to refuse.
            Ok(kind) if de.end().is_ok() => kind,
            _ => LineKind::Trade,
        }
    }
}

/// A decoded ingest line.
#[derive(Debug, Clone)]
pub enum IngestLine {
    /// A trade.
    Trade(TradeLine),
    /// A liquidity event.
    Liquidity(LiquidityEvent),
    /// A wallet balance.
    Balance(Balance),
}

/// Why an ingest line is refused: its kind's own error.
#[derive(Debug, thiserror::Error)]
pub enum IngestLineError {
    /// A trade line refused.
    #[error(transparent)]
    Trade(LineError),
    /// A liquidity line refused.
    #[error(transparent)]
    Liquidity(LiquidityLineError),
    /// A balance line refused.
    #[error(transparent)]
    Balance(BalanceLineError),
}

/// Decodes one ingest line of any kind and checks it against `graph`; dates after `latest` (Unix seconds) are
/// refused.
pub fn parse_ingest_line(line: &str, graph: &PoolGraph, latest: i64) -> Result<IngestLine, IngestLineError> {
    match LineKind::of(line) {
        LineKind::Liquidity => {
            parse_liquidity_line(line, graph, latest).map(IngestLine::Liquidity).map_err(IngestLineError::Liquidity)
        }
        LineKind::Balance => {
            parse_balance_line(line, graph, latest).map(IngestLine::Balance).map_err(IngestLineError::Balance)
        }
        LineKind::Trade => parse_trade_line(line, graph, latest).map(IngestLine::Trade).map_err(IngestLineError::Trade),
    }
}

/// Reads an object's keys and skips its values; anything but an object is refused (so it reads as a trade).
struct KeysSeen;

impl<'de> Visitor<'de> for KeysSeen {
    type Value = LineKind;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LineKind, A::Error> {
        let (mut event, mut owner) = (false, false);
        // Keys may be escaped (`"\u006fwner"`), so they are read as owned text rather than borrowed.
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "event" => event = true,
                "owner" => owner = true,
                _ => {}
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(if event {
            LineKind::Liquidity
        } else if owner {
            LineKind::Balance
        } else {
            LineKind::Trade
        })
    }
}

#[cfg(test)]
mod tests {
    use super::LineKind;

    /// The kinds as the old detection told them, which read the line into a `serde_json::Value` and looked for
    /// the key: an independent reference for every line below.
    fn by_value(line: &str) -> LineKind {
        match serde_json::from_str::<serde_json::Value>(line) {
            Ok(v) if v.get("event").is_some() => LineKind::Liquidity,
            Ok(v) if v.get("owner").is_some() => LineKind::Balance,
            _ => LineKind::Trade,
        }
    }

    #[test]
    fn kinds_are_told_apart_by_their_top_level_keys_as_a_json_reader_sees_them() {
        let cases = [
            (r#"{"event":"deposit","pool_address":"x"}"#, LineKind::Liquidity),
            (r#"{"event":null}"#, LineKind::Liquidity),
            (r#"{"owner":"EQ…","event":{"nested":[1,2]}}"#, LineKind::Liquidity),
            (r#"{"owner":"x","asset":"native","balance":"1"}"#, LineKind::Balance),
            (r#"{"\u006fwner":"escaped key"}"#, LineKind::Balance),
            (r#"{"type":"buy","nested":{"event":1,"owner":2}}"#, LineKind::Trade),
            (r#"{}"#, LineKind::Trade),
            (r#"[{"event":1}]"#, LineKind::Trade),
            (r#""event""#, LineKind::Trade),
            (r#"{"event":1} trailing"#, LineKind::Trade),
            (r#"{"event":1"#, LineKind::Trade),
            (r#"{"owner":1,"owner":2}"#, LineKind::Balance),
            ("", LineKind::Trade),
            ("not json", LineKind::Trade),
        ];
        for (line, want) in cases {
            assert_eq!(LineKind::of(line), want, "{line}");
            assert_eq!(by_value(line), want, "reference disagrees on {line}");
        }
        // Values are skipped lexically: a number no JSON value can hold does not hide the line's keys, so it is
        // refused as the balance it claims to be (the reference cannot read it at all).
        let unreadable = r#"{"owner":"x","block":32e143354}"#;
        assert_eq!(LineKind::of(unreadable), LineKind::Balance);
        assert_eq!(by_value(unreadable), LineKind::Trade);
    }
}
