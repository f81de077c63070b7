//! The one HTTP client of `sync`: a token bucket shared by every request to a host group, retries with
//! exponential backoff and full jitter, `Retry-After` honoured on 429 (and 503), a timeout per attempt, and
//! request counts per endpoint.
//!
//! What is retried: 429, 5xx, timeouts, connection errors and a body cut off while it was read. What is not:
//! any other status and a body that arrived whole but is not JSON (the same request would get the same
//! answer; the caller keeps its last good state and tries again at the next refresh). A 429's `Retry-After`
//! pauses the whole bucket, not just the request that got it: the limit is the server's, for all of them.
//! The toncenter API key travels in the `X-API-Key` header only, never in a URL, a log line or an error.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};
use reqwest::StatusCode;
use serde_json::Value;
use tokio::time::Instant;

use super::config::{ApiKey, Limits};
use tonroute_core::token_bucket::TokenBucket;

/// What a request was for, to count requests per endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Endpoint {
    /// STON.fi `/v1/pools`.
    DexBPools,
    /// STON.fi `/v1/routers`.
    DexBRouters,
    /// STON.fi `/v1/assets`.
    DexBAssets,
    /// DeDust `/v2/pools`.
    DexAPools,
    /// TONCO indexer (GraphQL) pools.
    DexCPools,
    /// toncenter `/api/v3/runGetMethod`.
    RunGetMethod,
    /// toncenter `/api/v3/accountStates`.
    AccountStates,
    /// toncenter `/api/v3/masterchainInfo`.
    MasterchainInfo,
    /// toncenter `/api/v3/transactionsByMasterchainBlock`.
    BlockTransactions,
    /// toncenter `/api/v3/jetton/wallets` (a tracked wallet's jetton balances).
    JettonWallets,
}

impl Endpoint {
    /// Every endpoint, in report order.
    pub const ALL: [Endpoint; 10] = [
        Endpoint::DexBPools,
        Endpoint::DexBRouters,
        Endpoint::DexBAssets,
        Endpoint::DexAPools,
        Endpoint::DexCPools,
        Endpoint::RunGetMethod,
        Endpoint::AccountStates,
        Endpoint::MasterchainInfo,
        Endpoint::BlockTransactions,
        Endpoint::JettonWallets,
    ];

    /// Whether it is an exchange's pool list (not its routers or assets, not toncenter).
    pub fn is_pool_list(self) -> bool {
        matches!(self, Endpoint::DexBPools | Endpoint::DexAPools | Endpoint::DexCPools)
    }

    /// Its name in reports (`stonfi /v1/pools`, `toncenter runGetMethod`, …).
    pub fn name(self) -> &'static str {
        match self {
            Endpoint::DexBPools => "stonfi /v1/pools",
            Endpoint::DexBRouters => "stonfi /v1/routers",
            Endpoint::DexBAssets => "stonfi /v1/assets",
            Endpoint::DexAPools => "dedust /v2/pools",
            Endpoint::DexCPools => "tonco indexer pools",
            Endpoint::RunGetMethod => "toncenter runGetMethod",
            Endpoint::AccountStates => "toncenter accountStates",
            Endpoint::MasterchainInfo => "toncenter masterchainInfo",
            Endpoint::BlockTransactions => "toncenter transactionsByMasterchainBlock",
            Endpoint::JettonWallets => "toncenter jetton/wallets",
        }
    }

    fn index(self) -> usize {
        Endpoint::ALL.iter().position(|e| *e == self).unwrap_or(0)
    }
}

/// Requests of one endpoint.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EndpointCount {
    /// Requests sent (first attempts and retries).
    pub sent: u64,
    /// Of those, retries.
    pub retries: u64,
    /// Calls that failed after their last attempt (or on a non-retried error).
    pub failed: u64,
}

#[derive(Debug, Default)]
struct Counter {
    sent: AtomicU64,
    retries: AtomicU64,
    failed: AtomicU64,
}

/// Request counters per endpoint, shared by clones of a [`Http`].
#[derive(Debug, Default)]
pub struct Counters([Counter; Endpoint::ALL.len()]);

