// A reserve update changes the answer exactly as it does on the server: the same batch goes to
// `POST /v4/admin/reserves` of `tonroute serve` and to `router.updateReserves`, on the bundled snapshot, and the
// quotes before and after are compared text for text. Covers a constant-product pool's reserves, a concentrated
// pool's state with its tick map, and a batch with one bad entry, which changes nothing on either side.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, test } from "node:test";

import { SNAPSHOT, USDT, loadPackage, outcome, startServer } from "../support/helpers.mjs";

const { Router } = await loadPackage();
const Q = "/v4/router/quote", R = "/v4/admin/reserves";
const snapshot = JSON.parse(fs.readFileSync(SNAPSHOT, "utf8"));

let server;
before(async () => { server = await startServer(SNAPSHOT); });
after(() => server?.stop());

/** The quote of `body` from both sides, which must be the same text. */
async function bothQuote(router, body) {
  const served = await server.post(Q, body);
  assert.equal(served.status, 200, served.text);
  assert.equal(router.quoteJson(JSON.stringify(body)), served.text, JSON.stringify(body));
  return JSON.parse(served.text);
}

/** The batch applied on both sides, with the same answer (an object, or the same `{code, message}`). */
async function bothUpdate(router, batch) {
  const served = await server.post(R, batch);
  const mine = outcome(() => router.updateReserves(batch));
  if (served.status === 200) assert.deepEqual(mine, { ok: JSON.parse(served.text) });
  else assert.deepEqual(mine, JSON.parse(served.text), served.text);
  return served;
}

test("reserve updates, concentrated states and a refused batch change the answer as on the server", async () => {
  const router = Router.fromSnapshot(fs.readFileSync(SNAPSHOT, "utf8"));
  const body = { in_minter: "native", out_minter: USDT, amount: "3000000000000", max_splits: 4, max_length: 2 };
  const before = await bothQuote(router, body);

  // The first pool of the routes that is not concentrated, at three quarters of its first reserve and half of
  // its second.
  const pool = before.swap_data.routes.flat()
    .map((step) => snapshot.pools.find((p) => p.address === step.pool_address))
    .find((p) => p.curve !== "concentrated");
  assert.ok(pool, JSON.stringify(before.swap_data));
  const reserves = [(BigInt(pool.reserves[0]) * 3n) / 4n, BigInt(pool.reserves[1]) / 2n].map(String);
  const applied = await bothUpdate(router, [{ pool: pool.address, reserves }]);
  assert.equal(applied.status, 200, applied.text);
  const afterUpdate = await bothQuote(router, body);
  assert.notEqual(afterUpdate.out_amount, before.out_amount, "the update changed the quote");

  // A batch whose second entry is refused applies neither: both answer as they did.
  const other = snapshot.pools.find((p) => p.curve === "constant_product" && p.address !== pool.address &&
    p.assets.includes("native"));
  const refused = await bothUpdate(router, [
    { pool: other.address, reserves: ["1000", "1000"] },
    { pool: pool.address, reserves: ["1", "1329227995784915872903807060280344576"] },
  ]);
  assert.equal(refused.status, 400, refused.text);
  assert.deepEqual(await bothQuote(router, body), afterUpdate);

  // A concentrated pool: its state and whole tick map at a thousand times the liquidity, which makes it the
  // best single pool of its pair.
  const cl = snapshot.pools.find((p) => p.curve === "concentrated");
  const through = { in_minter: cl.assets[0], out_minter: cl.assets[1], amount: "1000000000000", max_splits: 1, max_length: 1 };
  const clBefore = await bothQuote(router, through);
  const deeper = (x) => (BigInt(x) * 1000n).toString();
  const state = {
    pool: cl.address, sqrt_price_x96: cl.sqrt_price_x96, tick: cl.tick, liquidity: deeper(cl.liquidity),
    ticks: cl.ticks.map((t) => ({ tick: t.tick, liquidity_net: deeper(t.liquidity_net), liquidity_gross: deeper(t.liquidity_gross) })),
  };
  const clApplied = await bothUpdate(router, [state]);
  assert.equal(clApplied.status, 200, clApplied.text);
  const clAfter = await bothQuote(router, through);
  assert.equal(clAfter.swap_data.routes[0][0].pool_address, cl.address);
  assert.ok(BigInt(clAfter.out_amount) > BigInt(clBefore.out_amount), `${clBefore.out_amount} → ${clAfter.out_amount}`);
  // Reserves for a concentrated pool are refused alike.
  const wrong = await bothUpdate(router, [{ pool: cl.address, reserves: ["1", "2"] }]);
  assert.equal(wrong.status, 400, wrong.text);
});
