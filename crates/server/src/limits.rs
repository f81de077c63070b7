//! The edge of every request, before a handler runs: the optional per-client rate limit (429), admin
//! authentication for `/v4/admin/*`, the JSON content type of every POST (415), and the request body read
//! within its size limit (413) and time limit (408).
//!
//! Owns those checks and their order — the rate limit first (cheapest, and it protects the rest),
//! authenticate before reading anything, then the media type, then the body — so a handler receives a body
//! already in memory and within the limit. Must not parse bodies.
//!
//! Rate limit (`--rate-limit N/s`): a token bucket per client IP ([`super::logging::ClientIp`]: the TCP peer,
//! or with `--client-ip-header` the address the trusted proxy names), N tokens a second, a burst of N;
//! `/health` is not limited. Over the limit: 429
//! [`ErrorCode::RateLimited`] with `Retry-After` (whole seconds until a token is back, at least 1).
//!
//! Oversized bodies: a client that waits for `100 Continue` gets 413 at once. One that sends its body
//! without waiting (Python's urllib, curl under 1 KiB) would see its connection reset if the server
//! answered and closed while the body was still arriving: the kernel resets a socket closed with unread
//! data. So the rest of the body is read and thrown away, up to [`Limits::drain_bytes`], before the 413
//! goes out with `Connection: close`; a body beyond even that is answered at once (bounded work per
//! connection beats an answer to a client sending megabytes to a 64 KiB route).

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt;

use super::logging::ClientIp;
use super::{error_response, AppState};
use tonroute_api::MAX_BODY_BYTES;
use tonroute_api::{ApiError, ErrorCode};
use tonroute_core::token_bucket::TokenBucket;

/// A per-client request rate: `N/s`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    /// Requests a second (also the burst).
    pub per_second: u32,
}

impl std::str::FromStr for RateLimit {
    type Err = String;

    /// `N/s` with N ≥ 1 (`20/s`); a bare `N` means the same.
    fn from_str(text: &str) -> Result<RateLimit, String> {
        let n = text.trim().strip_suffix("/s").unwrap_or(text.trim());
        match n.parse::<u32>() {
            Ok(per_second @ 1..) => Ok(RateLimit { per_second }),
            _ => Err(format!("`{text}` is not a rate: write N/s with N a whole number ≥ 1 (e.g. 20/s)")),
        }
    }
}

/// Token buckets per client IP.
pub(super) struct RateLimiter {
    limit: RateLimit,
    buckets: Mutex<HashMap<IpAddr, TokenBucket>>,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter").field("limit", &self.limit).finish()
    }
}

/// Buckets kept before idle ones are dropped (a full bucket is the same as none).
const MAX_BUCKETS: usize = 100_000;

impl RateLimiter {
    pub(super) fn new(limit: RateLimit) -> RateLimiter {
        RateLimiter { limit, buckets: Mutex::new(HashMap::new()) }
    }

    /// Takes a token for `ip` at `now`, or says how long until one is back.
    fn take(&self, ip: IpAddr, now: Instant) -> Result<(), Duration> {
        let rate = f64::from(self.limit.per_second);
        // A poisoned lock only means another request panicked mid-update; a bucket is still a bucket.
        let mut buckets = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if buckets.len() >= MAX_BUCKETS {
            let full = Duration::from_secs(1);
            buckets.retain(|_, b| now.duration_since(b.last_seen()) < full);
        }
        buckets.entry(ip).or_insert_with(|| TokenBucket::full(rate, rate, now)).take(now)
    }
}

/// Request limits at the edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Largest accepted request body, bytes.
    pub max_body_bytes: usize,
    /// How much of an oversized body is read and discarded before answering 413 (see the module doc).
    pub drain_bytes: usize,
    /// Longest the whole request body may take to arrive (`--body-timeout-ms`); then 408 and close.
    pub body_timeout: Duration,
    /// Per-client request rate (`--rate-limit`); `None` = unlimited.
    pub rate_limit: Option<RateLimit>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_body_bytes: MAX_BODY_BYTES,
            drain_bytes: 1024 * 1024,
            body_timeout: Duration::from_secs(10),
            rate_limit: None,
        }
    }
}

