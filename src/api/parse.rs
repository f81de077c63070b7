//! Validating parsers for request bodies: bytes → core types, every error a 400 naming the field.
//!
//! Bodies are read as a `serde_json::Value` first and then walked field by field, so a wrong type, a missing
//! field or an unknown field is reported with the field's path (`swap_data.routes[0][1].in_amount`) instead
//! of serde's position-only message. Values go through the core's own parsers ([`Asset::parse`],
//! `TonAddress`'s `FromStr`, [`Protocol::from_slug`]) and the core's limits ([`QuoteRequest`] constants,
//! [`MAX_COINS`]). These functions are total: no input panics (the fuzz targets in `fuzz/` hold them to it).

use serde_json::{Map, Value};
use tonlib_core::TonAddress;

use super::error::{ApiError, ErrorCode};
use crate::asset::Asset;
use crate::graph::Protocol;
use crate::pool::MAX_COINS;
use crate::route::{DexBDetails, DexCDetails, QuoteRequest, SwapData, SwapMode, SwapStep};

/// Largest accepted request body, bytes. Bigger bodies are [`ErrorCode::BodyTooLarge`].
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// A parsed `/v4/router/swap` request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwapRequest {
    /// The wallet that signs and receives.
    pub sender: TonAddress,
    /// The swap data, parsed (not yet checked against a graph).
    pub swap_data: SwapData,
}

/// Bytes → JSON value, with the size limit.
pub fn body_json(body: &[u8]) -> Result<Value, ApiError> {
    if body.len() > MAX_BODY_BYTES {
        return Err(ApiError::new(
            ErrorCode::BodyTooLarge,
            format!("request body is {} bytes; the limit is {MAX_BODY_BYTES}", body.len()),
        ));
    }
    serde_json::from_slice(body)
        .map_err(|e| ApiError::new(ErrorCode::MalformedJson, format!("request body is not valid JSON: {e}")))
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn wrong_type(path: &str, expected: &str, got: &Value) -> ApiError {
    ApiError::field(ErrorCode::WrongType, path, format!("expected {expected}, got {}", type_name(got)))
}

/// An object with known fields; reports missing, unknown and mistyped fields by path.
struct Obj<'a> {
    path: String,
    map: &'a Map<String, Value>,
}

