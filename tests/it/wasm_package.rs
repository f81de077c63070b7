//! The npm package (bindings/wasm) against native, as the README's test command runs it: the package built by
//! `scripts/build-wasm.sh`, then `node --test bindings/wasm/test/` with the binary under test
//! (`CARGO_BIN_EXE_tonroute`) as the native side: 300 seeded random quotes and their swaps equal to
//! `tonroute quote --json` / `tonroute swap`, the `/v4` bad-input cases equal to the server's `{code, message}`,
//! reserve updates that change the answer as on the server, the TypeScript types against `/openapi.json`, the
//! package's forms and purity (bindings/wasm/test/*.test.mjs say what each checks). Then the README's
//! TypeScript example, installed from the package directory with `npm install` and run as written.
#![cfg(feature = "server")]

use crate::common;
use crate::common::wasm;

use std::process::{Command, Stdio};

use serde_json::Value;
use wasm::{package, repo};

const TONROUTE: &str = env!("CARGO_BIN_EXE_tonroute");

#[test]
fn node_tests_of_the_package_pass() {
    let pkg = package();
    let out = Command::new("node")
        .args(["--test", "bindings/wasm/test/"])
        .current_dir(repo())
        .env("TONROUTE_BIN", TONROUTE)
        .env("TONROUTE_WASM_PKG", pkg)
        .stdin(Stdio::null())
        .output()
        .expect("running node --test");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "node --test bindings/wasm/test/ failed ({})", out.status);
    // The runner's summary: every file's tests ran, none failed or was skipped.
    let count = |name: &str| {
        stdout.lines().find_map(|l| l.strip_prefix(&format!("# {name} "))).and_then(|n| n.trim().parse::<u32>().ok())
    };
    assert_eq!(count("fail"), Some(0), "{stdout}");
    assert_eq!(count("skipped"), Some(0), "{stdout}");
    assert!(count("pass").is_some_and(|n| n >= 10), "{stdout}");
}

/// The fenced `ts` block under the README's "TypeScript" heading.
fn readme_example() -> String {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme.split("\n## TypeScript").nth(1).expect("a `## TypeScript` section in the README");
    let code = section.split("```ts\n").nth(1).expect("a ```ts block in the TypeScript section");
    code.split("\n```").next().unwrap().to_string()
}

#[test]
fn the_readmes_typescript_example_runs_as_written() {
    // The README's commands: the build (what `package()` runs), then `npm install` in the user's project.
    let commands = common::readme::block("scripts/build-wasm.sh");
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert_eq!(commands[0], "scripts/build-wasm.sh");
    let pkg = package();
    let install_args: Vec<String> = commands[1]
        .replace("/path/to/tonroute/", &format!("{}/", repo().display()))
        .split_whitespace()
        .map(String::from)
        .collect();
    assert_eq!(&install_args[..2], ["npm", "install"], "{}", commands[1]);
    assert_eq!(std::path::Path::new(&install_args[2]), pkg, "the README installs the package the script built");
    let example = readme_example();
    assert!(example.lines().count() <= 12, "the README promises a short example:\n{example}");
    // A project of a user's: the package installed from its directory, the example as its script.
    let dir = std::env::temp_dir().join(format!("tonroute-wasm-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package.json"), r#"{"name": "readme-example", "private": true, "type": "module"}"#)
        .unwrap();
    let install = Command::new("npm")
        .args(&install_args[1..])
        .args(["--no-audit", "--no-fund", "--offline"])
        .current_dir(&dir)
        .output()
        .expect("running npm install");
    assert!(install.status.success(), "npm install {}: {}", pkg.display(), String::from_utf8_lossy(&install.stderr));
    std::fs::write(dir.join("example.mjs"), &example).unwrap();
    // Run from the repository, where the example's `data/snapshot.json` is.
    let run = Command::new("node").arg(dir.join("example.mjs")).current_dir(repo()).output().expect("running node");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "the example failed:\n{example}\n{}", String::from_utf8_lossy(&run.stderr));

    // It printed the quote's output and the TON Connect request: the swap's messages for the same quote, as
    // `tonroute swap` builds them (payloads aside: they carry the example's clock).
    let mut lines = stdout.lines();
    let out_amount = lines.next().expect("the quote's out_amount");
    let request: Value = serde_json::from_str(lines.next().expect("the request")).expect("JSON");
    let quote_run = std::process::Command::new(TONROUTE)
        .args(["quote", "native", "jetton:0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe"])
        .args(["100000000000", "--json"])
        .current_dir(repo())
        .output()
        .unwrap();
    let quote: Value = serde_json::from_slice(&quote_run.stdout).unwrap();
    assert_eq!(out_amount, quote["out_amount"].as_str().unwrap());
    let mut swap = Command::new(TONROUTE)
        .args(["swap", "--sender", "UQAj-peZGPH-cC25EAv4Q-h8cBXszTmkch6ba6wXC8BM40qt"])
        .current_dir(repo())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut swap.stdin.take().unwrap(), &quote_run.stdout).unwrap();
    let swap: Value = serde_json::from_slice(&swap.wait_with_output().unwrap().stdout).unwrap();
    let messages = request["messages"].as_array().expect("messages");
    let txs = swap["transactions"].as_array().unwrap();
    assert_eq!(messages.len(), txs.len());
    for (m, t) in messages.iter().zip(txs) {
        assert_eq!(m["address"], t["address"]);
        assert_eq!(m["amount"], t["amount"]);
        assert!(m["payload"].as_str().is_some_and(|p| p.len() > 40), "{m}");
    }
    let valid_until = request["validUntil"].as_u64().expect("validUntil");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    assert!(valid_until > now && valid_until <= now + 900, "validUntil {valid_until}, now {now}");
    let _ = std::fs::remove_dir_all(&dir);
}
