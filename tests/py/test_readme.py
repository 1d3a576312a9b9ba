"""The documented sessions, run with the real curl (and the real CLI) against `serve --demo`:
the README's first screen ("Try it": read the screen, tap a ref, verify), its CLI equivalents,
and the longer session of docs/api.md. Every command answers without an error, and where the
page prints an answer (the `# ` lines right under a command) the real answer is exactly that,
but for the demo device's port.
"""

import json
import os
import re
import shlex
import subprocess

import pytest

# (page, heading of the section whose first sh block is run, fewest commands it must hold)
SESSIONS = [
    ("README.md", "## Try it", 3),
    ("docs/api.md", "## A session, with curl", 6),
]


def section(text, heading):
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def session_steps(page, heading):
    """(command argv, expected output lines) for each command of the section's sh block."""
    part = section(page, heading)
    block = part[part.index("```sh\n") + 6:]
    block = block[: block.index("```")]
    steps, command, expected, after_command = [], "", [], False
    for line in block.splitlines():
        if command.endswith("\\"):
            command = command[:-1] + " " + line.strip()
            continue
        if command:
            steps.append([shlex.split(command), expected])
            command, expected = "", []
            after_command = True
        if line.startswith("# ") and after_command:
            steps[-1][1].append(line[2:])
        elif line.strip() and not line.startswith("#"):
            command = line.strip()
        else:
            after_command = False
    if command:
        steps.append([shlex.split(command), expected])
    return steps


def normalise(text):
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text).rstrip("\n").splitlines()


@pytest.mark.parametrize("page,heading,fewest", SESSIONS, ids=[p for p, _, _ in SESSIONS])
def test_the_documented_session_runs_as_written(root, demo_server, page, heading, fewest):
    port = demo_server.rsplit(":", 1)[1]
    steps = session_steps((root / page).read_text(), heading)
    assert len(steps) >= fewest, steps
    for argv, expected in steps:
        assert argv[0] == "curl", argv
        argv = [a.replace("localhost:9100", f"localhost:{port}") for a in argv]
        run = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, (argv, run.stderr)
        if expected:
            assert normalise(run.stdout) == normalise("\n".join(expected)), (argv, run.stdout)
            continue
        answer = json.loads(run.stdout)
        assert "error" not in answer, (argv, answer)
        assert answer.get("success", True) is True, (argv, answer)
        assert answer.get("status", "success") == "success", (argv, answer)


def test_the_first_screen_cli_lines_run_as_written(root, mobilectl_bin, demo_server, tmp_path):
    """The README's "The same from the CLI" commands, in order, each exiting 0."""
    part = section((root / "README.md").read_text(), "## Try it")
    paragraph = part[part.index("The same from the CLI:"):]
    paragraph = paragraph.split("\n\n")[0]
    commands = [c for c in re.findall(r"`([^`]+)`", paragraph) if c.startswith("mobilectl ")]
    assert [c.split()[1] for c in commands] == ["snapshot", "tap", "wait"], commands
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBILECTL_")}
    env["MOBILECTL_URL"] = demo_server
    env["MOBILECTL_STATE_DIR"] = str(tmp_path / "cli-state")
    outputs = []
    for command in commands:
        argv = [str(mobilectl_bin), "--no-autostart"] + shlex.split(command)[1:]
        run = subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)
        assert run.returncode == 0, (command, run.stdout, run.stderr)
        outputs.append(run.stdout)
    assert 'button "LOG IN" [e4]' in outputs[0], outputs[0]
    assert outputs[1].startswith("tap e4 ok"), outputs[1]
    assert '"Allow"' in outputs[2], outputs[2]
