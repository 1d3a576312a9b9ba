"""`build_app` through MCP, as an agent's client calls it (the official Python MCP SDK over
`mobilectl mcp`): a `serve --demo --build-root DIR` server, a project whose Gradle wrapper is the
stand-in of tests/fixtures/standins/ replaying a real recorded build log; built, installed and
launched on the demo device in one call; a build that outlasts a progress period tells its
progress to a client that passes a progress token.
"""

import contextlib
import shutil

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from conftest import ROOT, running_demo

SUCCESS_LOG = ROOT / "fixtures/build_logs/gradle_spotless_detekt_test_success_kotlin_warnings_snapify.txt"


def android_project(root, log, outcome=0, hang=False):
    shop = root / "shop"
    (shop / "app").mkdir(parents=True)
    shutil.copy(ROOT / "tests/fixtures/standins/gradlew", shop / "gradlew")
    (shop / "replay").write_text(str(log))
    (shop / "outcome").write_text(str(outcome))
    if hang:
        (shop / "hang").write_text("")
    return shop


@contextlib.asynccontextmanager
async def mcp_session(mobilectl_bin, url):
    """An initialised MCP session with `mobilectl mcp` (stdio) on the server at `url`."""
    params = StdioServerParameters(
        command=str(mobilectl_bin), args=["mcp", "--no-autostart"], env={"MOBILECTL_URL": url}
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            yield session


def texts(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def test_an_agent_builds_installs_and_launches_through_mcp(mobilectl_bin, tmp_path):
    projects = tmp_path / "projects"
    android_project(projects, SUCCESS_LOG)
    hanging = tmp_path / "hanging"
    android_project(hanging, SUCCESS_LOG, hang=True)

    async def drive(url):
        async with mcp_session(mobilectl_bin, url) as session:
            built = await session.call_tool(
                "call",
                {"operation": "build_app",
                 "arguments": {"project_dir": "shop", "launch": True}},
            )
            assert not built.is_error, texts(built)
            result = built.structured_content
            assert result["success"] is True, result
            assert result["app"]["app_id"] == "com.mobilectl.demo"
            assert result["installed_on"]["udid"]
            said = texts(built)
            assert said.startswith(f"build {result['id']} succeeded"), said
            assert "installed on" in said and "launched in" in said, said
        return result

    with running_demo(mobilectl_bin, tmp_path, "--build-root", str(projects)) as url:
        anyio.run(drive, url)

    async def long_build(url):
        async with mcp_session(mobilectl_bin, url) as session:
            notes = []

            async def on_progress(progress, total, message):
                notes.append((progress, total, message))

            # A build that never ends stops at its own limit (2.5 s): more than one
            # progress period (1 s).
            stopped = await session.call_tool(
                "call",
                {"operation": "build_app",
                 "arguments": {"project_dir": "shop", "timeout_ms": 2500}},
                progress_callback=on_progress,
            )
            assert not stopped.is_error, texts(stopped)
            assert stopped.structured_content["status"] == "timed_out"
            assert notes, "no progress notification"
            assert all(t == 2.5 for _, t, _ in notes), notes
            assert notes[0][2].startswith("build_app: "), notes

    (tmp_path / "second").mkdir()
    with running_demo(mobilectl_bin, tmp_path / "second", "--build-root", str(hanging)) as url:
        anyio.run(long_build, url)
