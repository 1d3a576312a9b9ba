#!/usr/bin/env python3
"""Eight agents on four phones (a bench script, not a test; issue 25).

`serve --demo --demo-devices 4` starts four virtual Android phones behind the real adb. Eight
agents start side by side, each an official-MCP-SDK client of its own `mobilectl mcp
--platform android --wait-ms …` on stdio: its connection is a session, leased at its first
device call. Each runs the demo login flow 10 times (relaunch · snapshot · type the user by
ref · tap LOG IN by ref · wait for the permission dialog), then gives the device back with
`release_device`; the four that found every phone leased wait in the server's queue and get
one as soon as another agent releases it.

Reported:
- actions that landed on a device their agent did not hold (each action's answer names its
  device; must be 0);
- refs that went stale because of another agent (`STALE_REFERENCE` answers; must be 0);
- flows completed (must be 80 of 80);
- lease handover: from an agent's `release_device` answer to the moment a waiting agent's first
  call (`hide_keyboard`, which took the lease) answered: an upper bound, the call included;
- SIGKILL of a bridge holding a device: the lease ends when its session's idle TTL runs out
  (`mcp --session-ttl-s`, 60 s by default; the bridge renews it while it lives); closing a
  bridge's stdin gives it back at once (both timed).

Usage: cargo build --release && target/pyenv/bin/python scripts/bench_sessions.py [BIN]
(scripts/test.sh makes target/pyenv, with the MCP SDK).
"""

import json
import os
import signal
import statistics
import subprocess
import sys
import time
import urllib.request

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, os.path.dirname(__file__))
from demo_server import DemoServer  # noqa: E402

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/mobilectl")
AGENTS, DEVICES, FLOWS = 8, 4, 10
APP = "com.mobilectl.demo"


class Farm(DemoServer):
    def __init__(self):
        super().__init__(BIN, devices=DEVICES)

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=30) as r:
            return json.loads(r.read())


