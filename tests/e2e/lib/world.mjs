// A world of the exchanges' own contracts in @ton/sandbox: jettons, pTON v1 and v2, a STON.fi v1 router, two
// STON.fi v2.2 routers, a TONCO router, their pools funded through the contracts' own liquidity paths
// (`provide_lp`, TONCO mints over several tick ranges), and users holding ordinary v4 wallets.
//
// Everything here is built with messages to the deployed contracts; nothing writes a pool's state directly. The
// pools' state is read back later only through their get-methods (chainstate.mjs).
import { Blockchain, internal } from '@ton/sandbox';
import { Address, beginCell, Cell, Dictionary, contractAddress, SendMode, toNano } from '@ton/core';
import { WalletContractV4 } from '@ton/ton';
import { keyPairFromSeed } from '@ton/crypto';
import {
    JETTON_MINTER, JETTON_WALLET, PTON_V1_MINTER, PTON_V1_WALLET, PTON_V2_MINTER, PTON_V2_WALLET, STONFI_V1,
    STONFI_V2, TONCO, jettonMinterConfigToCell, pTonMinterConfigToCellV1, pTonMinterConfigToCellV2, tonco,
} from './codes.mjs';
import { TON, addrSlice, raw } from './util.mjs';

/** The sandbox clock at the start (fixed, so the same seed gives the same world). */
export const T0 = 1_760_000_000;

const OP = {
    transfer: 0x0f8a7ea5,
    tonTransfer: 0x01f3835d,
    mint: 21,
    internalTransfer: 0x178d4519,
    ptonV1DeployWallet: 0x6cc43573,
    ptonV2DeployWallet: 0x4f5f4313,
    v1ProvideLp: 0xfcf9e58f,
    v1SetFees: 0x355423e5,
    v2ProvideLp: 0x37c096df,
    v2SetFees: 0x58274069,
    toncoCreatePool: 0x2e3034ef,
    toncoFundAccount: 0x4468de77,
};

/** A library cell pointing at `code` (STON.fi v2.2 deploys its code as masterchain libraries). */
function libraryCell(code) {
    const lib = beginCell().storeUint(2, 8).storeBuffer(code.hash()).endCell();
    return new Cell({ exotic: true, bits: lib.bits, refs: lib.refs });
}

/** Checks that every transaction of a result ran (no failed compute or action phase, no bounce). */
export function assertOk(result, what) {
    for (const tx of result.transactions) {
        const d = tx.description;
        if (d.type !== 'generic') continue;
        const compute = d.computePhase;
        const failed = d.aborted || (compute.type === 'vm' && !compute.success) || (d.actionPhase && !d.actionPhase.success);
        const bounced = tx.inMessage?.info.type === 'internal' && tx.inMessage.info.bounced;
        if (failed || bounced) {
            const at = tx.inMessage?.info.dest?.toString() ?? '?';
            const code = compute.type === 'vm' ? compute.exitCode : compute.reason;
            throw new Error(`${what}: transaction at ${at} failed (exit ${code}, action ${d.actionPhase?.resultCode}, bounced ${bounced})`);
        }
    }
    return result;
}

/** A TEP-74 `transfer` body. */
export function jettonTransfer({ amount, to, response, forwardTon = 0n, payload = null, queryId = 0n }) {
    const b = beginCell()
        .storeUint(OP.transfer, 32)
        .storeUint(queryId, 64)
        .storeCoins(amount)
        .storeAddress(to)
        .storeAddress(response)
        .storeBit(false)
        .storeCoins(forwardTon);
    return (payload ? b.storeBit(true).storeRef(payload) : b.storeBit(false)).endCell();
}

/** A pTON v2 `ton_transfer` body (the payload as a reference). */
export function tonTransfer({ amount, refund, payload, queryId = 0n }) {
    return beginCell()
        .storeUint(OP.tonTransfer, 32)
        .storeUint(queryId, 64)
        .storeCoins(amount)
        .storeAddress(refund)
        .storeBit(true)
        .storeRef(payload)
        .endCell();
}

