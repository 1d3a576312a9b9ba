#!/usr/bin/env bash
# Median of N (default 50) `adb -P PORT -s DEV shell true` round trips to a virtual device,
# with a private adb server. Usage: scripts/bench_vd_roundtrip.sh [N] [path/to/mobilectl]
set -euo pipefail
N=${1:-50}
BIN=${2:-target/debug/mobilectl}
ADB=${ADB:-/usr/bin/adb}
ADB_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
OUT=$(mktemp)
"$BIN" virtual-device >"$OUT" &
VD_PID=$!
cleanup() { timeout 10 "$ADB" -P "$ADB_PORT" kill-server >/dev/null 2>&1 || true; kill "$VD_PID" 2>/dev/null || true; rm -f "$OUT"; }
trap cleanup EXIT
for _ in $(seq 1 200); do [ -s "$OUT" ] && break; sleep 0.05; done
SERIAL=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["serial"])' "$OUT")
timeout 20 "$ADB" -P "$ADB_PORT" start-server >/dev/null 2>&1
timeout 20 "$ADB" -P "$ADB_PORT" connect "$SERIAL" >/dev/null
timeout 20 "$ADB" -P "$ADB_PORT" -s "$SERIAL" wait-for-device
timeout 20 "$ADB" -P "$ADB_PORT" -s "$SERIAL" shell true   # warm-up
TIMES=()
for _ in $(seq 1 "$N"); do
  t0=$(date +%s%N)
  timeout 20 "$ADB" -P "$ADB_PORT" -s "$SERIAL" shell true
  t1=$(date +%s%N)
  TIMES+=($(( (t1 - t0) / 1000 )))
done
printf '%s\n' "${TIMES[@]}" | sort -n | awk -v n="$N" '{a[NR]=$1} END {m = (n % 2) ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2; printf "median of %d round trips: %.2f ms (min %.2f, max %.2f)\n", n, m/1000, a[1]/1000, a[n]/1000}'
