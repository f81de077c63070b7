//! What a caller asks: [`QuoteRequest`] and [`SwapMode`], with the request limits in one place.
//!
//! Owns the ranges a request must stay within (as constants the API and the swap builder read) and the one
//! check of them ([`QuoteRequest::try_new`] / [`QuoteRequest::check`]). Must not look at a graph (whether an
//! asset is traded is the router's question) nor parse the wire.

use super::RouteError;
use crate::asset::Asset;
use crate::pool::MAX_COINS;

/// Whether `amount` is the input offered or the output wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SwapMode {
    /// `amount` is the input; the quote maximises the output (wire `exact_in`).
    #[default]
    ExactIn,
    /// `amount` is the output wanted; the quote finds the smallest input that yields at least it, on every
    /// route minimal to the unit (wire `exact_out`). The chain only executes exact-in swaps, so the messages
    /// send the quoted input with each route's min-out under the slippage; [`crate::route::Quote::max_in`] tells how far
    /// the input could rise for the same output if the price moved by the slippage.
    ExactOut,
}

impl SwapMode {
    /// The wire token.
    pub fn as_str(self) -> &'static str {
        match self {
            SwapMode::ExactIn => "exact_in",
            SwapMode::ExactOut => "exact_out",
        }
    }
}

/// What to quote. Build with [`QuoteRequest::try_new`] (checked against the limits), or with
/// [`QuoteRequest::new`] and adjust the public fields; [`crate::route::Router`] checks them again with
/// [`QuoteRequest::check`] before quoting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteRequest {
    /// The asset offered.
    pub in_asset: Asset,
    /// The asset wanted.
    pub out_asset: Asset,
    /// Exact-in: amount of `in_asset` offered; exact-out: amount of `out_asset` wanted. Smallest units,
    /// 1..=[`QuoteRequest::MAX_AMOUNT`] (below 2^120).
    pub amount: u128,
    /// Which of the two `amount` is.
    pub swap_mode: SwapMode,
    /// Most parallel routes, [`Self::MIN_SPLITS`]..=[`Self::MAX_SPLITS`] (default [`Self::DEFAULT_MAX_SPLITS`]).
    pub max_splits: usize,
    /// Most hops per route, [`Self::MIN_LENGTH`]..=[`Self::MAX_LENGTH`] (default [`Self::DEFAULT_MAX_LENGTH`]).
    pub max_length: usize,
    /// Slippage tolerance for min-out in basis points, 0..=[`Self::MAX_SLIPPAGE_BPS`] (default
    /// [`Self::DEFAULT_SLIPPAGE_BPS`] = 1 %).
    pub slippage_bps: u32,
}

impl QuoteRequest {
    /// Default `max_splits`.
    pub const DEFAULT_MAX_SPLITS: usize = 4;
    /// Default `max_length`.
    pub const DEFAULT_MAX_LENGTH: usize = 3;
    /// Default `slippage_bps`.
    pub const DEFAULT_SLIPPAGE_BPS: u32 = 100;
    /// Smallest `max_splits`.
    pub const MIN_SPLITS: usize = 1;
    /// Largest `max_splits`: the range of the reference API this interface follows (1–20, default 4).
    pub const MAX_SPLITS: usize = 20;
    /// Smallest `max_length`.
    pub const MIN_LENGTH: usize = 1;
    /// Largest `max_length`, in hops (the reference API's bound too).
    pub const MAX_LENGTH: usize = 5;
    /// Largest `slippage_bps`: 100 %.
    pub const MAX_SLIPPAGE_BPS: u32 = 10_000;
    /// Largest `amount`, 2^120 − 1: the contracts store coins in 120 bits ([`MAX_COINS`]).
    pub const MAX_AMOUNT: u128 = MAX_COINS;

