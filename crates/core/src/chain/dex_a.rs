//! `dex_a` (DeDust) pool state from its get-methods (the contracts are closed source; the layouts are those of
//! dedust-io/sdk `contracts/dex/pool/Pool.ts` and `common/Asset.ts`, and tonkeeper/tongo `abi/schemas/dedust.xml`):
//!
//! | method | stack |
//! |---|---|
//! | `get_reserves` | `reserve0:int reserve1:int` |
//! | `get_trade_fee` | `numerator:int denominator:int` (fee = numerator / denominator) |
//! | `get_assets` | `asset0:slice asset1:slice`, each `native$0000` or `jetton$0001 workchain:int8 address:bits256` |
//! | `is_stable` | `0` volatile, `1` stable |
//!
//! A pool is ready when both reserves are above zero (the SDK's `getReadinessStatus`).
//!
//! **Addresses offline.** Every DeDust contract the factory deploys starts as the same blank code with its
//! identity as data (dedust-io/sdk `contracts/dex/proofs.ts`, `createProof`): `StateInit { code: BLANK_CODE,
//! data: factory:MsgAddress contract_type:uint8 params }`, so its address is that StateInit's hash. A vault
//! (type 1, params = its asset) and a pool (type 2, params = `is_stable:uint1 asset0 asset1`) of the mainnet
//! factory follow from their assets alone: [`vault_address`], [`pool_address`]. Checked in
//! `tests/it/import_derivation.rs` against two jetton vaults of a mainnet trace and the three pools of
//! `tests/data/import/dedust-pools.json`.

use tonlib_core::cell::{ArcCell, CellBuilder, CellParser, TonCellError};
use tonlib_core::TonAddress;

use super::cell::{leftover, FieldError};
use super::stack::{StackEntry, StackReader};
use super::ChainError;
use crate::asset::{Asset, JettonMaster};

/// `get_reserves`: the two reserves in asset order.
pub fn reserves(stack: &[StackEntry]) -> Result<[u128; 2], ChainError> {
    let mut r = StackReader::new("DeDust get_reserves", stack, 2, 2)?;
    let reserves = [r.coins("reserve0")?, r.coins("reserve1")?];
    r.finish()?;
    Ok(reserves)
}

/// A pool's trade fee as the contract states it: `numerator / denominator` of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TradeFee {
    /// Numerator.
    pub numerator: u64,
    /// Denominator (never 0).
    pub denominator: u64,
}

impl TradeFee {
    /// The fee in basis points (1/10000) when it is a whole number of them, as the snapshot stores it.
    pub fn bps(&self) -> Option<u16> {
        let scaled = u128::from(self.numerator) * 10_000;
        let d = u128::from(self.denominator);
        (scaled % d == 0).then(|| scaled / d).and_then(|b| u16::try_from(b).ok()).filter(|b| *b < 10_000)
    }
}

/// `get_trade_fee`.
pub fn trade_fee(stack: &[StackEntry]) -> Result<TradeFee, ChainError> {
    let mut r = StackReader::new("DeDust get_trade_fee", stack, 2, 2)?;
    let numerator = r.int_as("numerator", "an unsigned 64-bit integer")?;
    let (index, d) = r.int("denominator")?;
    let denominator = u64::try_from(d).ok().filter(|d| *d > 0).ok_or_else(|| ChainError::EntryRange {
        method: "DeDust get_trade_fee",
        index,
        field: "denominator",
        value: d.to_string(),
        expected: "a positive 64-bit integer",
    })?;
    r.finish()?;
    Ok(TradeFee { numerator, denominator })
}

/// Reads one DeDust `Asset` (`native$0000`, `jetton$0001 workchain:int8 address:bits256`).
pub fn read_asset(p: &mut CellParser<'_>) -> Result<Asset, FieldError> {
    match p.load_u8(4)? {
        0b0000 => Ok(Asset::Native),
        0b0001 => {
            let workchain = p.load_i8(8)?;
            let mut hash = [0u8; 32];
            p.load_slice(&mut hash)?;
            if workchain != 0 {
                return Err(FieldError::Asset { problem: "is a jetton outside the basechain" });
            }
            Ok(Asset::Jetton(JettonMaster(hash)))
        }
        0b0010 => Err(FieldError::Asset { problem: "is an extra currency" }),
        _ => Err(FieldError::Asset { problem: "has an unknown tag" }),
    }
}

/// `get_assets`: the pool's two assets in order.
pub fn assets(stack: &[StackEntry]) -> Result<[Asset; 2], ChainError> {
    const METHOD: &str = "DeDust get_assets";
    let mut r = StackReader::new(METHOD, stack, 2, 2)?;
    let mut one = |field: &'static str| -> Result<Asset, ChainError> {
        let (index, cell) = r.cell(field)?;
        let mut p = cell.parser();
        let asset =
            read_asset(&mut p).map_err(|source| ChainError::EntryLayout { method: METHOD, index, field, source })?;
        if let Some((bits, refs)) = leftover(&mut p) {
            return Err(ChainError::EntryTrailing { method: METHOD, index, field, bits, refs });
        }
        Ok(asset)
    };
    let assets = [one("asset0")?, one("asset1")?];
    r.finish()?;
    Ok(assets)
}

