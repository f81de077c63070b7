//! What a saved payload is: the texts handed in ([`Payload`]) and their kind recognised from the content
//! ([`detect`]), including a tonroute snapshot given by mistake and the proxy-TON masters that stand for TON.
//!
//! Owns recognition only; must not read records (the per-exchange files do).

use serde_json::Value;

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

/// Whether `value` is a tonroute snapshot (`docs/snapshot-format.md`: top-level `assets` and `pools`
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
            (items.is_empty() || items.first().is_some_and(dedust_like)).then_some(PayloadKind::DexAPools)
        }
        Value::Object(o) => {
            let has = |k: &str| o.contains_key(k);
            if has("get_methods") {
                Some(PayloadKind::GetMethods)
            } else if has("pool_list") || (has("pool") && o["pool"].get("router_address").is_some()) {
                Some(PayloadKind::DexBPools)
            } else if has("router_list") || has("router") {
                Some(PayloadKind::DexBRouters)
            } else if has("asset_list") || has("asset") {
                Some(PayloadKind::DexBAssets)
            } else if o.get("data").is_some_and(|d| d.get("pools").is_some()) || has("pools") {
                Some(PayloadKind::DexCPools)
            } else {
                None
            }
        }
        _ => None,
    }
}
