//! The stream format: a bucket key ↔ a pool address, a JSON value ↔ a pool change. Pure; no NATS here.
//!
//! **Key**: the pool address's account id, 64 lowercase hex digits (workchain 0, the only one TON's DEXes
//! run on): `8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6`.
//!
//! **Value** (JSON object), one of:
//! - **reserves only**, for a pool the replica has: `{"reserves": ["<r0>", "<r1>"]}` — two decimal strings in
//!   contract order, each in `1..2^120` (a zero, negative, fractional or missing reserve is refused; an empty
//!   pool is removed with a delete instead). No other field is allowed besides the stamp, so a misspelt field
//!   is an error rather than silently ignored. Concentrated (`dex_c`) pools refuse it: their reserves follow
//!   their state, sent as a full entry.
//! - **a full pool entry** in the snapshot format ([`SnapshotPool`], `crates/core/src/graph/snapshot.rs`), whose `address`
//!   is the key's pool: adds the pool, or replaces the one with that address. A pool whose assets the replica
//!   may not know carries their snapshot asset entries in `asset_entries` (only for the pool's own two assets;
//!   a wallet `code_ref` cannot be resolved in a stream value, give `code`). A full entry that keeps a known
//!   pool's structure (protocol, assets, router addresses, curve parameters; a `dex_c` pool's fees and tick
//!   spacing) only moves its state and applies in place; any other change rebuilds the graph.
//! - **a delete** (KV delete or purge, no value) removes the pool.
//!
//! Both kinds of value may carry a **stamp**: `"seqno"` (the masterchain block the state was read at, u32)
//! and/or `"time"` (its Unix time in seconds). A replica refuses a value older than the last one it applied
//! to that pool (by `seqno` when both have one, else by `time`), so a late or replayed write cannot roll a
//! pool back. Values without a stamp are applied in stream order.
//!
//! Everything here is checked before anything is applied: a [`ValueError`] says what is wrong and which
//! [`SkipReason`] it is counted under.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tonlib_core::TonAddress;

use tonroute_core::asset::Asset;
use tonroute_core::graph::snapshot::{SnapshotAsset, SnapshotPool};
use tonroute_core::graph::{AssetSpec, GraphError, PoolSpec};
use tonroute_core::json::{self, JsonError};
use tonroute_core::pool::MAX_COINS;

/// The bucket replicas watch and publishers write unless told otherwise.
pub const DEFAULT_BUCKET: &str = "tonroute-pools";

/// When a pool's state was observed on chain (both optional).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Stamp {
    /// Masterchain block sequence number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seqno: Option<u32>,
    /// Unix time, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<u64>,
}

impl Stamp {
    /// Whether this stamp is strictly older than `last`: by `seqno` when both have one, else by `time` when
    /// both have one; never when they share neither.
    pub fn is_older_than(&self, last: &Stamp) -> bool {
        match (self.seqno, last.seqno, self.time, last.time) {
            (Some(a), Some(b), _, _) => a < b,
            (_, _, Some(a), Some(b)) => a < b,
            _ => false,
        }
    }

    /// The newer of two stamps field by field (for "newest seen" figures).
    pub fn max(self, other: Stamp) -> Stamp {
        Stamp { seqno: self.seqno.max(other.seqno), time: self.time.max(other.time) }
    }

    /// The stamp a stored value carries: its `seqno` and `time` fields, whatever else the value holds (what a
    /// publisher compares with before overwriting it; a value a replica would skip for another reason still
    /// says when its writer meant it to be). `None` when the value is not a JSON object or a stamp field has
    /// the wrong type.
    pub fn of_value(value: &[u8]) -> Option<Stamp> {
        // Through a map first: serde would also read a struct from a JSON array (`[10]` as seqno 10).
        let object: serde_json::Map<String, serde_json::Value> = serde_json::from_slice(value).ok()?;
        Stamp::deserialize(serde_json::Value::Object(object)).ok()
    }
}

