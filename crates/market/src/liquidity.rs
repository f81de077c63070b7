//! Liquidity events: a provider joining a pool (depositing both assets, LP tokens minted) or exiting it (LP tokens
//! burned, both assets paid out). They feed the screener feed's `join` / `exit` events, a pool's providers and
//! deposits, and wallets' LP positions.
//!
//! Owns the event ([`LiquidityEvent`]), its record in a market file ([`LiquidityRecord`]) and that record's checks
//! ([`replay_history`]: the constant-product LP formulas, exact), its ingest line ([`parse_liquidity_line`]) and
//! the mapping of times to masterchain blocks ([`block_of_time`]). Pure: no I/O, no clock (the caller gives the
//! latest date it accepts). Must not answer queries (the screener feed and providers do) nor write anything (a
//! store does).
//!
//! # The bundled sample's liquidity
//!
//! The sample's trades start from the snapshot's reserves and must stay exactly as they are, so its liquidity
//! events are the pools' **history up to the snapshot**: each pool that has events starts empty, its joins and
//! exits (all before its first trade) end exactly at the snapshot's reserves, and the loader replays them with
//! the LP formulas below and refuses a file where they do not. Only constant-product pools carry events in a
//! market file (stable and concentrated pools mint LP by other rules, not modelled here). Events that arrive
//! later through `tonroute market ingest` may be on any pool and at any time; they are stored as given.
//!
//! # LP formulas (constant product, STON.fi v2's `lp_account.fc` / `pool.fc`)
//!
//! - First join (supply 0): the supply becomes `isqrt(amount0 · amount1)`; the provider receives that minus
//!   [`LOCKED_LP`] (locked forever, part of the supply, owned by no one).
//! - Later join: `min(amount0 · supply / reserve0, amount1 · supply / reserve1)` (floors); the whole deposit
//!   joins the reserves.
//! - Exit of `lp`: `lp · reserve0 / supply` and `lp · reserve1 / supply` (floors) are paid out.
//!
//! # Blocks
//!
//! An event's block is its masterchain `mc_seq_no` when known. Otherwise, and for every trade (trades carry no
//! block), the block is mapped from time: [`block_of_time`] counts [`SECONDS_PER_BLOCK`]-second blocks from
//! [`GENESIS_TIME`] (TON's mainnet launch, block [`GENESIS_BLOCK`]). The mapping is deterministic and monotone;
//! it is **not** the chain's real numbering (a real `mc_seq_no` of late 2024 is higher: it ran faster than one
//! block per 5 s), so a store mixing real and mapped numbers should take real ones for every event.

use primitive_types::U256;
use serde::{Deserialize, Serialize};
use tonlib_core::TonAddress;

use crate::ingest::{
    self, address_field, amount_below_bound, asset_field, check_date, DateOutOfRange, FieldError, EARLIEST_TRADE,
};
use crate::types::DateTime;
use tonroute_core::graph::{PoolGraph, PoolId};
use tonroute_core::pool::Curve;

/// LP tokens locked by a pool's first join (STON.fi v2's `params::required_min_liquidity`).
pub const LOCKED_LP: u128 = 1_001;

/// The mapped block of [`GENESIS_TIME`].
pub const GENESIS_BLOCK: i64 = 1;
/// TON's mainnet launch, 2019-11-15T00:00:00Z: the start of the time → block mapping.
pub const GENESIS_TIME: i64 = EARLIEST_TRADE;
/// Seconds per mapped block.
pub const SECONDS_PER_BLOCK: i64 = 5;

/// The mapped block of a Unix time (times before [`GENESIS_TIME`] map to [`GENESIS_BLOCK`]).
pub fn block_of_time(time: i64) -> i64 {
    GENESIS_BLOCK + (time.max(GENESIS_TIME) - GENESIS_TIME) / SECONDS_PER_BLOCK
}

/// The start time of a mapped block (the `blockTimestamp` the feed shows for it).
pub fn block_start(block: i64) -> i64 {
    GENESIS_TIME + (block.max(GENESIS_BLOCK) - GENESIS_BLOCK).saturating_mul(SECONDS_PER_BLOCK)
}

/// Join or exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiquidityKind {
    /// Both assets deposited, LP tokens minted.
    Join,
    /// LP tokens burned, both assets paid out.
    Exit,
}

