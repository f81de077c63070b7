//! Any bytes as a toncenter v3 answer of the calls `sync --wallets` reads balances with (`jetton/wallets` by owner,
//! `accountStates` for TON): each decoder returns a value or a typed error naming a field, never a panic; what it
//! accepts is consistent (balances below 2^120, one entry per listed item, every wallet the asked owner's).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute::chain::holdings::{jetton_wallets, ton_balances, HoldingsError};

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let any = jetton_wallets(&value, None);
    if let Ok(page) = &any {
        assert_eq!(page.wallets.len(), page.count);
        assert!(page.wallets.iter().all(|w| w.balance < 1 << 120));
        // Asked for the first wallet's owner, the page reads again unless another owner is in it.
        if let Some(first) = page.wallets.first() {
            let same = page.wallets.iter().all(|w| w.owner == first.owner);
            match jetton_wallets(&value, Some(&first.owner)) {
                Ok(again) => assert!(same && again == *page),
                Err(HoldingsError::WrongOwner { .. }) => assert!(!same),
                Err(e) => panic!("an accepted page refused with its own owner: {e}"),
            }
        }
    }
    if let Err(e) = &any {
        // Every refusal has a message (the field's path, or toncenter's own error).
        assert!(!e.to_string().is_empty());
    }
    if let Ok(accounts) = ton_balances(&value) {
        assert!(accounts.iter().all(|a| a.balance < 1 << 120));
    }
});
