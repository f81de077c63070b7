//! The units market answers are written in, beside the decimal strings ([`tonroute_core::decimal`]), the dates
//! ([`super::types::DateTime`]) and sums of money ([`super::money`]): whole-token amounts, TON values of USD
//! figures, and the user-friendly forms of addresses (contracts bounceable, wallets not).
//!
//! Owns these conversions; must not know a store, a view or a query (every other part of the domain uses them).

use tonlib_core::TonAddress;

/// Whole-token amount as a float, for prices and volumes only.
pub fn whole(amount: u128, decimals: u8) -> f64 {
    amount as f64 / 10f64.powi(i32::from(decimals))
}

/// A USD value in TON at TON's USD price `ton_usd` (0 when that price is unknown).
pub fn in_ton(usd: f64, ton_usd: f64) -> f64 {
    if ton_usd > 0.0 {
        usd / ton_usd
    } else {
        0.0
    }
}

/// A user-friendly bounceable address (contracts: pools, accounts, masters).
pub fn friendly(a: &TonAddress) -> String {
    a.to_base64_url()
}

/// A user-friendly non-bounceable address (wallets).
pub fn friendly_wallet(a: &TonAddress) -> String {
    a.to_base64_url_flags(true, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_amounts_and_ton_values() {
        assert_eq!(whole(1_500_000_000, 9), 1.5);
        assert_eq!(whole(1, 6), 0.000001);
        assert_eq!(whole(42, 0), 42.0);
        assert_eq!(in_ton(10.0, 2.5), 4.0);
        // An unknown TON price values nothing rather than dividing by zero.
        assert_eq!(in_ton(10.0, 0.0), 0.0);
        assert_eq!(in_ton(10.0, -1.0), 0.0);
    }

    #[test]
    fn contracts_are_bounceable_and_wallets_are_not() {
        // TON's address forms: the first base64url character of a mainnet address is `E` bounceable, `U` not
        // (tag 0x11 / 0x51); both carry the same raw address.
        let raw = "0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
        let a: TonAddress = raw.parse().unwrap();
        assert_eq!(friendly(&a), "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs");
        assert_eq!(friendly_wallet(&a), "UQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_p0p");
    }
}
