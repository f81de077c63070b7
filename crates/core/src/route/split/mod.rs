//! The split of an exact-in amount over several paths, stage by stage.
//!
//! Owns the exact-in plan ([`best_plan`]) and the [`Planner`] it is made with, which exact-out shares:
//! the bounds toward the output (once per quote), the candidate searches ([`Planner::candidates`]: best
//! single paths for the whole amount, then the surplus search at the best path's marginal rate), and the
//! plan for one amount over given candidates ([`Planner::plan`]: the best single route and [`split_plan`]),
//! which runs the stages in order:
//! 1. `water_fill`: float flows over a fixed set of paths;
//! 2. `selection`: which candidates to use (diversification, forward selection, swaps);
//! 3. `settle`: exact integer amounts, simulated jointly, refined by exact transfers ([`Plan`]);
//! 4. `pricing`: column generation on the split's own state;
//! 5. `splice`: routes re-paired where they meet each other or a candidate (a route's head with another
//!    path's tail), kept when the settled output rises;
//! 6. `assemble`: the [`crate::route::Quote`] of a plan ([`build_quote`], also used by exact-out).
//!
//! **The routes of a split never share a pool** ([`crate::route::sim::shares_pool`]): the chain runs a
//! split's messages in the order they arrive, not in the order the plan simulated them, and only routes
//! through distinct pools pay the quoted output in every order (as Uniswap's router does). Selection, pricing
//! and splicing each refuse a path that shares a pool with the routes it would join; settlement and assembly
//! get pool-disjoint sets only. The candidate list itself may share pools (diversification reads that).
//!
//! Must not know about request validation (done by [`crate::route::Router`]) nor the wire. Tuning constants
//! live in `route::tuning`.

mod assemble;
mod pricing;
mod selection;
mod settle;
mod splice;
mod water_fill;

use std::cell::RefCell;

use crate::asset::Asset;
use crate::graph::{AssetId, PoolGraph};
use crate::pool::PoolError;
use crate::route::budget::Budget;
use crate::route::gas::NetworkFees;
use crate::route::joint::Joint;
use crate::route::paths::{Bounds, Candidate, Objective, PoolState, Search};
use crate::route::request::QuoteRequest;
use crate::route::sim::{AloneRuns, Hop};
use crate::route::tuning::{
    CANDIDATES_PER_SPLIT, CHUNKS, LAMBDA_FLOOR, POLISH, PRICING_IMPACT, REFUSAL_PATHS, SINGLES, SPLICE_CLEAR_GAIN,
    WIDE, WIDE_IMPACT,
};
use crate::route::{RouteError, RouterConfig};
pub(crate) use assemble::build_quote;
use pricing::{price_in, pricing_area, Pricing};
use selection::{choose_paths, diversify};
use settle::settle;
pub(crate) use settle::{evaluate, Plan};
use splice::Splicer;
use water_fill::{water_fill, water_fill_with};

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
    budget: Budget<'_>,
) -> Result<Found, RouteError> {
    let planner = Planner::new(graph, config, request, src, dst, budget);
    let mut candidates = planner.candidates(request.amount)?;
    planner.plan(&mut candidates, request.amount)
}

/// The candidate paths of one search, for plans at the amount searched or near it.
pub(crate) struct Candidates {
    /// The first pass's paths (best single paths for the amount searched, best first), then the surplus
    /// search's, then any the search for exact refusals added.
    pub paths: Vec<Candidate>,
    /// How many of `paths` the first pass found: the best single route is read among them.
    pub singles: usize,
}

/// What every plan of one quote shares: the request, the bounds toward the output (computed once), the
/// value of a nanoton in output units. Exact-in makes one plan; exact-out makes several at different
/// inputs over the same candidates (`route::exact_out`).
pub(crate) struct Planner<'a> {
    graph: &'a PoolGraph,
    config: &'a RouterConfig,
    request: &'a QuoteRequest,
    src: AssetId,
    dst: AssetId,
    budget: Budget<'a>,
    bounds: Bounds,
    /// The value of a nanoton in output units, for network fees.
    ton_rate: f64,
}

