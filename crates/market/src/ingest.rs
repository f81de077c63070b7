//! Trade lines from outside (`tonroute market ingest`): one docs/interface.md CoinTransaction object per line, decoded
//! and checked against the snapshot's pools into a [`StoredTrade`] a store can write. Pure: the caller reads
//! the files, gives the latest date it accepts (its clock) and writes the result.
//!
//! Owns the rules a trade line must pass ([`LineError`] names each refusal) and the checks every ingest line
//! shares (trade, liquidity and balance lines: [`FieldError`], [`DateOutOfRange`], amounts below 2^120, transaction
//! hashes); must not write anything (a store does: `market::store::sql::ingest`).
//!
//! # Prices
//!
//! A line is one trade seen from one coin: the coin is the asset out for a `buy`, the asset in for a `sell`, and
//! `price_usd` / `price_ton` are the coin's. The other side's USD price is `volume_usd` over its whole amount;
//! TON's USD price at the time is `price_usd / price_ton` (else `volume_usd / volume_ton`). These are what the
//! store keeps per trade, so candles and statistics come from the prices the line recorded.

use primitive_types::U256;
use tonlib_core::TonAddress;

use crate::stored::StoredTrade;
use crate::types::{CoinTransaction, TradeType};
use crate::units::whole;
use tonroute_core::asset::{Asset, AssetError};
use tonroute_core::decimal::LargeInteger;
use tonroute_core::graph::PoolGraph;
use tonroute_core::json::{self, JsonError};

/// The earliest trade date accepted: TON's mainnet launch, 2019-11-15T00:00:00Z.
pub const EARLIEST_TRADE: i64 = 1_573_776_000;

/// Amounts are below 2^120 (the router's bound on every amount).
const AMOUNT_BOUND_BITS: usize = 120;

/// A field of an ingest line that should name an address or an asset and does not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FieldError {
    /// An address that does not parse.
    #[error("`{field}` is not an address")]
    BadAddress {
        /// The field.
        field: &'static str,
        /// Why.
        #[source]
        source: tonroute_core::asset::AddressError,
    },
    /// An asset id that does not parse.
    #[error("`{field}` is not an asset id")]
    BadAsset {
        /// The field.
        field: &'static str,
        /// Why.
        #[source]
        source: AssetError,
    },
}

/// A line's date before TON's launch ([`EARLIEST_TRADE`]) or after the latest one the caller accepts. Said in
/// RFC 3339, the format the lines write dates in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{field} {} is out of range ({} to {})",
    crate::conflict::date_text(*date),
    crate::conflict::date_text(*earliest),
    crate::conflict::date_text(*latest)
)]
pub struct DateOutOfRange {
    /// The line's field (`trade_date`, `event_date`, `as_of`).
    pub field: &'static str,
    /// The date, Unix seconds.
    pub date: i64,
    /// Earliest accepted.
    pub earliest: i64,
    /// Latest accepted.
    pub latest: i64,
}

/// Refuses a `date` (Unix seconds) before [`EARLIEST_TRADE`] or after `latest`.
pub(crate) fn check_date(field: &'static str, date: i64, latest: i64) -> Result<(), DateOutOfRange> {
    if (EARLIEST_TRADE..=latest).contains(&date) {
        Ok(())
    } else {
        Err(DateOutOfRange { field, date, earliest: EARLIEST_TRADE, latest })
    }
}

/// `text` as an address, or `field`'s refusal.
pub(crate) fn address_field(text: &str, field: &'static str) -> Result<TonAddress, FieldError> {
    tonroute_core::asset::parse_address(text).map_err(|source| FieldError::BadAddress { field, source })
}

/// `text` as an asset id, or `field`'s refusal.
pub(crate) fn asset_field(text: &str, field: &'static str) -> Result<Asset, FieldError> {
    Asset::parse(text).map_err(|source| FieldError::BadAsset { field, source })
}

/// Decimal `digits` as an amount below 2^120 (`None` for anything else).
pub(crate) fn amount_below_bound(digits: &str) -> Option<u128> {
    U256::from_dec_str(digits).ok().filter(|v| v.bits() <= AMOUNT_BOUND_BITS).map(|v| v.low_u128())
}

