//! Shared by `benches/quote.rs`, `examples/latency.rs`, `examples/load.rs` and `examples/cross_exchange.rs`:
//! the pairs and trade sizes quoted on a synthetic graph (`tonroute_synth::snapshot`), and the load
//! generator's request mix ([`load_mix`]).
//!
//! Pairs: two popular ones (TON→USD₮; USD₮→NOT, a major) and one long-tail pair (a single-pool jetton to
//! another, both paired with TON, so the route must go through the hub). Sizes are fractions of the pair's
//! depth, the input-side reserve of the deepest pool the input asset has towards the output (or, for the
//! long tail, its only pool): small 1e-5, medium 1e-3, whale 5e-2.
//!
//! Curve cases ([`curve_cases`]), on graphs made with `SyntheticConfig::more_curves` (1,000 pools and up have
//! every pool they need): a TON→USD₮ whale (5e-2 of the depth) that the `dex_c` pool takes part in, NOT→TON
//! (1e-4 of the 80/20 weighted pool's NOT reserve: at that size its 0.25 % fee makes it the best pool), sUSD1→sUSD2 (1e-2 of the weighted stable pool's reserve,
//! the only pool of that pair), and exact-out TON→USD₮ for a small and a whale output (1e-5 and 5e-2 of the
//! USD₮ depth). Each case names the pool it is meant to exercise; [`CurveCase::uses_pool`] tells whether a
//! quote's routes go through it.

#![allow(dead_code)]

use tonroute::asset::known::{NOT, USDT};
use tonroute::asset::Asset;
use tonroute::graph::{AssetId, PoolGraph, PoolId};
use tonroute::pool::Curve;
use tonroute::route::{Quote, QuoteRequest, SwapMode};

/// Trade sizes as (name, numerator, denominator) of the depth.
pub(crate) const SIZES: [(&str, u128, u128); 3] = [("small", 1, 100_000), ("medium", 1, 1_000), ("whale", 5, 100)];

/// One quoted pair.
pub(crate) struct Pair {
    /// `popular` or `long_tail`.
    pub class: &'static str,
    /// Display name, e.g. `TON->USDT`.
    pub name: String,
    /// Input asset.
    pub from: Asset,
    /// Output asset.
    pub to: Asset,
    /// Input-side reserve of the deepest relevant pool.
    pub depth: u128,
}

impl Pair {
    /// The request for a size (max_length 3, max_splits 4).
    pub(crate) fn request(&self, num: u128, den: u128) -> QuoteRequest {
        QuoteRequest::builder(self.from, self.to, (self.depth * num / den).max(1))
            .max_length(3)
            .max_splits(4)
            .build()
            .unwrap()
    }
}

fn id(g: &PoolGraph, a: &Asset) -> AssetId {
    g.asset_id(a).expect("synthetic graphs always hold TON, USD₮ and NOT")
}

/// Input-side reserve of the deepest pool joining `from` and `to`.
fn depth(g: &PoolGraph, from: AssetId, to: AssetId) -> u128 {
    g.edges(from).iter().filter(|e| e.to == to).map(|e| g.reserves(e.pool)[e.direction.in_index()]).max().unwrap_or(0)
}

/// The three pairs on a synthetic graph.
pub(crate) fn pairs(g: &PoolGraph) -> Vec<Pair> {
    let usdt: Asset = USDT.parse().expect("constant id");
    let not: Asset = NOT.parse().expect("constant id");
    let (ton_id, usdt_id, not_id) = (id(g, &Asset::Native), id(g, &usdt), id(g, &not));
    // Long tail: jettons with one pool, paired with TON, reasonably deep on both sides; take two from the
    // middle of the pool list (the list is in TVL-rank order).
    // Both pools must be in one multi-hop message chain (same protocol, same router), or no route exists.
    let tail: Vec<(AssetId, u128, u32)> = (0..g.asset_count() as u32)
        .map(AssetId)
        .filter_map(|a| {
            let edges = g.edges(a);
            let e = edges.first()?;
            let r = g.reserves(e.pool);
            (edges.len() == 1
                && e.to == ton_id
                && g.pool(e.pool).protocol.multi_hop()
                && r[0] >= 1_000_000_000
                && r[1] >= 1_000_000_000)
                .then(|| (a, r[e.direction.in_index()], g.chain_group(e.pool)))
        })
        .collect();
    let mid = tail.len() / 2;
    let t1 = tail[mid];
    let t2 = *tail[mid + 1..].iter().find(|t| t.2 == t1.2).expect("synthetic graphs have many same-router tail pools");
    let sym = |a: AssetId| g.asset(a).symbol.clone();
    vec![
        Pair {
            class: "popular",
            name: "TON->USDT".into(),
            from: Asset::Native,
            to: usdt,
            depth: depth(g, ton_id, usdt_id),
        },
        Pair { class: "popular", name: "USDT->NOT".into(), from: usdt, to: not, depth: depth(g, usdt_id, not_id) },
        Pair {
            class: "long_tail",
            name: format!("{}->{}", sym(t1.0), sym(t2.0)),
            from: g.asset(t1.0).asset,
            to: g.asset(t2.0).asset,
            depth: t1.1,
        },
    ]
}