/** The standard jetton wallet of `owner` for `minter` (TEP-74 reference layout). */
export function jettonWalletAddress(minter, owner) {
    const data = beginCell().storeCoins(0).storeAddress(owner).storeAddress(minter).storeRef(JETTON_WALLET).endCell();
    return contractAddress(0, { code: JETTON_WALLET, data });
}

export class World {
    constructor(bc, rng) {
        this.bc = bc;
        this.rng = rng;
        this.jettons = {}; // symbol -> {symbol, minter: Address}
        this.routers = {}; // name -> {name, protocol, address, pton?: Address (router's pTON wallet), ptonMinter}
        this.pools = []; // {name, protocol, router, address, assets: [sym, sym], ...}
        this.nativeMasters = []; // pTON minters (TON)
        this.labels = new Map(); // raw address -> label, for reports
        this.walletAsset = new Map(); // raw router wallet -> symbol it holds
        this.wallets = new Map(); // `minter|owner` -> wallet address
    }

    label(address, name) {
        this.labels.set(raw(address), name);
    }

    async send(from, to, value, body, opts = {}) {
        const r = await from.send({ to, value, body, init: opts.init, bounce: opts.bounce ?? true, sendMode: SendMode.PAY_GAS_SEPARATELY });
        return opts.check === false ? r : assertOk(r, opts.what ?? `message to ${to}`);
    }

    /** Deploys `init` at its address with an empty, non-bounceable message (some contracts refuse the empty
     * body: the account is created all the same, as the exchanges' own deploy scripts do it). */
    async deploy(init, value, what) {
        const address = contractAddress(0, init);
        await this.admin.send({ to: address, value, body: beginCell().endCell(), init, bounce: false, sendMode: SendMode.PAY_GAS_SEPARATELY });
        const c = await this.bc.getContract(address);
        if (c.accountState?.type !== 'active') throw new Error(`${what}: ${address} is not active after its deploy`);
        return address;
    }

    async get(address, method, args = []) {
        return this.bc.runGetMethod(address, method, args);
    }

    /** `owner`'s wallet of the jetton (or pTON) of `minter`, by the minter's `get_wallet_address` (asked once per
     * pair: the answer never changes). */
    async walletOf(minter, owner) {
        const key = `${raw(minter)}|${raw(owner)}`;
        if (!this.wallets.has(key)) {
            const r = await this.get(minter, 'get_wallet_address', [addrSlice(owner)]);
            this.wallets.set(key, r.stackReader.readAddress());
        }
        return this.wallets.get(key);
    }

    /** Balance of a jetton wallet (0 when not deployed). */
    async jettonBalance(wallet) {
        const c = await this.bc.getContract(wallet);
        if (c.accountState?.type !== 'active') return 0n;
        return (await this.get(wallet, 'get_wallet_data')).stackReader.readBigNumber();
    }

    // ---- jettons and pTON ----

    async deployJetton(symbol) {
        const content = beginCell().storeUint(1, 8).storeStringTail(`e2e://${symbol}`).endCell();
        const data = jettonMinterConfigToCell({ totalSupply: 0n, adminAddress: this.admin.address, content, jettonWalletCode: JETTON_WALLET });
        const init = { code: JETTON_MINTER, data };
        const minter = await this.deploy(init, toNano('0.1'), `deploy ${symbol}`);
        this.jettons[symbol] = { symbol, minter };
        this.label(minter, `${symbol} minter`);
        return minter;
    }

    async mint(symbol, to, amount) {
        const minter = this.jettons[symbol].minter;
        const master = beginCell()
            .storeUint(OP.internalTransfer, 32).storeUint(0, 64).storeCoins(amount)
            .storeAddress(minter).storeAddress(this.admin.address).storeCoins(0).storeBit(false)
            .endCell();
        const body = beginCell().storeUint(OP.mint, 32).storeUint(0, 64).storeAddress(to).storeCoins(toNano('0.05')).storeRef(master).endCell();
        await this.send(this.admin, minter, toNano('0.1'), body, { what: `mint ${symbol}` });
    }

