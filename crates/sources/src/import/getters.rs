//! Saved get-method answers → snapshot pools, through the same decoders a live sync reads the chain with
//! ([`tonroute_core::chain`]) and the same writes onto pools ([`super::chain`]): no HTTP API record is needed, so a
//! snapshot can be made from nothing but what the contracts answer (a node, a TVM emulator, toncenter).
//!
//! The payload is an object with a `get_methods` list; each element names the contract, the method and its
//! answer in a toncenter `runGetMethod` encoding (v2 or v3, see [`tonroute_core::chain::stack`]). `stack` (the request's
//! arguments) is kept for the reader and ignored here. `native_masters` lists proxy-TON masters that stand for
//! TON besides the known ones ([`super::KNOWN_PTON_MASTERS`]).
//!
//! ```text
//! { "get_methods": [ { "address": "0:…", "method": "get_pool_data", "stack": [], "result": {"exit_code": 0, "stack": […]} }, … ],
//!   "native_masters": ["0:…"] }
//! ```
//!
//! | pool | methods on the pool | assets |
//! |---|---|---|
//! | `dex_b_v2` (STON.fi v2) | `get_pool_type`, `get_pool_data` | `get_wallet_data` of the two router wallets the pool names: their `jetton` master |
//! | `dex_b_v1` (STON.fi v1) | `get_pool_data` (no `get_pool_type`) | the same; the router is the wallets' owner |
//! | `dex_c` (TONCO) | `getPoolStateAndConfiguration`, `getAllTickInfos` | the state's minters |
//! | `dex_a` (DeDust) | `get_assets`, `get_reserves`, `get_trade_fee`, `is_stable` | `get_assets` |
//!
//! A pool is any address answering `get_pool_data`, `getPoolStateAndConfiguration` or `get_reserves`; one
//! whose other answers are missing or do not decode is skipped (`missing_data`, `malformed`), never guessed.
//!
//! **Jetton wallets.** With a master's `get_jetton_data`, a jetton gets the `tep74` wallet family and the
//! master's wallet code when deriving the router's wallet from them ([`tonroute_core::chain::wallet`]) gives exactly
//! the router wallet a pool names: the derivation is checked on the chain's own answer before any owner's
//! wallet is derived with it.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde_json::Value;
use tonlib_core::cell::{ArcCell, BagOfCells};
use tonlib_core::TonAddress;

use super::chain::{dex_a, dex_b_v1, dex_b_v2, dex_c};
use super::{pool_entry, raw_address, AssetInfo, Context, EmitPool, ImportError, MappedPool, Skip, SkipReason};
use tonroute_core::asset::Asset;
use tonroute_core::chain::stack::{GetMethodResult, StackEntry};
use tonroute_core::chain::wallet::{WalletFamily, WalletSpec};
use tonroute_core::chain::{self, jetton};
use tonroute_core::graph::snapshot::{SnapshotConcentrated, SnapshotWallet};
use tonroute_core::json;

/// The answers of one payload, by contract (raw address) and method; the first answer of a pair is kept.
struct Answers {
    by_key: HashMap<(String, String), Value>,
    /// Pool addresses in order of appearance.
    pools: Vec<String>,
    /// How many answers the payload holds.
    count: usize,
}

/// A saved get-methods payload's answers, each read on its own ([`Answer`]).
#[derive(Deserialize)]
struct GetMethods {
    get_methods: Vec<Value>,
}

/// One saved answer; its `result` is decoded when a pool needs it ([`GetMethodResult::from_value`]), so that
/// an answer that does not decode skips its pool, not the payload.
#[derive(Deserialize)]
struct Answer<'a> {
    address: &'a str,
    method: &'a str,
    result: Value,
}

/// The masters a get-methods payload says stand for TON.
#[derive(Deserialize)]
struct NativeMasters {
    #[serde(default)]
    native_masters: Option<Vec<String>>,
}

const POOL_METHODS: [&str; 3] = ["get_pool_data", "getPoolStateAndConfiguration", "get_reserves"];

