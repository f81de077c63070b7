#!/usr/bin/env python3
"""Our results against Tines' answer executed as message chains (scripts/tines_chains.mjs).

usage: python3 scripts/tines_chains_compare.py GRAPH_DIR [NAME ...]   (default NAME: tonroute_s20l4)
Per results file: on how many queries the output is >= each Tines figure - 0.5 bp (dag = Tines as the
peers measure it, each pool swapped once; chains_all = its paths run one after another; chains_cap = its
20 largest paths), and the queries below chains_all with the gap in bp.
"""
import json
import sys


def main():
    d = sys.argv[1]
    names = sys.argv[2:] or ["tonroute_s20l4"]
    tines = {t["id"]: t for t in json.load(open(f"{d}/tines_chains.json"))}
    for name in names:
        ours = {r["id"]: int(r["amount_out"] or 0) for r in json.load(open(f"{d}/results.{name}.json"))["results"]}
        ids = [i for i in ours if i in tines]

        def count(key):
            return sum(1 for i in ids if ours[i] >= int(tines[i][key]) * (1 - 0.5e-4))

        below = [
            (i, round((int(tines[i]["chains_all"]) - ours[i]) / int(tines[i]["chains_all"]) * 1e4, 2))
            for i in ids
            if ours[i] < int(tines[i]["chains_all"]) * (1 - 0.5e-4)
        ]
        print(
            f"{d} {name}: >= Tines-0.5bp dag {count('dag')}/{len(ids)}, chains_all {count('chains_all')}/{len(ids)}, "
            f"chains_cap20 {count('chains_cap')}/{len(ids)}; below chains_all (id, bp): {below}"
        )


if __name__ == "__main__":
    main()
