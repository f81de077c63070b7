//! Pool listing, pair pools, single pool and pool summary over a [`MarketView`], and the four affiliate
//! operations. Pure functions like the rest of `query`.
//!
//! Owns the grouping into asset-pair rows, the sort keys and pagination of pools, and referral volumes.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use primitive_types::U256;
use tonlib_core::TonAddress;

use super::data::{is_account_id, whole, Affiliate};
use super::params::{check_range, parse_address, parse_asset, Params};
use super::query::{friendly, friendly_wallet, MarketView};
use super::types::*;
use crate::api::{ApiError, ErrorCode};
use crate::asset::Asset;
use crate::graph::{AssetId, PoolId};
use crate::pool::{Curve, FeeModel};

/// The liquidity type of a pool: `cpmm_v1` (`dex_b_v1` constant product), `cpmm_v2` (other constant-product
/// pools), `stable`, and `concentrated` (`dex_c` ticks and ranges; the spec's list of three has no name for
/// it, and calling it constant product would be wrong).
pub fn liquidity_type(curve: &Curve) -> &'static str {
    match curve {
        Curve::ConstantProduct(c) if c.fee_model == FeeModel::V1 => "cpmm_v1",
        Curve::StableSwap(_) | Curve::DexAStable(_) | Curve::WeightedStableSwap(_) => "stable",
        Curve::Concentrated(_) => "concentrated",
        _ => "cpmm_v2",
    }
}

fn fees_of(curve: &Curve) -> (u32, u32) {
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

fn bad_body(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::MarketBadBody, format!("request body: {e}"))
}

/// Checked filters shared by the pool operations.
struct PoolFilter {
    types: Option<Vec<&'static str>>,
    pool_addresses: Option<Vec<TonAddress>>,
    boosted: bool,
    wallet: Option<TonAddress>,
    sort_by: PoolSortBy,
    dir: SortDirection,
}

