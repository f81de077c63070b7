#!/usr/bin/env python3
"""Tightness and cost of the optimality certificate on a peers graph, from `examples/peers --certify`.

For every query the convex solver answered (`convex.py`, Angeris et al.'s relaxation: no limits, no gas), the
certificate's bound is compared with the solver's optimum before rounding (`bound_float`):
  tightness = (upper_bound − optimum) / optimum, in basis points (≥ 0 up to the solver's own accuracy),
and with the quote it certifies:
  gap = the certificate's gap_bps, (upper_bound − amount_out) / upper_bound.
The cost is certify_ms / time_ms per query (same run, same process), over every query answered (as the example
prints it).

usage: python3 scripts/certificate_tightness.py RESULTS_JSON CONVEX_JSON
  RESULTS_JSON: results.tonroute.json written by `peers DIR --certify --out OUT`
  CONVEX_JSON:  tests/data/peers/pN/convex.json or ../shared/peers/graphs/pN/results.convex.json
"""
import json
import math
import sys


def pct(values, p):
    """The same percentile as examples/peers.rs: the element at round((n − 1)·p) of the sorted list."""
    s = sorted(values)
    return s[round((len(s) - 1) * p)]


ours = {r["id"]: r for r in json.load(open(sys.argv[1]))["results"]}
convex = json.load(open(sys.argv[2]))["results"]
tight, gaps, missing = [], [], []
costs = [r["certify_ms"] / max(r["time_ms"], 1e-6) for r in ours.values() if "certify_ms" in r]
for c in convex:
    opt = c.get("bound_float")
    if not isinstance(opt, (int, float)) or not math.isfinite(opt) or not isinstance(c.get("amount_out"), str):
        continue  # the solver failed on this query
    r = ours.get(c["id"])
    if r is None or r.get("upper_bound") is None:
        missing.append(c["id"])
        continue
    bound = int(r["upper_bound"])
    tight.append((bound - opt) / opt * 1e4)
    gaps.append(r["gap_bps"])
n = len(tight)
print(f"{n} queries with a convex optimum; {len(missing)} without a certificate {missing}")
print(f"bound above the convex optimum: median {pct(tight, .5):.4f} bp, p90 {pct(tight, .9):.4f} bp, "
      f"max {max(tight):.4f} bp, min {min(tight):.6f} bp")
print(f"quote's gap to the bound:       median {pct(gaps, .5):.4f} bp, p90 {pct(gaps, .9):.4f} bp")
print(f"certificate / quote time:       median {pct(costs, .5):.2f}, p90 {pct(costs, .9):.2f} ({len(costs)} queries)")
