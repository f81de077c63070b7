//! The split of an exact-in amount over several paths, stage by stage.
//!
//! Owns the exact-in plan ([`best_plan`]): the candidate searches (best single paths for the whole amount,
//! then the surplus search at the best path's marginal rate), the best single route, and [`split_plan`],
//! which runs the stages in order:
//! 1. `water_fill`: float flows over a fixed set of paths, shared pools seen as the routes leave them;
//! 2. `selection`: which candidates to use (diversification, forward selection, swaps);
//! 3. `settle`: exact integer amounts, simulated jointly, refined by exact transfers ([`Plan`]);
//! 4. `pricing`: column generation on the split's own state;
//! 5. `assemble`: the [`crate::route::Quote`] of a plan ([`build_quote`], also used by exact-out).
//!
//! Must not know about request validation (done by [`crate::route::Router`]) nor the wire. Tuning constants
//! live in `route::tuning`.

mod assemble;
mod pricing;
mod selection;
mod settle;
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
    CANDIDATES_PER_SPLIT, CHUNKS, LAMBDA_FLOOR, POLISH, REFUSAL_PATHS, SINGLES, WIDE, WIDE_IMPACT,
};
use crate::route::{RouteError, RouterConfig};
pub(crate) use assemble::build_quote;
use pricing::{price_in, pricing_area, Pricing};
use selection::{choose_paths, diversify};
use settle::settle;
pub(crate) use settle::{evaluate, Plan};
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
    let amount = request.amount;
    let amount_f = amount as f64;
    let max_length = request.max_length;
    let native = graph.asset_id(&Asset::Native);
    // The search reads levels up to max_length − 1 (a path's first hop is already taken when it asks); the
    // network-fee rate reads native → output, which the hub reaches within two hops.
    let bounds = Bounds::compute(graph, dst, max_length.saturating_sub(1).max(2), native);
    let no_path =
        || RouteError::NoPath { from: request.in_asset.to_string(), to: request.out_asset.to_string(), max_length };

    // Pass 1: the best single paths for the whole amount (by estimate).
    let (singles, hub_order) =
        Search::new(graph, config.handoffs, &bounds, dst, max_length, Objective::Output { amount: amount_f }, SINGLES)
            .with_budget(budget)
            .run_keeping_order(src);
    if singles.is_empty() && budget.latched() {
        return Err(RouteError::BudgetExhausted);
    }
    if singles.is_empty() {
        // Distinguish "no path at all" from "paths exist but all estimate to nothing".
        let any = Search::new(graph, config.handoffs, &bounds, dst, max_length, Objective::Output { amount: 1.0 }, 1)
            .with_budget(budget)
            .run(src);
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
    // Per segment of the route: a hand-off to another exchange pays for its second entry and payout.
    let gas = |hops: &[Hop]| -> u128 { (fees.path_fee(graph, hops) as f64 * ton_rate).floor().max(0.0) as u128 };

    // Pass 2: paths with the largest surplus at the marginal rate λ of the best single path.
    let mut candidates: Vec<Candidate> = singles.iter().map(|(_, c)| c.clone()).collect();
    if request.max_splits > 1 && !budget.exhausted() {
        if let Some((_, best)) = singles.first() {
            let lambda = best.form.marginal(amount_f).max(best.form.s * LAMBDA_FLOOR);
            let keep = config.max_candidates.max(request.max_splits * CANDIDATES_PER_SPLIT);
            let objective = Objective::Surplus { lambda, amount: amount_f };
            // A trade the best single path carries with little price impact splits over few paths; one that
            // moves it far needs the long list (many pools, each taking a little).
            let impact = 1.0 - best.form.out(amount_f) / (amount_f * best.form.s);
            let wide_keep = if impact >= WIDE_IMPACT { keep * WIDE } else { keep };
            let wide = Search::new(graph, config.handoffs, &bounds, dst, max_length, objective, wide_keep)
                .with_budget(budget)
                .with_hub_order(hub_order)
                .run(src);
            let surplus = diversify(graph, wide.into_iter().map(|(_, c)| c).collect(), keep, lambda, amount_f);
            for c in surplus {
                if !candidates.iter().any(|d| d.hops == c.hops) {
                    candidates.push(c);
                }
            }
        }
    }

    // Best single route, exact, net of network fee. Every candidate may serve alone.
    let alone = RefCell::new(AloneRuns::default());
    let mut best_single: Option<Plan> = None;
    let mut refusal = None;
    let consider = |c: &Candidate, best_single: &mut Option<Plan>, refusal: &mut Option<PoolError>| match alone
        .borrow_mut()
        .run(graph, &c.hops, amount)
        .map(|outs| outs.last().copied().unwrap_or(amount))
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
    if refusal.is_some() && !budget.exhausted() {
        let objective = Objective::Output { amount: amount_f };
        for (_, c) in Search::new(graph, config.handoffs, &bounds, dst, max_length, objective, REFUSAL_PATHS)
            .with_budget(budget)
            .with_floor(0.0)
            .run(src)
        {
            if !candidates.iter().any(|d| d.hops == c.hops) {
                consider(&c, &mut best_single, &mut refusal);
                candidates.push(c);
            }
        }
    }

    let mut chosen = best_single.clone();
    if request.max_splits > 1 && candidates.len() > 1 && !budget.exhausted() {
        // Built on the first pricing round: most quotes never price.
        let allowed = std::cell::OnceCell::new();
        let pricing = |state: &PoolState, lambda: f64, least: f64, keep: usize| -> Vec<Candidate> {
            let allowed = allowed.get_or_init(|| pricing_area(graph, &candidates, [src, dst]));
            let objective = Objective::Surplus { lambda, amount: amount_f };
            let search = Search::new(graph, config.handoffs, &bounds, dst, max_length, objective, keep)
                .with_budget(budget)
                .within(allowed)
                .uncapped();
            search.with_state(state).with_threshold(least).run(src).into_iter().map(|(_, c)| c).collect()
        };
        let with_gas = fees != NetworkFees::ZERO;
        if let Some(plan) =
            split_plan(graph, &candidates, request.max_splits, amount, &gas, with_gas, &pricing, budget, &alone)
        {
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
            None => no_path(),
        });
    };
    let best_single_out = best_single.as_ref().map_or(0, |b| b.out);
    let spot = candidates.iter().map(|c| c.form.s).fold(0.0, f64::max);
    Ok(Found { plan, best_single_out, spot })
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

    let mut best = settle(graph, &active, &flows, amount, gas, alone)?;
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
