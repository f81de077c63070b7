//! Request bodies → wire types, with serde, and serde's errors → `{code, message}` naming the field.
//!
//! A body is deserialised straight into its strict wire type ([`super::wire`]), whose values parse
//! themselves ([`super::value`]). A valid body is read once, with no bookkeeping; only a body that fails is
//! read a second time with the path tracked (`serde_path_to_error`) and typed errors ([`super::typed`]), so
//! the error can name the field (`swap_data.routes[0][1].in_amount`) instead of serde's line and column. The
//! failure's kind becomes its code (never read back from serde's text): not JSON 1000, missing field 1002, wrong JSON type 1003, unknown field 1004, and each value's own
//! code (1010–1030) as the value reported it. These functions are total: no input panics (the fuzz targets in
//! `fuzz/` hold them to it).

use serde::de::DeserializeOwned;
use serde_json::error::Category;
use serde_path_to_error::Segment;
use tonlib_core::TonAddress;

use super::error::{ApiError, ErrorCode};
use super::typed::{self, Failure, Wire};
use super::wire::{AdminBatchBody, QuoteRequestBody, ReserveUpdate, SwapDataWire, SwapRequestBody};
use tonroute_core::route::{QuoteRequest, SwapData};

/// Largest accepted request body, bytes. Bigger bodies are [`ErrorCode::BodyTooLarge`].
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Most entries in one `/v4/admin/reserves` batch (the body limit bounds it anyway).
pub const MAX_RESERVE_UPDATES: usize = 1000;

/// A parsed `/v4/router/swap` request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapRequest {
    /// The wallet that signs and receives.
    pub sender: TonAddress,
    /// The swap data, parsed (checked against a graph by [`tonroute_core::swap::build::check_swap`]).
    pub swap_data: SwapData,
}

/// Bytes → a wire type, with the size limit; errors name the field.
pub fn body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    if bytes.len() > MAX_BODY_BYTES {
        return Err(ApiError::new(
            ErrorCode::BodyTooLarge,
            format!("request body is {} bytes; the limit is {MAX_BODY_BYTES}", bytes.len()),
        ));
    }
    if let Ok(v) = serde_json::from_slice(bytes) {
        return Ok(v);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    match typed::read::<_, T>(&mut de) {
        Err(e) => Err(wire_error(&path_text(e.path()), e.into_inner())),
        // What the tracked read accepts and the plain one refused is the text after the value.
        Ok(_) => Err(wire_error("", de.end().err().map_or(Wire::Failure(Failure::Other(String::new())), Wire::Inner))),
    }
}

/// Reads a wire type from an already parsed JSON value (`path` is the value's place, prefixed to fields).
pub fn value<T: DeserializeOwned>(v: &serde_json::Value, path: &str) -> Result<T, ApiError> {
    typed::read::<_, T>(v).map_err(|e| {
        let inner = path_text(e.path());
        wire_error(&join(path, &inner), e.into_inner())
    })
}

/// `a.b[0].c` from serde_path_to_error's segments (empty for the body itself).
fn path_text(path: &serde_path_to_error::Path) -> String {
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => push_field(&mut out, key),
            Segment::Enum { variant } => push_field(&mut out, variant),
            Segment::Unknown => push_field(&mut out, "?"),
        }
    }
    out
}

fn push_field(out: &mut String, field: &str) {
    if !out.is_empty() {
        out.push('.');
    }
    out.push_str(field);
}

fn join(path: &str, field: &str) -> String {
    match (path.is_empty(), field.is_empty() || field.starts_with('[')) {
        (true, _) => field.to_string(),
        (false, true) => format!("{path}{field}"),
        (false, false) => format!("{path}.{field}"),
    }
}

/// serde's message without the ` at line L column C` serde_json appends.
fn bare_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(bare) if e.line() != 0 => bare.to_string(),
        _ => text,
    }
}

/// serde's "expected" text in the API's words.
fn expected(text: &str) -> String {
    match text {
        "a sequence" => "an array".into(),
        other => other.to_string(),
    }
}

