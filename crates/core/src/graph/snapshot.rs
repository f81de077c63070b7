//! The JSON snapshot format (`docs/snapshot-format.md`) and its loading into a [`PoolGraph`].
//!
//! Integers are decimal strings; unknown fields are ignored; a missing required field, a malformed id, a
//! duplicate pool, a pool whose assets are equal or unknown, and a reserve ≥ 2^120 are errors that name the
//! pool. Owns the file shape only; the graph itself lives in the parent module.
//!
//! # Concentrated pools (`dex_c`)
//!
//! A `dex_c` pool has `"curve": "concentrated"` and, next to the common fields, the pool contract's state:
//!
//! ```json
//! {
//!   "address": "0:…", "protocol": "dex_c", "curve": "concentrated",
//!   "assets": ["native", "jetton:0:b113…"],
//!   "reserves": ["1000000000000", "5200000000"],   // token balances: validated, display only
//!   "lp_fee": 30, "protocol_fee": 100,             // lp_fee_current in 1/10000; protocol share of it
//!   "sqrt_price_x96": "79228162514264337593543950336",
//!   "tick": 0, "liquidity": "1000000000000000000", "tick_spacing": 60,
//!   "ticks": [{"tick": -600, "liquidity_net": "1000000000000000000", "liquidity_gross": "1000000000000000000"},
//!             {"tick": 600, "liquidity_net": "-1000000000000000000", "liquidity_gross": "1000000000000000000"}],
//!   "router_wallets": ["0:…", "0:…"]
//! }
//! ```
//!
//! `sqrt_price_x96` (√price·2^96, token1 per token0), `liquidity`, `liquidity_net` (signed) and
//! `liquidity_gross` are decimal strings; `tick`, `tick_spacing` and each tick's `tick` are JSON integers.
//! `ticks` lists the initialized ticks (any order; sorted on load; may be empty). The graph keeps the
//! pool's virtual reserves as its reserve pair, not the `reserves` given here; later state changes go through
//! `PoolGraph::update_concentrated` / `update_concentrated_state`.
//!
//! # Jetton wallets
//!
//! A user's jetton wallet (where a jetton offer's first message goes) comes from `jetton_wallets` when the
//! owner is listed there, else it is derived offline from the jetton's `wallet` entry (optional; files
//! without it load as before):
//!
//! ```json
//! "wallet_codes": {"tep74-reference": "te6cckECEgEAAygAART/APSk…"},
//! "assets": [
//!   {"asset": "jetton:0:b113…", "symbol": "USD₮", "decimals": 6,
//!    "wallet": {"family": "stablecoin", "code": "te6cckEBAQEAIwAIQgKPRS16…"}},
//!   {"asset": "jetton:0:1234…", "symbol": "JT1", "decimals": 9,
//!    "wallet": {"family": "tep74", "code_ref": "tep74-reference"}}
//! ]
//! ```
//!
//! `family` is one of the verified layouts of [`crate::chain::wallet::WalletFamily`] (`tep74`, `stablecoin`,
//! `pton`); `code` is the wallet
//! code as the master stores it (base64 or hex bag of cells, a library cell for USD₮), or `code_ref` names an
//! entry of the top-level `wallet_codes` shared by many jettons. A jetton without `wallet` and an owner not
//! listed give [`crate::chain::wallet::WalletError::UnknownFamily`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use tonlib_core::cell::ArcCell;
use tonlib_core::TonAddress;

use super::{
    AssetMeta, AssetSpec, GraphBuilder, GraphError, PoolContext, PoolGraph, PoolSpec, Protocol, ProtocolContext,
    Volatility,
};
use crate::asset::Asset;
use crate::chain::boc::parse_boc_text;
use crate::chain::wallet::{WalletFamily, WalletSpec};
use crate::pool::concentrated::{ClState, Tick};
use crate::pool::{
    Concentrated, ConstantProduct, Curve, DexAStable, DexAVolatile, FeeModel, StableSwap, WeightedConstantProduct,
    WeightedStableSwap,
};
use primitive_types::U256;

