"""The harness: the per-turn decisions as slots, each with a built-in default, that a user selects in
config, switches by profile, or fills with components in Python; above the policy, which no
component can loosen, and the kernel, which keeps every invariant (docs/design.md, "The harness").

A component module defines `register(harness)` and calls `harness.use(slot, component)`,
`harness.wrap(...)` or `harness.fallback(...)`; a component has `id`, `interface` (`trigger.v1`)
and `run`. Importing this package loads no SDK.
"""

from ._builtin import BUILTIN, BUILTIN_SOURCE, COMPACT_SYSTEM, MEMORY_SOURCE, SKILL_SOURCE, SUBAGENT_SOURCE
from ._graph import graph_lines, runtime_main
from ._kernel import SlotFailure, TurnSlots, decider, failure_words
from ._load import HarnessConfig, HarnessError, Registrar, harness_config
from ._resolve import Harness, Snapshot, load_harness
from ._slots import (
    INTERFACES,
    SLOTS,
    AgentLoop,
    Approval,
    ApprovalInput,
    Catalog,
    CatalogInput,
    Component,
    ModelInput,
    ModelSelector,
    Review,
    Role,
    StepReply,
    Steps,
    Summarizer,
    SummarizerInput,
    Trigger,
    TriggerInput,
    Wrap,
)
from ._steps import StepError, run_loop

__all__ = [
    "AgentLoop",
    "Approval",
    "ApprovalInput",
    "BUILTIN",
    "BUILTIN_SOURCE",
    "COMPACT_SYSTEM",
    "Catalog",
    "CatalogInput",
    "Component",
    "Harness",
    "HarnessConfig",
    "HarnessError",
    "INTERFACES",
    "MEMORY_SOURCE",
    "ModelInput",
    "ModelSelector",
    "Registrar",
    "Review",
    "Role",
    "SKILL_SOURCE",
    "SLOTS",
    "SUBAGENT_SOURCE",
    "SlotFailure",
    "Snapshot",
    "StepError",
    "StepReply",
    "Steps",
    "Summarizer",
    "SummarizerInput",
    "Trigger",
    "TriggerInput",
    "TurnSlots",
    "Wrap",
    "decider",
    "failure_words",
    "graph_lines",
    "harness_config",
    "load_harness",
    "run_loop",
    "runtime_main",
]