/// A transaction hash of 64 hex digits, lowercased (`None` for anything else).
pub(crate) fn tx_hash(text: &str) -> Option<String> {
    (text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())).then(|| text.to_ascii_lowercase())
}

/// Why a trade line is refused.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// Not JSON, not an object, or a field missing or of the wrong type (the error names the field's path).
    #[error("not a CoinTransaction object: {0}")]
    Malformed(#[source] JsonError),
    /// A LargeInteger amount with a minus sign.
    #[error("`{field}` is negative")]
    NegativeAmount {
        /// The field.
        field: &'static str,
    },
    /// A zero amount: a trade moves both of its assets (a zero is a decoding slip upstream, and stored it would
    /// price the trade at zero).
    #[error("`{field}` is zero: a trade moves both assets")]
    ZeroAmount {
        /// The field.
        field: &'static str,
    },
    /// An amount of 2^120 or more.
    #[error("`{field}` is not below 2^120")]
    AmountTooLarge {
        /// The field.
        field: &'static str,
    },
    /// A price or volume that is negative or not finite.
    #[error("`{field}` is not a finite, non-negative number")]
    BadFigure {
        /// The field.
        field: &'static str,
    },
    /// An address or asset id that does not parse.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// A pool the snapshot does not have.
    #[error("unknown pool {pool}")]
    UnknownPool {
        /// Its raw address.
        pool: String,
    },
    /// An asset the pool does not trade (or the same asset on both sides).
    #[error("pool {pool} does not trade {asset_in} for {asset_out}")]
    UnknownAsset {
        /// The pool.
        pool: String,
        /// Asset in.
        asset_in: Asset,
        /// Asset out.
        asset_out: Asset,
    },
    /// Decimals that are not the asset's.
    #[error("`{field}` is {given}, but {asset} has {known} decimals")]
    WrongDecimals {
        /// The field.
        field: &'static str,
        /// The asset.
        asset: Asset,
        /// Given.
        given: i32,
        /// The snapshot's.
        known: u8,
    },
    /// A `trade_date` before TON's launch or after the latest accepted one.
    #[error(transparent)]
    DateOutOfRange(#[from] DateOutOfRange),
    /// A `tx_hash` that is not 64 hex digits.
    #[error("tx_hash is not 64 hex digits")]
    BadTxHash,
}

/// A decoded trade line: the trade as a store keeps it, its asset out, and its whole-token amounts (in, out).
#[derive(Debug, Clone, PartialEq)]
pub struct TradeLine {
    /// The trade.
    pub trade: StoredTrade,
    /// The asset out.
    pub asset_out: Asset,
    /// Whole tokens in.
    pub whole_in: f64,
    /// Whole tokens out.
    pub whole_out: f64,
}

fn amount(given: &LargeInteger, field: &'static str) -> Result<u128, LineError> {
    let text = given.as_str();
    if text.starts_with('-') {
        return Err(LineError::NegativeAmount { field });
    }
    match amount_below_bound(text.strip_prefix('+').unwrap_or(text)) {
        Some(0) => Err(LineError::ZeroAmount { field }),
        Some(v) => Ok(v),
        None => Err(LineError::AmountTooLarge { field }),
    }
}

fn figure(text: &str, field: &'static str) -> Result<f64, LineError> {
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(LineError::BadFigure { field }),
    }
}

