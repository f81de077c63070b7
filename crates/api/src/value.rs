//! The typed values of the wire: each parses itself once, inside its `Deserialize`, into the core type it
//! stands for, and serialises back to the same text.
//!
//! | wire value | type | refused as |
//! |---|---|---|
//! | amount (docs/interface.md LargeInteger, `^[-+]?[0-9]+$`, below 2^120, not negative) | [`LargeInteger`] | 1012–1016 |
//! | asset id (`native`, `jetton:0:<hex>`, a jetton master address) | [`AssetId`] | 1010 |
//! | address (raw or friendly) | [`Address`] | 1011 |
//! | `protocol_slug` | [`ProtocolSlug`] | 1030 |
//! | `swap_mode` | [`SwapModeWire`] | 1023 |
//! | the bounded integers `max_splits`, `max_length`, `slippage_bps` | [`max_splits`], [`max_length`], [`slippage`] | 1020–1022 |
//! | every object | [`strict_object!`] (an object, never an array of its fields) | 1003 |
//!
//! A value that does not parse is a [`Problem`]: its [`ErrorCode`] and message travel as data to
//! [`super::parse`] (through [`super::typed`]'s reader), which adds the field's path. Ranges
//! are not checked here: [`tonroute_core::route::QuoteRequest::try_new`] and [`tonroute_core::swap::build::check_swap`] do
//! that, once; an integer only has to fit the core's type (a negative count is out of the same range the core
//! would name).
//! Must not look at a graph.

use std::fmt;
use std::marker::PhantomData;

use primitive_types::U256;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Serialize, Serializer};
use tonlib_core::TonAddress;

use super::error::{limit_range, ErrorCode};
use super::number::{is_large_float, large_integer};
use tonroute_core::asset::Asset;
use tonroute_core::graph::Protocol;
use tonroute_core::pool::MAX_COINS;
use tonroute_core::route::SwapMode;

pub use super::typed::Problem;

/// Long inputs are shortened in messages so an error body never echoes a whole oversized field.
pub(crate) fn shown(s: &str) -> String {
    const MAX: usize = 64;
    if s.len() <= MAX {
        s.to_string()
    } else {
        let mut end = MAX;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &s[..end])
    }
}

/// A visitor of one JSON string, parsed by `parse` into `T`; `expecting` names what was wanted.
struct StrVisitor<T> {
    expecting: &'static str,
    parse: fn(&str) -> Result<T, Problem>,
}

impl<T> Visitor<'_> for StrVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.parse)(v).map_err(Problem::into_error)
    }
}

fn string_value<'de, D: Deserializer<'de>, T>(
    d: D,
    expecting: &'static str,
    parse: fn(&str) -> Result<T, Problem>,
) -> Result<T, D::Error> {
    d.deserialize_str(StrVisitor { expecting, parse })
}

/// `Serialize` and `Deserialize` for a wire value written as one JSON string: read by `$parse` from the string
/// (`$expected` names it in a type error), written back as `$show`'s text (by default the inner value's).
macro_rules! string_value_serde {
    ($ty:ident, $expected:literal, $parse:expr) => {
        string_value_serde!($ty, $expected, $parse, |v: &$ty| v.0);
    };
    ($ty:ident, $expected:literal, $parse:expr, $show:expr) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(&($show)(self))
            }
        }

        impl<'de> de::Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                string_value(d, $expected, $parse)
            }
        }
    };
}

/// An amount: docs/interface.md's LargeInteger (a decimal string matching `^[-+]?[0-9]+$` exactly: no whitespace, no
/// exponent, no fraction) as amounts use it, not negative and below 2^120 (the chain's `Coins`). Serialises
/// as the plain decimal string.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LargeInteger(pub u128);

