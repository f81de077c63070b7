//! Pure mapping of the exchanges' saved HTTP API responses to snapshot pools and assets.
//!
//! Owns reading STON.fi (`/v1/pools`, `/v1/routers`, `/v1/assets`), DeDust (`/v2/pools`) and TONCO indexer
//! (`pools`, optionally `positions`) responses into a [`Snapshot`], with the kind of each payload recognised
//! from its content ([`detect`]). No I/O: callers hand in the texts ([`Payload`]) and write the result.
//! Must not know about HTTP clients, files or the graph's internals; every pool it emits passes
//! [`SnapshotPool::validate`], and the whole result is built into a graph before it is returned, so a
//! snapshot out of here always loads.
//!
//! **Skipped, never half-imported.** A record that cannot be routed exactly is left out whole and counted
//! by [`SkipReason`] (deprecated, zero reserves, unknown type, missing data, …) with a few examples kept for
//! the report; a file that is not a known payload is an [`ImportError`] and nothing is produced.
//!
//! **TON** is `native` whether an API writes it as the zero address `EQAAAA…AM9c` (`0:000…0`) or as a
//! proxy-TON master: the known ones ([`KNOWN_PTON_MASTERS`]) and every `pton_master_address` of a given
//! `/v1/routers` response.
//!
//! | source | pool kinds | where the pool type / fee comes from |
//! |---|---|---|
//! | STON.fi `/v1/pools` | `dex_b_v1` (the v1 router, or `major_version` 1), `dex_b_v2` | `/v1/routers` `router_type` when given, else the record's fields (`amp`, `w0`, `rate`) |
//! | DeDust `/v2/pools` | `dex_a` `constant_product` (volatile), `stable_swap` (stable) | `tradeFee` percent string, exact in bps |
//! | TONCO indexer | `dex_c` `concentrated` | `fee` (1/10000), ticks rebuilt from `positions` |
//! | saved get-method answers ([`getters`]) | `dex_b_v1`, `dex_b_v2`, `dex_c`, `dex_a` | the pools' own state, through [`tonroute_core::chain`] |
//!
//! **Swappable where derivable.** What swap messages need and no HTTP API gives — the routers' jetton and
//! proxy-TON wallets, DeDust's vaults — is derived offline where the contracts' rules allow it ([`derive`]);
//! a pool for which it cannot be is imported quote-only and listed in [`ImportReport::quote_only`] with the
//! reason. [`chain`] writes decoded chain state ([`tonroute_core::chain`]) into imported pools: current reserves and
//! fees, and the router wallets read from the pools themselves.
//!
//! **Never a snapshot of nothing.** A tonroute snapshot given as a payload is refused as one
//! ([`ImportError::TonrouteSnapshot`]); [`ImportReport::check`] refuses a result that imported no pool, a
//! pool payload with no records, and one most of whose records could not be read ([`SkipReason::is_misread`]).

pub mod chain;
pub mod dedust;
mod derive;
pub mod getters;
pub mod stonfi;
pub mod tonco;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

pub use derive::QuoteOnly;
use tonroute_core::asset::Asset;
use tonroute_core::graph::snapshot::{Snapshot, SnapshotAsset, SnapshotConcentrated, SnapshotPool};
use tonroute_core::graph::GraphError;

/// Proxy-TON masters that stand for TON in the exchanges' APIs.
///
/// - `0:8cdc1d76…1f7c` (`EQCM3B12…`): pTON v1, ston-fi/sdk `pTON/v1/PtonV1.ts`.
/// - `0:67196302…34a3` (`EQBnGWMC…`): pTON v2.1, the `pton_master_address` of a recorded `/v1/routers` record.
/// - `0:949c4c66…d95e`: TONCO's proxy TON ("WTTON"), as third-party TONCO indexer clients label it (a
///   DefiLlama adapter and two analytics notes); not confirmed by TONCO's own code.
pub const KNOWN_PTON_MASTERS: [&str; 3] = [
    "0:8cdc1d7640ad5ee326527fc1ad0514f468b30dc84b0173f0e155f451b4e11f7c",
    "0:671963027f7f85659ab55b821671688601cdcf1ee674fc7fbbb1a776a18d34a3",
    "0:949c4c66760c002800e2fa3d8a3ca4e1c90a9373b53ae7472033483bf14cd95e",
];

