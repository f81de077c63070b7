//! Stage 5, splicing: the split's routes recombined where they meet another path.
//!
//! Routes that pass a common asset (the native hub, most often) can swap what follows it: two routes
//! `P₁·S₁` and `P₂·S₂` through one asset carry the same flows as `P₁·S₂` and `P₂·S₁` would, but each
//! pairing moves different pools by different amounts, and only one of them is the better split. The path
//! searches rank whole paths one by one, so the partner a pairing needs is often one no search kept (a
//! shallow last pool that pays only beside another route's deep first pool). Selection's swaps change one
//! route at a time, and a re-pairing changes two; pricing adds or replaces the smallest route only.
//!
//! Owns that local search: a route replaced by its prefix and another path's suffix (or the reverse), the
//! other path a route of the split or a candidate of the searches, and two routes crossed. Each round ranks
//! the trials by an estimated gain (see [`Splicer::trials`]), polishes the best few from the current flows,
//! and keeps the first whose polished output (net of network fees) beats the split; a round with none ends
//! the search, and [`SPLICE_TRIALS`] polishes bound it per quote. Must not search the graph (its paths come
//! from the split and the candidates) nor settle amounts; a spliced path is chainable ([`PoolGraph::chains`]),
//! simple, within `max_length`, and shares no pool with the split's other routes
//! ([`crate::route::sim::shares_pool`]).

use ahash::{AHashMap, AHashSet};
use smallvec::SmallVec;

use super::water_fill::FloatState;
use crate::graph::{AssetId, HandOffPolicy, PoolGraph};
use crate::pool::estimate as mobius;
use crate::pool::Curve;
use crate::route::joint::Joint;
use crate::route::paths::Candidate;
use crate::route::sim::{shares_pool, Hop};
use crate::route::tuning::{MIN_RELATIVE_GAIN, POLISH_PRICING, SPLICE_ROUNDS, SPLICE_TRIALS, SPLICE_TRIES_PER_ROUND};

/// The hasher of the distinct splices (fixed, so that answers do not depend on a random seed).
const SPLICE_HASHER: ahash::RandomState =
    ahash::RandomState::with_seeds(0x0b4c_5f1e, 0x3a8d_2c77, 0x91e6_04b3, 0x5d2f_7a19);

/// Relative step of the forward difference that reads a path's marginal rate at its flow.
const LOCAL_PROBE: f64 = 1e-6;

/// Hops of a path.
type Hops = SmallVec<[Hop; 5]>;

/// What splicing may build: the graph, the chaining rule and the hop limit of the request.
pub(crate) struct Splicer<'a> {
    pub graph: &'a PoolGraph,
    pub policy: HandOffPolicy,
    pub max_length: usize,
}

/// Part of a path: its hops and the assets they pass (one more than the hops).
#[derive(Clone, Copy)]
struct Segment<'s> {
    hops: &'s [Hop],
    assets: &'s [AssetId],
}

/// The distinct heads into and tails out of each asset between the ends of some paths: many paths share the
/// head or tail a splice takes. The candidates' are indexed at the assets the split passes, each round.
#[derive(Default)]
struct Joints<'s> {
    heads: AHashMap<AssetId, SmallVec<[Segment<'s>; 8]>>,
    tails: AHashMap<AssetId, SmallVec<[Segment<'s>; 8]>>,
}

impl<'s> Joints<'s> {
    /// The joints of `paths` (each path's hops and the assets it passes) at the assets `at` (those where a
    /// route of the split can be spliced: indexing only them keeps a split that finds nothing cheap).
    fn new(paths: impl Iterator<Item = (&'s [Hop], &'s [AssetId])>, at: &[AssetId]) -> Joints<'s> {
        let mut joints = Joints::default();
        // A segment's hops fix the asset it ends or starts at, so they alone tell a repeat.
        let mut seen: AHashSet<(bool, &[Hop])> = AHashSet::default();
        for (hops, assets) in paths {
            for j in (1..hops.len()).filter(|&j| at.contains(&assets[j])) {
                if seen.insert((true, &hops[..j])) {
                    joints
                        .heads
                        .entry(assets[j])
                        .or_default()
                        .push(Segment { hops: &hops[..j], assets: &assets[..=j] });
                }
                if seen.insert((false, &hops[j..])) {
                    joints.tails.entry(assets[j]).or_default().push(Segment { hops: &hops[j..], assets: &assets[j..] });
                }
            }
        }
        joints
    }

    /// The heads into `asset`.
    fn heads(&self, asset: AssetId) -> &[Segment<'s>] {
        self.heads.get(&asset).map_or(&[], |v| v.as_slice())
    }

    /// The tails out of `asset`.
    fn tails(&self, asset: AssetId) -> &[Segment<'s>] {
        self.tails.get(&asset).map_or(&[], |v| v.as_slice())
    }
}

