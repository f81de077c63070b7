//! What the `tonroute` binary says when a shell user gets something wrong (issue #35 items 8, 9, 12), run as a
//! user runs it: the built binary, its arguments, stdin from a pipe, the bundled snapshot.
//!
//! - AMOUNT in whole tokens (`1.5`, `100TON`, `2.5USDT`) is the same quote as the integer in smallest units the
//!   test computes from the snapshot's decimals; more fractional digits than the asset has, or a ticker of
//!   another asset, is refused; a bare integer stays in smallest units.
//! - A bare integer that every route refuses (3002: the output rounds to zero) hints at units; a quote whose
//!   network fee is worth more than its output warns.
//! - `swap` fed the table instead of the JSON says to use `quote --json`.
//! - Errors are one line in the shell's terms (arguments and flags, not the HTTP body's fields); `quote --json`
//!   keeps the API's `{code, message}` object.
//! - A missing default snapshot names every path tried.
#![cfg(feature = "cli")]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::bin::{repo, run_tonroute_env};
use serde_json::Value;

const SENDER: &str = "UQAj-peZGPH-cC25EAv4Q-h8cBXszTmkch6ba6wXC8BM40qt";

/// `tonroute ARGS` in `dir` with `stdin` and extra environment variables.
fn run_in(dir: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    run_tonroute_env(dir, args, Some(stdin), env)
}

fn run(args: &[&str]) -> Output {
    run_in(&repo(), args, "", &[])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

/// The one line an error prints (stderr has no other line), and the exit code.
fn error_line(o: &Output) -> (i32, String) {
    let text = stderr(o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "an error is one line:\n{text}");
    (o.status.code().unwrap_or(-1), lines[0].to_string())
}

/// Decimals of the snapshot asset with this ticker, read from the bundled file.
fn decimals(symbol: &str) -> u32 {
    let snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("data/snapshot.json")).unwrap()).unwrap();
    let asset = snapshot["assets"].as_array().unwrap().iter().find(|a| a["symbol"] == symbol).unwrap();
    u32::try_from(asset["decimals"].as_u64().unwrap()).unwrap()
}

/// Item 8: whole tokens where unambiguous, converted exactly; integers in smallest units.
#[test]
fn whole_token_amounts_quote_as_their_exact_smallest_units() {
    let (ton, usdt) = (10u128.pow(decimals("TON")), 10u128.pow(decimals("USD₮")));
    let cases: [(&[&str], u128); 5] = [
        (&["TON", "USDT", "1.5"], 3 * ton / 2),
        (&["TON", "USDT", "100TON"], 100 * ton),
        (&["TON", "USDT", ".5"], ton / 2),
        (&["USDT", "TON", "2.5USDT"], 5 * usdt / 2),
        (&["USDT", "TON", "100 usdt"], 100 * usdt),
    ];
    for (args, units) in cases {
        let whole = json(&run(&[&["quote"], args, &["--json"]].concat()));
        let smallest = json(&run(&["quote", args[0], args[1], &units.to_string(), "--json"]));
        assert_eq!(whole["in_amount"], units.to_string(), "{args:?}");
        assert_eq!(whole["out_amount"], smallest["out_amount"], "{args:?}");
    }
    // With --exact-out, AMOUNT counts the output: 5 USD₮ wanted.
    let out = json(&run(&["quote", "TON", "USDT", "5USDT", "--exact-out", "--json"]));
    assert!(out["out_amount"].as_str().unwrap().parse::<u128>().unwrap() >= 5 * usdt, "{out}");
    // A bare integer stays in smallest units.
    assert_eq!(json(&run(&["quote", "TON", "USDT", "100000000000", "--json"]))["in_amount"], "100000000000");
    // More fractional digits than the asset has, and a ticker of another asset, are refused in the shell's terms.
    let (code, line) = error_line(&run(&["quote", "TON", "USDT", "1.0000000001"]));
    assert_eq!(code, 1, "{line}");
    assert!(
        line.contains("AMOUNT `1.0000000001`: 10 decimal places, but TON has 9") && line.ends_with("(code 1016)"),
        "{line}"
    );
    let (code, line) = error_line(&run(&["quote", "TON", "USDT", "100USDT"]));
    assert_eq!(code, 1, "{line}");
    assert!(
        line.contains("counts USD₮, but AMOUNT is an amount of TON here") && line.contains("(code 1012)"),
        "{line}"
    );
}

