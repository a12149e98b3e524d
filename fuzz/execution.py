"""The execution oracle for property 2: an auto-allowed line, run for real in a scratch copy of a
fixture, changes nothing, reads no secret and runs nothing hostile. The tree (names, types, sizes,
contents, modes, link targets) is the same after, HOME and TMPDIR (scratch directories) stay empty,
no process of the run's session is left, no canary (fixtures.CANARIES) shows in its output, and
under `strace -f` no file is opened for writing (outside /dev/null and /dev/tty), no file holding a
canary is opened at all, no file is created, removed, renamed, linked or re-moded, and no program
runs but the plan's own commands, bash and git's own helpers, none of them from the fixture's
directory (a program of the repository's on PATH, whatever its name). A variant with a PATH of its
own, or variables of its own (the user's or the system's git config: fuzz/filters43.py), is decided
and run with them: bastion's workspace has them, and a hook decides under them.

A line is run as bastion runs it (the rendered plan in the neutral environment when stamped, else
the line as typed) or, with `agent=` "claude", "codex" or "gemini", as that CLI runs what bastion's
hook for it answered, in the plain environment with what the CLI adds to it (hook_runs.py; issue 12
class 6, issue 30 class 7). The programs a login shell's own start-up runs (`bash -lc :` in the
same environment: Codex's) are the CLI's, not the plan's. What a plan bastion runs
prints is checked as its bash tool shows it (a URL's userinfo hidden); what another agent runs, as
printed."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from bastion.analyzer import Stamper, neutral_env, redact_userinfo
from bastion.grammar import Outside, Plan, parse
from bastion.policy import STAMP_ARG, Decision, Gate, load_settings
from bastion.workspace import LocalWorkspace

from .fixtures import CANARY, HOSTILE_CONFIG, MAX_READ, build, copy, scratch_env
from .hook_runs import HOOK_AGENTS, as_the_cli_runs, cli_env, hook_answer
from .hostile import VARIANTS

__all__ = ["Fixture", "Outcome", "ReadOnlyRunner", "canaries_in", "snapshot", "strace_violations"]

Fixture = int | str | None  # benign, an entry of HOSTILE_CONFIG, or a variant of fuzz/hostile.py

STRACE = shutil.which("strace")
_OPEN = re.compile(r'^(?:open|openat|openat2|creat)\((?:[^,"]+, )?"((?:[^"\\]|\\.)*)",? ?([A-Z_|0-9]*)')
_OPENED = re.compile(r"= \d+(?: <[^>]*>)?$")
_CHDIR = re.compile(r'^chdir\("((?:[^"\\]|\\.)*)"\) = 0$')
_SYSTEM = ("/usr/", "/lib", "/etc/", "/proc/", "/dev/", "/sys/", "/bin/", "/sbin/", "/run/")
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


def _holds_canary(path: str) -> bool:
    try:
        if not os.path.isfile(path):
            return False
        with open(path, "rb") as f:
            return CANARY.encode() in f.read(1 << 20)
    except OSError:
        return False


def _secret_read(path: str, ws: Path, dirs: list[str], program: str = "") -> bool:
    """Whether an opened path (relative ones tried against the workspace and every directory the
    process changed to) is a file holding a canary: a secret inside, or a file outside. git reads
    its own git directory (its config, which may hold a credential's canary: issue 30): what it
    prints of it is the output's check."""
    if path.startswith(_SYSTEM):
        return False
    if program == "git" and ".git" in path.split("/"):
        return False
    if os.path.isabs(path):
        return _holds_canary(path)
    return any(_holds_canary(os.path.join(ws, d, path)) for d in ("", *dirs))


def _workspace_program(program: str, ws: Path, dirs: list[str]) -> bool:
    """Whether an executed path is inside the fixture's base directory (the workspace, or beside
    it), or relative: a program of the repository's, whatever its name (issue 30, class 5)."""
    if not os.path.isabs(program):
        return True
    base = os.path.realpath(ws.parent)
    real = os.path.realpath(program)
    return real == base or real.startswith(base + os.sep)


def strace_violations(log_prefix: str, commands: set[str], ws: Path | None = None) -> list[str]:
    """What the strace logs (one per process) show that a read-only run must not do; with `ws`,
    an open of a file that holds a canary is one too."""
    bad: list[str] = []
    directory, stem = os.path.split(log_prefix)
    first_exec = True
    for name in sorted(os.listdir(directory)):
        if not name.startswith(stem + "."):
            continue
        dirs: list[str] = []
        program = ""  # what the process runs since its last exec
        with open(os.path.join(directory, name), errors="replace") as f:
            for line in f:
                line = line.strip()
                if m := _CHDIR.match(line):
                    dirs.append(m.group(1))
                elif m := _OPEN.match(line):
                    if any(flag in m.group(2) for flag in _WRITE_FLAGS):
                        if m.group(1) not in ("/dev/null", "/dev/tty"):
                            bad.append(f"open for writing: {line}")
                    elif (
                        ws is not None
                        and _OPENED.search(line)
                        and _secret_read(m.group(1), ws, dirs, program)
                    ):
                        bad.append(f"read of a secret: {line}")
                elif _MUTATING.match(line):
                    bad.append(f"file system change: {line}")
                elif m := _EXEC.match(line):
                    executed = m.group(1)
                    base = os.path.basename(executed)
                    program = "git" if base == "git" or executed.startswith(_GIT_EXEC_PATH + "/") else base
                    if first_exec and base == "bash":
                        first_exec = False
                        continue
                    if ws is not None and _workspace_program(executed, ws, dirs):
                        bad.append(f"exec of a program of the workspace: {line}")
                        continue
                    if base in commands or (executed.startswith(_GIT_EXEC_PATH + "/") and "git" in commands):
                        continue
                    bad.append(f"exec of a program not in the plan: {line}")
    return bad


def _plan_commands(plan: Plan | Outside) -> set[str]:
    """The programs a line's plan may start: its stages' commands, and the one a find -exec or an
    xargs stage runs on the names it hands on (design rule 65)."""
    if not isinstance(plan, Plan):
        return set()
    # Private: the inner command of a composed line is the seam the oracle compares.
    from bastion.analyzer.composition._compose import inner_command

    named = {s.command for s in plan.stages}
    return named | {c for c in map(inner_command, plan.stages) if c}


def canaries_in(output: bytes, line: str) -> list[str]:
    """The canary tokens an output shows (a line that names one itself excepted)."""
    if CANARY in line:
        return []
    found = re.findall(re.escape(CANARY.encode()) + rb"[a-z-]+", output)
    return sorted({t.decode() for t in found})


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
    hostile: Fixture
    decision: Decision
    ran: str | None = None  # what ran ("rendered", "raw" or "hook"), None if not allowed
    problems: list[str] = field(default_factory=list)
    agent: str = "bastion"


class ReadOnlyRunner:
    """Fixture templates (benign, hostile git config, hostile repositories) under `work`, built when
    first used; scratch copies reused while a run leaves them unchanged. `agent` is who runs an
    allowed line: bastion, or a CLI of HOOK_AGENTS after bastion's hook for it."""

    def __init__(self, work: Path, hostile: tuple[Fixture, ...] = HOSTILE_SAMPLE, trace: bool = True) -> None:
        self.work = work
        self.trace = trace and STRACE is not None
        self.fixtures = hostile
        self.templates: dict[Fixture, Path] = {}
        self.scratch: dict[Fixture, Path] = {}
        self.user_config = work / "user.toml"
        self.user_config.write_text(f"max_read_bytes = {MAX_READ}\n")
        self.stamper = Stamper()
        self.executed = 0
        self.decided = 0
        self._startups: dict[str, set[str]] = {}

    def _ws(self, hostile: Fixture) -> Path:
        if hostile not in self.scratch:
            if hostile not in self.templates:
                self.templates[hostile] = build(self.work / f"template-{_slug(hostile)}", hostile)
            fresh = isinstance(hostile, str) and VARIANTS[hostile].fresh
            dest = self.work / f"scratch-{_slug(hostile)}"
            self.scratch[hostile] = copy(self.templates[hostile], dest, refresh=not fresh)
        return self.scratch[hostile]

    def check(self, line: str, hostile: Fixture = None, agent: str = "bastion") -> Outcome:
        ws_path = self._ws(hostile)
        plan = parse(line)
        commands = _plan_commands(plan)
        variant = VARIANTS.get(hostile) if isinstance(hostile, str) else None
        path = variant.path(ws_path) if variant is not None and variant.path is not None else None
        base_env = scratch_env(self.work / "home", self.work / "tmp", path)
        extra = variant.env(ws_path) if variant is not None and variant.env is not None else {}
        base_env.update(extra)
        shell: tuple[str, ...] = ("bash", "-c")
        if agent in HOOK_AGENTS:
            # the hook runs in the other agent's environment
            with _process_path(base_env["PATH"]), _process_env(extra):
                out, command = self._hook(line, hostile, ws_path, agent)
            env = cli_env(agent, base_env)
            script = None if command is None else as_the_cli_runs(agent, command)[-1]
            shell = tuple(as_the_cli_runs(agent, "")[:-1])
            if command is not None and shell == ("bash", "-lc"):
                commands = commands | self._startup(env)
        else:
            out, script, env = self._bastion(line, hostile, ws_path, base_env)
        self.decided += 1
        if script is None:
            return out
        # bastion's bash tool shows a verified plan's output with URL userinfo hidden
        out.problems = self._run(
            ws_path, script, env, commands, line, redact=out.ran == "rendered", shell=shell
        )
        self.executed += 1
        if out.problems:
            self.scratch.pop(hostile, None)
        return out

    def _bastion(
        self, line: str, hostile: Fixture, ws_path: Path, base_env: dict[str, str]
    ) -> tuple[Outcome, str | None, dict[str, str]]:
        ws = LocalWorkspace(str(ws_path), env=base_env)  # the environment bastion's bash tool runs with
        settings = load_settings(ws, str(self.user_config))
        decided = Gate(settings, ws, self.stamper).decide("bash", {"command": line})
        out = Outcome(line, hostile, decided.decision)
        if decided.decision is not Decision.ALLOW:
            return out, None, base_env
        analysis = decided.analysis
        if analysis is not None and analysis.auto and analysis.rendered and STAMP_ARG in decided.args:
            out.ran = "rendered"
            return out, analysis.rendered, neutral_env(base_env)
        out.ran = "raw"
        return out, line, base_env

    def check_tool(self, tool: str, args: dict[str, object], hostile: Fixture = None) -> Outcome:
        """A file tool's call (read, grep, glob, ls) decided by the gate and, when allowed, run by
        bastion's own tool: its output must show no canary (the tools run in-process: no strace)."""
        from bastion.agent.tools import AGENT_TOOLS, ToolContext

        ws_path = self._ws(hostile)
        ws = LocalWorkspace(str(ws_path))
        gate = Gate(load_settings(ws, str(self.user_config)), ws, self.stamper)
        decided = gate.decide(tool, args)
        self.decided += 1
        out = Outcome(f"{tool} {json.dumps(args, sort_keys=True)}", hostile, decided.decision, agent="tool")
        if decided.decision is not Decision.ALLOW:
            return out
        out.ran = "tool"
        result = AGENT_TOOLS[tool].run(decided.args, ToolContext(gate))
        self.executed += 1
        shown = canaries_in(result.text.encode("utf-8", "surrogateescape"), "")
        if shown:
            out.problems.append(f"the output shows a secret's canary: {shown}")
        return out

    def _hook(self, line: str, hostile: Fixture, ws_path: Path, agent: str) -> tuple[Outcome, str | None]:
        """What the CLI runs after bastion's hook for it answered (hook_runs.py), None when the hook
        does not allow the line."""
        rollout = self.work / f"rollout-{_slug(hostile)}.jsonl"
        decision, command = hook_answer(agent, line, ws_path, str(self.user_config), rollout)
        out = Outcome(line, hostile, decision, agent=agent)
        if decision is not Decision.ALLOW or command is None:
            return out, None
        out.ran = "hook"
        return out, command

    def _startup(self, env: dict[str, str]) -> set[str]:
        """The programs a login shell runs at its start in `env` (`bash -lc :` under strace): the
        CLI's own, whatever line follows."""
        key = json.dumps(env, sort_keys=True)
        if key not in self._startups:
            found: set[str] = set()
            if self.trace:
                assert STRACE is not None
                logdir = tempfile.mkdtemp(dir=self.work)
                prefix = os.path.join(logdir, "trace")
                argv = [STRACE, "-f", "-ff", "-qq", "-e", "trace=execve", "-o", prefix, "bash", "-lc", ":"]
                subprocess.run(argv, env=env, cwd=self.work, capture_output=True, timeout=30, check=False)
                for name in os.listdir(logdir):
                    with open(os.path.join(logdir, name), errors="replace") as f:
                        found |= {os.path.basename(m.group(1)) for m in map(_EXEC.match, f) if m}
                shutil.rmtree(logdir, ignore_errors=True)
            self._startups[key] = found - {"bash"}
        return self._startups[key]

    def _run(
        self,
        ws: Path,
        script: str,
        env: dict[str, str],
        commands: set[str],
        line: str = "",
        redact: bool = False,
        shell: tuple[str, ...] = ("bash", "-c"),
    ) -> list[str]:
        home, tmp = self.work / "home", self.work / "tmp"
        for d in (home, tmp):
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir()
        before = snapshot(ws.parent)
        logdir = tempfile.mkdtemp(dir=self.work)
        prefix = os.path.join(logdir, "trace")
        argv = [*shell, script]
        if self.trace:
            assert STRACE is not None
            argv = [
                STRACE,
                "-f",
                "-ff",
                "-qq",
                "-s",
                "4096",
                "-e",
                "trace=%file,%process",
                "-o",
                prefix,
                *argv,
            ]
        problems: list[str] = []
        with open(os.path.join(logdir, "output"), "w+b") as output:
            proc = subprocess.Popen(
                argv,
                cwd=ws,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                start_new_session=True,
            )
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
            output.seek(0)
            printed = output.read(64 << 20)
            if redact:
                printed = redact_userinfo(printed.decode("utf-8", "surrogateescape")).encode(
                    "utf-8", "surrogateescape"
                )
            shown = canaries_in(printed, line or script)
        if shown:
            problems.append(f"the output shows a secret's canary: {shown}")
        after = snapshot(ws.parent)
        if after != before:
            changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            problems.append(f"the tree changed: {changed[:10]}")
        for d in (home, tmp):
            if os.listdir(d):
                problems.append(f"{d.name} was written: {os.listdir(d)[:10]}")
        if self.trace:
            problems.extend(strace_violations(prefix, commands, ws))
        shutil.rmtree(logdir, ignore_errors=True)
        return problems


@contextlib.contextmanager
def _process_path(path: str) -> Iterator[None]:
    """This process's PATH set to `path` for a while (a dry-run looks programs up on its own)."""
    before = os.environ.get("PATH")
    os.environ["PATH"] = path
    try:
        yield
    finally:
        if before is None:
            del os.environ["PATH"]
        else:
            os.environ["PATH"] = before


@contextlib.contextmanager
def _process_env(extra: dict[str, str]) -> Iterator[None]:
    """This process's environment with `extra` set for a while (a variant's variables)."""
    before = {name: os.environ.get(name) for name in extra}
    os.environ.update(extra)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def _slug(hostile: Fixture) -> str:
    return re.sub(r"[^A-Za-z0-9.@-]", "_", str(hostile))


def hostile_names() -> dict[int, str]:
    return {i: key for i, (key, _) in enumerate(HOSTILE_CONFIG)}
