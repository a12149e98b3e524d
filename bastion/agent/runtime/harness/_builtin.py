"""The built-in implementations: each slot's default (what bastion did before slots existed) and a
few alternatives a config or profile can name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ....policy import READ_TOOLS, Decision
from .._types import ToolSpec
from ._slots import (
    INTERFACES,
    ApprovalInput,
    CatalogInput,
    ModelInput,
    Review,
    Steps,
    SummarizerInput,
    TriggerInput,
)

__all__ = [
    "COMPACT_SYSTEM",
    "BUILTIN",
    "BUILTIN_SOURCE",
    "DEFAULTS",
    "MEMORY_SOURCE",
    "SKILL_SOURCE",
    "SUBAGENT_SOURCE",
    "Builtin",
]

# What the source of bastion's own tools is called in a CatalogInput, and the source of `task`
# (a sub-agent's turn has no such source: no child has `task`), of `skill` and of `memory` (the
# main agent's only: a sub-agent has no skills or memory).
BUILTIN_SOURCE = "builtin"
SUBAGENT_SOURCE = "subagents"
SKILL_SOURCE = "skills"
MEMORY_SOURCE = "memory"

# The built-in summarizer's system prompt (compaction: runtime._compact).
COMPACT_SYSTEM = """You summarise a coding session so that it can go on in less space.
Write a summary another engineer could continue from, keeping:
1. The task: what the user asked for, in their words where they matter.
2. The decisions made and why, and what the user allowed or refused.
3. The files touched: each file read, written or edited, and what changed in it.
4. The commands that mattered and what they showed.
5. What is left to do, and the next step.
Write only the summary, as short as it can be while keeping all of that."""


class Builtin:
    """A built-in implementation: its slot, its id and its slot's interface."""

    run: Callable[[Any], Any]

    def __init__(self, slot: str, id_: str) -> None:
        self.slot = slot
        self.id = id_
        self.interface = INTERFACES[slot]


class RunTurn(Builtin):
    def run(self, steps: Steps) -> None:
        while True:
            reply = steps.call_model()
            if not reply.calls:
                steps.finish(reply.text)
                return
            steps.execute_tools()


class AllSources(Builtin):
    def run(self, given: CatalogInput) -> Sequence[ToolSpec]:
        return [spec for specs in given.sources.values() for spec in specs]


class NativeOnly(Builtin):
    def run(self, given: CatalogInput) -> Sequence[ToolSpec]:
        own = (BUILTIN_SOURCE, SKILL_SOURCE, MEMORY_SOURCE)
        return [spec for source in own for spec in given.sources.get(source, ())]


class ReadOnly(Builtin):
    """The tools that only look, and `skill` (a load gives text and runs nothing; a trusted skill's
    grant can only let run unasked what this catalog offers, all of which already runs unasked);
    never `memory`, one tool that also writes."""

    def run(self, given: CatalogInput) -> Sequence[ToolSpec]:
        looking = [spec for spec in given.sources.get(BUILTIN_SOURCE, ()) if spec.name in READ_TOOLS]
        return [*looking, *given.sources.get(SKILL_SOURCE, ())]


class Threshold(Builtin):
    def run(self, given: TriggerInput) -> bool:
        return given.threshold is not None and given.used >= given.threshold


class Never(Builtin):
    def run(self, given: TriggerInput) -> bool:
        return False


class ModelSummary(Builtin):
    def run(self, given: SummarizerInput) -> str:
        ask = given.transcript
        if given.focus:
            ask += f"\n\nIn the summary, keep above all: {given.focus}"
        return given.ask(COMPACT_SYSTEM, ask)


class Configured(Builtin):
    def run(self, given: ModelInput) -> str:
        return given.configured


class PolicyOnly(Builtin):
    def run(self, given: ApprovalInput) -> Review:
        return Review(Decision.ALLOW)


class AskWrites(Builtin):
    def run(self, given: ApprovalInput) -> Review:
        if given.tool in ("write", "edit") and given.verdict.decision is Decision.ALLOW:
            return Review(Decision.ASK, f"{given.tool} is asked (approval ask-writes)")
        return Review(Decision.ALLOW)


_ALL = (
    RunTurn("agent_loop", "run_turn"),  # call the model, run its calls, until it answers
    AllSources("catalog", "all"),  # every tool of every source
    NativeOnly("catalog", "native-only"),  # bastion's own tools, skill and memory (no MCP tool, no task)
    ReadOnly("catalog", "read-only"),  # bastion's tools that only look (READ_TOOLS) and skill
    Threshold("trigger", "threshold"),  # at compact_at, else at 3/4 of the model's window
    Never("trigger", "never"),  # never compact unasked (/compact still does)
    ModelSummary("summarizer", "model"),  # the session's model summarises
    Configured("model_selector", "configured"),  # the model the session was started with
    PolicyOnly("approval", "policy"),  # the policy's verdict, unchanged
    AskWrites("approval", "ask-writes"),  # asks before every write and edit the policy allowed
)

# The built-ins by slot and id, and each slot's default.
BUILTIN: Mapping[str, Mapping[str, Builtin]] = {
    slot: {b.id: b for b in _ALL if b.slot == slot} for slot in INTERFACES
}
DEFAULTS: Mapping[str, Builtin] = {slot: next(iter(BUILTIN[slot].values())) for slot in INTERFACES}
