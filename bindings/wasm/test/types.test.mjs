// The package's TypeScript types (index.d.ts) against the server's OpenAPI document (`GET /openapi.json` of
// `tonroute serve`): every schema the router operations take or answer (quote, swap, admin reserves, assets,
// the error body, and every schema they reference) has a declaration of the same name; an interface has the
// schema's properties, the same ones optional, each with the same type (string, number, boolean, null, a
// named schema, an array, a pair, an enumeration); and `Router`'s methods take and return the operations' own
// request and response schemas.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { before, test } from "node:test";

import { API_SNAPSHOT, PKG, startServer } from "../support/helpers.mjs";

let doc;
before(async () => {
  const server = await startServer(API_SNAPSHOT);
  try {
    const r = await server.get("/openapi.json");
    assert.equal(r.status, 200, r.text);
    doc = JSON.parse(r.text);
  } finally {
    server.stop();
  }
});

// --- index.d.ts, read with the small grammar it is written in
const source = fs.readFileSync(path.join(PKG, "index.d.ts"), "utf8")
  .replace(/\/\*[\s\S]*?\*\//g, "")
  .replace(/\/\/.*$/gm, "");
const aliases = new Map(); // name -> type text
const interfaces = new Map(); // name -> Map(property -> {optional, type})
for (const m of source.matchAll(/export type (\w+) = ([^;]+);/g)) aliases.set(m[1], m[2].trim());
for (const m of source.matchAll(/export interface (\w+) \{([^}]*)\}/g)) {
  const props = new Map();
  for (const p of m[2].matchAll(/(\w+)(\?)?: ([^;]+);/g)) props.set(p[1], { optional: p[2] === "?", type: p[3].trim() });
  interfaces.set(m[1], props);
}
const declared = (name) => aliases.has(name) || interfaces.has(name);

/** A TypeScript type as a sorted list of alternatives in the comparison's words. */
function tsType(text) {
  const parts = [];
  let depth = 0, start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "[") depth++;
    else if (text[i] === "]") depth--;
    else if (text[i] === "|" && depth === 0) { parts.push(text.slice(start, i)); start = i + 1; }
  }
  parts.push(text.slice(start));
  const one = (t) => {
    t = t.trim();
    if (t.endsWith("[]")) return `array(${tsType(t.slice(0, -2)).join("|")})`;
    const pair = /^\[(\w+), (\w+)\]$/.exec(t);
    if (pair) {
      assert.equal(pair[1], pair[2], t);
      return `pair(${tsType(pair[1]).join("|")})`;
    }
    if (["string", "number", "boolean", "null"].includes(t)) return t;
    assert.ok(declared(t), `index.d.ts uses ${t} without declaring it`);
    return `ref:${t}`;
  };
  return [...new Set(parts.map(one))].sort();
}

/** An OpenAPI schema as a sorted list of alternatives in the same words. */
function apiType(schema) {
  if (schema.$ref) return [`ref:${schema.$ref.split("/").pop()}`];
  const alts = schema.oneOf || schema.anyOf;
  if (alts) return [...new Set(alts.flatMap(apiType))].sort();
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return [...new Set(types.map((t) => {
    if (t === "integer" || t === "number") return "number";
    if (t === "array") {
      const items = apiType(schema.items);
      return schema.minItems === 2 && schema.maxItems === 2 ? `pair(${items.join("|")})` : `array(${items.join("|")})`;
    }
    assert.ok(["string", "boolean", "null"].includes(t), `schema type ${JSON.stringify(schema)}`);
    return t;
  }))].sort();
}

/** The component schemas the router operations use, and every one those reference. */
function routerSchemas() {
  const names = new Set(["ErrorBody"]);
  const visit = (node) => {
    if (node && typeof node === "object") {
      if (typeof node.$ref === "string") {
        const name = node.$ref.split("/").pop();
        if (!names.has(name)) { names.add(name); visit(doc.components.schemas[name]); }
      }
      for (const v of Object.values(node)) visit(v);
    }
  };
  for (const [route, method] of [["/v4/router/quote", "post"], ["/v4/router/swap", "post"],
    ["/v4/admin/reserves", "post"], ["/v4/assets", "get"]]) {
    const op = doc.paths[route][method];
    visit(op.requestBody);
    visit(op.responses["200"]);
  }
  visit(doc.components.schemas.ErrorBody);
  return [...names].sort();
}

