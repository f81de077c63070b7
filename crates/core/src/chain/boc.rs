//! Bags of cells from outside: a structural check of our own, then `tonlib-core` builds the cells.
//!
//! `tonlib-core`'s BOC reader trusts its header: a cell count of 2^32 makes it reserve that much memory, a
//! reference or root index past the end makes it index out of bounds, and a Merkle cell without children
//! makes it read a child that is not there. Those are panics or aborts on input we do not control, so
//! [`parse_boc`] first walks the bytes itself ([`check_structure`]) and only hands a bag that passed to
//! `tonlib-core`, which then computes the cells and their hashes.
//!
//! What passes: the generic magic `b5ee9c72`, exactly one root, no absent cells, at most [`MAX_CELLS`]
//! cells no deeper than [`MAX_DEPTH`], references pointing forward, ordinary cells of level 0 and, as the
//! only exotic kind, **library cells** (`02` + a 256-bit hash, no references): contract code and jetton
//! wallet code are often libraries, and pool state never needs pruned branches or Merkle cells. When the
//! header says a CRC32-C follows, it is checked.

use base64::alphabet;
use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
use base64::Engine as _;
use tonlib_core::cell::{ArcCell, BagOfCells, TonCellError};

/// Most cells one bag may hold (a pool's data is about ten; a tick dictionary of a busy pool a few thousand).
pub const MAX_CELLS: usize = 1 << 16;

/// Deepest cell tree accepted (the chain's own limit for cells is 1024 levels; deeper input is refused
/// before anything walks it recursively).
pub const MAX_DEPTH: usize = 1024;

const GENERIC_MAGIC: u32 = 0xb5ee_9c72;

/// Why bytes are not a bag of cells we accept.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BocError {
    /// The text is neither base64 (standard or URL-safe alphabet, padding optional) nor hex.
    #[error("not base64 or hex: {source}")]
    Encoding {
        /// The base64 decoder's complaint.
        #[source]
        source: base64::DecodeError,
    },
    /// The bytes end inside the named part.
    #[error("truncated: the bytes end inside {part}")]
    Truncated {
        /// Which part was being read.
        part: &'static str,
    },
    /// The first four bytes are not `b5ee9c72`.
    #[error("magic {found:#010x} is not the generic bag-of-cells magic b5ee9c72")]
    Magic {
        /// What the bytes start with.
        found: u32,
    },
    /// A header field outside what the format (or we) allow.
    #[error("header field `{field}` is {value}: {expected}")]
    Header {
        /// The field.
        field: &'static str,
        /// Its value.
        value: u64,
        /// What is allowed.
        expected: &'static str,
    },
    /// A cell descriptor or reference that cannot be right.
    #[error("cell {cell}: {problem}")]
    BadCell {
        /// Index of the cell in the bag.
        cell: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// The cell tree is deeper than [`MAX_DEPTH`].
    #[error("cell tree deeper than {max} levels")]
    TooDeep {
        /// The limit.
        max: usize,
    },
    /// The stored CRC32-C does not match the bytes.
    #[error("CRC32-C mismatch: stored {stored:#010x}, computed {computed:#010x}")]
    Checksum {
        /// The checksum in the bag.
        stored: u32,
        /// The checksum of the bytes.
        computed: u32,
    },
    /// Bytes after the end of the bag.
    #[error("{count} bytes after the end of the bag")]
    TrailingBytes {
        /// How many.
        count: usize,
    },
    /// `tonlib-core` refused the cells (e.g. a library cell of the wrong length).
    #[error("cells: {source}")]
    Cells {
        /// Its error.
        #[source]
        source: TonCellError,
    },
}

/// Base64 with either alphabet, padding optional (toncenter, the SDKs and wallets all differ).
fn base64_engines() -> [GeneralPurpose; 2] {
    let config = GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    [GeneralPurpose::new(&alphabet::STANDARD, config), GeneralPurpose::new(&alphabet::URL_SAFE, config)]
}

/// Decodes base64 text (standard or URL-safe alphabet, padding optional).
pub fn decode_base64(text: &str) -> Result<Vec<u8>, BocError> {
    let text = text.trim();
    let [standard, url_safe] = base64_engines();
    standard.decode(text).or_else(|_| url_safe.decode(text)).map_err(|source| BocError::Encoding { source })
}

/// Decodes even-length hex text (either case), `None` when it is not.
pub fn decode_hex(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes
        .chunks_exact(2)
        .map(|pair| {
            let digit = |c: u8| (c as char).to_digit(16);
            // Two hex digits make one byte (each digit < 16).
            Some((digit(pair[0])? * 16 + digit(pair[1])?) as u8)
        })
        .collect()
}