/// One saved API response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    /// Where it came from (a file name), for messages.
    pub name: String,
    /// The response body.
    pub text: String,
}

/// What a payload is, as recognised from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PayloadKind {
    /// STON.fi `/v1/pools` (`{"pool_list": […]}`) or `/v1/pools/{addr}` (`{"pool": {…}}`).
    StonfiPools,
    /// STON.fi `/v1/routers` (`{"router_list": […]}`) or `/v1/routers/{addr}` (`{"router": {…}}`).
    StonfiRouters,
    /// STON.fi `/v1/assets` (`{"asset_list": […]}`) or `/v1/assets/{addr}` (`{"asset": {…}}`).
    StonfiAssets,
    /// DeDust `/v2/pools` (a bare array).
    DedustPools,
    /// TONCO indexer GraphQL answer with `pools` (`{"data": {"pools": […], "positions": […]}}`).
    ToncoPools,
    /// Saved get-method answers of the pools and their wallets (`{"get_methods": […]}`, [`getters`]).
    GetMethods,
}

impl PayloadKind {
    /// Whether payloads of this kind list pools (not routers or assets).
    pub fn holds_pools(self) -> bool {
        matches!(
            self,
            PayloadKind::StonfiPools | PayloadKind::DedustPools | PayloadKind::ToncoPools | PayloadKind::GetMethods
        )
    }

    /// A short description (`STON.fi /v1/pools`, …).
    pub fn describe(self) -> &'static str {
        match self {
            PayloadKind::StonfiPools => "STON.fi /v1/pools",
            PayloadKind::StonfiRouters => "STON.fi /v1/routers",
            PayloadKind::StonfiAssets => "STON.fi /v1/assets",
            PayloadKind::DedustPools => "DeDust /v2/pools",
            PayloadKind::ToncoPools => "TONCO indexer pools",
            PayloadKind::GetMethods => "saved get-method answers",
        }
    }
}

/// Whether `value` is a tonroute snapshot (DESIGN.md "Snapshot format": top-level `assets` and `pools`
/// arrays, pools with `protocol` and `curve`) rather than an exchange's API response.
pub fn is_tonroute_snapshot(value: &Value) -> bool {
    let (Some(Value::Array(assets)), Some(Value::Array(pools))) = (value.get("assets"), value.get("pools")) else {
        return false;
    };
    let pool_like = |p: &Value| p.get("protocol").is_some() && p.get("curve").is_some();
    let asset_like = |a: &Value| a.get("asset").is_some() && a.get("symbol").is_some();
    pools.first().map_or_else(|| assets.first().is_none_or(asset_like), pool_like)
}

