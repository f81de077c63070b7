//! Any bytes as a bag of cells, read as a swap message body (`tonroute::swap::decode`): never a panic; a
//! body that decodes keeps decoding the same way, and its flat view lists at least one hop.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonlib_core::cell::BagOfCells;
use tonroute::swap::decode::{decode, decode_body};

fuzz_target!(|data: &[u8]| {
    let Ok(boc) = BagOfCells::parse(data) else { return };
    let Ok(root) = boc.single_root() else { return };
    if let Ok(body) = decode_body(&root) {
        assert_eq!(decode_body(&root).ok(), Some(body));
        if let Ok(flat) = decode(&root) {
            assert!(!flat.hops.is_empty());
        }
    }
});
