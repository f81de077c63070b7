//! Stage 2, path selection: which candidates a split uses.
//!
//! Owns the diversification of the long surplus list (picks that share a bottleneck pool lose their surplus
//! to earlier ones), the closed-form value of pool-disjoint sets and the upper bound it gives any set
//! (pricing reads it too), and the choice of at most `max_splits` paths by forward selection and swaps.
//! Must not search the graph (that is `route::paths` and pricing) nor settle amounts: it ranks sets by their
//! float output only.

use smallvec::SmallVec;

use super::water_fill::{water_fill_state, FloatState};
use crate::graph::PoolGraph;
use crate::pool::estimate as mobius;
use crate::route::paths::Candidate;
use crate::route::sim::shares_pool;
use crate::route::tuning::{CHUNKS_FAST, MARGINAL_PROBE, MIN_RELATIVE_GAIN, MIN_SURPLUS_SHARE, SWAP_ROUNDS};

/// Picks `keep` diverse candidates from a wide list: repeatedly the path with the largest surplus at λ on
/// the current float state, whose surplus-maximising flow is then committed, so paths that share a
/// bottleneck pool with an earlier pick lose their surplus and make room for other pools.
pub(crate) fn diversify(
    graph: &PoolGraph,
    wide: Vec<Candidate>,
    keep: usize,
    lambda: f64,
    amount: f64,
) -> Vec<Candidate> {
    if wide.len() <= keep {
        return wide;
    }
    let mut state = FloatState::default();
    let surplus_of =
        |state: &FloatState, c: &Candidate| state.form(graph, &c.hops).map_or(0.0, |m| m.surplus(lambda, amount));
    let mut score: Vec<f64> = wide.iter().map(|c| surplus_of(&state, c)).collect();
    let mut taken = vec![false; wide.len()];
    let mut picked = Vec::with_capacity(keep);
    while picked.len() < keep {
        let Some(best) = (0..wide.len()).filter(|&i| !taken[i]).max_by(|&a, &b| score[a].total_cmp(&score[b])) else {
            break;
        };
        taken[best] = true;
        picked.push(best);
        if let Some(m) = state.form(graph, &wide[best].hops) {
            let t = if m.s > lambda && m.c > 0.0 { ((m.s / lambda).sqrt() - 1.0) / m.c } else { 0.0 };
            // Not capped by what is left of the amount: λ is a lower bound on the split's marginal rate, so
            // each pick is priced as if driven down to λ, which is what makes shared pools count once.
            let t = t.min(amount).max(0.0);
            if t > 0.0 {
                state.run(graph, &wide[best].hops, t, true);
            }
        }
        for i in 0..wide.len() {
            if !taken[i] && wide[i].hops.iter().any(|(p, _)| wide[best].hops.iter().any(|(q, _)| p == q)) {
                score[i] = surplus_of(&state, &wide[i]);
            }
        }
    }
    let mut wide: Vec<Option<Candidate>> = wide.into_iter().map(Some).collect();
    picked.into_iter().filter_map(|i| wide[i].take()).collect()
}

/// Float output of the optimal split of `amount` over pool-disjoint paths given by their Möbius forms: the
/// marginal rates `s/(1 + c·t)²` are equalised at λ, which for a known active set has the closed form
/// `1/√λ = (amount + Σ 1/c) / Σ (√s / c)`; the active set is the paths with the highest `s` that stay above λ.
pub(super) fn disjoint_value(forms: &mut [mobius::Mobius], amount: f64) -> f64 {
    forms.sort_unstable_by(|a, b| b.s.total_cmp(&a.s));
    let (mut sum_inv_c, mut sum_root) = (0.0, 0.0);
    let mut best = (0, 0.0);
    for (m, f) in forms.iter().enumerate() {
        let c = f.c.max(1e-300);
        sum_inv_c += 1.0 / c;
        sum_root += f.s.sqrt() / c;
        let inv_root_lambda = (amount + sum_inv_c) / sum_root;
        let lambda = 1.0 / (inv_root_lambda * inv_root_lambda);
        if f.s <= lambda {
            break;
        }
        best = (m + 1, lambda);
    }
    let (active, lambda) = best;
    forms[..active]
        .iter()
        .map(|f| {
            let c = f.c.max(1e-300);
            let x = ((f.s / lambda).sqrt() - 1.0) / c;
            (f.s * lambda).sqrt() * x
        })
        .sum()
}

