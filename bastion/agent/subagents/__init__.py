"""Sub-agents: the `task` tool hands a side task to a child turn loop with a fresh context, under
the parent's gate.
"""

from ._subagent import (
    EXPLORE_TOOLS,
    TASK,
    TASK_SPEC,
    ChildCompaction,
    Console,
    Only,
    Subagents,
    TaskTools,
    configured_model,
    front_console,
    tasks_in,
)

__all__ = [
    "ChildCompaction",
    "Console",
    "EXPLORE_TOOLS",
    "Only",
    "Subagents",
    "TASK",
    "TASK_SPEC",
    "TaskTools",
    "configured_model",
    "front_console",
    "tasks_in",
]
