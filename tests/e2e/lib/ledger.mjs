// Conservation: who holds what before and after a swap. The routers' wallets must change exactly as their
// pools' books (reserves plus collected protocol fees, read with the pools' get-methods), the user's jettons
// exactly by what the routers' wallets took or gave, and no jetton may reach any other wallet: then nothing
// of the user's is left in a router, vault, pTON wallet or LP account. TON left in contracts is measured
// from the transactions themselves.
import { Cell } from '@ton/core';
import { raw, sum } from './util.mjs';
import { OPS, failed } from './exec.mjs';

/** A jetton (or pTON) wallet's balance, read from its data (every wallet here stores it first). */
export async function walletBalance(bc, address) {
    const c = await bc.getContract(address);
    const st = c.accountState;
    if (st?.type !== 'active' || !st.state.data) return 0n;
    return st.state.data.beginParse().loadCoins();
}

/** Each pool's books: for both token wallets, what the pool owns of it (STON.fi: reserve + collected protocol
 * fee; TONCO: reserve). */
async function books(world, pool) {
    const s = (await world.get(pool.address, pool.protocol === 'dex_c' ? 'getPoolStateAndConfiguration' : 'get_pool_data')).stack;
    const n = (i) => s[i].value;
    const a = (i) => s[i].cell.beginParse().loadAddress();
    if (pool.protocol === 'dex_b_v2') return { wallets: [a(5), a(6)], amounts: [n(3) + n(10), n(4) + n(11)] };
    if (pool.protocol === 'dex_b_v1') return { wallets: [a(2), a(3)], amounts: [n(0) + n(8), n(1) + n(9)] };
    // TONCO's reserves already count the protocol fee it collected (the router's wallet holds reserve0 exactly).
    return { wallets: [a(3), a(4)], amounts: [n(20), n(21)] };
}

/** Books of `pools`, balances of their routers' wallets, and the user's balances. */
export async function accounting(world, user, pools) {
    const poolBooks = new Map();
    const wallets = new Map();
    for (const pool of pools) {
        const b = await books(world, pool);
        poolBooks.set(raw(pool.address), b);
        for (const w of b.wallets) wallets.set(raw(w), await walletBalance(world.bc, w));
    }
    const userBal = { TON: await user.tonBalance() };
    for (const [sym, jw] of Object.entries(user.jettonWallets)) userBal[sym] = await walletBalance(world.bc, jw);
    return { books: poolBooks, wallets, user: userBal };
}

/** The TON change of an account in one transaction: credited value − fees − what it sent (value and
 * forwarding fee). */
function tonDelta(tx) {
    const m = tx.inMessage;
    const credit = m?.info.type === 'internal' ? m.info.value.coins : 0n;
    let sent = 0n;
    for (const o of tx.outMessages.values()) if (o.info.type === 'internal') sent += o.info.value.coins + o.info.forwardFee;
    return credit - tx.totalFees.coins - sent;
}

/** Checks a swap's run (see the module comment); returns `{ok, problems, tonLeft}`. TON a contract keeps (a
 * non-bounceable excess it refuses, a storage reserve) is not a swap asset: it is `tonLeft`, part of the TON
 * the swap consumed. */
export function checkConservation(world, user, before, after, result, plan) {
    const problems = [];
    // 1. Every router wallet changed exactly as its pools' books.
    const expected = new Map();
    for (const [pool, b] of after.books) {
        const prev = before.books.get(pool);
        b.wallets.forEach((w, i) => {
            const k = raw(w);
            expected.set(k, (expected.get(k) ?? 0n) + b.amounts[i] - prev.amounts[i]);
        });
    }
    for (const [w, d] of expected) {
        const got = after.wallets.get(w) - before.wallets.get(w);
        if (got !== d) problems.push(`${world.labels.get(w) ?? w}: balance changed by ${got}, its pools' books by ${d}`);
    }
    // 2. No jetton reached a wallet other than the user's and the pools' routers'.
    const known = new Set([...after.wallets.keys(), ...[...user.bySym.keys()]]);
    for (const tx of result.transactions) {
        const m = tx.inMessage;
        if (m?.info.type !== 'internal' || failed(tx)) continue;
        const s = m.body.beginParse();
        if (s.remainingBits < 32 || s.loadUint(32) !== OPS.internalTransfer) continue;
        s.skip(64);
        const amount = s.loadCoins();
        const at = raw(m.info.dest);
        if (!known.has(at) && amount > 0n) problems.push(`${amount} jettons reached ${world.labels.get(at) ?? at}`);
    }
    // 3. The user's jettons changed by exactly what the routers' wallets of that jetton took or gave.
    for (const sym of Object.keys(user.jettonWallets)) {
        const du = after.user[sym] - before.user[sym];
        let dr = 0n;
        for (const [w, b] of after.wallets) if (world.walletAsset.get(w) === sym) dr += b - before.wallets.get(w);
        if (du + dr !== 0n) problems.push(`${sym}: the user's balance changed by ${du}, the routers' wallets by ${dr}`);
    }
    // TON left in contracts: their TON change beyond what their pTON wallets hold for the pools.
    const me = BigInt(`0x${user.address.hash.toString('hex')}`);
    const contractsTon = sum(result.transactions.filter((t) => t.address !== me).map(tonDelta));
    let ptonDelta = 0n;
    for (const [w, b] of after.wallets) if (world.walletAsset.get(w) === 'TON') ptonDelta += b - before.wallets.get(w);
    void plan;
    return { ok: problems.length === 0, problems, tonLeft: contractsTon - ptonDelta };
}
