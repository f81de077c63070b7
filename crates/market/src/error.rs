//! Why the market domain refuses something: a query whose values break a rule ([`MarketError`]), or a market
//! file (or, later, an ingested record) that does not hold together ([`MarketDataError`], [`RecordError`]).
//!
//! Owns the refusals and their wording; must not know HTTP: the JSON layer gives each [`MarketError`] its
//! status and numeric code in one mapping (`crate::api::market::error`). A query's field is named after the
//! spec's parameter, so the messages read the same whether the query came from a query string, a request body
//! or a caller of the library.

use std::sync::Arc;

use tonroute_core::asset::{AddressError, Asset, AssetError};
use tonroute_core::graph::GraphError;
use tonroute_core::pool::PoolError;

use super::types::PoolSortBy;

/// Why a market query is refused: a value outside its range, bounds the wrong way round, a field another field
/// needs, (from an operation) a value the data contradicts, or the store's own failure ([`MarketError::Store`],
/// the one variant that is not the query's fault). Lookups that find nothing are not errors: the operations
/// answer `None` and the caller decides what "not found" means to its users.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
// Exhaustive on purpose (no `#[non_exhaustive]`): tonroute-api maps every variant to its wire code with a
// match, so a new variant is a compile error there until it has one.
pub enum MarketError {
    /// `limit` outside the operation's range.
    #[error("parameter `limit`: {value} is out of range ({min} to {max})")]
    LimitOutOfRange {
        /// The value given.
        value: i32,
        /// Smallest allowed.
        min: i32,
        /// Largest allowed.
        max: i32,
    },
    /// A negative `offset`.
    #[error("parameter `offset`: {value} is out of range (at least 0)")]
    OffsetOutOfRange {
        /// The value given.
        value: i32,
    },
    /// A lower bound above its upper bound (holders, transactions, creation dates, trade dates).
    #[error("`{min_field}` must be at most `{max_field}`")]
    InvertedBounds {
        /// The lower bound's name.
        min_field: &'static str,
        /// The upper bound's name.
        max_field: &'static str,
    },
    /// A lower USD or percentage bound above its upper bound (or, where the range must not be empty, equal).
    #[error("`{name}_min` ({min}) must be {} `{name}_max` ({max})", if *.strict { "less than" } else { "at most" })]
    InvertedAmounts {
        /// The bounded figure (`liquidity_usd`, `volume_usd`, …).
        name: &'static str,
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
        /// Whether the bounds must differ.
        strict: bool,
    },
    /// A bonding-curve percentage bound outside 0..=100.
    #[error("bonding curve percentage {value} is outside 0 to 100")]
    PercentageOutOfRange {
        /// The bound given.
        value: f64,
    },
    /// Volume or transaction-count filters without the period they are counted over.
    #[error("`filter_period` is required with volume_usd_min/max or transactions_min/max")]
    FilterPeriodRequired,
    /// A per-period sort without its period.
    #[error("`sort_period` is required when sort_by is price_change, volume or transactions")]
    SortPeriodRequired,
    /// A sort by the wallet's position without a wallet.
    #[error("sorting by {sort_by} needs `wallet_address`")]
    WalletRequired {
        /// The sort asked for.
        sort_by: PoolSortBy,
    },
    /// An asset pair naming one asset twice.
    #[error("`{field}`: the two assets are equal")]
    EqualAssets {
        /// Where the pair was given (`assets`, `pair_pools[0].assets`).
        field: String,
    },
    /// A chart of an asset against itself.
    #[error("`opposite_asset` equals `asset`")]
    OppositeIsAsset,
    /// A pool chart of an asset the pool does not trade.
    #[error("asset {asset} is not one of the pool's assets")]
    AssetNotInPool {
        /// The asset asked for.
        asset: Asset,
    },
    /// A block number below 0 or above the int64 range (`/events`).
    #[error("parameter `{name}`: {value} is out of range (0 to 9223372036854775807)")]
    BlockOutOfRange {
        /// `fromBlock` / `toBlock`.
        name: &'static str,
        /// The value given.
        value: i128,
    },
    /// An `/events` range longer than [`super::limits::MAX_EVENT_BLOCKS`].
    #[error("`fromBlock..=toBlock` spans {blocks} blocks, more than the {max} one request may ask for")]
    TooManyBlocks {
        /// Blocks asked for.
        blocks: i128,
        /// The most accepted.
        max: i64,
    },
    /// The store could not answer (a database store's driver failed); the in-memory replay never does.
    #[error("{0}")]
    Store(#[from] StoreFailure),
}

/// A store's own failure, not the query's: a database unreachable, a statement that failed, a row that does not
/// decode. It names the operation and keeps the driver's error as its [`std::error::Error::source`]; its message
/// does not repeat the driver's text (callers' users see the operation, logs walk the source chain).
#[derive(Debug, Clone)]
pub struct StoreFailure {
    operation: &'static str,
    source: Arc<dyn std::error::Error + Send + Sync>,
}

impl StoreFailure {
    /// `operation` (e.g. `"coins"`, `"chart"`) failed because of `source`.
    pub fn new(operation: &'static str, source: impl std::error::Error + Send + Sync + 'static) -> StoreFailure {
        StoreFailure { operation, source: Arc::new(source) }
    }

    /// The operation that failed.
    pub fn operation(&self) -> &'static str {
        self.operation
    }
}

impl std::fmt::Display for StoreFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the market store failed to answer `{}`", self.operation)
    }
}

