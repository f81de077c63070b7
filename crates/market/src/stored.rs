//! A trade as every store keeps it ([`StoredTrade`]): what the chain showed, the prices recorded when it was taken
//! in, and the pool's state after it when known ([`StoredPoolState`]). Trade lines ([`super::ingest`]) and the
//! sync's observations ([`super::derive`]) make them, a database store writes and reads them, and the replay
//! builds a market from them (`super::replay::MarketData::from_stored`).
//!
//! Owns the record; must not check it (its makers do) or derive prices (the replay and the makers do).

use tonlib_core::TonAddress;

use tonroute_core::asset::Asset;
use tonroute_core::pool::concentrated::ClState;

/// A pool's state as a store records it after a trade: its reserve pair (a concentrated pool's virtual
/// reserves) and, for a concentrated pool, its price, tick and liquidity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredPoolState {
    /// Reserves after the trade, contract order.
    pub reserves: [u128; 2],
    /// A concentrated pool's state after the trade.
    pub concentrated: Option<ClState>,
}

/// A trade as a store keeps it: what the chain showed, the prices recorded when it was taken in, and the pool's
/// state after it when known (a trade ingested from a CoinTransaction line has none).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTrade {
    /// Unix seconds.
    pub time: i64,
    /// Pool.
    pub pool: TonAddress,
    /// Asset sent in.
    pub asset_in: Asset,
    /// Amount in.
    pub amount_in: u128,
    /// Amount out.
    pub amount_out: u128,
    /// Protocol fee kept by the pool, output asset (0 when unknown).
    pub protocol_fee_out: u128,
    /// Trader wallet.
    pub trader: TonAddress,
    /// Transaction hash, lower-case hex, when known.
    pub tx_hash: Option<String>,
    /// The pool's state after the trade, when known.
    pub state_after: Option<StoredPoolState>,
    /// USD price of one whole `asset_in`.
    pub usd_in: f64,
    /// USD price of one whole asset out.
    pub usd_out: f64,
    /// TON's USD price at the time.
    pub ton_usd: f64,
    /// Trade value in USD.
    pub volume_usd: f64,
}
