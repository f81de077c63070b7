//! The market-data file (`data/market.json`) as written: [`MarketFile`] and its records (coins, trades as the
//! chain records them, reward programs, affiliate accounts; liquidity events and balances are
//! [`crate::liquidity::LiquidityRecord`] and [`crate::wallets::BalanceRecord`]), and its
//! line-per-record JSON form ([`to_json_lines`]).
//!
//! Owns the file's shape; must not check a record (the replay does, `super::data`) or touch I/O.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::liquidity::LiquidityRecord;
use crate::types::DateTime;
use crate::wallets::BalanceRecord;

/// The whole file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MarketFile {
    /// Generator, seed and command.
    pub source: String,
    /// The `source` of the snapshot whose pools the trades run on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_source: Option<String>,
    /// The moment the sample ends ("now" for the bundled server).
    pub as_of: DateTime,
    /// The affiliate program's contract.
    pub program_address: String,
    /// One per listed coin.
    pub coins: Vec<CoinRecord>,
    /// In time order.
    pub trades: Vec<TradeRecord>,
    /// Liquidity events, in time order: the pools' history before the sample ([`crate::liquidity`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub liquidity: Vec<LiquidityRecord>,
    /// Liquidity reward programs.
    #[serde(default)]
    pub rewards: Vec<RewardRecord>,
    /// Affiliate accounts.
    #[serde(default)]
    pub affiliates: Vec<AffiliateRecord>,
    /// Wallet balances ([`crate::wallets`]), ordered by owner then asset.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub balances: Vec<BalanceRecord>,
}

/// What the file says about a coin beyond the snapshot's name, ticker, decimals and image.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CoinRecord {
    /// Asset id; must be an asset of the snapshot.
    pub asset: String,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Social links.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub social_links: BTreeMap<String, String>,
    /// Total supply, smallest units, decimal string.
    pub total_supply: String,
    /// Circulating supply, smallest units, decimal string (≤ total).
    pub circulating_supply: String,
    /// Tags.
    #[serde(default)]
    pub tags: Vec<String>,
    /// 0..=4.
    pub verification_level: u8,
    /// Creator (raw address).
    pub author: String,
    /// Creation time.
    pub created_at: DateTime,
    /// Holder count.
    pub holders: u64,
    /// Percent.
    #[serde(default)]
    pub buy_tax: u8,
    /// Percent.
    #[serde(default)]
    pub sell_tax: u8,
    /// Launch-pad coins only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memepad: Option<MemepadRecord>,
}

/// A launch-pad coin's bonding curve.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MemepadRecord {
    /// nanoTON raised, decimal string.
    pub curve_ton_collected: String,
    /// nanoTON at completion, decimal string (> 0).
    pub curve_ton_max: String,
    /// Launch pad name.
    pub memepad: String,
    /// e.g. dex_d.
    pub contract_type: String,
    /// When the coin moved to a pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub migration_date: Option<DateTime>,
}

/// One swap as the chain records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TradeRecord {
    /// Unix seconds.
    pub time: i64,
    /// Pool (raw address).
    pub pool: String,
    /// Asset sent in (one of the pool's).
    pub asset_in: String,
    /// Decimal string.
    pub amount_in: String,
    /// Decimal string; must equal the pool math's output.
    pub amount_out: String,
    /// Trader wallet (raw address).
    pub trader: String,
    /// Transaction hash, 64 hex.
    pub tx_hash: String,
}

/// A liquidity reward program of a pool.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RewardRecord {
    /// Pool (raw address).
    pub pool: String,
    /// Index within the pool.
    pub reward_index: i32,
    /// Reward asset.
    pub asset: String,
    /// Smallest units per day, decimal string.
    pub tokens_per_day: String,
    /// Smallest units left, decimal string.
    pub remaining_budget: String,
    /// End of the program.
    pub end_date: DateTime,
}

/// An affiliate (referral) account.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AffiliateRecord {
    /// Account id (`[A-Za-z0-9_-]{1,64}`, not 48 characters long so it cannot be mistaken for an address).
    pub account_id: String,
    /// Account contract (raw address).
    pub address: String,
    /// Deployed.
    pub initialized: bool,
    /// Account type.
    pub account_type: String,
    /// Fee, basis points.
    pub account_fee: i32,
    /// Controller wallet (raw address).
    pub controller: String,
    /// nanoTON, decimal string.
    pub balance_for_claim: String,
    /// nanoTON, decimal string.
    pub balance_claimed: String,
    /// Referred wallets (raw addresses); a wallet has at most one referrer.
    #[serde(default)]
    pub referrals: Vec<String>,
}

/// The file as JSON with one coin, trade, reward or account per line: diffs stay readable and the file small.
pub fn to_json_lines(file: &MarketFile) -> Result<String, serde_json::Error> {
    fn section<T: Serialize>(out: &mut String, name: &str, items: &[T], last: bool) -> Result<(), serde_json::Error> {
        out.push_str(&format!("  \"{name}\": [\n"));
        for (i, item) in items.iter().enumerate() {
            out.push_str("    ");
            out.push_str(&serde_json::to_string(item)?);
            out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
        }
        out.push_str(if last { "  ]\n" } else { "  ],\n" });
        Ok(())
    }
    let mut out = String::from("{\n");
    out.push_str(&format!("  \"source\": {},\n", serde_json::to_string(&file.source)?));
    if let Some(s) = &file.snapshot_source {
        out.push_str(&format!("  \"snapshot_source\": {},\n", serde_json::to_string(s)?));
    }
    out.push_str(&format!("  \"as_of\": {},\n", serde_json::to_string(&file.as_of)?));
    out.push_str(&format!("  \"program_address\": {},\n", serde_json::to_string(&file.program_address)?));
    section(&mut out, "coins", &file.coins, false)?;
    section(&mut out, "trades", &file.trades, false)?;
    section(&mut out, "liquidity", &file.liquidity, false)?;
    section(&mut out, "rewards", &file.rewards, false)?;
    section(&mut out, "affiliates", &file.affiliates, file.balances.is_empty())?;
    if !file.balances.is_empty() {
        section(&mut out, "balances", &file.balances, true)?;
    }
    out.push_str("}\n");
    Ok(out)
}
