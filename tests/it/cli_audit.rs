//! What a new user meets on the command line (the CLI audit of issue 12), run as a user runs it: the built
//! binary, its arguments, stdin from a pipe, the bundled snapshot. Each test names the audit item it holds.
//!
//! - Negative numbers reach the documented codes (1015 for AMOUNT, 1020..=1022 for the limits), not clap.
//! - A masterchain (`-1:`) sender is refused as a sender (1011) naming its workchain, by the CLI and by the
//!   library's `/v4/router/swap`; `--sender -1:…` parses without `=`.
//! - `swap --now` keeps the query id (its milliseconds) at most 2^53 − 1, as the npm package's `nowMs`.
//! - A quote or swap whose min-out is 0 warns on stderr.
//! - An empty snapshot is refused at load (quote, swap, serve), except by `serve --nats`, which fills from the
//!   bucket.
//! - `sync --rounds` / `--poll-ms` need `--watch`; `--out DIR` names `--out`; `--wallet -1:…` parses.
//! - `serve --addr` is checked before anything is loaded, and the error names it.
//! - `+5` is a bare integer for the smallest-units hint like `5`.
//! - `--snapshot`'s help names `$TONROUTE_DATA_DIR`; a file that is JSON but not a snapshot says what it is.
#![cfg(feature = "cli")]

use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{self, bin};

const SENDER: &str = "UQAj-peZGPH-cC25EAv4Q-h8cBXszTmkch6ba6wXC8BM40qt";
/// A masterchain account (any id: the refusal is for the workchain).
const MASTER: &str = "-1:3ab2c8aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

fn run(args: &[&str], stdin: &str) -> Output {
    bin::run_tonroute(&bin::repo(), args, Some(stdin))
}

