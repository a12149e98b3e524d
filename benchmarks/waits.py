"""Speed where a person waits (issue 31): whole commands against Python's own start, the first line
of each grammar against a line on a fast path, and the first decision in a fresh directory.

    .venv/bin/python benchmarks/waits.py [--runs N] [--dirs N] [--before REF]

Every figure is a median over N runs (default 15), and each ratio is taken within one run, so a
loaded machine weighs on both sides alike; the runs of every command (and of REF's code, with
--before, checked out in a temporary worktree and put first on PYTHONPATH, or on the module search
path of an isolated `python -I -c` where this checkout runs its command) are interleaved.

- process starts, as ratios to `python -c pass` of the same interpreter: Python's own modules any
  decision imports (`import re, json, typing, enum`: the floor under the next two), `bastion --version`,
  `bastion check -- ls`, `bastion hook claude-code` with a `git status` payload in a repository and
  a user config of twenty rules, both answered by the resident server (bastion/resident: started
  by the warm-up calls before the runs) and both again decided in their own process
  (BASTION_NO_SERVER=1, "in-process");
- the first line of a grammar in a process, as ratios to a line on a fast path: `check` of
  `sed -n '/a/,/b/p' F` against `sed -n 1p F`, and `hook codex` of an apply_patch against a Bash `ls`;
- a first decision in a fresh plain directory, timed inside one `check --jsonl`-like process from
  the request read to the answer written (p50 over --dirs directories, default 1000), and the
  lines per second of `bastion check --jsonl` over as many other fresh directories (one request
  each, the process's start included); the same for fresh git repositories (git status, log,
  diff, show; --dirs // 10 of them each), with the processes a first git decision starts (p50).

The load average is printed before and after.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from checkout import checkout  # this script's directory
from decide import GIT_ENV, HOOK_PAYLOAD, TWENTY_RULES

# Times a first decision in each fresh directory named on stdin, as `check --jsonl` answers it.
# The lines are argv[1:]; the processes a decision starts are counted (a git line's probe: issue 31).
FRESH = """
import json, os, sys, time
from bastion.policy import DryRun, load_json
from bastion.workspace import LocalWorkspace
spawned = []
run = LocalWorkspace.exec
LocalWorkspace.exec = lambda self, argv, **kw: spawned.append(argv) or run(self, argv, **kw)
dry = DryRun(os.devnull)
dirs = sys.stdin.read().split()
lines = sys.argv[1:]
dry.request({"cwd": dirs.pop(), "tool": "bash", "args": {"command": lines[0]}})  # the process warm
times, spawns = [], []
for i, cwd in enumerate(dirs):
    text = json.dumps({"cwd": cwd, "tool": "bash", "args": {"command": lines[i % len(lines)]}})
    spawned.clear()
    start = time.perf_counter_ns()
    json.dumps(dry.request(load_json(text)))
    times.append((time.perf_counter_ns() - start) / 1000)
    spawns.append(len(spawned))
