//! Typed deserialisation errors: a [`Typed`] deserialiser wraps any serde deserialiser (serde_json's reader or
//! a `serde_json::Value`) so that what the wire types' `Deserialize` impls report travels as data
//! ([`Failure`]), not as text to be read back.
//!
//! serde's derives report a missing, unknown or duplicate field, a wrong JSON type and a wrong array length
//! through the error type's typed constructors (`missing_field`, `unknown_field`, `invalid_type` …); the
//! error type of a serde_json read is `serde_json::Error`, whose constructors keep text only. Under
//! [`Typed`] every visitor, map, sequence and enum access sees [`Wire`] as its error type instead, so those
//! constructors build a [`Failure`]; where serde_json's own code sits between two layers the failure waits in
//! the read's slot (a `Cell` owned by the call) and is taken back at the next layer up. Every value is read
//! through `deserialize_any`, so a wrong JSON type is always refused by a visitor (typed), never by
//! serde_json's own check (text). A value's [`Problem`] (its code and message) is handed over from
//! [`Problem`]'s constructor of serde errors to [`Wire::custom`] through a per-thread slot, checked against
//! the message it was written with. Syntax errors stay serde_json's own ([`Wire::Inner`]), classified by
//! [`serde_json::Error::classify`].
//! Must not know any wire type or error code beyond what a [`Problem`] carries.

use super::error::ErrorCode;
use std::cell::{Cell, RefCell};
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, Expected, MapAccess, SeqAccess, Unexpected};
use serde::de::{VariantAccess, Visitor};

/// The JSON kind a value had where another was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Got {
    /// `null`.
    Null,
    /// `true` / `false`.
    Boolean,
    /// Any number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
    /// Anything else serde names (only non-JSON deserialisers produce these).
    Other(String),
}

impl Got {
    fn of(unexpected: &Unexpected<'_>) -> Got {
        match unexpected {
            Unexpected::Unit => Got::Null,
            Unexpected::Bool(_) => Got::Boolean,
            Unexpected::Unsigned(_) | Unexpected::Signed(_) | Unexpected::Float(_) => Got::Number,
            Unexpected::Char(_) | Unexpected::Str(_) => Got::String,
            Unexpected::Seq => Got::Array,
            Unexpected::Map => Got::Object,
            other => Got::Other(other.to_string()),
        }
    }
}

impl fmt::Display for Got {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Got::Null => "null",
            Got::Boolean => "a boolean",
            Got::Number => "a number",
            Got::String => "a string",
            Got::Array => "an array",
            Got::Object => "an object",
            Got::Other(text) => text,
        })
    }
}

/// What a typed read refused, as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// A value that does not parse, with its code.
    Problem(Problem),
    /// A required field is absent.
    MissingField(&'static str),
    /// A field the object does not have; `expected` lists the fields it has.
    UnknownField {
        /// The field given.
        field: String,
        /// The fields the object has.
        expected: &'static [&'static str],
    },
    /// A field given twice.
    DuplicateField(&'static str),
    /// A value of the wrong JSON kind; `expected` is what the reader wanted, in its own words.
    WrongType {
        /// The kind given.
        got: Got,
        /// What was wanted.
        expected: String,
    },
    /// An array of the wrong length.
    WrongLength {
        /// The length given.
        len: usize,
        /// What was wanted.
        expected: String,
    },
    /// Any other refusal, by its text (serde's `invalid value` and `unknown variant`, a reader's own text).
    Other(String),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Problem(p) => write!(f, "{} ({})", p.message(), p.kind().code()),
            Failure::MissingField(field) => write!(f, "missing field `{field}`"),
            Failure::UnknownField { field, expected } => write!(f, "unknown field `{field}`, {}", known(expected)),
            Failure::DuplicateField(field) => write!(f, "duplicate field `{field}`"),
            Failure::WrongType { got, expected } => write!(f, "expected {expected}, got {got}"),
            Failure::WrongLength { len, expected } => write!(f, "expected {expected}, got {len} elements"),
            Failure::Other(text) => f.write_str(text),
        }
    }
}

