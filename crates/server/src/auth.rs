//! Admin authentication: `Authorization: Bearer <token>` against the tokens the operator configured.
//!
//! Owns the token set and the check. Tokens come from the environment variable `TONROUTE_ADMIN_TOKEN` (one
//! entry) and `--admin-token-file` (one entry per line; blank lines and `#` comments skipped). An entry is
//! `name:token` (the name is what the audit log shows) or a bare token (named `admin`): an entry with a `:` is
//! always `name:token`, so a bare token cannot contain one, and a token with a `:` of its own (`a:b:c`) is
//! refused rather than split a second way; a token is at least [`MIN_TOKEN_LEN`] bytes and not a known sample
//! ([`is_sample`]: the README's, and placeholders such as `change-me` or a handful of repeated characters),
//! since anyone who read the sample can present it. With no token configured the admin routes are off: 403
//! [`ErrorCode::AdminDisabled`]. A missing or wrong token is 401 [`ErrorCode::Unauthorized`], with
//! `WWW-Authenticate: Bearer` ([`challenge`]). [`BearerToken`] is one such token without a name (the
//! `/metrics` token, `TONROUTE_METRICS_TOKEN`).
//!
//! Only SHA-256 digests of the tokens are kept, and the presented token's digest is compared with every
//! stored one in constant time (`subtle`), so neither the timing nor the token's length tells an attacker
//! anything; `Debug` shows names only. The one log line here is a refusal on the audit trail
//! ([`AdminAuth::admit`], with the client IP): the token never reaches a log line. The edge
//! (`server::limits`) and the admin handler (`server::admin`) both authenticate through [`AdminAuth::admit`].
//! Must not read bodies or apply updates.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use axum::http::{header, HeaderMap};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use tonroute_api::{ApiError, ErrorCode};

/// The `tracing` target of the admin audit trail: the changes (`server::admin`) and the refusals
/// ([`AdminAuth::admit`]).
pub const AUDIT_TARGET: &str = "tonroute::audit";

/// The admin token's name, put on an admin request by the edge (`server::limits`) after [`AdminAuth::admit`]
/// let it through.
#[derive(Debug, Clone)]
pub struct AdminName(pub String);

/// The environment variable holding an admin token (`name:token` or `token`).
pub const TOKEN_ENV: &str = "TONROUTE_ADMIN_TOKEN";

/// Shortest accepted token, bytes (a guessable token is no protection).
pub const MIN_TOKEN_LEN: usize = 16;

/// The name of a token given without one.
pub const DEFAULT_NAME: &str = "admin";

/// Tokens printed in this project's documentation and examples, refused whatever their form.
const SAMPLE_TOKENS: [&str; 2] = ["change-me-0123456789abcdef", "ops:change-me-0123456789abcdef"];

/// Words that mark a placeholder someone forgot to replace (compared in lower case).
const PLACEHOLDER_WORDS: [&str; 12] = [
    "change-me",
    "changeme",
    "change_me",
    "replace-me",
    "replaceme",
    "example",
    "sample",
    "placeholder",
    "your-token",
    "your_token",
    "yourtoken",
    "password",
];

/// Whether `token` is a known sample or a placeholder: one of [`SAMPLE_TOKENS`], one containing a
/// [`PLACEHOLDER_WORDS`] word, or one of fewer than 6 distinct characters (`aaaaaaaaaaaaaaaa`,
/// `abcabcabcabcabca`). A random token of 16 or more characters is none of these.
pub fn is_sample(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    let mut distinct = [false; 256];
    token.bytes().for_each(|b| distinct[usize::from(b)] = true);
    SAMPLE_TOKENS.contains(&token)
        || PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w))
        || distinct.iter().filter(|d| **d).count() < 6
}

