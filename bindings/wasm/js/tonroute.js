// tonroute for JavaScript: the `Router` and `TonrouteError` every entry point exports (browsers and bundlers
// import this file directly and call `init()` once; Node imports `node.js`, which has already initialised the
// module). Objects in and out: a body is serialised with JSON.stringify and the answer parsed with JSON.parse,
// so every field and every message is the one `POST /v4/...` answers (amounts stay decimal strings). The
// module reads no clock: `swap` takes the caller's `nowMs` (default `Date.now()`, read here, in JavaScript).
import initWasm, { Core } from "./tonroute_wasm.js";

/** A `/v4` error: `code` is the stable numeric code of the HTTP API's `{code, message}` body. */
export class TonrouteError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "TonrouteError";
    this.code = code;
  }

  /** The `/v4` error body, `{code, message}`. */
  toJSON() {
    return { code: this.code, message: this.message };
  }
}

// The Rust side throws a failure as the text of its `{code, message}` body; anything else (a trap) is rethrown.
function call(f) {
  try {
    return f();
  } catch (e) {
    if (typeof e === "string" && e.startsWith("{")) {
      const { code, message } = JSON.parse(e);
      throw new TonrouteError(code, message);
    }
    throw e;
  }
}

// A body: its JSON text as given, or an object serialised the way an HTTP client sends it.
function bodyText(body, what) {
  if (typeof body === "string") return body;
  let text;
  try {
    text = JSON.stringify(body);
  } catch (e) {
    throw new TonrouteError(1000, `${what}: cannot be written as JSON: ${e.message}`);
  }
  // `undefined`, a function or a symbol has no JSON text: the server would have received an empty body.
  return text === undefined ? "" : text;
}

function snapshotCore(snapshot) {
  if (typeof snapshot === "string") return Core.fromSnapshotText(snapshot);
  if (snapshot instanceof Uint8Array) return Core.fromSnapshotBytes(snapshot);
  if (snapshot instanceof ArrayBuffer) return Core.fromSnapshotBytes(new Uint8Array(snapshot));
  if (ArrayBuffer.isView(snapshot)) {
    return Core.fromSnapshotBytes(new Uint8Array(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength));
  }
  if (snapshot !== null && typeof snapshot === "object") return Core.fromSnapshotText(bodyText(snapshot, "snapshot"));
  throw new TonrouteError(1000, `snapshot: expected JSON text, an object or bytes, got ${snapshot === null ? "null" : typeof snapshot}`);
}

/** Routing over one snapshot's pools, answering as `POST /v4/router/quote`, `/v4/router/swap` and
 *  `/v4/admin/reserves` do. */
export class Router {
  #core;

  /** Use `Router.fromSnapshot`. */
  constructor(core) {
    if (!(core instanceof Core)) throw new TypeError("use Router.fromSnapshot(snapshot)");
    this.#core = core;
  }

  /** A router over a snapshot in the `data/snapshot.json` format: its JSON text, the parsed object, or the
   *  file's bytes (Uint8Array, Buffer, ArrayBuffer). */
  static fromSnapshot(snapshot) {
    return new Router(call(() => snapshotCore(snapshot)));
  }

  /** `POST /v4/router/quote`. */
  quote(body) {
    return JSON.parse(this.quoteJson(bodyText(body, "body")));
  }

  /** `quote` on JSON text, answering the JSON text the server sends. */
  quoteJson(text) {
    return call(() => this.#core.quote(text));
  }

  /** `POST /v4/router/swap`, received at `nowMs` (Unix time in milliseconds; the answer's `query_id`, and the
   *  messages' deadline 15 minutes on). */
  swap(body, nowMs = Date.now()) {
    return JSON.parse(this.swapJson(bodyText(body, "body"), nowMs));
  }

  /** `swap` on JSON text, answering the JSON text the server sends. */
  swapJson(text, nowMs = Date.now()) {
    if (typeof nowMs !== "number") {
      throw new TonrouteError(1003, `\`nowMs\`: expected Unix time in whole milliseconds (a number), got ${typeof nowMs}`);
    }
    return call(() => this.#core.swap(text, nowMs));
  }

  /** `POST /v4/admin/reserves`: new reserves, or a concentrated pool's state (and tick map); every entry is
   *  checked before any is applied, so a batch with a bad entry changes nothing. */
  updateReserves(batch) {
    return JSON.parse(call(() => this.#core.updateReserves(bodyText(batch, "batch"))));
  }

  /** How many pools the router holds. */
  get poolCount() {
    return this.#core.poolCount();
  }

  /** The assets of the pools, most pools first (`GET /v4/assets`'s `assets`). */
  assets() {
    return JSON.parse(this.#core.assets());
  }

  /** Releases the router's memory now (otherwise the garbage collector does, eventually). */
  free() {
    this.#core.free();
  }
}

/** Loads the WebAssembly module (browsers and bundlers: once, before the first `Router`; `input` is the
 *  `.wasm`'s URL, a Response, bytes or a compiled module, default the file beside this one). Under Node the
 *  module is already loaded and this resolves at once. */
export async function init(input) {
  await initWasm(input === undefined ? undefined : { module_or_path: input });
}

export default init;
