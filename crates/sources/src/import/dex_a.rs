//! `dex_a` (DeDust): its API's `/v2/pools` records
//! (dedust-io/sdk `crates/api/src/types/{PoolData,AssetRef,AssetMetadata}.ts`):
//!
//! ```text
//! { address, lt, totalSupply, type: "volatile" | "stable", tradeFee: "0.25",
//!   assets: [ {type: "native", metadata} | {type: "jetton", address, metadata: {name, symbol, image, decimals} | null} ],
//!   reserves: [string, string], lastPrice, stats }
//! ```
//! `tradeFee` is a **percent** (`"0.25"` is 25 bps); a fee that is not a whole number of basis points is
//! skipped as invalid rather than rounded. `volatile` maps to `dex_a` `constant_product`, `stable` to
//! `dex_a` `stable_swap`. Jetton addresses are masters and are taken as written (DeDust has a native vault,
//! so a proxy-TON jetton there is a jetton, not TON).

use serde::Deserialize;
use serde_json::Value;

use super::{
    pool_entry, pool_record, reserve, AssetInfo, Context, EmitPool, ImportError, MappedPool, NumText, Skip, SkipReason,
};
use tonroute_core::asset::{Asset, AssetError};

#[derive(Debug, Deserialize)]
struct Metadata {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    symbol: Option<String>,
    #[serde(default)]
    image: Option<String>,
    #[serde(default)]
    decimals: Option<u8>,
}

#[derive(Debug, Deserialize)]
struct AssetRef {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    address: Option<String>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

#[derive(Debug, Deserialize)]
struct PoolRecord {
    address: String,
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "tradeFee")]
    trade_fee: NumText<true>,
    assets: [AssetRef; 2],
    reserves: [String; 2],
}

/// A percent (`"0.25"`, `"1"`, or a JSON number's text) as whole basis points, `None` when it is not one.
pub fn percent_to_bps(text: &str) -> Option<u16> {
    let text = text.trim();
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    let frac = frac.trim_end_matches('0');
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 2
        || int.len() > 3
    {
        return None;
    }
    let int: u32 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let frac: u32 = format!("{frac:0<2}").parse().ok()?;
    u16::try_from(int * 100 + frac).ok().filter(|b| *b < 10_000)
}

/// Maps every record of a `/v2/pools` payload, handing each result to `emit`; returns the record count.
pub fn map_pools(file: &str, value: &Value, ctx: &Context, emit: EmitPool<'_>) -> Result<usize, ImportError> {
    let Value::Array(list) = value else {
        return Err(ImportError::Shape { file: file.to_string(), field: "(root)", expected: "an array of pools" });
    };
    for (i, r) in list.iter().enumerate() {
        emit(i, map_pool(r, ctx));
    }
    Ok(list.len())
}

/// Maps one `/v2/pools` record.
pub fn map_pool(record: &Value, _ctx: &Context) -> Result<MappedPool, Skip> {
    let (r, address) = pool_record(record, |r: &PoolRecord| &r.address)?;
    let pool = Some(address.as_str());
    let curve = match r.kind.as_str() {
        "volatile" => "constant_product",
        "stable" => "stable_swap",
        other => return Err(Skip::new(SkipReason::UnknownType, pool, format!("pool type `{other}`"))),
    };
    let mut assets = [(Asset::Native, AssetInfo::default()), (Asset::Native, AssetInfo::default())];
    for (slot, a) in assets.iter_mut().zip(&r.assets) {
        let asset = match (a.kind.as_str(), &a.address) {
            ("native", _) => Asset::Native,
            ("jetton", Some(address)) => Asset::parse(address).map_err(|e| {
                let reason = match e {
                    AssetError::UnsupportedWorkchain { .. } => SkipReason::UnsupportedAsset,
                    _ => SkipReason::Malformed,
                };
                Skip::new(reason, pool, e.to_string())
            })?,
            ("jetton", None) => return Err(Skip::new(SkipReason::MissingData, pool, "jetton asset without address")),
            (other, _) => return Err(Skip::new(SkipReason::UnsupportedAsset, pool, format!("asset type `{other}`"))),
        };
        let info = a
            .metadata
            .as_ref()
            .map(|m| AssetInfo {
                symbol: m.symbol.clone().filter(|s| !s.is_empty()),
                name: m.name.clone().filter(|s| !s.is_empty()),
                decimals: m.decimals,
                image: m.image.clone(),
                usd_price: None,
            })
            .unwrap_or_default();
        *slot = (asset, info);
    }
    let reserves = [reserve(&address, &r.reserves[0])?, reserve(&address, &r.reserves[1])?];
    if reserves.contains(&0) {
        return Err(Skip::new(SkipReason::ZeroReserves, pool, format!("reserves {} / {}", reserves[0], reserves[1])));
    }
    let fee = percent_to_bps(&r.trade_fee.0).ok_or_else(|| {
        Skip::new(
            SkipReason::Invalid,
            pool,
            format!("tradeFee {:?} is not a whole number of basis points", r.trade_fee.0),
        )
    })?;
    let pool =
        pool_entry(address.clone(), "dex_a", curve, [assets[0].0.to_string(), assets[1].0.to_string()], reserves, fee);
    Ok(MappedPool { pool, assets, ton_alias: None })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tonroute_core::json;

    #[test]
    fn percent_strings_to_bps() {
        for (v, want) in [
            (json!("0.25"), Some(25)),
            (json!("0.3"), Some(30)),
            (json!("1"), Some(100)),
            (json!("0.05"), Some(5)),
            (json!(0.25), Some(25)),
            (json!("0.250"), Some(25)),
            (json!(".5"), Some(50)),
            (json!("0.001"), None),
            (json!("100"), None),
            (json!("-0.25"), None),
            (json!("abc"), None),
            (json!(""), None),
            (json!("."), None),
        ] {
            let text: NumText<true> = json::from_value(&v).expect("a string or a number");
            assert_eq!(percent_to_bps(&text.0), want, "{v}");
        }
    }
}
