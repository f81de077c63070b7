#!/usr/bin/env node
// Extra swap-message cases for tonroute's tests (same schema as cases.json). Deterministic.
// Synthetic addresses are 0:sha256(label), as in gen-cases.cjs.
"use strict";
const crypto = require("crypto");
const { Address, beginCell } = require("@ton/core");
const raw = (label) => "0:" + crypto.createHash("sha256").update(label).digest("hex");
const fr = (label, opts = {}) => Address.parseRaw(raw(label)).toString({ bounceable: true, urlSafe: true, ...opts });

const USER = fr("user-wallet", { bounceable: false });
const USER2 = raw("receiver-wallet");
const REFUND = fr("refund-wallet");
const EXCESS = fr("excess-wallet");
const REF = fr("referrer");
const HOLE = "0:" + "0".repeat(64);
const Q = "1700000000123";
const DL = 1767225600;
const STON_V2_ROUTER = fr("stonfi-v2-router");
const STON_V2_PTON = fr("stonfi-v2-pton-minter");
const V2_PTON_W = fr("ston-v2-router-pton-wallet");
const V2 = (t) => fr("ston-v2-router-" + t + "-wallet");
const cases = [];
const add = (c) => cases.push(c);
const T = (x) => String(BigInt(Math.round(x * 1000)) * 1000000n); // TON -> nanoton string

// ---- dex_a (DeDust): 1..4 hops, both inputs; gas given explicitly = tonroute's default table ----
const DD_VAULT_TON = fr("dedust-vault-native");
const DD_VAULT_USDT = fr("dedust-vault-USDT");
const P = (l) => fr("dedust-pool-" + l);
add({ id: "x-dedust-native-3hop", dex: "dedust", kind: "native_to_any", vault: DD_VAULT_TON, pool: P("TON-USDT"),
  offer_amount: "7000000000", limit: "0", hops: [{ pool: P("USDT-SCALE"), limit: "0" }, { pool: P("SCALE-NOT"), limit: "123456789012" }],
  deadline: DL, referral: REF, gas_amount: T(0.4), query_id: Q });
add({ id: "x-dedust-native-3hop-recipient", dex: "dedust", kind: "native_to_any", vault: DD_VAULT_TON, pool: P("TON-USDT"),
  offer_amount: "1", limit: "0", hops: [{ pool: P("USDT-SCALE"), limit: "0" }, { pool: P("SCALE-NOT"), limit: "1" }],
  recipient: USER2, gas_amount: T(0.4), query_id: "0" });
add({ id: "x-dedust-native-1hop-all-params", dex: "dedust", kind: "native_to_any", vault: DD_VAULT_TON, pool: P("TON-USDT"),
  offer_amount: "123456789", limit: "98765", deadline: 4294967295, recipient: USER2, referral: REF, query_id: "18446744073709551615" });
add({ id: "x-dedust-jetton-3hop-to-ton", dex: "dedust", kind: "jetton_to_any", vault: DD_VAULT_USDT, pool: P("USDT-SCALE"),
  user: USER, offer_jetton_wallet: fr("user-USDT-wallet"), offer_amount: "25000000", limit: "0",
  hops: [{ pool: P("SCALE-NOT"), limit: "0" }, { pool: P("NOT-TON"), limit: "777000000" }],
  deadline: DL, recipient: USER2, gas_amount: T(0.5), forward_gas_amount: T(0.45), query_id: Q });
add({ id: "x-dedust-jetton-2hop", dex: "dedust", kind: "jetton_to_any", vault: DD_VAULT_USDT, pool: P("USDT-SCALE"),
  user: USER, offer_jetton_wallet: fr("user-USDT-wallet"), offer_amount: "25000000", limit: "0",
  hops: [{ pool: P("SCALE-NOT"), limit: "31415926535" }], referral: REF, gas_amount: T(0.4), forward_gas_amount: T(0.35), query_id: "42" });
add({ id: "x-dedust-jetton-4hop", dex: "dedust", kind: "jetton_to_any", vault: DD_VAULT_USDT, pool: P("USDT-SCALE"),
  user: USER, offer_jetton_wallet: fr("user-USDT-wallet"), offer_amount: "1329227995784915872903807060280344575", limit: "0",
  hops: [{ pool: P("SCALE-NOT"), limit: "0" }, { pool: P("NOT-TON"), limit: "0" }, { pool: P("TON-USDT"), limit: "1329227995784915872903807060280344575" }],
  deadline: DL, referral: REF, recipient: USER2, gas_amount: T(0.6), forward_gas_amount: T(0.55), query_id: Q });