impl LiquidityKind {
    /// `join` / `exit`.
    pub fn as_str(self) -> &'static str {
        match self {
            LiquidityKind::Join => "join",
            LiquidityKind::Exit => "exit",
        }
    }

    /// The kind named `text`.
    pub fn parse(text: &str) -> Option<LiquidityKind> {
        match text {
            "join" => Some(LiquidityKind::Join),
            "exit" => Some(LiquidityKind::Exit),
            _ => None,
        }
    }
}

/// One liquidity event as a store keeps it. Amounts are in the pool's asset order (asset0, asset1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiquidityEvent {
    /// Unix seconds.
    pub time: i64,
    /// Masterchain block when known (else see [`LiquidityEvent::block`]).
    pub mc_seq_no: Option<i64>,
    /// Pool.
    pub pool: TonAddress,
    /// Join or exit.
    pub kind: LiquidityKind,
    /// The provider's wallet.
    pub provider: TonAddress,
    /// Deposited (join) or paid out (exit), smallest units, pool order.
    pub amounts: [u128; 2],
    /// LP tokens minted to the provider (join) or burned (exit).
    pub lp: u128,
    /// The least LP the provider accepted (join; the LP minted when unknown).
    pub min_lp_out: u128,
    /// The provider's deposit (LP account) contract, when known.
    pub deposit_address: Option<TonAddress>,
    /// Transaction hash, lower-case hex, when known.
    pub tx_hash: Option<String>,
    /// The pool's reserves after the event, when known.
    pub reserves_after: Option<[u128; 2]>,
}

impl LiquidityEvent {
    /// The event's block: its `mc_seq_no`, else its time mapped by [`block_of_time`].
    pub fn block(&self) -> i64 {
        self.mc_seq_no.unwrap_or_else(|| block_of_time(self.time))
    }

    /// The natural key a store deduplicates on: `tx:<hash>:<pool>:<kind>` when the hash is known, else
    /// `at:<pool>:<time>:<provider>:<kind>:<amount0>:<amount1>:<lp>`.
    pub fn natural_key(&self) -> String {
        match &self.tx_hash {
            Some(h) => format!("tx:{}:{}:{}", h.to_ascii_lowercase(), self.pool.to_hex(), self.kind.as_str()),
            None => format!(
                "at:{}:{}:{}:{}:{}:{}:{}",
                self.pool.to_hex(),
                self.time,
                self.provider.to_hex(),
                self.kind.as_str(),
                self.amounts[0],
                self.amounts[1],
                self.lp
            ),
        }
    }
}

/// A liquidity event in a market file (`liquidity`, in time order): raw addresses, decimal strings, amounts in the
/// pool's asset order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiquidityRecord {
    /// Unix seconds.
    pub time: i64,
    /// Pool (raw address).
    pub pool: String,
    /// `join` / `exit`.
    pub kind: LiquidityKind,
    /// Provider wallet (raw address).
    pub provider: String,
    /// Asset 0, decimal string.
    pub amount0: String,
    /// Asset 1, decimal string.
    pub amount1: String,
    /// LP minted to the provider or burned, decimal string.
    pub lp: String,
    /// The least LP accepted (joins), decimal string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_lp_out: Option<String>,
    /// The provider's deposit (LP account) contract (raw address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deposit_address: Option<String>,
    /// Transaction hash, 64 hex.
    pub tx_hash: String,
}

