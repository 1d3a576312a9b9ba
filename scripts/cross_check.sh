#!/usr/bin/env bash
# Cross checks: clippy (warnings are errors) of the whole workspace for macOS and Windows, so a
# Unix-only or Linux-only call that is not guarded fails here, on Linux, before a user's build
# does. They prove the product compiles for those hosts, not that it runs there.
#
#   aarch64-apple-darwin  all features, every target
#   x86_64-pc-windows-gnu all features, every target (MSVC, what Windows users build with,
#                         needs Microsoft's SDK; the GNU target checks the same Rust code)
#
#   aarch64-apple-darwin  without default features: the product without the virtual device
#                         (`cargo install --no-default-features`; the only feature, `demo`, is
#                         the virtual device, behind `cfg(all(feature = "demo", unix))`, so a
#                         Unix target is where a missing guard shows), its library, binaries and
#                         one bench: the bench brings in the dev-dependencies, so the
#                         dependencies keep the features the check above gave them and are not
#                         checked again (scripts/lint.sh's check on the host does the same)
#
# The test command lints the host's libraries, binaries and tests while it builds them
# (scripts/clippy_env.sh), not its benches and examples, nor the product without default
# features: those are linted here, for macOS, on dependencies checked for macOS anyway.
#
# Installs what it needs on a fresh Debian machine: the rustup targets, and zig (the C cross
# compiler of the C dependencies) with cargo-zigbuild, pinned in scripts/cross/requirements.txt,
# in target/crossenv (scripts/pyenv.sh). Builds share the host's target folder: what runs on
# the host while compiling (proc macros, build scripts) is built once for both (session 16,
# from cold after the host build: 255 s in a folder of their own, 207 s shared;
# docs/measurements.md); each target's own artifacts go to target/<triple>/, so the host build
# is not rebuilt after them.
# `scripts/cross_check.sh install` only installs (downloads: the test command runs it in the
# background while it builds).
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(aarch64-apple-darwin x86_64-pc-windows-gnu)
ENV=target/crossenv
REQ=scripts/cross/requirements.txt

scripts/pyenv.sh "$ENV" "$REQ"
installed=$(rustup target list --installed)
for t in "${TARGETS[@]}"; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done

[ "${1:-}" = install ] && exit 0

export PATH="$PWD/$ENV/bin:$PATH"
for t in "${TARGETS[@]}"; do
  echo "-- $t: all features, every target (at ${SECONDS} s)"
  cargo-zigbuild clippy --target "$t" --workspace --all-targets --all-features --locked \
    -- -D warnings
  if [ "$t" = aarch64-apple-darwin ]; then
    echo "-- $t: without default features (at ${SECONDS} s)"
    cargo-zigbuild clippy --target "$t" --no-default-features --lib --bins --bench ui_pipeline \
      --locked -- -D warnings
  fi
done
echo "-- cross checks passed (at ${SECONDS} s)"
