//! What an import says it did: the records left out and why ([`SkipReason`], [`Skipped`]), per-file counts
//! ([`FileSummary`]), the whole [`ImportReport`] with its sanity check, and [`ImportError`].
//!
//! Owns the report and its rules (what counts as misread, when a result is refused); must not map records.

use std::collections::BTreeMap;

use super::{PayloadKind, QuoteOnly};
use tonroute_core::graph::snapshot::Snapshot;
use tonroute_core::graph::GraphError;

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
