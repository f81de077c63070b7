#!/usr/bin/env node
// tonroute's routes executed on the exchanges' own contract code.
//
//   node tests/e2e/run.mjs --seed S --routes N --out REPORT.json
//
// Builds a world of real contracts in @ton/sandbox from the seed (lib/world.mjs), reads its pools back with their
// get-methods and turns them into a snapshot with `tonroute import` (lib/chainstate.mjs), then for each of N random
// routes: asks `tonroute quote --json` on that snapshot, builds the messages with `tonroute swap`, sends them from
// the user's v4 wallet, runs the emulator until no message is left and checks the outcome (exact output,
// conservation, TON consumed); then replays the same messages from the same state after a price move, with too
// little TON and after the deadline. Writes one record per route (and a summary) to REPORT.json; the same seed
// gives the same report. The binary is `TONROUTE_BIN`, else target/release/tonroute.
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beginCell, Cell } from '@ton/core';
import { Rng, TON, json, raw, sum } from './lib/util.mjs';
import { buildWorld, populate } from './lib/world.mjs';
import { dumpGetMethods, payload } from './lib/chainstate.mjs';
import { KINDS, SPLIT, catalogue, endsOf, kindOf, splitPairs } from './lib/routes.mjs';
import { OPS, User, failed, readTree, routeTrees, run, tonrouteBin, traceLines, walletMessages } from './lib/exec.mjs';
import { accounting, checkConservation } from './lib/ledger.mjs';
import { summarize } from './lib/report.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');

function parseArgs(argv) {
    const a = { seed: 1, routes: 10, out: null, quiet: false };
    for (let i = 2; i < argv.length; i++) {
        const k = argv[i];
        const v = () => {
            if (i + 1 >= argv.length) throw new Error(`${k} needs a value`);
            return argv[++i];
        };
        if (k === '--seed') a.seed = Number(v());
        else if (k === '--routes') a.routes = Number(v());
        else if (k === '--out') a.out = v();
        else if (k === '--quiet') a.quiet = true;
        else throw new Error(`unknown argument ${k} (usage: run.mjs --seed S --routes N --out REPORT.json)`);
    }
    if (!Number.isInteger(a.seed) || a.seed < 0) throw new Error('--seed must be a non-negative integer');
    if (!Number.isInteger(a.routes) || a.routes < 1) throw new Error('--routes must be a positive integer');
    if (!a.out) throw new Error('--out REPORT.json is required');
    return a;
}

const assetId = (world, sym) => (sym === 'TON' ? 'native' : `jetton:${raw(world.jettons[sym].minter)}`);

/** Every (kind, ends, mode) the world offers, in an order drawn from `rng`, as many times as asked: a run of N
 * routes asks for each combination before any twice. The order is drawn when its first route is, so a shorter
 * run of the same seed is a prefix of a longer one. */
function* schedule(rng, cat) {
    const combos = [];
    for (const kind of KINDS) {
        for (const ends of ['ton_in', 'ton_out', 'jetton']) {
            if (!cat.has(`${kind}|${ends}`)) continue;
            for (const mode of ['exact_in', 'exact_out']) combos.push({ kind, ends, mode });
        }
    }
    for (const mode of ['exact_in', 'exact_out']) for (let k = 0; k < 3; k++) combos.push({ kind: SPLIT, mode });
    for (;;) yield* rng.shuffle(combos);
}

