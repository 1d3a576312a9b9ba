"""The MCP resources `mobilectl://guide` and `mobilectl://troubleshooting`, listed and read by
the official Python MCP SDK over stdio (`mobilectl mcp`) and over Streamable HTTP (`/mcp`),
and compared with the sections of docs/agents.md they are made from (the page the binary
quotes; the README is not).

Fixtures (from tests/py/conftest.py): `mobilectl_bin`, `demo_server`, `root`.
"""

import re

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

URIS = ["mobilectl://guide", "mobilectl://troubleshooting"]


def page_section(root, name):
    text = (root / "docs" / "agents.md").read_text()
    body = re.search(rf"<!-- mcp:{name} -->\n(.*?)<!-- /mcp:{name} -->", text, re.S).group(1)
    lines = [l for l in body.splitlines() if not l.lstrip().startswith("<!--")]
    return "\n".join(lines).strip() + "\n"


async def check(session, root):
    init = await session.initialize()
    assert init.capabilities.resources is not None

    listed = await session.list_resources()
    assert [str(r.uri) for r in listed.resources] == URIS
    for r in listed.resources:
        assert r.mime_type == "text/markdown"
        assert r.description

    for uri, name in zip(URIS, ["guide", "troubleshooting"]):
        read = await session.read_resource(uri)
        [content] = read.contents
        assert str(content.uri) == uri
        assert content.text == page_section(root, name), uri

    trouble = (await session.read_resource(URIS[1])).contents[0].text
    for word in ["Empty tree", "TOOL_MISSING", "STALE_REFERENCE", "DEVICE_OFFLINE", "pinning",
                 "UNSUPPORTED_ON_PLATFORM"]:
        assert word in trouble, word

    try:
        await session.read_resource("mobilectl://nothing")
    except Exception as e:  # the SDK raises the server's JSON-RPC error
        assert "mobilectl://nothing" in str(e), e
    else:
        raise AssertionError("an unknown resource was read")


async def over_stdio(mobilectl_bin, url, root):
    params = StdioServerParameters(
        command=mobilectl_bin, args=["mcp", "--no-autostart"], env={"MOBILECTL_URL": url}
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await check(session, root)


async def over_http(url, root):
    async with streamable_http_client(f"{url}/mcp") as (read, write):
        async with ClientSession(read, write) as session:
            await check(session, root)


def test_mcp_resources_over_stdio(mobilectl_bin, demo_server, root):
    anyio.run(over_stdio, str(mobilectl_bin), demo_server, root)


def test_mcp_resources_over_http(demo_server, root):
    anyio.run(over_http, demo_server, root)
