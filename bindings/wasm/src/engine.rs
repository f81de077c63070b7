//! The package's operations over one graph in plain Rust (no JavaScript types, so `cargo test` runs them
//! natively): a snapshot in, then `/v4` request bodies in and `/v4` answers or `{code, message}` errors out,
//! all through [`tonroute::api::Api`], the handler the binary and the server use, so the wire is theirs byte
//! for byte (gas and network fees included: the same `Router` and `GasTable` defaults).
//!
//! Owns the snapshot's entry (text or bytes) and the one error mapping of a snapshot that does not load; the
//! caller's clock (`now_ms`) and its validation. Must not parse, validate or route anything the API does.

use std::sync::Arc;

use tonroute::api::{Api, ApiError, ErrorCode, SwapClock};
use tonroute::graph::{GraphError, PoolGraph};

/// The largest `now_ms` a caller may pass: JavaScript's largest exact integer, 2^53 − 1 (the answer's
/// `query_id` is `now_ms`, and JavaScript must read it back exactly).
pub const MAX_NOW_MS: f64 = 9_007_199_254_740_991.0;

/// A router over one snapshot's graph, answering the `/v4` operations.
#[derive(Debug, Clone)]
pub struct Engine {
    api: Api,
}

impl Engine {
    /// A router over the snapshot `text` (the `data/snapshot.json` format).
    pub fn from_snapshot_text(text: &str) -> Result<Engine, ApiError> {
        let graph = PoolGraph::from_json(text).map_err(snapshot_error)?;
        // The router takes reserve updates, never new pools: without a pool it could only refuse every asset
        // (the CLI refuses such a snapshot at load too).
        if graph.pool_count() == 0 {
            return Err(ApiError::new(
                ErrorCode::MalformedJson,
                "snapshot: it has no pool, so no quote can be made on it; give a snapshot with pools",
            ));
        }
        Ok(Engine { api: Api::new(Arc::new(graph)) })
    }

    /// [`Self::from_snapshot_text`] for the file's bytes, which must be UTF-8.
    pub fn from_snapshot_bytes(bytes: &[u8]) -> Result<Engine, ApiError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ApiError::new(ErrorCode::MalformedJson, format!("snapshot: not UTF-8 text: {e}")))?;
        Engine::from_snapshot_text(text)
    }

    /// `POST /v4/router/quote`: the answer's JSON text.
    pub fn quote(&self, body: &str) -> Result<String, ApiError> {
        self.api.quote(body.as_bytes()).map(|answer| to_json(&answer))
    }

    /// `POST /v4/router/swap` received at `now_ms` (Unix time in milliseconds, the caller's clock): the query
    /// id is `now_ms` and the deadline 15 minutes on, as the server derives them from its own clock.
    pub fn swap(&self, body: &str, now_ms: f64) -> Result<String, ApiError> {
        let clock = SwapClock::at(checked_now_ms(now_ms)?);
        self.api.swap(body.as_bytes(), clock).map(|answer| to_json(&answer))
    }

    /// `POST /v4/admin/reserves`: every entry is checked before any is applied (a bad batch changes
    /// nothing). Reserves for every curve but `concentrated`; `sqrt_price_x96`, `tick`, `liquidity` and
    /// optionally `ticks` for a concentrated pool.
    pub fn update_reserves(&self, body: &str) -> Result<String, ApiError> {
        self.api.update_reserves(body.as_bytes()).map(|answer| to_json(&answer))
    }

    /// How many pools the graph holds.
    pub fn pool_count(&self) -> usize {
        self.api.graph().pool_count()
    }

    /// The assets of the graph, most pools first: the `assets` array of `GET /v4/assets`, as JSON text.
    pub fn assets(&self) -> String {
        to_json(&tonroute::api::convert::asset_list(&self.api.graph()).assets)
    }
}

/// The wire's JSON of an answer. The answer types are plain data (strings, integers, finite floats, vectors
/// of those), which serde_json always serialises.
fn to_json(answer: &impl serde::Serialize) -> String {
    serde_json::to_string(answer)
        .unwrap_or_else(|e| ApiError::new(ErrorCode::Internal, format!("cannot serialise the answer: {e}")).to_json())
}

/// `now_ms` as the server's clock would give it: a whole number of milliseconds, 0 ≤ now_ms ≤ 2^53 − 1.
fn checked_now_ms(now_ms: f64) -> Result<u64, ApiError> {
    if (0.0..=MAX_NOW_MS).contains(&now_ms) && now_ms.fract() == 0.0 {
        // Checked just above: a whole number in 0..=2^53 − 1 (NaN is in no range), which u64 holds exactly.
        return Ok(now_ms as u64);
    }
    Err(ApiError::new(
        ErrorCode::WrongType,
        format!("`nowMs`: expected Unix time in whole milliseconds (0 ≤ nowMs ≤ 2^53 − 1), got {now_ms}"),
    ))
}