impl LargeInteger {
    /// Parses the text, naming what is wrong: empty or not the pattern (1012), negative (1015), fractional
    /// (1016), not below 2^120 (1014). Zero is accepted (whether it may be zero is the core's question).
    ///
    /// ```
    /// use tonroute_api::value::LargeInteger;
    /// assert_eq!(LargeInteger::parse("+007").unwrap(), LargeInteger(7));
    /// assert_eq!(LargeInteger::parse("-0").unwrap(), LargeInteger(0));
    /// for (text, code) in [("", 1012), (" 5", 1012), ("5 ", 1012), ("1e9", 1012), ("+-5", 1012), ("-5", 1015),
    ///                      ("1.5", 1016), ("1329227995784915872903807060280344576", 1014)] {
    ///     assert_eq!(LargeInteger::parse(text).unwrap_err().kind().code(), code, "{text:?}");
    /// }
    /// ```
    pub fn parse(text: &str) -> Result<LargeInteger, Problem> {
        if text.is_empty() {
            return Err(Problem::new(ErrorCode::BadAmount, "empty; expected a decimal integer string"));
        }
        let nonzero = |s: &str| s.bytes().any(|b| b.is_ascii_digit() && b != b'0');
        if let Some((negative, body)) = large_integer(text) {
            if negative && nonzero(body) {
                return Err(Problem::new(ErrorCode::NegativeAmount, format!("`{}` is negative", shown(text))));
            }
            let significant = body.trim_start_matches('0');
            // More than 39 significant digits cannot be below 2^120 (≈ 1.33·10^36); skip the parse.
            let value = match significant.len() {
                0 => Some(0),
                1..=39 => significant.parse::<u128>().ok(),
                _ => None,
            };
            return match value {
                Some(v) if v <= MAX_COINS => Ok(LargeInteger(v)),
                _ => Err(Problem::new(
                    ErrorCode::AmountTooLarge,
                    format!("`{}` is not below 2^120 (the chain's Coins limit)", shown(text)),
                )),
            };
        }
        // A LargeFloat with digits before the point is a fractional amount (`.5` is just not an integer).
        let unsigned = text.strip_prefix(['-', '+']).unwrap_or(text);
        if is_large_float(text) && unsigned.split_once('.').is_some_and(|(whole, _)| !whole.is_empty()) {
            return Err(if text.starts_with('-') && nonzero(unsigned) {
                Problem::new(ErrorCode::NegativeAmount, format!("`{}` is negative", shown(text)))
            } else {
                Problem::new(
                    ErrorCode::FractionalAmount,
                    format!("`{}` is fractional; amounts are integers in the asset's smallest units", shown(text)),
                )
            });
        }
        Err(Problem::new(ErrorCode::BadAmount, format!("`{}` is not a decimal integer string", shown(text))))
    }
}

string_value_serde!(LargeInteger, "a decimal integer string", LargeInteger::parse);

/// The sign and digits of text matching docs/interface.md's LargeInteger pattern exactly (1012 otherwise).
fn integer_digits(text: &str) -> Result<(bool, &str), Problem> {
    large_integer(text)
        .ok_or_else(|| Problem::new(ErrorCode::BadAmount, format!("`{}` is not a decimal integer string", shown(text))))
}

/// A non-negative LargeInteger at most `bound`, as `U256` (`what` names the bound in the error).
fn unsigned_wide(text: &str, bound: U256, what: &str) -> Result<U256, Problem> {
    let (negative, digits) = integer_digits(text)?;
    let significant = digits.trim_start_matches('0');
    if negative && !significant.is_empty() {
        return Err(Problem::new(ErrorCode::NegativeAmount, format!("`{}` is negative", shown(text))));
    }
    // 78 digits cover 2^256; anything longer is over every bound used here.
    let value = if significant.len() > 78 {
        None
    } else {
        U256::from_dec_str(if significant.is_empty() { "0" } else { significant }).ok()
    };
    match value {
        Some(v) if v <= bound => Ok(v),
        _ => Err(Problem::new(ErrorCode::AmountTooLarge, format!("`{}` is above {what}", shown(text)))),
    }
}

/// A concentrated pool's `sqrt_price_x96`: a LargeInteger below 2^160 (whether the contract's
/// `MIN_SQRT_RATIO..MAX_SQRT_RATIO` holds is the pool's check).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqrtPriceX96(pub U256);

