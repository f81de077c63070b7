// The `/v4` bad-input cases give the same `{code, message}` as the server: the table of tests/it/api_bad_inputs.rs
// (quote, swap and admin-reserves bodies, the swap cases mutating a valid `swap_data` of a live quote), sent to
// `tonroute serve` over HTTP and to the package, on the same snapshot (tests/data/api_snapshot.json). The
// server's answer is the expectation; each case also names the code it is written to provoke, so a case that
// drifted into another error is caught. The table's transport cases (the 64 KiB body limit, an unknown path, a
// wrong method) have no counterpart in a function call and are left out.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";

import { API_SNAPSHOT, NOT, USDT, loadPackage, outcome, startServer } from "../support/helpers.mjs";

const { Router, TonrouteError } = await loadPackage();
const SENDER = "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p";
const V2_POOL = "0:8649cad97b5c5bc96a960ef748ea6ccff8601c01616fe995ee6893ae4aa7a6c6";
const TWO_120 = "1329227995784915872903807060280344576";
const BAD_CHECKSUM = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt";
const Q = "/v4/router/quote", S = "/v4/router/swap", R = "/v4/admin/reserves";

let server;
before(async () => { server = await startServer(API_SNAPSHOT); });
after(() => server?.stop());

function quote(fields) {
  const base = { in_minter: "native", out_minter: USDT, amount: "1000000000" };
  for (const [k, v] of Object.entries(fields)) {
    if (v === "<remove>") delete base[k];
    else base[k] = v;
  }
  return JSON.stringify(base);
}

/** A valid swap request with `edit` applied (`step(b)`: the first step of the first route). */
const swap = (valid, edit = () => {}) => {
  const b = { sender_address: SENDER, swap_data: structuredClone(valid) };
  edit(b);
  return JSON.stringify(b);
};
const step = (b) => b.swap_data.routes[0][0];