/// `expected one of `a`, `b`` (serde's wording for the fields an object has).
pub fn known(fields: &[&str]) -> String {
    let quoted = |f: &&str| format!("`{f}`");
    match fields {
        [] => "there are no fields".to_string(),
        [one] => format!("expected {}", quoted(one)),
        [a, b] => format!("expected {} or {}", quoted(a), quoted(b)),
        many => format!("expected one of {}", many.iter().map(quoted).collect::<Vec<_>>().join(", ")),
    }
}

/// The error of a typed read: a [`Failure`], or the underlying deserialiser's own error (JSON syntax, end of
/// input, I/O).
#[derive(Debug)]
pub enum Wire<E> {
    /// Refused by a reader, as data.
    Failure(Failure),
    /// The underlying deserialiser's error.
    Inner(E),
}

impl<E: fmt::Display> fmt::Display for Wire<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wire::Failure(failure) => failure.fmt(f),
            Wire::Inner(e) => e.fmt(f),
        }
    }
}

impl<E: std::error::Error> std::error::Error for Wire<E> {}

thread_local! {
    /// The [`Problem`] last turned into a serde error, until [`Wire::custom`] takes it.
    static PENDING: RefCell<Option<Problem>> = const { RefCell::new(None) };
}

/// Hands `problem` to the [`Wire::custom`] that the caller is about to call (see the module comment).
pub(crate) fn hand_over(problem: &Problem) {
    PENDING.with(|p| *p.borrow_mut() = Some(problem.clone()));
}

fn take_pending() -> Option<Problem> {
    PENDING.with(|p| p.borrow_mut().take())
}

impl<E: de::Error> de::Error for Wire<E> {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        let text = msg.to_string();
        match take_pending() {
            Some(p) if p.message() == text => Wire::Failure(Failure::Problem(p)),
            _ => Wire::Failure(Failure::Other(text)),
        }
    }

    fn invalid_type(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        Wire::Failure(Failure::WrongType { got: Got::of(&unexp), expected: exp.to_string() })
    }

    fn invalid_value(unexp: Unexpected<'_>, exp: &dyn Expected) -> Self {
        Wire::Failure(Failure::Other(format!("invalid value: {unexp}, expected {exp}")))
    }

    fn invalid_length(len: usize, exp: &dyn Expected) -> Self {
        Wire::Failure(Failure::WrongLength { len, expected: exp.to_string() })
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        let list = match expected {
            [] => "there are no variants".to_string(),
            _ => known(expected),
        };
        Wire::Failure(Failure::Other(format!("unknown variant `{variant}`, {list}")))
    }

    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Wire::Failure(Failure::UnknownField { field: field.to_string(), expected })
    }

    fn missing_field(field: &'static str) -> Self {
        Wire::Failure(Failure::MissingField(field))
    }

    fn duplicate_field(field: &'static str) -> Self {
        Wire::Failure(Failure::DuplicateField(field))
    }
}

/// Where a failure waits while serde_json's code carries the error between two typed layers.
type Slot = Cell<Option<Failure>>;

/// Down: a typed layer's error into the layer below's (a failure waits in the slot).
fn stash<E: de::Error>(slot: &Slot, e: Wire<E>) -> E {
    match e {
        Wire::Inner(e) => e,
        Wire::Failure(f) => {
            slot.set(Some(f));
            E::custom("refused (the failure is in the typed read's slot)")
        }
    }
}

/// Up: the layer below's error back into a typed one.
fn unstash<E>(slot: &Slot, e: E) -> Wire<E> {
    match slot.take() {
        Some(f) => Wire::Failure(f),
        None => Wire::Inner(e),
    }
}

/// Deserialises `T` from `d` with typed errors; paths are serde_path_to_error's.
pub fn read<'de, D: Deserializer<'de>, T: de::Deserialize<'de>>(
    d: D,
) -> Result<T, serde_path_to_error::Error<Wire<D::Error>>> {
    take_pending();
    let slot = Slot::new(None);
    serde_path_to_error::deserialize(Typed { inner: d, slot: &slot })
}

/// A deserialiser whose error is [`Wire`] (see the module comment).
pub struct Typed<'s, D> {
    inner: D,
    slot: &'s Slot,
}

impl<D: fmt::Debug> fmt::Debug for Typed<'_, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Typed").field("inner", &self.inner).finish_non_exhaustive()
    }
}