string_value_serde!(SqrtPriceX96, "a decimal integer string", |t| {
    unsigned_wide(t, (U256::one() << 160) - 1, "2^160 - 1").map(SqrtPriceX96)
});

/// A liquidity (`liquidity`, a tick's `liquidity_gross`): a non-negative LargeInteger below 2^128.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Liquidity(pub u128);

string_value_serde!(Liquidity, "a decimal integer string", |t| {
    let v = unsigned_wide(t, U256::from(u128::MAX), "2^128 - 1")?;
    // Bounded by u128::MAX just above, so the low word is the whole value.
    Ok(Liquidity(v.low_u128()))
});

/// A tick's `liquidity_net`: a signed LargeInteger within the int128 range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiquidityNet(pub i128);

string_value_serde!(LiquidityNet, "a decimal integer string", |t| {
    let (negative, digits) = integer_digits(t)?;
    let magnitude = unsigned_wide(digits, U256::from(u128::MAX), "the int128 range")?.low_u128();
    let value = if negative { 0i128.checked_sub_unsigned(magnitude) } else { i128::try_from(magnitude).ok() };
    value
        .map(LiquidityNet)
        .ok_or_else(|| Problem::new(ErrorCode::AmountTooLarge, format!("`{}` is outside the int128 range", shown(t))))
});

/// An asset id: `native`, `jetton:0:<64 hex>`, or a jetton master's raw or friendly address
/// ([`Asset::parse`]). Serialises as the asset id (`native` / `jetton:0:<hex>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AssetId(pub Asset);

impl AssetId {
    /// Parses the text (1010 when it is not an asset id or a master's address).
    pub fn parse(text: &str) -> Result<AssetId, Problem> {
        Asset::parse(text).map(AssetId).map_err(|e| Problem::new(ErrorCode::BadAsset, e))
    }
}

string_value_serde!(AssetId, "a string", AssetId::parse);

/// A TON address, raw (`0:<64 hex>`) or friendly (48 base64 characters), without whitespace, on mainnet
/// ([`tonroute_core::asset::parse_mainnet_address`]: workchain 0 or −1, a testnet-flagged friendly form refused).
/// Serialises raw.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Address(pub TonAddress);

impl Address {
    /// Parses the text (1011 when it is not an address).
    pub fn parse(text: &str) -> Result<Address, Problem> {
        if text.trim().is_empty() {
            return Err(Problem::new(ErrorCode::BadAddress, "empty; expected a TON address"));
        }
        tonroute_core::asset::parse_mainnet_address(text)
            .map(Address)
            .map_err(|e| Problem::new(ErrorCode::BadAddress, e))
    }
}

string_value_serde!(Address, "a string", Address::parse, |a: &Address| a.0.to_hex());

/// A `protocol_slug`: `dex_a`, `dex_b_v1`, `dex_b_v2`, `dex_c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProtocolSlug(pub Protocol);

string_value_serde!(
    ProtocolSlug,
    "a string",
    |t| {
        Protocol::from_slug(t).map(ProtocolSlug).ok_or_else(|| {
            let known = Protocol::ALL.iter().map(|p| format!("`{}`", p.slug())).collect::<Vec<_>>().join(", ");
            Problem::new(ErrorCode::BadProtocol, format!("unknown protocol `{}`; expected {known}", shown(t)))
        })
    },
    |p: &ProtocolSlug| p.0.slug()
);

/// A `swap_mode`: `exact_in` or `exact_out`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SwapModeWire(pub SwapMode);

string_value_serde!(
    SwapModeWire,
    "a string",
    |t| match t {
        "exact_in" => Ok(SwapModeWire(SwapMode::ExactIn)),
        "exact_out" => Ok(SwapModeWire(SwapMode::ExactOut)),
        other => Err(Problem::new(
            ErrorCode::UnsupportedSwapMode,
            format!("`{}` is not supported; use `exact_in` or `exact_out`", shown(other)),
        )),
    },
    |m: &SwapModeWire| m.0.as_str()
);

