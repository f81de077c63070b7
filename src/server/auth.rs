//! Admin authentication: `Authorization: Bearer <token>` against the tokens the operator configured.
//!
//! Owns the token set and the check. Tokens come from the environment variable `TONROUTE_ADMIN_TOKEN` (one
//! entry) and `--admin-token-file` (one entry per line; blank lines and `#` comments skipped). An entry is
//! `name:token` (the name is what the audit log shows) or a bare token (named `admin`); a token is at least
//! [`MIN_TOKEN_LEN`] bytes. With no token configured the admin routes are off: 403
//! [`ErrorCode::AdminDisabled`]. A missing or wrong token is 401 [`ErrorCode::Unauthorized`].
//!
//! Only SHA-256 digests of the tokens are kept, and the presented token's digest is compared with every
//! stored one in constant time (`subtle`), so neither the timing nor the token's length tells an attacker
//! anything; `Debug` shows names only. Nothing here logs: the token never reaches a log line.
//! Must not read bodies or apply updates.

use std::path::{Path, PathBuf};

use axum::http::{header, HeaderMap};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::api::{ApiError, ErrorCode};

/// The environment variable holding an admin token (`name:token` or `token`).
pub const TOKEN_ENV: &str = "TONROUTE_ADMIN_TOKEN";

/// Shortest accepted token, bytes (a guessable token is no protection).
pub const MIN_TOKEN_LEN: usize = 16;

/// The name of a token given without one.
pub const DEFAULT_NAME: &str = "admin";

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
        let (name, token) = match entry.split_once(':') {
            Some((name, token)) if valid_name(name) => (name, token),
            Some(_) => return Err(bad("the name before `:` must be 1–64 of A–Z a–z 0–9 - _ . @")),
            None => (DEFAULT_NAME, entry),
        };
        if token.len() < MIN_TOKEN_LEN {
            return Err(bad("the token is shorter than 16 bytes"));
        }
        if token.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control()) {
            return Err(bad("the token contains whitespace or control characters"));
        }
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
        let presented = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
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