impl<'a> Planner<'a> {
    /// The bounds toward `dst` for `request`'s limits; nothing searched yet.
    pub(crate) fn new(
        graph: &'a PoolGraph,
        config: &'a RouterConfig,
        request: &'a QuoteRequest,
        src: AssetId,
        dst: AssetId,
        budget: Budget<'a>,
    ) -> Planner<'a> {
        let max_length = request.max_length;
        let native = graph.asset_id(&Asset::Native);
        // The search reads levels up to max_length − 1 (a path's first hop is already taken when it asks); the
        // network-fee rate reads native → output, which the hub reaches within two hops.
        let bounds = Bounds::compute(graph, dst, max_length.saturating_sub(1).max(2), native);
        let ton_rate = match native {
            Some(n) if n == dst => 1.0,
            Some(n) => bounds.rate(max_length.max(2), n),
            None => 0.0,
        };
        Planner { graph, config, request, src, dst, budget, bounds, ton_rate }
    }

    /// The budget of the quote.
    pub(crate) fn budget(&self) -> Budget<'a> {
        self.budget
    }

    /// An upper bound on the spot rate of any path within the request's `max_length` from the input to the
    /// output asset (0 when none reaches it), as bounds computed at that length give it.
    pub(crate) fn spot_bound(&self) -> f64 {
        self.bounds.rate_at(self.graph, self.request.max_length, self.src)
    }

    fn no_path(&self) -> RouteError {
        RouteError::NoPath {
            from: self.request.in_asset.to_string(),
            to: self.request.out_asset.to_string(),
            max_length: self.request.max_length,
        }
    }

    /// A route's network fee in output units.
    pub(crate) fn gas(&self, hops: &[Hop]) -> u128 {
        (self.config.network_fees.path_fee(self.graph, hops) as f64 * self.ton_rate).floor().max(0.0) as u128
    }

    /// The candidate paths for `amount`: the best single paths for the whole amount (by estimate), then the
    /// paths with the largest surplus at the best path's marginal rate.
    pub(crate) fn candidates(&self, amount: u128) -> Result<Candidates, RouteError> {
        let (graph, config, request, bounds, budget) =
            (self.graph, self.config, self.request, &self.bounds, self.budget);
        let (src, dst, max_length) = (self.src, self.dst, request.max_length);
        let amount_f = amount as f64;
        // Pass 1: the best single paths for the whole amount (by estimate).
        let (singles, hub_order) = Search::new(
            graph,
            config.handoffs,
            bounds,
            dst,
            max_length,
            Objective::Output { amount: amount_f },
            SINGLES,
        )
        .with_budget(budget)
        .only_swappable(config.swappable_only)
        .run_keeping_order(src);
        if singles.is_empty() && budget.latched() {
            return Err(RouteError::BudgetExhausted);
        }
        if singles.is_empty() {
            // Distinguish "no path at all" from "paths exist but all estimate to nothing".
            let any =
                Search::new(graph, config.handoffs, bounds, dst, max_length, Objective::Output { amount: 1.0 }, 1)
                    .with_budget(budget)
                    .only_swappable(config.swappable_only)
                    .run(src);
            if any.is_empty() {
                return Err(self.no_path());
            }
        }

        // Pass 2: paths with the largest surplus at the marginal rate λ of the best single path.
        let mut paths: Vec<Candidate> = singles.iter().map(|(_, c)| c.clone()).collect();
        let first = paths.len();
        if request.max_splits > 1 && !budget.exhausted() {
            if let Some((_, best)) = singles.first() {
                let lambda = best.form.marginal(amount_f).max(best.form.s * LAMBDA_FLOOR);
                let keep = config.max_candidates.max(request.max_splits * CANDIDATES_PER_SPLIT);
                let objective = Objective::Surplus { lambda, amount: amount_f };
                // A trade the best single path carries with little price impact splits over few paths; one that
                // moves it far needs the long list (many pools, each taking a little).
                let impact = 1.0 - best.form.out(amount_f) / (amount_f * best.form.s);
                let wide_keep = if impact >= WIDE_IMPACT { keep * WIDE } else { keep };
                let wide = Search::new(graph, config.handoffs, bounds, dst, max_length, objective, wide_keep)
                    .with_budget(budget)
                    .only_swappable(config.swappable_only)
                    .with_hub_order(hub_order)
                    .run(src);
                let surplus = diversify(graph, wide.into_iter().map(|(_, c)| c).collect(), keep, lambda, amount_f);
                for c in surplus {
                    if !paths.iter().any(|d| d.hops == c.hops) {
                        paths.push(c);
                    }
                }
            }
        }
        Ok(Candidates { paths, singles: first })
    }

    /// The best single route for `amount` among `paths`, exact, net of network fee, and the first refusal met.
    pub(crate) fn best_single(&self, paths: &[Candidate], amount: u128) -> (Option<Plan>, Option<PoolError>) {
        self.best_single_with(&RefCell::new(AloneRuns::default()), paths, amount)
    }

    /// [`Self::best_single`] keeping each route's run in `alone`, for a split that settles on one of them.
    fn best_single_with(
        &self,
        alone: &RefCell<AloneRuns>,
        paths: &[Candidate],
        amount: u128,
    ) -> (Option<Plan>, Option<PoolError>) {
        let mut best: Option<Plan> = None;
        let mut refusal = None;
        for c in paths {
            self.consider(alone, c, amount, &mut best, &mut refusal);
        }
        (best, refusal)
    }

    fn consider(
        &self,
        alone: &RefCell<AloneRuns>,
        c: &Candidate,
        amount: u128,
        best: &mut Option<Plan>,
        refusal: &mut Option<PoolError>,
    ) {
        let out =
            alone.borrow_mut().run(self.graph, &c.hops, amount).map(|outs| outs.last().copied().unwrap_or(amount));
        match out {
            Ok(out) => {
                let plan = Plan { routes: vec![(c.hops.clone(), amount)], out, gas_value: self.gas(&c.hops) };
                if best.as_ref().is_none_or(|b| plan.net() > b.net()) {
                    *best = Some(plan);
                }
            }
            Err(e) => *refusal = refusal.or(Some(e)),
        }
    }

    /// The best plan for `amount` over `candidates` (which a search for exact refusals may extend): the best
    /// single route, exact, against the split.
    pub(crate) fn plan(&self, candidates: &mut Candidates, amount: u128) -> Result<Found, RouteError> {
        let (graph, config, request, bounds, budget) =
            (self.graph, self.config, self.request, &self.bounds, self.budget);
        let (src, dst, max_length) = (self.src, self.dst, request.max_length);
        let amount_f = amount as f64;
        let gas = |hops: &[Hop]| self.gas(hops);
        let fees: NetworkFees = config.network_fees;

        // Best single route, exact, net of network fee. Every candidate may serve alone.
        let alone = RefCell::new(AloneRuns::default());
        let (mut best_single, mut refusal) = self.best_single_with(&alone, &candidates.paths, amount);
        // Estimates know nothing of the contracts' refusals (reserve ceilings, overflow, zero output); when one
        // of the best estimated paths refused, look at many more, exactly.
        if refusal.is_some() && !budget.exhausted() {
            let objective = Objective::Output { amount: amount_f };
            for (_, c) in Search::new(graph, config.handoffs, bounds, dst, max_length, objective, REFUSAL_PATHS)
                .with_budget(budget)
                .only_swappable(config.swappable_only)
                .with_floor(0.0)
                .run(src)
            {
                if !candidates.paths.iter().any(|d| d.hops == c.hops) {
                    self.consider(&alone, &c, amount, &mut best_single, &mut refusal);
                    candidates.paths.push(c);
                }
            }
        }
        let candidates = &candidates.paths;

        let mut chosen = best_single.clone();
        if request.max_splits > 1 && candidates.len() > 1 && !budget.exhausted() {
            // Built on the first pricing round: most quotes never price.
            let allowed = std::cell::OnceCell::new();
            let pricing = |state: &PoolState, lambda: f64, least: f64, keep: usize| -> Vec<Candidate> {
                let allowed = allowed.get_or_init(|| pricing_area(graph, candidates, [src, dst]));
                let objective = Objective::Surplus { lambda, amount: amount_f };
                let search = Search::new(graph, config.handoffs, bounds, dst, max_length, objective, keep)
                    .with_budget(budget)
                    .only_swappable(config.swappable_only)
                    .within(allowed)
                    .uncapped();
                search.with_state(state).with_threshold(least).run(src).into_iter().map(|(_, c)| c).collect()
            };
            let with_gas = fees != NetworkFees::ZERO;
            let splicer = Splicer { graph, policy: config.handoffs, max_length };
            if let Some(plan) = split_plan(
                graph,
                candidates,
                request.max_splits,
                amount,
                &gas,
                with_gas,
                &pricing,
                &splicer,
                budget,
                &alone,
            ) {
                if chosen.as_ref().is_none_or(|b| plan.net() > b.net()) {
                    chosen = Some(plan);
                }
            }
        }
        let Some(plan) = chosen else {
            if budget.latched() {
                return Err(RouteError::BudgetExhausted);
            }
            return Err(match refusal {
                Some(reason) => RouteError::AmountRefused { reason },
                None => self.no_path(),
            });
        };
        let best_single_out = best_single.as_ref().map_or(0, |b| b.out);
        let spot = candidates.iter().map(|c| c.form.s).fold(0.0, f64::max);
        Ok(Found { plan, best_single_out, spot })
    }
}

