//! `tonroute import` run as a user runs it (the built binary, its flags, the saved responses in
//! `tests/data/import/`): the result is a snapshot `quote --snapshot` uses at once and whose quote is the
//! contract's formula on the saved record; a failed import writes nothing and leaves an existing file as it was.
#![cfg(feature = "cli")]

use std::path::Path;
use std::process::{Command, Output};
use std::str::FromStr;

use primitive_types::U256;
use serde_json::Value;

use crate::common::{self, bin};

const TONROUTE: &str = env!("CARGO_BIN_EXE_tonroute");
const NOT: &str = "jetton:0:2f956143c461769579baef2e32cc2d7bc18283f40d20bb03e432cd603ac33ffc";

fn saved(name: &str) -> String {
    format!("{}/tests/data/import/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn tonroute(dir: &Path, args: &[&str]) -> Output {
    Command::new(TONROUTE).args(args).current_dir(dir).output().unwrap_or_else(|e| panic!("{TONROUTE}: {e}"))
}

/// `tonroute ARGS` in `dir`, which must succeed.
fn tonroute_ok(dir: &Path, args: &[&str]) -> Output {
    let o = tonroute(dir, args);
    assert!(o.status.success(), "{}", text(&o));
    o
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
    let dir = common::scratch("cli-import", "quote");
    let o = tonroute(&dir, &["import", &saved("stonfi-pools.json"), "--out", "pools.json"]);
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("STON.fi /v1/pools (3 records)"), "{out}");
    assert!(out.contains("imported 3 pools: dex_b_v1/constant_product 2, dex_b_v2/constant_product 1"), "{out}");
    assert!(out.contains("skipped 0 records"), "{out}");
    assert!(out.contains("wrote pools.json: 3 pools"), "{out}");

    // The real NOT/TON v1 record (reserves 327026382098709038 NOT / 562652470746670 nanoTON, fees 70 + 30):
    // 1,000 NOT in.
    let o = tonroute_ok(
        &dir,
        &["quote", NOT, "native", "1000000000000", "--max-splits", "1", "--snapshot", "pools.json", "--json"],
    );
    let q: Value = serde_json::from_slice(&o.stdout).unwrap();
    let want = stonfi_v1(1_000_000_000_000, 327_026_382_098_709_038, 562_652_470_746_670, 70, 30);
    assert_eq!(q["out_amount"], want.to_string(), "{q}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_base_keeps_its_pools_and_an_import_replaces_those_of_the_same_address() {
    let dir = common::scratch("cli-import", "base");
    tonroute_ok(&dir, &["import", &saved("dedust-pools.json"), "--out", "dedust.json"]);
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

/// `dir/pools.json` imported from the saved STON.fi pools; its bytes.
fn pools_json(dir: &Path) -> Vec<u8> {
    tonroute_ok(dir, &["import", &saved("stonfi-pools.json"), "--out", "pools.json"]);
    std::fs::read(dir.join("pools.json")).unwrap()
}

#[test]
fn a_failed_import_writes_nothing_and_keeps_the_old_file() {
    let dir = common::scratch("cli-import", "fail");
    let before = pools_json(&dir);
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

// ---- Issue 35: imports never report success on nothing and never destroy data (item 1); every imported pool
// swappable where the contracts' rules allow it, quote-only otherwise and said so (item 3); a swap on another
// snapshot than its quote's says so (item 4).

const TON: &str = "native";
const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
/// The jetton of the second v1 record: no wallet family is known for it offline.
const UNKNOWN_JETTON: &str = "jetton:0:2aad318290a01e42a7bc8af5f67ec3fb7643d3056577ff9f551c789b785792f2";
/// The jetton of the third DeDust record: its pool is in no bundled snapshot.
const DEDUST_ONLY: &str = "jetton:0:716d0cad2fae30b93cf9d4a72938b7530d23a1aab5752da3ca0eb84ea8b077bf";
/// The ston-fi/sdk tests' user wallet.
const SENDER: &str = "UQAQnxLqlX2B6w4jQzzzPWA8eyWZVZBz6Y0D_8noARLOaEAn";

fn repo_file(path: &str) -> String {
    format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// `tonroute ARGS` in `dir` with `stdin` (the shared runner of `tests/it/common/bin.rs`).
fn tonroute_stdin(dir: &Path, args: &[&str], stdin: &str) -> Output {
    bin::run_tonroute(dir, args, Some(stdin))
}

/// The README's import (the three saved responses) into `dir/imported.json`; its report.
fn import_saved(dir: &Path) -> String {
    let o = tonroute(
        dir,
        &[
            "import",
            &saved("stonfi-pools.json"),
            &saved("stonfi-routers.json"),
            &saved("dedust-pools.json"),
            "--out",
            "imported.json",
        ],
    );
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    out
}

/// `quote IN OUT AMOUNT --snapshot SNAPSHOT --json` (one route): the answer.
fn quote_json(dir: &Path, snapshot: &str, from: &str, to: &str, amount: &str) -> Value {
    let o = tonroute_ok(dir, &["quote", from, to, amount, "--max-splits", "1", "--snapshot", snapshot, "--json"]);
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn a_tonroute_snapshot_given_to_import_is_named_as_one_and_nothing_is_written() {
    let dir = common::scratch("cli-import", "snapshot-input");
    let o = tonroute(&dir, &["import", &repo_file("data/snapshot.json"), "--out", "x.json"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(out.contains("this is a tonroute snapshot, not an exchange API response"), "{out}");
    assert!(!out.contains("TONCO"), "misread as a TONCO payload: {out}");
    assert!(!dir.join("x.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_import_of_no_pool_fails_and_keeps_the_old_file() {
    let dir = common::scratch("cli-import", "nothing");
    let before = pools_json(&dir);
    let mut deprecated: Value =
        serde_json::from_str(&std::fs::read_to_string(saved("stonfi-pools.json")).unwrap()).unwrap();
    for p in deprecated["pool_list"].as_array_mut().unwrap() {
        p["deprecated"] = Value::Bool(true);
    }
    std::fs::write(dir.join("empty-dedust.json"), "[]").unwrap();
    std::fs::write(dir.join("empty-tonco.json"), r#"{"pools":[]}"#).unwrap();
    std::fs::write(dir.join("deprecated.json"), deprecated.to_string()).unwrap();
    for (file, says) in [
        ("empty-dedust.json", "DeDust /v2/pools with no records"),
        ("empty-tonco.json", "TONCO indexer pools with no records"),
        ("deprecated.json", "no pool imported (3 records skipped: deprecated 3)"),
    ] {
        for out in ["pools.json", "new.json"] {
            let o = tonroute(&dir, &["import", file, "--out", out]);
            let text = text(&o);
            assert_eq!(o.status.code(), Some(2), "{file}: {text}");
            assert!(text.contains(says), "{file}: {text}");
            assert!(!text.contains("wrote"), "{file}: {text}");
        }
        assert_eq!(std::fs::read(dir.join("pools.json")).unwrap(), before, "{file}: the old file changed");
        assert!(!dir.join("new.json").exists(), "{file}: a failed import created its output");
    }
    // An empty pool list next to a good one fails too: the empty answer is named.
    let o = tonroute(&dir, &["import", &saved("stonfi-pools.json"), "empty-dedust.json", "--out", "new.json"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(!dir.join("new.json").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The threshold: a pool payload fails when **more than half** of its records cannot be read as its kind
/// (malformed, unknown type, missing data, inconsistent ticks); pools the exchange lists but nobody can route
/// (deprecated, empty, duplicates…) do not count.
#[test]
fn an_import_that_cannot_read_most_of_a_file_fails() {
    let dir = common::scratch("cli-import", "unreadable");
    let good: Value = serde_json::from_str(&std::fs::read_to_string(saved("stonfi-pools.json")).unwrap()).unwrap();
    let records = good["pool_list"].as_array().unwrap().clone();
    let broken = |i: usize| {
        let mut r = records[i].clone();
        r["reserve0"] = Value::String("12abc".into());
        r
    };
    let write = |name: &str, list: Vec<Value>| {
        std::fs::write(dir.join(name), serde_json::json!({ "pool_list": list }).to_string()).unwrap();
    };
    // 2 of 3 unreadable: refused, nothing written.
    write("most.json", vec![broken(0), broken(1), records[2].clone()]);
    let o = tonroute(&dir, &["import", "most.json", "--out", "out.json"]);
    let out = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}");
    assert!(
        out.contains("most.json: 2 of its 3 records could not be read as STON.fi /v1/pools (malformed 2)"),
        "{out}"
    );
    assert!(!dir.join("out.json").exists());
    // 2 of 4: half is not most; the two readable records are imported.
    let mut copy = records[2].clone();
    copy["address"] = records[1]["address"].clone();
    write("half.json", vec![broken(0), records[2].clone(), broken(0), copy]);
    let o = tonroute_ok(&dir, &["import", "half.json", "--out", "out.json"]);
    assert!(text(&o).contains("imported 2 pools"), "{}", text(&o));
    // 2 deprecated of 3: listed but unroutable pools are normal in real answers.
    let mut dep = records.clone();
    dep[0]["deprecated"] = Value::Bool(true);
    dep[1]["deprecated"] = Value::Bool(true);
    write("deprecated.json", dep);
    tonroute_ok(&dir, &["import", "deprecated.json", "--out", "out2.json"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn out_is_never_one_of_the_inputs() {
    let dir = common::scratch("cli-import", "out-input");
    tonroute_ok(&dir, &["import", &saved("stonfi-pools.json"), "--out", "base.json"]);
    std::fs::copy(saved("dedust-pools.json"), dir.join("dedust.json")).unwrap();
    std::fs::hard_link(dir.join("dedust.json"), dir.join("hard.json")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("dedust.json"), dir.join("link.json")).unwrap();
    let absolute = dir.join("dedust.json").display().to_string();
    let files = ["base.json", "dedust.json"].map(|f| std::fs::read(dir.join(f)).unwrap());
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["dedust.json", "--out", "dedust.json"],
        vec!["dedust.json", "--out", "./dedust.json"],
        vec!["./dedust.json", "--out", &absolute],
        vec!["dedust.json", "--out", "hard.json"],
        vec!["dedust.json", "--base", "base.json", "--out", "base.json"],
        vec!["dedust.json", "--base", "./base.json", "--out", "base.json"],
        // Checked before anything is read: a missing input is not reached.
        vec!["missing.json", "dedust.json", "--out", "dedust.json"],
    ];
    #[cfg(unix)]
    cases.push(vec!["dedust.json", "--out", "link.json"]);
    for case in cases {
        let mut args = vec!["import"];
        args.extend(&case);
        let o = tonroute(&dir, &args);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(2), "{case:?}: {out}");
        assert!(out.contains("is the input") && out.contains("choose another --out"), "{case:?}: {out}");
        assert!(!out.contains("reading missing.json"), "{case:?}: {out}");
        assert_eq!(["base.json", "dedust.json"].map(|f| std::fs::read(dir.join(f)).unwrap()), files, "{case:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn imported_pools_swap_through_the_addresses_derived_offline() {
    let dir = common::scratch("cli-import", "swappable");
    let report = import_saved(&dir);
    // Five of six pools are swappable; the one whose jetton has no known wallet code is listed as quote-only.
    assert!(report.contains("1 of 6 imported pools are quote-only"), "{report}");
    assert!(report.contains("quote-only dex_b_v1 0:c024ad06"), "{report}");
    assert!(report.contains("the jetton's wallet code is not known"), "{report}");
    let vectors: Value =
        serde_json::from_str(&std::fs::read_to_string(repo_file("tests/data/ton/derivation-vectors.json")).unwrap())
            .unwrap();
    let raw = |v: &Value| tonlib_core::TonAddress::from_str(v.as_str().unwrap()).unwrap().to_hex();

    // STON.fi v1, NOT → TON: the router's NOT wallet and its pTON wallet are the recorded ones; the swap builds.
    let q = quote_json(&dir, "imported.json", NOT, TON, "1000000000000");
    let step = &q["swap_data"]["routes"][0][0];
    assert_eq!(step["protocol_slug"], "dex_b_v1");
    assert_eq!(q["swap_is_possible"], Value::Bool(true));
    assert!(step.get("quote_only").is_none(), "{step}");
    let d = &step["dex_b_extra_details"];
    assert_eq!(raw(&d["from_router_wallet"]), vectors["not_v1_router_wallet"]["wallet_raw"].as_str().unwrap());
    assert_eq!(raw(&d["to_router_wallet"]), vectors["pton_v1_router_wallet"]["wallet_raw"].as_str().unwrap());
    let o = tonroute_stdin(&dir, &["swap", "--sender", SENDER, "--snapshot", "imported.json"], &q.to_string());
    assert!(o.status.success(), "{}", text(&o));

    // STON.fi v2, TON → USD₮: the message goes to the router's pTON wallet of the pool's recorded mainnet state.
    let f: Value = serde_json::from_str(
        &std::fs::read_to_string(repo_file("tests/data/ton/stonfi-v2-pool-EQCGScrZ-account-state.ton-rs.json"))
            .unwrap(),
    )
    .unwrap();
    let data: Vec<u8> = f["data_boc"].as_array().unwrap().iter().map(|b| b.as_u64().unwrap() as u8).collect();
    let state =
        tonroute::chain::dex_b::v2_pool_storage_boc(&data, tonroute::chain::dex_b::PoolType::ConstantProduct).unwrap();
    let q = quote_json(&dir, "imported.json", TON, USDT, "1000000000");
    assert_eq!(q["swap_data"]["routes"][0][0]["protocol_slug"], "dex_b_v2");
    let o = tonroute_stdin(&dir, &["swap", "--sender", SENDER, "--snapshot", "imported.json"], &q.to_string());
    assert!(o.status.success(), "{}", text(&o));
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["transactions"][0]["address"], state.token1_wallet.to_base64_url());

    // DeDust, TON → jetton: the message goes to the native vault (no "no native vault" any more).
    let q = quote_json(&dir, "imported.json", TON, DEDUST_ONLY, "1000000");
    assert_eq!(q["swap_data"]["routes"][0][0]["protocol_slug"], "dex_a");
    let o = tonroute_stdin(&dir, &["swap", "--sender", SENDER, "--snapshot", "imported.json"], &q.to_string());
    assert!(o.status.success(), "{}", text(&o));
    let answer: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(answer["transactions"][0]["address"], vectors["dedust_native_vault"]["vault_friendly"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_quote_only_pool_is_marked_and_its_swap_says_so() {
    let dir = common::scratch("cli-import", "quote-only");
    import_saved(&dir);
    let q = quote_json(&dir, "imported.json", TON, UNKNOWN_JETTON, "1000");
    assert_eq!(q["swap_is_possible"], Value::Bool(false), "{q}");
    assert_eq!(q["swap_data"]["routes"][0][0]["quote_only"], Value::Bool(true), "{q}");
    assert_eq!(q["display_data"][0]["steps"][0]["quote_only"], Value::Bool(true), "{q}");
    let o = tonroute(&dir, &["quote", TON, UNKNOWN_JETTON, "1000", "--snapshot", "imported.json"]);
    let table = text(&o);
    assert!(o.status.success(), "{table}");
    assert!(table.contains("[quote-only]") && table.contains("`swap` refuses this quote"), "{table}");
    let o = tonroute_stdin(&dir, &["swap", "--sender", SENDER, "--snapshot", "imported.json"], &q.to_string());
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("(code 3005)") && out.contains("is quote-only in this snapshot"), "{out}");
    assert!(!out.contains("dex_b_extra_details"), "blames the quote: {out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The preference rule: when the best plan uses a quote-only pool, the plan over swappable pools alone wins if
/// its output is at least as large (exact-in); otherwise the quote-only plan stands, marked.
#[test]
fn the_router_prefers_a_swappable_pool_that_is_as_good() {
    let dir = common::scratch("cli-import", "prefer");
    // Two STON.fi v2 routers: A's proxy-TON is pTON v2.1 (its wallet derives), B's a master with no known
    // wallet code (its pools are quote-only). Each has a USD₮/TON pool.
    let routers = serde_json::json!({"router_list": [
        {"address": format!("0:{}", "a1".repeat(32)), "major_version": 2, "router_type": "ConstantProduct",
         "pton_master_address": "EQBnGWMCf3-FZZq1W4IWcWiGAc3PHuZ0_H-7sad2oY00o83S"},
        {"address": format!("0:{}", "b2".repeat(32)), "major_version": 2, "router_type": "ConstantProduct",
         "pton_master_address": format!("0:{}", "c3".repeat(32))},
    ]});
    let pool = |byte: &str, router: &str, ton: &str, reserves: [&str; 2]| {
        serde_json::json!({"address": format!("0:{}", byte.repeat(32)), "router_address": format!("0:{}", router.repeat(32)),
            "token0_address": "EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs", "token1_address": ton,
            "reserve0": reserves[0], "reserve1": reserves[1], "lp_fee": "20", "protocol_fee": "10"})
    };
    let v21 = "EQBnGWMCf3-FZZq1W4IWcWiGAc3PHuZ0_H-7sad2oY00o83S".to_string();
    let other = format!("0:{}", "c3".repeat(32));
    std::fs::write(dir.join("routers.json"), routers.to_string()).unwrap();
    let same = ["2543727890452", "1727085023286242"];
    for (name, order) in [("equal-ab.json", [true, false]), ("equal-ba.json", [false, true])] {
        let list: Vec<Value> = order
            .iter()
            .map(|swappable| match swappable {
                true => pool("d4", "a1", &v21, same),
                false => pool("e5", "b2", &other, same),
            })
            .collect();
        std::fs::write(dir.join(name), serde_json::json!({ "pool_list": list }).to_string()).unwrap();
        let out = name.replace(".json", "-snapshot.json");
        let o = tonroute_ok(&dir, &["import", name, "routers.json", "--out", &out]);
        assert!(text(&o).contains("1 of 2 imported pools are quote-only"), "{}", text(&o));
        // Equal pools: the swappable one is answered, whichever order the file lists them in.
        let q = quote_json(&dir, &out, TON, USDT, "1000000000");
        assert_eq!(q["swap_data"]["routes"][0][0]["pool_address"], format!("0:{}", "d4".repeat(32)), "{name}: {q}");
        assert_eq!(q["swap_is_possible"], Value::Bool(true), "{name}");
    }
    // The quote-only pool strictly better (twice the liquidity): its plan stands, marked.
    let list = vec![pool("d4", "a1", &v21, same), pool("e5", "b2", &other, ["5087455780904", "3454170046572484"])];
    std::fs::write(dir.join("better.json"), serde_json::json!({ "pool_list": list }).to_string()).unwrap();
    tonroute_ok(&dir, &["import", "better.json", "routers.json", "--out", "better-snapshot.json"]);
    let q = quote_json(&dir, "better-snapshot.json", TON, USDT, "1000000000000");
    assert_eq!(q["swap_data"]["routes"][0][0]["pool_address"], format!("0:{}", "e5".repeat(32)), "{q}");
    assert_eq!(q["swap_is_possible"], Value::Bool(false));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_swap_on_another_snapshot_than_its_quote_names_the_flag() {
    let dir = common::scratch("cli-import", "other-snapshot");
    import_saved(&dir);
    // A DeDust pool of the import, which the bundled snapshot does not have.
    let q = quote_json(&dir, "imported.json", TON, DEDUST_ONLY, "1000000");
    let o = tonroute_stdin(&dir, &["swap", "--sender", SENDER], &q.to_string());
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("(code 2002)"), "{out}");
    assert!(out.contains("the pool of swap_data is not in this snapshot"), "{out}");
    assert!(out.contains("default snapshot") && out.contains("--snapshot FILE"), "{out}");
    // A pool both snapshots have, with other router wallets in each: still another snapshot, still the flag.
    let q = quote_json(&dir, "imported.json", NOT, TON, "1000000000000");
    let o = tonroute_stdin(&dir, &["swap", "--sender", SENDER], &q.to_string());
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("(code 3003)") && out.contains("quoted on another snapshot"), "{out}");
    assert!(out.contains("--snapshot FILE"), "{out}");
    // The same data with the quote's snapshot builds.
    let o = tonroute_stdin(&dir, &["swap", "--sender", SENDER, "--snapshot", "imported.json"], &q.to_string());
    assert!(o.status.success(), "{}", text(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// An `--out` that cannot be written (a directory, a folder that does not exist) is refused before anything is
/// read: before, the import read every file and printed its report ("imported 3 pools…"), then failed on the write.
#[test]
fn an_out_that_cannot_be_written_is_refused_before_the_import() {
    let dir = common::scratch("cli-import", "unwritable-out");
    std::fs::create_dir_all(dir.join("folder")).unwrap();
    for out in ["folder", "missing/pools.json"] {
        let o = tonroute(&dir, &["import", &saved("dedust-pools.json"), "--out", out]);
        let (stdout, stderr) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert_eq!(o.status.code(), Some(2), "{out}: {stdout}{stderr}");
        let says = if out == "folder" { "--out folder: is a directory".to_string() } else { format!("writing {out}") };
        assert!(stderr.contains(&says), "{out}: {stderr}");
        assert!(!stdout.contains("imported"), "{out}: the report came before the refusal: {stdout}");
    }
    assert!(dir.join("folder").is_dir() && std::fs::read_dir(dir.join("folder")).unwrap().next().is_none());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "only the folder is left");
    let _ = std::fs::remove_dir_all(&dir);
}
