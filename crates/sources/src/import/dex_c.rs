//! `dex_c` (TONCO): its indexer (`https://indexer.tonco.io`, GraphQL) `pools`, with the `positions` that give
//! the ticks.
//!
//! Fields (cryptoalgebra/tonco-analytics-scripts `src/graphql/queries/tonco/{pools,positions}.ts` and the
//! generated schema): a pool has `address` (raw), `jetton0`/`jetton1` `{address, symbol, name, decimals,
//! image}`, `fee` (Int), `liquidity` (String, the active liquidity), `tick` (Int), `tickSpacing` (Int),
//! `priceSqrt` (String, Q64.96), `isInitialized`; a position has `pool`, `tickLower`, `tickUpper` and
//! `liquidity` (String).
//!
//! The indexer has **no tick query**, and a concentrated pool cannot be priced exactly without its initialized
//! ticks, so the ticks are rebuilt from the positions in the same payload (`liquidity_net` += L at
//! `tickLower`, −= L at `tickUpper`; `liquidity_gross` += L at both). A pool is imported only if the rebuilt
//! ticks give exactly its active `liquidity` (the sum of `liquidity_net` over ticks ≤ `tick`): a position list
//! cut short by pagination is caught there (`inconsistent_ticks`) instead of pricing a pool with missing
//! liquidity. Without any `positions` in the payload every pool is skipped as `missing_data`.
//!
//! `fee` is read in the contract's unit, 1/10000 (the SDK's `FEE_DENOMINATOR`; the schema's docstring says
//! "1 = 0.001%", which no TONCO code uses). The protocol fee is a share of the LP fee that does not change what
//! a trader receives; the indexer does not give it and it is set to 0. `reserves` are written as `0`: the
//! indexer gives token balances only as floats, and the graph prices `dex_c` pools from the state, not from
//! them. TON appears as a proxy-TON master and becomes `native`.

use std::collections::{BTreeMap, HashMap};

use serde::Deserialize;
use serde_json::Value;
use tonroute_core::json;

use super::{
    pool_entry, pool_record, raw_address, AssetInfo, Context, EmitPool, ImportError, ImportOptions, MappedPool, Skip,
    SkipReason,
};
use tonroute_core::graph::snapshot::{SnapshotConcentrated, SnapshotPool, SnapshotTick};
use tonroute_core::pool::concentrated::{MAX_TICK, MIN_TICK};