/// Any JSON integer (not a float, not a string), widened to `i128` (JSON integers that serde reads fit i64 or
/// u64); `null` is `None` when `optional`.
struct IntVisitor {
    optional: bool,
}

impl<'de> Visitor<'de> for IntVisitor {
    type Value = Option<i128>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an integer")
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Option<i128>, E> {
        Ok(Some(i128::from(v)))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Option<i128>, E> {
        Ok(Some(i128::from(v)))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Option<i128>, E> {
        Err(Problem::new(ErrorCode::WrongType, format!("expected an integer, got {v}")).into_error())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<i128>, E> {
        if self.optional {
            Ok(None)
        } else {
            Err(E::invalid_type(de::Unexpected::Unit, &self))
        }
    }
}

/// An integer field that must fit `T`; one that cannot is out of `kind`'s range (the core checks the rest).
fn bounded<'de, D: Deserializer<'de>, T: TryFrom<i128>>(
    d: D,
    kind: ErrorCode,
    optional: bool,
) -> Result<Option<T>, D::Error> {
    match d.deserialize_any(IntVisitor { optional })? {
        None => Ok(None),
        Some(n) => T::try_from(n)
            .map(Some)
            .map_err(|_| Problem::new(kind, format!("{n} is out of range {}", limit_range(kind))).into_error()),
    }
}

/// `max_splits` (optional, `null` = default): any JSON integer that fits a count.
pub fn max_splits<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    bounded(d, ErrorCode::MaxSplitsOutOfRange, true)
}

/// `max_length` (optional, `null` = default): any JSON integer that fits a count.
pub fn max_length<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    bounded(d, ErrorCode::MaxLengthOutOfRange, true)
}

/// `slippage_bps` of a quote request (optional, `null` = default): any JSON integer that fits `u32`.
pub fn slippage_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    bounded(d, ErrorCode::SlippageOutOfRange, true)
}

/// `slippage_bps` of `swap_data` (required): any JSON integer that fits `u32`.
pub fn slippage<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    // Not optional: `null` was refused by the visitor, so a value is always there.
    bounded(d, ErrorCode::SlippageOutOfRange, false)?
        .ok_or_else(|| de::Error::invalid_type(de::Unexpected::Unit, &"an integer"))
}

/// A struct read from a JSON object's fields (implemented by [`strict_object!`]).
pub trait FromFields<'de>: Sized {
    /// Reads the struct from the fields of an object.
    fn from_fields<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: FromFields<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        T::from_fields(map)
    }
}

/// Deserialises `T` from a JSON object only (serde's derived structs also take an array of the fields in
/// order, which no client means).
pub fn object<'de, D: Deserializer<'de>, T: FromFields<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(ObjectVisitor(PhantomData))
}

/// Implements `Serialize` and a strict `Deserialize` (objects only, through [`object`]) for a struct whose
/// derives carry `#[serde(remote = "Self")]` (which turns them into inherent functions).
macro_rules! strict_object {
    ($t:ty) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                <$t>::serialize(self, s)
            }
        }

        impl<'de> $crate::value::FromFields<'de> for $t {
            fn from_fields<A: serde::de::MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
                <$t>::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::value::object(d)
            }
        }
    };
}
pub(crate) use strict_object;

// The OpenAPI schemas of the wire values (feature `openapi`): their `Serialize` is written by hand, so no
// derive can see their shape; they live beside the types because of the orphan rule.
#[cfg(feature = "openapi")]
use tonroute_core::decimal::{string_enum_schema, string_schema, LARGE_INTEGER_PATTERN};

/// An asset id as the router reads it: `native`, `jetton:0:<hex>`, or a jetton master's raw or friendly address.
#[cfg(feature = "openapi")]
const ASSET_ID_PATTERN: &str =
    "^(native|jetton:-?[0-9]+:[0-9a-fA-F]{64}|-?[0-9]+:[0-9a-fA-F]{64}|[A-Za-z0-9_+/=-]{48})$";
