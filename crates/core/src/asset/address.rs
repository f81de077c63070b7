//! TON account addresses as users type them: raw `<workchain>:<64 hex>` or 48-character friendly base64.
//!
//! One parser for every address the crate reads (requests, snapshots, market files), so every refusal says the
//! same thing: what a TON address looks like and what exactly is wrong with this one (length, a character,
//! the checksum, the tag, the workchain), never a decoding library's internals. Layouts are TON's: a friendly
//! address is 36 bytes `tag · workchain (i8) · account id (32) · CRC16-XMODEM (2, big-endian)` in base64url
//! (or standard base64), the tag `0x11` bounceable (`EQ…`) or `0x51` non-bounceable (`UQ…`), `+0x80` on
//! testnet. Must not know about assets, pools or JSON.

use std::fmt;

use base64::Engine as _;
use tonlib_core::TonAddress;

/// What a TON address looks like, appended to every refusal.
pub const ADDRESS_FORMS: &str = "a TON address is raw `<workchain>:<64 hex digits>` (e.g. `0:b113a994…3621dfe`) or 48 \
     friendly base64url characters (e.g. `EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs`)";

/// Length of a friendly address in characters, and of its decoded bytes.
const FRIENDLY_CHARS: usize = 48;
const FRIENDLY_BYTES: usize = 36;

/// What is wrong with an address.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AddressProblem {
    /// Nothing was given.
    Empty,
    /// Raw form: the part before `:` is not a number.
    RawWorkchain,
    /// Raw form: the account id after `:` does not have 64 characters.
    RawLength {
        /// Characters after the `:`.
        got: usize,
    },
    /// Raw form: a character of the account id is not a hex digit.
    RawCharacter {
        /// The character.
        found: char,
        /// Its position in the whole input (0-based, in characters).
        position: usize,
    },
    /// Friendly form: not 48 characters.
    FriendlyLength {
        /// Characters given.
        got: usize,
    },
    /// Friendly form: a character outside base64url (`A–Z a–z 0–9 - _`) and base64 (`+ /`).
    FriendlyCharacter {
        /// The character.
        found: char,
        /// Its position (0-based, in characters).
        position: usize,
    },
    /// Friendly form: the first byte is not an address tag.
    FriendlyTag {
        /// The byte found.
        tag: u8,
    },
    /// Friendly form: the last two bytes are not the CRC16 of the rest.
    FriendlyChecksum,
    /// A workchain other than 0 (basechain) or -1 (masterchain).
    Workchain {
        /// The workchain named.
        workchain: i64,
    },
    /// Whitespace in or around the address (a space, a tab, a no-break space…): an address is written
    /// without any, as an amount is.
    Whitespace {
        /// The position of the first one (0-based, in characters).
        position: usize,
    },
    /// A friendly address flagged for testnet (its tag + 0x80, `kQ…`/`0Q…`) where a mainnet one is needed.
    Testnet,
}

impl fmt::Display for AddressProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddressProblem::Empty => f.write_str("it is empty"),
            AddressProblem::RawWorkchain => {
                f.write_str("the part before `:` must be the workchain number, 0 (or -1 for the masterchain)")
            }
            AddressProblem::RawLength { got } => {
                write!(f, "the account id after `:` must be 64 hex digits; it has {got} characters")
            }
            AddressProblem::RawCharacter { found, position } => {
                write!(f, "character `{found}` at position {position} is not a hex digit")
            }
            AddressProblem::FriendlyLength { got } => {
                write!(f, "it has {got} characters and no `:`; a friendly address has exactly {FRIENDLY_CHARS}")
            }
            AddressProblem::FriendlyCharacter { found, position } => write!(
                f,
                "character `{found}` at position {position} is not base64url (`A-Z a-z 0-9 - _`, or `+ /` in \
                 standard base64)"
            ),
            AddressProblem::FriendlyTag { tag } => write!(
                f,
                "its first byte is 0x{tag:02x}, not an address tag (0x11 bounceable `EQ…`, 0x51 non-bounceable \
                 `UQ…`, +0x80 on testnet)"
            ),
            AddressProblem::FriendlyChecksum => {
                f.write_str("its checksum (the last 3 characters) does not match the rest: a character is mistyped")
            }
            AddressProblem::Workchain { workchain } => {
                write!(f, "it names workchain {workchain}, which does not exist (TON has 0 and -1)")
            }
            AddressProblem::Whitespace { position } => {
                write!(f, "it has whitespace at position {position}; write it without spaces")
            }
            AddressProblem::Testnet => f.write_str(
                "it is flagged for testnet (tag +0x80), and this server works on mainnet: use the mainnet form \
                 (`EQ…` or `UQ…`)",
            ),
        }
    }
}

/// Why a string is not a TON address: the input (shortened when long) and the problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{input}` is not a TON address: {problem}; {ADDRESS_FORMS}")]
pub struct AddressError {
    /// The input as given, cut after 80 characters.
    pub input: String,
    /// What is wrong.
    pub problem: AddressProblem,
}