/** The route's plan for a combination, drawn from `rng`: path(s), amount, slippage. */
function plan(rng, world, snapshot, cat, pairs, combo) {
    const { kind, mode } = combo;
    const paths = kind === SPLIT ? rng.pick(pairs) : [rng.pick(cat.get(`${kind}|${combo.ends}`))];
    const first = paths[0];
    const from = first[0].from;
    const to = first[first.length - 1].to;
    // Depth: the reserve of the asset the amount is counted in, in the pool that meets it first (exact-in: the
    // first pool's input side; exact-out: the last pool's output side); for a split, the sum over the parallel
    // paths' distinct pools, so that the amount is worth spreading over several of them.
    const reserveOf = (pool, sym) => {
        const p = snapshot.pools.find((x) => x.address === raw(pool.address));
        const i = p.assets.indexOf(assetId(world, sym));
        return BigInt(p.reserves[i]);
    };
    const meets = [...new Set(paths.map((p) => (mode === 'exact_in' ? p[0].pool : p[p.length - 1].pool)))];
    const depth = sum(meets.map((pool) => reserveOf(pool, mode === 'exact_in' ? from : to)));
    // 10^-6 to 30 % of the depth, log-uniform (splits: 3 % to 30 %, where splitting pays).
    const lo = kind === SPLIT ? -1.5 : -6;
    const frac = 10 ** (lo + (Math.log10(0.3) - lo) * rng.float());
    const amount = BigInt(Math.max(1, Math.floor(Number(depth) * frac)));
    const slippage = rng.pick([10, 50, 100, 300]);
    const maxLength = Math.max(...paths.map((p) => p.length));
    return { kind, paths, from, to, mode, amount, slippage, maxSplits: kind === SPLIT ? 4 : 1, maxLength };
}

/** The sorted list of pools (world objects) of a plan. */
const planPools = (p) => [...new Set(p.paths.flat().map((h) => h.pool))];

async function main() {
    const args = parseArgs(process.argv);
    const log = args.quiet ? () => {} : (...m) => console.error(...m);
    const bin = tonrouteBin(root);
    const work = mkdtempSync(path.join(tmpdir(), 'tonroute-e2e-'));
    const started = Date.now();
    const rng = new Rng(args.seed);
    const world = await buildWorld(rng);
    await populate(world);
    const user = await new User(world, 'user').init(10_000_000n * TON, 10n ** 28n);
    const trader = await new User(world, 'trader').init(10_000_000n * TON, 10n ** 28n);
    log(`world: ${world.pools.length} pools in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const cat = catalogue(world);
    const pairs = splitPairs(world);
    const answers = new Map();
    let dirty = new Set(world.pools);
    let snapshot;
    const chainFile = path.join(work, 'chain.json');
    const snapFile = path.join(work, 'snapshot.json');
    const records = [];
    const ctx = { world, user, trader, bin, work, rng, log, answers };
    const combos = schedule(rng, cat);

    for (let i = 0; i < args.routes; i++) {
        if (dirty.size) {
            await dumpGetMethods(world, [...dirty], answers);
            writeFileSync(chainFile, json(payload(world, answers)));
            run(bin, ['import', chainFile, '--out', snapFile]);
            snapshot = JSON.parse(readFileSync(snapFile, 'utf8'));
            dirty = new Set();
        }
        // A plan tonroute cannot quote (an exact-out amount the path cannot pay) is drawn again, a few times.
        let p;
        let rec;
        const combo = combos.next().value;
        for (let attempt = 0; attempt < 5; attempt++) {
            p = plan(rng, world, snapshot, cat, pairs, combo);
            rec = await runRoute(ctx, snapshot, p, i);
            if (rec.status !== 'no_quote') break;
            rec.attempts = attempt + 1;
        }
        records.push(rec);
        if (rec.status === 'executed') for (const pool of planPools(p)) dirty.add(pool);
        log(`#${i} ${rec.kind} ${rec.swap_mode} ${rec.status} exact=${rec.exact} conserved=${rec.conserved}`
            + ` consumed=${rec.ton_consumed} attached=${rec.ton_attached} fee=${rec.network_fee}`
            + ` ${(rec.failures ?? []).map((f) => `${f.case}:${f.outcome}`).join(' ')}`);
    }
    const report = { seed: args.seed, routes: args.routes, binary: 'tonroute', records, summary: summarize(records) };
    writeFileSync(args.out, `${json(report, 1)}\n`);
    rmSync(work, { recursive: true, force: true });
    log(`${records.length} routes in ${((Date.now() - started) / 1000).toFixed(1)} s; report ${args.out}`);
}

