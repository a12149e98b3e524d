"""Score bastion against the shared conformance corpus (../shared/conformance, beside the checkout).

    .venv/bin/python benchmarks/conformance.py           # the figures, with the false allows listed
    .venv/bin/python benchmarks/conformance.py --check   # the same; exits non-zero on any false allow

A false allow (a case that must not be allowed, allowed) is a security bug and fails the check. The
usefulness figure (allow cases allowed) is printed, and checked against a floor in --check mode.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "conformance"
MIN_ALLOW_RATE = 0.80


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--details", action="store_true")
    a = ap.parse_args()
    runner = CORPUS / "run_cases.py"
    if not runner.exists():
        print(f"conformance: no corpus at {CORPUS}; skipped")
        return 0
    bastion = f"{sys.executable} -m bastion"
    cmd = [sys.executable, str(runner), "--bastion", bastion, "--policy-cases", str(CORPUS / "cases.jsonl")]
    if a.check:
        cmd += ["--max-false-allow", "0", "--min-allow-rate", str(MIN_ALLOW_RATE)]
    if a.details:
        cmd.append("--details")
    return subprocess.run(cmd, cwd=REPO, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
