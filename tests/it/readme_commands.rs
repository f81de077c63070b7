//! Every command the README shows, run the way the README writes it against the built binary: the `sh` blocks
//! are read from README.md itself, `cargo run … --` / `tonroute` become the binary under test, `serve … &`
//! starts it as a child process (on a free loopback port instead of 8080, which the later lines are rewritten
//! to), and every other line runs in `bash` (needs `curl` and `jq`, as a user following the README does) in a
//! scratch directory. A line fails the test when it exits non-zero, a `curl` gets a status other than 200, or
//! an answer that should be JSON is not. Editing a README command changes what this test runs.
//!
//! [`every_readme_command_is_run_or_listed`] holds the list: every `sh` block of the README is run by a named
//! test ([`RUN`]) or is listed with the reason it is not ([`NOT_RUN`]); the lines that would reach the internet as
//! written are run against a local replay of the exchanges' APIs and toncenter instead, and printed as such. A
//! new block that is in neither list fails it, and so does a command in a fenced block that is not `sh`.
#![cfg(feature = "server")]

use crate::common;
#[cfg(feature = "sync")]
use crate::replay;

use std::path::PathBuf;
use std::process::Command;

use common::bin::{repo, spawn_serve_env, ServerGuard, TONROUTE};
use common::readme::{as_binary, block};
use serde_json::Value;

/// Every `sh` block of the README, by a fragment of one of its lines (as the test that runs it finds it with
/// [`block`]), and that test: `NAME` in this file, or `FILE::NAME`.
const RUN: &[(&str, &str)] = &[
    ("quote native jetton:", "the_main_command_quotes_on_the_bundled_data"),
    ("5000000000000 --certify", "a_certified_quote_prints_a_bound_above_its_output"),
    ("> cross.json", "a_route_across_exchanges_quotes_and_builds_one_message"),
    ("[--snapshot FILE] [--json]", "synopsis_flags_exist"),
    ("--json > quote.json", "quote_then_swap_round_trip_from_the_shell"),
    (" import tests/data/import/", "import_lines_make_a_snapshot_quote_reads"),
    (" sync --out live.json", "sync_lines_run_against_the_local_replay"),
    ("sync --out pools.json", "sync_nats_lines_publish_to_a_real_bucket"),
    ("--market-db sqlite://trades.db", "sync_market_db_lines_store_the_derived_trade"),
    ("--market-db sqlite://held.db", "sync_wallet_lines_store_the_wallets_balances"),
    ("serve --addr", "v4_http_lines_run_against_tonroute_serve"),
    ("serve --log-json --shutdown-grace-secs", "operations_lines_run_against_tonroute_serve"),
    ("nats-server -js", "tests/it/feed_nats.rs::readme_stream_demo_runs_as_written"),
    ("serve --market", "market_data_lines_run_against_tonroute_serve_market"),
    ("market ingest data/examples/", "market_ingest_lines_fill_the_database_serve_reads"),
    ("scripts/build-wasm.sh", "tests/it/wasm_package.rs::the_readmes_typescript_example_runs_as_written"),
    ("node tests/e2e/run.mjs", "tests/e2e.rs::every_route_kind_pays_exactly_on_the_exchanges_own_code"),
];

/// `sh` blocks no test runs, and why.
const NOT_RUN: &[(&str, &str)] = &[("scripts/test", "the README's test command: it is what runs these tests")];

/// One executed line.
#[derive(Debug)]
struct Ran {
    line: String,
    /// HTTP status for `curl`, exit status otherwise.
    status: i32,
    stdout: String,
}

/// Runs a README block: serve lines start the server, assignments carry over, everything else runs in bash.
struct Session {
    dir: PathBuf,
    prelude: Vec<String>,
    server: Option<ServerGuard>,
    ran: Vec<Ran>,
    /// Environment of every line besides `TONROUTE` (what a user would have exported).
    env: Vec<(String, String)>,
}