fn shape(file: &str, field: &'static str, expected: &'static str) -> ImportError {
    ImportError::Shape { file: file.to_string(), field, expected }
}

impl Answers {
    fn read(file: &str, value: &Value) -> Result<Answers, ImportError> {
        let payload: GetMethods = json::from_value(value).map_err(|_| shape(file, "get_methods", "an array"))?;
        let mut by_key = HashMap::new();
        let mut pools = Vec::new();
        let mut seen = HashSet::new();
        for answer in &payload.get_methods {
            let Answer { address, method, result } = json::from_value(answer)
                .map_err(|_| shape(file, "get_methods", "objects with `address`, `method` and `result`"))?;
            let address = raw_address(address).ok_or_else(|| shape(file, "get_methods", "valid `address` fields"))?;
            if POOL_METHODS.contains(&method) && seen.insert(address.clone()) {
                pools.push(address.clone());
            }
            by_key.entry((address, method.to_string())).or_insert(result);
        }
        Ok(Answers { by_key, pools, count: payload.get_methods.len() })
    }

    /// The decoded stack of `method` on `address`: `Ok(None)` when absent, a malformed skip when it does not
    /// read.
    fn stack(&self, address: &str, method: &'static str) -> Result<Option<Vec<StackEntry>>, Skip> {
        let Some(v) = self.by_key.get(&(address.to_string(), method.to_string())) else { return Ok(None) };
        GetMethodResult::from_value(v)
            .map(|r| Some(r.stack))
            .map_err(|e| Skip::new(SkipReason::Malformed, Some(address), format!("{method} of {address}: {e}")))
    }

    /// [`Self::stack`] of a method the pool cannot do without.
    fn need(&self, pool: &str, address: &str, method: &'static str) -> Result<Vec<StackEntry>, Skip> {
        self.stack(address, method)?
            .ok_or_else(|| Skip::new(SkipReason::MissingData, Some(pool), format!("no `{method}` answer of {address}")))
    }
}

/// A chain decoder's refusal as a skip of `pool`.
fn undecoded(pool: &str, e: chain::ChainError) -> Skip {
    Skip::new(SkipReason::Malformed, Some(pool), e.to_string())
}

/// First pass: the payload's `native_masters` join the context's TON aliases, and the jettons whose wallet
/// derivation checks out get their family ([`Context::wallets`]). Returns the answer count.
pub fn read_context(file: &str, value: &Value, ctx: &mut Context) -> Result<usize, ImportError> {
    let masters: NativeMasters =
        json::from_value(value).map_err(|_| shape(file, "native_masters", "an array of addresses"))?;
    for m in masters.native_masters.unwrap_or_default() {
        let raw = raw_address(&m).ok_or_else(|| shape(file, "native_masters", "addresses"))?;
        ctx.native_masters.insert(raw);
    }
    let answers = Answers::read(file, value)?;
    for pool in &answers.pools {
        // Pairs (router wallet, its master) the pool names; a pool that does not read adds nothing here and is
        // skipped with its reason by `map_pools`.
        for (owner, wallet, master) in router_wallets(&answers, pool) {
            let Ok(Some(stack)) = answers.stack(&master.to_hex(), "get_jetton_data") else { continue };
            let Ok(data) = jetton::jetton_data(&stack) else { continue };
            let spec = WalletSpec { family: WalletFamily::Tep74, code: data.wallet_code.clone() };
            let asset = match ctx.asset(&master.to_hex()) {
                Ok(a @ Asset::Jetton(_)) => a,
                _ => continue,
            };
            if spec.wallet_address(&owner, &master).is_ok_and(|w| w == wallet) && !ctx.wallets.contains_key(&asset) {
                if let Some(code) = boc_base64(&data.wallet_code) {
                    ctx.wallets.insert(
                        asset,
                        SnapshotWallet { family: WalletFamily::Tep74.name().into(), code: Some(code), code_ref: None },
                    );
                }
            }
        }
    }
    Ok(answers.count)
}

