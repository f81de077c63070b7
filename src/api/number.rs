//! The spec's two number patterns, the one place they are matched: SPEC.md's LargeInteger
//! `^[-+]?[0-9]+$` and LargeFloat `^[-+]?[0-9]*\.?[0-9]+$`, exactly (no whitespace, no exponent, ASCII
//! digits only). Every wire value that is one of them — amounts and reserves ([`super::value`]), market
//! query parameters ([`super::market`]), the market types ([`crate::market::types`]) — is matched here.

/// The sign and the digits of a LargeInteger, or `None` when `text` does not match the pattern.
///
/// ```
/// use tonroute::api::number::large_integer;
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
/// use tonroute::api::number::is_large_float;
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
