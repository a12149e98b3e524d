"""The step API an agent_loop runs a turn on, and the kernel's run of that loop.

The steps keep the invariants whatever loop calls them: a reply's calls must run (or be paired
with "interrupted") before the model is called again or the turn finishes; an error of the kernel
(the model failed, Ctrl-C) sticks, so a loop that swallows it cannot go on; a loop that raises on
its own or returns without finishing is a failed component: the next candidate (a fallback, then
the built-in `run_turn`) goes on from where it stopped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ...._errors import BastionError
from .._types import Assistant, ToolSpec
from ._kernel import TurnSlots
from ._load import one_line
from ._slots import StepReply

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = ["Kernel", "StepError", "TurnSteps", "run_loop"]


class StepError(BastionError):
    """An agent_loop used the step API out of order (a component's fault, not the kernel's)."""


class Kernel(Protocol):
    """What the steps need of the agent (runtime.Agent): one request, one batch of calls."""

    def request(
        self, slots: TurnSlots, start: int, count: int, offered: Sequence[ToolSpec]
    ) -> tuple[Assistant, int]:
        """Compact if the trigger says so, ask the model_selector, send; the reply (added to the
        conversation) and the running prompt's new index."""
        ...

    def execute(self, message: Assistant) -> None: ...

    def unrun(self, message: Assistant) -> None:
        """Pair every call of `message` with an "interrupted" result."""
        ...

    def tool_sources(self) -> Mapping[str, Sequence[ToolSpec]]: ...


class TurnSteps:
    """The steps of one turn (the Steps protocol)."""

    def __init__(self, kernel: Kernel, slots: TurnSlots, start: int) -> None:
        self._kernel = kernel
        self._slots = slots
        self._start = start
        self._requests = 0
        self._offered = slots.catalog(kernel.tool_sources())
        self.pending: Assistant | None = None
        self.answer: str | None = None
        self.error: BaseException | None = None

    def _check(self, step: str) -> None:
        if self.error is not None:
            raise self.error
        if self.answer is not None:
            raise StepError(f"{step}() after finish()")

    def call_model(self) -> StepReply:
        self._check("call_model")
        if self.pending is not None:
            raise StepError("call_model() while the last reply's calls have not run (execute_tools() first)")
        self._requests += 1
        try:
            reply, self._start = self._kernel.request(self._slots, self._start, self._requests, self._offered)
        except BaseException as err:
            self.error = err
            raise
        if reply.calls:
            self.pending = reply
        return StepReply(reply.text, reply.calls)

    def execute_tools(self) -> None:
        self._check("execute_tools")
        message, self.pending = self.pending, None
        if message is None:
            return
        try:
            self._kernel.execute(message)
        except BaseException as err:
            self.error = err
            raise

    def finish(self, text: str) -> None:
        self._check("finish")
        if self.pending is not None:
            raise StepError("finish() while the last reply's calls have not run")
        if not isinstance(text, str):
            raise StepError(f"finish() with {type(text).__name__}, not a string")
        self.answer = text

    def close(self) -> None:
        """The turn ends without its calls run (an error): they are paired with "interrupted"."""
        message, self.pending = self.pending, None
        if message is not None:
            self._kernel.unrun(message)


def _component_loop(steps: TurnSteps, slots: TurnSlots) -> bool:
    """Run the loop's candidates in turn until one finishes; False when none did (the default's
    turn). The kernel's own errors pass through."""
    for ident, run in slots.candidates("agent_loop"):
        steps.execute_tools()  # what a failed loop before this one left unrun
        try:
            run(steps)
        except KeyboardInterrupt:
            raise
        except BaseException as err:
            if err is steps.error:
                raise
            if steps.error is not None:  # the loop swallowed the kernel's error, then failed
                raise steps.error from None
            slots.failed("agent_loop", ident, "raised", one_line(err))
            if steps.answer is not None:  # it failed after it finished: the turn is over
                return True
            continue
        if steps.error is not None:
            raise steps.error
        if steps.answer is not None:
            return True
        slots.failed("agent_loop", ident, "answered", "returned without finish()")
    return False


def run_loop(kernel: Kernel, slots: TurnSlots, start: int) -> str:
    """Run the snapshot's agent_loop over the steps of one turn; the turn's answer."""
    steps = TurnSteps(kernel, slots, start)
    resolved = slots.snapshot.slots["agent_loop"]
    try:
        if resolved.builtin_only:
            resolved.implementation.run(steps)
        elif not _component_loop(steps, slots):
            steps.execute_tools()  # what a failed loop left unrun
            resolved.default.run(steps)
    except BaseException:
        steps.close()
        raise
    assert steps.answer is not None  # run_turn ends only by finish() or an exception
    return steps.answer
