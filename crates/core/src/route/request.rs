//! What a caller asks: [`QuoteRequest`] and [`SwapMode`], with the request limits in one place.
//!
//! Owns the ranges a request must stay within (as constants the API and the swap builder read) and the one
//! check of them ([`QuoteRequest::check`], run by every constructor: [`QuoteRequest::new`],
//! [`QuoteRequest::builder`], [`QuoteRequest::try_new`]). Must not look at a graph (whether an
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

/// Declares [`QuoteRequest`] with private fields, its constructor from every field ([`QuoteRequest::try_new`]),
/// and for each field an `#[inline]` getter named like it (reading is all a caller may do) and a setter of
/// [`QuoteRequestBuilder`] (checked by [`QuoteRequestBuilder::build`]): the fields are listed once.
macro_rules! checked_request {
    (
        $(#[$meta:meta])* pub struct QuoteRequest { $($(#[doc = $doc:expr])* $field:ident: $ty:ty,)* }
        $(#[doc = $try_doc:expr])* pub fn try_new;
    ) => {
        $(#[$meta])*
        pub struct QuoteRequest {
            $($field: $ty,)*
        }

        impl QuoteRequest {
            $(#[doc = $try_doc])*
            pub fn try_new($($field: $ty),*) -> Result<QuoteRequest, RouteError> {
                let request = QuoteRequest { $($field),* };
                request.check()?;
                Ok(request)
            }

            $(
                $(#[doc = $doc])*
                #[inline]
                pub fn $field(&self) -> $ty {
                    self.$field
                }
            )*
        }

        impl QuoteRequestBuilder {
            $(
                #[doc = concat!("Sets `", stringify!($field), "` (checked by [`QuoteRequestBuilder::build`]).")]
                pub fn $field(mut self, $field: $ty) -> QuoteRequestBuilder {
                    self.0.$field = $field;
                    self
                }
            )*
        }
    };
}

checked_request! {
    /// What to quote: a request within the limits, as only its checked constructors make one.
    ///
    /// Build it with [`QuoteRequest::new`] (the default limits and slippage), [`QuoteRequest::builder`] (set what
    /// differs from the defaults, then [`QuoteRequestBuilder::build`]) or [`QuoteRequest::try_new`] (every value
    /// given); each checks the limits ([`QuoteRequest::check`]) and refuses with the first [`RouteError`]. The
    /// fields are private and read through the getters of the same names, so **a `QuoteRequest` that exists is
    /// valid**: [`crate::route::Router`] does not check it again (whether its assets are in a graph is the router's
    /// question). To change a request, go back through [`QuoteRequest::to_builder`].
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct QuoteRequest {
        /// The asset offered.
        in_asset: Asset,
        /// The asset wanted (never the offered one).
        out_asset: Asset,
        /// Exact-in: amount of `in_asset` offered; exact-out: amount of `out_asset` wanted. Smallest units,
        /// 1..=[`QuoteRequest::MAX_AMOUNT`] (below 2^120).
        amount: u128,
        /// Which of the two `amount` is.
        swap_mode: SwapMode,
        /// Most parallel routes, [`Self::MIN_SPLITS`]..=[`Self::MAX_SPLITS`] (default
        /// [`Self::DEFAULT_MAX_SPLITS`]).
        max_splits: usize,
        /// Most hops per route, [`Self::MIN_LENGTH`]..=[`Self::MAX_LENGTH`] (default
        /// [`Self::DEFAULT_MAX_LENGTH`]).
        max_length: usize,
        /// Slippage tolerance for min-out in basis points, 0..=[`Self::MAX_SLIPPAGE_BPS`] (default
        /// [`Self::DEFAULT_SLIPPAGE_BPS`] = 1 %).
        slippage_bps: u32,
    }

    /// A request checked against the limits ([`QuoteRequest::check`]), every value given. Whether the assets
    /// are in a graph is the router's to say.
    ///
    /// ```
    /// use tonroute_core::asset::Asset;
    /// use tonroute_core::route::{QuoteRequest, RouteError, SwapMode};
    ///
    /// let usdt: Asset = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe".parse().unwrap();
    /// let ok = QuoteRequest::try_new(Asset::Native, usdt, 10, SwapMode::ExactIn, 20, 5, 10_000).unwrap();
    /// assert_eq!((ok.max_splits(), ok.max_length()), (20, 5));
    /// let err = QuoteRequest::try_new(Asset::Native, usdt, 10, SwapMode::ExactIn, 21, 3, 100).unwrap_err();
    /// assert_eq!(err, RouteError::MaxSplitsOutOfRange { value: 21 });
    /// ```
    pub fn try_new;
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

    /// An exact-in request with the default limits and slippage, checked ([`QuoteRequest::check`]'s errors:
    /// a zero amount, one at or above 2^120, or one asset on both sides).
    pub fn new(in_asset: Asset, out_asset: Asset, amount: u128) -> Result<QuoteRequest, RouteError> {
        QuoteRequest::builder(in_asset, out_asset, amount).build()
    }

    /// A builder starting from the defaults (exact-in, [`Self::DEFAULT_MAX_SPLITS`],
    /// [`Self::DEFAULT_MAX_LENGTH`], [`Self::DEFAULT_SLIPPAGE_BPS`]); nothing is checked until
    /// [`QuoteRequestBuilder::build`].
    ///
    /// ```
    /// use tonroute_core::asset::Asset;
    /// use tonroute_core::route::{QuoteRequest, RouteError, SwapMode};
    ///
    /// let usdt: Asset = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe".parse().unwrap();
    /// let r = QuoteRequest::builder(Asset::Native, usdt, 10).swap_mode(SwapMode::ExactOut).max_splits(2).build().unwrap();
    /// assert_eq!((r.swap_mode(), r.max_splits(), r.max_length()), (SwapMode::ExactOut, 2, 3));
    /// let err = r.to_builder().max_length(6).build().unwrap_err();
    /// assert_eq!(err, RouteError::MaxLengthOutOfRange { value: 6 });
    /// ```
    pub fn builder(in_asset: Asset, out_asset: Asset, amount: u128) -> QuoteRequestBuilder {
        QuoteRequestBuilder(QuoteRequest {
            in_asset,
            out_asset,
            amount,
            swap_mode: SwapMode::ExactIn,
            max_splits: Self::DEFAULT_MAX_SPLITS,
            max_length: Self::DEFAULT_MAX_LENGTH,
            slippage_bps: Self::DEFAULT_SLIPPAGE_BPS,
        })
    }

    /// A builder holding this request's values, to derive another request from it (checked again on
    /// [`QuoteRequestBuilder::build`]).
    pub fn to_builder(&self) -> QuoteRequestBuilder {
        QuoteRequestBuilder(self.clone())
    }

    /// The one check of the limits, in this order: amount (zero, then at or above 2^120), `max_splits`,
    /// `max_length`, `slippage_bps`, then in ≠ out. Every constructor runs it, so it holds for every
    /// `QuoteRequest` (kept public for callers that want to assert it).
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

/// The values of a [`QuoteRequest`] not yet checked: set what differs, then [`QuoteRequestBuilder::build`].
/// Made by [`QuoteRequest::builder`] or [`QuoteRequest::to_builder`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a builder makes nothing until `build`"]
pub struct QuoteRequestBuilder(QuoteRequest);

impl QuoteRequestBuilder {
    /// The request, checked ([`QuoteRequest::check`]: the first broken limit is the error).
    pub fn build(self) -> Result<QuoteRequest, RouteError> {
        self.0.check()?;
        Ok(self.0)
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
            assert_eq!(
                (r.amount(), r.max_splits(), r.max_length(), r.slippage_bps()),
                (amount, splits, length, slippage)
            );
            assert_eq!((r.in_asset(), r.out_asset(), r.swap_mode()), (Asset::Native, TOKEN, SwapMode::ExactIn));
        }
        let r = QuoteRequest::new(Asset::Native, TOKEN, 5).unwrap();
        let defaults = (SwapMode::ExactIn, 4, 3, 100);
        assert_eq!((r.swap_mode(), r.max_splits(), r.max_length(), r.slippage_bps()), defaults);
        assert_eq!(r.check(), Ok(()));
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
    fn the_other_constructors_refuse_the_same_values_with_the_same_errors() {
        // Every (amount, splits, length, slippage) case of `one_past_every_edge_is_refused_with_its_own_error`,
        // through `new`/`builder`/`to_builder` as through `try_new`.
        let cases = [(0, 4, 3, 100), (1 << 120, 4, 3, 100), (5, 0, 3, 100), (5, 21, 3, 100), (5, 4, 0, 100)];
        let more = [(5, 4, 6, 100), (5, 4, 3, 10_001), (1, 20, 5, 10_000), (1, 1, 1, 0)];
        let valid = QuoteRequest::new(Asset::Native, TOKEN, 9).unwrap();
        for (amount, splits, length, slippage) in cases.into_iter().chain(more) {
            let expected = request(amount, splits, length, slippage);
            let built = QuoteRequest::builder(Asset::Native, TOKEN, amount)
                .max_splits(splits)
                .max_length(length)
                .slippage_bps(slippage)
                .build();
            assert_eq!(built, expected);
            let derived =
                valid.to_builder().amount(amount).max_splits(splits).max_length(length).slippage_bps(slippage).build();
            assert_eq!(derived, expected);
        }
        assert_eq!(QuoteRequest::new(Asset::Native, TOKEN, 0), Err(RouteError::ZeroAmount));
        assert_eq!(QuoteRequest::new(TOKEN, TOKEN, 5), Err(RouteError::SameAsset { asset: TOKEN.to_string() }));
        let same = valid.to_builder().in_asset(TOKEN).build();
        assert_eq!(same, Err(RouteError::SameAsset { asset: TOKEN.to_string() }));
        let swapped = valid.to_builder().in_asset(TOKEN).out_asset(Asset::Native).swap_mode(SwapMode::ExactOut);
        let swapped = swapped.build().unwrap();
        assert_eq!(
            (swapped.in_asset(), swapped.out_asset(), swapped.swap_mode()),
            (TOKEN, Asset::Native, SwapMode::ExactOut)
        );
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
