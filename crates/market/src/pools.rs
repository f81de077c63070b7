//! The pool operations of [`MarketView`]: the listing in asset-pair rows, one pair's pools, one pool, and the
//! summary over pools.
//!
//! Owns the Pool answer (fees, LP supply, APRs, rewards), the grouping into rows (by unordered asset pair; row
//! figures are sums, APRs TVL-weighted), and the pools' sort keys; the queries arrive valid. `total_supply` is the
//! LP supply the pool's liquidity events give (`market::providers::LpLedger`: LP minted − burned, plus the locked
//! 1,001 when the creating join is stored, then also `locked_liquidity`); a pool whose events carry no LP amount
//! keeps the estimate `isqrt(r0·r1)` of its reserves now.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use primitive_types::U256;

use super::replay::view::MarketView;
use super::units::{friendly, whole};
use crate::limits::{ROW_POOLS_LIMIT, VERIFIED_LEVEL};
use crate::liquidity::LOCKED_LP;
use crate::money::Money;
use crate::providers::LpLedger;
use crate::query::{AssetPair, Page, PairPoolsQuery, PoolFilter, PoolQuery, PoolSummaryQuery, PoolsQuery};
use crate::types::*;
use tonroute_core::graph::{AssetId, PoolId};
use tonroute_core::pool::{Curve, FeeModel};

/// The liquidity type of a pool's curve: `cpmm_v1` for `dex_b_v1` constant product, `stable` for the
/// stable-swap curves, `concentrated` for `dex_c`, `cpmm_v2` for the other constant-product pools.
pub fn pool_kind(curve: &Curve) -> PoolKind {
    match curve {
        Curve::ConstantProduct(c) if c.fee_model == FeeModel::V1 => PoolKind::CpmmV1,
        Curve::StableSwap(_) | Curve::DexAStable(_) | Curve::WeightedStableSwap(_) => PoolKind::Stable,
        Curve::Concentrated(_) => PoolKind::Concentrated,
        _ => PoolKind::CpmmV2,
    }
}

/// A curve's `(lp_fee, protocol_fee)` in 1/10000 of the input: the LP fee is the part of a trade's input left in
/// the pool for its providers (`dex_a` volatile: the whole trade fee; a concentrated pool: its LP fee, the
/// protocol's share being part of it).
pub fn fees_of(curve: &Curve) -> (u32, u32) {
    match curve {
        Curve::ConstantProduct(c) => (u32::from(c.lp_fee), u32::from(c.protocol_fee)),
        Curve::StableSwap(c) => (u32::from(c.lp_fee), u32::from(c.protocol_fee)),
        Curve::DexAVolatile(c) => (u32::from(c.fee_bps), 0),
        Curve::DexAStable(c) => (u32::from(c.fee_bps), 0),
        Curve::WeightedConstantProduct(c) => (u32::from(c.lp_fee), u32::from(c.protocol_fee)),
        Curve::WeightedStableSwap(c) => (u32::from(c.lp_fee), u32::from(c.protocol_fee)),
        // The protocol's part of a concentrated pool's fee is a share of the LP fee, not on top of it.
        Curve::Concentrated(c) => (u32::from(c.lp_fee()), 0),
        // Curve is non-exhaustive: a curve added later reports its total fee as LP fee until mapped here.
        #[allow(unreachable_patterns)]
        other => (other.total_fee_bps(), 0),
    }
}

/// The sort figures of a pool or row.
#[derive(Debug, Clone, Copy, Default)]
struct Figures {
    tvl: Money,
    volume: Money,
    fees: Money,
    apr_fees: f64,
    apr_rewards: f64,
    value: f64,
    rewards: f64,
}

impl Figures {
    fn key(&self, by: PoolSortBy) -> f64 {
        match by {
            PoolSortBy::Volume24h => self.volume.to_f64(),
            PoolSortBy::Tvl => self.tvl.to_f64(),
            PoolSortBy::Fees24h => self.fees.to_f64(),
            PoolSortBy::Apr => self.apr_fees + self.apr_rewards,
            PoolSortBy::BaseApr => self.apr_fees,
            PoolSortBy::BoostApr => self.apr_rewards,
            PoolSortBy::ValueUsd => self.value,
            PoolSortBy::RewardsTotalUsd => self.rewards,
        }
    }
}

