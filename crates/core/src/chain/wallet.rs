//! Jetton-wallet addresses computed offline: `0:` + the representation hash of the wallet's StateInit.
//!
//! A jetton wallet is deployed by its master with `StateInit { code: wallet_code, data: initial data }`, so
//! its address follows from the owner, the master and the wallet code — but the initial data layout is per
//! jetton family. Only families whose layout was checked against real `get_wallet_address` results are here:
//!
//! | [`WalletFamily`] | initial data | code | checked on |
//! |---|---|---|---|
//! | `tep74` (TEP-74 reference `token-contract`) | `balance:Coins(0) owner:MsgAddress master:MsgAddress ^wallet_code` | the master's `wallet_code` | Monsoon (mainnet), 1 owner |
//! | `stablecoin` (`stablecoin-contract`, USD₮; also `ton-blockchain/jetton-contract` 2.0) | `status:uint4(0) balance:Coins(0) owner:MsgAddress master:MsgAddress` | a **library cell** `02`+hash | USD₮ (mainnet), 2 owners and a wallet's own state, 6 wallets of mainnet traces; jetton 2.0 ([`JETTON2_WALLET_CODE`]): 7 wallets of 3 jettons in mainnet traces |
//! | `pton` (STON.fi proxy TON v1 and v2) | `balance:Coins(0) owner:MsgAddress master:MsgAddress` | v1: the full code; v2.1: a library cell | v1: the v1 router's pTON wallet as ston-fi/sdk records it; v2.1: 2 routers' wallets in mainnet traces |
//!
//! The StateInit is `split_depth:absent special:absent code:present data:present library:absent` (bits
//! `00110`) with references `[code, data]`; wallets live in the basechain. When the code is a library cell,
//! the hash covers that exotic cell itself (its own representation, flag `exotic` in the descriptor), not
//! the code it points to — `tonlib-core`'s `TonAddress::derive` does this (checked on the USD₮ vectors in
//! `tests/it/chain_fixtures.rs`). For any other family (taxable, scaled-UI, TONCO's proxy TON…), no guess: the
//! caller must list the wallet or ask the chain (`get_wallet_address`).
//!
//! [`known_jetton`] names the jettons whose family and code are known without asking the chain (USD₮, NOT,
//! the two STON.fi proxy-TON masters): what an offline import derives router wallets from.

use std::fmt;

use tonlib_core::cell::{ArcCell, CellBuilder, TonCellError};
use tonlib_core::TonAddress;

/// USD₮'s wallet code as its master stores it: the library cell `02` + `8f452d7a…3d68`, as a base64 bag of
/// cells (cell hash `89468f02…e37b`). Checked in `tests/it/chain_fixtures.rs` against the USD₮ vectors.
pub const USDT_WALLET_CODE: &str = "te6cckEBAQEAIwAIQgKPRS16Tf10BmtoI2UXclntBXNENb52tf1L1divK3w9aCBrv3Y=";

