//! Any bytes as the snapshot the npm package loads (`Router.fromSnapshot`: bindings/wasm's
//! `Engine::from_snapshot_bytes`): never a panic; a refusal is a `/v4` input error (1xxx, 2xxx) whose message
//! starts with `snapshot: `; a loaded router answers a quote, `poolCount` and `assets()` without panicking, its
//! assets' JSON is an array with one entry per asset, and its quote answer is JSON or a `/v4` error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tonroute_wasm::Engine;

const QUOTE: &str = r#"{"in_minter": "native", "out_minter": "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe", "amount": "1000000000"}"#;

fuzz_target!(|data: &[u8]| {
    match Engine::from_snapshot_bytes(data) {
        Err(e) => {
            assert!((1000..3000).contains(&e.code()), "{} {}", e.code(), e.message());
            assert!(e.message().starts_with("snapshot: "), "{}", e.message());
        }
        Ok(engine) => {
            let assets: serde_json::Value = serde_json::from_str(&engine.assets()).expect("assets JSON");
            assert!(assets.is_array());
            let _ = engine.pool_count();
            if let Ok(answer) = engine.quote(QUOTE) {
                serde_json::from_str::<serde_json::Value>(&answer).expect("quote JSON");
            }
        }
    }
});
