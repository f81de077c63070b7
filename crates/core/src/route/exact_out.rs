//! Exact-out: the smallest input that yields at least the wanted output, across splits and hops.
//!
//! The plans are the exact-in plans main made before (a first plan at `wanted / spot`, a second one at the
//! least total that pays in the first's proportions when that is more than [`EXACT_OUT_NEAR`] away, the
//! least total in the last plan's proportions, then every route down to its own least input), so the answers
//! are those of the bracketing it replaces; what changed is the cost of reaching them:
//!
//! 1. **One search.** The bounds toward the output are computed once ([`Planner`]; the spot bound reads the
//!    request's whole length from them without another computation) and the candidate paths are searched
//!    once, at `wanted / spot`. Both plans are splits over these candidates (`Planner::plan`): no second
//!    search, no search for the best single route (it is read among the first search's single paths).
//! 2. **Model.** A plan is valued by its float twin ([`PlanModel`]: its routes on float reserves, at inputs
//!    in the plan's proportions), solved for the wanted output by secants through the reciprocals and
//!    calibrated on the plan's exact output: the guess of the least total, right to about 10⁻⁹.
//! 3. **Settle with exact integers.** [`least_paying`] finds the least paying input from the guess (gallop
//!    at the guess's precision, secants through the latest points, bisection inside one unit of output).
//!    A plan's routes share no pool (see [`crate::route::sim::shares_pool`]), so totals are evaluated route
//!    by route ([`ScaledOutput`]: each route's samples pin its output inside a flat step), and each route is
//!    lowered alone, solved hop by hop from the last ([`least_route_input`], each hop from the inverse of its
//!    Möbius map on the exact reserves; [`Probe`]). Every figure kept is an exact integer simulation; floats
//!    only guess.

use smallvec::SmallVec;

use super::plan::{Ask, Candidates, Planner};
use super::sim::{pool_disjoint, Hop, Overlay};
use super::split::{evaluate, Found, Plan};
use super::tuning::{
    BRACKET_GROWTH, BRACKET_OVERSHOOT, BRACKET_ROUNDS, EXACT_OUT_NEAR, GALLOP_PROBES, GUESS_PRECISION_EXACT,
    GUESS_PRECISION_FITTED, GUESS_PRECISION_MODEL, HOP_NEWTON, LEAST_PAYING_STEPS, MARGINAL_PROBE, MINIMISE_ROUNDS,
    MOBIUS_SECANT_SPAN, MODEL_STEPS, MODEL_TOLERANCE,
};
use super::RouteError;
use crate::graph::PoolGraph;
use crate::pool::estimate::{self as mobius, Mobius};
use crate::pool::{Curve, MAX_COINS};
use crate::route::budget::Budget;
use crate::route::joint::Joint;
use crate::route::paths::Candidate;

type Routes = Vec<(SmallVec<[Hop; 5]>, u128)>;

/// Exact joint output of `routes`, 0 when any refuses.
fn output(graph: &PoolGraph, routes: &Routes) -> u128 {
    // The joint simulation skips routes with no input.
    evaluate(graph, routes).unwrap_or(0)
}

/// `total` split in the plan's proportions (floors, the rest to the largest share).
fn scaled(plan: &Plan, total: u128) -> Routes {
    let sum: u128 = plan.routes.iter().map(|(_, a)| *a).sum();
    let mut routes: Routes = plan
        .routes
        .iter()
        .map(|(h, a)| {
            // a ≤ sum < 2^120 and total < 2^120: the product needs 240 bits, so go through U256.
            let v = primitive_types::U256::from(*a) * primitive_types::U256::from(total)
                / primitive_types::U256::from(sum.max(1));
            (h.clone(), v.low_u128())
        })
        .collect();
    let assigned: u128 = routes.iter().map(|(_, a)| *a).sum();
    if let Some(largest) = (0..routes.len()).max_by_key(|&i| plan.routes[i].1) {
        routes[largest].1 += total - assigned.min(total);
    }
    routes
}

/// The float model of a plan in its own proportions: its routes run in order on float reserves, each seeing
/// the pools the earlier ones left ([`Joint`]), at inputs proportional to the plan's. It is the float twin of
/// what the exact search over totals in those proportions evaluates: exact for constant product up to
/// rounding.
struct PlanModel<'g> {
    joint: Joint<'g>,
    shares: Vec<f64>,
    flows: Vec<f64>,
}