    /// A request with the default limits and slippage.
    pub fn new(in_asset: Asset, out_asset: Asset, amount: u128) -> QuoteRequest {
        QuoteRequest {
            in_asset,
            out_asset,
            amount,
            swap_mode: SwapMode::ExactIn,
            max_splits: Self::DEFAULT_MAX_SPLITS,
            max_length: Self::DEFAULT_MAX_LENGTH,
            slippage_bps: Self::DEFAULT_SLIPPAGE_BPS,
        }
    }

    /// A request checked against the limits ([`QuoteRequest::check`]): the validating constructor, the one
    /// place the ranges are enforced. Whether the assets are in a graph is the router's to say.
    ///
    /// ```
    /// use tonroute_core::asset::Asset;
    /// use tonroute_core::route::{QuoteRequest, RouteError, SwapMode};
    ///
    /// let usdt: Asset = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe".parse().unwrap();
    /// let ok = QuoteRequest::try_new(Asset::Native, usdt, 10, SwapMode::ExactIn, 20, 5, 10_000).unwrap();
    /// assert_eq!((ok.max_splits, ok.max_length), (20, 5));
    /// let err = QuoteRequest::try_new(Asset::Native, usdt, 10, SwapMode::ExactIn, 21, 3, 100).unwrap_err();
    /// assert_eq!(err, RouteError::MaxSplitsOutOfRange { value: 21 });
    /// ```
    pub fn try_new(
        in_asset: Asset,
        out_asset: Asset,
        amount: u128,
        swap_mode: SwapMode,
        max_splits: usize,
        max_length: usize,
        slippage_bps: u32,
    ) -> Result<QuoteRequest, RouteError> {
        let request = QuoteRequest { in_asset, out_asset, amount, swap_mode, max_splits, max_length, slippage_bps };
        request.check()?;
        Ok(request)
    }

    /// Checks the fields against the limits, in this order: amount (zero, then at or above 2^120),
    /// `max_splits`, `max_length`, `slippage_bps`, then in ≠ out.
    pub fn check(&self) -> Result<(), RouteError> {
        if self.amount == 0 {
            return Err(RouteError::ZeroAmount);
        }
        if self.amount > Self::MAX_AMOUNT {
            return Err(RouteError::AmountTooLarge { amount: self.amount });
        }
        if !(Self::MIN_SPLITS..=Self::MAX_SPLITS).contains(&self.max_splits) {
            return Err(RouteError::MaxSplitsOutOfRange { value: self.max_splits });
        }
        if !(Self::MIN_LENGTH..=Self::MAX_LENGTH).contains(&self.max_length) {
            return Err(RouteError::MaxLengthOutOfRange { value: self.max_length });
        }
        if self.slippage_bps > Self::MAX_SLIPPAGE_BPS {
            return Err(RouteError::SlippageOutOfRange { value: self.slippage_bps });
        }
        if self.in_asset == self.out_asset {
            return Err(RouteError::SameAsset { asset: self.in_asset.to_string() });
        }
        Ok(())
    }
}

/// A slippage tolerance above [`QuoteRequest::MAX_SLIPPAGE_BPS`] (100 %), refused by
/// [`crate::route::min_out`] and [`crate::route::max_in`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("slippage_bps {slippage_bps} is out of range 0..={}", QuoteRequest::MAX_SLIPPAGE_BPS)]
pub struct SlippageOutOfRange {
    /// The value given.
    pub slippage_bps: u32,
}

