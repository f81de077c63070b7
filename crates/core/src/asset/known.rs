//! Wire ids of well-known real assets (TON, USD₮, NOT), for code that must recognise them: the market data
//! prices USD₮ at its peg, the generators and benches pair against them. Ids only: nothing here knows pools.

/// TON, the native coin.
pub const TON: &str = "native";
/// USD₮ (Tether USD), its real jetton master (`EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs`).
pub const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
/// NOT (Notcoin), its real jetton master (`EQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__NOT`).
pub const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::asset::Asset;

    /// The ids are the masters' user-friendly addresses as explorers and the issuers publish them.
    #[test]
    fn ids_are_the_published_masters() {
        assert_eq!(Asset::parse(TON).unwrap(), Asset::Native);
        assert_eq!(
            Asset::parse(USDT).unwrap(),
            Asset::parse("EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs").unwrap()
        );
        assert_eq!(
            Asset::parse(NOT).unwrap(),
            Asset::parse("EQAvlWFDxGF2lXm67y4yzC17wYKD9A0guwPkMs1gOsM__NOT").unwrap()
        );
    }
}
