"""The gate: one tool call in, a verdict and the arguments that may run out; and, right before a
stamped call runs, the check of its stamp.

This is where the analyzer, the subjects and the engine meet. Every call goes through `Gate.decide`:
the arguments are checked for shape, a stamp the model supplied is removed, the call becomes
subjects, the policy decides them, and an auto-allowed bash line (or a file tool's path, or an
approved redirect line) is stamped. The gate owns both ends of the stamp: the tools hold the gate
and ask it (`cleared`, `paths_hold`) whether what runs is what was decided, with the same workspace,
directory, read bound, secret patterns and stamper it decided with.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ..analyzer import SECRET_PATHS, Analysis, analyze, shell_of
from ..grammar import Outside, oversized
from ..workspace import Recheck, Workspace
from ._subjects import failed_subjects, held_subjects, path_subjects, redirect_targets, subjects_of
from ._tools import HELD_TOOLS, NAMED_TOOLS, PATH_TOOLS, STAMP_ARG, TOOLS, argument_problem
from ._types import Decision, Kind, Subject, Verdict
from ._wrappers import unwrap

if TYPE_CHECKING:
    from ..analyzer import Stamper
    from ._config import Settings
    from ._engine import Policy

__all__ = ["Claims", "Cleared", "Decided", "Gate", "bash_subjects", "secrets_in_force"]

# What a call of a held tool (`skill`) reads of the workspace: root-relative names, () for nothing
# of it, None when not known (the call then asks). The session's skills say (bastion/agent/skills/_skills.py).
Claims = Callable[[str, Mapping[str, object]], Sequence[str] | None]


class Decided(NamedTuple):
    """A decided call: the verdict, the arguments that may run (stamp set or removed), the subjects
    that were decided and, for bash, the analysis."""

    verdict: Verdict
    args: dict[str, object]
    subjects: tuple[Subject, ...] = ()
    analysis: Analysis | None = None
    reads: tuple[str, ...] = ()

    @property
    def decision(self) -> Decision:
        return self.verdict.decision


class Cleared(NamedTuple):
    """A stamped bash line whose stamp verified right before it runs: `line` is what runs (the
    rendered plan, or an approved line as typed), `plan` says it is the analyzer's plan (read-only,
    in the neutralising environment, userinfo masked), `facts` what the stamp verified on (which
    an executor reads again where it runs)."""

    line: str
    plan: bool
    facts: Recheck


def _refuse(args: dict[str, object], reason: str) -> Decided:
    """A call the policy cannot read is refused outright: it names what is wrong with it."""
    return Decided(Verdict(Decision.DENY, reason), args)


def _case_variant(args: Mapping[str, object], name: str) -> str | None:
    for key in args:
        if key != name and key.casefold() == name.casefold():
            return key
    return None


def bash_subjects(analysis: Analysis, ws: Workspace, cwd: str = ".") -> list[Subject]:
    """The subjects of a bash call, derived in one pass: a line outside the subset is cut (_cut.py),
    what each stage or part runs through exec wrappers is unwrapped, the lines handed to a shell
    cut in turn (_wrappers.py), and the subjects are made of what the two found (_subjects.py).
    Never raises: a failure gives subjects that ask."""
    try:
        cut = None
        if analysis.plan is None:
            from ._cut import cut as cut_line  # only a line outside the subset is cut

            cut = cut_line(analysis.line)
        return subjects_of(analysis, cut, unwrap(analysis, cut), ws, cwd)
    except Exception as err:  # a failure asks
        return failed_subjects(analysis.line, err)


def secrets_in_force(policy: Policy) -> tuple[str, ...]:
    """The secret-looking path patterns a git plan keeps out of what it prints: the shipped ones,
    unless a rule of yours lifts them for `read` on every path. git cannot put one file back into
    a diff, so a narrower lift keeps them: a lifted file named in the line asks instead, and the
    approved line runs as typed."""
    return () if policy.lifts_every_secret("read") else SECRET_PATHS


class Gate:
    """Decides tool calls for one workspace under one set of settings; `secrets` are the patterns
    a git plan excludes (`secrets_in_force`); `claims` says what a held tool's call reads (None:
    nothing is known, so such a call asks); `whole`: its calls come with every argument the tool
    will run with (the agent's), so one that leaves out an argument the tool requires is refused
    (a dry run's may name only what the policy reads)."""

    def __init__(
        self,
        settings: Settings,
        ws: Workspace,
        stamper: Stamper | None = None,
        cwd: str = ".",
        claims: Claims | None = None,
        *,
        whole: bool = False,
    ) -> None:
        self.whole = whole
        self.settings = settings
        self.ws = ws
        self.stamper = stamper
        self.cwd = cwd
        self.claims = claims
        self.secrets = secrets_in_force(settings.policy)
        # Where its plans run, whose PATH names their programs (the bash tool's re-check finds the same).
        self.shell = shell_of(ws)

    def adopt(self, settings: Settings) -> None:
        """Decide from now on under `settings` (a rule a person remembered at a question: the same
        session's policy with its project scope read again)."""
        self.settings = settings
        self.secrets = secrets_in_force(settings.policy)

    @property
    def max_read_bytes(self) -> int:
        return self.settings.max_read_bytes

    def _analyze(self, command: str) -> Analysis:
        return analyze(
            command,
            self.ws,
            self.cwd,
            max_read_bytes=self.settings.max_read_bytes,
            secrets=self.secrets,
            shell=self.shell,
        )

    def cleared(self, command: str, stamp: object) -> Cleared | None:
        """The line a stamped bash call runs, checked right before it runs: analysed again, its
        plan's stamp (or an approved line's, over where its redirects lead now) verified; None when
        it does not verify (without a stamper, a stamp never does)."""
        if self.stamper is None:
            return None
        analysis = self._analyze(command)
        if analysis.auto and analysis.rendered is not None:
            facts = self.stamper.verify_plan(stamp, analysis, self.ws)
            return Cleared(analysis.rendered, True, facts) if facts is not None else None
        if analysis.outside is not None:
            targets = redirect_targets(command, self.ws, self.cwd)
            facts = self.stamper.verify_line(stamp, command, targets, self.ws) if targets else None
            return Cleared(command, False, facts) if facts is not None else None
        return None

    def paths_hold(self, tool: str, names: Sequence[str], stamp: object) -> bool:
        """Whether a file tool's (or a held tool's) stamped call may run: its paths lead where they
        led when it was allowed."""
        return self.stamper is not None and self.stamper.verify_path(stamp, tool, names, self.ws)

    def decide(self, tool: str, args: object) -> Decided:
        if not isinstance(args, Mapping):
            return _refuse({}, f"{tool} call could not be evaluated: its arguments are not a JSON object")
        clean = {k: v for k, v in args.items() if k != STAMP_ARG}
        for name in (TOOLS[tool].argument if tool in TOOLS else None, STAMP_ARG):
            if name is None:
                continue
            variant = _case_variant(clean, name)
            if variant is not None:
                return _refuse(
                    clean, f'argument "{variant}" is "{name}" in another case; write it once, as "{name}"'
                )
        # Every argument's type before anything is decided on one: a call the tool would refuse
        # is refused here, never put to a person, nor decided on a value it would not run with.
        problem = argument_problem(tool, clean, whole=self.whole)
        if problem is not None:
            return _refuse(clean, f"{tool} call could not be evaluated: {problem}")
        try:
            if tool == "bash":
                return self._bash(clean)
            if tool in PATH_TOOLS:
                return self._file(tool, clean)
            from ._mcp import mcp_subjects  # loaded with the first call of another tool

            mcp = mcp_subjects(tool, clean)
            if mcp is not None:
                return Decided(self.settings.policy.decide(mcp), clean, mcp)
            if tool in NAMED_TOOLS:
                return self._named(tool, clean)
            subjects = (Subject(tool, json.dumps(clean, sort_keys=True), about=f"the {tool} call"),)
            return Decided(self.settings.policy.decide(subjects), clean, subjects)
        except Exception as err:  # an error while deciding asks; it never allows
            reason = f"{tool} call could not be evaluated: {type(err).__name__}: {err}"
            return Decided(Verdict(Decision.ASK, reason), clean)

    def _bash(self, args: dict[str, object]) -> Decided:
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            return _refuse(args, "bash call could not be evaluated: `command` must be a non-empty string")
        too_long = oversized(command)
        if too_long is not None:
            # Asks at once: a line past the size bound is not parsed, cut or matched by any rule, so
            # no line can make a decision slow, and no rule can allow it unread.
            analysis = Analysis(command, None, Outside(command, 0, too_long))
            return Decided(Verdict(Decision.ASK, f"asks: {too_long}"), args, (), analysis)
        analysis = self._analyze(command)
        subjects = tuple(bash_subjects(analysis, self.ws, self.cwd))
        verdict = self.settings.policy.decide(subjects)
        reads = tuple(dict.fromkeys(r for s in analysis.stages for r in s.reads))
        if self.stamper is not None and verdict.decision is not Decision.DENY:
            stamp = self._bash_stamp(command, analysis)
            if stamp is not None:
                args = {**args, STAMP_ARG: stamp}
        return Decided(verdict, args, subjects, analysis, reads)

    def _bash_stamp(self, command: str, analysis: Analysis) -> str | None:
        assert self.stamper is not None
        if analysis.auto:
            return self.stamper.plan_stamp(analysis, self.ws)
        if analysis.outside is not None:
            targets = redirect_targets(command, self.ws, self.cwd)
            if targets:
                return self.stamper.line_stamp(command, targets, self.ws)
        return None

    def _named(self, tool: str, args: dict[str, object]) -> Decided:
        """A call decided on the name it gives: a sub-agent on its kind (what it may do is settled
        by the tools its kind gives, and each call it makes is decided on its own), a skill on its
        name, memory on its action. A held tool's call is also decided on the files of the
        workspace it reads (`held_subjects`), and stamped with where they lead."""
        info = TOOLS[tool]
        value = args.get(info.argument, info.default)
        if info.choices and value not in info.choices:
            choices = " or ".join(info.choices)
            return _refuse(args, f"{tool} call could not be evaluated: `{info.argument}` must be {choices}")
        if not isinstance(value, str) or not value:
            return _refuse(
                args, f"{tool} call could not be evaluated: `{info.argument}` must be a non-empty string"
            )
        subjects: tuple[Subject, ...] = (Subject(tool, value, about=f"the {info.argument} of {tool}"),)
        if tool not in HELD_TOOLS:
            return Decided(self.settings.policy.decide(subjects), args, subjects)
        names = self.claims(tool, args) if self.claims is not None else None
        subjects += tuple(held_subjects(tool, names, self.ws))
        verdict = self.settings.policy.decide(subjects)
        reads = tuple(s.value for s in subjects if s.tool == HELD_TOOLS[tool] and s.kind is Kind.PLAIN)
        if self.stamper is not None and verdict.decision is not Decision.DENY and names:
            args = {**args, STAMP_ARG: self.stamper.path_stamp(tool, names, self.ws)}
        return Decided(verdict, args, subjects, None, reads)

    def _file(self, tool: str, args: dict[str, object]) -> Decided:
        info = TOOLS[tool]
        path = args.get(info.argument, info.default)
        subjects = tuple(path_subjects(tool, path, self.ws))
        verdict = self.settings.policy.decide(subjects)
        names = tuple(s.value for s in subjects if s.tool == tool and s.kind is Kind.PLAIN)
        if self.stamper is not None and verdict.decision is not Decision.DENY and names:
            args = {**args, STAMP_ARG: self.stamper.path_stamp(tool, names, self.ws)}
        reads = names if info.reads else ()
        return Decided(verdict, args, subjects, None, reads)
