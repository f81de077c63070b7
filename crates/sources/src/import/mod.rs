//! Pure mapping of the exchanges' saved HTTP API responses to snapshot pools and assets.
//!
//! Owns reading STON.fi (`/v1/pools`, `/v1/routers`, `/v1/assets`), DeDust (`/v2/pools`) and TONCO indexer
//! (`pools`, optionally `positions`) responses into a [`Snapshot`], with the kind of each payload recognised
//! from its content ([`detect`]). No I/O: callers hand in the texts ([`Payload`]) and write the result.
//! Must not know about HTTP clients, files or the graph's internals; every pool it emits passes
//! [`SnapshotPool::validate`], and the whole result is built into a graph before it is returned, so a
//! snapshot out of here always loads.
//!
//! **Skipped, never half-imported.** A record that cannot be routed exactly is left out whole and counted
//! by [`SkipReason`] (deprecated, zero reserves, unknown type, missing data, …) with a few examples kept for
//! the report; a file that is not a known payload is an [`ImportError`] and nothing is produced.
//!
//! **TON** is `native` whether an API writes it as the zero address `EQAAAA…AM9c` (`0:000…0`) or as a
//! proxy-TON master: the known ones ([`KNOWN_PTON_MASTERS`]) and every `pton_master_address` of a given
//! `/v1/routers` response.
//!
//! | source | pool kinds | where the pool type / fee comes from |
//! |---|---|---|
//! | STON.fi `/v1/pools` | `dex_b_v1` (the v1 router, or `major_version` 1), `dex_b_v2` | `/v1/routers` `router_type` when given, else the record's fields (`amp`, `w0`, `rate`) |
//! | DeDust `/v2/pools` | `dex_a` `constant_product` (volatile), `stable_swap` (stable) | `tradeFee` percent string, exact in bps |
//! | TONCO indexer | `dex_c` `concentrated` | `fee` (1/10000), ticks rebuilt from `positions` |
//! | saved get-method answers ([`getters`]) | `dex_b_v1`, `dex_b_v2`, `dex_c`, `dex_a` | the pools' own state, through [`tonroute_core::chain`] |
//!
//! **Swappable where derivable.** What swap messages need and no HTTP API gives — the routers' jetton and
//! proxy-TON wallets, DeDust's vaults — is derived offline where the contracts' rules allow it ([`derive`]);
//! a pool for which it cannot be is imported quote-only and listed in [`ImportReport::quote_only`] with the
//! reason. [`chain`] writes decoded chain state ([`tonroute_core::chain`]) into imported pools: current reserves and
//! fees, and the router wallets read from the pools themselves.
//!
//! **Never a snapshot of nothing.** A tonroute snapshot given as a payload is refused as one
//! ([`ImportError::TonrouteSnapshot`]); [`ImportReport::check`] refuses a result that imported no pool, a
//! pool payload with no records, and one most of whose records could not be read ([`SkipReason::is_misread`]).

pub mod chain;
mod derive;
pub mod dex_a;
pub mod dex_b;
pub mod dex_c;
pub mod getters;
mod payload;
mod record;
mod report;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::Value;

pub use derive::QuoteOnly;
pub use payload::{detect, is_tonroute_snapshot, Payload, PayloadKind, KNOWN_PTON_MASTERS};
pub(crate) use record::{coins, pool_entry, pool_record, raw_address, records, reserve, ton_alias, NumText};
pub use record::{AssetInfo, Context, EmitPool, MappedPool, RouterInfo, Skip};
pub use report::{FileSummary, ImportError, ImportReport, SkipReason, Skipped, EXAMPLES_PER_REASON};
use tonroute_core::asset::Asset;
use tonroute_core::graph::snapshot::{Snapshot, SnapshotAsset};

/// How an import treats what the payloads leave out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// TONCO pools of a payload without `positions` are imported with no ticks instead of skipped as
    /// `missing_data`: the caller reads their ticks from the chain next ([`chain::dex_c`]) and must drop every
    /// such pool whose read fails (what `sync` does). Off for offline imports, whose result is routed as is.
    pub ticks_from_chain: bool,
}

/// Imports the payloads into a new snapshot. See [`import_onto`].
pub fn import_files(payloads: &[Payload]) -> Result<ImportReport, ImportError> {
    import_onto(None, payloads)
}

