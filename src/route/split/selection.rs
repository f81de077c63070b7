//! Stage 2, path selection: which candidates a split uses.
//!
//! Owns the diversification of the long surplus list (picks that share a bottleneck pool lose their surplus
//! to earlier ones), the closed-form value of pool-disjoint sets, and the choice of at most `max_splits`
//! paths by forward selection and swaps. Must not search the graph (that is `route::paths` and pricing) nor
//! settle amounts: it ranks sets by their float output only.

use smallvec::SmallVec;

use super::water_fill::{water_fill_state, water_fill_with, FloatState};
use crate::graph::PoolGraph;
use crate::pool::estimate as mobius;
use crate::route::paths::Candidate;
use crate::route::tuning::{
    CHUNKS_FAST, FILL_BUDGET, MARGINAL_PROBE, MIN_RELATIVE_GAIN, MIN_SURPLUS_SHARE, POLISH_FAST, SWAP_ROUNDS,
};

/// Picks `keep` diverse candidates from a wide list: repeatedly the path with the largest surplus at λ on
/// the current float state, whose surplus-maximising flow is then committed, so paths that share a
/// bottleneck pool with an earlier pick lose their surplus and make room for other pools.
pub(super) fn diversify(
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

/// Chooses at most `max_splits` of the candidates by forward selection (add the path that raises the split's
/// output most) and then swaps (replace a kept path by an outside one while that helps). Pool-disjoint sets
/// are valued in closed form; sets that share a pool by a joint water-fill.
pub(super) fn choose_paths<'c>(
    graph: &PoolGraph,
    all: &[&'c Candidate],
    max_splits: usize,
    amount: f64,
) -> Vec<&'c Candidate> {
    let n = all.len();
    let shares = |i: usize, j: usize| all[i].hops.iter().any(|(p, _)| all[j].hops.iter().any(|(q, _)| p == q));
    let mut fills = 0usize;
    let mut value = |set: &[usize]| -> f64 {
        let disjoint = set.iter().enumerate().all(|(a, &i)| set[a + 1..].iter().all(|&j| !shares(i, j)));
        if disjoint {
            let mut forms: SmallVec<[mobius::Mobius; 20]> = set.iter().map(|&i| all[i].form).collect();
            disjoint_value(&mut forms, amount)
        } else if fills >= FILL_BUDGET {
            // Out of joint evaluations: prefer pool-disjoint sets from here on.
            f64::NEG_INFINITY
        } else {
            fills += 1;
            let v: Vec<&Candidate> = set.iter().map(|&i| all[i]).collect();
            water_fill_with(graph, &v, amount, CHUNKS_FAST, POLISH_FAST).1
        }
    };
    // Forward: after filling the kept paths, the next path is the one with the largest surplus at the kept
    // split's marginal rate λ on the pools as that split leaves them, so a shared bottleneck counts once.
    let mut kept: Vec<usize> = Vec::new();
    let mut current = 0.0;
    if let Some(first) = (0..n).max_by(|&a, &b| all[a].form.out(amount).total_cmp(&all[b].form.out(amount))) {
        kept.push(first);
        current = value(&[first]);
    }
    while !kept.is_empty() && kept.len() < max_splits {
        let set: Vec<&Candidate> = kept.iter().map(|&i| all[i]).collect();
        let (_, _, mut state) = water_fill_state(graph, &set, amount, CHUNKS_FAST);
        let probe = amount * MARGINAL_PROBE;
        let lambda = state.run(graph, &all[kept[0]].hops, probe, false) / probe;
        let scored = (0..n)
            .filter(|i| !kept.contains(i))
            .map(|i| (i, state.form(graph, &all[i].hops).map_or(0.0, |m| m.surplus(lambda, amount))))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match scored {
            Some((i, surplus)) if surplus > current * MIN_SURPLUS_SHARE => {
                kept.push(i);
                // A positive surplus on the filled state is a gain; the coarse fill may not show it, so it
                // does not veto the pick (paths that end up without flow are dropped when settling).
                let v = value(&kept);
                current = if v.is_finite() { v.max(current) } else { current };
            }
            _ => break,
        }
    }
    for _round in 0..SWAP_ROUNDS {
        let mut improved = false;
        for slot in 0..kept.len() {
            let mut best: Option<(usize, f64)> = None;
            for i in 0..n {
                if kept.contains(&i) {
                    continue;
                }
                let mut trial = kept.clone();
                trial[slot] = i;
                let v = value(&trial);
                if v > current * (1.0 + MIN_RELATIVE_GAIN) && best.is_none_or(|(_, b)| v > b) {
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
