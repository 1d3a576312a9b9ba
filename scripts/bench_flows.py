#!/usr/bin/env python3
"""The Maestro runner's own cost (a bench script, not a test; issue 28).

`serve --demo` starts a virtual Android phone behind the real adb. The demo login flow (as
Maestro YAML: relaunch, wait for the screen to settle, tap the user field by id regex, type,
tap LOG IN, wait for the permission dialog, assert LOG IN gone) is run N times through
`POST /api/v1/flows/run`. Its answer's `Server-Timing` header gives the wall time (`total`)
and the time spent in device commands (`device`: every adb round trip of every step, the
steps' own operations included); the runner's overhead is the rest, as a share of the wall
time. Then steps per second on a long flow (80 assertions, each a screen read and a match).

Usage: cargo build --release && python3 scripts/bench_flows.py [BIN] [N]
"""

import json
import os
import statistics
import sys
import urllib.request

from demo_server import DemoServer



BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/mobilectl")
N = int(sys.argv[2]) if len(sys.argv) > 2 else 20

LOGIN = """appId: com.mobilectl.demo
name: demo login
---
- launchApp:
    stopApp: true
- waitForAnimationToEnd
- tapOn:
    id: "user.*"
- inputText: alice
- tapOn: "LOG IN"
- extendedWaitUntil:
    visible: "Allow|ALLOW"
    timeout: 10000
- assertNotVisible: "LOG IN"
"""

LONG = ("- repeat:\n    times: 40\n    commands:\n      - assertVisible: \"Allow|ALLOW\"\n"
        "      - assertNotVisible: {id: \"username\"}\n")


def run(url, yaml):
    req = urllib.request.Request(f"{url}/api/v1/flows/run", method="POST",
                                 data=json.dumps({"yaml": yaml}).encode(),
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        timing = dict(part.strip().split(";dur=") for part in r.headers["server-timing"].split(","))
        answer = json.loads(r.read())
    assert answer["success"], answer
    return answer, {k: float(v) for k, v in timing.items()}


def main():
    with DemoServer(BIN) as server:
        url = server.url
        run(url, LOGIN)  # warm-up
        shares, walls = [], []
        for _ in range(N):
            _, t = run(url, LOGIN)
            walls.append(t["total"])
            shares.append((t["total"] - t.get("device", 0.0)) / t["total"] * 100)
        print(f"login flow: wall median {statistics.median(walls):.0f} ms; runner overhead "
              f"median {statistics.median(shares):.1f} % (max {max(shares):.1f} %) of {N} runs")
        answer, t = run(url, LONG)
        steps = len(answer["steps"])
        print(f"long flow: {steps} steps in {t['total']:.0f} ms: "
              f"{steps * 1000 / t['total']:.0f} steps/s")


if __name__ == "__main__":
    main()
