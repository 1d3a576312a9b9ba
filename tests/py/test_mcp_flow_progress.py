"""Live progress of flow runs and suites over MCP, with the official Python MCP SDK against
`serve --demo`: a `flow_run` or `flow_test` call with a progress token (the SDK passes one when
given a progress callback) tells each step as it ends, naming it (and, for a suite, each flow
as it ends), then answers what the same call answers without one. Both ways an agent reaches
the tools: `mobilectl mcp` on stdio (a client of the HTTP server) and `/mcp` in the server
(the API called in-process).

Fixtures (from tests/py/conftest.py): `mobilectl_bin`, `demo_server`.
"""

import re

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

LOGIN = """appId: com.mobilectl.demo
name: login
---
- launchApp: {clearState: true}
- tapOn: {id: "user.*"}
- inputText: ${USER}
- tapOn: "LOG IN"
- extendedWaitUntil: {visible: "Allow|ALLOW", timeout: 10000}
"""

RUN = {"yaml": LOGIN, "file": "login.yaml", "env": {"USER": "alice"}}

# `second` first (flowsOrder), then by path: one refused, one that fails.
SUITE = {
    "config.yaml": "executionOrder: {flowsOrder: [second]}\n",
    "second.yaml": "appId: com.mobilectl.demo\n---\n- launchApp: {clearState: true}\n"
                   "- assertVisible: \"LOG IN\"\n",
    "bad.yaml": "- frobnicate\n",
    "first.yaml": "- extendedWaitUntil: {visible: \"Nope\", timeout: 200}\n",
}


def texts(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def timeless(value):
    """A result without what differs from one run to the next: times and artifact folders."""
    if isinstance(value, dict):
        return {k: timeless(v) for k, v in value.items() if k not in ("duration_ms", "artifacts")}
    if isinstance(value, list):
        return [timeless(v) for v in value]
    return value


def said_timeless(text):
    return re.sub(r" +\d+ ms", " N ms", re.sub(r"\nartifacts: .*", "", text))


async def tell(session, tool, arguments):
    """Calls `tool` with a progress callback: its result and the notifications it got."""
    notes = []

    async def on_progress(progress, total, message):
        notes.append((progress, total, message))

    result = await session.call_tool(tool, arguments, progress_callback=on_progress)
    return result, notes


async def flows_told_step_by_step(session, direct):
    """`direct`: the tools called by their own names, else through `call`."""

    def via(operation, arguments):
        if direct:
            return operation, arguments
        return "call", {"operation": operation, "arguments": arguments}

    # A run: a notification per step as it ends, counting them, each naming its step.
    told, notes = await tell(session, *via("flow_run", RUN))
    assert not told.is_error, texts(told)
    result = told.structured_content
    assert result["success"] is True, texts(told)
    steps = result["steps"]
    assert [p for p, _, _ in notes] == list(range(1, len(steps) + 1)), notes
    assert all(total is None for _, total, _ in notes), notes
    messages = [m for _, _, m in notes]
    assert messages[0].startswith("login.yaml: step 1 launchApp"), messages
    assert any(re.fullmatch(r'login\.yaml: step \d+ tapOn "LOG IN" passed \(\d+ ms\)', m)
               for m in messages), messages
    for step in steps:
        assert any(f" {step['title']} {step['status']} (" in m for m in messages), (step, messages)

    # Its answer is the call's without a progress token (but for how long each step took).
    plain = await session.call_tool(*via("flow_run", RUN))
    assert not plain.is_error, texts(plain)
    assert timeless(told.structured_content) == timeless(plain.structured_content)
    assert said_timeless(texts(told)) == said_timeless(texts(plain)), (texts(told), texts(plain))
    assert texts(told).endswith(" steps)"), texts(told)

    # A suite: each step under its flow, and a line per flow as it ends.
    told, notes = await tell(session, *via("flow_test", {"files": SUITE}))
    assert not told.is_error, texts(told)
    assert [f["status"] for f in told.structured_content["flows"]] == \
        ["passed", "invalid", "failed"], told.structured_content
    progress = [p for p, _, _ in notes]
    assert progress == list(range(1, len(notes) + 1)), notes
    messages = [m for _, _, m in notes]
    assert messages[0].startswith("second.yaml: step 1 launchApp"), messages
    assert any(re.fullmatch(r"second\.yaml: passed in \d+ ms \(2 steps\)", m)
               for m in messages), messages
    assert any(m.startswith("bad.yaml: invalid: ") for m in messages), messages
    assert any(m.startswith('first.yaml: step 1 extendedWaitUntil') and " failed (" in m
               for m in messages), messages
    assert messages[-1].startswith("first.yaml: failed in "), messages

    plain = await session.call_tool(*via("flow_test", {"files": SUITE}))
    assert timeless(told.structured_content) == timeless(plain.structured_content)
    assert said_timeless(texts(told)) == said_timeless(texts(plain)), (texts(told), texts(plain))

    # A refused flow answers as the call does without a token: a tool error, nothing told.
    refused, notes = await tell(session, *via("flow_run", {"yaml": "- frobnicate\n"}))
    assert refused.is_error, texts(refused)
    assert texts(refused).startswith("VALIDATION_FAILED: the flow cannot run"), texts(refused)
    assert notes == [], notes


async def over_stdio(mobilectl_bin, url):
    params = StdioServerParameters(
        command=mobilectl_bin,
        args=["mcp", "--no-autostart"],
        env={"MOBILECTL_URL": url},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await flows_told_step_by_step(session, direct=False)


async def over_http(url):
    async with streamable_http_client(f"{url}/mcp?tools=all") as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await flows_told_step_by_step(session, direct=True)


def test_flow_runs_and_suites_tell_their_steps_as_progress_over_stdio(mobilectl_bin, demo_server):
    anyio.run(over_stdio, str(mobilectl_bin), demo_server)


def test_flow_runs_and_suites_tell_their_steps_as_progress_over_mcp_http(demo_server):
    anyio.run(over_http, demo_server)
