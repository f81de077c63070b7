//! Any bytes as a bag of cells, read as a swap message body (`tonroute::swap::decode`): never a panic; a
//! body that decodes keeps decoding the same way, and its flat view lists at least one hop.
//!
//! The bytes go through `tonroute::chain::boc::parse_boc`, whose structural check comes before `tonlib-core`'s
//! `BagOfCells::parse` (which panics on a reference or root index past the cell count, 0.26.11).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute::chain::boc::parse_boc;
use tonroute::swap::decode::{decode, decode_body};

fuzz_target!(|data: &[u8]| {
    // Through the library's checked entry: its header and cell-list check refuses what would make tonlib-core
    // panic (a reference or root index past the cell count), so no input is skipped.
    let Ok(root) = parse_boc(data) else { return };
    if let Ok(body) = decode_body(&root) {
        assert_eq!(decode_body(&root).ok(), Some(body));
        if let Ok(flat) = decode(&root) {
            assert!(!flat.hops.is_empty());
        }
    }
});