impl<'g> PlanModel<'g> {
    /// The model of `plan`'s routes and proportions; `None` for a plan without input or with an empty pool.
    fn new(graph: &'g PoolGraph, plan: &Plan) -> Option<PlanModel<'g>> {
        let sum: u128 = plan.routes.iter().map(|(_, a)| *a).sum();
        if sum == 0 {
            return None;
        }
        let paths = plan
            .routes
            .iter()
            .map(|(hops, _)| {
                let form = hops
                    .iter()
                    .try_fold(Mobius { s: 1.0, c: 0.0 }, |m, &(pool, dir)| Some(m.then(graph.form(pool, dir)?)))?;
                Some(Candidate { hops: hops.clone(), form })
            })
            .collect::<Option<Vec<Candidate>>>()?;
        let joint = Joint::new(graph, &paths.iter().collect::<Vec<_>>());
        let shares = plan.routes.iter().map(|(_, a)| *a as f64 / sum as f64).collect();
        Some(PlanModel { joint, shares, flows: vec![0.0; plan.routes.len()] })
    }

    /// The float output of total `t`.
    fn output(&mut self, t: f64) -> f64 {
        for (f, s) in self.flows.iter_mut().zip(&self.shares) {
            *f = s * t;
        }
        self.joint.total(&self.flows)
    }

    /// The output per unit of input at total `t`.
    fn slope(&mut self, t: f64) -> f64 {
        let h = t * MARGINAL_PROBE;
        (self.output(t + h) - self.output(t)) / h
    }

    /// The total whose float output is `w`, found by [`secant`] steps (through the reciprocals) from `x`, at
    /// most [`MODEL_STEPS`]; `None` where they do not get within [`MODEL_TOLERANCE`] of `w` (beyond what the
    /// routes can pay, say).
    fn input_for(&mut self, w: f64, x: f64) -> Option<f64> {
        let mut p = (x, self.output(x));
        if !(p.1 > 0.0 && w > 0.0) {
            return None;
        }
        let first = x * w / p.1;
        let mut q = (first, self.output(first));
        for _ in 0..MODEL_STEPS {
            if (q.1 - w).abs() <= w * MODEL_TOLERANCE {
                return Some(q.0);
            }
            let t = float_secant(p, q, w)?;
            p = q;
            q = (t, self.output(t));
        }
        ((q.1 - w).abs() <= w * MODEL_TOLERANCE).then_some(q.0)
    }
}

/// [`secant`] in floats: where the Möbius map through two points (a line through their reciprocals) reaches
/// `w`, or the straight line where the points are too close for the reciprocals; `None` when neither rises
/// to it at a positive input.
fn float_secant(p: (f64, f64), q: (f64, f64), w: f64) -> Option<f64> {
    if p.0 == q.0 || p.1 == q.1 {
        return None;
    }
    if p.0 > 0.0 && q.0 > 0.0 && p.1 > 0.0 && q.1 > 0.0 && (p.0 - q.0).abs() > p.0.max(q.0) * MOBIUS_SECANT_SPAN {
        let (u1, v1, u2, v2) = (1.0 / p.0, 1.0 / p.1, 1.0 / q.0, 1.0 / q.1);
        let a = (v1 - v2) / (u1 - u2);
        let room = 1.0 / w - (v1 - a * u1);
        if a > 0.0 && room > 0.0 {
            let t = a / room;
            if t.is_finite() && t > 0.0 {
                return Some(t);
            }
        }
    }
    let slope = (q.1 - p.1) / (q.0 - p.0);
    let t = q.0 + (w - q.1) / slope;
    (slope > 0.0 && t.is_finite() && t > 0.0).then_some(t)
}

/// The model's total for `wanted` in `plan`'s proportions, calibrated on the plan's exact output at its own
/// input `x` (the model is asked for `wanted` scaled by its own error there), and the output per unit of
/// input there (calibrated the same way); `None` where the model cannot say.
fn model_input(graph: &PoolGraph, plan: &Plan, x: u128, wanted: u128) -> Option<(f64, f64)> {
    let mut model = PlanModel::new(graph, plan)?;
    let at_x = model.output(x as f64);
    if plan.out == 0 || at_x.is_nan() || at_x <= 0.0 {
        return None;
    }
    let ratio = plan.out as f64 / at_x;
    let t = model.input_for(wanted as f64 / ratio, x as f64)?;
    let slope = model.slope(t) * ratio;
    (t.is_finite() && slope.is_finite() && slope > 0.0).then_some((t, slope))
}

/// Inputs per unit of output at `slope` output units per input unit, at least 1: how far from an estimate
/// the crossing may be when only whole output units are seen.
fn band(slope: f64) -> u128 {
    if slope >= 1.0 {
        return 1;
    }
    let b = (1.0 / slope).ceil();
    if b.is_finite() && b >= 1.0 {
        (b as u128).min(1 << 100)
    } else {
        1 << 100
    }
}

/// What the least-paying search knows: the largest input known to fail (`lo`), the smallest known to pay
/// (`hi`), and the two latest points evaluated, as `(input, output)`.
struct Bracket {
    wanted: u128,
    floor: u128,
    ceiling: u128,
    lo: Option<(u128, u128)>,
    hi: Option<(u128, u128)>,
    /// The latest point evaluated, then the one before.
    recent: [Option<(u128, u128)>; 2],
}

impl Bracket {
    fn place(&mut self, p: (u128, u128)) {
        self.recent = [Some(p), self.recent[0]];
        if p.1 >= self.wanted {
            if self.hi.is_none_or(|h| p.0 < h.0) {
                self.hi = Some(p);
            }
        } else if self.lo.is_none_or(|l| p.0 > l.0) {
            self.lo = Some(p);
        }
    }

    /// Whether `x` is in range and strictly between the known points.
    fn inside(&self, x: u128) -> bool {
        x >= self.floor && x <= self.ceiling && self.lo.is_none_or(|l| x > l.0) && self.hi.is_none_or(|h| x < h.0)
    }

    /// Evaluates `x` and places it.
    fn eval(&mut self, out: &mut impl FnMut(u128) -> u128, x: u128) -> (u128, u128) {
        let p = (x, out(x));
        self.place(p);
        p
    }