    async deployPton(version, id) {
        const init = version === 1
            ? { code: PTON_V1_MINTER, data: pTonMinterConfigToCellV1({ walletCode: PTON_V1_WALLET }) }
            : { code: PTON_V2_MINTER, data: pTonMinterConfigToCellV2({ id, walletCode: PTON_V2_WALLET }) };
        const minter = await this.deploy(init, toNano('0.1'), `deploy pTON v${version}`);
        this.nativeMasters.push(minter);
        this.label(minter, `pTON v${version}#${id} minter`);
        return minter;
    }

    async deployPtonWallet(version, minter, owner) {
        const b = beginCell().storeUint(version === 1 ? OP.ptonV1DeployWallet : OP.ptonV2DeployWallet, 32).storeUint(0, 64).storeAddress(owner);
        if (version === 2) b.storeAddress(this.admin.address);
        await this.send(this.admin, minter, toNano(version === 1 ? '2' : '1'), b.endCell(), { what: `deploy pTON v${version} wallet` });
        return this.walletOf(minter, owner);
    }

    /** Deploys a router from `init` with its pTON wallet (pTON `ptonVersion`, of `ptonMinter`), then records and
     * labels both. */
    async deployRouter(name, protocol, init, ptonVersion, ptonMinter) {
        const address = await this.deploy(init, toNano('5'), `deploy ${name}`);
        const pton = await this.deployPtonWallet(ptonVersion, ptonMinter, address);
        this.routers[name] = { name, protocol, address, pton, ptonMinter };
        this.label(address, name);
        this.label(pton, `${name} pTON wallet`);
        return this.routers[name];
    }

    // ---- STON.fi v1 ----

    async deployStonfiV1(name) {
        const cache = beginCell().storeUint(0, 64).storeUint(0, 64).storeAddress(new Address(0, Buffer.alloc(32))).storeRef(beginCell().endCell()).endCell();
        const data = beginCell().storeUint(0, 1).storeAddress(this.admin.address)
            .storeRef(STONFI_V1.lpWallet).storeRef(STONFI_V1.pool).storeRef(STONFI_V1.lpAccount).storeRef(cache).endCell();
        return this.deployRouter(name, 'dex_b_v1', { code: STONFI_V1.router, data }, 1, this.ptonV1);
    }

    // ---- STON.fi v2.2 ----

    async deployStonfiV2(name, id) {
        const cache = beginCell().storeUint(0, 64).storeUint(0, 64).storeUint(0, 64).storeAddress(null)
            .storeRef(beginCell().endCell()).storeRef(beginCell().endCell()).endCell();
        const codes = beginCell().storeUint(id, 64)
            .storeRef(libraryCell(STONFI_V2.lpWallet)).storeRef(libraryCell(STONFI_V2.pool))
            .storeRef(libraryCell(STONFI_V2.lpAccount)).storeRef(libraryCell(STONFI_V2.vault)).endCell();
        const data = beginCell().storeUint(0, 1).storeAddress(this.admin.address).storeRef(cache).storeRef(codes)
            .storeRef(beginCell().endCell()).endCell();
        return this.deployRouter(name, 'dex_b_v2', { code: libraryCell(STONFI_V2.router), data }, 2, this.ptonV2);
    }

    /** The router's wallet of an asset (`TON` = its pTON wallet). */
    async routerWallet(router, sym) {
        return sym === 'TON' ? router.pton : this.walletOf(this.jettons[sym].minter, router.address);
    }

    /** Sends `amount` of `sym` from the liquidity provider to `router` with `payload` (a jetton transfer, or
     * TON through the router's pTON wallet: v1 takes a jetton `transfer`, v2 a `ton_transfer`). */
    async sendToRouter(router, sym, amount, payload, forward = toNano('1')) {
        const lp = this.lp;
        if (sym !== 'TON') {
            const wallet = await this.walletOf(this.jettons[sym].minter, lp.address);
            const body = jettonTransfer({ amount, to: router.address, response: lp.address, forwardTon: forward, payload });
            return this.send(lp, wallet, forward + toNano('1'), body, { what: `${sym} to ${router.name}` });
        }
        if (router.protocol === 'dex_b_v1') {
            const body = jettonTransfer({ amount: 0n, to: router.address, response: lp.address, forwardTon: forward, payload });
            return this.send(lp, router.pton, amount + forward, body, { what: `TON to ${router.name}` });
        }
        const body = tonTransfer({ amount, refund: lp.address, payload });
        return this.send(lp, router.pton, amount + forward, body, { what: `TON to ${router.name}` });
    }

