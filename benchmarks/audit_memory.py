"""Audit memory: the peak resident memory of `bastion audit` over a generated Claude Code transcript
of about 1 GB, beside the same audit of a small one.

    .venv/bin/python benchmarks/audit_memory.py [--megabytes N] [--result-kib K] [--huge-mib H]

Writes, in a temporary directory, a transcript as Claude Code keeps one: each turn an assistant
line with one Bash tool_use (a realistic command line, a tenth of them seen once) and a user line
with its tool_result (K KiB of output, 24 by default), and one result of H MiB (40 by default:
what an image or a huge output can make; longer than the audit reads, 32 MiB). Then runs
`bastion audit --summary` over it in a process of its own and prints its wall time and peak
resident set size (VmHWM), the baseline's (the same audit of a transcript of about 200 calls,
which loads the same code), and the difference a call read. Nothing in the transcript is run.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = [
    "git status", "git diff --stat", "git log --oneline -10", "ls -la", "ls src", "cat README.md",
    "head -n 20 src/app.py", "grep -n TODO src/app.py", "make test", "pytest -x tests", "cat .env",
    "rm -rf build", "find . -name '*.py'", "cat src/app.py | grep def | wc -l", "python3 -c 'print(1)'",
]  # fmt: skip
UNIQUE = ["cat notes{n}.txt", "grep -n item{n} src/app.py", "make target{n}", "ls dir{n}"]


def _turn(rng: random.Random, n: int, output: str, cwd: str) -> bytes:
    command = rng.choice(UNIQUE).format(n=n) if rng.random() < 0.1 else rng.choice(COMMANDS)
    use = {"type": "tool_use", "id": f"toolu_{n}", "name": "Bash", "input": {"command": command}}
    assistant = {"type": "assistant", "sessionId": "bench", "cwd": cwd,
                 "message": {"role": "assistant", "content": [use]}}  # fmt: skip
    result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": output}
    user = {"type": "user", "sessionId": "bench", "message": {"role": "user", "content": [result]}}
    return (json.dumps(assistant) + "\n" + json.dumps(user) + "\n").encode()


def write_transcript(path: Path, size: int, result: int, huge: int) -> int:
    """A transcript of about `size` bytes, each result `result` bytes and one `huge` (0: none), its
    calls run in the directory it is in; the number of calls in it."""
    cwd = str(path.parent)
    rng = random.Random(9)
    output = ("line of tool output that a command printed\n" * (result // 43 + 1))[:result]
    calls = 0
    with path.open("wb") as out:
        while out.tell() < size:
            out.write(_turn(rng, calls, output, cwd))
            calls += 1
            if huge and calls == 100:
                out.write(_turn(rng, calls, "x" * huge, cwd))
                calls += 1
    return calls


# The audit in a process of its own that says its peak resident set when it ends: VmHWM, the
# high-water mark of its own address space (ru_maxrss would count the memory of the process it was
# forked from, before its exec).
_MEASURED = (
    "import sys\n"
    "from bastion.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "hwm = [line for line in open('/proc/self/status') if line.startswith('VmHWM:')][0]\n"
    "sys.stderr.write(hwm.split()[1] + '\\n')\n"
    "sys.exit(code)\n"
)


def peak(args: list[str], cwd: Path) -> tuple[int, float, int, str]:
    """The exit status, wall seconds and peak resident KiB of `bastion ARGS`, and its summary line."""
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _MEASURED, *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - start
    summary = next((line for line in done.stdout.splitlines() if " calls: " in line), "")
    return done.returncode, seconds, int(done.stderr.strip().splitlines()[-1]), summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=1024)
    parser.add_argument("--result-kib", type=int, default=24)
    parser.add_argument("--huge-mib", type=float, default=40, help="the one huge result (0: none)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "config.toml").write_text("")
        transcript, small = root / "transcript.jsonl", root / "small.jsonl"
        write_transcript(small, 200 * (args.result_kib << 10), args.result_kib << 10, 0)
        start = time.perf_counter()
        huge = int(args.huge_mib * (1 << 20))
        calls = write_transcript(transcript, args.megabytes << 20, args.result_kib << 10, huge)
        size = transcript.stat().st_size
        wrote = time.perf_counter() - start
        print(f"transcript: {size / (1 << 20):,.0f} MiB, {calls:,} calls, written in {wrote:.1f} s")
        audit = [
            "audit",
            "--summary",
            "--config",
            str(root / "config.toml"),
            "--cwd",
            str(root),
            "--format",
            "claude",
        ]
        _, _, base, _ = peak([*audit, str(small)], root)
        code, seconds, top, last = peak([*audit, str(transcript)], root)
    print(f"baseline (the same audit of about 200 calls): peak {base / 1024:,.0f} MiB")
    above = top - base
    print(f"audit: exit {code}, {seconds:.1f} s, peak {top / 1024:,.0f} MiB ({above / 1024:,.0f} MiB above "
          f"the baseline, {above * 1024 / max(calls, 1):,.0f} bytes a call); {last}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
