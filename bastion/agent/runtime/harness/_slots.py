"""The slots: what each per-turn decision is given, what it answers, and the versioned interface a
component declares to fill it.

A component is any object with `id` (its name, unique in its slot), `interface` (the slot's
versioned interface id, `model_selector.v1`) and `run`. A wrap's `run` also takes `inner`, the
implementation it surrounds. What a component is given is immutable (NamedTuples, read-only
mappings); what it answers is checked by the kernel before it is used.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Literal, NamedTuple, Protocol

from ....policy import Decision, Verdict
from .._types import Message, ToolCall, ToolSpec

__all__ = [
    "INTERFACES",
    "SLOTS",
    "AgentLoop",
    "Approval",
    "ApprovalInput",
    "Catalog",
    "CatalogInput",
    "Component",
    "ModelInput",
    "ModelSelector",
    "Review",
    "Role",
    "StepReply",
    "Steps",
    "Summarizer",
    "SummarizerInput",
    "Trigger",
    "TriggerInput",
    "Wrap",
]

# Listed in the order `bastion runtime graph` prints them.
SLOTS = ("agent_loop", "catalog", "trigger", "summarizer", "model_selector", "approval")
# The interface each slot offers in this bastion: a component declaring another is refused at load.
INTERFACES: Mapping[str, str] = {slot: f"{slot}.v1" for slot in SLOTS}

# Whose turn it is: the main agent's, or a sub-agent's (a model_selector may route them apart).
Role = Literal["main", "subagent"]


class Component(Protocol):
    """What every component has: its id and the interface it implements."""

    @property
    def id(self) -> str: ...

    @property
    def interface(self) -> str: ...


class Wrap(Component, Protocol):
    """Middleware around a slot's current implementation: it may change what `inner` is given or
    what it answered, or answer without it."""

    def run(self, given: object, inner: Callable[[object], object]) -> object: ...


# catalog.v1: the tools the model is offered this turn, chosen from the tool sources.
class CatalogInput(NamedTuple):
    """`sources` maps a source's name to its tools, in order: "builtin" (bastion's own tools), one
    "mcp:SERVER" per MCP server that offers tools, and, in the main agent's turn, "skills" (the
    `skill` tool, when there are skills), "memory" (the `memory` tool) and "subagents" (the `task`
    tool).
    `role`: whose turn it is (a sub-agent's sources are the tools its kind has)."""

    sources: Mapping[str, Sequence[ToolSpec]]
    role: Role


class Catalog(Component, Protocol):
    def run(self, given: CatalogInput) -> Sequence[ToolSpec]:
        """A selection of the sources' tools (a tool no source has is refused by the kernel)."""
        ...


# trigger.v1: whether to compact before this request.
class TriggerInput(NamedTuple):
    """`used`: the tokens the conversation takes (estimated, or as last reported, whichever is
    more); `threshold`: the config's compact_at, else three quarters of the model's window (always
    set by bastion's compactor; None only from a caller that knows neither); `window`: the model's
    context window (bastion.agent.providers._windows: always known to the compactor); `turn`: the
    prompt's number. Asked only when there is something to compact: messages before the running
    prompt, or work of its own."""

    used: int
    threshold: int | None
    window: int | None
    turn: int


class Trigger(Component, Protocol):
    def run(self, given: TriggerInput) -> bool: ...


# summarizer.v1: the summary that replaces the conversation before the running prompt, or the
# running prompt's own work (the rounds before its latest).
class SummarizerInput(NamedTuple):
    """`messages`: what is replaced (for a prompt's own work, the prompt first, which is kept);
    `transcript`: them as text, results cut (what the default
    summariser sends); `focus`: what /compact asked to keep ("" for none); `ask`: one request to
    the session's model with (system, prompt), its text back (its usage counts to the run)."""

    messages: Sequence[Message]
    transcript: str
    focus: str
    ask: Callable[[str, str], str]


class Summarizer(Component, Protocol):
    def run(self, given: SummarizerInput) -> str: ...


# model_selector.v1: the model that serves a request.
class ModelInput(NamedTuple):
    """`configured`: the model the agent was started with (or /model chose; for a sub-agent, the
    model it was built with: `subagent_model`, else the session's); `role`: whose turn; `turn`:
    the prompt's number; `request`: the request's number within it (1 first); `messages`: how many
    messages the request sends; `task_kind`: a sub-agent's kind (explore, general), "" for the
    main agent."""

    configured: str
    role: Role
    turn: int
    request: int
    messages: int
    task_kind: str = ""


class ModelSelector(Component, Protocol):
    def run(self, given: ModelInput) -> str:
        """The model's name at the session's provider."""
        ...


# approval.v1: a second opinion on a call the policy allowed or asked.
class ApprovalInput(NamedTuple):
    """`arguments`: a read-only copy of what the model sent; `verdict`: what the policy decided."""

    tool: str
    arguments: Mapping[str, object]
    verdict: Verdict


class Review(NamedTuple):
    """An approval component's answer: ALLOW (no objection), ASK (escalate) or DENY. The kernel
    keeps the stricter of this and the policy's verdict: an ALLOW never loosens an ask or a deny."""

    decision: Decision
    reason: str = ""


class Approval(Component, Protocol):
    def run(self, given: ApprovalInput) -> Review: ...


# agent_loop.v1: the turn loop itself, over the step API.
class StepReply(NamedTuple):
    """The model's reply: its text and the calls it made (run them with `execute_tools`)."""

    text: str
    calls: tuple[ToolCall, ...]


class Steps(Protocol):
    """The whole step API an agent_loop is given. The kernel keeps every invariant behind it:
    compaction, the model's choice, streaming, events, the session's record, the policy's decision
    and the approval slot for each call, checkpoints, cancellation, usage."""

    def call_model(self) -> StepReply:
        """Send the conversation; the reply joins it. Refused while its calls have not run."""
        ...

    def execute_tools(self) -> None:
        """Decide and run the last reply's calls; their results join the conversation."""
        ...

    def finish(self, text: str) -> None:
        """End the turn with `text` as its answer."""
        ...


class AgentLoop(Component, Protocol):
    def run(self, steps: Steps) -> None: ...