/// A whole snapshot file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Snapshot {
    /// Where the data came from (generator and seed, or source and date).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Every asset a pool names.
    pub assets: Vec<SnapshotAsset>,
    /// The pools.
    pub pools: Vec<SnapshotPool>,
    /// Protocol-wide addresses.
    #[serde(default)]
    pub protocols: SnapshotProtocols,
    /// Known user jetton wallets: owner (raw address) → asset id → wallet (raw address). Overrides derivation.
    #[serde(default)]
    pub jetton_wallets: BTreeMap<String, BTreeMap<String, String>>,
    /// Jetton wallet codes shared by several assets' `wallet.code_ref`: name → base64 bag of cells.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub wallet_codes: BTreeMap<String, String>,
}

/// An asset entry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotAsset {
    /// `native` or `jetton:0:<hex>` (any accepted asset form).
    pub asset: String,
    /// Ticker.
    pub symbol: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// Decimals.
    pub decimals: u8,
    /// USD price, decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_price: Option<String>,
    /// Image URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// How this jetton's wallets are derived (see "Jetton wallets" in the module documentation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wallet: Option<SnapshotWallet>,
}

/// A jetton's wallet family and wallet code: what deriving any owner's wallet address needs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotWallet {
    /// `tep74` or `stablecoin` ([`crate::chain::wallet::WalletFamily`]).
    pub family: String,
    /// The wallet code, a base64 (or hex) bag of cells; may be a library cell.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// Instead of `code`: the name of an entry of the snapshot's `wallet_codes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_ref: Option<String>,
}

/// A pool entry.
///
/// `curve` per protocol: `dex_a`: `constant_product`, `stable_swap`; `dex_b_v1`: `constant_product`;
/// `dex_b_v2`: `constant_product`, `stable_swap` (needs `amp`), `weighted_constant_product` (needs `w0`) and
/// `weighted_stable_swap` (needs `amp`, `rate`, `w0`). The weighted pools' `w0`, `rate` and `amp` are the
/// contract's stored 1e18 fixed-point integers as decimal strings, e.g. `"w0": "800000000000000000"` for an
/// 80/20 pool; `weighted_constant_product` needs `0 < w0 < 1e18`, `weighted_stable_swap` `w0 ≤ 1e18` and
/// `rate > 0`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotPool {
    /// Address, raw form.
    pub address: String,
    /// Protocol slug.
    pub protocol: String,
    /// `constant_product`, `stable_swap`, `weighted_constant_product`, `weighted_stable_swap` or (`dex_c`)
    /// `concentrated`.
    pub curve: String,
    /// token0, token1 in contract order.
    pub assets: [String; 2],
    /// Reserves, decimal strings.
    pub reserves: [String; 2],
    /// LP fee in 1/10000.
    pub lp_fee: u16,
    /// Protocol fee in 1/10000.
    #[serde(default)]
    pub protocol_fee: u16,
    /// `dex_b_v1`: the stored referral fee in 1/10000.
    #[serde(default)]
    pub ref_fee: u16,
    /// `stable_swap`: amplification as the contract stores it (u32, Curve's `Ann`); `weighted_stable_swap`:
    /// amplification in 1e18 fixed point (u128). Decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amp: Option<String>,
    /// `weighted_*`: weight of token0 in 1e18 fixed point (u64 for `weighted_constant_product`, u128 for
    /// `weighted_stable_swap`), decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub w0: Option<String>,
    /// `weighted_stable_swap`: price of token1 in token0 in 1e18 fixed point (u128), decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    /// `dex_b_*`: the router.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router: Option<String>,
    /// `dex_b_*`, `dex_c`: router jetton wallets for token0/token1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub router_wallets: Option<[String; 2]>,
    /// Volatility figures.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub volatility: Option<SnapshotVolatility>,
    /// `concentrated` (`dex_c`): the pool's state and tick map, as fields of the pool entry.
    #[serde(flatten)]
    pub concentrated: SnapshotConcentrated,
}

