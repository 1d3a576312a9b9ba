#!/usr/bin/env python3
"""mobilectl behind the real Selenium Grid 4 (a bench script, not a test; issue 26).

One hub and one relay node (configured by `mobilectl grid node-config`) in front of
`serve --demo --demo-devices 2`. Reported:
- latency the hub and the node add per request: a snapshot (`GET …/api/v1/device/ui`) and a
  tap by point, through the hub under a session vs straight to mobilectl in the same session,
  alternating, medians of N pairs;
- sessions created per second through the hub (create + delete, one after another);
- the time to hand a released device to a queued request: with both devices leased, a third
  `POST /session` waits in Grid's queue; from the `DELETE` of one session until the waiting
  request is answered.

Usage: cargo build --release && python3 scripts/bench_grid.py [BIN] [N]
(needs `java` and target/grid/selenium-server-*.jar: scripts/test.sh fetches it).
"""

import glob
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

from demo_server import free_port



BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/mobilectl")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100
JAR = sorted(glob.glob("target/grid/selenium-server-*.jar"))[-1]


def call(url, method="GET", body=None, headers=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("content-type", "application/json; charset=utf-8")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def wait_for(check, limit=120):
    t = time.monotonic()
    while time.monotonic() - t < limit:
        try:
            if check():
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("timed out waiting for the farm")


def main():
    logs = tempfile.mkdtemp()
    hub_port, pub, sub, node_port, port, adb = (free_port() for _ in range(6))
    hub = f"http://127.0.0.1:{hub_port}"
    server = f"http://127.0.0.1:{port}"
    procs = []

    def start(args, log):
        p = subprocess.Popen(args, stdout=open(os.path.join(logs, log), "w"),
                             stderr=subprocess.STDOUT)
        procs.append(p)
        return p

    try:
        start(["java", "-jar", JAR, "hub", "--host", "127.0.0.1", "--port", str(hub_port),
               "--publish-events", f"tcp://127.0.0.1:{pub}",
               "--subscribe-events", f"tcp://127.0.0.1:{sub}"], "hub.log")
        start([BIN, "serve", "--demo", "--demo-devices", "2", "--addr", f"127.0.0.1:{port}",
               "--adb-server-port", str(adb)], "server.log")
        wait_for(lambda: call(f"{server}/health")[0] == 200)
        toml = subprocess.run(
            [BIN, "--url", server, "--no-autostart", "grid", "node-config", "--hub", hub,
             "--node-port", str(node_port), "--publish-events", f"tcp://127.0.0.1:{pub}",
             "--subscribe-events", f"tcp://127.0.0.1:{sub}"],
            capture_output=True, text=True, check=True).stdout
        path = os.path.join(logs, "node.toml")
        open(path, "w").write(toml)
        start(["java", "-jar", JAR, "node", "--config", path, "--host", "127.0.0.1"], "node.log")
        wait_for(lambda: sum(len(n["slots"]) for n in
                             call(f"{hub}/status")[1]["value"]["nodes"]) == 2)

        caps = {"capabilities": {"alwaysMatch": {"platformName": "android"}}}
        status, made = call(f"{hub}/session", "POST", caps)
        assert status == 200, made
        sid = made["value"]["sessionId"]
        through, direct = {"snapshot": [], "tap": []}, {"snapshot": [], "tap": []}
        header = {"mobilectl-session": sid}

        def timed(url, method="GET", body=None, headers=None):
            t = time.perf_counter()
            status, answer = call(url, method, body, headers)
            assert status == 200, answer
            return (time.perf_counter() - t) * 1000

        for i in range(N):
            pairs = [
                ("snapshot", lambda: timed(f"{hub}/session/{sid}/api/v1/device/ui"),
                 lambda: timed(f"{server}/api/v1/device/ui", headers=header)),
                ("tap", lambda: timed(f"{hub}/session/{sid}/api/v1/device/ui/tap", "POST",
                                      {"x": 300, "y": 400}),
                 lambda: timed(f"{server}/api/v1/device/ui/tap", "POST", {"x": 300, "y": 400},
                               header)),
            ]
            for what, hub_call, direct_call in pairs:
                first, second = (hub_call, direct_call) if i % 2 == 0 else (direct_call, hub_call)
                a, b = first(), second()
                (through if i % 2 == 0 else direct)[what].append(a)
                (direct if i % 2 == 0 else through)[what].append(b)
        call(f"{hub}/session/{sid}", "DELETE")

        # Sessions per second: create and delete, one after another.
        t = time.perf_counter()
        made_n = 0
        while time.perf_counter() - t < 10:
            status, made = call(f"{hub}/session", "POST", caps)
            assert status == 200, made
            call(f"{hub}/session/{made['value']['sessionId']}", "DELETE")
            made_n += 1
        rate = made_n / (time.perf_counter() - t)

        # Handover to a queued request.
        handovers = []
        for _ in range(5):
            held = [call(f"{hub}/session", "POST", caps)[1]["value"]["sessionId"]
                    for _ in range(2)]
            answered = {}

            def queued():
                answered["answer"] = call(f"{hub}/session", "POST", caps)
                answered["at"] = time.perf_counter()

            th = threading.Thread(target=queued)
            th.start()
            wait_for(lambda: len(call(f"{hub}/se/grid/newsessionqueue/queue")[1]["value"]) == 1, 30)
            released = time.perf_counter()
            call(f"{hub}/session/{held[0]}", "DELETE")
            th.join(60)
            handovers.append((answered["at"] - released) * 1000)
            new = answered["answer"][1]["value"]["sessionId"]
            for s in (held[1], new):
                call(f"{hub}/session/{s}", "DELETE")

        print(f"mobilectl behind Selenium Grid 4 ({os.path.basename(JAR)}), {N} alternating pairs")
        for what in ("snapshot", "tap"):
            h, d = statistics.median(through[what]), statistics.median(direct[what])
            print(f"  {what}: through hub+node {h:.2f} ms, direct {d:.2f} ms, added {h - d:.2f} ms")
        print(f"  sessions created (and deleted) per second through the hub: {rate:.1f}")
        print(f"  released device → queued request answered: median "
              f"{statistics.median(handovers):.0f} ms, max {max(handovers):.0f} ms (5 runs)")
    finally:
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
        subprocess.run(["adb", "-P", str(adb), "kill-server"], capture_output=True)


if __name__ == "__main__":
    main()
