//! The affiliate resources: accounts, referrers, referrals and referral volumes.
//!
//! Owns the shapes only (see [`super`]); must not compute a volume.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use tonroute_core::decimal::{LargeFloat, LargeInteger};

/// AffiliateAccount.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AffiliateAccount {
    /// Account contract address.
    pub address: String,
    /// Whether the contract is deployed.
    pub initialized: bool,
    /// Affiliate program address.
    pub program_address: String,
    /// Account type.
    pub account_type: String,
    /// Account id.
    pub account_id: String,
    /// Hash of the id.
    pub account_id_hash: String,
    /// Fee in basis points.
    pub account_fee: i32,
    /// Controller wallet.
    pub controller_address: String,
    /// Claimable, nanoTON.
    pub balance_for_claim: LargeInteger,
    /// Claimed, nanoTON.
    pub balance_claimed: LargeInteger,
}

/// AffiliateAccountReferrer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AffiliateAccountReferrer {
    /// Account id.
    pub account_id: String,
    /// Fee in basis points.
    pub account_fee: i32,
}

/// AffiliateReferralsResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AffiliateReferralsResponse {
    /// Account id → referred wallets.
    pub referrals: BTreeMap<String, Vec<String>>,
    /// Referred wallets over all accounts.
    pub total_count: i32,
}

/// AffiliateVolumeBreakdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AffiliateVolumeBreakdown {
    /// TON.
    pub volume_in_ton: LargeFloat,
    /// USD.
    pub volume_in_usd: LargeFloat,
}

/// AffiliateReferralVolume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AffiliateReferralVolume {
    /// Referred wallet.
    pub wallet_address: String,
    /// Its volume.
    pub volume: AffiliateVolumeBreakdown,
}

/// AffiliateAccountVolume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AffiliateAccountVolume {
    /// Account contract address.
    pub affiliate_account_address: String,
    /// Account id.
    pub account_id: String,
    /// Controller.
    pub controller_address: String,
    /// Sum over referrals.
    pub referrals_total_volume: AffiliateVolumeBreakdown,
    /// Per referral.
    pub referral_volumes: Vec<AffiliateReferralVolume>,
}

/// AffiliateWalletVolume.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AffiliateWalletVolume {
    /// Wallet.
    pub wallet_address: String,
    /// Volume.
    pub volume: AffiliateVolumeBreakdown,
    /// Buy transactions contributing.
    pub transactions: i64,
}

/// AffiliateAccountVolumeResponse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AffiliateAccountVolumeResponse {
    /// Accounts.
    pub accounts: Vec<AffiliateAccountVolume>,
    /// The `wallet_address` asked about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wallet_volume: Option<AffiliateWalletVolume>,
}