impl From<SlippageOutOfRange> for RouteError {
    fn from(e: SlippageOutOfRange) -> RouteError {
        RouteError::SlippageOutOfRange { value: e.slippage_bps }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::JettonMaster;

    const TOKEN: Asset = Asset::Jetton(JettonMaster([7; 32]));

    fn request(
        amount: u128,
        max_splits: usize,
        max_length: usize,
        slippage_bps: u32,
    ) -> Result<QuoteRequest, RouteError> {
        QuoteRequest::try_new(Asset::Native, TOKEN, amount, SwapMode::ExactIn, max_splits, max_length, slippage_bps)
    }

    #[test]
    fn the_edges_of_every_range_are_accepted() {
        for (amount, splits, length, slippage) in [(1, 1, 1, 0), ((1u128 << 120) - 1, 20, 5, 10_000)] {
            let r = request(amount, splits, length, slippage).unwrap();
            assert_eq!((r.amount, r.max_splits, r.max_length, r.slippage_bps), (amount, splits, length, slippage));
            assert_eq!((r.in_asset, r.out_asset, r.swap_mode), (Asset::Native, TOKEN, SwapMode::ExactIn));
        }
        assert_eq!(QuoteRequest::new(Asset::Native, TOKEN, 5).check(), Ok(()));
    }

    #[test]
    fn one_past_every_edge_is_refused_with_its_own_error() {
        assert_eq!(request(0, 4, 3, 100), Err(RouteError::ZeroAmount));
        assert_eq!(request(1 << 120, 4, 3, 100), Err(RouteError::AmountTooLarge { amount: 1 << 120 }));
        assert_eq!(request(u128::MAX, 4, 3, 100), Err(RouteError::AmountTooLarge { amount: u128::MAX }));
        assert_eq!(request(5, 0, 3, 100), Err(RouteError::MaxSplitsOutOfRange { value: 0 }));
        assert_eq!(request(5, 21, 3, 100), Err(RouteError::MaxSplitsOutOfRange { value: 21 }));
        assert_eq!(request(5, 4, 0, 100), Err(RouteError::MaxLengthOutOfRange { value: 0 }));
        assert_eq!(request(5, 4, 6, 100), Err(RouteError::MaxLengthOutOfRange { value: 6 }));
        assert_eq!(request(5, 4, 3, 10_001), Err(RouteError::SlippageOutOfRange { value: 10_001 }));
        let same = QuoteRequest::try_new(TOKEN, TOKEN, 5, SwapMode::ExactOut, 4, 3, 100);
        assert_eq!(same, Err(RouteError::SameAsset { asset: TOKEN.to_string() }));
    }

    #[test]
    fn the_first_broken_limit_in_the_documented_order_is_reported() {
        // Everything wrong at once: the amount is checked first, then splits, length, slippage, assets.
        let all_wrong = QuoteRequest::try_new(TOKEN, TOKEN, 0, SwapMode::ExactIn, 0, 0, 20_000);
        assert_eq!(all_wrong, Err(RouteError::ZeroAmount));
        let r = QuoteRequest::try_new(TOKEN, TOKEN, 1, SwapMode::ExactIn, 0, 0, 20_000);
        assert_eq!(r, Err(RouteError::MaxSplitsOutOfRange { value: 0 }));
        let r = QuoteRequest::try_new(TOKEN, TOKEN, 1, SwapMode::ExactIn, 1, 0, 20_000);
        assert_eq!(r, Err(RouteError::MaxLengthOutOfRange { value: 0 }));
        let r = QuoteRequest::try_new(TOKEN, TOKEN, 1, SwapMode::ExactIn, 1, 1, 20_000);
        assert_eq!(r, Err(RouteError::SlippageOutOfRange { value: 20_000 }));
    }

    #[test]
    fn the_messages_name_the_ranges_from_the_constants() {
        assert_eq!(RouteError::MaxSplitsOutOfRange { value: 0 }.to_string(), "max_splits 0 is out of range 1..=20");
        assert_eq!(RouteError::MaxLengthOutOfRange { value: 9 }.to_string(), "max_length 9 is out of range 1..=5");
        assert_eq!(
            RouteError::SlippageOutOfRange { value: 10_001 }.to_string(),
            "slippage_bps 10001 is out of range 0..=10000"
        );
        assert_eq!(
            RouteError::from(SlippageOutOfRange { slippage_bps: 7 }),
            RouteError::SlippageOutOfRange { value: 7 }
        );
    }
}