    /// From an evaluated estimate `at`, probes toward the crossing: `precision` away, then twice as far each
    /// time the probe lands on the estimate's side, [`GALLOP_PROBES`] at most, never outside the bracket.
    fn gallop(&mut self, out: &mut impl FnMut(u128) -> u128, at: (u128, u128), precision: u128) {
        let pays = at.1 >= self.wanted;
        let (mut anchor, mut d) = (at.0, precision.max(1));
        for _ in 0..GALLOP_PROBES {
            let n = if pays { anchor.checked_sub(d) } else { anchor.checked_add(d) };
            // Past the bracket's far end, the bracket is already the answer's range.
            let Some(n) = n.filter(|n| self.inside(*n)) else { break };
            let (_, y) = self.eval(out, n);
            if (y >= self.wanted) != pays {
                break;
            }
            anchor = n;
            d = d.saturating_mul(2);
        }
    }
}

/// Where the curve through two points reaches `wanted`, and its slope there. Far apart (relative distance
/// above [`MOBIUS_SECANT_SPAN`]), the curve is a Möbius map `y = s·x / (1 + c·x)` (a straight line through
/// `(1/x, 1/y)`): a fixed plan's output is close to one in its total (exactly one for one constant-product
/// route), so it extrapolates a saturating output where a straight line falls short. Close together, the
/// straight line (the map's tangent, without the cancellation). `None` when the points do not determine a
/// rising curve that reaches `wanted`.
fn secant(p: (u128, u128), q: (u128, u128), wanted: u128) -> Option<(f64, f64)> {
    if p.0 == q.0 || p.1 == q.1 {
        return None;
    }
    let (p, q) = if p.0 < q.0 { (p, q) } else { (q, p) };
    if q.1 < p.1 {
        return None;
    }
    let span = (q.0 - p.0) as f64;
    if p.0 > 0 && p.1 > 0 && span > q.0 as f64 * MOBIUS_SECANT_SPAN {
        let (u1, v1, u2, v2) = (1.0 / p.0 as f64, 1.0 / p.1 as f64, 1.0 / q.0 as f64, 1.0 / q.1 as f64);
        let a = (v1 - v2) / (u1 - u2);
        let b = v1 - a * u1;
        let room = 1.0 / wanted as f64 - b;
        if a > 0.0 && room > 0.0 {
            let t = a / room;
            // dy/dx of 1/y = a/x + b: y² · a / x².
            let w = wanted as f64;
            let slope = w * w * a / (t * t);
            if t.is_finite() && t > 0.0 && slope.is_finite() && slope > 0.0 {
                return Some((t, slope));
            }
        }
    }
    // The straight line, offsets from p in integers.
    let slope = (q.1 - p.1) as f64 / span;
    let t = p.0 as f64 + (wanted as f64 - p.1 as f64) / slope;
    (t.is_finite() && slope > 0.0).then_some((t, slope))
}

/// `t` as an input in `floor..=ceiling`, rounded up.
fn to_input(t: f64, floor: u128, ceiling: u128) -> u128 {
    if t.is_nan() || t <= 0.0 {
        return floor;
    }
    ((t.ceil().min(ceiling as f64)) as u128).clamp(floor, ceiling)
}

/// The least `x` in `floor..=ceiling` with `out(x) ≥ wanted`, from a known point (its input and output), a
/// first guess with its precision (how far from the answer it may be), and `slope`, the output per unit of
/// input expected near the answer; without a known point the guess (or `floor`) is evaluated first.
///
/// Estimates: the guess; then the [`secant`] through the two latest points (kept inside the bracket once
/// both sides are known, the secant through the bracket's ends where it leaves it), the model's slope while
/// only one point is known; a step from one side at least twice the last one that fell short; a bisection
/// once the bracket is no wider than two of the inputs one unit of output spans (nothing interpolates
/// inside one unit), or after two estimates that did not halve it. An estimate whose output is within what
/// its precision allows of `wanted` is followed by a gallop toward the crossing: a probe its precision
/// away, then twice as far while the probes stay on the estimate's side ([`GALLOP_PROBES`] at most); a guess
/// right to its precision ends there with a bracket of that width. Returns `x` with `out(x) ≥ wanted` and
/// `out(x − 1) < wanted` (or `x = floor`), `None` when even `ceiling` pays less. `out` is assumed monotone;
/// where it is not (to the unit), the answer is a point where it crosses.
fn least_paying(
    mut out: impl FnMut(u128) -> u128,
    wanted: u128,
    known: Option<(u128, u128)>,
    guess: Option<(u128, u128)>,
    slope: f64,
    floor: u128,
    ceiling: u128,
) -> Option<u128> {
    let mut b = Bracket { wanted, floor, ceiling, lo: None, hi: None, recent: [None, None] };
    let model_slope = if slope.is_finite() && slope > 0.0 { slope } else { 0.0 };
    // Whether an estimate's output is close enough to the wanted one for a gallop at its precision to
    // bracket the crossing; farther off, the next estimate does better.
    let near = |y: u128, precision: u128, slope: f64| {
        slope <= 0.0 || y.abs_diff(wanted) as f64 <= 2.0 * (precision as f64 * slope + 1.0)
    };
    let mut next = guess.map(|(g, p)| (g.clamp(floor, ceiling), p.max(1)));
    match known {
        Some(k) => b.place(k),
        None => {
            let (g, precision) = next.take().unwrap_or((floor, 1));
            let at = b.eval(&mut out, g);
            if near(at.1, precision, model_slope) {
                b.gallop(&mut out, at, precision);
            }
        }
    }
    let mut reach = 0u128;
    let mut slow = 0usize;
    for _ in 0..LEAST_PAYING_STEPS {
        if b.hi.is_some_and(|h| h.0 == floor) {
            return Some(floor);
        }
        let width = match (b.lo, b.hi) {
            (Some(l), Some(h)) => Some(h.0 - l.0),
            _ => None,
        };
        if width == Some(1) {
            return b.hi.map(|h| h.0);
        }
        // The next estimate, its precision (0: a bisection, no gallop) and the slope there.
        let latest = match b.recent {
            [Some(p), Some(q)] => secant(p, q, wanted),
            _ => None,
        };
        let (x, precision, slope) = match (next.take().filter(|(g, _)| b.inside(*g)), b.lo, b.hi) {
            (Some((g, p)), _, _) => (g, p, model_slope),
            (None, Some(l), Some(h)) => {
                let span = h.0 - l.0;
                // h.1 ≥ wanted > l.1.
                let across = span.div_ceil(h.1 - l.1);
                let estimate = latest
                    .map(|(t, s)| (to_input(t, floor, ceiling), s))
                    .filter(|(x, _)| b.inside(*x))
                    .or_else(|| secant(l, h, wanted).map(|(t, s)| (to_input(t, floor, ceiling), s)))
                    .filter(|(x, _)| b.inside(*x));
                match estimate {
                    Some((x, s)) if slow < 2 && span > 2 * across => (x, across, s),
                    _ => {
                        slow = 0;
                        (l.0 + span / 2, 0, 0.0)
                    }
                }
            }
            (None, lo, hi) => {
                // One side known: the secant through the two latest points (both on that side), or the model.
                let (p, up) = match (lo, hi) {
                    (Some(l), None) => (l, true),
                    (None, Some(h)) => (h, false),
                    _ => unreachable!("a point is placed before the loop"),
                };
                if up && p.0 == ceiling {
                    return None;
                }
                let (t, s) = latest.unwrap_or_else(|| {
                    let gap = p.1.abs_diff(wanted) as f64 / model_slope.max(f64::MIN_POSITIVE);
                    (if up { p.0 as f64 + gap } else { p.0 as f64 - gap }, model_slope)
                });
                let room = if up { ceiling - p.0 } else { p.0 - floor };
                let step = if up {
                    to_input(t, floor, ceiling).saturating_sub(p.0)
                } else {
                    p.0.saturating_sub(to_input(t, floor, ceiling))
                };
                let step = step.max(reach.saturating_mul(2)).max(1).min(room);
                reach = step;
                (if up { p.0 + step } else { p.0 - step }, band(s), s)
            }
        };
        let at = b.eval(&mut out, x);
        if precision > 0 && near(at.1, precision, slope) {
            b.gallop(&mut out, at, precision);
        }
        if let (Some(w), Some(l), Some(h)) = (width, b.lo, b.hi) {
            slow = if precision > 0 && (h.0 - l.0) * 2 > w { slow + 1 } else { 0 };
        }
    }
    b.hi.map(|h| h.0)
}

/// A plan's exact output at any total in its proportions ([`scaled`]). Its routes share no pool, so each is
/// simulated alone and its samples are kept: where two of them bracket an input with the same positive
/// output, that is its output there (a route's output never falls as its input grows), so the last steps of a
/// search, inside one unit of output, simulate only the routes whose output is not pinned yet. Equal to the
/// whole joint simulation (0 when a route refuses).
struct ScaledOutput<'a> {
    graph: &'a PoolGraph,
    plan: &'a Plan,
    /// Per route, its samples `(input, output)` by input.
    samples: Vec<Vec<(u128, u128)>>,
}

