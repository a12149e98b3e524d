"""The argv oracle: run a plan (rendered, and the raw line as typed) with real `bash -c`, every
command replaced by a recorder that writes its argv NUL-separated, and compare with the parser.

Rendered plans get each command word rewritten to an absolute recorder path named after the line
and stage (`L3S1`), so every stage's record is known by name. A raw line is run unchanged with a
directory of recorders (one per name in RAW_COMMANDS) first on PATH and those names' builtins
disabled; its records are compared with the plan's stages as a multiset (pipeline stages run at
once). Lines are run in batches in one bash; a batch that disagrees is re-run line by line so the
line that disagrees is named. A glob word is expected to expand as bash's defaults do (no
dotglob, no nullglob, C-locale order), and every name bash produced must be one the analyzer's
own expansion saw. Every recorder succeeds but the last stage before `||`, which fails, so that
every stage of a line runs and is recorded whatever joins it (a raw line whose `||` cannot be
made to run so is checked rendered only)."""

from __future__ import annotations

import fnmatch
import os
import posixpath
import subprocess
from dataclasses import dataclass
from pathlib import Path

# Private: the analyzer's glob expansion is what the oracle checks against bash's.
from bastion.analyzer.commands._glob import expand
from bastion.grammar import Operator, Pipeline, Plan, Stage, Word, parse, render, render_word
from bastion.workspace import LocalWorkspace

from .fixtures import scratch_env
from .strategies import RAW_COMMANDS

__all__ = ["ArgvOracle", "Mismatch", "bash_glob"]

_RECORDER = """#!/bin/sh
if [ -n "$REC_OUT" ]; then f="$REC_OUT/$$"; else f="$REC_DIR/${0##*/}"; fi
printf '%s\\0' "${0##*/}" "$@" > "$f"
if [ -z "$REC_OUT" ] && [ -e "$REC_DIR/fail.${0##*/}" ]; then exit 1; fi
"""
_BATCH = 200
# Function recorders: the same word expansion as a program's argv, without a fork and exec each.
# A recorder returns the status REC_ST holds for its argv (0 if none), so that every stage runs.
_FUNCTIONS = (
    "rec_n=0\ndeclare -A REC_ST\nrec() {{ rec_n=$((rec_n+1)); builtin printf '%s\\0' \"$@\" > "
    '"$REC_OUT/$BASHPID.$rec_n"; local k; builtin printf -v k \'%s\\x01\' "$@"; '
    'return "${{REC_ST[$k]:-0}}"; }}'
    "\n{defs}\n"
)
_MAX_STAGES = 64


@dataclass(frozen=True, slots=True)
class Mismatch:
    line: str
    how: str  # "rendered", "raw" or "glob"
    expected: object
    got: object


def bash_glob(cwd: Path, pattern: str) -> list[str]:
    """What bash 5 with default options makes of an unquoted glob word in `cwd`."""
    parts = pattern.split("/")
    paths = [""]
    globbed = False
    for i, part in enumerate(parts):
        sep = "/" if i else ""
        if "*" not in part and "?" not in part:
            paths = [p + sep + part for p in paths]
            continue
        globbed = True
        found: list[str] = []
        for p in paths:
            directory = cwd / (p if p else ("/" if i else "."))
            if not directory.is_dir():
                continue
            try:
                names = os.listdir(directory)
            except OSError:
                continue
            for name in names:
                if name.startswith(".") and not part.startswith("."):
                    continue
                if fnmatch.fnmatchcase(name, part):
                    found.append(p + sep + name)
        paths = found
    if globbed:
        if parts[-1] == "":
            paths = [p for p in paths if (cwd / p).is_dir()]
        else:
            paths = [p for p in paths if os.path.lexists(cwd / p)]
    matches = sorted(paths, key=lambda p: p.encode("utf-8", "surrogateescape"))
    return matches or [pattern]


def statuses(plan: Plan) -> list[int]:
    """Per stage, the status its recorder returns so that every pipeline runs: the last stage of a
    pipeline followed by `||` fails, every other stage succeeds (a pipeline's status is its last
    stage's, and `&&`, `;` and a newline run the next after a success)."""
    out: list[int] = []
    for i, pipeline in enumerate(plan.pipelines):
        fails = i < len(plan.operators) and plan.operators[i] is Operator.OR
        out += [0] * (len(pipeline.stages) - 1) + [1 if fails else 0]
    return out


