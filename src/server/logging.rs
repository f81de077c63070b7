//! Request logs and request ids, on `tracing`.
//!
//! Owns the `x-request-id` of every request (the client's, when it sends a usable one, else a fresh one; echoed
//! on the response and kept in the request's extensions as [`RequestId`]), the one log line per request
//! (target `tonroute::request`, level info: method, path, status, latency in microseconds, request id), the
//! span every event of a request is recorded in (so an audit line written by a handler carries the id). The
//! subscriber that writes the lines is the binary's (`src/bin/tonroute/logs.rs`): the library only emits events.
//! Must not log bodies, query strings or headers other than the request id: they may carry tokens or
//! addresses an operator does not want in the logs.

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

/// The header a request id travels in, both ways.
pub static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Longest client request id echoed; a longer or non-printable one is replaced by a fresh id.
pub const MAX_REQUEST_ID_LEN: usize = 128;

/// A request's id, in the request's extensions for handlers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestId(pub HeaderValue);

/// Fresh request ids: a random 64-bit prefix per server and a counter, as 32 hex digits. Unique within a
/// process without coordination, and across restarts with overwhelming probability.
#[derive(Debug)]
pub struct RequestIds {
    prefix: u64,
    next: AtomicU64,
}

impl RequestIds {
    /// A generator with a random prefix (std's per-process random hash keys; no clock involved).
    pub fn new() -> RequestIds {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0);
        RequestIds { prefix: h.finish(), next: AtomicU64::new(0) }
    }

    fn fresh(&self) -> HeaderValue {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        // Written in place (no formatter, no intermediate String): this runs for every request.
        let mut text = [0u8; 32];
        for (i, digit) in text.iter_mut().enumerate() {
            let word = if i < 16 { self.prefix } else { n };
            *digit = HEX[((word >> (4 * (15 - i % 16))) & 0xf) as usize];
        }
        // 32 hex digits are visible ASCII: always a valid header value.
        HeaderValue::from_bytes(&text).unwrap_or(HeaderValue::from_static("0"))
    }
}

impl Default for RequestIds {
    fn default() -> RequestIds {
        RequestIds::new()
    }
}

/// A client's id is kept when it is short, non-empty, visible ASCII (no spaces or controls that could forge
/// log lines).
fn usable(v: &HeaderValue) -> bool {
    let b = v.as_bytes();
    !b.is_empty() && b.len() <= MAX_REQUEST_ID_LEN && b.iter().all(|c| c.is_ascii_graphic())
}

/// Middleware: request id in, request id out, one log line per request.
pub(crate) async fn log_request(State(ids): State<Arc<RequestIds>>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = match request.headers().get(&REQUEST_ID) {
        Some(v) if usable(v) => v.clone(),
        _ => ids.fresh(),
    };
    request.extensions_mut().insert(RequestId(id.clone()));
    let method = request.method().clone();
    // A `Uri` clone shares the request head's buffer: no copy of the path.
    let uri = request.uri().clone();
    let path = uri.path();
    // Only valid UTF-8 per `usable` or our own hex: `to_str` cannot fail on either.
    let id_text = id.to_str().unwrap_or("-");
    let span = tracing::info_span!("request", request_id = %id_text);
    let mut response = next.run(request).instrument(span).await;
    let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    tracing::info!(
        target: "tonroute::request",
        method = %method,
        path = %path,
        status = response.status().as_u16(),
        latency_us,
        request_id = %id_text,
        "request"
    );
    response.headers_mut().insert(REQUEST_ID.clone(), id.clone());
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_ids_are_kept_only_when_safe_to_log() {
        assert!(usable(&HeaderValue::from_static("abc-123_XYZ.7")));
        assert!(!usable(&HeaderValue::from_static("")));
        assert!(!usable(&HeaderValue::from_static("two words")));
        assert!(!usable(&HeaderValue::from_str(&"a".repeat(MAX_REQUEST_ID_LEN + 1)).unwrap()));
        assert!(usable(&HeaderValue::from_str(&"a".repeat(MAX_REQUEST_ID_LEN)).unwrap()));
    }

    #[test]
    fn fresh_ids_differ() {
        let ids = RequestIds::new();
        let (a, b) = (ids.fresh(), ids.fresh());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        // The prefix, then the counter, each as 16 lower-case hex digits (what `{:016x}` writes).
        assert_eq!(a.to_str().unwrap(), format!("{:016x}{:016x}", ids.prefix, 0));
        assert_eq!(b.to_str().unwrap(), format!("{:016x}{:016x}", ids.prefix, 1));
    }
}