impl Counters {
    /// The counts so far, endpoints with no request left out.
    pub fn snapshot(&self) -> BTreeMap<Endpoint, EndpointCount> {
        Endpoint::ALL
            .iter()
            .map(|e| {
                let c = &self.0[e.index()];
                let count = EndpointCount {
                    sent: c.sent.load(Ordering::Relaxed),
                    retries: c.retries.load(Ordering::Relaxed),
                    failed: c.failed.load(Ordering::Relaxed),
                };
                (*e, count)
            })
            .filter(|(_, c)| c.sent > 0 || c.failed > 0)
            .collect()
    }
}

/// Why a call failed (after its retries, where it had any).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FetchError {
    /// Every attempt failed with a retryable error; the last one is kept.
    #[error("{endpoint}: gave up after {attempts} attempts; last: {last}")]
    GaveUp {
        /// The endpoint's name.
        endpoint: &'static str,
        /// Attempts made.
        attempts: u32,
        /// The last attempt's failure.
        #[source]
        last: Box<FetchError>,
    },
    /// A status that is not retried (400, 404, …).
    #[error("{endpoint}: HTTP {status}")]
    Status {
        /// The endpoint's name.
        endpoint: &'static str,
        /// The status.
        status: u16,
    },
    /// Too many requests (429) or unavailable (503), with the server's wait when it gave one.
    #[error("{endpoint}: HTTP {status} (retry after {retry_after:?})")]
    Throttled {
        /// The endpoint's name.
        endpoint: &'static str,
        /// The status.
        status: u16,
        /// The server's `Retry-After`.
        retry_after: Option<Duration>,
    },
    /// A server error (5xx other than 503).
    #[error("{endpoint}: HTTP {status} (server error)")]
    Server {
        /// The endpoint's name.
        endpoint: &'static str,
        /// The status.
        status: u16,
    },
    /// No answer within the timeout.
    #[error("{endpoint}: no answer within {timeout:?}")]
    Timeout {
        /// The endpoint's name.
        endpoint: &'static str,
        /// The timeout.
        timeout: Duration,
    },
    /// The connection failed or the body was cut off.
    #[error("{endpoint}: {source}")]
    Transport {
        /// The endpoint's name.
        endpoint: &'static str,
        /// The client's error.
        #[source]
        source: reqwest::Error,
    },
    /// The body arrived whole but is not JSON.
    #[error("{endpoint}: the answer is not JSON: {source}")]
    Json {
        /// The endpoint's name.
        endpoint: &'static str,
        /// The parser's error.
        #[source]
        source: serde_json::Error,
    },
}

impl FetchError {
    fn retryable(&self) -> bool {
        matches!(
            self,
            FetchError::Throttled { .. }
                | FetchError::Server { .. }
                | FetchError::Timeout { .. }
                | FetchError::Transport { .. }
        )
    }
}

/// The client's gate: a [`TokenBucket`] (`rate` requests per second on average, bursts of up to `burst`) shared
/// by every request, and a pause everybody waits out after a 429's `Retry-After`.
#[derive(Debug)]
pub struct Throttle {
    state: Mutex<ThrottleState>,
}

#[derive(Debug)]
struct ThrottleState {
    bucket: TokenBucket,
    paused_until: Option<Instant>,
}

impl Throttle {
    /// A full bucket.
    pub fn new(rate: f64, burst: u32) -> Throttle {
        let bucket = TokenBucket::full(rate, f64::from(burst), Instant::now().into_std());
        Throttle { state: Mutex::new(ThrottleState { bucket, paused_until: None }) }
    }

