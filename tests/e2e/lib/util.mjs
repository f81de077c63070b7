// Small helpers shared by the harness: a seeded random generator, address and amount formatting, and the
// conversion of get-method stacks to toncenter's v3 encoding (what tonroute's chain decoders read).
import { Address, beginCell, Cell } from '@ton/core';

// @ton/sandbox serializes the same cells again for every transaction and get-method it runs (the libraries
// dictionary, a contract's code): most of a run's time. Cells are immutable (frozen at construction), so the
// bag of cells of a cell object is kept and a copy handed out.
const bocs = new WeakMap();
const toBoc = Cell.prototype.toBoc;
Cell.prototype.toBoc = function cachedToBoc(opts) {
    const key = opts ? JSON.stringify(opts) : '';
    let byOpts = bocs.get(this);
    if (!byOpts) bocs.set(this, (byOpts = new Map()));
    let boc = byOpts.get(key);
    if (!boc) byOpts.set(key, (boc = toBoc.call(this, opts)));
    return Buffer.from(boc);
};

/** xorshift128+ over BigInt: the same seed gives the same sequence on every platform. */
export class Rng {
    constructor(seed) {
        let s = BigInt.asUintN(64, BigInt(seed) * 0x9e3779b97f4a7c15n + 0x632be59bd9b4e019n);
        const next = () => {
            // splitmix64, to spread the seed over the state
            s = BigInt.asUintN(64, s + 0x9e3779b97f4a7c15n);
            let z = s;
            z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
            z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
            return z ^ (z >> 31n);
        };
        this.a = next();
        this.b = next();
    }

    /** 64 random bits. */
    u64() {
        let x = this.a;
        const y = this.b;
        this.a = y;
        x = BigInt.asUintN(64, x ^ (x << 23n));
        this.b = x ^ y ^ (x >> 17n) ^ (y >> 26n);
        return BigInt.asUintN(64, this.b + y);
    }

    /** A float in [0, 1). */
    float() {
        return Number(this.u64() >> 11n) / 2 ** 53;
    }

    /** An integer in [lo, hi] (inclusive). */
    int(lo, hi) {
        return lo + Math.floor(this.float() * (hi - lo + 1));
    }

    /** A BigInt in [lo, hi] (inclusive). */
    big(lo, hi) {
        const span = hi - lo + 1n;
        const r = (this.u64() << 64n) | this.u64();
        return lo + (r % span);
    }

    pick(items) {
        return items[this.int(0, items.length - 1)];
    }

    shuffle(items) {
        const a = [...items];
        for (let i = a.length - 1; i > 0; i--) {
            const j = this.int(0, i);
            [a[i], a[j]] = [a[j], a[i]];
        }
        return a;
    }
}

/** `0:<hex>`. */
export const raw = (a) => `${a.workChain}:${a.hash.toString('hex')}`;

/** An address as `@ton/core` reads it, from any form. */
export const addr = (s) => (s instanceof Address ? s : Address.parse(s));

/** A cell of `@ton/core`'s copy from a cell of another copy (the TONCO SDK brings its own). */
export const ownCell = (c) => Cell.fromBoc(c.toBoc())[0];

/** An address as the cell holding it (a get-method's slice argument). */
export const addrSlice = (a) => ({ type: 'slice', cell: beginCell().storeAddress(a).endCell() });

/** A TVM integer as toncenter writes it: `0x…` or `-0x…`. */
const hexInt = (v) => (v < 0n ? `-0x${(-v).toString(16)}` : `0x${v.toString(16)}`);

/** One stack entry of `@ton/core` as a toncenter v3 `{type, value}` object. */
function v3Entry(item) {
    switch (item.type) {
        case 'int':
            return { type: 'num', value: hexInt(item.value) };
        case 'nan':
            return { type: 'num', value: 'NaN' };
        case 'null':
            return { type: 'null' };
        case 'cell':
            return { type: 'cell', value: item.cell.toBoc().toString('base64') };
        case 'slice':
            return { type: 'slice', value: item.cell.toBoc().toString('base64') };
        case 'builder':
            return { type: 'cell', value: item.cell.toBoc().toString('base64') };
        case 'tuple':
            return { type: 'tuple', value: item.items.map(v3Entry) };
        default:
            throw new Error(`stack entry of type ${item.type}`);
    }
}

/** A get-method's answer in toncenter's v3 `runGetMethod` encoding. */
export function toV3(result) {
    return { gas_used: Number(result.gasUsed ?? 0), exit_code: result.exitCode, stack: result.stack.map(v3Entry) };
}

/** A request's stack arguments in the same encoding (saved next to the answer). */
export function argsToV3(args) {
    return args.map(v3Entry);
}

export const TON = 1_000_000_000n;

/** Sum of a list of BigInts. */
export const sum = (xs) => xs.reduce((a, b) => a + b, 0n);

/** JSON with BigInts as decimal strings. */
export const json = (v, indent) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x), indent);