/** The `$ref` name of an operation's request body and of its 200 answer (an array's items for the batch). */
function operationSchemas(route, method) {
  const op = doc.paths[route][method];
  const name = (content) => {
    const schema = content["application/json"].schema;
    return schema.$ref ? schema.$ref.split("/").pop() : `${schema.items.$ref.split("/").pop()}[]`;
  };
  return { request: op.requestBody && name(op.requestBody.content), response: name(op.responses["200"].content) };
}

test("every schema of the router operations is declared, with the same fields and types", () => {
  const names = routerSchemas();
  assert.ok(names.length >= 15, names.join(", "));
  const problems = [];
  for (const name of names) {
    const schema = doc.components.schemas[name];
    if (!declared(name)) { problems.push(`${name}: not declared in index.d.ts`); continue; }
    if (schema.type === "object" || schema.properties) {
      const props = interfaces.get(name);
      if (!props) { problems.push(`${name}: an object schema, declared as \`type\``); continue; }
      const want = Object.keys(schema.properties).sort();
      const got = [...props.keys()].sort();
      if (want.join() !== got.join()) problems.push(`${name}: fields ${got} vs the schema's ${want}`);
      const required = new Set(schema.required || []);
      for (const [field, p] of props) {
        if (!schema.properties[field]) continue;
        if (p.optional === required.has(field)) problems.push(`${name}.${field}: optional ${p.optional}, required ${required.has(field)}`);
        // A pair (`[LargeInteger, LargeInteger]`, the wire's `[_; 2]`) stands for an array of the same items where
        // the document gives no length (utoipa writes fixed-size arrays as plain arrays).
        const want = apiType(schema.properties[field]);
        const a = tsType(p.type).map((t) => (want.includes(t) ? t : t.replace(/^pair\(/, "array("))).sort().join(" | ");
        const b = want.join(" | ");
        if (a !== b) problems.push(`${name}.${field}: ${a} vs the schema's ${b}`);
      }
    } else {
      const text = aliases.get(name);
      if (!text) { problems.push(`${name}: a value schema, declared as an interface`); continue; }
      const literals = [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]);
      if (schema.enum) {
        if (literals.sort().join() !== [...schema.enum].sort().join()) problems.push(`${name}: ${literals} vs the schema's enum ${schema.enum}`);
      } else if (text !== "string" || schema.type !== "string") {
        problems.push(`${name}: ${text} vs the schema's ${schema.type}`);
      }
    }
  }
  console.log(`# types: ${names.length} schemas checked: ${names.join(", ")}`);
  assert.deepEqual(problems, []);
});

test("Router's methods take and return the operations' schemas", () => {
  const router = /export declare class Router \{([\s\S]*?)\n\}/.exec(source)[1];
  const signature = (method) => {
    const m = new RegExp(`\\n\\s*${method}\\(([^)]*)\\): ([^;]+);`).exec(router);
    assert.ok(m, `Router.${method} is not declared`);
    return { params: m[1], returns: m[2].trim() };
  };
  const quote = operationSchemas("/v4/router/quote", "post");
  assert.match(signature("quote").params, new RegExp(`^body: ${quote.request} \\| string$`));
  assert.equal(signature("quote").returns, quote.response);
  const swap = operationSchemas("/v4/router/swap", "post");
  assert.match(signature("swap").params, new RegExp(`^body: ${swap.request} \\| string, nowMs\\?: number$`));
  assert.equal(signature("swap").returns, swap.response);
  const reserves = operationSchemas("/v4/admin/reserves", "post");
  assert.equal(reserves.request, "ReserveUpdate[]");
  assert.match(signature("updateReserves").params, /^batch: ReserveUpdate\[\] \| string$/);
  assert.equal(signature("updateReserves").returns, reserves.response);
  const assets = operationSchemas("/v4/assets", "get");
  assert.equal(assets.response, "AssetsResponse");
  const entry = doc.components.schemas.AssetsResponse.properties.assets.items.$ref.split("/").pop();
  assert.equal(signature("assets").returns, `${entry}[]`);
  assert.match(router, /readonly poolCount: number;/);
});
