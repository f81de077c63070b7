//! What imported pools need for their swap messages, derived offline: the addresses no HTTP API gives.
//!
//! | protocol | needs | derived from |
//! |---|---|---|
//! | `dex_b_v1`, `dex_b_v2` | `router_wallets`: the router's jetton wallet of each asset, its proxy-TON wallet for TON | the router (from the record) and the jetton's wallet family and code ([`tonroute_core::chain::wallet`]); for TON, the `/v1/routers` record's `pton_wallet_address`, else the proxy-TON master's wallet code (pTON v1 for the v1 router, the master the record names for v2) |
//! | `dex_c` | `router_wallets` | the TONCO mainnet router ([`tonroute_core::swap::dex_c::MAINNET_ROUTER`]) and the jetton's family; for TON, the router's pTON wallet the SDK hard-codes |
//! | `dex_a` | `protocols.dex_a` vaults of every asset | the DeDust mainnet factory's rule ([`tonroute_core::chain::dex_a::vault_address`]) |
//!
//! A jetton's wallet family and code come from the snapshot's asset entry (`wallet`, e.g. from a `--base`
//! snapshot) or from the jettons known offline ([`tonroute_core::chain::wallet::KNOWN_JETTONS`]: USD₮, NOT); an
//! imported known jetton gets its `wallet` entry written, so that users' wallets of it derive too. When an
//! address cannot be derived the pool is imported **quote-only**: quotes can use it and mark it, swaps through
//! it are refused; [`QuoteOnly`] says why. Pure: no I/O, nothing asked of the chain.

use std::collections::HashMap;

use tonlib_core::TonAddress;

use super::dex_b::V1_ROUTER;
use super::Context;
use tonroute_core::asset::Asset;
use tonroute_core::chain::wallet::{known_jetton, WalletFamily, WalletSpec, KNOWN_JETTONS};
use tonroute_core::graph::snapshot::{DexAContext, DexBV1Context, Snapshot, SnapshotPool, SnapshotWallet};

/// The pTON v1 master, which the v1 router's proxy-TON wallet belongs to.
const PTON_V1_MASTER: &str = super::KNOWN_PTON_MASTERS[0];

/// A pool imported without what its swap messages need: quotes mark it, swaps through it are refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteOnly {
    /// The pool, raw form.
    pub pool: String,
    /// Its protocol slug.
    pub protocol: String,
    /// Its assets, as the snapshot names them.
    pub assets: [String; 2],
    /// Why its messages cannot be built.
    pub reason: String,
}

/// One imported pool: its index in the snapshot's pools and the proxy-TON master its record wrote for TON
/// (raw form), if any.
pub(super) struct Imported {
    pub(super) index: usize,
    pub(super) ton_alias: Option<String>,
}

/// Fills the router wallets of the imported pools and the `dex_a` vaults their assets need, and gives the
/// known jettons added after the first `base_assets` asset entries their `wallet` entry. Returns the pools
/// left quote-only, in snapshot order.
pub(super) fn complete(
    snapshot: &mut Snapshot,
    imported: &[Imported],
    base_assets: usize,
    ctx: &Context,
) -> Vec<QuoteOnly> {
    let specs = wallet_specs(snapshot, base_assets);
    let symbols: HashMap<String, String> =
        snapshot.assets.iter().map(|a| (a.asset.clone(), a.symbol.clone())).collect();
    let mut quote_only = Vec::new();
    let mut dex_a_assets: Vec<Asset> = Vec::new();
    for one in imported {
        let Some(pool) = snapshot.pools.get_mut(one.index) else { continue };
        let outcome = match pool.protocol.as_str() {
            "dex_b_v1" | "dex_b_v2" | "dex_c" if pool.router_wallets.is_none() => {
                router_wallets(pool, one.ton_alias.as_deref(), &specs, &symbols, ctx)
            }
            "dex_a" => {
                dex_a_assets.extend(pool.assets.iter().filter_map(|a| Asset::parse(a).ok()));
                Ok(())
            }
            _ => Ok(()),
        };
        if let Err(reason) = outcome {
            quote_only.push(QuoteOnly {
                pool: pool.address.clone(),
                protocol: pool.protocol.clone(),
                assets: pool.assets.clone(),
                reason,
            });
        }
    }
    if !dex_a_assets.is_empty() {
        if let Err(reason) = vaults(snapshot, &dex_a_assets) {
            for one in imported {
                let Some(pool) = snapshot.pools.get(one.index).filter(|p| p.protocol == "dex_a") else { continue };
                quote_only.push(QuoteOnly {
                    pool: pool.address.clone(),
                    protocol: pool.protocol.clone(),
                    assets: pool.assets.clone(),
                    reason: reason.clone(),
                });
            }
        }
    }
    // The v1 router and its proxy-TON wallet, protocol-wide, from the first v1 pool that has them.
    if snapshot.protocols.dex_b_v1.is_none() {
        let v1 = imported.iter().filter_map(|one| snapshot.pools.get(one.index)).find_map(|p| {
            let wallets = p.router_wallets.as_ref().filter(|_| p.protocol == "dex_b_v1")?;
            let ton = p.assets.iter().position(|a| a == "native")?;
            Some(DexBV1Context { router: p.router.clone()?, pton_wallet: wallets[ton].clone() })
        });
        snapshot.protocols.dex_b_v1 = v1;
    }
    quote_only
}