/// The API error of a deserialisation failure at `path` (empty: the body itself).
fn wire_error(path: &str, e: Wire<serde_json::Error>) -> ApiError {
    let at = |kind: ErrorCode, field: &str, message: String| {
        if field.is_empty() {
            ApiError::new(kind, message)
        } else {
            ApiError::field(kind, field, message)
        }
    };
    let failure = match e {
        Wire::Inner(e) if !matches!(e.classify(), Category::Data) => {
            return ApiError::new(ErrorCode::MalformedJson, format!("request body is not valid JSON: {e}"));
        }
        Wire::Inner(e) => Failure::Other(bare_message(&e)),
        Wire::Failure(f) => f,
    };
    match failure {
        Failure::Problem(problem) => at(problem.kind(), path, problem.message().to_string()),
        Failure::MissingField(field) => ApiError::field(ErrorCode::MissingField, &join(path, field), "missing"),
        // `path` ends with the field.
        Failure::UnknownField { expected, .. } => {
            at(ErrorCode::UnknownField, path, format!("unknown field; {}", typed::known(expected)))
        }
        Failure::DuplicateField(field) => ApiError::field(ErrorCode::MalformedJson, &join(path, field), "given twice"),
        Failure::WrongType { got, expected: wanted } => {
            let wanted = expected(&wanted);
            if path.is_empty() {
                let wanted = wanted.replace("an object", "a JSON object").replace("an array", "a JSON array");
                ApiError::new(ErrorCode::MalformedJson, format!("request body must be {wanted}, got {got}"))
            } else {
                ApiError::field(ErrorCode::WrongType, path, format!("expected {wanted}, got {got}"))
            }
        }
        Failure::WrongLength { len, expected: wanted } => {
            at(ErrorCode::WrongType, path, format!("expected {}, got {len} elements", expected(&wanted)))
        }
        Failure::Other(text) => {
            at(if path.is_empty() { ErrorCode::MalformedJson } else { ErrorCode::WrongType }, path, text)
        }
    }
}

/// Parses a `/v4/router/quote` body into the core request, through its validating constructor (everything
/// but whether the assets are in a graph).
///
/// ```
/// use tonroute_api::parse::parse_quote_request;
/// let r = parse_quote_request(br#"{"in_minter": "native", "out_minter":
///     "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", "amount": "1000000000"}"#).unwrap();
/// assert_eq!((r.amount(), r.max_splits(), r.max_length(), r.slippage_bps()), (1_000_000_000, 4, 3, 100));
/// let e = parse_quote_request(br#"{"in_minter": "native", "out_minter": "native", "amount": "-1"}"#).unwrap_err();
/// assert_eq!((e.status(), e.code()), (400, 1015));
/// assert!(e.message().contains("`amount`"));
/// ```
pub fn parse_quote_request(bytes: &[u8]) -> Result<QuoteRequest, ApiError> {
    Ok(parse_quote_call(bytes)?.request)
}

/// A parsed `/v4/router/quote` body: the core request and what the answer carries besides the quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuoteCall {
    /// The request, validated.
    pub request: QuoteRequest,
    /// Whether the answer carries the quote's optimality certificate (`"certify": true`).
    pub certify: bool,
}

/// Parses a `/v4/router/quote` body like [`parse_quote_request`], keeping the `certify` flag.
///
/// ```
/// use tonroute_api::parse::parse_quote_call;
/// let base = r#""in_minter": "native", "out_minter": "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", "amount": "1""#;
/// assert!(parse_quote_call(format!("{{{base}, \"certify\": true}}").as_bytes()).unwrap().certify);
/// assert!(!parse_quote_call(format!("{{{base}, \"certify\": null}}").as_bytes()).unwrap().certify);
/// let e = parse_quote_call(format!("{{{base}, \"certify\": \"yes\"}}").as_bytes()).unwrap_err();
/// assert_eq!((e.status(), e.code(), e.message()), (400, 1003, "field `certify`: expected a boolean, got a string"));
/// ```
pub fn parse_quote_call(bytes: &[u8]) -> Result<QuoteCall, ApiError> {
    let b = body::<QuoteRequestBody>(bytes)?;
    let certify = b.wants_certificate();
    Ok(QuoteCall { request: b.into_request()?, certify })
}

