//! Synthetic exchange API responses for the import figures (BENCHMARKS.md, "Import"): a STON.fi `/v1/pools`
//! answer of any size with the record shape of the real one (`tests/data/import/stonfi-pools.json`, from
//! `../shared/fixtures/ton/`): user-friendly `EQ…` addresses, amounts as decimal strings, the v1 record's extra
//! fields (`lp_total_supply_usd`, `lp_price_usd`, `apy_*`). The mix is the one an import meets: v1 and v2 pools
//! over `pools / 25 + 2` jettons and TON (the zero address on v1, the pTON v2.1 master on v2), a share of
//! deprecated and empty pools that the import skips.

use std::fmt::Write as _;

use tonroute::asset::parse_address;

use crate::snapshot::SplitMix64;

/// The v1 router (ston-fi/sdk `dex/v1/constants.ts`).
const V1_ROUTER: &str = "EQB3ncyBUTjZUA5EnFKR5_EnOMI9V1tTEAAPaiU71gc4TiUt";
/// A v2 router (the real USD₮/TON v2 pool's).
const V2_ROUTER: &str = "EQCS4UEa5UaJLzOyyKieqQOQ2P9M-7kXpkO5HnP3Bv250cN3";
/// TON as v1 records write it.
const ZERO: &str = "EQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAM9c";
/// TON as v2 records write it: the pTON v2.1 master.
const PTON: &str = "EQBnGWMCf3-FZZq1W4IWcWiGAc3PHuZ0_H-7sad2oY00o83S";

/// A random basechain address in the bounceable user-friendly form the API writes.
fn random_address(rng: &mut SplitMix64) -> String {
    let raw = format!("0:{:016x}{:016x}{:016x}{:016x}", rng.next(), rng.next(), rng.next(), rng.next());
    // A raw basechain address of 64 hex digits always parses.
    parse_address(&raw).expect("well-formed raw address").to_base64_url()
}

/// A `/v1/pools` answer (`{"pool_list": [...]}`) of `pools` records: 40 % v1, 60 % v2 (lp fee 20, 30 or 40 bps);
/// about 3 % deprecated and 2 % with a zero reserve; a third of the pools pair a jetton with TON.
pub fn stonfi_pools_response(pools: usize, seed: u64) -> String {
    let mut rng = SplitMix64(seed);
    let jettons: Vec<String> = (0..pools / 25 + 2).map(|_| random_address(&mut rng)).collect();
    let mut out = String::with_capacity(pools * 700 + 16);
    out.push_str("{\"pool_list\": [");
    for i in 0..pools {
        let v1 = rng.below(10) < 4;
        let ton = if v1 { ZERO } else { PTON };
        let a = jettons[rng.below(jettons.len() as u64) as usize].as_str();
        let b = if rng.below(3) == 0 { ton } else { jettons[rng.below(jettons.len() as u64) as usize].as_str() };
        let b = if b == a { ton } else { b };
        let r0 = 1_000_000 + u128::from(rng.below(1_000_000_000_000)) * u128::from(1 + rng.below(1000));
        let r1 = if rng.below(50) == 0 { 0 } else { 1_000_000 + u128::from(rng.below(1_000_000_000_000)) * 1000 };
        let deprecated = rng.below(100) < 3;
        let (lp_fee, protocol_fee, ref_fee) = if v1 { (20, 10, 10) } else { (20 + rng.below(3) * 10, 10, 10) };
        if i > 0 {
            out.push(',');
        }
        let address = random_address(&mut rng);
        let router = if v1 { V1_ROUTER } else { V2_ROUTER };
        let supply = r0 / 7 + 1;
        let _ = write!(
            out,
            "{{\"address\": \"{address}\", \"router_address\": \"{router}\", \"reserve0\": \"{r0}\", \
             \"reserve1\": \"{r1}\", \"token0_address\": \"{a}\", \"token1_address\": \"{b}\", \
             \"lp_total_supply\": \"{supply}\", \"lp_fee\": \"{lp_fee}\", \"protocol_fee\": \"{protocol_fee}\", \
             \"ref_fee\": \"{ref_fee}\", \"protocol_fee_address\": \"{ZERO}\", \
             \"collected_token0_protocol_fee\": \"{}\", \"collected_token1_protocol_fee\": \"{}\", ",
            r0 / 1000,
            r1 / 1000,
        );
        if v1 {
            let _ = write!(
                out,
                "\"lp_total_supply_usd\": \"{}.{:06}\", \"lp_price_usd\": \"{}.{:09}\", \"apy_1d\": \"0.{:016}\", \
                 \"apy_7d\": \"0.{:016}\", \"apy_30d\": \"0.{:016}\", ",
                rng.below(10_000_000),
                rng.below(1_000_000),
                rng.below(2000),
                rng.below(1_000_000_000),
                rng.below(10_000_000_000_000_000),
                rng.below(10_000_000_000_000_000),
                rng.below(10_000_000_000_000_000),
            );
        }
        let _ = write!(out, "\"deprecated\": {deprecated}}}");
    }
    out.push_str("]}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_json_with_the_real_record_fields() {
        let text = stonfi_pools_response(200, 1);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let list = value["pool_list"].as_array().unwrap();
        assert_eq!(list.len(), 200);
        let real: serde_json::Value =
            serde_json::from_str(include_str!("../../../tests/data/import/stonfi-pools.json")).unwrap();
        // Every field of the real v1 record is in a generated v1 record, and the other way round.
        let real_v1 = real["pool_list"][0].as_object().unwrap();
        let v1 = list.iter().find(|r| r["router_address"] == V1_ROUTER).unwrap().as_object().unwrap();
        let keys = |o: &serde_json::Map<String, serde_json::Value>| o.keys().cloned().collect::<Vec<_>>();
        let (mut want, mut got) = (keys(real_v1), keys(v1));
        want.sort();
        got.sort();
        assert_eq!(got, want);
        assert!(list.iter().all(|r| r["address"].as_str().unwrap().starts_with("EQ")));
    }
}