    /** Records `pool` and labels it and its router's wallets `wallets` (`[wallet, asset]` pairs). */
    addPool(pool, wallets) {
        for (const [wallet, sym] of wallets) {
            this.walletAsset.set(raw(wallet), sym);
            this.label(wallet, `${pool.router.name} ${sym} wallet`);
        }
        this.pools.push(pool);
        this.label(pool.address, pool.name);
        return pool;
    }

    async stonfiPool(router, a, b, amountA, amountB, fees) {
        const wa = await this.routerWallet(router, a);
        const wb = await this.routerWallet(router, b);
        const v1 = router.protocol === 'dex_b_v1';
        // Each side's provide_lp names the other side's router wallet; v2's carries a deadline a day ahead.
        const deadline = this.bc.now + 86400;
        const lp = v1
            ? (other, min) => beginCell().storeUint(OP.v1ProvideLp, 32).storeAddress(other).storeCoins(min).endCell()
            : (other, min) => beginCell().storeUint(OP.v2ProvideLp, 32).storeAddress(other)
                .storeAddress(this.lp.address).storeAddress(this.lp.address).storeUint(deadline, 64)
                .storeRef(beginCell().storeCoins(min).storeAddress(this.lp.address).storeUint(0, 1).storeCoins(0).storeBit(false).endCell())
                .endCell();
        await this.sendToRouter(router, a, amountA, lp(wb, 0n));
        await this.sendToRouter(router, b, amountB, lp(wa, 1n));
        const address = (await this.get(router.address, 'get_pool_address', [addrSlice(wa), addrSlice(wb)])).stackReader.readAddress();
        const setFees = v1
            ? beginCell().storeUint(OP.v1SetFees, 32).storeUint(0, 64)
                .storeUint(fees.lp, 8).storeUint(fees.protocol, 8).storeUint(fees.ref, 8).storeAddress(this.protocolFees.address)
                .storeRef(beginCell().storeAddress(wa).storeAddress(wb).endCell()).endCell()
            : beginCell().storeUint(OP.v2SetFees, 32).storeUint(0, 64)
                .storeUint(fees.lp, 16).storeUint(fees.protocol, 16).storeAddress(this.protocolFees.address)
                .storeRef(beginCell().storeAddress(wa).storeAddress(wb).storeAddress(this.admin.address).endCell()).endCell();
        await this.send(this.admin, router.address, toNano('1'), setFees, { what: v1 ? 'v1 set_fees' : 'v2 set_fees' });
        const pool = { name: `${router.name}:${a}/${b}`, protocol: router.protocol, router, address, assets: [a, b], fees };
        return this.addPool(pool, [[wa, a], [wb, b]]);
    }

    // ---- TONCO ----

    async deployTonco(name) {
        const data = beginCell()
            .storeAddress(this.admin.address).storeAddress(this.admin.address).storeAddress(this.admin.address)
            .storeUint(this.toncoFlags ?? 0n, 64).storeUint(0, 64)
            .storeRef(beginCell().storeRef(TONCO.pool).storeRef(TONCO.account).storeRef(TONCO.position).endCell())
            .storeRef(beginCell().storeUint(tonco.TIMELOCK_DELAY_DEFAULT ?? 0n, 64).storeUint(0, 3).endCell())
            .storeUint(0, 64)
            .endCell();
        return this.deployRouter(name, 'dex_c', { code: TONCO.router, data }, 2, this.ptonTonco);
    }

