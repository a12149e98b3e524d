"""The kernel's side of the slots: a turn's calls into them, guarded, and what is done with their
answers. No component can replace this code.

- A component that raises, takes longer than the timeout, or answers with the wrong type is
  replaced for the rest of the turn by the slot's fallback component, if one was registered, else
  by the built-in default; each failure is reported (SlotFailure) and the turn goes on. A
  component that timed out keeps running on its own (daemon) thread: its answer is dropped.
- A catalog may only offer tools its sources have; a call to a tool not offered this turn is an
  error result, as for a tool that does not exist.
- An approval's answer is combined with the policy's verdict by `combine`: the stricter wins, so a
  component may deny or escalate to ask what the policy allowed, and deny what it asked, but never
  allow what the policy asked or denied. A denied call never reaches the component.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from ....policy import Decision, Origin, Source, Verdict
from .._types import ToolSpec
from ._load import one_line
from ._resolve import Snapshot
from ._slots import ApprovalInput, CatalogInput, ModelInput, Review, Role, SummarizerInput, TriggerInput

__all__ = ["SlotFailure", "TurnSlots", "combine", "decider", "failure_words"]

# A verdict an approval component made stricter has the source Source(Origin.HARNESS, ID) ("harness:ID").

Fault = Literal["raised", "timed out", "answered"]


class SlotFailure(NamedTuple):
    """A component that failed this turn: `fault` says how, `detail` what it raised or answered,
    `instead` the id that serves the slot for the rest of the turn."""

    slot: str
    component: str
    fault: Fault
    detail: str
    instead: str


def failure_words(failure: SlotFailure) -> str:
    return (
        f"harness: {failure.slot} component {failure.component!r} {failure.fault}"
        f"{': ' + failure.detail if failure.detail else ''}; {failure.instead!r} serves {failure.slot} "
        "for the rest of this turn"
    )


def combine(verdict: Verdict, review: Review, component: str) -> Verdict:
    """The policy's verdict and an approval's review: the stricter of the two decisions. Only a
    stricter review changes the verdict (and says so in its source)."""
    if review.decision <= verdict.decision:
        return verdict
    reason = review.reason or f"the approval component {component!r} made this call {review.decision}"
    return verdict._replace(
        decision=review.decision, reason=reason, rule=None, source=Source(Origin.HARNESS, component)
    )


def decider(verdict: Verdict) -> str:
    """Who decided a verdict no person answered: "harness" (an approval made it stricter) or "policy"."""
    return "harness" if verdict.source is not None and verdict.source.kind is Origin.HARNESS else "policy"


class _TimedOut(Exception):
    pass


def _within(run: Callable[[object], object], given: object, timeout: float) -> object:
    """run(given) on a thread of its own, waited on for `timeout` seconds (Ctrl-C lands here)."""
    box: list[tuple[bool, object]] = []
    done = threading.Event()

    def target() -> None:
        try:
            box.append((True, run(given)))
        except BaseException as err:  # whatever a component raises is its failure, reported
            box.append((False, err))
        finally:
            done.set()

    threading.Thread(target=target, daemon=True, name="bastion-harness-component").start()
    if not done.wait(timeout):
        raise _TimedOut
    ok, value = box[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value


def chained(component: Any, wraps: Sequence[Any]) -> Callable[[object], object]:
    """The component's run inside its wraps' (the last registered outermost)."""
    run: Callable[[object], object] = component.run
    for wrap in wraps:

        def outer(given: object, wrap: Any = wrap, inner: Callable[[object], object] = run) -> object:
            return wrap.run(given, inner)

        run = outer
    return run


def _is_specs(answer: object, sources: Mapping[str, Sequence[ToolSpec]]) -> str | None:
    if not isinstance(answer, list | tuple) or not all(isinstance(s, ToolSpec) for s in answer):
        return f"{type(answer).__name__}, not a list of ToolSpec"
    have = [spec for specs in sources.values() for spec in specs]
    strange = [s.name for s in answer if s not in have]
    if strange:
        return f"offered {', '.join(map(repr, strange))}, which no tool source has"
    names = [s.name for s in answer]
    if len(set(names)) != len(names):
        return "offered a tool twice"
    return None


def _is(kind: type, what: str) -> Callable[[object], str | None]:
    def check(answer: object) -> str | None:
        return None if type(answer) is kind else f"{type(answer).__name__}, not {what}"

    return check


def _is_review(answer: object) -> str | None:
    if type(answer) is Review and isinstance(answer.decision, Decision) and isinstance(answer.reason, str):
        return None
    return f"{answer!r}, not a Review of a Decision and a reason"


def _is_model(answer: object) -> str | None:
    if type(answer) is not str or not answer.strip() or len(answer) > 256 or not answer.isprintable():
        return f"{answer!r}, not a model name"
    return None


class TurnSlots:
    """One turn's calls into its snapshot; `report` tells the front about a failed component."""

    def __init__(
        self, snapshot: Snapshot, role: Role, report: Callable[[SlotFailure], None], task_kind: str = ""
    ) -> None:
        self.snapshot = snapshot
        self.role = role
        self.task_kind = task_kind
        self._report = report
        self._skipped: dict[str, int] = {}
        self.offered: frozenset[str] | None = None

    def candidates(self, slot: str) -> list[tuple[str, Callable[[object], object]]]:
        """Who may still answer for `slot` this turn, in order: the selected implementation inside
        its wraps, the fallback component; the built-in default (not listed) comes last."""
        resolved = self.snapshot.slots[slot]
        found = [(resolved.id, chained(resolved.implementation, [w.component for w in resolved.wraps]))]
        if resolved.fallback is not None:
            found.append((resolved.fallback.component.id, resolved.fallback.component.run))
        return found[self._skipped.get(slot, 0) :]

    def failed(self, slot: str, ident: str, fault: Fault, detail: str) -> None:
        """The first candidate left for `slot` failed: it is passed over for the rest of the turn."""
        self._skipped[slot] = self._skipped.get(slot, 0) + 1
        left = self.candidates(slot)
        instead = left[0][0] if left else self.snapshot.slots[slot].default.id
        self._report(SlotFailure(slot, ident, fault, detail, instead))

    def _ask(self, slot: str, given: object, check: Callable[[object], str | None]) -> tuple[Any, str]:
        """The slot's answer and the id of who gave it."""
        resolved = self.snapshot.slots[slot]
        if resolved.builtin_only:
            return resolved.implementation.run(given), resolved.id
        for ident, run in self.candidates(slot):
            try:
                answer = _within(run, given, self.snapshot.timeout)
            except _TimedOut:
                self.failed(slot, ident, "timed out", f"after {self.snapshot.timeout:g} s")
                continue
            except BaseException as err:
                self.failed(slot, ident, "raised", one_line(err))
                continue
            wrong = check(answer)
            if wrong is None:
                return answer, ident
            self.failed(slot, ident, "answered", wrong)
        return resolved.default.run(given), resolved.default.id

    def catalog(self, sources: Mapping[str, Sequence[ToolSpec]]) -> Sequence[ToolSpec]:
        """The tools offered this turn (asked once a turn; calls to any other tool are refused)."""
        frozen = MappingProxyType({name: tuple(specs) for name, specs in sources.items()})
        offered: Sequence[ToolSpec] = self._ask(
            "catalog", CatalogInput(frozen, self.role), lambda a: _is_specs(a, frozen)
        )[0]
        self.offered = frozenset(s.name for s in offered)
        return offered

    def offers(self, tool: str) -> bool:
        return self.offered is None or tool in self.offered

    def trigger(self, given: TriggerInput) -> bool:
        fire: bool = self._ask("trigger", given, _is(bool, "a bool"))[0]
        return fire

    def summarize(self, given: SummarizerInput) -> str:
        summary: str = self._ask("summarizer", given, _is(str, "a string"))[0]
        return summary

    def model(self, configured: str, turn: int, request: int, messages: int) -> str:
        given = ModelInput(configured, self.role, turn, request, messages, self.task_kind)
        name: str = self._ask("model_selector", given, _is_model)[0]
        return name

    def review(self, tool: str, args: Mapping[str, object], verdict: Verdict) -> Verdict:
        """The verdict the call runs under: the policy's, made stricter by the approval slot."""
        if verdict.decision is Decision.DENY:
            return verdict
        # A component sees a copy (bastion's own built-ins are trusted with the arguments themselves).
        own = self.snapshot.slots["approval"].builtin_only
        given = ApprovalInput(
            tool, MappingProxyType(dict(args) if own else copy.deepcopy(dict(args))), verdict
        )
        review, by = self._ask("approval", given, _is_review)
        return combine(verdict, review, by)