/// Recognises a payload from its content; `None` when it is none of the kinds.
pub fn detect(value: &Value) -> Option<PayloadKind> {
    match value {
        Value::Array(items) => {
            let dedust_like =
                |v: &Value| v.get("assets").is_some() && v.get("reserves").is_some() && v.get("address").is_some();
            (items.is_empty() || items.first().is_some_and(dedust_like)).then_some(PayloadKind::DedustPools)
        }
        Value::Object(o) => {
            let has = |k: &str| o.contains_key(k);
            if has("get_methods") {
                Some(PayloadKind::GetMethods)
            } else if has("pool_list") || (has("pool") && o["pool"].get("router_address").is_some()) {
                Some(PayloadKind::StonfiPools)
            } else if has("router_list") || has("router") {
                Some(PayloadKind::StonfiRouters)
            } else if has("asset_list") || has("asset") {
                Some(PayloadKind::StonfiAssets)
            } else if o.get("data").is_some_and(|d| d.get("pools").is_some()) || has("pools") {
                Some(PayloadKind::ToncoPools)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Why a pool record was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// The exchange marks the pool deprecated.
    Deprecated,
    /// A reserve (or the active liquidity) is zero: nothing to route through.
    ZeroReserves,
    /// A pool or router type we cannot price (e.g. STON.fi constant-sum, a DeDust pool type we do not know).
    UnknownType,
    /// A field the pool needs is absent (e.g. `amp` of a stable pool, ticks of a TONCO pool).
    MissingData,
    /// The record is not of the documented shape (wrong JSON types, unparsable numbers or addresses).
    Malformed,
    /// Parameters outside what the contract allows or what we can represent exactly (fee not in whole basis
    /// points, reserve ≥ 2^120, equal assets…).
    Invalid,
    /// An asset the router does not trade (an extra currency, a jetton outside the basechain).
    UnsupportedAsset,
    /// The same pool address again (the first one is kept).
    Duplicate,
    /// TONCO: the ticks rebuilt from positions do not give the pool's active liquidity (an incomplete list).
    InconsistentTicks,
    /// TONCO: the pool was never initialized.
    Uninitialized,
}

impl SkipReason {
    /// Whether the record could not be read as its payload's kind (malformed, of an unknown type, missing a
    /// field, ticks that do not add up) — as opposed to a readable record of a pool that cannot be routed
    /// (deprecated, empty, uninitialized, a duplicate, an unsupported asset, parameters out of range). Real
    /// API dumps hold many of the latter; a payload that is mostly the former is not what it was taken for.
    pub fn is_misread(self) -> bool {
        matches!(
            self,
            SkipReason::Malformed | SkipReason::UnknownType | SkipReason::MissingData | SkipReason::InconsistentTicks
        )
    }

    /// Its name in reports (`deprecated`, `zero_reserves`, …).
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::Deprecated => "deprecated",
            SkipReason::ZeroReserves => "zero_reserves",
            SkipReason::UnknownType => "unknown_type",
            SkipReason::MissingData => "missing_data",
            SkipReason::Malformed => "malformed",
            SkipReason::Invalid => "invalid",
            SkipReason::UnsupportedAsset => "unsupported_asset",
            SkipReason::Duplicate => "duplicate",
            SkipReason::InconsistentTicks => "inconsistent_ticks",
            SkipReason::Uninitialized => "uninitialized",
        }
    }
}

/// One skipped record, kept as an example for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The payload's name.
    pub file: String,
    /// Index of the record in its list.
    pub record: usize,
    /// The pool address, if the record had a readable one.
    pub pool: Option<String>,
    /// Why.
    pub reason: SkipReason,
    /// Details.
    pub detail: String,
}

/// How many examples of each skip reason a report keeps.
pub const EXAMPLES_PER_REASON: usize = 5;

/// A recognised payload and how many records it had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSummary {
    /// The payload's name.
    pub name: String,
    /// Its kind.
    pub kind: PayloadKind,
    /// Records in it (pools, routers or assets).
    pub records: usize,
    /// Its pool records skipped, per reason.
    pub skipped: BTreeMap<SkipReason, usize>,
}

/// The result of an import.
#[derive(Debug, Clone)]
pub struct ImportReport {
    /// The snapshot: the base's pools and assets (if any), with imported pools added or replacing the base's
    /// pools of the same address.
    pub snapshot: Snapshot,
    /// Every payload, in the order given.
    pub files: Vec<FileSummary>,
    /// Pools imported per `protocol/curve`.
    pub imported: BTreeMap<String, usize>,
    /// Base pools replaced by an imported pool of the same address.
    pub replaced: usize,
    /// Records skipped per reason.
    pub skipped: BTreeMap<SkipReason, usize>,
    /// Up to [`EXAMPLES_PER_REASON`] examples per reason.
    pub examples: Vec<Skipped>,
    /// Jetton assets for which no payload gave metadata (symbol and decimals were defaulted).
    pub assets_without_metadata: usize,
    /// Imported pools whose swap messages cannot be built offline, with why (they are quoted, marked).
    pub quote_only: Vec<QuoteOnly>,
}

