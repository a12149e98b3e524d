"""The execution oracle for property 2: an auto-allowed line, run for real in a scratch copy of a
fixture, changes nothing. The tree (names, types, sizes, contents, modes, link targets) is the
same after, HOME and TMPDIR (scratch directories) stay empty, no process of the run's session is
left, and under `strace -f` no file is opened for writing (outside /dev/null and /dev/tty), no file
is created, removed, renamed, linked or re-moded, and no program runs but the plan's own commands,
bash and git's own helpers."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from bastion.analyzer import LocalWorkspace, Stamper
from bastion.analyzer._neutral import neutral_env
from bastion.grammar import Plan, parse
from bastion.policy import Decision, load_settings
from bastion.policy._gate import STAMP_ARG, Gate

from .fixtures import HOSTILE_CONFIG, MAX_READ, build, copy, scratch_env

__all__ = ["Outcome", "ReadOnlyRunner", "snapshot", "strace_violations"]

STRACE = shutil.which("strace")
_OPEN = re.compile(r'^(?:open|openat|openat2|creat)\((?:[^,"]+, )?"((?:[^"\\]|\\.)*)",? ?([A-Z_|0-9]*)')
_WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")
_MUTATING = re.compile(
    r"^(mkdir|mkdirat|unlink|unlinkat|rmdir|rename|renameat|renameat2|link|linkat|symlink|symlinkat|"
    r"chmod|fchmodat|chown|lchown|fchownat|truncate|utimes|utimensat|mknod|mknodat)\("
)
_EXEC = re.compile(r'^execve\("((?:[^"\\]|\\.)*)".* = 0$')
_GIT_EXEC_PATH = subprocess.run(["git", "--exec-path"], capture_output=True, text=True).stdout.strip()
HOSTILE_SAMPLE = (None, 0, 1, 3, 4, 5, 8, 11)  # benign, fsmonitor, pager, diff.external, textconv, ...


def snapshot(base: Path) -> dict[str, tuple[object, ...]]:
    """Every entry under `base` (not following links): type, size, mode, content hash or target."""
    out: dict[str, tuple[object, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(base):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            rel = os.path.relpath(path, base)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
                out[rel] = ("file", st.st_size, st.st_mode, digest)
            else:
                out[rel] = (stat.S_IFMT(st.st_mode), st.st_mode)
    return out


def strace_violations(log_prefix: str, commands: set[str]) -> list[str]:
    """What the strace logs (one per process) show that a read-only run must not do."""
    bad: list[str] = []
    directory, stem = os.path.split(log_prefix)
    first_exec = True
    for name in sorted(os.listdir(directory)):
        if not name.startswith(stem + "."):
            continue
        with open(os.path.join(directory, name), errors="replace") as f:
            for line in f:
                line = line.strip()
                if (m := _OPEN.match(line)) and any(flag in m.group(2) for flag in _WRITE_FLAGS):
                    if m.group(1) not in ("/dev/null", "/dev/tty"):
                        bad.append(f"open for writing: {line}")
                elif _MUTATING.match(line):
                    bad.append(f"file system change: {line}")
                elif m := _EXEC.match(line):
                    program = m.group(1)
                    base = os.path.basename(program)
                    if first_exec and base == "bash":
                        first_exec = False
                        continue
                    if base in commands or (program.startswith(_GIT_EXEC_PATH + "/") and "git" in commands):
                        continue
                    bad.append(f"exec of a program not in the plan: {line}")
    return bad


def _session_left(sid: int) -> list[int]:
    left = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:
            left.append(int(entry))
    return left


@dataclass
class Outcome:
    line: str
    hostile: int | None
    decision: Decision
    ran: str | None = None  # what ran ("rendered" or "raw"), None if not allowed
    problems: list[str] = field(default_factory=list)


class ReadOnlyRunner:
    """Fixture templates (benign and hostile git config) under `work`, scratch copies reused while
    a run leaves them unchanged."""

    def __init__(
        self, work: Path, hostile: tuple[int | None, ...] = HOSTILE_SAMPLE, trace: bool = True
    ) -> None:
        self.work = work
        self.trace = trace and STRACE is not None
        self.templates = {h: build(work / f"template-{h}", h) for h in hostile}
        self.scratch: dict[int | None, Path] = {}
        self.user_config = work / "user.toml"
        self.user_config.write_text(f"max_read_bytes = {MAX_READ}\n")
        self.stamper = Stamper()
        self.executed = 0
        self.decided = 0

    def _ws(self, hostile: int | None) -> Path:
        if hostile not in self.scratch:
            self.scratch[hostile] = copy(self.templates[hostile], self.work / f"scratch-{hostile}")
        return self.scratch[hostile]

    def check(self, line: str, hostile: int | None = None) -> Outcome:
        ws_path = self._ws(hostile)
        ws = LocalWorkspace(str(ws_path))
        settings = load_settings(ws, str(self.user_config))
        decided = Gate(settings, ws, self.stamper).decide("bash", {"command": line})
        self.decided += 1
        out = Outcome(line, hostile, decided.decision)
        if decided.decision is not Decision.ALLOW:
            return out
        analysis = decided.analysis
        plan = parse(line)
        commands = {s.command for s in plan.stages} if isinstance(plan, Plan) else set()
        base_env = scratch_env(self.work / "home", self.work / "tmp")
        if analysis is not None and analysis.auto and analysis.rendered and STAMP_ARG in decided.args:
            out.ran, script, env = "rendered", analysis.rendered, neutral_env(base_env)
        else:
            out.ran, script, env = "raw", line, base_env
        out.problems = self._run(ws_path, script, env, commands)
        self.executed += 1
        if out.problems:
            self.scratch.pop(hostile, None)
        return out

    def _run(self, ws: Path, script: str, env: dict[str, str], commands: set[str]) -> list[str]:
        home, tmp = self.work / "home", self.work / "tmp"
        for d in (home, tmp):
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir()
        before = snapshot(ws.parent)
        logdir = tempfile.mkdtemp(dir=self.work)
        prefix = os.path.join(logdir, "trace")
        argv = ["bash", "-c", script]
        if self.trace:
            assert STRACE is not None
            argv = [STRACE, "-f", "-ff", "-qq", "-s", "4096", "-e", "trace=%file,%process", "-o", prefix,
                    *argv]
        problems: list[str] = []
        proc = subprocess.Popen(argv, cwd=ws, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            problems.append("the run did not end within 30 s")
        left = _session_left(proc.pid)
        if left:
            problems.append(f"processes left behind: {left}")
            for pid in left:
                with contextlib.suppress(OSError):
                    os.kill(pid, 9)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        after = snapshot(ws.parent)
        if after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            problems.append(f"the tree changed: {changed[:10]}")
        for d in (home, tmp):
            if os.listdir(d):
                problems.append(f"{d.name} was written: {os.listdir(d)[:10]}")
        if self.trace:
            problems.extend(strace_violations(prefix, commands))
        shutil.rmtree(logdir, ignore_errors=True)
        return problems


def hostile_names() -> dict[int, str]:
    return {i: key for i, (key, _) in enumerate(HOSTILE_CONFIG)}
