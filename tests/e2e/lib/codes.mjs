// Every contract's code, from the three places the issue names: `@ston-fi/blueprint-utils` (standard jetton
// minter and wallet, pTON v1 and v2), `@toncodex/sdk` (TONCO router, pool, account, position NFT) and `../code/`
// (STON.fi DEX v1 and v2.2 mainnet bytecode, copied from the shared fixtures with its origin).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import Module from 'node:module';
import { Cell } from '@ton/core';
import { ownCell } from './util.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

// See blueprint-stub.cjs: only `@ton/blueprint` is redirected, only while blueprint-utils loads.
const stub = path.join(here, 'blueprint-stub.cjs');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
    return request === '@ton/blueprint' ? stub : resolve.call(this, request, ...rest);
};
// The package's index also loads its graph and test helpers (jest, @ton/test-utils): the wrappers are read
// one by one instead.
const wrappers = '@ston-fi/blueprint-utils/dist/src/wrappers';
const minter = require(`${wrappers}/JettonMinter.js`);
const wallet = require(`${wrappers}/JettonWallet.js`);
const pton = require(`${wrappers}/PTon.js`);
Module._resolveFilename = resolve;

export const tonco = require('@toncodex/sdk');

function cells(file) {
    const d = JSON.parse(readFileSync(path.join(here, '..', 'code', file), 'utf8'));
    const out = {};
    for (const [name, b64] of Object.entries(d.cells)) {
        const c = Cell.fromBase64(b64);
        const want = d.cell_hashes[name];
        if (c.hash().toString('hex') !== want) throw new Error(`${file}: ${name} hash ${c.hash().toString('hex')} != ${want}`);
        out[name] = c;
    }
    return out;
}

export const STONFI_V2 = cells('stonfi-dex-v2.2.json');
export const STONFI_V1 = cells('stonfi-dex-v1.0.json');

export const JETTON_MINTER = minter.DEFAULT_JETTON_MINTER_CODE;
export const JETTON_WALLET = wallet.DEFAULT_JETTON_WALLET_CODE;
export const PTON_V1_MINTER = pton.PTON_MINTER_CODE_v1;
export const PTON_V1_WALLET = pton.PTON_WALLET_CODE_v1;
export const PTON_V2_MINTER = pton.PTON_MINTER_CODE_v2;
export const PTON_V2_WALLET = pton.PTON_WALLET_CODE_v2;
export const { jettonMinterConfigToCell } = minter;
export const { pTonMinterConfigToCellV1, pTonMinterConfigToCellV2 } = pton;

// The TONCO SDK carries its own copy of @ton/core: its cells are re-read into ours.
export const TONCO = {
    router: ownCell(tonco.ROUTERV3_CODE),
    pool: ownCell(tonco.POOLV3_CODE),
    account: ownCell(tonco.ACCOUNTV3_CODE),
    position: ownCell(tonco.POSITIONV3_CODE),
    nftContent: ownCell(tonco.nftContentPackedDefault),
    nftItemContent: ownCell(tonco.nftItemContentPackedDefault),
};