    /** A TONCO pool of `a`/`b` at `sqrtPriceX96` (b per a, in pool order), created by the admin through the
     * router (`ROUTERV3_CREATE_POOL`). */
    async toncoPool(router, a, b, { tickSpacing, lpFee, protocolFee, value }) {
        const wa = await this.routerWallet(router, a);
        const wb = await this.routerWallet(router, b);
        // √price in Q64.96 for the pool's token order: token0 is the wallet whose address cell has the greater
        // hash (the TONCO SDK's `orderJettonId`); the price is token1 units per token0 unit, from the tokens'
        // values `value[sym]` (the checked order is read back from the pool below).
        const h = (x) => BigInt(`0x${beginCell().storeAddress(x).endCell().hash().toString('hex')}`);
        const [s0, s1] = h(wa) > h(wb) ? [a, b] : [b, a];
        const sqrtPriceX96 = BigInt(Math.round(Math.sqrt(value[s0] / value[s1]) * 2 ** 48)) * (1n << 48n);
        const minter = (sym) => (sym === 'TON' ? router.ptonMinter : this.jettons[sym].minter);
        const body = beginCell()
            .storeUint(OP.toncoCreatePool, 32).storeUint(0, 64)
            .storeAddress(wa).storeAddress(wb)
            .storeUint(tickSpacing, 24).storeUint(sqrtPriceX96, 160).storeUint(1, 1)
            .storeUint(protocolFee, 16).storeUint(lpFee, 16).storeUint(lpFee, 16)
            .storeRef(TONCO.nftContent).storeRef(TONCO.nftItemContent)
            .storeRef(beginCell().storeAddress(minter(a)).storeAddress(minter(b)).storeAddress(this.admin.address).endCell())
            .endCell();
        await this.send(this.admin, router.address, toNano('2'), body, { what: `create TONCO pool ${a}/${b}` });
        const address = (await this.get(router.address, 'getPoolAddress', [addrSlice(wa), addrSlice(wb)])).stackReader.readAddress();
        const state = await this.toncoState(address);
        // The pool orders its tokens itself: name them in its order.
        const order = state.jetton0Wallet.equals(wa) ? [a, b] : [b, a];
        if (order[0] !== s0) throw new Error(`TONCO ordered ${a}/${b} as ${order}, not as expected`);
        const pool = { name: `${router.name}:${order[0]}/${order[1]}`, protocol: 'dex_c', router, address, assets: order, fees: { lp: lpFee, protocol: protocolFee }, tickSpacing };
        return this.addPool(pool, [[wa, a], [wb, b]]);
    }

    async toncoState(address) {
        const s = (await this.get(address, 'getPoolStateAndConfiguration')).stackReader;
        const st = {};
        st.router = s.readAddress();
        st.admin = s.readAddress();
        st.controller = s.readAddress();
        st.jetton0Wallet = s.readAddress();
        st.jetton1Wallet = s.readAddress();
        st.jetton0Minter = s.readAddress();
        st.jetton1Minter = s.readAddress();
        st.active = s.readBoolean();
        st.tickSpacing = s.readNumber();
        st.lpFeeBase = s.readNumber();
        st.protocolFee = s.readNumber();
        st.lpFeeCurrent = s.readNumber();
        st.tick = s.readNumber();
        st.sqrtPrice = s.readBigNumber();
        st.liquidity = s.readBigNumber();
        st.feeGrowth0 = s.readBigNumber();
        st.feeGrowth1 = s.readBigNumber();
        st.protocolFee0 = s.readBigNumber();
        st.protocolFee1 = s.readBigNumber();
        st.nftCounter = s.readBigNumber();
        st.reserve0 = s.readBigNumber();
        st.reserve1 = s.readBigNumber();
        return st;
    }

