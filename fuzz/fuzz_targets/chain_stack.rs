//! Any bytes as a toncenter `runGetMethod` response (v2, v3 or a bare stack): parsing never panics, and
//! every get-method decoder run on whatever stack parses (the pools', and the TEP-74 jetton wallet's and
//! master's of `chain::jetton`) returns a value or a typed error, never a panic. The saved get-method payloads
//! of `tonroute import` (`import::getters`) are fuzzed whole by `api_records`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute::chain::stack::GetMethodResult;
use tonroute::chain::{dedust, jetton, stonfi, tonco};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(result) = GetMethodResult::from_json(text) else { return };
    assert!(result.exit_code == 0 || result.exit_code == 1);
    let s = &result.stack;
    let _ = stonfi::v1_pool_data(s);
    for t in stonfi::PoolType::ALL {
        if let Ok(d) = stonfi::v2_pool_data(s, t) {
            assert_eq!(d.params.pool_type(), t);
            assert!(d.reserve0 < 1 << 120 && d.reserve1 < 1 << 120);
        }
    }
    let _ = stonfi::pool_type(s);
    let _ = stonfi::v1_expected_outputs(s);
    let _ = stonfi::router_data(s);
    let _ = stonfi::router_version(s);
    let _ = tonroute::chain::stack::single_address(s, "get_wallet_address");
    let _ = dedust::reserves(s);
    if let Ok(fee) = dedust::trade_fee(s) {
        assert!(fee.denominator > 0);
        let _ = fee.bps();
    }
    let _ = dedust::assets(s);
    let _ = dedust::is_stable(s);
    if let Ok(state) = tonco::pool_state(s) {
        assert!(state.tick_spacing > 0);
    }
    if let Ok(ticks) = tonco::all_ticks(s) {
        assert!(ticks.windows(2).all(|w| w[0].tick < w[1].tick));
    }
    let _ = tonco::ticks_page(s);
    // TEP-74 answers (the saved get-methods `tonroute import` reads): a wallet's balance is coins, a decoded
    // stack has exactly the method's entries.
    if let Ok(w) = jetton::wallet_data(s) {
        assert!(s.len() == 4 && w.balance < 1 << 120);
    }
    if let Ok(j) = jetton::jetton_data(s) {
        assert!(s.len() == 5 && j.total_supply < 1 << 120);
    }
});
