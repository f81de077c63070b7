//! Where `sync` reads from and how hard it may pull: base URLs, the toncenter API key, rate limits, retries,
//! timeouts. Defaults are the public mainnet endpoints and toncenter's documented limits (1 request per second
//! without a key, 10 with one).

use std::fmt;
use std::time::Duration;

/// The toncenter API key. Its `Debug` and `Display` print `***`: it must never reach a log or an error.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// A key (surrounding whitespace dropped); `None` for an empty one.
    pub fn new(key: &str) -> Option<ApiKey> {
        let key = key.trim();
        (!key.is_empty()).then(|| ApiKey(key.to_string()))
    }

    /// The key itself, for the request header.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Base URLs (no trailing slash needed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoints {
    /// STON.fi API (`/v1/pools`, `/v1/routers`, `/v1/assets` below it).
    pub stonfi: String,
    /// DeDust API (`/v2/pools` below it).
    pub dedust: String,
    /// TONCO indexer's GraphQL URL (queries are POSTed to it as is).
    pub tonco: String,
    /// toncenter (`/api/v3/…` below it).
    pub toncenter: String,
}

impl Default for Endpoints {
    fn default() -> Endpoints {
        Endpoints {
            stonfi: "https://api.ston.fi".to_string(),
            dedust: "https://api.dedust.io".to_string(),
            tonco: "https://indexer.tonco.io".to_string(),
            toncenter: "https://toncenter.com".to_string(),
        }
    }
}

impl Endpoints {
    /// Every base pointed at one server (tests, a local replay, a proxy in front of all four).
    pub fn all_at(base: &str) -> Endpoints {
        let base = base.trim_end_matches('/');
        Endpoints {
            stonfi: base.to_string(),
            dedust: base.to_string(),
            tonco: format!("{base}/tonco/graphql"),
            toncenter: base.to_string(),
        }
    }
}

/// How hard `sync` may pull.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Requests per second, on average, over all endpoints.
    pub rate: f64,
    /// Requests that may go at once after a quiet spell.
    pub burst: u32,
    /// Attempts per call (the first one included).
    pub attempts: u32,
    /// First backoff ceiling; doubles per retry.
    pub backoff_base: Duration,
    /// Largest backoff ceiling.
    pub backoff_max: Duration,
    /// Longest `Retry-After` obeyed (a longer one is cut to this).
    pub retry_after_max: Duration,
    /// Timeout of one attempt (connect and whole answer).
    pub timeout: Duration,
    /// Calls in flight at once.
    pub concurrency: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            rate: 1.0,
            burst: 1,
            attempts: 5,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            retry_after_max: Duration::from_secs(120),
            timeout: Duration::from_secs(20),
            concurrency: 4,
        }
    }
}

impl Limits {
    /// toncenter's documented limit for a key holder: 10 requests per second.
    pub fn with_api_key() -> Limits {
        Limits { rate: 10.0, burst: 10, ..Limits::default() }
    }
}

/// Which exchanges to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sources {
    /// STON.fi v1 and v2.
    pub stonfi: bool,
    /// DeDust.
    pub dedust: bool,
    /// TONCO.
    pub tonco: bool,
}

impl Default for Sources {
    fn default() -> Sources {
        Sources { stonfi: true, dedust: true, tonco: true }
    }
}

/// Everything a [`super::Syncer`] needs.
#[derive(Debug, Clone)]
pub struct SyncConfig {
    /// Base URLs.
    pub endpoints: Endpoints,
    /// toncenter API key (`TONCENTER_API_KEY` in the binary).
    pub api_key: Option<ApiKey>,
    /// Rate, retries, timeouts.
    pub limits: Limits,
    /// Exchanges to read.
    pub sources: Sources,
    /// Transactions per `transactionsByMasterchainBlock` page.
    pub block_page: u32,
    /// Blocks behind the chain's head beyond which `--watch` re-reads every pool instead of walking them.
    pub max_catch_up: u32,
}

impl Default for SyncConfig {
    fn default() -> SyncConfig {
        SyncConfig {
            endpoints: Endpoints::default(),
            api_key: None,
            limits: Limits::default(),
            sources: Sources::default(),
            block_page: 256,
            max_catch_up: 100,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_never_prints() {
        let key = ApiKey::new(" secret-key ").unwrap();
        assert_eq!(key.expose(), "secret-key");
        let config = SyncConfig { api_key: Some(key.clone()), ..SyncConfig::default() };
        for text in [format!("{key}"), format!("{key:?}"), format!("{config:?}")] {
            assert!(!text.contains("secret"), "{text}");
        }
        assert!(ApiKey::new("  ").is_none());
    }
}