    /** Mints a position of `liquidity` over [tickLower, tickUpper] in `pool` for the liquidity provider: both
     * tokens go to the router with `POOLV3_FUND_ACCOUNT`, the account contract calls the pool's mint when both
     * arrived (what the TONCO SDK's `createMintMessage` sends). Amounts are the exact need rounded up, plus
     * `slack` units the account returns. */
    async toncoMint(pool, tickLower, tickUpper, liquidity) {
        const st = await this.toncoState(pool.address);
        const [a0, a1] = toncoAmounts(st.sqrtPrice, tickLower, tickUpper, liquidity);
        const [w0, w1] = [st.jetton0Wallet, st.jetton1Wallet];
        const request = (other, mine, theirs) => beginCell()
            .storeUint(OP.toncoFundAccount, 32).storeAddress(other).storeCoins(mine).storeCoins(theirs)
            .storeUint(liquidity, 128).storeInt(tickLower, 24).storeInt(tickUpper, 24).endCell();
        const parts = [
            [pool.assets[0], a0, request(w1, a0, a1)],
            [pool.assets[1], a1, request(w0, a1, a0)],
        ];
        for (const [sym, amount, req] of parts) {
            if (amount === 0n) continue;
            await this.sendToRouter(pool.router, sym, amount, req, toNano('0.5'));
        }
        return [a0, a1];
    }
}

const Q96 = 1n << 96n;
const ceilDiv = (a, b) => (a + b - 1n) / b;
export const sqrtAtTick = (t) => BigInt(tonco.TickMath.getSqrtRatioAtTick(t).toString());

/** Token amounts a position of `liquidity` over [lower, upper] needs at `sqrtP` (Uniswap v3 formulas, rounded
 * up). */
export function toncoAmounts(sqrtP, lower, upper, liquidity) {
    const sa = sqrtAtTick(lower);
    const sb = sqrtAtTick(upper);
    const amount0 = (lo, hi) => ceilDiv(ceilDiv(liquidity * Q96 * (hi - lo), hi), lo);
    const amount1 = (lo, hi) => ceilDiv(liquidity * (hi - lo), Q96);
    if (sqrtP <= sa) return [amount0(sa, sb), 0n];
    if (sqrtP >= sb) return [0n, amount1(sa, sb)];
    return [amount0(sqrtP, sb), amount1(sa, sqrtP)];
}

/** The jettons and pools of every world (reserves, prices, fees and positions are drawn from the seed). A
 * pair on several exchanges gives splits; pools of one router sharing an asset give multi-hop and hand-off
 * routes of every kind. TONCO hands over only the token1 it buys: E is token1 of its TON/E pool (the order of
 * the deployed addresses), so C/E on v2a gives a TON offer's `dex_c` → `dex_b_v2` route. */
export const TOPOLOGY = {
    jettons: ['A', 'B', 'C', 'D', 'E'],
    stonfiV1: { v1: [['TON', 'A'], ['A', 'B']] },
    stonfiV2: { v2a: [1, [['TON', 'A'], ['A', 'B'], ['B', 'C'], ['TON', 'C'], ['C', 'E']]], v2b: [2, [['TON', 'A'], ['A', 'B'], ['B', 'D'], ['TON', 'D']]] },
    tonco: { tonco: [['TON', 'A'], ['A', 'B'], ['C', 'D'], ['D', 'E'], ['TON', 'E'], ['B', 'E']] },
};

/** Rough unit prices in TON, so that pools of one pair on different exchanges quote near each other. */
const PRICE = { TON: 1, A: 2, B: 0.5, C: 3, D: 1.5, E: 0.8 };