/// For people: `block 41000000 at 2024-11-21T12:05:00Z`, `block 5`, `at 2024-11-21T12:05:00Z` (UTC), or
/// `no stamp`. A time past what a date can show is written as `at unix time N`.
impl std::fmt::Display for Stamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let time = |t: u64| {
            i64::try_from(t)
                .ok()
                .and_then(|t| time::OffsetDateTime::from_unix_timestamp(t).ok())
                .and_then(|d| d.format(&time::format_description::well_known::Rfc3339).ok())
                .unwrap_or_else(|| format!("unix time {t}"))
        };
        match (self.seqno, self.time) {
            (Some(seqno), Some(t)) => write!(f, "block {seqno} at {}", time(t)),
            (Some(seqno), None) => write!(f, "block {seqno}"),
            (None, Some(t)) => write!(f, "at {}", time(t)),
            (None, None) => f.write_str("no stamp"),
        }
    }
}

/// A change to one pool as a publisher states it (the wire side of [`Change`]).
#[derive(Debug, Clone)]
pub enum PoolChange {
    /// New reserves for a pool replicas have.
    Reserves {
        /// The pool.
        pool: TonAddress,
        /// Reserves in contract order.
        reserves: [u128; 2],
        /// When they were observed.
        stamp: Stamp,
    },
    /// A pool added or replaced whole.
    Pool {
        /// The pool entry, snapshot format.
        pool: Box<SnapshotPool>,
        /// Entries for the pool's assets that replicas may not have (may be empty).
        asset_entries: Vec<SnapshotAsset>,
        /// When it was observed.
        stamp: Stamp,
    },
    /// A pool removed.
    Remove {
        /// The pool.
        pool: TonAddress,
    },
}

/// A checked change, ready to apply (the replica side of [`PoolChange`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// New reserves.
    Reserves {
        /// The pool.
        pool: TonAddress,
        /// Reserves, both in `1..2^120`.
        reserves: [u128; 2],
        /// When they were observed.
        stamp: Stamp,
    },
    /// A pool added or replaced.
    Pool {
        /// The pool, checked.
        spec: Box<PoolSpec>,
        /// The assets its value described, checked.
        assets: Vec<AssetSpec>,
        /// When it was observed.
        stamp: Stamp,
    },
    /// A pool removed.
    Remove {
        /// The pool.
        pool: TonAddress,
    },
}

impl Change {
    /// The pool the change is about.
    pub fn pool(&self) -> &TonAddress {
        match self {
            Change::Reserves { pool, .. } | Change::Remove { pool } => pool,
            Change::Pool { spec, .. } => &spec.address,
        }
    }
}

/// Why a stream entry was skipped (the counters of [`crate::feed::FeedStats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SkipReason {
    /// The key is not 64 lowercase hex digits.
    Key,
    /// The value is not JSON of either shape (syntax, types, unknown or missing fields).
    Json,
    /// A reserves-only value with a bad reserve (zero, negative, not an integer, ≥ 2^120, not two of them).
    Reserves,
    /// A full entry the snapshot rules refuse (address ≠ key, protocol, curve, assets, fees, …).
    Pool,
    /// A reserves-only value for a pool the replica does not have.
    UnknownPool,
    /// Older than the last value applied to the pool (by its stamp).
    Stale,
    /// Valid on its own but refused by the graph (e.g. reserves-only for a concentrated pool, a pool whose
    /// assets nobody described).
    Refused,
}

impl SkipReason {
    /// Every reason, in counter order.
    pub const ALL: [SkipReason; 7] = [
        SkipReason::Key,
        SkipReason::Json,
        SkipReason::Reserves,
        SkipReason::Pool,
        SkipReason::UnknownPool,
        SkipReason::Stale,
        SkipReason::Refused,
    ];

    /// Its name in reports and metrics (`key`, `json`, `reserves`, `pool`, `unknown_pool`, `stale`, `refused`).
    pub fn name(self) -> &'static str {
        match self {
            SkipReason::Key => "key",
            SkipReason::Json => "json",
            SkipReason::Reserves => "reserves",
            SkipReason::Pool => "pool",
            SkipReason::UnknownPool => "unknown_pool",
            SkipReason::Stale => "stale",
            SkipReason::Refused => "refused",
        }
    }
}