/// The `concentrated` fields of a pool entry (all required for that curve, ignored otherwise).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SnapshotConcentrated {
    /// √price · 2^96, decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sqrt_price_x96: Option<String>,
    /// Current tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick: Option<i32>,
    /// Active liquidity, decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity: Option<String>,
    /// Tick spacing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tick_spacing: Option<i32>,
    /// Initialized ticks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticks: Option<Vec<SnapshotTick>>,
}

/// One initialized tick of a concentrated pool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotTick {
    /// Tick index.
    pub tick: i32,
    /// Signed liquidity change when crossed upwards, decimal string.
    pub liquidity_net: String,
    /// Liquidity referencing the tick, decimal string.
    pub liquidity_gross: String,
}

/// Volatility figures of a pool.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
pub struct SnapshotVolatility {
    /// 1 minute.
    #[serde(default)]
    pub m1: f64,
    /// 5 minutes.
    #[serde(default)]
    pub m5: f64,
    /// 10 minutes.
    #[serde(default)]
    pub m10: f64,
    /// 15 minutes.
    #[serde(default)]
    pub m15: f64,
}

/// Protocol-wide addresses.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SnapshotProtocols {
    /// `dex_a` vaults.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dex_a: Option<DexAContext>,
    /// `dex_b_v1` router and its pTON wallet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dex_b_v1: Option<DexBV1Context>,
}

/// `dex_a` vault addresses.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DexAContext {
    /// The native vault.
    pub native_vault: String,
    /// Jetton vault per asset id.
    #[serde(default)]
    pub jetton_vaults: BTreeMap<String, String>,
}

/// `dex_b_v1` addresses.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct DexBV1Context {
    /// The router.
    pub router: String,
    /// The router's proxy-TON wallet.
    pub pton_wallet: String,
}

fn address(pool: &str, field: &'static str, text: &str) -> Result<TonAddress, GraphError> {
    crate::asset::parse_address(text).map_err(|e| GraphError::field_source(pool.to_string(), field, e))
}

fn amount(pool: &str, field: &'static str, text: &str) -> Result<u128, GraphError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(GraphError::bad_field(pool.to_string(), field, format!("`{text}` is not a decimal integer")));
    }
    text.parse::<u128>()
        .ok()
        .filter(|v| *v <= crate::pool::MAX_COINS)
        .ok_or_else(|| GraphError::ReserveTooLarge { pool: pool.to_string(), value: text.to_string() })
}

impl Snapshot {
    /// Parses a snapshot from JSON text: a JSON object (serde's derive alone would also take an array, the
    /// fields by position, and refuse `[]` in its own terms); a field that does not read is named by its path.
    pub fn from_json(text: &str) -> Result<Snapshot, GraphError> {
        crate::json::from_str::<crate::json::Object<Snapshot>>(text)
            .map(|snapshot| snapshot.0)
            .map_err(|e| GraphError::Json(crate::error::Shared::new(e)))
    }