/// A TEP-74 reference (`token-contract`) wallet code, as a base64 bag of cells: the wallet code stored by the
/// mainnet Monsoon jetton master (`EQDk2VTv…`), cell hash `4adf4813…f217`. Checked in `tests/it/chain_fixtures.rs`
/// against Monsoon's real `get_wallet_address` answer. The bundled snapshot gives it to its generated jettons.
pub const TEP74_WALLET_CODE: &str = "te6cckECEgEAAygAART/APSkE/S88sgLAQIBYgIDAgLMBAUAG6D2BdqJofQB9IH0gahhAgHUBgcCAUgICQC7CDHAJJfBOAB0NMDAXGwlRNfA/AL4PpA+kAx+gAxcdch+gAx+gAwAtMfghAPin6lUiC6lTE0WfAI4IIQF41FGVIgupYxREQD8AngNYIQWV8HvLqTWfAK4F8EhA/y8IAARPpEMHC68uFNgAgEgCgsCASAMDQH1APTP/oA+kAh8AHtRND6APpA+kDUMFE2oVIqxwXy4sEowv/y4sJUNEJwVCATVBQDyFAE+gJYzxYBzxbMySLIywES9AD0AMsAySD5AHB0yMsCygfL/8nQBPpA9AQx+gB3gBjIywVQCM8WcPoCF8trE8yCEBeNRRnIyx8ZgDgP3O1E0PoA+kD6QNQwCNM/+gBRUaAF+kD6QFNbxwVUc21wVCATVBQDyFAE+gJYzxYBzxbMySLIywES9AD0AMsAyfkAcHTIywLKB8v/ydBQDccFHLHy4sMK+gBRqKGCCJiWgIIImJaAErYIoYIImJaAoBihJ+MPJdcLAcMAI4A8QEQDbO1E0PoA+kD6QNQwB9M/+gD6QDBRUaFSSccF8uLBJ8L/8uLCggiYloCqABagFrzy4sOCEHvdl97Iyx8Vyz9QA/oCIs8WAc8WyXGAGMjLBSTPFnD6AstqzMmAQPsAQBPIUAT6AljPFgHPFszJ7VSAAgyAINch7UTQ+gD6QPpA1DAE0x+CEBeNRRlSILqCEHvdl94TuhKx8uLF0z8x+gAwE6BQI8hQBPoCWM8WAc8WzMntVIACayz9QB/oCIs8WUAbPFiX6AlADzxbJUAXMI5FykXHiUAioE6CCCJiWgKoAggiYloCgoBS88uLFBMmAQPsAECPIUAT6AljPFgHPFszJ7VQAcFJ5oBihghBzYtCcyMsfUjDLP1j6AlAHzxZQB88WyXGAGMjLBSTPFlAG+gIVy2oUzMlx+wAQJBAjAA4QSRA4N18EAHbCALCOIYIQ1TJ223CAEMjLBVAIzxZQBPoCFstqEssfEss/yXL7AJM1bCHiA8hQBPoCWM8WAc8WzMntVMUhatY=";

/// The wallet code of `ton-blockchain/jetton-contract` 2.0 (NOT, DOGS and most jettons deployed since 2024)
/// as their masters store it: the library cell `02` + `ba2918c8…9395` (the hash of the compiled
/// `jetton-wallet.fc`, as `OpenBuilders/notcoin-contract` `build/JettonWallet.compiled.json` compiles it), a base64
/// bag of cells. Its layout is the `stablecoin` one; checked in `tests/it/import_derivation.rs` on 7 wallets of 3
/// jettons in mainnet traces (`tests/data/ton-traces/handoffs.json`).
pub const JETTON2_WALLET_CODE: &str = "te6cckEBAQEAIwAIQgK6KRjIlH6bJa+awbiDNXdUFz5YEvgHo9bmQqFHCVlTlSN648M=";

/// The STON.fi proxy-TON v1 wallet code (npm `@ston-fi/blueprint-utils` 0.14.1 `PTON_WALLET_CODE_v1`, MIT),
/// deployed as is (not as a library), a base64 bag of cells (cell hash `8836d2f4…d303`). Checked in
/// `tests/it/import_derivation.rs` against the v1 router's pTON wallet `EQARULUY…` that ston-fi/sdk records.
pub const PTON_V1_WALLET_CODE: &str = "te6cckECCwEAAeEAART/APSkE/S88sgLAQIBYgIJArbQIMcAkl8E4AHQ0wMBcbCSXwTg7UTQ+gAB+GP6QAH4ZPpAAfhl0fpAAfhicPhCgFQB+kQwWLry9PpAMfoAMXHXIfoAMfoAMHOptAD4YdMf0z/4QvhExwXjAkQwAwYCYkQwJIIQD4p+pbqOo18EghBCoPtDuo6T+EOCEDuaygCgcPsCcPhEgwbbPOCED/Lw4w0EBQAocIAYyMsFUAPPFlAD+gLLaskB+wABxDT4QaoAggkxLQCgUhC88uBTA/oA+kD6QDH0BDH6ADFRUqAToXD7AvhDIaH4Y/hDwv/y4FWCEHNi0JzIyx8Tyz9Y+gL4Qs8WWM8WcAHJEoMG2zzI+EP6AvhEzxb4Rc8Wye1UBwL8BIIQD4p+pbqO7AP6ADH6QDH6QDH0BDH6ACTCACLCALDy4FdTQbz4QaoAggkxLQCgUjC8sPLgU1EhoXD7AhOh+EMhoPhjghBzYtCcyMsfEss/AfoC+ELPFgHPFnD4RALJEoMG2zzI+EP6AvhEzxb4Rc8Wye1Uf5NfBHDi3IQPBwgALHGAGMjLBVAEzxZQBPoCEstqzMkB+wAABPLwATmg9gXaiaH0AAPwx/SAA/DJ9IAD8Muj8IfwifCLEQoAAOztx88=";