fn run_in(dir: &Path, args: &[&str]) -> Output {
    bin::run_tonroute(dir, args, None)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

/// The JSON a successful run printed.
fn json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

/// `quote … --json` on the bundled snapshot, as text for `swap`'s stdin.
fn quote_json(args: &[&str]) -> String {
    let out = run(&[&["quote"], args, &["--json"]].concat(), "");
    json(&out).to_string()
}

/// Item 1: `-5` and `--slippage-bps -1` are the API's refusals with their README codes, exit 1.
#[test]
fn negative_numbers_reach_the_documented_codes() {
    let cases: [(&[&str], &str); 5] = [
        (&["quote", "TON", "USDT", "-5"], "error: AMOUNT: `-5` is negative (code 1015)"),
        (
            &["quote", "TON", "USDT", "100TON", "--slippage-bps", "-1"],
            "error: --slippage-bps: -1 is out of range 0..=10000 (code 1022)",
        ),
        (
            &["quote", "TON", "USDT", "100TON", "--slippage-bps=-1"],
            "error: --slippage-bps: -1 is out of range 0..=10000 (code 1022)",
        ),
        (
            &["quote", "TON", "USDT", "100TON", "--max-splits", "-1"],
            "error: --max-splits: -1 is out of range 1..=20 (code 1020)",
        ),
        (
            &["quote", "TON", "USDT", "100TON", "--max-length", "-3"],
            "error: --max-length: -3 is out of range 1..=5 (code 1021)",
        ),
    ];
    for (args, line) in cases {
        let out = run(args, "");
        assert_eq!((code(&out), stderr(&out).trim_end()), (1, line), "{args:?}");
    }
    // With --json, the API's object, as an HTTP client gets it for `"amount": "-5"`.
    let out = run(&["quote", "TON", "USDT", "-5", "--json"], "");
    let body: Value = serde_json::from_str(stderr(&out).trim()).unwrap();
    assert_eq!((code(&out), body["code"].as_i64()), (1, Some(1015)), "{body}");
}

/// Item 2: a `-1:` sender is refused as a sender, naming its workchain, for a jetton offer (it owns no jetton
/// wallet) and a TON offer (its jetton output would be refused); with or without `=`.
#[test]
fn a_masterchain_sender_is_refused_naming_its_workchain() {
    let usdt_offer = quote_json(&["USDT", "TON", "100000000"]);
    let ton_offer = quote_json(&["TON", "USDT", "10TON"]);
    let with_equals = format!("--sender={MASTER}");
    for stdin in [&usdt_offer, &ton_offer] {
        for args in [vec!["swap", "--sender", MASTER], vec!["swap", with_equals.as_str()]] {
            let out = run(&args, stdin);
            let text = stderr(&out);
            assert_eq!(code(&out), 1, "{args:?}: {text}");
            assert!(text.starts_with("error: --sender: ") && text.trim_end().ends_with("(code 1011)"), "{text}");
            assert!(
                text.contains("workchain -1 (the masterchain)") && !text.contains("jetton's wallet layout"),
                "{text}"
            );
        }
    }
    // The same refusal from the library's /v4/router/swap.
    let graph = tonroute::graph::PoolGraph::from_json(
        &std::fs::read_to_string(bin::repo().join("data/snapshot.json")).unwrap(),
    )
    .unwrap();
    let api = tonroute::api::Api::new(Arc::new(graph));
    let quote: Value = serde_json::from_str(&usdt_offer).unwrap();
    let body = serde_json::json!({"sender_address": MASTER, "swap_data": quote["swap_data"]});
    let e = api.swap(body.to_string().as_bytes(), tonroute::api::SwapClock::at(1_700_000_000_000)).unwrap_err();
    assert_eq!(e.code(), 1011, "{}", e.message());
    assert!(
        e.message().starts_with("field `sender_address`: ") && e.message().contains("workchain -1"),
        "{}",
        e.message()
    );
    // A basechain sender builds the same quote.
    assert!(json(&run(&["swap", "--sender", SENDER], &usdt_offer))["transactions"].is_array());
}

/// Item 3: `--now` beyond (2^53 − 1) / 1000 seconds is refused with the bound; the last one allowed works.
#[test]
fn swap_now_keeps_the_query_id_below_2_to_the_53() {
    let stdin = quote_json(&["TON", "USDT", "10TON"]);
    let last = ((1u64 << 53) - 1) / 1000;
    let ok = json(&run(&["swap", "--sender", SENDER, "--now", &last.to_string()], &stdin));
    assert_eq!(ok["query_id"].as_u64(), Some(last * 1000));
    assert!(ok["query_id"].as_u64().unwrap() < 1 << 53);
    for now in [last + 1, 99_999_999_999_999] {
        // No stdin: clap refuses the flag before stdin is read (a quote written to it could meet a closed pipe).
        let out = run(&["swap", "--sender", SENDER, "--now", &now.to_string()], "");
        let text = stderr(&out);
        assert_eq!(code(&out), 2, "{text}");
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
        assert!(text.contains("--now") && text.contains("2^53") && text.contains(&last.to_string()), "{text}");
    }
}

/// Item 4: a quote whose min-out rounds to 0 warns where it is shown, and `swap` warns on its swap_data; a
/// normal quote does not.
#[test]
fn a_zero_min_out_warns_on_stderr() {
    let warned = |o: &Output| stderr(o).lines().any(|l| l.starts_with("warning: ") && l.contains("min out is 0"));
    let tiny = run(&["quote", "TON", "USDT", "1000"], "");
    assert!(tiny.status.success() && warned(&tiny), "{}", stderr(&tiny));
    assert!(String::from_utf8_lossy(&tiny.stdout).contains("min out      0 USD₮"));
    let tiny = quote_json(&["TON", "USDT", "1000"]);
    let swapped = run(&["swap", "--sender", SENDER], &tiny);
    assert!(swapped.status.success() && warned(&swapped), "{}", stderr(&swapped));
    assert!(stderr(&swapped).contains("stdin's swap_data"), "{}", stderr(&swapped));
    let normal = run(&["quote", "TON", "USDT", "10TON"], "");
    assert!(normal.status.success() && !warned(&normal), "{}", stderr(&normal));
    let swapped = run(&["swap", "--sender", SENDER], &quote_json(&["TON", "USDT", "10TON"]));
    assert!(swapped.status.success() && !warned(&swapped), "{}", stderr(&swapped));
}

/// Item 5: a snapshot without a pool is refused at load by quote, swap and serve (exit 2, naming the file);
/// `serve --nats` starts from it (a replica fills from the bucket).
#[test]
fn an_empty_snapshot_is_refused_at_load() {
    let dir = common::scratch("cli-audit", "empty");
    std::fs::write(dir.join("emptysnap.json"), r#"{"assets":[],"pools":[]}"#).unwrap();
    // No stdin for `swap`: the snapshot is refused before stdin is read (a quote written to it could meet a
    // closed pipe).
    let cases: [&[&str]; 3] = [
        &["quote", "TON", "USDT", "100TON", "--snapshot", "emptysnap.json"],
        &["swap", "--sender", SENDER, "--snapshot", "emptysnap.json"],
        &["serve", "--addr", "127.0.0.1:0", "--snapshot", "emptysnap.json"],
    ];
    for args in cases {
        let started = Instant::now();
        let out = run_in(&dir, args);
        let text = stderr(&out);
        assert_eq!(code(&out), 2, "{args:?}: {text}");
        assert!(text.contains("snapshot emptysnap.json: it has no pool"), "{args:?}: {text}");
        assert!(started.elapsed() < Duration::from_secs(30));
    }
    #[cfg(feature = "nats")]
    {
        // No NATS on this port: the replica serves the (empty) snapshot while it retries.
        let replica = bin::spawn_serve_in(
            &dir,
            &["--snapshot", "emptysnap.json", "--nats", "nats://127.0.0.1:1", "--nats-wait-ms", "200"],
        );
        assert_eq!(replica.get("/health").0, 200, "{}", replica.stderr());
    }
}

/// Item 6: `--rounds` and `--poll-ms` without `--watch` are refused like `--market-db`; `--out DIR` names --out.
#[test]
fn sync_watch_flags_need_watch_and_out_must_be_a_file() {
    let dir = common::scratch("cli-audit", "sync");
    std::fs::create_dir_all(dir.join("outdir")).unwrap();
    // An API base nothing listens on: a command that got past its checks fails on the network, not on --watch.
    let base = ["--api-base", "http://127.0.0.1:9", "--attempts", "1", "--timeout-ms", "200"];
    for flag in [["--rounds", "3"], ["--poll-ms", "5"]] {
        let out = run_in(&dir, &[&["sync", "--out", "s.json"], &flag[..], &base[..]].concat());
        let text = stderr(&out);
        assert_eq!(code(&out), 2, "{flag:?}: {text}");
        assert!(text.contains("required arguments were not provided") && text.contains("--watch"), "{text}");
    }
    // An address argument may start with `-` (a masterchain wallet's TON balance is tracked too): parsed, the
    // command goes on to the network.
    let wallet =
        [&["sync", "--out", "s.json", "--watch", "--market-db", "sqlite://m.db", "--wallet", MASTER], &base[..]];
    let out = run_in(&dir, &wallet.concat());
    let text = stderr(&out);
    assert_eq!(code(&out), 2, "{text}");
    assert!(!text.contains("unexpected argument") && text.contains("nothing written to s.json"), "{text}");
    std::fs::write(dir.join("saved.json"), "[]").unwrap();
    let sync = [&["sync", "--out", "outdir"][..], &base[..]].concat();
    for cmd in [&sync[..], &["import", "saved.json", "--out", "outdir"][..]] {
        let out = run_in(&dir, cmd);
        let text = stderr(&out);
        assert_eq!(code(&out), 2, "{cmd:?}: {text}");
        assert!(text.starts_with("error: --out outdir: is a directory"), "{cmd:?}: {text}");
    }
}

/// Item 7: a bad `--addr` is reported first (nothing loaded: no memory-budget line, no market database), naming
/// the flag; a host name is still accepted.
#[cfg(feature = "server")]
#[test]
fn serve_checks_addr_before_loading_anything() {
    for (flag, value) in [("--addr", "nope"), ("--metrics-addr", "nope:x")] {
        let out = run(&["serve", flag, value], "");
        let text = stderr(&out);
        assert_eq!(code(&out), 2, "{text}");
        assert_eq!(text.lines().count(), 1, "nothing before the error:\n{text}");
        assert!(text.starts_with(&format!("error: {flag} `{value}`: ")) && text.contains("HOST:PORT"), "{text}");
    }
    // `localhost:0` (a host name) still gets past the check: the server announces where it listens.
    let starting = bin::start_serve_env(&bin::repo(), &["--metrics-addr", "localhost:0"], &[]);
    let server = starting.ready();
    assert!(server.stderr().contains("metrics on http://"), "{}", server.stderr());
}

/// Item 8: `+5` is the bare integer 5: the units hint appears as for `5`.
#[test]
fn a_plus_signed_integer_gets_the_units_hint() {
    for amount in ["100", "+100"] {
        let out = run(&["quote", "TON", "USDT", amount], "");
        let text = stderr(&out);
        assert_eq!(code(&out), 1, "{text}");
        assert!(text.contains("(code 3002); AMOUNT 100 is in the smallest units of TON"), "{amount}: {text}");
    }
}

/// Item 9 (help) and item 10: `--snapshot`'s help names `$TONROUTE_DATA_DIR`; JSON that is not a snapshot says
/// what it is (an array; an exchange API response, with the import command).
#[test]
fn snapshot_help_and_not_a_snapshot_hints() {
    for cmd in ["quote", "swap", "serve"] {
        let help = run(&[cmd, "--help"], "");
        assert!(String::from_utf8_lossy(&help.stdout).contains("$TONROUTE_DATA_DIR"), "tonroute {cmd} --help");
    }
    let dir = common::scratch("cli-audit", "shape");
    std::fs::write(dir.join("arr.json"), "[]").unwrap();
    let out = run_in(&dir, &["quote", "TON", "USDT", "100TON", "--snapshot", "arr.json"]);
    let text = stderr(&out);
    assert_eq!(code(&out), 2, "{text}");
    assert!(
        text.contains("arr.json: a JSON array; a tonroute snapshot is a JSON object with `assets` and `pools`"),
        "{text}"
    );
    let response = bin::repo().join("tests/data/import/dedust-pools.json");
    let response = response.to_str().unwrap();
    for args in [
        vec!["import", response, "--base", response, "--out", "x.json"],
        vec!["quote", "TON", "USDT", "100TON", "--snapshot", response],
    ] {
        let out = run_in(&dir, &args);
        let text = stderr(&out);
        assert_eq!(code(&out), 2, "{text}");
        assert!(
            text.contains("this is an exchange API response (DeDust /v2/pools), not a tonroute snapshot")
                && text.contains("`tonroute import "),
            "{args:?}: {text}"
        );
    }
    assert!(!dir.join("x.json").exists());
}
