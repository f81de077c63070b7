//! Any bytes as a bag of cells, read as a swap message body (`tonroute::swap::decode`): never a panic; a
//! body that decodes keeps decoding the same way, and its flat view lists at least one hop.
//!
//! `tonlib-core` 0.26.11's `BagOfCells::parse` panics on a reference index past the cell count
//! (`bag_of_cells.rs:70`, `num_cells - 1 - ref_index`), a bug outside this crate and outside `decode` (which
//! takes cells): such inputs are skipped here, after a structural read of the BOC header and cell list.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonlib_core::cell::BagOfCells;
use tonroute::swap::decode::{decode, decode_body};

/// Whether every cell reference in a serialised bag of cells points inside it (`false` if unreadable).
fn references_in_range(b: &[u8]) -> bool {
    let byte = |i: usize| b.get(i).copied();
    let uint = |at: usize, n: usize| -> Option<usize> {
        b.get(at..at + n).map(|s| s.iter().fold(0usize, |acc, x| (acc << 8) | usize::from(*x)))
    };
    let Some(flags) = byte(4) else { return false };
    if b.get(..4) != Some(&[0xb5, 0xee, 0x9c, 0x72]) {
        return false;
    }
    let size = usize::from(flags & 7);
    let Some(off) = byte(5).map(usize::from) else { return false };
    if size == 0 || size > 4 || off > 8 {
        return false;
    }
    let mut i = 6;
    let Some(cells) = uint(i, size) else { return false };
    let Some(roots) = uint(i + size, size) else { return false };
    i += 3 * size + off + roots * size;
    if flags & 0x80 != 0 {
        i += cells * off;
    }
    for _ in 0..cells {
        let (Some(d1), Some(d2)) = (byte(i), byte(i + 1)) else { return false };
        i += 2;
        if d1 & 0x10 != 0 {
            // Stored hashes and depths: (level count + 1) × (32 + 2) bytes.
            i += ((d1 >> 5).count_ones() as usize + 1) * 34;
        }
        i += (usize::from(d2) + 1) / 2;
        for _ in 0..usize::from(d1 & 7) {
            match uint(i, size) {
                Some(r) if r < cells => i += size,
                _ => return false,
            }
        }
    }
    true
}

fuzz_target!(|data: &[u8]| {
    if !references_in_range(data) {
        return;
    }
    let Ok(boc) = BagOfCells::parse(data) else { return };
    let Ok(root) = boc.single_root() else { return };
    if let Ok(body) = decode_body(&root) {
        assert_eq!(decode_body(&root).ok(), Some(body));
        if let Ok(flat) = decode(&root) {
            assert!(!flat.hops.is_empty());
        }
    }
});
