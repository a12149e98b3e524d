"""Deciding the calls of an audit: the dry-run's gate, one verdict a call, and the group it counts in.

Nothing here runs anything: the gate has no stamper, so no stamp is made, and every call is only
decided. Calls are decided once per (directory, tool, arguments): an audit changes nothing, so the
same call in the same directory gets the same verdict.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import NamedTuple

from ..policy import (
    KIND_WORDS,
    SECRET_NOTE,
    ConfigError,
    Decided,
    Decision,
    DryRun,
    Gate,
    PolicyError,
    RequestError,
    Verdict,
)
from ._inputs import Call, Problem
from ._tools import pattern_escapes

__all__ = ["Decider", "Outcome", "group_of"]


class Outcome(NamedTuple):
    """What the policy would do with one call, and the group its reason counts in; `clamped` says a
    glob pattern reaching outside the directory made an allowed call ask."""

    call: Call
    cwd: str
    decision: Decision
    reason: str
    rule: str | None  # the deciding rule as written
    source: str | None  # its source as JSON spells it (Source.tag)
    group: str
    decided: Decided | None = None
    clamped: bool = False


def _secret_spec(rule: str) -> str:
    spec = rule[rule.find("(") + 1 : -1] if "(" in rule else rule
    spec = spec.removeprefix("ci:")
    return spec.removeprefix("*/")


def group_of(decided: Decided, verdict: Verdict) -> str:
    """A short name for why a call was decided so, shared by calls with the same cause."""
    subject = verdict.subject
    if verdict.decision is Decision.DENY:
        return f"denied by {verdict.rule.text}" if verdict.rule else "denied by the fallback"
    if verdict.decision is Decision.ALLOW:
        if decided.analysis is not None and decided.analysis.auto and verdict.rule:
            return f"auto-allowed by {verdict.rule.text}"
        return f"allowed by {verdict.rule.text}" if verdict.rule else "allowed"
    a = decided.analysis
    if a is not None and a.outside is not None:
        token = a.outside.token
        shown = token if token.isprintable() else token.encode("unicode_escape").decode("ascii")
        return f"outside the subset at `{shown}`" if token else f"outside the subset: {a.outside.reason}"
    if verdict.rule is not None:
        return (
            f"secret path {_secret_spec(verdict.rule.text)}"
            if verdict.note == SECRET_NOTE
            else f"asked by {verdict.rule.text}"
        )
    found = a.git_finding if a is not None else None
    if found is not None:
        return f"git key {found.key}" if found.key and not found.includes else f"git: {found.reason}"
    if subject is None:
        return "could not be evaluated"
    if subject.pseudo:
        return KIND_WORDS[subject.kind]
    if subject.sentinel:
        command = subject.value.split(" ", 1)[0]
        return f"{command} refused by its checker"
    if subject.tool == "bash":
        return f"no rule for {subject.value.split(' ', 1)[0]}"
    return f"no rule for {subject.tool}"


def _clamp(tool: str, args: Mapping[str, object], decided: Decided) -> tuple[Verdict, str | None]:
    """A glob pattern (glob's pattern, grep's glob) that reaches outside the directory asks:
    the gate decides the path only."""
    why = (
        pattern_escapes(args.get("pattern" if tool == "glob" else "glob")) if tool in ("glob", "grep") else ""
    )
    v = decided.verdict
    if why and v.decision is Decision.ALLOW:
        return Verdict(
            Decision.ASK, f"asks: {why}", None, None, v.subject
        ), "a glob pattern outside the directory"
    return v, None


class Decider:
    """Decides calls for an audit or a hook with one user config. `cwd` is where a call that does
    not say where it ran is decided."""

    def __init__(self, config: str | None, cwd: str = ".") -> None:
        self.dry = DryRun(config)
        self.cwd = os.path.abspath(cwd)
        self._unusable: dict[str, str] = {}
        self._seen: dict[tuple[str, str, str], Outcome] = {}

    def gate(self, cwd: str, sub: str = ".") -> Gate | str:
        """The gate of a directory, or why there is none (not a directory, a bad config); `sub` is
        where a bash line runs, relative to that directory (the workspace's root). The dry-run keeps
        the gates (a bounded number, closing what it drops); only why a directory has none is kept here."""
        why = self._unusable.get(cwd)
        if why is not None:
            return why
        try:
            found = self.dry.gate(cwd)
        except (RequestError, PolicyError, ConfigError, OSError) as err:
            self._unusable[cwd] = str(err)
            return str(err)
        return found if sub == "." else Gate(found.settings, found.ws, cwd=sub)

    def decide(self, call: Call, sub: str = ".") -> Outcome | Problem:
        cwd = os.path.join(self.cwd, call.cwd) if call.cwd else self.cwd
        try:
            key = (cwd + "\0" + sub, call.tool, json.dumps(call.args, sort_keys=True, default=repr))
        except (TypeError, ValueError) as err:
            return Problem(call.where, f"the arguments cannot be read: {err}")
        seen = self._seen.get(key)
        if seen is not None:
            return Outcome(
                call,
                cwd,
                seen.decision,
                seen.reason,
                seen.rule,
                seen.source,
                seen.group,
                seen.decided,
                seen.clamped,
            )
        gate = self.gate(cwd, sub)
        if isinstance(gate, str):
            return Problem(call.where, gate)
        decided = gate.decide(call.tool, dict(call.args))
        verdict, group = _clamp(call.tool, call.args, decided)
        rule = verdict.rule.text if verdict.rule is not None else None
        source = verdict.source.tag if verdict.source is not None else None
        outcome = Outcome(call, cwd, verdict.decision, verdict.reason, rule, source,
                          group or group_of(decided, verdict), decided, group is not None)  # fmt: skip
        self._seen[key] = outcome
        return outcome