/** The quote and messages of a plan: `tonroute quote --json` on the plan's pools, `tonroute swap`. */
function quoteAndSwap(ctx, snapshot, p, sender, now) {
    const { world, bin, work } = ctx;
    const keep = new Set(planPools(p).map((x) => raw(x.address)));
    const file = path.join(work, 'route.json');
    writeFileSync(file, JSON.stringify({ ...snapshot, pools: snapshot.pools.filter((x) => keep.has(x.address)) }));
    const quoteArgs = ['quote', '--json', '--snapshot', file, assetId(world, p.from), assetId(world, p.to), p.amount.toString(),
        '--max-splits', String(p.maxSplits), '--max-length', String(p.maxLength), '--slippage-bps', String(p.slippage)];
    if (p.mode === 'exact_out') quoteArgs.push('--exact-out');
    let quote;
    try {
        quote = JSON.parse(run(bin, quoteArgs));
    } catch (e) {
        return { error: `quote: ${e.message.split('\n')[0]}` };
    }
    if (!quote.swap_is_possible) return { error: 'quote: swap_is_possible is false' };
    const swap = JSON.parse(run(bin, ['swap', '--sender', sender.address.toString(), '--snapshot', file, '--now', String(now)], JSON.stringify(quote)));
    return { quote, msgs: walletMessages(swap.transactions) };
}

/** The offer of a route message: the TON offered (a `ton_transfer`'s amount, or a pTON v1 transfer's
 * amount), 0 for a jetton offer (the message then carries gas only). */
function tonOffer(m, offerIsTon) {
    if (!offerIsTon) return 0n;
    const s = m.body.beginParse();
    s.skip(32 + 64);
    return s.loadCoins();
}

function routeKind(steps) {
    return kindOf(steps.map((s) => ({ pool: s.worldPool })));
}

/** The hand-offs of a route between segments (`dex_b_v2 → dex_c (jetton)`, `… (TON)`): a change of exchange or
 * of `dex_b_v2` router, or any `dex_c` hop after another. */
function handoffsOf(steps) {
    const out = [];
    for (let i = 1; i < steps.length; i++) {
        const [a, b] = [steps[i - 1], steps[i]];
        const internal = a.protocol_slug === 'dex_b_v2' && b.protocol_slug === 'dex_b_v2' && a.worldPool.router === b.worldPool.router;
        if (!internal) out.push(`${a.protocol_slug} → ${b.protocol_slug} (${a.out_minter === 'native' ? 'TON' : 'jetton'})`);
    }
    return out;
}

/** `TONROUTE_E2E_TRACE=3` prints route #3's transactions (every run of it) to stderr. */
function debugTrace(ctx, index, what, result) {
    if (process.env.TONROUTE_E2E_TRACE !== String(index)) return;
    console.error(`--- route #${index} ${what}`);
    for (const l of traceLines(ctx.world, result)) console.error(l);
}

