//! The exchanges' pool lists over HTTP, handed to [`crate::import`] as [`Payload`]s exactly as a saved
//! response would be: STON.fi `/v1/pools?dex_v2=true` (v1 and v2 pools), `/v1/routers?dex_v2=true`,
//! `/v1/assets`; DeDust `/v2/pools`; the TONCO indexer's GraphQL `pools`. Ticks of TONCO pools come from the
//! chain, so the TONCO query asks for no positions.

use serde_json::{json, Value};

use super::config::{Endpoints, Sources};
use super::http::{Endpoint, FetchError, Http};
use crate::import::Payload;

/// The TONCO indexer query: every initialized pool with its jettons' metadata.
pub const TONCO_POOLS_QUERY: &str =
    "query { pools(where: {isInitialized: true}) { address name jetton0 { address symbol \
name decimals image } jetton1 { address symbol name decimals image } fee liquidity tick tickSpacing priceSqrt \
isInitialized } }";

/// One list, fetched or not.
#[derive(Debug)]
pub struct Fetched {
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The protocols whose pools the list gives (empty for routers and assets).
    pub protocols: &'static [&'static str],
    /// The payload, or why there is none.
    pub result: Result<Payload, FetchError>,
}

/// A list's endpoint, the protocols it gives, and its fetch (`None`: the exchange is not read).
type ListSlot = (Endpoint, &'static [&'static str], Option<Result<Payload, FetchError>>);

fn payload(endpoint: Endpoint, value: Value) -> Payload {
    Payload { name: endpoint.name().to_string(), text: value.to_string() }
}

/// Fetches the lists of the enabled exchanges (all at once; the client's bucket spaces them).
pub async fn fetch_lists(http: &Http, endpoints: &Endpoints, sources: Sources) -> Vec<Fetched> {
    let stonfi = endpoints.stonfi.trim_end_matches('/');
    let dedust = endpoints.dedust.trim_end_matches('/');
    let get = |endpoint: Endpoint, url: String, query: &'static [(&'static str, &'static str)]| {
        let http = http.clone();
        async move {
            let query: Vec<(&str, String)> = query.iter().map(|(k, v)| (*k, v.to_string())).collect();
            http.get(endpoint, &url, &query, false).await.map(|v| payload(endpoint, v))
        }
    };
    const DEX_V2: &[(&str, &str)] = &[("dex_v2", "true")];
    let (pools, routers, assets, dedust_pools, tonco) = tokio::join!(
        async {
            if sources.stonfi {
                Some(get(Endpoint::DexBPools, format!("{stonfi}/v1/pools"), DEX_V2).await)
            } else {
                None
            }
        },
        async {
            if sources.stonfi {
                Some(get(Endpoint::DexBRouters, format!("{stonfi}/v1/routers"), DEX_V2).await)
            } else {
                None
            }
        },
        async {
            if sources.stonfi {
                Some(get(Endpoint::DexBAssets, format!("{stonfi}/v1/assets"), &[]).await)
            } else {
                None
            }
        },
        async {
            if sources.dedust {
                Some(get(Endpoint::DexAPools, format!("{dedust}/v2/pools"), &[]).await)
            } else {
                None
            }
        },
        async {
            if sources.tonco {
                let body = json!({"query": TONCO_POOLS_QUERY});
                Some(
                    http.post(Endpoint::DexCPools, &endpoints.tonco, &body, false)
                        .await
                        .map(|v| payload(Endpoint::DexCPools, v)),
                )
            } else {
                None
            }
        },
    );
    let mut out = Vec::new();
    let lists: [ListSlot; 5] = [
        (Endpoint::DexBPools, &["dex_b_v1", "dex_b_v2"], pools),
        (Endpoint::DexBRouters, &[], routers),
        (Endpoint::DexBAssets, &[], assets),
        (Endpoint::DexAPools, &["dex_a"], dedust_pools),
        (Endpoint::DexCPools, &["dex_c"], tonco),
    ];
    for (endpoint, protocols, result) in lists {
        if let Some(result) = result {
            out.push(Fetched { endpoint, protocols, result });
        }
    }
    out
}
