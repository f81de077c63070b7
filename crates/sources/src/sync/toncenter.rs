//! toncenter API v3 through [`Http`]: get-methods, account states, the masterchain's head, the accounts each
//! masterchain block touched, and what wallets hold (jetton wallets by owner, TON balances). Answers are decoded
//! by the pure [`tonroute_core::chain`] decoders.

use std::collections::HashSet;

use serde_json::{json, Value};
use tonlib_core::TonAddress;

use super::http::{Endpoint, FetchError, Http};
use tonroute_core::chain::holdings::{self, HoldingsError, JettonWallet};
use tonroute_core::chain::stack::GetMethodResult;
use tonroute_core::chain::toncenter::{self, AccountState};
use tonroute_core::chain::ChainError;

/// Most addresses per `accountStates` call: toncenter allows 1000; 100 keeps the URL below 8 KiB.
pub const ACCOUNT_STATES_BATCH: usize = 100;

/// Jetton wallets per `jetton/wallets` page (toncenter's largest `limit`).
pub const JETTON_WALLETS_PAGE: u32 = 1000;

/// Why a toncenter read failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The request failed (after its retries).
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The answer does not decode.
    #[error("{what}: {source}")]
    Decode {
        /// What was read (`get_pool_data of 0:…`, `masterchainInfo`, …).
        what: String,
        /// Why.
        #[source]
        source: ChainError,
    },
    /// A holdings answer (jetton wallets, TON balances) does not decode.
    #[error("{what}: {source}")]
    Holdings {
        /// What was read (`jetton/wallets of 0:… offset 0`, `accountStates (balances)`).
        what: String,
        /// Why.
        #[source]
        source: HoldingsError,
    },
    /// An account asked for is missing from the answer.
    #[error("{what}: no entry for {account}")]
    Unanswered {
        /// What was read.
        what: String,
        /// The account (raw).
        account: String,
    },
}

/// A toncenter v3 client.
#[derive(Debug, Clone)]
pub struct Toncenter {
    http: Http,
    base: String,
}

impl Toncenter {
    /// A client of the toncenter at `base` (e.g. `https://toncenter.com`).
    pub fn new(http: Http, base: &str) -> Toncenter {
        Toncenter { http, base: base.trim_end_matches('/').to_string() }
    }

    fn url(&self, path: &str) -> String {
        format!("{}/api/v3/{path}", self.base)
    }

    /// Runs a get-method (no arguments, or the given v3 stack entries) at `address`.
    pub async fn run_get_method(
        &self,
        address: &TonAddress,
        method: &str,
        stack: Vec<Value>,
    ) -> Result<GetMethodResult, ReadError> {
        let body = json!({"address": address.to_hex(), "method": method, "stack": stack});
        let answer = self.http.post(Endpoint::RunGetMethod, &self.url("runGetMethod"), &body, true).await?;
        GetMethodResult::from_value(&answer)
            .map_err(|source| ReadError::Decode { what: format!("{method} of {}", address.to_hex()), source })
    }

    /// The states (with data cells) of up to [`ACCOUNT_STATES_BATCH`] accounts.
    pub async fn account_states(&self, addresses: &[TonAddress]) -> Result<Vec<AccountState>, ReadError> {
        let mut query: Vec<(&str, String)> = addresses.iter().map(|a| ("address", a.to_hex())).collect();
        query.push(("include_boc", "true".to_string()));
        let answer = self.http.get(Endpoint::AccountStates, &self.url("accountStates"), &query, true).await?;
        toncenter::account_states(&answer)
            .map_err(|source| ReadError::Decode { what: "accountStates".to_string(), source })
    }

    /// The seqno of the latest masterchain block.
    pub async fn masterchain_seqno(&self) -> Result<u32, ReadError> {
        Ok(self.masterchain_head().await?.seqno)
    }