/// `(owner, router wallet, master)` of the router wallets `pool` names, as far as its answers read.
fn router_wallets(answers: &Answers, pool: &str) -> Vec<(TonAddress, TonAddress, TonAddress)> {
    let mut out = Vec::new();
    if let Ok(Some(s)) = answers.stack(pool, "getPoolStateAndConfiguration") {
        if let Ok(st) = chain::dex_c::pool_state(&s) {
            out.push((st.router.clone(), st.jetton0_wallet, st.jetton0_minter));
            out.push((st.router, st.jetton1_wallet, st.jetton1_minter));
        }
        return out;
    }
    let wallets = match dex_b_kind(answers, pool) {
        Ok(Some(DexB::V1(d))) => [d.token0_wallet, d.token1_wallet],
        Ok(Some(DexB::V2(d))) => [d.token0_wallet, d.token1_wallet],
        _ => return out,
    };
    for w in wallets {
        if let Ok(Some(s)) = answers.stack(&w.to_hex(), "get_wallet_data") {
            if let Ok(d) = jetton::wallet_data(&s) {
                out.push((d.owner, w, d.master));
            }
        }
    }
    out
}

/// A cell as a base64 bag of cells (CRC32C on, as `@ton/core` writes them).
fn boc_base64(cell: &ArcCell) -> Option<String> {
    use base64::Engine as _;
    let bytes = BagOfCells::from_root((**cell).clone()).serialize(true).ok()?;
    Some(base64::engine::general_purpose::STANDARD.encode(bytes))
}

enum DexB {
    V1(chain::dex_b::V1PoolData),
    V2(chain::dex_b::V2PoolData),
}

/// The STON.fi pool data of `pool`: v2 when it answers `get_pool_type`, v1 otherwise; `None` without
/// `get_pool_data`.
fn dex_b_kind(answers: &Answers, pool: &str) -> Result<Option<DexB>, Skip> {
    let Some(data) = answers.stack(pool, "get_pool_data")? else { return Ok(None) };
    match answers.stack(pool, "get_pool_type")? {
        Some(t) => {
            let kind = chain::dex_b::pool_type(&t).map_err(|e| undecoded(pool, e))?;
            Ok(Some(DexB::V2(chain::dex_b::v2_pool_data(&data, kind).map_err(|e| undecoded(pool, e))?)))
        }
        None => Ok(Some(DexB::V1(chain::dex_b::v1_pool_data(&data).map_err(|e| undecoded(pool, e))?))),
    }
}

/// Second pass: every pool of the payload, handed to `emit` by its index; returns the pool count.
pub fn map_pools(file: &str, value: &Value, ctx: &Context, emit: EmitPool<'_>) -> Result<usize, ImportError> {
    let answers = Answers::read(file, value)?;
    for (i, pool) in answers.pools.iter().enumerate() {
        emit(i, map_pool(&answers, pool, ctx));
    }
    Ok(answers.pools.len())
}

