//! Asset identifiers: the native coin and jettons named by their master contract.
//!
//! Owns parsing and printing of the wire forms (`native`, `jetton:0:<64 hex>`) and the forms a user may
//! type instead (raw `0:<hex>`, user-friendly `EQ…`/`UQ…`), and the one address parser of the crate
//! ([`parse_address`], whose errors say what a TON address looks like), the ids of well-known real assets
//! ([`known`]), and an amount of smallest units written in whole tokens ([`whole_units`]). This module must not
//! know about pools, graphs or JSON.

mod address;
pub mod known;

pub use address::{parse_address, parse_mainnet_address, AddressError, AddressProblem, ADDRESS_FORMS};

use std::fmt;
use std::str::FromStr;

use tonlib_core::TonAddress;

/// Why a string is not an asset id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AssetError {
    /// The input was empty (or only whitespace).
    #[error("asset id is empty")]
    Empty,
    /// `jetton:` was followed by something that is not `<workchain>:<64 hex digits>`.
    #[error("malformed jetton id `{input}`: expected `jetton:0:<64 hex digits>`")]
    MalformedJetton {
        /// The offending input.
        input: String,
    },
    /// The string is neither `native`, a `jetton:` id, a raw address nor a friendly address.
    #[error("`{input}` is not an asset id: expected `native`, `jetton:0:<64 hex>`, `0:<64 hex>` or a friendly address (EQ…/UQ…)")]
    Unrecognised {
        /// The offending input.
        input: String,
    },
    /// A jetton master written as an address (raw or friendly) that is not a valid one.
    #[error("not an asset id: {0}")]
    BadAddress(#[from] AddressError),
    /// Whitespace in or around the id: an asset id is written without any, as an amount is.
    #[error("asset id `{input}` has whitespace at position {position}; write it without spaces")]
    Whitespace {
        /// The offending input.
        input: String,
        /// The position of the first whitespace character (0-based, in characters).
        position: usize,
    },
    /// Jetton masters live in the basechain; any other workchain is refused.
    #[error("jetton master `{input}` is in workchain {workchain}; only workchain 0 is supported")]
    UnsupportedWorkchain {
        /// The offending input.
        input: String,
        /// The workchain it named.
        workchain: i32,
    },
}

/// `amount` (decimal digits, smallest units) in whole tokens of an asset with `decimals`, written exactly: the
/// point placed, trailing zeros trimmed, no exponent.
///
/// ```
/// use tonroute_core::asset::whole_units;
/// assert_eq!(whole_units("1500000", 6), "1.5");
/// assert_eq!(whole_units("5", 9), "0.000000005");
/// assert_eq!(whole_units("100000000000", 9), "100");
/// assert_eq!(whole_units("5", 0), "5");
/// ```
pub fn whole_units(amount: &str, decimals: u8) -> String {
    let d = usize::from(decimals);
    if d == 0 {
        return amount.to_string();
    }
    let padded = format!("{amount:0>width$}", width = d + 1);
    let (int, frac) = padded.split_at(padded.len() - d);
    let frac = frac.trim_end_matches('0');
    if frac.is_empty() {
        int.to_string()
    } else {
        format!("{int}.{frac}")
    }
}

/// A jetton master address in the basechain: the 32-byte account id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JettonMaster(pub [u8; 32]);

impl JettonMaster {
    /// The master as a `tonlib-core` address (workchain 0).
    pub fn to_address(&self) -> TonAddress {
        TonAddress::new(0, self.0.into())
    }

    /// Raw form `0:<64 lowercase hex>`.
    pub fn to_raw(&self) -> String {
        format!("0:{}", hex_lower(&self.0))
    }
}

impl fmt::Debug for JettonMaster {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0:{}", hex_lower(&self.0))
    }
}

/// What can be swapped: the native coin (TON) or a jetton.
///
/// ```
/// use tonroute_core::asset::Asset;
/// let usdt: Asset = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs".parse().unwrap();
/// assert_eq!(
///     usdt.to_string(),
///     "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe"
/// );
/// assert_eq!("native".parse::<Asset>().unwrap(), Asset::Native);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Asset {
    /// The native coin (TON), wire id `native`.
    Native,
    /// A jetton, named by its master contract.
    Jetton(JettonMaster),
}

