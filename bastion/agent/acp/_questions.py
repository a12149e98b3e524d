"""The policy's questions in the editor's own dialog (session/request_permission).

The Asker of the REPL decides everything a question is: whether it is asked at all (a call whose
"yes" could not work is refused unasked, one allowed with `a` runs), whether `a` is offered, what
it shows (the reason, the rule, the diff or the command line). Only the asking is the editor's:
its options are allow once, allow for the session (where `a` is offered) and reject; an answer
that does not come within the question's bound, a question the editor cancels, an editor that
goes away and a run cancelled meanwhile are each a no, said to the model with its reason. A call
the policy denies is never a question (the loop never asks about it)."""

from __future__ import annotations

import concurrent.futures
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallStatus,
    ToolCallUpdate,
)

from ...policy import Verdict
from ..front import Asker, CallKey, Colour, RunControl, may_always
from ..runtime import Answer, ToolCall
from ._updates import Reporter, kind_of

__all__ = ["EditorAsker", "OPTIONS"]

# The options' ids, and the REPL's reply each stands for.
OPTIONS = {"allow": "y", "always": "a", "reject": "n"}
# How often a question's wait looks whether the run was cancelled.
_POLL = 0.05


class _Asked(threading.local):
    call: ToolCall | None = None
    verdict: Verdict | None = None
    label: str = ""
    always: bool = False
    lines: list[str]

    def __init__(self) -> None:
        self.lines = []


# Sends a question (the call as the editor shows it, the options); its answer comes in the future.
AskEditor = Callable[[ToolCallUpdate, list[PermissionOption]], "concurrent.futures.Future[Any]"]


class EditorAsker(Asker):
    def __init__(
        self,
        ask: AskEditor,
        reporter: Reporter,
        control: RunControl,
        cwd: str,
        timeout: float,
        on_rule: Callable[[CallKey], None] | None = None,
    ) -> None:
        self._asked = _Asked()
        super().__init__(self._read, self._write, cwd, Colour(False), offer_always=True, on_rule=on_rule)
        self.ask = ask
        self.reporter = reporter
        self.control = control
        self.timeout = timeout

    def __call__(
        self, call: ToolCall, args: Mapping[str, object], verdict: Verdict, *, label: str = ""
    ) -> Answer:
        asked = self._asked
        asked.call, asked.verdict, asked.label, asked.lines = call, verdict, label, []
        asked.always = self.offer_always and may_always(verdict)
        self.reporter.announce(call, verdict, "pending", "", label=label)
        try:
            answer: Answer = super().__call__(call, args, verdict, label=label)
        finally:
            asked.call = None
        if label:  # a sub-agent's call: its run is shown in the task's result
            status: ToolCallStatus = "completed" if answer.allow else "failed"
            self.reporter.announce(call, verdict, status, "allowed" if answer.allow else "refused")
        return answer

    def _write(self, text: str) -> None:
        self._asked.lines.append(text)

    def _read(self, prompt: str) -> str:
        asked = self._asked
        assert asked.call is not None
        call = asked.call
        options = [PermissionOption(option_id="allow", name="Allow once", kind="allow_once")]
        if asked.always:
            name = "Allow this exact call for the session"
            options.append(PermissionOption(option_id="always", name=name, kind="allow_always"))
        options.append(PermissionOption(option_id="reject", name="Reject", kind="reject_once"))
        shown = self.reporter.content(call, asked.verdict, "".join(asked.lines).rstrip("\n"))
        tool_call = ToolCallUpdate(
            tool_call_id=call.id,
            title=f"{asked.label} {call.name}" if asked.label else call.name,
            kind=kind_of(call.name),
            status="pending",
            content=shown,
        )
        return self._wait(self.ask(tool_call, options))

    def _wait(self, pending: concurrent.futures.Future[Any]) -> str:
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                response = pending.result(timeout=_POLL)
                break
            except concurrent.futures.TimeoutError:
                if self.control.cancelled.is_set():
                    pending.cancel()
                    return "n the run was cancelled while it waited for this answer"
                if time.monotonic() > deadline:
                    pending.cancel()
                    return f"n no answer from the editor within {self.timeout:g} s (--question-timeout)"
            except Exception as err:  # the editor went away, or refused the request
                return f"n the question could not be answered ({type(err).__name__}: {err})"
        if not isinstance(response, RequestPermissionResponse):
            return "n the editor's answer is not a permission outcome"
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return "n the editor cancelled the question"
        reply = OPTIONS.get(outcome.option_id)
        return reply or f"n the editor chose an option bastion did not offer ({outcome.option_id!r})"
