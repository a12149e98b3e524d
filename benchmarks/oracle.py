"""How many generated lines per second the argv oracle checks (and a long run of property 1).

    .venv/bin/python benchmarks/oracle.py --lines 2000 [--seconds 60] [--seed 1] [--json OUT]

Lines come from fuzz.randgen (the grammar walk), are checked by fuzz.oracle.ArgvOracle (rendered
plan and raw line under real bash, globs included); mismatches are printed, known ones counted.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fuzz.fixtures import build  # noqa: E402
from fuzz.oracle import ArgvOracle, Mismatch  # noqa: E402
from fuzz.randgen import RandomLines  # noqa: E402


def known(m: Mismatch) -> str | None:
    """The name of a finding already recorded as an xfail regression test, or None."""
    if m.how == "raw" and "=~" in m.line or "=" in m.line and ":~" in m.line:
        return "tilde-after-assignment-like-word"
    return None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--lines", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=0.0, help="stop after this long (0: no limit)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = build(Path(tmp) / "template")
        oracle = ArgvOracle(Path(tmp) / "work", ws)
        gen = RandomLines(args.seed, stop=65)
        start = time.monotonic()
        counts: dict[str, int] = {}
        new: list[Mismatch] = []
        while oracle.lines_checked < args.lines:
            if args.seconds and time.monotonic() - start > args.seconds:
                break
            batch = [gen.line() for _ in range(min(200, args.lines - oracle.lines_checked))]
            for m in oracle.check(batch):
                name = known(m) or "new"
                counts[name] = counts.get(name, 0) + 1
                if name == "new" and len(new) < 20:
                    new.append(m)
                    print("MISMATCH", m, flush=True)
        elapsed = time.monotonic() - start
    result = {
        "lines": oracle.lines_checked, "seconds": round(elapsed, 1),
        "lines_per_second": round(oracle.lines_checked / elapsed, 1), "generated": gen.generated,
        "rejected": gen.rejected, "mismatches": counts,
    }  # fmt: skip
    print(json.dumps(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")
    return 1 if new else 0


if __name__ == "__main__":
    raise SystemExit(main())
