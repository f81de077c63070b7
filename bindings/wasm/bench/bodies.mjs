// Writes N seeded random `/v4/router/quote` bodies over a snapshot's assets (the node tests' generator,
// support/helpers.mjs `randomQuotes`) as a JSON array, for bench/times.mjs and examples/api_times.rs.
//
//   node bindings/wasm/bench/bodies.mjs SNAPSHOT N SEED > bodies.json
import fs from "node:fs";

import { loadPackage, randomQuotes } from "../support/helpers.mjs";

const [snapshot, n, seed] = process.argv.slice(2);
if (!snapshot || !n || !seed) throw new Error("usage: bodies.mjs SNAPSHOT N SEED");
const { Router } = await loadPackage();
const router = Router.fromSnapshot(fs.readFileSync(snapshot));
process.stdout.write(JSON.stringify(randomQuotes(router.assets(), Number(n), Number(seed))) + "\n");