/// The `/v4` code of a snapshot that does not load (the message names the pool and field).
fn snapshot_error(e: GraphError) -> ApiError {
    let kind = match &e {
        GraphError::Json(_) => ErrorCode::MalformedJson,
        GraphError::BadAsset { .. } => ErrorCode::BadAsset,
        GraphError::ReserveTooLarge { .. } => ErrorCode::AmountTooLarge,
        GraphError::UnknownAsset { .. } => ErrorCode::UnknownAsset,
        GraphError::SameAssets { .. } => ErrorCode::SameAsset,
        // Duplicates, bad fields, curves the protocol does not run, unusable wallet data, too many pools: an
        // entry the graph cannot take.
        _ => ErrorCode::BadPoolState,
    };
    let message = e.to_string();
    let message = if message.starts_with("snapshot: ") { message } else { format!("snapshot: {message}") };
    ApiError::new(kind, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAPSHOT: &str = include_str!("../../../data/snapshot.json");
    const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
    const SENDER: &str = "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p";

    fn code(r: Result<impl std::fmt::Debug, ApiError>) -> (i32, String) {
        let e = r.expect_err("an error");
        (e.code(), e.message().to_string())
    }

    #[test]
    fn answers_are_the_apis_text() {
        let engine = Engine::from_snapshot_text(SNAPSHOT).unwrap();
        let api = Api::new(Arc::new(PoolGraph::from_json(SNAPSHOT).unwrap()));
        let body = format!(r#"{{"in_minter": "native", "out_minter": "{USDT}", "amount": "100000000000"}}"#);
        let quote = engine.quote(&body).unwrap();
        assert_eq!(quote, serde_json::to_string(&api.quote(body.as_bytes()).unwrap()).unwrap());

        let value: serde_json::Value = serde_json::from_str(&quote).unwrap();
        let swap = format!(r#"{{"sender_address": "{SENDER}", "swap_data": {}}}"#, value["swap_data"]);
        let now = 1_767_225_600_123_u64;
        let answer = engine.swap(&swap, now as f64).unwrap();
        let want = api.swap(swap.as_bytes(), SwapClock::at(now)).unwrap();
        assert_eq!(answer, serde_json::to_string(&want).unwrap());
        assert_eq!(want.query_id, now);
        assert_eq!(engine.pool_count(), api.graph().pool_count());
    }

    #[test]
    fn bytes_and_text_load_the_same_graph_and_bad_snapshots_get_codes() {
        let a = Engine::from_snapshot_bytes(SNAPSHOT.as_bytes()).unwrap();
        assert_eq!(a.pool_count(), Engine::from_snapshot_text(SNAPSHOT).unwrap().pool_count());
        assert_eq!(code(Engine::from_snapshot_bytes(b"{\"assets\": [\xff]}")).0, 1000);
        let (c, m) = code(Engine::from_snapshot_text("{"));
        assert_eq!(c, 1000);
        assert!(m.starts_with("snapshot: "), "{m}");
        let (c, m) = code(Engine::from_snapshot_text(r#"{"assets": [], "pools": [{"address": "0:11"}]}"#));
        assert_eq!(c, 1000, "{m}");
        let pool = format!(
            r#"{{"address": "0:{}", "protocol": "dex_b_v2", "curve": "constant_product",
                "assets": ["native", "{USDT}"], "reserves": ["1", "2"], "lp_fee": 20}}"#,
            "11".repeat(32)
        );
        let unknown =
            format!(r#"{{"assets": [{{"asset": "native", "symbol": "TON", "decimals": 9}}], "pools": [{pool}]}}"#);
        let (c, m) = code(Engine::from_snapshot_text(&unknown));
        assert_eq!(c, 2001, "{m}");
        assert!(m.contains(USDT), "{m}");
        let (c, m) = code(Engine::from_snapshot_text(r#"{"assets": [], "pools": []}"#));
        assert_eq!(c, 1000, "{m}");
        assert!(m.starts_with("snapshot: it has no pool"), "{m}");
    }

    #[test]
    fn now_ms_must_be_a_safe_whole_number() {
        let engine = Engine::from_snapshot_text(SNAPSHOT).unwrap();
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1.5, MAX_NOW_MS + 2.0] {
            let (c, m) = code(engine.swap("{}", bad));
            assert_eq!(c, 1003, "{bad}: {m}");
            assert!(m.starts_with("`nowMs`"), "{m}");
        }
        // A good clock reaches the body's own validation.
        assert_eq!(code(engine.swap("{}", MAX_NOW_MS)).0, 1002);
        assert_eq!(code(engine.swap("{}", 0.0)).0, 1002);
    }
}