impl<'a> Obj<'a> {
    fn new(v: &'a Value, path: &str, allowed: &[&str]) -> Result<Obj<'a>, ApiError> {
        let Value::Object(map) = v else {
            return Err(if path.is_empty() {
                ApiError::new(
                    ErrorCode::MalformedJson,
                    format!("request body must be a JSON object, got {}", type_name(v)),
                )
            } else {
                wrong_type(path, "an object", v)
            });
        };
        // Sorted for a deterministic message when several fields are unknown.
        let mut unknown: Vec<&String> = map.keys().filter(|k| !allowed.contains(&k.as_str())).collect();
        unknown.sort();
        if let Some(k) = unknown.first() {
            let expected = allowed.iter().map(|a| format!("`{a}`")).collect::<Vec<_>>().join(", ");
            return Err(ApiError::field(
                ErrorCode::UnknownField,
                &join(path, k),
                format!("unknown field; expected one of {expected}"),
            ));
        }
        Ok(Obj { path: path.to_string(), map })
    }

    fn path(&self, field: &str) -> String {
        join(&self.path, field)
    }

    /// A required field (null counts as missing a value of the right type).
    fn req(&self, field: &str) -> Result<(&'a Value, String), ApiError> {
        let path = self.path(field);
        match self.map.get(field) {
            Some(v) => Ok((v, path)),
            None => Err(ApiError::field(ErrorCode::MissingField, &path, "missing")),
        }
    }

    /// An optional field; `null` means absent.
    fn opt(&self, field: &str) -> Option<(&'a Value, String)> {
        match self.map.get(field) {
            None | Some(Value::Null) => None,
            Some(v) => Some((v, self.path(field))),
        }
    }

    fn str(&self, field: &str) -> Result<(&'a str, String), ApiError> {
        let (v, path) = self.req(field)?;
        match v {
            Value::String(s) => Ok((s.as_str(), path)),
            other => Err(wrong_type(&path, "a string", other)),
        }
    }

    fn bool(&self, field: &str) -> Result<bool, ApiError> {
        let (v, path) = self.req(field)?;
        v.as_bool().ok_or_else(|| wrong_type(&path, "a boolean", v))
    }
}

fn join(path: &str, field: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else {
        format!("{path}.{field}")
    }
}

/// A non-negative JSON integer (not a float, not a string); negative values are out of range.
fn int(v: &Value, path: &str, range: std::ops::RangeInclusive<u64>, kind: ErrorCode) -> Result<u64, ApiError> {
    let out_of_range =
        |shown: &dyn std::fmt::Display| ApiError::field(kind, path, format!("{shown} is out of range {range:?}"));
    let Value::Number(n) = v else {
        return Err(wrong_type(path, "an integer", v));
    };
    if let Some(u) = n.as_u64() {
        return if range.contains(&u) { Ok(u) } else { Err(out_of_range(&u)) };
    }
    if let Some(i) = n.as_i64() {
        return Err(out_of_range(&i));
    }
    Err(ApiError::field(ErrorCode::WrongType, path, format!("expected an integer, got {n}")))
}

/// A decimal amount string, 0 ≤ value < 2^120 (an optional leading `+` is accepted, as LargeInteger allows).
/// `positive` rejects zero.
pub fn amount(text: &str, path: &str, positive: bool) -> Result<u128, ApiError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ApiError::field(ErrorCode::BadAmount, path, "empty; expected a decimal integer string"));
    }
    let unsigned = t.strip_prefix('+').unwrap_or(t);
    if let Some(rest) = unsigned.strip_prefix('-') {
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            if rest.bytes().all(|b| b == b'0' || b == b'.') {
                // "-0" is zero, not negative.
                return zero_or(path, positive);
            }
            return Err(ApiError::field(ErrorCode::NegativeAmount, path, format!("`{}` is negative", shown(t))));
        }
    }
    if let Some((int_part, frac)) = unsigned.split_once('.') {
        if int_part.bytes().all(|b| b.is_ascii_digit()) && !frac.is_empty() && frac.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(ApiError::field(
                ErrorCode::FractionalAmount,
                path,
                format!("`{}` is fractional; amounts are integers in the asset's smallest units", shown(t)),
            ));
        }
    }
    if !unsigned.bytes().all(|b| b.is_ascii_digit()) || unsigned.is_empty() {
        return Err(ApiError::field(
            ErrorCode::BadAmount,
            path,
            format!("`{}` is not a decimal integer string", shown(t)),
        ));
    }
    let digits = unsigned.trim_start_matches('0');
    // More than 39 significant digits cannot be below 2^120 (≈ 1.33·10^36); skip the parse.
    let value = if digits.is_empty() {
        Some(0)
    } else if digits.len() > 39 {
        None
    } else {
        digits.parse::<u128>().ok()
    };
    match value {
        Some(0) => zero_or(path, positive),
        Some(v) if v <= MAX_COINS => Ok(v),
        _ => Err(ApiError::field(
            ErrorCode::AmountTooLarge,
            path,
            format!("`{}` is not below 2^120 (the chain's Coins limit)", shown(t)),
        )),
    }
}

fn zero_or(path: &str, positive: bool) -> Result<u128, ApiError> {
    if positive {
        Err(ApiError::field(ErrorCode::ZeroAmount, path, "must be positive"))
    } else {
        Ok(0)
    }
}