fn closing(e: &ApiError) -> Response {
    let mut r = error_response(e);
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// Whether the request says its body is JSON (`application/json`, parameters such as `charset` allowed).
fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

fn too_large(limit: usize) -> ApiError {
    ApiError::new(ErrorCode::BodyTooLarge, format!("request body exceeds the limit of {limit} bytes"))
}

enum BodyError {
    TooLarge,
    Broken(String),
}

/// Reads `body` whole if it fits `limits.max_body_bytes`; past the limit, reads on and discards up to
/// `limits.drain_bytes` in all.
async fn read_bounded(body: Body, limits: Limits) -> Result<Bytes, BodyError> {
    let mut body = body;
    let mut kept = Vec::new();
    let mut total = 0usize;
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| BodyError::Broken(e.to_string()))?;
        let Ok(data) = frame.into_data() else { continue };
        total = total.saturating_add(data.len());
        if total <= limits.max_body_bytes {
            kept.extend_from_slice(&data);
        } else if total > limits.drain_bytes {
            return Err(BodyError::TooLarge);
        }
    }
    if total > limits.max_body_bytes {
        return Err(BodyError::TooLarge);
    }
    Ok(Bytes::from(kept))
}

/// The edge middleware (see the module doc).
pub(super) async fn edge(State(state): State<Arc<AppState>>, mut req: Request, next: Next) -> Response {
    let ip = req
        .extensions()
        .get::<ClientIp>()
        .map(|c| c.0)
        .or_else(|| req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip()));
    if let (Some(limiter), Some(ip)) = (&state.limiter, ip) {
        if req.uri().path() != "/health" {
            if let Err(wait) = limiter.take(ip, Instant::now()) {
                let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
                let mut r = error_response(&ApiError::new(
                    ErrorCode::RateLimited,
                    format!("more than {} requests a second from this client; retry later", limiter.limit.per_second),
                ));
                r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
                return r;
            }
        }
    }
    if req.uri().path().starts_with("/v4/admin/") {
        match state.config.admin.admit(req.headers(), ip) {
            Ok(name) => {
                req.extensions_mut().insert(name);
            }
            Err(e) => return error_response(&e),
        }
    }
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    if !is_json(req.headers()) {
        return error_response(&ApiError::new(
            ErrorCode::UnsupportedMediaType,
            "send the body as JSON with `Content-Type: application/json`",
        ));
    }
    let limits = state.config.limits;
    let declared = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if let Some(length) = declared.filter(|n| *n > limits.max_body_bytes as u64) {
        let waits = req.headers().get(header::EXPECT).is_some();
        // A client waiting for `100 Continue` never sends the body; one too large to drain is not read.
        if waits || length > limits.drain_bytes as u64 {
            return closing(&too_large(limits.max_body_bytes));
        }
    }
    let (parts, body) = req.into_parts();
    let bytes = match tokio::time::timeout(limits.body_timeout, read_bounded(body, limits)).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(BodyError::TooLarge)) => return closing(&too_large(limits.max_body_bytes)),
        Ok(Err(BodyError::Broken(reason))) => {
            return closing(&ApiError::new(
                ErrorCode::MalformedJson,
                format!("the request body could not be read: {reason}"),
            ))
        }
        Err(_) => {
            return closing(&ApiError::new(
                ErrorCode::BodyTimeout,
                format!(
                    "the request body did not arrive within {} ms (is it shorter than its Content-Length?)",
                    limits.body_timeout.as_millis()
                ),
            ))
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_and_buckets_refill() {
        assert_eq!("20/s".parse::<RateLimit>(), Ok(RateLimit { per_second: 20 }));
        assert_eq!("3".parse::<RateLimit>(), Ok(RateLimit { per_second: 3 }));
        for bad in ["0/s", "-1/s", "1.5/s", "x", "", "5/m"] {
            assert!(bad.parse::<RateLimit>().is_err(), "{bad:?}");
        }
        let limiter = RateLimiter::new(RateLimit { per_second: 2 });
        let (a, b) = (IpAddr::from([127, 0, 0, 1]), IpAddr::from([127, 0, 0, 2]));
        let t0 = Instant::now();
        assert!(limiter.take(a, t0).is_ok() && limiter.take(a, t0).is_ok());
        let wait = limiter.take(a, t0).unwrap_err();
        assert_eq!(wait, Duration::from_millis(500), "one token comes back every 1/2 s");
        assert!(limiter.take(b, t0).is_ok(), "another client has its own bucket");
        assert!(limiter.take(a, t0 + Duration::from_millis(500)).is_ok());
        assert!(limiter.take(a, t0 + Duration::from_millis(500)).is_err());
        // A long pause refills to the burst, no more.
        let later = t0 + Duration::from_secs(60);
        assert!(limiter.take(a, later).is_ok() && limiter.take(a, later).is_ok() && limiter.take(a, later).is_err());
    }
}