fn cmp_key(a: f64, b: f64, dir: SortDirection) -> Ordering {
    match dir {
        SortDirection::Asc => a.total_cmp(&b),
        SortDirection::Desc => b.total_cmp(&a),
    }
}

fn figures(view: &MarketView, id: PoolId) -> Figures {
    let s = view.pool_stats(id);
    Figures {
        tvl: s.tvl_usd,
        volume: s.volume_24h_usd,
        fees: s.fees_24h_usd,
        apr_fees: s.apr_fees,
        apr_rewards: s.apr_rewards,
        // A pool listing does not join positions (`/wallets/{address}/liquidity_positions/…` serves them,
        // `market::positions`): with a wallet, its position value and rewards here stay zero.
        value: 0.0,
        rewards: 0.0,
    }
}

fn pool_matches(view: &MarketView, id: PoolId, f: &PoolFilter) -> bool {
    let meta = view.data().graph.pool(id);
    f.kinds().is_none_or(|k| k.contains(&pool_kind(&meta.curve)))
        && f.pool_addresses().is_none_or(|a| a.contains(&meta.address))
        && (!f.boosted() || !view.pool_stats(id).rewards_list().is_empty())
}

fn sorted(view: &MarketView, mut ids: Vec<PoolId>, f: &PoolFilter) -> Vec<PoolId> {
    ids.sort_by(|a, b| {
        cmp_key(figures(view, *a).key(f.sort_by()), figures(view, *b).key(f.sort_by()), f.direction())
            .then(a.0.cmp(&b.0))
    });
    ids
}

fn asset_name(view: &MarketView, a: AssetId) -> String {
    view.data().graph.asset(a).asset.to_string()
}

/// The Pool resource of `id`, with position fields when a wallet is given.
fn pool_resource(view: &MarketView, id: PoolId, wallet: bool) -> Pool {
    let data = view.data();
    let g = &data.graph;
    let meta = g.pool(id);
    let s = view.pool_stats(id);
    let (lp, protocol) = fees_of(&meta.curve);
    // The LP supply the pool's liquidity events give (the same supply providers' and positions' shares divide
    // by); a pool whose events carry no LP amount has only an estimate: isqrt(r0·r1) at today's reserves.
    let mut ledger = LpLedger::default();
    for e in view.pool_liquidity(id) {
        ledger.apply(e);
    }
    let supply = if ledger.carries_lp() {
        ledger.supply()
    } else {
        let estimate = (U256::from(s.reserves[0]) * U256::from(s.reserves[1])).integer_sqrt();
        u128::try_from(estimate).unwrap_or(u128::MAX)
    };
    let verified = meta.assets.iter().all(|a| {
        data.coin_index
            .get(&g.asset(*a).asset)
            .is_some_and(|&i| data.coins[i].record.verification_level >= VERIFIED_LEVEL)
    });
    let rewards: Vec<PoolReward> = s
        .rewards_list()
        .iter()
        .map(|&ri| {
            let r = &data.rewards[ri];
            let dec = g.asset(r.asset).decimals;
            let usd = view.usd_price(r.asset);
            PoolReward {
                reward_index: r.record.reward_index,
                asset: asset_name(view, r.asset),
                tokens_per_day: LargeInteger::from(r.tokens_per_day),
                tokens_per_day_usd: LargeFloat::from_f64(whole(r.tokens_per_day, dec) * usd),
                remaining_budget: LargeFloat::from_f64(whole(r.remaining_budget, dec)),
                remaining_budget_usd: LargeFloat::from_f64(whole(r.remaining_budget, dec) * usd),
                end_date: r.record.end_date,
            }
        })
        .collect();
    let assets: Vec<String> = meta.assets.iter().map(|a| asset_name(view, *a)).collect();
    Pool {
        address: friendly(&meta.address),
        kind: pool_kind(&meta.curve).as_str().to_string(),
        dex: meta.protocol.slug().to_string(),
        total_supply: LargeInteger::from(supply),
        trade_fee: LargeInteger::from(u64::from(lp + protocol)),
        lp_fee: LargeInteger::from(u64::from(lp)),
        creator_fee: LargeInteger::from(0u64),
        protocol_fee: LargeInteger::from(u64::from(protocol)),
        assets: assets.clone(),
        reserves: s.reserves.iter().map(|r| LargeInteger::from(*r)).collect(),
        fees: s.protocol_fees().iter().map(|r| LargeInteger::from(*r)).collect(),
        fee_in_assets: assets,
        volume: s.volume_units().iter().map(|r| LargeInteger::from(*r)).collect(),
        tvl_usd: s.tvl_usd.to_large_float(),
        volume_24h_usd: s.volume_24h_usd.to_large_float(),
        fees_24h_usd: s.fees_24h_usd.to_large_float(),
        apr_fees: LargeFloat::from_f64(s.apr_fees),
        apr_rewards: LargeFloat::from_f64(s.apr_rewards),
        apr: LargeFloat::from_f64(s.apr_fees + s.apr_rewards),
        verified,
        last_activity_at: s.last_activity().and_then(DateTime::from_unix),
        locked_liquidity: ledger.has_creation().then(|| LargeInteger::from(LOCKED_LP)),
        reward_assets: (!rewards.is_empty()).then(|| rewards.iter().map(|r| r.asset.clone()).collect()),
        rewards: (!rewards.is_empty()).then_some(rewards),
        rewards_total_usd: wallet.then(LargeFloat::zero),
        value_usd: wallet.then(LargeFloat::zero),
    }
}

