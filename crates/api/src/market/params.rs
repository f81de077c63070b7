//! Query-string parameters of the market routes: percent-decoding, then typed reads with the spec's formats,
//! refusing unknown and repeated parameters (a misspelt optional parameter would otherwise be silently
//! defaulted).
//!
//! Owns parameter syntax only ([`QueryError`]); ranges and cross-parameter rules are the typed queries' own
//! (`tonroute_market::query`).

use std::collections::BTreeSet;

use tonlib_core::TonAddress;

use super::error::QueryError;
use tonroute_core::asset::Asset;
use tonroute_market::types::{DateTime, Enumeration, LargeFloat, LargeInteger};

/// The parameters of one request, already percent-decoded, in order.
#[derive(Debug)]
pub struct Params<'a> {
    pairs: &'a super::Pairs,
    used: BTreeSet<&'a str>,
}

impl<'a> Params<'a> {
    /// Wraps decoded pairs; a name given twice is refused here.
    pub fn new(pairs: &'a super::Pairs) -> Result<Params<'a>, QueryError> {
        let mut seen = BTreeSet::new();
        for (k, _) in pairs {
            if !seen.insert(k.as_str()) {
                return Err(QueryError::Repeated { name: k.clone() });
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
    pub fn required(&mut self, name: &'static str) -> Result<&'a str, QueryError> {
        match self.text(name) {
            Some(v) if !v.is_empty() => Ok(v),
            _ => Err(QueryError::Missing { name }),
        }
    }

    /// `true` / `false`.
    pub fn bool(&mut self, name: &'static str) -> Result<bool, QueryError> {
        match self.text(name) {
            None | Some("false") => Ok(false),
            Some("true") => Ok(true),
            Some(v) => Err(QueryError::NotBoolean { name, text: v.to_string() }),
        }
    }

    /// An int32 (its range is the typed query's).
    pub fn int(&mut self, name: &'static str) -> Result<Option<i32>, QueryError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| QueryError::NotInt32 { name, text: v.to_string() }),
        }
    }

    /// A value of an enumeration.
    pub fn enumeration<T: Enumeration>(&mut self, name: &'static str) -> Result<Option<T>, QueryError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => T::from_text(v).map(Some).ok_or_else(|| QueryError::NotOneOf {
                name,
                text: v.to_string(),
                allowed: T::texts(),
            }),
        }
    }

    /// A required value of an enumeration.
    pub fn required_enumeration<T: Enumeration>(&mut self, name: &'static str) -> Result<T, QueryError> {
        let v = self.required(name)?;
        T::from_text(v).ok_or_else(|| QueryError::NotOneOf { name, text: v.to_string(), allowed: T::texts() })
    }

    /// An RFC 3339 date-time, as Unix seconds.
    pub fn date(&mut self, name: &'static str) -> Result<Option<i64>, QueryError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => DateTime::parse(v).map(|d| Some(d.unix())).map_err(|source| QueryError::NotDateTime {
                name,
                text: v.to_string(),
                source,
            }),
        }
    }

    /// A LargeFloat, as a float for comparisons.
    pub fn large_float(&mut self, name: &'static str) -> Result<Option<f64>, QueryError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => {
                LargeFloat::new(v).map(|f| Some(f.to_f64())).map_err(|source| QueryError::NotDecimal { name, source })
            }
        }
    }

    /// A LargeInteger (fitting i128).
    pub fn large_int(&mut self, name: &'static str) -> Result<Option<i128>, QueryError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => {
                let n = LargeInteger::new(v).map_err(|source| QueryError::NotDecimal { name, source })?;
                n.to_i128().map(Some).ok_or_else(|| QueryError::TooLarge { name, text: v.to_string() })
            }
        }
    }

    /// A comma-separated list; empty items are refused.
    pub fn list(&mut self, name: &'static str) -> Result<Option<Vec<&'a str>>, QueryError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => {
                let items: Vec<&str> = v.split(',').map(str::trim).collect();
                if items.iter().any(|s| s.is_empty()) {
                    return Err(QueryError::EmptyItem { name, text: v.to_string() });
                }
                Ok(Some(items))
            }
        }
    }

    /// A comma-separated list as owned strings.
    pub fn strings(&mut self, name: &'static str) -> Result<Option<Vec<String>>, QueryError> {
        Ok(self.list(name)?.map(|v| v.into_iter().map(str::to_string).collect()))
    }

    /// A comma-separated list of asset ids.
    pub fn assets(&mut self, name: &'static str) -> Result<Option<Vec<Asset>>, QueryError> {
        match self.list(name)? {
            None => Ok(None),
            Some(items) => items.iter().map(|s| parse_asset(name, s)).collect::<Result<Vec<_>, _>>().map(Some),
        }
    }

    /// A required asset id.
    pub fn asset(&mut self, name: &'static str) -> Result<Asset, QueryError> {
        let text = self.required(name)?;
        parse_asset(name, text)
    }

    /// An address.
    pub fn address(&mut self, name: &'static str) -> Result<Option<TonAddress>, QueryError> {
        match self.text(name) {
            None => Ok(None),
            Some(v) => parse_address(name, v).map(Some),
        }
    }

    /// Refuses any parameter no read asked for.
    pub fn finish(self) -> Result<(), QueryError> {
        match self.pairs.iter().find(|(k, _)| !self.used.contains(k.as_str())) {
            None => Ok(()),
            Some((k, _)) => Err(QueryError::Unknown { name: k.clone() }),
        }
    }
}

/// An asset id (`native`, `jetton:0:<hex>`, raw or friendly address) given as `name`.
pub fn parse_asset(name: &str, text: &str) -> Result<Asset, QueryError> {
    Asset::parse(text).map_err(|source| QueryError::BadAsset { name: name.to_string(), text: text.to_string(), source })
}

/// An address in raw or friendly form given as `name`.
pub fn parse_address(name: &'static str, text: &str) -> Result<TonAddress, QueryError> {
    tonroute_core::asset::parse_address(text).map_err(|source| QueryError::BadAddress { name, source })
}

/// Splits and percent-decodes a query string (`a=1&b=x%2Cy`; `+` is a space).
pub fn decode_query(query: &str) -> Result<Vec<(String, String)>, QueryError> {
    let mut out = Vec::new();
    for part in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        out.push((percent_decode(k)?, percent_decode(v)?));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> Result<String, QueryError> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
                let byte = hex
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| QueryError::PercentEncoding { text: s.to_string() })?;
                out.push(byte);
                i += 2;
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| QueryError::NotUtf8 { text: s.to_string() })
}