/** Builds the world of `TOPOLOGY` with amounts and fees drawn from `rng`. */
export async function populate(w) {
    const rng = w.rng;
    for (const s of TOPOLOGY.jettons) {
        await w.deployJetton(s);
        await w.mint(s, w.lp.address, 10n ** 30n);
    }
    // Depth of a pool, in TON value: 2,000 to 200,000 TON, log-uniform.
    const depth = () => 2000 * 100 ** rng.float();
    const units = (sym, ton) => BigInt(Math.round((ton / PRICE[sym]) * 1e6)) * 1000n;
    // The same pair on another exchange sits within a few percent of the first one's price.
    const jitter = () => 1 + (rng.float() - 0.5) * 0.06;
    for (const [name, pairs] of Object.entries(TOPOLOGY.stonfiV1)) {
        const router = await w.deployStonfiV1(name);
        for (const [a, b] of pairs) {
            const d = depth();
            const fees = { lp: rng.int(0, 100), protocol: rng.int(0, 30), ref: rng.int(0, 10) };
            await w.stonfiPool(router, a, b, units(a, d / 2), units(b, (d / 2) * jitter()), fees);
        }
    }
    for (const [name, [id, pairs]] of Object.entries(TOPOLOGY.stonfiV2)) {
        const router = await w.deployStonfiV2(name, id);
        for (const [a, b] of pairs) {
            const d = depth();
            const fees = { lp: rng.int(0, 100), protocol: rng.int(0, 100) };
            await w.stonfiPool(router, a, b, units(a, d / 2), units(b, (d / 2) * jitter()), fees);
        }
    }
    for (const [name, pairs] of Object.entries(TOPOLOGY.tonco)) {
        const router = await w.deployTonco(name);
        for (const [a, b] of pairs) {
            const spacing = rng.pick([1, 10, 60, 200]);
            const lpFee = rng.pick([1, 5, 30, 100]) + rng.int(0, 4);
            const value = { [a]: PRICE[a], [b]: PRICE[b] * jitter() };
            const pool = await w.toncoPool(router, a, b, { tickSpacing: spacing, lpFee, protocolFee: rng.int(0, 50), value });
            await toncoPositions(w, pool, depth());
        }
    }
}

/** Positions of `pool` worth about `depthTon` TON: one wide range (the price may move ±85 %) and several
 * narrower ones around the current tick, so that swaps cross initialized ticks. */
async function toncoPositions(w, pool, depthTon) {
    const rng = w.rng;
    const st = await w.toncoState(pool.address);
    const s = pool.tickSpacing;
    const snap = (t) => Math.round(t / s) * s;
    const ranges = [[snap(st.tick - 40000), snap(st.tick + 40000)]];
    for (let i = 0, n = rng.int(3, 6); i < n; i++) {
        const lo = snap(st.tick - rng.int(1, 60) * Math.max(s, 20));
        const hi = snap(st.tick + rng.int(1, 60) * Math.max(s, 20));
        if (lo < hi) ranges.push([lo, hi]);
    }
    // Liquidity per range so that each holds a share of the depth: L ≈ value1 / (√P − √Pa) in token1 units.
    const [sym0, sym1] = pool.assets;
    for (const [lo, hi] of ranges) {
        const share = depthTon / ranges.length;
        const value1 = BigInt(Math.round((share / 2 / PRICE[sym1]) * 1e6)) * 1000n;
        const sa = sqrtAtTick(lo);
        const sp = st.sqrtPrice;
        const liquidity = sp > sa ? (value1 * (1n << 96n)) / (sp - sa) : 10n ** 12n;
        if (liquidity > 0n) await w.toncoMint(pool, lo, hi, liquidity);
    }
    void sym0;
}

/** Builds a world from `rng`. */
export async function buildWorld(rng) {
    const bc = await Blockchain.create();
    bc.now = T0;
    const libs = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
    for (const c of Object.values(STONFI_V2)) libs.set(BigInt(`0x${c.hash().toString('hex')}`), c);
    bc.libs = beginCell().storeDictDirect(libs).endCell();
    const w = new World(bc, rng);
    w.admin = await bc.treasury('admin', { balance: 1_000_000n * TON });
    w.lp = await bc.treasury('liquidity', { balance: 1_000_000_000n * TON });
    w.protocolFees = await bc.treasury('protocol-fees');
    w.label(w.admin.address, 'admin');
    w.label(w.lp.address, 'liquidity provider');
    w.ptonV1 = await w.deployPton(1, 0);
    w.ptonV2 = await w.deployPton(2, 0);
    w.ptonTonco = await w.deployPton(2, 1);
    // TONCO router flags: bit 0 forwards a swap's `payloads` (ok_forward_amount, ok_forward_payload), bit 1
    // pays their `target_address`; with bit 0 alone the output goes to the recipient with the payload (seen in
    // this emulator). Multi-hop through target_address is what TONCO's own SDK and mainnet traces do.
    w.toncoFlags = BigInt(process.env.TONCO_FLAGS ?? 3);
    return w;
}
