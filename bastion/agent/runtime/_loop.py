"""The turn loop: send the conversation, decide every tool call the model makes, run what is allowed,
send the results back, until the model stops.

Fail closed: a call runs only when the gate allows it or a person (or a flag) said yes to its ask;
an error while deciding is an ask, and an ask nobody answered is a refusal. Ctrl-C (KeyboardInterrupt,
or the cancel event) stops the calls still running (a command's process group is killed, and the loop
waits a moment for it), then pairs every call of the batch that has no result with an "interrupted"
one, so the conversation stays valid for the next prompt or a --resume.
"""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..._safe import safe_text
from ...policy import STAMP_ARG, Decision, Verdict, load_json, runs_alongside
from ._options import ModelRequest
from ._types import (
    Assistant,
    Cancelled,
    Failure,
    Message,
    ModelError,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    User,
    WorkspaceLost,
)
from .harness import BUILTIN_SOURCE, Harness, Role, Snapshot, TurnSlots, decider, run_loop
from .seams import (
    Answer,
    Answerer,
    Checkpoint,
    Compaction,
    Events,
    Gatekeeper,
    Model,
    Steering,
    TaskOrigin,
    Tools,
)

__all__ = [
    "CUT_SHORT",
    "INTERRUPTED",
    "NOT_RUN",
    "STOP_WAIT",
    "Agent",
    "AsSubagent",
    "Denial",
    "RunResult",
    "running_call",
]

# The words for a call a stopped run cut off, whatever stopped it: Ctrl-C, SIGTERM or SIGHUP, an
# editor's cancel or its going away, and (said on --resume) a kill -9 or a crash.
INTERRUPTED = "interrupted: the run was stopped before this call finished; it may have partly run"
NOT_RUN = "not run: the run was stopped before this call started"
# A call left unrun because the workspace was lost: the run ends (nothing runs on this machine instead).
LOST_NOT_RUN = "not run: the workspace is lost ({why}); the run ended"
# Ends the text of a reply the person cut short with Ctrl-C (kept in the conversation).
CUT_SHORT = "[the person interrupted this reply here]"
# Replies in a row whose every call could not be used (arguments not JSON, not an object, no such
# tool) before the run gives up: a model that repeats its mistake would otherwise be asked for ever.
MALFORMED_LIMIT = 3
# How long an abort waits for the calls it stopped to end (a command's group is killed within 0.1 s).
STOP_WAIT = 5.0


@dataclass(frozen=True, slots=True)
class Denial:
    """A call that did not run because the policy denied it or its question was answered no:
    `decided_by` is "policy" (a deny), "harness" (an approval component's deny), "person" or "flag"
    (an ask refused), or "rule" (the question could not be asked); `verdict` is the policy's
    decision, deny or ask (or the stricter one an approval component made of it); `task` the
    sub-agent whose call it was (None: the agent's own)."""

    tool: str
    call_id: str
    arguments: Mapping[str, object]
    verdict: str
    reason: str
    rule: str | None
    source: str | None
    decided_by: str
    task: TaskOrigin | None = None


@dataclass(slots=True)
class RunResult:
    """How a run ended: the model's last text, the run's usage and the calls denied or refused on
    the way (a run that goes on after a refusal completes: the model was told, and answered)."""

    text: str
    usage: Usage = field(default_factory=Usage)
    denials: list[Denial] = field(default_factory=list)


@dataclass(slots=True)
class _Pending:
    call: ToolCall
    args: Mapping[str, object] | None = None
    result: ToolResult | None = None
    note: str = ""
    approved: bool = False
    # Its call could not be used (arguments not JSON or not an object, no such tool): never decided.
    malformed: bool = False
    started: bool = False
    # Set when its run ends. Waited on rather than its thread: in Python 3.11 a join that Ctrl-C
    # interrupts marks the thread stopped while it still runs.
    done: threading.Event = field(default_factory=threading.Event)


_here = threading.local()


def running_call() -> ToolCall | None:
    """The call this thread runs for a loop (None outside a call): a tool that records what it
    does links it to its call this way (a sub-agent's transcript)."""
    call: ToolCall | None = getattr(_here, "call", None)
    return call