    /// Builds the graph, validating every pool.
    pub fn into_graph(&self) -> Result<PoolGraph, GraphError> {
        let mut b = GraphBuilder::new();
        // Wallet codes parsed once per distinct text (most jettons share one).
        let mut codes: BTreeMap<String, ArcCell> = BTreeMap::new();
        for a in &self.assets {
            let spec = a.to_spec(&self.wallet_codes, &mut codes)?;
            let asset = spec.meta.asset;
            b.add_asset(spec.meta)?;
            if let Some(w) = spec.wallet {
                b.set_wallet_spec(asset, w);
            }
        }
        for p in &self.pools {
            let name = p.address.as_str();
            b.add_pool_spec(p.to_spec()?).map_err(|e| match e {
                // The builder names pools in raw form; keep the snapshot's spelling.
                GraphError::SameAssets { asset, .. } => GraphError::SameAssets { pool: name.to_string(), asset },
                GraphError::DuplicatePool { .. } => GraphError::DuplicatePool { pool: name.to_string() },
                GraphError::UnknownAsset { asset, .. } => GraphError::UnknownAsset { pool: name.to_string(), asset },
                other => other,
            })?;
        }
        let mut ctx = ProtocolContext::default();
        if let Some(a) = &self.protocols.dex_a {
            ctx.dex_a_native_vault = Some(address("-", "protocols.dex_a.native_vault", &a.native_vault)?);
            for (asset, vault) in &a.jetton_vaults {
                let asset =
                    Asset::parse(asset).map_err(|source| GraphError::BadAsset { asset: asset.clone(), source })?;
                ctx.dex_a_jetton_vaults.insert(asset, address("-", "protocols.dex_a.jetton_vaults", vault)?);
            }
        }
        if let Some(v1) = &self.protocols.dex_b_v1 {
            ctx.dex_b_v1_router = Some(address("-", "protocols.dex_b_v1.router", &v1.router)?);
            ctx.dex_b_v1_pton_wallet = Some(address("-", "protocols.dex_b_v1.pton_wallet", &v1.pton_wallet)?);
        }
        b.set_protocols(ctx);
        for (owner, wallets) in &self.jetton_wallets {
            let owner = address("-", "jetton_wallets", owner)?;
            for (asset, wallet) in wallets {
                let asset =
                    Asset::parse(asset).map_err(|source| GraphError::BadAsset { asset: asset.clone(), source })?;
                b.add_jetton_wallet(owner.clone(), asset, address("-", "jetton_wallets", wallet)?);
            }
        }
        Ok(b.build())
    }
}

impl SnapshotAsset {
    /// The asset checked: a valid id, a finite USD price (an unparsable one is dropped: display only), and a
    /// `wallet` entry with a known family and exactly one of `code` / `code_ref` (naming an entry of
    /// `wallet_codes`) holding a bag of cells. `codes` caches parsed codes by text (most jettons share one).
    pub fn to_spec(
        &self,
        wallet_codes: &BTreeMap<String, String>,
        codes: &mut BTreeMap<String, ArcCell>,
    ) -> Result<AssetSpec, GraphError> {
        let asset =
            Asset::parse(&self.asset).map_err(|source| GraphError::BadAsset { asset: self.asset.clone(), source })?;
        let usd_price = self.usd_price.as_deref().and_then(|p| p.parse::<f64>().ok()).filter(|p| p.is_finite());
        let name = if self.name.is_empty() { self.symbol.clone() } else { self.name.clone() };
        let wallet = self.wallet.as_ref().map(|w| wallet_spec(&asset, w, wallet_codes, codes)).transpose()?;
        let meta = AssetMeta {
            asset,
            symbol: self.symbol.clone(),
            name,
            decimals: self.decimals,
            usd_price,
            image: self.image.clone(),
        };
        Ok(AssetSpec { meta, wallet })
    }
}

/// The derivation data of `asset`'s `wallet` entry, checked (see [`SnapshotAsset::to_spec`]).
fn wallet_spec(
    asset: &Asset,
    w: &SnapshotWallet,
    wallet_codes: &BTreeMap<String, String>,
    codes: &mut BTreeMap<String, ArcCell>,
) -> Result<WalletSpec, GraphError> {
    let bad = |reason: String| GraphError::BadWalletSpec { asset: asset.to_string(), reason, source: None };
    if asset.is_native() {
        return Err(bad("the native coin has no jetton wallet".into()));
    }
    let family = WalletFamily::from_name(&w.family)
        .ok_or_else(|| bad(format!("unknown family `{}` (known: tep74, stablecoin, pton)", w.family)))?;
    let text = match (&w.code, &w.code_ref) {
        (Some(code), None) => code,
        (None, Some(name)) => {
            wallet_codes.get(name).ok_or_else(|| bad(format!("code_ref `{name}` is not in wallet_codes")))?
        }
        _ => return Err(bad("exactly one of `code` and `code_ref` is needed".into())),
    };
    let code = match codes.get(text) {
        Some(c) => c.clone(),
        None => {
            let c = parse_boc_text(text).map_err(|e| GraphError::BadWalletSpec {
                asset: asset.to_string(),
                reason: format!("wallet code: {e}"),
                source: Some(e.into()),
            })?;
            codes.insert(text.clone(), c.clone());
            c
        }
    };
    Ok(WalletSpec { family, code })
}

