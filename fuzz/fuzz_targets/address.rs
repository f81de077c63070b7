//! Any text as a TON address (`tonroute::asset::parse_address`) and as an asset id: never a panic; an accepted
//! address is in workchain 0 or -1 and reads back the same from its raw and friendly forms, agreeing with
//! `tonlib-core` where it reads the text too; a refusal always says what a TON address looks like.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute::asset::{parse_address, Asset, ADDRESS_FORMS};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match parse_address(text) {
        Ok(a) => {
            assert!(a.workchain == 0 || a.workchain == -1);
            assert_eq!(parse_address(&a.to_hex()).ok(), Some(a.clone()));
            assert_eq!(parse_address(&a.to_base64_url()).ok(), Some(a.clone()));
            // Where tonlib-core reads the text too, it reads the same account.
            if let Ok(t) = text.trim().parse::<tonlib_core::TonAddress>() {
                assert_eq!(t, a);
            }
        }
        Err(e) => assert!(e.to_string().ends_with(ADDRESS_FORMS), "{e}"),
    }
    let _ = Asset::parse(text);
});