/// Water-filling over the candidates, cut to `max_splits` routes, with network fees deciding how many.
#[allow(clippy::too_many_arguments)] // the stage's inputs; a struct would only rename them
fn split_plan(
    graph: &PoolGraph,
    candidates: &[Candidate],
    max_splits: usize,
    amount: u128,
    gas: &dyn Fn(&[Hop]) -> u128,
    with_gas: bool,
    pricing: &Pricing<'_>,
    splicer: &Splicer<'_>,
    budget: Budget<'_>,
    alone: &RefCell<AloneRuns>,
) -> Option<Plan> {
    let amount_f = amount as f64;
    let all: Vec<&Candidate> = candidates.iter().collect();
    let fees: Vec<f64> = all.iter().map(|c| if with_gas { gas(&c.hops) as f64 } else { 0.0 }).collect();
    let chosen: Vec<Candidate> = choose_paths(graph, &all, &fees, max_splits, amount_f).into_iter().cloned().collect();
    let (priced, warm) =
        if chosen.len() >= 2 { price_in(graph, chosen, max_splits, amount_f, pricing) } else { (chosen, None) };
    let mut active: Vec<&Candidate> = priced.iter().collect();
    let (mut flows, mut value) = water_fill_with(graph, &active, amount_f, CHUNKS, POLISH);
    // Pricing's own flows, polished further, can beat a fresh fill of its set: the fill's chunks are
    // coarse against twenty routes.
    if let Some(mut warm) = warm {
        let polished = Joint::new(graph, &active).polish(&mut warm, amount_f, POLISH);
        if polished > value {
            flows = warm;
            value = polished;
        }
    }
    (active, flows) = by_flow(active, &flows);

    // Splicing (see `splice`) where the split moves prices, as pricing: the routes re-paired where they meet.
    let spot = active.iter().map(|c| c.form.s).fold(0.0, f64::max);
    let fee = |hops: &[Hop]| if with_gas { gas(hops) as f64 } else { 0.0 };
    let spliced = if active.len() >= 2 && !budget.exhausted() && value < amount_f * spot * (1.0 - PRICING_IMPACT) {
        splicer.improve(active.iter().map(|c| (*c).clone()).collect(), flows.clone(), value, candidates, amount_f, &fee)
    } else {
        None
    };
    // The spliced set is settled on its own and kept if its exact output is larger than the split's as it was.
    // Settlement ends within rounding of the float optimum, so where splicing gained clearly in floats the
    // split as it was is not settled at all.
    let spliced_set;
    let mut best: Option<Plan> = None;
    let (mut kept, mut clear) = (None, false);
    if let Some((set, mut set_flows, _)) = spliced {
        spliced_set = set;
        let refs: Vec<&Candidate> = spliced_set.iter().collect();
        let polished = Joint::new(graph, &refs).polish(&mut set_flows, amount_f, POLISH);
        let (set_active, set_flows) = by_flow(refs, &set_flows);
        if let Some(plan) = settle(graph, &set_active, &set_flows, amount, gas, alone) {
            let net = |set: &[&Candidate], v: f64| v - set.iter().map(|c| fee(&c.hops)).sum::<f64>();
            clear = net(&set_active, polished) > net(&active, value) * (1.0 + SPLICE_CLEAR_GAIN);
            (best, kept) = (Some(plan), Some(set_active));
        }
    }
    if !clear {
        if let Some(plan) = settle(graph, &active, &flows, amount, gas, alone) {
            if best.as_ref().is_none_or(|b| plan.net() >= b.net()) {
                (best, kept) = (Some(plan), None);
            }
        }
    }
    if let Some(set) = kept {
        active = set;
    }
    let mut best = best?;
    if with_gas {
        // Fewer routes: drop the smallest and fill again while each route must pay for itself.
        let mut k = active.len();
        while k > 1 && !budget.exhausted() {
            k -= 1;
            let subset: Vec<&Candidate> = active[..k].to_vec();
            let sub_flows = water_fill(graph, &subset, amount_f);
            if let Some(plan) = settle(graph, &subset, &sub_flows, amount, gas, alone) {
                if plan.net() > best.net() {
                    best = plan;
                }
            }
        }
    }
    Some(best)
}

