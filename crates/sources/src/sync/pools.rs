//! Exact pool state from the chain, per exchange, written onto snapshot pools through
//! [`crate::import::chain`] (which checks the state belongs to the pool and applies it whole or not at all).
//!
//! | pool | reads (requests per pool) |
//! |---|---|
//! | `dex_b_v2` (STON.fi v2) | the pool's data cell from `accountStates`, up to [`ACCOUNT_STATES_BATCH`] pools per request, decoded as the storage of the pool's type |
//! | `dex_b_v1` (STON.fi v1) | `get_pool_data` (1) |
//! | `dex_a` (DeDust) | `get_reserves`, `get_trade_fee` (2) |
//! | `dex_c` (TONCO) | `getPoolStateAndConfiguration`, `getAllTickInfos` (2) |
//!
//! Reads run [`Limits::concurrency`](super::config::Limits) at a time, all through one rate-limited client. A
//! pool whose read fails in any way is returned as a [`PoolFailure`] and its entry is not touched.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tonlib_core::TonAddress;

use super::toncenter::{ReadError, Toncenter, ACCOUNT_STATES_BATCH};
use crate::import::chain::UpdateError;
use crate::import::Context;
use tonroute_core::chain::dex_b::PoolType;
use tonroute_core::chain::{dex_a, dex_b, dex_c};
use tonroute_core::graph::snapshot::SnapshotPool;

/// Why a pool's state was not refreshed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PoolReadError {
    /// A request failed or its answer did not decode.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The batched request that carried this pool's state failed (shared by the batch's pools).
    #[error("{source}")]
    Batch {
        /// Why.
        #[source]
        source: Arc<ReadError>,
    },
    /// The state does not fit the pool (another type, other assets, a fee the snapshot cannot hold).
    #[error(transparent)]
    Update(#[from] UpdateError),
    /// The decoded state is not of the pool's layout.
    #[error("{source}")]
    State {
        /// Why.
        #[source]
        source: tonroute_core::chain::ChainError,
    },
    /// The account has no state to read (uninitialized, frozen or absent).
    #[error("the account is {status}, not active")]
    Inactive {
        /// toncenter's status.
        status: String,
    },
    /// The read task ended without an answer (a bug; logged).
    #[error("the read ended without an answer")]
    Lost,
    /// The pool's address or protocol is not one this reader knows.
    #[error("cannot read a {protocol}/{curve} pool from the chain")]
    Unsupported {
        /// Protocol.
        protocol: String,
        /// Curve.
        curve: String,
    },
}

/// A pool that was not refreshed, and why.
#[derive(Debug)]
pub struct PoolFailure {
    /// The pool's raw address.
    pub address: String,
    /// Why (boxed: failures travel in `Result`s, and the error is large).
    pub error: Box<PoolReadError>,
}

/// The v2 pool type of a `dex_b_v2` snapshot curve.
fn v2_type(curve: &str) -> Option<PoolType> {
    PoolType::ALL.into_iter().find(|t| t.snapshot_curve() == curve)
}

/// Reads the chain state of `pools` and returns each pool refreshed, or why not, in no particular order.
pub async fn refresh(
    tc: &Toncenter,
    pools: Vec<SnapshotPool>,
    ctx: &Arc<Context>,
    concurrency: usize,
) -> Vec<Result<SnapshotPool, PoolFailure>> {
    let mut out = Vec::with_capacity(pools.len());
    let mut v2 = Vec::new();
    let mut single = Vec::new();
    for pool in pools {
        match tonroute_core::asset::parse_address(&pool.address) {
            Err(_) => out.push(Err(failure(
                &pool,
                PoolReadError::Unsupported { protocol: pool.protocol.clone(), curve: pool.curve.clone() },
            ))),
            Ok(address) if pool.protocol == "dex_b_v2" => v2.push((address, pool)),
            Ok(address) => single.push((address, pool)),
        }
    }
    let permits = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut tasks = JoinSet::new();
    for batch in chunks(v2, ACCOUNT_STATES_BATCH) {
        let (tc, permits) = (tc.clone(), permits.clone());
        tasks.spawn(async move {
            // The semaphore is never closed, so acquiring only waits.
            let _permit = permits.acquire_owned().await.ok();
            read_v2_batch(&tc, batch).await
        });
    }
    for (address, pool) in single {
        let (tc, permits, ctx) = (tc.clone(), permits.clone(), ctx.clone());
        tasks.spawn(async move {
            let _permit = permits.acquire_owned().await.ok();
            vec![read_one(&tc, &address, pool, &ctx).await]
        });
    }
    while let Some(done) = tasks.join_next().await {
        match done {
            Ok(results) => out.extend(results),
            // A read task panicked: a bug, not an input; its pools stay as they were and are reported by the
            // caller as missing from the answer.
            Err(e) => tracing::error!(error = %e, "a pool read task failed"),
        }
    }
    out
}