/// Decodes one trade line and checks it against `graph`'s pools; dates after `latest` (Unix seconds) are
/// refused.
pub fn parse_trade_line(line: &str, graph: &PoolGraph, latest: i64) -> Result<TradeLine, LineError> {
    let tx: CoinTransaction = json::from_str(line).map_err(LineError::Malformed)?;
    let amount_in = amount(&tx.trade_asset_in_amount, "trade_asset_in_amount")?;
    let amount_out = amount(&tx.trade_asset_out_amount, "trade_asset_out_amount")?;
    let date = tx.trade_date.unix();
    check_date("trade_date", date, latest)?;
    let pool = address_field(&tx.pool_address, "pool_address")?;
    let pid = graph.pool_id(&pool).ok_or_else(|| LineError::UnknownPool { pool: pool.to_hex() })?;
    let (asset_in, asset_out) =
        (asset_field(&tx.trade_asset_in, "trade_asset_in")?, asset_field(&tx.trade_asset_out, "trade_asset_out")?);
    let meta = graph.pool(pid);
    let ids = (graph.asset_id(&asset_in), graph.asset_id(&asset_out));
    let (id_in, id_out) = match ids {
        (Some(i), Some(o)) if i != o && meta.assets.contains(&i) && meta.assets.contains(&o) => (i, o),
        _ => return Err(LineError::UnknownAsset { pool: pool.to_hex(), asset_in, asset_out }),
    };
    let (dec_in, dec_out) = (graph.asset(id_in).decimals, graph.asset(id_out).decimals);
    for (field, asset, given, known) in [
        ("trade_asset_in_decimals", asset_in, tx.trade_asset_in_decimals, dec_in),
        ("trade_asset_out_decimals", asset_out, tx.trade_asset_out_decimals, dec_out),
    ] {
        if given != i32::from(known) {
            return Err(LineError::WrongDecimals { field, asset, given, known });
        }
    }
    let price_usd = figure(tx.price_usd.as_str(), "price_usd")?;
    let price_ton = figure(tx.price_ton.as_str(), "price_ton")?;
    let volume_usd = figure(tx.volume_usd.as_str(), "volume_usd")?;
    let volume_ton = figure(tx.volume_ton.as_str(), "volume_ton")?;
    let tx_hash = tx.tx_hash.as_deref().map(|h| tx_hash(h).ok_or(LineError::BadTxHash)).transpose()?;
    let trader = address_field(&tx.trader_address, "trader_address")?;
    let (whole_in, whole_out) = (whole(amount_in, dec_in), whole(amount_out, dec_out));
    let other = |w: f64| if w > 0.0 { volume_usd / w } else { 0.0 };
    // The coin is the asset out of a buy, the asset in of a sell; the other side's price is the volume over it.
    let (usd_in, usd_out) = match tx.kind {
        TradeType::Buy => (other(whole_in), price_usd),
        TradeType::Sell => (price_usd, other(whole_out)),
    };
    let ton_usd = if price_ton > 0.0 {
        price_usd / price_ton
    } else if volume_ton > 0.0 {
        volume_usd / volume_ton
    } else {
        0.0
    };
    // Ratios of finite figures can still overflow (a huge volume over a dust amount): refused, not stored as ∞.
    for (field, v) in [("volume_usd", usd_in), ("volume_usd", usd_out), ("price_ton", ton_usd)] {
        if !v.is_finite() {
            return Err(LineError::BadFigure { field });
        }
    }
    Ok(TradeLine {
        trade: StoredTrade {
            time: date,
            pool,
            asset_in,
            amount_in,
            amount_out,
            protocol_fee_out: 0,
            trader,
            tx_hash,
            state_after: None,
            usd_in,
            usd_out,
            ton_usd,
            volume_usd,
        },
        asset_out,
        whole_in,
        whole_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_malformed_line_names_the_field_that_failed() {
        let graph = PoolGraph::from_json(r#"{"assets": [], "pools": []}"#).expect("an empty snapshot loads");
        let refused = |line: &str| match parse_trade_line(line, &graph, EARLIEST_TRADE) {
            Err(LineError::Malformed(e)) => (e.path().to_string(), e.category()),
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(refused(r#"{"trade_date": "#).1, serde_json::error::Category::Eof);
        assert_eq!(refused("[]"), (String::new(), serde_json::error::Category::Data));
        let line = r#"{"trade_date": "2024-01-01T00:00:00Z", "trade_asset_in_amount": 5}"#;
        assert_eq!(refused(line), ("trade_asset_in_amount".to_string(), serde_json::error::Category::Data));
        let e = parse_trade_line(line, &graph, EARLIEST_TRADE).unwrap_err().to_string();
        assert!(e.starts_with("not a CoinTransaction object: at `trade_asset_in_amount`: "), "{e}");
    }
}