async function runRoute(ctx, snapshot, p, index) {
    const { world, user } = ctx;
    ctx.index = index;
    const bc = world.bc;
    const now = bc.now;
    const base = { index, kind: p.kind, swap_mode: p.mode, from: p.from, to: p.to, amount: p.amount.toString(), slippage_bps: p.slippage };
    const qs = quoteAndSwap(ctx, snapshot, p, user, now);
    if (qs.error) return { ...base, status: 'no_quote', reason: qs.error };
    const { quote, msgs } = qs;
    const byAddr = new Map(world.pools.map((x) => [raw(x.address), x]));
    const routes = quote.swap_data.routes.map((steps) => steps.map((s) => ({ ...s, worldPool: byAddr.get(s.pool_address) })));
    const routeKinds = routes.map(routeKind);
    const offerIsTon = p.from === 'TON';
    const pools = planPools(p);

    // The failure cases first, each from the state before the swap, then the swap itself (the world goes on
    // from there). `before` is the same for all: every run starts from `pre`.
    const before = await accounting(world, user, pools);
    const pre = bc.snapshot();
    const failures = [];
    for (const c of ['price_move', 'low_ton', 'deadline']) {
        failures.push(await failureCase(ctx, c, p, quote, msgs, routes, snapshot, pools, before));
        await bc.loadFrom(pre);
        bc.now = now;
    }
    const result = await user.send(msgs);
    const after = await accounting(world, user, pools);
    debugTrace(ctx, index, 'swap', result);
    const trees = routeTrees(result, msgs);
    const reads = trees.map((t) => readTree(user, t, offerIsTon));

    // Exact: each route delivers its quoted output (TON: the payout's amount), and the input spent is the quote's.
    const outOf = (r) => (p.to === 'TON' ? r.payoutTon : r.delivered[p.to] ?? 0n);
    const perRoute = routes.map((steps, k) => {
        const offer = tonOffer(msgs[k], offerIsTon);
        const attached = msgs[k].value - offer;
        const r = reads[k];
        return {
            kind: routeKinds[k],
            ends: p.from === 'TON' ? 'ton_in' : p.to === 'TON' ? 'ton_out' : 'jetton',
            handoffs: handoffsOf(steps),
            hops: steps.length,
            steps: steps.map((s) => `${s.protocol_slug}:${world.labels.get(s.pool_address) ?? s.pool_address}${s.dex_c_extra_details ? (s.dex_c_extra_details.zero_to_one ? ' 0→1' : ' 1→0') : ''} ${s.in_amount}→${s.out_amount}`),
            exchanges: [...new Set(steps.map((s) => s.protocol_slug))],
            quoted: steps[steps.length - 1].out_amount,
            received: outOf(r).toString(),
            in_amount: steps[0].in_amount,
            offer_sent: offerIsTon ? offer.toString() : undefined,
            ton_attached: attached.toString(),
            ton_consumed: (attached - r.returnedTon).toString(),
            network_fee: steps.reduce((a, s) => a + BigInt(s.network_fee), 0n).toString(),
            failed_transactions: r.failures,
        };
    });
    const received = sum(reads.map(outOf));
    const order = arrivalOrder(routes, trees);
    const spent = offerIsTon ? sum(msgs.map((m) => tonOffer(m, true))) : before.user[p.from] - after.user[p.from];
    const stray = Object.keys(after.user).filter((s) => s !== 'TON' && s !== p.from && s !== p.to && after.user[s] !== before.user[s]);
    const exact = perRoute.every((r) => r.received === r.quoted)
        && received === BigInt(quote.out_amount)
        && spent === BigInt(quote.in_amount)
        && (!offerIsTon || reads.every((r) => r.inputLeft))
        && stray.length === 0;
    const conservation = checkConservation(world, user, before, after, result, p);
    // TON: what the swap cost the user beyond its own flows (the offer out, the payout in), all fees included.
    const userTon = before.user.TON - after.user.TON;
    const tonConsumed = userTon - (offerIsTon ? spent : 0n) + (p.to === 'TON' ? received : 0n);
    const networkFee = sum(perRoute.map((r) => BigInt(r.network_fee)));


    return {
        ...base,
        status: 'executed',
        kind: p.kind === SPLIT ? SPLIT : routeKinds[0],
        planned_kind: p.kind,
        route_kinds: routeKinds,
        hops: Math.max(...routes.map((r) => r.length)),
        exchanges: [...new Set(routes.flat().map((s) => s.protocol_slug))],
        quoted: quote.out_amount,
        received: received.toString(),
        in_amount: quote.in_amount,
        spent: spent.toString(),
        exact,
        // Whether the routes reached every pool they share in the quote's order (the order its joint
        // simulation assumes): `differs` names the pool where a later route arrived first.
        shared_pool_order: order,
        conserved: conservation.ok,
        conservation: conservation.ok ? undefined : conservation.problems,
        ton_attached: sum(perRoute.map((r) => BigInt(r.ton_attached))).toString(),
        ton_consumed: tonConsumed.toString(),
        ton_left_in_contracts: conservation.tonLeft.toString(),
        network_fee: networkFee.toString(),
        routes: perRoute,
        failures,
    };
}

const RANK = { lost: 4, intermediate: 3, refunded: 2, rejected: 1, executed: 0 };

/** `as_quoted` when every pool two routes share saw them in the quote's route order (the first swap each route
 * made there, by logical time), `none` when no pool is shared, else `differs at POOL`. */
