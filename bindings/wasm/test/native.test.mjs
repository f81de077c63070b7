// Same answers as native: 300 seeded random quotes on the bundled snapshot, exact-in and exact-out, limits
// 1..20 × 1..5, each answered by the package and by `tonroute quote --json` (the binary a user runs): the JSON
// texts are equal byte for byte (the CLI prints it pretty; whitespace between tokens aside), a refusal has the
// same `{code, message}` (the first stderr line: `quote --json` prints the API's object, `swap` its shell line).
// Then every quote's swap: `tonroute swap` on the CLI's quote, and the package's `swap` at the CLI's clock (its
// `query_id` is the millisecond it ran at) give the same text, messages and payloads included.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";

import { SENDER, SNAPSHOT, compact, loadPackage, mapLimit, outcome, randomQuotes, runTonroute } from "../support/helpers.mjs";

const { Router } = await loadPackage();
const router = Router.fromSnapshot(fs.readFileSync(SNAPSHOT));
const SEED = 20261127;
const N = 300;

/** The CLI's arguments for a body of `randomQuotes`. */
function quoteArgs(body) {
  const args = ["quote", body.in_minter, body.out_minter, body.amount, "--json", "--snapshot", "data/snapshot.json",
    "--max-splits", String(body.max_splits), "--max-length", String(body.max_length),
    "--slippage-bps", String(body.slippage_bps)];
  if (body.swap_mode === "exact_out") args.push("--exact-out");
  return args;
}

/** The refusal `quote --json` printed: its first stderr line is the API's `{code, message}` body. */
function refusal(run) {
  assert.equal(run.code, 1, `exit ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stderr.split("\n")[0]);
}

/**
 * The refusal `tonroute swap` printed: one line `error: MESSAGE (code N)[; hint]`, the message in the shell's
 * terms (a `swap_data` field is said to be read on stdin). Returned as the API's `{code, message}` with the field
 * named as the API names it, so that it compares with the package's refusal.
 */
function swapRefusal(run) {
  assert.equal(run.code, 1, `exit ${run.code}: ${run.stderr}`);
  const line = run.stderr.split("\n")[0];
  const m = /^error: (.*) \(code (\d+)\)(; .*)?$/.exec(line);
  assert.ok(m, `not a refusal line: ${line}`);
  return { code: Number(m[2]), message: m[1].replace(/^stdin `(swap_data[^`]*)`: /, "field `$1`: ") };
}

test(`${N} seeded random quotes and their swaps equal tonroute quote --json and tonroute swap`, async () => {
  const bodies = randomQuotes(router.assets(), N, SEED);
  const mismatches = [];
  const counts = { exact_in: 0, exact_out: 0, refused: 0, swaps: 0, swapRefused: 0, multiRoute: 0, messages: 0 };
  await mapLimit(bodies, 2, async (body, i) => {
    const text = JSON.stringify(body);
    const native = await runTonroute(quoteArgs(body));
    const mine = outcome(() => router.quoteJson(text));
    if (native.code !== 0) {
      counts.refused++;
      const want = refusal(native);
      if (mine.ok !== undefined || mine.code !== want.code || mine.message !== want.message) {
        mismatches.push(`#${i} ${text}: native refused ${JSON.stringify(want)}, package ${JSON.stringify(mine)}`);
      }
      return;
    }
    counts[body.swap_mode]++;
    if (mine.ok !== compact(native.stdout)) {
      mismatches.push(`#${i} ${text}:\n native  ${compact(native.stdout)}\n package ${mine.ok ?? JSON.stringify(mine)}`);
      return;
    }
    // The object form is the same value.
    assert.deepEqual(router.quote(body), JSON.parse(native.stdout));
    const quote = JSON.parse(native.stdout);
    if (quote.swap_data.routes.length > 1) counts.multiRoute++;

    const swap = await runTonroute(["swap", "--sender", SENDER, "--snapshot", "data/snapshot.json"], native.stdout);
    const swapBody = JSON.stringify({ sender_address: SENDER, swap_data: quote.swap_data });
    if (swap.code !== 0) {
      counts.swapRefused++;
      const want = swapRefusal(swap);
      const got = outcome(() => router.swapJson(swapBody, Date.now()));
      if (got.code !== want.code || got.message !== want.message) {
        mismatches.push(`#${i} swap: native refused ${JSON.stringify(want)}, package ${JSON.stringify(got)}`);
      }
      return;
    }
    counts.swaps++;
    const nativeSwap = JSON.parse(swap.stdout);
    counts.messages += nativeSwap.transactions.length;
    const got = outcome(() => router.swapJson(swapBody, nativeSwap.query_id));
    if (got.ok !== compact(swap.stdout)) {
      mismatches.push(`#${i} swap at ${nativeSwap.query_id}:\n native  ${compact(swap.stdout)}\n package ${got.ok ?? JSON.stringify(got)}`);
    }
  });
  console.log(`# quotes: ${JSON.stringify(counts)}`);
  assert.deepEqual(mismatches, [], `${mismatches.length} of ${N} differ`);
  // The draw covers what it claims: both modes answered many times, splits, refusals, built swaps.
  assert.ok(counts.exact_in >= 90 && counts.exact_out >= 80, JSON.stringify(counts));
  assert.ok(counts.multiRoute >= 8, JSON.stringify(counts));
  assert.ok(counts.refused >= 50 && counts.swaps >= 150, JSON.stringify(counts));
});
