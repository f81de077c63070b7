//! Cell writing for the swap layouts: [`Builder`], `tonlib-core`'s `CellBuilder` with errors that carry
//! their context and addresses written the way the SDKs write them.
//!
//! Owns how fields go into a cell. Must not know a layout (that is each exchange's file).

use num_bigint::BigUint;
use tonlib_core::cell::{Cell, CellBuilder, TonCellError};
use tonlib_core::TonAddress;

use super::{SwapError, MAX_COINS};

/// A `tonlib-core` [`CellBuilder`] whose errors carry the context and which writes addresses the way the SDKs
/// (`@ton/core`) do.
pub(crate) struct Builder {
    b: CellBuilder,
    context: &'static str,
}

impl Builder {
    pub(crate) fn new(context: &'static str) -> Builder {
        Builder { b: CellBuilder::new(), context }
    }

    fn err(&self, e: TonCellError) -> SwapError {
        SwapError::cell(self.context, e)
    }

    pub(crate) fn uint(&mut self, bits: usize, v: u64) -> Result<&mut Self, SwapError> {
        self.b.store_u64(bits, v).map_err(|e| SwapError::cell(self.context, e))?;
        Ok(self)
    }

    pub(crate) fn big_uint(&mut self, bits: usize, v: &BigUint) -> Result<&mut Self, SwapError> {
        if let Err(e) = self.b.store_uint(bits, v) {
            return Err(self.err(e));
        }
        Ok(self)
    }

    pub(crate) fn bit(&mut self, v: bool) -> Result<&mut Self, SwapError> {
        if let Err(e) = self.b.store_bit(v) {
            return Err(self.err(e));
        }
        Ok(self)
    }

    /// `Coins` (VarUInteger 16), refusing values above 2^120 − 1 instead of writing a bad length.
    pub(crate) fn coins(&mut self, field: &'static str, v: u128) -> Result<&mut Self, SwapError> {
        if v > MAX_COINS {
            return Err(SwapError::AmountTooLarge { field, amount: v });
        }
        if let Err(e) = self.b.store_coins(&BigUint::from(v)) {
            return Err(self.err(e));
        }
        Ok(self)
    }

    /// `addr_std` with no anycast. Unlike `CellBuilder::store_address`, the all-zero address is written as
    /// itself (as `@ton/core` does) and not collapsed to `addr_none`.
    pub(crate) fn addr(&mut self, field: &'static str, a: &TonAddress) -> Result<&mut Self, SwapError> {
        let wc =
            i8::try_from(a.workchain).map_err(|_| SwapError::UnsupportedWorkchain { field, workchain: a.workchain })?;
        let r = self
            .b
            .store_u8(2, 0b10)
            .and_then(|b| b.store_bit(false))
            .and_then(|b| b.store_i8(8, wc))
            .and_then(|b| b.store_slice(a.hash_part.as_slice()));
        if let Err(e) = r {
            return Err(self.err(e));
        }
        Ok(self)
    }

    /// `addr_none` (two zero bits) for `None`, else [`Builder::addr`].
    pub(crate) fn addr_opt(&mut self, field: &'static str, a: Option<&TonAddress>) -> Result<&mut Self, SwapError> {
        match a {
            Some(a) => self.addr(field, a),
            None => self.uint(2, 0),
        }
    }

    /// A reference to `cell`.
    pub(crate) fn child(&mut self, cell: Cell) -> Result<&mut Self, SwapError> {
        if let Err(e) = self.b.store_child(cell) {
            return Err(self.err(e));
        }
        Ok(self)
    }

    /// `Maybe ^Cell`: bit 0, or bit 1 and a reference.
    pub(crate) fn maybe_ref(&mut self, cell: Option<Cell>) -> Result<&mut Self, SwapError> {
        match cell {
            Some(c) => {
                self.bit(true)?;
                self.child(c)
            }
            None => self.bit(false),
        }
    }

    pub(crate) fn build(&mut self) -> Result<Cell, SwapError> {
        self.b.build().map_err(|e| SwapError::cell(self.context, e))
    }
}

/// A referral address equal to the all-zero ("hole") address means "no referral" for the STON.fi-style
/// routers (their SDKs drop it the same way).
pub(crate) fn non_hole(a: Option<&TonAddress>) -> Option<&TonAddress> {
    a.filter(|a| **a != TonAddress::NULL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_address_is_written_as_addr_std() {
        let mut b = Builder::new("test");
        b.addr("a", &TonAddress::NULL).unwrap();
        assert_eq!(b.build().unwrap().bit_len(), 267);
        let mut b = Builder::new("test");
        b.addr_opt("a", None).unwrap();
        assert_eq!(b.build().unwrap().bit_len(), 2);
    }
    #[test]
    fn coins_above_max_is_an_error() {
        let mut b = Builder::new("test");
        assert!(b.coins("x", MAX_COINS).is_ok());
        assert_eq!(
            b.coins("x", MAX_COINS + 1).err(),
            Some(SwapError::AmountTooLarge { field: "x", amount: MAX_COINS + 1 })
        );
    }
}