impl SnapshotPool {
    /// Checks this entry as [`Snapshot::into_graph`] would (address, protocol, asset ids, reserves, curve
    /// parameters), leaving out what needs the whole file (assets listed, duplicate addresses). Importers use
    /// it to keep a pool the graph would refuse out of a snapshot.
    pub fn validate(&self) -> Result<(), GraphError> {
        self.to_spec().map(|_| ())
    }

    /// The pool checked and converted ([`Self::validate`]'s checks): what a graph builder or a topology change
    /// takes. Errors name the pool as the entry spells it.
    pub fn to_spec(&self) -> Result<PoolSpec, GraphError> {
        let name = self.address.as_str();
        let addr = address(name, "address", name)?;
        let protocol = Protocol::from_slug(&self.protocol).ok_or_else(|| {
            GraphError::bad_field(name.to_string(), "protocol", format!("unknown protocol `{}`", self.protocol))
        })?;
        let mut assets = [Asset::Native; 2];
        for (slot, text) in assets.iter_mut().zip(&self.assets) {
            *slot = Asset::parse(text).map_err(|e| GraphError::field_source(name.to_string(), "assets", e))?;
        }
        if assets[0] == assets[1] {
            return Err(GraphError::SameAssets { pool: name.to_string(), asset: assets[0].to_string() });
        }
        let reserves = [amount(name, "reserves", &self.reserves[0])?, amount(name, "reserves", &self.reserves[1])?];
        let curve = curve_of(self, protocol)?;
        let context = PoolContext {
            router: self.router.as_deref().map(|r| address(name, "router", r)).transpose()?,
            router_wallets: match &self.router_wallets {
                Some([w0, w1]) => Some([address(name, "router_wallets", w0)?, address(name, "router_wallets", w1)?]),
                None => None,
            },
        };
        let volatility = self.volatility.map(|v| Volatility { m1: v.m1, m5: v.m5, m10: v.m10, m15: v.m15 });
        Ok(PoolSpec { address: addr, protocol, assets, curve, reserves, context, volatility })
    }
}

