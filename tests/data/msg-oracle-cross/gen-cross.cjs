#!/usr/bin/env node
// Cross-exchange hand-off vectors for tonroute's tests (tests/data/msg-oracle-cross), built by the exchanges'
// own SDKs, offline: STON.fi v2 swaps whose `receiver` is another exchange's entry contract with that
// exchange's payload as `dexCustomPayload` (STON.fi's documented "chain swaps on different v2 routers"), the
// inner payloads from STON.fi's `createSwapBody` and TONCO's own message builder, and DeDust jetton-vault
// swaps with `recipientAddress` + `fulfillPayload`. Deterministic. Run from a copy of shared/msg-oracle after
// `npm install`: `node gen-cross.cjs > outputs.json`.
"use strict";
const crypto = require("crypto");
const path = require("path");
const { Address, Cell, openContract } = require("@ton/core");
const ston = require("@ston-fi/sdk");
const dedust = require("@dedust/sdk");
const tonco = require("@toncodex/sdk");
const toncoCore = require(require.resolve("@ton/core", { paths: [path.dirname(require.resolve("@toncodex/sdk"))] }));

const raw = (label) => "0:" + crypto.createHash("sha256").update(label).digest("hex");
const fr = (label) => Address.parseRaw(raw(label)).toString({ bounceable: true, urlSafe: true });

const USER = fr("cross user wallet");
const ROUTER_A = fr("cross v2 router A");
const ROUTER_B = fr("cross v2 router B");
const PTON_MINTER = fr("cross v2 pton minter");
const A_PTON = fr("cross v2 router A pton wallet");
const B_PTON = fr("cross v2 router B pton wallet");
const A_W = (t) => fr("cross v2 router A wallet " + t);
const B_W = (t) => fr("cross v2 router B wallet " + t);
const USER_W = (t) => fr("cross user wallet " + t);
// TONCO's router and pTON router wallet are hard-coded in its SDK (mainnet).
const TONCO_ROUTER = "EQC_-t0nCnOFMdp7E7qPxAOCbCWGFz-e3pwxb6tTvFmshjt5";
const TONCO_PTON = "EQCHHakhWxSQIWbw6ioW21YnjVKBCDd_gVjF9Mz9_dIuFy23";
const TONCO_W = (t) => fr("cross tonco router wallet " + t);
const DD_VAULT = (t) => fr("cross dedust vault " + t);
const DD_POOL = (t) => fr("cross dedust pool " + t);
const DL = 1767225600;
const Q = 1700000000123n;
const MAX_SQRT_M1 = 1461446703485210103287273052203988822378723970341n;
const MIN_SQRT_P1 = 4295128740n;

function offlineProvider() {
  const p = {
    captured: null,
    open(contract) { return openContract(contract, () => p); },
    async get(name) { throw new Error(`offline: get-method '${name}'`); },
    async getState() { throw new Error("offline: getState"); },
    async external() { throw new Error("offline: external"); },
    async internal(_via, args) { p.captured = args; },
    async getTransactions() { throw new Error("offline"); },
  };
  return p;
}
const out = (id, inputs, to, value, body) => ({
  id,
  inputs,
  to: Address.parse(to.toString()).toRawString(),
  value: BigInt(value).toString(),
  payload: body.toBoc().toString("base64"),
  payload_hash: body.hash().toString("hex"),
});
const b64 = (c) => c.toBoc().toString("base64");

// TONCO's own single-hop request cell, taken from the forward payload its SDK builds (no payloads cell).
function toncoRequest(ask, minOut, limit) {
  const m = tonco.PoolMessageManager.createSwapExactInMessage(
    toncoCore.Address.parse(USER_W("NOT")), toncoCore.Address.parse(ask), toncoCore.Address.parse(USER),
    1000n, minOut, limit, tonco.SwapType.JETTON_TO_JETTON);
  const body = Cell.fromBoc(m.body.toBoc())[0];
  const s = body.beginParse();
  s.loadUint(32); s.loadUintBig(64); s.loadCoins(); s.loadAddress(); s.loadAddress(); s.loadMaybeRef(); s.loadCoins();
  if (!s.loadBit()) throw new Error("TONCO forward payload not in a ref");
  return s.loadRef();
}

