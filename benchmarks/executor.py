"""What a decision costs through an executor: the same lines decided by a Gate over this machine's
directory and over `bastion execute` started as a local process (the pipe without a network), side
by side in one run, with the ratio. Over SSH or `docker exec` each look adds the transport's round
trip on top.

    .venv/bin/python benchmarks/executor.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bastion.policy import Gate, load_settings
from bastion.workspace import ExecutorWorkspace, LocalWorkspace, Workspace

LINES = ["cat a.txt", "ls -la", "git status", "git log --oneline | head -3", "grep -r alpha .", "rm a.txt"]


def _per_line(ws: Workspace, rounds: int) -> dict[str, float]:
    gate = Gate(load_settings(ws, os.devnull), ws)
    times: dict[str, list[float]] = {line: [] for line in LINES}
    for _ in range(rounds):
        for line in LINES:
            start = time.perf_counter()
            gate.decide("bash", {"command": line})
            times[line].append(time.perf_counter() - start)
    return {line: statistics.median(t) * 1000 for line, t in times.items()}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    rounds = ap.parse_args().rounds
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        (root / "a.txt").write_text("alpha\n")
        subprocess.run(["git", "-C", str(root), "init", "-q"], check=True)
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": tmp}
        start = time.perf_counter()
        remote = ExecutorWorkspace([sys.executable, "-m", "bastion", "execute", str(root)], env)
        connect = (time.perf_counter() - start) * 1000
        try:
            there = _per_line(remote, rounds)
            here = _per_line(LocalWorkspace(str(root), env=remote.env()), rounds)
        finally:
            remote.close()
    print(f"executor: connect (start bastion execute, hello) {connect:.0f} ms; median of {rounds} decisions:")
    for line in LINES:
        ratio = there[line] / here[line]
        print(f"  {line:32} local {here[line]:7.2f} ms  executor {there[line]:7.2f} ms  x{ratio:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
