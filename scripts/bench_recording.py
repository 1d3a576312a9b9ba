#!/usr/bin/env python3
"""What a screen recording costs (a bench script, not a test; issue 27).

`serve --demo` starts a virtual Android phone behind the real adb; its `screenrecord` encodes
what it shows (1080x2400) with the host's ffmpeg, as a phone's encoder would on the phone.

Reported:
- the latency of a snapshot (`GET /api/v1/device/ui`, a fresh dump each time) and of a tap
  (`POST /api/v1/device/ui/tap` at a point) without and with a recording running: medians
  and p90 of N each, interleaved in rounds so drift hits both alike;
- bytes per minute at the defaults (no size, no bit rate), from a 60 s recording with the
  login flow replayed every 10 s (an idle screen costs less);
- time from `recording_stop` to its answer (the file finalised, pulled, joined, read back),
  over several recordings of 5 s.

Note: on this machine the device's encoder runs on the same 2 cores as the server, which a
phone's hardware encoder does not; the "with" latencies are an upper bound.

Usage: cargo build --release && python3 scripts/bench_recording.py [BIN] [N]
"""

import json
import os
import statistics
import sys
import time
import urllib.request

from demo_server import DemoServer



BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/mobilectl")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 60


class Server(DemoServer):
    def __init__(self):
        super().__init__(BIN)

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=120) as r:
            return json.loads(r.read())

    def timed(self, method, path, body=None):
        t = time.perf_counter()
        self.call(method, path, body)
        return (time.perf_counter() - t) * 1000


def stats(xs):
    xs = sorted(xs)
    return f"median {statistics.median(xs):6.1f} ms · p90 {xs[int(len(xs) * 0.9)]:6.1f} ms"


def login(s):
    s.call("POST", "/api/v1/device/app/launch", {"bundle_id": "com.mobilectl.demo", "relaunch": True})
    s.call("POST", "/api/v1/device/ui/type", {"selector": {"id": "username"}, "text": "alice"})
    s.call("POST", "/api/v1/device/ui/tap", {"selector": {"text": "LOG IN"}})
    s.call("POST", "/api/v1/device/ui/tap", {"selector": {"text": "Allow"}})


def main():
    with Server() as s:
        s.call("GET", "/api/v1/device/ui")
        # A point on the login screen with no control: the tap changes nothing.
        tap = {"x": 540, "y": 2000}
        base = {"snapshot": [], "tap": []}
        rec = {"snapshot": [], "tap": []}
        for rnd in range(4):
            for target, recording in ((base, False), (rec, True)):
                if recording:
                    s.call("POST", "/api/v1/device/recording/start", {})
                for _ in range(N // 4):
                    target["snapshot"].append(s.timed("GET", "/api/v1/device/ui"))
                    target["tap"].append(s.timed("POST", "/api/v1/device/ui/tap", tap))
                if recording:
                    s.call("POST", "/api/v1/device/recording/stop", {})
        for what in ("snapshot", "tap"):
            print(f"{what:8} without a recording: {stats(base[what])}")
            print(f"{what:8} while recording:     {stats(rec[what])}")
            extra = statistics.median(rec[what]) - statistics.median(base[what])
            print(f"{what:8} extra (median):      {extra:+6.1f} ms")

        s.call("POST", "/api/v1/device/recording/start", {})
        t0 = time.time()
        while time.time() - t0 < 60:
            login(s)
            time.sleep(max(0.0, 10 - (time.time() - t0) % 10))
        r = s.call("POST", "/api/v1/device/recording/stop", {})
        per_min = r["bytes"] / r["duration_s"] * 60
        print(f"defaults: {r['width']}x{r['height']}, {r['duration_s']:.1f} s, "
              f"{r['bytes'] / 1e6:.2f} MB → {per_min / 1e6:.2f} MB per minute")

        stops = []
        for _ in range(5):
            s.call("POST", "/api/v1/device/recording/start", {})
            time.sleep(5)
            stops.append(s.timed("POST", "/api/v1/device/recording/stop", {}))
        print(f"stop to finalised answer (5 s recordings): {stats(stops)}")


if __name__ == "__main__":
    main()
