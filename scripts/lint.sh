#!/usr/bin/env bash
# The project's lint steps, one function each, for the host: Dockerfile.lint runs them in a
# pinned toolchain, and scripts/test.sh runs `fmt` and the same lints as `clippy` and
# `no_default_features` arranged to compile less (clippy while it builds the tests,
# scripts/clippy_env.sh; benches, examples and the product without default features for macOS
# in scripts/cross_check.sh). `scripts/lint.sh` runs every step in order;
# `scripts/lint.sh STEP…` runs only those named (e.g. `scripts/lint.sh clippy`).
# A new step is a function `lint_<name>` added to STEPS below.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step says when it starts, in seconds since the script did (as scripts/test.sh does);
# scripts/test.sh passes its own clock in PHASE_START_S, so the times continue its own.
phase() { echo "== $* (at $((${PHASE_START_S:-0} + SECONDS)) s)"; }

lint_fmt() {
  phase "cargo fmt --check"
  cargo fmt --all -- --check
}

lint_clippy() {
  phase "cargo clippy (every target of every crate, benches and examples included; all features)"
  cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
}

lint_no_default_features() {
  phase "cargo check --no-default-features (the product without the virtual device)"
  # One bench beside the library and binaries: a bench brings in the dev-dependencies, so the
  # dependencies get the features clippy's run gave them (tokio's `test-util` among them) and
  # their checked artifacts are used again; without it 43 crates are checked again under other
  # features: 58 CPU-s after clippy instead of 24 (session 22).
  cargo check --no-default-features --lib --bins --bench ui_pipeline --locked
}

STEPS=(fmt clippy no_default_features)

if (($#)); then
  for step in "$@"; do
    if ! declare -F "lint_$step" >/dev/null; then
      echo "no lint step \`$step\` (the steps: ${STEPS[*]})" >&2
      exit 2
    fi
  done
  STEPS=("$@")
fi
for step in "${STEPS[@]}"; do
  "lint_$step"
done
