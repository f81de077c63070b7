// Executing tonroute's messages as a user would: an ordinary v4 wallet signs the messages `tonroute swap`
// printed and the emulator runs until no message is left; then the trace is read back: what reached the user
// from each route's message, what every contract kept, and what the swap cost in TON.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { Address, beginCell, Cell, internal as message, SendMode, storeMessageRelaxed } from '@ton/core';
import { WalletContractV4 } from '@ton/ton';
import { keyPairFromSeed } from '@ton/crypto';
import { TON, raw, sum } from './util.mjs';

export const OPS = {
    transfer: 0x0f8a7ea5,
    internalTransfer: 0x178d4519,
    notification: 0x7362d09c,
    excesses: 0xd53276db,
    tonTransfer: 0x01f3835d,
    tonRefund: 0xae25d79e,
};

/** The tonroute binary: `TONROUTE_BIN`, else `target/release/tonroute` of this checkout. */
export function tonrouteBin(root) {
    return process.env.TONROUTE_BIN || `${root}/target/release/tonroute`;
}

/** Runs the binary; returns stdout, or throws with its stderr. */
export function run(bin, args, input) {
    const r = spawnSync(bin, args, { input, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.error) throw new Error(`${bin}: ${r.error.message}`);
    if (r.status !== 0) {
        const e = new Error(`tonroute ${args[0]} exited ${r.status}: ${r.stderr.trim()}`);
        e.status = r.status;
        e.stderr = r.stderr;
        throw e;
    }
    return r.stdout;
}

/** A user: a v4 wallet with its own key, funded by the liquidity provider, holding every jetton. */
export class User {
    constructor(world, name) {
        this.world = world;
        this.name = name;
        this.kp = keyPairFromSeed(createHash('sha256').update(`tonroute e2e ${name}`).digest());
        this.wallet = world.bc.openContract(WalletContractV4.create({ workchain: 0, publicKey: this.kp.publicKey }));
        this.address = this.wallet.address;
        this.jettonWallets = {}; // symbol -> Address
        this.bySym = new Map(); // raw jetton wallet -> symbol
    }

    async init(tonAmount, jettonAmount) {
        const w = this.world;
        await w.lp.send({ to: this.address, value: tonAmount, bounce: false });
        // The first external message deploys the wallet (the provider attaches its StateInit).
        await this.send([]);
        for (const sym of Object.keys(w.jettons)) {
            await w.mint(sym, this.address, jettonAmount);
            const jw = await w.walletOf(w.jettons[sym].minter, this.address);
            this.jettonWallets[sym] = jw;
            this.bySym.set(raw(jw), sym);
            w.label(jw, `${this.name} ${sym} wallet`);
        }
        w.label(this.address, this.name);
        return this;
    }

    /** Signs and sends `msgs` (`{to: Address, value, body: Cell, bounce}`) in one external message (mode 3, as
     * wallets send TON Connect messages). */
    async send(msgs) {
        const seqno = await this.wallet.getSeqno();
        return this.wallet.sendTransfer({
            seqno,
            secretKey: this.kp.secretKey,
            sendMode: SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
            messages: msgs.map((m) => message({ to: m.to, value: m.value, body: m.body, bounce: m.bounce })),
        });
    }

    async tonBalance() {
        return (await this.world.bc.getContract(this.address)).balance;
    }

    async balances() {
        const out = { TON: await this.tonBalance() };
        for (const [sym, jw] of Object.entries(this.jettonWallets)) out[sym] = await this.world.jettonBalance(jw);
        return out;
    }
}

/** tonroute's TON Connect messages as wallet messages. */
export function walletMessages(transactions) {
    return transactions.map((t) => {
        const f = Address.parseFriendly(t.address);
        return { to: f.address, value: BigInt(t.amount), body: Cell.fromBase64(t.payload), bounce: f.isBounceable };
    });
}

const bodyOp = (cell) => {
    if (!cell) return null;
    const s = cell.beginParse();
    return s.remainingBits >= 32 ? s.loadUint(32) : null;
};

/** Whether a transaction's compute or action phase failed (or it was skipped / aborted). */
export function failed(tx) {
    const d = tx.description;
    if (d.type !== 'generic') return false;
    if (d.aborted) return true;
    if (d.computePhase.type === 'skipped') return d.computePhase.reason !== 'no-state' ? true : false;
    return !d.computePhase.success || (d.actionPhase && !d.actionPhase.success);
}

export function exitCode(tx) {
    const c = tx.description.computePhase;
    return c?.type === 'vm' ? c.exitCode : c?.reason;
}

/** A message's identity inside one trace: destination, value and body hash. */
const msgKey = (m) => `${m.info.dest?.toString?.()}|${m.info.value?.coins}|${m.body.hash().toString('hex')}`;

/** The transactions of each route message: the subtree under the child of the wallet's transaction that
 * processed that message. */
export function routeTrees(result, msgs) {
    const root = result.transactions[0];
    const byKey = new Map();
    for (const c of root.children) if (c.inMessage) byKey.set(msgKey(c.inMessage), c);
    return msgs.map((m) => {
        const relaxed = message({ to: m.to, value: m.value, body: m.body, bounce: m.bounce });
        const child = root.children.find(
            (c) => c.inMessage?.info.dest?.equals?.(m.to) && c.inMessage.body.hash().equals(relaxed.body.hash()),
        );
        const txs = [];
        const walk = (t) => {
            txs.push(t);
            for (const c of t.children) walk(c);
        };
        if (child) walk(child);
        return { first: child, txs };
    });
}

/** What one route's transactions delivered to the user: jettons (by symbol), TON paid out through pTON
 * (the amount a router's pTON wallet names), other TON returned (excesses, refunds), whether the input left the user's
 * wallet, failed transactions, and messages that failed without bouncing back (their value stays where it
 * failed). */
export function readTree(user, tree, offerIsTon) {
    const delivered = {};
    let payoutTon = 0n;
    let returnedTon = 0n;
    const failures = [];
    let lostBounces = 0;
    for (const tx of tree.txs) {
        const at = raw(tx.inMessage?.info.dest ?? new Address(0, Buffer.alloc(32)));
        const m = tx.inMessage;
        const isFailed = failed(tx);
        if (isFailed) {
            failures.push({ at: user.world.labels.get(at) ?? at, exit: exitCode(tx) });
            if (m?.info.type === 'internal' && !m.info.bounce && m.info.value.coins > 0n && !m.info.bounced) lostBounces++;
        }
        if (!m || m.info.type !== 'internal') continue;
        const sym = user.bySym.get(at);
        if (sym && !isFailed && bodyOp(m.body) === OPS.internalTransfer) {
            const s = m.body.beginParse();
            s.skip(32 + 64);
            delivered[sym] = (delivered[sym] ?? 0n) + s.loadCoins();
        }
        if (at === raw(user.address)) {
            const v = m.info.value.coins;
            const fromPton = user.world.walletAsset.get(raw(m.info.src)) === 'TON';
            // pTON v2 pays TON with `ton_transfer`, pTON v1 with a `transfer_notification`; either names the amount.
            if (fromPton && [OPS.tonTransfer, OPS.notification].includes(bodyOp(m.body))) {
                const s = m.body.beginParse();
                s.skip(32 + 64);
                const amount = s.loadCoins();
                payoutTon += amount;
                returnedTon += v - amount;
            } else {
                returnedTon += v;
            }
        }
    }
    let inputLeft;
    const first = tree.first;
    if (!first) inputLeft = false;
    else if (offerIsTon) inputLeft = !failed(first);
    else inputLeft = !failed(first) && [...first.outMessages.values()].some((o) => bodyOp(o.body) === OPS.internalTransfer);
    return { delivered, payoutTon, returnedTon, inputLeft, failures, lostBounces };
}

/** The TON the wallet's own transactions burnt (the external message, and receiving returns). */
export function walletFees(user, result) {
    return sum(result.transactions.filter((t) => raw(t.inMessage?.info.dest ?? user.address) === raw(user.address)
        && (t.inMessage?.info.type !== 'internal' || raw(t.inMessage.info.dest) === raw(user.address)))
        .filter((t) => t.address === BigInt(`0x${user.address.hash.toString('hex')}`))
        .map((t) => t.totalFees.coins));
}

export { TON };

const OP_NAMES = new Map([
    [0x0f8a7ea5, 'transfer'], [0x178d4519, 'internal_transfer'], [0x7362d09c, 'transfer_notification'],
    [0xd53276db, 'excesses'], [0x01f3835d, 'ton_transfer'], [0xae25d79e, 'ton_refund'], [0x6664de2a, 'swap'],
    [0x69cf1a5b, 'cross_swap'], [0x657b54f5, 'pay_to'], [0xa7fb58f8, 'POOLV3_SWAP'], [0x25938561, 'v1 swap'],
    [0xf93bb43f, 'v1 pay_to'], [0xa1daa96d, 'ROUTERV3_PAY_TO'], [0xdb913023, 'POOLV3_SWAP_M'],
]);

/** A readable line per transaction of a trace (for debugging a route). */
export function traceLines(world, result) {
    const name = (a) => (a ? world.labels.get(raw(a)) ?? raw(a).slice(0, 12) : 'ext');
    const lines = [];
    const walk = (tx, depth) => {
        const m = tx.inMessage;
        const op = m ? bodyOp(m.body) : null;
        const d = tx.description;
        const c = d.computePhase;
        const status = c?.type === 'vm' ? `exit ${c.exitCode}${c.success ? '' : ' FAILED'}` : c?.reason;
        const value = m?.info.type === 'internal' ? m.info.value.coins : 0n;
        const outs = [...tx.outMessages.values()].map((o) => `${OP_NAMES.get(bodyOp(o.body)) ?? bodyOp(o.body)?.toString(16)}→${name(o.info.dest)}:${o.info.value?.coins ?? ''}`);
        lines.push(`${'  '.repeat(depth)}${name(m?.info.dest)} <- ${OP_NAMES.get(op) ?? op?.toString(16)} ${value} [${status}${d.aborted ? ' aborted' : ''}${m?.info.bounced ? ' BOUNCED' : ''}] fees ${tx.totalFees.coins} out: ${outs.join(', ')}`);
        if (op === 0xa1daa96d) lines.push(`${'  '.repeat(depth)}   ${describePayTo(m.body)}`);
        for (const c2 of tx.children) walk(c2, depth + 1);
    };
    walk(result.transactions[0], 0);
    return lines;
}

/** A TONCO `ROUTERV3_PAY_TO` body (layout of the SDK's `emergencyRecoveryMessage`), for traces. */
function describePayTo(body) {
    try {
        const s = body.beginParse();
        s.skip(32 + 64);
        const t0 = s.loadAddressAny();
        const t1 = s.loadAddressAny();
        const exit = s.loadUint(32);
        s.skip(64);
        const flags = `${s.loadUint(1)}${s.loadUint(1)}`;
        const c = s.loadRef().beginParse();
        const a0 = c.loadCoins();
        c.loadAddressAny();
        const a1 = c.loadCoins();
        return `PAY_TO target0 ${t0} target1 ${t1} exit ${exit} flags ${flags} amount0 ${a0} amount1 ${a1}; left ${s.remainingBits} bits ${s.remainingRefs} refs, coins cell ${c.remainingBits} bits ${c.remainingRefs} refs`;
    } catch (e) {
        return `PAY_TO (unread: ${e.message})`;
    }
}
