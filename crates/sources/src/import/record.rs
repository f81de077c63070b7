//! The pieces every exchange's reader shares: the context the other payloads give ([`Context`]: routers,
//! TON's aliases, asset metadata), a mapped record ([`MappedPool`]) or why it was left out ([`Skip`]), and
//! the small readers of addresses, amounts and record lists.
//!
//! Owns those helpers; must not know one exchange's record layout (`dex_a.rs`, `dex_b.rs`, `dex_c.rs` do).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::{ImportError, SkipReason, KNOWN_PTON_MASTERS};
use tonroute_core::asset::Asset;
use tonroute_core::graph::snapshot::{SnapshotConcentrated, SnapshotPool};
use tonroute_core::json;

/// Metadata an API gives for an asset.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AssetInfo {
    /// Ticker.
    pub symbol: Option<String>,
    /// Display name.
    pub name: Option<String>,
    /// Decimals.
    pub decimals: Option<u8>,
    /// Image URL.
    pub image: Option<String>,
    /// USD price as a decimal string.
    pub usd_price: Option<String>,
}

impl AssetInfo {
    /// Fills what `self` lacks from `other`.
    pub(super) fn fill_from(&mut self, other: &AssetInfo) {
        self.symbol = self.symbol.take().or_else(|| other.symbol.clone());
        self.name = self.name.take().or_else(|| other.name.clone());
        self.decimals = self.decimals.or(other.decimals);
        self.image = self.image.take().or_else(|| other.image.clone());
        self.usd_price = self.usd_price.take().or_else(|| other.usd_price.clone());
    }
}

/// A pool mapped from a record, with what the record said about its assets.
#[derive(Debug, Clone)]
pub struct MappedPool {
    /// The snapshot entry.
    pub pool: SnapshotPool,
    /// The pool's assets and the metadata the record carried for them.
    pub assets: [(Asset, AssetInfo); 2],
    /// The proxy-TON master the record wrote for TON (raw form), when it wrote one (not the zero address):
    /// whose wallet the router's TON side is.
    pub ton_alias: Option<String>,
}

/// The proxy-TON master `text` names, raw form, when `asset` (what it was read as) is TON through an alias.
pub(crate) fn ton_alias(text: &str, asset: &Asset) -> Option<String> {
    let raw = raw_address(text)?;
    (asset.is_native() && raw != format!("0:{}", "0".repeat(64))).then_some(raw)
}

/// A record that is not imported: why, and the pool address when readable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skip {
    /// Why.
    pub reason: SkipReason,
    /// The pool address, if readable.
    pub pool: Option<String>,
    /// Details.
    pub detail: String,
}

impl Skip {
    pub(crate) fn new(reason: SkipReason, pool: Option<&str>, detail: impl Into<String>) -> Skip {
        Skip { reason, pool: pool.map(str::to_string), detail: detail.into() }
    }
}

/// Where an exchange's `map_pools` hands each record's outcome, by the record's index.
pub type EmitPool<'a> = &'a mut dyn FnMut(usize, Result<MappedPool, Skip>);

/// A number an API writes either as a string or as a JSON number, kept as text: integers always, fractions
/// only when `FRACTIONS` (a JSON fraction is then written back as serde_json writes it, `0.25`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NumText<const FRACTIONS: bool = false>(pub(crate) String);

impl<'de, const FRACTIONS: bool> serde::Deserialize<'de> for NumText<FRACTIONS> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumTextVisitor::<FRACTIONS>)
    }
}

struct NumTextVisitor<const FRACTIONS: bool>;

impl<const FRACTIONS: bool> serde::de::Visitor<'_> for NumTextVisitor<FRACTIONS> {
    type Value = NumText<FRACTIONS>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if FRACTIONS { "a number or a decimal string" } else { "an integer or a decimal string" })
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(NumText(v.to_string()))
    }

    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(NumText(v.to_string()))
    }

    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(NumText(v.to_string()))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
        match serde_json::Number::from_f64(v) {
            Some(n) if FRACTIONS => Ok(NumText(n.to_string())),
            _ => Err(E::invalid_type(serde::de::Unexpected::Float(v), &self)),
        }
    }
}

/// The address every exchange's record gives, read on its own so that a record whose other fields do not read
/// is still named by it.
#[derive(serde::Deserialize)]
struct Named {
    address: String,
}

/// The start of every exchange's pool mapping: the record decoded as `T` and its address (`address` reads it)
/// in raw form. A record that does not decode (the detail names the failing field's path), or whose address
/// does not parse, is skipped as malformed, named by the address it gives.
pub(crate) fn pool_record<T: serde::de::DeserializeOwned>(
    record: &Value,
    address: fn(&T) -> &str,
) -> Result<(T, String), Skip> {
    let shown = json::from_value::<Named>(record).ok().map(|n| n.address);
    let malformed = |detail: String| Skip { reason: SkipReason::Malformed, pool: shown.clone(), detail };
    let r: T = json::from_value(record).map_err(|e| malformed(e.to_string()))?;
    let given = address(&r);
    let raw = tonroute_core::asset::parse_address(given)
        .map(|a| a.to_hex())
        .map_err(|e| malformed(format!("address `{given}`: {e}")))?;
    Ok((r, raw))
}

