// The report's summary: per route kind, how many routes were exact and conserved, the TON attached against the
// TON consumed and the quote's network fee, and the failure cases' outcomes. `summarize.mjs` prints it as the
// tables of BENCHMARKS.md for several reports together.

function percentile(xs, q) {
    const a = [...xs].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
    if (!a.length) return null;
    return a[Math.min(a.length - 1, Math.ceil(q * a.length) - 1)];
}

const min = (xs) => xs.reduce((a, b) => (a < b ? a : b));

/** TON figures of a list of `{attached, consumed, fee}`: the smallest attached, the consumed's median and 99th
 * percentile, the network fee's median, and the two ratios the gas is set by. `wholes`: the items are quotes of
 * different routes (splits), whose attached TON is set per route: the first ratio is then the smallest of each
 * quote's own attached / consumed. */
function tonFigures(xs, wholes = false) {
    const p50 = percentile(xs.map((x) => x.consumed), 0.5);
    const p99 = percentile(xs.map((x) => x.consumed), 0.99);
    const attached = min(xs.map((x) => x.attached));
    const fee = percentile(xs.map((x) => x.fee), 0.5);
    return {
        attached_min: attached.toString(),
        consumed_p50: p50.toString(),
        consumed_p99: p99.toString(),
        network_fee_p50: fee.toString(),
        attached_over_p99: wholes ? Math.min(...xs.map((x) => Number(x.attached) / Number(x.consumed))) : Number(attached) / Number(p99),
        network_fee_over_p50: Number(fee) / Number(p50),
    };
}

/**
 * Per route kind: routes, exact and conserved, the TON figures ({@link tonFigures}) and the failure cases'
 * outcomes. A split's routes count in their own kinds (each route is one message: its TON attached, what it
 * consumed, with its share of the wallet's fee, and its network fee); the `split` row is the split quotes
 * whole.
 */
export function summarize(records) {
    const done = records.filter((r) => r.status === 'executed');
    const kinds = {};
    const add = (kind, r, ton) => {
        const k = (kinds[kind] ??= { routes: 0, exact: 0, conserved: 0, ton: [], failures: {} });
        k.routes++;
        if (r.exact) k.exact++;
        if (r.conserved) k.conserved++;
        // TON figures come from swaps that ran as quoted: a route refunded mid-way returns its intermediate (TON
        // too) to the user, whose TON change then is no longer what the swap consumed.
        if (r.exact) k.ton.push(ton);
        for (const f of r.failures) {
            const o = (k.failures[f.case] ??= {});
            o[f.outcome] = (o[f.outcome] ?? 0) + 1;
        }
    };
    for (const r of done) {
        // The wallet's own fee (its external message, receiving the returns), shared by the routes.
        const wallet = BigInt(r.ton_consumed) - r.routes.reduce((a, x) => a + BigInt(x.ton_consumed), 0n);
        const share = wallet / BigInt(r.routes.length);
        for (const x of r.routes) {
            add(x.kind, r, { attached: BigInt(x.ton_attached), consumed: BigInt(x.ton_consumed) + share, fee: BigInt(x.network_fee) });
        }
        if (r.kind === 'split') {
            add('split', r, { attached: BigInt(r.ton_attached), consumed: BigInt(r.ton_consumed), fee: BigInt(r.network_fee) });
        }
    }
    const out = {};
    for (const [kind, k] of Object.entries(kinds)) {
        out[kind] = { routes: k.routes, exact: k.exact, conserved: k.conserved, ...tonFigures(k.ton, kind === 'split'), failures: k.failures };
    }
    return {
        executed: done.length,
        skipped: records.length - done.length,
        exact: done.filter((r) => r.exact).length,
        conserved: done.filter((r) => r.conserved).length,
        lost: done.filter((r) => r.failures.some((f) => f.outcome === 'lost')).length,
        kinds: out,
    };
}
