//! # tonroute-wasm
//!
//! tonroute's `/v4/router/quote`, `/v4/router/swap` and `/v4/admin/reserves` for JavaScript, compiled to
//! WebAssembly: the npm package `tonroute` (built by `scripts/build-wasm.sh` into `bindings/wasm/pkg`).
//!
//! Layout: [`engine`] is the package in plain Rust (a snapshot in, `/v4` JSON text in and out, through
//! [`tonroute::api::Api`]); this file is the thin `wasm-bindgen` surface over it ([`Core`], JSON text in and
//! out, errors thrown as the `{code, message}` JSON text); `js/` holds the JavaScript that users import
//! (`Router`, `TonrouteError`: objects in and out) and `index.d.ts`, the TypeScript types of every request
//! and answer. The module needs no imports from its host: no clock, no randomness, no network (the caller
//! passes `nowMs`).

pub mod engine;

use wasm_bindgen::prelude::*;

pub use engine::Engine;

/// The router the JavaScript `Router` wraps. Every method takes and returns JSON text; a failure is thrown as
/// the text of a `/v4` error body, `{"code": …, "message": "…"}`, which `js/tonroute.js` turns into a
/// `TonrouteError`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Core {
    engine: Engine,
}

fn thrown(e: tonroute::api::ApiError) -> JsValue {
    JsValue::from_str(&e.to_json())
}

#[wasm_bindgen]
impl Core {
    /// A router over a snapshot's JSON text.
    #[wasm_bindgen(js_name = fromSnapshotText)]
    pub fn from_snapshot_text(text: &str) -> Result<Core, JsValue> {
        Engine::from_snapshot_text(text).map(|engine| Core { engine }).map_err(thrown)
    }

    /// A router over a snapshot file's bytes (UTF-8 JSON).
    #[wasm_bindgen(js_name = fromSnapshotBytes)]
    pub fn from_snapshot_bytes(bytes: &[u8]) -> Result<Core, JsValue> {
        Engine::from_snapshot_bytes(bytes).map(|engine| Core { engine }).map_err(thrown)
    }

    /// `POST /v4/router/quote` with this body text; the answer's text.
    pub fn quote(&self, body: &str) -> Result<String, JsValue> {
        self.engine.quote(body).map_err(thrown)
    }

    /// `POST /v4/router/swap` with this body text, received at `now_ms` (Unix milliseconds).
    pub fn swap(&self, body: &str, now_ms: f64) -> Result<String, JsValue> {
        self.engine.swap(body, now_ms).map_err(thrown)
    }

    /// `POST /v4/admin/reserves` with this batch text (all or nothing).
    #[wasm_bindgen(js_name = updateReserves)]
    pub fn update_reserves(&self, batch: &str) -> Result<String, JsValue> {
        self.engine.update_reserves(batch).map_err(thrown)
    }

    /// How many pools the graph holds.
    #[wasm_bindgen(js_name = poolCount)]
    pub fn pool_count(&self) -> u32 {
        // A graph holds at most 2^32 − 1 pools (GraphError::TooLarge past that).
        u32::try_from(self.engine.pool_count()).unwrap_or(u32::MAX)
    }

    /// The graph's assets (`GET /v4/assets`'s `assets`), as JSON text.
    pub fn assets(&self) -> String {
        self.engine.assets()
    }
}