/// The DeDust mainnet factory, `EQBfBWT7X2BHg9tXAxzhz2aKiNTU1tpt5NsiK0uSDW_YAJ67` (dedust-io/sdk
/// `src/constants.ts` `MAINNET_FACTORY_ADDR`).
pub const MAINNET_FACTORY: &str = "0:5f0564fb5f604783db57031ce1cf668a88d4d4d6da6de4db222b4b920d6fd800";

/// The blank code every factory contract starts from (dedust-io/sdk `src/constants.ts` `BLANK_CODE`,
/// Apache-2.0), a base64 bag of cells.
pub const BLANK_CODE: &str = "te6ccgEBBAEAlgABFP8A9KQT9LzyyAsBAgJwAwIACb8pMvg8APXeA6DprkP0gGBB2onai9qPHDK3AgFA4LEAIZGWCgOeLAP0BQDXnoGSA/YB2s/ay9rI4v/aIxx72omh9IGmDqJljgvlwgcIHgmmPgMEITZ1R/V0K+XoB6Z+AmGpph4CA6hD9ghDodo92qYgjCCLBAHKTdqHsdqD2+ID5f8=";

/// Writes one DeDust `Asset` (the layout [`read_asset`] reads).
fn write_asset(b: &mut CellBuilder, asset: &Asset) -> Result<(), TonCellError> {
    match asset {
        Asset::Native => {
            b.store_u8(4, 0b0000)?;
        }
        Asset::Jetton(m) => {
            b.store_u8(4, 0b0001)?.store_i8(8, 0)?.store_slice(&m.0)?;
        }
    }
    Ok(())
}

/// The address of the factory's contract of `contract_type` whose identity `params` writes.
fn factory_contract(
    factory: &TonAddress,
    contract_type: u8,
    params: impl FnOnce(&mut CellBuilder) -> Result<(), TonCellError>,
) -> Result<TonAddress, TonCellError> {
    // BLANK_CODE is a constant bag of cells (unit test `blank_code_parses`).
    let code: ArcCell =
        super::boc::parse_boc_text(BLANK_CODE).map_err(|e| TonCellError::InternalError(format!("BLANK_CODE: {e}")))?;
    let mut b = CellBuilder::new();
    b.store_u8(2, 0b10)?.store_bit(false)?.store_i8(8, factory.workchain as i8)?;
    b.store_slice(factory.hash_part.as_slice())?;
    b.store_u8(8, contract_type)?;
    params(&mut b)?;
    TonAddress::derive(0, code, b.build()?.to_arc())
}

/// The vault of `asset` under `factory` (the SDK's `Factory.getVaultAddress`, computed instead of asked): the
/// native vault for TON, the jetton vault (the address a jetton offer is transferred to) otherwise.
pub fn vault_address(factory: &TonAddress, asset: &Asset) -> Result<TonAddress, TonCellError> {
    factory_contract(factory, 1, |b| write_asset(b, asset))
}

/// The pool of `assets` (in the pool's order) and curve under `factory` (the factory's `get_pool_address`).
pub fn pool_address(factory: &TonAddress, is_stable: bool, assets: [&Asset; 2]) -> Result<TonAddress, TonCellError> {
    factory_contract(factory, 2, |b| {
        b.store_bit(is_stable)?;
        write_asset(b, assets[0])?;
        write_asset(b, assets[1])
    })
}

/// `is_stable`: whether the pool uses the stable curve.
pub fn is_stable(stack: &[StackEntry]) -> Result<bool, ChainError> {
    let mut r = StackReader::new("DeDust is_stable", stack, 1, 1)?;
    let stable = r.bool("is_stable")?;
    r.finish()?;
    Ok(stable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trade_fee_in_bps_only_when_exact() {
        assert_eq!(TradeFee { numerator: 25, denominator: 10_000 }.bps(), Some(25));
        assert_eq!(TradeFee { numerator: 1, denominator: 400 }.bps(), Some(25));
        assert_eq!(TradeFee { numerator: 1, denominator: 3 }.bps(), None);
        assert_eq!(TradeFee { numerator: 2, denominator: 1 }.bps(), None);
    }

    #[test]
    fn blank_code_parses_and_addresses_differ_per_asset() {
        assert!(crate::chain::boc::parse_boc_text(BLANK_CODE).is_ok());
        let factory = TonAddress::from_hex_str(MAINNET_FACTORY).unwrap();
        let jetton = Asset::Jetton(JettonMaster([7u8; 32]));
        let native = vault_address(&factory, &Asset::Native).unwrap();
        assert_ne!(native, vault_address(&factory, &jetton).unwrap());
        assert_ne!(native, pool_address(&factory, false, [&Asset::Native, &jetton]).unwrap());
    }
}
