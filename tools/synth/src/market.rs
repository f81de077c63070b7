//! The deterministic generator of `data/market.json`: coins for every asset of a snapshot, trades on its
//! deepest pools simulated with the exact pool math (each trade runs on the reserves the previous ones left,
//! so prices move and stay consistent with the pools), reward programs and affiliate accounts.
//!
//! [`generate`] is a pure function of the snapshot and [`MarketGenConfig`]; integer amounts come from the pool
//! math, floats only choose trade sizes and pools. Addresses are `0:` + SHA-256 of a readable label, like the
//! snapshot generator's. Owns generation only; the file shape and its validation are in `tonroute::market::replay::data`.

use sha2::{Digest, Sha256};

use tonroute::asset::known::USDT;
use tonroute::asset::Asset;
use tonroute::graph::snapshot::Snapshot;
use tonroute::graph::PoolId;
use tonroute::market::liquidity::{is_constant_product, LiquidityKind, LiquidityRecord, LpBook};
use tonroute::market::replay::{
    usd_prices, whole, AffiliateRecord, CoinRecord, MarketFile, MemepadRecord, ReplayState, RewardRecord, TradeRecord,
};
use tonroute::market::types::DateTime;
use tonroute::market::MarketDataError;

use crate::snapshot::{raw, SplitMix64};

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MarketGenConfig {
    /// Seed.
    pub seed: u64,
    /// Number of trades.
    pub trades: usize,
    /// How many of the deepest pools trade.
    pub traded_pools: usize,
    /// End of the sample, Unix seconds.
    pub as_of: i64,
    /// Length of the sample in days.
    pub days: i64,
}

impl Default for MarketGenConfig {
    /// The bundled file's settings: seed 8, 6,000 trades on the 60 deepest pools over the 10 days up to
    /// 2024-11-21T12:00:00Z (the anchors' date).
    fn default() -> MarketGenConfig {
        MarketGenConfig { seed: 8, trades: 6_000, traded_pools: 60, as_of: 1_732_190_400, days: 10 }
    }
}

/// The `source` text of a generated file.
pub fn source_of(config: &MarketGenConfig) -> String {
    format!(
        "tonroute market generator v1 (tools/synth/src/market.rs): seed {} trades {} traded_pools {} as_of {} days {}; \
         regenerate with `cargo run --release --example gen_market -- --seed {} --trades {} --pools {}`",
        config.seed,
        config.trades,
        config.traded_pools,
        config.as_of,
        config.days,
        config.seed,
        config.trades,
        config.traded_pools
    )
}

