"""Property 2 at length: generated lines decided by the real gate, every allowed one run under strace.

    .venv/bin/python fuzz/readonly.py --seconds 1800 [--seed 11]

Cycles through the benign fixture and the hostile-config variants (fuzz/execution.py); prints each
failure as it is found and, at the end, one JSON line: lines decided, allowed lines executed,
failures, seconds. Exit 1 when anything failed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.execution import HOSTILE_SAMPLE, ReadOnlyRunner  # noqa: E402
from fuzz.randgen import RandomLines  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    runner = ReadOnlyRunner(Path(tempfile.mkdtemp(prefix="bastion-readonly-")))
    lines = RandomLines(a.seed, mode="pool", stop=80)
    hostile = list(HOSTILE_SAMPLE)
    start, failures, i = time.time(), 0, 0
    while time.time() - start < a.seconds:
        outcome = runner.check(lines.line(), hostile[i % len(hostile)])
        i += 1
        if outcome.problems:
            failures += 1
            print("FAIL", json.dumps([outcome.line, outcome.hostile, outcome.problems[:3]]), flush=True)
    print(json.dumps({"decided": runner.decided, "executed": runner.executed, "failures": failures,
                      "seconds": round(time.time() - start)}), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