fn refuse(input: &str, problem: AddressProblem) -> AddressError {
    const MAX: usize = 80;
    let input = match input.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &input[..end]),
        None => input.to_string(),
    };
    AddressError { input, problem }
}

/// Parses a raw (`0:<64 hex>`, `-1:<64 hex>`) or friendly (48 characters, base64url or standard base64, any
/// tag) address; whitespace anywhere, around it included, is refused.
///
/// ```
/// use tonroute_core::asset::parse_address;
/// let friendly = parse_address("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs").unwrap();
/// let raw = parse_address("0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe").unwrap();
/// assert_eq!(friendly, raw);
/// let e = parse_address("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt").unwrap_err();
/// assert!(e.to_string().contains("checksum"), "{e}");
/// ```
pub fn parse_address(text: &str) -> Result<TonAddress, AddressError> {
    parse_flagged(text).map(|(address, _)| address)
}

/// [`parse_address`] for an address that must be on mainnet (a swap's sender): a friendly form flagged for
/// testnet is refused ([`AddressProblem::Testnet`]).
pub fn parse_mainnet_address(text: &str) -> Result<TonAddress, AddressError> {
    match parse_flagged(text)? {
        (_, true) => Err(refuse(text, AddressProblem::Testnet)),
        (address, false) => Ok(address),
    }
}

/// The address and whether its friendly form is flagged for testnet.
fn parse_flagged(text: &str) -> Result<(TonAddress, bool), AddressError> {
    if text.trim().is_empty() {
        return Err(refuse(text, AddressProblem::Empty));
    }
    if let Some(position) = text.chars().position(char::is_whitespace) {
        return Err(refuse(text, AddressProblem::Whitespace { position }));
    }
    match text.split_once(':') {
        Some((wc, id)) => parse_raw(text, wc, id).map(|a| (a, false)),
        None => parse_friendly(text),
    }
}

fn workchain(input: &str, wc: i64) -> Result<i32, AddressError> {
    match wc {
        0 => Ok(0),
        -1 => Ok(-1),
        _ => Err(refuse(input, AddressProblem::Workchain { workchain: wc })),
    }
}

fn parse_raw(s: &str, wc: &str, id: &str) -> Result<TonAddress, AddressError> {
    // Digits with an optional minus, nothing else (`+0`, ` 0` are not how a workchain is written).
    let digits = wc.strip_prefix('-').unwrap_or(wc);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(refuse(s, AddressProblem::RawWorkchain));
    }
    // Too many digits for an i64 is no workchain either.
    let wc: i64 = wc.parse().map_err(|_| refuse(s, AddressProblem::RawWorkchain))?;
    let offset = s.len() - id.len();
    if let Some((i, found)) = id.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        let position = s[..offset + i].chars().count();
        return Err(refuse(s, AddressProblem::RawCharacter { found, position }));
    }
    if id.len() != 64 {
        return Err(refuse(s, AddressProblem::RawLength { got: id.chars().count() }));
    }
    let wc = workchain(s, wc)?;
    // 64 hex digits checked above.
    let hash = super::parse_hex32(id).ok_or_else(|| refuse(s, AddressProblem::RawLength { got: id.len() }))?;
    Ok(TonAddress::new(wc, hash.into()))
}

fn parse_friendly(s: &str) -> Result<(TonAddress, bool), AddressError> {
    let is_b64 = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '/');
    if let Some((position, found)) = s.chars().enumerate().find(|(_, c)| !is_b64(*c)) {
        return Err(refuse(s, AddressProblem::FriendlyCharacter { found, position }));
    }
    if s.len() != FRIENDLY_CHARS {
        return Err(refuse(s, AddressProblem::FriendlyLength { got: s.len() }));
    }
    // One alphabet for both forms: `-`/`_` of base64url are `+`/`/` of standard base64.
    let std_form: String = s
        .chars()
        .map(|c| {
            if c == '-' {
                '+'
            } else if c == '_' {
                '/'
            } else {
                c
            }
        })
        .collect();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(std_form)
        .map_err(|_| refuse(s, AddressProblem::FriendlyLength { got: s.len() }))?;
    let bytes: [u8; FRIENDLY_BYTES] =
        bytes.try_into().map_err(|_| refuse(s, AddressProblem::FriendlyLength { got: s.len() }))?;
    if crc16(&bytes[..34]) != u16::from_be_bytes([bytes[34], bytes[35]]) {
        return Err(refuse(s, AddressProblem::FriendlyChecksum));
    }
    let tag = bytes[0];
    if tag & 0x7f != 0x11 && tag & 0x7f != 0x51 {
        return Err(refuse(s, AddressProblem::FriendlyTag { tag }));
    }
    let wc = workchain(s, i64::from(bytes[1] as i8))?;
    let mut hash = [0u8; 32];
    hash.copy_from_slice(&bytes[2..34]);
    Ok((TonAddress::new(wc, hash.into()), tag & 0x80 != 0))
}