add({ id: "x-dedust-jetton-1hop-defaults", dex: "dedust", kind: "jetton_to_any", vault: fr("dedust-vault-NOT"), pool: P("NOT-TON"),
  user: USER, offer_jetton_wallet: fr("user-NOT-wallet"), offer_amount: "5", limit: "1", query_id: "0" });

// ---- dex_b_v2 (STON.fi v2): referral and 2/3 hops for each direction, refund/excesses ----
const v2 = (c) => add({ dex: "stonfi", version: "v2_2", router: STON_V2_ROUTER, proxy_ton: STON_V2_PTON, user: USER, query_id: Q, deadline: DL, ...c });
v2({ id: "x-ston-v2-j2j-2hop-referral", kind: "jetton_to_jetton", offer_amount: "2500000", min_out: "0",
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: V2("STON"), hops: [{ ask_jetton_wallet: V2("NOT"), min_out: "555555" }],
  referral: REF, referral_value: 50, gas_amount: T(0.5), forward_gas_amount: T(0.44) });
v2({ id: "x-ston-v2-j2j-3hop-referral", kind: "jetton_to_jetton", offer_amount: "2500000", min_out: "0",
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: V2("STON"),
  hops: [{ ask_jetton_wallet: V2("NOT"), min_out: "0" }, { ask_jetton_wallet: V2("SCALE"), min_out: "999999999999" }],
  referral: REF, referral_value: 100, gas_amount: T(0.7), forward_gas_amount: T(0.64) });
v2({ id: "x-ston-v2-j2t-2hop-referral", kind: "jetton_to_ton", offer_amount: "2500000", min_out: "0",
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: V2("STON"), hops: [{ ask_jetton_wallet: V2_PTON_W, min_out: "3000000000" }],
  referral: REF, referral_value: 1, gas_amount: T(0.5), forward_gas_amount: T(0.44) });
v2({ id: "x-ston-v2-j2t-3hop-referral-receiver", kind: "jetton_to_ton", offer_amount: "2500000", min_out: "0",
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: V2("STON"),
  hops: [{ ask_jetton_wallet: V2("NOT"), min_out: "0" }, { ask_jetton_wallet: V2_PTON_W, min_out: "3000000000" }],
  referral: REF, referral_value: 25, receiver: USER2, gas_amount: T(0.7), forward_gas_amount: T(0.64) });
v2({ id: "x-ston-v2-t2j-2hop-referral", kind: "ton_to_jetton", offer_amount: "10000000000", min_out: "0",
  offer_jetton_wallet: V2_PTON_W, ask_jetton_wallet: V2("USDT"), hops: [{ ask_jetton_wallet: V2("STON"), min_out: "424242" }],
  referral: REF, referral_value: 30, forward_gas_amount: T(0.5) });
v2({ id: "x-ston-v2-t2j-3hop-referral", kind: "ton_to_jetton", offer_amount: "10000000000", min_out: "0",
  offer_jetton_wallet: V2_PTON_W, ask_jetton_wallet: V2("USDT"),
  hops: [{ ask_jetton_wallet: V2("STON"), min_out: "0" }, { ask_jetton_wallet: V2("NOT"), min_out: "424242" }],
  referral: REF, referral_value: 0, forward_gas_amount: T(0.7) });
v2({ id: "x-ston-v2-t2j-refund-excesses", kind: "ton_to_jetton", offer_amount: "3000000000", min_out: "7000000",
  offer_jetton_wallet: V2_PTON_W, ask_jetton_wallet: V2("USDT"), refund: REFUND, excesses: EXCESS, receiver: USER2, query_id: "0" });
v2({ id: "x-ston-v2-j2j-refund-only", kind: "jetton_to_jetton", offer_amount: "2500000", min_out: "900000000",
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: V2("STON"), refund: REFUND });
v2({ id: "x-ston-v2-j2t-2hop-refund-excesses", kind: "jetton_to_ton", offer_amount: "2500000", min_out: "0",
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: V2("STON"), hops: [{ ask_jetton_wallet: V2_PTON_W, min_out: "1" }],
  refund: REFUND, excesses: EXCESS, gas_amount: T(0.5), forward_gas_amount: T(0.44) });
v2({ id: "x-ston-v2-j2j-hole-referral", kind: "jetton_to_jetton", offer_amount: "2500000", min_out: "900000000",
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: V2("STON"), referral: HOLE, referral_value: 20 });
v2({ id: "x-ston-v2_1-j2j-2hop-receiver", version: "v2_1", kind: "jetton_to_jetton", offer_amount: "2500000", min_out: "0",
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: V2("STON"), hops: [{ ask_jetton_wallet: V2("NOT"), min_out: "8" }],
  receiver: USER2, gas_amount: T(0.5), forward_gas_amount: T(0.44), deadline: 4102444800 });