    /// Waits for a token.
    pub async fn acquire(&self) {
        loop {
            let wait = {
                // A poisoned lock means another task panicked while holding it; the state is two numbers
                // that are always consistent, so go on with it.
                let mut s = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                let now = Instant::now();
                match s.paused_until {
                    Some(until) if until > now => until - now,
                    _ => {
                        s.paused_until = None;
                        match s.bucket.take(now.into_std()) {
                            Ok(()) => return,
                            Err(wait) => wait,
                        }
                    }
                }
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// Nobody gets a token before `until` (a 429's `Retry-After`).
    pub fn pause_until(&self, until: Instant) {
        let mut s = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        s.paused_until = Some(s.paused_until.map_or(until, |u| u.max(until)));
        s.bucket.drain();
    }
}

/// `Retry-After` as seconds (`"3"`) or an HTTP date, capped at `cap`.
fn retry_after(headers: &HeaderMap, cap: Duration) -> Option<Duration> {
    let text = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    let wait = if let Ok(secs) = text.parse::<u64>() {
        Duration::from_secs(secs)
    } else if let Ok(secs) = text.parse::<f64>() {
        Duration::try_from_secs_f64(secs).ok()?
    } else {
        let when = httpdate(text)?;
        when.duration_since(std::time::SystemTime::now()).unwrap_or(Duration::ZERO)
    };
    Some(wait.min(cap))
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the form `Retry-After` dates take.
fn httpdate(text: &str) -> Option<std::time::SystemTime> {
    let format = time::macros::format_description!(
        "[weekday repr:short], [day] [month repr:short] [year] [hour]:[minute]:[second] GMT"
    );
    let t = time::PrimitiveDateTime::parse(text, &format).ok()?.assume_utc();
    let secs = u64::try_from(t.unix_timestamp()).ok()?;
    Some(std::time::UNIX_EPOCH + Duration::from_secs(secs))
}

/// Exponential backoff with full jitter: a uniform wait in `[0, min(max, base·2^retry)]`.
pub fn backoff(limits: &Limits, retry: u32) -> Duration {
    let ceiling = limits.backoff_base.saturating_mul(1u32 << retry.min(16)).min(limits.backoff_max);
    ceiling.mul_f64(fastrand::f64())
}

/// The HTTP client of `sync` (cheap to clone; clones share the bucket and the counters).
#[derive(Clone)]
pub struct Http {
    client: reqwest::Client,
    bucket: Arc<Throttle>,
    limits: Limits,
    counters: Arc<Counters>,
    api_key: Option<ApiKey>,
}

impl std::fmt::Debug for Http {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Http").field("limits", &self.limits).field("api_key", &self.api_key).finish_non_exhaustive()
    }
}

impl Http {
    /// A client with these limits, sending `api_key` (if any) to the hosts that ask for it.
    pub fn new(limits: Limits, api_key: Option<ApiKey>) -> Result<Http, reqwest::Error> {
        let client = reqwest::Client::builder()
            .timeout(limits.timeout)
            .connect_timeout(limits.timeout)
            .user_agent(concat!("tonroute/", env!("CARGO_PKG_VERSION")))
            .build()?;
        let bucket = Arc::new(Throttle::new(limits.rate, limits.burst));
        Ok(Http { client, bucket, limits, counters: Arc::new(Counters::default()), api_key })
    }

    /// The counters of every request made through this client and its clones.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// `GET url` with `query`, the answer as JSON.
    pub async fn get(
        &self,
        endpoint: Endpoint,
        url: &str,
        query: &[(&str, String)],
        keyed: bool,
    ) -> Result<Value, FetchError> {
        self.call(endpoint, keyed, || self.client.get(url).query(query)).await
    }

    /// `POST url` with a JSON body, the answer as JSON.
    pub async fn post(&self, endpoint: Endpoint, url: &str, body: &Value, keyed: bool) -> Result<Value, FetchError> {
        self.call(endpoint, keyed, || self.client.post(url).json(body)).await
    }

    async fn call(
        &self,
        endpoint: Endpoint,
        keyed: bool,
        request: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<Value, FetchError> {
        let counter = &self.counters.0[endpoint.index()];
        let mut attempt = 0u32;
        loop {
            self.bucket.acquire().await;
            counter.sent.fetch_add(1, Ordering::Relaxed);
            if attempt > 0 {
                counter.retries.fetch_add(1, Ordering::Relaxed);
            }
            attempt += 1;
            let mut builder = request();
            if keyed {
                if let Some(key) = &self.api_key {
                    if let Ok(mut value) = HeaderValue::from_str(key.expose()) {
                        value.set_sensitive(true);
                        builder = builder.header("X-API-Key", value);
                    }
                }
            }
            let error = match self.attempt(endpoint, builder).await {
                Ok(value) => return Ok(value),
                Err(e) => e,
            };
            if !error.retryable() {
                counter.failed.fetch_add(1, Ordering::Relaxed);
                return Err(error);
            }
            if attempt >= self.limits.attempts {
                counter.failed.fetch_add(1, Ordering::Relaxed);
                return Err(FetchError::GaveUp { endpoint: endpoint.name(), attempts: attempt, last: Box::new(error) });
            }
            let wait = match &error {
                FetchError::Throttled { retry_after: Some(wait), .. } => {
                    self.bucket.pause_until(Instant::now() + *wait);
                    *wait
                }
                _ => backoff(&self.limits, attempt - 1),
            };
            tracing::debug!(endpoint = endpoint.name(), attempt, ?wait, error = %error, "retrying");
            tokio::time::sleep(wait).await;
        }
    }

    async fn attempt(&self, endpoint: Endpoint, builder: reqwest::RequestBuilder) -> Result<Value, FetchError> {
        let name = endpoint.name();
        let transport = |source: reqwest::Error| {
            if source.is_timeout() {
                FetchError::Timeout { endpoint: name, timeout: self.limits.timeout }
            } else {
                FetchError::Transport { endpoint: name, source: source.without_url() }
            }
        };
        let response = builder.send().await.map_err(transport)?;
        let status = response.status();
        if status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE {
            return Err(FetchError::Throttled {
                endpoint: name,
                status: status.as_u16(),
                retry_after: retry_after(response.headers(), self.limits.retry_after_max),
            });
        }
        if status.is_server_error() {
            return Err(FetchError::Server { endpoint: name, status: status.as_u16() });
        }
        if !status.is_success() {
            return Err(FetchError::Status { endpoint: name, status: status.as_u16() });
        }
        let body = response.bytes().await.map_err(transport)?;
        serde_json::from_slice(&body).map_err(|source| FetchError::Json { endpoint: name, source })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds_and_dates() {
        let mut h = HeaderMap::new();
        h.insert(RETRY_AFTER, HeaderValue::from_static("3"));
        assert_eq!(retry_after(&h, Duration::from_secs(60)), Some(Duration::from_secs(3)));
        h.insert(RETRY_AFTER, HeaderValue::from_static("3600"));
        assert_eq!(retry_after(&h, Duration::from_secs(60)), Some(Duration::from_secs(60)), "capped");
        h.insert(RETRY_AFTER, HeaderValue::from_static("Sun, 06 Nov 1994 08:49:37 GMT"));
        assert_eq!(retry_after(&h, Duration::from_secs(60)), Some(Duration::ZERO), "a past date: now");
        h.insert(RETRY_AFTER, HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h, Duration::from_secs(60)), None);
    }

    #[test]
    fn backoff_stays_under_its_ceiling() {
        let limits = Limits::default();
        for retry in 0..40 {
            let ceiling = limits.backoff_base.saturating_mul(1u32 << retry.min(16)).min(limits.backoff_max);
            for _ in 0..50 {
                assert!(backoff(&limits, retry) <= ceiling);
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn the_bucket_spaces_requests_and_honours_a_pause() {
        let bucket = Throttle::new(10.0, 2);
        let start = Instant::now();
        for _ in 0..12 {
            bucket.acquire().await;
        }
        // 2 from the burst, then 10 at 10 per second: 1 s.
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(999) && took < Duration::from_millis(1100), "{took:?}");
        bucket.pause_until(Instant::now() + Duration::from_secs(5));
        let before = Instant::now();
        bucket.acquire().await;
        assert!(before.elapsed() >= Duration::from_secs(5));
    }
}
