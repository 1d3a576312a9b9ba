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
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request



def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/mobilectl")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 60


class Server:
    def __enter__(self):
        self.port, self.adb = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.p = subprocess.Popen(
            [BIN, "serve", "--demo", "--addr", f"127.0.0.1:{self.port}",
             "--adb-server-port", str(self.adb)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(900):
            try:
                urllib.request.urlopen(f"{self.url}/health", timeout=1)
                return self
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the demo server did not start")

    def __exit__(self, *_):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(30)
        subprocess.run(["adb", "-P", str(self.adb), "kill-server"], capture_output=True)

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