/// A stream entry that cannot be applied, and why.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ValueError {
    /// A key that is not a pool's 64 lowercase hex digits.
    #[error("key `{key}` is not a pool address (64 lowercase hex digits of a workchain-0 account id)")]
    Key {
        /// The key as received (cut to 80 characters).
        key: String,
    },
    /// A pool outside workchain 0 has no key.
    #[error("pool {pool}: only workchain-0 pools can be keyed")]
    Workchain {
        /// The pool.
        pool: String,
    },
    /// The value is not JSON of either shape.
    #[error("pool {pool}: value is not a reserves-only or pool entry: {source}")]
    Json {
        /// The key's pool.
        pool: String,
        /// The parser's complaint, with the failing field's path.
        #[source]
        source: JsonError,
    },
    /// A change that does not encode as JSON (a replica would refuse it).
    #[error("pool {pool}: the value does not encode: {source}")]
    Encode {
        /// The change's pool.
        pool: String,
        /// serde_json's complaint.
        #[source]
        source: serde_json::Error,
    },
    /// A reserves-only value whose reserves are unusable.
    #[error("pool {pool}: reserves: {reason}")]
    Reserves {
        /// The key's pool.
        pool: String,
        /// What is wrong.
        reason: String,
    },
    /// A full entry whose `address` is another pool than its key's.
    #[error("pool {pool}: the entry's address {address} is not the key's pool")]
    AddressMismatch {
        /// The key's pool.
        pool: String,
        /// The entry's address.
        address: String,
    },
    /// An `asset_entries` item for an asset the pool does not trade.
    #[error("pool {pool}: asset_entries lists {asset}, which the pool does not trade")]
    ForeignAsset {
        /// The key's pool.
        pool: String,
        /// The asset.
        asset: String,
    },
    /// A full entry the snapshot rules refuse.
    #[error(transparent)]
    Pool(#[from] GraphError),
}

impl ValueError {
    /// The counter this error is skipped under.
    pub fn reason(&self) -> SkipReason {
        match self {
            ValueError::Key { .. } | ValueError::Workchain { .. } => SkipReason::Key,
            ValueError::Json { .. } | ValueError::Encode { .. } => SkipReason::Json,
            ValueError::Reserves { .. } => SkipReason::Reserves,
            ValueError::AddressMismatch { .. } | ValueError::ForeignAsset { .. } | ValueError::Pool(_) => {
                SkipReason::Pool
            }
        }
    }
}

/// The key of a pool: its account id in 64 lowercase hex digits. Workchain 0 only.
pub fn pool_key(pool: &TonAddress) -> Result<String, ValueError> {
    if pool.workchain != 0 {
        return Err(ValueError::Workchain { pool: pool.to_hex() });
    }
    Ok(hex_lower(pool.hash_part.as_slice()))
}

