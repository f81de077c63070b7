#!/usr/bin/env python3
"""A/B of `examples/peers` binaries on one graph, in one run: the binaries run in turn, ROUNDS times each
(each run with PEERS_TIMES=3), and a query's time is its least over every run of that binary, so a load spike
on the shared machine hurts no binary more than the others. Prints p50 / p90 / max per binary and how many
answers (amount_out and routes) equal the first binary's.

usage: scripts/peers_ab.py ROUNDS GRAPHDIR name=BIN [name=BIN ...]
  e.g. scripts/peers_ab.py 3 ../shared/peers/graphs/p10000 main=/tmp/peers_main new=target/release/examples/peers
Results go to $PEERS_AB_OUT (default /tmp/peers_ab)/NAME_GRAPH/."""
import json, subprocess, sys, os
rounds=int(sys.argv[1]); graph=sys.argv[2]; bins=[a.split('=',1) for a in sys.argv[3:]]
best={n:{} for n,_ in bins}; outs={n:{} for n,_ in bins}
for r in range(rounds):
    for n,b in bins:
        od=os.path.join(os.environ.get('PEERS_AB_OUT','/tmp/peers_ab'),f'{n}_{os.path.basename(graph)}')
        subprocess.run(['nice','-n','-5',b,graph,'--out',od],env=dict(os.environ,PEERS_TIMES='3'),capture_output=True,check=True)
        for x in json.load(open(od+'/results.tonroute.json'))['results']:
            t=x.get('time_ms',0); i=x['id']
            best[n][i]=min(best[n].get(i,1e9),t); outs[n][i]=(x.get('amount_out'),json.dumps(x.get('routes')))
def pct(v,p):
    v=sorted(v); return v[round((len(v)-1)*p)]
base=bins[0][0]
# Each binary's least time per query, for a closer look (`best_NAME.json` beside the results).
for n,_ in bins:
    od=os.path.join(os.environ.get('PEERS_AB_OUT','/tmp/peers_ab'),f'{n}_{os.path.basename(graph)}')
    json.dump({str(i):t for i,t in best[n].items()},open(od+'/best.json','w'))
for n,_ in bins:
    v=list(best[n].values())
    same=sum(1 for i in outs[n] if outs[n][i]==outs[base].get(i))
    print(f'{n:10s} p50 {pct(v,.5):.3f} p90 {pct(v,.9):.3f} max {max(v):.3f} ms  same-answers-as-{base} {same}/{len(v)}')
