// tonroute under Node: the WebAssembly module is compiled and instantiated synchronously at import (from the
// `.wasm` beside this file), so `Router` is usable at once; `init()` is exported for code shared with browsers.
import { readFileSync } from "node:fs";
import { initSync } from "./tonroute_wasm.js";

initSync({ module: readFileSync(new URL("./tonroute_wasm_bg.wasm", import.meta.url)) });

export { Router, TonrouteError, init } from "./tonroute.js";
export { default } from "./tonroute.js";
