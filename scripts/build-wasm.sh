#!/usr/bin/env bash
# Builds the npm package `tonroute` (tonroute's /v4 quote and swap compiled to WebAssembly, bindings/wasm) into
# bindings/wasm/pkg, which `npm install ./bindings/wasm/pkg` installs.
#
#   scripts/build-wasm.sh              build (or find up to date) bindings/wasm/pkg
#   scripts/build-wasm.sh --out DIR    build into DIR instead
#   scripts/build-wasm.sh --setup      only install the Rust-side tools below when missing
#
# Tools: the `wasm32-unknown-unknown` target (`rustup target add` when missing) and `wasm-bindgen-cli` at exactly
# the version of the `wasm-bindgen` crate in Cargo.lock (`cargo install` when missing or at another version;
# wasm-pack's npm installer downloads binaries from outside, so it is not used). `wasm-opt` (Debian's
# `binaryen`) shrinks the module when present. The Rust build uses its own target directory (target/wasm, or
# $TONROUTE_WASM_TARGET_DIR), so it never waits on another cargo's lock of target/.
set -euo pipefail
cd "$(dirname "$0")/.."

out=bindings/wasm/pkg
setup_only=0
while (($#)); do
  case $1 in
    --out) out=$2; shift 2 ;;
    --setup) setup_only=1; shift ;;
    *) echo "build-wasm: unknown argument $1 (usage: scripts/build-wasm.sh [--out DIR] [--setup])" >&2; exit 2 ;;
  esac
done

started=$SECONDS
target=wasm32-unknown-unknown
target_dir=${TONROUTE_WASM_TARGET_DIR:-target/wasm}
version=$(awk '$0 == "name = \"wasm-bindgen\"" { getline; gsub(/[^0-9.]/, "", $0); print; exit }' Cargo.lock)
if [[ -z $version ]]; then
  echo "build-wasm: no wasm-bindgen crate in Cargo.lock (is bindings/wasm a workspace member?)" >&2
  exit 1
fi

# --- tools
if ! rustup target list --installed 2>/dev/null | grep -qx "$target"; then
  echo "build-wasm: adding the Rust target $target" >&2
  rustup target add "$target"
fi
bindgen_version() { wasm-bindgen --version 2>/dev/null | awk '{print $2}'; }
if [[ $(bindgen_version) != "$version" ]]; then
  echo "build-wasm: installing wasm-bindgen-cli $version (found: $(bindgen_version || true))" >&2
  # With the crate's own lock file when the registry still serves every version it names; 0.2.130's names
  # webpki-roots 1.0.11, which crates.io no longer serves, and then a fresh resolution of the same version is
  # the one way to get it.
  cargo install wasm-bindgen-cli --version "$version" --locked ||
    cargo install wasm-bindgen-cli --version "$version"
fi
if [[ $(bindgen_version) != "$version" ]]; then
  echo "build-wasm: wasm-bindgen on PATH is $(bindgen_version || echo missing), not $version (is ~/.cargo/bin on PATH?)" >&2
  exit 1
fi
((setup_only)) && exit 0

# --- the module: optimised for speed (opt-level 3, wasm-opt -O3; BENCHMARKS.md "WebAssembly" has the size and
# speed of the other levels), one codegen unit with LTO, no debug info (the workspace's release profile keeps
# line tables for native profiling).
rust_opt=3
WASM_OPT_LEVEL=-O3
CARGO_PROFILE_RELEASE_OPT_LEVEL=$rust_opt CARGO_PROFILE_RELEASE_LTO=fat CARGO_PROFILE_RELEASE_CODEGEN_UNITS=1 \
  CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=debuginfo CARGO_PROFILE_RELEASE_PANIC=abort \
  cargo build --locked --release --lib -p tonroute-wasm --target "$target" --target-dir "$target_dir"
module="$target_dir/$target/release/tonroute_wasm.wasm"

# Up to date when the module, the JavaScript, the types and this script are those of the last build.
stamp=$(cat "$module" bindings/wasm/js/* "$0" | sha256sum | cut -d' ' -f1)
if [[ -f $out/.stamp && $(cat "$out/.stamp") == "$stamp" ]]; then
  echo "build-wasm: $out is up to date ($((SECONDS - started)) s)" >&2
  exit 0
fi

# --- the package, assembled beside $out and moved into place whole (a reader sees the old one or the new one)
staging="$out.tmp.$$"
rm -rf "$staging"
mkdir -p "$staging"
trap 'rm -rf "$staging"' EXIT
# wasm-opt runs on rustc's module, before wasm-bindgen: Debian's binaryen (108) writes a wrong index into the
# export of a second table, the `externref` table wasm-bindgen adds (the module then fails at instantiation);
# the module rustc writes has one table, and wasm-bindgen reads wasm-opt's output as it reads rustc's.
input=$module
if command -v wasm-opt >/dev/null 2>&1; then
  # The features rustc enables by default for this target: wasm-opt must accept them, and adds none.
  wasm-opt "$WASM_OPT_LEVEL" --enable-bulk-memory --enable-sign-ext --enable-mutable-globals \
    --enable-nontrapping-float-to-int --enable-multivalue --enable-reference-types \
    "$module" -o "$staging/optimised.wasm"
  input=$staging/optimised.wasm
else
  echo "build-wasm: wasm-opt not found (Debian package binaryen): the module is not shrunk" >&2
fi
# `--target web`: one ES module with an explicit init, which Node (node.js: initSync from the file), browsers
# and bundlers (tonroute.js: init() fetches the .wasm beside it) all load.
wasm-bindgen "$input" --out-dir "$staging" --out-name tonroute_wasm --target web --no-typescript \
  --remove-name-section --remove-producers-section
rm -f "$staging/optimised.wasm"
cp bindings/wasm/js/tonroute.js bindings/wasm/js/node.js bindings/wasm/js/index.d.ts bindings/wasm/js/package.json \
  bindings/wasm/js/README.md "$staging/"
echo "$stamp" >"$staging/.stamp"
rm -rf "$out"
mv "$staging" "$out"
trap - EXIT

raw=$(stat -c %s "$out/tonroute_wasm_bg.wasm")
gz=$(gzip -9 -c "$out/tonroute_wasm_bg.wasm" | wc -c)
echo "build-wasm: $out: tonroute_wasm_bg.wasm $raw bytes ($((raw / 1024)) KiB), gzip -9 $gz bytes ($((gz / 1024)) KiB); $((SECONDS - started)) s" >&2
