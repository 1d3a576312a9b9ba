# Sourced by scripts/lint.sh and scripts/test.sh: clippy as the compiler of the workspace's own
# crates while they are built (the wrapper `cargo clippy` itself sets, with its lints denied as
# `cargo clippy -- -D warnings` denies them), so the dependencies are compiled once, for the
# build, instead of once checked for clippy and once more built for the tests. Every cargo
# command of a run that reuses that build needs this same environment: the wrapper and its
# arguments are part of what cargo fingerprints, and a change rebuilds the workspace's crates.
RUSTC_WORKSPACE_WRAPPER="$(command -v clippy-driver)"
CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
export RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