fn chunks<T>(items: Vec<T>, size: usize) -> Vec<Vec<T>> {
    let mut out = Vec::new();
    let mut items = items.into_iter().peekable();
    while items.peek().is_some() {
        out.push(items.by_ref().take(size).collect());
    }
    out
}

fn failure(pool: &SnapshotPool, error: impl Into<PoolReadError>) -> PoolFailure {
    PoolFailure { address: pool.address.clone(), error: Box::new(error.into()) }
}

async fn read_v2_batch(
    tc: &Toncenter,
    batch: Vec<(TonAddress, SnapshotPool)>,
) -> Vec<Result<SnapshotPool, PoolFailure>> {
    let addresses: Vec<TonAddress> = batch.iter().map(|(a, _)| a.clone()).collect();
    let states = match tc.account_states(&addresses).await {
        Ok(states) => states,
        Err(e) => {
            let shared = Arc::new(e);
            return batch
                .into_iter()
                .map(|(_, pool)| Err(failure(&pool, PoolReadError::Batch { source: shared.clone() })))
                .collect();
        }
    };
    let by_address: HashMap<TonAddress, _> = states.into_iter().map(|s| (s.address.clone(), s)).collect();
    batch
        .into_iter()
        .map(|(address, mut pool)| {
            let Some(state) = by_address.get(&address) else {
                return Err(failure(&pool, PoolReadError::Inactive { status: "missing from the answer".to_string() }));
            };
            let Some(data) = state.data.as_ref().filter(|_| state.status == "active" || state.status.is_empty()) else {
                return Err(failure(&pool, PoolReadError::Inactive { status: state.status.clone() }));
            };
            let Some(kind) = v2_type(&pool.curve) else {
                return Err(failure(
                    &pool,
                    PoolReadError::Unsupported { protocol: pool.protocol.clone(), curve: pool.curve.clone() },
                ));
            };
            let decoded =
                dex_b::v2_pool_storage(data, kind).map_err(|source| failure(&pool, PoolReadError::State { source }))?;
            crate::import::chain::dex_b_v2(&mut pool, &decoded).map_err(|e| failure(&pool, e))?;
            Ok(pool)
        })
        .collect()
}

async fn read_one(
    tc: &Toncenter,
    address: &TonAddress,
    mut pool: SnapshotPool,
    ctx: &Context,
) -> Result<SnapshotPool, PoolFailure> {
    let state = |source| failure(&pool, PoolReadError::State { source });
    match pool.protocol.as_str() {
        "dex_b_v1" => {
            let r = tc.run_get_method(address, "get_pool_data", Vec::new()).await.map_err(|e| failure(&pool, e))?;
            let data = dex_b::v1_pool_data(&r.stack).map_err(state)?;
            crate::import::chain::dex_b_v1(&mut pool, &data).map_err(|e| failure(&pool, e))?;
        }
        "dex_a" => {
            let r = tc.run_get_method(address, "get_reserves", Vec::new()).await.map_err(|e| failure(&pool, e))?;
            let reserves = dex_a::reserves(&r.stack).map_err(state)?;
            let r = tc.run_get_method(address, "get_trade_fee", Vec::new()).await.map_err(|e| failure(&pool, e))?;
            let fee = dex_a::trade_fee(&r.stack).map_err(|source| failure(&pool, PoolReadError::State { source }))?;
            crate::import::chain::dex_a(&mut pool, reserves, fee).map_err(|e| failure(&pool, e))?;
        }
        "dex_c" => {
            let r = tc
                .run_get_method(address, "getPoolStateAndConfiguration", Vec::new())
                .await
                .map_err(|e| failure(&pool, e))?;
            let s = dex_c::pool_state(&r.stack).map_err(state)?;
            let r = tc.run_get_method(address, "getAllTickInfos", Vec::new()).await.map_err(|e| failure(&pool, e))?;
            let ticks = dex_c::all_ticks(&r.stack).map_err(|source| failure(&pool, PoolReadError::State { source }))?;
            crate::import::chain::dex_c(&mut pool, &s, &ticks, ctx).map_err(|e| failure(&pool, e))?;
        }
        _ => {
            return Err(failure(
                &pool,
                PoolReadError::Unsupported { protocol: pool.protocol.clone(), curve: pool.curve.clone() },
            ))
        }
    }
    Ok(pool)
}
