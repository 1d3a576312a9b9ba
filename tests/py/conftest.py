"""Fixtures of the Python tests: the built `mobilectl` binary, and a `mobilectl serve --demo`
(a virtual Android phone behind a private adb server) started per test and stopped after it.

scripts/test.sh runs these with the binary of its `cargo test` build (MOBILECTL_BIN).
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


sys.path.insert(0, str(ROOT / "scripts"))
from demo_server import free_port  # noqa: E402  (ports the kernel does not hand out itself)


def wait_for_health(url, deadline):
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/health", timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            time.sleep(0.1)
    return False


@pytest.fixture(scope="session")
def mobilectl_bin():
    path = Path(os.environ.get("MOBILECTL_BIN", ROOT / "target" / "debug" / "mobilectl"))
    assert path.exists(), f"{path} is missing: build it with `cargo build` first"
    return path


@pytest.fixture(scope="session")
def root():
    return ROOT


@contextlib.contextmanager
def running_demo(mobilectl_bin, tmp_path, *extra_args):
    """A `mobilectl serve --demo` with `extra_args`, in `tmp_path`: its base URL while it runs."""
    port, adb_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBILECTL_")}
    env["MOBILECTL_STATE_DIR"] = str(tmp_path / "state")
    env["MOBILECTL_CACHE_DIR"] = str(tmp_path / "cache")
    log = open(tmp_path / "server.log", "wb")
    proc = subprocess.Popen(
        [str(mobilectl_bin), "serve", "--demo", "--addr", f"127.0.0.1:{port}",
         "--adb-server-port", str(adb_port), *extra_args],
        stdout=log, stderr=subprocess.STDOUT, env=env,
        # The files root (push, pull, media) is the working directory: a scratch one.
        cwd=tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        up = wait_for_health(url, time.monotonic() + 60)
        assert up, (tmp_path / "server.log").read_text()[-2000:]
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        subprocess.run(["adb", "-P", str(adb_port), "kill-server"], capture_output=True)


@pytest.fixture
def demo_server(mobilectl_bin, tmp_path):
    with running_demo(mobilectl_bin, tmp_path) as url:
        yield url
