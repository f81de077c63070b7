//! Tracked wallets' holdings, read from toncenter for `sync --wallets` (the market store's balances): each wallet's
//! TON balance (`accountStates`, [`ACCOUNT_STATES_BATCH`] wallets a request) and every jetton wallet it owns
//! (`jetton/wallets` by owner, every page).
//!
//! Owns the reading and its one rule: **a wallet is read whole or not at all**. A wallet whose TON balance or any
//! page of its jetton wallets fails is reported as failed with none of its figures, so the caller never writes
//! half of a wallet (a TON balance newer than its jettons, or the first page of its jettons without the rest).
//! Which jettons the market knows, and writing, are the caller's.

use tonlib_core::TonAddress;

use super::toncenter::{ReadError, Toncenter, ACCOUNT_STATES_BATCH};

/// One wallet read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalletHoldings {
    /// The wallet (owner).
    pub owner: TonAddress,
    /// nanoTON.
    pub ton: u128,
    /// Per jetton master, the balance of the owner's jetton wallet (every wallet toncenter lists, zeros too).
    pub jettons: Vec<(TonAddress, u128)>,
}

/// What one read of the tracked wallets gave.
#[derive(Debug, Default)]
pub struct HoldingsRead {
    /// The wallets read whole, in the order given.
    pub read: Vec<WalletHoldings>,
    /// The wallets not read, with why.
    pub failed: Vec<(TonAddress, ReadError)>,
}

/// Reads the holdings of `owners` (see the module documentation).
pub async fn read(toncenter: &Toncenter, owners: &[TonAddress]) -> HoldingsRead {
    let mut out = HoldingsRead::default();
    for batch in owners.chunks(ACCOUNT_STATES_BATCH) {
        let ton = match toncenter.ton_balances(batch).await {
            Ok(b) => b,
            Err(e) => {
                // The whole batch failed: each wallet of it is reported with the batch's reason.
                let text = e.to_string();
                let mut first = Some(e);
                for owner in batch {
                    let why = first.take().unwrap_or_else(|| ReadError::Unanswered {
                        what: format!("accountStates (balances) failed: {text}"),
                        account: owner.to_hex(),
                    });
                    out.failed.push((owner.clone(), why));
                }
                continue;
            }
        };
        for (owner, ton) in batch.iter().zip(ton) {
            match toncenter.jetton_wallets(owner).await {
                Ok(wallets) => out.read.push(WalletHoldings {
                    owner: owner.clone(),
                    ton,
                    jettons: wallets.into_iter().map(|w| (w.jetton, w.balance)).collect(),
                }),
                Err(e) => out.failed.push((owner.clone(), e)),
            }
        }
    }
    out
}
