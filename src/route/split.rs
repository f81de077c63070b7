//! Splitting an amount over paths: float water-filling with joint pool state, the `max_splits` cut, network
//! fees, then exact integer settlement and exact local improvement.

use smallvec::SmallVec;

use super::gas::NetworkFees;
use super::joint::Joint;
use super::paths::{Bounds, Candidate, Objective, PoolState, Search};
use super::quote::{Quote, QuoteRequest, Route, Step};
use super::sim::{joint_output, Hop, Overlay};
use super::{RouteError, RouterConfig};
use crate::graph::{AssetId, PoolGraph, PoolId};
use crate::pool::estimate as mobius;
use crate::pool::PoolError;

/// Paths kept by the first search (best single route for the whole amount, by estimate); each is then
/// simulated exactly, which matters for small amounts where rounding, not the curve, decides.
const SINGLES: usize = 16;

/// Price impact of the best single path (estimated) from which the surplus search keeps [`WIDE`] times the
/// candidates it passes on, for diversification to choose among. On the peers' graphs, a threshold of 1 %
/// changes no answer by more than 0.01 bp and takes 15 % off the median relaxed-limit quote at 10k pools;
/// keeping the long list for every trade, or for none, costs time or up to 12 bp on whales.
const WIDE_IMPACT: f64 = 1e-2;

/// How many times the candidates passed on the surplus search keeps for trades past [`WIDE_IMPACT`].
const WIDE: usize = 4;

/// Chunks of the float water-filling: the allocation's granularity before exact refinement.
const CHUNKS: usize = 200;

/// Float state of the pools touched by an allocation: `(pool, [reserve0, reserve1])`.
#[derive(Clone, Default)]
struct FloatState {
    pools: SmallVec<[(PoolId, [f64; 2]); 32]>,
}

impl FloatState {
    fn get(&self, graph: &PoolGraph, pool: PoolId) -> [f64; 2] {
        match self.pools.iter().find(|(p, _)| *p == pool) {
            Some((_, r)) => *r,
            None => {
                let [a, b] = graph.reserves(pool);
                [a as f64, b as f64]
            }
        }
    }

    fn set(&mut self, pool: PoolId, r: [f64; 2]) {
        match self.pools.iter_mut().find(|(p, _)| *p == pool) {
            Some(slot) => slot.1 = r,
            None => self.pools.push((pool, r)),
        }
    }

    /// Output of `t` along `hops`; with `commit`, the new reserves are kept.
    fn run(&mut self, graph: &PoolGraph, hops: &[Hop], t: f64, commit: bool) -> f64 {
        let mut x = t;
        for &(pool, dir) in hops {
            let r = self.get(graph, pool);
            let (rin, rout) = match dir {
                crate::pool::Direction::ZeroToOne => (r[0], r[1]),
                crate::pool::Direction::OneToZero => (r[1], r[0]),
            };
            let Some((out, [nin, nout])) = mobius::float_out(&graph.pool(pool).curve, dir, [rin, rout], x) else {
                return 0.0;
            };
            if commit {
                let nr = match dir {
                    crate::pool::Direction::ZeroToOne => [nin, nout],
                    crate::pool::Direction::OneToZero => [nout, nin],
                };
                self.set(pool, nr);
            }
            x = out;
        }
        x
    }
}

/// Greedy water-filling: `CHUNKS` equal chunks, each to the path that turns it into the most output given
/// what earlier chunks did to shared pools. Returns the float flow per candidate.
fn water_fill(graph: &PoolGraph, cands: &[&Candidate], amount: f64) -> Vec<f64> {
    water_fill_state(graph, cands, amount, CHUNKS).0
}

/// [`water_fill`] with a chosen number of chunks, then `rounds` of Newton polish; also returns the float
/// total output, that of the routes run one after the other (as on chain, not chunk by chunk).
fn water_fill_with(
    graph: &PoolGraph,
    cands: &[&Candidate],
    amount: f64,
    chunks: usize,
    rounds: usize,
) -> (Vec<f64>, f64) {
    let (mut flows, total, _) = water_fill_state(graph, cands, amount, chunks);
    if cands.len() < 2 {
        return (flows, total);
    }
    let total = Joint::new(graph, cands).polish(&mut flows, amount, rounds);
    (flows, total)
}