fn hex_lower(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

/// The pool a key names. Exactly 64 characters of `0-9a-f`: upper case, a `0:` prefix or a friendly address
/// are refused, so each pool has one key.
pub fn parse_key(key: &str) -> Result<TonAddress, ValueError> {
    let bad = || ValueError::Key { key: key.chars().take(80).collect() };
    let bytes = key.as_bytes();
    if bytes.len() != 64 {
        return Err(bad());
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut hash = [0u8; 32];
    for (i, out) in hash.iter_mut().enumerate() {
        *out = (nibble(bytes[2 * i]).ok_or_else(bad)? << 4) | nibble(bytes[2 * i + 1]).ok_or_else(bad)?;
    }
    Ok(TonAddress::new(0, hash.into()))
}

/// A reserves-only value.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReservesValue {
    reserves: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seqno: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    time: Option<u64>,
}

/// A full pool entry: the snapshot pool, the descriptions of its assets, the stamp.
#[derive(Debug, Serialize, Deserialize)]
struct PoolValue {
    #[serde(flatten)]
    pool: SnapshotPool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    asset_entries: Vec<SnapshotAsset>,
    #[serde(flatten)]
    stamp: Stamp,
}

/// Which shape a value has: a full entry names its pool.
#[derive(Deserialize)]
struct Shape {
    #[serde(default)]
    address: Option<serde::de::IgnoredAny>,
}

/// Decodes one stream entry: its key and its value (`None` for a delete or purge).
pub fn decode(key: &str, value: Option<&[u8]>) -> Result<Change, ValueError> {
    let pool = parse_key(key)?;
    let Some(value) = value else {
        return Ok(Change::Remove { pool });
    };
    let bad = |source| ValueError::Json { pool: pool.to_hex(), source };
    let shape: Shape = json::from_slice(value).map_err(bad)?;
    if shape.address.is_none() {
        let v: ReservesValue = json::from_slice(value).map_err(bad)?;
        let reserves = reserves_of(&pool, &v.reserves)?;
        return Ok(Change::Reserves { pool, reserves, stamp: Stamp { seqno: v.seqno, time: v.time } });
    }
    let v: PoolValue = json::from_slice(value).map_err(bad)?;
    let spec = v.pool.to_spec()?;
    if spec.address != pool {
        return Err(ValueError::AddressMismatch {
            pool: pool.to_hex(),
            address: v.pool.address.chars().take(80).collect(),
        });
    }
    let mut codes = BTreeMap::new();
    let assets = v
        .asset_entries
        .iter()
        .map(|a| {
            let spec_a = a.to_spec(&BTreeMap::new(), &mut codes)?;
            if !spec.assets.contains(&spec_a.meta.asset) {
                return Err(ValueError::ForeignAsset { pool: pool.to_hex(), asset: spec_a.meta.asset.to_string() });
            }
            Ok(spec_a)
        })
        .collect::<Result<Vec<_>, ValueError>>()?;
    Ok(Change::Pool { spec: Box::new(spec), assets, stamp: v.stamp })
}

/// Two reserves, each a decimal integer in `1..2^120`.
fn reserves_of(pool: &TonAddress, texts: &[String]) -> Result<[u128; 2], ValueError> {
    let bad = |reason: String| ValueError::Reserves { pool: pool.to_hex(), reason };
    let [a, b] = texts else {
        return Err(bad(format!("expected two reserves, got {}", texts.len())));
    };
    let one = |text: &String| -> Result<u128, ValueError> {
        let shown: String = text.chars().take(60).collect();
        if text.starts_with('-') {
            return Err(bad(format!("`{shown}` is negative")));
        }
        if text.is_empty() || !text.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad(format!("`{shown}` is not a decimal integer")));
        }
        let v = text
            .parse::<u128>()
            .ok()
            .filter(|v| *v <= MAX_COINS)
            .ok_or_else(|| bad(format!("`{shown}` is not below 2^120")))?;
        if v == 0 {
            return Err(bad("a reserve is zero (remove an empty pool with a delete)".into()));
        }
        Ok(v)
    };
    Ok([one(a)?, one(b)?])
}

impl PoolChange {
    /// The stamp of the value this change writes (`None` for a delete: replicas apply deletes in stream order).
    pub fn stamp(&self) -> Option<Stamp> {
        match self {
            PoolChange::Reserves { stamp, .. } | PoolChange::Pool { stamp, .. } => Some(*stamp),
            PoolChange::Remove { .. } => None,
        }
    }