/// The `WWW-Authenticate` challenge of a 401 (RFC 6750: the scheme, and `invalid_token` when a token was
/// presented but is wrong).
pub fn challenge(e: &ApiError) -> axum::http::HeaderValue {
    if e.message().starts_with("invalid") {
        axum::http::HeaderValue::from_static("Bearer realm=\"tonroute\", error=\"invalid_token\"")
    } else {
        axum::http::HeaderValue::from_static("Bearer realm=\"tonroute\"")
    }
}

/// Checks a token's form (length, characters, not a sample); the reason when it is unusable.
fn check_token(token: &str) -> Result<(), &'static str> {
    if token.len() < MIN_TOKEN_LEN {
        return Err("the token is shorter than 16 bytes");
    }
    if token.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
        return Err("the token contains whitespace or control characters");
    }
    if token.contains(':') {
        return Err("the token contains `:` (an entry is `name:token` or a bare token without `:`)");
    }
    if is_sample(token) {
        return Err(
            "the token is a known sample or placeholder (e.g. the README's): generate one, e.g. `openssl rand -hex 24`",
        );
    }
    Ok(())
}

/// The bearer token presented in `headers`, if any (`Authorization: Bearer <token>`, the scheme in any case).
fn presented(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, token)| token.trim())
}

/// One bearer token without a name (the `/metrics` token): only its SHA-256 digest is kept, compared in
/// constant time.
#[derive(Clone)]
pub struct BearerToken {
    digest: [u8; 32],
}

impl std::fmt::Debug for BearerToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BearerToken(..)")
    }
}

impl BearerToken {
    /// The token, if its form is usable (as an admin token's); `origin` names where it came from, for errors.
    pub fn new(token: &str, origin: &str) -> Result<BearerToken, AuthConfigError> {
        let token = token.trim();
        check_token(token).map_err(|reason| AuthConfigError::Bad { origin: origin.to_string(), reason })?;
        Ok(BearerToken { digest: digest(token.as_bytes()) })
    }

    /// `Ok` when `headers` carry the token, else the 401 to answer.
    pub fn check(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        let token = presented(headers)
            .ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "missing `Authorization: Bearer <token>` header"))?;
        if bool::from(self.digest.ct_eq(&digest(token.as_bytes()))) {
            Ok(())
        } else {
            Err(ApiError::new(ErrorCode::Unauthorized, "invalid token"))
        }
    }
}

/// Why the configured tokens cannot be used (the server refuses to start).
#[derive(Debug, thiserror::Error)]
pub enum AuthConfigError {
    /// The token file cannot be read.
    #[error("cannot read the admin token file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// An entry is unusable (the message never contains the token).
    #[error("admin token from {origin}: {reason}")]
    Bad {
        /// `TONROUTE_ADMIN_TOKEN` or `<file>:<line>`.
        origin: String,
        /// What is wrong.
        reason: &'static str,
    },
}

#[derive(Clone)]
struct Token {
    name: String,
    digest: [u8; 32],
}

/// The configured admin tokens; empty = admin routes off.
#[derive(Clone, Default)]
pub struct AdminAuth {
    tokens: Vec<Token>,
}

impl std::fmt::Debug for AdminAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.tokens.iter().map(|t| t.name.as_str()).collect();
        f.debug_struct("AdminAuth").field("token_names", &names).finish()
    }
}

fn digest(token: &[u8]) -> [u8; 32] {
    Sha256::digest(token).into()
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_.@".contains(&b))
}

impl AdminAuth {
    /// Admin routes off.
    pub fn disabled() -> AdminAuth {
        AdminAuth::default()
    }

    /// Whether any token is configured.
    pub fn is_enabled(&self) -> bool {
        !self.tokens.is_empty()
    }