(async () => {
  const A = ston.DEX.v2_2.Router.CPI.create(ROUTER_A);
  const B = ston.DEX.v2_2.Router.CPI.create(ROUTER_B);
  const pton = ston.pTON.v2_1.create(PTON_MINTER);
  const results = [];

  // B's swap body (NOT -> XJ), final: receiver = user, no forward.
  const bSwapJ = await B.createSwapBody({
    askJettonWalletAddress: B_W("XJ"), receiverAddress: USER, minAskAmount: 123456789n, refundAddress: USER,
    excessesAddress: USER, deadline: DL,
  });
  // B's swap body taking TON (TON -> YJ).
  const bSwapT = await B.createSwapBody({
    askJettonWalletAddress: B_W("YJ"), receiverAddress: USER, minAskAmount: 987654321n, refundAddress: USER,
    excessesAddress: USER, deadline: DL,
  });
  const pA = offlineProvider();

  // 1. v2 A (USDT -> NOT) hands NOT to router B: receiver = B, custom payload = B's swap.
  let tx = await A.getSwapJettonToJettonTxParams(pA, {
    userWalletAddress: USER, offerJettonAddress: USER_W("USDT"), offerJettonWalletAddress: USER_W("USDT"),
    askJettonAddress: A_W("NOT"), askJettonWalletAddress: A_W("NOT"), offerAmount: 25000000n, minAskAmount: 0n,
    receiverAddress: ROUTER_B, refundAddress: USER, excessesAddress: USER, deadline: DL, queryId: Q,
    dexCustomPayload: bSwapJ, dexCustomPayloadForwardGasAmount: 264000000n,
    gasAmount: 590000000n, forwardGasAmount: 530000000n,
  });
  results.push(out("cross-v2-v2-jetton", { inner: b64(bSwapJ) }, tx.to, tx.value, tx.body));

  // 2. v2 A (USDT -> TON) hands TON to router B through B's pTON wallet.
  tx = await A.getSwapJettonToTonTxParams(pA, {
    userWalletAddress: USER, offerJettonAddress: USER_W("USDT"), offerJettonWalletAddress: USER_W("USDT"),
    proxyTon: pton, askJettonWalletAddress: A_PTON, offerAmount: 25000000n, minAskAmount: 0n,
    receiverAddress: B_PTON, refundAddress: USER, excessesAddress: USER, deadline: DL, queryId: Q,
    dexCustomPayload: bSwapT, dexCustomPayloadForwardGasAmount: 289000000n,
    gasAmount: 615000000n, forwardGasAmount: 555000000n,
  });
  results.push(out("cross-v2-v2-ton", { inner: b64(bSwapT) }, tx.to, tx.value, tx.body));

  // 3. v2 A (TON -> USDT) hands USD₮ to TONCO (USDT -> NOT): receiver = TONCO router, payload = TONCO's request.
  const tUsdtNot = toncoRequest(TONCO_W("NOT"), 555n, MIN_SQRT_P1);
  tx = await A.getSwapTonToJettonTxParams(pA, {
    userWalletAddress: USER, proxyTon: pton, offerJettonWalletAddress: A_PTON, askJettonAddress: A_W("USDT"),
    askJettonWalletAddress: A_W("USDT"), offerAmount: 3000000000n, minAskAmount: 0n,
    receiverAddress: TONCO_ROUTER, refundAddress: USER, excessesAddress: USER, deadline: DL, queryId: Q,
    dexCustomPayload: tUsdtNot, dexCustomPayloadForwardGasAmount: 500000000n, forwardGasAmount: 729000000n,
  });
  results.push(out("cross-v2-tonco-jetton", { inner: b64(tUsdtNot) }, tx.to, tx.value, tx.body));

  // 4. v2 A (USDT -> TON) hands TON to TONCO's pTON wallet (TON -> NOT on TONCO).
  const tTonNot = toncoRequest(TONCO_W("NOT"), 777n, MAX_SQRT_M1);
  tx = await A.getSwapJettonToTonTxParams(pA, {
    userWalletAddress: USER, offerJettonAddress: USER_W("USDT"), offerJettonWalletAddress: USER_W("USDT"),
    proxyTon: pton, askJettonWalletAddress: A_PTON, offerAmount: 25000000n, minAskAmount: 0n,
    receiverAddress: TONCO_PTON, refundAddress: USER, excessesAddress: USER, deadline: DL, queryId: Q,
    dexCustomPayload: tTonNot, dexCustomPayloadForwardGasAmount: 525000000n,
    gasAmount: 851000000n, forwardGasAmount: 791000000n,
  });
  results.push(out("cross-v2-tonco-ton", { inner: b64(tTonNot) }, tx.to, tx.value, tx.body));

  // 5. DeDust (TON -> USDT) hands USD₮ to v2 router A: recipient = A, fulfill payload = A's swap (USDT -> NOT).
  const aSwap = await A.createSwapBody({
    askJettonWalletAddress: A_W("NOT"), receiverAddress: USER, minAskAmount: 4242n, refundAddress: USER,
    excessesAddress: USER, deadline: DL,
  });
  const pD = offlineProvider();
  const nativeVault = dedust.VaultNative.createFromAddress(Address.parse(DD_VAULT("TON")));
  await nativeVault.sendSwap(pD, null, {
    queryId: Q, amount: 2000000000n, poolAddress: Address.parse(DD_POOL("TON-USDT")), limit: 0n,
    swapParams: { deadline: DL, recipientAddress: Address.parse(ROUTER_A), fulfillPayload: aSwap },
    gasAmount: 409000000n,
  });
  results.push(out("cross-dedust-v2-native", { inner: b64(aSwap) }, nativeVault.address, pD.captured.value, pD.captured.body));

  // 6. DeDust (NOT -> USDT, jetton in) hands USD₮ to TONCO (USDT -> TON... the request only).
  const tUsdtTon = toncoRequest(TONCO_PTON, 31337n, MIN_SQRT_P1);
  const fwdPayload = dedust.VaultJetton.createSwapPayload({
    poolAddress: Address.parse(DD_POOL("NOT-USDT")), limit: 0n,
    swapParams: { deadline: DL, recipientAddress: Address.parse(TONCO_ROUTER), fulfillPayload: tUsdtTon },
  });
  const wallet = dedust.JettonWallet.createFromAddress(Address.parse(USER_W("NOT")));
  const pW = offlineProvider();
  await wallet.sendTransfer(pW, null, 680000000n, {
    queryId: Q, amount: 5000000000n, destination: Address.parse(DD_VAULT("NOT")), responseAddress: Address.parse(USER),
    forwardAmount: 630000000n, forwardPayload: fwdPayload,
  });
  results.push(out("cross-dedust-tonco-jetton", { inner: b64(tUsdtTon) }, wallet.address, pW.captured.value, pW.captured.body));

  process.stdout.write(JSON.stringify({
    note: "Cross-exchange hand-off messages built offline by @ston-fi/sdk 2.7.0, @dedust/sdk 0.8.7 and @toncodex/sdk 1.0.26 (gen-cross.cjs). Addresses are 0:sha256(label) of the labels in gen-cross.cjs, TONCO's are its SDK's mainnet router and pTON wallet.",
    addresses: { USER, ROUTER_A, ROUTER_B, A_PTON, B_PTON, TONCO_ROUTER, TONCO_PTON,
      A_W_NOT: A_W("NOT"), A_W_USDT: A_W("USDT"), B_W_XJ: B_W("XJ"), B_W_YJ: B_W("YJ"), TONCO_W_NOT: TONCO_W("NOT"),
      USER_W_USDT: USER_W("USDT"), USER_W_NOT: USER_W("NOT"), DD_VAULT_TON: DD_VAULT("TON"), DD_VAULT_NOT: DD_VAULT("NOT"),
      DD_POOL_TON_USDT: DD_POOL("TON-USDT"), DD_POOL_NOT_USDT: DD_POOL("NOT-USDT") },
    results,
  }, null, 2) + "\n");
})().catch((e) => { console.error(e); process.exit(1); });
