//! The planner both swap modes share ([`Planner`]): the bounds toward the output (once per quote), the
//! candidate searches ([`Planner::candidates`]: best single paths for the whole amount, then the surplus search
//! at the best path's marginal rate), and the plan for one amount over given candidates ([`Planner::plan`]: the
//! best single route against the split of `route::split`). Exact-in makes one plan at the request's amount
//! ([`best_plan`]); exact-out (`route::exact_out`) makes several at different inputs over the same candidates.
//!
//! Must not know about request validation (done by [`crate::route::Router`]) nor the wire, nor how a split is
//! made (the stages in `route::split`).

use std::cell::RefCell;

use crate::asset::Asset;
use crate::graph::{AssetId, PoolGraph};
use crate::pool::PoolError;
use crate::route::budget::Budget;
use crate::route::gas::NetworkFees;
use crate::route::paths::{Bounds, Candidate, Objective, PoolState, Search};
use crate::route::request::QuoteRequest;
use crate::route::sim::{AloneRuns, Hop};
use crate::route::split::{diversify, pricing_area, split_plan, Found, Plan, Splicer};
use crate::route::tuning::{CANDIDATES_PER_SPLIT, LAMBDA_FLOOR, REFUSAL_PATHS, SINGLES, WIDE, WIDE_IMPACT};
use crate::route::{RouteError, RouterConfig};

/// Exact-in: the best plan for `request.amount()` of input.
pub(crate) fn best_plan(ask: Ask<'_>) -> Result<Found, RouteError> {
    let planner = Planner::new(ask);
    let mut candidates = planner.candidates(ask.request.amount())?;
    planner.plan(&mut candidates, ask.request.amount())
}

/// What a quote asks of the planner: the graph it runs on, the router's configuration, the checked request, its
/// two assets' ids in that graph and its budget. Both swap modes' `best_plan` take it from the router.
#[derive(Clone, Copy)]
pub(crate) struct Ask<'a> {
    pub graph: &'a PoolGraph,
    pub config: &'a RouterConfig,
    pub request: &'a QuoteRequest,
    pub src: AssetId,
    pub dst: AssetId,
    pub budget: Budget<'a>,
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
    /// The quote's graph, configuration, request, assets and budget.
    ask: Ask<'a>,
    bounds: Bounds,
    /// The value of a nanoton in output units, for network fees.
    ton_rate: f64,
}

impl<'a> Planner<'a> {
    /// The bounds toward `dst` for `request`'s limits; nothing searched yet.
    pub(crate) fn new(ask: Ask<'a>) -> Planner<'a> {
        let (graph, dst, max_length) = (ask.graph, ask.dst, ask.request.max_length());
        let native = graph.asset_id(&Asset::Native);
        // The search reads levels up to max_length − 1 (a path's first hop is already taken when it asks); the
        // network-fee rate reads native → output, which the hub reaches within two hops.
        let bounds = Bounds::compute(graph, dst, max_length.saturating_sub(1).max(2), native);
        let ton_rate = match native {
            Some(n) if n == dst => 1.0,
            Some(n) => bounds.rate(max_length.max(2), n),
            None => 0.0,
        };
        Planner { ask, bounds, ton_rate }
    }

    /// The budget of the quote.
    pub(crate) fn budget(&self) -> Budget<'a> {
        self.ask.budget
    }

    /// An upper bound on the spot rate of any path within the request's `max_length` from the input to the
    /// output asset (0 when none reaches it), as bounds computed at that length give it.
    pub(crate) fn spot_bound(&self) -> f64 {
        self.bounds.rate_at(self.ask.graph, self.ask.request.max_length(), self.ask.src)
    }

    pub(crate) fn no_path(&self) -> RouteError {
        let request = self.ask.request;
        RouteError::NoPath {
            from: request.in_asset().to_string(),
            to: request.out_asset().to_string(),
            max_length: request.max_length(),
        }
    }

    /// A route's network fee in output units.
    pub(crate) fn gas(&self, hops: &[Hop]) -> u128 {
        (self.ask.config.network_fees.path_fee(self.ask.graph, hops) as f64 * self.ton_rate).floor().max(0.0) as u128
    }

    /// The candidate paths for `amount`: the best single paths for the whole amount (by estimate), then the
    /// paths with the largest surplus at the best path's marginal rate.
    pub(crate) fn candidates(&self, amount: u128) -> Result<Candidates, RouteError> {
        let (graph, config, request, bounds, budget) =
            (self.ask.graph, self.ask.config, self.ask.request, &self.bounds, self.ask.budget);
        let (src, dst, max_length) = (self.ask.src, self.ask.dst, request.max_length());
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
        if request.max_splits() > 1 && !budget.exhausted() {
            if let Some((_, best)) = singles.first() {
                let lambda = best.form.marginal(amount_f).max(best.form.s * LAMBDA_FLOOR);
                let keep = config.max_candidates.max(request.max_splits() * CANDIDATES_PER_SPLIT);
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
            alone.borrow_mut().run(self.ask.graph, &c.hops, amount).map(|outs| outs.last().copied().unwrap_or(amount));
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
            (self.ask.graph, self.ask.config, self.ask.request, &self.bounds, self.ask.budget);
        let (src, dst, max_length) = (self.ask.src, self.ask.dst, request.max_length());
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
        if request.max_splits() > 1 && candidates.len() > 1 && !budget.exhausted() {
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
                request.max_splits(),
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