/// A single-root bag of cells given as text: hex when it is all hex digits (a BOC in hex starts with
/// `b5ee9c72`), base64 otherwise.
pub fn parse_boc_text(text: &str) -> Result<ArcCell, BocError> {
    let bytes = match decode_hex(text) {
        Some(bytes) if text.trim().len() >= 8 => bytes,
        _ => decode_base64(text)?,
    };
    parse_boc(&bytes)
}

/// A single-root bag of cells, checked by [`check_structure`], built by `tonlib-core`.
pub fn parse_boc(bytes: &[u8]) -> Result<ArcCell, BocError> {
    check_structure(bytes)?;
    let bag = BagOfCells::parse(bytes).map_err(|source| BocError::Cells { source })?;
    bag.single_root().map_err(|source| BocError::Cells { source })
}

/// A big-endian reader over the bag's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, part: &'static str) -> Result<&'a [u8], BocError> {
        let end = self.pos.checked_add(n).filter(|e| *e <= self.bytes.len()).ok_or(BocError::Truncated { part })?;
        let out = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn uint(&mut self, n: usize, part: &'static str) -> Result<u64, BocError> {
        Ok(self.take(n, part)?.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
    }
}

/// Walks a bag of cells without building it: header, root, every cell descriptor and reference, depth,
/// trailing bytes and checksum. See the [module documentation](self) for what passes.
pub fn check_structure(bytes: &[u8]) -> Result<(), BocError> {
    let mut r = Reader { bytes, pos: 0 };
    let magic = r.uint(4, "the magic")? as u32;
    if magic != GENERIC_MAGIC {
        return Err(BocError::Magic { found: magic });
    }
    let flags = r.uint(1, "the header")?;
    let has_idx = flags & 0x80 != 0;
    let has_crc = flags & 0x40 != 0;
    if flags & 0x18 != 0 {
        return Err(BocError::Header { field: "flags", value: (flags >> 3) & 3, expected: "must be 0" });
    }
    let size = (flags & 0x07) as usize;
    if !(1..=4).contains(&size) {
        return Err(BocError::Header { field: "size", value: size as u64, expected: "must be 1..=4" });
    }
    let off_bytes = r.uint(1, "the header")? as usize;
    if !(1..=8).contains(&off_bytes) {
        return Err(BocError::Header { field: "off_bytes", value: off_bytes as u64, expected: "must be 1..=8" });
    }
    let cells = r.uint(size, "the header")?;
    let roots = r.uint(size, "the header")?;
    let absent = r.uint(size, "the header")?;
    let total_size = r.uint(off_bytes, "the header")?;
    if cells == 0 || cells > MAX_CELLS as u64 {
        return Err(BocError::Header { field: "cells", value: cells, expected: "must be 1..=65536" });
    }
    if roots != 1 {
        return Err(BocError::Header { field: "roots", value: roots, expected: "must be 1 (one root)" });
    }
    if absent != 0 {
        return Err(BocError::Header { field: "absent", value: absent, expected: "must be 0" });
    }
    let cells = cells as usize;
    // Each cell takes at least its two descriptor bytes.
    if total_size < 2 * cells as u64 || total_size > bytes.len() as u64 {
        return Err(BocError::Header {
            field: "tot_cells_size",
            value: total_size,
            expected: "must cover the cells and fit in the bytes",
        });
    }
    let root = r.uint(size, "the root list")? as usize;
    if root >= cells {
        return Err(BocError::Header { field: "root", value: root as u64, expected: "must name a cell of the bag" });
    }
    if has_idx {
        r.take(cells * off_bytes, "the index")?;
    }
    let data_start = r.pos;
    let mut refs: Vec<[usize; 4]> = Vec::with_capacity(cells);
    let mut ref_counts: Vec<u8> = Vec::with_capacity(cells);
    for cell in 0..cells {
        let d = r.take(2, "a cell descriptor")?;
        let (d1, d2) = (d[0], d[1]);
        let ref_count = d1 & 0x07;
        let exotic = d1 & 0x08 != 0;
        let has_hashes = d1 & 0x10 != 0;
        let level = d1 >> 5;
        if ref_count > 4 {
            return Err(BocError::BadCell { cell, problem: "more than 4 references (or an absent cell)" });
        }
        if level != 0 {
            return Err(BocError::BadCell { cell, problem: "level above 0 (pruned or Merkle data is not accepted)" });
        }
        if has_hashes {
            // Level 0: one hash and one depth are stored.
            r.take(32 + 2, "stored cell hashes")?;
        }
        let data = r.take(usize::from(d2).div_ceil(2), "cell data")?;
        if d2 % 2 == 1 && data.last().is_none_or(|b| *b == 0) {
            return Err(BocError::BadCell { cell, problem: "incomplete last byte without its completion bit" });
        }
        if exotic {
            // A library cell: type byte 2 and a 256-bit hash, exactly 264 bits, no references.
            if d2 != 66 || data.first() != Some(&2) || ref_count != 0 {
                return Err(BocError::BadCell {
                    cell,
                    problem: "exotic cell that is not a library cell (only `02` + 256-bit hash is accepted)",
                });
            }
        }
        let mut row = [0usize; 4];
        for slot in row.iter_mut().take(usize::from(ref_count)) {
            let target = r.uint(size, "a cell reference")? as usize;
            if target <= cell || target >= cells {
                return Err(BocError::BadCell { cell, problem: "reference to an earlier cell or past the bag" });
            }
            *slot = target;
        }
        refs.push(row);
        ref_counts.push(ref_count);
    }
    if (r.pos - data_start) as u64 != total_size {
        return Err(BocError::Header {
            field: "tot_cells_size",
            value: total_size,
            expected: "must equal the bytes the cells take",
        });
    }
    if has_crc {
        let body_end = r.pos;
        let stored = r.take(4, "the CRC32-C")?;
        let stored = u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]);
        let computed = crc32c(&bytes[..body_end]);
        if stored != computed {
            return Err(BocError::Checksum { stored, computed });
        }
    }
    if r.pos != bytes.len() {
        return Err(BocError::TrailingBytes { count: bytes.len() - r.pos });
    }
    // References point forward, so depths fill from the last cell back.
    let mut depth = vec![0usize; cells];
    for cell in (0..cells).rev() {
        let d = refs[cell][..usize::from(ref_counts[cell])].iter().map(|t| depth[*t] + 1).max().unwrap_or(0);
        if d > MAX_DEPTH {
            return Err(BocError::TooDeep { max: MAX_DEPTH });
        }
        depth[cell] = d;
    }
    Ok(())
}