function arrivalOrder(routes, trees) {
    const firstAt = (k, address) => {
        const txs = trees[k].txs.filter((t) => t.inMessage && raw(t.inMessage.info.dest) === address);
        return txs.length ? txs.reduce((a, t) => (t.lt < a ? t.lt : a), txs[0].lt) : null;
    };
    const pools = new Map();
    routes.forEach((steps, k) => steps.forEach((s) => pools.set(s.pool_address, [...(pools.get(s.pool_address) ?? []), k])));
    let shared = false;
    for (const [address, ks] of pools) {
        const users = [...new Set(ks)];
        if (users.length < 2) continue;
        shared = true;
        const lts = users.map((k) => firstAt(k, address));
        if (lts.some((x, i) => i > 0 && x !== null && lts[i - 1] !== null && x < lts[i - 1])) {
            return `differs at ${routes[users[0]].find((s) => s.pool_address === address).worldPool.name}`;
        }
    }
    return shared ? 'as_quoted' : 'none';
}

/** One failure case: the price moved past the slippage, too little TON, or the deadline passed. Returns
 * `{case, outcome, routes: [...]}`, the outcome being the worst of the routes'. */
async function failureCase(ctx, which, p, quote, msgs, routes, snapshot, pools, before) {
    const { world, user, rng } = ctx;
    const bc = world.bc;
    const detail = {};
    let send = msgs;
    if (which === 'price_move') {
        // Another trader swaps first on every route's last pool, in the user's direction, until every route's
        // output, quoted again on the pools' new state, is below its min-out: the move is past the slippage.
        const start = bc.snapshot();
        const lasts = [...new Map(routes.map((steps) => [steps[steps.length - 1].pool_address, steps[steps.length - 1]])).values()];
        let scale = 1;
        for (let attempt = 0; ; attempt++) {
            detail.moved = [];
            for (const step of lasts) detail.moved.push(await movePrice(ctx, snapshot, step, p, scale));
            detail.past_slippage = pastSlippage(ctx, routes, quote, await answersAfter(ctx, lasts));
            if (detail.past_slippage || attempt === 4 || detail.moved.every((m) => m.at_limit)) break;
            await bc.loadFrom(start);
            scale *= 4;
        }
    } else if (which === 'low_ton') {
        // The wallet attaches a fraction of the TON the messages ask for (and forwards as much less).
        const k = 0.1 + 0.85 * rng.float();
        detail.scale = Number(k.toFixed(3));
        send = msgs.map((m) => scaleGas(m, k, p.from === 'TON'));
    } else {
        bc.now = bc.now + 900 + 1;
    }
    // The trader's swap changed the pools: their books before the user's messages are read again.
    if (which === 'price_move') before = await accounting(world, user, pools);
    const result = await user.send(send);
    const after = await accounting(world, user, pools);
    debugTrace(ctx, ctx.index, which, result);
    const conservation = checkConservation(world, user, before, after, result, p);
    const trees = routeTrees(result, send);
    const offerIsTon = p.from === 'TON';
    const perRoute = routes.map((steps, k) => {
        const r = readTree(user, trees[k], offerIsTon);
        const offer = tonOffer(send[k], offerIsTon);
        const inAmount = BigInt(steps[0].in_amount);
        const intermediates = steps.slice(0, -1).map((s) => (s.out_minter === 'native' ? 'TON' : symOf(world, s.out_minter)));
        const got = (sym) => (sym === 'TON' ? r.payoutTon : r.delivered[sym] ?? 0n);
        let outcome;
        if (got(p.to) > 0n) outcome = 'executed';
        else if (intermediates.some((s) => got(s) > 0n)) outcome = 'intermediate';
        // A TON offer comes back as TON: a pTON `ton_transfer` or `ton_refund`, or a bounce.
        else if (offerIsTon ? r.returnedTon + r.payoutTon >= offer : (r.delivered[p.from] ?? 0n) >= inAmount) outcome = r.inputLeft ? 'refunded' : 'rejected';
        else if (!r.inputLeft) outcome = 'rejected';
        else outcome = 'lost';
        return { outcome, failed_transactions: r.failures };
    });
    let outcome = perRoute.map((r) => r.outcome).reduce((a, b) => (RANK[a] >= RANK[b] ? a : b));
    if (!conservation.ok) outcome = 'lost';
    return { case: which, outcome, ...detail, routes: perRoute, conservation: conservation.ok ? undefined : conservation.problems };
}

/** The trader's swap on `step`'s pool in the user's direction: `scale` × max(20 %, 10 × the slippage) of the
 * pool's reserve of the input, or as much as the pool can take before its price limit (a TONCO pool's positions
 * end) when that is less. Returns what was swapped. */
