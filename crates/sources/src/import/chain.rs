//! Chain state onto snapshot pools: the decoded results of [`tonroute_core::chain`] (get-methods or account data)
//! written into an imported [`SnapshotPool`], which makes its reserves and fees current and, for STON.fi and
//! TONCO, fills the router and the router's jetton wallets that swap messages need (the HTTP APIs do not give
//! them).
//!
//! Each function checks that the state belongs to the pool (protocol, curve, asset order where the state
//! names the assets) and leaves the pool untouched on any error, so a refresh either applies whole or not at
//! all. The result passes [`SnapshotPool::validate`] or the pool is restored and the error returned.

use tonroute_core::chain::dex_a::TradeFee;
use tonroute_core::chain::dex_b::{PoolType, V1PoolData, V2Params, V2PoolData};
use tonroute_core::chain::dex_c::{PoolState, TickInfo};
use tonroute_core::graph::snapshot::{SnapshotPool, SnapshotTick};
use tonroute_core::graph::GraphError;

use super::Context;

/// Why chain state was not applied to a pool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UpdateError {
    /// The state is of another protocol or pool type than the pool.
    #[error("pool {pool} is {protocol}/{curve}; the state is of a {state}")]
    KindMismatch {
        /// The pool address.
        pool: String,
        /// Its protocol.
        protocol: String,
        /// Its curve.
        curve: String,
        /// What the state is of.
        state: &'static str,
    },
    /// The state names other assets (or another order) than the pool.
    #[error("pool {pool}: the state's {field} is {found}, the pool's is {expected}")]
    AssetMismatch {
        /// The pool address.
        pool: String,
        /// Which field.
        field: &'static str,
        /// The pool's asset.
        expected: String,
        /// The state's.
        found: String,
    },
    /// A fee the snapshot cannot hold exactly (DeDust fee not in whole basis points).
    #[error("pool {pool}: trade fee {numerator}/{denominator} is not a whole number of basis points")]
    Fee {
        /// The pool address.
        pool: String,
        /// Fee numerator.
        numerator: u64,
        /// Fee denominator.
        denominator: u64,
    },
    /// The updated pool does not validate (e.g. a fee above what the curve allows).
    #[error("{source}")]
    Invalid {
        /// Why.
        #[source]
        source: GraphError,
    },
}

fn kind_check(pool: &SnapshotPool, protocol: &str, curves: &[&str], state: &'static str) -> Result<(), UpdateError> {
    if pool.protocol != protocol || !curves.contains(&pool.curve.as_str()) {
        return Err(UpdateError::KindMismatch {
            pool: pool.address.clone(),
            protocol: pool.protocol.clone(),
            curve: pool.curve.clone(),
            state,
        });
    }
    Ok(())
}

/// Applies `change` to a copy, validates it, and only then replaces the pool.
fn commit(pool: &mut SnapshotPool, change: impl FnOnce(&mut SnapshotPool)) -> Result<(), UpdateError> {
    let mut next = pool.clone();
    change(&mut next);
    next.validate().map_err(|source| UpdateError::Invalid { source })?;
    *pool = next;
    Ok(())
}

/// A STON.fi v1 pool's `get_pool_data`: reserves, fees, router wallets.
pub fn dex_b_v1(pool: &mut SnapshotPool, d: &V1PoolData) -> Result<(), UpdateError> {
    kind_check(pool, "dex_b_v1", &["constant_product"], "STON.fi v1 pool")?;
    commit(pool, |p| {
        p.reserves = [d.reserve0.to_string(), d.reserve1.to_string()];
        (p.lp_fee, p.protocol_fee, p.ref_fee) = (d.lp_fee, d.protocol_fee, d.ref_fee);
        p.router_wallets = Some([d.token0_wallet.to_hex(), d.token1_wallet.to_hex()]);
    })
}