fn pool_filter(
    filter_by_type: &Option<Vec<String>>,
    pool_addresses: &Option<Vec<String>>,
    tags: &Option<Vec<String>>,
    wallet_address: &Option<String>,
    sort_by: Option<PoolSortBy>,
    sort_direction: Option<SortDirection>,
) -> Result<PoolFilter, ApiError> {
    let types = match filter_by_type {
        None => None,
        Some(v) => Some(
            v.iter()
                .map(|t| match t.to_ascii_lowercase().as_str() {
                    "cpmm_v1" => Ok("cpmm_v1"),
                    "cpmm_v2" => Ok("cpmm_v2"),
                    "stable" => Ok("stable"),
                    "concentrated" => Ok("concentrated"),
                    _ => Err(ApiError::new(
                        ErrorCode::MarketValueOutOfRange,
                        format!("`filter_by_type`: `{t}` is not cpmm_v1, cpmm_v2, stable or concentrated"),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    let pool_addresses = match pool_addresses {
        None => None,
        Some(v) => Some(v.iter().map(|a| parse_address("pool_addresses", a)).collect::<Result<Vec<_>, _>>()?),
    };
    let mut boosted = false;
    for t in tags.iter().flatten() {
        if t == "boosted" {
            boosted = true;
        } else {
            return Err(ApiError::new(
                ErrorCode::MarketValueOutOfRange,
                format!("`tags`: `{t}` is not supported (supported: boosted)"),
            ));
        }
    }
    let wallet = match wallet_address {
        None => None,
        Some(w) => Some(parse_address("wallet_address", w)?),
    };
    let sort_by = sort_by.unwrap_or(PoolSortBy::Volume24h);
    if matches!(sort_by, PoolSortBy::ValueUsd | PoolSortBy::RewardsTotalUsd) && wallet.is_none() {
        return Err(ApiError::new(
            ErrorCode::MarketWalletRequired,
            format!("sorting by {sort_by} needs `wallet_address`"),
        ));
    }
    Ok(PoolFilter {
        types,
        pool_addresses,
        boosted,
        wallet,
        sort_by,
        dir: sort_direction.unwrap_or(SortDirection::Desc),
    })
}

fn assets_list(name: &str, v: &Option<Vec<String>>) -> Result<Option<Vec<Asset>>, ApiError> {
    match v {
        None => Ok(None),
        Some(items) => items.iter().map(|s| parse_asset(name, s)).collect::<Result<Vec<_>, _>>().map(Some),
    }
}

fn pair(name: &str, v: &[String]) -> Result<[Asset; 2], ApiError> {
    if v.len() != 2 {
        return Err(ApiError::new(
            ErrorCode::MarketPairSize,
            format!("`{name}` must have exactly 2 assets, not {}", v.len()),
        ));
    }
    let a = parse_asset(name, &v[0])?;
    let b = parse_asset(name, &v[1])?;
    if a == b {
        return Err(ApiError::new(ErrorCode::MarketValueOutOfRange, format!("`{name}`: the two assets are equal")));
    }
    Ok(if a <= b { [a, b] } else { [b, a] })
}

fn opt_range(name: &'static str, v: Option<i32>, default: i32, min: i32, max: i32) -> Result<i32, ApiError> {
    let n = v.unwrap_or(default);
    check_range(name, n, min, max)?;
    Ok(n)
}

fn page<T: Clone>(items: &[T], offset: i32, limit: i32) -> Vec<T> {
    // Both were range-checked as non-negative.
    let start = usize::try_from(offset).unwrap_or(usize::MAX).min(items.len());
    let end = start.saturating_add(usize::try_from(limit).unwrap_or(0)).min(items.len());
    items[start..end].to_vec()
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The sort figures of a pool or row.
#[derive(Debug, Clone, Copy, Default)]
struct Figures {
    tvl: f64,
    volume: f64,
    fees: f64,
    apr_fees: f64,
    apr_rewards: f64,
    value: f64,
    rewards: f64,
}

impl Figures {
    fn key(&self, by: PoolSortBy) -> f64 {
        match by {
            PoolSortBy::Volume24h => self.volume,
            PoolSortBy::Tvl => self.tvl,
            PoolSortBy::Fees24h => self.fees,
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

impl MarketView {
    fn figures(&self, id: PoolId) -> Figures {
        let s = self.pool_stats(id);
        Figures {
            tvl: s.tvl_usd,
            volume: s.volume_24h_usd,
            fees: s.fees_24h_usd,
            apr_fees: s.apr_fees,
            apr_rewards: s.apr_rewards,
            // No liquidity positions are in the data: a wallet's position value and rewards are zero.
            value: 0.0,
            rewards: 0.0,
        }
    }

    fn pool_matches(&self, id: PoolId, f: &PoolFilter) -> bool {
        let meta = self.data().graph.pool(id);
        f.types.as_ref().is_none_or(|t| t.contains(&liquidity_type(&meta.curve)))
            && f.pool_addresses.as_ref().is_none_or(|a| a.contains(&meta.address))
            && (!f.boosted || !self.pool_stats(id).rewards_list().is_empty())
    }

    fn sorted(&self, mut ids: Vec<PoolId>, f: &PoolFilter) -> Vec<PoolId> {
        ids.sort_by(|a, b| {
            cmp_key(self.figures(*a).key(f.sort_by), self.figures(*b).key(f.sort_by), f.dir).then(a.0.cmp(&b.0))
        });
        ids
    }

    fn asset_name(&self, a: AssetId) -> String {
        self.data().graph.asset(a).asset.to_string()
    }

    /// The Pool resource of `id`, with position fields when a wallet is given.
    pub fn pool_resource(&self, id: PoolId, wallet: bool) -> Pool {
        let data = self.data();
        let g = &data.graph;
        let meta = g.pool(id);
        let s = self.pool_stats(id);
        let (lp, protocol) = fees_of(&meta.curve);
        let supply = (U256::from(s.reserves[0]) * U256::from(s.reserves[1])).integer_sqrt();
        let supply = u128::try_from(supply).unwrap_or(u128::MAX);
        let verified = meta.assets.iter().all(|a| {
            data.coin_index.get(&g.asset(*a).asset).is_some_and(|&i| data.coins[i].record.verification_level >= 3)
        });
        let rewards: Vec<PoolReward> = s
            .rewards_list()
            .iter()
            .map(|&ri| {
                let r = &data.rewards[ri];
                let dec = g.asset(r.asset).decimals;
                let usd = self.usd_price(r.asset);
                PoolReward {
                    reward_index: r.record.reward_index,
                    asset: self.asset_name(r.asset),
                    tokens_per_day: LargeInteger::from(r.tokens_per_day),
                    tokens_per_day_usd: LargeFloat::from_f64(whole(r.tokens_per_day, dec) * usd),
                    remaining_budget: LargeFloat::from_f64(whole(r.remaining_budget, dec)),
                    remaining_budget_usd: LargeFloat::from_f64(whole(r.remaining_budget, dec) * usd),
                    end_date: r.record.end_date,
                }
            })
            .collect();
        let assets: Vec<String> = meta.assets.iter().map(|a| self.asset_name(*a)).collect();
        Pool {
            address: friendly(&meta.address),
            kind: liquidity_type(&meta.curve).to_string(),
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
            tvl_usd: LargeFloat::from_f64(s.tvl_usd),
            volume_24h_usd: LargeFloat::from_f64(s.volume_24h_usd),
            fees_24h_usd: LargeFloat::from_f64(s.fees_24h_usd),
            apr_fees: LargeFloat::from_f64(s.apr_fees),
            apr_rewards: LargeFloat::from_f64(s.apr_rewards),
            apr: LargeFloat::from_f64(s.apr_fees + s.apr_rewards),
            verified,
            last_activity_at: s.last_activity().and_then(DateTime::from_unix),
            locked_liquidity: None,
            reward_assets: (!rewards.is_empty()).then(|| rewards.iter().map(|r| r.asset.clone()).collect()),
            rewards: (!rewards.is_empty()).then_some(rewards),
            rewards_total_usd: wallet.then(LargeFloat::zero),
            value_usd: wallet.then(LargeFloat::zero),
        }
    }

    fn assets_metadata<'a>(&self, pools: impl Iterator<Item = &'a PoolId>) -> BTreeMap<String, CoinMetadata> {
        let g = &self.data().graph;
        let mut out = BTreeMap::new();
        for id in pools {
            for a in g.pool(*id).assets {
                out.entry(self.asset_name(a)).or_insert_with(|| self.metadata_of(a));
            }
        }
        out
    }

    /// Pool listing (`GET /pools` with query parameters, or `POST /pools` with a GetPoolsRequest body).
    pub fn get_pools(&self, req: &GetPoolsRequest) -> Result<PoolsResponse, ApiError> {
        let f = pool_filter(
            &req.filter_by_type,
            &req.pool_addresses,
            &req.tags,
            &req.wallet_address,
            req.sort_by,
            req.sort_direction,
        )?;
        let limit = opt_range("limit", req.limit, 20, 1, 100)?;
        let offset = opt_range("offset", req.offset, 0, 0, i32::MAX)?;
        let priority = assets_list("filter_by_assets", &req.filter_by_assets)?;
        let include = assets_list("include_assets", &req.include_assets)?;
        let mut overrides: BTreeMap<[Asset; 2], (i32, i32)> = BTreeMap::new();
        for (k, o) in req.pair_pools.iter().flatten().enumerate() {
            let key = pair(&format!("pair_pools[{k}].assets"), &o.assets)?;
            let l = opt_range("limit", o.limit, 3, 1, 50)?;
            let off = opt_range("offset", o.offset, 0, 0, i32::MAX)?;
            overrides.insert(key, (l, off));
        }
        let g = &self.data().graph;
        let mut rows: BTreeMap<[Asset; 2], Vec<PoolId>> = BTreeMap::new();
        for i in 0..g.pool_count() {
            let id = PoolId(u32::try_from(i).unwrap_or(u32::MAX));
            let meta = g.pool(id);
            let (a, b) = (g.asset(meta.assets[0]).asset, g.asset(meta.assets[1]).asset);
            if include.as_ref().is_some_and(|inc| !inc.contains(&a) && !inc.contains(&b)) || !self.pool_matches(id, &f)
            {
                continue;
            }
            rows.entry(if a <= b { [a, b] } else { [b, a] }).or_default().push(id);
        }
        let mut rows: Vec<([Asset; 2], Vec<PoolId>, Figures)> = rows
            .into_iter()
            .map(|(k, ids)| {
                let mut fig = Figures::default();
                for id in &ids {
                    let x = self.figures(*id);
                    fig.tvl += x.tvl;
                    fig.volume += x.volume;
                    fig.fees += x.fees;
                    fig.apr_fees += x.apr_fees * x.tvl;
                    fig.apr_rewards += x.apr_rewards * x.tvl;
                }
                if fig.tvl > 0.0 {
                    fig.apr_fees /= fig.tvl;
                    fig.apr_rewards /= fig.tvl;
                }
                (k, self.sorted(ids, &f), fig)
            })
            .collect();
        let prioritised = |k: &[Asset; 2]| priority.as_ref().is_some_and(|p| k.iter().any(|a| p.contains(a)));
        rows.sort_by(|a, b| {
            prioritised(&b.0)
                .cmp(&prioritised(&a.0))
                .then(cmp_key(a.2.key(f.sort_by), b.2.key(f.sort_by), f.dir))
                .then(a.0.cmp(&b.0))
        });
        let total = rows.len();
        let rows = page(&rows, offset, limit);
        let mut shown = Vec::new();
        let pool_rows = rows
            .iter()
            .map(|(k, ids, fig)| {
                let (pl, po) = overrides.get(k).copied().unwrap_or((3, 0));
                let pools = page(ids, po, pl);
                shown.extend(pools.iter().copied());
                PoolsRow {
                    assets: [k[0].to_string(), k[1].to_string()],
                    tvl_usd: LargeFloat::from_f64(fig.tvl),
                    volume_24h_usd: LargeFloat::from_f64(fig.volume),
                    fees_24h_usd: LargeFloat::from_f64(fig.fees),
                    apr_fees: LargeFloat::from_f64(fig.apr_fees),
                    apr_rewards: LargeFloat::from_f64(fig.apr_rewards),
                    apr: LargeFloat::from_f64(fig.apr_fees + fig.apr_rewards),
                    pools: pools.iter().map(|id| self.pool_resource(*id, f.wallet.is_some())).collect(),
                    pools_offset: po,
                    pools_limit: pl,
                    total_pools: count(ids.len()),
                }
            })
            .collect();
        Ok(PoolsResponse { pool_rows, assets_metadata: self.assets_metadata(shown.iter()), total_count: count(total) })
    }

    /// Pair pools.
    pub fn get_pair_pools(&self, req: &GetPairPoolsRequest) -> Result<PairPoolsResponse, ApiError> {
        let key = pair("assets", &req.assets)?;
        let f = pool_filter(
            &req.filter_by_type,
            &req.pool_addresses,
            &req.tags,
            &req.wallet_address,
            req.sort_by,
            req.sort_direction,
        )?;
        let limit = opt_range("limit", req.limit, 20, 1, 100)?;
        let offset = opt_range("offset", req.offset, 0, 0, i32::MAX)?;
        let g = &self.data().graph;
        let ids: Vec<PoolId> = (0..g.pool_count())
            .map(|i| PoolId(u32::try_from(i).unwrap_or(u32::MAX)))
            .filter(|id| {
                let m = g.pool(*id);
                let (a, b) = (g.asset(m.assets[0]).asset, g.asset(m.assets[1]).asset);
                (if a <= b { [a, b] } else { [b, a] }) == key && self.pool_matches(*id, &f)
            })
            .collect();
        let ids = self.sorted(ids, &f);
        let shown = page(&ids, offset, limit);
        Ok(PairPoolsResponse {
            pools: shown.iter().map(|id| self.pool_resource(*id, f.wallet.is_some())).collect(),
            assets_metadata: self.assets_metadata(shown.iter()),
            total_count: count(ids.len()),
        })
    }

    /// Single pool by address (404 when unknown).
    pub fn get_pool(&self, address: &str, wallet_address: Option<&str>) -> Result<PoolResponse, ApiError> {
        let addr = parse_address("address", address)?;
        let wallet = wallet_address.map(|w| parse_address("wallet_address", w)).transpose()?;
        let id = self
            .data()
            .graph
            .pool_id(&addr)
            .ok_or_else(|| ApiError::new(ErrorCode::MarketPoolNotFound, format!("pool {address} not found")))?;
        Ok(PoolResponse {
            pool: self.pool_resource(id, wallet.is_some()),
            assets_metadata: self.assets_metadata([id].iter()),
        })
    }

    /// Pool summary: totals over all pools, or over those containing any of `include_assets`.
    pub fn get_pool_summary(&self, req: &PoolSummaryRequest) -> Result<PoolSummaryResponse, ApiError> {
        let include = assets_list("include_assets", &req.include_assets)?;
        let g = &self.data().graph;
        let (mut tvl, mut vol, mut fees) = (0.0, 0.0, 0.0);
        for i in 0..g.pool_count() {
            let id = PoolId(u32::try_from(i).unwrap_or(u32::MAX));
            let m = g.pool(id);
            if include.as_ref().is_some_and(|inc| !m.assets.iter().any(|a| inc.contains(&g.asset(*a).asset))) {
                continue;
            }
            let s = self.pool_stats(id);
            tvl += s.tvl_usd;
            vol += s.volume_24h_usd;
            fees += s.fees_24h_usd;
        }
        Ok(PoolSummaryResponse {
            total_value_locked_usd: LargeFloat::from_f64(tvl),
            volume_24h_usd: LargeFloat::from_f64(vol),
            fees_24h_usd: LargeFloat::from_f64(fees),
        })
    }
}

/// A comma-separated list parameter as owned strings.
fn list(p: &mut Params<'_>, name: &'static str) -> Result<Option<Vec<String>>, ApiError> {
    Ok(p.list(name)?.map(|v| v.into_iter().map(str::to_string).collect()))
}

/// The pool operations' `sort_by` parameter.
fn sort_by(p: &mut Params<'_>) -> Result<Option<PoolSortBy>, ApiError> {
    p.enumeration(
        "sort_by",
        PoolSortBy::parse,
        "volume_24h, tvl, fees_24h, apr, base_apr, boost_apr, value_usd, rewards_total_usd",
    )
}

/// The pool operations' `sort_direction` parameter.
fn sort_direction(p: &mut Params<'_>) -> Result<Option<SortDirection>, ApiError> {
    p.enumeration("sort_direction", SortDirection::parse, "asc, desc")
}

/// GetPoolsRequest from query parameters: lists comma-separated, `pair_pools` as JSON text.
pub fn pools_request_from_query(pairs: &[(String, String)]) -> Result<GetPoolsRequest, ApiError> {
    let mut p = Params::new(pairs)?;
    let req =
        GetPoolsRequest {
            filter_by_assets: list(&mut p, "filter_by_assets")?,
            filter_by_type: list(&mut p, "filter_by_type")?,
            include_assets: list(&mut p, "include_assets")?,
            limit: opt_int(&mut p, "limit")?,
            offset: opt_int(&mut p, "offset")?,
            pair_pools: match p.text("pair_pools") {
                None => None,
                Some(t) => Some(serde_json::from_str(t).map_err(|e| {
                    ApiError::new(ErrorCode::MarketBadParameter, format!("parameter `pair_pools`: {e}"))
                })?),
            },
            pool_addresses: list(&mut p, "pool_addresses")?,
            sort_by: sort_by(&mut p)?,
            sort_direction: sort_direction(&mut p)?,
            tags: list(&mut p, "tags")?,
            wallet_address: p.text("wallet_address").map(str::to_string),
        };
    p.finish()?;
    Ok(req)
}

/// GetPairPoolsRequest from query parameters (`assets` comma-separated).
pub fn pair_pools_request_from_query(pairs: &[(String, String)]) -> Result<GetPairPoolsRequest, ApiError> {
    let mut p = Params::new(pairs)?;
    let assets = p.required("assets")?.split(',').map(|s| s.trim().to_string()).collect();
    let req = GetPairPoolsRequest {
        assets,
        filter_by_type: list(&mut p, "filter_by_type")?,
        limit: opt_int(&mut p, "limit")?,
        offset: opt_int(&mut p, "offset")?,
        pool_addresses: list(&mut p, "pool_addresses")?,
        sort_by: sort_by(&mut p)?,
        sort_direction: sort_direction(&mut p)?,
        tags: list(&mut p, "tags")?,
        wallet_address: p.text("wallet_address").map(str::to_string),
    };
    p.finish()?;
    Ok(req)
}

/// PoolSummaryRequest from query parameters.
pub fn pool_summary_request_from_query(pairs: &[(String, String)]) -> Result<PoolSummaryRequest, ApiError> {
    let mut p = Params::new(pairs)?;
    let include_assets = p.list("include_assets")?.map(|v| v.into_iter().map(str::to_string).collect());
    p.finish()?;
    Ok(PoolSummaryRequest { include_assets })
}

/// A JSON request body of a pool operation.
pub fn pools_request_from_json<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    serde_json::from_slice(body).map_err(bad_body)
}

fn opt_int(p: &mut Params<'_>, name: &'static str) -> Result<Option<i32>, ApiError> {
    match p.text(name) {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| {
            ApiError::new(ErrorCode::MarketBadParameter, format!("parameter `{name}`: `{v}` is not an int32"))
        }),
    }
}

/// How a path names affiliate accounts.
enum AccountKey {
    Id(String),
    Controller(TonAddress),
}

fn account_key(text: &str) -> Option<AccountKey> {
    match crate::asset::parse_address(text) {
        Ok(a) => Some(AccountKey::Controller(a)),
        Err(_) if is_account_id(text) => Some(AccountKey::Id(text.to_string())),
        Err(_) => None,
    }
}

impl MarketView {
    fn accounts(&self, key: &AccountKey) -> Vec<&Affiliate> {
        self.data()
            .affiliates
            .iter()
            .filter(|a| match key {
                AccountKey::Id(id) => a.record.account_id == *id,
                AccountKey::Controller(c) => a.controller == *c || a.address == *c,
            })
            .collect()
    }

    fn found(&self, text: &str, key: Option<AccountKey>) -> Result<Vec<&Affiliate>, ApiError> {
        let key = key.ok_or_else(|| {
            ApiError::new(
                ErrorCode::MarketBadAddress,
                format!("`{text}` is neither an address nor an affiliate account id"),
            )
        })?;
        let found = self.accounts(&key);
        if found.is_empty() {
            return Err(ApiError::new(ErrorCode::AffiliateNotFound, format!("no affiliate account `{text}`")));
        }
        Ok(found)
    }

    /// `GET /affiliate/accounts/{id_or_controller_address}` (no 400: text that names nothing is 404).
    pub fn get_affiliate_account(&self, id_or_controller: &str) -> Result<Vec<AffiliateAccount>, ApiError> {
        let accounts = match account_key(id_or_controller) {
            Some(k) => self.accounts(&k),
            None => Vec::new(),
        };
        if accounts.is_empty() {
            return Err(ApiError::new(
                ErrorCode::AffiliateNotFound,
                format!("no affiliate account `{id_or_controller}`"),
            ));
        }
        Ok(accounts
            .into_iter()
            .map(|a| {
                let r = &a.record;
                AffiliateAccount {
                    address: friendly(&a.address),
                    initialized: r.initialized,
                    program_address: friendly(&self.data().program_address),
                    account_type: r.account_type.clone(),
                    account_id: r.account_id.clone(),
                    account_id_hash: sha256_hex(&r.account_id),
                    account_fee: r.account_fee,
                    controller_address: friendly_wallet(&a.controller),
                    balance_for_claim: LargeInteger::new(r.balance_for_claim.clone())
                        .unwrap_or_else(|_| LargeInteger::from(0u64)),
                    balance_claimed: LargeInteger::new(r.balance_claimed.clone())
                        .unwrap_or_else(|_| LargeInteger::from(0u64)),
                }
            })
            .collect())
    }

    /// (volume TON, volume USD, trades) of a wallet over the view's trades.
    fn wallet_volume(&self, wallet: usize) -> (f64, f64, i64) {
        let mut v = (0.0, 0.0, 0);
        for t in self.trades().iter().filter(|t| t.trader == wallet) {
            v.0 += t.volume_ton();
            v.1 += t.volume_usd;
            v.2 += 1;
        }
        v
    }

    /// `GET /affiliate/accounts/{id_or_controller_address}/volume`.
    pub fn get_affiliate_account_volume(
        &self,
        id_or_controller: &str,
        pairs: &[(String, String)],
    ) -> Result<AffiliateAccountVolumeResponse, ApiError> {
        let mut p = Params::new(pairs)?;
        let wallet = p.address("wallet_address")?;
        p.finish()?;
        let accounts = self.found(id_or_controller, account_key(id_or_controller))?;
        let breakdown = |ton: f64, usd: f64| AffiliateVolumeBreakdown {
            volume_in_ton: LargeFloat::from_f64(ton),
            volume_in_usd: LargeFloat::from_f64(usd),
        };
        let accounts = accounts
            .into_iter()
            .map(|a| {
                let mut total = (0.0, 0.0);
                let referral_volumes = a
                    .referrals
                    .iter()
                    .map(|&w| {
                        let (ton, usd, _) = self.wallet_volume(w);
                        total.0 += ton;
                        total.1 += usd;
                        AffiliateReferralVolume {
                            wallet_address: friendly_wallet(&self.data().traders[w]),
                            volume: breakdown(ton, usd),
                        }
                    })
                    .collect();
                AffiliateAccountVolume {
                    affiliate_account_address: friendly(&a.address),
                    account_id: a.record.account_id.clone(),
                    controller_address: friendly_wallet(&a.controller),
                    referrals_total_volume: breakdown(total.0, total.1),
                    referral_volumes,
                }
            })
            .collect();
        let wallet_volume = wallet.map(|w| {
            let (ton, usd, n) = self.data().trader_index.get(&w).map_or((0.0, 0.0, 0), |&i| self.wallet_volume(i));
            AffiliateWalletVolume { wallet_address: friendly_wallet(&w), volume: breakdown(ton, usd), transactions: n }
        });
        Ok(AffiliateAccountVolumeResponse { accounts, wallet_volume })
    }

    /// `GET /affiliate/{account_id_or_controller_address}/referrals`.
    pub fn get_affiliate_referrals(&self, id_or_controller: &str) -> Result<AffiliateReferralsResponse, ApiError> {
        let accounts = self.found(id_or_controller, account_key(id_or_controller))?;
        let mut referrals = BTreeMap::new();
        let mut total = 0usize;
        for a in accounts {
            let wallets: Vec<String> = a.referrals.iter().map(|&w| friendly_wallet(&self.data().traders[w])).collect();
            total += wallets.len();
            referrals.insert(a.record.account_id.clone(), wallets);
        }
        Ok(AffiliateReferralsResponse { referrals, total_count: count(total) })
    }

    /// `GET /affiliate/{wallet_address}/referrer` (no 400: a malformed wallet has no referrer, 404).
    pub fn get_affiliate_referrer(&self, wallet: &str) -> Result<AffiliateAccountReferrer, ApiError> {
        let not_found = || ApiError::new(ErrorCode::ReferrerNotFound, format!("wallet `{wallet}` has no referrer"));
        let w = crate::asset::parse_address(wallet).map_err(|_| not_found())?;
        let i = *self.data().trader_index.get(&w).ok_or_else(not_found)?;
        let a = self.data().affiliates.iter().find(|a| a.referrals.contains(&i)).ok_or_else(not_found)?;
        Ok(AffiliateAccountReferrer { account_id: a.record.account_id.clone(), account_fee: a.record.account_fee })
    }
}

fn sha256_hex(s: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(s.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