/// Item 8: `quote TON USDT 100` (100 nanotons) is refused because the output rounds to zero: the error says that
/// AMOUNT is in smallest units and how to write whole tokens.
#[test]
fn a_bare_integer_refused_for_rounding_hints_at_units() {
    let (code, line) = error_line(&run(&["quote", "TON", "USDT", "100"]));
    assert_eq!(code, 1, "{line}");
    assert!(line.starts_with("error: every route refuses this amount"), "{line}");
    assert!(line.contains("(code 3002)"), "{line}");
    assert!(line.contains("AMOUNT 100 is in the smallest units of TON (100 = 0.0000001 TON)"), "{line}");
    assert!(line.contains("write 100.0 or 100TON"), "{line}");
    // Machine output keeps the API's object.
    let (code, line) = error_line(&run(&["quote", "TON", "USDT", "100", "--json"]));
    assert_eq!(code, 1, "{line}");
    let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(v["code"], 3002, "{line}");
}

/// Item 8: `quote USDT TON 100` quotes 0.0001 USD₮ against a network fee of hundreds of times its value: warned
/// on stderr (the answer is still given); a quote whose output is worth more than its fee is not warned.
#[test]
fn a_network_fee_worth_more_than_the_output_is_warned() {
    let o = run(&["quote", "USDT", "TON", "100", "--json"]);
    let answer = json(&o);
    let fee: u128 = answer["display_data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["network_fee"].as_str().unwrap().parse::<u128>().unwrap())
        .sum();
    let out: u128 = answer["out_amount"].as_str().unwrap().parse().unwrap();
    assert!(fee > out, "the case is a fee above the output: fee {fee}, out {out}");
    let warning = stderr(&o);
    assert!(warning.starts_with("warning: the network fee (") && warning.contains("exceeds the output"), "{warning}");
    // 100 whole USD₮: no warning, in the table or the JSON.
    for extra in [&[][..], &["--json"][..]] {
        let o = run(&[&["quote", "USDT", "TON", "100USDT"][..], extra].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(stderr(&o), "", "no warning for a fee below the output");
    }
}

/// Item 9: `quote … | swap` without `--json` feeds swap the table; the error says so and how to pipe the JSON.
#[test]
fn swap_fed_the_table_hints_at_quote_json() {
    let table = run(&["quote", "USDT", "TON", "100000000"]);
    assert!(table.status.success(), "{}", stderr(&table));
    let table = String::from_utf8(table.stdout).unwrap();
    let (code, line) = error_line(&run_in(&repo(), &["swap", "--sender", SENDER], &table, &[]));
    assert_eq!(code, 2, "{line}");
    assert!(line.contains("stdin holds the table `quote` prints, not its JSON"), "{line}");
    assert!(line.contains("tonroute quote IN OUT AMOUNT --json | tonroute swap --sender ADDR"), "{line}");
    let (_, line) = error_line(&run_in(&repo(), &["swap", "--sender", SENDER], "", &[]));
    assert!(line.contains("stdin is empty") && line.contains("--json | tonroute swap"), "{line}");
    // The JSON goes through.
    let quote = run(&["quote", "USDT", "TON", "100000000", "--json"]);
    let swap = run_in(&repo(), &["swap", "--sender", SENDER], &String::from_utf8(quote.stdout).unwrap(), &[]);
    assert!(json(&swap)["transactions"].as_array().is_some_and(|t| !t.is_empty()));
}

/// Item 12: a refusal is one `error:` line that names the argument or flag the user typed, never an HTTP body's
/// field or status; `--json` keeps the `{code, message}` object (one line).
#[test]
fn errors_are_one_line_in_the_shells_terms() {
    let cases: [(&[&str], &str); 5] = [
        (&["quote", "TON", "USDT", "0"], "error: AMOUNT: must be positive (code 1013)"),
        (&["quote", "TON", "USDT", "1000000000", "--max-splits", "30"], "error: --max-splits: 30 is out of range 1..=20 (code 1020)"),
        (&["quote", "TON", "USDT", "1000000000", "--slippage-bps", "20000"], "error: --slippage-bps: 20000 is out of range 0..=10000 (code 1022)"),
        (&["quote", "TON", "TON", "1000000000"], "error: OUT: same asset as IN (native) (code 1024)"),
        (&["quote", "TON", "USDT", "12abc"], "error: AMOUNT `12abc`: `abc` is not the ticker of TON; AMOUNT is an integer in smallest units, or whole tokens as 1.5 or 100TON (code 1012)"),
    ];
    for (args, expected) in cases {
        let (code, line) = error_line(&run(args));
        assert_eq!((code, line.as_str()), (1, expected), "{args:?}");
    }
    // A route longer than --max-length: the core's advice names the flag.
    let (_, line) = error_line(&run(&["quote", "USDT", "JT71", "25000000", "--max-length", "1"]));
    assert!(line.contains("--max-length") && !line.contains("max_length"), "{line}");
    // swap: the sender flag, and stdin's JSON path.
    let quote = String::from_utf8(run(&["quote", "USDT", "TON", "100000000", "--json"]).stdout).unwrap();
    let (code, line) = error_line(&run_in(&repo(), &["swap", "--sender", "not-an-address"], &quote, &[]));
    assert_eq!(code, 1, "{line}");
    assert!(line.starts_with("error: --sender: "), "{line}");
    let mut bad: Value = serde_json::from_str(&quote).unwrap();
    bad["swap_data"]["slippage_bps"] = 20_000.into();
    let (_, line) = error_line(&run_in(&repo(), &["swap", "--sender", SENDER], &bad.to_string(), &[]));
    assert!(line.starts_with("error: stdin `swap_data.slippage_bps`: 20000 is out of range"), "{line}");
    for (args, _) in cases {
        let (_, line) = error_line(&run(args));
        assert!(!line.contains("HTTP") && !line.contains("field `") && !line.contains('{'), "{line}");
    }
    // --json: the API's object, alone.
    let (code, line) = error_line(&run(&["quote", "TON", "USDT", "0", "--json"]));
    assert_eq!(code, 1);
    assert_eq!(
        serde_json::from_str::<Value>(&line).unwrap(),
        serde_json::json!({"code": 1013, "message": "field `amount`: must be positive"})
    );
}

/// Item 12: with no `--snapshot` and no bundled snapshot where it is looked for, the error names every path tried
/// (the current directory's `data/`, then the installed data: `TONROUTE_DATA_DIR`, here pointed at nothing, in
/// place of the source tree). Pointed at a copy of the bundle, the same command quotes.
#[test]
fn a_missing_default_snapshot_names_every_path_tried() {
    let dir = std::env::temp_dir().join(format!("tonroute-cli-messages-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let nowhere: PathBuf = dir.join("nowhere");
    let o =
        run_in(&dir, &["quote", "TON", "USDT", "1000000000"], "", &[("TONROUTE_DATA_DIR", nowhere.to_str().unwrap())]);
    let (code, line) = error_line(&o);
    assert_eq!(code, 2, "{line}");
    let here = dir.join("data").join("snapshot.json");
    let installed = nowhere.join("snapshot.json");
    assert!(line.contains(&format!("tried {}, {}", here.display(), installed.display())), "{line}");
    assert!(line.contains("--snapshot FILE"), "{line}");
    let copy = dir.join("bundle");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(repo().join("data/snapshot.json"), copy.join("snapshot.json")).unwrap();
    let o = run_in(&dir, &["quote", "TON", "USDT", "1000000000"], "", &[("TONROUTE_DATA_DIR", copy.to_str().unwrap())]);
    assert!(o.status.success(), "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue #39 item 4: the CLI builds the typed request itself (no JSON in between), and refuses exactly as
/// `POST /v4/router/quote` refuses the body with the same values (same code, same message, the first of several
/// errors the same one), and answers what the API answers; `swap` likewise for `/v4/router/swap`. The expected
/// side is the library's HTTP entry ([`Api::quote`] / [`Api::swap`]) fed the body the old CLI wrote.
#[test]
fn the_cli_refuses_and_answers_as_the_api_does_for_the_same_values() {
    use std::sync::Arc;
    use tonroute::api::{Api, SwapClock};

    const USDT: &str = "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe";
    const ABSENT: &str = "jetton:0:0000000000000000000000000000000000000000000000000000000000000001";
    let text = std::fs::read_to_string(repo().join("data/snapshot.json")).unwrap();
    let api = Api::new(Arc::new(tonroute::graph::PoolGraph::from_json(&text).unwrap()));
    let too_large = (1u128 << 120).to_string();
    // (IN, OUT, AMOUNT, --exact-out, --max-splits, --max-length, --slippage-bps)
    let cases: Vec<(&str, &str, &str, bool, u32, u32, u32)> = vec![
        ("native", USDT, "-5", false, 4, 3, 100),
        ("native", USDT, "abc", false, 4, 3, 100),
        ("native", USDT, &too_large, false, 4, 3, 100),
        ("jetton:0:zz", USDT, "5", false, 4, 3, 100),
        ("native", "jetton:0:zz", "5", false, 4, 3, 100),
        ("EQbad", USDT, "5", false, 4, 3, 100),
        // Several errors at once: the first the API reports.
        ("jetton:0:zz", "jetton:0:yy", "-5", false, 4, 3, 100),
        ("jetton:0:zz", "jetton:0:yy", "0", false, 4, 3, 100),
        ("native", "native", "0", false, 0, 9, 20_000),
        ("native", USDT, "5", true, 0, 9, 20_000),
        ("native", USDT, "5", false, 1, 9, 20_000),
        ("native", USDT, "5", false, 1, 1, 20_000),
        ("native", "native", "5", true, 4, 3, 100),
        ("native", ABSENT, "5", false, 4, 3, 100),
        // Answered.
        ("native", USDT, "1000000000", false, 4, 3, 100),
        (USDT, "native", "1000000000", true, 2, 2, 50),
    ];
    for (i, o, amount, exact_out, splits, length, slippage) in cases {
        let (splits_t, length_t, slippage_t) = (splits.to_string(), length.to_string(), slippage.to_string());
        let mut args = vec!["quote", "--json", "--max-splits", &splits_t, "--max-length", &length_t];
        args.extend(["--slippage-bps", &slippage_t]);
        if exact_out {
            args.push("--exact-out");
        }
        args.extend(["--", i, o, amount]);
        let body = serde_json::json!({
            "in_minter": i, "out_minter": o, "amount": amount,
            "swap_mode": if exact_out { "exact_out" } else { "exact_in" },
            "slippage_bps": slippage, "max_splits": splits, "max_length": length,
        });
        let cli = run(&args);
        match api.quote(body.to_string().as_bytes()) {
            Ok(answer) => assert_eq!(json(&cli), serde_json::to_value(&answer).unwrap(), "{args:?}"),
            Err(e) => {
                let (code, line) = error_line(&cli);
                assert_eq!((code, line), (1, e.to_json()), "{args:?}");
            }
        }
    }

    // swap: `--sender` and stdin's swap_data, each bad and both (the API reads the sender first).
    let quote: Value = json(&run(&["quote", "USDT", "TON", "100000000", "--json"]));
    let mut wrong_type = quote["swap_data"].clone();
    wrong_type["slippage_bps"] = "100".into();
    let mut out_of_range = quote["swap_data"].clone();
    out_of_range["slippage_bps"] = 20_000.into();
    let mut missing = quote["swap_data"].clone();
    missing.as_object_mut().unwrap().remove("routes");
    let cases = [
        (SENDER, quote.clone()),
        (SENDER, quote["swap_data"].clone()),
        ("not-an-address", quote.clone()),
        ("not-an-address", wrong_type.clone()),
        (SENDER, wrong_type),
        (SENDER, out_of_range),
        (SENDER, missing),
        (SENDER, Value::from(5)),
        (SENDER, serde_json::json!({"swap_data": []})),
    ];
    for (sender, stdin) in cases {
        let swap_data = stdin.get("swap_data").cloned().unwrap_or_else(|| stdin.clone());
        let body = serde_json::json!({ "sender_address": sender, "swap_data": swap_data });
        let cli = run_in(&repo(), &["swap", "--sender", sender, "--now", "1700000000"], &stdin.to_string(), &[]);
        match api.swap(body.to_string().as_bytes(), SwapClock::at(1_700_000_000_000)) {
            Ok(answer) => assert_eq!(json(&cli), serde_json::to_value(&answer).unwrap(), "{sender} {stdin}"),
            Err(e) => {
                let (code, line) = error_line(&cli);
                let (field, rest) = e.message().strip_prefix("field `").and_then(|m| m.split_once("`: ")).unwrap();
                let shell = if field == "sender_address" { "--sender".to_string() } else { format!("stdin `{field}`") };
                let expected = format!("error: {shell}: {rest} (code {})", e.code());
                assert_eq!((code, line), (1, expected), "{sender} {stdin}");
            }
        }
    }
}
