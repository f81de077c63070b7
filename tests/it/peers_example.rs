//! `examples/peers` treats the peers' graph directory as read-only input: results (and the copies that let
//! `compare.py` see every router of that graph) go to `--out` or `target/peers/<name>/`, never into the input.
#![cfg(feature = "server")]

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use common::bin::{peers_example, run_peers};

fn listing(dir: &Path) -> BTreeSet<(String, Vec<u8>)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.file_name().unwrap().to_string_lossy().to_string(), std::fs::read(&p).unwrap())
        })
        .collect()
}

fn names(dir: &Path) -> Vec<String> {
    listing(dir).into_iter().map(|(n, _)| n).collect()
}

#[test]
fn peers_writes_outside_its_input_directory() {
    let root = std::env::temp_dir().join(format!("tonroute-peers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let input = root.join("g3");
    std::fs::create_dir_all(&input).unwrap();
    // A three-asset graph in the peers' format, two constant-product pools, one query, and a peer's result.
    let graph = json!({
        "assets": [{"id": "native", "decimals": 9}, {"id": "USDT", "decimals": 6}, {"id": "JET", "decimals": 9}],
        "pools": [
            {"address": "p:native-USDT:0", "kind": "cpmm", "asset0": "native", "asset1": "USDT",
             "reserve0": "1000000000000000", "reserve1": "5000000000000", "fee_bps": 20},
            {"address": "p:native-JET:0", "kind": "cpmm", "asset0": "native", "asset1": "JET",
             "reserve0": "2000000000000000", "reserve1": "9000000000000000", "fee_bps": 30}
        ]
    });
    let queries =
        json!([{"id": 0, "from": "USDT", "to": "JET", "amount": "1000000000", "max_splits": 2, "max_length": 3}]);
    std::fs::write(input.join("graph.json"), graph.to_string()).unwrap();
    std::fs::write(input.join("queries.json"), queries.to_string()).unwrap();
    std::fs::write(input.join("results.peer.json"), r#"{"router": "peer", "results": []}"#).unwrap();
    let before = listing(&input);

    let out = root.join("out");
    run_peers(&input, &out, "t15");
    assert!(listing(&input) == before, "the input directory changed: {:?}", names(&input));
    let result: Value = serde_json::from_slice(&std::fs::read(out.join("results.t15.json")).unwrap()).unwrap();
    assert_eq!(result["results"][0]["status"], "ok", "{result}");
    // compare.py groups results by directory: the graph, the queries and the peer's results are beside ours.
    for f in ["graph.json", "queries.json", "results.peer.json"] {
        assert_eq!(std::fs::read(out.join(f)).unwrap(), std::fs::read(input.join(f)).unwrap(), "{f}");
    }
    // Run again (the copies are replaced) and once with the input as --out, which is refused.
    let again = Command::new(peers_example()).arg(&input).args(["--out", out.to_str().unwrap()]).output().unwrap();
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let refused = Command::new(peers_example()).arg(&input).args(["--out", input.to_str().unwrap()]).output().unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is the input directory"));
    assert!(listing(&input) == before, "the input directory changed: {:?}", names(&input));
    let _ = std::fs::remove_dir_all(&root);
}