/// Parses a `/v4/router/swap` body: the values parsed, the swap data not yet checked (that is
/// [`tonroute_core::swap::build::check_swap`]'s, against a graph).
pub fn parse_swap_request(bytes: &[u8]) -> Result<SwapRequest, ApiError> {
    let b: SwapRequestBody = body(bytes)?;
    Ok(SwapRequest { sender: b.sender_address.0, swap_data: b.swap_data.into() })
}

/// Parses a `swap_data` object (as a quote response carries it) into the core [`SwapData`]; `path` is where
/// it sits, for error messages.
pub fn parse_swap_data(v: &serde_json::Value, path: &str) -> Result<SwapData, ApiError> {
    Ok(value::<SwapDataWire>(v, path)?.into())
}

/// A parsed `/v4/admin/reserves` body: its entries, and whether the batch forces price moves beyond the
/// server's limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminBatch {
    /// `"force": true` (object form only).
    pub force: bool,
    /// The entries, in order.
    pub updates: Vec<ReserveUpdate>,
    /// Where the entries sit in the body, for error paths: `""` for the array form (`[2].reserves`),
    /// `"updates"` for the object form (`updates[2].reserves`).
    pub path: &'static str,
}

/// Parses a `/v4/admin/reserves` body (values parsed; whether each fits its pool is
/// [`super::admin::apply_batch`]'s question), in either form: the array of entries `[{…}, …]`, or the object
/// `{"force": true, "updates": [{…}, …]}` (`force` optional, default `false`). At most
/// [`MAX_RESERVE_UPDATES`] entries.
pub fn parse_admin_batch(bytes: &[u8]) -> Result<AdminBatch, ApiError> {
    // The first byte that is not JSON whitespace says which form; anything else is read as the array form,
    // whose error says what was expected.
    let first = bytes.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    let batch = if first == Some(&b'{') {
        let object: AdminBatchBody = body(bytes)?;
        let Some(updates) = object.updates else {
            return Err(ApiError::new(
                ErrorCode::MalformedJson,
                "request body must be a JSON array of updates, or an object with `updates` (and optionally \
                 `force`); got an object without `updates`",
            ));
        };
        AdminBatch { force: object.force, updates, path: "updates" }
    } else {
        AdminBatch { force: false, updates: body(bytes)?, path: "" }
    };
    if batch.updates.len() > MAX_RESERVE_UPDATES {
        return Err(ApiError::new(
            ErrorCode::BodyTooLarge,
            format!("{} updates; at most {MAX_RESERVE_UPDATES} per request", batch.updates.len()),
        ));
    }
    Ok(batch)
}

