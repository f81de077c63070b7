//! TL-B dictionaries (`Hashmap n X`) with keys of at most 64 bits, read without recursion surprises.
//!
//! ```text
//! hm_edge#_ label:(HmLabel ~l n) {n = (~m) + l} node:(HashmapNode m X) = Hashmap n X;
//! hmn_leaf#_ value:X = HashmapNode 0 X;
//! hmn_fork#_ left:^(Hashmap n X) right:^(Hashmap n X) = HashmapNode (n + 1) X;
//! hml_short$0 len:(Unary ~n) s:(n * Bit)   hml_long$10 n:(#<= m) s:(n * Bit)   hml_same$11 v:Bit n:(#<= m)
//! ```
//! `tonlib-core` has a dictionary reader, but a label longer than the key left makes its arithmetic
//! underflow; this one checks every length against the bits still to read. Each fork consumes a key bit,
//! so the recursion is at most `key_bits` deep.

use tonlib_core::cell::{Cell, CellParser};

use super::cell::FieldError;

/// Why a dictionary does not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DictError {
    /// A label longer than the key bits left.
    #[error("a label of {len} bits where {left} key bits are left")]
    LabelTooLong {
        /// Label length.
        len: usize,
        /// Key bits left.
        left: usize,
    },
    /// A node that does not read (too few bits or references).
    #[error("a node does not read: {source}")]
    Node {
        /// Why.
        #[source]
        source: FieldError,
    },
    /// A fork with data besides its two references.
    #[error("a fork has {bits} bits and {refs} references besides its two branches")]
    ForkTrailing {
        /// Bits left.
        bits: usize,
        /// References left.
        refs: usize,
    },
    /// A value that does not read.
    #[error("the value of key {key}: {source}")]
    Value {
        /// The key (raw bits as an integer).
        key: u64,
        /// Why.
        #[source]
        source: FieldError,
    },
    /// Data after a value.
    #[error("the value of key {key} has {bits} bits and {refs} references left over")]
    ValueTrailing {
        /// The key.
        key: u64,
        /// Bits left.
        bits: usize,
        /// References left.
        refs: usize,
    },
}

fn node<T>(r: Result<T, impl Into<FieldError>>) -> Result<T, DictError> {
    r.map_err(|e| DictError::Node { source: e.into() })
}

/// Bits needed to write any number in `0..=m` (`#<= m`).
fn bits_for(m: usize) -> usize {
    (usize::BITS - m.leading_zeros()) as usize
}

/// Reads the dictionary whose root edge is `root` (a `Hashmap key_bits X`, as `Dictionary.loadDirect` reads
/// it), calling `value` on each leaf's remaining data; entries come in key-bit order. `key_bits` ≤ 64.
pub fn read_hashmap<V>(
    root: &Cell,
    key_bits: usize,
    value: &mut dyn FnMut(&mut CellParser<'_>) -> Result<V, FieldError>,
) -> Result<Vec<(u64, V)>, DictError> {
    assert!(key_bits <= 64, "keys of at most 64 bits"); // a caller's constant, not input
    let mut out = Vec::new();
    edge(root, key_bits, 0, value, &mut out)?;
    Ok(out)
}

fn edge<V>(
    cell: &Cell,
    left: usize,
    prefix: u64,
    value: &mut dyn FnMut(&mut CellParser<'_>) -> Result<V, FieldError>,
    out: &mut Vec<(u64, V)>,
) -> Result<(), DictError> {
    let mut p = cell.parser();
    let (len, bits) = if !node(p.load_bit())? {
        // hml_short: unary length, then the bits.
        let mut len = 0usize;
        while node(p.load_bit())? {
            len += 1;
            if len > left {
                return Err(DictError::LabelTooLong { len, left });
            }
        }
        (len, if len == 0 { 0 } else { node(p.load_u64(len))? })
    } else if !node(p.load_bit())? {
        // hml_long
        let len = node(p.load_u64(bits_for(left)))? as usize;
        if len > left {
            return Err(DictError::LabelTooLong { len, left });
        }
        (len, if len == 0 { 0 } else { node(p.load_u64(len))? })
    } else {
        // hml_same
        let bit = node(p.load_bit())?;
        let len = node(p.load_u64(bits_for(left)))? as usize;
        if len > left {
            return Err(DictError::LabelTooLong { len, left });
        }
        (len, if bit && len > 0 { u64::MAX >> (64 - len) } else { 0 })
    };
    let prefix = if len == 64 { bits } else { (prefix << len) | bits };
    let left = left - len;
    if left == 0 {
        let v = value(&mut p).map_err(|source| DictError::Value { key: prefix, source })?;
        let (bits, refs) = (p.remaining_bits(), p.remaining_refs());
        if bits != 0 || refs != 0 {
            return Err(DictError::ValueTrailing { key: prefix, bits, refs });
        }
        out.push((prefix, v));
        return Ok(());
    }
    let l = node(p.next_reference())?;
    let r = node(p.next_reference())?;
    if p.remaining_bits() != 0 || p.remaining_refs() != 0 {
        return Err(DictError::ForkTrailing { bits: p.remaining_bits(), refs: p.remaining_refs() });
    }
    edge(&l, left - 1, prefix << 1, value, out)?;
    edge(&r, left - 1, (prefix << 1) | 1, value, out)
}

/// A `bits`-wide two's-complement key as a signed number.
pub fn signed_key(raw: u64, bits: usize) -> i64 {
    if bits == 0 {
        return 0;
    }
    let shift = 64 - bits as u32;
    ((raw << shift) as i64) >> shift
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonlib_core::cell::CellBuilder;

    fn leaf(label: &[bool], value: u8) -> Cell {
        // hml_short label
        let mut b = CellBuilder::new();
        b.store_bit(false).unwrap();
        for _ in label {
            b.store_bit(true).unwrap();
        }
        b.store_bit(false).unwrap();
        for bit in label {
            b.store_bit(*bit).unwrap();
        }
        b.store_u8(8, value).unwrap();
        b.build().unwrap()
    }

    #[test]
    fn two_keys_under_a_fork() {
        // Keys of 3 bits: 010 and 011. Root label "01" (short), fork, then leaves with empty labels.
        let mut root = CellBuilder::new();
        root.store_bit(false).unwrap().store_bit(true).unwrap().store_bit(true).unwrap().store_bit(false).unwrap();
        root.store_bit(false).unwrap().store_bit(true).unwrap();
        root.store_child(leaf(&[], 7)).unwrap().store_child(leaf(&[], 9)).unwrap();
        let root = root.build().unwrap();
        let got = read_hashmap(&root, 3, &mut |p| Ok(p.load_u8(8)?)).unwrap();
        assert_eq!(got, vec![(0b010, 7), (0b011, 9)]);
        assert_eq!(signed_key(0b111, 3), -1);
        assert_eq!(signed_key(0b011, 3), 3);
        // Asking for 1-bit keys: the root label alone is already too long.
        assert!(matches!(read_hashmap(&root, 1, &mut |p| Ok(p.load_u8(8)?)), Err(DictError::LabelTooLong { .. })));
    }
}
