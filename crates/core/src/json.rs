//! One way to read outside JSON: into a serde-derived type, with the path of the field that failed
//! (`serde_path_to_error`) kept beside serde_json's error as data ([`JsonError`]).
//!
//! Owns the read and the error's shape; must not know any wire type or error code (each reader maps a
//! [`JsonError`] into its own typed error, where the code lives). Callers branch on [`JsonError::category`] and
//! [`JsonError::path`], never on the message text.

use serde::de::{Deserialize, DeserializeOwned};
use serde_json::error::Category;

/// Why outside JSON did not read as the wanted type: where (the field path, empty for the document itself) and
/// serde_json's own error.
#[derive(Debug)]
pub struct JsonError {
    path: String,
    source: serde_json::Error,
}

impl JsonError {
    fn new(e: serde_path_to_error::Error<serde_json::Error>) -> JsonError {
        let path = if e.path().iter().next().is_none() { String::new() } else { e.path().to_string() };
        JsonError { path, source: e.into_inner() }
    }

    /// The failing field's path (`pool_list[3].reserve0`), empty when the document itself failed (syntax, end of
    /// input, the wrong kind of root).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What kind of failure: syntax, end of input, or data that does not fit the type.
    pub fn category(&self) -> Category {
        self.source.classify()
    }

    /// serde_json's error.
    pub fn inner(&self) -> &serde_json::Error {
        &self.source
    }
}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            self.source.fmt(f)
        } else {
            write!(f, "at `{}`: {}", self.path, self.source)
        }
    }
}

impl std::error::Error for JsonError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// Reads `T` from JSON text (the whole text: trailing characters are refused).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, JsonError> {
    from_slice(text.as_bytes())
}

/// Reads `T` from JSON bytes (the whole input: trailing characters are refused).
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, JsonError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(JsonError::new)?;
    de.end().map_err(|source| JsonError { path: String::new(), source })?;
    Ok(value)
}

/// Reads `T` from an already parsed value (a record of a list that is read one record at a time), borrowing
/// from it where `T` does.
pub fn from_value<'a, T: Deserialize<'a>>(value: &'a serde_json::Value) -> Result<T, JsonError> {
    serde_path_to_error::deserialize(value).map_err(JsonError::new)
}

/// `T` read from a JSON object only. serde's derived structs also accept an array (the fields by position);
/// an outside record read through `Object` refuses one, as a reader that wants an object should.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Object<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Object<T>, D::Error> {
        d.deserialize_map(ObjectVisitor(std::marker::PhantomData))
    }
}

struct ObjectVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for ObjectVisitor<T> {
    type Value = Object<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Object<T>, A::Error> {
        T::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(Object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        items: Vec<Inner>,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        amount: String,
    }

    #[test]
    fn failures_name_the_field_path() {
        let e = from_str::<Outer>(r#"{"items": [{"amount": "1"}, {"amount": 2}]}"#).unwrap_err();
        assert_eq!(e.path(), "items[1].amount");
        assert_eq!(e.category(), Category::Data);
        assert!(e.to_string().starts_with("at `items[1].amount`: invalid type: integer `2`"), "{e}");
        let value = serde_json::json!({"items": [{}]});
        let e = from_value::<Outer>(&value).unwrap_err();
        assert_eq!((e.path(), e.to_string().as_str()), ("items[0]", "at `items[0]`: missing field `amount`"));
    }

    #[test]
    fn the_document_itself_has_an_empty_path_and_a_cut_one_a_category() {
        assert_eq!(from_str::<Outer>("{").unwrap_err().category(), Category::Eof);
        let e = from_str::<Outer>(r#"{"items": []} x"#).unwrap_err();
        assert_eq!((e.path(), e.category()), ("", Category::Syntax));
        let e = from_str::<Object<Outer>>("[[]]").unwrap_err();
        assert_eq!((e.path(), e.category()), ("", Category::Data));
        assert!(from_str::<Outer>("[[]]").is_ok(), "a derived struct alone takes an array");
        let e = from_str::<Object<Outer>>(r#"{"items": [{"amount": 1}]}"#).unwrap_err();
        assert_eq!(e.path(), "items[0].amount");
    }
}
