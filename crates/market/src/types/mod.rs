//! The schemas of docs/interface.md area (A), "Resources and their fields": coins, coin trades, list envelopes,
//! affiliate resources and pool resources, field for field. They are the market domain's answers, shared by
//! every [`super::MarketStore`] and serialised as they are (the pool request bodies, which only the JSON layer
//! reads, are in `crate::api::market::wire`). One file per resource: [`coin`], [`chart`], [`affiliate`],
//! [`pool`]; the units they are written in: [`date`] (RFC 3339 dates), [`enums`] (the closed sets of wire
//! texts) and the decimal strings of [`tonroute_core::decimal`].
//!
//! Owns shapes and per-value validation only (decimal-string patterns, RFC 3339 dates, enumerations); must not
//! compute anything. Required fields are plain, optional ones `Option` and omitted when absent; `total_count`
//! of [`CoinsResponse`] is the one nullable field and is omitted when the caller skipped the count.

pub mod affiliate;
pub mod chart;
pub mod coin;
pub mod date;
pub mod enums;
pub mod pool;

pub use self::affiliate::*;
pub use self::chart::*;
pub use self::coin::*;
pub use self::date::DateTime;
pub use self::enums::*;
pub use self::pool::*;
pub use tonroute_core::decimal::{DecimalError, LargeFloat, LargeInteger};