/// Why a liquidity record or line is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LiquidityError {
    /// An address or asset id that does not parse.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// An amount that is not a non-negative decimal integer below 2^120.
    #[error("`{field}` is not a decimal integer below 2^120")]
    BadAmount {
        /// The field.
        field: &'static str,
    },
    /// A pool the snapshot does not have.
    #[error("unknown pool {pool}")]
    UnknownPool {
        /// Raw address.
        pool: String,
    },
    /// Assets that are not the pool's two.
    #[error("pool {pool} trades {pool_assets}, not {given}")]
    WrongAssets {
        /// The pool.
        pool: String,
        /// The pool's two assets (`a and b`).
        pool_assets: String,
        /// The two given.
        given: String,
    },
    /// Zero LP, or a join depositing nothing.
    #[error("a liquidity event must move LP tokens and (a join) deposit something")]
    Empty,
    /// A `time` before TON's launch or after the latest accepted one.
    #[error(transparent)]
    TimeOutOfRange(#[from] DateOutOfRange),
    /// A masterchain block number that is negative or above 2^31 − 1 (the feed's int32 range is wider, but
    /// the chain's sequence numbers are 32-bit).
    #[error("mc_seq_no {0} is out of range (0 to 2147483647)")]
    BadSeqNo(i64),
    /// A `tx_hash` that is not 64 hex digits.
    #[error("tx_hash is not 64 hex digits")]
    BadTxHash,
    /// A `min_lp_out` above the LP minted (the contract would have refunded).
    #[error("min_lp_out {min} is above the LP minted ({lp})")]
    MinAboveMinted {
        /// Asked.
        min: u128,
        /// Minted.
        lp: u128,
    },
    /// A file's events that are not in time order.
    #[error("liquidity events are not in time order")]
    OutOfOrder,
    /// A file's event on a pool whose LP the sample does not model (stable, concentrated).
    #[error("pool {pool} is not a constant-product pool; a market file carries liquidity for those only")]
    NotConstantProduct {
        /// Raw address.
        pool: String,
    },
    /// A file's event at or after its pool's first trade (the file's events are the history before the sample).
    #[error("pool {pool}: liquidity event at {time} is not before the pool's first trade at {first_trade}")]
    AfterFirstTrade {
        /// Raw address.
        pool: String,
        /// The event.
        time: i64,
        /// The first trade.
        first_trade: i64,
    },
    /// Recorded LP or amounts that are not what the LP formulas give.
    #[error("recorded {what} {recorded} but the LP formulas give {computed}")]
    Mismatch {
        /// Which figure.
        what: &'static str,
        /// In the record.
        recorded: u128,
        /// Computed.
        computed: u128,
    },
    /// An exit burning more LP than the provider holds, or from an empty pool.
    #[error("exit burns {lp} LP but the provider holds {held}")]
    BurnsMoreThanHeld {
        /// Burned.
        lp: u128,
        /// Held.
        held: u128,
    },
    /// A first join too small to lock [`LOCKED_LP`].
    #[error("the first join mints {supply} LP, not more than the {LOCKED_LP} locked")]
    FirstJoinTooSmall {
        /// isqrt(amount0 · amount1).
        supply: u128,
    },
    /// A pool's history that does not end at the snapshot's reserves.
    #[error("pool {pool}: liquidity history ends at reserves {ends:?}, the snapshot holds {snapshot:?}")]
    HistoryMismatch {
        /// Raw address.
        pool: String,
        /// Where the events leave it.
        ends: [u128; 2],
        /// The snapshot's.
        snapshot: [u128; 2],
    },
}

/// A non-negative decimal integer below 2^120 (an optional leading `+`).
fn amount(text: &str, field: &'static str) -> Result<u128, LiquidityError> {
    let digits = text.strip_prefix('+').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(LiquidityError::BadAmount { field });
    }
    amount_below_bound(digits).ok_or(LiquidityError::BadAmount { field })
}

fn address(text: &str, field: &'static str) -> Result<TonAddress, LiquidityError> {
    Ok(address_field(text, field)?)
}

fn tx_hash(text: &str) -> Result<String, LiquidityError> {
    ingest::tx_hash(text).ok_or(LiquidityError::BadTxHash)
}

/// `a · b / c`, floored, in U256 (`c` > 0; the result of a share of a pool fits u128).
fn mul_div(a: u128, b: u128, c: u128) -> u128 {
    let q = U256::from(a) * U256::from(b) / U256::from(c.max(1));
    u128::try_from(q).unwrap_or(u128::MAX)
}

/// A constant-product pool's LP book: reserves and LP supply, moved by joins and exits with the module's
/// formulas.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LpBook {
    /// Reserves, pool order.
    pub reserves: [u128; 2],
    /// LP supply (the locked LP included).
    pub supply: u128,
}

impl LpBook {
    /// The LP a join of `amounts` mints to its provider, and the book after it.
    pub fn join(&self, amounts: [u128; 2]) -> Result<(u128, LpBook), LiquidityError> {
        let reserves = [self.reserves[0] + amounts[0], self.reserves[1] + amounts[1]];
        if self.supply == 0 {
            let supply =
                u128::try_from((U256::from(amounts[0]) * U256::from(amounts[1])).integer_sqrt()).unwrap_or(u128::MAX);
            if supply <= LOCKED_LP {
                return Err(LiquidityError::FirstJoinTooSmall { supply });
            }
            return Ok((supply - LOCKED_LP, LpBook { reserves, supply }));
        }
        let minted =
            mul_div(amounts[0], self.supply, self.reserves[0]).min(mul_div(amounts[1], self.supply, self.reserves[1]));
        if minted == 0 {
            return Err(LiquidityError::Empty);
        }
        Ok((minted, LpBook { reserves, supply: self.supply + minted }))
    }

