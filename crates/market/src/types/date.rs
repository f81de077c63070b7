//! date-time: the wire's dates, RFC 3339 text (the ISO 8601 profile JSON APIs use) over Unix seconds.
//!
//! Owns the conversions between a date's text, its instant and Unix seconds; must not read a clock ("now" is
//! always the caller's).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// date-time: an RFC 3339 timestamp (the ISO 8601 profile JSON APIs use), e.g. `2024-11-21T12:00:00Z`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime(pub OffsetDateTime);

impl DateTime {
    /// From Unix seconds; `None` outside the representable range.
    pub fn from_unix(secs: i64) -> Option<DateTime> {
        OffsetDateTime::from_unix_timestamp(secs).ok().map(DateTime)
    }

    /// Unix seconds.
    pub fn unix(&self) -> i64 {
        self.0.unix_timestamp()
    }

    /// Parses RFC 3339 text.
    pub fn parse(text: &str) -> Result<DateTime, time::error::Parse> {
        OffsetDateTime::parse(text, &Rfc3339).map(DateTime)
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.format(&Rfc3339) {
            Ok(s) => f.write_str(&s),
            Err(_) => Err(fmt::Error),
        }
    }
}

impl Serialize for DateTime {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = self.0.format(&Rfc3339).map_err(serde::ser::Error::custom)?;
        s.serialize_str(&text)
    }
}

impl<'de> Deserialize<'de> for DateTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DateTime, D::Error> {
        let text = String::deserialize(d)?;
        DateTime::parse(&text)
            .map_err(|e| serde::de::Error::custom(format!("`{text}` is not an RFC 3339 date-time: {e}")))
    }
}

// The OpenAPI schema (feature `openapi`): `Serialize` is written by hand, so no derive can see the shape.
#[cfg(feature = "openapi")]
tonroute_core::string_value_schema!(
    DateTime,
    "DateTime",
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .format(Some(utoipa::openapi::schema::SchemaFormat::KnownFormat(
            utoipa::openapi::schema::KnownFormat::DateTime
        )))
        .description(Some("RFC 3339 timestamp, e.g. `2024-11-21T12:00:00Z`."))
        .build()
        .into()
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_seconds_and_rfc_3339_text_convert_both_ways() {
        // 1,700,000,000 s after the epoch is 2023-11-14 22:13:20 UTC; 2024-11-21 12:00 UTC is 1,732,190,400 s.
        let d = DateTime::from_unix(1_700_000_000).unwrap();
        assert_eq!(d.to_string(), "2023-11-14T22:13:20Z");
        assert_eq!(DateTime::parse("2024-11-21T12:00:00Z").unwrap().unix(), 1_732_190_400);
        // Another offset names the same instant.
        assert_eq!(DateTime::parse("2024-11-21T14:00:00+02:00").unwrap().unix(), 1_732_190_400);
        assert_eq!(DateTime::from_unix(0).unwrap().to_string(), "1970-01-01T00:00:00Z");
        // Far outside the years a date-time shows.
        assert_eq!(DateTime::from_unix(i64::MAX), None);
        // A date alone, a time without its offset, a number, a month 13, nothing.
        for bad in ["2024-11-21", "2024-11-21T12:00:00", "1732190400", "2024-13-01T00:00:00Z", ""] {
            assert!(DateTime::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_date_is_a_json_string_and_a_bad_one_is_refused_with_its_text() {
        let d = DateTime::from_unix(1_732_190_400).unwrap();
        assert_eq!(serde_json::to_string(&d).unwrap(), r#""2024-11-21T12:00:00Z""#);
        assert_eq!(serde_json::from_str::<DateTime>(r#""2024-11-21T12:00:00Z""#).unwrap(), d);
        let e = serde_json::from_str::<DateTime>(r#""yesterday""#).unwrap_err().to_string();
        assert!(e.starts_with("`yesterday` is not an RFC 3339 date-time"), "{e}");
        assert!(serde_json::from_str::<DateTime>("1732190400").is_err());
    }
}
