//! Any bytes as a toncenter `runGetMethod` response (v2, v3 or a bare stack): parsing never panics, and
//! every get-method decoder run on whatever stack parses (the pools', and the TEP-74 jetton wallet's and
//! master's of `chain::jetton`) returns a value or a typed error, never a panic. The saved get-method payloads
//! of `tonroute import` (`import::getters`) are fuzzed whole by `api_records`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute::chain::stack::GetMethodResult;
use tonroute::chain::{dex_a, dex_b, dex_c, jetton};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(result) = GetMethodResult::from_json(text) else { return };
    assert!(result.exit_code == 0 || result.exit_code == 1);
    let s = &result.stack;
    let _ = dex_b::v1_pool_data(s);
    for t in dex_b::PoolType::ALL {
        if let Ok(d) = dex_b::v2_pool_data(s, t) {
            assert_eq!(d.params.pool_type(), t);
            assert!(d.reserve0 < 1 << 120 && d.reserve1 < 1 << 120);
        }
    }
    let _ = dex_b::pool_type(s);
    let _ = dex_b::v1_expected_outputs(s);
    let _ = dex_b::router_data(s);
    let _ = dex_b::router_version(s);
    let _ = tonroute::chain::stack::single_address(s, "get_wallet_address");
    let _ = dex_a::reserves(s);
    if let Ok(fee) = dex_a::trade_fee(s) {
        assert!(fee.denominator > 0);
        let _ = fee.bps();
    }
    let _ = dex_a::assets(s);
    let _ = dex_a::is_stable(s);
    if let Ok(state) = dex_c::pool_state(s) {
        assert!(state.tick_spacing > 0);
    }
    if let Ok(ticks) = dex_c::all_ticks(s) {
        assert!(ticks.windows(2).all(|w| w[0].tick < w[1].tick));
    }
    let _ = dex_c::ticks_page(s);
    // TEP-74 answers (the saved get-methods `tonroute import` reads): a wallet's balance is coins, a decoded
    // stack has exactly the method's entries.
    if let Ok(w) = jetton::wallet_data(s) {
        assert!(s.len() == 4 && w.balance < 1 << 120);
    }
    if let Ok(j) = jetton::jetton_data(s) {
        assert!(s.len() == 5 && j.total_supply < 1 << 120);
    }
});
