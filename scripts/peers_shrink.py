#!/usr/bin/env python3
"""Cut one query of a peers graph down to a small graph on which two `examples/peers` builds still disagree
with a peer the same way: A below the peer, B at or above it (each by more than MARGIN units, so that the
stable swap's one-unit rounding difference between the contracts' math and amm.py cannot decide).

usage: scripts/peers_shrink.py PEERS_DIR GRAPH_DIR QID OUT_DIR A_BIN B_BIN
  PEERS_DIR: ../shared/peers (for uni_alpha.py); GRAPH_DIR: a gen.py output (graph.json, queries.json).
Keeps the pools on any simple path of at most max_length hops from the query's input to its output, then
drops intermediate assets (with their pools) and then single pools while the disagreement holds (ddmin),
re-running both builds and uni_alpha.py on every trial. Writes OUT_DIR/graph.json, queries.json and
results.uni_alpha.json (the peer's answer on the small graph). Used for tests/data/peers/s404_q44."""
import json, os, subprocess, sys
from collections import defaultdict

MARGIN = 1000
peers, src, qid, out, a_bin, b_bin = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
g = json.load(open(f'{src}/graph.json'))
q = next(x for x in json.load(open(f'{src}/queries.json')) if x['id'] == qid)
tmp = out + '.try'

# Pools on a simple path of at most max_length hops (a breadth-first distance to the output prunes the walk).
adj = defaultdict(list)
for i, p in enumerate(g['pools']):
    adj[p['asset0']].append((i, p['asset1']))
    adj[p['asset1']].append((i, p['asset0']))
L, dist, front = q['max_length'], {q['to']: 0}, [q['to']]
for d in range(1, L + 1):
    nxt = []
    for a in front:
        for _, b in adj[a]:
            if b not in dist:
                dist[b] = d
                nxt.append(b)
    front = nxt
on_path = set()


def walk(a, seen, used):
    if a == q['to']:
        on_path.update(used)
        return
    for i, b in adj[a]:
        if len(used) < L and b not in seen and dist.get(b, L + 1) <= L - len(used) - 1:
            walk(b, seen | {b}, used + [i])


walk(q['from'], {q['from']}, [])
pools = [p for i, p in enumerate(g['pools']) if i in on_path]


def write(d, pools):
    used = {x for p in pools for x in (p['asset0'], p['asset1'])}
    os.makedirs(d, exist_ok=True)
    json.dump({'assets': [x for x in g['assets'] if x['id'] in used], 'pools': pools}, open(f'{d}/graph.json', 'w'), indent=1)
    json.dump([q], open(f'{d}/queries.json', 'w'), indent=1)
    subprocess.run(['python3', f'{peers}/uni_alpha.py', d], capture_output=True, check=True)
    return int(json.load(open(f'{d}/results.uni_alpha.json'))['results'][0]['amount_out'] or 0)


def holds(pools):
    ends = {x for p in pools for x in (p['asset0'], p['asset1'])}
    if q['from'] not in ends or q['to'] not in ends:
        return False
    peer = write(tmp, pools)
    outs = []
    for b in (a_bin, b_bin):
        run = subprocess.run([b, tmp, '--out', tmp + '.out'], capture_output=True)
        if run.returncode:
            return False
        outs.append(int(json.load(open(tmp + '.out/results.tonroute.json'))['results'][0]['amount_out'] or 0))
    return outs[0] < peer - MARGIN and outs[1] >= peer + MARGIN


def ddmin(items, key):
    global pools
    n = 2
    while len(items) >= 2:
        chunk, removed = max(1, len(items) // n), False
        for i in range(0, len(items), chunk):
            drop = set(items[i:i + chunk])
            trial = [p for p in pools if not key(p) & drop]
            if holds(trial):
                pools, items, n, removed = trial, [x for x in items if x not in drop], max(n - 1, 2), True
                print(len(pools), 'pools', flush=True)
                break
        if not removed:
            if n >= len(items):
                break
            n = min(len(items), n * 2)


assert holds(pools), 'the builds do not disagree with the peer on the paths-only graph'
ddmin(sorted({x for p in pools for x in (p['asset0'], p['asset1'])} - {q['from'], q['to']}), lambda p: {p['asset0'], p['asset1']})
ddmin([p['address'] for p in pools], lambda p: {p['address']})
write(out, pools)
print(out, len(pools), 'pools')