impl Asset {
    /// Parses any accepted form: `native`, `jetton:0:<hex>`, raw `0:<hex>`, friendly `EQ…`/`UQ…`.
    pub fn parse(input: &str) -> Result<Asset, AssetError> {
        let s = input;
        if s.trim().is_empty() {
            return Err(AssetError::Empty);
        }
        if let Some(position) = s.chars().position(char::is_whitespace) {
            let input: String = s.chars().take(80).collect();
            return Err(AssetError::Whitespace { input, position });
        }
        if s == "native" {
            return Ok(Asset::Native);
        }
        if let Some(rest) = s.strip_prefix("jetton:") {
            let (wc, hash) = parse_raw(rest).ok_or_else(|| AssetError::MalformedJetton { input: s.to_string() })?;
            return jetton_in_basechain(s, wc, hash);
        }
        // Something written as an address: raw (`0:…`), 48 characters, or starting like a friendly address.
        let friendly_start = ["EQ", "UQ", "Ef", "Uf", "kQ", "0Q"].iter().any(|p| s.starts_with(p));
        if s.contains(':') || s.len() == 48 || friendly_start {
            let addr = parse_address(s)?;
            return jetton_in_basechain(s, addr.workchain, addr.hash_part.into());
        }
        Err(AssetError::Unrecognised { input: s.to_string() })
    }

    /// Whether this is the native coin.
    pub fn is_native(&self) -> bool {
        matches!(self, Asset::Native)
    }
}

fn jetton_in_basechain(input: &str, workchain: i32, hash: [u8; 32]) -> Result<Asset, AssetError> {
    if workchain != 0 {
        return Err(AssetError::UnsupportedWorkchain { input: input.to_string(), workchain });
    }
    Ok(Asset::Jetton(JettonMaster(hash)))
}

/// `<workchain>:<64 hex>` → parts; `None` when malformed.
fn parse_raw(s: &str) -> Option<(i32, [u8; 32])> {
    let (wc, hex) = s.split_once(':')?;
    let workchain: i32 = wc.parse().ok()?;
    Some((workchain, parse_hex32(hex)?))
}

/// Exactly 64 hex digits (either case) → 32 bytes.
pub(crate) fn parse_hex32(hex: &str) -> Option<[u8; 32]> {
    let bytes = hex.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        let hi = hex_digit(pair[0])?;
        let lo = hex_digit(pair[1])?;
        out[i] = (hi << 4) | lo;
    }
    Some(out)
}

fn hex_digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

pub(crate) fn hex_lower(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 0x0f)] as char);
    }
    s
}

impl fmt::Display for Asset {
    /// The wire form: `native` or `jetton:0:<64 lowercase hex>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Asset::Native => f.write_str("native"),
            Asset::Jetton(m) => write!(f, "jetton:0:{}", hex_lower(&m.0)),
        }
    }
}

impl FromStr for Asset {
    type Err = AssetError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Asset::parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USDT_HEX: &str = "b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";

    #[test]
    fn all_forms_of_usdt_agree() {
        let wire: Asset = format!("jetton:0:{USDT_HEX}").parse().unwrap();
        let raw: Asset = format!("0:{USDT_HEX}").parse().unwrap();
        let upper: Asset = format!("jetton:0:{}", USDT_HEX.to_uppercase()).parse().unwrap();
        let bounceable: Asset = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs".parse().unwrap();
        let non_bounceable: Asset = "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p".parse().unwrap();
        for a in [raw, upper, bounceable, non_bounceable] {
            assert_eq!(a, wire);
        }
        assert_eq!(wire.to_string(), format!("jetton:0:{USDT_HEX}"));
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        assert_eq!(Asset::parse(""), Err(AssetError::Empty));
        assert!(matches!(Asset::parse("jetton:0:abc"), Err(AssetError::MalformedJetton { .. })));
        assert!(matches!(
            Asset::parse(&format!("jetton:0:{}", "g".repeat(64))),
            Err(AssetError::MalformedJetton { .. })
        ));
        assert!(matches!(Asset::parse("TON"), Err(AssetError::Unrecognised { .. })));
        assert!(matches!(
            Asset::parse(&format!("-1:{USDT_HEX}")),
            Err(AssetError::UnsupportedWorkchain { workchain: -1, .. })
        ));
        // One character changed: the CRC16 no longer matches.
        assert!(matches!(
            Asset::parse("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt"),
            Err(AssetError::BadAddress(AddressError { problem: AddressProblem::FriendlyChecksum, .. }))
        ));
        assert!(matches!(Asset::parse("jetton:x:00"), Err(AssetError::MalformedJetton { .. })));
    }
}