function cases(valid, jettonOffer) {
  return [
    // --- quote: body shape
    [Q, "", 1000], [Q, "{", 1000], [Q, "[]", 1000], [Q, '"native"', 1000], [Q, "{}", 1002],
    [Q, quote({ out_minter: "<remove>" }), 1002], [Q, quote({ amount: "<remove>" }), 1002],
    [Q, quote({ max_split: 3 }), 1004],
    // --- quote: types
    [Q, quote({ in_minter: 5 }), 1003], [Q, quote({ amount: 1000 }), 1003], [Q, quote({ amount: null }), 1003],
    [Q, quote({ amount: ["1"] }), 1003], [Q, quote({ swap_mode: 1 }), 1003], [Q, quote({ max_splits: 2.5 }), 1003],
    [Q, quote({ max_splits: "4" }), 1003], [Q, quote({ slippage_bps: true }), 1003],
    [Q, quote({ certify: "yes" }), 1003], [Q, quote({ certify: 1 }), 1003], [Q, quote({ certify: [true] }), 1003],
    [Q, quote({ certify: true, amount: "-5" }), 1015],
    // --- quote: amounts
    [Q, quote({ amount: "-5" }), 1015], [Q, quote({ amount: "1.5" }), 1016], [Q, quote({ amount: "0" }), 1013],
    [Q, quote({ amount: TWO_120 }), 1014], [Q, quote({ amount: "9".repeat(100) }), 1014],
    [Q, quote({ amount: "1e9" }), 1012], [Q, quote({ amount: "" }), 1012], [Q, quote({ amount: "0x10" }), 1012],
    [Q, quote({ amount: " 1000000000" }), 1012], [Q, quote({ amount: "1000000000\n" }), 1012],
    [S, swap(valid, (b) => { step(b).in_amount = `${step(b).in_amount} `; }), 1012],
    // --- quote: assets
    [Q, quote({ in_minter: "TON" }), 1010], [Q, quote({ out_minter: "jetton:0:abc" }), 1010],
    [Q, quote({ out_minter: BAD_CHECKSUM }), 1010],
    [Q, quote({ in_minter: `0:xyz${USDT.slice(12)}` }), 1010],
    [S, swap(valid, (b) => { b.sender_address = BAD_CHECKSUM; }), 1011],
    [S, swap(valid, (b) => { b.sender_address = "EQCxE6mUtQ"; }), 1011],
    [Q, quote({ out_minter: `-1:${USDT.slice(9)}` }), 1010],
    [Q, quote({ out_minter: "native" }), 1024],
    [Q, quote({ in_minter: "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", out_minter: USDT }), 1024],
    // --- quote: options
    [Q, quote({ swap_mode: "exact_both" }), 1023], [Q, quote({ max_splits: 0 }), 1020],
    [Q, quote({ max_splits: 21 }), 1020], [Q, quote({ max_splits: -1 }), 1020], [Q, quote({ max_length: 0 }), 1021],
    [Q, quote({ max_length: 6 }), 1021], [Q, quote({ slippage_bps: 10001 }), 1022],
    [Q, quote({ slippage_bps: -1 }), 1022],
    // --- quote: graph
    [Q, quote({ out_minter: `jetton:0:${"12".repeat(32)}` }), 2001],
    [Q, quote({ out_minter: "jetton:0:5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee5ac0ffee", max_length: 1 }), 3001],
    [Q, quote({ out_minter: NOT, amount: TWO_120.replace("576", "575") }), 3002],
    // --- swap: body and sender
    [S, "{}", 1002], [S, "nope", 1000],
    [S, swap(valid, (b) => { b.sender_address = "nope"; }), 1011],
    [S, swap(valid, (b) => { b.sender_address = 12; }), 1003],
    [S, swap(valid, (b) => { b.sender_address = `7:${USDT.slice(9)}`; }), 1011],
    [S, swap(valid, (b) => { delete b.swap_data; }), 1002],
    [S, swap(valid, (b) => { b.swap_data = []; }), 1003],
    [S, swap(valid, (b) => { b.extra = 1; }), 1004],
    // --- swap: swap_data shape
    [S, swap(valid, (b) => { b.swap_data.routes = []; }), 1031],
    [S, swap(valid, (b) => { b.swap_data.routes = [[]]; }), 1031],
    [S, swap(valid, (b) => { b.swap_data.routes = {}; }), 1003],
    [S, swap(valid, (b) => { b.swap_data.slippage_bps = 20000; }), 1022],
    [S, swap(valid, (b) => { step(b).in_amount = "-1"; }), 1015],
    [S, swap(valid, (b) => { step(b).out_amount = "2.5"; }), 1016],
    [S, swap(valid, (b) => { step(b).network_fee = 5; }), 1003],
    [S, swap(valid, (b) => { step(b).protocol_slug = "dex_z"; }), 1030],
    [S, swap(valid, (b) => { step(b).pool_address = "xyz"; }), 1011],
    [S, swap(valid, (b) => { step(b).is_stable = "no"; }), 1003],
    [S, swap(valid, (b) => { step(b).in_minter = "bogus"; }), 1010],
    [S, swap(valid, (b) => { step(b).out_minter = "native"; }), 1024],
    [S, swap(valid, (b) => { delete step(b).out_minter; }), 1002],
    [S, swap(valid, (b) => { step(b).hops = 1; }), 1004],
    [S, swap(valid, (b) => {
      step(b).dex_c_extra_details = { from_router_wallet: V2_POOL, to_router_wallet: V2_POOL, zero_to_one: true };
    }), 1031],
    [S, swap(valid, (b) => { step(b).dex_b_extra_details.router = 1; }), 1003],
    [S, swap(valid, (b) => {
      const first = b.swap_data.routes[0][0];
      const second = { ...structuredClone(first), in_amount: "1", in_minter: first.out_minter, out_minter: "native" };
      b.swap_data.routes[0] = [first, second];
    }), 1031],
    // --- swap: against the graph
    [S, swap(valid, (b) => { step(b).pool_address = `0:${"77".repeat(32)}`; }), 2002],
    [S, swap(valid, (b) => { step(b).dex_b_extra_details.router = `0:${"b9".repeat(32)}`; }), 3003],
    [S, swap(valid, (b) => { step(b).protocol_slug = step(b).protocol_slug === "dex_b_v1" ? "dex_b_v2" : "dex_b_v1"; }), 3003],
    [S, swap(valid, (b) => { step(b).is_stable = true; }), 3003],
    [S, swap(valid, (b) => { step(b).in_minter = NOT; }), 3003],
    [S, swap(valid, (b) => { step(b).out_amount = (BigInt(step(b).out_amount) * 2n).toString(); }), 3004],
    [S, swap(jettonOffer), 3005],
    // --- admin reserves
    [R, "{}", 1000],
    [R, JSON.stringify([{ pool: `0:${"77".repeat(32)}`, reserves: ["1", "2"] }]), 2002],
    [R, JSON.stringify([{ pool: V2_POOL, reserves: ["1"] }]), 1003],
    [R, JSON.stringify([{ pool: V2_POOL, reserves: ["1", TWO_120] }]), 1014],
    [R, JSON.stringify([{ pool: V2_POOL }]), 1002],
  ];
}