fn curve_of(p: &SnapshotPool, protocol: Protocol) -> Result<Curve, GraphError> {
    let name = p.address.as_str();
    let unsupported = || GraphError::UnsupportedCurve {
        pool: name.to_string(),
        protocol: p.protocol.clone(),
        curve: p.curve.clone(),
    };
    let fee_check = |field: &'static str, v: u16, max: u16| {
        if v > max {
            Err(GraphError::bad_field(name.to_string(), field, format!("{v} is above {max}")))
        } else {
            Ok(v)
        }
    };
    let amp = || -> Result<u32, GraphError> {
        let text = p
            .amp
            .as_deref()
            .ok_or_else(|| GraphError::bad_field(name.to_string(), "amp", "missing (required for stable_swap)"))?;
        text.parse::<u32>().ok().filter(|a| *a > 0).ok_or_else(|| {
            GraphError::bad_field(name.to_string(), "amp", format!("`{text}` is not an integer in 1..=4294967295"))
        })
    };
    // The weighted pools' u128 / u64 fixed-point fields, with a range the contract can swap with.
    let fixed = |field: &'static str, text: Option<&str>, max: u128, ok: fn(u128) -> bool, want: &str| {
        let text = text.ok_or_else(|| {
            GraphError::bad_field(name.to_string(), field, format!("missing (required for {})", p.curve))
        })?;
        text.parse::<u128>().ok().filter(|v| *v <= max && ok(*v)).ok_or_else(|| {
            GraphError::bad_field(name.to_string(), field, format!("`{text}` is not an integer with {want}"))
        })
    };
    const ONE: u128 = 1_000_000_000_000_000_000;
    match (protocol, p.curve.as_str()) {
        (Protocol::DexBV1, "constant_product") => Ok(Curve::ConstantProduct(ConstantProduct::new(
            FeeModel::V1,
            fee_check("lp_fee", p.lp_fee, 255)?,
            fee_check("protocol_fee", p.protocol_fee, 255)?,
            fee_check("ref_fee", p.ref_fee, 255)?,
        ))),
        (Protocol::DexBV2, "constant_product") => Ok(Curve::ConstantProduct(ConstantProduct::new(
            FeeModel::V2,
            fee_check("lp_fee", p.lp_fee, 9999)?,
            fee_check("protocol_fee", p.protocol_fee, 9999)?,
            0,
        ))),
        (Protocol::DexBV2, "stable_swap") => Ok(Curve::StableSwap(StableSwap::new(
            amp()?,
            fee_check("lp_fee", p.lp_fee, 9999)?,
            fee_check("protocol_fee", p.protocol_fee, 9999)?,
        ))),
        (Protocol::DexBV2, "weighted_constant_product") => {
            let w0 = fixed("w0", p.w0.as_deref(), ONE - 1, |v| v > 0, "0 < w0 < 1e18")?;
            Ok(Curve::WeightedConstantProduct(WeightedConstantProduct::new(
                // w0 < 1e18 < 2^64, checked above.
                u64::try_from(w0).map_err(|_| unsupported())?,
                fee_check("lp_fee", p.lp_fee, 9999)?,
                fee_check("protocol_fee", p.protocol_fee, 9999)?,
            )))
        }
        (Protocol::DexBV2, "weighted_stable_swap") => Ok(Curve::WeightedStableSwap(WeightedStableSwap::new(
            fixed("amp", p.amp.as_deref(), u128::MAX, |_| true, "0 <= amp < 2^128")?,
            fixed("rate", p.rate.as_deref(), u128::MAX, |v| v > 0, "0 < rate < 2^128")?,
            fixed("w0", p.w0.as_deref(), ONE, |_| true, "0 <= w0 <= 1e18")?,
            fee_check("lp_fee", p.lp_fee, 9999)?,
            fee_check("protocol_fee", p.protocol_fee, 9999)?,
        ))),
        (Protocol::DexA, "constant_product") => {
            Ok(Curve::DexAVolatile(DexAVolatile { fee_bps: fee_check("lp_fee", p.lp_fee, 9999)? }))
        }
        (Protocol::DexA, "stable_swap") => {
            Ok(Curve::DexAStable(DexAStable { fee_bps: fee_check("lp_fee", p.lp_fee, 9999)? }))
        }
        (Protocol::DexC, "concentrated") => concentrated_of(p, fee_check("lp_fee", p.lp_fee, 9999)?),
        _ => Err(unsupported()),
    }
}

