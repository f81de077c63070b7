//! The replay: a market file (coins, trades as the chain records them, reward programs, affiliate accounts)
//! ([`file`]) **replayed** on load against its snapshot's pools with the exact pool math ([`data`]: [`MarketData`]), then
//! seen at a given "now" with the statistics every operation reads computed once ([`view`]: [`MarketView`]).
//! The operations' answers are computed from a view by the market's resource files (`super::coins`,
//! `super::pools`, …), and a view is the in-memory store (`super::store::memory`); a database store builds its
//! views the same way from its rows.
//!
//! Owns the replay (every recorded output must be what the contract pays on the reserves the previous trades
//! left, or the file is refused; prices and volumes are derived, never stored) and the statistics; must not
//! answer an operation, nor read files or clocks (the caller hands in the text and "now").

pub mod data;
pub mod file;
pub mod view;

pub use data::{usd_prices, MarketData, ReplayState};
pub use file::{to_json_lines, AffiliateRecord, CoinRecord, MarketFile, MemepadRecord, RewardRecord, TradeRecord};
pub use view::{CoinAllTime, CoinStats, MarketView, PoolAllTime, PoolStats};
// Their homes are below the replay; these paths stay for the callers that name them here.
pub use super::stored::{StoredPoolState, StoredTrade};
pub use super::units::{friendly, friendly_wallet, in_ton, whole};