/// The paths with flow, largest flow first, and their flows.
fn by_flow<'c>(active: Vec<&'c Candidate>, flows: &[f64]) -> (Vec<&'c Candidate>, Vec<f64>) {
    let mut idx: Vec<usize> = (0..active.len()).filter(|&i| flows[i] > 0.0).collect();
    idx.sort_by(|&a, &b| flows[b].total_cmp(&flows[a]));
    (idx.iter().map(|&i| active[i]).collect(), idx.iter().map(|&i| flows[i]).collect())
}

#[cfg(test)]
mod tests {
    use crate::asset::{Asset, JettonMaster};
    use crate::graph::PoolGraph;
    use crate::route::request::QuoteRequest;
    use crate::route::testkit::{cp, graph};
    use crate::route::{NetworkFees, Router, RouterConfig};

    /// The depth of the shallow pools: small, so that every integer split of a trade can be tried.
    const S: u128 = 1_000_000;

    /// Assets 0 → 1 over two pools of depth S (pools 0 and 1), then 1 → 2 over pool 2, a hundred times
    /// deeper; pool 3 goes 0 → 2 directly at depth S/2. Paths: P0 = pools 0, 2; P1 = pools 1, 2; P3 = pool 3.
    /// P0 and P1 share the deepest pool, and together they are the best split of a whale (a first hop of
    /// depth 2·S), but on chain their order through pool 2 is not the quote's.
    fn deep_last_pool() -> PoolGraph {
        graph(3, &[(0, 1, [S, S]), (0, 1, [S, S]), (1, 2, [100 * S, 100 * S]), (0, 2, [S / 2, S / 2])])
    }

