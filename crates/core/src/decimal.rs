//! The wire's decimal strings: LargeInteger (`^[-+]?[0-9]+$`) and LargeFloat (`^[-+]?[0-9]*\.?[0-9]+$`),
//! exactly (no whitespace, no exponent, ASCII digits only), so that 2^120-sized amounts survive JSON readers
//! that use doubles. The one place the two patterns are matched ([`large_integer`], [`is_large_float`]) and the
//! validated text types built on them ([`LargeInteger`], [`LargeFloat`]).
//!
//! It sits below the JSON layer (`crate::api`: amounts, reserves, market query parameters) and the market domain
//! (`crate::market`: every answer's figures), which both read and write these strings. Owns the patterns and the
//! conversions of a value to and from its text; must not know what a figure means (an amount, a price, a fee) or
//! which bounds it has (the router's `< 2^120`, a query's range: their owners check them).

use std::fmt;

/// The sign and the digits of a LargeInteger, or `None` when `text` does not match the pattern.
///
/// ```
/// use tonroute_core::decimal::large_integer;
/// assert_eq!(large_integer("+007"), Some((false, "007")));
/// assert_eq!(large_integer("-5"), Some((true, "5")));
/// for bad in ["", "+", " 5", "5 ", "1e9", "1.0", "0x1", "١"] {
///     assert_eq!(large_integer(bad), None, "{bad:?}");
/// }
/// ```
pub fn large_integer(text: &str) -> Option<(bool, &str)> {
    let (negative, digits) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some((negative, digits))
}