impl Session {
    fn new(name: &str) -> Session {
        let dir = std::env::temp_dir().join(format!("tonroute-readme-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Session { dir, prelude: Vec::new(), server: None, ran: Vec::new(), env: Vec::new() }
    }

    fn run_block(&mut self, lines: &[String]) {
        for line in lines {
            self.run_line(line);
        }
    }

    fn run_line(&mut self, line: &str) {
        if line.starts_with("cargo test") || line.starts_with("scripts/test") {
            return; // The README's test command is what runs this test.
        }
        if let Some((name, value)) = line.strip_prefix("export ").and_then(|a| a.split_once('=')) {
            // Evaluated once by bash, as a user's shell does (`$(…)` makes a fresh token), and kept as evaluated.
            let out = Command::new("bash")
                .arg("-c")
                .arg(format!("set -eo pipefail\nprintf '%s' {value}"))
                .output()
                .unwrap_or_else(|e| panic!("bash is needed to run the README's lines: {e}"));
            assert!(out.status.success(), "README line failed: {line}\n{}", String::from_utf8_lossy(&out.stderr));
            let value = String::from_utf8(out.stdout).expect("an exported value is text");
            assert!(!value.contains('\''), "{line}: a value with a quote");
            self.prelude.push(format!("export {name}='{value}'"));
            self.env.push((name.to_string(), value));
            return;
        }
        let line = as_binary(line);
        if let Some(cmd) = line.strip_suffix('&') {
            let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
            assert_eq!(args.first(), Some(&"serve"), "background line that is not `serve`: {line}");
            let env: Vec<(&str, &str)> = self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            self.server = Some(spawn_serve_env(&repo(), &args[1..], &env));
            return;
        }
        let mut line = line.clone();
        if let Some(s) = &self.server {
            for readme_addr in ["localhost:8080", "127.0.0.1:8080"] {
                line = line.replace(readme_addr, &s.addr.to_string());
            }
        }
        let is_assignment = line.split('=').next().is_some_and(|v| {
            !v.is_empty() && !v.contains(' ') && v.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        });
        if is_assignment {
            self.prelude.push(line);
            return;
        }
        let curl = line.starts_with("curl ");
        let command = if curl {
            // The status goes to stderr so that a `> file` redirect still gets only the body.
            line.replacen("curl ", "curl -sS -w '%{stderr}%{http_code}\\n' ", 1)
        } else {
            line.clone()
        };
        let script = format!("set -eo pipefail\n{}\n{command}\n", self.prelude.join("\n"));
        let out = Command::new("bash")
            .arg("-c")
            .arg(&script)
            .current_dir(&self.dir)
            .env("TONROUTE", TONROUTE)
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap_or_else(|e| panic!("bash is needed to run the README's lines: {e}"));
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let log = || self.server.as_ref().map(|s| s.stderr()).unwrap_or_default();
        assert!(
            out.status.success(),
            "README line failed ({}): {line}\nstderr: {stderr}\nserver log:\n{}",
            out.status,
            log()
        );
        let status = if curl {
            let code = stderr.lines().last().and_then(|l| l.trim().parse::<i32>().ok());
            let code = code.unwrap_or_else(|| panic!("no HTTP status for {line}: {stderr} (is curl installed?)"));
            assert_eq!(code, 200, "README line got HTTP {code}: {line}\nbody: {stdout}");
            code
        } else {
            out.status.code().unwrap_or(-1)
        };
        let redirected = line.contains(" > ");
        if (curl || line.contains("--json") || line.contains(" swap ")) && !redirected {
            serde_json::from_str::<Value>(&stdout)
                .unwrap_or_else(|e| panic!("{line}: answer is not JSON ({e}): {stdout}"));
        }
        self.ran.push(Ran { line, status, stdout });
    }

    fn json_of(&self, fragment: &str) -> Value {
        let r =
            self.ran.iter().find(|r| r.line.contains(fragment)).unwrap_or_else(|| panic!("no line with {fragment}"));
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{}: {e}", r.line))
    }

    fn file(&self, name: &str) -> Value {
        let text = std::fs::read_to_string(self.dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"))
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.server = None;
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn the_main_command_quotes_on_the_bundled_data() {
    let mut s = Session::new("main");
    let lines = block("quote native jetton:");
    s.run_block(&lines);
    let table = &s.ran.iter().find(|r| r.line.contains(" quote ")).expect("the quote line ran").stdout;
    assert!(table.contains("TON →") && table.contains("USD₮") && table.contains("min out"), "{table}");
}

/// A decimal as the table prints it (`13012.5`, `5000`) → an integer at `scale` fractional digits.
fn scaled(text: &str, scale: usize) -> u128 {
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    assert!(frac.len() <= scale, "{text} has more than {scale} decimals");
    format!("{whole}{frac:0<scale$}").parse().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The certificate block: the table's `certificate` line names a bound at least the quote's output (both read
/// from the printed table, in the same token), and the gap it prints is the one those two give.
#[test]
fn a_certified_quote_prints_a_bound_above_its_output() {
    let mut s = Session::new("certify");
    s.run_block(&block("5000000000000 --certify"));
    let table = &s.ran.iter().find(|r| r.line.contains("--certify")).expect("the certified quote ran").stdout;
    // `5000 TON → 13012.345678 USD₮`
    let head: Vec<&str> = table.lines().next().unwrap_or_default().split_whitespace().collect();
    assert!(head.len() == 5 && head[2] == "→", "{table}");
    let (out, symbol) = (head[3], head[4]);
    // `certificate  no routing of this input gets more than B USD₮; the quote is G bp below that`
    let line =
        table.lines().find(|l| l.starts_with("certificate ")).unwrap_or_else(|| panic!("no certificate: {table}"));
    let after = line.split("more than ").nth(1).unwrap_or_else(|| panic!("{line}"));
    let mut words = after.split_whitespace();
    let (bound, bound_symbol) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
    assert_eq!(bound_symbol.trim_end_matches(';'), symbol, "{line}");
    let gap: f64 = line
        .split(" bp")
        .next()
        .and_then(|g| g.split_whitespace().last())
        .and_then(|g| g.parse().ok())
        .unwrap_or_else(|| panic!("no gap in {line}"));
    let scale = [bound, out].iter().map(|t| t.split_once('.').map_or(0, |(_, f)| f.len())).max().unwrap_or(0);
    let (bound, out) = (scaled(bound, scale), scaled(out, scale));
    assert!(bound >= out, "bound {bound} < output {out} (×10^-{scale}):\n{table}");
    let expected = (bound - out) as f64 / bound as f64 * 1e4;
    assert!(
        (gap - expected).abs() <= (0.05 * expected).max(5e-5),
        "printed gap {gap} bp, (bound − out)/bound {expected} bp"
    );
}

#[test]
fn quote_then_swap_round_trip_from_the_shell() {
    let mut s = Session::new("roundtrip");
    let lines = block("--json > quote.json");
    s.run_block(&lines);
    assert_eq!(s.ran.len(), 2, "{:?}", s.ran);
    let quote = s.file("quote.json");
    assert!(quote["swap_data"]["routes"].as_array().is_some_and(|r| !r.is_empty()), "{quote}");
    let swap = s.json_of(" swap ");
    let txs = swap["transactions"].as_array().expect("transactions");
    assert!(!txs.is_empty() && txs.iter().all(|t| t["payload"].as_str().is_some_and(|p| !p.is_empty())), "{swap}");
}

#[test]
fn v4_http_lines_run_against_tonroute_serve() {
    let mut s = Session::new("v4");
    let lines = block("serve --addr");
    s.run_block(&lines);
    let curls = s.ran.iter().filter(|r| r.line.starts_with("curl")).count();
    assert_eq!(curls, 4, "{:?}", s.ran);
    assert!(s.file("quote.json")["swap_data"].is_object());
    assert!(s.json_of("/v4/router/swap")["transactions"].as_array().is_some_and(|t| !t.is_empty()));
    // The README's **Addresses** rule: a quote's addresses are raw, a swap message's destination is the friendly
    // bounceable form (and names the same account as its raw form).
    let quote = s.file("quote.json");
    for step in
        quote["swap_data"]["routes"].as_array().expect("routes").iter().flat_map(|r| r.as_array().expect("steps"))
    {
        assert!(step["pool_address"].as_str().is_some_and(|a| a.starts_with("0:") && a.len() == 66), "{step}");
    }
    for tx in s.json_of("/v4/router/swap")["transactions"].as_array().expect("transactions") {
        let address = tx["address"].as_str().expect("an address");
        let parsed: tonlib_core::TonAddress = address.parse().expect("a TON address");
        assert!(address.len() == 48 && address.starts_with("EQ"), "not friendly bounceable: {address}");
        assert_eq!(parsed.to_base64_url(), address);
    }
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let rule = readme.split("**Addresses**").nth(1).and_then(|t| t.split("\n- ").next()).expect("the Addresses rule");
    assert!(
        rule.contains("quote responses are raw")
            && rule.contains("`transactions[].address`")
            && rule.contains("friendly bounceable"),
        "{rule}"
    );
    assert_eq!(s.json_of("/v4/admin/reserves"), serde_json::json!({"updated": 1}));
    assert_eq!(s.json_of("/health")["status"], "ok");
}

#[test]
fn market_data_lines_run_against_tonroute_serve_market() {
    let mut s = Session::new("market");
    let lines = block("serve --market");
    s.run_block(&lines);
    let curls: Vec<&Ran> = s.ran.iter().filter(|r| r.line.starts_with("curl")).collect();
    assert!(curls.len() >= 16, "{} market lines ran", curls.len());
    assert!(curls.iter().all(|r| r.status == 200));
    // Startup says when "now" is, as a date.
    let log = s.server.as_ref().map(|g| g.stderr()).unwrap_or_default();
    assert!(log.contains("as of 2024-11-21T12:00:00Z"), "{log}");
    let coin = s.json_of("/coin?asset=native");
    assert_eq!(coin["asset"], "native");
    // "TON alone trades in N pools": N is what the answer says and what the snapshot holds (counted here from its
    // JSON: pools with `native` on either side).
    let snapshot: Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("data/snapshot.json")).expect("snapshot"))
            .expect("JSON");
    let ton_pools = snapshot["pools"]
        .as_array()
        .expect("pools")
        .iter()
        .filter(|p| p["assets"][0] == "native" || p["assets"][1] == "native")
        .count();
    assert_eq!(coin["extra_details"]["liquidity_pools_total"], ton_pools, "{}", coin["extra_details"]);
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let said =
        readme.split("TON alone trades").nth(1).and_then(|t| t.split(" pools").next()).expect("the README's count");
    let said: usize = said.split_whitespace().last().unwrap_or_default().replace(',', "").parse().expect("a number");
    assert_eq!(said, ton_pools, "the README's count of TON's pools");
    let server = s.server.as_ref().expect("server");
    let (status, body) = server.get("/health");
    assert_eq!(status, 200, "{body}");
}

#[test]
fn operations_lines_run_against_tonroute_serve() {
    let mut s = Session::new("ops");
    let lines = block("serve --log-json --shutdown-grace-secs");
    s.run_block(&lines);
    assert_eq!(s.ran.len(), 3, "{:?}", s.ran);
    // The grep line printed the quote outcome series, one of which counted the README's quote.
    let outcomes = &s.ran[2].stdout;
    assert!(outcomes.lines().any(|l| l.ends_with(" 1")), "{outcomes}");
    // The request's line is written as it is answered; the reader collecting the log may lag behind.
    let server = s.server.as_ref().expect("the demo starts a server");
    let line = server
        .wait_line(|l| l.contains("\"request_id\":\"readme-1\""))
        .unwrap_or_else(|| panic!("no line for request readme-1:\n{}", server.stderr()));
    assert!(line.contains("\"status\":200"), "{line}");
}

/// The synopsis block names flags; each must be one the binary accepts, and every command the binary has (its
/// default build: every feature) is in the synopsis.
#[test]
fn synopsis_flags_exist() {
    let lines = block("[--snapshot FILE] [--json]");
    let mut checked = 0;
    let mut commands = std::collections::BTreeSet::new();
    for line in &lines {
        let mut words = line.split_whitespace();
        assert_eq!(words.next(), Some("tonroute"), "{line}");
        let mut cmd = vec![words.next().unwrap_or_default()];
        if cmd[0] == "market" {
            cmd.push(words.next().unwrap_or_default());
        }
        commands.insert(cmd[0].to_string());
        let help = Command::new(TONROUTE).args(&cmd).arg("--help").output().expect("tonroute --help");
        assert!(help.status.success(), "tonroute {cmd:?} --help");
        let help = String::from_utf8_lossy(&help.stdout).to_string();
        for flag in line.split(|c: char| c == '[' || c == ']' || c.is_whitespace()).filter(|w| w.starts_with("--")) {
            assert!(help.contains(flag), "`tonroute {cmd:?}` has no {flag}:\n{help}");
            checked += 1;
        }
    }
    assert!(checked >= 10, "{checked} flags checked");
    let help = Command::new(TONROUTE).arg("--help").output().expect("tonroute --help");
    let help = String::from_utf8_lossy(&help.stdout).to_string();
    let listed: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap_or_default()
        .lines()
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(listed.len() >= 7, "{listed:?}\n{help}");
    for c in listed {
        assert!(commands.contains(c), "`tonroute {c}` is missing from the README's synopsis");
    }
}

/// The reverse of [`synopsis_flags_exist`]: every flag a command's `--help` lists is in its synopsis lines
/// (`swap --now`, `serve --quote-inline-us` were missing). `sync`'s lines end in `…` and name its main flags only
/// (its URL and retry flags are in the sync section), so it is left out.
#[test]
fn synopsis_names_every_flag() {
    let lines = block("[--snapshot FILE] [--json]");
    for cmd in [&["quote"][..], &["swap"], &["serve"], &["import"], &["publish"], &["market", "ingest"]] {
        let prefix = format!("tonroute {} ", cmd.join(" "));
        let synopsis: Vec<&String> = lines.iter().filter(|l| l.starts_with(&prefix)).collect();
        assert!(!synopsis.is_empty(), "no synopsis line for {prefix}");
        let help = Command::new(TONROUTE).args(cmd).arg("--help").output().expect("tonroute --help");
        let help = String::from_utf8_lossy(&help.stdout).to_string();
        // The options' own lines (`  --flag <VALUE>`, `  -h, --help`), not flags named in descriptions.
        let flags = help
            .lines()
            .map(str::trim_start)
            .filter_map(|l| l.strip_prefix("-h, ").or(Some(l)).filter(|l| l.starts_with("--")))
            .filter_map(|l| l.split([' ', '=']).next())
            .filter(|f| !matches!(*f, "--help" | "--version"));
        let mut checked = 0;
        for flag in flags {
            let named = synopsis
                .iter()
                .any(|l| l.split(|c: char| c == '[' || c == ']' || c == '|' || c.is_whitespace()).any(|w| w == flag));
            assert!(named, "`{prefix}` has {flag}, which its README synopsis does not name");
            checked += 1;
        }
        assert!(checked >= 1, "{prefix}: no flag found in --help:\n{help}");
    }
}

#[test]
fn a_route_across_exchanges_quotes_and_builds_one_message() {
    let mut s = Session::new("cross");
    let lines = block("> cross.json");
    s.run_block(&lines);
    assert_eq!(s.ran.len(), 3, "{:?}", s.ran);
    let table = &s.ran[0].stdout;
    assert!(table.contains("JT71") && table.contains("dex_b_v2"), "{table}");
    // The quote, as the README tells it: USD₮ → TON on one dex_b_v2 router, TON → JT71 on another.
    let quote = s.file("cross.json");
    let routes = quote["swap_data"]["routes"].as_array().expect("routes");
    let router = |step: &serde_json::Value| step["dex_b_extra_details"]["router"].clone();
    let crossing = routes
        .iter()
        .filter_map(|r| r.as_array())
        .find(|steps| {
            steps.len() == 2
                && steps.iter().all(|s| s["protocol_slug"] == "dex_b_v2")
                && router(&steps[0]) != router(&steps[1])
        })
        .unwrap_or_else(|| panic!("no route across two dex_b_v2 routers: {quote}"));
    assert_eq!(crossing[0]["out_minter"], "native");
    // The swap: router A's last hop pays the TON to router B's pTON wallet with B's swap attached, the user being
    // the refund address of both and B's receiver.
    let swap = s.json_of(" swap ");
    let tx = &swap["transactions"][0];
    let root = tonlib_core::cell::BagOfCells::parse_base64(tx["payload"].as_str().expect("payload"))
        .and_then(|b| b.single_root())
        .expect("a BOC");
    use tonroute::swap::decode::{decode_body, Body, Payload};
    let Ok(Body::JettonTransfer { forward_payload: Payload::DexBV2(first), .. }) = decode_body(&root) else {
        panic!("not a jetton transfer with a dex_b_v2 swap: {tx}")
    };
    let sender: tonlib_core::TonAddress =
        "UQAj-peZGPH-cC25EAv4Q-h8cBXszTmkch6ba6wXC8BM40qt".parse().expect("the README's sender");
    assert_eq!(first.refund_address.as_ref(), Some(&sender));
    let pton_b = crossing[1]["dex_b_extra_details"]["from_router_wallet"].as_str().expect("router B's pTON wallet");
    assert_eq!(first.receiver.as_ref().map(|a| a.to_hex()).unwrap_or_default(), pton_b, "A pays B's pTON wallet");
    assert!(first.fwd_gas > 0, "the forward carries router B's TON");
    let Some(Payload::DexBV2(second)) = &first.custom_payload else { panic!("no v2 swap attached: {first:?}") };
    assert_eq!(second.refund_address.as_ref(), Some(&sender));
    assert_eq!(second.receiver.as_ref(), Some(&sender));
}

/// The import block, run from the source tree as a user does (its saved responses under `tests/data/import/`).
#[test]
fn import_lines_make_a_snapshot_quote_reads() {
    let mut s = Session::new("import");
    std::os::unix::fs::symlink(repo().join("tests"), s.dir.join("tests")).expect("link tests/ into the scratch dir");
    let lines = block(" import tests/data/import/");
    s.run_block(&lines);
    let import = &s.ran.iter().find(|r| r.line.contains(" import ")).expect("the import line ran").stdout;
    assert!(import.contains("imported 6 pools") && import.contains("wrote imported.json: 6 pools"), "{import}");
    assert!(import.contains("1 of 6 imported pools are quote-only"), "{import}");
    let quote = &s.ran.iter().find(|r| r.line.contains(" quote ")).expect("the quote line ran").stdout;
    assert!(quote.contains("min out"), "{quote}");
    // The quote's swap on the same snapshot builds (the router wallets were derived by the import).
    let swap = &s.ran.iter().find(|r| r.line.contains(" swap ")).expect("the swap line ran").stdout;
    let answer: Value = serde_json::from_str(swap).unwrap_or_else(|e| panic!("{e}: {swap}"));
    assert_eq!(answer["transactions"].as_array().map(Vec::len), Some(1), "{swap}");
}

/// The sync block against the local replay of the exchanges and toncenter (`tests/it/replay`), pointed at by
/// `TONROUTE_API_BASE` as a proxy would be; its blocks advance so that `--watch --rounds 3` ends.
#[cfg(feature = "sync")]
#[test]
fn sync_lines_run_against_the_local_replay() {
    use replay::payloads::{healthy, DEDUST, V2_POOL};
    use replay::{block_of, head};
    let r = healthy();
    // The first sync line reads the head once; the watch line builds at 100 again, then sees 101, 102, 103.
    r.script("head", vec![head(100), head(100), head(101), head(102), head(103)]);
    r.set("block 101", block_of(&[DEDUST[0]]));
    r.set("block 102", block_of(&[V2_POOL]));
    r.set("block 103", block_of(&[]));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let addr = rt.block_on(replay::start(r.clone()));
    let mut s = Session::new("sync");
    s.env.push(("TONROUTE_API_BASE".to_string(), format!("http://{addr}")));
    s.env.push(("TONROUTE_SYNC_RATE".to_string(), "1000".to_string()));
    let lines = block(" sync --out live.json");
    s.run_block(&lines);
    let first = &s.ran.iter().find(|r| r.line.ends_with("sync --out live.json")).expect("the sync line ran").stdout;
    assert!(
        first.contains("chain state read for 5 pools; 0 failed") && first.contains("wrote live.json: 5 pools"),
        "{first}"
    );
    assert!(first.contains("tonco indexer pools: FAILED"), "the replay serves no TONCO list: {first}");
    let watch = &s.ran.iter().find(|r| r.line.contains("--watch")).expect("the watch line ran").stdout;
    assert!(watch.contains("watched 3 rounds up to block 103"), "{watch}");
    assert_eq!(s.file("live.json")["pools"].as_array().map(Vec::len), Some(5));
}

/// The `sync --nats` block: `nats-server … &` starts a real server (on a free port and a scratch store instead
/// of 4222, which the later lines are rewritten to), the sync line runs the built binary against the local
/// replay (`TONROUTE_API_BASE`, as a proxy would be) with its blocks advancing so that `--rounds 2` ends. An
/// independent reader (plain async-nats) then finds every synced pool in the bucket, DeDust pool 0 at the
/// reserves round 1 read, stamped with its block.
#[cfg(all(feature = "sync", feature = "nats"))]
#[test]
fn sync_nats_lines_publish_to_a_real_bucket() {
    use replay::payloads::{healthy, DEDUST};
    use replay::{block_of, head, raw};
    let r = healthy();
    r.script("head", vec![head(100), head(101), head(102)]);
    r.set("block 101", block_of(&[DEDUST[0]]));
    r.set("block 102", block_of(&[]));
    // The build reads DeDust pool 0 as recorded, round 1 (block 101 touches it) moved.
    let reserves = |r: [u128; 2]| replay::stack(vec![replay::num(r[0]), replay::num(r[1])]);
    r.script(
        &format!("get {} get_reserves", raw(DEDUST[0])),
        vec![
            reserves([56_045_095, 82_155_766_840_929_579_571_808]),
            reserves([57_000_000, 81_000_000_000_000_000_000_000]),
        ],
    );
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let addr = rt.block_on(replay::start(r.clone()));
    let mut s = Session::new("sync-nats");
    s.env.push(("TONROUTE_API_BASE".to_string(), format!("http://{addr}")));
    s.env.push(("TONROUTE_SYNC_RATE".to_string(), "1000".to_string()));
    let mut nats = None;
    for line in block("sync --out pools.json") {
        if line.starts_with("nats-server ") {
            assert!(line.contains("--jetstream") && line.ends_with('&'), "JetStream in the background: {line}");
            nats = Some(common::nats::NatsServer::start("readme-sync"));
            continue;
        }
        let server = nats.as_ref().expect("the block starts nats-server first");
        s.run_line(&line.replace("127.0.0.1:4222", &format!("127.0.0.1:{}", server.port)));
    }
    let server = nats.expect("the block starts nats-server");
    let out = &s.ran.iter().find(|r| r.line.contains("--nats")).expect("the sync line ran").stdout;
    assert!(out.contains("published 5 pools to bucket tonroute-pools"), "{out}");
    assert!(out.contains("watched 2 rounds up to block 102: 1 pool changes"), "{out}");
    let dedust0 = raw(DEDUST[0]).trim_start_matches("0:").to_string();
    let (keys, value) = rt.block_on(async {
        use futures_util::StreamExt;
        let client = async_nats::connect(server.url()).await.expect("an independent reader");
        let store = async_nats::jetstream::new(client).get_key_value("tonroute-pools").await.expect("the bucket");
        let keys: Vec<String> = store.keys().await.expect("keys").map(|k| k.expect("a key")).collect().await;
        let value = store.get(&dedust0).await.expect("reading").expect("DeDust pool 0 is in the bucket");
        (keys, serde_json::from_slice::<Value>(&value).expect("JSON"))
    });
    assert_eq!(keys.len(), 5, "{keys:?}");
    assert_eq!(value, serde_json::json!({"reserves": ["57000000", "81000000000000000000000"], "seqno": 101}));
}

/// The `sync --market-db` block against the local replay: the build at block 100, then two rounds; block 101
/// moves DeDust pool 0's reserves apart (a swap). The SQLite file the line names then holds exactly that trade
/// (read with plain sqlx): the reserve that rose went in, the amounts are the two reserve changes.
#[cfg(feature = "sync")]
#[test]
fn sync_market_db_lines_store_the_derived_trade() {
    use replay::payloads::{dedust_reserves, healthy, DEDUST};
    use replay::{block_of, block_time, head, raw};
    use sqlx::Row;
    let r = healthy();
    r.script("head", vec![head(100), head(101), head(102)]);
    r.set("block 101", block_of(&[DEDUST[0]]));
    r.set("block 102", block_of(&[]));
    let before = dedust_reserves()[0];
    let after = [before[0] + 2_000_000_000, before[1] - 2_500_000_000_000_000_000_000];
    let reserves = |r: [u128; 2]| replay::stack(vec![replay::num(r[0]), replay::num(r[1])]);
    r.script(&format!("get {} get_reserves", raw(DEDUST[0])), vec![reserves(before), reserves(after)]);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let addr = rt.block_on(replay::start(r.clone()));
    let mut s = Session::new("sync-market");
    s.env.push(("TONROUTE_API_BASE".to_string(), format!("http://{addr}")));
    s.env.push(("TONROUTE_SYNC_RATE".to_string(), "1000".to_string()));
    s.run_block(&block("--market-db sqlite://trades.db"));
    let out = &s.ran.iter().find(|r| r.line.contains("--market-db")).expect("the sync line ran").stdout;
    assert!(out.contains("1 derived trades stored, 0 already stored"), "{out}");
    let db = format!("sqlite://{}", s.dir.join("trades.db").display());
    let rows = rt.block_on(async {
        let pool = sqlx::SqlitePool::connect(&db).await.expect("the SQLite file the README names");
        let rows =
            sqlx::query("SELECT pool, amount_in, amount_out, time FROM trades").fetch_all(&pool).await.expect("trades");
        rows.iter()
            .map(|r| (r.get::<String, _>(0), r.get::<String, _>(1), r.get::<String, _>(2), r.get::<i64, _>(3)))
            .collect::<Vec<_>>()
    });
    let expected =
        (raw(DEDUST[0]), (after[0] - before[0]).to_string(), (before[1] - after[1]).to_string(), block_time(101));
    assert_eq!(rows, vec![expected]);
}

/// The README's `--wallet` line against the replay: the wallet's balances stored are the replay's answers, with
/// the block they were read at (the build's 100, then round 1's 101, which replaces them).
#[cfg(all(feature = "sync", feature = "store"))]
#[test]
fn sync_wallet_lines_store_the_wallets_balances() {
    use replay::payloads::{healthy, USDT};
    use replay::{block_of, block_time, head, jetton_page, raw, wallet_state};
    use sqlx::Row;
    let lines = block("--market-db sqlite://held.db");
    let wallet = lines
        .iter()
        .find_map(|l| l.split("--wallet ").nth(1))
        .and_then(|w| w.split_whitespace().next())
        .expect("the README's --wallet")
        .to_string();
    let r = healthy();
    r.script("head", vec![head(100), head(101)]);
    r.set("block 101", block_of(&[]));
    r.script(
        &format!("state {}", raw(&wallet)),
        vec![wallet_state(&wallet, 5_000_000_000), wallet_state(&wallet, 4_000_000_000)],
    );
    r.script(
        &format!("jettons {} 0", raw(&wallet)),
        vec![jetton_page(&wallet, &[(USDT, 12_500_000)]), jetton_page(&wallet, &[(USDT, 12_000_000)])],
    );
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let addr = rt.block_on(replay::start(r.clone()));
    let mut s = Session::new("sync-wallets");
    s.env.push(("TONROUTE_API_BASE".to_string(), format!("http://{addr}")));
    s.env.push(("TONROUTE_SYNC_RATE".to_string(), "1000".to_string()));
    s.run_block(&lines);
    let db = format!("sqlite://{}", s.dir.join("held.db").display());
    let rows = rt.block_on(async {
        let pool = sqlx::SqlitePool::connect(&db).await.expect("the SQLite file the README names");
        let rows = sqlx::query("SELECT owner, asset, balance, as_of, block FROM wallet_balances ORDER BY asset")
            .fetch_all(&pool)
            .await
            .expect("balances");
        rows.iter()
            .map(|r| {
                (
                    r.get::<String, _>(0),
                    r.get::<String, _>(1),
                    r.get::<String, _>(2),
                    r.get::<i64, _>(3),
                    r.get::<i64, _>(4),
                )
            })
            .collect::<Vec<_>>()
    });
    let w = raw(&wallet);
    assert_eq!(
        rows,
        vec![
            (w.clone(), USDT.to_string(), "12000000".to_string(), block_time(101), 101),
            (w, "native".to_string(), "4000000000".to_string(), block_time(101), 101),
        ]
    );
}

/// The fragment of [`RUN`] / [`NOT_RUN`] that finds `block`, if exactly one does.
fn listed(block: &[String]) -> Vec<&'static str> {
    RUN.iter().chain(NOT_RUN).map(|(m, _)| *m).filter(|m| block.iter().any(|l| l.contains(m))).collect()
}

/// Every README command is run by a test, or listed with why not; the lines that need the internet as written
/// (`tonroute sync`: the exchanges' APIs and toncenter) are printed with where the tests point them instead. A
/// block in neither list, a listed test that does not exist or does not read its block, and a command in a
/// fenced block other than `sh` all fail.
#[test]
fn every_readme_command_is_run_or_listed() {
    let text = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    // Fenced blocks that are not `sh` hold no command.
    let mut fence: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        match (&fence, t.strip_prefix("```")) {
            (None, Some(lang)) => {
                assert!(!lang.trim().is_empty(), "README.md:{}: a fenced block without a language", n + 1);
                fence = Some(lang.trim().to_string());
            }
            (Some(_), Some(_)) => fence = None,
            (Some(lang), None) if lang != "sh" => {
                let command = ["tonroute ", "cargo ", "curl ", "scripts/"].iter().any(|c| t.starts_with(c));
                assert!(!command, "README.md:{}: a command in a `{lang}` block (make it `sh`): {t}", n + 1);
            }
            _ => {}
        }
    }
    let blocks = common::readme::sh_blocks();
    for b in &blocks {
        let found = listed(b);
        assert_eq!(
            found.len(),
            1,
            "a README sh block must be run by a test or listed in NOT_RUN (found {found:?}):\n{}",
            b.join("\n")
        );
    }
    for (marker, test) in RUN {
        let (file, name) = test.split_once("::").unwrap_or(("tests/it/readme_commands.rs", test));
        let source = std::fs::read_to_string(repo().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let body = source.split(&format!("fn {name}(")).nth(1).unwrap_or_else(|| panic!("{file} has no test {name}"));
        let body = body.split("\n}\n").next().unwrap_or_default();
        assert!(body.contains(&format!("block(\"{marker}\")")), "{file}::{name} does not run the block of `{marker}`");
    }
    // The synopsis only names flags (`synopsis_flags_exist` checks them); the other `sync` lines would run.
    let synopsis = |b: &&Vec<String>| b.iter().any(|l| l.contains("[--snapshot FILE] [--json]"));
    let offline: Vec<&String> =
        blocks.iter().filter(|b| !synopsis(b)).flatten().filter(|l| l.contains(" sync ")).collect();
    println!("README sh blocks: {}, run by tests: {}", blocks.len(), RUN.len());
    for (marker, why) in NOT_RUN {
        println!("not run: the block of `{marker}`: {why}");
    }
    println!("need the internet as written; run against the local replay (TONROUTE_API_BASE, tests/it/replay):");
    for l in &offline {
        println!("  {l}");
    }
    assert_eq!(blocks.len(), RUN.len() + NOT_RUN.len());
    assert!(!offline.is_empty());
}

/// GitHub's anchor of a heading: lower case, letters, digits, `-` and `_` kept, spaces to `-`, the rest dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of a Markdown file's headings (outside fenced blocks), with GitHub's `-1`, `-2` for repeats.
fn anchors(text: &str) -> std::collections::BTreeSet<String> {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    let mut out = std::collections::BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(heading) = line.strip_prefix('#').filter(|_| !fenced) else { continue };
        let base = slug(heading.trim_start_matches('#'));
        let n = seen.entry(base.clone()).or_default();
        out.insert(if *n == 0 { base.clone() } else { format!("{base}-{n}") });
        *n += 1;
    }
    out
}

/// Every relative link of the README names a file of the repository, and every `#anchor` (in the README or
/// in the file linked) a heading there.
#[test]
fn readme_links_resolve() {
    let text = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    let mut checked = 0;
    for part in text.split("](").skip(1) {
        let target = part.split(')').next().unwrap_or_default();
        if target.starts_with("http://") || target.starts_with("https://") || target.contains(' ') {
            continue;
        }
        let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
        let path = if file.is_empty() { repo().join("README.md") } else { repo().join(file) };
        assert!(path.exists(), "README links to {target}: no file {}", path.display());
        if !anchor.is_empty() {
            let linked = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let known = anchors(&linked);
            assert!(
                known.contains(anchor),
                "README links to {target}: no such heading in {file:?}; headings: {known:?}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "{checked} links checked");
}

/// The README's market ingest block, run as written from a directory holding the bundle (`data/` with the
/// snapshot, the sample and the example files, as a checkout's root does) and a real PostgreSQL (on a free port,
/// its URL put in place of the README's): the default database is `data/market.db` of that directory, the one
/// `tonroute serve` started there then reads; both print its absolute path; every example line is stored (and
/// stored once when ingested again), in SQLite and in PostgreSQL.
#[test]
fn market_ingest_lines_fill_the_database_serve_reads() {
    let mut s = Session::new("ingest");
    let data = s.dir.join("data");
    std::fs::create_dir_all(&data).expect("data/");
    for name in ["snapshot.json", "market.json", "examples"] {
        std::os::unix::fs::symlink(repo().join("data").join(name), data.join(name)).expect("linking the bundle");
    }
    let pg = common::pg::server().fresh_database_url();
    let lines = block("market ingest data/examples/");
    assert_eq!(lines.len(), 2, "{lines:?}");
    for line in &lines {
        s.run_line(&line.replace("postgres://tonroute@127.0.0.1:5432/market", &pg));
    }
    let db = data.join("market.db");
    let first = &s.ran[0];
    assert!(first.stdout.contains("data/examples/trades.jsonl: 4 trades stored, 0 already stored"), "{}", first.stdout);
    assert!(
        first.stdout.contains("data/examples/more.jsonl: 2 trades stored, 0 already stored")
            && first.stdout.contains("1 balances stored"),
        "{}",
        first.stdout
    );
    assert!(
        s.ran[1].stdout.contains("data/examples/trades.jsonl: 4 trades stored, 0 already stored"),
        "{}",
        s.ran[1].stdout
    );
    assert!(db.is_file(), "the default database is data/market.db of the current directory");
    // Again: nothing new. The output names the database by its absolute path.
    let again = common::bin::run_tonroute(&s.dir, &["market", "ingest", "data/examples/trades.jsonl"], None);
    let said = String::from_utf8_lossy(&again.stderr).to_string();
    assert!(String::from_utf8_lossy(&again.stdout).contains("0 trades stored, 4 already stored"), "{said}");
    let url = format!("sqlite://{}", db.display());
    assert!(said.contains(&format!("market database {url} (the one `tonroute serve` reads by default)")), "{said}");
    // `sqlite://data/market.db` is the same file: relative to the current directory.
    let same = common::bin::run_tonroute(
        &s.dir,
        &["market", "ingest", "--db", "sqlite://data/market.db", "data/examples/more.jsonl"],
        None,
    );
    assert!(
        String::from_utf8_lossy(&same.stderr).contains(&format!("market database {url} ")),
        "{}",
        String::from_utf8_lossy(&same.stderr)
    );
    assert!(String::from_utf8_lossy(&same.stdout).contains("0 trades stored, 2 already stored"));
    // The server started there reads it: the sample's 6,000 trades and the six examples.
    let server = common::bin::spawn_serve_in(&s.dir, &[]);
    let log = server.stderr();
    assert!(log.contains(&format!("market data from {url}")), "{log}");
    assert!(log.contains("6006 trades"), "{log}");
    let examples = std::fs::read_to_string(repo().join("data/examples/trades.jsonl")).expect("the examples");
    let hash = serde_json::from_str::<Value>(examples.lines().next().unwrap_or_default()).expect("a line")["tx_hash"]
        .as_str()
        .expect("a hash")
        .to_string();
    let (status, body) = server.get(&format!("/coin_transactions?asset={}&limit=20", common::USDT));
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(&hash), "the first example trade is served: {body}");
}
