//! Query-string parameters of the market-data operations: typed reads with the spec's formats, refusing
//! unknown and repeated parameters (a misspelt optional parameter would otherwise be silently defaulted).
//!
//! Owns parameter syntax only; ranges and cross-parameter rules are checked by the operations.

use std::collections::BTreeSet;

use tonlib_core::TonAddress;

use super::types::{DateTime, LargeFloat, LargeInteger};
use crate::api::{ApiError, ErrorCode};
use crate::asset::Asset;

/// The parameters of one request, already percent-decoded, in order.
#[derive(Debug)]
pub struct Params<'a> {
    pairs: &'a [(String, String)],
    used: BTreeSet<&'a str>,
}

fn bad(name: &str, message: impl std::fmt::Display) -> ApiError {
    ApiError::new(ErrorCode::MarketBadParameter, format!("parameter `{name}`: {message}"))
}

impl<'a> Params<'a> {
    /// Wraps decoded pairs; a name given twice is refused here.
    pub fn new(pairs: &'a [(String, String)]) -> Result<Params<'a>, ApiError> {
        let mut seen = BTreeSet::new();
        for (k, _) in pairs {
            if !seen.insert(k.as_str()) {
                return Err(ApiError::new(
                    ErrorCode::MarketDuplicateParameter,
                    format!("parameter `{k}` is given more than once"),
                ));
            }
        }
        Ok(Params { pairs, used: BTreeSet::new() })
    }

    /// The raw text of `name`, if present (marks it as known).
    pub fn text(&mut self, name: &'static str) -> Option<&'a str> {
        self.used.insert(name);
        self.pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// A required parameter's text; empty counts as absent.
    pub fn required(&mut self, name: &'static str) -> Result<&'a str, ApiError> {
        match self.text(name) {
            Some(v) if !v.is_empty() => Ok(v),
            _ => Err(ApiError::new(ErrorCode::MarketMissingParameter, format!("parameter `{name}` is required"))),
        }
    }

    /// `true` / `false`.
    pub fn bool(&mut self, name: &'static str, default: bool) -> Result<bool, ApiError> {
        match self.text(name) {
            None => Ok(default),
            Some("true") => Ok(true),
            Some("false") => Ok(false),
            Some(v) => Err(bad(name, format!("`{v}` is not a boolean (true or false)"))),
        }
    }

    /// An int32 in `min..=max`, else [`ErrorCode::MarketLimitOutOfRange`] / [`ErrorCode::MarketOffsetOutOfRange`]
    /// for `limit` / `offset`.
    pub fn int(&mut self, name: &'static str, default: i32, min: i32, max: i32) -> Result<i32, ApiError> {
        let Some(v) = self.text(name) else { return Ok(default) };
        let n: i32 = v.parse().map_err(|_| bad(name, format!("`{v}` is not an int32")))?;
        check_range(name, n, min, max)?;
        Ok(n)
    }

    /// An enumeration value, via `parse`.
    pub fn enumeration<T>(
        &mut self,
        name: &'static str,
        parse: fn(&str) -> Option<T>,
        allowed: &str,
    ) -> Result<Option<T>, ApiError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => parse(v).map(Some).ok_or_else(|| bad(name, format!("`{v}` is not one of {allowed}"))),
        }
    }

    /// An RFC 3339 date-time.
    pub fn date(&mut self, name: &'static str) -> Result<Option<i64>, ApiError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => DateTime::parse(v)
                .map(|d| Some(d.unix()))
                .map_err(|e| bad(name, format!("`{v}` is not an RFC 3339 date-time ({e})"))),
        }
    }

    /// A LargeFloat, as a float for comparisons.
    pub fn large_float(&mut self, name: &'static str) -> Result<Option<f64>, ApiError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => LargeFloat::new(v).map(|f| Some(f.to_f64())).map_err(|e| bad(name, e)),
        }
    }

    /// A LargeInteger (fitting i128).
    pub fn large_int(&mut self, name: &'static str) -> Result<Option<i128>, ApiError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => {
                let n = LargeInteger::new(v).map_err(|e| bad(name, e))?;
                n.to_i128().map(Some).ok_or_else(|| bad(name, format!("`{v}` does not fit 128 bits")))
            }
        }
    }

    /// A comma-separated list; empty items are refused.
    pub fn list(&mut self, name: &'static str) -> Result<Option<Vec<&'a str>>, ApiError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => {
                let items: Vec<&str> = v.split(',').map(str::trim).collect();
                if items.iter().any(|s| s.is_empty()) {
                    return Err(bad(name, format!("`{v}` has an empty item")));
                }
                Ok(Some(items))
            }
        }
    }

    /// A comma-separated list of asset ids.
    pub fn assets(&mut self, name: &'static str) -> Result<Option<Vec<Asset>>, ApiError> {
        match self.list(name)? {
            None => Ok(None),
            Some(items) => items.iter().map(|s| parse_asset(name, s)).collect::<Result<Vec<_>, _>>().map(Some),
        }
    }

    /// An address.
    pub fn address(&mut self, name: &'static str) -> Result<Option<TonAddress>, ApiError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => parse_address(name, v).map(Some),
        }
    }

    /// Refuses any parameter no read asked for.
    pub fn finish(self) -> Result<(), ApiError> {
        match self.pairs.iter().find(|(k, _)| !self.used.contains(k.as_str())) {
            None => Ok(()),
            Some((k, _)) => Err(ApiError::new(
                ErrorCode::MarketUnknownParameter,
                format!("unknown parameter `{k}` for this operation"),
            )),
        }
    }
}

/// `limit`/`offset`-aware range check.
pub fn check_range(name: &str, n: i32, min: i32, max: i32) -> Result<(), ApiError> {
    if (min..=max).contains(&n) {
        return Ok(());
    }
    let kind = match name {
        "limit" => ErrorCode::MarketLimitOutOfRange,
        "offset" => ErrorCode::MarketOffsetOutOfRange,
        _ => ErrorCode::MarketValueOutOfRange,
    };
    let range = if max == i32::MAX { format!("at least {min}") } else { format!("{min} to {max}") };
    Err(ApiError::new(kind, format!("parameter `{name}`: {n} is out of range ({range})")))
}

/// An asset id (`native`, `jetton:0:<hex>`, raw or friendly address).
pub fn parse_asset(name: &str, text: &str) -> Result<Asset, ApiError> {
    Asset::parse(text)
        .map_err(|e| ApiError::new(ErrorCode::MarketBadAsset, format!("parameter `{name}`: `{text}`: {e}")))
}

/// An address in raw or friendly form.
pub fn parse_address(name: &str, text: &str) -> Result<TonAddress, ApiError> {
    crate::asset::parse_address(text)
        .map_err(|e| ApiError::new(ErrorCode::MarketBadAddress, format!("parameter `{name}`: {e}")))
}

/// Splits and percent-decodes a query string (`a=1&b=x%2Cy`; `+` is a space).
pub fn decode_query(query: &str) -> Result<Vec<(String, String)>, ApiError> {
    let mut out = Vec::new();
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        out.push((percent_decode(k)?, percent_decode(v)?));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> Result<String, ApiError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex.and_then(|h| u8::from_str_radix(h, 16).ok()).ok_or_else(|| {
                    ApiError::new(ErrorCode::MarketBadParameter, format!("bad percent-encoding in `{s}`"))
                })?;
                out.push(byte);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out)
        .map_err(|_| ApiError::new(ErrorCode::MarketBadParameter, format!("`{s}` is not UTF-8 once decoded")))
}