async function movePrice(ctx, snapshot, step, p, scale) {
    const { world, trader } = ctx;
    const pool = step.worldPool;
    const snapPool = snapshot.pools.find((x) => x.address === step.pool_address);
    const sym = (id) => (id === 'native' ? 'TON' : symOf(world, id));
    const [from, to] = [sym(step.in_minter), sym(step.out_minter)];
    const reserve = BigInt(snapPool.reserves[snapPool.assets.indexOf(step.in_minter)]);
    const frac = Math.max(0.2, (10 * p.slippage) / 10000) * scale;
    let amount = BigInt(Math.floor(Number(reserve) * frac));
    let atLimit = false;
    let qs;
    for (let tries = 0; ; tries++) {
        const tp = { paths: [[{ pool, from, to }]], from, to, mode: 'exact_in', amount, slippage: 5000, maxSplits: 1, maxLength: 1 };
        qs = quoteAndSwap(ctx, snapshot, tp, trader, world.bc.now);
        const limit = qs.error && /price limit reached after (\d+)/.exec(qs.error);
        if (!limit || tries === 3) break;
        amount = (BigInt(limit[1]) * 95n) / 100n;
        atLimit = true;
    }
    if (qs.error) throw new Error(`price move: ${qs.error}`);
    const moved = await trader.send(qs.msgs);
    const got = readTree(trader, routeTrees(moved, qs.msgs)[0], from === 'TON');
    if ((to === 'TON' ? got.payoutTon : got.delivered[to] ?? 0n) === 0n) {
        throw new Error(`price move on ${pool.name}: the trader's swap did not execute:\n${traceLines(world, moved).join('\n')}`);
    }
    return { pool: pool.name, amount: amount.toString(), at_limit: atLimit };
}

/** The snapshot file of the world's state now, the pools of `steps` read again through their get-methods. */
async function answersAfter(ctx, steps) {
    const { world, bin, work } = ctx;
    const answers = await dumpGetMethods(world, [...new Set(steps.map((s) => s.worldPool))], new Map(ctx.answers));
    const chainFile = path.join(work, 'moved-chain.json');
    const snapFile = path.join(work, 'moved-snapshot.json');
    writeFileSync(chainFile, json(payload(world, answers)));
    run(bin, ['import', chainFile, '--out', snapFile]);
    return JSON.parse(readFileSync(snapFile, 'utf8'));
}

/** Whether every route of the quote, its input unchanged, now gets less than its min-out
 * (`floor(quoted · (10000 − slippage) / 10000)`) on `moved` (or cannot be quoted at all). */
function pastSlippage(ctx, routes, quote, moved) {
    const { world, bin, work } = ctx;
    const slippage = BigInt(quote.swap_data.slippage_bps);
    return routes.every((steps, k) => {
        const keep = new Set(steps.map((s) => s.pool_address));
        const file = path.join(work, `moved-route-${k}.json`);
        writeFileSync(file, JSON.stringify({ ...moved, pools: moved.pools.filter((x) => keep.has(x.address)) }));
        const [first, last] = [steps[0], steps[steps.length - 1]];
        let out;
        try {
            const q = JSON.parse(run(bin, ['quote', '--json', '--snapshot', file, first.in_minter, last.out_minter, first.in_amount,
                '--max-splits', '1', '--max-length', String(steps.length)]));
            out = q.swap_is_possible ? BigInt(q.out_amount) : 0n;
        } catch {
            out = 0n;
        }
        return out * 10000n < BigInt(last.out_amount) * (10000n - slippage);
    });
}

const symOf = (world, id) => Object.keys(world.jettons).find((s) => `jetton:${raw(world.jettons[s].minter)}` === id);

/** A message carrying `k` of the TON it asks for above the offer, its body unchanged (what a wallet that
 * attaches too little sends: it cannot change the forward amounts inside the signed payload). */
function scaleGas(m, k, offerIsTon) {
    const offer = tonOffer(m, offerIsTon);
    return { ...m, value: offer + BigInt(Math.floor(Number(m.value - offer) * k)) };
}

main().catch((e) => {
    console.error(e.stack || String(e));
    process.exit(1);
});
void Cell;
void failed;
void endsOf;