/// The `concentrated` curve of a `dex_c` pool entry.
fn concentrated_of(p: &SnapshotPool, lp_fee: u16) -> Result<Curve, GraphError> {
    let name = p.address.as_str();
    let bad = |field: &'static str, reason: String| GraphError::bad_field(name.to_string(), field, reason);
    let missing = |field: &'static str| bad(field, "missing (required for concentrated)".into());
    let c = &p.concentrated;
    let text = c.sqrt_price_x96.as_deref().ok_or_else(|| missing("sqrt_price_x96"))?;
    let sqrt_price_x96 =
        decimal_u256(text).ok_or_else(|| bad("sqrt_price_x96", format!("`{text}` is not a decimal integer")))?;
    let unsigned = |field: &'static str, text: &str| {
        decimal_u256(text)
            .and_then(|v| u128::try_from(v).ok())
            .ok_or_else(|| bad(field, format!("`{text}` is not a decimal integer below 2^128")))
    };
    let liquidity = unsigned("liquidity", c.liquidity.as_deref().ok_or_else(|| missing("liquidity"))?)?;
    let tick = c.tick.ok_or_else(|| missing("tick"))?;
    let tick_spacing = c.tick_spacing.ok_or_else(|| missing("tick_spacing"))?;
    let mut ticks = c
        .ticks
        .as_ref()
        .ok_or_else(|| missing("ticks"))?
        .iter()
        .map(|t| {
            let net = t.liquidity_net.as_str();
            let (neg, digits) = match net.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, net),
            };
            let magnitude = unsigned("ticks.liquidity_net", digits)?;
            let liquidity_net =
                if neg { 0i128.checked_sub_unsigned(magnitude) } else { i128::try_from(magnitude).ok() }
                    .ok_or_else(|| bad("ticks.liquidity_net", format!("`{net}` is out of the int128 range")))?;
            Ok(Tick {
                tick: t.tick,
                liquidity_net,
                liquidity_gross: unsigned("ticks.liquidity_gross", &t.liquidity_gross)?,
            })
        })
        .collect::<Result<Vec<_>, GraphError>>()?;
    ticks.sort_by_key(|t| t.tick);
    let state = ClState { sqrt_price_x96, tick, liquidity };
    Concentrated::new(lp_fee, p.protocol_fee, tick_spacing, ticks, state)
        .map(Curve::Concentrated)
        .map_err(|e| GraphError::field_source(name, "concentrated", e))
}

/// A non-negative decimal integer below 2^256.
fn decimal_u256(text: &str) -> Option<U256> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    U256::from_dec_str(text).ok()
}

