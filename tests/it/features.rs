//! The feature layout (issue #35 item 7), read from cargo itself (`cargo metadata`, `cargo tree`, offline):
//!
//! - the default build of the `tonroute` binary has every command: the package's default features include
//!   every feature the binary's source is conditional on (`src/bin/tonroute/`), so `tonroute serve`, `sync`,
//!   `publish` and `market` exist in what `cargo build` / `cargo run` / `cargo install` make;
//! - the library stays lean for embedders: with `default-features = false, features = ["serde"]` its dependency
//!   tree has no command-line, async-runtime, HTTP, database or NATS crate.
#![cfg(feature = "serde")]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo ARGS` on this package's manifest, offline (the lock file and the registry cache of the build).
fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let manifest = repo().join("Cargo.toml");
    let out = Command::new(&cargo)
        .args(args)
        .args(["--offline", "--manifest-path"])
        .arg(&manifest)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cargo}: {e}"));
    assert!(out.status.success(), "cargo {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The features `names` turn on, transitively (the package's own features only; `dep:` entries are not
/// features).
fn closure(features: &BTreeMap<String, Vec<String>>, names: &[&str]) -> BTreeSet<String> {
    let mut on = BTreeSet::new();
    let mut todo: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    while let Some(f) = todo.pop() {
        if on.insert(f.clone()) {
            todo.extend(features.get(&f).into_iter().flatten().filter(|g| features.contains_key(*g)).cloned());
        }
    }
    on
}

/// Every `feature = "…"` a Rust file under `dir` is conditional on.
fn features_used(dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("the binary's source") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            features_used(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file");
            for part in text.split("feature = \"").skip(1) {
                found.insert(part.split('"').next().unwrap_or_default().to_string());
            }
        }
    }
}

#[test]
fn the_default_build_of_the_binary_has_every_command() {
    let metadata: Value = serde_json::from_str(&cargo(&["metadata", "--no-deps", "--format-version", "1"])).unwrap();
    let package = metadata["packages"].as_array().unwrap().iter().find(|p| p["name"] == "tonroute").unwrap();
    let features: BTreeMap<String, Vec<String>> = serde_json::from_value(package["features"].clone()).unwrap();
    let default = closure(&features, &["default"]);
    let mut used = BTreeSet::new();
    features_used(&repo().join("src/bin/tonroute"), &mut used);
    assert!(used.is_superset(&["server", "store", "sync", "nats"].map(String::from).into()), "{used:?}");
    let missing: Vec<&String> = used.difference(&default).collect();
    assert!(missing.is_empty(), "the default build lacks the binary's features {missing:?} (default: {default:?})");
    // The binary target needs nothing beyond the default.
    let bin = package["targets"].as_array().unwrap().iter().find(|t| t["name"] == "tonroute" && t["kind"][0] == "bin");
    let required: Vec<String> = serde_json::from_value(bin.unwrap()["required-features"].clone()).unwrap_or_default();
    assert!(required.iter().all(|f| default.contains(f)), "{required:?}");
}

#[test]
fn the_lean_library_has_no_cli_runtime_http_database_or_nats_crate() {
    let tree = cargo(&[
        "tree",
        "-p",
        "tonroute",
        "--no-default-features",
        "--features",
        "serde",
        "-e",
        "normal",
        "--prefix",
        "none",
    ]);
    let crates: BTreeSet<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(crates.contains("serde_json") && crates.contains("tonlib-core"), "{crates:?}");
    for heavy in ["clap", "tokio", "axum", "hyper", "sqlx", "reqwest", "async-nats", "prometheus", "tracing-subscriber"]
    {
        assert!(!crates.contains(heavy), "`{heavy}` is in the lean library's tree:\n{tree}");
    }
    // The default (the binary's) has them: the check above is about the feature set, not a stale lock file.
    let full = cargo(&["tree", "-p", "tonroute", "-e", "normal", "--prefix", "none"]);
    for needed in ["clap", "tokio", "axum", "sqlx", "reqwest", "async-nats"] {
        assert!(full.lines().any(|l| l.starts_with(&format!("{needed} "))), "the default build lacks {needed}");
    }
}