/// Imports the payloads on top of `base` (imported pools replace base pools of the same address; the base's
/// assets, protocol addresses, wallets and wallet codes are kept). Routers and assets payloads are read first,
/// whatever their order, so that pools can use them.
pub fn import_onto(base: Option<&Snapshot>, payloads: &[Payload]) -> Result<ImportReport, ImportError> {
    import_with(base, payloads, &ImportOptions::default())
}

/// [`import_onto`] with [`ImportOptions`].
pub fn import_with(
    base: Option<&Snapshot>,
    payloads: &[Payload],
    options: &ImportOptions,
) -> Result<ImportReport, ImportError> {
    let mut parsed = Vec::with_capacity(payloads.len());
    for p in payloads {
        let value: Value =
            serde_json::from_str(&p.text).map_err(|source| ImportError::Json { file: p.name.clone(), source })?;
        if is_tonroute_snapshot(&value) {
            return Err(ImportError::TonrouteSnapshot { file: p.name.clone() });
        }
        let kind = detect(&value).ok_or_else(|| ImportError::UnknownKind { file: p.name.clone() })?;
        parsed.push((p, kind, value));
    }
    if !parsed.iter().any(|(_, k, _)| k.holds_pools()) {
        return Err(ImportError::NoPools);
    }
    let mut ctx = Context::new();
    let mut files = Vec::new();
    let mut counts = HashMap::new();
    for (p, kind, value) in &parsed {
        let records = match kind {
            PayloadKind::DexBRouters => dex_b::read_routers(&p.name, value, &mut ctx)?,
            PayloadKind::DexBAssets => dex_b::read_assets(&p.name, value, &mut ctx)?,
            PayloadKind::GetMethods => getters::read_context(&p.name, value, &mut ctx)?,
            _ => continue,
        };
        counts.insert(p.name.as_str(), records);
    }
    let mut out = Collector::default();
    for (p, kind, value) in &parsed {
        let records = match kind {
            PayloadKind::DexBPools => dex_b::map_pools(&p.name, value, &ctx, &mut |i, r| out.take(&p.name, i, r))?,
            PayloadKind::DexAPools => dex_a::map_pools(&p.name, value, &ctx, &mut |i, r| out.take(&p.name, i, r))?,
            PayloadKind::DexCPools => {
                dex_c::map_pools(&p.name, value, &ctx, *options, &mut |i, r| out.take(&p.name, i, r))?
            }
            PayloadKind::GetMethods => getters::map_pools(&p.name, value, &ctx, &mut |i, r| out.take(&p.name, i, r))?,
            _ => counts.get(p.name.as_str()).copied().unwrap_or(0),
        };
        let skipped = out.per_file.remove(p.name.as_str()).unwrap_or_default();
        files.push(FileSummary { name: p.name.clone(), kind: *kind, records, skipped });
    }
    out.finish(base, &ctx, files)
}

/// Gathers mapped pools and skips.
#[derive(Default)]
struct Collector {
    pools: Vec<MappedPool>,
    seen: HashSet<String>,
    skipped: BTreeMap<SkipReason, usize>,
    per_file: HashMap<String, BTreeMap<SkipReason, usize>>,
    examples: Vec<Skipped>,
}

impl Collector {
    fn skip(&mut self, file: &str, record: usize, s: Skip) {
        *self.per_file.entry(file.to_string()).or_default().entry(s.reason).or_default() += 1;
        let n = self.skipped.entry(s.reason).or_default();
        *n += 1;
        if *n <= EXAMPLES_PER_REASON {
            self.examples.push(Skipped {
                file: file.to_string(),
                record,
                pool: s.pool,
                reason: s.reason,
                detail: s.detail,
            });
        }
    }

    fn take(&mut self, file: &str, record: usize, r: Result<MappedPool, Skip>) {
        let mapped = match r {
            Ok(m) => m,
            Err(s) => return self.skip(file, record, s),
        };
        let address = mapped.pool.address.clone();
        if let Err(e) = mapped.pool.validate() {
            return self.skip(file, record, Skip::new(SkipReason::Invalid, Some(&address), e.to_string()));
        }
        if !self.seen.insert(address.clone()) {
            return self.skip(file, record, Skip::new(SkipReason::Duplicate, Some(&address), "pool listed before"));
        }
        self.pools.push(mapped);
    }

