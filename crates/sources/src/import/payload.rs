//! What a saved payload is: the texts handed in ([`Payload`]) and their kind recognised from the content
//! ([`detect`]), including a tonroute snapshot given by mistake and the proxy-TON masters that stand for TON.
//!
//! Owns recognition only; must not read records (the per-exchange files do).

use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;
use tonroute_core::json;

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
    DexBPools,
    /// STON.fi `/v1/routers` (`{"router_list": […]}`) or `/v1/routers/{addr}` (`{"router": {…}}`).
    DexBRouters,
    /// STON.fi `/v1/assets` (`{"asset_list": […]}`) or `/v1/assets/{addr}` (`{"asset": {…}}`).
    DexBAssets,
    /// DeDust `/v2/pools` (a bare array).
    DexAPools,
    /// TONCO indexer GraphQL answer with `pools` (`{"data": {"pools": […], "positions": […]}}`).
    DexCPools,
    /// Saved get-method answers of the pools and their wallets (`{"get_methods": […]}`, [`super::getters`]).
    GetMethods,
}

impl PayloadKind {
    /// Whether payloads of this kind list pools (not routers or assets).
    pub fn holds_pools(self) -> bool {
        matches!(
            self,
            PayloadKind::DexBPools | PayloadKind::DexAPools | PayloadKind::DexCPools | PayloadKind::GetMethods
        )
    }

    /// A short description (`STON.fi /v1/pools`, …).
    pub fn describe(self) -> &'static str {
        match self {
            PayloadKind::DexBPools => "STON.fi /v1/pools",
            PayloadKind::DexBRouters => "STON.fi /v1/routers",
            PayloadKind::DexBAssets => "STON.fi /v1/assets",
            PayloadKind::DexAPools => "DeDust /v2/pools",
            PayloadKind::DexCPools => "TONCO indexer pools",
            PayloadKind::GetMethods => "saved get-method answers",
        }
    }
}

/// Which of the names detection looks for an object has (its values unread, `null` counting as given); for
/// anything else, none. Read through serde like every outside record, but never refused: detection answers
/// "none of the kinds", it does not fail.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Names(u32);

/// The names [`Names`] records, each a bit.
const NAMES: [&str; 16] = [
    "get_methods",
    "pool_list",
    "pool",
    "router_address",
    "router_list",
    "router",
    "asset_list",
    "asset",
    "data",
    "pools",
    "assets",
    "reserves",
    "address",
    "protocol",
    "curve",
    "symbol",
];

impl Names {
    fn has(self, name: &str) -> bool {
        NAMES.iter().position(|n| *n == name).is_some_and(|i| self.0 & (1 << i) != 0)
    }
}

impl<'de> serde::Deserialize<'de> for Names {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Names, D::Error> {
        d.deserialize_any(NamesVisitor)
    }
}

struct NamesVisitor;

impl<'de> Visitor<'de> for NamesVisitor {
    type Value = Names;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Names, A::Error> {
        let mut names = Names::default();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            map.next_value::<IgnoredAny>()?;
            if let Some(i) = NAMES.iter().position(|n| *n == key) {
                names.0 |= 1 << i;
            }
        }
        Ok(names)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Names, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Names::default())
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<Names, E> {
        Ok(Names::default())
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<Names, E> {
        Ok(Names::default())
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<Names, E> {
        Ok(Names::default())
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<Names, E> {
        Ok(Names::default())
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Names, E> {
        Ok(Names::default())
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Names, E> {
        Ok(Names::default())
    }
}

/// The names of an object's `pool` and `data` (empty when absent or not objects).
#[derive(Debug, Default, Deserialize)]
struct Inner {
    #[serde(default)]
    pool: Names,
    #[serde(default)]
    data: Names,
}

/// The parts of a tonroute snapshot detection checks: both lists, and their first entries' names.
#[derive(Debug, Deserialize)]
struct SnapshotLike {
    assets: Vec<Names>,
    pools: Vec<Names>,
}

/// Whether `value` is a tonroute snapshot (`docs/snapshot-format.md`: top-level `assets` and `pools`
/// arrays, pools with `protocol` and `curve`) rather than an exchange's API response.
pub fn is_tonroute_snapshot(value: &Value) -> bool {
    let Ok(SnapshotLike { assets, pools }) = json::from_value(value) else { return false };
    let pool_like = |p: &Names| p.has("protocol") && p.has("curve");
    let asset_like = |a: &Names| a.has("asset") && a.has("symbol");
    pools.first().map_or_else(|| assets.first().is_none_or(asset_like), pool_like)
}

/// Recognises a payload from its content; `None` when it is none of the kinds.
pub fn detect(value: &Value) -> Option<PayloadKind> {
    if let Ok(items) = json::from_value::<Vec<Names>>(value) {
        let dedust_like = |v: &Names| v.has("assets") && v.has("reserves") && v.has("address");
        return (items.is_empty() || items.first().is_some_and(dedust_like)).then_some(PayloadKind::DexAPools);
    }
    // Not an object: no names, so none of the kinds.
    let names: Names = json::from_value(value).ok()?;
    let Inner { pool, data } = json::from_value(value).unwrap_or_default();
    let has = |k: &str| names.has(k);
    if has("get_methods") {
        Some(PayloadKind::GetMethods)
    } else if has("pool_list") || (has("pool") && pool.has("router_address")) {
        Some(PayloadKind::DexBPools)
    } else if has("router_list") || has("router") {
        Some(PayloadKind::DexBRouters)
    } else if has("asset_list") || has("asset") {
        Some(PayloadKind::DexBAssets)
    } else if data.has("pools") || has("pools") {
        Some(PayloadKind::DexCPools)
    } else {
        None
    }
}
