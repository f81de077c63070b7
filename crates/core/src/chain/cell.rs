//! Reading TL-B fields out of cells: `MsgAddress` (with `addr_none` kept apart from the zero address),
//! `Coins`, fixed-width integers, and the "nothing left" check at the end of a layout.
//!
//! `tonlib-core`'s own `load_address` turns `addr_none` into `0:000…0`, which is a real (if unusable)
//! address; pool state uses both (STON.fi v1 stores the zero address as its `protocol_fee_address`, v2
//! stores `addr_none`), so [`read_address`] reads the tag itself.

use num_bigint::BigUint;
use primitive_types::U256;
use tonlib_core::cell::{CellParser, TonCellError};
use tonlib_core::TonAddress;

use super::ChainError;

/// Why a field did not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FieldError {
    /// The cell ran out of bits or references (or `tonlib-core` refused the read).
    #[error("{source}")]
    Cell {
        /// `tonlib-core`'s error.
        #[source]
        source: TonCellError,
    },
    /// A `MsgAddress` of a kind pool state never holds.
    #[error("{kind} address (only addr_std without anycast, or addr_none, is accepted)")]
    AddressKind {
        /// `addr_extern`, `addr_var` or `anycast`.
        kind: &'static str,
    },
    /// An asset the router cannot trade (an extra currency, a jetton outside the basechain, an unknown tag).
    #[error("asset {problem}")]
    Asset {
        /// What it is.
        problem: &'static str,
    },
    /// Text that is not text.
    #[error("text {problem}")]
    Text {
        /// What is wrong.
        problem: &'static str,
    },
    /// A value above the field's range.
    #[error("{value} is above {max}")]
    TooLarge {
        /// The value read.
        value: String,
        /// The largest accepted.
        max: &'static str,
    },
}

impl From<TonCellError> for FieldError {
    fn from(source: TonCellError) -> FieldError {
        FieldError::Cell { source }
    }
}

/// A `MsgAddress`: `Some` for `addr_std` (no anycast), `None` for `addr_none`; anything else is an error.
pub fn read_address(p: &mut CellParser<'_>) -> Result<Option<TonAddress>, FieldError> {
    match p.load_u8(2)? {
        0b00 => Ok(None),
        0b10 => {
            if p.load_bit()? {
                return Err(FieldError::AddressKind { kind: "anycast" });
            }
            let workchain = i32::from(p.load_i8(8)?);
            let mut hash = [0u8; 32];
            p.load_slice(&mut hash)?;
            Ok(Some(TonAddress::new(workchain, hash.into())))
        }
        0b01 => Err(FieldError::AddressKind { kind: "addr_extern" }),
        _ => Err(FieldError::AddressKind { kind: "addr_var" }),
    }
}

/// A `Coins` (VarUInteger 16) field: at most 2^120 − 1, so it always fits a `u128`.
pub fn read_coins(p: &mut CellParser<'_>) -> Result<u128, FieldError> {
    let value = p.load_coins()?;
    u128::try_from(&value).map_err(|_| FieldError::TooLarge { value: value.to_string(), max: "2^120 - 1" })
}

/// An unsigned integer of `bits` ≤ 256 bits.
pub fn read_u256(p: &mut CellParser<'_>, bits: usize) -> Result<U256, FieldError> {
    let value: BigUint = p.load_uint(bits)?;
    biguint_to_u256(&value).ok_or_else(|| FieldError::TooLarge { value: value.to_string(), max: "2^256 - 1" })
}

/// A `BigUint` below 2^256 as a `U256`.
pub fn biguint_to_u256(value: &BigUint) -> Option<U256> {
    let bytes = value.to_bytes_be();
    (bytes.len() <= 32).then(|| U256::from_big_endian(&bytes))
}

/// Maps a field read of account data to a [`ChainError::DataField`] naming the layout and field.
pub(crate) fn at<T, E: Into<FieldError>>(
    what: &'static str,
    field: &'static str,
    r: Result<T, E>,
) -> Result<T, ChainError> {
    r.map_err(|e| ChainError::DataField { what, field, source: e.into() })
}

/// Fails with [`ChainError::DataTrailing`] when the parser is not at the end of its cell.
pub(crate) fn end(what: &'static str, p: &mut CellParser<'_>) -> Result<(), ChainError> {
    match leftover(p) {
        Some((bits, refs)) => Err(ChainError::DataTrailing { what, bits, refs }),
        None => Ok(()),
    }
}

/// Bits and references left after a layout was read, `None` when the parser is at the end.
pub fn leftover(p: &mut CellParser<'_>) -> Option<(usize, usize)> {
    let (bits, refs) = (p.remaining_bits(), p.remaining_refs());
    (bits != 0 || refs != 0).then_some((bits, refs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonlib_core::cell::CellBuilder;

    #[test]
    fn none_and_zero_address_differ() {
        let mut b = CellBuilder::new();
        b.store_u8(2, 0).unwrap();
        // `store_address` would write 0:000…0 as addr_none, so the zero addr_std is written by hand.
        b.store_u8(2, 0b10).unwrap().store_bit(false).unwrap().store_u8(8, 0).unwrap();
        b.store_slice(&[0u8; 32]).unwrap();
        b.store_u8(2, 0b01).unwrap();
        let cell = b.build().unwrap();
        let mut p = cell.parser();
        assert_eq!(read_address(&mut p).unwrap(), None);
        assert_eq!(read_address(&mut p).unwrap(), Some(TonAddress::new(0, [0u8; 32].into())));
        assert!(matches!(read_address(&mut p), Err(FieldError::AddressKind { kind: "addr_extern" })));
        assert!(matches!(read_address(&mut p), Err(FieldError::Cell { .. })));
    }
}
