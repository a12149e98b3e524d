"""`bastion audit`: many calls decided, each printed, then a summary grouped by reason."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from .._safe import safe_line, safe_lines
from ..policy import Decision
from ._decide import Decider, Outcome
from ._inputs import Call, Problem

__all__ = ["Report", "Progress", "audit", "render_report", "report_json"]

_WORDS = {Decision.ALLOW: "run unasked", Decision.ASK: "ask", Decision.DENY: "denied"}


@dataclass
class Report:
    """The outcomes of an audit, in input order, and the lines that could not be read."""

    outcomes: list[Outcome] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0

    def counts(self) -> Counter[Decision]:
        return Counter(o.decision for o in self.outcomes)

    def groups(self) -> list[tuple[Decision, str, int, Outcome]]:
        """(decision, group, count, first outcome), most restrictive first, then most frequent."""
        count: Counter[tuple[Decision, str]] = Counter()
        first: dict[tuple[Decision, str], Outcome] = {}
        for o in self.outcomes:
            key = (o.decision, o.group)
            count[key] += 1
            first.setdefault(key, o)
        keys = sorted(count, key=lambda k: (-k[0], -count[k], k[1]))
        return [(k[0], k[1], count[k], first[k]) for k in keys]


class Progress:
    """A bar on a terminal's standard error; nothing when it is not a terminal."""

    def __init__(self, total: int, out: TextIO | None) -> None:
        self.total = total
        self.out = out if out is not None and out.isatty() and total >= 200 else None
        self.step = max(1, total // 100)

    def update(self, done: int) -> None:
        if self.out is None or (done % self.step and done != self.total):
            return
        filled = 30 * done // max(1, self.total)
        self.out.write(f"\raudit [{'#' * filled}{' ' * (30 - filled)}] {done}/{self.total}")
        if done == self.total:
            self.out.write("\n")
        self.out.flush()


def audit(calls: Sequence[Call], decider: Decider, progress: TextIO | None = None) -> Report:
    """Decide every call (never running anything)."""
    report = Report()
    bar = Progress(len(calls), progress)
    start = time.perf_counter()
    for done, call in enumerate(calls, 1):
        try:
            found = decider.decide(call)
        except Exception as err:  # an audit reports what it could not decide and goes on
            found = Problem(call.where, f"could not be decided: {type(err).__name__}: {err}")
        if isinstance(found, Problem):
            report.problems.append(found)
        else:
            report.outcomes.append(found)
        bar.update(done)
    report.seconds = time.perf_counter() - start
    return report


def _shown(call: Call) -> str:
    if call.tool == "bash":
        text = str(call.args.get("command", ""))
    else:
        text = f"{call.tool} " + " ".join(f"{k}={v}" for k, v in call.args.items())
    text = safe_line(text)
    return text if len(text) <= 80 else text[:77] + "..."


def render_report(
    report: Report, out: TextIO, *, each: bool = True, problems: Iterable[Problem] = ()
) -> None:
    """The human listing: one line a call (when `each`), then the summary; whatever a record
    holds is shown safe (bastion/_safe.py), a line each."""
    lines = safe_lines(out)
    if each:
        for o in report.outcomes:
            lines.write(f"{o.call.where}: {o.decision!s:5} {_shown(o.call)}  [{o.group}]\n")
    problems = [*problems, *report.problems]
    for p in problems:
        lines.write(f"{p.where}: error: {p.message}\n")
    counts = report.counts()
    summary = ", ".join(f"{counts[d]} {_WORDS[d]}" for d in Decision)
    unreadable = f", {len(problems)} unreadable" if problems else ""
    lines.write("\n")
    lines.write(f"{len(report.outcomes)} calls: {summary}{unreadable}\n")
    for decision, group, count, first in report.groups():
        lines.write(f"  {count:6}  {decision!s:5}  {group}   e.g. {first.call.where}: {_shown(first.call)}\n")


def _outcome_json(o: Outcome) -> dict[str, Any]:
    return {
        "where": o.call.where, "cwd": o.cwd, "tool": o.call.tool, "args": dict(o.call.args),
        "decision": str(o.decision), "reason": o.reason, "rule": o.rule, "source": o.source, "group": o.group,
    }  # fmt: skip


def report_json(report: Report, problems: Iterable[Problem] = ()) -> dict[str, Any]:
    """The `--json` object: every call, the summary and the problems."""
    counts = report.counts()
    return {
        "calls": [_outcome_json(o) for o in report.outcomes],
        "summary": {
            "total": len(report.outcomes),
            **{str(d): counts[d] for d in Decision},
            "groups": [
                {"decision": str(d), "group": g, "count": n, "example": first.call.where}
                for d, g, n, first in report.groups()
            ],
        },
        "errors": [{"where": p.where, "message": p.message} for p in [*problems, *report.problems]],
        "seconds": round(report.seconds, 3),
    }
