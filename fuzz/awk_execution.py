"""Property 2 for awk alone: generated awk stages (fuzz/awkstages.py: programs with divisions and
regular expressions, the report's line in each place, first or after a pipe) decided by the real
gate and every allowed one run under strace, as bastion runs it or as Claude Code runs the hook's
answer, across fixtures.

    .venv/bin/python fuzz/awk_execution.py --seconds 300 [--seed 43] [--fixtures all|NAME ...]

Prints each failure as found and at the end one JSON line: awk lines decided, allowed lines
executed, failures, seconds. Exit 1 when anything failed. (fuzz/readonly.py draws the same stages
among all its attack lines; this run counts awk's.)
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.awkstages import awk_stage  # noqa: E402
from fuzz.execution import ReadOnlyRunner  # noqa: E402
from fuzz.readonly import fixtures, rotation  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=43)
    ap.add_argument("--fixtures", nargs="+", default=["config"])
    ap.add_argument("--claude", type=float, default=0.25, help="fraction run as Claude Code after the hook")
    a = ap.parse_args(argv)
    chosen = fixtures(a.fixtures)
    order = rotation(chosen)
    runner = ReadOnlyRunner(Path(tempfile.mkdtemp(prefix="bastion-awk-exec-")), hostile=chosen)
    rng = random.Random(a.seed)
    start, failures, allowed, i = time.time(), 0, 0, 0
    while time.time() - start < a.seconds:
        line = awk_stage(rng.choice)
        agent = "claude" if rng.random() < a.claude else "bastion"
        outcome = runner.check(line, order[i % len(order)], agent)
        i += 1
        allowed += outcome.ran is not None
        if outcome.problems:
            failures += 1
            print("FAIL", json.dumps([line, outcome.hostile, agent, outcome.problems[:3]]), flush=True)
    summary = {
        "decided": runner.decided,
        "allowed": allowed,
        "executed": runner.executed,
        "failures": failures,
        "fixtures": len(chosen),
        "seed": a.seed,
        "seconds": round(time.time() - start),
    }
    print(json.dumps(summary), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
