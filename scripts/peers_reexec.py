#!/usr/bin/env python3
"""Re-execute tonroute's chosen routes with the peers' own pool math (shared/peers/amm.py).

tonroute reports `amount_out` simulated with the contracts' math (STON.fi v2 stable swap for `stable` pools);
the peers measure with amm.py's Curve math, which rounds a stable swap one or two units differently. To compare
route choice alone, this script re-runs every route of results.<name>.json with amm.py and writes
results.<name>_amm.json next to it.

usage: python3 scripts/peers_reexec.py PEERS_DIR GRAPH_DIR [NAME]
  PEERS_DIR: the folder holding amm.py (../shared/peers); GRAPH_DIR: e.g. ../shared/peers/graphs/p1000
"""
import json, sys

peers, gdir = sys.argv[1], sys.argv[2]
name = sys.argv[3] if len(sys.argv) > 3 else "tonroute"
sys.path.insert(0, peers)
from amm import Graph  # noqa: E402

g = Graph(json.load(open(f"{gdir}/graph.json")))
res = json.load(open(f"{gdir}/results.{name}.json"))
for r in res["results"]:
    if r.get("amount_out") is None:
        continue
    state, total = {}, 0
    for route in r["routes"]:
        x = int(route["amount_in"])
        for leg in route["legs"]:
            x, _ = g.swap(g.by_addr[leg["pool"]], leg["asset_in"], x, state)
        total += x
    r["amount_out_contract_math"] = r["amount_out"]
    r["amount_out"] = str(total)
res["router"] = f"{name}_amm"
json.dump(res, open(f"{gdir}/results.{name}_amm.json", "w"), indent=1)
print(f"{gdir}: re-executed {len(res['results'])} results with amm.py")
