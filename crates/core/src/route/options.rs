//! How one quote is computed ([`QuoteOptions`]): the settings of a single call to
//! [`crate::route::Router::quote`], as opposed to the router's own ([`crate::route::RouterConfig`]) and the
//! request's ([`crate::route::QuoteRequest`]). Must not hold anything the answer's routes depend on beyond
//! where the search stops.

use crate::route::budget::Budget;

/// The options of one [`crate::route::Router::quote`] call. `QuoteOptions::default()` searches to the end
/// and gives no certificate; the builder methods set one option each:
///
/// ```
/// # use std::cell::Cell;
/// # use tonroute_core::route::{Budget, QuoteOptions};
/// let stop = || false;
/// let latch = Cell::new(false);
/// let options = QuoteOptions::default().within(Budget::until(&stop, &latch)).certified();
/// assert!(options.certificate);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct QuoteOptions<'b> {
    /// When the search stops (the server's per-request deadline); [`Budget::UNLIMITED`] by default. A quote
    /// cut short is the best plan found so far, or [`crate::route::RouteError::BudgetExhausted`].
    pub budget: Budget<'b>,
    /// Whether to compute the quote's optimality certificate ([`crate::route::Quote::certificate`]) after
    /// the quote, within what is left of the same budget.
    pub certificate: bool,
}

impl<'b> QuoteOptions<'b> {
    /// These options with the search stopping when `budget` runs out.
    pub fn within(self, budget: Budget<'b>) -> QuoteOptions<'b> {
        QuoteOptions { budget, ..self }
    }

    /// These options with the certificate computed.
    pub fn certified(self) -> QuoteOptions<'b> {
        QuoteOptions { certificate: true, ..self }
    }
}
