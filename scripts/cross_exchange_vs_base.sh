#!/usr/bin/env bash
# Routable share, output and quote latency of the router before the cross-exchange work and now, measured in
# one process: builds `examples/cross_exchange.rs` (scripts/vs_base/main.rs) against both this tree and the
# library at commit $BASE (default ac52457, main before #18), linked as `tonroute_base`, and runs it.
#   scripts/cross_exchange_vs_base.sh [--pairs 2000] [--seed 7] [--snapshot data/snapshot.json]
set -euo pipefail
BASE=${BASE:-ac52457}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${CARGO_TARGET_DIR:-$root/target}/vs-base
rm -rf "$work/base" "$work/harness"
mkdir -p "$work/base" "$work/harness/src" "$work/harness/examples" "$work/harness/benches/common"
git -C "$root" archive "$BASE" | tar -x -C "$work/base"
# The old crate under another name, so that both link into one binary.
sed -i '0,/^name = "tonroute"$/s//name = "tonroute_base"/' "$work/base/Cargo.toml"
cp "$root/examples/cross_exchange.rs" "$work/harness/examples/"
cp "$root/benches/common/mod.rs" "$work/harness/benches/common/"
cp "$root/scripts/vs_base/main.rs" "$work/harness/src/"
# Same dependency versions as this tree.
cp "$root/Cargo.lock" "$work/harness/"
cat > "$work/harness/Cargo.toml" <<TOML
[package]
name = "tonroute-vs-base"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
tonroute = { path = "$root", default-features = false, features = ["serde"] }
tonroute_base = { path = "$work/base", default-features = false, features = ["serde"] }
# The example draws its pairs with the generators' SplitMix64.
tonroute-synth = { path = "$root/tools/synth" }

[profile.release]
debug = 1

[workspace]
TOML
cd "$root"
BASE_NAME=$(git rev-parse --short "$BASE") \
  cargo run --release --quiet --manifest-path "$work/harness/Cargo.toml" --target-dir "${CARGO_TARGET_DIR:-$root/target}" -- "$@"
