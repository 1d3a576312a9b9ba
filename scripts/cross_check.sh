#!/usr/bin/env bash
# Cross checks: clippy (warnings are errors) of the whole workspace for macOS and Windows, so a
# Unix-only or Linux-only call that is not guarded fails here, on Linux, before a user's build
# does. They prove the product compiles for those hosts, not that it runs there.
#
#   aarch64-apple-darwin  all features, every target; no default features, lib and bins
#   x86_64-pc-windows-gnu all features, every target (MSVC, what Windows users build with,
#                         needs Microsoft's SDK; the GNU target checks the same Rust code).
#                         Without default features it is the same code there: the only
#                         feature, `demo`, is the virtual device, which Windows never builds.
#
# Installs what it needs on a fresh Debian machine: the rustup targets, and zig (the C cross
# compiler of the C dependencies) with cargo-zigbuild, pinned in scripts/cross/requirements.txt,
# in target/crossenv. Builds go to target/cross, apart from the host build.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGETS=(aarch64-apple-darwin x86_64-pc-windows-gnu)
ENV=target/crossenv
REQ=scripts/cross/requirements.txt

if [ ! -x "$ENV/bin/cargo-zigbuild" ] || ! cmp -s "$REQ" "$ENV/requirements.txt"; then
  echo "cross tools: PyPI → $ENV"
  rm -rf "$ENV"
  python3 -m venv "$ENV"
  "$ENV/bin/pip" install -q --disable-pip-version-check -r "$REQ"
  cp "$REQ" "$ENV/requirements.txt"
fi
installed=$(rustup target list --installed)
for t in "${TARGETS[@]}"; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done

export PATH="$PWD/$ENV/bin:$PATH"
export CARGO_TARGET_DIR=target/cross
for t in "${TARGETS[@]}"; do
  echo "-- $t: all features, every target (at ${SECONDS} s)"
  cargo-zigbuild clippy --target "$t" --workspace --all-targets --all-features --locked \
    -- -D warnings
  [ "$t" = x86_64-pc-windows-gnu ] && continue
  echo "-- $t: no default features (at ${SECONDS} s)"
  cargo-zigbuild clippy --target "$t" --workspace --no-default-features --lib --bins --locked \
    -- -D warnings
done
echo "-- cross checks passed (at ${SECONDS} s)"