/// The derivation data per jetton: the snapshot's `wallet` entries, then the known jettons (writing their
/// `wallet` entry on assets added by the import).
fn wallet_specs(snapshot: &mut Snapshot, base_assets: usize) -> HashMap<Asset, WalletSpec> {
    let mut specs = HashMap::new();
    let mut codes = Default::default();
    for a in &snapshot.assets {
        // An entry that does not parse is refused when the snapshot is built into a graph; nothing to use here.
        if let Ok(spec) = a.to_spec(&snapshot.wallet_codes, &mut codes) {
            if let Some(w) = spec.wallet {
                specs.insert(spec.meta.asset, w);
            }
        }
    }
    for (master, family, code) in KNOWN_JETTONS {
        let Ok(address) = TonAddress::from_hex_str(master) else { continue };
        let asset = Asset::parse(master).unwrap_or(Asset::Native);
        let Some(spec) = known_jetton(&address) else { continue };
        if family == WalletFamily::Pton || specs.contains_key(&asset) {
            continue;
        }
        specs.insert(asset, spec);
        if let Some(entry) = snapshot.assets.iter_mut().skip(base_assets).find(|e| e.asset == asset.to_string()) {
            entry.wallet.get_or_insert(SnapshotWallet {
                family: family.name().into(),
                code: Some(code.into()),
                code_ref: None,
            });
        }
    }
    specs
}

/// A pool's router wallets (token0, token1), written into it; why not when one cannot be derived.
fn router_wallets(
    pool: &mut SnapshotPool,
    ton_alias: Option<&str>,
    specs: &HashMap<Asset, WalletSpec>,
    symbols: &HashMap<String, String>,
    ctx: &Context,
) -> Result<(), String> {
    let tonco = pool.protocol == "dex_c";
    let router_text = match (&pool.router, tonco) {
        (Some(r), _) => r.clone(),
        (None, true) => tonroute_core::swap::dex_c::MAINNET_ROUTER.to_string(),
        (None, false) => return Err("the record names no router".into()),
    };
    let router =
        tonroute_core::asset::parse_address(&router_text).map_err(|e| format!("router `{router_text}`: {e}"))?;
    // A symbol the import made up from the address (`0:2aad3182…`) says nothing the id does not.
    let named = |a: &str| match symbols.get(a) {
        Some(s) if !s.is_empty() && !s.starts_with("0:") => format!("{s} ({a})"),
        _ => a.to_string(),
    };
    let mut wallets: [String; 2] = Default::default();
    for (slot, text) in wallets.iter_mut().zip(&pool.assets) {
        let asset = Asset::parse(text).map_err(|e| format!("asset `{text}`: {e}"))?;
        let wallet = match asset {
            Asset::Native if tonco => dex_c_pton_wallet(&router)?,
            Asset::Native => pton_wallet(&router, pool.protocol == "dex_b_v1", ton_alias, ctx)?,
            Asset::Jetton(master) => {
                let spec = specs.get(&asset).ok_or_else(|| {
                    format!(
                        "the router's wallet of {} cannot be derived offline: the jetton's wallet code is not known \
                         (known: USD₮, NOT, and jettons with a `wallet` entry in the --base snapshot)",
                        named(text)
                    )
                })?;
                spec.wallet_address(&router, &master.to_address())
                    .map_err(|e| format!("the router's wallet of {}: {e}", named(text)))?
            }
        };
        *slot = wallet.to_hex();
    }
    pool.router_wallets = Some(wallets);
    Ok(())
}