test("the /v4 bad-input cases give the server's {code, message}", async () => {
  const router = Router.fromSnapshot(fs.readFileSync(API_SNAPSHOT, "utf8"));
  const call = { [Q]: (b) => router.quoteJson(b), [S]: (b) => router.swapJson(b, Date.now()), [R]: (b) => router.updateReserves(b) };

  // The valid swap data: one STON.fi step (v1 or v2: which one is best depends on the measured network fees of
  // crates/core/src/route/gas.rs; the cases below need only its `dex_b_extra_details`); a jetton offer, whose sender's
  // jetton wallet is unknown.
  const validQuote = quote({ max_splits: 1, max_length: 1, slippage_bps: 50 });
  const served = await server.post(Q, validQuote);
  assert.equal(served.status, 200, served.text);
  assert.equal(router.quoteJson(validQuote), served.text);
  const valid = JSON.parse(served.text).swap_data;
  assert.match(valid.routes[0][0].protocol_slug, /^dex_b_v[12]$/);
  assert.ok(valid.routes[0][0].dex_b_extra_details, served.text);
  const offer = JSON.stringify({ in_minter: USDT, out_minter: "native", amount: "1000000", max_splits: 1 });
  const offered = await server.post(Q, offer);
  assert.equal(offered.status, 200, offered.text);
  const jettonOffer = JSON.parse(offered.text).swap_data;

  const table = cases(valid, jettonOffer);
  const failures = [];
  for (const [i, [route, body, code]] of table.entries()) {
    const answer = await server.post(route, body);
    const want = JSON.parse(answer.text);
    const got = outcome(() => call[route](body));
    if (answer.status < 400 || want.code !== code) {
      failures.push(`#${i} ${route} ${body.slice(0, 120)}: the server answered ${answer.status} ${answer.text}, not code ${code}`);
    } else if (got.ok !== undefined || got.code !== want.code || got.message !== want.message) {
      failures.push(`#${i} ${route} ${body.slice(0, 120)}:\n server  ${answer.text}\n package ${JSON.stringify(got)}`);
    }
  }
  // Nothing above was applied: the graph answers the valid quote as before.
  assert.equal(router.quoteJson(validQuote), served.text);
  console.log(`# bad inputs: ${table.length} cases, ${new Set(table.map((c) => c[2])).size} codes`);
  assert.deepEqual(failures, [], `${failures.length} of ${table.length} cases differ`);
});

test("errors are TonrouteError with the code and message, an Error with a JSON form", () => {
  const router = Router.fromSnapshot(fs.readFileSync(API_SNAPSHOT));
  let thrown;
  try {
    router.quote({ in_minter: "native", out_minter: USDT, amount: "0" });
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof TonrouteError && thrown instanceof Error);
  assert.equal(thrown.name, "TonrouteError");
  assert.deepEqual(JSON.parse(JSON.stringify(thrown)), { code: 1013, message: "field `amount`: must be positive" });
  // A body JSON cannot carry (a BigInt amount) is refused before it reaches the router, as unsendable.
  assert.throws(() => router.quote({ in_minter: "native", out_minter: USDT, amount: 5n }),
    (e) => e instanceof TonrouteError && e.code === 1000 && /cannot be written as JSON/.test(e.message));
  // A clock that is not whole milliseconds since 1970.
  for (const now of [-1, 1.5, NaN, Infinity, 2 ** 53, "1700000000000"]) {
    assert.throws(() => router.swap({}, now), (e) => e instanceof TonrouteError && e.code === 1003 && e.message.startsWith("`nowMs`"), String(now));
  }
  // Snapshots that do not load.
  for (const [snapshot, code] of [["{", 1000], [new Uint8Array([0xff]), 1000], [42, 1000], [null, 1000],
    [{ assets: [], pools: [{ address: "0:11" }] }, 1000], [{ assets: [], pools: [] }, 1000]]) {
    assert.throws(() => Router.fromSnapshot(snapshot), (e) => e instanceof TonrouteError && e.code === code && e.message.startsWith("snapshot: "), String(snapshot));
  }
});
