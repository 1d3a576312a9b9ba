"""`mobilectl repl` as a person uses it, through a pseudo-terminal (pexpect): a snapshot, its
refs listed and completed with Tab, a command completed, a tap by ref, Ctrl-C on the prompt and
during a running command (which stops it, not the shell), the history kept across runs, Ctrl-D.
"""

import os
import time
from pathlib import Path

import pexpect

PROMPT = "mobilectl> "


def shell(mobilectl_bin, url, state):
    env = {k: v for k, v in os.environ.items() if not k.startswith("MOBILECTL_")}
    env.update(MOBILECTL_URL=url, MOBILECTL_STATE_DIR=str(state), TERM="xterm")
    return pexpect.spawn(
        str(mobilectl_bin), ["repl", "--no-autostart"], env=env, encoding="utf-8",
        timeout=60, dimensions=(50, 250),
    )


def processes_running(*words):
    """Pids of the processes whose command line holds these words in a row."""
    wanted = "\0".join(words).encode()
    pids = []
    for p in Path("/proc").iterdir():
        try:
            if p.name.isdigit() and wanted in (p / "cmdline").read_bytes():
                pids.append(int(p.name))
        except OSError:
            pass
    return pids


def eventually(cond, limit=20.0):
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def test_the_shell_completes_refs_keeps_its_history_and_outlives_ctrl_c(
    mobilectl_bin, demo_server, tmp_path
):
    state = tmp_path / "repl-state"
    r = shell(mobilectl_bin, demo_server, state)
    r.expect_exact(PROMPT)
    r.sendline("snapshot")
    r.expect(r'button "LOG IN" \[(e\d+)\]')
    login = r.match.group(1)
    r.expect_exact(PROMPT)

    # Tab twice lists the last snapshot's refs, each with what it is; Ctrl-C clears the line.
    r.send("tap @e")
    r.send("\t\t")
    r.expect_exact(f'@{login}  button "LOG IN"')
    r.sendcontrol("c")
    r.expect_exact(PROMPT)

    # A command completed in the line, then run.
    r.send("snaps\t")
    r.expect_exact("snapshot")
    r.send("\r")
    r.expect_exact('button "LOG IN"')
    r.expect_exact(PROMPT)

    # A tap by the ref the snapshot showed.
    r.sendline(f"tap @{login}")
    r.expect("tap")
    r.expect_exact(PROMPT)

    # Ctrl-C during a command stops the command; the shell goes on.
    r.sendline("logs --follow")
    assert eventually(lambda: processes_running("logs", "--follow")), "the command never ran"
    r.sendcontrol("c")
    r.expect_exact(PROMPT)
    assert eventually(lambda: not processes_running("logs", "--follow"))
    r.sendline("health")
    r.expect_exact("ok · mobilectl")
    r.expect_exact(PROMPT)

    # Ctrl-D leaves.
    r.sendeof()
    r.expect(pexpect.EOF)
    r.close()
    assert r.exitstatus == 0
    kept = (state / "repl_history").read_text()
    assert "snapshot" in kept and f"tap @{login}" in kept, kept

    # The next shell has the history: Up brings back the last line, which runs again.
    r = shell(mobilectl_bin, demo_server, state)
    r.expect_exact(PROMPT)
    r.send("\x1b[A")
    r.expect_exact("health")
    r.send("\r")
    r.expect_exact("ok · mobilectl")
    r.expect_exact(PROMPT)
    r.sendline("exit")
    r.expect(pexpect.EOF)
    r.close()
    assert r.exitstatus == 0