/// [`water_fill_with`], also returning the pools' float state after the allocation.
fn water_fill_state(
    graph: &PoolGraph,
    cands: &[&Candidate],
    amount: f64,
    chunks: usize,
) -> (Vec<f64>, f64, FloatState) {
    let n = cands.len();
    let mut flows = vec![0.0; n];
    if n == 0 {
        return (flows, 0.0, FloatState::default());
    }
    if n == 1 {
        flows[0] = amount;
        let mut state = FloatState::default();
        let out = state.run(graph, &cands[0].hops, amount, true);
        return (flows, out, state);
    }
    let shares: Vec<Vec<bool>> = (0..n)
        .map(|i| (0..n).map(|j| cands[i].hops.iter().any(|(p, _)| cands[j].hops.iter().any(|(q, _)| p == q))).collect())
        .collect();
    let chunk = amount / chunks as f64;
    let mut state = FloatState::default();
    let mut gain: Vec<f64> = cands.iter().map(|c| state.run(graph, &c.hops, chunk, false)).collect();
    let mut total = 0.0;
    for _ in 0..chunks {
        let Some(best) = (0..n).max_by(|&a, &b| gain[a].total_cmp(&gain[b])) else { break };
        total += state.run(graph, &cands[best].hops, chunk, true);
        flows[best] += chunk;
        for j in 0..n {
            if shares[best][j] {
                gain[j] = state.run(graph, &cands[j].hops, chunk, false);
            }
        }
    }
    (flows, total, state)
}

impl FloatState {
    /// Möbius form of a path on this state.
    fn form(&self, graph: &PoolGraph, hops: &[Hop]) -> Option<mobius::Mobius> {
        let mut m = mobius::Mobius { s: 1.0, c: 0.0 };
        for &(pool, dir) in hops {
            let r = self.get(graph, pool);
            let (x, y) = match dir {
                crate::pool::Direction::ZeroToOne => (r[0], r[1]),
                crate::pool::Direction::OneToZero => (r[1], r[0]),
            };
            m = m.then(mobius::hop_f(&graph.pool(pool).curve, dir, x, y)?);
        }
        Some(m)
    }
}

