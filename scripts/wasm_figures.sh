#!/usr/bin/env bash
# The npm package's figures for BENCHMARKS.md ("WebAssembly"), beside native in one run: the module's size raw
# and gzipped, the snapshot's load time, and quote p50 / p99 on the bundled data (300 seeded random bodies of
# the node tests' generator) and on the 10k-pool peers graph (its queries; the graph written as a snapshot by
# examples/api_times.rs, which first checks that it routes as examples/peers' graph does). Native is
# examples/api_times.rs (Api::quote, JSON in and out), the package bench/times.mjs (Router.quoteJson); each
# takes a body's least time over 5 runs, and the two must give the same answers (equal hashes).
#
#   scripts/wasm_figures.sh [PEERS_DIR]     (default ../shared/peers/graphs/p10000)
set -euo pipefail
cd "$(dirname "$0")/.."
peers=${1:-../shared/peers/graphs/p10000}
work=target/wasm-figures
mkdir -p "$work"

scripts/build-wasm.sh
cargo build --release --example api_times --features serde
native=target/release/examples/api_times
wasm=bindings/wasm/pkg/tonroute_wasm_bg.wasm
raw=$(stat -c %s "$wasm")
gz=$(gzip -9 -c "$wasm" | wc -c)
echo "module: $raw bytes raw ($((raw / 1024)) KiB), $gz bytes gzip -9 ($((gz / 1024)) KiB)"

node bindings/wasm/bench/bodies.mjs data/snapshot.json 300 20261127 >"$work/bundled_bodies.json"
"$native" --peers "$peers" --write "$work/p10000"

row() { # row NAME SNAPSHOT BODIES
  local n w
  n=$("$native" "$2" "$3")
  w=$(node bindings/wasm/bench/times.mjs "$2" "$3")
  echo "$1 native: $n"
  echo "$1 wasm:   $w"
  python3 - "$1" "$n" "$w" <<'PY'
import json, sys
name, n, w = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
same = "same answers" if n["answers"] == w["answers"] else "ANSWERS DIFFER"
def pair(key, digits=3):
    return f"{n[key]:.{digits}f} / {w[key]:.{digits}f} ({w[key] / n[key]:.2f}×)"
print(f"| {name} | {n['pools']} | {pair('first_load_ms', 1)} | {pair('load_ms', 1)} | {pair('p50_ms')} | {pair('p99_ms')} "
      f"| {pair('cold_p50_ms')} | {pair('cold_p99_ms')} | {w['obj_p50_ms']:.3f} / {w['obj_p99_ms']:.3f} "
      f"| {n['quotes']}, {same} |")
if n["answers"] != w["answers"]:
    sys.exit(1)
PY
}
wasm_import=$(node -e 'const t=performance.now(); import("./bindings/wasm/pkg/node.js").then(() => console.log((performance.now()-t).toFixed(1)))')
echo "package import (module compiled and instantiated): $wasm_import ms"
echo "| graph | pools | first load, ms (native / wasm) | least of 5 loads | quote p50, ms | quote p99 | first pass p50 | first pass p99 | wasm quote() on objects p50 / p99 | quotes |"
echo "|---|---|---|---|---|---|---|---|---|---|"
row bundled data/snapshot.json "$work/bundled_bodies.json"
row p10000 "$work/p10000/snapshot.json" "$work/p10000/bodies.json"