class ArgvOracle:
    """Recorders under `work`, run against the fixture workspace `ws` (not modified)."""

    def __init__(self, work: Path, ws: Path, exec_recorders: bool = False) -> None:
        self.exec_recorders = exec_recorders
        self.ws = ws
        self.bin = work / "rec-bin"
        self.raw_bin = work / "rec-raw"
        self.out = work / "rec-out"
        self.home = work / "home"
        for d in (self.bin, self.raw_bin, self.out, self.home):
            d.mkdir(parents=True, exist_ok=True)
        recorder = work / "recorder.sh"
        recorder.write_text(_RECORDER)
        os.chmod(recorder, 0o755)
        for i in range(_BATCH):
            for j in range(_MAX_STAGES):
                os.symlink(recorder, self.bin / f"L{i}S{j}")
        for name in RAW_COMMANDS:
            os.symlink(recorder, self.raw_bin / name)
        self.lws = LocalWorkspace(str(ws))
        self.lines_checked = 0

    def _env(self) -> dict[str, str]:
        env = scratch_env(self.home, self.home, f"{self.raw_bin}:/usr/bin:/bin")
        env["REC_DIR"] = str(self.out)
        return env

    def expected(self, stage: Stage) -> list[str]:
        words: list[str] = []
        for w in stage.args:
            words.extend(bash_glob(self.ws, w.text) if w.glob else [w.text])
        return words

    def _clear(self) -> None:
        for entry in os.scandir(self.out):
            if entry.is_dir(follow_symlinks=False):
                for inner in os.scandir(entry.path):
                    os.unlink(inner.path)
                os.rmdir(entry.path)
            else:
                os.unlink(entry.path)

    def _bash(self, script: str) -> None:
        subprocess.run(
            ["bash", "-c", script],
            cwd=self.ws,
            env=self._env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
            check=False,
        )

    def _read(self, path: Path) -> list[str] | None:
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        return [p.decode("utf-8", "surrogateescape") for p in data.split(b"\0")[:-1]]

    def _rendered_batch(self, plans: list[Plan]) -> list[int]:
        """Indexes of the plans whose rendered run disagreed."""
        self._clear()
        scripts = []
        for i, plan in enumerate(plans):
            pipelines, j = [], 0
            for pipeline in plan.pipelines:
                stages = []
                for stage in pipeline.stages:
                    name = str(self.bin / f"L{i}S{j}") if self.exec_recorders else f"L{i}S{j}"
                    words = (Word(name), *stage.args)
                    stages.append(Stage(words, stage.redirects))
                    j += 1
                pipelines.append(Pipeline(tuple(stages)))
            scripts.append(render(plan._replace(pipelines=tuple(pipelines))))
        prologue = ""
        if not self.exec_recorders:
            body = 'builtin printf \'%s\\0\' "$FUNCNAME" "$@" > "$REC_DIR/$FUNCNAME"'
            defs = "\n".join(
                f"L{i}S{j}() {{ {body}; return {status}; }}"
                for i, plan in enumerate(plans)
                for j, status in enumerate(statuses(plan))
            )
            prologue = defs + "\n"
        else:
            for i, plan in enumerate(plans):
                for j, status in enumerate(statuses(plan)):
                    if status:
                        (self.out / f"fail.L{i}S{j}").touch()
        self._bash(prologue + "\n".join(scripts))
        bad = []
        for i, plan in enumerate(plans):
            for j, stage in enumerate(plan.stages):
                got = self._read(self.out / f"L{i}S{j}")
                if got is None or got[1:] != self.expected(stage):
                    bad.append(i)
                    break
        return bad

    def _raw_batch(self, lines: list[str], plans: list[Plan]) -> list[int]:
        self._clear()
        if self.exec_recorders:
            parts = ["enable -n " + " ".join(sorted(set(RAW_COMMANDS) & _BUILTINS))]
        else:
            defs = "\n".join(f'{n}() {{ rec {n} "$@"; }}' for n in RAW_COMMANDS)
            parts = [_FUNCTIONS.format(defs=defs)]
        for i, (line, plan) in enumerate(zip(lines, plans, strict=True)):
            (self.out / str(i)).mkdir()
            parts.append(
                f"REC_OUT={self.out / str(i)}; export REC_OUT\nREC_ST=({self._failing(plan)})\n{line}"
            )
        self._bash("\n".join(parts))
        bad = []
        for i, plan in enumerate(plans):
            records = [self._read(Path(e.path)) for e in os.scandir(self.out / str(i))]
            got = sorted((r for r in records if r is not None), key=repr)
            want = sorted(([s.command, *self.expected(s)] for s in plan.stages), key=repr)
            if got != want:
                bad.append(i)
        return bad

    def _failing(self, plan: Plan) -> str:
        """REC_ST's entries (argv joined by \\x01 => status) for the stages that must fail."""
        keys = [
            "".join(f"{render_word(Word(w))}$'\\x01'" for w in [stage.command, *self.expected(stage)])
            for stage, status in zip(plan.stages, statuses(plan), strict=True)
            if status
        ]
        return " ".join(f"[{k}]=1" for k in keys)

    def _raw_runs_every_stage(self, plan: Plan) -> bool:
        """Whether the raw run can make every stage run: exec recorders always succeed, and a
        function recorder knows its status by its argv, so two stages with one argv must agree."""
        wanted: dict[tuple[str, ...], int] = {}
        for stage, status in zip(plan.stages, statuses(plan), strict=True):
            argv = (stage.command, *self.expected(stage))
            if wanted.setdefault(argv, status) != status or (status and self.exec_recorders):
                return False
        return True

    def check(self, lines: list[str]) -> list[Mismatch]:
        """Check every line (each must parse); the mismatches found, each named by its line."""
        mismatches: list[Mismatch] = []
        for start in range(0, len(lines), _BATCH):
            chunk = lines[start : start + _BATCH]
            mismatches.extend(self._check_chunk(chunk))
        self.lines_checked += len(lines)
        return mismatches

    def _check_chunk(self, chunk: list[str]) -> list[Mismatch]:
        plans = [p for p in (parse(line) for line in chunk) if isinstance(p, Plan)]
        if len(plans) != len(chunk):
            raise ValueError("every line given to the oracle must parse")
        plans = [p for p in plans if len(p.stages) <= _MAX_STAGES]
        out: list[Mismatch] = []
        for i in self._rendered_batch(plans):
            out.append(self._single_rendered(chunk[i], plans[i]))
        raw = [
            (line, plan)
            for line, plan in zip(chunk, plans, strict=True)
            if all(s.command in RAW_COMMANDS for s in plan.stages) and self._raw_runs_every_stage(plan)
        ]
        if raw:
            for i in self._raw_batch([r[0] for r in raw], [r[1] for r in raw]):
                out.append(self._single_raw(*raw[i]))
        for plan, line in zip(plans, chunk, strict=True):
            out.extend(self._glob_superset(line, plan))
        return out

    def _single_rendered(self, line: str, plan: Plan) -> Mismatch:
        self._rendered_batch([plan])
        got = [self._read(self.out / f"L0S{j}") for j in range(len(plan.stages))]
        return Mismatch(
            line, "rendered", [self.expected(s) for s in plan.stages], [g[1:] if g else g for g in got]
        )

    def _single_raw(self, line: str, plan: Plan) -> Mismatch:
        self._raw_batch([line], [plan])
        got = [self._read(Path(e.path)) for e in os.scandir(self.out / "0")]
        return Mismatch(line, "raw", [[s.command, *self.expected(s)] for s in plan.stages], got)

    def _glob_superset(self, line: str, plan: Plan) -> list[Mismatch]:
        """Every name bash expands a glob of ls or a reader to is one the analyzer's expansion saw."""
        out = []
        for stage in plan.stages:
            if stage.command not in ("ls", "cat", "head", "tail", "wc", "grep"):
                continue
            for w in stage.args:
                if not w.glob:
                    continue
                seen = expand(self.lws, ".", w.text)
                if seen.why:
                    continue
                bash = bash_glob(self.ws, w.text)
                if bash == [w.text] and not os.path.lexists(self.ws / w.text):
                    continue  # no match: bash passes the pattern itself
                known = {posixpath.normpath(m) for m in seen.matches}
                missing = [m for m in bash if posixpath.normpath(m) not in known]
                if missing:
                    out.append(Mismatch(line, "glob", list(seen.matches), bash))
        return out


_BUILTINS = frozenset(
    {"cd", "pwd", "echo", "printf", "true", "false", "test", "[", "exec", "command", "builtin", "eval"}
)