/// Whether `text` matches LargeFloat: an optional sign, digits, an optional point, at least one digit
/// after it.
///
/// ```
/// use tonroute_core::decimal::is_large_float;
/// for good in ["1", "-1.5", "+.5", "0.000001", "10"] {
///     assert!(is_large_float(good), "{good:?}");
/// }
/// for bad in ["", "1.", ".", " 1", "1 ", "1e5", "1.5e3", "NaN", "inf", "1,5", "--1"] {
///     assert!(!is_large_float(bad), "{bad:?}");
/// }
/// ```
pub fn is_large_float(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let (whole, fraction) = body.split_once('.').unwrap_or(("", body));
    !fraction.is_empty() && whole.bytes().all(|b| b.is_ascii_digit()) && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// A decimal value that broke its pattern.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
// Exhaustive on purpose (no `#[non_exhaustive]`): tonroute-api maps every variant to its wire code with a
// match, so a new variant is a compile error there until it has one.
pub enum DecimalError {
    /// Not `^[-+]?[0-9]+$`.
    #[error("`{value}` is not a LargeInteger (pattern ^[-+]?[0-9]+$)")]
    NotInteger {
        /// The text received.
        value: String,
    },
    /// Not `^[-+]?[0-9]*\.?[0-9]+$`.
    #[error("`{value}` is not a LargeFloat (pattern ^[-+]?[0-9]*\\.?[0-9]+$)")]
    NotFloat {
        /// The text received.
        value: String,
    },
}

/// LargeInteger: a decimal integer string with an optional sign (`^[-+]?[0-9]+$`), kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LargeInteger(String);

impl LargeInteger {
    /// Validates `text`.
    pub fn new(text: impl Into<String>) -> Result<LargeInteger, DecimalError> {
        let value = text.into();
        if large_integer(&value).is_some() {
            Ok(LargeInteger(value))
        } else {
            Err(DecimalError::NotInteger { value })
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value as an `i128`, if it fits.
    pub fn to_i128(&self) -> Option<i128> {
        self.0.strip_prefix('+').unwrap_or(&self.0).parse().ok()
    }
}

impl From<u128> for LargeInteger {
    fn from(v: u128) -> LargeInteger {
        LargeInteger(v.to_string())
    }
}

impl From<u64> for LargeInteger {
    fn from(v: u64) -> LargeInteger {
        LargeInteger(v.to_string())
    }
}

impl From<i128> for LargeInteger {
    fn from(v: i128) -> LargeInteger {
        LargeInteger(v.to_string())
    }
}

impl fmt::Display for LargeInteger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// LargeFloat: a decimal number string with an optional sign (`^[-+]?[0-9]*\.?[0-9]+$`); no exponent, no
/// trailing point.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LargeFloat(String);

impl LargeFloat {
    /// Validates `text`.
    pub fn new(text: impl Into<String>) -> Result<LargeFloat, DecimalError> {
        let value = text.into();
        if is_large_float(&value) {
            Ok(LargeFloat(value))
        } else {
            Err(DecimalError::NotFloat { value })
        }
    }

    /// A float as the shortest decimal that reads back as the same `f64` (`9934.338675`, not the
    /// `9934.338674999999` a fixed number of digits can give), without exponent; a non-finite value (which no
    /// computation here should produce) is written `0`.
    pub fn from_f64(v: f64) -> LargeFloat {
        if !v.is_finite() || v == 0.0 {
            return LargeFloat(String::from("0"));
        }
        // `Display` of an `f64` writes the shortest round-trip digits and never an exponent (`1e-20` is
        // `0.00000000000000000001`), so the text always matches the LargeFloat pattern.
        LargeFloat(format!("{v}"))
    }

    /// Zero.
    pub fn zero() -> LargeFloat {
        LargeFloat(String::from("0"))
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value as a float (for comparisons and ranking only).
    pub fn to_f64(&self) -> f64 {
        // The pattern guarantees a parseable decimal; `0` is unreachable but harmless.
        self.0.parse().unwrap_or(0.0)
    }
}

impl fmt::Display for LargeFloat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

macro_rules! decimal_text {
    ($t:ty) => {
        impl std::str::FromStr for $t {
            type Err = DecimalError;
            fn from_str(s: &str) -> Result<$t, DecimalError> {
                <$t>::new(s)
            }
        }
        /// Written as its text (a JSON string).
        #[cfg(feature = "serde")]
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }
        /// Read from a JSON string that matches the pattern; a number or another text is refused.
        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                let text = <String as serde::Deserialize>::deserialize(d)?;
                <$t>::new(text).map_err(serde::de::Error::custom)
            }
        }
    };
}
decimal_text!(LargeInteger);
decimal_text!(LargeFloat);

/// docs/interface.md's LargeInteger pattern (the OpenAPI schemas of every decimal integer string).
pub const LARGE_INTEGER_PATTERN: &str = "^[-+]?[0-9]+$";
/// docs/interface.md's LargeFloat pattern.
pub const LARGE_FLOAT_PATTERN: &str = r"^[-+]?[0-9]*\.?[0-9]+$";

/// The OpenAPI schema of a string with a pattern and a description (feature `openapi`).
#[cfg(feature = "openapi")]
pub fn string_schema(
    pattern: Option<&str>,
    description: &str,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .pattern(pattern)
        .description(Some(description))
        .build()
        .into()
}

/// The OpenAPI schema of a string with fixed values (feature `openapi`): an enumeration's wire texts.
#[cfg(feature = "openapi")]
pub fn string_enum_schema<'a>(
    values: impl IntoIterator<Item = &'a str>,
    description: Option<&str>,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(values))
        .description(description)
        .build()
        .into()
}

/// Implements utoipa's `PartialSchema` and `ToSchema` for a wire value whose `Serialize` is written by hand (so
/// no derive can see its shape), under a schema name. It lives here, in the lowest crate, because utoipa's
/// traits can only be implemented in the crate that owns the type (the orphan rule): each crate names its own
/// types with it, behind its `openapi` feature. The calling crate depends on `utoipa`.
#[cfg(feature = "openapi")]
#[macro_export]
macro_rules! string_value_schema {
    ($ty:ty, $name:literal, $schema:expr) => {
        impl utoipa::PartialSchema for $ty {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                $schema
            }
        }
        impl utoipa::ToSchema for $ty {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed($name)
            }
        }
    };
}

/// The OpenAPI schema of a LargeInteger (feature `openapi`): the one schema of this crate's [`LargeInteger`]
/// and of the api's amount type, which write the same text under the same schema name.
#[cfg(feature = "openapi")]
pub fn large_integer_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    string_schema(
        Some(LARGE_INTEGER_PATTERN),
        "Decimal integer string (docs/interface.md LargeInteger); amounts are not negative and below 2^120.",
    )
}

