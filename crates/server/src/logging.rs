//! Request logs, request ids and client addresses, on `tracing`.
//!
//! Owns the `x-request-id` of every request (the client's, when it sends a usable one, else a fresh one; echoed
//! on the response and kept in the request's extensions as [`RequestId`]), the client's IP ([`ClientIp`]: the
//! TCP peer, or the address a configured trusted proxy header names, `--client-ip-header`), the one log line
//! per request (target `tonroute::request`, level info: method, path, status, latency in microseconds, request
//! id, client IP), the span every event of a request is recorded in (so an audit line written by a handler
//! carries the id), and [`Throttle`], the rate limit of repeated warnings (refusals, evictions, accept
//! failures). The subscriber that writes the lines is the binary's (`src/bin/tonroute/logs.rs`): the library
//! only emits events. Must not log bodies, query strings or headers other than the request id: they may carry
//! tokens or addresses an operator does not want in the logs.

use std::hash::{BuildHasher, Hasher};
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
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

/// The client's IP as the logs and the rate limit see it (in the request's extensions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

/// The client's IP: with `trusted` (a header a proxy in front of every request sets, e.g. `x-forwarded-for`
/// or `x-real-ip`), the last address that header lists (the one the proxy itself added; earlier ones are the
/// client's word), when it is an IP (or `IP:port`); otherwise the TCP peer's.
pub fn client_ip(headers: &HeaderMap, peer: Option<IpAddr>, trusted: Option<&HeaderName>) -> Option<IpAddr> {
    let named = trusted
        .and_then(|name| headers.get_all(name).iter().next_back())
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .map(str::trim)
        .and_then(|last| last.parse::<IpAddr>().ok().or_else(|| last.parse::<SocketAddr>().ok().map(|a| a.ip())));
    named.or(peer)
}

/// At most one line a second for a kind of repeated warning, with the number of those not logged since.
#[derive(Debug, Default)]
pub struct Throttle {
    last: Mutex<Option<Instant>>,
    suppressed: AtomicU64,
}

impl Throttle {
    /// `Some(n)` when a line may be written now (`n` events were not logged since the last one); `None`
    /// when this one is only counted.
    pub fn pass(&self) -> Option<u64> {
        let now = Instant::now();
        // A poisoned lock only means a logger panicked; the time in it is still a time.
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|t| now.duration_since(t) < Duration::from_secs(1)) {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        *last = Some(now);
        Some(self.suppressed.swap(0, Ordering::Relaxed))
    }
}

/// What the log middleware needs: the request id generator and the trusted proxy header, if any.
#[derive(Debug, Default)]
pub struct LogConfig {
    /// Fresh request ids.
    pub ids: RequestIds,
    /// `--client-ip-header`.
    pub client_ip_header: Option<HeaderName>,
}

/// A client's id is kept when it is short, non-empty, visible ASCII (no spaces or controls that could forge
/// log lines).
fn usable(v: &HeaderValue) -> bool {
    let b = v.as_bytes();
    !b.is_empty() && b.len() <= MAX_REQUEST_ID_LEN && b.iter().all(|c| c.is_ascii_graphic())
}

/// Middleware: request id in, request id out, one log line per request.
pub(crate) async fn log_request(State(config): State<Arc<LogConfig>>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = match request.headers().get(&REQUEST_ID) {
        Some(v) if usable(v) => v.clone(),
        _ => config.ids.fresh(),
    };
    request.extensions_mut().insert(RequestId(id.clone()));
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let ip = client_ip(request.headers(), peer, config.client_ip_header.as_ref());
    if let Some(ip) = ip {
        request.extensions_mut().insert(ClientIp(ip));
    }
    let ip_text = ip.map_or_else(|| "-".to_string(), |ip| ip.to_string());
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
        client_ip = %ip_text,
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
    fn the_client_ip_comes_from_the_trusted_header_only() {
        let peer = Some(IpAddr::from([10, 0, 0, 1]));
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", HeaderValue::from_static("203.0.113.9, 198.51.100.7"));
        h.insert("x-real-ip", HeaderValue::from_static("[2001:db8::1]:443"));
        let xff = HeaderName::from_static("x-forwarded-for");
        // Not configured: the header is the client's word, the peer is the truth.
        assert_eq!(client_ip(&h, peer, None), peer);
        // Configured: the last entry, the one the proxy appended.
        assert_eq!(client_ip(&h, peer, Some(&xff)), Some(IpAddr::from([198, 51, 100, 7])));
        assert_eq!(
            client_ip(&h, peer, Some(&HeaderName::from_static("x-real-ip"))),
            Some("2001:db8::1".parse().unwrap())
        );
        // Missing or not an address: the peer.
        assert_eq!(client_ip(&h, peer, Some(&HeaderName::from_static("x-client"))), peer);
        h.insert("x-forwarded-for", HeaderValue::from_static("unknown"));
        assert_eq!(client_ip(&h, peer, Some(&xff)), peer);
    }

    #[test]
    fn a_throttle_passes_one_line_a_second_and_counts_the_rest() {
        let t = Throttle::default();
        assert_eq!(t.pass(), Some(0));
        assert_eq!(t.pass(), None);
        assert_eq!(t.pass(), None);
        *t.last.lock().unwrap() = Some(Instant::now() - Duration::from_secs(2));
        assert_eq!(t.pass(), Some(2));
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