    /// What an exit burning `lp` pays out, and the book after it.
    pub fn exit(&self, lp: u128) -> Result<([u128; 2], LpBook), LiquidityError> {
        if lp >= self.supply {
            return Err(LiquidityError::BurnsMoreThanHeld { lp, held: self.supply.saturating_sub(LOCKED_LP) });
        }
        let out = [mul_div(lp, self.reserves[0], self.supply), mul_div(lp, self.reserves[1], self.supply)];
        Ok((out, LpBook { reserves: [self.reserves[0] - out[0], self.reserves[1] - out[1]], supply: self.supply - lp }))
    }
}

/// Whether `curve` mints LP by the constant-product formulas.
pub fn is_constant_product(curve: &Curve) -> bool {
    matches!(curve, Curve::ConstantProduct(_) | Curve::DexAVolatile(_))
}

/// Checks a market file's liquidity `records` (the pools' history before the sample, see the module
/// documentation) against `graph` (the snapshot) and `first_trade` (per pool, the time of its first trade).
/// Returns the events with the reserves after each, or the index of the first refused record and why.
pub fn replay_history(
    graph: &PoolGraph,
    records: &[LiquidityRecord],
    first_trade: &[Option<i64>],
) -> Result<Vec<LiquidityEvent>, (usize, LiquidityError)> {
    let mut books: Vec<LpBook> = vec![LpBook::default(); graph.pool_count()];
    let mut held: std::collections::HashMap<(usize, TonAddress), u128> = std::collections::HashMap::new();
    let mut events = Vec::with_capacity(records.len());
    let mut last_time = i64::MIN;
    for (index, r) in records.iter().enumerate() {
        let event = history_event(graph, r, first_trade, &mut books, &mut held, last_time).map_err(|e| (index, e))?;
        last_time = r.time;
        events.push(event);
    }
    for (i, book) in books.iter().enumerate() {
        let id = PoolId(u32::try_from(i).unwrap_or(u32::MAX));
        let snapshot = graph.reserves(id);
        if book.supply > 0 && book.reserves != snapshot {
            let pool = graph.pool(id).address.to_hex();
            let at =
                records.iter().rposition(|r| address(&r.pool, "pool").ok().as_ref() == Some(&graph.pool(id).address));
            return Err((at.unwrap_or(0), LiquidityError::HistoryMismatch { pool, ends: book.reserves, snapshot }));
        }
    }
    Ok(events)
}

fn history_event(
    graph: &PoolGraph,
    r: &LiquidityRecord,
    first_trade: &[Option<i64>],
    books: &mut [LpBook],
    held: &mut std::collections::HashMap<(usize, TonAddress), u128>,
    last_time: i64,
) -> Result<LiquidityEvent, LiquidityError> {
    if r.time < last_time {
        return Err(LiquidityError::OutOfOrder);
    }
    let pool = address(&r.pool, "pool")?;
    let id = graph.pool_id(&pool).ok_or_else(|| LiquidityError::UnknownPool { pool: pool.to_hex() })?;
    if !is_constant_product(&graph.pool(id).curve) {
        return Err(LiquidityError::NotConstantProduct { pool: pool.to_hex() });
    }
    if let Some(first) = first_trade.get(id.index()).copied().flatten() {
        if r.time >= first {
            return Err(LiquidityError::AfterFirstTrade { pool: pool.to_hex(), time: r.time, first_trade: first });
        }
    }
    let provider = address(&r.provider, "provider")?;
    let amounts = [amount(&r.amount0, "amount0")?, amount(&r.amount1, "amount1")?];
    let lp = amount(&r.lp, "lp")?;
    let tx = tx_hash(&r.tx_hash)?;
    let deposit_address = r.deposit_address.as_deref().map(|a| address(a, "deposit_address")).transpose()?;
    let book = books[id.index()];
    let balance = held.entry((id.index(), provider.clone())).or_insert(0);
    let (min_lp_out, after) = match r.kind {
        LiquidityKind::Join => {
            let (minted, after) = book.join(amounts)?;
            if minted != lp {
                return Err(LiquidityError::Mismatch { what: "lp", recorded: lp, computed: minted });
            }
            let min = r.min_lp_out.as_deref().map(|m| amount(m, "min_lp_out")).transpose()?.unwrap_or(lp);
            if min > lp {
                return Err(LiquidityError::MinAboveMinted { min, lp });
            }
            *balance += lp;
            (min, after)
        }
        LiquidityKind::Exit => {
            if lp == 0 || lp > *balance {
                return Err(LiquidityError::BurnsMoreThanHeld { lp, held: *balance });
            }
            let (out, after) = book.exit(lp)?;
            for (what, recorded, computed) in [("amount0", amounts[0], out[0]), ("amount1", amounts[1], out[1])] {
                if recorded != computed {
                    return Err(LiquidityError::Mismatch { what, recorded, computed });
                }
            }
            *balance -= lp;
            (0, after)
        }
    };
    books[id.index()] = after;
    Ok(LiquidityEvent {
        time: r.time,
        mc_seq_no: None,
        pool,
        kind: r.kind,
        provider,
        amounts,
        lp,
        min_lp_out,
        deposit_address,
        tx_hash: Some(tx),
        reserves_after: Some(after.reserves),
    })
}

