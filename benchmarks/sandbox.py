"""What the sandbox costs a command's start: the same command through LocalWorkspace.exec without
the sandbox, contained by the launcher alone (what the bash tool runs when the sandbox is off),
read-only (an auto-allowed plan) and confined to the workspace (an approved line).

    .venv/bin/python benchmarks/sandbox.py [--runs N]

The kinds are run in turn, round after round, so a busy machine slows them alike; the figures are
medians over N runs (default 200) of the wall time of one exec, and the ratio to the unconfined
start. For comparison, the start the launcher replaced: applying the same ruleset in
subprocess's preexec_fn (not used: Python between fork and exec in a process with threads is not
safe). Figures go to docs/performance.md by hand, with the machine they were taken on.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from functools import partial

from bastion.sandbox import Confinement, landlock_abi

# Private: the raw Landlock calls are the costs measured.
from bastion.sandbox._landlock import Grant, build, rights
from bastion.workspace import ExecRequest, LocalWorkspace

COMMANDS = (["bash", "-c", "true"], ["bash", "-c", "ls -la >/dev/null"])


def _preexec_start(argv: list[str], cwd: str) -> Callable[[], None]:
    """A start that applies a read-only ruleset in preexec_fn instead of the launcher."""
    handled = rights(landlock_abi(), read_only=True, network=False)
    ruleset = build(handled, [Grant("/dev/null", handled.fs)])
    libc = ctypes.CDLL(None, use_errno=True)

    def confine() -> None:
        libc.prctl(38, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
        libc.syscall(ctypes.c_long(446), ctypes.c_int(ruleset), ctypes.c_uint32(0))

    def start() -> None:
        subprocess.run(argv, cwd=cwd, preexec_fn=confine, stdout=subprocess.DEVNULL, check=False)  # noqa: PLW1509

    return start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    runs = parser.parse_args().runs
    version = landlock_abi()
    if version == 0:
        raise SystemExit("this kernel has no Landlock: there is no sandbox to measure")
    print(f"Landlock ABI {version}; {runs} runs each, medians of one start, kinds run in turn")
    with tempfile.TemporaryDirectory() as root:
        ws = LocalWorkspace(root, {"PATH": os.environ.get("PATH", os.defpath)})
        for argv in COMMANDS:
            kinds: dict[str, Callable[[], object]] = {
                "unconfined": partial(ws.exec, ExecRequest(argv)),
                "contained (launcher)": partial(ws.exec, ExecRequest(argv, contain=True)),
                "read-only": partial(ws.exec, ExecRequest(argv, sandbox=Confinement(True))),
                "workspace": partial(ws.exec, ExecRequest(argv, sandbox=Confinement(False, (), True))),
                "preexec_fn (not used)": _preexec_start(argv, root),
            }
            times: dict[str, list[float]] = {name: [] for name in kinds}
            for _ in range(runs):
                for name, start in kinds.items():
                    begin = time.perf_counter()
                    start()
                    times[name].append(time.perf_counter() - begin)
            base = statistics.median(times["unconfined"])
            print(f"\n{' '.join(argv)}")
            for name, values in times.items():
                median = statistics.median(values)
                extra = (median - base) * 1000
                print(f"  {name:22} {median * 1000:7.2f} ms  x{median / base:5.2f}  (+{extra:.2f} ms)")
        ws.close()


if __name__ == "__main__":
    main()
