"""Score bastion against the shared conformance corpus (../shared/conformance, beside the checkout).

    .venv/bin/python benchmarks/conformance.py           # the figures, with the false allows listed
    .venv/bin/python benchmarks/conformance.py --check   # the same; exits non-zero on any false allow

A false allow (a case that must not be allowed, allowed) is a security bug and fails the check. The
usefulness figure (allow cases allowed) is printed, and checked against a floor in --check mode.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "conformance"
MIN_ALLOW_RATE = 0.80
# Cases the reference labels `ask` only because its subset was narrower, and which bastion widens on
# purpose (each form proved against bash by property 1, its dangerous siblings tested to ask); and two
# it labels `allow` that issue 30 narrows on purpose. They are scored as `any` (not scored), and listed
# on every run, until the corpus is relabelled: the shared corpus now marks issue 14's `any` itself
# (those entries are gone from here), not yet these.
SUPERSEDED = {
    # Issue 33: cat, head, tail and wc take globs as grep does (every match read-checked, run after
    # --), one brace group of plain words is the words bash makes of it (property 1), and awk
    # runs print-only programs (bastion/analyzer/awk_program.lark).
    "dax-0982": "cat *.go: a glob operand, every match read-checked, run after --",
    "dax-0983": "head *.md: likewise",
    "dax-0986": "cat main.go*: likewise",
    "dax-0987": "cat ?ain.go: likewise",
    "dax-1039": "wc -l *.go: likewise",
    "dax-1042": "tail -n 1 *.go: likewise",
    "dax-1015": "ls {a,b}: brace expansion of plain words is the words a and b, names inside",
    "dax-1380": "ls {b,c}: likewise",
    "dax-0869": "git log | awk 1: awk has a checker; the program 1 prints each line of its input",
    # issue 30, class 4: a lister of a secret-looking directory shows its names, so it asks as the ls
    # tool's listing of it does (design rule 41; tests/analyzer/test_exploits.py, issue 30's section).
    "dax-1448": "ls .ssh: asks, a read of the directory's names, as the ls tool's ls .ssh does",
    "dax-1449": "ls -la .aws: likewise",
}


def _corpus(out: Path) -> Path:
    """cases.jsonl with the superseded cases scored as `any`, written to `out`."""
    lines = []
    for line in (CORPUS / "cases.jsonl").read_text().splitlines():
        case = json.loads(line)
        if case.get("id") in SUPERSEDED:
            case["expect"] = "any"
        lines.append(json.dumps(case))
    out.write_text("\n".join(lines) + "\n")
    return out


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
    print(f"conformance: {len(SUPERSEDED)} cases scored as `any` (labels issues 30 and 33 supersede):")
    for case_id, why in SUPERSEDED.items():
        print(f"  {case_id}: {why}")
    with tempfile.TemporaryDirectory() as tmp:
        corpus = _corpus(Path(tmp) / "cases.jsonl")
        cmd = [sys.executable, str(runner), "--bastion", bastion, "--policy-cases", str(corpus)]
        if a.check:
            cmd += ["--max-false-allow", "0", "--min-allow-rate", str(MIN_ALLOW_RATE)]
        if a.details:
            cmd.append("--details")
        return subprocess.run(cmd, cwd=REPO, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
