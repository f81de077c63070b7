//! Any bytes as a toncenter v3 answer of the calls `sync --watch` follows the chain with (`masterchainInfo`,
//! `transactionsByMasterchainBlock`, `accountStates`): each decoder returns a value or a typed error, never a
//! panic, and what it returns is consistent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute::chain::toncenter::{account_states, block_transactions, masterchain_head, masterchain_seqno};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let seqno = masterchain_seqno(&value);
    // The head reads the seqno the same way, plus an optional time.
    match masterchain_head(&value) {
        Ok(head) => assert_eq!(seqno.ok(), Some(head.seqno)),
        Err(_) => {}
    }
    if let Ok(page) = block_transactions(&value) {
        assert_eq!(page.accounts.len(), page.count);
    }
    if let Ok(states) = account_states(&value) {
        for s in states {
            assert_eq!(s.address.to_hex().len(), s.address.to_hex().find(':').unwrap_or(0) + 65);
        }
    }
});
