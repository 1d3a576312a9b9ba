"""The device lease of a Streamable HTTP MCP host, driven by the official Python MCP SDK against
`/mcp` of `serve --demo` (one virtual phone).

A host that goes away without `DELETE /mcp` (the official TypeScript SDK's `close()` sends
none) must not keep the phone for rmcp's five-minute idle limit: its session gives the lease
back once it has had no request and no open stream for the grace (src/mcp/idle.rs), and a new
host taps. The Python SDK sends `DELETE` on close unless told not to (`terminate_on_close=
False`), so the first host is told not to, and every request it sends is watched to be sure.

Fixtures (from tests/py/conftest.py): `demo_server`, `root`.
"""

import json
import re
import time
import urllib.request

import anyio
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

# Past the grace, how long the lease may take to come back (the client's connections closing,
# the server seeing it).
MARGIN_S = 10

TAP = {"x": 100, "y": 100}


def grace_s(root):
    source = (root / "src" / "mcp" / "idle.rs").read_text()
    return int(re.search(r"IDLE_LEASE_GRACE: Duration = Duration::from_secs\((\d+)\)", source)[1])


def live_sessions(url):
    with urllib.request.urlopen(f"{url}/api/v1/sessions", timeout=5) as r:
        return json.load(r)["sessions"]


def holder(url):
    """The live session leasing a device, if one does."""
    return next((s for s in live_sessions(url) if s.get("udid")), None)


def no_lease(url):
    live = live_sessions(url)
    return all(s.get("udid") is None for s in live), live


async def until(check, seconds, what):
    """Polls `check` (answering whether it holds, and what it saw) for up to `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        held, seen = check()
        if held:
            return
        assert time.monotonic() < deadline, f"{what} within {seconds} s; saw {seen}"
        await anyio.sleep(0.1)


def texts(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


async def host_that_leaves_without_delete(url, methods):
    """Taps (leasing the phone), then closes the way a host that sends no DELETE does."""
    client = create_mcp_http_client()

    async def note(request):
        methods.append(request.method)

    client.event_hooks["request"] = [note]
    async with client:
        async with streamable_http_client(
            f"{url}/mcp", http_client=client, terminate_on_close=False
        ) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tap = await session.call_tool("tap", TAP)
                assert not tap.is_error, texts(tap)
                info = await session.call_tool("session_info", {})
                return info.structured_content


async def leases(url, root):
    grace = grace_s(root)
    methods = []
    first = await host_that_leaves_without_delete(url, methods)
    assert first["udid"], first
    assert "DELETE" not in methods, methods
    assert "GET" in methods, f"the SDK opened no event stream: {methods}"

    # The first host is gone; its session gives the phone back after the grace.
    started = time.monotonic()
    await until(lambda: no_lease(url), grace + MARGIN_S, "the first host's lease given back")
    print(f"lease given back {time.monotonic() - started:.1f} s after the host left")
    # The session stays (its connection may come back); only the lease went.
    assert [s["id"] for s in live_sessions(url)] == [first["id"]]

    # A new host taps, and holds the phone while it stays connected (its GET stream open),
    # past the grace.
    async with streamable_http_client(f"{url}/mcp") as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tap = await session.call_tool("tap", TAP)
            assert not tap.is_error, texts(tap)
            second = (await session.call_tool("session_info", {})).structured_content
            assert second["udid"] == first["udid"], second
            await anyio.sleep(grace + 2)
            held = holder(url)
            assert held and held["id"] == second["id"], live_sessions(url)
            again = await session.call_tool("tap", TAP)
            assert not again.is_error, texts(again)
    # This one closed with DELETE (the SDK's default): its session ends at once.
    await until(
        lambda: (second["id"] not in [s["id"] for s in live_sessions(url)], live_sessions(url)),
        2,
        "the second host's session ended",
    )
    assert no_lease(url)[0], live_sessions(url)


def test_a_host_leaving_without_delete_gives_the_phone_back_to_the_next(demo_server, root):
    anyio.run(leases, demo_server, root)