fn hex(label: &str) -> String {
    Sha256::digest(label.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

fn date(secs: i64) -> Result<DateTime, MarketDataError> {
    DateTime::from_unix(secs).ok_or(MarketDataError::TimeOutOfRange { unix: secs })
}

const TAGS: [&str; 5] = ["defi", "gaming", "memecoin", "ai", "community"];
const AFFILIATE_IDS: [&str; 6] = ["ref_alpha", "ref_beta", "ref_gamma", "ref_delta", "ref_epsilon", "ref_zeta"];
const TRADERS: usize = 300;

/// Generates the market file for `snapshot`.
pub fn generate(snapshot: &Snapshot, config: &MarketGenConfig) -> Result<MarketFile, MarketDataError> {
    let graph = snapshot.into_graph()?;
    let mut rng = SplitMix64(config.seed ^ 0x6d61_726b_6574);
    let mut replay = ReplayState::new(&graph);
    let prices = usd_prices(&graph, &replay.reserves);
    let tvl = |i: usize| -> f64 {
        let p = &graph.pools()[i];
        let r = replay.reserves[i];
        whole(r[0], graph.asset(p.assets[0]).decimals) * prices[p.assets[0].index()]
            + whole(r[1], graph.asset(p.assets[1]).decimals) * prices[p.assets[1].index()]
    };
    let mut ranked: Vec<usize> = (0..graph.pool_count()).collect();
    ranked.sort_by(|a, b| tvl(*b).total_cmp(&tvl(*a)).then(a.cmp(b)));
    ranked.truncate(config.traded_pools.max(1));
    let traded_assets: std::collections::BTreeSet<usize> =
        ranked.iter().flat_map(|i| graph.pools()[*i].assets.iter().map(|a| a.index())).collect();

    let usdt = Asset::parse(USDT).ok();
    let start = config.as_of - config.days * 86_400;
    let mut coins = Vec::with_capacity(graph.asset_count());
    for (i, meta) in graph.assets().iter().enumerate() {
        let scale = 10u128.pow(u32::from(meta.decimals));
        let traded = traded_assets.contains(&i);
        let (total_whole, level, tags, created) = if meta.asset.is_native() {
            (5_100_000_000u128, 4, vec!["native".to_string()], 1_573_776_000)
        } else if Some(meta.asset) == usdt || meta.symbol.starts_with("sUSD") {
            (1_000_000_000u128, if Some(meta.asset) == usdt { 4 } else { 3 }, vec!["stablecoin".into()], 1_713_000_000)
        } else if meta.symbol == "NOT" {
            (102_701_033_769u128, 4, vec!["gaming".into(), "community".into()], 1_715_000_000)
        } else {
            let total = 10u128.pow(8 + u32::try_from(rng.below(3)).unwrap_or(0)) * (1 + u128::from(rng.below(9)));
            // Traded coins are mostly verified (levels 2..=4); the long tail spreads over 0..=4.
            let level = if traded { 2 + rng.below(3) } else { rng.below(5) };
            let mut tags = vec![TAGS[rng.index(TAGS.len())].to_string()];
            if rng.below(3) == 0 {
                let t = TAGS[rng.index(TAGS.len())].to_string();
                if !tags.contains(&t) {
                    tags.push(t);
                }
            }
            tags.sort();
            let age_days = i64::try_from(rng.below(900)).unwrap_or(0) + config.days + 1;
            (total, u8::try_from(level).unwrap_or(0), tags, config.as_of - age_days * 86_400)
        };
        let total = total_whole * scale;
        let circulating = total / 100 * (50 + u128::from(rng.below(51)));
        let memepad = if tags.iter().any(|t| t == "memecoin") && rng.below(2) == 0 {
            let max = 1_500u128 * 1_000_000_000;
            let done = rng.below(3) == 0;
            let collected = if done { max } else { max / 1000 * u128::from(rng.below(1000)) };
            Some(MemepadRecord {
                curve_ton_collected: collected.to_string(),
                curve_ton_max: max.to_string(),
                memepad: if i % 2 == 0 { "memepad_d".into() } else { "memepad_f".into() },
                contract_type: if i % 2 == 0 { "dex_d".into() } else { "dex_f".into() },
                migration_date: if done { Some(date(created + 86_400)?) } else { None },
            })
        } else {
            None
        };
        let holders = 10u64.pow(2 + u32::try_from(rng.below(4)).unwrap_or(0)) * (1 + rng.below(9));
        coins.push(CoinRecord {
            asset: meta.asset.to_string(),
            description: Some(format!("{} ({}), synthetic market data", meta.name, meta.symbol)),
            social_links: [("website".to_string(), format!("https://example.org/{}", meta.symbol.to_lowercase()))]
                .into_iter()
                .collect(),
            total_supply: total.to_string(),
            circulating_supply: circulating.to_string(),
            tags,
            verification_level: level,
            author: raw(&format!("tonroute synthetic author {}", i % 50)),
            created_at: date(created)?,
            holders,
            buy_tax: 0,
            sell_tax: if i % 17 == 5 { 5 } else { 0 },
            memepad,
        });
    }

    // Trade times: uniform over the window, sorted.
    let span = u64::try_from(config.days * 86_400).unwrap_or(1);
    let mut times: Vec<i64> =
        (0..config.trades).map(|_| start + i64::try_from(rng.below(span)).unwrap_or(0) + 1).collect();
    times.sort_unstable();
    let initial_ratio: Vec<f64> = replay.reserves.iter().map(|r| r[1] as f64 / (r[0] as f64).max(1.0)).collect();
    let native = graph.asset_id(&Asset::Native);
    let usdt_id = usdt.and_then(|u| graph.asset_id(&u));
    let cycles: Vec<(f64, f64, f64)> = graph
        .pools()
        .iter()
        .map(|p| {
            let ton_usd = p.assets.contains(&native.unwrap_or(tonroute::graph::AssetId(u32::MAX)))
                && p.assets.contains(&usdt_id.unwrap_or(tonroute::graph::AssetId(u32::MAX)));
            let amp = 0.02 + rng.below(130) as f64 / 1_000.0;
            let period = 1.0 + rng.below(50) as f64 / 10.0;
            let phase = rng.below(6_283) as f64 / 1_000.0;
            // TON/USD₮: ±4 % over 4 days, the same phase in every such pool; TON's sign depends on its side.
            if ton_usd {
                let sign = if Some(p.assets[0]) == native { 1.0 } else { -1.0 };
                (0.04 * sign, 4.0, 0.0)
            } else if p.curve.is_stable() {
                (0.002, period, phase)
            } else {
                (amp, period, phase)
            }
        })
        .collect();
    let mut trades = Vec::with_capacity(config.trades);
    for (n, time) in times.into_iter().enumerate() {
        // Deeper pools trade more often: rank r is picked with weight ~ 1/(r+1).
        let spread = rng.index(ranked.len()) + 1;
        let r = rng.index(spread);
        let pool = PoolId(u32::try_from(ranked[r]).unwrap_or(0));
        let meta = graph.pool(pool);
        // Each pool's price (reserve1/reserve0) follows its own slow cycle around its starting value (TON/USD₮
        // pools share one, so the TON price moves together everywhere); a trade pushes the price towards the
        // cycle's target with a probability that grows with the gap, standing in for arbitrage.
        let (amp, period_days, phase) = cycles[pool.index()];
        let target = amp * (std::f64::consts::TAU * ((time - start) as f64 / (period_days * 86_400.0)) + phase).sin();
        let r = replay.reserves[pool.index()];
        let dev = ((r[1] as f64 / r[0] as f64) / initial_ratio[pool.index()]).ln();
        let p_up = (0.5 + 25.0 * (target - dev)).clamp(0.05, 0.95);
        // Sending asset1 in raises reserve1/reserve0.
        let side = if (rng.below(1_000_000) as f64) < p_up * 1_000_000.0 { 1 } else { 0 };
        let asset_in = graph.asset(meta.assets[side]).asset;
        let reserve_in = replay.reserves[pool.index()][side];
        let amount_in = (reserve_in / 1_000_000 * u128::from(20 + rng.below(980))).max(1);
        let Ok((_, result, _)) = replay.apply(&graph, pool, &asset_in, amount_in) else {
            continue;
        };
        let spread = rng.index(TRADERS) + 1;
        let trader = rng.index(spread);
        trades.push(TradeRecord {
            time,
            pool: graph.pool(pool).address.to_hex(),
            asset_in: asset_in.to_string(),
            amount_in: amount_in.to_string(),
            amount_out: result.amount_out.to_string(),
            trader: raw(&format!("tonroute synthetic trader {trader}")),
            tx_hash: hex(&format!("tonroute synthetic tx {n}")),
        });
    }

    let mut rewards = Vec::new();
    for (k, i) in ranked.iter().take(20).enumerate().filter(|(k, _)| k % 4 == 1) {
        let reward_asset = if k % 8 == 1 { usdt.unwrap_or(Asset::Native) } else { Asset::Native };
        let rid = graph.asset_id(&reward_asset).map_or(0, |a| a.index());
        let dec = graph.asset(tonroute::graph::AssetId(u32::try_from(rid).unwrap_or(0))).decimals;
        let per_day_usd = 50.0 + 50.0 * k as f64;
        let per_day_whole = per_day_usd / prices[rid].max(1e-9);
        // A display-sized budget: the whole-token figure rounded to an integer number of smallest units.
        let per_day = (per_day_whole * 10f64.powi(i32::from(dec))) as u128;
        rewards.push(RewardRecord {
            pool: graph.pools()[*i].address.to_hex(),
            reward_index: 0,
            asset: reward_asset.to_string(),
            tokens_per_day: per_day.to_string(),
            remaining_budget: (per_day * 30).to_string(),
            end_date: date(config.as_of + 30 * 86_400)?,
        });
    }

    let mut affiliates = Vec::new();
    for (k, id) in AFFILIATE_IDS.iter().enumerate() {
        let mut referrals: Vec<String> =
            (0..120).filter(|t| t % 6 == k).map(|t| raw(&format!("tonroute synthetic trader {t}"))).collect();
        referrals.push(raw(&format!("tonroute synthetic referred wallet {k}")));
        affiliates.push(AffiliateRecord {
            account_id: (*id).to_string(),
            address: raw(&format!("tonroute synthetic affiliate account {id}")),
            initialized: k != 5,
            account_type: if k < 2 { "partner".into() } else { "standard".into() },
            account_fee: 10 + 15 * i32::try_from(k).unwrap_or(0),
            // Accounts 0 and 1 share a controller: one wallet can run several accounts.
            controller: raw(&format!("tonroute synthetic affiliate controller {}", k.max(1))),
            balance_for_claim: (u128::from(rng.below(1_000)) * 1_000_000_000).to_string(),
            balance_claimed: (u128::from(rng.below(5_000)) * 1_000_000_000).to_string(),
            referrals,
        });
    }

    let liquidity = liquidity_history(&graph, &ranked, start, config.seed);
    let balances = balances(&graph, &trades, config.as_of)?;

    Ok(MarketFile {
        source: source_of(config),
        snapshot_source: snapshot.source.clone(),
        as_of: date(config.as_of)?,
        program_address: raw("tonroute synthetic affiliate program"),
        coins,
        trades,
        liquidity,
        rewards,
        affiliates,
        balances,
    })
}

/// Days of liquidity history before the sample's first trade.
const HISTORY_DAYS: i64 = 30;

/// The liquidity history of the traded constant-product pools (`ranked`), all in the [`HISTORY_DAYS`] before
/// `start` (the first trade's window): per pool a creating join (35 % of the snapshot's reserves), two or three
/// joins of about 10 % each by other wallets at the pool's ratio, one partial exit, and a last join that brings
/// the reserves exactly to the snapshot's, so the trades (which start from the snapshot) are unchanged. LP
/// amounts follow `tonroute::market::liquidity`'s formulas (the loader checks them). Its own random stream
/// (seeded from `seed`): the rest of the file does not depend on it.
fn liquidity_history(
    graph: &tonroute::graph::PoolGraph,
    ranked: &[usize],
    start: i64,
    seed: u64,
) -> Vec<LiquidityRecord> {
    let mut rng = SplitMix64(seed ^ 0x6c69_7175_6964);
    let mut all: Vec<(i64, usize, LiquidityRecord)> = Vec::new();
    let history = HISTORY_DAYS * 86_400;
    for &i in ranked {
        let id = PoolId(u32::try_from(i).unwrap_or(0));
        let meta = graph.pool(id);
        if !is_constant_product(&meta.curve) {
            continue;
        }
        let target = graph.reserves(id);
        let joins = 2 + rng.below(2);
        let mut times: Vec<i64> = (0..joins + 3)
            .map(|_| start - history + i64::try_from(rng.below(u64::try_from(history).unwrap_or(1) - 1)).unwrap_or(0))
            .collect();
        times.sort_unstable();
        times.dedup();
        if times.len() < usize::try_from(joins).unwrap_or(0) + 3 {
            continue;
        }
        let pool = meta.address.to_hex();
        let provider = |k: u64| raw(&format!("tonroute synthetic trader {k}"));
        // Provider wallets: the creator and one per later join, drawn among the more active traders.
        let wallets: Vec<u64> = (0..=joins).map(|_| rng.below(60)).collect();
        let mut book = LpBook::default();
        let mut held: Vec<(u64, u128)> = Vec::new();
        let mut events: Vec<LiquidityRecord> = Vec::new();
        let mut ok = true;
        let join = |book: &mut LpBook,
                    who: u64,
                    amounts: [u128; 2],
                    time: i64,
                    events: &mut Vec<LiquidityRecord>,
                    held: &mut Vec<(u64, u128)>|
         -> bool {
            let Ok((lp, after)) = book.join(amounts) else {
                return false;
            };
            *book = after;
            match held.iter_mut().find(|(w, _)| *w == who) {
                Some((_, h)) => *h += lp,
                None => held.push((who, lp)),
            }
            events.push(LiquidityRecord {
                time,
                pool: pool.clone(),
                kind: LiquidityKind::Join,
                provider: provider(who),
                amount0: amounts[0].to_string(),
                amount1: amounts[1].to_string(),
                lp: lp.to_string(),
                min_lp_out: Some((lp / 100 * 99).to_string()),
                deposit_address: Some(raw(&format!("tonroute synthetic lp account {pool} {}", provider(who)))),
                tx_hash: String::new(),
            });
            true
        };
        // The creating join: 35 % of the snapshot's reserves.
        ok &=
            join(&mut book, wallets[0], [target[0] / 100 * 35, target[1] / 100 * 35], times[0], &mut events, &mut held);
        let mut t = 1;
        for k in 1..=joins {
            if !ok {
                break;
            }
            let pct = 8 + u128::from(rng.below(5));
            ok &= join(
                &mut book,
                wallets[usize::try_from(k).unwrap_or(0)],
                [target[0] / 100 * pct, target[1] / 100 * pct],
                times[t],
                &mut events,
                &mut held,
            );
            t += 1;
        }
        if !ok {
            continue;
        }
        // One partial exit (20–80 % of a provider's LP), then the join that lands on the snapshot's reserves.
        let (who, lp_held) = held[rng.index(held.len())];
        let lp = lp_held / 100 * (20 + u128::from(rng.below(61)));
        let Ok((out, after)) = book.exit(lp) else {
            continue;
        };
        book = after;
        if let Some((_, h)) = held.iter_mut().find(|(w, _)| *w == who) {
            *h -= lp;
        }
        events.push(LiquidityRecord {
            time: times[t],
            pool: pool.clone(),
            kind: LiquidityKind::Exit,
            provider: provider(who),
            amount0: out[0].to_string(),
            amount1: out[1].to_string(),
            lp: lp.to_string(),
            min_lp_out: None,
            deposit_address: None,
            tx_hash: String::new(),
        });
        t += 1;
        let last = [target[0] - book.reserves[0], target[1] - book.reserves[1]];
        let closer = rng.below(60);
        if !join(&mut book, closer, last, times[t], &mut events, &mut held) || book.reserves != target {
            continue;
        }
        all.extend(events.into_iter().map(|e| (e.time, i, e)));
    }
    // Time order; a pool's events have distinct increasing times, so each pool keeps its order.
    all.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
    all.into_iter()
        .enumerate()
        .map(|(n, (_, _, mut e))| {
            e.tx_hash = hex(&format!("tonroute synthetic liquidity tx {n}"));
            e
        })
        .collect()
}

/// Wallet balances at the end of the sample, consistent with its trades: per (trader, asset traded, TON
/// included), the balance is an opening balance plus what the trades moved (amounts received minus amounts
/// sent). The opening balance is the smallest that never lets the running balance go below zero (a wallet
/// cannot send what it does not hold), plus a deterministic extra of 0, ½ or 1 times the largest single amount
/// the wallet moved of that asset (chosen by the SHA-256 of the pair's label, so no random draw of the trades
/// changes). Zero balances are left out. Ordered by owner, then asset.
fn balances(
    graph: &tonroute::graph::PoolGraph,
    trades: &[TradeRecord],
    as_of: i64,
) -> Result<Vec<tonroute::market::wallets::BalanceRecord>, MarketDataError> {
    use std::collections::BTreeMap;
    #[derive(Default)]
    struct Flow {
        running: i128,
        lowest: i128,
        largest: u128,
    }
    let mut flows: BTreeMap<(String, String), Flow> = BTreeMap::new();
    for t in trades {
        let pool = graph
            .pool_id(
                &tonroute::asset::parse_address(&t.pool)
                    .map_err(|e| MarketDataError::BadTrade { index: 0, reason: e.into() })?,
            )
            .map(|id| graph.pool(id));
        let Some(pool) = pool else { continue };
        let asset_in = t.asset_in.clone();
        let other = pool.assets.iter().map(|a| graph.asset(*a).asset.to_string()).find(|a| *a != asset_in);
        let Some(asset_out) = other else { continue };
        // Amounts are below 2^120, so they fit i128 and their sums over 6,000 trades too.
        let amount_in: u128 = t.amount_in.parse().unwrap_or(0);
        let amount_out: u128 = t.amount_out.parse().unwrap_or(0);
        for (asset, delta, moved) in
            [(asset_in, -(amount_in as i128), amount_in), (asset_out, amount_out as i128, amount_out)]
        {
            let f = flows.entry((t.trader.clone(), asset)).or_default();
            f.running += delta;
            f.lowest = f.lowest.min(f.running);
            f.largest = f.largest.max(moved);
        }
    }
    let mut out = Vec::new();
    for ((owner, asset), f) in flows {
        let extra = match Sha256::digest(format!("tonroute synthetic balance {owner} {asset}").as_bytes())[0] % 3 {
            0 => 0,
            1 => f.largest / 2,
            _ => f.largest,
        };
        // running − lowest ≥ 0: the end balance with the smallest opening that never goes negative.
        let balance = (f.running - f.lowest) as u128 + extra;
        if balance == 0 {
            continue;
        }
        out.push(tonroute::market::wallets::BalanceRecord {
            owner,
            asset,
            balance: balance.to_string(),
            as_of: date(as_of)?,
            block: None,
        });
    }
    Ok(out)
}
