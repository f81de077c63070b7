//! Any bytes as an account-data bag of cells: the structural check and `tonlib-core` never panic on what
//! passes it, and the storage decoders (STON.fi v2, all pool types), the tick-dictionary reader and the text
//! reader return values or typed errors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute::chain::boc::parse_boc;
use tonroute::chain::stack::StackEntry;
use tonroute::chain::{dex_b, dex_c};

fuzz_target!(|data: &[u8]| {
    let Ok(cell) = parse_boc(data) else { return };
    for t in dex_b::PoolType::ALL {
        let _ = dex_b::v2_pool_storage(&cell, t);
    }
    let _ = dex_b::read_text(&cell, 127);
    let _ = dex_c::all_ticks(&[StackEntry::Cell(cell.clone())]);
    let _ = cell.cell_hash();
});
