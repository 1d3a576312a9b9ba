#!/usr/bin/env python3
"""Load figures of issue 13 (a bench script, not a test): memory under load, and the
open-file storm.

1. load: `mobilectl serve --demo`, 64 clients for 30 s (snapshot JSON, screenshot PNG, a scaled
   JPEG, a harmless tap), sampling the server's resident size every 100 ms: peak RSS, then the
   RSS after 30 s idle. Answers are counted by status.
2. storm: the server with RLIMIT_NOFILE 1024, 256 concurrent screenshots: answers by status,
   then whether GET /ui still works.

Usage: cargo build --release && python3 scripts/bench_load.py [path/to/mobilectl]
(LOAD_WITH_LOGS=1: the device's log is followed from before the load, so its ring fills.)
(stdlib only; needs adb and mksh like the demo).
"""

import collections
import json
import os
import resource
import sys
import threading
import time
import urllib.error
import urllib.request

from demo_server import DemoServer

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/mobilectl"


def start(nofile=None):
    """The demo server, with RLIMIT_NOFILE `nofile` when given."""
    def limit():
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    return DemoServer(BIN, preexec_fn=limit, start_s=60).start()


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def request(url, method="GET", body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        req.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        e.read()
        return e.code
    except Exception:
        return 0


def load():
    server = start()
    p, url = server.p, server.url
    calls = [
        ("GET", "/api/v1/device/ui", None),
        ("GET", "/api/v1/device/screenshot", None),
        ("GET", "/api/v1/device/screenshot?format=jpeg&scale=0.5", None),
        ("POST", "/api/v1/device/ui/tap", {"x": 540, "y": 570}),
    ]
    statuses = collections.Counter()
    lock = threading.Lock()
    if os.environ.get("LOAD_WITH_LOGS") == "1":
        # The device log followed from the start (its ring then fills during the load).
        urllib.request.urlopen(url + "/api/v1/logs?limit=1", timeout=30).read()
    stop_at = time.time() + 30
    peak = [rss_mib(p.pid)]
    start_rss = peak[0]

    def client(i):
        n = i
        while time.time() < stop_at:
            m, path, body = calls[n % len(calls)]
            s = request(url + path, m, body)
            with lock:
                statuses[s] += 1
            n += 1

    threads = [threading.Thread(target=client, args=(i,)) for i in range(64)]
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        peak[0] = max(peak[0], rss_mib(p.pid))
        time.sleep(0.1)
    time.sleep(30)
    settled = rss_mib(p.pid)
    # What the device's log ring holds by then (the load makes the demo app log), a share of
    # the settled size that stays until the ring's own limits evict it.
    try:
        with urllib.request.urlopen(url + "/api/v1/logs?limit=1", timeout=10) as r:
            source = json.loads(r.read()).get("source", {})
    except (OSError, ValueError):
        source = {}
    server.stop()
    print(f"load: 64 clients x 30 s: {dict(statuses)}")
    print(f"load: RSS start {start_rss:.1f} MiB, peak {peak[0]:.1f} MiB, after 30 s idle {settled:.1f} MiB")
    print(f"load: the log ring then holds {source.get('entries', '?')} entries, "
          f"{source.get('bytes', 0) / 1048576:.1f} MiB counted")


def storm():
    server = start(nofile=1024)
    url = server.url
    statuses = collections.Counter()
    lock = threading.Lock()

    def one():
        s = request(url + "/api/v1/device/screenshot")
        with lock:
            statuses[s] += 1

    threads = [threading.Thread(target=one) for _ in range(256)]
    t0 = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took = time.time() - t0
    after = request(url + "/api/v1/device/ui?format=text")
    server.stop()
    print(f"storm: 256 screenshots, nofile 1024: {dict(statuses)} in {took:.1f} s; GET /ui after: {after}")


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    storm()
    load()