/// A TON address, raw or friendly (responses write the raw form).
#[cfg(feature = "openapi")]
const ADDRESS_PATTERN: &str = r"^\s*(-?[0-9]+:[0-9a-fA-F]{64}|[A-Za-z0-9_+/=-]{48})\s*$";

#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(LargeInteger, "LargeInteger", tonroute_core::decimal::large_integer_schema());

#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(
    SqrtPriceX96,
    "SqrtPriceX96",
    string_schema(Some(LARGE_INTEGER_PATTERN), "√price · 2^96 of a concentrated pool, decimal string below 2^160.")
);

#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(
    Liquidity,
    "Liquidity",
    string_schema(Some(LARGE_INTEGER_PATTERN), "Liquidity of a concentrated pool, decimal string below 2^128.")
);

#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(
    LiquidityNet,
    "LiquidityNet",
    string_schema(
        Some(LARGE_INTEGER_PATTERN),
        "Signed liquidity change at a tick, decimal string in the int128 range."
    )
);

#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(
    AssetId,
    "AssetId",
    string_schema(
        Some(ASSET_ID_PATTERN),
        "Asset id: `native` or `jetton:0:<64 hex>` (responses); requests also take a jetton master's raw or friendly address."
    )
);

#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(
    Address,
    "Address",
    string_schema(
        Some(ADDRESS_PATTERN),
        "TON address: raw `0:<64 hex>` (responses) or friendly (48 base64 characters)."
    )
);

#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(
    ProtocolSlug,
    "ProtocolSlug",
    string_enum_schema(tonroute_core::graph::Protocol::ALL.iter().map(|p| p.slug()), Some("The exchange of a pool."))
);

#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(
    SwapModeWire,
    "SwapMode",
    string_enum_schema(
        [SwapMode::ExactIn.as_str(), SwapMode::ExactOut.as_str()],
        Some("`exact_in`: `amount` is the input; `exact_out`: `amount` is the output wanted.")
    )
);

#[cfg(test)]
mod tests {
    use super::*;

    fn amount(text: &str) -> Result<u128, ErrorCode> {
        LargeInteger::parse(text).map(|v| v.0).map_err(|p| p.kind())
    }

    #[test]
    fn amounts_follow_the_large_integer_pattern_exactly() {
        assert_eq!(amount("1"), Ok(1));
        assert_eq!(amount("+17"), Ok(17));
        assert_eq!(amount("007"), Ok(7));
        assert_eq!(amount("0"), Ok(0));
        assert_eq!(amount("-0"), Ok(0));
        assert_eq!(amount(&MAX_COINS.to_string()), Ok(MAX_COINS));
        assert_eq!(amount(&format!("{}1", "0".repeat(80))), Ok(1));
        assert_eq!(amount(&(MAX_COINS + 1).to_string()), Err(ErrorCode::AmountTooLarge));
        assert_eq!(amount(&"9".repeat(80)), Err(ErrorCode::AmountTooLarge));
        assert_eq!(amount("-5"), Err(ErrorCode::NegativeAmount));
        assert_eq!(amount("-1.5"), Err(ErrorCode::NegativeAmount));
        assert_eq!(amount("1.5"), Err(ErrorCode::FractionalAmount));
        // Whitespace anywhere is outside the pattern (it used to be trimmed).
        for bad in
            ["", " ", " 5", "5 ", "\t5", "5\n", "1e9", "0x10", "1_000", "abc", "+", "-", "+-5", "--5", "1.", ".5", "١٢"]
        {
            assert_eq!(amount(bad), Err(ErrorCode::BadAmount), "{bad:?}");
        }
    }

    #[test]
    fn long_inputs_are_shortened() {
        let long = "9".repeat(100);
        let e = LargeInteger::parse(&format!("{long}x")).unwrap_err();
        assert!(!e.message().contains(&long), "{}", e.message());
        assert!(e.message().contains(&format!("`{}…`", &long[..64])), "{}", e.message());
    }
}
