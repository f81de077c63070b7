//! TEP-74 jetton get-methods: a wallet's `get_wallet_data` (whose master a router's wallet belongs to) and a
//! master's `get_jetton_data` (the wallet code its wallets are deployed with).
//!
//! | method | stack (TEP-74, token-contract `jetton-wallet.fc` / `jetton-minter.fc`) |
//! |---|---|
//! | `get_wallet_data` | `balance:int owner:slice jetton:slice jetton_wallet_code:cell` |
//! | `get_jetton_data` | `total_supply:int mintable:int admin_address:slice jetton_content:cell jetton_wallet_code:cell` |
//!
//! Proxy-TON wallets answer `get_wallet_data` in the same shape (STON.fi pTON v1 and v2, TONCO's pTON): the
//! `jetton` entry is then the proxy-TON master, which importers map to `native`.

use tonlib_core::cell::ArcCell;
use tonlib_core::TonAddress;

use super::stack::{StackEntry, StackReader};
use super::ChainError;

/// A jetton wallet's `get_wallet_data`.
#[derive(Debug, Clone, PartialEq)]
pub struct WalletData {
    /// Jettons held, smallest units.
    pub balance: u128,
    /// Who owns the wallet (for a router's wallet: the router).
    pub owner: TonAddress,
    /// The jetton's master (for a proxy-TON wallet: the proxy-TON master).
    pub master: TonAddress,
    /// The wallet's code as it reports it.
    pub wallet_code: ArcCell,
}

/// Decodes `get_wallet_data`.
pub fn wallet_data(stack: &[StackEntry]) -> Result<WalletData, ChainError> {
    StackReader::read_all("get_wallet_data", stack, (4, 4), |r| {
        Ok(WalletData {
            balance: r.coins("balance")?,
            owner: r.address("owner")?,
            master: r.address("jetton")?,
            wallet_code: r.cell("jetton_wallet_code")?.1.clone(),
        })
    })
}

/// A jetton master's `get_jetton_data`.
#[derive(Debug, Clone, PartialEq)]
pub struct JettonData {
    /// Jettons in circulation.
    pub total_supply: u128,
    /// Whether more can be minted.
    pub mintable: bool,
    /// The admin (`None` for addr_none).
    pub admin: Option<TonAddress>,
    /// The metadata cell (TEP-64), undecoded.
    pub content: ArcCell,
    /// The code the master deploys its wallets with.
    pub wallet_code: ArcCell,
}

/// Decodes `get_jetton_data`.
pub fn jetton_data(stack: &[StackEntry]) -> Result<JettonData, ChainError> {
    StackReader::read_all("get_jetton_data", stack, (5, 5), |r| {
        Ok(JettonData {
            total_supply: r.coins("total_supply")?,
            mintable: r.bool("mintable")?,
            admin: r.address_or_none("admin_address")?,
            content: r.cell("jetton_content")?.1.clone(),
            wallet_code: r.cell("jetton_wallet_code")?.1.clone(),
        })
    })
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::*;
    use crate::chain::stack::GetMethodResult;

    // A jetton wallet's and its master's answers, as @ton/sandbox ran them on the standard jetton contracts
    // of @ston-fi/blueprint-utils 0.14.1 (tests/e2e), in toncenter's v3 encoding; codes cut to an empty cell.
    const OWNER: &str = "te6cckEBAQEAJAAAQ4AOKJf67EBuydkpaL6QESFKerACSoyO3AG14RTh0ZCCGdDz3E6s";
    const MASTER: &str = "te6cckEBAQEAJAAAQ4AC4rKWybcd2tV5zLwIX/TvXRIeEDT5LK6VUfFujRLf0LDIksBn";
    const EMPTY: &str = "te6cckEBAQEAAgAAAEysuc0=";
    const ADDR_NONE: &str = "te6cckEBAQEAAwAAASCUQYZV";

    fn stack(entries: &str) -> Vec<StackEntry> {
        GetMethodResult::from_json(&format!(r#"{{"exit_code":0,"stack":[{entries}]}}"#)).unwrap().stack
    }

    #[test]
    fn wallet_data_reads_owner_and_master() {
        let s = stack(&format!(
            r#"{{"type":"num","value":"0xc9f2c9cd04674edea40000000"}},{{"type":"slice","value":"{OWNER}"}},
               {{"type":"slice","value":"{MASTER}"}},{{"type":"cell","value":"{EMPTY}"}}"#
        ));
        let d = wallet_data(&s).unwrap();
        assert_eq!(d.balance, 1_000_000_000_000_000_000_000_000_000_000);
        assert_eq!(d.owner.to_hex(), "0:7144bfd76203764ec94b45f480890a53d58012546476e00daf08a70e8c8410ce");
        assert_eq!(d.master.to_hex(), "0:171594b64db8eed6abce65e042ffa77ae890f081a7c96574aa8f8b746896fe85");
        // An owner that is addr_none, a missing entry or one too many are refused, naming the entry.
        let none = stack(&format!(
            r#"{{"type":"num","value":"0x1"}},{{"type":"slice","value":"{ADDR_NONE}"}},
               {{"type":"slice","value":"{MASTER}"}},{{"type":"cell","value":"{EMPTY}"}}"#
        ));
        let e = wallet_data(&none).unwrap_err();
        assert!(e.to_string().contains("entry 1 (`owner`)"), "{e}");
        assert!(matches!(wallet_data(&s[..3]), Err(ChainError::StackLength { found: 3, .. })));
        let negative = stack(&format!(
            r#"{{"type":"num","value":"-0x1"}},{{"type":"slice","value":"{OWNER}"}},
               {{"type":"slice","value":"{MASTER}"}},{{"type":"cell","value":"{EMPTY}"}}"#
        ));
        assert!(matches!(wallet_data(&negative), Err(ChainError::EntryRange { index: 0, .. })));
    }

    #[test]
    fn jetton_data_reads_the_wallet_code() {
        let s = stack(&format!(
            r#"{{"type":"num","value":"0x0"}},{{"type":"num","value":"-0x1"}},{{"type":"slice","value":"{ADDR_NONE}"}},
               {{"type":"cell","value":"{EMPTY}"}},{{"type":"cell","value":"{EMPTY}"}}"#
        ));
        let d = jetton_data(&s).unwrap();
        assert_eq!((d.total_supply, d.mintable, d.admin), (0, true, None));
        assert_eq!(d.wallet_code.bit_len(), 0);
        let bad = stack(&format!(
            r#"{{"type":"num","value":"0x0"}},{{"type":"num","value":"0x2"}},{{"type":"slice","value":"{ADDR_NONE}"}},
               {{"type":"cell","value":"{EMPTY}"}},{{"type":"cell","value":"{EMPTY}"}}"#
        ));
        assert!(matches!(jetton_data(&bad), Err(ChainError::EntryRange { index: 1, field: "mintable", .. })));
    }
}