    /// The names of the configured tokens.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.tokens.iter().map(|t| t.name.as_str())
    }

    /// Adds one entry (`name:token` or `token`); `origin` names where it came from, for errors.
    pub fn add_entry(&mut self, entry: &str, origin: &str) -> Result<(), AuthConfigError> {
        let bad = |reason| AuthConfigError::Bad { origin: origin.to_string(), reason };
        let entry = entry.trim();
        if SAMPLE_TOKENS.contains(&entry) {
            return Err(bad("the entry is the README's sample: generate a token, e.g. `openssl rand -hex 24`"));
        }
        let (name, token) = match entry.split_once(':') {
            Some((name, token)) if valid_name(name) => (name, token),
            Some(_) => {
                return Err(bad(
                    "the name before `:` must be 1–64 of A–Z a–z 0–9 - _ . @ (an entry with `:` is `name:token`; \
                     a bare token cannot contain `:`)",
                ))
            }
            None => (DEFAULT_NAME, entry),
        };
        check_token(token).map_err(bad)?;
        let digest = digest(token.as_bytes());
        if self.tokens.iter().any(|t| t.digest == digest) {
            return Err(bad("the same token is configured twice"));
        }
        self.tokens.push(Token { name: name.to_string(), digest });
        Ok(())
    }

    /// The tokens from `env` (the value of [`TOKEN_ENV`], if set and not empty) and from `file`.
    pub fn from_sources(env: Option<&str>, file: Option<&Path>) -> Result<AdminAuth, AuthConfigError> {
        let mut auth = AdminAuth::default();
        if let Some(entry) = env.filter(|e| !e.trim().is_empty()) {
            auth.add_entry(entry, TOKEN_ENV)?;
        }
        if let Some(path) = file {
            let text = std::fs::read_to_string(path)
                .map_err(|source| AuthConfigError::Read { path: path.to_path_buf(), source })?;
            for (i, line) in text.lines().enumerate() {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                auth.add_entry(line, &format!("{}:{}", path.display(), i + 1))?;
            }
        }
        Ok(auth)
    }

    /// The name of the token `headers` carry, or the error to answer: 403 when admin is off, 401 when the
    /// header is missing, not `Bearer`, or the token matches none.
    pub fn authorize(&self, headers: &HeaderMap) -> Result<&str, ApiError> {
        if !self.is_enabled() {
            return Err(ApiError::new(
                ErrorCode::AdminDisabled,
                "admin routes are disabled on this server: start it with TONROUTE_ADMIN_TOKEN or --admin-token-file",
            ));
        }
        let presented = presented(headers)
            .ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "missing `Authorization: Bearer <token>` header"))?;
        let presented = digest(presented.as_bytes());
        // Every stored digest is compared (no early exit), each in constant time.
        let mut found = None;
        for t in &self.tokens {
            if bool::from(t.digest.ct_eq(&presented)) {
                found = Some(t.name.as_str());
            }
        }
        found.ok_or_else(|| ApiError::new(ErrorCode::Unauthorized, "invalid admin token"))
    }

    /// [`AdminAuth::authorize`] for a request from `ip`: the token's name, or the error to answer, with the
    /// refusal logged on [`AUDIT_TARGET`] (status, client IP and reason; never the token).
    pub fn admit(&self, headers: &HeaderMap, ip: Option<IpAddr>) -> Result<AdminName, ApiError> {
        self.authorize(headers).map(|name| AdminName(name.to_string())).inspect_err(|e| {
            let client_ip = ip.map_or_else(|| "-".to_string(), |ip| ip.to_string());
            tracing::info!(target: AUDIT_TARGET, status = e.status(), client_ip, "admin request refused: {}", e.message());
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, value.parse().unwrap());
        h
    }

    #[test]
    fn the_matrix() {
        let off = AdminAuth::disabled();
        assert_eq!(off.authorize(&headers("Bearer whatever-whatever-1")).unwrap_err().status(), 403);
        let auth = AdminAuth::from_sources(Some("ops:0123456789abcdef"), None).unwrap();
        assert_eq!(auth.authorize(&headers("Bearer 0123456789abcdef")).unwrap(), "ops");
        assert_eq!(auth.authorize(&headers("bearer 0123456789abcdef")).unwrap(), "ops");
        for wrong in ["Bearer 0123456789abcdeF", "Bearer ops:0123456789abcdef", "Basic 0123456789abcdef", "Bearer", ""]
        {
            let e = auth.authorize(&headers(wrong)).unwrap_err();
            assert_eq!((e.status(), e.code()), (401, 1040), "{wrong:?}");
        }
        assert_eq!(auth.authorize(&HeaderMap::new()).unwrap_err().status(), 401);
        let bare = AdminAuth::from_sources(Some("fedcba9876543210fedcba"), None).unwrap();
        assert_eq!(bare.authorize(&headers("Bearer fedcba9876543210fedcba")).unwrap(), DEFAULT_NAME);
    }

    #[test]
    fn admit_names_the_token_or_refuses_with_the_same_error() {
        let auth = AdminAuth::from_sources(Some("ops:0123456789abcdef"), None).unwrap();
        let ip = Some(IpAddr::from([127, 0, 0, 1]));
        assert_eq!(auth.admit(&headers("Bearer 0123456789abcdef"), ip).unwrap().0, "ops");
        let e = auth.admit(&headers("Bearer 0123456789abcdeF"), None).unwrap_err();
        assert_eq!((e.status(), e.code()), (401, 1040));
        let e = AdminAuth::disabled().admit(&headers("Bearer 0123456789abcdef"), ip).unwrap_err();
        assert_eq!(e.status(), 403);
    }

    #[test]
    fn samples_and_ambiguous_colons_are_refused() {
        for entry in [
            "ops:change-me-0123456789abcdef",
            "change-me-0123456789abcdef",
            "ops:CHANGEME-please-1234567",
            "my-example-token-0123456",
            "aaaaaaaaaaaaaaaaaaaaaaaa",
            "abcabcabcabcabcabcabc",
            // A bare token with `:` whose prefix is a valid name would be split; with two it is refused.
            "ops:first:0123456789abcdef",
        ] {
            let e = AdminAuth::from_sources(Some(entry), None).unwrap_err().to_string();
            assert!(e.contains("sample") || e.contains("`:`"), "{entry}: {e}");
        }
        // What an entry with one `:` means is said at start (the names are printed): `x1:…` is named `x1`.
        let named = AdminAuth::from_sources(Some("x1:9f86d081884c7d659a2feaa0"), None).unwrap();
        assert_eq!(named.names().collect::<Vec<_>>(), ["x1"]);
        assert!(BearerToken::new("change-me-0123456789abcdef", "env").is_err());
        let t = BearerToken::new("9f86d081884c7d659a2feaa0c55ad015", "env").unwrap();
        assert!(t.check(&headers("Bearer 9f86d081884c7d659a2feaa0c55ad015")).is_ok());
        let wrong = t.check(&headers("Bearer 9f86d081884c7d659a2feaa0c55ad016")).unwrap_err();
        assert_eq!(wrong.status(), 401);
        assert_eq!(challenge(&wrong), "Bearer realm=\"tonroute\", error=\"invalid_token\"");
        assert_eq!(challenge(&t.check(&HeaderMap::new()).unwrap_err()), "Bearer realm=\"tonroute\"");
    }

    #[test]
    fn bad_entries_are_refused_without_echoing_the_token() {
        for entry in ["ops:tiny-token", "bad name:0123456789abcdef", "ops:0123456789 abcdef"] {
            let e = AdminAuth::from_sources(Some(entry), None).unwrap_err().to_string();
            assert!(!e.contains("0123456789") && !e.contains("tiny-token"), "{e}");
        }
        assert!(!AdminAuth::from_sources(Some("  "), None).unwrap().is_enabled());
        let debug = format!("{:?}", AdminAuth::from_sources(Some("ops:0123456789abcdef"), None).unwrap());
        assert!(debug.contains("ops") && !debug.contains("0123456789abcdef"), "{debug}");
    }
}