/// Long inputs are shortened in messages so an error body never echoes a whole oversized field.
fn shown(s: &str) -> String {
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

fn amount_field(obj: &Obj<'_>, field: &str, positive: bool) -> Result<u128, ApiError> {
    let (v, path) = obj.req(field)?;
    match v {
        Value::String(s) => amount(s, &path, positive),
        other => Err(wrong_type(&path, "a decimal integer string", other)),
    }
}

fn asset_field(obj: &Obj<'_>, field: &str) -> Result<Asset, ApiError> {
    let (s, path) = obj.str(field)?;
    Asset::parse(s).map_err(|e| ApiError::field(ErrorCode::BadAsset, &path, e))
}

/// Parses an address the way the core does (`TonAddress`'s `FromStr`: raw, or friendly in either base64).
pub fn address(text: &str, path: &str) -> Result<TonAddress, ApiError> {
    let t = text.trim();
    if t.is_empty() {
        return Err(ApiError::field(ErrorCode::BadAddress, path, "empty; expected a TON address"));
    }
    // Refuses workchains other than 0 and -1 too: nothing else can be written as addr_std.
    crate::asset::parse_address(t).map_err(|e| ApiError::field(ErrorCode::BadAddress, path, e))
}

fn address_field(obj: &Obj<'_>, field: &str) -> Result<TonAddress, ApiError> {
    let (s, path) = obj.str(field)?;
    address(s, &path)
}

fn slippage(v: &Value, path: &str) -> Result<u32, ApiError> {
    let s = int(v, path, 0..=10_000, ErrorCode::SlippageOutOfRange)?;
    // In range 0..=10000, so it fits.
    Ok(u32::try_from(s).unwrap_or(10_000))
}

const QUOTE_FIELDS: &[&str] =
    &["in_minter", "out_minter", "amount", "swap_mode", "slippage_bps", "max_splits", "max_length"];

/// Parses and validates a `/v4/router/quote` body (everything but whether the assets exist in a graph).
///
/// ```
/// use tonroute::api::parse::parse_quote_request;
/// let r = parse_quote_request(br#"{"in_minter": "native", "out_minter":
///     "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", "amount": "1000000000"}"#).unwrap();
/// assert_eq!((r.amount, r.max_splits, r.max_length, r.slippage_bps), (1_000_000_000, 4, 3, 100));
/// let e = parse_quote_request(br#"{"in_minter": "native", "out_minter": "native", "amount": "-1"}"#).unwrap_err();
/// assert_eq!((e.status, e.code), (400, 1015));
/// assert!(e.message.contains("`amount`"));
/// ```
pub fn parse_quote_request(body: &[u8]) -> Result<QuoteRequest, ApiError> {
    let v = body_json(body)?;
    let obj = Obj::new(&v, "", QUOTE_FIELDS)?;
    let in_asset = asset_field(&obj, "in_minter")?;
    let out_asset = asset_field(&obj, "out_minter")?;
    let amount = amount_field(&obj, "amount", true)?;
    let mut swap_mode = SwapMode::ExactIn;
    if let Some((v, path)) = obj.opt("swap_mode") {
        let Value::String(mode) = v else {
            return Err(wrong_type(&path, "a string", v));
        };
        swap_mode = match mode.as_str() {
            "exact_in" => SwapMode::ExactIn,
            "exact_out" => SwapMode::ExactOut,
            _ => {
                return Err(ApiError::field(
                    ErrorCode::UnsupportedSwapMode,
                    &path,
                    format!("`{}` is not supported; use `exact_in` or `exact_out`", shown(mode)),
                ))
            }
        };
    }
    let mut req = QuoteRequest::new(in_asset, out_asset, amount);
    req.swap_mode = swap_mode;
    if let Some((v, path)) = obj.opt("slippage_bps") {
        req.slippage_bps = slippage(v, &path)?;
    }
    if let Some((v, path)) = obj.opt("max_splits") {
        let n = int(v, &path, 1..=QuoteRequest::MAX_SPLITS as u64, ErrorCode::MaxSplitsOutOfRange)?;
        req.max_splits = usize::try_from(n).unwrap_or(QuoteRequest::MAX_SPLITS);
    }
    if let Some((v, path)) = obj.opt("max_length") {
        let n = int(v, &path, 1..=QuoteRequest::MAX_LENGTH as u64, ErrorCode::MaxLengthOutOfRange)?;
        req.max_length = usize::try_from(n).unwrap_or(QuoteRequest::MAX_LENGTH);
    }
    if req.in_asset == req.out_asset {
        return Err(ApiError::field(
            ErrorCode::SameAsset,
            "out_minter",
            format!("same asset as `in_minter` ({})", req.in_asset),
        ));
    }
    Ok(req)
}

/// Parses and validates a `/v4/router/swap` body. The swap data is checked for internal consistency
/// (non-empty, routes chain, common in and out asset) but not yet against a graph.
pub fn parse_swap_request(body: &[u8]) -> Result<SwapRequest, ApiError> {
    let v = body_json(body)?;
    let obj = Obj::new(&v, "", &["sender_address", "swap_data"])?;
    let sender = address_field(&obj, "sender_address")?;
    let (sd, path) = obj.req("swap_data")?;
    let swap_data = parse_swap_data(sd, &path)?;
    Ok(SwapRequest { sender, swap_data })
}

const STEP_FIELDS: &[&str] = &[
    "pool_address",
    "is_stable",
    "in_minter",
    "out_minter",
    "in_amount",
    "out_amount",
    "network_fee",
    "protocol_slug",
    "dex_b_extra_details",
    "dex_c_extra_details",
];

/// Parses a `swap_data` object (as a quote response carries it) into the core [`SwapData`].
pub fn parse_swap_data(v: &Value, path: &str) -> Result<SwapData, ApiError> {
    let obj = Obj::new(v, path, &["slippage_bps", "routes"])?;
    let (sv, spath) = obj.req("slippage_bps")?;
    let slippage_bps = slippage(sv, &spath)?;
    let (rv, rpath) = obj.req("routes")?;
    let Value::Array(routes_json) = rv else {
        return Err(wrong_type(&rpath, "an array of routes", rv));
    };
    if routes_json.is_empty() {
        return Err(ApiError::field(ErrorCode::InconsistentSwapData, &rpath, "no routes"));
    }
    if routes_json.len() > QuoteRequest::MAX_SPLITS {
        return Err(ApiError::field(
            ErrorCode::InconsistentSwapData,
            &rpath,
            format!("{} routes; at most {}", routes_json.len(), QuoteRequest::MAX_SPLITS),
        ));
    }
    let mut routes = Vec::with_capacity(routes_json.len());
    for (i, r) in routes_json.iter().enumerate() {
        let route_path = format!("{rpath}[{i}]");
        let Value::Array(steps_json) = r else {
            return Err(wrong_type(&route_path, "an array of steps", r));
        };
        if steps_json.is_empty() || steps_json.len() > QuoteRequest::MAX_LENGTH {
            return Err(ApiError::field(
                ErrorCode::InconsistentSwapData,
                &route_path,
                format!("{} steps; a route has 1..={}", steps_json.len(), QuoteRequest::MAX_LENGTH),
            ));
        }
        let mut steps: Vec<SwapStep> = Vec::with_capacity(steps_json.len());
        for (j, s) in steps_json.iter().enumerate() {
            let step_path = format!("{route_path}[{j}]");
            let step = parse_step(s, &step_path)?;
            if let Some(prev) = steps.last() {
                if prev.out_asset != step.in_asset {
                    return Err(ApiError::field(
                        ErrorCode::InconsistentSwapData,
                        &join(&step_path, "in_minter"),
                        format!(
                            "{} does not continue the previous step's out_minter {}",
                            step.in_asset, prev.out_asset
                        ),
                    ));
                }
                if prev.out_amount != step.in_amount {
                    return Err(ApiError::field(
                        ErrorCode::InconsistentSwapData,
                        &join(&step_path, "in_amount"),
                        format!("{} differs from the previous step's out_amount {}", step.in_amount, prev.out_amount),
                    ));
                }
            }
            steps.push(step);
        }
        routes.push(steps);
    }
    // Every route swaps the same pair (the first route's ends).
    let ends = |r: &Vec<SwapStep>| (r.first().map(|s| s.in_asset), r.last().map(|s| s.out_asset));
    let (first_in, first_out) = ends(&routes[0]);
    for (i, r) in routes.iter().enumerate().skip(1) {
        if ends(r) != (first_in, first_out) {
            return Err(ApiError::field(
                ErrorCode::InconsistentSwapData,
                &format!("{rpath}[{i}]"),
                "swaps a different pair of assets than routes[0]",
            ));
        }
    }
    Ok(SwapData { slippage_bps, routes })
}

fn parse_step(v: &Value, path: &str) -> Result<SwapStep, ApiError> {
    let obj = Obj::new(v, path, STEP_FIELDS)?;
    let pool_address = address_field(&obj, "pool_address")?;
    let is_stable = obj.bool("is_stable")?;
    let in_asset = asset_field(&obj, "in_minter")?;
    let out_asset = asset_field(&obj, "out_minter")?;
    if in_asset == out_asset {
        return Err(ApiError::field(
            ErrorCode::SameAsset,
            &obj.path("out_minter"),
            format!("same asset as `in_minter` ({in_asset})"),
        ));
    }
    let in_amount = amount_field(&obj, "in_amount", true)?;
    let out_amount = amount_field(&obj, "out_amount", true)?;
    let network_fee = amount_field(&obj, "network_fee", false)?;
    let (slug, slug_path) = obj.str("protocol_slug")?;
    let protocol = Protocol::from_slug(slug).ok_or_else(|| {
        let known = Protocol::ALL.iter().map(|p| format!("`{}`", p.slug())).collect::<Vec<_>>().join(", ");
        ApiError::field(
            ErrorCode::BadProtocol,
            &slug_path,
            format!("unknown protocol `{}`; expected {known}", shown(slug)),
        )
    })?;
    let dex_b = match obj.opt("dex_b_extra_details") {
        Some((d, dpath)) => {
            let d = Obj::new(d, &dpath, &["router", "from_router_wallet", "to_router_wallet"])?;
            Some(DexBDetails {
                router: address_field(&d, "router")?,
                from_router_wallet: address_field(&d, "from_router_wallet")?,
                to_router_wallet: address_field(&d, "to_router_wallet")?,
            })
        }
        None => None,
    };
    let dex_c = match obj.opt("dex_c_extra_details") {
        Some((d, dpath)) => {
            let d = Obj::new(d, &dpath, &["from_router_wallet", "to_router_wallet", "zero_to_one"])?;
            Some(DexCDetails {
                from_router_wallet: address_field(&d, "from_router_wallet")?,
                to_router_wallet: address_field(&d, "to_router_wallet")?,
                zero_to_one: d.bool("zero_to_one")?,
            })
        }
        None => None,
    };
    let details_for = |present: bool, field: &str, wanted: bool| -> Result<(), ApiError> {
        if present && !wanted {
            Err(ApiError::field(
                ErrorCode::InconsistentSwapData,
                &obj.path(field),
                format!("not allowed on a `{}` step", protocol.slug()),
            ))
        } else {
            Ok(())
        }
    };
    details_for(dex_b.is_some(), "dex_b_extra_details", matches!(protocol, Protocol::DexBV1 | Protocol::DexBV2))?;
    details_for(dex_c.is_some(), "dex_c_extra_details", protocol == Protocol::DexC)?;
    Ok(SwapStep {
        pool_address,
        protocol,
        is_stable,
        in_asset,
        out_asset,
        in_amount,
        out_amount,
        network_fee,
        dex_b,
        dex_c,
    })
}

/// Most entries in one `/v4/admin/reserves` batch (the body limit bounds it anyway).
pub const MAX_RESERVE_UPDATES: usize = 1000;

/// Parses a `/v4/admin/reserves` body: `[{"pool": addr, "reserves": ["r0", "r1"]}, …]`, reserves below 2^120
/// (zero allowed: an emptied pool).
pub fn parse_reserve_updates(body: &[u8]) -> Result<Vec<(TonAddress, [u128; 2])>, ApiError> {
    let v = body_json(body)?;
    let Value::Array(items) = &v else {
        return Err(ApiError::new(
            ErrorCode::MalformedJson,
            format!("request body must be a JSON array of updates, got {}", type_name(&v)),
        ));
    };
    if items.len() > MAX_RESERVE_UPDATES {
        return Err(ApiError::new(
            ErrorCode::BodyTooLarge,
            format!("{} updates; at most {MAX_RESERVE_UPDATES} per request", items.len()),
        ));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let obj = Obj::new(item, &format!("[{i}]"), &["pool", "reserves"])?;
        let pool = address_field(&obj, "pool")?;
        let (rv, rpath) = obj.req("reserves")?;
        let pair = match rv {
            Value::Array(a) if a.len() == 2 => a,
            other => return Err(wrong_type(&rpath, "an array of two decimal strings", other)),
        };
        let mut reserves = [0u128; 2];
        for (k, (slot, r)) in reserves.iter_mut().zip(pair).enumerate() {
            let p = format!("{rpath}[{k}]");
            *slot = match r {
                Value::String(s) => amount(s, &p, false)?,
                other => return Err(wrong_type(&p, "a decimal integer string", other)),
            };
        }
        out.push((pool, reserves));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        let ok = |s: &str| amount(s, "a", true);
        assert_eq!(ok("1"), Ok(1));
        assert_eq!(ok("+17"), Ok(17));
        assert_eq!(ok("007"), Ok(7));
        assert_eq!(ok(&MAX_COINS.to_string()), Ok(MAX_COINS));
        assert_eq!(ok(&(MAX_COINS + 1).to_string()).unwrap_err().kind, ErrorCode::AmountTooLarge);
        assert_eq!(ok(&"9".repeat(80)).unwrap_err().kind, ErrorCode::AmountTooLarge);
        assert_eq!(ok(&format!("{}1", "0".repeat(80))), Ok(1));
        assert_eq!(ok("0").unwrap_err().kind, ErrorCode::ZeroAmount);
        assert_eq!(ok("000").unwrap_err().kind, ErrorCode::ZeroAmount);
        assert_eq!(ok("-0").unwrap_err().kind, ErrorCode::ZeroAmount);
        assert_eq!(amount("0", "a", false), Ok(0));
        assert_eq!(ok("-5").unwrap_err().kind, ErrorCode::NegativeAmount);
        assert_eq!(ok("1.5").unwrap_err().kind, ErrorCode::FractionalAmount);
        assert_eq!(ok("-1.5").unwrap_err().kind, ErrorCode::NegativeAmount);
        for bad in ["", " ", "1e9", "0x10", "1_000", "abc", "+", "-", "1.", ".5", "١٢"] {
            let e = ok(bad).unwrap_err();
            assert!(matches!(e.kind, ErrorCode::BadAmount | ErrorCode::FractionalAmount), "{bad}: {e:?}");
        }
    }
}