impl PoolGraph {
    /// Parses a JSON snapshot and builds the graph.
    pub fn from_json(text: &str) -> Result<PoolGraph, GraphError> {
        Snapshot::from_json(text)?.into_graph()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
    const POOL: &str = "0:1111111111111111111111111111111111111111111111111111111111111111";

    fn snapshot(pool: &str) -> String {
        format!(
            r#"{{"assets": [{{"asset": "native", "symbol": "TON", "decimals": 9, "usd_price": "5.2"}},
                          {{"asset": "{USDT}", "symbol": "USDT", "decimals": 6, "extra": 1}}],
                "pools": [{pool}]}}"#
        )
    }

    fn pool_json(fields: &str) -> String {
        format!(
            r#"{{"address": "{POOL}", "protocol": "dex_b_v2", "curve": "constant_product", "assets": ["native", "{USDT}"],
                 "reserves": ["1860000000000000", "2570000000000"], "lp_fee": 20, "protocol_fee": 10 {fields}}}"#
        )
    }

    #[test]
    fn loads_a_valid_snapshot() {
        let g = PoolGraph::from_json(&snapshot(&pool_json(""))).unwrap();
        assert_eq!(g.pool_count(), 1);
        assert_eq!(g.reserves(super::super::PoolId(0)), [1_860_000_000_000_000, 2_570_000_000_000]);
    }

    #[test]
    fn loads_weighted_pools() {
        let wcp = pool_json(r#", "w0": "800000000000000000""#).replace("constant_product", "weighted_constant_product");
        let g = PoolGraph::from_json(&snapshot(&wcp)).unwrap();
        assert_eq!(
            g.pool(super::super::PoolId(0)).curve,
            Curve::WeightedConstantProduct(WeightedConstantProduct::new(800_000_000_000_000_000, 20, 10))
        );
        let wss =
            pool_json(r#", "w0": "300000000000000000", "amp": "10000000000000000000", "rate": "1050000000000000000""#)
                .replace("constant_product", "weighted_stable_swap");
        let g = PoolGraph::from_json(&snapshot(&wss)).unwrap();
        assert_eq!(
            g.pool(super::super::PoolId(0)).curve,
            Curve::WeightedStableSwap(WeightedStableSwap::new(
                10_000_000_000_000_000_000,
                1_050_000_000_000_000_000,
                300_000_000_000_000_000,
                20,
                10
            ))
        );
    }

    #[test]
    fn errors_name_the_pool() {
        let cases = [
            (pool_json("").replace("1860000000000000", "1329227995784915872903807060280344576"), "2^120"),
            (
                pool_json("")
                    .replace(r#""native", "jetton"#, r#""native", "native"#)
                    .replace(&format!(":0:{}", &USDT[9..]), ""),
                "both assets",
            ),
            (
                pool_json("").replace(
                    "\"native\", \"",
                    "\"jetton:0:2222222222222222222222222222222222222222222222222222222222222222\", \"",
                ),
                "unknown asset",
            ),
            (pool_json("").replace("constant_product", "stable_swap"), "amp"),
            (pool_json("").replace("dex_b_v2", "dex_z"), "unknown protocol"),
            (pool_json("").replace("constant_product", "weighted_constant_product"), "w0"),
            (
                pool_json(r#", "w0": "1000000000000000000""#).replace("constant_product", "weighted_constant_product"),
                "w0",
            ),
            (pool_json(r#", "w0": "5", "amp": "1""#).replace("constant_product", "weighted_stable_swap"), "rate"),
            (pool_json("").replace("1860000000000000", "-5"), "decimal integer"),
        ];
        for (pool, needle) in cases {
            let err = PoolGraph::from_json(&snapshot(&pool)).unwrap_err().to_string();
            assert!(err.contains(POOL) || err.contains("both assets"), "{err}");
            assert!(err.contains(needle), "`{err}` should mention `{needle}`");
        }
        let two = format!("{},{}", pool_json(""), pool_json(""));
        let err = PoolGraph::from_json(&snapshot(&two)).unwrap_err();
        assert_eq!(err, GraphError::DuplicatePool { pool: POOL.to_string() });
        assert!(matches!(PoolGraph::from_json("{\"assets\": []}"), Err(GraphError::Json(_))));
    }

    #[test]
    fn a_snapshot_is_an_object_and_a_bad_field_is_named_by_its_path() {
        // An array (a `[]` file, or an exchange's pool list given where a snapshot goes) is not a snapshot:
        // serde's derive alone took it as the fields by position ("invalid length 1, expected struct Snapshot").
        for text in ["[]", "[{\"address\": \"x\"}]"] {
            let Err(GraphError::Json(e)) = Snapshot::from_json(text) else { panic!("{text} was taken") };
            assert_eq!(e.get().path(), "", "{text}");
            assert!(e.to_string().contains("expected an object"), "{text}: {e}");
        }
        // A fee out of its type's range names the pool entry and the field.
        let err =
            PoolGraph::from_json(&snapshot(&pool_json("").replace("\"lp_fee\": 20", "\"lp_fee\": -1"))).unwrap_err();
        let GraphError::Json(e) = &err else { panic!("{err}") };
        assert_eq!(e.get().path(), "pools[0].lp_fee");
        assert!(err.to_string().starts_with("snapshot: at `pools[0].lp_fee`: invalid value: integer `-1`"), "{err}");
    }

    #[test]
    fn refusals_keep_the_error_underneath() {
        use crate::graph::FieldError;
        use std::error::Error;
        // The JSON parser's own error, with its position, not its text.
        let Err(GraphError::Json(e)) = PoolGraph::from_json("{\"assets\": [") else { panic!("not a JSON error") };
        assert!(e.get().inner().is_eof() && e.get().inner().line() == 1);
        // A field's parser error is the source of the refusal.
        let err = PoolGraph::from_json(&snapshot(&pool_json("").replace(POOL, "0:not-hex"))).unwrap_err();
        let source = err.source().expect("the address error is kept");
        assert!(matches!(source.downcast_ref::<FieldError>(), Some(FieldError::Address(_))), "{err}: {source}");
        assert!(err.to_string().contains(&source.to_string()), "{err}");
    }
}