/// A liquidity line of `tonroute market ingest` (one JSON object per line, told from a trade line by its
/// `event` field). Amounts are LargeInteger strings in smallest units, each for the asset named beside it (either
/// order; they are stored in the pool's order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LiquidityLine {
    /// `join` / `exit`.
    pub event: LiquidityKind,
    /// Date-time of the event.
    pub event_date: DateTime,
    /// Pool (any address form).
    pub pool_address: String,
    /// Provider wallet (any address form).
    pub provider_address: String,
    /// First asset id.
    pub asset0: String,
    /// Deposited / paid out of `asset0`.
    pub amount0: String,
    /// Second asset id.
    pub asset1: String,
    /// Deposited / paid out of `asset1`.
    pub amount1: String,
    /// LP minted to the provider (join) or burned (exit).
    pub lp_amount: String,
    /// The least LP the provider accepted (join only; default the LP minted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_lp_out: Option<String>,
    /// The provider's deposit (LP account) contract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deposit_address: Option<String>,
    /// Masterchain block of the transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mc_seq_no: Option<i64>,
    /// 64 hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_hash: Option<String>,
    /// The pool's reserve of `asset0` after the event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve0_after: Option<String>,
    /// The pool's reserve of `asset1` after the event (given with `reserve0_after` or not at all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserve1_after: Option<String>,
}