def _parse_args(call: ToolCall) -> dict[str, object] | str:
    try:
        value = load_json(call.arguments or "{}")
    except ValueError as err:
        return f"error: the arguments of this {call.name} call are not JSON ({err}); nothing was run"
    if not isinstance(value, dict):
        return f"error: the arguments of this {call.name} call are not a JSON object; nothing was run"
    return value


@dataclass(frozen=True, slots=True)
class AsSubagent:
    """What makes an Agent a sub-agent's turn loop: its kind (as its model_selector is told) and the
    slots every run reads instead of resolving its own (its parent's turn's, so no run sees another
    harness; None: its harness's)."""

    kind: str
    snapshot: Snapshot | None = None


class Agent:
    """One conversation with one model, under one gate."""

    def __init__(
        self,
        model: Model,
        gate: Gatekeeper,
        tools: Tools,
        answer: Answerer,
        system: str | Callable[[Sequence[ToolSpec]], str],
        events: Events | None = None,
        messages: Sequence[Message] = (),
        checkpoint: Checkpoint | None = None,
        compaction: Compaction | None = None,
        harness: Harness | None = None,
        subagent: AsSubagent | None = None,
    ) -> None:
        """`system`: the system prompt, or what makes it for the tools a turn's catalog offers
        (so it names no tool the turn does not offer); `harness`: the slots each run resolves
        (None: the built-ins); `subagent`: what makes this a sub-agent's loop (None: the main one)."""

        self.model = model
        self.gate = gate
        self.tools = tools
        self.answer = answer
        self._system = system
        self.events = events or Events()
        self.messages: list[Message] = list(messages)
        self.checkpoint = checkpoint
        self.compaction = compaction
        self.harness = harness or Harness()
        # A sub-agent's loop: its role "subagent" (its model_selector and catalog are told), its kind
        # and its parent's turn's slots.
        self.role: Role = "main" if subagent is None else "subagent"
        self.snapshot = None if subagent is None else subagent.snapshot
        self.task_kind = "" if subagent is None else subagent.kind
        # The running turn's slots (resolved once when the run starts), None between runs.
        self.slots: TurnSlots | None = None
        self._turns = 0
        self.cancel = threading.Event()
        # Guards a call's result against the abort that drops it; the calls running.
        self._lock = threading.Lock()
        self._running: list[_Pending] = []
        # The running reply's calls, and how many of their results are in the conversation.
        self._pending: list[_Pending] = []
        self._added = 0
        # The current (or last) run's usage and denials, kept when it fails too.
        self.usage = Usage()
        self.denials: list[Denial] = []
        # The most requests one run makes (-p's --max-turns): None, no limit.
        self.max_turns: int | None = None
        # The replies in a row, up to now, whose every call could not be used.
        self._malformed = 0
        # Why the workspace the tools act in is lost ("": it is not): an executor's, set by whoever
        # opened it. Once it says so, no call is decided or run and the run ends (WorkspaceLost).
        self.workspace_lost: Callable[[], str] = lambda: ""
        # What the person typed to steer the run in flight, taken before each request (a front with
        # live input sets it; by default nothing is ever typed).
        self.steering: Steering = lambda: ()

    def system_for(self, offered: Sequence[ToolSpec]) -> str:
        """The system prompt of a turn that offers `offered`."""
        return self._system if isinstance(self._system, str) else self._system(offered)

    @property
    def system(self) -> str:
        """The system prompt naming every tool (what /context and compaction estimate between turns)."""
        return self.system_for(self.tools.specs())

    @property
    def instruction_files(self) -> list[str]:
        """The instruction files the system prompt holds, yours first (what /context names)."""
        return list(getattr(self._system, "sources", ()))

    def _add(self, message: Message, usage: Usage | None = None) -> None:
        self.messages.append(message)
        self.events.message(message, usage)

    def withdraw_unanswered(self) -> bool:
        """After a run that failed before the model answered its prompt: take the prompt back, so
        the conversation does not hold two prompts in a row and the next request does not send the
        one that failed (too long for the window, say) again. Whether there was one to take."""
        if not self.messages or not isinstance(self.messages[-1], User):
            return False
        self.events.withdrawn(self.messages.pop())
        return True

    def tell(self, note: str, ack: str) -> None:
        """Between prompts, tell the model what happened outside the conversation (a /undo-turn):
        `note` as a user message, then `ack` as its reply, so the next prompt follows a reply as any
        does. Both are recorded, so --resume rebuilds them."""
        self._add(User(note))
        self._add(Assistant(ack))

    def clear(self) -> None:
        """Start the conversation anew (the session and its record go on)."""
        self.messages = []
        if self.compaction is not None:
            self.compaction.forget()
        self.events.cleared()

    def run(self, prompt: str) -> RunResult:
        """Run one prompt to the model's last turn. Raises Cancelled (conversation kept valid) or
        ModelError (the prompt and every completed step kept)."""
        self.cancel.clear()
        self._turns += 1
        self._add(User(prompt))
        self.usage = Usage()
        self.denials = []
        self._malformed = 0
        self.slots = self.turn_slots()
        try:
            if self.checkpoint is None:
                return self._turn()
            self.checkpoint.begin()
            try:
                return self._turn()
            finally:
                self.checkpoint.end()
        finally:
            self.slots = None

    def turn_slots(self) -> TurnSlots:
        """The running turn's slots, or a new snapshot's (between runs: /compact)."""
        if self.slots is not None:
            return self.slots
        # Reported through self.events as it is then (a transcript may join it after the build).
        snapshot = self.snapshot or self.harness.snapshot()
        return TurnSlots(
            snapshot, self.role, lambda failure: self.events.slot_failed(failure), self.task_kind
        )

    def _turn(self) -> RunResult:
        assert self.slots is not None
        text = run_loop(self, self.slots, len(self.messages) - 1)
        return RunResult(text, self.usage, list(self.denials))

    # The kernel's steps (bastion.agent.runtime.harness.Kernel): what an agent_loop's step API calls.

    def tool_sources(self) -> Mapping[str, Sequence[ToolSpec]]:
        """The tools by source; a Tools with a `sources()` method (MCP, sub-agents) gives its own."""
        sources = getattr(self.tools, "sources", None)
        return sources() if callable(sources) else {BUILTIN_SOURCE: self.tools.specs()}

    def request(
        self, slots: TurnSlots, start: int, count: int, offered: Sequence[ToolSpec]
    ) -> tuple[Assistant, int]:
        for text in self.steering():  # it lands before this request, after what the last one began
            self._add(User(text))
        if self.compaction is not None:
            start = self.compaction.before_request(self, start, self._turns)
        self.events.request(len(self.messages))
        options = self.model.options
        chosen = slots.model(options.model, self._turns, count, len(self.messages))
        received: list[str] = []

        def on_text(delta: str) -> None:
            received.append(delta)
            self.events.text(delta)

        request = ModelRequest(
            dataclasses.replace(options, model=chosen),  # the model_selector's, for this request alone
            self.system_for(offered),
            tuple(self.messages),
            tuple(offered),
            on_text=on_text,
            on_thought=self.events.thought,
        )
        try:
            reply = self.model.stream(request)
        except KeyboardInterrupt:
            self._keep_received("".join(received))
            raise Cancelled("cancelled while the model was answering") from None
        self.usage.add(reply.usage)
        if self.compaction is not None:
            self.compaction.replied(reply.usage)
        self._add(reply.message, reply.usage)
        if self.max_turns is not None and count >= self.max_turns and reply.message.calls:
            # Their results would never reach the model: none runs, each says why.
            said = f"not run: the run reached its limit of {self.max_turns} model requests (max_turns)"
            calls = reply.message.calls
            self._pending = [_Pending(c, result=ToolResult(c.id, c.name, said, is_error=True)) for c in calls]
            self._finish()
            raise ModelError(
                f"the run reached its limit of {self.max_turns} model requests (--max-turns) and the "
                f"model still called {len(reply.message.calls)} tool(s), left unrun",
                Failure.MAX_TURNS,
            )
        return reply.message, start

    def _keep_received(self, text: str) -> None:
        """The text of a reply cut short by Ctrl-C stays in the conversation (and the session),
        marked as cut, so what the person read is what the model is told it said; a sub-agent's
        text is never shown, and its conversation ends with the cancel: nothing is kept there."""
        if text.strip() and self.role == "main":
            self._add(Assistant(f"{text}\n{CUT_SHORT}"))

    def execute(self, message: Assistant) -> None:
        if self.cancel.is_set():
            self.unrun(message)
            raise Cancelled("cancelled")
        last = self._calls(message)
        self._malformed = self._malformed + 1 if last is not None else 0
        if self._malformed >= MALFORMED_LIMIT:
            raise ModelError(
                f"the model's tool calls could not be used {self._malformed} replies in a row; "
                f"the last: {last}",
                Failure.MALFORMED_TOOL_ARGUMENTS,
            )

    def unrun(self, message: Assistant) -> None:
        self._pending = [_Pending(c) for c in message.calls]
        self._finish()

    def _calls(self, message: Assistant) -> str | None:
        """Decide, then run, one turn's calls; each result goes into the conversation (and the
        record) as soon as it and those before it have ended, so a crash (kill -9) loses only the
        calls still running. When none of them could be used: why the last could not."""
        pending = self._pending = [_Pending(c) for c in message.calls]
        self._added = 0
        try:
            for p in pending:
                self._check_lost()
                self._decide(p)
            self._add_ended()
            batch: list[_Pending] = []
            for p in pending:
                if p.args is None:
                    continue
                # Tools that only look run at once, several in a turn; anything else alone, in order.
                if runs_alongside(p.call.name, p.args):
                    batch.append(p)
                    continue
                self._run(batch)
                if self.checkpoint is not None:
                    self.checkpoint.before(p.call.name, p.args, p.approved)
                self._run([p])
                batch = []
            self._run(batch)
        except (KeyboardInterrupt, Cancelled):
            self._stop()
            self._finish()
            raise Cancelled("cancelled while tools ran") from None
        except WorkspaceLost as err:
            self._finish(LOST_NOT_RUN.format(why=err))
            raise
        self._finish()
        if pending and all(p.malformed for p in pending):
            result = pending[-1].result
            return result.content if result is not None else ""
        return None

    def _add_ended(self) -> None:
        """Add the results of the calls that have ended, in the calls' order, up to the first that
        has not (on the loop's thread: the conversation is only ever changed there)."""
        while self._added < len(self._pending):
            p = self._pending[self._added]
            if p.result is None or (p.args is not None and not p.done.is_set()):
                return
            self._add(p.result)
            self._added += 1

    def _stop(self) -> None:
        """Set the cancel event, so the calls still running stop and their results are dropped, and
        wait (a while) for them to end, so no command outlives the run."""
        with self._lock:
            self.cancel.set()
        deadline = time.monotonic() + STOP_WAIT
        for p in self._running:
            with contextlib.suppress(KeyboardInterrupt):  # another Ctrl-C does not skip the wait
                p.done.wait(max(0.0, deadline - time.monotonic()))
        self._running = []

    def _finish(self, unrun: str = NOT_RUN) -> None:
        """Add every result not added yet: an aborted call's is "interrupted", one never started
        `unrun`."""
        for p in self._pending[self._added :]:
            said = INTERRUPTED if p.started else unrun
            self._add(p.result or ToolResult(p.call.id, p.call.name, said, is_error=True))
        self._pending, self._added = [], 0

    def _check_lost(self) -> None:
        why = self.workspace_lost()
        if why:
            raise WorkspaceLost(why)

    def _decide(self, p: _Pending) -> None:
        call = p.call
        args = _parse_args(call)
        offered = self.tools.has(call.name) and (self.slots is None or self.slots.offers(call.name))
        if isinstance(args, str) or not offered:
            reason = args if isinstance(args, str) else f"error: there is no tool named {call.name!r}"
            self.events.error(call, reason)
            p.result = ToolResult(call.id, call.name, reason, is_error=True)
            p.malformed = True
            return
        try:
            decided = self.gate.decide(call.name, args)
            verdict, run_args = decided.verdict, decided.args
        except Exception as err:  # the gate failed: ask, never run unasked
            verdict = Verdict(Decision.ASK, f"the call could not be evaluated: {type(err).__name__}: {err}")
            run_args = args
        if self.slots is not None:  # the approval slot: only ever stricter (the kernel combines)
            verdict = self.slots.review(call.name, args, verdict)
        if verdict.decision is Decision.ALLOW:
            self.events.verdict(call, verdict, None)
            p.args = run_args
            p.approved = verdict.source is not None and not verdict.shipped
            return
        if verdict.decision is Decision.ASK:
            self._check_lost()  # nobody is asked about a call that cannot run
            try:
                answer = self.answer(call, args, verdict)
            except Exception as err:
                answer = Answer(False, f"the question could not be asked: {err}", by="rule")
            self.events.verdict(call, verdict, answer)
            if answer.allow:
                p.args = run_args
                p.approved = True
                p.note = f"(the user allowed this call and said: {answer.note})" if answer.note else ""
                return
            why = f": {answer.note}" if answer.note else ""
            who = {"flag": "--yes-to none", "rule": "bastion"}.get(answer.by, "the user")
            p.result = ToolResult(
                call.id, call.name, f"refused by {who}{why}; the call was not run", is_error=True
            )
            self._denied(call, args, verdict, answer.note or verdict.reason, answer.by)
            return
        self.events.verdict(call, verdict, None)
        by = decider(verdict)
        p.result = ToolResult(
            call.id, call.name, f"denied by {by}: {verdict.reason}; the call was not run", is_error=True
        )
        self._denied(call, args, verdict, verdict.reason, by)

    def _denied(
        self, call: ToolCall, args: Mapping[str, object], verdict: Verdict, reason: str, by: str
    ) -> None:
        self.denials.append(
            Denial(
                call.name,
                call.id,
                {k: v for k, v in args.items() if k != STAMP_ARG},
                str(verdict.decision),
                reason,
                verdict.rule.text if verdict.rule is not None else None,
                verdict.source.tag if verdict.source is not None else None,
                by,
            )
        )

    def _run(self, batch: Sequence[_Pending]) -> None:
        """Run calls at once, each on a daemon thread (a call still running when the process exits
        must not hold it up); wait for them here, where Ctrl-C lands."""
        if not batch:
            return
        self._running = []
        for p in batch:
            self._running.append(p)
            threading.Thread(target=self._one, args=(p,), daemon=True).start()
        for p in batch:
            while not p.done.wait(0.05):
                if self.cancel.is_set():
                    raise Cancelled("cancelled while tools ran")
            self._add_ended()
        self._running = []
        if self.cancel.is_set():  # set while the calls ran (Ctrl-C at a sub-agent's question)
            raise Cancelled("cancelled while tools ran")
        self._check_lost()  # a call met a lost workspace: its result says so, and the run ends

    def _one(self, p: _Pending) -> None:
        assert p.args is not None
        p.started = True
        self.events.started(p.call)
        _here.call = p.call
        try:
            try:
                output, error = self.tools.run(p.call.name, p.args, self.cancel)
            except Exception as err:
                output, error = f"error: {err}", True
            lost = self.workspace_lost()
            if lost:
                output, error = f"{output}\n[the workspace is lost ({lost}); the run ends]", True
            # What any tool gives (built-in, MCP, a sub-agent's) is made safe once, here: held keys
            # redacted, controls made visible, before the model, the screen or a record sees it.
            output = safe_text(output)
            with self._lock:
                if not self.cancel.is_set():  # an aborted call's result is "interrupted", whatever it said
                    p.result = ToolResult(
                        p.call.id, p.call.name, f"{output}\n{p.note}" if p.note else output, is_error=error
                    )
        finally:
            _here.call = None
            self.events.finished(p.call)
            p.done.set()