    fn finish(
        mut self,
        base: Option<&Snapshot>,
        ctx: &Context,
        files: Vec<FileSummary>,
    ) -> Result<ImportReport, ImportError> {
        let mut snapshot = base.cloned().unwrap_or_default();
        // Metadata per asset: /v1/assets first, then the pool records, then the base.
        let mut infos: BTreeMap<Asset, AssetInfo> = BTreeMap::new();
        let mut imported = BTreeMap::new();
        for m in &self.pools {
            for (asset, info) in &m.assets {
                let entry = infos.entry(*asset).or_insert_with(|| ctx.assets.get(asset).cloned().unwrap_or_default());
                entry.fill_from(info);
            }
            *imported.entry(format!("{}/{}", m.pool.protocol, m.pool.curve)).or_default() += 1;
        }
        let base_assets: HashMap<Asset, usize> = snapshot
            .assets
            .iter()
            .enumerate()
            .filter_map(|(i, a)| Asset::parse(&a.asset).ok().map(|asset| (asset, i)))
            .collect();
        let mut assets_without_metadata = 0;
        let base_count = snapshot.assets.len();
        for (asset, info) in infos {
            if base_assets.contains_key(&asset) {
                continue;
            }
            if asset != Asset::Native && (info.symbol.is_none() || info.decimals.is_none()) {
                assets_without_metadata += 1;
            }
            let wallet = ctx.wallets.get(&asset).cloned();
            snapshot.assets.push(SnapshotAsset { wallet, ..asset_entry(asset, info) });
        }
        let fresh: HashSet<&str> = self.pools.iter().map(|m| m.pool.address.as_str()).collect();
        let before = snapshot.pools.len();
        snapshot.pools.retain(|p| raw_address(&p.address).is_none_or(|a| !fresh.contains(a.as_str())));
        let replaced = before - snapshot.pools.len();
        let first = snapshot.pools.len();
        let imported_pools: Vec<derive::Imported> = self
            .pools
            .iter_mut()
            .enumerate()
            .map(|(i, m)| derive::Imported { index: first + i, ton_alias: m.ton_alias.take() })
            .collect();
        snapshot.pools.extend(self.pools.into_iter().map(|m| m.pool));
        // The v1 router's proxy-TON wallet, when /v1/routers gave it and the base has none.
        if snapshot.protocols.dex_b_v1.is_none() && snapshot.pools.iter().any(|p| p.protocol == "dex_b_v1") {
            if let Some(wallet) = ctx.routers.get(dex_b::V1_ROUTER).and_then(|r| r.pton_wallet.clone()) {
                snapshot.protocols.dex_b_v1 = Some(tonroute_core::graph::snapshot::DexBV1Context {
                    router: dex_b::V1_ROUTER.to_string(),
                    pton_wallet: wallet,
                });
            }
        }
        let quote_only = derive::complete(&mut snapshot, &imported_pools, base_count, ctx);
        if base.is_none() {
            snapshot.source = Some(format!(
                "tonroute import of {}",
                files.iter().map(|f| format!("{} ({})", f.name, f.kind.describe())).collect::<Vec<_>>().join(", ")
            ));
        }
        snapshot.into_graph().map_err(|source| ImportError::Graph { source })?;
        Ok(ImportReport {
            snapshot,
            files,
            imported,
            replaced,
            skipped: self.skipped,
            examples: self.examples,
            assets_without_metadata,
            quote_only,
        })
    }
}

/// The snapshot entry of an asset. Without metadata, a jetton gets TEP-64's default of 9 decimals and its
/// master's first hex digits as symbol.
fn asset_entry(asset: Asset, info: AssetInfo) -> SnapshotAsset {
    let (symbol, name, decimals) = match asset {
        Asset::Native => ("TON".to_string(), "Toncoin".to_string(), 9),
        Asset::Jetton(m) => {
            let fallback = format!("0:{}…", &m.to_raw()[2..10]);
            let symbol = info.symbol.clone().filter(|s| !s.is_empty()).unwrap_or(fallback);
            (symbol.clone(), info.name.clone().filter(|n| !n.is_empty()).unwrap_or(symbol), info.decimals.unwrap_or(9))
        }
    };
    SnapshotAsset {
        asset: asset.to_string(),
        symbol,
        name,
        decimals,
        usd_price: info.usd_price.filter(|p| p.parse::<f64>().is_ok_and(|v| v.is_finite() && v >= 0.0)),
        image: info.image.filter(|i| !i.is_empty()),
        wallet: None,
    }
}
