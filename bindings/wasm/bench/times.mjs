// The package's speed, measured as examples/api_times.rs measures native (scripts/wasm_figures.sh runs both in
// one run): `Router.fromSnapshot` on the snapshot file's bytes, the first load of the process (V8 runs the
// module's baseline code until its functions are hot) and the least of N; one pass over BODIES, whose times
// are the cold figures (cold_p50_ms, cold_p99_ms); then each body quoted N times in a row through `quoteJson`
// (JSON text in and out, as `Api::quote` natively) and its least time kept: p50_ms, p99_ms, max_ms. Also the
// SHA-256 of every answer's text (equal to native's when every answer is), obj_p50_ms / obj_p99_ms: the same
// quotes through `quote(object)`, which adds JSON.stringify and JSON.parse in JavaScript, and import_ms: the
// package's import (the module compiled and instantiated).
//
//   node bindings/wasm/bench/times.mjs SNAPSHOT BODIES [--runs N] [--pkg DIR]
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const flag = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const [snapshotPath, bodiesPath] = args;
if (!snapshotPath || !bodiesPath) throw new Error("usage: times.mjs SNAPSHOT BODIES [--runs N] [--pkg DIR]");
const runs = Math.max(1, Number(flag("--runs") ?? 5));
const pkg = path.resolve(flag("--pkg") ?? new URL("../pkg", import.meta.url).pathname);
const t_import = performance.now();
const { Router, TonrouteError } = await import(pathToFileURL(path.join(pkg, "node.js")).href);
const importMs = performance.now() - t_import;

const bytes = fs.readFileSync(snapshotPath);
const bodies = JSON.parse(fs.readFileSync(bodiesPath, "utf8")).map((b) => JSON.stringify(b));
const pct = (sorted, p) => sorted[Math.round((sorted.length - 1) * p)];

let loadMs = Infinity, firstLoadMs, router;
for (let i = 0; i < runs; i++) {
  router?.free();
  const t0 = performance.now();
  router = Router.fromSnapshot(bytes);
  loadMs = Math.min(loadMs, performance.now() - t0);
  firstLoadMs ??= loadMs;
}

const answer = (f) => {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof TonrouteError)) throw e;
    return JSON.stringify(e);
  }
};
const cold = bodies.map((body) => {
  const t0 = performance.now();
  answer(() => router.quoteJson(body));
  return performance.now() - t0;
}).sort((a, b) => a - b);
const times = [], objTimes = [];
const hash = createHash("sha256");
for (const body of bodies) {
  let best = Infinity, text;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    text = answer(() => router.quoteJson(body));
    best = Math.min(best, performance.now() - t0);
  }
  times.push(best);
  hash.update(text + "\n");
  const object = JSON.parse(body);
  let objBest = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    answer(() => router.quote(object));
    objBest = Math.min(objBest, performance.now() - t0);
  }
  objTimes.push(objBest);
}
times.sort((a, b) => a - b);
objTimes.sort((a, b) => a - b);
console.log(JSON.stringify({
  engine: "wasm", pools: router.poolCount, import_ms: importMs, first_load_ms: firstLoadMs, load_ms: loadMs,
  quotes: times.length, cold_p50_ms: pct(cold, 0.5), cold_p99_ms: pct(cold, 0.99), p50_ms: pct(times, 0.5),
  p99_ms: pct(times, 0.99), max_ms: times[times.length - 1], answers: hash.digest("hex"),
  obj_p50_ms: pct(objTimes, 0.5), obj_p99_ms: pct(objTimes, 0.99),
}));
