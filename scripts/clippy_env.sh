# Sourced by scripts/test.sh: clippy as the compiler of the workspace's own crates while the
# tests' build compiles them — the wrapper `cargo clippy` itself sets, with its lints denied as
# `cargo clippy -- -D warnings` denies them (`CLIPPY_ARGS` is how cargo-clippy hands its
# arguments to clippy-driver; tests/packaging.rs proves a build under this environment fails on
# a clippy lint) — so the dependencies are compiled once, for the tests, instead of once checked
# for clippy and once more built. Every cargo command that reuses that build needs this same
# environment: the wrapper and its arguments are part of what cargo fingerprints, and a change
# rebuilds the workspace's crates (not the dependencies).
# Without clippy-driver the build would not lint at all, silently: say so and stop instead.
if ! RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"; then
  echo "clippy-driver not found: install clippy (rustup component add clippy)" >&2
  return 1
fi
CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
