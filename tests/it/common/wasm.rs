//! The npm package (bindings/wasm) for the tests that use it: built once per test process by
//! `scripts/build-wasm.sh`, the README's command, into `bindings/wasm/pkg` (its Rust build has its own target
//! directory, `target/wasm`, so it does not wait on the lock `cargo test` holds on `target/`). Node.js and npm
//! are needed: without them, or when the build fails, the test fails, naming what is missing.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The source tree.
pub(crate) fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Panics unless `tool --version` runs (scripts/test installs these Debian packages when missing).
pub(crate) fn require(tool: &str, package: &str) {
    let ok = Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
    assert!(ok, "`{tool}` is not installed: `apt-get install -y {package}` (scripts/test does this)");
}

/// The package directory, built (or found up to date) by `scripts/build-wasm.sh`.
pub(crate) fn package() -> &'static Path {
    static PKG: OnceLock<PathBuf> = OnceLock::new();
    PKG.get_or_init(|| {
        require("node", "nodejs");
        require("npm", "npm");
        let out = Command::new("bash")
            .arg("scripts/build-wasm.sh")
            .current_dir(repo())
            .output()
            .unwrap_or_else(|e| panic!("cannot run scripts/build-wasm.sh: {e}"));
        let log = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "scripts/build-wasm.sh failed ({}):\n{log}", out.status);
        eprintln!("{}", log.lines().filter(|l| l.starts_with("build-wasm:")).collect::<Vec<_>>().join("\n"));
        let pkg = repo().join("bindings/wasm/pkg");
        assert!(pkg.join("tonroute_wasm_bg.wasm").exists(), "no module in {}", pkg.display());
        pkg
    })
}
