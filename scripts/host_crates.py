#!/usr/bin/env python3
"""Prints the crates that are built only for the host: proc macros, build scripts'
dependencies and what only they use. Cargo.toml compiles these without optimisation
(`[profile.dev.package]`): a `"*"` override would otherwise raise them to the dependencies'
opt-level 1 (cargo gives `"*"` precedence over `build-override`, rust-lang/cargo#9351), and
they only run while compiling.

Usage: scripts/host_crates.py   (from the repository; needs cargo)
"""
import json
import subprocess

meta = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
)
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
members = set(meta["workspace_members"])


def proc_macro(pid):
    return any("proc-macro" in t["kind"] for t in packages[pid]["targets"])


# Walk from the workspace's crates: through normal and (for members) dev edges a crate is
# built for the target; through a build edge or into a proc macro, for the host.
seen, target, host = set(), set(), set()
stack = [(m, "target") for m in members]
while stack:
    pid, side = stack.pop()
    if (pid, side) in seen:
        continue
    seen.add((pid, side))
    (target if side == "target" else host).add(pid)
    for dep in nodes[pid]["deps"]:
        for kind in dep["dep_kinds"]:
            if kind["kind"] == "dev" and pid not in members:
                continue
            built_for = "host" if kind["kind"] == "build" or proc_macro(dep["pkg"]) else side
            stack.append((dep["pkg"], built_for))

names = lambda ids: {packages[p]["name"] for p in ids}
for name in sorted(names(host) - names(target)):
    print(name)
