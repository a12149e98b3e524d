"""Run the atheris harnesses (parser, analyzer, rules) within a total budget of seconds.

    .venv/bin/python fuzz/run.py --seconds 10 [--target parser|analyzer|rules]

Each target runs in a child process (atheris takes over its process) seeded with fuzz/seeds/ and the
bypass shapes; the budget is split between targets. Exits non-zero on any crash or soundness failure.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = ("parser", "analyzer", "rules")


def _child(target: str, seconds: int) -> None:
    sys.path.insert(0, str(ROOT))
    import atheris

    from fuzz.strategies import BYPASSES

    module = importlib.import_module(f"fuzz.harness_{target}")
    corpus = ROOT / "fuzz" / "seeds" / target
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"bastion-fuzz-{target}-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    for i, seed in enumerate(BYPASSES):
        (work / f"bypass-{i}").write_bytes(seed.encode("utf-8", "surrogateescape"))
    atheris.Setup(
        [
            sys.argv[0],
            f"-max_total_time={seconds}",
            "-max_len=256",
            "-timeout=5",
            str(work),
            *([str(corpus)] if corpus.is_dir() else []),
        ],
        module.check,
    )
    atheris.Fuzz()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--target", choices=TARGETS)
    ap.add_argument("--child", choices=TARGETS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child, args.seconds)
        return 0
    targets = [args.target] if args.target else list(TARGETS)
    each = max(1, args.seconds // len(targets))
    failed = []
    for target in targets:
        proc = subprocess.run(
            [sys.executable, __file__, "--child", target, "--seconds", str(each)],
            capture_output=True,
            text=True,
            timeout=each + 120,
        )
        runs = [line for line in proc.stderr.splitlines() if line.startswith("Done ")]
        print(f"{target}: exit {proc.returncode} {runs[-1] if runs else ''}".rstrip(), flush=True)
        if proc.returncode != 0:
            failed.append(target)
            print(proc.stderr[-3000:], file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