/// The STON.fi proxy-TON v2 wallet code as the v2.1 master deploys it: the library cell `02` + `cd88e6f3…14d9`
/// (the hash of `@ston-fi/blueprint-utils` 0.14.1 `PTON_WALLET_CODE_v2`), a base64 bag of cells. Checked in
/// `tests/it/import_derivation.rs` against two routers' pTON wallets in mainnet traces.
pub const PTON_V2_WALLET_CODE: &str = "te6cckEBAQEAIwAIQgLNiObzwqnPAbsAOig37A2SwZaF7R2//9lKVF3P3woU2Z9o2CA=";

/// Jettons whose wallet family and code are known offline: `(master raw form, family, code)`.
///
/// - USD₮ `EQCxE6mU…`: `stablecoin`, [`USDT_WALLET_CODE`].
/// - NOT `EQAvlWFD…NOT`: `stablecoin`, [`JETTON2_WALLET_CODE`] (its master stores that library; the v1
///   router's NOT wallet derived from it, `EQAn0fI9…`, is the one third-party sources list).
/// - pTON v1 `EQCM3B12…` and pTON v2.1 `EQBnGWMC…`: `pton`, [`PTON_V1_WALLET_CODE`] / [`PTON_V2_WALLET_CODE`].
pub const KNOWN_JETTONS: [(&str, WalletFamily, &str); 4] = [
    ("0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe", WalletFamily::Stablecoin, USDT_WALLET_CODE),
    (
        "0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc",
        WalletFamily::Stablecoin,
        JETTON2_WALLET_CODE,
    ),
    ("0:8cdc1d7640ad5ee326527fc1ad0514f468b30dc84b0173f0e155f451b4e11f7c", WalletFamily::Pton, PTON_V1_WALLET_CODE),
    ("0:671963027f7f85659ab55b821671688601cdcf1ee674fc7fbbb1a776a18d34a3", WalletFamily::Pton, PTON_V2_WALLET_CODE),
];

/// The family and code of a jetton of [`KNOWN_JETTONS`] (by its master), parsed; `None` for any other.
pub fn known_jetton(master: &TonAddress) -> Option<WalletSpec> {
    let raw = master.to_hex();
    let (_, family, code) = KNOWN_JETTONS.iter().find(|(m, _, _)| *m == raw)?;
    // The constants are checked bags of cells (unit test `known_codes_parse`); a failure would be a build bug.
    let code = crate::chain::boc::parse_boc_text(code).ok()?;
    Some(WalletSpec { family: *family, code })
}

/// A jetton family whose wallet initial data layout is verified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WalletFamily {
    /// TEP-74 reference wallet: `balance owner master ^wallet_code`.
    Tep74,
    /// `stablecoin-contract` (USD₮) and `jetton-contract` 2.0 (NOT): `status balance owner master`, code read
    /// with MYCODE.
    Stablecoin,
    /// STON.fi proxy TON (v1, v2): `balance owner master`, no code reference.
    Pton,
}

