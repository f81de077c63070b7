//! The affiliate operations of [`MarketView`]: accounts by id or address, their referred wallets and those
//! wallets' volume, and a wallet's referrer.
//!
//! Owns referral volumes (a wallet's volume counts each of its trades once, in TON and USD).

use std::collections::BTreeMap;

use tonlib_core::TonAddress;

use super::replay::data::Affiliate;
use super::replay::view::MarketView;
use super::units::{friendly, friendly_wallet};
use crate::money::Money;
use crate::query::{AffiliateKey, AffiliateVolumeQuery};
use crate::types::*;

fn accounts<'a>(view: &'a MarketView, key: &AffiliateKey) -> Vec<&'a Affiliate> {
    view.data()
        .affiliates
        .iter()
        .filter(|a| match key {
            AffiliateKey::Id(id) => a.record.account_id == *id,
            AffiliateKey::Address(c) => a.controller == *c || a.address == *c,
        })
        .collect()
}

/// `/affiliate/accounts/{id}`: the accounts `key` names (an id, or a controller or account address).
pub fn affiliate_accounts(view: &MarketView, key: &AffiliateKey) -> Vec<AffiliateAccount> {
    accounts(view, key)
        .into_iter()
        .map(|a| {
            let r = &a.record;
            AffiliateAccount {
                address: friendly(&a.address),
                initialized: r.initialized,
                program_address: friendly(&view.data().program_address),
                account_type: r.account_type.clone(),
                account_id: r.account_id.clone(),
                account_id_hash: sha256_hex(&r.account_id),
                account_fee: r.account_fee,
                controller_address: friendly_wallet(&a.controller),
                balance_for_claim: LargeInteger::new(r.balance_for_claim.clone())
                    .unwrap_or_else(|_| LargeInteger::from(0u64)),
                balance_claimed: LargeInteger::new(r.balance_claimed.clone())
                    .unwrap_or_else(|_| LargeInteger::from(0u64)),
            }
        })
        .collect()
}

/// (volume TON, volume USD, trades) of a wallet over the view's trades.
fn wallet_volume(view: &MarketView, wallet: usize) -> (Money, Money, i64) {
    let mut v = (Money::ZERO, Money::ZERO, 0);
    for t in view.trades().iter().filter(|t| t.trader == wallet) {
        v.0 += t.volume_ton();
        v.1 += t.volume_usd;
        v.2 += 1;
    }
    v
}

/// `/affiliate/accounts/{id}/volume`: per account, each referred wallet's volume and their sum; with a
/// wallet, that wallet's own volume. `None` when the key names no account.
pub fn affiliate_volume(view: &MarketView, q: &AffiliateVolumeQuery) -> Option<AffiliateAccountVolumeResponse> {
    let volume = |w: &TonAddress| {
        Ok::<_, std::convert::Infallible>(
            view.data().trader_index.get(w).map_or((Money::ZERO, Money::ZERO, 0), |&i| wallet_volume(view, i)),
        )
    };
    match affiliate_volume_with(view, q, volume) {
        Ok(answer) => answer,
        Err(never) => match never {},
    }
}

/// [`affiliate_volume`] with each wallet's (volume TON, volume USD, trades) from `volume` (a
/// store that keeps the trades elsewhere sums them there, as [`Money`]).
pub fn affiliate_volume_with<E>(
    view: &MarketView,
    q: &AffiliateVolumeQuery,
    mut volume: impl FnMut(&TonAddress) -> Result<(Money, Money, i64), E>,
) -> Result<Option<AffiliateAccountVolumeResponse>, E> {
    let accounts = accounts(view, &q.key);
    if accounts.is_empty() {
        return Ok(None);
    }
    let breakdown = |ton: Money, usd: Money| AffiliateVolumeBreakdown {
        volume_in_ton: ton.to_large_float(),
        volume_in_usd: usd.to_large_float(),
    };
    let mut out = Vec::with_capacity(accounts.len());
    for a in accounts {
        let mut total = (Money::ZERO, Money::ZERO);
        let mut referral_volumes = Vec::with_capacity(a.referrals.len());
        for &w in &a.referrals {
            let wallet = &view.data().traders[w];
            let (ton, usd, _) = volume(wallet)?;
            total.0 += ton;
            total.1 += usd;
            referral_volumes
                .push(AffiliateReferralVolume { wallet_address: friendly_wallet(wallet), volume: breakdown(ton, usd) });
        }
        out.push(AffiliateAccountVolume {
            affiliate_account_address: friendly(&a.address),
            account_id: a.record.account_id.clone(),
            controller_address: friendly_wallet(&a.controller),
            referrals_total_volume: breakdown(total.0, total.1),
            referral_volumes,
        });
    }
    let wallet_volume = match &q.wallet {
        Some(w) => {
            let (ton, usd, n) = volume(w)?;
            Some(AffiliateWalletVolume {
                wallet_address: friendly_wallet(w),
                volume: breakdown(ton, usd),
                transactions: n,
            })
        }
        None => None,
    };
    Ok(Some(AffiliateAccountVolumeResponse { accounts: out, wallet_volume }))
}

/// `/affiliate/{id}/referrals`: the wallets each account refers, `None` when the key names no account.
pub fn affiliate_referrals(view: &MarketView, key: &AffiliateKey) -> Option<AffiliateReferralsResponse> {
    let accounts = accounts(view, key);
    if accounts.is_empty() {
        return None;
    }
    let mut referrals = BTreeMap::new();
    let mut total = 0usize;
    for a in accounts {
        let wallets: Vec<String> = a.referrals.iter().map(|&w| friendly_wallet(&view.data().traders[w])).collect();
        total += wallets.len();
        referrals.insert(a.record.account_id.clone(), wallets);
    }
    Some(AffiliateReferralsResponse { referrals, total_count: i32::try_from(total).unwrap_or(i32::MAX) })
}

/// `/affiliate/{wallet}/referrer`: the account that referred `wallet`, `None` when none did.
pub fn affiliate_referrer(view: &MarketView, wallet: &TonAddress) -> Option<AffiliateAccountReferrer> {
    let i = *view.data().trader_index.get(wallet)?;
    let a = view.data().affiliates.iter().find(|a| a.referrals.contains(&i))?;
    Some(AffiliateAccountReferrer { account_id: a.record.account_id.clone(), account_fee: a.record.account_fee })
}

fn sha256_hex(s: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(s.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}
