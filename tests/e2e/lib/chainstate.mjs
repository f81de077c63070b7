// The pools' state read back with their own get-methods, saved as toncenter v3 `runGetMethod` answers: the
// payload `tonroute import` turns into a snapshot with its chain decoders (crates/sources/src/import/getters.rs). Nothing the
// harness meant to set is written here; only what the contracts answer.
import { raw, toV3, argsToV3 } from './util.mjs';

/** Saved get-method answers of `pools` (default: every pool of `world`), their router wallets and masters,
 * added to (pool methods: replacing those in) `answers`, a Map keyed by `address|method`. */
export async function dumpGetMethods(world, pools = world.pools, answers = new Map()) {
    const poolMethods = new Set(['get_pool_type', 'get_pool_data', 'getPoolStateAndConfiguration', 'getAllTickInfos']);
    const call = async (address, method, args = []) => {
        const key = `${raw(address)}|${method}`;
        // Wallets and masters answer the same owner, master and wallet code for ever: read them once.
        if (answers.has(key) && !poolMethods.has(method)) return null;
        const r = await world.get(address, method, args);
        if (r.exitCode !== 0 && r.exitCode !== 1) throw new Error(`${method} on ${address}: exit ${r.exitCode}`);
        answers.set(key, { address: raw(address), method, stack: argsToV3(args), result: toV3(r) });
        return r;
    };
    for (const pool of pools) {
        if (pool.protocol === 'dex_c') {
            const st = await call(pool.address, 'getPoolStateAndConfiguration');
            await call(pool.address, 'getAllTickInfos');
            const s = st.stackReader;
            s.skip(5);
            await call(s.readAddress(), 'get_jetton_data');
            await call(s.readAddress(), 'get_jetton_data');
            continue;
        }
        if (pool.protocol === 'dex_b_v2') await call(pool.address, 'get_pool_type');
        const s = (await call(pool.address, 'get_pool_data')).stackReader;
        const wallets = [];
        if (pool.protocol === 'dex_b_v2') {
            s.skip(5);
        }
        if (pool.protocol === 'dex_b_v1') s.skip(2);
        wallets.push(s.readAddress(), s.readAddress());
        for (const w of wallets) {
            const r = await call(w, 'get_wallet_data');
            if (r === null) continue;
            const master = r.stackReader;
            master.skip(2);
            await call(master.readAddress(), 'get_jetton_data');
        }
    }
    return answers;
}

/** The payload `tonroute import` reads. */
export function payload(world, answers) {
    return { get_methods: [...answers.values()], native_masters: world.nativeMasters.map(raw) };
}
