//! `tonroute import` run as a user runs it (the built binary, its flags, the saved responses in
//! `tests/data/import/`): the result is a snapshot `quote --snapshot` uses at once and whose quote is the
//! contract's formula on the saved record; a failed import writes nothing and leaves an existing file as it was.
#![cfg(feature = "cli")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use primitive_types::U256;
use serde_json::Value;

const TONROUTE: &str = env!("CARGO_BIN_EXE_tonroute");
const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

fn saved(name: &str) -> String {
    format!("{}/tests/data/import/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tonroute-cli-import-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tonroute(dir: &Path, args: &[&str]) -> Output {
    Command::new(TONROUTE).args(args).current_dir(dir).output().unwrap_or_else(|e| panic!("{TONROUTE}: {e}"))
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// STON.fi v1 constant product (research 04 §1): LP fee from the input, one floor division, protocol fee from
/// the output rounded up.
fn stonfi_v1(amount: u128, r_in: u128, r_out: u128, lp: u128, protocol: u128) -> u128 {
    let aif = U256::from(amount) * U256::from(10_000 - lp);
    let base = (aif * U256::from(r_out) / (U256::from(r_in) * U256::from(10_000u32) + aif)).as_u128();
    base - (base * protocol).div_ceil(10_000)
}

#[test]
fn a_saved_pools_response_imports_and_quotes_like_the_contract() {
    let dir = scratch("quote");
    let o = tonroute(&dir, &["import", &saved("stonfi-pools.json"), "--out", "pools.json"]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("STON.fi /v1/pools (3 records)"), "{out}");
    assert!(out.contains("imported 3 pools: dex_b_v1/constant_product 2, dex_b_v2/constant_product 1"), "{out}");
    assert!(out.contains("skipped 0 records"), "{out}");
    assert!(out.contains("wrote pools.json: 3 pools"), "{out}");

    // The real NOT/TON v1 record (reserves 327026382098709038 NOT / 562652470746670 nanoTON, fees 70 + 30):
    // 1,000 NOT in.
    let o = tonroute(
        &dir,
        &["quote", NOT, "native", "1000000000000", "--max-splits", "1", "--snapshot", "pools.json", "--json"],
    );
    assert!(o.status.success(), "{}", text(&o));
    let q: Value = serde_json::from_slice(&o.stdout).unwrap();
    let want = stonfi_v1(1_000_000_000_000, 327_026_382_098_709_038, 562_652_470_746_670, 70, 30);
    assert_eq!(q["out_amount"], want.to_string(), "{q}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_base_keeps_its_pools_and_an_import_replaces_those_of_the_same_address() {
    let dir = scratch("base");
    let o = tonroute(&dir, &["import", &saved("dedust-pools.json"), "--out", "dedust.json"]);
    assert!(o.status.success(), "{}", text(&o));
    let o = tonroute(
        &dir,
        &[
            "import",
            &saved("stonfi-pools.json"),
            &saved("dedust-pools.json"),
            "--base",
            "dedust.json",
            "--out",
            "all.json",
        ],
    );
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("replaced 3 pools of the base"), "{out}");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("all.json")).unwrap()).unwrap();
    assert_eq!(all["pools"].as_array().unwrap().len(), 6);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failed_import_writes_nothing_and_keeps_the_old_file() {
    let dir = scratch("fail");
    let o = tonroute(&dir, &["import", &saved("stonfi-pools.json"), "--out", "pools.json"]);
    assert!(o.status.success(), "{}", text(&o));
    let before = std::fs::read(dir.join("pools.json")).unwrap();
    std::fs::write(dir.join("cut.json"), &std::fs::read(saved("dedust-pools.json")).unwrap()[..300]).unwrap();
    std::fs::write(dir.join("other.json"), r#"{"hello": "world"}"#).unwrap();
    std::fs::write(dir.join("routers-only.json"), std::fs::read(saved("stonfi-routers.json")).unwrap()).unwrap();
    let pools = saved("stonfi-pools.json");
    for (files, says) in [
        (vec![pools.as_str(), "cut.json"], "cut.json: not JSON"),
        (vec![pools.as_str(), "other.json"], "other.json: not a known API response"),
        (vec!["routers-only.json"], "no payload holds pools"),
        (vec![pools.as_str(), "missing.json"], "reading missing.json"),
    ] {
        let mut all = vec!["import"];
        all.extend(files);
        all.extend(["--out", "pools.json"]);
        let o = tonroute(&dir, &all);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(2), "{out}");
        assert!(out.contains(says), "{says}: {out}");
        assert_eq!(std::fs::read(dir.join("pools.json")).unwrap(), before, "{says}: the old file changed");
    }
    let o = tonroute(&dir, &["import", "other.json", "--out", "new.json"]);
    assert!(!o.status.success());
    assert!(!dir.join("new.json").exists(), "a failed import created its output");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