print(json.dumps([times, spawns]))
"""
PLAIN_LINES = ["ls -la", "cat README.md", "grep -n x README.md", "head -5 README.md"]
GIT_LINES = ["git status", "git log --oneline -5", "git diff", "git show --stat"]
PATCH = (
    "*** Begin Patch\n*** Add File: notes/new.md\n+hello\n"
    "*** Update File: README.md\n@@\n-x\n+y\n*** End Patch\n"
)


def _codex(cwd: Path, tool: str, command: str) -> bytes:
    payload = {"session_id": "s", "cwd": str(cwd), "hook_event_name": "PreToolUse", "tool_name": tool}
    return json.dumps({**payload, "tool_input": {"command": command}}).encode()


def _plain(root: Path, count: int, prefix: str, git: bool = False) -> list[Path]:
    made = []
    for i in range(count):
        d = root / f"{prefix}{i}"
        d.mkdir()
        (d / "README.md").write_text("# x\n" * 20)
        if git:
            subprocess.run(["git", "init", "-q"], cwd=d, env=GIT_ENV, check=True)
        made.append(d)
    return made


# REF's code (--before) run as bastion's command runs its own, isolated, with REF's checkout first
# on the module search path (the command's own -I leaves PYTHONPATH out).
_COMMAND = "import sys; sys.path.insert(0, {code!r}); from bastion.cli import main; sys.exit(main())"


class Bench:
    """Runs the commands of one run for each version of the code (None: this checkout's)."""

    def __init__(self, tmp: Path, python: str, versions: dict[str, str | None]) -> None:
        self.tmp, self.python, self.versions = tmp, python, versions
        self.bastion = str(Path(python).with_name("bastion"))
        self.work = tmp / "work"
        self.repo = tmp / "repo"
        _plain(tmp, 1, "work")
        os.rename(tmp / "work0", self.work)
        (self.work / "F").write_text("a\nb\nc\n")
        self.repo.mkdir()
        (self.repo / "README.md").write_text("x\n")
        for step in (
            ["init", "-q"],
            ["add", "-A"],
            ["-c", "user.name=b", "-c", "user.email=b@x", "commit", "-qm", "x"],
        ):
            subprocess.run(["git", *step], cwd=self.repo, env=GIT_ENV, check=True)
        (tmp / "xdg" / "bastion").mkdir(parents=True)
        (tmp / "xdg" / "bastion" / "config.toml").write_text(TWENTY_RULES)
        (tmp / "none").mkdir()

    def env(self, code: str | None, config: bool, server: bool = True) -> dict[str, str]:
        """This checkout or REF's first on PYTHONPATH (both alike), the user config or none; the
        resident server (bastion/resident) used, or not (`server` False: BASTION_NO_SERVER=1)."""
        path = code or str(Path(__file__).resolve().parents[1])
        xdg = self.tmp / ("xdg" if config else "none")
        env = {**GIT_ENV, "PYTHONPATH": path, "XDG_CONFIG_HOME": str(xdg), "HOME": str(self.tmp)}
        env.pop("BASTION_NO_SERVER", None)
        return env if server else {**env, "BASTION_NO_SERVER": "1"}

    def wall(
        self,
        argv: list[str],
        code: str | None,
        cwd: Path,
        stdin: bytes = b"",
        config: bool = False,
        server: bool = True,
    ) -> float:
        if code is not None and argv[0] == self.bastion:  # the launcher's -I would drop PYTHONPATH
            argv = [self.python, "-I", "-c", _COMMAND.format(code=code), *argv[1:]]
        start = time.perf_counter()
        env = self.env(code, config, server)
        done = subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, env=env)
        took = (time.perf_counter() - start) * 1000
        if done.returncode not in (0, 3):
            raise SystemExit(f"{argv} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
        return took

    def commands(self) -> dict[str, Callable[[str | None], float]]:
        b, w = self.bastion, self.work
        hook = HOOK_PAYLOAD.format(cwd=self.repo).encode()
        return {
            "python -c pass": lambda c: self.wall([self.python, "-c", "pass"], c, w),
            # What any line's decision imports of Python's own (the floor under the starts' ratios).
            "python -c 'import re, json, typing, enum'": lambda c: self.wall(
                [self.python, "-c", "import re, json, typing, enum"], c, w
            ),
            "bastion --version": lambda c: self.wall([b, "--version"], c, w),
            "check -- ls": lambda c: self.wall([b, "check", "--", "ls"], c, w),
            "hook claude-code, git status, 20 rules": lambda c: self.wall(
                [b, "hook", "claude-code"], c, self.repo, hook, config=True
            ),
            # The same two decided in their own process (BASTION_NO_SERVER=1): what a call costs
            # without the resident server, or when it cannot be used.
            "check -- ls, in-process": lambda c: self.wall([b, "check", "--", "ls"], c, w, server=False),
            "hook claude-code, git status, 20 rules, in-process": lambda c: self.wall(
                [b, "hook", "claude-code"], c, self.repo, hook, config=True, server=False
            ),
            "check -- sed -n 1p F": lambda c: self.wall([b, "check", "--", "sed -n 1p F"], c, w),
            "check -- sed -n '/a/,/b/p' F": lambda c: self.wall(
                [b, "check", "--", "sed -n '/a/,/b/p' F"], c, w
            ),
            "hook codex, Bash ls": lambda c: self.wall([b, "hook", "codex"], c, w, _codex(w, "Bash", "ls")),
            "hook codex, apply_patch": lambda c: self.wall(
                [b, "hook", "codex"], c, w, _codex(w, "apply_patch", PATCH)
            ),
        }

    def fresh_p50(self, code: str | None, dirs: list[Path], lines: list[str]) -> tuple[float, float]:
        """The p50 of a first decision in each of `dirs` (µs), and the processes one starts (p50)."""
        names = "\n".join(map(str, dirs)).encode()
        done = subprocess.run(
            [self.python, "-c", FRESH, *lines],
            input=names,
            capture_output=True,
            env=self.env(code, False),
            cwd=self.tmp,  # not this checkout: `python -c` puts its directory first on sys.path
            check=True,
        )
        times, spawns = json.loads(done.stdout)
        return float(statistics.median(times)), float(statistics.median(spawns))

    def jsonl_rate(self, code: str | None, dirs: list[Path]) -> float:
        requests = "".join(
            json.dumps({"cwd": str(d), "tool": "bash", "args": {"command": "ls -la"}}) + "\n" for d in dirs
        )
        start = time.perf_counter()
        done = subprocess.run(
            [self.bastion, "check", "--jsonl", "--config", os.devnull],
            input=requests.encode(), capture_output=True, env=self.env(code, False), check=True,
        )  # fmt: skip
        took = time.perf_counter() - start
        answers = [json.loads(line) for line in done.stdout.splitlines()]
        assert len(answers) == len(dirs) and all("decision" in a for a in answers), done.stdout[-300:]
        return len(dirs) / took


def _wait_for_servers() -> None:
    """Until a resident server's socket is there (bastion/resident: in $TMPDIR or /tmp, the
    benchmark's commands having no XDG_RUNTIME_DIR), or 30 s: the code measured may have none."""
    home = Path(os.environ.get("TMPDIR") or "/tmp") / f"bastion-{os.getuid()}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(home.glob("decide-*.sock")):
        time.sleep(0.05)


RATIOS = (
    ("python -c 'import re, json, typing, enum'", "python -c pass", None),
    ("bastion --version", "python -c pass", 1.5),
    ("check -- ls", "python -c pass", 2.0),
    ("hook claude-code, git status, 20 rules", "python -c pass", 3.0),
    ("check -- ls, in-process", "python -c pass", None),
    ("hook claude-code, git status, 20 rules, in-process", "python -c pass", None),
    ("check -- sed -n '/a/,/b/p' F", "check -- sed -n 1p F", 1.2),
    ("hook codex, apply_patch", "hook codex, Bash ls", 1.2),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--dirs", type=int, default=1000)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--before", metavar="REF", help="also measure this commit's code (e.g. main)")
    a = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; cpus: {os.cpu_count()}")
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bastion-waits-")))
        versions: dict[str, str | None] = {"after": None}
        if a.before:
            versions = {
                "before": stack.enter_context(checkout(a.before, str(tmp / "before"), a.python)),
                **versions,
            }
        bench = Bench(tmp, a.python, versions)
        commands = bench.commands()
        for code in versions.values():  # a resident server started (where the code has one) and up
            for _ in range(3):
                commands["check -- ls"](code)
                commands["hook claude-code, git status, 20 rules"](code)
            _wait_for_servers()
        walls: dict[tuple[str, str], list[float]] = {(v, n): [] for v in versions for n in commands}
        fresh: dict[tuple[str, str], list[tuple[float, float]]] = {
            (v, k): [] for v in versions for k in ("plain", "git")
        }
        rates: dict[tuple[str, str], list[float]] = {(v, k): [] for v in versions for k in ("plain", "git")}
        for run in range(a.runs):  # interleaved: every command of every version in each run
            for version, code in versions.items():
                for name, command in commands.items():
                    walls[(version, name)].append(command(code))
            if run < 3:  # the directory figures: three runs, fresh directories each time
                for version, code in versions.items():
                    plain = _plain(tmp, 2 * a.dirs, f"p{run}{version}-")
                    fresh[(version, "plain")].append(bench.fresh_p50(code, plain[: a.dirs], PLAIN_LINES))
                    rates[(version, "plain")].append(bench.jsonl_rate(code, plain[a.dirs :]))
                    repos = _plain(tmp, 2 * max(2, a.dirs // 10), f"g{run}{version}-", git=True)
                    half = len(repos) // 2
                    fresh[(version, "git")].append(bench.fresh_p50(code, repos[:half], GIT_LINES))
                    rates[(version, "git")].append(bench.jsonl_rate(code, repos[half:]))
                    subprocess.run(["rm", "-rf", *map(str, plain), *map(str, repos)], check=True)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {a.runs} runs")
    for version in versions:
        print(f"-- {version}")
        for name in commands:
            times = walls[(version, name)]
            print(f"  {name:<40} median {statistics.median(times):7.1f} ms   fastest {min(times):7.1f} ms")
        for name, base, target in RATIOS:
            ratios = [x / y for x, y in zip(walls[(version, name)], walls[(version, base)], strict=True)]
            goal = f"target <= {target}" if target else "no server" if "in-process" in name else "the floor"
            print(f"  {name} / {base}: x{statistics.median(ratios):.2f} ({goal})")
        for kind, target in (("plain", 170), ("git", 2000)):
            p50 = statistics.median(p for p, _ in fresh[(version, kind)])
            spawns = statistics.median(n for _, n in fresh[(version, kind)])
            where = "plain directory" if kind == "plain" else "git repository"
            print(f"  first decision in a fresh {where}: p50 {p50:,.0f} us (target <= {target:,});"
                  f" processes started: {spawns:g}")  # fmt: skip
        for kind, target in (("plain", 3000), ("git", 400)):
            rate = statistics.median(rates[(version, kind)])
            print(
                f"  check --jsonl over fresh {kind} directories: {rate:,.0f} lines/s (target >= {target:,})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