/// Relative margin of a set's upper bound over what it must beat before its joint fill is skipped.
const UPPER_MARGIN: f64 = 1e-9;

/// The least `c · amount` of a path's upper map for [`disjoint_value`] to bound its set: below it, the
/// marginal rate at the whole amount is within rounding of the rate at zero and the closed form may drop
/// the path.
const MIN_UPPER_CURVATURE: f64 = 1e-6;

/// A Möbius map at or above a path's float output at every input on the graph's reserves: the path's own
/// map where its hops are constant-product-shaped (constant product, `dex_a` volatile, a concentrated
/// pool's range: exact), each other hop as its rate at zero size with no curvature (those curves are
/// concave, so no input gets more than the rate at zero pays). `None` for an empty pool.
pub(super) fn upper_form(graph: &PoolGraph, hops: &[crate::route::sim::Hop]) -> Option<mobius::Mobius> {
    use crate::pool::Curve;
    let mut form = mobius::Mobius { s: 1.0, c: 0.0 };
    for &(pool, dir) in hops {
        let hop = graph.form(pool, dir)?;
        let exact = matches!(
            graph.pool(pool).curve,
            Curve::ConstantProduct(_) | Curve::DexAVolatile(_) | Curve::Concentrated(_)
        );
        form = form.then(if exact { hop } else { mobius::Mobius { s: hop.s, c: 0.0 } });
    }
    Some(form)
}

/// The closed form over paths' upper maps ([`upper_form`]): at or above the float output of any allocation
/// of `amount` over those paths, pools shared or not (a shared pool counted twice only adds liquidity).
/// `None` where a map has (next to) no curvature: the closed form needs some to resolve λ from the rates,
/// and a path of stable hops only has none.
pub(super) fn upper_bound(forms: &mut [mobius::Mobius], amount: f64) -> Option<f64> {
    forms.iter().all(|m| m.c * amount >= MIN_UPPER_CURVATURE).then(|| disjoint_value(forms, amount))
}

/// Whether a set bounded by `bound` cannot beat `need`, with a margin far above the floats' rounding and far
/// below any gain a set is kept for.
pub(super) fn cannot_beat(bound: f64, need: f64) -> bool {
    bound + bound.abs() * UPPER_MARGIN < need
}