    /// The latest masterchain block: seqno and, when toncenter gives it, generation time.
    pub async fn masterchain_head(&self) -> Result<toncenter::MasterchainHead, ReadError> {
        let answer = self.http.get(Endpoint::MasterchainInfo, &self.url("masterchainInfo"), &[], true).await?;
        toncenter::masterchain_head(&answer)
            .map_err(|source| ReadError::Decode { what: "masterchainInfo".to_string(), source })
    }

    /// Every account a transaction of masterchain block `seqno` (and the shard blocks it commits) touched,
    /// reading `page` transactions per request until a short page.
    pub async fn block_accounts(&self, seqno: u32, page: u32) -> Result<HashSet<TonAddress>, ReadError> {
        let page = page.clamp(1, 1000);
        let this = self;
        let accounts = paged(page, move |offset| async move {
            let query = [
                ("seqno", seqno.to_string()),
                ("limit", page.to_string()),
                ("offset", offset.to_string()),
                ("sort", "asc".to_string()),
            ];
            let url = this.url("transactionsByMasterchainBlock");
            let answer = this.http.get(Endpoint::BlockTransactions, &url, &query, true).await?;
            let txs = toncenter::block_transactions(&answer).map_err(|source| ReadError::Decode {
                what: format!("transactionsByMasterchainBlock {seqno} offset {offset}"),
                source,
            })?;
            Ok((txs.accounts, txs.count))
        })
        .await?;
        Ok(accounts.into_iter().collect())
    }

    /// Every jetton wallet of `owner` (all pages, [`JETTON_WALLETS_PAGE`] a request, until a short page); every
    /// entry must be `owner`'s.
    pub async fn jetton_wallets(&self, owner: &TonAddress) -> Result<Vec<JettonWallet>, ReadError> {
        let this = self;
        paged(JETTON_WALLETS_PAGE, move |offset| async move {
            let query = [
                ("owner_address", owner.to_hex()),
                ("limit", JETTON_WALLETS_PAGE.to_string()),
                ("offset", offset.to_string()),
            ];
            let answer = this.http.get(Endpoint::JettonWallets, &this.url("jetton/wallets"), &query, true).await?;
            let page = holdings::jetton_wallets(&answer, Some(owner)).map_err(|source| ReadError::Holdings {
                what: format!("jetton/wallets of {} offset {offset}", owner.to_hex()),
                source,
            })?;
            Ok((page.wallets, page.count))
        })
        .await
    }

    /// The TON balances (nanoTON) of up to [`ACCOUNT_STATES_BATCH`] accounts, in the order asked; an account the
    /// answer leaves out is an error.
    pub async fn ton_balances(&self, accounts: &[TonAddress]) -> Result<Vec<u128>, ReadError> {
        let mut query: Vec<(&str, String)> = accounts.iter().map(|a| ("address", a.to_hex())).collect();
        query.push(("include_boc", "false".to_string()));
        let what = "accountStates (balances)";
        let answer = self.http.get(Endpoint::AccountStates, &self.url("accountStates"), &query, true).await?;
        let got =
            holdings::ton_balances(&answer).map_err(|source| ReadError::Holdings { what: what.to_string(), source })?;
        accounts
            .iter()
            .map(|a| {
                got.iter()
                    .find(|b| &b.address == a)
                    .map(|b| b.balance)
                    .ok_or_else(|| ReadError::Unanswered { what: what.to_string(), account: a.to_hex() })
            })
            .collect()
    }
}

/// Reads every page of a listing, `page` entries a request: `fetch(offset)` answers one page's entries and how
/// many the page held; a page holding fewer than `page` is the last.
async fn paged<T, F, Fut>(page: u32, mut fetch: F) -> Result<Vec<T>, ReadError>
where
    F: FnMut(u64) -> Fut,
    Fut: std::future::Future<Output = Result<(Vec<T>, usize), ReadError>>,
{
    let mut out = Vec::new();
    let mut offset = 0u64;
    loop {
        let (entries, count) = fetch(offset).await?;
        out.extend(entries);
        if count < page as usize {
            return Ok(out);
        }
        offset += u64::from(page);
    }
}