fn assets_metadata<'a>(view: &MarketView, pools: impl Iterator<Item = &'a PoolId>) -> BTreeMap<String, CoinMetadata> {
    let g = &view.data().graph;
    let mut out = BTreeMap::new();
    for id in pools {
        for a in g.pool(*id).assets {
            out.entry(asset_name(view, a)).or_insert_with(|| view.metadata_of(a));
        }
    }
    out
}

/// `/pools`: rows of the pools passing the filter, grouped by asset pair; rows holding a priority asset
/// first, then by the rows' sort figure; one page of rows, each with one page of its pools.
pub fn pools(view: &MarketView, q: &PoolsQuery) -> PoolsResponse {
    let f = &q.filter;
    let g = &view.data().graph;
    let mut rows: BTreeMap<AssetPair, Vec<PoolId>> = BTreeMap::new();
    for i in 0..g.pool_count() {
        let id = PoolId(u32::try_from(i).unwrap_or(u32::MAX));
        let meta = g.pool(id);
        let (a, b) = (g.asset(meta.assets[0]).asset, g.asset(meta.assets[1]).asset);
        if q.include_assets.as_ref().is_some_and(|inc| !inc.contains(&a) && !inc.contains(&b))
            || !pool_matches(view, id, f)
        {
            continue;
        }
        rows.entry(AssetPair::ordered(a, b)).or_default().push(id);
    }
    let mut rows: Vec<(AssetPair, Vec<PoolId>, Figures)> = rows
        .into_iter()
        .map(|(k, ids)| {
            let mut fig = Figures::default();
            for id in &ids {
                let x = figures(view, *id);
                fig.tvl += x.tvl;
                fig.volume += x.volume;
                fig.fees += x.fees;
                fig.apr_fees += x.apr_fees * x.tvl.to_f64();
                fig.apr_rewards += x.apr_rewards * x.tvl.to_f64();
            }
            if fig.tvl > Money::ZERO {
                fig.apr_fees /= fig.tvl.to_f64();
                fig.apr_rewards /= fig.tvl.to_f64();
            }
            (k, sorted(view, ids, f), fig)
        })
        .collect();
    let prioritised =
        |k: &AssetPair| q.priority_assets.as_ref().is_some_and(|p| k.assets().iter().any(|a| p.contains(a)));
    rows.sort_by(|a, b| {
        prioritised(&b.0)
            .cmp(&prioritised(&a.0))
            .then(cmp_key(a.2.key(f.sort_by()), b.2.key(f.sort_by()), f.direction()))
            .then(a.0.cmp(&b.0))
    });
    let total = rows.len();
    let rows = q.page.of(&rows);
    let mut shown = Vec::new();
    let pool_rows = rows
        .iter()
        .map(|(k, ids, fig)| {
            let row_page = q.row_pages.get(k).copied().unwrap_or(Page::first(ROW_POOLS_LIMIT));
            let pools = row_page.of(ids);
            shown.extend(pools.iter().copied());
            PoolsRow {
                assets: k.assets().map(|a| a.to_string()),
                tvl_usd: fig.tvl.to_large_float(),
                volume_24h_usd: fig.volume.to_large_float(),
                fees_24h_usd: fig.fees.to_large_float(),
                apr_fees: LargeFloat::from_f64(fig.apr_fees),
                apr_rewards: LargeFloat::from_f64(fig.apr_rewards),
                apr: LargeFloat::from_f64(fig.apr_fees + fig.apr_rewards),
                pools: pools.iter().map(|id| pool_resource(view, *id, f.wallet().is_some())).collect(),
                pools_offset: row_page.offset.get(),
                pools_limit: row_page.limit.get(),
                total_pools: count(ids.len()),
            }
        })
        .collect();
    PoolsResponse { pool_rows, assets_metadata: assets_metadata(view, shown.iter()), total_count: count(total) }
}