/// Parses a `/v4/admin/reserves` body of reserve entries only: `[{"pool": addr, "reserves": ["r0", "r1"]}, …]`,
/// reserves below 2^120 (zero allowed: an emptied pool). An entry without `reserves` is 1002.
pub fn parse_reserve_updates(bytes: &[u8]) -> Result<Vec<(TonAddress, [u128; 2])>, ApiError> {
    parse_admin_batch(bytes)?
        .updates
        .into_iter()
        .enumerate()
        .map(|(i, u)| match u.reserves {
            Some(r) => Ok((u.pool.0, r.map(|r| r.0))),
            None => Err(ApiError::field(ErrorCode::MissingField, &format!("[{i}].reserves"), "missing")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote_error(body: &str) -> (i32, String) {
        let e = parse_quote_request(body.as_bytes()).unwrap_err();
        (e.code(), e.message().to_string())
    }

    #[test]
    fn serde_errors_name_the_field_and_keep_the_codes() {
        let base = r#""in_minter": "native", "out_minter": "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe""#;
        let cases = [
            (String::new(), 1000, "request body is not valid JSON"),
            ("[1]".into(), 1000, "request body must be a JSON object, got an array"),
            (format!("{{{base}, \"amount\": \"1\"}} x"), 1000, "not valid JSON"),
            (format!("{{{base}}}"), 1002, "field `amount`: missing"),
            (
                format!("{{{base}, \"amount\": \"1\", \"max_split\": 2}}"),
                1004,
                "field `max_split`: unknown field; expected one of `in_minter`",
            ),
            (format!("{{{base}, \"amount\": \"1\", \"amount\": \"2\"}}"), 1000, "field `amount`: given twice"),
            (
                format!("{{{base}, \"amount\": 1}}"),
                1003,
                "field `amount`: expected a decimal integer string, got a number",
            ),
            (format!("{{{base}, \"amount\": \" 1\"}}"), 1012, "field `amount`: ` 1` is not a decimal integer string"),
            (
                format!("{{{base}, \"amount\": \"1\", \"max_splits\": 2.5}}"),
                1003,
                "field `max_splits`: expected an integer, got 2.5",
            ),
            (
                format!("{{{base}, \"amount\": \"1\", \"max_splits\": -1}}"),
                1020,
                "field `max_splits`: -1 is out of range 1..=20",
            ),
            (
                format!("{{{base}, \"amount\": \"1\", \"max_length\": 9}}"),
                1021,
                "field `max_length`: 9 is out of range 1..=5",
            ),
            (
                format!("{{{base}, \"amount\": \"1\", \"slippage_bps\": 99999999999}}"),
                1022,
                "field `slippage_bps`: 99999999999 is out of range 0..=10000",
            ),
            (format!("{{{base}, \"amount\": \"0\"}}"), 1013, "field `amount`: must be positive"),
        ];
        for (body, code, needle) in cases {
            let (got_code, message) = quote_error(&body);
            assert_eq!(got_code, code, "{body}: {message}");
            assert!(message.contains(needle), "{body}: {message}");
        }
    }

    #[test]
    fn nested_paths_and_the_reserve_batch() {
        let e = parse_reserve_updates(br#"[{"pool": "0:00", "reserves": ["1", "2"]}]"#).unwrap_err();
        assert_eq!(e.code(), 1011);
        assert!(e.message().starts_with("field `[0].pool`: "), "{e}");
        let e = parse_reserve_updates(br#"[{"pool": "0:00", "reserves": ["1"]}]"#).unwrap_err();
        assert_eq!(e.code(), 1011, "fields are read in order: the pool first");
        let pool = format!("0:{}", "12".repeat(32));
        let e = parse_reserve_updates(format!(r#"[{{"pool": "{pool}", "reserves": ["1"]}}]"#).as_bytes()).unwrap_err();
        assert_eq!(
            (e.code(), e.message()),
            (1003, "field `[0].reserves`: expected an array of length 2, got 1 elements")
        );
        let e = parse_reserve_updates(br#"{}"#).unwrap_err();
        assert_eq!(e.code(), 1000);
        assert!(e.message().starts_with("request body must be a JSON array"), "{e}");
        let e = parse_reserve_updates(br#"7"#).unwrap_err();
        assert_eq!((e.code(), e.message()), (1000, "request body must be a JSON array, got a number"));
        // Addresses refuse whitespace as amounts do.
        let e = parse_reserve_updates(format!(r#"[{{"pool": " {pool} ", "reserves": ["0", "+7"]}}]"#).as_bytes())
            .unwrap_err();
        assert_eq!(e.code(), 1011);
        assert!(e.message().contains("whitespace at position 0"), "{}", e.message());
        let ok = parse_reserve_updates(format!(r#"[{{"pool": "{pool}", "reserves": ["0", "+7"]}}]"#).as_bytes());
        assert_eq!(ok.unwrap()[0].1, [0, 7]);
        let v: serde_json::Value = serde_json::json!({"slippage_bps": 5, "routes": [[{"pool_address": 1}]]});
        let e = parse_swap_data(&v, "swap_data").unwrap_err();
        assert_eq!(
            (e.code(), e.message()),
            (1003, "field `swap_data.routes[0][0].pool_address`: expected a string, got a number")
        );
    }
}