#[cfg(feature = "openapi")]
crate::string_value_schema!(LargeInteger, "LargeInteger", large_integer_schema());
#[cfg(feature = "openapi")]
crate::string_value_schema!(
    LargeFloat,
    "LargeFloat",
    string_schema(Some(LARGE_FLOAT_PATTERN), "Decimal number string without exponent (docs/interface.md LargeFloat).")
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_keep_their_text_and_read_back_when_they_fit() {
        // 2^128 − 1 and −2^127 written out by hand: the extremes of the conversions.
        assert_eq!(LargeInteger::from(u128::MAX).as_str(), "340282366920938463463374607431768211455");
        assert_eq!(LargeInteger::from(i128::MIN).as_str(), "-170141183460469231731687303715884105728");
        assert_eq!(LargeInteger::from(7u64).to_string(), "7");
        // The text is kept as written: sign and leading zeros stay; the value reads through them.
        let padded = LargeInteger::new("+007").unwrap();
        assert_eq!(padded.as_str(), "+007");
        assert_eq!(padded.to_i128(), Some(7));
        assert_eq!(LargeInteger::new("-42").unwrap().to_i128(), Some(-42));
        // 2^127 is one past i128::MAX.
        assert_eq!(LargeInteger::new("170141183460469231731687303715884105728").unwrap().to_i128(), None);
        assert_eq!(LargeInteger::new("170141183460469231731687303715884105727").unwrap().to_i128(), Some(i128::MAX));
        assert_eq!("12".parse::<LargeInteger>(), LargeInteger::new("12"));
    }

    #[test]
    fn each_pattern_refuses_what_it_does_not_match_and_says_which() {
        for bad in ["", "1.5", "1e3", " 1", "0x10", "+-1"] {
            assert_eq!(LargeInteger::new(bad), Err(DecimalError::NotInteger { value: bad.to_string() }), "{bad:?}");
        }
        for bad in ["", "1.", ".", "1e3", "-.", "Infinity"] {
            assert_eq!(LargeFloat::new(bad), Err(DecimalError::NotFloat { value: bad.to_string() }), "{bad:?}");
        }
        assert_eq!(
            LargeFloat::new("1.").unwrap_err().to_string(),
            r"`1.` is not a LargeFloat (pattern ^[-+]?[0-9]*\.?[0-9]+$)"
        );
        assert_eq!(
            LargeInteger::new("x").unwrap_err().to_string(),
            "`x` is not a LargeInteger (pattern ^[-+]?[0-9]+$)"
        );
    }

    #[test]
    fn floats_are_written_as_the_shortest_decimal_that_reads_back_without_exponent() {
        // IEEE-754 facts, independent of this code: 0.1 + 0.2 is the double 0.30000000000000004; 9934.338675 is
        // its own shortest representation; 2^-20 = 0.00000095367431640625 exactly; 1e21 and 1e-7 are the first
        // magnitudes where JavaScript's `toString` switches to exponents.
        let cases: [(f64, &str); 8] = [
            (0.1 + 0.2, "0.30000000000000004"),
            (9934.338675, "9934.338675"),
            (1.0 / 1_048_576.0, "0.00000095367431640625"),
            (1e21, "1000000000000000000000"),
            (1e-7, "0.0000001"),
            (-2.5, "-2.5"),
            (100.0, "100"),
            (0.0, "0"),
        ];
        for (v, text) in cases {
            let f = LargeFloat::from_f64(v);
            assert_eq!(f.as_str(), text, "{v:e}");
            assert!(is_large_float(f.as_str()));
            assert_eq!(f.to_f64(), v, "{text} reads back");
        }
        // Not finite: nothing to write but zero.
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0] {
            assert_eq!(LargeFloat::from_f64(v), LargeFloat::zero(), "{v}");
        }
        assert_eq!(LargeFloat::new("+.5").unwrap().to_f64(), 0.5);
    }
}