impl std::error::Error for StoreFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

/// Two failures are equal when they are the same failure (same operation, same source object).
impl PartialEq for StoreFailure {
    fn eq(&self, other: &StoreFailure) -> bool {
        self.operation == other.operation && Arc::ptr_eq(&self.source, &other.source)
    }
}

/// Why a market file was refused. Nothing of a refused file is kept.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MarketDataError {
    /// Not JSON of the file's shape.
    #[error("market file: {0}")]
    Json(#[from] serde_json::Error),
    /// The affiliate program's address does not parse.
    #[error("market file: program_address: {0}")]
    ProgramAddress(#[source] AddressError),
    /// The snapshot the file is generated on does not load.
    #[error("snapshot: {0}")]
    Snapshot(#[from] GraphError),
    /// A time outside the range a date-time can show.
    #[error("time {unix} is out of range")]
    TimeOutOfRange {
        /// Unix seconds.
        unix: i64,
    },
    /// A coin entry is invalid.
    #[error("coin {asset}: {reason}")]
    BadCoin {
        /// The entry's asset text.
        asset: String,
        /// Why.
        #[source]
        reason: RecordError,
    },
    /// A trade does not replay.
    #[error("trade #{index}: {reason}")]
    BadTrade {
        /// Position in `trades`.
        index: usize,
        /// Why.
        #[source]
        reason: RecordError,
    },
    /// A liquidity event is refused.
    #[error("liquidity event #{index}: {reason}")]
    BadLiquidity {
        /// Position in `liquidity`.
        index: usize,
        /// Why (boxed: the largest refusal would make every market-file error large).
        #[source]
        reason: Box<crate::liquidity::LiquidityError>,
    },
    /// A reward program is invalid.
    #[error("reward of pool {pool}: {reason}")]
    BadReward {
        /// The pool text.
        pool: String,
        /// Why.
        #[source]
        reason: RecordError,
    },
    /// An affiliate account is invalid.
    #[error("affiliate account {account_id}: {reason}")]
    BadAffiliate {
        /// The id.
        account_id: String,
        /// Why.
        #[source]
        reason: RecordError,
    },
    /// A wallet balance is invalid.
    #[error("balance #{index}: {reason}")]
    BadBalance {
        /// Position in `balances`.
        index: usize,
        /// Why.
        #[source]
        reason: RecordError,
    },
}

/// Why one record of a market file (a coin, trade, reward program or affiliate account) is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// An asset id that does not parse.
    #[error(transparent)]
    Asset(#[from] AssetError),
    /// An address that does not parse.
    #[error(transparent)]
    Address(#[from] AddressError),
    /// An amount field that is not a non-negative decimal integer below 2^128.
    #[error("{field} is not a decimal")]
    NotDecimal {
        /// The field.
        field: &'static str,
    },
    /// A launch-pad curve whose completion amount is zero.
    #[error("curve_ton_max is zero")]
    ZeroCurveMax,
    /// An asset the snapshot does not list.
    #[error("asset {asset} is not in the snapshot")]
    NotInSnapshot {
        /// The asset.
        asset: Asset,
    },
    /// A pool the snapshot does not list.
    #[error("unknown pool {pool}")]
    UnknownPool {
        /// The pool as written.
        pool: String,
    },
    /// A trade's input asset that its pool does not trade.
    #[error("asset {asset} is not one of the pool's")]
    AssetNotInPool {
        /// The asset.
        asset: Asset,
    },
    /// The pool refuses the trade (the contract would refund or throw).
    #[error(transparent)]
    Swap(#[from] PoolError),
    /// A recorded output that is not what the pool pays on the replayed state.
    #[error("amount_out {recorded} but the pool pays {paid}")]
    AmountOutMismatch {
        /// In the file.
        recorded: u128,
        /// By the pool math.
        paid: u128,
    },
    /// A circulating supply above the total supply.
    #[error("circulating supply above total supply")]
    CirculatingAboveTotal,
    /// A verification level above 4 or a tax above 100 %.
    #[error("verification level above 4 or tax above 100")]
    LevelOrTaxOutOfRange,
    /// A second record for the same coin or account.
    #[error("listed twice")]
    ListedTwice,
    /// A trade earlier than the one before it.
    #[error("trades are not in time order")]
    OutOfOrder,
    /// A transaction hash that is not 64 hex digits.
    #[error("tx_hash is not 64 hex digits")]
    BadTxHash,
    /// An affiliate account id outside `[A-Za-z0-9_-]{1,64}`, or 48 characters long (the length of an address).
    #[error("account id must be [A-Za-z0-9_-]{{1,64}} and not 48 characters long")]
    BadAccountId,
    /// A wallet referred by two accounts.
    #[error("wallet {wallet} is already referred by {by}")]
    AlreadyReferred {
        /// The wallet as written.
        wallet: String,
        /// The first referrer's account id.
        by: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn a_store_failure_keeps_its_source_and_names_only_the_operation() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "db at 127.0.0.1:5432 refused");
        let e = MarketError::from(StoreFailure::new("coins", io));
        assert_eq!(e.to_string(), "the market store failed to answer `coins`");
        let failure = e.source().expect("the failure");
        assert_eq!(failure.source().expect("the driver's error").to_string(), "db at 127.0.0.1:5432 refused");
        assert_eq!(e.clone(), e);
        let other = MarketError::from(StoreFailure::new("coins", std::io::Error::other("x")));
        assert_ne!(e, other);
    }
}