impl<'a> ScaledOutput<'a> {
    fn new(graph: &'a PoolGraph, plan: &'a Plan) -> ScaledOutput<'a> {
        debug_assert!(pool_disjoint(plan.routes.iter().map(|(h, _)| h.as_slice())), "a split's routes share a pool");
        ScaledOutput { graph, plan, samples: vec![Vec::new(); plan.routes.len()] }
    }

    /// The joint output at total `t`.
    fn at(&mut self, t: u128) -> u128 {
        let routes = scaled(self.plan, t);
        let mut total = 0u128;
        for (r, (hops, amount)) in routes.iter().enumerate() {
            match self.alone(r, hops, *amount) {
                Some(o) => total = total.saturating_add(o),
                None => return 0,
            }
        }
        total
    }

    /// A lone route's output at `amount`: pinned by its samples, or simulated and kept; `None` when refused.
    fn alone(&mut self, r: usize, hops: &[Hop], amount: u128) -> Option<u128> {
        if amount == 0 {
            return Some(0);
        }
        let samples = &mut self.samples[r];
        let i = samples.partition_point(|s| s.0 < amount);
        if let Some(&(a, y)) = samples.get(i) {
            if a == amount || (i > 0 && samples[i - 1].1 == y && y > 0) {
                return Some(y);
            }
        }
        let y = Overlay::default().peek(self.graph, hops, amount).ok()?;
        samples.insert(i, (amount, y));
        Some(y)
    }
}

/// A plan's routes with their exact output, for probing one route's input at a time: the routes share no
/// pool, so a probe re-simulates that route alone and keeps the others' outputs. Equal to the whole joint
/// simulation (a refusal anywhere makes the output 0, as [`output`] does).
struct Probe<'g> {
    graph: &'g PoolGraph,
    routes: Routes,
    /// Per route, its output (`None` when it refuses).
    outs: Vec<Option<u128>>,
}