impl ImportReport {
    /// Pools imported, all kinds.
    pub fn imported_total(&self) -> usize {
        self.imported.values().sum()
    }

    /// Records skipped, all reasons.
    pub fn skipped_total(&self) -> usize {
        self.skipped.values().sum()
    }

    /// The report of importing nothing onto `snapshot`: it is the result as is.
    pub fn unchanged(snapshot: Snapshot) -> ImportReport {
        ImportReport {
            snapshot,
            files: Vec::new(),
            imported: BTreeMap::new(),
            replaced: 0,
            skipped: BTreeMap::new(),
            examples: Vec::new(),
            assets_without_metadata: 0,
            quote_only: Vec::new(),
        }
    }

    /// Refuses a result that should not replace anything: no pool imported ([`ImportError::NothingImported`]),
    /// a pool payload without records ([`ImportError::EmptyPayload`]), or one more than half of whose records
    /// could not be read as its kind ([`ImportError::MostlyUnreadable`], [`SkipReason::is_misread`]; pools the
    /// exchange lists but nobody can route, deprecated or empty ones, do not count).
    pub fn check(&self) -> Result<(), ImportError> {
        let pool_payloads = self.files.iter().filter(|f| f.kind.holds_pools());
        for f in pool_payloads {
            if f.records == 0 {
                return Err(ImportError::EmptyPayload { file: f.name.clone(), kind: f.kind.describe() });
            }
            let unreadable: usize = f.skipped.iter().filter(|(r, _)| r.is_misread()).map(|(_, n)| n).sum();
            if unreadable * 2 > f.records {
                let reasons = f
                    .skipped
                    .iter()
                    .filter(|(r, _)| r.is_misread())
                    .map(|(r, n)| format!("{} {n}", r.name()))
                    .collect::<Vec<_>>()
                    .join(", ");
                return Err(ImportError::MostlyUnreadable {
                    file: f.name.clone(),
                    kind: f.kind.describe(),
                    records: f.records,
                    unreadable,
                    reasons,
                });
            }
        }
        if self.imported_total() == 0 {
            let reasons: Vec<String> = self.skipped.iter().map(|(k, n)| format!("{} {n}", k.name())).collect();
            return Err(ImportError::NothingImported {
                skipped: self.skipped_total(),
                reasons: if reasons.is_empty() { "none".into() } else { reasons.join(", ") },
            });
        }
        Ok(())
    }
}

/// How an import treats what the payloads leave out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// TONCO pools of a payload without `positions` are imported with no ticks instead of skipped as
    /// `missing_data`: the caller reads their ticks from the chain next ([`chain::tonco`]) and must drop every
    /// such pool whose read fails (what `sync` does). Off for offline imports, whose result is routed as is.
    pub ticks_from_chain: bool,
}