    /// The key and value to write (`None`: delete the key). A change replicas would refuse is refused here
    /// with the same error, so a publisher never writes a value that every replica skips.
    pub fn encode(&self) -> Result<(String, Option<Vec<u8>>), ValueError> {
        let (key, bytes) = match self {
            PoolChange::Reserves { pool, reserves, stamp } => {
                let key = pool_key(pool)?;
                let texts = reserves.map(|r| r.to_string());
                reserves_of(pool, &texts)?;
                let v = ReservesValue { reserves: texts.to_vec(), seqno: stamp.seqno, time: stamp.time };
                (
                    key,
                    Some(serde_json::to_vec(&v).map_err(|source| ValueError::Encode { pool: pool.to_hex(), source })?),
                )
            }
            PoolChange::Pool { pool, asset_entries, stamp } => {
                let spec = pool.to_spec()?;
                let key = pool_key(&spec.address)?;
                let v = PoolValue { pool: pool.as_ref().clone(), asset_entries: asset_entries.clone(), stamp: *stamp };
                let bytes = serde_json::to_vec(&v)
                    .map_err(|source| ValueError::Encode { pool: spec.address.to_hex(), source })?;
                // The same checks a replica makes (address = key, asset entries of the pool's own assets).
                decode(&key, Some(&bytes))?;
                (key, Some(bytes))
            }
            PoolChange::Remove { pool } => (pool_key(pool)?, None),
        };
        Ok((key, bytes))
    }

    /// Every pool of a snapshot as full entries, each carrying the entries of its two assets (so a replica
    /// started from another snapshot still learns them), all with `stamp`.
    pub fn from_snapshot(snapshot: &tonroute_core::graph::snapshot::Snapshot, stamp: Stamp) -> Vec<PoolChange> {
        PoolChange::from_pools(snapshot, &snapshot.pools, stamp)
    }

    /// `pools` (of `snapshot`, or replacing some of its pools) as full entries, each carrying the entries of
    /// its two assets from `snapshot`, all with `stamp`: what a publisher of changed pools writes.
    pub fn from_pools<'a>(
        snapshot: &tonroute_core::graph::snapshot::Snapshot,
        pools: impl IntoIterator<Item = &'a SnapshotPool>,
        stamp: Stamp,
    ) -> Vec<PoolChange> {
        let by_id: BTreeMap<Asset, &SnapshotAsset> =
            snapshot.assets.iter().filter_map(|a| Asset::parse(&a.asset).ok().map(|id| (id, a))).collect();
        pools
            .into_iter()
            .map(|p| {
                let asset_entries = p
                    .assets
                    .iter()
                    .filter_map(|text| Asset::parse(text).ok())
                    .filter_map(|id| by_id.get(&id))
                    .map(|a| without_code_ref(a, snapshot))
                    .collect();
                PoolChange::Pool { pool: Box::new(p.clone()), asset_entries, stamp }
            })
            .collect()
    }
}

