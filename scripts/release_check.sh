#!/usr/bin/env bash
# What a user gets from `cargo install --locked`, checked as they would get it: this checkout's
# HEAD as a clean clone (uncommitted files cannot help), installed into a temporary root; the
# installed binary answers `--version`, and `serve --demo` answers `GET /health` and serves the
# demo device's screen. Prints the installed binary's size. CI (.ci/run) runs it after
# scripts/test.sh; it needs what that installs (adb, mksh, python3, curl).
#
# The clone is kept at target/release-check/clone and reset to HEAD on each run (checkout -f,
# clean -ffdx: the files of HEAD and nothing else), and the build goes to
# target/release-check/target: a rerun rebuilds only what changed. (A clone at a new path each
# time would rebuild the workspace's crates every run, and keep each build's copy.)
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD

# Each phase says when it starts, in seconds since the script did (as scripts/test.sh does).
phase() { echo "== $* (at ${SECONDS} s)"; }
fail() {
  echo "release check: $*" >&2
  exit 1
}

base="$checkout/target/release-check"
clone="$base/clone"
work=$(mktemp -d "${TMPDIR:-/tmp}/mobilectl-release-check.XXXXXX")
server_pid=""
adb_port=""
# Stops the server with SIGTERM (it stops its demo device and finishes) and waits at most
# $1 seconds for it; false if it is still running then.
stop_server() {
  kill -TERM "$server_pid" 2>/dev/null || true
  local deadline=$((SECONDS + $1))
  while kill -0 "$server_pid" 2>/dev/null; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}
cleanup() {
  if [ -n "$server_pid" ] && ! stop_server 10; then
    kill -KILL "$server_pid" 2>/dev/null || true
  fi
  if [ -n "$adb_port" ]; then
    adb -P "$adb_port" kill-server >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

head=$(git rev-parse HEAD)
phase "a clean clone of HEAD ($(git rev-parse --short HEAD)) in $clone"
if [ -n "$(git status --porcelain --untracked-files=normal)" ]; then
  echo "(this checkout has uncommitted changes: they are not in the clone)"
fi
mkdir -p "$base"
if [ -d "$clone/.git" ] && git -C "$clone" fetch -q "$checkout" HEAD; then
  git -C "$clone" checkout -q -f --detach FETCH_HEAD
  git -C "$clone" clean -q -ffdx
else
  rm -rf "$clone"
  git clone -q "$checkout" "$clone"
fi
[ "$(git -C "$clone" rev-parse HEAD)" = "$head" ] || fail "the clone is not at HEAD ($head)"
[ -z "$(git -C "$clone" status --porcelain --ignored)" ] || fail "the clone is not clean"

phase "cargo install --locked --path <clone> --root <temporary root>"
CARGO_TARGET_DIR="$base/target" cargo install --locked --quiet --path "$clone" --root "$work/root"
bin="$work/root/bin/mobilectl"
[ -x "$bin" ] || fail "cargo install left no $bin"
bytes=$(wc -c <"$bin")
echo "installed binary: $bytes bytes ($(awk -v b="$bytes" 'BEGIN { printf "%.1f MiB", b / 1048576 }'))"

phase "mobilectl --version"
version=$("$bin" --version)
echo "$version"
want="mobilectl $(sed -n 's/^version = "\(.*\)"/\1/p' "$clone/Cargo.toml" | head -n 1)"
[ "$version" = "$want" ] || fail "--version printed \`$version\`, not \`$want\`"

phase "mobilectl serve --demo: GET /health"
# Its own adb server on a free port (the user's, if any, is left alone), and its own cache.
adb_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])') ||
  fail "python3 (to pick a free port for the adb server) did not run"
log="$work/serve.log"
# Created here: the redirection below happens in the forked child, which may not have run
# yet when the loop first reads the log.
: >"$log"
MOBILECTL_CACHE_DIR="$work/cache" "$bin" serve --demo --addr 127.0.0.1:0 \
  --adb-server-port "$adb_port" >"$log" 2>&1 &
server_pid=$!
# Ready when it prints the address it listens on (after the demo device is up); polled, for
# at most 60 s.
url=""
deadline=$((SECONDS + 60))
while [ -z "$url" ]; do
  url=$(sed -n 's|^mobilectl listening on \(http://[^ ]*\).*|\1|p' "$log")
  [ -n "$url" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    cat "$log"
    fail "serve --demo exited before listening"
  fi
  if ((SECONDS >= deadline)); then
    cat "$log"
    fail "serve --demo did not listen within 60 s"
  fi
  sleep 0.2
done
echo "listening on $url"
health=$(curl -fsS --max-time 10 "$url/health") || {
  cat "$log"
  fail "GET /health failed"
}
echo "GET /health: $health"
case "$health" in
  *'"status":"ok"'*) ;;
  *) fail "GET /health did not answer ok" ;;
esac
ui=$(curl -fsS --max-time 30 "$url/api/v1/device/ui") || {
  cat "$log"
  fail "GET /api/v1/device/ui failed"
}
case "$ui" in
  *'LOG IN'*) echo "GET /api/v1/device/ui: the demo app's login screen" ;;
  *) fail "the demo device's screen is not the demo app's: $ui" ;;
esac

phase "stop the server (SIGTERM)"
stop_server 20 || {
  cat "$log"
  fail "serve --demo did not stop within 20 s of SIGTERM"
}
rc=0
wait "$server_pid" || rc=$?
server_pid=""
[ "$rc" = 0 ] || {
  cat "$log"
  fail "serve --demo exited with $rc on SIGTERM"
}
phase "done"