/// Why an import produced nothing.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// A payload is not JSON.
    #[error("{file}: not JSON: {source}")]
    Json {
        /// The payload's name.
        file: String,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
    /// A payload is a tonroute snapshot, not an exchange's API response.
    #[error(
        "{file}: this is a tonroute snapshot, not an exchange API response (to import onto it, give it with --base)"
    )]
    TonrouteSnapshot {
        /// The payload's name.
        file: String,
    },
    /// A pool payload with no records.
    #[error("{file}: {kind} with no records: nothing to import (a failed or empty API answer?)")]
    EmptyPayload {
        /// The payload's name.
        file: String,
        /// Its kind.
        kind: &'static str,
    },
    /// More than half of a pool payload's records could not be read as its kind.
    #[error("{file}: {unreadable} of its {records} records could not be read as {kind} ({reasons}): is it the response it looks like?")]
    MostlyUnreadable {
        /// The payload's name.
        file: String,
        /// Its kind.
        kind: &'static str,
        /// Records in it.
        records: usize,
        /// Records that could not be read.
        unreadable: usize,
        /// Those skips per reason.
        reasons: String,
    },
    /// No pool was imported.
    #[error("no pool imported ({skipped} records skipped: {reasons})")]
    NothingImported {
        /// Records skipped.
        skipped: usize,
        /// Per reason.
        reasons: String,
    },
    /// A payload is JSON but none of the known API responses.
    #[error("{file}: not a known API response (STON.fi /v1/pools, /v1/routers, /v1/assets; DeDust /v2/pools; TONCO indexer pools; saved get-method answers)")]
    UnknownKind {
        /// The payload's name.
        file: String,
    },
    /// A known payload whose list is not where it should be.
    #[error("{file}: `{field}` must be {expected}")]
    Shape {
        /// The payload's name.
        file: String,
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
    },
    /// None of the payloads holds pools.
    #[error("no payload holds pools (give a STON.fi /v1/pools, DeDust /v2/pools or TONCO pools response)")]
    NoPools,
    /// The result (with its base) does not load as a graph.
    #[error("the imported snapshot does not load: {source}")]
    Graph {
        /// Why.
        #[source]
        source: GraphError,
    },
}

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
    fn fill_from(&mut self, other: &AssetInfo) {
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
    fn new(reason: SkipReason, pool: Option<&str>, detail: impl Into<String>) -> Skip {
        Skip { reason, pool: pool.map(str::to_string), detail: detail.into() }
    }
}

/// Where an exchange's `map_pools` hands each record's outcome, by the record's index.
pub type EmitPool<'a> = &'a mut dyn FnMut(usize, Result<MappedPool, Skip>);