/// A STON.fi v2 pool's state (from `get_pool_data` or its storage): reserves, fees, the type's parameters,
/// router and router wallets. The pool's curve must be the state's type.
pub fn dex_b_v2(pool: &mut SnapshotPool, d: &V2PoolData) -> Result<(), UpdateError> {
    let curve = d.params.pool_type().snapshot_curve();
    let what = match d.params.pool_type() {
        PoolType::ConstantProduct => "STON.fi v2 constant_product pool",
        PoolType::StableSwap => "STON.fi v2 stableswap pool",
        PoolType::WeightedConstProduct => "STON.fi v2 weighted_const_product pool",
        PoolType::WeightedStableSwap => "STON.fi v2 weighted_stableswap pool",
    };
    kind_check(pool, "dex_b_v2", &[curve], what)?;
    commit(pool, |p| {
        p.reserves = [d.reserve0.to_string(), d.reserve1.to_string()];
        (p.lp_fee, p.protocol_fee, p.ref_fee) = (d.lp_fee, d.protocol_fee, 0);
        (p.amp, p.w0, p.rate) = match &d.params {
            V2Params::ConstantProduct => (None, None, None),
            V2Params::StableSwap { amp } => (Some(amp.to_string()), None, None),
            V2Params::WeightedConstProduct { w0 } => (None, Some(w0.to_string()), None),
            V2Params::WeightedStableSwap { amp, rate, w0, .. } => {
                (Some(amp.to_string()), Some(w0.to_string()), Some(rate.to_string()))
            }
        };
        p.router = Some(d.router.to_hex());
        p.router_wallets = Some([d.token0_wallet.to_hex(), d.token1_wallet.to_hex()]);
    })
}

/// A DeDust pool's `get_reserves` and `get_trade_fee`.
pub fn dex_a(pool: &mut SnapshotPool, reserves: [u128; 2], fee: TradeFee) -> Result<(), UpdateError> {
    kind_check(pool, "dex_a", &["constant_product", "stable_swap"], "DeDust pool")?;
    let bps = fee.bps().ok_or_else(|| UpdateError::Fee {
        pool: pool.address.clone(),
        numerator: fee.numerator,
        denominator: fee.denominator,
    })?;
    commit(pool, |p| {
        p.reserves = [reserves[0].to_string(), reserves[1].to_string()];
        p.lp_fee = bps;
    })
}

/// A TONCO pool's `getPoolStateAndConfiguration` and its initialized ticks (`getAllTickInfos`, or the pages of
/// `getTickInfosFrom` put together): state, current fee, ticks, router and router wallets. The state's
/// minters must be the pool's assets in order (a proxy-TON master standing for `native`, as `ctx` knows them).
pub fn dex_c(pool: &mut SnapshotPool, s: &PoolState, ticks: &[TickInfo], ctx: &Context) -> Result<(), UpdateError> {
    kind_check(pool, "dex_c", &["concentrated"], "TONCO pool")?;
    for (i, (field, minter)) in
        [("jetton0_minter", &s.jetton0_minter), ("jetton1_minter", &s.jetton1_minter)].into_iter().enumerate()
    {
        let found = ctx.asset(&minter.to_hex()).map(|a| a.to_string()).unwrap_or_else(|_| minter.to_hex());
        if found != pool.assets[i] {
            return Err(UpdateError::AssetMismatch {
                pool: pool.address.clone(),
                field,
                expected: pool.assets[i].clone(),
                found,
            });
        }
    }
    let mut ticks: Vec<SnapshotTick> = ticks
        .iter()
        .map(|t| SnapshotTick {
            tick: t.tick,
            liquidity_net: t.liquidity_net.to_string(),
            liquidity_gross: t.liquidity_gross.to_string(),
        })
        .collect();
    ticks.sort_by_key(|t| t.tick);
    commit(pool, |p| {
        p.reserves = [s.reserve0.to_string(), s.reserve1.to_string()];
        (p.lp_fee, p.protocol_fee) = (s.lp_fee_current, s.protocol_fee);
        p.concentrated.sqrt_price_x96 = Some(s.price_sqrt.to_string());
        p.concentrated.tick = Some(s.tick);
        p.concentrated.liquidity = Some(s.liquidity.to_string());
        p.concentrated.tick_spacing = Some(s.tick_spacing);
        p.concentrated.ticks = Some(ticks);
        p.router = Some(s.router.to_hex());
        p.router_wallets = Some([s.jetton0_wallet.to_hex(), s.jetton1_wallet.to_hex()]);
    })
}