/// Why an ingest line of liquidity is refused.
#[derive(Debug, thiserror::Error)]
pub enum LiquidityLineError {
    /// Not JSON, not an object, a field missing, unknown or of the wrong type (the error names the field's path).
    #[error("not a liquidity event object: {0}")]
    Malformed(#[source] tonroute_core::json::JsonError),
    /// A field's value refused.
    #[error(transparent)]
    Refused(#[from] LiquidityError),
    /// One of `reserve0_after` / `reserve1_after` without the other.
    #[error("reserve0_after and reserve1_after go together")]
    HalfReserves,
}

/// Decodes one liquidity line and checks it against `graph`'s pools; dates after `latest` (Unix seconds) are
/// refused.
pub fn parse_liquidity_line(line: &str, graph: &PoolGraph, latest: i64) -> Result<LiquidityEvent, LiquidityLineError> {
    let l: LiquidityLine = tonroute_core::json::from_str(line).map_err(LiquidityLineError::Malformed)?;
    let time = l.event_date.unix();
    check_date("event_date", time, latest).map_err(LiquidityError::from)?;
    let pool = address(&l.pool_address, "pool_address")?;
    let id = graph.pool_id(&pool).ok_or_else(|| LiquidityError::UnknownPool { pool: pool.to_hex() })?;
    let provider = address(&l.provider_address, "provider_address")?;
    let asset = |text: &str, field| asset_field(text, field).map_err(LiquidityError::from);
    let (asset0, asset1) = (asset(&l.asset0, "asset0")?, asset(&l.asset1, "asset1")?);
    let meta = graph.pool(id);
    let (p0, p1) = (graph.asset(meta.assets[0]).asset, graph.asset(meta.assets[1]).asset);
    let swapped = if (asset0, asset1) == (p0, p1) {
        false
    } else if (asset0, asset1) == (p1, p0) {
        true
    } else {
        return Err(LiquidityError::WrongAssets {
            pool: pool.to_hex(),
            pool_assets: format!("{p0} and {p1}"),
            given: format!("{asset0} and {asset1}"),
        }
        .into());
    };
    let order = |a: [u128; 2]| if swapped { [a[1], a[0]] } else { a };
    let amounts = order([amount(&l.amount0, "amount0")?, amount(&l.amount1, "amount1")?]);
    let lp = amount(&l.lp_amount, "lp_amount")?;
    if lp == 0 || (l.event == LiquidityKind::Join && amounts == [0, 0]) {
        return Err(LiquidityError::Empty.into());
    }
    let min_lp_out = match (l.event, l.min_lp_out.as_deref()) {
        (LiquidityKind::Join, Some(m)) => {
            let min = amount(m, "min_lp_out")?;
            if min > lp {
                return Err(LiquidityError::MinAboveMinted { min, lp }.into());
            }
            min
        }
        (LiquidityKind::Join, None) => lp,
        (LiquidityKind::Exit, Some(m)) => amount(m, "min_lp_out").map(|_| 0)?,
        (LiquidityKind::Exit, None) => 0,
    };
    if let Some(seq) = l.mc_seq_no {
        if !(0..=i64::from(i32::MAX)).contains(&seq) {
            return Err(LiquidityError::BadSeqNo(seq).into());
        }
    }
    let reserves_after = match (&l.reserve0_after, &l.reserve1_after) {
        (Some(a), Some(b)) => Some(order([amount(a, "reserve0_after")?, amount(b, "reserve1_after")?])),
        (None, None) => None,
        _ => return Err(LiquidityLineError::HalfReserves),
    };
    Ok(LiquidityEvent {
        time,
        mc_seq_no: l.mc_seq_no,
        pool,
        kind: l.event,
        provider,
        amounts,
        lp,
        min_lp_out,
        deposit_address: l.deposit_address.as_deref().map(|a| address(a, "deposit_address")).transpose()?,
        tx_hash: l.tx_hash.as_deref().map(tx_hash).transpose()?,
        reserves_after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lp_formulas_follow_the_contract() {
        // First join: isqrt(4e6 · 9e6) = 6e6 supply, 1,001 of it locked.
        let (minted, book) = LpBook::default().join([4_000_000, 9_000_000]).expect("a first join");
        assert_eq!((minted, book.supply, book.reserves), (6_000_000 - 1_001, 6_000_000, [4_000_000, 9_000_000]));
        // A later join mints the smaller share: min(1e6·6e6/4e6, 3e6·6e6/9e6) = min(1.5e6, 2e6).
        let (minted, book2) = book.join([1_000_000, 3_000_000]).expect("a join");
        assert_eq!((minted, book2.supply, book2.reserves), (1_500_000, 7_500_000, [5_000_000, 12_000_000]));
        // An exit pays floor(lp · reserve / supply): 1e6 · 5e6 / 7.5e6 = 666,666.67 → 666,666.
        let (out, book3) = book2.exit(1_000_000).expect("an exit");
        assert_eq!(out, [666_666, 1_600_000]);
        assert_eq!((book3.supply, book3.reserves), (6_500_000, [4_333_334, 10_400_000]));
        // Too small a first join, burning the whole supply.
        assert_eq!(LpBook::default().join([1_000, 1_002]), Err(LiquidityError::FirstJoinTooSmall { supply: 1_000 }));
        assert!(book3.exit(6_500_000).is_err());
    }

    #[test]
    fn times_map_to_blocks_monotonically() {
        assert_eq!(block_of_time(GENESIS_TIME), GENESIS_BLOCK);
        assert_eq!(block_of_time(GENESIS_TIME + 4), GENESIS_BLOCK);
        assert_eq!(block_of_time(GENESIS_TIME + 5), GENESIS_BLOCK + 1);
        // 2024-11-21T12:00:00Z: (1,732,190,400 − 1,573,776,000) / 5 + 1.
        assert_eq!(block_of_time(1_732_190_400), 31_682_881);
        assert_eq!(block_start(31_682_881), 1_732_190_400);
        assert!(block_start(block_of_time(1_732_190_403)) <= 1_732_190_403);
    }

    #[test]
    fn natural_keys_tell_events_apart() {
        let e = LiquidityEvent {
            time: 1_700_000_000,
            mc_seq_no: None,
            pool: TonAddress::NULL,
            kind: LiquidityKind::Join,
            provider: TonAddress::NULL,
            amounts: [1, 2],
            lp: 3,
            min_lp_out: 3,
            deposit_address: None,
            tx_hash: None,
            reserves_after: None,
        };
        let exit = LiquidityEvent { kind: LiquidityKind::Exit, ..e.clone() };
        assert_ne!(e.natural_key(), exit.natural_key());
        let hashed = LiquidityEvent { tx_hash: Some("AB".repeat(32)), ..e.clone() };
        assert_eq!(hashed.natural_key(), format!("tx:{}:{}:join", "ab".repeat(32), TonAddress::NULL.to_hex()));
    }
}