/// The start of every exchange's pool mapping: the record decoded as `T` and its address (`address` reads it)
/// in raw form. A record that does not decode, or whose address does not parse, is skipped as malformed, named
/// by the address it gives.
pub(crate) fn pool_record<T: serde::de::DeserializeOwned>(
    record: &Value,
    address: fn(&T) -> &str,
) -> Result<(T, String), Skip> {
    let shown = record.get("address").and_then(Value::as_str).map(str::to_string);
    let malformed = |detail: String| Skip { reason: SkipReason::Malformed, pool: shown.clone(), detail };
    let r = T::deserialize(record).map_err(|e| malformed(e.to_string()))?;
    let given = address(&r);
    let raw = raw_address(given).ok_or_else(|| malformed(format!("address `{given}`")))?;
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
    /// Wallet families checked on the chain's answers ([`getters`]), written into the assets' entries.
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

/// Imports the payloads into a new snapshot. See [`import_onto`].
pub fn import_files(payloads: &[Payload]) -> Result<ImportReport, ImportError> {
    import_onto(None, payloads)
}

/// Imports the payloads on top of `base` (imported pools replace base pools of the same address; the base's
/// assets, protocol addresses, wallets and wallet codes are kept). Routers and assets payloads are read first,
/// whatever their order, so that pools can use them.
pub fn import_onto(base: Option<&Snapshot>, payloads: &[Payload]) -> Result<ImportReport, ImportError> {
    import_with(base, payloads, &ImportOptions::default())
}

/// [`import_onto`] with [`ImportOptions`].
pub fn import_with(
    base: Option<&Snapshot>,
    payloads: &[Payload],
    options: &ImportOptions,
) -> Result<ImportReport, ImportError> {
    let mut parsed = Vec::with_capacity(payloads.len());
    for p in payloads {
        let value: Value =
            serde_json::from_str(&p.text).map_err(|source| ImportError::Json { file: p.name.clone(), source })?;
        if is_tonroute_snapshot(&value) {
            return Err(ImportError::TonrouteSnapshot { file: p.name.clone() });
        }
        let kind = detect(&value).ok_or_else(|| ImportError::UnknownKind { file: p.name.clone() })?;
        parsed.push((p, kind, value));
    }
    if !parsed.iter().any(|(_, k, _)| k.holds_pools()) {
        return Err(ImportError::NoPools);
    }
    let mut ctx = Context::new();
    let mut files = Vec::new();
    let mut counts = HashMap::new();
    for (p, kind, value) in &parsed {
        let records = match kind {
            PayloadKind::StonfiRouters => stonfi::read_routers(&p.name, value, &mut ctx)?,
            PayloadKind::StonfiAssets => stonfi::read_assets(&p.name, value, &mut ctx)?,
            PayloadKind::GetMethods => getters::read_context(&p.name, value, &mut ctx)?,
            _ => continue,
        };
        counts.insert(p.name.as_str(), records);
    }
    let mut out = Collector::default();
    for (p, kind, value) in &parsed {
        let records = match kind {
            PayloadKind::StonfiPools => stonfi::map_pools(&p.name, value, &ctx, &mut |i, r| out.take(&p.name, i, r))?,
            PayloadKind::DedustPools => dedust::map_pools(&p.name, value, &ctx, &mut |i, r| out.take(&p.name, i, r))?,
            PayloadKind::ToncoPools => {
                tonco::map_pools(&p.name, value, &ctx, options, &mut |i, r| out.take(&p.name, i, r))?
            }
            PayloadKind::GetMethods => getters::map_pools(&p.name, value, &ctx, &mut |i, r| out.take(&p.name, i, r))?,
            _ => counts.get(p.name.as_str()).copied().unwrap_or(0),
        };
        let skipped = out.per_file.remove(p.name.as_str()).unwrap_or_default();
        files.push(FileSummary { name: p.name.clone(), kind: *kind, records, skipped });
    }
    out.finish(base, &ctx, files)
}

/// Gathers mapped pools and skips.
#[derive(Default)]
struct Collector {
    pools: Vec<MappedPool>,
    seen: HashSet<String>,
    skipped: BTreeMap<SkipReason, usize>,
    per_file: HashMap<String, BTreeMap<SkipReason, usize>>,
    examples: Vec<Skipped>,
}

impl Collector {
    fn skip(&mut self, file: &str, record: usize, s: Skip) {
        *self.per_file.entry(file.to_string()).or_default().entry(s.reason).or_default() += 1;
        let n = self.skipped.entry(s.reason).or_default();
        *n += 1;
        if *n <= EXAMPLES_PER_REASON {
            self.examples.push(Skipped {
                file: file.to_string(),
                record,
                pool: s.pool,
                reason: s.reason,
                detail: s.detail,
            });
        }
    }

    fn take(&mut self, file: &str, record: usize, r: Result<MappedPool, Skip>) {
        let mapped = match r {
            Ok(m) => m,
            Err(s) => return self.skip(file, record, s),
        };
        let address = mapped.pool.address.clone();
        if let Err(e) = mapped.pool.validate() {
            return self.skip(file, record, Skip::new(SkipReason::Invalid, Some(&address), e.to_string()));
        }
        if !self.seen.insert(address.clone()) {
            return self.skip(file, record, Skip::new(SkipReason::Duplicate, Some(&address), "pool listed before"));
        }
        self.pools.push(mapped);
    }

    fn finish(
        mut self,
        base: Option<&Snapshot>,
        ctx: &Context,
        files: Vec<FileSummary>,
    ) -> Result<ImportReport, ImportError> {
        let mut snapshot = base.cloned().unwrap_or_default();
        // Metadata per asset: /v1/assets first, then the pool records, then the base.
        let mut infos: BTreeMap<Asset, AssetInfo> = BTreeMap::new();
        let mut imported = BTreeMap::new();
        for m in &self.pools {
            for (asset, info) in &m.assets {
                let entry = infos.entry(*asset).or_insert_with(|| ctx.assets.get(asset).cloned().unwrap_or_default());
                entry.fill_from(info);
            }
            *imported.entry(format!("{}/{}", m.pool.protocol, m.pool.curve)).or_default() += 1;
        }
        let base_assets: HashMap<Asset, usize> = snapshot
            .assets
            .iter()
            .enumerate()
            .filter_map(|(i, a)| Asset::parse(&a.asset).ok().map(|asset| (asset, i)))
            .collect();
        let mut assets_without_metadata = 0;
        let base_count = snapshot.assets.len();
        for (asset, info) in infos {
            if base_assets.contains_key(&asset) {
                continue;
            }
            if asset != Asset::Native && (info.symbol.is_none() || info.decimals.is_none()) {
                assets_without_metadata += 1;
            }
            let wallet = ctx.wallets.get(&asset).cloned();
            snapshot.assets.push(SnapshotAsset { wallet, ..asset_entry(asset, info) });
        }
        let fresh: HashSet<&str> = self.pools.iter().map(|m| m.pool.address.as_str()).collect();
        let before = snapshot.pools.len();
        snapshot.pools.retain(|p| raw_address(&p.address).is_none_or(|a| !fresh.contains(a.as_str())));
        let replaced = before - snapshot.pools.len();
        let first = snapshot.pools.len();
        let imported_pools: Vec<derive::Imported> = self
            .pools
            .iter_mut()
            .enumerate()
            .map(|(i, m)| derive::Imported { index: first + i, ton_alias: m.ton_alias.take() })
            .collect();
        snapshot.pools.extend(self.pools.into_iter().map(|m| m.pool));
        // The v1 router's proxy-TON wallet, when /v1/routers gave it and the base has none.
        if snapshot.protocols.dex_b_v1.is_none() && snapshot.pools.iter().any(|p| p.protocol == "dex_b_v1") {
            if let Some(wallet) = ctx.routers.get(stonfi::V1_ROUTER).and_then(|r| r.pton_wallet.clone()) {
                snapshot.protocols.dex_b_v1 = Some(tonroute_core::graph::snapshot::DexBV1Context {
                    router: stonfi::V1_ROUTER.to_string(),
                    pton_wallet: wallet,
                });
            }
        }
        let quote_only = derive::complete(&mut snapshot, &imported_pools, base_count, ctx);
        if base.is_none() {
            snapshot.source = Some(format!(
                "tonroute import of {}",
                files.iter().map(|f| format!("{} ({})", f.name, f.kind.describe())).collect::<Vec<_>>().join(", ")
            ));
        }
        snapshot.into_graph().map_err(|source| ImportError::Graph { source })?;
        Ok(ImportReport {
            snapshot,
            files,
            imported,
            replaced,
            skipped: self.skipped,
            examples: self.examples,
            assets_without_metadata,
            quote_only,
        })
    }
}

/// The snapshot entry of an asset. Without metadata, a jetton gets TEP-64's default of 9 decimals and its
/// master's first hex digits as symbol.
fn asset_entry(asset: Asset, info: AssetInfo) -> SnapshotAsset {
    let (symbol, name, decimals) = match asset {
        Asset::Native => ("TON".to_string(), "Toncoin".to_string(), 9),
        Asset::Jetton(m) => {
            let fallback = format!("0:{}…", &m.to_raw()[2..10]);
            let symbol = info.symbol.clone().filter(|s| !s.is_empty()).unwrap_or(fallback);
            (symbol.clone(), info.name.clone().filter(|n| !n.is_empty()).unwrap_or(symbol), info.decimals.unwrap_or(9))
        }
    };
    SnapshotAsset {
        asset: asset.to_string(),
        symbol,
        name,
        decimals,
        usd_price: info.usd_price.filter(|p| p.parse::<f64>().is_ok_and(|v| v.is_finite() && v >= 0.0)),
        image: info.image.filter(|i| !i.is_empty()),
        wallet: None,
    }
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