// ---- dex_b_v1 (STON.fi v1) ----
const v1 = (c) => add({ dex: "stonfi", version: "v1", user: USER, query_id: Q, ...c });
v1({ id: "x-ston-v1-j2t-referral", kind: "jetton_to_ton", offer_amount: "10000000", min_out: "2000000000", referral: REF,
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: fr("ston-v1-router-pton-wallet") });
v1({ id: "x-ston-v1-t2j-referral", kind: "ton_to_jetton", offer_amount: "1000000000", min_out: "12345678", referral: REF,
  offer_jetton_wallet: fr("ston-v1-router-pton-wallet"), ask_jetton_wallet: fr("ston-v1-router-USDT-wallet"), query_id: "0" });
v1({ id: "x-ston-v1-j2j-hole-referral", kind: "jetton_to_jetton", offer_amount: "2500000", min_out: "900000000", referral: HOLE,
  offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: fr("ston-v1-router-STON-wallet") });
v1({ id: "x-ston-v1-j2j-custom-router-gas", kind: "jetton_to_jetton", router: fr("ston-v1-other-router"), offer_amount: "2500000",
  min_out: "1", offer_jetton_wallet: fr("user-USDT-wallet"), ask_jetton_wallet: fr("ston-v1-router-STON-wallet"),
  gas_amount: T(0.3), forward_gas_amount: T(0.25) });

// ---- dex_c (TONCO): three directions with recipient / other price limits ----
const MIN_SQRT_P1 = "4295128740";
const MAX_SQRT_M1 = "1461446703485210103287273052203988822378723970341";
add({ id: "x-tonco-ton-to-jetton-recipient", dex: "tonco", kind: "ton_to_jetton", user: USER, recipient: USER2,
  ask_jetton_wallet: fr("tonco-router-STON-wallet"), offer_amount: "2500000000", min_out: "1", price_limit_sqrt: MAX_SQRT_M1, query_id: "2147483647" });
add({ id: "x-tonco-jetton-to-ton-recipient", dex: "tonco", kind: "jetton_to_ton", user: USER, recipient: USER2,
  offer_jetton_wallet: fr("user-NOT-wallet"), ask_jetton_wallet: "EQCHHakhWxSQIWbw6ioW21YnjVKBCDd_gVjF9Mz9_dIuFy23",
  offer_amount: "123456789123456789", min_out: "5000000000", price_limit_sqrt: MIN_SQRT_P1, query_id: "0" });
add({ id: "x-tonco-jetton-to-jetton-zero-limit", dex: "tonco", kind: "jetton_to_jetton", user: USER,
  offer_jetton_wallet: fr("user-NOT-wallet"), ask_jetton_wallet: fr("tonco-router-USDT-wallet"),
  offer_amount: "1", min_out: "0", price_limit_sqrt: "0", query_id: "0" });
add({ id: "x-tonco-jetton-to-jetton-fee-override", dex: "tonco", kind: "jetton_to_jetton", user: USER,
  offer_jetton_wallet: fr("user-NOT-wallet"), ask_jetton_wallet: fr("tonco-router-USDT-wallet"),
  offer_amount: "1000", min_out: "999", price_limit_sqrt: "79228162514264337593543950336", tx_fee: T(0.5), forward_gas: T(0.3), query_id: "0" });

// ---- TEP-74 with payloads ----
const fwd = beginCell().storeUint(0, 32).storeStringTail("tonroute").endCell().toBoc().toString("base64");
const cust = beginCell().storeUint(0xdeadbeef, 32).storeRef(beginCell().storeUint(7, 8).endCell()).endCell().toBoc().toString("base64");
add({ id: "x-tep74-forward-payload", dex: "tep74", offer_jetton_wallet: fr("user-USDT-wallet"), gas_amount: "60000000",
  offer_amount: "1000000", destination: USER2, response_destination: USER, forward_gas_amount: "10000000", forward_payload: fwd, query_id: Q });
add({ id: "x-tep74-custom-and-forward", dex: "tep74", offer_jetton_wallet: fr("user-USDT-wallet"), gas_amount: "60000000",
  offer_amount: "1", destination: USER2, response_destination: USER, forward_gas_amount: "0", custom_payload: cust, forward_payload: fwd, query_id: "0" });

process.stdout.write(JSON.stringify({
  note: "Extra inputs for oracle.cjs (tonroute tests/data/msg-oracle-extra, generated by gen-extra.cjs). Wallets pre-resolved; query_id and deadline fixed.",
  cases,
}, null, 2) + "\n");