/// Picks `keep` diverse candidates from a wide list: repeatedly the path with the largest surplus at λ on
/// the current float state, whose surplus-maximising flow is then committed, so paths that share a
/// bottleneck pool with an earlier pick lose their surplus and make room for other pools.
fn diversify(graph: &PoolGraph, wide: Vec<Candidate>, keep: usize, lambda: f64, amount: f64) -> Vec<Candidate> {
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

/// Chunks used while choosing which paths to keep when they share pools (the final fill uses [`CHUNKS`]).
const CHUNKS_FAST: usize = 32;

/// Newton rounds after a selection fill and after the final fill.
const POLISH_FAST: usize = 0;
const POLISH_PRICING: usize = 2;
const POLISH: usize = 6;

/// Joint water-fills the selection may spend on sets that share pools.
const FILL_BUDGET: usize = 48;

/// Float output of the optimal split of `amount` over pool-disjoint paths given by their Möbius forms: the
/// marginal rates `s/(1 + c·t)²` are equalised at λ, which for a known active set has the closed form
/// `1/√λ = (amount + Σ 1/c) / Σ (√s / c)`; the active set is the paths with the highest `s` that stay above λ.
fn disjoint_value(forms: &mut [mobius::Mobius], amount: f64) -> f64 {
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
fn choose_paths<'c>(graph: &PoolGraph, all: &[&'c Candidate], max_splits: usize, amount: f64) -> Vec<&'c Candidate> {
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
        let probe = amount * 1e-6;
        let lambda = state.run(graph, &all[kept[0]].hops, probe, false) / probe;
        let scored = (0..n)
            .filter(|i| !kept.contains(i))
            .map(|i| (i, state.form(graph, &all[i].hops).map_or(0.0, |m| m.surplus(lambda, amount))))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match scored {
            Some((i, surplus)) if surplus > current * 1e-9 => {
                kept.push(i);
                // A positive surplus on the filled state is a gain; the coarse fill may not show it, so it
                // does not veto the pick (paths that end up without flow are dropped when settling).
                let v = value(&kept);
                current = if v.is_finite() { v.max(current) } else { current };
            }
            _ => break,
        }
    }
    for _round in 0..3 {
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
                if v > current * (1.0 + 1e-12) && best.is_none_or(|(_, b)| v > b) {
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

/// Integer amounts from float flows: floors, with the rest to the largest, adding up exactly to `amount`.
fn integer_split(flows: &[f64], amount: u128) -> Vec<u128> {
    let total: f64 = flows.iter().sum();
    if total <= 0.0 {
        return vec![0; flows.len()];
    }
    let mut out: Vec<u128> = flows.iter().map(|f| ((f / total) * amount as f64).floor().max(0.0) as u128).collect();
    let assigned: u128 = out.iter().sum();
    let largest = (0..flows.len()).max_by(|&a, &b| flows[a].total_cmp(&flows[b])).unwrap_or(0);
    if assigned <= amount {
        out[largest] += amount - assigned;
    } else {
        // Float rounding overshot: take the excess from the largest share.
        out[largest] = out[largest].saturating_sub(assigned - amount);
    }
    out
}

/// A settled allocation: paths with exact integer inputs, simulated jointly.
#[derive(Clone)]
pub(crate) struct Plan {
    pub routes: Vec<(SmallVec<[Hop; 5]>, u128)>,
    pub out: u128,
    pub gas_value: u128,
}

impl Plan {
    fn net(&self) -> i128 {
        i128::try_from(self.out).unwrap_or(i128::MAX) - i128::try_from(self.gas_value).unwrap_or(i128::MAX)
    }
}

pub(crate) fn evaluate(graph: &PoolGraph, routes: &[(SmallVec<[Hop; 5]>, u128)]) -> Result<u128, PoolError> {
    let view: SmallVec<[(&[Hop], u128); 20]> = routes.iter().map(|(h, a)| (h.as_slice(), *a)).collect();
    joint_output(graph, &view)
}

/// Exact pairwise transfers between routes, step sizes shrinking, each kept only if the joint exact output
/// grows. Marginals are read route by route on the live reserves (exact for pool-disjoint routes, a guide
/// otherwise); every accepted move is checked with a full joint simulation.
fn refine(graph: &PoolGraph, routes: &mut [(SmallVec<[Hop; 5]>, u128)], out: &mut u128, amount: u128) {
    let k = routes.len();
    if k < 2 {
        return;
    }
    let base = Overlay::default();
    let mut delta = (amount / 256).max(1);
    // Moves below 2^-24 of the amount gain nothing worth their cost (each move re-simulates every route, and
    // a concentrated pool's swap walks its ticks).
    let smallest = (amount >> 24).max(1);
    let shared = routes
        .iter()
        .enumerate()
        .any(|(a, (h, _))| routes[a + 1..].iter().any(|(g, _)| h.iter().any(|(p, _)| g.iter().any(|(q, _)| p == q))));
    let mut evaluations = 0;
    // Per route, at the current step size: (gain of +delta, loss of −delta), or None when stale. A route's
    // entry only changes when its own amount or the step size does.
    let mut marginals: Vec<Option<(Option<u128>, Option<u128>)>> = vec![None; k];
    let mut last_delta = delta;
    while delta >= smallest && evaluations < 400 {
        if delta != last_delta {
            marginals.iter_mut().for_each(|m| *m = None);
            last_delta = delta;
        }
        let mut best_gain: Option<(usize, u128)> = None;
        let mut least_loss: Option<(usize, u128)> = None;
        for (i, (hops, a)) in routes.iter().enumerate() {
            let (gain, loss) = *marginals[i].get_or_insert_with(|| {
                let now = base.peek(graph, hops, *a).unwrap_or(0);
                let gain = base.peek(graph, hops, a.saturating_add(delta)).ok().map(|up| up.saturating_sub(now));
                let loss = (*a > delta).then(|| now.saturating_sub(base.peek(graph, hops, *a - delta).unwrap_or(0)));
                (gain, loss)
            });
            if let Some(g) = gain {
                if best_gain.is_none_or(|(_, bg)| g > bg) {
                    best_gain = Some((i, g));
                }
            }
            if let Some(l) = loss {
                if least_loss.is_none_or(|(_, bl)| l < bl) {
                    least_loss = Some((i, l));
                }
            }
        }
        let moved = match (best_gain, least_loss) {
            (Some((i, g)), Some((j, l))) if i != j && g > l => {
                routes[i].1 += delta;
                routes[j].1 -= delta;
                evaluations += 1;
                match evaluate(graph, routes) {
                    Ok(v) if v > *out => {
                        *out = v;
                        marginals[i] = None;
                        marginals[j] = None;
                        true
                    }
                    _ => {
                        routes[i].1 -= delta;
                        routes[j].1 += delta;
                        false
                    }
                }
            }
            _ => false,
        };
        // Where routes share a pool the marginals above (read on the live reserves) can mislead; before
        // giving up on this step size, try every transfer between two routes with a joint simulation.
        let paired = !moved && shared && k <= 6 && pair_search(graph, routes, out, delta, &mut evaluations);
        if paired {
            marginals.iter_mut().for_each(|m| *m = None);
        }
        let moved = moved || paired;
        // A step that pays is tried again twice as long (the float split can be far off, e.g. where a
        // concentrated pool leaves its range); one that does not is cut to a quarter.
        if moved {
            delta = delta.saturating_mul(2).min((amount / 8).max(1));
        } else {
            delta /= 4;
        }
    }
}

/// The best transfer of `delta` from one route to another by joint exact simulation; applies it if it
/// raises `out`.
fn pair_search(
    graph: &PoolGraph,
    routes: &mut [(SmallVec<[Hop; 5]>, u128)],
    out: &mut u128,
    delta: u128,
    evaluations: &mut usize,
) -> bool {
    let k = routes.len();
    let mut best: Option<(usize, usize, u128)> = None;
    for i in 0..k {
        for j in 0..k {
            if i == j || routes[j].1 <= delta {
                continue;
            }
            routes[i].1 += delta;
            routes[j].1 -= delta;
            *evaluations += 1;
            if let Ok(v) = evaluate(graph, routes) {
                if v > best.map_or(*out, |b| b.2) {
                    best = Some((i, j, v));
                }
            }
            routes[i].1 -= delta;
            routes[j].1 += delta;
        }
    }
    match best {
        Some((i, j, v)) => {
            routes[i].1 += delta;
            routes[j].1 -= delta;
            *out = v;
            true
        }
        None => false,
    }
}

/// Settles float flows into an exact plan; routes that refuse their share are dropped and their amount
/// goes to the others.
fn settle(
    graph: &PoolGraph,
    cands: &[&Candidate],
    flows: &[f64],
    amount: u128,
    gas: &dyn Fn(&[Hop]) -> u128,
) -> Option<Plan> {
    let mut order: Vec<usize> = (0..cands.len()).filter(|&i| flows[i] > 0.0).collect();
    order.sort_by(|&a, &b| flows[b].total_cmp(&flows[a]));
    let mut live: Vec<f64> = order.iter().map(|&i| flows[i]).collect();
    for _attempt in 0..32 {
        if order.is_empty() {
            return None;
        }
        let amounts = integer_split(&live, amount);
        let mut routes: Vec<(SmallVec<[Hop; 5]>, u128)> =
            order.iter().zip(&amounts).filter(|(_, a)| **a > 0).map(|(&i, &a)| (cands[i].hops.clone(), a)).collect();
        let mut overlay = Overlay::default();
        let mut failed = None;
        for (idx, (hops, a)) in routes.iter().enumerate() {
            if let Err(e) = overlay.run(graph, hops, *a) {
                failed = Some((idx, e));
                break;
            }
        }
        match failed {
            // A concentrated pool that runs out of range before the share is used refuses it; it can still
            // take what it used. Shrink its share to that (a little under, for the float error) and give the
            // rest to the other routes in proportion.
            Some((idx, PoolError::PriceLimitReached { amount_in_used }))
                if order.len() > 1 && routes[idx].0.len() == 1 && amount_in_used > 0 =>
            {
                let pos = order.iter().position(|&i| cands[i].hops == routes[idx].0).unwrap_or(order.len() - 1);
                let total: f64 = live.iter().sum();
                let capped = amount_in_used as f64 * 0.999 * total / amount as f64;
                if capped >= live[pos] * 0.999 {
                    order.remove(pos);
                    live.remove(pos);
                    continue;
                }
                let freed = live[pos] - capped;
                live[pos] = capped;
                let others: f64 = live.iter().enumerate().filter(|(i, _)| *i != pos).map(|(_, f)| f).sum();
                if others > 0.0 {
                    for (i, f) in live.iter_mut().enumerate() {
                        if i != pos {
                            *f += freed * *f / others;
                        }
                    }
                }
            }
            Some((idx, _)) if order.len() > 1 => {
                // Drop the smallest refusing share and retry.
                let pos = order.iter().position(|&i| cands[i].hops == routes[idx].0).unwrap_or(order.len() - 1);
                order.remove(pos);
                live.remove(pos);
            }
            Some(_) => return None,
            None => {
                let mut out = evaluate(graph, &routes).ok()?;
                refine(graph, &mut routes, &mut out, amount);
                routes.retain(|(_, a)| *a > 0);
                let gas_value = routes.iter().map(|(h, _)| gas(h)).sum();
                return Some(Plan { routes, out, gas_value });
            }
        }
    }
    None
}

/// The whole quote: candidates, best single route, split, settlement, fields.
pub(crate) fn best_quote(
    graph: &PoolGraph,
    config: &RouterConfig,
    request: &QuoteRequest,
    src: AssetId,
    dst: AssetId,
) -> Result<Quote, RouteError> {
    let found = best_plan(graph, config, request, src, dst)?;
    Ok(build_quote(graph, request, &found.plan, found.best_single_out, found.spot, &config.network_fees))
}

/// The outcome of an exact-in search: the plan, the best single route's output, the best spot rate.
pub(crate) struct Found {
    pub plan: Plan,
    pub best_single_out: u128,
    pub spot: f64,
}

/// Exact-in: the best plan for `request.amount` of input.
pub(crate) fn best_plan(
    graph: &PoolGraph,
    config: &RouterConfig,
    request: &QuoteRequest,
    src: AssetId,
    dst: AssetId,
) -> Result<Found, RouteError> {
    let amount = request.amount;
    let amount_f = amount as f64;
    let max_length = request.max_length;
    let native = graph.asset_id(&crate::asset::Asset::Native);
    // The search reads levels up to max_length − 1 (a path's first hop is already taken when it asks); the
    // network-fee rate reads native → output, which the hub reaches within two hops.
    let bounds = Bounds::compute(graph, dst, max_length.saturating_sub(1).max(2), native);
    let no_path =
        || RouteError::NoPath { from: request.in_asset.to_string(), to: request.out_asset.to_string(), max_length };

    // Pass 1: the best single paths for the whole amount (by estimate).
    let (singles, hub_order) =
        Search::new(graph, &bounds, dst, max_length, Objective::Output { amount: amount_f }, SINGLES)
            .run_keeping_order(src);
    if singles.is_empty() {
        // Distinguish "no path at all" from "paths exist but all estimate to nothing".
        let any = Search::new(graph, &bounds, dst, max_length, Objective::Output { amount: 1.0 }, 1).run(src);
        if any.is_empty() {
            return Err(no_path());
        }
    }

    // The value of a nanoton in output units, for network fees.
    let ton_rate = match native {
        Some(n) if n == dst => 1.0,
        Some(n) => bounds.rate(max_length.max(2), n),
        None => 0.0,
    };
    let fees: NetworkFees = config.network_fees;
    let gas = |hops: &[Hop]| -> u128 {
        let Some(&(first, _)) = hops.first() else { return 0 };
        let fee = fees.route_fee(graph.pool(first).protocol, hops.len());
        (fee as f64 * ton_rate).floor().max(0.0) as u128
    };

    // Pass 2: paths with the largest surplus at the marginal rate λ of the best single path.
    let mut candidates: Vec<Candidate> = singles.iter().map(|(_, c)| c.clone()).collect();
    if request.max_splits > 1 {
        if let Some((_, best)) = singles.first() {
            let lambda = best.form.marginal(amount_f).max(best.form.s * 1e-9);
            let keep = config.max_candidates.max(request.max_splits * 3);
            let objective = Objective::Surplus { lambda, amount: amount_f };
            // A trade the best single path carries with little price impact splits over few paths; one that
            // moves it far needs the long list (many pools, each taking a little).
            let impact = 1.0 - best.form.out(amount_f) / (amount_f * best.form.s);
            let wide_keep = if impact >= WIDE_IMPACT { keep * WIDE } else { keep };
            let wide =
                Search::new(graph, &bounds, dst, max_length, objective, wide_keep).with_hub_order(hub_order).run(src);
            let surplus = diversify(graph, wide.into_iter().map(|(_, c)| c).collect(), keep, lambda, amount_f);
            for c in surplus {
                if !candidates.iter().any(|d| d.hops == c.hops) {
                    candidates.push(c);
                }
            }
        }
    }

    // Best single route, exact, net of network fee. Every candidate may serve alone.
    let base = Overlay::default();
    let mut best_single: Option<Plan> = None;
    let mut refusal = None;
    let consider = |c: &Candidate, best_single: &mut Option<Plan>, refusal: &mut Option<PoolError>| match base
        .peek(graph, &c.hops, amount)
    {
        Ok(out) => {
            let plan = Plan { routes: vec![(c.hops.clone(), amount)], out, gas_value: gas(&c.hops) };
            if best_single.as_ref().is_none_or(|b| plan.net() > b.net()) {
                *best_single = Some(plan);
            }
        }
        Err(e) => *refusal = refusal.or(Some(e)),
    };
    for c in &candidates {
        consider(c, &mut best_single, &mut refusal);
    }
    // Estimates know nothing of the contracts' refusals (reserve ceilings, overflow, zero output); when one
    // of the best estimated paths refused, look at many more, exactly.
    if refusal.is_some() {
        let objective = Objective::Output { amount: amount_f };
        for (_, c) in Search::new(graph, &bounds, dst, max_length, objective, 64).with_floor(0.0).run(src) {
            if !candidates.iter().any(|d| d.hops == c.hops) {
                consider(&c, &mut best_single, &mut refusal);
                candidates.push(c);
            }
        }
    }

    let mut chosen = best_single.clone();
    if request.max_splits > 1 && candidates.len() > 1 {
        // Built on the first pricing round: most quotes never price.
        let allowed = std::cell::OnceCell::new();
        let pricing = |state: &PoolState, lambda: f64, least: f64, keep: usize| -> Vec<Candidate> {
            let allowed = allowed.get_or_init(|| pricing_area(graph, &candidates, [src, dst]));
            let objective = Objective::Surplus { lambda, amount: amount_f };
            let search = Search::new(graph, &bounds, dst, max_length, objective, keep).within(allowed).uncapped();
            search.with_state(state).with_threshold(least).run(src).into_iter().map(|(_, c)| c).collect()
        };
        let with_gas = fees != NetworkFees::ZERO;
        if let Some(plan) = split_plan(graph, &candidates, request.max_splits, amount, &gas, with_gas, &pricing) {
            if chosen.as_ref().is_none_or(|b| plan.net() > b.net()) {
                chosen = Some(plan);
            }
        }
    }
    let Some(plan) = chosen else {
        return Err(match refusal {
            Some(reason) => RouteError::AmountRefused { reason },
            None => no_path(),
        });
    };
    let best_single_out = best_single.as_ref().map_or(0, |b| b.out);
    let spot = candidates.iter().map(|c| c.form.s).fold(0.0, f64::max);
    Ok(Found { plan, best_single_out, spot })
}

/// The assets pricing may pass: those of the candidates (the searches on untouched reserves have found where
/// the liquidity is, and confining pricing to it keeps it cheap), and those within two hops of either end
/// through assets that are not hubs (the pools near the output and the input decide a whale's price).
fn pricing_area(graph: &PoolGraph, candidates: &[Candidate], ends: [AssetId; 2]) -> Vec<bool> {
    let mut allowed = vec![false; graph.asset_count()];
    for c in candidates {
        for &(pool, _) in &c.hops {
            for a in graph.pool(pool).assets {
                allowed[a.index()] = true;
            }
        }
    }
    // The rings are walked apart from `allowed`: an asset the candidates already pass still opens its own
    // neighbours.
    let mut reached = vec![false; graph.asset_count()];
    for end in ends {
        reached[end.index()] = true;
        let mut ring = vec![end];
        for _ in 0..2 {
            let mut next = Vec::new();
            for &v in &ring {
                let edges = graph.edges(v);
                if edges.len() > ENDPOINT_DEGREE {
                    continue;
                }
                for e in edges {
                    allowed[e.to.index()] = true;
                    if !reached[e.to.index()] {
                        reached[e.to.index()] = true;
                        next.push(e.to);
                    }
                }
            }
            ring = next;
        }
    }
    allowed
}

/// New paths for a split, given the pools' float state after its flows and its marginal rate: the paths
/// with the largest surplus at that rate on that state, best first.
pub(crate) type Pricing<'p> = dyn Fn(&PoolState, f64, f64, usize) -> Vec<Candidate> + 'p;

/// Price impact (share of the spot value) below which a split is not priced.
const PRICING_IMPACT: f64 = 2e-5;

/// New paths tried per pricing round.
const PRICING_FRESH: usize = 4;

/// Assets with at most this many pools open their neighbours to pricing.
const ENDPOINT_DEGREE: usize = 256;

/// Relative spread of the routes' marginal rates below which the largest route's rate stands for all.
const LAMBDA_SPREAD: f64 = 1e-4;

/// Rounds of pricing: each searches the graph on the split's own state for a path worth adding.
const PRICING_ROUNDS: usize = 30;

/// The pools' float state after `flows` run route by route over `set`, and the marginal rate of each route
/// read on that state.
fn state_after(graph: &PoolGraph, set: &[&Candidate], flows: &[f64], amount: f64) -> (PoolState, Vec<f64>) {
    let mut state = FloatState::default();
    for (c, &f) in set.iter().zip(flows) {
        if f > 0.0 {
            state.run(graph, &c.hops, f, true);
        }
    }
    let probe = amount * 1e-6;
    let marginals = set.iter().map(|c| state.run(graph, &c.hops, probe, false) / probe).collect();
    (state.pools.iter().copied().collect(), marginals)
}

/// Column generation on top of the chosen set: while a path outside it has a positive surplus at the
/// split's marginal rate on the pools as the split leaves them, it joins (or replaces the smallest route
/// when the set is full), if the joint fill says the split gains. This finds paths through pools the
/// first searches, run on untouched reserves, ranked too low to keep. Returns the set with the flows
/// pricing last polished (`None` where it did not run).
fn price_in(
    graph: &PoolGraph,
    mut active: Vec<Candidate>,
    max_splits: usize,
    amount: f64,
    pricing: &Pricing<'_>,
) -> (Vec<Candidate>, Option<Vec<f64>>) {
    let (mut flows, mut value) = water_fill_with(graph, &refs(&active), amount, CHUNKS_FAST, POLISH_PRICING);
    // Pricing pays where the split moves prices: a set the fill gives to one route, or whose output is
    // within PRICING_IMPACT of the best spot rate, has nothing a new path could win back.
    let spot = active.iter().map(|c| c.form.s).fold(0.0, f64::max);
    let routes = flows.iter().filter(|f| **f > 0.0).count();
    if routes < 2 || value >= amount * spot * (1.0 - PRICING_IMPACT) {
        return (active, None);
    }
    for _ in 0..PRICING_ROUNDS {
        // Routes the fill left empty free their slots.
        if flows.iter().any(|f| *f <= 0.0) {
            (active, flows) = active.into_iter().zip(flows).filter(|(_, f)| *f > 0.0).unzip();
        }
        let (state, marginals) = state_after(graph, &refs(&active), &flows, amount);
        // The split's marginal rate is that of its largest route. The short polish can leave the routes'
        // marginals apart; when nothing pays at the largest route's rate, the smallest marginal (the most
        // permissive rate) gets one more look.
        let largest = (0..flows.len()).max_by(|&a, &b| flows[a].total_cmp(&flows[b])).unwrap_or(0);
        let primary = marginals.get(largest).copied().unwrap_or(0.0);
        let lowest = marginals.iter().copied().filter(|m| *m > 0.0).fold(primary, f64::min);
        let mut accepted = None;
        for lambda in [primary, lowest] {
            if lambda <= 0.0 || (lambda != primary && lambda > primary * (1.0 - LAMBDA_SPREAD)) {
                continue;
            }
            // A path must add at least a millionth of the split's output to be worth a route.
            // The split's own routes are usually among the best on its state: look past them.
            let found = pricing(&state, lambda, value * 1e-6, active.len() + PRICING_FRESH);
            accepted = first_gain(graph, &active, &flows, value, max_splits, amount, found);
            if accepted.is_some() {
                break;
            }
        }
        let Some((trial, trial_flows, trial_value)) = accepted else { break };
        active = trial;
        flows = trial_flows;
        value = trial_value;
    }
    (active, Some(flows))
}

/// The first of `found` (not already in `active`) whose joining raises the split's polished output: the
/// new set, its flows and its output. The trial starts from the current flows (a fresh fill's chunk is
/// coarser than the routes being compared): the new path takes the slot, and the flow, of the smallest
/// route when the set is full, or starts empty; the polish then moves flow to it if it pays.
fn first_gain(
    graph: &PoolGraph,
    active: &[Candidate],
    flows: &[f64],
    value: f64,
    max_splits: usize,
    amount: f64,
    found: Vec<Candidate>,
) -> Option<(Vec<Candidate>, Vec<f64>, f64)> {
    let smallest = (0..flows.len()).min_by(|&a, &b| flows[a].total_cmp(&flows[b])).unwrap_or(0);
    for fresh in found.into_iter().filter(|c| !active.iter().any(|a| a.hops == c.hops)) {
        let Some(form) = graph_form(graph, &fresh.hops) else { continue };
        let fresh = Candidate { hops: fresh.hops, form };
        let mut trial = active.to_vec();
        let mut trial_flows = flows.to_vec();
        let slot = if trial.len() < max_splits {
            trial.push(fresh);
            trial_flows.push(0.0);
            trial.len() - 1
        } else {
            trial[smallest] = fresh;
            smallest
        };
        let trial_value = Joint::new(graph, &refs(&trial)).polish(&mut trial_flows, amount, POLISH_PRICING);
        // The polish also moves the other routes' flows: the path counts only if it is given some.
        if trial_flows[slot] > 0.0 && trial_value > value * (1.0 + 1e-12) {
            return Some((trial, trial_flows, trial_value));
        }
    }
    None
}

fn refs(v: &[Candidate]) -> Vec<&Candidate> {
    v.iter().collect()
}

/// A path's Möbius form on the graph's reserves.
fn graph_form(graph: &PoolGraph, hops: &[Hop]) -> Option<mobius::Mobius> {
    hops.iter().try_fold(mobius::Mobius { s: 1.0, c: 0.0 }, |m, &(pool, dir)| Some(m.then(graph.form(pool, dir)?)))
}

/// Water-filling over the candidates, cut to `max_splits` routes, with network fees deciding how many.
fn split_plan(
    graph: &PoolGraph,
    candidates: &[Candidate],
    max_splits: usize,
    amount: u128,
    gas: &dyn Fn(&[Hop]) -> u128,
    with_gas: bool,
    pricing: &Pricing<'_>,
) -> Option<Plan> {
    let amount_f = amount as f64;
    let all: Vec<&Candidate> = candidates.iter().collect();
    let chosen: Vec<Candidate> = choose_paths(graph, &all, max_splits, amount_f).into_iter().cloned().collect();
    let (priced, warm) =
        if chosen.len() >= 2 { price_in(graph, chosen, max_splits, amount_f, pricing) } else { (chosen, None) };
    let mut active: Vec<&Candidate> = priced.iter().collect();
    let (mut flows, fresh) = water_fill_with(graph, &active, amount_f, CHUNKS, POLISH);
    // Pricing's own flows, polished further, can beat a fresh fill of its set: the fill's chunks are
    // coarse against twenty routes sharing pools.
    if let Some(mut warm) = warm {
        if Joint::new(graph, &active).polish(&mut warm, amount_f, POLISH) > fresh {
            flows = warm;
        }
    }
    let mut idx: Vec<usize> = (0..active.len()).filter(|&i| flows[i] > 0.0).collect();
    idx.sort_by(|&a, &b| flows[b].total_cmp(&flows[a]));
    active = idx.iter().map(|&i| active[i]).collect();
    flows = idx.iter().map(|&i| flows[i]).collect();

    let mut best = settle(graph, &active, &flows, amount, gas)?;
    if with_gas {
        // Fewer routes: drop the smallest and fill again while each route must pay for itself.
        let mut k = active.len();
        while k > 1 {
            k -= 1;
            let subset: Vec<&Candidate> = active[..k].to_vec();
            let sub_flows = water_fill(graph, &subset, amount_f);
            if let Some(plan) = settle(graph, &subset, &sub_flows, amount, gas) {
                if plan.net() > best.net() {
                    best = plan;
                }
            }
        }
    }
    Some(best)
}

/// `floor(out · (10000 − bps) / 10000)`, in U256: `out` may be close to 2^120 and the product would not fit
/// u128.
fn min_out(out: u128, slippage_bps: u32) -> u128 {
    let keep = primitive_types::U256::from(10_000 - slippage_bps.min(10_000));
    // The quotient is at most `out`, so it fits u128.
    (primitive_types::U256::from(out) * keep / primitive_types::U256::from(10_000u32)).low_u128()
}

/// `ceil(input · (10000 + bps) / 10000)`; below 2^121 for inputs below 2^120, so it fits u128.
fn max_in(input: u128, slippage_bps: u32) -> u128 {
    let grow = primitive_types::U256::from(10_000 + slippage_bps.min(10_000));
    let num = primitive_types::U256::from(input) * grow;
    let (q, r) = num.div_mod(primitive_types::U256::from(10_000u32));
    (q + if r.is_zero() { 0u8 } else { 1u8 }).low_u128()
}

pub(crate) fn build_quote(
    graph: &PoolGraph,
    request: &QuoteRequest,
    plan: &Plan,
    best_single_out: u128,
    spot: f64,
    fees: &NetworkFees,
) -> Quote {
    let mut overlay = Overlay::default();
    let mut routes: Vec<Route> = Vec::with_capacity(plan.routes.len());
    // Exact-in: the request's amount; exact-out: the input the plan found.
    let in_total: u128 = plan.routes.iter().map(|(_, a)| *a).sum();
    for (hops, amount) in &plan.routes {
        // The plan was simulated in this order already, so this run repeats it and cannot fail.
        let outs = overlay.run(graph, hops, *amount).unwrap_or_default();
        let mut steps = Vec::with_capacity(hops.len());
        let mut x = *amount;
        for (i, (&(pool, dir), &y)) in hops.iter().zip(outs.iter()).enumerate() {
            let meta = graph.pool(pool);
            let in_id = meta.assets[dir.in_index()];
            let out_id = meta.assets[1 - dir.in_index()];
            steps.push(Step {
                pool,
                pool_address: meta.address.clone(),
                protocol: meta.protocol,
                is_stable: meta.curve.is_stable(),
                direction: dir,
                in_asset: graph.asset(in_id).asset,
                out_asset: graph.asset(out_id).asset,
                in_amount: x,
                out_amount: y,
                network_fee: fees.step_fee(meta.protocol, i),
            });
            x = y;
        }
        let network_fee = steps.iter().map(|s| s.network_fee).sum();
        routes.push(Route {
            steps,
            in_amount: *amount,
            out_amount: x,
            in_percent: *amount as f64 * 100.0 / in_total as f64,
            network_fee,
            min_out: min_out(x, request.slippage_bps),
        });
    }
    let out_amount: u128 = routes.iter().map(|r| r.out_amount).sum();
    let ideal = in_total as f64 * spot;
    Quote {
        in_asset: request.in_asset,
        out_asset: request.out_asset,
        swap_mode: request.swap_mode,
        in_amount: in_total,
        max_in: max_in(in_total, request.slippage_bps),
        out_amount,
        min_out: routes.iter().map(|r| r.min_out).sum(),
        network_fee: routes.iter().map(|r| r.network_fee).sum(),
        routes,
        best_single_out,
        improvement: if best_single_out > 0 {
            (out_amount as f64 - best_single_out as f64) / best_single_out as f64
        } else {
            0.0
        },
        price_impact: if ideal > 0.0 { (1.0 - out_amount as f64 / ideal).max(0.0) } else { 0.0 },
        spot_rate: spot,
        slippage_bps: request.slippage_bps,
        swap_is_possible: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::Direction;
    use crate::route::testkit::{graph, path};

    #[test]
    fn pricing_area_opens_the_neighbours_of_assets_the_candidates_pass() {
        // 0 → 2 directly and through 1; asset 3 is a neighbour of 1 only, asset 4 a neighbour of 3 only.
        // Asset 1 is the output's neighbour and on a candidate already: its own neighbour 3 (two hops from
        // the output) must open to pricing; 4, three hops from either end and on no candidate, must not.
        let r = [1e12 as u128, 1e12 as u128];
        let g = graph(5, &[(0, 2, r), (0, 1, r), (1, 2, r), (1, 3, r), (3, 4, r)]);
        let candidates =
            [path(&g, &[(0, Direction::ZeroToOne)]), path(&g, &[(1, Direction::ZeroToOne), (2, Direction::ZeroToOne)])];
        let allowed = pricing_area(&g, &candidates, [AssetId(0), AssetId(2)]);
        assert_eq!(allowed, [true, true, true, true, false]);
    }
}