struct TypedVisitor<'s, V> {
    inner: V,
    slot: &'s Slot,
}

struct TypedSeed<'s, S> {
    inner: S,
    slot: &'s Slot,
}

struct TypedAccess<'s, A> {
    inner: A,
    slot: &'s Slot,
}

macro_rules! through_any {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            let slot = self.slot;
            self.inner.deserialize_any(TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
        }
    )*};
}

macro_rules! through_named {
    ($($method:ident),*) => {$(
        fn $method<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Self::Error> {
            let slot = self.slot;
            self.inner.deserialize_any(TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Typed<'_, D> {
    type Error = Wire<D::Error>;

    through_any!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier
    );
    through_named!(deserialize_unit_struct);

    fn deserialize_i128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let slot = self.slot;
        self.inner.deserialize_i128(TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
    }

    fn deserialize_u128<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let slot = self.slot;
        self.inner.deserialize_u128(TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let slot = self.slot;
        self.inner.deserialize_option(TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let slot = self.slot;
        self.inner.deserialize_newtype_struct(name, TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        self.deserialize_any(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_any(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let slot = self.slot;
        self.inner.deserialize_enum(name, variants, TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        let slot = self.slot;
        self.inner.deserialize_ignored_any(TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

macro_rules! visit_plain {
    ($($method:ident($t:ty)),*) => {$(
        fn $method<E: de::Error>(self, v: $t) -> Result<V::Value, E> {
            self.inner.$method::<Wire<E>>(v).map_err(|e| stash(self.slot, e))
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for TypedVisitor<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    visit_plain!(
        visit_bool(bool),
        visit_i8(i8),
        visit_i16(i16),
        visit_i32(i32),
        visit_i64(i64),
        visit_i128(i128),
        visit_u8(u8),
        visit_u16(u16),
        visit_u32(u32),
        visit_u64(u64),
        visit_u128(u128),
        visit_f32(f32),
        visit_f64(f64),
        visit_char(char),
        visit_str(&str),
        visit_borrowed_str(&'de str),
        visit_string(String),
        visit_bytes(&[u8]),
        visit_borrowed_bytes(&'de [u8]),
        visit_byte_buf(Vec<u8>)
    );

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none::<Wire<E>>().map_err(|e| stash(self.slot, e))
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit::<Wire<E>>().map_err(|e| stash(self.slot, e))
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        let slot = self.slot;
        self.inner.visit_some(Typed { inner: d, slot }).map_err(|e| stash(slot, e))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        let slot = self.slot;
        self.inner.visit_newtype_struct(Typed { inner: d, slot }).map_err(|e| stash(slot, e))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let slot = self.slot;
        self.inner.visit_seq(TypedAccess { inner: seq, slot }).map_err(|e| stash(slot, e))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let slot = self.slot;
        self.inner.visit_map(TypedAccess { inner: map, slot }).map_err(|e| stash(slot, e))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        let slot = self.slot;
        self.inner.visit_enum(TypedAccess { inner: data, slot }).map_err(|e| stash(slot, e))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for TypedSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        let slot = self.slot;
        self.inner.deserialize(Typed { inner: d, slot }).map_err(|e| stash(slot, e))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for TypedAccess<'_, A> {
    type Error = Wire<A::Error>;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Self::Error> {
        let slot = self.slot;
        self.inner.next_element_seed(TypedSeed { inner: seed, slot }).map_err(|e| unstash(slot, e))
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for TypedAccess<'_, A> {
    type Error = Wire<A::Error>;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        let slot = self.slot;
        self.inner.next_key_seed(TypedSeed { inner: seed, slot }).map_err(|e| unstash(slot, e))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, Self::Error> {
        let slot = self.slot;
        self.inner.next_value_seed(TypedSeed { inner: seed, slot }).map_err(|e| unstash(slot, e))
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'s, 'de, A: EnumAccess<'de>> EnumAccess<'de> for TypedAccess<'s, A> {
    type Error = Wire<A::Error>;
    type Variant = TypedAccess<'s, A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<(T::Value, Self::Variant), Self::Error> {
        let slot = self.slot;
        match self.inner.variant_seed(TypedSeed { inner: seed, slot }) {
            Ok((value, variant)) => Ok((value, TypedAccess { inner: variant, slot })),
            Err(e) => Err(unstash(slot, e)),
        }
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for TypedAccess<'_, A> {
    type Error = Wire<A::Error>;

    fn unit_variant(self) -> Result<(), Self::Error> {
        let slot = self.slot;
        self.inner.unit_variant().map_err(|e| unstash(slot, e))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Self::Error> {
        let slot = self.slot;
        self.inner.newtype_variant_seed(TypedSeed { inner: seed, slot }).map_err(|e| unstash(slot, e))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        let slot = self.slot;
        self.inner.tuple_variant(len, TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        let slot = self.slot;
        self.inner.struct_variant(fields, TypedVisitor { inner: visitor, slot }).map_err(|e| unstash(slot, e))
    }
}

/// A wire value that does not parse: the error code and the message, without the field's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    kind: ErrorCode,
    message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl Problem {
    /// A problem of kind `kind`.
    pub fn new(kind: ErrorCode, message: impl std::fmt::Display) -> Problem {
        Problem { kind, message: message.to_string() }
    }

    /// The problem as a deserialiser's error: under [`Typed`] it arrives as
    /// [`Failure::Problem`] (code and message as data); elsewhere as its message.
    pub(crate) fn into_error<E: serde::de::Error>(self) -> E {
        hand_over(&self);
        E::custom(&self.message)
    }

    /// The kind.
    pub fn kind(&self) -> ErrorCode {
        self.kind
    }

    /// The message (without a field path).
    pub fn message(&self) -> &str {
        &self.message
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::wire::QuoteRequestBody;

    fn failure(json: &str) -> (String, Failure) {
        let mut de = serde_json::Deserializer::from_str(json);
        match read::<_, QuoteRequestBody>(&mut de) {
            Err(e) => (
                e.path().to_string(),
                match e.into_inner() {
                    Wire::Failure(f) => f,
                    Wire::Inner(e) => panic!("{json}: serde_json's own error {e}"),
                },
            ),
            Ok(_) => panic!("{json}: accepted"),
        }
    }

    #[test]
    fn failures_arrive_as_data_with_their_codes() {
        let base = r#""in_minter": "native", "out_minter": "native""#;
        let (path, f) = failure(&format!("{{{base}, \"amount\": \"-5\"}}"));
        assert_eq!(path, "amount");
        let Failure::Problem(p) = f else { panic!("{f:?}") };
        assert_eq!((p.kind(), p.message()), (ErrorCode::NegativeAmount, "`-5` is negative"));
        assert_eq!(failure(&format!("{{{base}}}")).1, Failure::MissingField("amount"));
        assert_eq!(
            failure(&format!("{{{base}, \"amount\": \"1\", \"amount\": \"1\"}}")).1,
            Failure::DuplicateField("amount")
        );
        let (path, f) = failure(&format!("{{{base}, \"amount\": \"1\", \"nope\": 1}}"));
        assert_eq!(path, "nope");
        assert!(matches!(f, Failure::UnknownField { ref field, .. } if field == "nope"), "{f:?}");
        let (path, f) = failure(&format!("{{{base}, \"amount\": \"1\", \"certify\": [true]}}"));
        assert_eq!(path, "certify");
        assert_eq!(f, Failure::WrongType { got: Got::Array, expected: "a boolean".into() });
        assert_eq!(failure("[]").1, Failure::WrongType { got: Got::Array, expected: "an object".into() });
    }

    #[test]
    fn syntax_errors_stay_serde_jsons() {
        let mut de = serde_json::Deserializer::from_str("{\"amount\": ");
        let e = read::<_, QuoteRequestBody>(&mut de).unwrap_err().into_inner();
        assert!(matches!(e, Wire::Inner(ref e) if e.is_eof()), "{e:?}");
    }

    #[test]
    fn known_fields_read_as_serde_writes_them() {
        assert_eq!(known(&[]), "there are no fields");
        assert_eq!(known(&["a"]), "expected `a`");
        assert_eq!(known(&["a", "b"]), "expected `a` or `b`");
        assert_eq!(known(&["a", "b", "c"]), "expected one of `a`, `b`, `c`");
    }
}