#[derive(Debug, Deserialize)]
struct Jetton {
    address: String,
    #[serde(default)]
    symbol: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    decimals: Option<u8>,
    #[serde(default)]
    image: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PoolRecord {
    address: String,
    jetton0: Jetton,
    jetton1: Jetton,
    fee: u32,
    liquidity: String,
    tick: i32,
    tick_spacing: i32,
    price_sqrt: String,
    #[serde(default = "yes")]
    is_initialized: bool,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PositionRecord {
    tick_lower: i32,
    tick_upper: i32,
    liquidity: String,
}

/// Liquidity at each tick of one pool, and whether a position was unusable.
#[derive(Debug, Default)]
struct TickMap {
    ticks: BTreeMap<i32, (i128, u128)>,
    broken: Option<String>,
}

impl TickMap {
    fn add(&mut self, p: &PositionRecord) {
        if self.broken.is_some() {
            return;
        }
        let Some(l) = super::coins(&p.liquidity).or_else(|| p.liquidity.parse::<u128>().ok()) else {
            self.broken = Some(format!("position liquidity `{}`", p.liquidity));
            return;
        };
        if l == 0 {
            return;
        }
        if p.tick_lower >= p.tick_upper || p.tick_lower < MIN_TICK || p.tick_upper > MAX_TICK {
            self.broken = Some(format!("position range {}..{}", p.tick_lower, p.tick_upper));
            return;
        }
        let Ok(signed) = i128::try_from(l) else {
            self.broken = Some(format!("position liquidity {l} above int128"));
            return;
        };
        for (tick, delta) in [(p.tick_lower, signed), (p.tick_upper, -signed)] {
            let e = self.ticks.entry(tick).or_default();
            match (e.0.checked_add(delta), e.1.checked_add(l)) {
                (Some(net), Some(gross)) => *e = (net, gross),
                _ => {
                    self.broken = Some(format!("liquidity at tick {tick} overflows"));
                    return;
                }
            }
        }
    }
}

/// A TONCO payload's pools, each record kept whole to be read on its own.
#[derive(Debug, Deserialize)]
struct Pools {
    pools: Vec<Value>,
}

/// A TONCO payload's positions (optional), each record kept whole to be read on its own.
#[derive(Debug, Deserialize)]
struct Positions {
    #[serde(default)]
    positions: Option<Vec<Value>>,
}

/// A GraphQL answer: its lists under `data`.
#[derive(Debug, Deserialize)]
struct Data<T> {
    data: T,
}

/// A position's `pool`: an address string, or an object with an `address`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum PoolRef {
    Address(String),
    Object { address: String },
}

/// The pool a position names, read before the rest of it so that an unreadable position still marks its pool.
#[derive(Debug, Deserialize)]
struct PositionPool {
    pool: PoolRef,
}

/// The pools and positions of a TONCO payload: under `data` when `data` has the pools, else at the top.
fn lists(file: &str, value: &Value) -> Result<(Vec<Value>, Option<Vec<Value>>), ImportError> {
    let shape = |field| ImportError::Shape { file: file.to_string(), field, expected: "an array" };
    let (pools, positions) = match json::from_value::<Data<Pools>>(value) {
        Ok(Data { data: Pools { pools } }) => (pools, json::from_value::<Data<Positions>>(value).map(|d| d.data)),
        Err(_) => (json::from_value::<Pools>(value).map_err(|_| shape("pools"))?.pools, json::from_value(value)),
    };
    let Positions { positions } = positions.map_err(|_| shape("positions"))?;
    Ok((pools, positions))
}

/// Maps every pool of a TONCO payload, handing each result to `emit`; returns the pool record count.
pub fn map_pools(
    file: &str,
    value: &Value,
    ctx: &Context,
    options: ImportOptions,
    emit: EmitPool<'_>,
) -> Result<usize, ImportError> {
    let (pools, positions) = lists(file, value)?;
    let maps = positions.map(|positions| {
        let mut by_pool: HashMap<String, TickMap> = HashMap::new();
        for p in &positions {
            // A position whose pool cannot be read cannot be attributed; one that is unreadable marks its pool.
            let Ok(PositionPool { pool: PoolRef::Address(pool) | PoolRef::Object { address: pool } }) =
                json::from_value(p)
            else {
                continue;
            };
            let Some(pool) = raw_address(&pool) else { continue };
            let entry = by_pool.entry(pool).or_default();
            match json::from_value::<PositionRecord>(p) {
                Ok(record) => entry.add(&record),
                Err(e) => entry.broken = entry.broken.take().or(Some(format!("position: {e}"))),
            }
        }
        by_pool
    });
    for (i, r) in pools.iter().enumerate() {
        emit(i, map_pool(r, ctx, maps.as_ref(), options));
    }
    Ok(pools.len())
}

fn map_pool(
    record: &Value,
    ctx: &Context,
    maps: Option<&HashMap<String, TickMap>>,
    options: ImportOptions,
) -> Result<MappedPool, Skip> {
    let (r, address) = pool_record(record, |r: &PoolRecord| &r.address)?;
    let pool = Some(address.as_str());
    if !r.is_initialized {
        return Err(Skip::new(SkipReason::Uninitialized, pool, "isInitialized is false"));
    }
    let jetton = |j: &Jetton| -> Result<(tonroute_core::asset::Asset, AssetInfo), Skip> {
        let asset = ctx.asset(&j.address).map_err(|e| {
            let reason = match e {
                tonroute_core::asset::AssetError::UnsupportedWorkchain { .. } => SkipReason::UnsupportedAsset,
                _ => SkipReason::Malformed,
            };
            Skip::new(reason, pool, e.to_string())
        })?;
        let info = AssetInfo {
            symbol: j.symbol.clone().filter(|s| !s.is_empty()),
            name: j.name.clone().filter(|s| !s.is_empty()),
            decimals: j.decimals,
            image: j.image.clone(),
            usd_price: None,
        };
        Ok((asset, info))
    };
    let assets = [jetton(&r.jetton0)?, jetton(&r.jetton1)?];
    let lp_fee = u16::try_from(r.fee)
        .ok()
        .filter(|f| *f < 10_000)
        .ok_or_else(|| Skip::new(SkipReason::Invalid, pool, format!("fee {} is not below 10000", r.fee)))?;
    let liquidity: u128 = r
        .liquidity
        .parse()
        .map_err(|_| Skip::new(SkipReason::Malformed, pool, format!("liquidity `{}`", r.liquidity)))?;
    if r.price_sqrt.is_empty() || !r.price_sqrt.bytes().all(|b| b.is_ascii_digit()) {
        return Err(Skip::new(SkipReason::Malformed, pool, format!("priceSqrt `{}`", r.price_sqrt)));
    }
    let out = match maps {
        Some(maps) => ticks_of(maps.get(&address), pool, r.tick, liquidity)?,
        // The caller reads the ticks from the chain (see `ImportOptions::ticks_from_chain`).
        None if options.ticks_from_chain => Vec::new(),
        None => return Err(Skip::new(SkipReason::MissingData, pool, "no ticks: the payload has no `positions`")),
    };
    let pool = SnapshotPool {
        concentrated: SnapshotConcentrated {
            sqrt_price_x96: Some(r.price_sqrt.clone()),
            tick: Some(r.tick),
            liquidity: Some(liquidity.to_string()),
            tick_spacing: Some(r.tick_spacing),
            ticks: Some(out),
        },
        ..pool_entry(
            address.clone(),
            "dex_c",
            "concentrated",
            [assets[0].0.to_string(), assets[1].0.to_string()],
            [0, 0],
            lp_fee,
        )
    };
    let ton_alias = super::ton_alias(&r.jetton0.address, &assets[0].0)
        .or_else(|| super::ton_alias(&r.jetton1.address, &assets[1].0));
    Ok(MappedPool { pool, assets, ton_alias })
}

/// A pool's ticks from its positions, which must give exactly its active `liquidity` at `current`.
fn ticks_of(
    map: Option<&TickMap>,
    pool: Option<&str>,
    current: i32,
    liquidity: u128,
) -> Result<Vec<SnapshotTick>, Skip> {
    if let Some(reason) = map.and_then(|m| m.broken.as_ref()) {
        return Err(Skip::new(SkipReason::Malformed, pool, reason.clone()));
    }
    let ticks = map.map(|m| &m.ticks);
    if ticks.is_none_or(|t| t.is_empty()) {
        return Err(Skip::new(SkipReason::ZeroReserves, pool, "no position holds liquidity"));
    }
    let mut active: i128 = 0;
    let mut out = Vec::new();
    for (tick, (net, gross)) in ticks.into_iter().flatten() {
        if *tick <= current {
            active = active.saturating_add(*net);
        }
        out.push(SnapshotTick { tick: *tick, liquidity_net: net.to_string(), liquidity_gross: gross.to_string() });
    }
    if u128::try_from(active).ok() != Some(liquidity) {
        return Err(Skip::new(
            SkipReason::InconsistentTicks,
            pool,
            format!("positions give active liquidity {active}, the pool says {liquidity}"),
        ));
    }
    Ok(out)
}
