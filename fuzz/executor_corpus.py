"""The shared conformance corpora decided through an executor and on this machine: every case
(cases.jsonl, then real_cases.jsonl) gets its fixture, a `bastion execute` started on it (a local
process transport, as the tests use), and the same line decided by a Gate over each; the decision,
reason and plan must be the same. Cases with a policy of their own are left out (the corpus's
runner writes their config; the executor reads the project's through itself, which the tests
cover). Prints the counts and every disagreement; exits 1 on any.

    nice -n 10 .venv/bin/python fuzz/executor_corpus.py [--limit N] [--seconds S] [--shard K/N]

`--shard K/N` takes every N-th case from the K-th (1-based), so N processes share one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "conformance"


def _decided(ws: Any, line: str) -> tuple[str, str, str | None]:
    from bastion.policy import Gate, load_settings

    d = Gate(load_settings(ws, os.devnull), ws).decide("bash", {"command": line})
    return d.decision.name, d.verdict.reason, d.analysis.rendered if d.analysis is not None else None


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--limit", type=int, default=0, help="at most this many cases (0: all)")
    p.add_argument("--seconds", type=float, default=0, help="stop after this long (0: no bound)")
    p.add_argument("--shard", default="1/1", help="K/N: the K-th of N interleaved parts (default 1/1)")
    args = p.parse_args()
    try:
        part, parts = (int(n) for n in args.shard.split("/"))
        if not 1 <= part <= parts:
            raise ValueError
    except ValueError:
        p.error(f"--shard {args.shard!r}: K/N with 1 <= K <= N")
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(CORPUS))
    from fixture import build  # type: ignore[import-not-found]

    from bastion.analyzer import recheck_digest
    from bastion.policy import child_env
    from bastion.workspace import ExecutorWorkspace, LocalWorkspace

    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": os.environ.get("HOME", "/"), "LC_ALL": "C"}
    began = time.monotonic()
    compared, differ, seen = 0, [], 0
    for name in ("cases.jsonl", "real_cases.jsonl"):
        for text in (CORPUS / name).read_text().splitlines():
            case = json.loads(text) if text.strip() else {}
            if "cmd" not in case or case.get("policy") or case.get("project_policy"):
                continue
            seen += 1
            if seen % parts != part - 1:
                continue
            if (args.limit and compared >= args.limit) or (
                args.seconds and time.monotonic() - began > args.seconds
            ):
                break
            with tempfile.TemporaryDirectory() as tmp:
                root = str(build(case["fixture"], base_dir=tmp).cwd)
                line = str(case["cmd"]).replace("@ROOT@", root)
                remote = ExecutorWorkspace([sys.executable, "-m", "bastion", "execute", root], env)
                try:
                    there = _decided(remote, line)
                finally:
                    remote.close()
                here = _decided(LocalWorkspace(root, env=child_env(env), recheck=recheck_digest), line)
            compared += 1
            if there != here:
                differ.append(f"{case['id']}: {line!r}: through the executor {there}, here {here}")
    for d in differ:
        print(d)
    took = time.monotonic() - began
    print(
        f"executor corpus (part {part}/{parts}): {compared} cases decided, {len(differ)} disagreements, "
        f"{took:.0f} s"
    )
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