/// One trial: the routes it replaces (slot, new path), and the gain it is estimated to bring.
struct Trial {
    replace: SmallVec<[(usize, Hops); 2]>,
    gain: f64,
}

impl Splicer<'_> {
    /// The assets a path passes, its input first.
    fn assets(&self, hops: &[Hop]) -> SmallVec<[AssetId; 6]> {
        let mut out: SmallVec<[AssetId; 6]> = SmallVec::new();
        for (i, &(pool, dir)) in hops.iter().enumerate() {
            let assets = self.graph.pool(pool).assets;
            if i == 0 {
                out.push(assets[dir.in_index()]);
            }
            out.push(assets[1 - dir.in_index()]);
        }
        out
    }

    /// Whether a head (hops and assets, the joint last) followed by a tail (hops and assets, the joint first)
    /// is a path: simple, within the hop limit, and the chaining rule lets it through at the joint.
    fn joins(&self, head: Segment<'_>, tail: Segment<'_>) -> bool {
        if head.hops.len() + tail.hops.len() > self.max_length {
            return false;
        }
        let (before, after) = (&head.assets[..head.assets.len() - 1], &tail.assets[1..]);
        if before.iter().any(|a| after.contains(a)) {
            return false;
        }
        let (last, first) = (head.hops[head.hops.len() - 1].0, tail.hops[0].0);
        self.graph.chains(self.policy, last, first, tail.assets[0])
    }

    /// The path of a head followed by a tail, where [`Self::joins`] says it is one.
    fn glue(&self, head: Segment<'_>, tail: Segment<'_>) -> Option<Hops> {
        self.joins(head, tail).then(|| head.hops.iter().chain(tail.hops).copied().collect())
    }

    /// Every splice of `route` with `other` (their assets `ra`, `oa`, see [`Self::assets`]) at the assets
    /// they share between their ends: `(route's head and other's tail, other's head and route's tail)`,
    /// either missing where it is no path.
    fn splices(
        &self,
        route: &[Hop],
        ra: &[AssetId],
        other: &[Hop],
        oa: &[AssetId],
        mut found: impl FnMut(Option<Hops>, Option<Hops>),
    ) {
        for i in 1..route.len() {
            for j in 1..other.len() {
                if ra[i] == oa[j] {
                    let (route_head, route_tail) = (
                        Segment { hops: &route[..i], assets: &ra[..=i] },
                        Segment { hops: &route[i..], assets: &ra[i..] },
                    );
                    let (other_head, other_tail) = (
                        Segment { hops: &other[..j], assets: &oa[..=j] },
                        Segment { hops: &other[j..], assets: &oa[j..] },
                    );
                    found(self.glue(route_head, other_tail), self.glue(other_head, route_tail));
                }
            }
        }
    }

    /// A path with its form on the graph's reserves (`None` through an empty pool).
    fn candidate(&self, hops: Hops) -> Option<Candidate> {
        let form = hops
            .iter()
            .try_fold(mobius::Mobius { s: 1.0, c: 0.0 }, |m, &(pool, dir)| Some(m.then(self.graph.form(pool, dir)?)))?;
        Some(Candidate { hops, form })
    }

    /// The split `active` with `flows` (float output `value`) improved by splices with each other and with
    /// `others`, or `None` when no splice raises its output net of network fees (`fee`: a path's fee in
    /// output units, 0 without fees). Returns the new set, its flows and its float output.
    pub(crate) fn improve(
        &self,
        mut active: Vec<Candidate>,
        mut flows: Vec<f64>,
        value: f64,
        others: &[Candidate],
        amount: f64,
        fee: &dyn Fn(&[Hop]) -> f64,
    ) -> Option<(Vec<Candidate>, Vec<f64>, f64)> {
        let fees_of = |set: &[Candidate]| set.iter().map(|c| fee(&c.hops)).sum::<f64>();
        let other_assets: Vec<SmallVec<[AssetId; 6]>> = others.iter().map(|c| self.assets(&c.hops)).collect();
        let mut net = value - fees_of(&active);
        let mut improved = false;
        let mut polishes = SPLICE_TRIALS;
        for _round in 0..SPLICE_ROUNDS {
            let least = net.abs() * MIN_RELATIVE_GAIN;
            // The candidates' joints at the assets the split's routes pass between their ends.
            let mut at: SmallVec<[AssetId; 16]> = SmallVec::new();
            for c in &active {
                at.extend(self.assets(&c.hops).into_iter().skip(1).take(c.hops.len() - 1));
            }
            let other_joints = Joints::new(others.iter().zip(&other_assets).map(|(c, a)| (&c.hops[..], &a[..])), &at);
            let mut trials = self.trials(&active, &flows, &other_joints, amount, fee, least);
            trials.sort_by(|a, b| b.gain.total_cmp(&a.gain));
            let need = net + least;
            let mut accepted = None;
            for trial in trials.into_iter().take(SPLICE_TRIES_PER_ROUND.min(polishes)) {
                polishes -= 1;
                let mut set = active.clone();
                let mut made = true;
                for (slot, hops) in trial.replace {
                    match self.candidate(hops) {
                        Some(c) => set[slot] = c,
                        None => made = false,
                    }
                }
                if !made {
                    continue;
                }
                // The new paths start with the flows of the routes they replace; the polish moves the rest.
                let mut set_flows = flows.clone();
                let refs: Vec<&Candidate> = set.iter().collect();
                let v = Joint::new(self.graph, &refs).polish(&mut set_flows, amount, POLISH_PRICING) - fees_of(&set);
                if v > need {
                    accepted = Some((set, set_flows, v));
                    break;
                }
            }
            let Some((set, set_flows, v)) = accepted else { break };
            (active, flows, net, improved) = (set, set_flows, v, true);
            // Routes the polish emptied leave the split (settlement drops them anyway).
            if flows.iter().any(|f| *f <= 0.0) {
                (active, flows) = active.into_iter().zip(flows).filter(|(_, f)| *f > 0.0).unzip();
            }
            if polishes == 0 || active.len() < 2 {
                break;
            }
        }
        improved.then(|| {
            let value = net + fees_of(&active);
            (active, flows, value)
        })
    }

    /// The splices of the split `active` (with `flows`), each with the gain it is estimated to bring: on
    /// the pools as the other routes leave them, what the new path can earn above the split's marginal rate
    /// λ (its surplus, [`mobius::Mobius::surplus`]) less what the route it replaces earns above λ at its
    /// flow, net of network fees: the freed input goes where it earns most, and the rest of the split takes
    /// or gives input at λ. Two crossed routes are estimated together on the pools as the others leave them.
    fn trials(
        &self,
        active: &[Candidate],
        flows: &[f64],
        others: &Joints<'_>,
        amount: f64,
        fee: &dyn Fn(&[Hop]) -> f64,
        least: f64,
    ) -> Vec<Trial> {
        let graph = self.graph;
        let k = active.len();
        let without = |skip: &[usize]| {
            let mut state = FloatState::default();
            for (i, c) in active.iter().enumerate() {
                if !skip.contains(&i) && flows[i] > 0.0 {
                    state.run(graph, &c.hops, flows[i], true);
                }
            }
            state
        };
        let alone: Vec<FloatState> = (0..k).map(|r| without(&[r])).collect();
        // Two estimates of what replacing route `r` by a path gains, both net of network fees. At fixed flows
        // (the path takes `r`'s flow, run after every other route): exact in the float model with the rest of
        // the split held, but blind to a pairing that pays only once the flows move. At `r`'s marginal rate λ
        // (the split's, where its routes' marginals are equal): the path's surplus `max_t out(t) − λ·t` on the
        // pools as the others leave them, less `r`'s own, as if the rest of the split gave or took input at λ:
        // first order in the flows that move. A splice that shares a pool with the routes it stays beside is
        // never tried (a split's routes share no pool, see `shares_pool`).
        // A path's output for `t` on `state` (run after every other route), net of its fee, and its curve near
        // `t` as the Möbius map through the origin with its float output and marginal rate at `t` (a path's
        // own map, read at zero size, is far off for a whale through a stable pool): `s·t / (1 + c·t) = out`,
        // `s / (1 + c·t)² = marginal`.
        let read = |state: &FloatState, hops: &[Hop], t: f64| {
            let out = state.out(graph, hops, t);
            let marginal = (state.out(graph, hops, t * (1.0 + LOCAL_PROBE)) - out) / (t * LOCAL_PROBE);
            let local = (out > 0.0 && marginal > 0.0 && t > 0.0).then(|| {
                let c = ((out / (marginal * t) - 1.0) / t).max(0.0);
                mobius::Mobius { s: marginal * (1.0 + c * t).powi(2), c }
            });
            (out - fee(hops), local)
        };
        let fixed = |state: &FloatState, hops: &[Hop], t: f64| state.out(graph, hops, t) - fee(hops);
        let surplus = |local: Option<mobius::Mobius>, hops: &[Hop], lambda: f64| {
            local.map_or(0.0, |m| m.surplus(lambda, amount)) - fee(hops)
        };
        let apart = |hops: &[Hop], skip: &[usize]| {
            active.iter().enumerate().filter(|(i, _)| !skip.contains(i)).all(|(_, c)| !shares_pool(&c.hops, hops))
        };
        let fresh = |hops: &Hops| !active.iter().any(|a| a.hops == *hops);
        let active_assets: Vec<SmallVec<[AssetId; 6]>> = active.iter().map(|c| self.assets(&c.hops)).collect();
        let all: SmallVec<[AssetId; 16]> = active_assets.iter().flat_map(|a| a.iter().copied()).collect();
        let mine = Joints::new(active.iter().zip(&active_assets).map(|(c, a)| (&c.hops[..], &a[..])), &all);
        let mut trials = Vec::new();
        // A segment's Möbius form on a state where every pool of it is constant product: exact (a chain of such
        // pools is the composed map), so a splice's estimate composes its two segments' forms instead of running
        // the whole path twice; other curves run the path (`read`).
        let exact = |hops: &[Hop]| {
            hops.iter().all(|(p, _)| matches!(graph.pool(*p).curve, Curve::ConstantProduct(_) | Curve::DexAVolatile(_)))
        };
        // The splices kept for one route (only those estimated to gain; a fixed hasher, though only membership
        // is read).
        let mut distinct: AHashSet<Hops> = AHashSet::with_hasher(SPLICE_HASHER);
        for r in 0..k {
            let state = &alone[r];
            let route = &active[r].hops;
            let ra = &active_assets[r];
            let t = flows[r];
            let (held, held_local) = read(state, route, t);
            let lambda = held_local.map_or(0.0, |m| m.marginal(t));
            let rated = lambda > 0.0 && lambda.is_finite();
            let held_surplus = surplus(held_local, route, lambda);
            let form = |hops: &[Hop]| if exact(hops) { state.form_over(graph, hops) } else { None };
            // What replacing `r` by `head·tail` is estimated to gain, with the path, where it is more than `least`
            // (`m`: the path's exact form where it has one, `apart`: whether it shares no pool with the other
            // routes, else it is no splice). With a form the estimate is first bounded without the path's
            // network fee, so that only the few paths that may gain are built.
            let gain = |head: Segment<'_>, tail: Segment<'_>, m: Option<mobius::Mobius>, apart: bool| {
                if !apart {
                    return None;
                }
                let estimate =
                    |out: f64, surplus: f64| if rated { (out - held).max(surplus - held_surplus) } else { out - held };
                if m.is_some_and(|m| estimate(m.out(t), m.surplus(lambda, amount)) <= least) {
                    return None;
                }
                let hops: Hops = head.hops.iter().chain(tail.hops).copied().collect();
                let (out, local) = match m {
                    Some(m) => (m.out(t) - fee(&hops), Some(m)),
                    None if rated => read(state, &hops, t),
                    None => (fixed(state, &hops, t), None),
                };
                let g = estimate(out, surplus(local, &hops, lambda));
                (g > least).then_some((g, hops))
            };
            distinct.clear();
            for i in 1..route.len() {
                let mine_head = Segment { hops: &route[..i], assets: &ra[..=i] };
                let mine_tail = Segment { hops: &route[i..], assets: &ra[i..] };
                let (head_form, tail_form) = (form(mine_head.hops), form(mine_tail.hops));
                let (head_apart, tail_apart) = (apart(mine_head.hops, &[r]), apart(mine_tail.hops, &[r]));
                let mut keep = |found: Option<(f64, Hops)>| {
                    if let Some((g, hops)) = found.filter(|(_, h)| fresh(h) && !distinct.contains(h)) {
                        distinct.insert(hops.clone());
                        trials.push(Trial { replace: SmallVec::from_iter([(r, hops)]), gain: g });
                    }
                };
                for &tail in mine.tails(ra[i]).iter().chain(others.tails(ra[i])) {
                    if self.joins(mine_head, tail) {
                        let m = head_form.zip(form(tail.hops)).map(|(h, t)| h.then(t));
                        keep(gain(mine_head, tail, m, head_apart && apart(tail.hops, &[r])));
                    }
                }
                for &head in mine.heads(ra[i]).iter().chain(others.heads(ra[i])) {
                    if self.joins(head, mine_tail) {
                        let m = form(head.hops).zip(tail_form).map(|(h, t)| h.then(t));
                        keep(gain(head, mine_tail, m, tail_apart && apart(head.hops, &[r])));
                    }
                }
            }
            // Two routes crossed: each takes the other's tail where they meet.
            for s in r + 1..k {
                let mut crossed: SmallVec<[(Hops, Hops); 2]> = SmallVec::new();
                self.splices(route, &active_assets[r], &active[s].hops, &active_assets[s], |a, b| {
                    if let (Some(a), Some(b)) = (a, b) {
                        if fresh(&a) && fresh(&b) && !crossed.iter().any(|(x, y)| *x == a && *y == b) {
                            crossed.push((a, b));
                        }
                    }
                });
                if crossed.is_empty() {
                    continue;
                }
                let state = without(&[r, s]);
                let pair = |first: &[Hop], second: &[Hop]| {
                    let mut st = state.clone();
                    st.run(graph, first, flows[r], true) - fee(first) + fixed(&st, second, flows[s])
                };
                let held = pair(route, &active[s].hops);
                let (lr, ls) = (read(&state, route, flows[r]).1, read(&state, &active[s].hops, flows[s]).1);
                let lambda =
                    0.5 * (lr.map_or(0.0, |m| m.marginal(flows[r])) + ls.map_or(0.0, |m| m.marginal(flows[s])));
                let rated = lambda > 0.0 && lambda.is_finite();
                let held_surplus = surplus(lr, route, lambda) + surplus(ls, &active[s].hops, lambda);
                // Both crossed routes share no pool with each other nor with the rest of the split.
                for (a, b) in crossed {
                    if shares_pool(&a, &b) || !apart(&a, &[r, s]) || !apart(&b, &[r, s]) {
                        continue;
                    }
                    let mut gain = pair(&a, &b) - held;
                    if rated {
                        let (la, lb) = (read(&state, &a, flows[r]).1, read(&state, &b, flows[s]).1);
                        gain = gain.max(surplus(la, &a, lambda) + surplus(lb, &b, lambda) - held_surplus);
                    }
                    if gain > least {
                        trials.push(Trial { replace: SmallVec::from_iter([(r, a), (s, b)]), gain });
                    }
                }
            }
        }
        trials
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pool::Direction;
    use crate::route::split::water_fill::water_fill_with;
    use crate::route::testkit::{cp_f, graph, path, DEPTH};
    use crate::route::tuning::{CHUNKS, POLISH};

    const D: f64 = DEPTH as f64;
    const F: Direction = Direction::ZeroToOne;

    /// The float output of `set` once its flows are polished as the split polishes a spliced set.
    fn polished(g: &PoolGraph, set: &[Candidate], flows: &mut [f64], amount: f64) -> f64 {
        let refs: Vec<&Candidate> = set.iter().collect();
        Joint::new(g, &refs).polish(flows, amount, POLISH)
    }

    fn pools(c: &Candidate) -> Vec<u32> {
        c.hops.iter().map(|(p, _)| p.0).collect()
    }

    /// Assets 0 → 1 → 2 over two pools each side of asset 1: a deep and a shallow pool into 1 (pools 0, 1),
    /// a deep and a shallow pool out of it (2, 3). The split deep·shallow + shallow·deep is the wrong
    /// pairing: deep·deep + shallow·shallow puts the larger flow through both deep pools.
    fn cross() -> PoolGraph {
        graph(
            3,
            &[
                (0, 1, [8 * DEPTH, 8 * DEPTH]),
                (0, 1, [DEPTH, DEPTH]),
                (1, 2, [8 * DEPTH, 8 * DEPTH]),
                (1, 2, [DEPTH, DEPTH]),
            ],
        )
    }

    #[test]
    fn two_routes_through_one_asset_are_paired_as_the_grid_finds_best() {
        let g = cross();
        let splicer = Splicer { graph: &g, policy: HandOffPolicy::SAFE, max_length: 3 };
        let crossed = vec![path(&g, &[(0, F), (3, F)]), path(&g, &[(1, F), (2, F)])];
        let amount = 2.0 * D;
        let refs: Vec<&Candidate> = crossed.iter().collect();
        let (flows, value) = water_fill_with(&g, &refs, amount, CHUNKS, POLISH);
        let (kept, mut kept_flows, _) =
            splicer.improve(crossed, flows, value, &[], amount, &|_| 0.0).expect("the other pairing pays more");
        let kept_value = polished(&g, &kept, &mut kept_flows, amount);
        let mut got: Vec<Vec<u32>> = kept.iter().map(pools).collect();
        got.sort();
        assert_eq!(got, vec![vec![0, 2], vec![1, 3]]);
        // The reference: the best split of the amount over the two pool-disjoint paths of each pairing, on a
        // grid, with the constant-product formula written out.
        let chain = |x1: f64, x2: f64, t: f64| cp_f(x2, x2, cp_f(x1, x1, t).0).0;
        let pairing = |a: f64, b: f64, c: f64, d: f64| {
            crate::route::testkit::argmax_1d(amount, 4_000, |t| chain(a, b, t) + chain(c, d, amount - t)).1
        };
        let good = pairing(8.0 * D, 8.0 * D, D, D);
        let bad = pairing(8.0 * D, D, D, 8.0 * D);
        assert!(good > bad * (1.0 + 1e-4), "{good} vs {bad}");
        assert!(kept_value >= good * (1.0 - 1e-6) && kept_value <= good * (1.0 + 1e-9), "{kept_value} vs {good}");
        assert!(kept_value > value);
        assert!((kept_flows.iter().sum::<f64>() - amount).abs() <= amount * 1e-9);
    }

    #[test]
    fn a_route_takes_the_tail_of_a_candidate_no_search_kept_beside_it() {
        // Pool 0 (0 → 1, deep) then pool 1 (1 → 2, shallow) beside the direct pool 3 (0 → 2); pool 2 is a
        // deep 1 → 2 pool that only the candidate 4·2 (through a tiny pool 4) passes. The route 0·1 takes the
        // candidate's tail: 0·2, deep both ways.
        let g = graph(
            3,
            &[
                (0, 1, [8 * DEPTH, 8 * DEPTH]),
                (1, 2, [DEPTH, DEPTH]),
                (1, 2, [8 * DEPTH, 8 * DEPTH]),
                (0, 2, [DEPTH, DEPTH]),
                (0, 1, [DEPTH / 100, DEPTH / 100]),
            ],
        );
        let splicer = Splicer { graph: &g, policy: HandOffPolicy::SAFE, max_length: 3 };
        let active = vec![path(&g, &[(0, F), (1, F)]), path(&g, &[(3, F)])];
        let candidate = path(&g, &[(4, F), (2, F)]);
        let amount = 2.0 * D;
        let refs: Vec<&Candidate> = active.iter().collect();
        let (flows, value) = water_fill_with(&g, &refs, amount, CHUNKS, POLISH);
        let (kept, mut kept_flows, _) = splicer
            .improve(active.clone(), flows.clone(), value, std::slice::from_ref(&candidate), amount, &|_| 0.0)
            .expect("the deep tail pays");
        let kept_value = polished(&g, &kept, &mut kept_flows, amount);
        let mut got: Vec<Vec<u32>> = kept.iter().map(pools).collect();
        got.sort();
        assert_eq!(got, vec![vec![0, 2], vec![3]]);
        let deep = |t: f64| cp_f(8.0 * D, 8.0 * D, cp_f(8.0 * D, 8.0 * D, t).0).0;
        let (_, optimum) = crate::route::testkit::argmax_1d(amount, 4_000, |t| deep(t) + cp_f(D, D, amount - t).0);
        assert!(
            kept_value >= optimum * (1.0 - 1e-6) && kept_value <= optimum * (1.0 + 1e-9),
            "{kept_value} vs {optimum}"
        );
        // Without the candidate, nothing to splice with: the two routes share no asset between their ends.
        assert!(splicer.improve(active, flows, value, &[], amount, &|_| 0.0).is_none());
        // A network fee on the deep tail's pool larger than what it gains keeps the split as it was.
        let expensive = |h: &[Hop]| if h.iter().any(|(p, _)| p.0 == 2) { optimum } else { 0.0 };
        let active = vec![path(&g, &[(0, F), (1, F)]), path(&g, &[(3, F)])];
        let refs: Vec<&Candidate> = active.iter().collect();
        let (flows, value) = water_fill_with(&g, &refs, amount, CHUNKS, POLISH);
        assert!(splicer.improve(active, flows, value, std::slice::from_ref(&candidate), amount, &expensive).is_none());
    }

    #[test]
    fn splices_are_simple_chainable_and_within_the_hop_limit() {
        // 0 → 1 → 2 → 3 and 0 → 2 → 1 → 3: at asset 1 the head 0·1 of the first and the tail 1·3 of the
        // second make 0 → 1 → 3; at asset 2 the head 0 → 1 → 2 and the tail 2 → 1 → 3 would pass 1 twice.
        let g = graph(
            4,
            &[
                (0, 1, [DEPTH, DEPTH]),
                (1, 2, [DEPTH, DEPTH]),
                (2, 3, [DEPTH, DEPTH]),
                (0, 2, [DEPTH, DEPTH]),
                (1, 3, [DEPTH, DEPTH]),
            ],
        );
        let a = path(&g, &[(0, F), (1, F), (2, F)]);
        let b = path(&g, &[(3, F), (1, Direction::OneToZero), (4, F)]);
        let all = |splicer: &Splicer<'_>| {
            let (aa, ba) = (splicer.assets(&a.hops), splicer.assets(&b.hops));
            let mut out: Vec<Hops> = Vec::new();
            splicer.splices(&a.hops, &aa, &b.hops, &ba, |x, y| out.extend(x.into_iter().chain(y)));
            out
        };
        let splicer = Splicer { graph: &g, policy: HandOffPolicy::SAFE, max_length: 3 };
        let out = all(&splicer);
        let mut got: Vec<Vec<u32>> = out.iter().map(|h| h.iter().map(|(p, _)| p.0).collect()).collect();
        got.sort();
        // At 1: a's head and b's tail make 0·4; b's head 0 → 2 → 1 and a's tail 1 → 2 → 3 pass 2 twice. At
        // 2: a's head 0 → 1 → 2 and b's tail 2 → 1 → 3 pass 1 twice; b's head and a's tail make 3·2.
        assert_eq!(got, vec![vec![0, 4], vec![3, 2]]);
        // With a hop limit of 1, nothing.
        let short = Splicer { graph: &g, policy: HandOffPolicy::SAFE, max_length: 1 };
        assert!(all(&short).is_empty());
        // Every splice's form is its own path's form.
        for hops in out {
            let spliced = splicer.candidate(hops.clone()).expect("every pool has reserves");
            let fresh = path(&g, &hops.iter().map(|h| (h.0 .0, h.1)).collect::<Vec<_>>());
            assert_eq!((spliced.form.s, spliced.form.c), (fresh.form.s, fresh.form.c));
        }
    }
}
