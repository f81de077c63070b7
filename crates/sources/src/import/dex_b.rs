//! `dex_b_v1` and `dex_b_v2` (STON.fi v1 and v2): its API records
//! (ston-fi/api `src/client/types/{pool,router,asset}.ts`): `/v1/pools`, `/v1/routers`, `/v1/assets`.
//!
//! A pool record has no type field. The protocol comes from the router: the v1 router
//! ([`V1_ROUTER`]) or a `/v1/routers` record with `major_version` 1 is `dex_b_v1`, any other router
//! `dex_b_v2`. A v2 pool's type is the router's `router_type` (`ConstantProduct`, `StableSwap`,
//! `WeightedConstProduct`, `WeightedStableSwap`, as ston-fi/sdk `helpers.ts` reads it) when `/v1/routers` is
//! given; without it, the record's optional fields decide: `amp` + `rate` + `w0` → weighted stable swap, `w0` →
//! weighted constant product, `amp` → stable swap, none → constant product. `amp`, `rate` and `w0` must be the
//! contract's integers (no recorded stable or weighted record exists to show the API's spelling; anything
//! else is skipped as malformed rather than guessed). Fees are in basis points; `ref_fee` counts for v1 only
//! (v2 takes the referral fee from the swap message). The API's token addresses are masters.

use serde::Deserialize;
use serde_json::Value;
use tonroute_core::json;

use super::{
    pool_entry, pool_record, raw_address, records, reserve, AssetInfo, Context, EmitPool, ImportError, MappedPool,
    NumText, RouterInfo, Skip, SkipReason,
};
use tonroute_core::chain::dex_b::PoolType;
use tonroute_core::graph::snapshot::SnapshotPool;

/// The STON.fi v1 router, `EQB3ncyBUTjZUA5EnFKR5_EnOMI9V1tTEAAPaiU71gc4TiUt` (ston-fi/sdk `dex/v1/constants.ts`).
pub const V1_ROUTER: &str = "0:779dcc815138d9500e449c5291e7f12738c23d575b5310000f6a253bd607384e";

#[derive(Debug, Deserialize)]
struct PoolRecord {
    address: String,
    router_address: String,
    token0_address: String,
    token1_address: String,
    reserve0: NumText,
    reserve1: NumText,
    lp_fee: NumText,
    protocol_fee: NumText,
    #[serde(default)]
    ref_fee: Option<NumText>,
    #[serde(default)]
    deprecated: bool,
    #[serde(default)]
    amp: Option<NumText>,
    #[serde(default)]
    rate: Option<NumText>,
    #[serde(default)]
    w0: Option<NumText>,
}

#[derive(Debug, Deserialize)]
struct RouterRecord {
    address: String,
    major_version: u32,
    #[serde(default)]
    router_type: Option<String>,
    #[serde(default)]
    pton_master_address: Option<String>,
    #[serde(default)]
    pton_wallet_address: Option<String>,
}

#[derive(Debug, Deserialize)]
struct AssetRecord {
    contract_address: String,
    #[serde(default)]
    symbol: Option<String>,
    #[serde(default)]
    display_name: Option<String>,
    #[serde(default)]
    decimals: Option<u8>,
    #[serde(default)]
    image_url: Option<String>,
    #[serde(default)]
    dex_price_usd: Option<String>,
    #[serde(default)]
    kind: Option<String>,
}

/// Reads a `/v1/routers` payload into the context; returns the record count. Unreadable records are ignored
/// (their pools then fall back to the record fields).
pub fn read_routers(file: &str, value: &Value, ctx: &mut Context) -> Result<usize, ImportError> {
    let list = records(file, value, "router_list", "router")?;
    for r in &list {
        let Ok(r) = json::from_value::<RouterRecord>(r) else { continue };
        let Some(address) = raw_address(&r.address) else { continue };
        let pton_master = r.pton_master_address.as_deref().and_then(|m| tonroute_core::asset::Asset::parse(m).ok());
        if let Some(tonroute_core::asset::Asset::Jetton(m)) = pton_master {
            ctx.native_masters.insert(m.to_raw());
        }
        ctx.routers.insert(
            address,
            RouterInfo {
                major_version: r.major_version,
                router_type: r.router_type,
                pton_master,
                pton_wallet: r.pton_wallet_address.as_deref().and_then(raw_address),
            },
        );
    }
    Ok(list.len())
}

/// Reads a `/v1/assets` payload into the context; returns the record count. An asset of kind `Ton` names TON
/// (its address joins TON's aliases).
pub fn read_assets(file: &str, value: &Value, ctx: &mut Context) -> Result<usize, ImportError> {
    let list = records(file, value, "asset_list", "asset")?;
    for r in &list {
        let Ok(r) = json::from_value::<AssetRecord>(r) else { continue };
        if r.kind.as_deref() == Some("Ton") {
            if let Ok(tonroute_core::asset::Asset::Jetton(m)) = tonroute_core::asset::Asset::parse(&r.contract_address)
            {
                ctx.native_masters.insert(m.to_raw());
            }
        }
        let Ok(asset) = ctx.asset(&r.contract_address) else { continue };
        let info = AssetInfo {
            symbol: r.symbol.filter(|s| !s.is_empty()),
            name: r.display_name.filter(|s| !s.is_empty()),
            decimals: r.decimals,
            image: r.image_url,
            usd_price: r.dex_price_usd,
        };
        ctx.assets.entry(asset).or_insert(info);
    }
    Ok(list.len())
}

