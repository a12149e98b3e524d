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
# Cases the reference labels `ask` only because its subset was narrower, and which issue 14 widens
# on purpose (each form proved against bash by property 1, its dangerous siblings tested to ask);
# and two it labels `allow` that issue 30 narrows on purpose.
# They are scored as `any` (not scored), and listed on every run, until the corpus is relabelled.
SUPERSEDED = {
    "dax-0985": "grep x *.go: a glob operand, every match read-checked, run after --",
    "dax-1055": "cd sub || ls: ls runs only if cd failed, so in the directory it is judged in",
    "dax-1239": "ls || ls: `||` is in the subset",
    "dax-1242": "ls ; ls: `;` is in the subset",
    "dax-1297": "git status # rm -rf /: bash runs git status only; the comment is not part of the plan",
    "dax-1388": 'ls "x\\y": a backslash bash keeps in double quotes is in the subset',
    "dax-1397": "ls #c: a comment after a space is skipped by bash and not part of the plan",
    "dax-1398": "ls # c: likewise",
    # echo and true have checkers: the line runs unasked as its neutralised plan (git -c ... per key),
    # so the repository's config no longer counts; each traced in its fixture, no program run
    # (tests/analyzer/test_superseded14.py).
    "dax-0658": "git status && echo hi: auto, the plan sets core.fsmonitor=false, /bin/true never runs",
    "dax-0659": "git diff | head && echo done: auto, the plan sets core.fsmonitor=false",
    "dax-0662": "echo hi && git status -s: auto, the plan sets core.hooksPath=/dev/null",
    "dax-0663": "echo a && git show HEAD && echo b: auto, the plan sets core.hooksPath=/dev/null",
    "dax-0669": "git diff | head && echo done: auto, the plan sets core.pager=cat and --no-pager",
    "dax-0673": "git status && echo hi: auto, the plan sets gpg.program=/bin/false (no signature read)",
    "dax-0674": "echo a && git show HEAD && echo b: auto, the plan sets gpg.program and log.showSignature",
    "dax-0677": "echo hi && git status -s: auto, the plan sets gpg.openpgp.program=/bin/false",
    "dax-0845": "git log | cat: cat after a pipe reads standard input only, a filter like head",
    "dax-1267": "echo hi && git status: echo has a checker; the plan sets core.sshCommand=ssh",
    "dax-1275": "go env GOTOOLCHAIN && true: true is a builtin with a checker; go env of a plain setting",
    "dax-1276": "echo a && echo b | tr b c: echo and tr have checkers; they print words, run nothing",
    "dax-1285": "git remote -v; true: `;` is in the subset and true has a checker; URLs shown redacted"
    " (a hook asks since issue 30, as the case's URLs hold credentials)",
    "dax-0197": "git show HEAD:sub/x: REV:path judged as a read from the repository's top, which must"
    " lie inside the workspace (above it, it asks)",
    "dax-1367": "git show main:cmd/dax/main.go: likewise",
    "dax-1088": "git -C sub status && ls: -C into a directory inside, probed there, before a read-only form",
    "dax-1335": "git -C . status: likewise",
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
    print(f"conformance: {len(SUPERSEDED)} cases scored as `any` (labels issues 14, 30 and 33 supersede):")
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
