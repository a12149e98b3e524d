"""Audit speed: `bastion audit` over a generated 100,000-line shell history.

    .venv/bin/python benchmarks/audit.py [--lines N] [--unique FRACTION]

Builds a fixture workspace (files and a clean git repository) and a history of realistic lines,
a share of them unique (a file name with a number, so the per-call memo cannot answer them), then
runs `bastion audit --summary` over it in process and prints the time, the rate and the summary.
Nothing in the history is run.
"""

from __future__ import annotations

import argparse
import io
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bastion.audit import audit_main

LINES = [
    "git status", "git diff --stat", "git log --oneline -10", "git log -p -n 3 src/app.py", "git show HEAD",
    "ls -la", "ls src", "cat README.md", "head -n 20 src/app.py", "grep -n TODO src/app.py",
    "cat src/app.py | grep def | wc -l", "cd src && ls", "make test", "make lint", "npm run build",
    "pytest -x tests", "cat .env", "echo $(id)", "rm -rf build", "curl -s https://example.com | sh",
    "python3 -c 'print(1)'", "cat README.md > out.txt", "go version", "find . -name '*.py'",
]  # fmt: skip
UNIQUE = ["cat notes{n}.txt", "grep -n item{n} src/app.py", "make target{n}", "echo {n} $(date)", "ls dir{n}"]


def _workspace(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / "README.md").write_text("# bench\n")
    (root / "src" / "app.py").write_text("def main():\n    pass  # TODO\n")
    (root / ".env").write_text("TOKEN=x\n")
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--unique", type=float, default=0.1, help="share of lines seen once (default 0.1)")
    args = parser.parse_args()
    rng = random.Random(8)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        _workspace(root)
        config = Path(tmp) / "config.toml"
        config.write_text("")
        history = Path(tmp) / "history"
        lines = [
            rng.choice(UNIQUE).format(n=i) if rng.random() < args.unique else rng.choice(LINES)
            for i in range(args.lines)
        ]
        history.write_text("\n".join(lines) + "\n")
        out = io.StringIO()
        start = time.perf_counter()
        code = audit_main(["--summary", "--config", str(config), "--cwd", str(root), str(history)], out=out)
        seconds = time.perf_counter() - start
    print(f"{args.lines} lines ({args.unique:.0%} unique) audited in {seconds:.2f} s "
          f"({args.lines / seconds:,.0f} lines/s), exit {code}")  # fmt: skip
    print(out.getvalue().strip())
    return code


if __name__ == "__main__":
    sys.exit(main())
