//! DeDust pool state from its get-methods (the contracts are closed source; the layouts are those of
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

use tonlib_core::cell::CellParser;

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
}