/// CRC32-C (Castagnoli, reflected polynomial 0x82f63b78), as the bag-of-cells format uses it.
pub fn crc32c(bytes: &[u8]) -> u32 {
    const fn table() -> [u32; 256] {
        let mut t = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { (c >> 1) ^ 0x82f6_3b78 } else { c >> 1 };
                k += 1;
            }
            t[i] = c;
            i += 1;
        }
        t
    }
    const TABLE: [u32; 256] = table();
    !bytes.iter().fold(!0u32, |c, b| TABLE[((c ^ u32::from(*b)) & 0xff) as usize] ^ (c >> 8))
}

#[cfg(test)]
mod tests {
    use super::*;

    // The v2.1 router's pool code: a library cell (fixture `stonfi-v2_1-router-get_router_data.testnet.json`).
    const LIBRARY: &str = "te6cckEBAQEAIwAIQgJjHPmLuz7lQNrMSCVpddjiwwgMY085AFzNjhWTyrADX26YlPU=";

    #[test]
    fn crc32c_check_value() {
        // The standard check value of CRC-32C.
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn library_cells_pass_and_keep_their_kind() {
        let cell = parse_boc_text(LIBRARY).unwrap();
        assert!(cell.is_library());
        assert_eq!(cell.bit_len(), 264);
    }

    #[test]
    fn hostile_headers_are_errors_not_panics() {
        let good = decode_base64(LIBRARY).unwrap();
        assert!(check_structure(&good).is_ok());
        // A cell count of 2^32 − 1 (size 4).
        let huge = [0xb5, 0xee, 0x9c, 0x72, 0x04, 0x01, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 0, 0, 2];
        assert!(matches!(check_structure(&huge), Err(BocError::Header { field: "cells", .. })));
        // Found by the swap_body fuzzer (tonlib-core 0.26.11 `BagOfCells::parse` subtracts past zero on it, at
        // `bag_of_cells.rs:86`): offset size 0 and 131 roots in a one-cell bag. The header check refuses it first.
        let root_past_cells =
            [0xb5, 0xee, 0x9c, 0x72, 0x01, 0x00, 0x00, 0x01, 0x83, 0xee, 0x9c, 0x72, 0x01, 0x83, 0x83, 0x83];
        assert!(matches!(parse_boc(&root_past_cells), Err(BocError::Header { .. })));
        // Every truncation of a good bag is refused.
        for n in 0..good.len() {
            assert!(parse_boc(&good[..n]).is_err(), "prefix of {n} bytes");
        }
        // A flipped byte breaks the checksum.
        let mut bad = good.clone();
        bad[20] ^= 1;
        assert!(parse_boc(&bad).is_err());
        assert!(matches!(parse_boc_text("not base64 !"), Err(BocError::Encoding { .. })));
    }
}
