"""The README's curl session, run with the real curl against `serve --demo`: every command
answers without an error, and where the README prints an answer (the `# ` lines right under
a command) the real answer is exactly that, but for the demo device's port.
"""

import json
import re
import shlex
import subprocess

SESSION = "## A session, with curl"


def session_steps(readme):
    """(command argv, expected output lines) for each command of the session's sh block."""
    start = readme.index(SESSION)
    block = readme[readme.index("```sh\n", start) + 6:]
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


def test_the_readme_session_runs_as_written(root, demo_server):
    port = demo_server.rsplit(":", 1)[1]
    steps = session_steps((root / "README.md").read_text())
    assert len(steps) >= 6, steps
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