/// CRC16-XMODEM (polynomial 0x1021, initial value 0), the checksum of friendly addresses.
fn crc16(data: &[u8]) -> u16 {
    let mut crc: u16 = 0;
    for &b in data {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
    }
    crc
}

#[cfg(test)]
mod tests {
    use super::*;

    const USDT_EQ: &str = "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs";
    const USDT_UQ: &str = "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p";
    const USDT_RAW: &str = "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";

    fn problem(text: &str) -> AddressProblem {
        parse_address(text).unwrap_err().problem
    }

    #[test]
    fn forms_agree_with_tonlib() {
        let want: TonAddress = USDT_RAW.parse().unwrap();
        for text in [USDT_EQ, USDT_UQ, USDT_RAW, &USDT_RAW.to_uppercase()] {
            assert_eq!(parse_address(text).unwrap(), want, "{text}");
        }
        // Standard base64 of the same bytes, and a masterchain address, as tonlib-core reads them.
        let std_b64 = USDT_EQ.replace('_', "/");
        assert_eq!(parse_address(&std_b64).unwrap(), want);
        let master = format!("-1:{}", "3".repeat(64));
        let m = parse_address(&master).unwrap();
        assert_eq!(m, master.parse::<TonAddress>().unwrap());
        assert_eq!(parse_address(&m.to_base64_url()).unwrap(), m);
    }

    #[test]
    fn whitespace_is_refused_as_in_amounts_and_testnet_senders_on_mainnet() {
        assert_eq!(problem(&format!("  {USDT_RAW}")), AddressProblem::Whitespace { position: 0 });
        assert_eq!(problem(&format!("{USDT_EQ}\n")), AddressProblem::Whitespace { position: 48 });
        assert_eq!(problem(&format!("{USDT_EQ}\u{a0}")), AddressProblem::Whitespace { position: 48 });
        assert_eq!(problem(&format!("0: {}", &USDT_RAW[2..])), AddressProblem::Whitespace { position: 2 });
        // The testnet form of the USD₮ master: tag 0x91 (0x11 + 0x80), its own checksum.
        let mut bytes = [0u8; 36];
        bytes[0] = 0x91;
        let hash: [u8; 32] = parse_address(USDT_RAW).unwrap().hash_part.into();
        bytes[2..34].copy_from_slice(&hash);
        let crc = crc16(&bytes[..34]).to_be_bytes();
        bytes[34..].copy_from_slice(&crc);
        let testnet = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
        assert!(testnet.starts_with("kQ"), "{testnet}");
        assert_eq!(parse_address(&testnet).unwrap(), parse_address(USDT_RAW).unwrap());
        assert_eq!(parse_mainnet_address(&testnet).unwrap_err().problem, AddressProblem::Testnet);
        assert_eq!(parse_mainnet_address(USDT_UQ).unwrap(), parse_address(USDT_RAW).unwrap());
    }

    #[test]
    fn each_mistake_is_named() {
        assert_eq!(problem("  "), AddressProblem::Empty);
        assert_eq!(problem(&format!("x:{}", "0".repeat(64))), AddressProblem::RawWorkchain);
        assert_eq!(problem(&format!("+0:{}", "0".repeat(64))), AddressProblem::RawWorkchain);
        assert_eq!(problem("0:abc"), AddressProblem::RawLength { got: 3 });
        assert_eq!(
            problem(&format!("0:{}g", "0".repeat(63))),
            AddressProblem::RawCharacter { found: 'g', position: 65 }
        );
        assert_eq!(problem(&format!("7:{}", "0".repeat(64))), AddressProblem::Workchain { workchain: 7 });
        assert_eq!(problem("EQCxE6mUtQ"), AddressProblem::FriendlyLength { got: 10 });
        assert_eq!(problem("nope"), AddressProblem::FriendlyLength { got: 4 });
        assert_eq!(problem(&USDT_EQ.replace('Q', "!")), AddressProblem::FriendlyCharacter { found: '!', position: 1 });
        // One character changed: the CRC16 no longer matches.
        assert_eq!(problem(&format!("{}t", &USDT_EQ[..47])), AddressProblem::FriendlyChecksum);
        // A valid checksum over a wrong tag: bytes 0x22 · 0 · id, CRC appended.
        let mut bytes = vec![0x22u8, 0];
        bytes.extend_from_slice(&[0xab; 32]);
        let crc = crc16(&bytes);
        bytes.extend_from_slice(&crc.to_be_bytes());
        let text = base64::engine::general_purpose::URL_SAFE.encode(&bytes);
        assert_eq!(problem(&text), AddressProblem::FriendlyTag { tag: 0x22 });
    }

    #[test]
    fn messages_show_the_forms_and_no_library_internals() {
        for bad in ["nope", "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt", "0:xyz", ""] {
            let m = parse_address(bad).unwrap_err().to_string();
            assert!(m.contains("is not a TON address") && m.contains("`<workchain>:<64 hex digits>`"), "{m}");
            assert!(m.contains("48 friendly base64url characters"), "{m}");
            assert!(!m.contains("Base64") && !m.contains("decode error") && !m.contains("base64std"), "{m}");
        }
    }
}
