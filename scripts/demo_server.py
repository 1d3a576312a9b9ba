"""`mobilectl serve --demo` for the bench scripts: on free ports, with an adb server of its own,
waited for on /health, stopped with SIGTERM (killed if it does not stop) and its adb server
killed after it. Standard library only.

    with DemoServer(BIN, devices=2) as s:
        urllib.request.urlopen(s.url + "/api/v1/device/list")
"""

import itertools
import os
import signal
import socket
import subprocess
import time
import urllib.request


_next = itertools.count()


def _ephemeral_floor():
    """The lowest port the kernel hands out by itself (32768 when it cannot be read)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port():
    """A TCP port free on 127.0.0.1 for a server to listen on, from below the kernel's
    ephemeral range: one that `bind(0)` or an outgoing connection could take after it is
    released would race the server that is to bind it. Each call takes the next port after a
    start of this process's own, skipping ports in use (as the Rust tests' `free_port`)."""
    floor = 10000
    span = max(_ephemeral_floor() - floor, 1000)
    start = os.getpid() * 7919 % span
    for _ in range(span):
        port = floor + (start + next(_next)) % span
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DemoServer:
    """A demo server of `devices` virtual phones; `url`, `port`, `adb` (its adb server's port)
    and `p` (the process) once started. `log`: a file for its output (default: none);
    `preexec_fn`: run in the child before the server starts (resource limits)."""

    def __init__(self, bin, devices=1, log=None, preexec_fn=None, start_s=90):
        self.bin, self.devices, self.log = bin, devices, log
        self.preexec_fn, self.start_s = preexec_fn, start_s

    def start(self):
        self.port, self.adb = free_port(), free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        out = open(self.log, "w") if self.log else subprocess.DEVNULL
        self.p = subprocess.Popen(
            [self.bin, "serve", "--demo", "--demo-devices", str(self.devices),
             "--addr", f"127.0.0.1:{self.port}", "--adb-server-port", str(self.adb)],
            stdout=out, stderr=subprocess.STDOUT if self.log else subprocess.DEVNULL,
            preexec_fn=self.preexec_fn)
        deadline = time.monotonic() + self.start_s
        while time.monotonic() < deadline:
            if self.p.poll() is not None:
                raise SystemExit(f"the demo server exited ({self.p.returncode})")
            try:
                urllib.request.urlopen(f"{self.url}/health", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise SystemExit("the demo server did not start")

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        subprocess.run(["adb", "-P", str(self.adb), "kill-server"], capture_output=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *_):
        self.stop()