fn map_pool(answers: &Answers, pool: &str, ctx: &Context) -> Result<MappedPool, Skip> {
    let here = Some(pool);
    let asset = |text: &str| {
        ctx.asset(text).map_err(|e| Skip::new(SkipReason::UnsupportedAsset, here, format!("asset {text}: {e}")))
    };
    let info = AssetInfo::default;
    let updated = |e: super::chain::UpdateError| Skip::new(SkipReason::Invalid, here, e.to_string());
    if let Some(s) = answers.stack(pool, "getPoolStateAndConfiguration")? {
        let state = chain::dex_c::pool_state(&s).map_err(|e| undecoded(pool, e))?;
        let ticks =
            chain::dex_c::all_ticks(&answers.need(pool, pool, "getAllTickInfos")?).map_err(|e| undecoded(pool, e))?;
        if !state.pool_active {
            return Err(Skip::new(SkipReason::Uninitialized, here, "the pool is not active"));
        }
        if state.liquidity == 0 && ticks.is_empty() {
            return Err(Skip::new(SkipReason::ZeroReserves, here, "no liquidity"));
        }
        let assets = [asset(&state.jetton0_minter.to_hex())?, asset(&state.jetton1_minter.to_hex())?];
        let mut p = pool_entry(
            pool.to_string(),
            "dex_c",
            "concentrated",
            [assets[0].to_string(), assets[1].to_string()],
            [0, 0],
            state.lp_fee_current,
        );
        p.concentrated = SnapshotConcentrated { ticks: Some(Vec::new()), ..SnapshotConcentrated::default() };
        dex_c(&mut p, &state, &ticks, ctx).map_err(updated)?;
        return Ok(MappedPool { pool: p, assets: [(assets[0], info()), (assets[1], info())], ton_alias: None });
    }
    if let Some(s) = answers.stack(pool, "get_reserves")? {
        let reserves = chain::dex_a::reserves(&s).map_err(|e| undecoded(pool, e))?;
        let fee =
            chain::dex_a::trade_fee(&answers.need(pool, pool, "get_trade_fee")?).map_err(|e| undecoded(pool, e))?;
        let assets = chain::dex_a::assets(&answers.need(pool, pool, "get_assets")?).map_err(|e| undecoded(pool, e))?;
        let stable =
            chain::dex_a::is_stable(&answers.need(pool, pool, "is_stable")?).map_err(|e| undecoded(pool, e))?;
        if reserves.contains(&0) {
            return Err(Skip::new(
                SkipReason::ZeroReserves,
                here,
                format!("reserves {} / {}", reserves[0], reserves[1]),
            ));
        }
        let curve = if stable { "stable_swap" } else { "constant_product" };
        let mut p =
            pool_entry(pool.to_string(), "dex_a", curve, [assets[0].to_string(), assets[1].to_string()], [1, 1], 0);
        dex_a(&mut p, reserves, fee).map_err(updated)?;
        return Ok(MappedPool { pool: p, assets: [(assets[0], info()), (assets[1], info())], ton_alias: None });
    }
    let data = dex_b_kind(answers, pool)?
        .ok_or_else(|| Skip::new(SkipReason::MissingData, here, "no `get_pool_data` answer"))?;
    let (wallets, reserves) = match &data {
        DexB::V1(d) => ([&d.token0_wallet, &d.token1_wallet], [d.reserve0, d.reserve1]),
        DexB::V2(d) => ([&d.token0_wallet, &d.token1_wallet], [d.reserve0, d.reserve1]),
    };
    if reserves.contains(&0) {
        return Err(Skip::new(SkipReason::ZeroReserves, here, format!("reserves {} / {}", reserves[0], reserves[1])));
    }
    let mut owners = Vec::with_capacity(2);
    let mut assets = Vec::with_capacity(2);
    for w in wallets {
        let d = jetton::wallet_data(&answers.need(pool, &w.to_hex(), "get_wallet_data")?)
            .map_err(|e| undecoded(pool, e))?;
        assets.push(asset(&d.master.to_hex())?);
        owners.push(d.owner);
    }
    let assets = [assets[0], assets[1]];
    let names = [assets[0].to_string(), assets[1].to_string()];
    let p = match &data {
        DexB::V1(d) => {
            if owners[0] != owners[1] {
                return Err(Skip::new(
                    SkipReason::Invalid,
                    here,
                    format!("its wallets belong to two owners, {} and {}", owners[0].to_hex(), owners[1].to_hex()),
                ));
            }
            let mut p = pool_entry(pool.to_string(), "dex_b_v1", "constant_product", names, reserves, d.lp_fee);
            // v1 pool data does not name the router: the owner of its wallets is the router.
            p.router = Some(owners[0].to_hex());
            dex_b_v1(&mut p, d).map_err(updated)?;
            p
        }
        DexB::V2(d) => {
            let curve = d.params.pool_type().snapshot_curve();
            let mut p = pool_entry(pool.to_string(), "dex_b_v2", curve, names, reserves, d.lp_fee);
            dex_b_v2(&mut p, d).map_err(updated)?;
            p
        }
    };
    Ok(MappedPool { pool: p, assets: [(assets[0], info()), (assets[1], info())], ton_alias: None })
}