def text(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def ref_of(tree, mark):
    """The ref on the first line of the compact tree that has `mark` (`#username`, a name)."""
    line = next(l for l in tree.splitlines() if mark in l)
    return line.rsplit("[", 1)[1].split("]", 1)[0]


class Tally:
    def __init__(self):
        self.flows = 0
        self.misplaced = 0
        self.stale = 0
        self.errors = []
        self.releases = {}     # udid -> [time of each release answer]
        self.first_calls = []  # (agent, udid, time the lease-taking call answered, waited s)


async def agent(n, farm, tally, started):
    params = StdioServerParameters(
        command=BIN, args=["mcp", "--no-autostart", "--platform", "android",
                           "--wait-ms", "170000"],
        env={"MOBILECTL_URL": farm.url})
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()

            async def call(tool, args):
                res = await s.call_tool(tool, args)
                said = text(res)
                if res.is_error:
                    if said.startswith("STALE_REFERENCE"):
                        tally.stale += 1
                    raise RuntimeError(f"agent {n}: {tool}: {said}")
                return res

            t0 = time.monotonic()
            # The first device call takes the lease (waiting for a free phone): a cheap act.
            await call("hide_keyboard", {})
            got = time.monotonic()
            info = (await call("session_info", {})).structured_content
            mine = info["udid"]
            tally.first_calls.append((n, mine, got, got - t0))
            for _ in range(FLOWS):
                await call("launch_app", {"bundle_id": APP, "relaunch": True})
                tree = text(await call("snapshot", {}))
                user = ref_of(tree, "#username")
                typed = (await call("type_text", {"ref": user, "text": f"agent{n}"})).structured_content
                login = ref_of(tree, '"LOG IN"')
                tapped = (await call("tap", {"ref": login})).structured_content
                for answer in (typed, tapped):
                    if answer.get("udid") != mine:
                        tally.misplaced += 1
                waited = (await call("wait", {"selector": {"text": "Allow"},
                                              "condition": "visible",
                                              "timeout_ms": 15000})).structured_content
                if waited.get("status") == "success":
                    tally.flows += 1
            await call("release_device", {})
            tally.releases.setdefault(mine, []).append(time.monotonic())


async def run_agents(farm):
    tally = Tally()
    started = time.monotonic()

    async def one(n):
        try:
            await agent(n, farm, tally, started)
        except Exception as e:  # noqa: BLE001 (reported, not raised: the others go on)
            tally.errors.append(str(e))

    async with anyio.create_task_group() as tg:
        for n in range(AGENTS):
            tg.start_soon(one, n)
    return tally, time.monotonic() - started


def handovers(tally):
    """For each agent that waited: its lease-taking call's answer minus the release of that
    device just before it."""
    out = []
    for _, udid, got, _ in tally.first_calls:
        before = [t for t in tally.releases.get(udid, []) if t <= got]
        if before:
            out.append(got - max(before))
    return out


def kill_and_close(farm):
    """A bridge killed while holding a device (its lease lasts its session's TTL), and one
    whose stdin closes (its lease ends at once)."""
    def bridge():
        return subprocess.Popen(
            [BIN, "mcp", "--no-autostart", "--platform", "android"],
            env={**os.environ, "MOBILECTL_URL": farm.url},
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def rpc(p, i, method, params):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                  "params": params}) + "\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())

    def lease_one(p):
        rpc(p, 1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "bench", "version": "0"}})
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
        p.stdin.flush()
        rpc(p, 2, "tools/call", {"name": "hide_keyboard", "arguments": {}})

    def leases():
        return len(farm.get("/api/v1/device/list")["leases"])

    def until_leases(n, limit):
        t = time.monotonic()
        while leases() != n:
            if time.monotonic() - t > limit:
                return None
            time.sleep(0.02)
        return time.monotonic() - t

    closed = bridge()
    lease_one(closed)
    assert leases() == 1
    closed.stdin.close()
    at_once = until_leases(0, 10)
    closed.wait(10)

    killed = bridge()
    lease_one(killed)
    ttl = farm.get("/api/v1/sessions")["sessions"][0]["ttl_s"]
    killed.send_signal(signal.SIGKILL)
    killed.wait(10)
    # A bridge's session expires after `mcp --session-ttl-s` (60 s by default) unless the
    # bridge renews it: waited out.
    gone = until_leases(0, ttl + 30)
    return at_once, ttl, gone


def main():
    with Farm() as farm:
        tally, took = anyio.run(run_agents, farm)
        hand = handovers(tally)
        at_once, ttl, left = kill_and_close(farm)
    print(f"{AGENTS} agents (MCP stdio bridges) on {DEVICES} virtual devices, "
          f"{FLOWS} login flows each, in {took:.1f} s")
    print(f"  flows completed: {tally.flows} of {AGENTS * FLOWS}")
    print(f"  actions on a device the agent did not hold: {tally.misplaced}")
    print(f"  refs made stale by another agent: {tally.stale}")
    if hand:
        print(f"  lease handover (release answered → waiting agent's first call answered, "
              f"that call included): median {statistics.median(hand) * 1000:.0f} ms, "
              f"max {max(hand) * 1000:.0f} ms over {len(hand)}")
    firsts = sorted(w for *_, w in tally.first_calls)
    print(f"  first call (lease + hide_keyboard) of an agent that found a free device: "
          f"{firsts[0] * 1000:.0f} ms")
    print(f"  stdin closed → lease released in {at_once * 1000:.0f} ms")
    ended = f"{left:.1f} s" if left is not None else f"not within {ttl + 30} s"
    print(f"  SIGKILL → lease ended after {ended} (the bridge's session TTL: {ttl} s)")
    for e in tally.errors:
        print("  error:", e)
    ok = tally.flows == AGENTS * FLOWS and tally.misplaced == 0 and tally.stale == 0
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