/// Chooses at most `max_splits` pool-disjoint candidates (see [`shares_pool`]) by forward selection (add
/// the path that raises the split's output most) and then swaps (replace a kept path by an outside one while
/// that helps). A path that shares a pool with the kept ones is never tried; the sets are valued in closed
/// form.
pub(super) fn choose_paths<'c>(
    graph: &PoolGraph,
    all: &[&'c Candidate],
    fees: &[f64],
    max_splits: usize,
    amount: f64,
) -> Vec<&'c Candidate> {
    let n = all.len();
    // Each path's network fee in output units (zeros without fees): the sets are compared net of them, so a
    // path that pays only before its fee (a second exchange's entry and payout, say) does not take a slot.
    let fee_of = |set: &[usize]| -> f64 { set.iter().map(|&i| fees.get(i).copied().unwrap_or(0.0)).sum() };
    // Whether path `i` may join the kept paths `set` (all but `skip`): it shares no pool with them.
    let apart = |i: usize, set: &[usize], skip: Option<usize>| {
        set.iter().enumerate().all(|(slot, &j)| Some(slot) == skip || !shares_pool(&all[i].hops, &all[j].hops))
    };
    let value = |set: &[usize]| -> f64 {
        let mut forms: SmallVec<[mobius::Mobius; 20]> = set.iter().map(|&i| all[i].form).collect();
        disjoint_value(&mut forms, amount) - fee_of(set)
    };
    // Forward: after filling the kept paths, the next path is the one with the largest surplus at the kept
    // split's marginal rate λ, read on the pools as that split leaves them (those of a path that may join are
    // untouched: it shares none with the kept ones).
    let mut kept: Vec<usize> = Vec::new();
    let mut current = 0.0;
    let net_single = |i: usize| all[i].form.out(amount) - fee_of(&[i]);
    if let Some(first) = (0..n).max_by(|&a, &b| net_single(a).total_cmp(&net_single(b))) {
        kept.push(first);
        current = value(&[first]);
    }
    while !kept.is_empty() && kept.len() < max_splits {
        let set: Vec<&Candidate> = kept.iter().map(|&i| all[i]).collect();
        let (_, _, mut state) = water_fill_state(graph, &set, amount, CHUNKS_FAST);
        let probe = amount * MARGINAL_PROBE;
        let lambda = state.run(graph, &all[kept[0]].hops, probe, false) / probe;
        let scored = (0..n)
            .filter(|&i| !kept.contains(&i) && apart(i, &kept, None))
            .map(|i| (i, state.form(graph, &all[i].hops).map_or(0.0, |m| m.surplus(lambda, amount)) - fee_of(&[i])))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match scored {
            Some((i, surplus)) if surplus > current * MIN_SURPLUS_SHARE => {
                kept.push(i);
                // A positive surplus at λ is a gain (paths that end up without flow are dropped when settling).
                current = value(&kept).max(current);
            }
            _ => break,
        }
    }
    for _round in 0..SWAP_ROUNDS {
        let mut improved = false;
        for slot in 0..kept.len() {
            let mut best: Option<(usize, f64)> = None;
            for i in 0..n {
                if kept.contains(&i) || !apart(i, &kept, Some(slot)) {
                    continue;
                }
                let mut trial = kept.clone();
                trial[slot] = i;
                let need = current * (1.0 + MIN_RELATIVE_GAIN);
                let v = value(&trial);
                if v > need && best.is_none_or(|(_, b)| v > b) {
                    best = Some((i, v));
                }
            }
            if let Some((i, v)) = best {
                kept[slot] = i;
                current = v;
                improved = true;
            }
        }
        if !improved {
            break;
        }
    }
    kept.iter().map(|&i| all[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::super::water_fill::water_fill_with;
    use super::*;
    use crate::route::testkit::{argmax_1d, cp_f, forward, graph, parallel, parallel_paths, DEPTH};

    const D: f64 = DEPTH as f64;

    fn pools(c: &Candidate) -> Vec<u32> {
        c.hops.iter().map(|(p, _)| p.0).collect()
    }

    /// The closed form over the paths' upper maps bounds the joint fill of every pair of pool-disjoint paths
    /// (the sets pricing compares), whatever curves they cross (constant product, both stable curves,
    /// weighted, `dex_a` volatile) and at every size from a sliver to several times the pools' depth.
    #[test]
    fn the_upper_maps_bound_every_joint_fill_of_pool_disjoint_paths() {
        use crate::graph::{AssetId, PoolContext, Protocol};
        use crate::pool::{
            ConstantProduct, Curve, DexAStable, DexAVolatile, Direction, FeeModel, StableSwap, WeightedConstantProduct,
        };
        use crate::route::tuning::{CHUNKS, POLISH};
        use tonlib_core::TonAddress;
        let curves = [
            Curve::ConstantProduct(ConstantProduct::new(FeeModel::V2, 30, 0, 0)),
            Curve::StableSwap(StableSwap::new(200, 5, 2)),
            Curve::DexAVolatile(DexAVolatile { fee_bps: 25 }),
            Curve::DexAStable(DexAStable { fee_bps: 4 }),
            Curve::WeightedConstantProduct(WeightedConstantProduct::new(300_000_000_000_000_000, 20, 10)),
            Curve::StableSwap(StableSwap::new(2_000, 1, 0)),
        ];
        let (mut b, _) = crate::graph::testkit::builder_with_assets(2);
        // Three pools per step 0 → 1 → 2, each of a different curve and depth.
        let mut n = 0u8;
        for (step, assets) in [(0usize, [AssetId(0), AssetId(1)]), (1, [AssetId(1), AssetId(2)])] {
            for k in 0..3usize {
                n += 1;
                let depth = DEPTH * (1 + 3 * k as u128);
                let reserves = [depth, depth + depth / (2 + k as u128)];
                let ctx = PoolContext { router: Some(TonAddress::new(0, [200; 32].into())), router_wallets: None };
                let curve = curves[(3 * step + k) % curves.len()].clone();
                let address = TonAddress::new(0, [n; 32].into());
                b.add_pool(address, Protocol::DexBV2, assets, curve, reserves, ctx, None).unwrap();
            }
        }
        let g = b.build();
        let paths: Vec<Candidate> = (0..3u32)
            .flat_map(|a| (3..6u32).map(move |c| [(a, Direction::ZeroToOne), (c, Direction::ZeroToOne)]))
            .map(|hops| crate::route::testkit::path(&g, &hops))
            .collect();
        let mut checked = 0;
        for i in 0..paths.len() {
            for j in 0..paths.len() {
                if i == j || shares_pool(&paths[i].hops, &paths[j].hops) {
                    continue;
                }
                for amount in [1e3, 1e8, 1e11, D, 5.0 * D, 30.0 * D] {
                    let set = [&paths[i], &paths[j]];
                    let mut forms = [upper_form(&g, &paths[i].hops).unwrap(), upper_form(&g, &paths[j].hops).unwrap()];
                    let Some(bound) = upper_bound(&mut forms, amount) else { continue };
                    for (chunks, polish) in [(CHUNKS_FAST, 0), (CHUNKS, POLISH)] {
                        let fill = water_fill_with(&g, &set, amount, chunks, polish).1;
                        assert!(
                            fill <= bound * (1.0 + 1e-12),
                            "paths {i}, {j} at {amount}: fill {fill} above bound {bound}"
                        );
                    }
                    checked += 1;
                }
            }
        }
        // 36 ordered pool-disjoint pairs at six sizes; the closed form declines (`None`) the pairs whose maps
        // have no curvature at the size (the stable hops' upper maps), which leaves 60.
        assert!(checked >= 60, "{checked} sets checked");
    }

    #[test]
    fn disjoint_value_of_parallel_pools_is_one_pool_of_their_combined_depth() {
        // At one price p, pools of depths x_i split `a` in proportion to depth and pay, in total,
        // Σ x_i·γ·p·a / (X + γ·a) = the formula on one pool of depth X = Σ x_i.
        let g = parallel();
        let mut forms: Vec<mobius::Mobius> = (0..3).map(|p| forward(&g, &[p]).form).collect();
        let x = D * 1.75;
        for a in [1e9, 1e11, 3e12] {
            let want = cp_f(x, 2.0 * x, a).0;
            let got = disjoint_value(&mut forms, a);
            assert!((got - want).abs() <= want * 1e-12, "amount {a}: {got} vs {want}");
        }
    }

    #[test]
    fn disjoint_value_leaves_out_a_path_below_the_marginal_rate() {
        // Pool 0 at price 2, pool 1 at price 1: the second only pays once the first's marginal rate
        // γ·2·D² / (D + γ·t)² has fallen to γ, i.e. past t = (√2 − 1)·D / γ.
        let g = graph(2, &[(0, 1, [DEPTH, 2 * DEPTH]), (0, 1, [DEPTH, DEPTH])]);
        let mut forms = vec![forward(&g, &[0]).form, forward(&g, &[1]).form];
        let small = 0.1 * D;
        let want = cp_f(D, 2.0 * D, small).0;
        assert!((disjoint_value(&mut forms, small) - want).abs() <= want * 1e-12);
        // A whale: both pools pay; the grid over the split is the reference.
        let whale = 2.0 * D;
        let (t, grid) = argmax_1d(whale, 4_000, |t| cp_f(D, 2.0 * D, t).0 + cp_f(D, D, whale - t).0);
        assert!(t < whale * 0.99, "the grid gives the second pool a share");
        let got = disjoint_value(&mut forms, whale);
        assert!(got >= grid * (1.0 - 1e-12) && got <= grid * (1.0 + 1e-9), "{got} vs grid {grid}");
    }

    #[test]
    fn choose_paths_takes_the_deepest_parallel_pools() {
        // Pair values by the combined-depth formula: {0, 1} (1.5·D) beats {0, 2} (1.25·D) and {1, 2}.
        let (g, paths) = parallel_paths();
        let all: Vec<&Candidate> = paths.iter().collect();
        let a = 3e11;
        let chosen = |k: usize| -> Vec<Vec<u32>> {
            let mut v: Vec<Vec<u32>> = choose_paths(&g, &all, &[], k, a).iter().map(|c| pools(c)).collect();
            v.sort();
            v
        };
        assert_eq!(chosen(1), vec![vec![0]]);
        assert_eq!(chosen(2), vec![vec![0], vec![1]]);
        assert_eq!(chosen(3), vec![vec![0], vec![1], vec![2]]);
    }

    #[test]
    fn choose_paths_never_pairs_paths_that_share_a_pool() {
        // Pools 0 and 1 (depth D each) go 0 → 1, pool 2 (100·D) goes 1 → 2: A = pools 0, 2 and B = pools 1, 2
        // share the deep pool 2; C = pool 3 goes 0 → 2 directly at D/2. Valued as if they shared nothing (as
        // a split's routes are on chain, each on the reserves it finds), A and B together would be the best
        // pair by far; they share a pool, so the pair kept is A (or B) with C: the best pool-disjoint pair of
        // a brute force over the split.
        let g = graph(
            3,
            &[
                (0, 1, [DEPTH, DEPTH]),
                (0, 1, [DEPTH, DEPTH]),
                (1, 2, [100 * DEPTH, 100 * DEPTH]),
                (0, 2, [DEPTH / 2, DEPTH / 2]),
            ],
        );
        let (a_path, b_path, c_path) = (forward(&g, &[0, 2]), forward(&g, &[1, 2]), forward(&g, &[3]));
        let all = [&a_path, &b_path, &c_path];
        let amount = 4e11;
        let via = |t: f64| cp_f(100.0 * D, 100.0 * D, cp_f(D, D, t).0).0;
        let direct = |t: f64| cp_f(D / 2.0, D / 2.0, t).0;
        let apart_pair = argmax_1d(amount, 2_000, |t| via(t) + direct(amount - t)).1;
        let shared_pair = argmax_1d(amount, 2_000, |t| via(t) + via(amount - t)).1;
        assert!(shared_pair > apart_pair && apart_pair > via(amount), "{shared_pair} {apart_pair}");
        for k in [2, 3] {
            let chosen: Vec<Vec<u32>> = choose_paths(&g, &all, &[], k, amount).iter().map(|c| pools(c)).collect();
            assert_eq!(chosen.len(), 2, "{chosen:?}");
            assert!(chosen.contains(&vec![3]), "{chosen:?}");
            assert!(chosen.contains(&vec![0, 2]) || chosen.contains(&vec![1, 2]), "{chosen:?}");
        }
    }

    #[test]
    fn diversify_passes_over_a_second_path_through_a_drained_bottleneck() {
        // Assets 0 → 1 over two deep pools (0 at 12·D, 1 at 10·D), then 1 → 2 over one pool (2, at D) that
        // both A = (0, 2) and B = (1, 2) need; C = pool 3 goes 0 → 2 directly at D/2. On fresh reserves B's
        // surplus beats C's; once A's surplus-maximising flow has moved pool 2, B's is below C's, so the
        // two kept are A and C.
        let g = graph(
            3,
            &[
                (0, 1, [12 * DEPTH, 12 * DEPTH]),
                (0, 1, [10 * DEPTH, 10 * DEPTH]),
                (1, 2, [DEPTH, DEPTH]),
                (0, 2, [DEPTH / 2, DEPTH / 2]),
            ],
        );
        let (a_path, b_path, c_path) = (forward(&g, &[0, 2]), forward(&g, &[1, 2]), forward(&g, &[3]));
        let (lambda, amount) = (0.5, 10.0 * D);
        let surplus = |out: &dyn Fn(f64) -> f64| argmax_1d(amount, 4_000, |t| out(t) - lambda * t);
        let b_fresh = surplus(&|t| cp_f(D, D, cp_f(10.0 * D, 10.0 * D, t).0).0).1;
        let c_fresh = surplus(&|t| cp_f(D / 2.0, D / 2.0, t).0).1;
        let (t_a, a_fresh) = surplus(&|t| cp_f(D, D, cp_f(12.0 * D, 12.0 * D, t).0).0);
        let (_, x2, y2) = cp_f(D, D, cp_f(12.0 * D, 12.0 * D, t_a).0);
        let b_after = surplus(&|t| cp_f(x2, y2, cp_f(10.0 * D, 10.0 * D, t).0).0).1;
        assert!(a_fresh > b_fresh && b_fresh > c_fresh && c_fresh > b_after, "{a_fresh} {b_fresh} {c_fresh} {b_after}");
        let kept = diversify(&g, vec![a_path, b_path, c_path], 2, lambda, amount);
        let kept: Vec<Vec<u32>> = kept.iter().map(pools).collect();
        assert_eq!(kept, vec![vec![0, 2], vec![3]]);
    }

    #[test]
    fn diversify_keeps_a_short_list_whole() {
        let g = parallel();
        let wide = vec![forward(&g, &[2]), forward(&g, &[0])];
        let kept: Vec<Vec<u32>> = diversify(&g, wide, 2, 1.0, 1e9).iter().map(pools).collect();
        assert_eq!(kept, vec![vec![2], vec![0]]);
    }
}