impl<'g> Probe<'g> {
    /// The routes and their outputs.
    fn new(graph: &'g PoolGraph, routes: Routes) -> Probe<'g> {
        debug_assert!(pool_disjoint(routes.iter().map(|(h, _)| h.as_slice())), "a split's routes share a pool");
        let outs = routes.iter().map(|(hops, amount)| Self::simulate(graph, hops, *amount)).collect();
        Probe { graph, routes, outs }
    }

    /// Output of one route at `amount`; `None` when it refuses.
    fn simulate(graph: &PoolGraph, hops: &[Hop], amount: u128) -> Option<u128> {
        if amount == 0 {
            return Some(0);
        }
        Overlay::default().peek(graph, hops, amount).ok()
    }

    /// The sum of the routes' outputs but route `skip`'s, `None` when one of them refuses.
    fn others(&self, skip: usize) -> Option<u128> {
        self.outs
            .iter()
            .enumerate()
            .filter(|(r, _)| *r != skip)
            .try_fold(0u128, |s, (_, o)| Some(s.saturating_add((*o)?)))
    }

    /// The whole plan's output (0 when a route refuses).
    fn total(&self) -> u128 {
        self.outs.iter().try_fold(0u128, |s, o| Some(s.saturating_add((*o)?))).unwrap_or(0)
    }

    /// The whole plan's output with route `i` at `amount` (0 when a route refuses).
    fn with(&self, i: usize, amount: u128) -> u128 {
        match (self.others(i), Self::simulate(self.graph, &self.routes[i].0, amount)) {
            (Some(others), Some(changed)) => others.saturating_add(changed),
            _ => 0,
        }
    }

    /// Sets route `i`'s input.
    fn set(&mut self, i: usize, amount: u128) {
        self.routes[i].1 = amount;
        self.outs[i] = Self::simulate(self.graph, &self.routes[i].0, amount);
    }

    /// The routes as they stand.
    fn into_routes(self) -> Routes {
        self.routes
    }
}

/// A guess of the least input of one hop on `overlay`'s state that pays `need`, with its precision, and the
/// hop's marginal rate there. The guess inverts the hop's Möbius map on its exact reserves (exact for
/// constant product up to the contract's rounding, so precise to a few units and the float's own
/// precision); other curves are fitted, so Newton steps on the float curve refine it, to a looser
/// precision. No guess past the map's capacity.
fn hop_guess(graph: &PoolGraph, overlay: &Overlay, (pool, dir): Hop, need: u128) -> (Option<(u128, u128)>, f64) {
    let curve = &graph.pool(pool).curve;
    let reserves = overlay.reserves(graph, pool);
    let Some(m) = mobius::hop(curve, reserves, dir) else { return (None, 0.0) };
    let need_f = need as f64;
    if m.s <= m.c * need_f {
        return (None, m.s);
    }
    let mut t = need_f / (m.s - m.c * need_f);
    let mut slope = m.marginal(t);
    let exact = matches!(curve, Curve::ConstantProduct(_) | Curve::DexAVolatile(_));
    if !exact {
        let (x, y) = dir.split(reserves);
        let r = [x as f64, y as f64];
        for _ in 0..HOP_NEWTON {
            let (Some((o, _)), Some((o2, _))) =
                (mobius::float_out(curve, dir, r, t), mobius::float_out(curve, dir, r, t * (1.0 + 1e-7)))
            else {
                break;
            };
            let d = (o2 - o) / (t * 1e-7);
            if !(d.is_finite() && d > 0.0) {
                break;
            }
            slope = d;
            let next = t + (need_f - o) / d;
            if !(next.is_finite() && next > 0.0) {
                break;
            }
            let moved = (next - t).abs();
            t = next;
            if moved <= t * 1e-13 {
                break;
            }
        }
    }
    if !(t.is_finite() && t > 0.0) {
        return (None, slope);
    }
    let guess = (t.ceil().min(MAX_COINS as f64) as u128).min(MAX_COINS);
    let relative = if exact { GUESS_PRECISION_EXACT } else { GUESS_PRECISION_FITTED };
    let precision = ((t * relative).ceil() as u128).max(2);
    (Some((guess, precision)), slope)
}

/// The least input of one route on `overlay`'s state whose exact output is at least `target`, solved from
/// the last hop back: the last hop's least input that pays `target`, then the least input of the hop before
/// that pays that, and so on. Exact, since each hop's output grows with its input (a simple path meets each
/// pool once, so every hop sees the overlay's state): the route pays `target` exactly when its first hop
/// pays the least input the second needs. `None` when a hop cannot pay its part below 2^120.
fn least_route_input(graph: &PoolGraph, overlay: &Overlay, hops: &[Hop], target: u128) -> Option<u128> {
    let mut need = target;
    for &hop in hops.iter().rev() {
        if need == 0 {
            return Some(0);
        }
        let one = [hop];
        let (guess, slope) = hop_guess(graph, overlay, hop, need);
        need = least_paying(|m| overlay.peek(graph, &one, m).unwrap_or(0), need, None, guess, slope, 0, MAX_COINS)?;
    }
    Some(need)
}

/// Lowers each route to its least input with the others fixed, route after route, until no route can give
/// up a unit (or [`MINIMISE_ROUNDS`]): each is solved hop by hop ([`least_route_input`], for what the others
/// leave it to pay; the routes share no pool). Every round keeps an input that pays: stopping early only
/// leaves some units unsaved.
fn minimise(graph: &PoolGraph, routes: Routes, wanted: u128, budget: Budget<'_>) -> Routes {
    let mut probe = Probe::new(graph, routes);
    for _ in 0..MINIMISE_ROUNDS {
        if budget.exhausted() {
            break;
        }
        let mut changed = false;
        for i in 0..probe.routes.len() {
            let current = probe.routes[i].1;
            // Most routes are at their least already (the first takes up the slack): one unit less, probed
            // alone, says so for one simulation of it.
            if current == 0 || probe.with(i, current - 1) < wanted {
                continue;
            }
            let others = probe.others(i).unwrap_or(0);
            let least =
                least_route_input(graph, &Overlay::default(), &probe.routes[i].0, wanted.saturating_sub(others));
            if let Some(least) = least.filter(|l| *l < current) {
                probe.set(i, least);
                if probe.total() < wanted {
                    // An output that is not monotone to the unit: keep what paid.
                    probe.set(i, current);
                } else {
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut routes = probe.into_routes();
    routes.retain(|(_, a)| *a > 0);
    routes
}

/// The least total input, in `plan`'s proportions, whose exact joint output pays `wanted`, searched in
/// `floor..=2^120 − 1` (a plan of one route: its least input, hop by hop). The search starts from the plan's
/// own point (its input `x` and exact output) and the model's guess. `None` when no total pays.
fn least_total(graph: &PoolGraph, plan: &Plan, x: u128, wanted: u128, floor: u128) -> Option<u128> {
    if let [(hops, _)] = plan.routes.as_slice() {
        if let Some(t) = least_route_input(graph, &Overlay::default(), hops, wanted) {
            return Some(t.max(floor));
        }
    }
    let (guess, slope) = match model_input(graph, plan, x, wanted) {
        Some((t, slope)) => {
            let g = (t.ceil().clamp(1.0, MAX_COINS as f64) as u128).min(MAX_COINS);
            let precision = ((t * GUESS_PRECISION_MODEL).ceil() as u128).max(band(slope));
            (Some((g, precision)), slope)
        }
        // Past the model's capacity (or no model): the plan's own average rate guides the steps.
        None => (None, plan.out as f64 / x.max(1) as f64),
    };
    let known = (x >= floor).then_some((x, plan.out));
    let mut scaled_output = ScaledOutput::new(graph, plan);
    least_paying(|t| scaled_output.at(t), wanted, known, guess, slope, floor.max(1), MAX_COINS)
}

/// Exact-out: the plan with the smallest input that pays at least `request.amount()`, with the exact-in
/// figures its quote reports (the best single route's output for the same input, the best spot rate).
pub(crate) fn best_plan(ask: Ask<'_>) -> Result<Found, RouteError> {
    let (graph, budget, wanted) = (ask.graph, ask.budget, ask.request.amount());
    let planner = Planner::new(ask);
    let spot = planner.spot_bound();
    if spot <= 0.0 {
        return Err(planner.no_path());
    }
    let as_input = |t: f64| (t.ceil().clamp(1.0, MAX_COINS as f64) as u128).min(MAX_COINS);
    // An underestimate of the input: no path pays better than the spot bound.
    let mut x = as_input(wanted as f64 / spot);
    let mut candidates = planner.candidates(x)?;
    let mut lo = 0u128; // an input known to pay less than wanted
                        // The plan settled on, and the least total in its proportions that pays.
    let mut settled: Option<(Found, u128)> = None;

    // 1. The first plan, at the spot estimate, and the least total in its proportions that pays.
    let first = planner.plan(&mut candidates, x);
    if let Ok(first) = first {
        if first.plan.out >= wanted {
            let total = least_total(graph, &first.plan, x, wanted, 0);
            settled = total.map(|t| (first, t));
        } else {
            lo = x;
            let t1 = least_total(graph, &first.plan, x, wanted, x);
            match t1 {
                // Within a percent of the first plan's input, a plan made there would split the same way.
                Some(total) if (total - x) as f64 <= x as f64 * EXACT_OUT_NEAR => settled = Some((first, total)),
                Some(total) => {
                    // 2. A plan at that input (over the same candidates), and the least total in its
                    //    proportions, above the first plan's input.
                    let second = planner.plan(&mut candidates, total).ok().filter(|f| f.plan.out >= wanted);
                    settled = Some(match second {
                        Some(second) => {
                            // The same single route: its least input is known already.
                            let same = matches!((first.plan.routes.as_slice(), second.plan.routes.as_slice()),
                                ([(a, _)], [(b, _)]) if a == b);
                            let least = if same {
                                total
                            } else {
                                least_total(graph, &second.plan, total, wanted, x).unwrap_or(total)
                            };
                            (second, least)
                        }
                        None => (first, total),
                    });
                }
                None => {}
            }
        }
    }
    // Where the first plan's routes could not pay it: plans searched afresh at growing inputs until one pays.
    if settled.is_none() {
        for _ in 0..BRACKET_ROUNDS {
            if budget.exhausted() {
                break;
            }
            let found = planner.candidates(x).and_then(|mut c| {
                let found = planner.plan(&mut c, x);
                candidates = c;
                found
            });
            let out = found.as_ref().map_or(0, |f| f.plan.out);
            if let Some(found) = found.ok().filter(|_| out >= wanted) {
                let least = least_total(graph, &found.plan, x, wanted, lo).unwrap_or(x);
                settled = Some((found, least));
                break;
            }
            lo = lo.max(x);
            if x == MAX_COINS {
                break;
            }
            x = if out == 0 {
                x.saturating_mul(BRACKET_GROWTH).min(MAX_COINS)
            } else {
                // Concave output: the secant undershoots, so aim a little beyond it.
                as_input(x as f64 * wanted as f64 / out as f64 * BRACKET_OVERSHOOT).max(x + 1)
            };
        }
    }
    let Some((found, total)) = settled else {
        if budget.latched() {
            return Err(RouteError::BudgetExhausted);
        }
        return Err(RouteError::OutputUnreachable { wanted });
    };

    // 3. The least total in the plan's proportions, then each route down to its own least input.
    let mut routes = scaled(&found.plan, total);
    let mut least = true;
    if output(graph, &routes) < wanted {
        // Proportional rounding is not monotone to the unit; the plan's own routes always pay.
        routes = found.plan.routes.clone();
        least = false;
    }
    // One route at the least total is at its own least input already.
    let routes = if least && routes.len() == 1 { routes } else { minimise(graph, routes, wanted, budget) };
    let out = output(graph, &routes);
    let in_total: u128 = routes.iter().map(|(_, a)| *a).sum();
    let gas_value = routes.iter().map(|(h, _)| planner.gas(h)).sum();
    let plan = Plan { routes, out, gas_value };
    let single = best_single_out(&planner, &candidates, &plan, in_total);
    Ok(Found { plan, best_single_out: single, spot: found.spot })
}

/// What the best single route pays for `in_total` (the exact-in comparison of the quote's improvement): a
/// plan of one route is its own best single route; otherwise the first search's single paths are simulated
/// at that input. Out of time, the comparison is not made: the improvement reads 0 rather than a guess.
fn best_single_out(planner: &Planner<'_>, candidates: &Candidates, plan: &Plan, in_total: u128) -> u128 {
    if plan.routes.len() == 1 || planner.budget().exhausted() {
        return plan.out;
    }
    let singles = &candidates.paths[..candidates.singles];
    planner.best_single(singles, in_total).0.map_or(0, |b| b.out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::{Asset, JettonMaster};
    use crate::graph::PoolId;
    use crate::route::request::{QuoteRequest, SwapMode};
    use crate::route::testkit::{cp, cp_f, diamond, forward, graph, linear, parallel, shared, DEPTH};
    use crate::route::{NetworkFees, Quote, QuoteOptions, Router, RouterConfig};

    fn asset(i: u8) -> Asset {
        if i == 0 {
            Asset::Native
        } else {
            Asset::Jetton(JettonMaster([i; 32]))
        }
    }

    fn exact_out(graph: &PoolGraph, from: u8, to: u8, wanted: u128, max_splits: usize) -> Result<Quote, RouteError> {
        let router = Router::new(RouterConfig { network_fees: NetworkFees::ZERO, ..RouterConfig::default() });
        let request =
            QuoteRequest::builder(asset(from), asset(to), wanted).swap_mode(SwapMode::ExactOut).max_splits(max_splits);
        let request = request.build()?;
        router.quote(graph, &request, QuoteOptions::default())
    }

    /// The exact output of `inputs` on the `parallel` fixture's pools (pool-disjoint: the sum of each pool's
    /// own formula).
    fn parallel_out(inputs: &[u128]) -> u128 {
        let depths = [DEPTH, DEPTH / 2, DEPTH / 4];
        inputs.iter().zip(depths).map(|(&a, x)| if a == 0 { 0 } else { cp(x, 2 * x, a).0 }).sum()
    }

    #[test]
    fn one_pool_gets_the_smallest_input_to_the_unit() {
        let g = parallel();
        let wanted = 123_456_789_013;
        let q = exact_out(&g, 0, 1, wanted, 1).unwrap();
        assert_eq!(q.routes.len(), 1);
        let route = &q.routes[0];
        let x = g.reserves(route.steps[0].pool)[0];
        let pays = |a: u128| cp(x, 2 * x, a).0;
        assert!(pays(q.in_amount) >= wanted);
        assert!(pays(q.in_amount - 1) < wanted, "input {} is not minimal", q.in_amount);
        assert_eq!(q.out_amount, pays(q.in_amount));
        // The deepest pool needs the least input: it is the one chosen.
        assert_eq!(x, DEPTH);
    }

    #[test]
    fn every_route_of_a_split_is_minimal_to_the_unit() {
        let g = parallel();
        let wanted = 300_000_000_000;
        let q = exact_out(&g, 0, 1, wanted, 3).unwrap();
        assert!(q.routes.len() >= 2, "{q:?}");
        let mut inputs = [0u128; 3];
        for r in &q.routes {
            inputs[r.steps[0].pool.index()] = r.in_amount;
        }
        assert_eq!(parallel_out(&inputs), q.out_amount);
        assert!(q.out_amount >= wanted);
        for i in 0..3 {
            if inputs[i] == 0 {
                continue;
            }
            let mut less = inputs;
            less[i] -= 1;
            assert!(parallel_out(&less) < wanted, "route through pool {i} could give up a unit: {inputs:?}");
        }
        // Splitting needs less input than the best single pool does for the same output.
        let single = exact_out(&g, 0, 1, wanted, 1).unwrap();
        assert!(q.in_amount < single.in_amount);
    }

    #[test]
    fn a_split_where_paths_share_a_pool_keeps_its_routes_apart_and_minimal() {
        // shared: the paths through pools 0, 2 and 1, 2 share pool 2; the split takes one of them beside
        // pool 3, never both.
        let g = shared();
        let wanted = 200_000_000_000;
        let q = exact_out(&g, 0, 2, wanted, 3).unwrap();
        let pools: Vec<usize> = q.routes.iter().flat_map(|r| r.steps.iter().map(|s| s.pool.index())).collect();
        assert!(pools.iter().enumerate().all(|(i, p)| !pools[i + 1..].contains(p)), "{pools:?}");
        // The routes' own order, each on what the earlier left, with the formula written out.
        let plan: Vec<(Vec<usize>, u128)> =
            q.routes.iter().map(|r| (r.steps.iter().map(|s| s.pool.index()).collect(), r.in_amount)).collect();
        let simulate = |plan: &[(Vec<usize>, u128)]| -> u128 {
            let mut reserves: Vec<[u128; 2]> = (0..4).map(|p| g.reserves(PoolId(p))).collect();
            let mut out = 0;
            for (pools, amount) in plan {
                if *amount == 0 {
                    continue;
                }
                let mut x = *amount;
                for &p in pools {
                    let [r0, r1] = reserves[p];
                    let (o, a, b) = cp(r0, r1, x);
                    reserves[p] = [a, b];
                    x = o;
                }
                out += x;
            }
            out
        };
        assert!(plan.len() >= 2, "{q:?}");
        assert_eq!(simulate(&plan), q.out_amount);
        assert!(q.out_amount >= wanted);
        for i in 0..plan.len() {
            let mut less = plan.clone();
            less[i].1 -= 1;
            assert!(simulate(&less) < wanted, "route {i} could give up a unit: {plan:?}");
        }
    }

    #[test]
    fn an_output_the_pools_cannot_pay_is_unreachable() {
        // The one pool holds 2·10^12 of asset 1; no input gets it all out.
        let g = crate::route::testkit::graph(2, &[(0, 1, [DEPTH, 2 * DEPTH])]);
        assert_eq!(exact_out(&g, 0, 1, 2 * DEPTH, 1), Err(RouteError::OutputUnreachable { wanted: 2 * DEPTH }));
    }

    #[test]
    fn scaled_keeps_the_proportions_and_adds_up_exactly() {
        let plan = Plan {
            routes: vec![(SmallVec::new(), 600), (SmallVec::new(), 300), (SmallVec::new(), 100)],
            out: 0,
            gas_value: 0,
        };
        // 1001 · (0.6, 0.3, 0.1) = (600.6, 300.3, 100.1): floors (600, 300, 100), the rest (1) to the largest.
        let amounts: Vec<u128> = scaled(&plan, 1001).into_iter().map(|(_, a)| a).collect();
        assert_eq!(amounts, vec![601, 300, 100]);
        // Near 2^120 the products need 240 bits.
        let big = MAX_COINS;
        let amounts: Vec<u128> = scaled(&plan, big).into_iter().map(|(_, a)| a).collect();
        assert_eq!(amounts.iter().sum::<u128>(), big);
        assert_eq!(amounts[1], big / 10 * 3 + (big % 10) * 3 / 10);
    }

    /// Evaluations `least_paying` spends, and its answer, on a step function `out(x) = ⌊x·num / den⌋`.
    fn count(
        num: u128,
        den: u128,
        wanted: u128,
        start: u128,
        guess: Option<(u128, u128)>,
        slope: f64,
    ) -> (Option<u128>, usize) {
        let mut calls = 0;
        let f = |x: u128| x * num / den;
        let got = least_paying(
            |x| {
                calls += 1;
                f(x)
            },
            wanted,
            Some((start, f(start))),
            guess,
            slope,
            0,
            1 << 60,
        );
        (got, calls)
    }

    #[test]
    fn least_paying_finds_the_first_paying_input_from_either_side() {
        for (num, den) in [(1u128, 1u128), (3, 7), (1_000_003, 1_000), (1, 1_000_000)] {
            for wanted in [1u128, 2, 999, 123_456_789] {
                let first = (wanted * den).div_ceil(num);
                for start in [0u128, first / 3, first.saturating_sub(1), first, first + 1, first * 5 + 17] {
                    for slope in [num as f64 / den as f64, 1e-3, 1e3] {
                        let (got, _) = count(num, den, wanted, start, None, slope);
                        assert_eq!(got, Some(first), "{num}/{den} wanted {wanted} from {start} slope {slope}");
                    }
                }
            }
        }
        // Past the ceiling: none.
        assert_eq!(least_paying(|x| x, 100, Some((5, 5)), None, 1.0, 0, 50), None);
        // The floor pays: the floor.
        assert_eq!(least_paying(|x| x + 100, 100, Some((40, 140)), None, 1.0, 0, 50), Some(0));
    }

    #[test]
    fn least_paying_from_a_right_guess_spends_two_evaluations() {
        // A guess on the answer: itself and its neighbour below.
        let (got, calls) = count(1_000_003, 1_000, 1_000_000_000, 10, Some((999_998, 1)), 1_000.003);
        assert_eq!((got, calls), (Some(999_998), 2));
        // From the paying side, a right slope drops onto the answer: that point and its neighbour.
        let (got, calls) = count(1, 1, 1_000, 1_500, None, 1.0);
        assert_eq!((got, calls), (Some(1_000), 2));
    }

    #[test]
    fn least_paying_bisects_inside_one_unit_of_output() {
        // 1/1000 of an output unit per input unit: a guess 400 inputs off, said to be within 500, leaves
        // inputs that all pay the same; the probe 500 below brackets them, and bisection finds the first in
        // ten more.
        let first = 123_456 * 1_000;
        let (got, calls) = count(1, 1_000, 123_456, 10, Some((first + 400, 500)), 1e-3);
        assert_eq!(got, Some(first));
        assert!(calls <= 2 + 10, "{calls} evaluations");
        // A guess farther off than it says gallops: twice as far each probe.
        let (got, calls) = count(1, 1_000, 123_456, 10, Some((first + 40_000, 500)), 1e-3);
        assert_eq!(got, Some(first));
        assert!(calls <= 2 + 8 + 17, "{calls} evaluations");
    }

    #[test]
    fn the_plan_model_is_the_formula_in_the_plans_proportions() {
        // Three pool-disjoint routes on the parallel fixture at 4 : 2 : 1, each pool's depth: the plan's output
        // at any total is one pool of the combined depth (the optimal split), and the model inverts it.
        let g = parallel();
        let routes: Routes = (0..3).map(|p| (forward(&g, &[p]).hops, 4_000 >> p)).collect();
        let plan = Plan { routes, out: 0, gas_value: 0 };
        let mut model = PlanModel::new(&g, &plan).unwrap();
        let d = DEPTH as f64;
        for t in [1e6, 1e9, 3e11, 5e12] {
            let want = cp_f(1.75 * d, 3.5 * d, t).0;
            let out = model.output(t);
            assert!((out - want).abs() <= want * 1e-12, "{t}: {out} vs {want}");
            let back = model.input_for(out, t * 0.37).unwrap();
            assert!((back - t).abs() <= t * 1e-9, "{t}: {back}");
        }
        // Beyond what the pools hold (3.5·D of asset 1, the limit of an unbounded input): none.
        assert!(model.input_for(3.6 * d, 1e9).is_none());
    }

    #[test]
    fn the_plan_model_runs_routes_sharing_a_pool_in_order() {
        // shared: A = pools 0, 2 and B = pools 1, 2 at 3 : 1; B sees pool 2 as A left it.
        let g = shared();
        let routes: Routes = vec![(forward(&g, &[0, 2]).hops, 3), (forward(&g, &[1, 2]).hops, 1)];
        let plan = Plan { routes, out: 0, gas_value: 0 };
        let mut model = PlanModel::new(&g, &plan).unwrap();
        let (d, h) = (DEPTH as f64, DEPTH as f64 / 2.0);
        let t = 2e11;
        let (a1, _, _) = cp_f(d, d, 0.75 * t);
        let (a2, x2, y2) = cp_f(d, d, a1);
        let (b1, _, _) = cp_f(h, h, 0.25 * t);
        let want = a2 + cp_f(x2, y2, b1).0;
        assert!((model.output(t) - want).abs() <= want * 1e-12);
        let back = model.input_for(want, 1e9).unwrap();
        assert!((back - t).abs() <= t * 1e-9, "{back}");
    }

    #[test]
    fn a_probe_of_one_route_equals_the_whole_joint_simulation() {
        // parallel: three pools side by side. Every change of one route's input, probed, is the joint
        // simulation of the whole plan with that change.
        let g = parallel();
        let hops = |pools: &[u32]| forward(&g, pools).hops;
        let routes: Routes =
            vec![(hops(&[0]), 40_000_000_000), (hops(&[2]), 30_000_000_000), (hops(&[1]), 20_000_000_000)];
        let mut probe = Probe::new(&g, routes.clone());
        assert_eq!(probe.total(), output(&g, &routes));
        let mut current = routes;
        for (step, (i, amount)) in
            [(0, 1u128), (2, 55_555_555_555), (1, 0), (0, 77_000_000_001), (2, 0), (1, 12_345), (0, 0)]
                .into_iter()
                .enumerate()
        {
            let mut changed = current.clone();
            changed[i].1 = amount;
            assert_eq!(probe.with(i, amount), output(&g, &changed), "step {step}: route {i} at {amount}");
            probe.set(i, amount);
            current = changed;
            assert_eq!(probe.total(), output(&g, &current), "step {step}");
        }
    }

    #[test]
    fn the_scaled_output_by_samples_equals_the_joint_simulation() {
        // diamond: two pool-disjoint two-hop paths, and the samples that pin each route's output between them.
        // Totals up and down, near and far, each equal to the joint simulation.
        let g = diamond();
        let hops = |pools: &[u32]| forward(&g, pools).hops;
        let plan = Plan { routes: vec![(hops(&[0, 2]), 5_000_000), (hops(&[1, 3]), 3_000_001)], out: 0, gas_value: 0 };
        let mut by_samples = ScaledOutput::new(&g, &plan);
        let mut t = 10_000_000_001u128;
        for step in 0..200u128 {
            // A walk that revisits totals, in steps of every size down to one unit.
            t = if step % 3 == 0 { t + 7 * step } else { t - step / 2 + 1 };
            assert_eq!(by_samples.at(t), output(&g, &scaled(&plan, t)), "total {t}");
        }
        for t in [1u128, 2, 3, 10, 1_000, 123_456_789, 9_999_999_999_999] {
            assert_eq!(by_samples.at(t), output(&g, &scaled(&plan, t)), "total {t}");
        }
    }

    /// The least input of `hops` on `overlay` that pays `target`, by bisection over the whole route.
    fn least_by_bisection(g: &PoolGraph, overlay: &Overlay, hops: &[Hop], target: u128) -> u128 {
        let pays = |a: u128| overlay.peek(g, hops, a).unwrap_or(0) >= target;
        let (mut lo, mut hi) = (0u128, 1u128);
        while !pays(hi) {
            lo = hi;
            hi *= 2;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if pays(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    #[test]
    fn a_route_solved_hop_by_hop_needs_the_least_input_a_bisection_finds() {
        // linear: 0 → 3 over three pools; targets from one unit to a tenth of the last pool, on the graph's
        // reserves and on what a first trade through pool 1 left.
        let g = linear();
        let path = forward(&g, &[0, 1, 2]).hops;
        let mut moved = Overlay::default();
        moved.run(&g, &forward(&g, &[1]).hops, DEPTH / 3).unwrap();
        for overlay in [Overlay::default(), moved] {
            for target in [1u128, 2, 3, 1_000, 999_999_937, 123_456_789_012, 3 * DEPTH / 10] {
                let want = least_by_bisection(&g, &overlay, &path, target);
                assert_eq!(least_route_input(&g, &overlay, &path, target), Some(want), "target {target}");
            }
        }
        // More than the last pool holds: none.
        assert_eq!(least_route_input(&g, &Overlay::default(), &path, 3 * DEPTH), None);
    }

    #[test]
    fn a_refusing_route_makes_the_probe_zero() {
        // Pool 1 holds one unit of asset 1: any input through it rounds to nothing, which the contract refuses.
        let g = graph(2, &[(0, 1, [DEPTH, DEPTH]), (0, 1, [DEPTH, 1])]);
        let routes: Routes = vec![(forward(&g, &[0]).hops, 1_000_000), (forward(&g, &[1]).hops, 0)];
        let probe = Probe::new(&g, routes.clone());
        assert_eq!(probe.total(), output(&g, &routes));
        let mut refused = routes;
        refused[1].1 = 1_000;
        assert_eq!(output(&g, &refused), 0);
        assert_eq!(probe.with(1, 1_000), 0);
    }
}