    #[test]
    fn a_split_never_shares_a_pool_and_pays_the_best_pool_disjoint_split() {
        let g = deep_last_pool();
        let amount: u128 = 400_000;
        let deep = |x: u128| cp(100 * S, 100 * S, x).0;
        // P0 and P1 alone (the same pools, the same output); P3 alone.
        let via = |t: u128| if t == 0 { 0 } else { deep(cp(S, S, t).0) };
        let direct = |t: u128| if t == 0 { 0 } else { cp(S / 2, S / 2, t).0 };
        // The pool-disjoint sets: one path, or P0 (or P1) beside P3; every integer split of the amount.
        let disjoint_best = (0..=amount).map(|t| via(t) + direct(amount - t)).max().unwrap();
        // P0 then P1 through pool 2 as it is left: the shared split the search must not make.
        let shared = |t: u128| {
            let (o0, x0, y0) = cp(100 * S, 100 * S, cp(S, S, t).0);
            let o1 = cp(x0, y0, cp(S, S, amount - t).0).0;
            o0 + o1
        };
        let shared_best = (1..amount).step_by(97).map(shared).max().unwrap();
        assert!(shared_best > disjoint_best, "the shared split must pay more here: {shared_best} vs {disjoint_best}");

        let router = Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() });
        let request = QuoteRequest { max_splits: 3, ..QuoteRequest::new(Asset::Native, jetton(2), amount) };
        let q = router.quote(&g, &request).unwrap();
        let pools: Vec<Vec<usize>> =
            q.routes.iter().map(|r| r.steps.iter().map(|s| s.pool.index()).collect()).collect();
        for (i, a) in pools.iter().enumerate() {
            for b in &pools[i + 1..] {
                assert!(a.iter().all(|p| !b.contains(p)), "routes share a pool: {pools:?}");
            }
        }
        assert_eq!(q.out_amount, disjoint_best, "{pools:?}");
    }

    fn jetton(i: u8) -> Asset {
        Asset::Jetton(JettonMaster([i; 32]))
    }
}