impl WalletFamily {
    /// All families.
    pub const ALL: [WalletFamily; 3] = [WalletFamily::Tep74, WalletFamily::Stablecoin, WalletFamily::Pton];

    /// Its name in snapshot files: `tep74`, `stablecoin`, `pton`.
    pub fn name(self) -> &'static str {
        match self {
            WalletFamily::Tep74 => "tep74",
            WalletFamily::Stablecoin => "stablecoin",
            WalletFamily::Pton => "pton",
        }
    }

    /// From its name.
    pub fn from_name(name: &str) -> Option<WalletFamily> {
        WalletFamily::ALL.into_iter().find(|f| f.name() == name)
    }
}

impl fmt::Display for WalletFamily {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a wallet address could not be derived.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WalletError {
    /// Jetton wallets of owners outside the basechain are not derived.
    #[error("owner {owner} is in workchain {workchain}; jetton wallets are derived for basechain owners only")]
    OwnerWorkchain {
        /// The owner, raw form.
        owner: String,
        /// Its workchain.
        workchain: i32,
    },
    /// The jetton has no verified wallet family and no listed wallet for this owner.
    #[error("no wallet of {owner} for {jetton} is listed, and the jetton has no verified wallet family to derive it; list it in the snapshot's jetton_wallets or give the jetton a `wallet` family (tep74, stablecoin, pton) and code")]
    UnknownFamily {
        /// The owner, raw form.
        owner: String,
        /// The jetton, wire form.
        jetton: String,
    },
    /// TON has no jetton wallet.
    #[error("the native coin has no jetton wallet")]
    NotAJetton,
    /// Building the StateInit failed (a cell overflow; cannot happen with these layouts).
    #[error("building the wallet's StateInit: {source}")]
    Cell {
        /// `tonlib-core`'s error.
        #[source]
        source: crate::error::Shared<TonCellError>,
    },
}

impl From<TonCellError> for WalletError {
    fn from(e: TonCellError) -> WalletError {
        WalletError::Cell { source: e.into() }
    }
}

/// What derivation needs for one jetton: its family and its wallet code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletSpec {
    /// The layout family.
    pub family: WalletFamily,
    /// The wallet code (may be a library cell).
    pub code: ArcCell,
}

/// Writes an `addr_std` (never `addr_none`, even for the zero address).
fn store_std_address(b: &mut CellBuilder, a: &TonAddress) -> Result<(), TonCellError> {
    b.store_u8(2, 0b10)?.store_bit(false)?.store_i8(8, a.workchain as i8)?;
    b.store_slice(a.hash_part.as_slice())?;
    Ok(())
}

impl WalletSpec {
    /// The wallet's initial data for `owner` under `master`.
    pub fn initial_data(&self, owner: &TonAddress, master: &TonAddress) -> Result<ArcCell, WalletError> {
        let mut b = CellBuilder::new();
        if self.family == WalletFamily::Stablecoin {
            b.store_u8(4, 0)?;
        }
        b.store_coins(&0u32.into())?;
        store_std_address(&mut b, owner)?;
        store_std_address(&mut b, master)?;
        if self.family == WalletFamily::Tep74 {
            b.store_reference(&self.code)?;
        }
        Ok(b.build()?.to_arc())
    }

    /// `owner`'s wallet of the jetton whose master is `master`.
    pub fn wallet_address(&self, owner: &TonAddress, master: &TonAddress) -> Result<TonAddress, WalletError> {
        if owner.workchain != 0 {
            return Err(WalletError::OwnerWorkchain { owner: owner.to_hex(), workchain: owner.workchain });
        }
        let data = self.initial_data(owner, master)?;
        Ok(TonAddress::derive(0, self.code.clone(), data)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_codes_parse() {
        for (master, family, _) in KNOWN_JETTONS {
            let m = TonAddress::from_hex_str(master).expect("a raw address");
            let spec = known_jetton(&m).expect("its code parses");
            assert_eq!(spec.family, family);
        }
        assert!(known_jetton(&TonAddress::new(0, [7u8; 32].into())).is_none());
    }
}