/// One curve case: a request and the pool it is meant to go through.
pub(crate) struct CurveCase {
    /// Display name, e.g. `cl/TON->USDT/whale`.
    pub name: &'static str,
    /// The request (max_length 3, max_splits 4).
    pub request: QuoteRequest,
    /// The concentrated or weighted pool the case exercises.
    pub pool: PoolId,
}

impl CurveCase {
    /// Whether one of the quote's routes goes through the case's pool.
    pub(crate) fn uses_pool(&self, q: &Quote) -> bool {
        q.routes.iter().any(|r| r.steps.iter().any(|s| s.pool == self.pool))
    }
}

/// The first pool between `a` and `b` whose curve satisfies `want`.
fn pool_with(g: &PoolGraph, a: AssetId, b: AssetId, want: fn(&Curve) -> bool) -> Option<PoolId> {
    g.edges(a).iter().find(|e| e.to == b && want(&g.pool(e.pool).curve)).map(|e| e.pool)
}

fn symbol(g: &PoolGraph, s: &str) -> Option<AssetId> {
    (0..g.asset_count() as u32).map(AssetId).find(|a| g.asset(*a).symbol == s)
}

/// The curve cases on a synthetic graph with concentrated and weighted pools; `None` if one is missing.
pub(crate) fn curve_cases(g: &PoolGraph) -> Option<Vec<CurveCase>> {
    let usdt: Asset = USDT.parse().expect("constant id");
    let not: Asset = NOT.parse().expect("constant id");
    let (ton_id, usdt_id, not_id) = (g.asset_id(&Asset::Native)?, g.asset_id(&usdt)?, g.asset_id(&not)?);
    let (s1, s2) = (symbol(g, "sUSD1")?, symbol(g, "sUSD2")?);
    let cl = pool_with(g, ton_id, usdt_id, |c| matches!(c, Curve::Concentrated(_)))?;
    let wcp = pool_with(g, not_id, ton_id, |c| matches!(c, Curve::WeightedConstantProduct(_)))?;
    let wss = pool_with(g, s1, s2, |c| matches!(c, Curve::WeightedStableSwap(_)))?;
    let input_reserve = |pool: PoolId, asset: AssetId| {
        let i = usize::from(g.pool(pool).assets[1] == asset);
        g.reserves(pool)[i]
    };
    let req = |from: Asset, to: Asset, amount: u128, mode: SwapMode| {
        QuoteRequest::builder(from, to, amount.max(1)).swap_mode(mode).max_length(3).max_splits(4).build().unwrap()
    };
    let ton_depth = depth(g, ton_id, usdt_id);
    let usdt_depth = depth(g, usdt_id, ton_id);
    let (s1_asset, s2_asset) = (g.asset(s1).asset, g.asset(s2).asset);
    Some(vec![
        CurveCase {
            name: "cl/TON->USDT/whale",
            request: req(Asset::Native, usdt, ton_depth * 5 / 100, SwapMode::ExactIn),
            pool: cl,
        },
        CurveCase {
            name: "weighted/NOT->TON",
            request: req(not, Asset::Native, input_reserve(wcp, not_id) / 10_000, SwapMode::ExactIn),
            pool: wcp,
        },
        CurveCase {
            name: "weighted_stable/sUSD1->sUSD2",
            request: req(s1_asset, s2_asset, input_reserve(wss, s1) / 100, SwapMode::ExactIn),
            pool: wss,
        },
        CurveCase {
            name: "exact_out/TON->USDT/small",
            request: req(Asset::Native, usdt, usdt_depth / 100_000, SwapMode::ExactOut),
            pool: cl,
        },
        CurveCase {
            name: "exact_out/TON->USDT/whale",
            request: req(Asset::Native, usdt, usdt_depth * 5 / 100, SwapMode::ExactOut),
            pool: cl,
        },
    ])
}

/// The load generator's deterministic request mix: pairs with TON (both ways) and between the first 64
/// jettons; amounts spread over four orders of magnitude in the input asset's units. `(in, out, amount)`.
pub(crate) fn load_mix(graph: &PoolGraph, n: usize) -> Vec<(Asset, Asset, u128)> {
    let assets = graph.assets();
    let native = assets.iter().position(|a| a.asset.is_native()).unwrap_or(0);
    let jettons: Vec<usize> = (0..assets.len()).filter(|&i| i != native).take(64).collect();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        // xorshift64*: a fixed, seedable sequence (no RNG dependency).
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    (0..n)
        .map(|_| {
            let j = jettons[usize::try_from(next() % jettons.len().max(1) as u64).unwrap_or(0)];
            let (a, b) = match next() % 4 {
                0 | 1 => (native, j),
                2 => (j, native),
                _ => (j, jettons[usize::try_from(next() % jettons.len() as u64).unwrap_or(0)]),
            };
            let b = if a == b { native } else { b };
            let unit = 10u128.pow(u32::from(assets[a].decimals));
            let amount = unit * u128::from(1 + next() % 10_000) / 10;
            (assets[a].asset, assets[b].asset, amount.max(1))
        })
        .collect()
}
