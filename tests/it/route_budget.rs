//! The routing budget ([`tonroute::route::Budget`]): a search told to stop stops, and what it answers is
//! still an exact quote. The stop conditions here count their own calls, so the runs are deterministic (the
//! server's condition reads a clock instead).

use std::cell::Cell;

use tonroute::asset::known::USDT;
use tonroute::asset::Asset;
use tonroute::route::{
    certify_request_within, simulate_routes, Budget, CertificateError, Quote, QuoteOptions, QuoteRequest, RouteError,
    Router, SwapMode,
};
use tonroute_synth::snapshot::{generate, SyntheticConfig};

fn graph() -> tonroute::graph::PoolGraph {
    generate(&SyntheticConfig { pools: 1_000, ..SyntheticConfig::default() }).into_graph().expect("synthetic graph")
}

/// A whale TON→USD₮ with wide limits: many candidate paths, pricing rounds and a long settle.
fn heavy(mode: SwapMode, amount: u128) -> QuoteRequest {
    let usdt: Asset = USDT.parse().expect("constant id");
    QuoteRequest::builder(Asset::Native, usdt, amount).max_splits(20).max_length(4).swap_mode(mode).build().unwrap()
}

/// Stops after `checks` calls; returns the quote and how many calls were made.
fn quote_after(
    router: &Router,
    g: &tonroute::graph::PoolGraph,
    r: &QuoteRequest,
    checks: u64,
) -> (Result<Quote, RouteError>, u64) {
    let calls = Cell::new(0u64);
    let stop = || {
        calls.set(calls.get() + 1);
        calls.get() > checks
    };
    let latch = Cell::new(false);
    let q = router.quote(g, r, QuoteOptions::default().within(Budget::until(&stop, &latch)));
    assert_eq!(latch.get(), calls.get() > checks, "the latch tells whether the budget ran out");
    (q, calls.get())
}

/// [`quote_after`] for a certified quote: one budget for the quote and its certificate. The router's
/// certified quote ([`QuoteOptions::certified`]) is compared with the quote and then
/// [`certify_request_within`] on the same budget, which say why a certificate is missing.
fn certified_after(
    router: &Router,
    g: &tonroute::graph::PoolGraph,
    r: &QuoteRequest,
    checks: u64,
) -> (Result<(Quote, Option<CertificateError>), RouteError>, u64) {
    let run = |certified: bool| {
        let calls = Cell::new(0u64);
        let stop = || {
            calls.set(calls.get() + 1);
            calls.get() > checks
        };
        let latch = Cell::new(false);
        let budget = Budget::until(&stop, &latch);
        let q = if certified {
            router.quote(g, r, QuoteOptions::default().within(budget).certified()).map(|q| (q, None))
        } else {
            router.quote(g, r, QuoteOptions::default().within(budget)).map(|mut q| {
                let why = match certify_request_within(router, g, r, &q, budget) {
                    Ok(c) => {
                        q.certificate = Some(c);
                        None
                    }
                    Err(e) => Some(e),
                };
                (q, why)
            })
        };
        (q, calls.get())
    };
    let (certified, certified_calls) = run(true);
    let (composed, calls) = run(false);
    assert_eq!(certified_calls, calls, "the certified quote reads the budget as the quote and its certificate do");
    assert_eq!(
        certified.as_ref().map(|(q, _)| q),
        composed.as_ref().map(|(q, _)| q),
        "the certified quote is the quote with its certificate"
    );
    (composed, calls)
}

/// The quote's routes, simulated jointly with the exact pool math, pay exactly what it says.
fn assert_exact(g: &tonroute::graph::PoolGraph, q: &Quote) {
    let routes: Vec<_> = q
        .routes
        .iter()
        .map(|r| (r.steps.iter().map(|s| (s.pool, s.direction)).collect::<Vec<_>>(), r.in_amount))
        .collect();
    let outs = simulate_routes(g, &routes).expect("the routes execute");
    let total: u128 = outs.iter().map(|o| *o.last().expect("a step")).sum();
    assert_eq!(total, q.out_amount);
    assert_eq!(q.routes.iter().map(|r| r.in_amount).sum::<u128>(), q.in_amount);
}

#[test]
fn a_spent_budget_answers_budget_exhausted_before_any_search() {
    let g = graph();
    let router = Router::default();
    for mode in [SwapMode::ExactIn, SwapMode::ExactOut] {
        let (q, calls) = quote_after(&router, &g, &heavy(mode, 50_000_000_000_000), 0);
        assert_eq!(q.unwrap_err(), RouteError::BudgetExhausted);
        assert!(calls >= 1);
    }
}

#[test]
fn a_cut_short_search_still_answers_exactly() {
    let g = graph();
    let router = Router::default();
    let request = heavy(SwapMode::ExactIn, 200_000_000_000_000);
    let full = router.quote(&g, &request, QuoteOptions::default()).expect("the unlimited quote");
    let (_, checks_needed) = quote_after(&router, &g, &request, u64::MAX);
    assert!(checks_needed > 3, "a heavy quote checks its budget along the way ({checks_needed})");
    let mut answered = 0;
    for checks in [1, 2, 3, checks_needed / 2, checks_needed - 1] {
        match quote_after(&router, &g, &request, checks) {
            (Ok(q), calls) => {
                assert!(calls <= checks + 1, "the search stopped at the first check that said stop");
                assert_exact(&g, &q);
                assert_eq!(q.in_amount, request.amount());
                answered += 1;
            }
            (Err(e), _) => assert_eq!(e, RouteError::BudgetExhausted),
        }
    }
    assert!(answered >= 2, "most cut-short searches have a route to give");
    // A budget that never runs out changes nothing.
    let (q, _) = quote_after(&router, &g, &request, checks_needed);
    let q = q.expect("within budget");
    assert_eq!((q.out_amount, q.routes.len()), (full.out_amount, full.routes.len()));
}

