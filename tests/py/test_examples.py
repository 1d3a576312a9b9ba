"""examples/agent_tools.py, the stdlib agent tool wrapper, drives the demo login end to end."""

import subprocess
import sys


def test_the_agent_wrapper_logs_in_to_the_demo(root, demo_server):
    run = subprocess.run(
        [sys.executable, str(root / "examples" / "agent_tools.py"), "--url", demo_server],
        capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    for line in ("type user: ok", "tap LOG IN: ok", "allow: ok", "inbox shown: ok"):
        assert line in run.stdout, run.stdout


def test_the_wrapper_raises_the_servers_error(root, demo_server):
    sys.path.insert(0, str(root / "examples"))
    try:
        from agent_tools import Mobilectl, ToolError
    finally:
        sys.path.pop(0)
    m = Mobilectl(demo_server)
    names = {t["name"] for t in m.tools()}
    assert {"snapshot", "tap", "type_text", "wait"} <= names
    m.call("snapshot")
    try:
        m.call("tap", ref="e999")
    except ToolError as e:
        assert e.code == "ELEMENT_NOT_FOUND" and e.hint
    else:
        raise AssertionError("no error for a missing ref")