/// Maps every record of a `/v1/pools` payload, handing each result to `emit`; returns the record count.
pub fn map_pools(file: &str, value: &Value, ctx: &Context, emit: EmitPool<'_>) -> Result<usize, ImportError> {
    let list = records(file, value, "pool_list", "pool")?;
    for (i, r) in list.iter().enumerate() {
        emit(i, map_pool(r, ctx));
    }
    Ok(list.len())
}

/// An integer parameter (`amp`, `rate`, `w0`) as the contract stores it.
fn param(pool: &str, name: &str, v: &Option<NumText>) -> Result<Option<String>, Skip> {
    match v {
        None => Ok(None),
        Some(NumText(t)) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) => Ok(Some(t.clone())),
        Some(NumText(t)) => {
            Err(Skip::new(SkipReason::Malformed, Some(pool), format!("`{name}` is `{t}`, not the contract's integer")))
        }
    }
}

/// Maps one `/v1/pools` record.
pub fn map_pool(record: &Value, ctx: &Context) -> Result<MappedPool, Skip> {
    let (r, address) = pool_record(record, |r: &PoolRecord| &r.address)?;
    let pool = Some(address.as_str());
    if r.deprecated {
        return Err(Skip::new(SkipReason::Deprecated, pool, "deprecated"));
    }
    let router = tonroute_core::asset::parse_address(&r.router_address)
        .map(|a| a.to_hex())
        .map_err(|e| Skip::new(SkipReason::Malformed, pool, format!("router_address `{}`: {e}", r.router_address)))?;
    let asset = |text: &str| {
        ctx.asset(text).map_err(|e| {
            let reason = match e {
                tonroute_core::asset::AssetError::UnsupportedWorkchain { .. } => SkipReason::UnsupportedAsset,
                _ => SkipReason::Malformed,
            };
            Skip::new(reason, pool, e.to_string())
        })
    };
    let assets = [asset(&r.token0_address)?, asset(&r.token1_address)?];
    let reserves = [reserve(&address, &r.reserve0.0)?, reserve(&address, &r.reserve1.0)?];
    if reserves.contains(&0) {
        return Err(Skip::new(SkipReason::ZeroReserves, pool, format!("reserves {} / {}", reserves[0], reserves[1])));
    }
    let fee = |name: &str, t: &NumText| {
        t.0.parse::<u16>()
            .ok()
            .filter(|f| *f < 10_000)
            .ok_or_else(|| Skip::new(SkipReason::Invalid, pool, format!("{name} `{}` is not in 0..10000 bps", t.0)))
    };
    let lp_fee = fee("lp_fee", &r.lp_fee)?;
    let protocol_fee = fee("protocol_fee", &r.protocol_fee)?;
    let info = ctx.routers.get(&router);
    let v1 = router == V1_ROUTER || info.is_some_and(|i| i.major_version == 1);
    let (amp, rate, w0) =
        (param(&address, "amp", &r.amp)?, param(&address, "rate", &r.rate)?, param(&address, "w0", &r.w0)?);
    let (protocol, curve, ref_fee) = if v1 {
        let ref_fee = match &r.ref_fee {
            Some(t) => fee("ref_fee", t)?,
            None => return Err(Skip::new(SkipReason::MissingData, pool, "v1 pool without ref_fee")),
        };
        ("dex_b_v1", PoolType::ConstantProduct, ref_fee)
    } else {
        let pool_type = match info.and_then(|i| i.router_type.as_deref()) {
            Some(t) => PoolType::from_router_type(t)
                .ok_or_else(|| Skip::new(SkipReason::UnknownType, pool, format!("router type `{t}`")))?,
            None => match (&amp, &rate, &w0) {
                (Some(_), Some(_), Some(_)) => PoolType::WeightedStableSwap,
                (None, None, Some(_)) => PoolType::WeightedConstProduct,
                (Some(_), None, None) => PoolType::StableSwap,
                (None, None, None) => PoolType::ConstantProduct,
                _ => {
                    return Err(Skip::new(
                        SkipReason::UnknownType,
                        pool,
                        "amp/rate/w0 in a combination no pool type has",
                    ))
                }
            },
        };
        let needs = |name: &str, v: &Option<String>| {
            v.as_ref().map(|_| ()).ok_or_else(|| {
                Skip::new(SkipReason::MissingData, pool, format!("{} pool without `{name}`", pool_type.contract_name()))
            })
        };
        match pool_type {
            PoolType::ConstantProduct => {}
            PoolType::StableSwap => needs("amp", &amp)?,
            PoolType::WeightedConstProduct => needs("w0", &w0)?,
            PoolType::WeightedStableSwap => {
                needs("amp", &amp)?;
                needs("rate", &rate)?;
                needs("w0", &w0)?;
            }
        }
        ("dex_b_v2", pool_type, 0)
    };
    let keep = |v: Option<String>, wanted: bool| if wanted { v } else { None };
    let pool = SnapshotPool {
        protocol_fee,
        ref_fee,
        amp: keep(amp, matches!(curve, PoolType::StableSwap | PoolType::WeightedStableSwap)),
        w0: keep(w0, matches!(curve, PoolType::WeightedConstProduct | PoolType::WeightedStableSwap)),
        rate: keep(rate, matches!(curve, PoolType::WeightedStableSwap)),
        router: Some(router),
        ..pool_entry(
            address.clone(),
            protocol,
            curve.snapshot_curve(),
            [assets[0].to_string(), assets[1].to_string()],
            reserves,
            lp_fee,
        )
    };
    let ton_alias =
        super::ton_alias(&r.token0_address, &assets[0]).or_else(|| super::ton_alias(&r.token1_address, &assets[1]));
    Ok(MappedPool { pool, assets: [(assets[0], AssetInfo::default()), (assets[1], AssetInfo::default())], ton_alias })
}
