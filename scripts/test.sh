#!/usr/bin/env bash
# The project's test command (README): installs what the tests need on a fresh Debian machine,
# then runs the lint steps and every test. CI (.ci/run) calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# The real adb client/server (Android tests drive a virtual device through it) and mksh (the
# shell Android uses; the virtual device runs commands in it); curl, a real client of the
# recording proxy's tests.
missing=()
command -v adb >/dev/null 2>&1 || missing+=(adb)
command -v mksh >/dev/null 2>&1 || missing+=(mksh)
command -v curl >/dev/null 2>&1 || missing+=(curl)
if ((${#missing[@]})); then
  echo "== installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
if command -v rustup >/dev/null 2>&1; then
  rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
  rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
fi

echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy"
cargo clippy --all-targets --locked -- -D warnings
echo "== cargo test"
cargo test --all-targets --locked
