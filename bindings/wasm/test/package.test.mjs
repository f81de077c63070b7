// The package as a user gets it: what `package.json` declares is there; `Router.fromSnapshot` takes the
// snapshot as text, as the parsed object or as bytes, and each gives the same router; `poolCount` and
// `assets()` are what the server reports for the same snapshot; `swap` without `nowMs` reads the caller's
// clock (JavaScript's, not the module's); and the module asks its host for nothing but wasm-bindgen's glue: no
// clock, no randomness, no network.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";

import { PKG, REPO, SENDER, SNAPSHOT, USDT, loadPackage, startServer } from "../support/helpers.mjs";

const pkg = await loadPackage();
const { Router, init } = pkg;
const bytes = fs.readFileSync(SNAPSHOT);
const body = { in_minter: "native", out_minter: USDT, amount: "100000000000" };

let server;
before(async () => { server = await startServer(SNAPSHOT); });
after(() => server?.stop());

test("package.json: the name, ESM, the types and every file it lists; the crate's version", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(PKG, "package.json"), "utf8"));
  assert.equal(manifest.name, "tonroute");
  assert.equal(manifest.type, "module");
  assert.equal(manifest.exports["."].types, "./index.d.ts");
  assert.equal(manifest.exports["."].node, "./node.js");
  assert.equal(manifest.exports["."].default, "./tonroute.js");
  for (const file of manifest.files) assert.ok(fs.existsSync(path.join(PKG, file)), file);
  // The crate's version: its own `version = "…"`, or with `version.workspace = true` the workspace's
  // `[workspace.package]` version in the root Cargo.toml.
  const crate = fs.readFileSync(path.join(REPO, "bindings/wasm/Cargo.toml"), "utf8");
  const own = /^version = "([^"]+)"/m.exec(crate);
  assert.ok(own || /^version\.workspace = true$/m.test(crate), "bindings/wasm/Cargo.toml names no version");
  const root = fs.readFileSync(path.join(REPO, "Cargo.toml"), "utf8");
  const workspace = /^\[workspace\.package\][^[]*?^version = "([^"]+)"/m.exec(root);
  assert.equal(manifest.version, own ? own[1] : workspace[1]);
});

test("a snapshot as text, object, Buffer, Uint8Array, ArrayBuffer or DataView gives the same router", async () => {
  const text = bytes.toString("utf8");
  const want = Router.fromSnapshot(text).quoteJson(JSON.stringify(body));
  const copy = new Uint8Array(bytes);
  const forms = { object: JSON.parse(text), buffer: bytes, uint8array: copy, arraybuffer: copy.buffer,
    dataview: new DataView(copy.buffer) };
  for (const [name, form] of Object.entries(forms)) {
    const router = Router.fromSnapshot(form);
    assert.equal(router.quoteJson(JSON.stringify(body)), want, name);
    router.free();
  }
  // A body given as JSON text answers as the object does.
  const router = Router.fromSnapshot(text);
  assert.deepEqual(router.quote(JSON.stringify(body)), JSON.parse(want));
  // init() is there for code shared with browsers, and does nothing more under Node.
  await init();
  assert.equal(router.quoteJson(JSON.stringify(body)), want);
});

test("poolCount and assets() are the server's /health pools and /v4/assets", async () => {
  const router = Router.fromSnapshot(bytes);
  const health = JSON.parse((await server.get("/health")).text);
  assert.equal(router.poolCount, health.pools);
  assert.equal(router.poolCount, JSON.parse(bytes).pools.length);
  const served = await server.get("/v4/assets");
  assert.equal(served.status, 200);
  assert.deepEqual(router.assets(), JSON.parse(served.text).assets);
});

test("swap without nowMs uses the caller's Date.now(); with it, the answer is a function of it", () => {
  const router = Router.fromSnapshot(bytes);
  const quote = router.quote(body);
  const request = { sender_address: SENDER, swap_data: quote.swap_data };
  const t0 = Date.now();
  const swap = router.swap(request);
  assert.ok(swap.query_id >= t0 && swap.query_id <= Date.now(), `${swap.query_id} not in [${t0}, now]`);
  assert.equal(swap.transactions.length, quote.swap_data.routes.length);
  const at = 1_767_225_600_123;
  assert.equal(router.swapJson(JSON.stringify(request), at), router.swapJson(JSON.stringify(request), at));
  assert.equal(router.swap(request, at).query_id, at);
  assert.notEqual(router.swap(request, at).transactions[0].payload, router.swap(request, at + 1000).transactions[0].payload);
});

test("the module imports nothing but wasm-bindgen's glue: no clock, randomness or network", async () => {
  const module = await WebAssembly.compile(fs.readFileSync(path.join(PKG, "tonroute_wasm_bg.wasm")));
  const imports = WebAssembly.Module.imports(module);
  const foreign = imports.filter((i) => i.module !== "./tonroute_wasm_bg.js" && i.module !== "wbg");
  assert.deepEqual(foreign, []);
  const suspicious = imports.filter((i) => /date|now|time|random|crypto|fetch|performance|process|require/i.test(i.name));
  assert.deepEqual(suspicious, [], JSON.stringify(imports));
  console.log(`# module imports: ${imports.length} (${imports.map((i) => i.name).join(", ")})`);
});