/// An asset entry whose wallet `code_ref` is replaced by the code it names (a stream value has no
/// `wallet_codes` table).
fn without_code_ref(a: &SnapshotAsset, snapshot: &tonroute_core::graph::snapshot::Snapshot) -> SnapshotAsset {
    let mut a = a.clone();
    if let Some(w) = &mut a.wallet {
        if let Some(code) = w.code_ref.as_ref().and_then(|name| snapshot.wallet_codes.get(name)) {
            w.code = Some(code.clone());
            w.code_ref = None;
        }
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6";
    const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";

    fn pool_value(address: &str, extra: &str) -> String {
        format!(
            r#"{{"address": "{address}", "protocol": "dex_b_v2", "curve": "constant_product",
                 "assets": ["native", "{USDT}"], "reserves": ["1860000000000000", "2570000000000"],
                 "lp_fee": 20, "protocol_fee": 10 {extra}}}"#
        )
    }

    #[test]
    fn keys_are_the_account_id_in_lowercase_hex() {
        let pool = parse_key(KEY).unwrap();
        assert_eq!(pool.to_hex(), format!("0:{KEY}"));
        assert_eq!(pool_key(&pool).unwrap(), KEY);
        for bad in [&KEY.to_uppercase()[..], &KEY[1..], &format!("0:{KEY}")[..], "", &format!("{KEY}0")[..]] {
            let err = parse_key(bad).unwrap_err();
            assert_eq!(err.reason(), SkipReason::Key, "{bad}");
        }
        let master = TonAddress::new(-1, [1u8; 32].into());
        assert!(matches!(pool_key(&master), Err(ValueError::Workchain { .. })));
    }

    #[test]
    fn reserves_only_values() {
        let ok = decode(KEY, Some(br#"{"reserves": ["1806615000000000", "2601328000000"], "seqno": 41000000}"#));
        assert_eq!(
            ok.unwrap(),
            Change::Reserves {
                pool: parse_key(KEY).unwrap(),
                reserves: [1_806_615_000_000_000, 2_601_328_000_000],
                stamp: Stamp { seqno: Some(41_000_000), time: None },
            }
        );
        let cases: [(&[u8], SkipReason, &str); 11] = [
            (br#"{"reserves": ["0", "5"]}"#, SkipReason::Reserves, "zero"),
            (br#"{"reserves": ["-5", "5"]}"#, SkipReason::Reserves, "negative"),
            (br#"{"reserves": ["5"]}"#, SkipReason::Reserves, "got 1"),
            (br#"{"reserves": ["5", "5", "5"]}"#, SkipReason::Reserves, "got 3"),
            (br#"{"reserves": ["1.5", "5"]}"#, SkipReason::Reserves, "decimal integer"),
            (br#"{"reserves": ["1329227995784915872903807060280344577", "5"]}"#, SkipReason::Reserves, "2^120"),
            (br#"{"reserves": [5, 5]}"#, SkipReason::Json, "invalid type"),
            (br#"{"reserve": ["5", "5"]}"#, SkipReason::Json, "unknown field"),
            (br#"{"reserves": ["5", "5"], "seqno": -1}"#, SkipReason::Json, "expected u32"),
            (b"{\"reserves\": [\"5\", \"5\"", SkipReason::Json, "EOF"),
            (b"\xff\xfe", SkipReason::Json, "expected value"),
        ];
        for (value, reason, needle) in cases {
            let err = decode(KEY, Some(value)).unwrap_err();
            assert_eq!(err.reason(), reason, "{}: {err}", String::from_utf8_lossy(value));
            assert!(err.to_string().contains(needle), "`{err}` should mention `{needle}`");
            assert!(err.to_string().contains(KEY), "`{err}` should name the pool");
        }
        // A value of the wrong type is named by its path; a syntax error by none.
        for (value, path) in [
            (&br#"{"reserves": ["5", 5]}"#[..], "reserves[1]"),
            (br#"{"reserves": ["5", "5"], "seqno": -1}"#, "seqno"),
            (b"\xff\xfe", ""),
        ] {
            match decode(KEY, Some(value)) {
                Err(ValueError::Json { source, .. }) => assert_eq!(source.path(), path),
                other => panic!("{}: {other:?}", String::from_utf8_lossy(value)),
            }
        }
    }

    #[test]
    fn full_entries_and_deletes() {
        let v = pool_value(&format!("0:{KEY}"), r#", "seqno": 7, "time": 1700000000"#);
        match decode(KEY, Some(v.as_bytes())).unwrap() {
            Change::Pool { spec, assets, stamp } => {
                assert_eq!(spec.address, parse_key(KEY).unwrap());
                assert_eq!(spec.reserves, [1_860_000_000_000_000, 2_570_000_000_000]);
                assert!(assets.is_empty());
                assert_eq!(stamp, Stamp { seqno: Some(7), time: Some(1_700_000_000) });
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(decode(KEY, None).unwrap(), Change::Remove { pool: parse_key(KEY).unwrap() });
        let other = "0:1111111111111111111111111111111111111111111111111111111111111111";
        let err = decode(KEY, Some(pool_value(other, "").as_bytes())).unwrap_err();
        assert!(matches!(err, ValueError::AddressMismatch { .. }), "{err}");
        let bad_curve = pool_value(&format!("0:{KEY}"), "").replace("constant_product", "stable_swap");
        let err = decode(KEY, Some(bad_curve.as_bytes())).unwrap_err();
        assert_eq!(err.reason(), SkipReason::Pool);
        assert!(err.to_string().contains("amp"), "{err}");
        let foreign = pool_value(
            &format!("0:{KEY}"),
            r#", "asset_entries": [{"asset": "jetton:0:2222222222222222222222222222222222222222222222222222222222222222", "symbol": "Z", "decimals": 9}]"#,
        );
        assert!(matches!(decode(KEY, Some(foreign.as_bytes())), Err(ValueError::ForeignAsset { .. })));
    }

    #[test]
    fn encode_round_trips_and_refuses_what_replicas_would() {
        let pool = parse_key(KEY).unwrap();
        let stamp = Stamp { seqno: Some(3), time: None };
        let change = PoolChange::Reserves { pool: pool.clone(), reserves: [5, 7], stamp };
        let (key, value) = change.encode().unwrap();
        assert_eq!(key, KEY);
        assert_eq!(
            decode(&key, value.as_deref()).unwrap(),
            Change::Reserves { pool: pool.clone(), reserves: [5, 7], stamp }
        );
        assert!(PoolChange::Reserves { pool: pool.clone(), reserves: [0, 7], stamp }.encode().is_err());
        assert_eq!(PoolChange::Remove { pool: pool.clone() }.encode().unwrap(), (KEY.to_string(), None));
        let entry: SnapshotPool = serde_json::from_str(&pool_value(&format!("0:{KEY}"), "")).unwrap();
        let asset: SnapshotAsset =
            serde_json::from_str(&format!(r#"{{"asset": "{USDT}", "symbol": "USDT", "decimals": 6}}"#)).unwrap();
        let (key, value) =
            PoolChange::Pool { pool: Box::new(entry), asset_entries: vec![asset], stamp }.encode().unwrap();
        match decode(&key, value.as_deref()).unwrap() {
            Change::Pool { spec, assets, stamp: s } => {
                assert_eq!(spec.address, pool);
                assert_eq!(assets.len(), 1);
                assert_eq!(assets[0].meta.decimals, 6);
                assert_eq!(s, stamp);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn stamps_order_by_seqno_then_time() {
        let s = |seqno, time| Stamp { seqno, time };
        assert!(s(Some(1), None).is_older_than(&s(Some(2), None)));
        assert!(!s(Some(2), None).is_older_than(&s(Some(2), None)));
        assert!(!s(Some(3), Some(1)).is_older_than(&s(Some(2), Some(9))), "seqno decides when both have one");
        assert!(s(None, Some(1)).is_older_than(&s(Some(2), Some(9))));
        assert!(!s(None, None).is_older_than(&s(Some(2), Some(9))));
        assert!(!s(Some(1), None).is_older_than(&s(None, Some(9))));
    }

    #[test]
    fn stamps_read_for_people() {
        let s = |seqno, time| Stamp { seqno, time };
        assert_eq!(s(Some(5), None).to_string(), "block 5");
        // 1732190700 is 2024-11-21 12:05:00 UTC (`date -u -d @1732190700`).
        assert_eq!(s(Some(5), Some(1_732_190_700)).to_string(), "block 5 at 2024-11-21T12:05:00Z");
        assert_eq!(s(None, Some(0)).to_string(), "at 1970-01-01T00:00:00Z");
        assert_eq!(s(None, None).to_string(), "no stamp");
        assert_eq!(s(Some(1), Some(u64::MAX)).to_string(), format!("block 1 at unix time {}", u64::MAX));
    }

    #[test]
    fn a_stored_value_s_stamp_is_read_whatever_else_it_holds() {
        let s = |seqno, time| Some(Stamp { seqno, time });
        assert_eq!(Stamp::of_value(br#"{"reserves": ["5", "6"], "seqno": 10}"#), s(Some(10), None));
        assert_eq!(Stamp::of_value(pool_value(&format!("0:{KEY}"), r#", "time": 7"#).as_bytes()), s(None, Some(7)));
        // A value replicas skip (a zero reserve) still carries its writer's stamp.
        assert_eq!(Stamp::of_value(br#"{"reserves": ["0", "6"], "seqno": 11, "time": 3}"#), s(Some(11), Some(3)));
        assert_eq!(Stamp::of_value(br#"{"reserves": ["5", "6"]}"#), s(None, None));
        for bad in [&b"not json"[..], b"[1]", br#"{"seqno": -1}"#, br#"{"seqno": "10"}"#] {
            assert_eq!(Stamp::of_value(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