/// A STON.fi router's proxy-TON wallet: the one `/v1/routers` gives, else derived from the proxy-TON master
/// (pTON v1 for the v1 router; for v2, the master the record wrote for TON or the router's, when its wallet
/// code is known).
fn pton_wallet(router: &TonAddress, v1: bool, alias: Option<&str>, ctx: &Context) -> Result<TonAddress, String> {
    let info = ctx.routers.get(&router.to_hex());
    if let Some(given) = info.and_then(|i| i.pton_wallet.as_deref()) {
        return tonroute_core::asset::parse_address(given).map_err(|e| format!("pton_wallet_address `{given}`: {e}"));
    }
    let master = if v1 || router.to_hex() == V1_ROUTER {
        Some(PTON_V1_MASTER.to_string())
    } else {
        alias.map(str::to_string).or_else(|| {
            info.and_then(|i| match i.pton_master {
                Some(Asset::Jetton(m)) => Some(m.to_raw()),
                _ => None,
            })
        })
    };
    let unknown = || {
        format!(
            "the router's proxy-TON wallet cannot be derived offline: /v1/routers gives none for router {}, and {}",
            router.to_hex(),
            match &master {
                Some(m) => format!("its proxy-TON master {m} has no known wallet code"),
                None => "the record does not say which proxy-TON master it uses".to_string(),
            }
        )
    };
    let master = master.as_deref().and_then(|m| TonAddress::from_hex_str(m).ok()).ok_or_else(unknown)?;
    let spec = known_jetton(&master).filter(|s| s.family == WalletFamily::Pton).ok_or_else(unknown)?;
    spec.wallet_address(router, &master).map_err(|e| format!("the router's proxy-TON wallet: {e}"))
}

/// The TONCO router's proxy-TON wallet: known for the mainnet router only (the SDK hard-codes it; TONCO's
/// proxy-TON wallet code is not among the verified families).
fn dex_c_pton_wallet(router: &TonAddress) -> Result<TonAddress, String> {
    let mainnet =
        tonroute_core::asset::parse_address(tonroute_core::swap::dex_c::MAINNET_ROUTER).map_err(|e| e.to_string())?;
    if *router != mainnet {
        return Err(format!(
            "the proxy-TON wallet of TONCO router {} cannot be derived offline (only the mainnet router's is known)",
            router.to_hex()
        ));
    }
    tonroute_core::asset::parse_address(tonroute_core::swap::dex_c::MAINNET_ROUTER_PTON_WALLET)
        .map_err(|e| e.to_string())
}

/// Adds the mainnet factory's vault of each asset the snapshot's `protocols.dex_a` lacks (its own entries
/// are kept).
fn vaults(snapshot: &mut Snapshot, assets: &[Asset]) -> Result<(), String> {
    let factory = TonAddress::from_hex_str(tonroute_core::chain::dex_a::MAINNET_FACTORY).map_err(|e| e.to_string())?;
    let vault = |asset: &Asset| {
        tonroute_core::chain::dex_a::vault_address(&factory, asset)
            .map(|v| v.to_hex())
            .map_err(|e| format!("deriving the DeDust vault of {asset}: {e}"))
    };
    let mut dex_a = match &snapshot.protocols.dex_a {
        Some(existing) => existing.clone(),
        None => DexAContext { native_vault: vault(&Asset::Native)?, jetton_vaults: Default::default() },
    };
    // The snapshot may spell its keys in any accepted asset form.
    let mut known: std::collections::HashSet<Asset> =
        dex_a.jetton_vaults.keys().filter_map(|k| Asset::parse(k).ok()).collect();
    for asset in assets.iter().filter(|a| !a.is_native()) {
        if known.insert(*asset) {
            dex_a.jetton_vaults.insert(asset.to_string(), vault(asset)?);
        }
    }
    snapshot.protocols.dex_a = Some(dex_a);
    Ok(())
}
