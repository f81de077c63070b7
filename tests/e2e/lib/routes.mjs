// The route kinds tonroute builds, and the paths of a world that give each kind: the harness restricts a
// quote's snapshot to one path's pools (or to a pair's parallel paths, for splits), so every kind is asked
// for on purpose instead of waiting for the router to pick it.

/** Kinds with one route each, in the order the report lists them, and the split kind. */
export const KINDS = [
    'dex_b_v1',
    'dex_b_v2',
    'dex_b_v2 multi-hop',
    'dex_b_v2 → dex_b_v2',
    'dex_b_v2 → dex_c',
    'dex_c → dex_b_v2',
    'dex_c',
    'dex_c → dex_c',
];
export const SPLIT = 'split';

/** The kind of a path (`[{pool, from, to}]`), or null when tonroute would refuse it (v1 only alone). */
export function kindOf(path) {
    const protos = path.map((h) => h.pool.protocol);
    if (protos.includes('dex_b_v1')) return path.length === 1 ? 'dex_b_v1' : null;
    // TONCO hands over only its token1 (a pool's `assets` are in pool order here): crates/core/src/graph/handoff.rs.
    if (path.slice(0, -1).some((h) => h.pool.protocol === 'dex_c' && h.to === h.pool.assets[0])) return null;
    // Segments: runs of dex_b_v2 hops on one router; every dex_c hop is its own segment.
    const segs = [];
    for (const h of path) {
        const last = segs[segs.length - 1];
        if (last && h.pool.protocol === 'dex_b_v2' && last.protocol === 'dex_b_v2' && last.router === h.pool.router) {
            last.hops++;
        } else {
            segs.push({ protocol: h.pool.protocol, router: h.pool.router, hops: 1 });
        }
    }
    if (segs.length === 1) return segs[0].hops > 1 ? 'dex_b_v2 multi-hop' : segs[0].protocol;
    return segs.map((s) => s.protocol).join(' → ');
}

/** Every path of up to `maxLen` hops through distinct assets. */
export function allPaths(world, maxLen = 3) {
    const out = [];
    const step = (path, at, seen) => {
        if (path.length) out.push(path);
        if (path.length === maxLen) return;
        for (const pool of world.pools) {
            const i = pool.assets.indexOf(at);
            if (i < 0 || path.some((h) => h.pool === pool)) continue;
            const to = pool.assets[1 - i];
            if (seen.has(to)) continue;
            step([...path, { pool, from: at, to }], to, new Set([...seen, to]));
        }
    };
    const assets = new Set(world.pools.flatMap((p) => p.assets));
    for (const a of assets) step([], a, new Set([a]));
    return out;
}

/** Which end of a path is TON: `ton_in`, `ton_out` or `jetton` (neither). */
export const endsOf = (path) => (path[0].from === 'TON' ? 'ton_in' : path[path.length - 1].to === 'TON' ? 'ton_out' : 'jetton');

/** Paths by kind and ends, only the kinds tonroute builds as one route. */
export function catalogue(world) {
    const byKind = new Map();
    for (const path of allPaths(world)) {
        const kind = kindOf(path);
        if (!kind || !KINDS.includes(kind)) continue;
        const key = `${kind}|${endsOf(path)}`;
        if (!byKind.has(key)) byKind.set(key, []);
        byKind.get(key).push(path);
    }
    return byKind;
}

/** Pairs joined by at least two routable paths of up to two hops (what a split can spread over). */
export function splitPairs(world) {
    const pairs = new Map();
    for (const path of allPaths(world, 2)) {
        const kind = kindOf(path);
        if (!kind || !KINDS.includes(kind)) continue;
        const key = `${path[0].from}>${path[path.length - 1].to}`;
        if (!pairs.has(key)) pairs.set(key, []);
        pairs.get(key).push(path);
    }
    return [...pairs.values()].filter((ps) => ps.length >= 2 && new Set(ps.map(kindOf)).size >= 2);
}
