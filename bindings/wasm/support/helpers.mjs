// What the package's tests share: where the package and the data are, the native `tonroute` binary run as a
// user runs it (commands, and `tonroute serve` on a loopback port), a seeded generator of quote requests, and
// the exact comparison of JSON texts.
//
// The native side is the binary named by TONROUTE_BIN (tests/it/wasm_package.rs passes cargo's all-features
// build); the package is TONROUTE_WASM_PKG (default bindings/wasm/pkg, scripts/build-wasm.sh's output). Either
// missing fails the tests, naming what to do.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const PKG = path.resolve(process.env.TONROUTE_WASM_PKG || path.join(REPO, "bindings/wasm/pkg"));
/** The bundled snapshot (what `tonroute quote` routes on by default). */
export const SNAPSHOT = path.join(REPO, "data/snapshot.json");
/** The HTTP tests' snapshot (tests/data/api_snapshot.json), which the bad-input table is written against. */
export const API_SNAPSHOT = path.join(REPO, "tests/data/api_snapshot.json");
/** A wallet every jetton of the bundled snapshot can derive a jetton wallet for (the README's sender). */
export const SENDER = "UQAj-peZGPH-cC25EAv4Q-h8cBXszTmkch6ba6wXC8BM40qt";
export const USDT = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
export const NOT = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";
const ADMIN_TOKEN = "wasm-tests-admin-token-0123456789";

/** The native binary. */
export function tonrouteBin() {
  const bin = process.env.TONROUTE_BIN;
  if (!bin) {
    throw new Error("TONROUTE_BIN is not set: it names the `tonroute` binary built with --all-features " +
      "(`cargo test --all-features --test it wasm_package::` sets it)");
  }
  if (!fs.existsSync(bin)) throw new Error(`TONROUTE_BIN=${bin}: no such file`);
  return bin;
}

/** The package's Node entry, imported from its directory. */
export async function loadPackage() {
  const entry = path.join(PKG, "node.js");
  if (!fs.existsSync(entry)) throw new Error(`no package at ${PKG}: build it with scripts/build-wasm.sh`);
  return import(pathToFileURL(entry).href);
}

/** Runs `tonroute ARGS` from the repository root with `input` on stdin → {code, stdout, stderr}. */
export function runTonroute(args, input = "") {
  return new Promise((resolve, reject) => {
    const child = spawn(tonrouteBin(), args, { cwd: REPO, stdio: ["pipe", "pipe", "pipe"] });
    const out = [], err = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => err.push(d));
    child.on("error", reject);
    // A command that reads no stdin (`quote`) may exit before its end is written: EPIPE there is not an error.
    child.stdin.on("error", (e) => { if (e.code !== "EPIPE") reject(e); });
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
    child.stdin.end(input);
  });
}

/** `items` mapped by `f` with at most `limit` calls in flight, in order. */
export async function mapLimit(items, limit, f) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await f(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** `tonroute serve --snapshot FILE` on 127.0.0.1 (the kernel picks the port, the binary announces it), admin
 *  routes on, no market data, a routing budget no test reaches. Resolves once `/health` answers 200. */
export async function startServer(snapshot) {
  const child = spawn(tonrouteBin(), ["serve", "--addr", "127.0.0.1:0", "--snapshot", snapshot, "--budget-ms", "600000"], {
    cwd: REPO,
    env: { ...process.env, TONROUTE_ADMIN_TOKEN: `wasm-tests:${ADMIN_TOKEN}` },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  const base = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`tonroute serve did not announce its address in 120 s:\n${log}`)), 120_000);
    child.stderr.on("data", (d) => {
      log += d;
      const m = /on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) { clearTimeout(timer); resolve(m[1]); }
    });
    child.on("exit", (code) => { clearTimeout(timer); reject(new Error(`tonroute serve exited (${code}) at startup:\n${log}`)); });
  });
  child.removeAllListeners("exit");
  const send = async (method, route, body) => {
    const r = await fetch(base + route, {
      method,
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${ADMIN_TOKEN}` },
      body,
    });
    return { status: r.status, text: await r.text() };
  };
  for (let i = 0; ; i++) {
    try {
      if ((await send("GET", "/health")).status === 200) break;
    } catch (e) {
      if (i > 100) throw new Error(`/health never answered: ${e.message}\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    base,
    get: (route) => send("GET", route),
    post: (route, body) => send("POST", route, typeof body === "string" ? body : JSON.stringify(body)),
    stop: () => child.kill(),
  };
}

/** JSON text without the whitespace between tokens: serde_json's pretty output becomes its compact output
 *  byte for byte (whitespace inside strings is kept). */
export function compact(text) {
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c !== " " && c !== "\n" && c !== "\r" && c !== "\t") {
      out += c;
    }
  }
  return out;
}

/** A deterministic generator of numbers in [0, 1) (mulberry32). */
export function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` quote request bodies drawn with `seed` over `assets` (`router.assets()`: most pools first): half
 *  exact-in, half exact-out; a quarter of the pairs among the four most traded assets (the deep pairs, where
 *  amounts split), a half with one of the two most traded (TON and USD₮ on the bundled data: the hubs of its
 *  star-shaped graph) on one side, the rest any two; amounts
 *  from a thousandth of a token to tens of millions (exact-in) or ten thousands (exact-out); `max_splits`
 *  1..20, `max_length` 1..5, `slippage_bps` 0..500. Every field is written, as `tonroute quote` writes its
 *  body. */
export function randomQuotes(assets, n, seed) {
  const next = rng(seed);
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const traded = assets.filter((a) => a.pools > 0);
  const any = () => traded[int(0, traded.length - 1)];
  const hub = () => traded[int(0, Math.min(1, traded.length - 1))];
  const deep = () => traded[int(0, Math.min(3, traded.length - 1))];
  const pair = () => {
    const x = next();
    if (x < 0.25) return [deep(), deep()];
    if (x < 0.75) return next() < 0.5 ? [hub(), any()] : [any(), hub()];
    return [any(), any()];
  };
  const bodies = [];
  while (bodies.length < n) {
    const [from, to] = pair();
    if (from.address === to.address) continue;
    const exactOut = bodies.length % 2 === 1;
    const unit = exactOut ? to.decimals : from.decimals;
    const mantissa = BigInt(int(1000, 9999));
    const exponent = Math.max(0, unit + int(-3, exactOut ? 3 : 6) - 3);
    bodies.push({
      in_minter: from.address,
      out_minter: to.address,
      amount: (mantissa * 10n ** BigInt(exponent)).toString(),
      swap_mode: exactOut ? "exact_out" : "exact_in",
      slippage_bps: int(0, 500),
      max_splits: int(1, 20),
      max_length: int(1, 5),
    });
  }
  return bodies;
}

/** Calls `f`; its `TonrouteError` as `{code, message}`, or `{ok: answer}`. */
export function outcome(f) {
  try {
    return { ok: f() };
  } catch (e) {
    if (e.name !== "TonrouteError") throw e;
    return { code: e.code, message: e.message };
  }
}
