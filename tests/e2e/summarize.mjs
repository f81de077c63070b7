#!/usr/bin/env node
// Several reports of run.mjs together, as the tables of BENCHMARKS.md "TON per route kind":
//
//   node tests/e2e/summarize.mjs REPORT.json...
import { readFileSync } from 'node:fs';
import { summarize } from './lib/report.mjs';

const files = process.argv.slice(2);
if (!files.length) {
    console.error('usage: summarize.mjs REPORT.json...');
    process.exit(2);
}
const reports = files.map((f) => JSON.parse(readFileSync(f, 'utf8')));
const records = reports.flatMap((r) => r.records);
const s = summarize(records);
const ton = (v) => (Number(v) / 1e9).toFixed(3);
const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`;

console.log(`${s.executed} routes on seeds ${reports.map((r) => r.seed).join(', ')} (${s.skipped} not quotable):`
    + ` exact ${pct(s.exact, s.executed)}, conserved ${pct(s.conserved, s.executed)}\n`);
console.log('| route kind | routes | attached (min) | consumed p50 | consumed p99 | network fee p50 | attached / p99 | fee / p50 |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const [kind, k] of Object.entries(s.kinds)) {
    console.log(`| ${kind} | ${k.routes} | ${ton(k.attached_min)} | ${ton(k.consumed_p50)} | ${ton(k.consumed_p99)} | ${ton(k.network_fee_p50)}`
        + ` | ${k.attached_over_p99.toFixed(2)} | ${k.network_fee_over_p50.toFixed(3)} |`);
}
console.log('\n| route kind | price moved past the slippage | too little TON | deadline passed |');
console.log('|---|---|---|---|');
const outcomes = (o) => Object.entries(o ?? {}).sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
for (const [kind, k] of Object.entries(s.kinds)) {
    console.log(`| ${kind} | ${outcomes(k.failures.price_move)} | ${outcomes(k.failures.low_ton)} | ${outcomes(k.failures.deadline)} |`);
}