#[test]
fn exact_out_cut_short_pays_the_output_or_says_so() {
    // Exact-out has an answer only once a plan pays the output: cut before that, it says the budget ran out.
    let g = graph();
    let router = Router::default();
    let mut answered = 0;
    for wanted in [1_000_000_000u128, 1_000_000_000_000, 30_000_000_000_000] {
        let request = heavy(SwapMode::ExactOut, wanted);
        let (_, checks_needed) = quote_after(&router, &g, &request, u64::MAX);
        for checks in [checks_needed / 4, checks_needed / 2, checks_needed - 1] {
            match quote_after(&router, &g, &request, checks).0 {
                Ok(q) => {
                    assert_exact(&g, &q);
                    assert!(q.out_amount >= wanted, "an exact-out answer pays at least what was asked");
                    answered += 1;
                }
                Err(e) => assert_eq!(e, RouteError::BudgetExhausted),
            }
        }
    }
    assert!(answered >= 1, "some cut-short exact-out searches have a plan to give");
}

/// A TON → USD₮ whale with the default limits (4 routes of 3 hops): its certificate also runs the wider pricing
/// quote (20 routes of 4 hops), which reads the same budget.
fn certified_request() -> QuoteRequest {
    QuoteRequest::new(Asset::Native, USDT.parse().expect("constant id"), 50_000_000_000_000).unwrap()
}

#[test]
fn a_certificate_cut_by_the_budget_leaves_the_quote_as_found() {
    let g = graph();
    let router = Router::default();
    let request = certified_request();
    let full = router.quote(&g, &request, QuoteOptions::default()).expect("the unlimited quote");
    let (_, quote_reads) = quote_after(&router, &g, &request, u64::MAX);
    let (whole, total_reads) = certified_after(&router, &g, &request, u64::MAX);
    let (whole, why) = whole.expect("the unlimited certified quote");
    assert_eq!(why, None);
    let bound = whole.certificate.expect("a certificate").upper_bound;
    assert!(bound >= full.out_amount);
    assert_eq!(Quote { certificate: None, ..whole }, full, "the certificate does not touch the quote");
    assert!(total_reads > quote_reads + 3, "the certificate reads the budget too ({quote_reads} → {total_reads})");

    // Out of budget right after the quote: the quote as found, no certificate, and why.
    let (cut, calls) = certified_after(&router, &g, &request, quote_reads);
    let (q, why) = cut.expect("the quote was complete");
    assert_eq!(why, Some(CertificateError::BudgetExhausted));
    assert_eq!(q, full, "the same quote, without a certificate");
    assert_eq!(calls, quote_reads + 1, "the certificate stopped at its first read");

    // Later cuts: the quote is always the same; a certificate given is a complete, valid bound (the first one,
    // when the wider pricing quote or its bound was cut), never below the unlimited one.
    let mut given = 0;
    for checks in [quote_reads + 1, quote_reads + 2, (quote_reads + total_reads) / 2, total_reads - 2, total_reads - 1]
    {
        let (q, why) = certified_after(&router, &g, &request, checks).0.expect("the quote was complete");
        match (q.certificate, why) {
            (Some(c), None) => {
                assert!(c.upper_bound >= bound && c.upper_bound >= full.out_amount, "cut at {checks}: {c:?}");
                given += 1;
            }
            (None, Some(CertificateError::BudgetExhausted)) => {}
            other => panic!("cut at {checks}: {other:?}"),
        }
        assert_eq!(Quote { certificate: None, ..q }, full);
    }
    assert!(given >= 2, "cut during the pricing quote, the first bound is the answer ({given} given)");
}

/// The same over the JSON layer: `"certify": true` with a budget that runs out after the quote answers the
/// quote with `"certificate": null`; the rest of the answer is the uncertified one.
#[cfg(feature = "serde")]
#[test]
fn a_certificate_out_of_budget_is_null_on_the_wire() {
    let g = std::sync::Arc::new(graph());
    let api = tonroute::api::Api::new(g.clone());
    let request = certified_request();
    let (_, quote_reads) = quote_after(&Router::default(), &g, &request, u64::MAX);
    let body = |certify: bool| {
        let mut v =
            serde_json::json!({"in_minter": "native", "out_minter": USDT, "amount": request.amount().to_string()});
        if certify {
            v["certify"] = true.into();
        }
        v.to_string()
    };
    let calls = Cell::new(0u64);
    let stop = || {
        calls.set(calls.get() + 1);
        calls.get() > quote_reads
    };
    let latch = Cell::new(false);
    let cut = api.quote_within(body(true).as_bytes(), Budget::until(&stop, &latch)).expect("the quote");
    assert!(latch.get(), "the budget ran out (in the certificate)");
    let text = serde_json::to_string(&cut).unwrap();
    let plain = serde_json::to_string(&api.quote(body(false).as_bytes()).expect("the quote")).unwrap();
    assert_eq!(text, format!("{},\"certificate\":null}}", plain.strip_suffix('}').unwrap()));
    let whole = api.quote(body(true).as_bytes()).expect("the certified quote");
    assert!(whole.certificate.as_ref().is_some_and(Option::is_some), "with time, a certificate");
}
