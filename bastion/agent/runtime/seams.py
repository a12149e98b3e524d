"""The seams the turn loop stands on, in one place: each a protocol (or, for what a run reports,
a base class that does nothing), named apart from what implements it. A Model is a
providers.StreamingModel (or a test's script), a Gatekeeper a policy.Gate (through the front's
Asker and the skills' grants), Tools a tools.Toolbox (or MCP's, or the sub-agents' task tools), a
Checkpoint sessions.Checkpoints, a Compaction runtime.Compactor, an Answerer a front's question,
Steering a front's live input (the text typed while a run goes).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ...policy import Verdict
from ._options import ModelOptions, ModelRequest
from ._types import Message, Reply, ToolCall, ToolSpec, Usage

if TYPE_CHECKING:
    from .harness import SlotFailure, TurnSlots

__all__ = [
    "Answer",
    "Answerer",
    "Checkpoint",
    "Compaction",
    "ContextWindow",
    "Conversation",
    "Events",
    "Gatekeeper",
    "Model",
    "Ruling",
    "Steering",
    "TaskOrigin",
    "Tools",
]


class Model(Protocol):
    # What a request is made with unless the turn says otherwise: /model and /think replace it
    # between runs.
    options: ModelOptions

    def stream(self, request: ModelRequest) -> Reply:
        """The reply to `request`, complete; its pieces streamed to the request's sinks as they came."""
        ...


class Ruling(Protocol):
    """What a Gatekeeper answers: its verdict and the arguments the call runs with."""

    @property
    def verdict(self) -> Verdict: ...

    @property
    def args(self) -> Mapping[str, object]: ...


class Gatekeeper(Protocol):
    def decide(self, tool: str, args: object) -> Ruling: ...


class Tools(Protocol):
    def specs(self) -> Sequence[ToolSpec]: ...

    def has(self, name: str) -> bool: ...

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        """The call's output for the model, and whether it failed; once `cancel` is set the call
        should stop (a command's process group is killed)."""
        ...


class Checkpoint(Protocol):
    """Keeps what a turn changes (sessions.Checkpoints): `begin` before a prompt's first
    request, `before` ahead of each call that may write (`approved`: a person, a flag or the user's
    own rule let it run, not the shipped read-only rules), `end` once the prompt's run is over."""

    def begin(self) -> None: ...

    def before(self, tool: str, args: Mapping[str, object], approved: bool) -> None: ...

    def end(self) -> None: ...


class ContextWindow(Protocol):
    """A model's context window (providers.Window): its size in tokens, and where the figure came
    from in words."""

    @property
    def tokens(self) -> int: ...

    def said(self) -> str: ...


class Conversation(Protocol):
    """What a Compaction reads and rewrites of the agent whose conversation it keeps (runtime.Agent)."""

    model: Model
    tools: Tools
    messages: list[Message]
    usage: Usage

    @property
    def system(self) -> str: ...

    def turn_slots(self) -> TurnSlots: ...


class Compaction(Protocol):
    """Keeps the conversation within the model's window (runtime.Compactor)."""

    def replied(self, usage: Usage) -> None: ...

    def forget(self) -> None:
        """The conversation was started anew: what its last reply reported no longer holds."""
        ...

    def before_request(self, agent: Conversation, turn_start: int, turn: int) -> int:
        """May replace agent.messages before `turn_start` (where the running prompt is) by a
        summary, when the turn's trigger says so; returns the prompt's index after it."""
        ...


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer to an ask: `by` is "person", "flag", "rule" (refused unasked: a yes could not
    work) or "session rule" (the person allowed this exact call earlier with `a`); `note` is what
    was said with it."""

    allow: bool
    note: str = ""
    by: str = "person"


Answerer = Callable[[ToolCall, Mapping[str, object], Verdict], Answer]

# What the person typed for the run in flight, to steer it: each text the front holds, taken (so it
# is given once) right before the loop's next model request, and added to the conversation (and the
# record) as a user message there. A front without live input leaves the agent's default: nothing.
Steering = Callable[[], Sequence[str]]


class Events:
    """What a run reports as it goes (a front prints it, a session records it). Does nothing by default."""

    def text(self, delta: str) -> None:
        pass

    def thought(self, delta: str) -> None:
        """A piece of the model's reasoning, as it arrives (where the provider streams it)."""

    def request(self, messages: int) -> None:
        pass

    def message(self, message: Message, usage: Usage | None = None) -> None:
        pass

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        pass

    def error(self, call: ToolCall, reason: str) -> None:
        pass

    def started(self, call: ToolCall) -> None:
        """A call began to run (on its own thread)."""

    def finished(self, call: ToolCall) -> None:
        """A call that began has ended, whichever way (on its own thread)."""

    def slot_failed(self, failure: SlotFailure) -> None:
        """A harness component failed; another serves its slot for the rest of the turn."""

    def spent(self, usage: Usage, replies: int) -> None:
        """Replies made outside this conversation for it (a sub-agent's), and what they cost."""

    def withdrawn(self, message: Message) -> None:
        """A prompt the model never answered left the conversation."""

    def cleared(self) -> None:
        """The conversation was started anew (/clear)."""

    def subtask(self, origin: TaskOrigin) -> Events:
        """What observes the calls of a sub-agent this run started (the transcript's trace);
        nothing by default (the session and the screen are told by the sub-agent itself)."""
        return Events()


@dataclass(frozen=True, slots=True)
class TaskOrigin:
    """The sub-agent a call came from: the task's number in the session, its kind, and the id of
    the parent's `task` call that started it."""

    number: int
    kind: str
    parent_call_id: str
