//! The crate lines are the layers (ARCHITECTURE.md, issue #39): this test reads each member's dependency tree
//! with `cargo tree` (offline, Cargo.lock's versions) and holds what each layer may pull in. The core must stay
//! pure and synchronous, the /v4 layer must stay free of an async runtime (the npm package builds it for
//! WebAssembly), and each crate may name only the tonroute crates below it.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The I/O and surface crates no lower layer may depend on.
const IO_CRATES: [&str; 7] = ["tokio", "sqlx", "axum", "hyper", "reqwest", "async-nats", "clap"];

/// The package names in `cargo tree -p PACKAGE -e normal` with `features` (`--all-features` when `None`).
fn tree(package: &str, features: Option<&str>) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command.current_dir(Path::new(env!("CARGO_MANIFEST_DIR"))).args([
        "tree",
        "--offline",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--format",
        "{p}",
        "-p",
        package,
    ]);
    match features {
        None => command.arg("--all-features"),
        Some("") => command.arg("--no-default-features"),
        Some(list) => command.args(["--no-default-features", "--features", list]),
    };
    let output = command.output().expect("cargo runs (it is running this test)");
    assert!(output.status.success(), "cargo tree -p {package}: {}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8(output.stdout).expect("cargo tree prints UTF-8");
    let names: BTreeSet<String> =
        text.lines().filter_map(|line| line.split_whitespace().next()).map(str::to_string).collect();
    assert!(names.contains(package), "cargo tree -p {package} did not list the package itself:\n{text}");
    names
}

fn io_crates_in(names: &BTreeSet<String>) -> Vec<&'static str> {
    IO_CRATES.iter().copied().filter(|name| names.contains(*name)).collect()
}

fn tonroute_crates_in(names: &BTreeSet<String>, own: &str) -> Vec<String> {
    names.iter().filter(|name| name.starts_with("tonroute") && *name != own).cloned().collect()
}

#[test]
fn the_core_pulls_in_no_io_crate_with_every_feature_on() {
    let names = tree("tonroute-core", None);
    assert_eq!(io_crates_in(&names), Vec::<&str>::new(), "tonroute-core's tree: {names:?}");
    assert_eq!(tonroute_crates_in(&names, "tonroute-core"), Vec::<String>::new());
}

#[test]
fn the_market_domain_needs_sql_and_tokio_only_for_its_store() {
    let pure = tree("tonroute-market", Some("openapi"));
    assert_eq!(io_crates_in(&pure), Vec::<&str>::new(), "tonroute-market without `store`: {pure:?}");
    let store = tree("tonroute-market", Some("store"));
    // The check can fail: with the store on, the SQL crates are in the same tree.
    assert_eq!(io_crates_in(&store), vec!["tokio", "sqlx"]);
    assert_eq!(tonroute_crates_in(&store, "tonroute-market"), vec!["tonroute-core".to_string()]);
}

#[test]
fn the_v4_layer_stays_free_of_an_async_runtime_for_the_webassembly_package() {
    let names = tree("tonroute-api", Some("openapi"));
    assert_eq!(io_crates_in(&names), Vec::<&str>::new(), "tonroute-api's tree: {names:?}");
    assert_eq!(
        tonroute_crates_in(&names, "tonroute-api"),
        vec!["tonroute-core".to_string(), "tonroute-market".to_string(), "tonroute-sources".to_string()]
    );
}

#[test]
fn the_sources_take_nats_and_http_only_behind_their_features() {
    let pure = tree("tonroute-sources", Some(""));
    assert_eq!(io_crates_in(&pure), Vec::<&str>::new(), "tonroute-sources without features: {pure:?}");
    let nats = tree("tonroute-sources", Some("nats"));
    assert_eq!(io_crates_in(&nats), vec!["tokio", "async-nats"]);
    let sync = tree("tonroute-sources", Some("sync"));
    assert_eq!(io_crates_in(&sync), vec!["tokio", "hyper", "reqwest"]);
    assert_eq!(
        tonroute_crates_in(&sync, "tonroute-sources"),
        vec!["tonroute-core".to_string(), "tonroute-market".to_string()]
    );
}

#[test]
fn only_the_server_and_the_binary_bring_http_serving_and_the_command_line() {
    let server = tree("tonroute-server", None);
    assert!(server.contains("axum") && server.contains("tokio"), "tonroute-server's tree: {server:?}");
    assert!(!server.contains("clap"), "the server crate must not parse command lines: {server:?}");
    let lean = tree("tonroute", Some("serde"));
    assert_eq!(io_crates_in(&lean), Vec::<&str>::new(), "tonroute with only `serde`: {lean:?}");
    assert!(!lean.contains("tonroute-server"));
}