/// `/pools/pair`: one page of the pools of a pair passing the filter.
pub fn pair_pools(view: &MarketView, q: &PairPoolsQuery) -> PairPoolsResponse {
    let g = &view.data().graph;
    let ids: Vec<PoolId> = (0..g.pool_count())
        .map(|i| PoolId(u32::try_from(i).unwrap_or(u32::MAX)))
        .filter(|id| {
            let m = g.pool(*id);
            AssetPair::ordered(g.asset(m.assets[0]).asset, g.asset(m.assets[1]).asset) == q.pair
                && pool_matches(view, *id, &q.filter)
        })
        .collect();
    let ids = sorted(view, ids, &q.filter);
    let shown = q.page.of(&ids);
    PairPoolsResponse {
        pools: shown.iter().map(|id| pool_resource(view, *id, q.filter.wallet().is_some())).collect(),
        assets_metadata: assets_metadata(view, shown.iter()),
        total_count: count(ids.len()),
    }
}

/// `/pools/{address}`: the pool, `None` when there is no such pool.
pub fn pool(view: &MarketView, q: &PoolQuery) -> Option<PoolResponse> {
    let id = view.data().graph.pool_id(&q.address)?;
    Some(PoolResponse {
        pool: pool_resource(view, id, q.wallet.is_some()),
        assets_metadata: assets_metadata(view, [id].iter()),
    })
}

/// `/pools/summary`: TVL, 24 h volume and fees summed over all pools, or over those holding any of
/// `include_assets`.
pub fn pool_summary(view: &MarketView, q: &PoolSummaryQuery) -> PoolSummaryResponse {
    let g = &view.data().graph;
    let (mut tvl, mut vol, mut fees) = (Money::ZERO, Money::ZERO, Money::ZERO);
    for i in 0..g.pool_count() {
        let id = PoolId(u32::try_from(i).unwrap_or(u32::MAX));
        let m = g.pool(id);
        if q.include_assets.as_ref().is_some_and(|inc| !m.assets.iter().any(|a| inc.contains(&g.asset(*a).asset))) {
            continue;
        }
        let s = view.pool_stats(id);
        tvl += s.tvl_usd;
        vol += s.volume_24h_usd;
        fees += s.fees_24h_usd;
    }
    PoolSummaryResponse {
        total_value_locked_usd: tvl.to_large_float(),
        volume_24h_usd: vol.to_large_float(),
        fees_24h_usd: fees.to_large_float(),
    }
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}