/// What the STON.fi router list says about one router.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouterInfo {
    /// `major_version` (1 or 2).
    pub major_version: u32,
    /// `router_type` as written (`ConstantProduct`, `StableSwap`, …).
    pub router_type: Option<String>,
    /// Its proxy-TON master, if given.
    pub pton_master: Option<Asset>,
    /// Its proxy-TON wallet (raw form), if given.
    pub pton_wallet: Option<String>,
}

/// What pool mapping needs from the other payloads: routers, TON's aliases, asset metadata.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// STON.fi routers by raw address.
    pub routers: HashMap<String, RouterInfo>,
    /// Masters that stand for TON (raw form), besides the zero address.
    pub native_masters: HashSet<String>,
    /// Metadata per asset from `/v1/assets`.
    pub assets: HashMap<Asset, AssetInfo>,
    /// Wallet families checked on the chain's answers ([`super::getters`]), written into the assets' entries.
    pub wallets: HashMap<Asset, tonroute_core::graph::snapshot::SnapshotWallet>,
}

impl Context {
    /// A context knowing only [`KNOWN_PTON_MASTERS`].
    pub fn new() -> Context {
        Context { native_masters: KNOWN_PTON_MASTERS.iter().map(|s| s.to_string()).collect(), ..Context::default() }
    }

    /// An address (any accepted form) as an asset: the zero address and proxy-TON masters are `native`.
    pub fn asset(&self, text: &str) -> Result<Asset, tonroute_core::asset::AssetError> {
        match Asset::parse(text)? {
            Asset::Jetton(m) if m.0 == [0u8; 32] || self.native_masters.contains(&m.to_raw()) => Ok(Asset::Native),
            other => Ok(other),
        }
    }
}

/// A non-negative decimal integer string as a `u128` below 2^120 (`Coins`).
pub(crate) fn coins(text: &str) -> Option<u128> {
    if text.is_empty() || text.len() > 40 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse::<u128>().ok().filter(|v| *v <= tonroute_core::pool::MAX_COINS)
}

/// A reserve as written by an API: [`SkipReason::Malformed`] when it is not a decimal integer,
/// [`SkipReason::Invalid`] when it is one at or above 2^120.
pub(crate) fn reserve(pool: &str, text: &str) -> Result<u128, Skip> {
    coins(text).ok_or_else(|| {
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            Skip::new(SkipReason::Invalid, Some(pool), format!("reserve {text} is not below 2^120"))
        } else {
            Skip::new(SkipReason::Malformed, Some(pool), format!("reserve `{text}` is not a decimal integer"))
        }
    })
}

/// A raw address (`0:<hex>`) from any form [`tonroute_core::asset::parse_address`] accepts, `None` if it is not one.
pub(crate) fn raw_address(text: &str) -> Option<String> {
    tonroute_core::asset::parse_address(text).ok().map(|a| a.to_hex())
}

/// A pool entry with the fields every exchange's record gives; the curve-specific ones (`amp`, `w0`, `rate`,
/// `router`, `concentrated`) and the protocol/referral fees are empty, for the caller to fill in with
/// `SnapshotPool { field, ..pool_entry(…) }`.
pub(crate) fn pool_entry(
    address: String,
    protocol: &str,
    curve: &str,
    assets: [String; 2],
    reserves: [u128; 2],
    lp_fee: u16,
) -> SnapshotPool {
    SnapshotPool {
        address,
        protocol: protocol.to_string(),
        curve: curve.to_string(),
        assets,
        reserves: [reserves[0].to_string(), reserves[1].to_string()],
        lp_fee,
        protocol_fee: 0,
        ref_fee: 0,
        amp: None,
        w0: None,
        rate: None,
        router: None,
        router_wallets: None,
        volatility: None,
        concentrated: SnapshotConcentrated::default(),
    }
}

/// The list under `field` of a payload object, or the single record under `single`.
pub(crate) fn records<'a>(
    file: &str,
    value: &'a Value,
    field: &'static str,
    single: &'static str,
) -> Result<Vec<&'a Value>, ImportError> {
    if let Some(list) = value.get(field) {
        return match list {
            Value::Array(items) => Ok(items.iter().collect()),
            _ => Err(ImportError::Shape { file: file.to_string(), field, expected: "an array" }),
        };
    }
    match value.get(single) {
        Some(one @ Value::Object(_)) => Ok(vec![one]),
        _ => Err(ImportError::Shape { file: file.to_string(), field: single, expected: "an object" }),
    }
}
