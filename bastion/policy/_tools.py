"""The tools bastion decides, in one table: what each takes, reads and writes.

The policy layer is the lowest that knows tools, so this is where they are defined; the gate, the
matchers, the shipped rules, the subjects, the audit, and the agent's loop and tools read them here.
A tool not in the table is decided on its whole arguments and has no matcher; an MCP tool
(`mcp__SERVER__TOOL`) is decided as the subject `mcp "SERVER:TOOL"` (see _mcp.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

__all__ = [
    "COMMAND_TOOLS",
    "HELD_TOOLS",
    "MCP_PREFIX",
    "MCP_TOOL",
    "KIND_TOOLS",
    "MEMORY_ACTIONS",
    "NAMED_TOOLS",
    "PATH_TOOLS",
    "READ_TOOLS",
    "STAMP_ARG",
    "TASK_KINDS",
    "TOOLS",
    "WRITE_TOOLS",
    "ToolInfo",
    "runs_alongside",
]

# The tool a rule names MCP calls by (`mcp(docs:*)`), and how the model's name of one begins.
MCP_TOOL = "mcp"
MCP_PREFIX = "mcp__"

# The argument a stamp travels in, added by the gate to a call it allows and checked by the tool.
STAMP_ARG = "bastion_stamp"


class ToolInfo(NamedTuple):
    """One tool. `argument` is what a rule's specifier is matched against ("command" for a command
    tool, "path" for a file tool, "kind" for the task tool, "name" for a skill, "action" for
    memory); `default` the value a call that gives none is about (None: it must give one); `reads`:
    it only looks, so it runs alongside other such calls and its paths are reads; `writes`: it
    changes the file it names; `choices`: the values its argument may take (empty: any non-empty
    string); `held_to`: the files of the workspace a call reads are also decided as that tool's
    reads, held to its ask and deny rules and never its allows (the gate's `claims` say which)."""

    name: str
    argument: str
    default: str | None = None
    reads: bool = False
    writes: bool = False
    choices: tuple[str, ...] = ()
    held_to: str | None = None


TOOLS: dict[str, ToolInfo] = {
    t.name: t
    for t in (
        ToolInfo("bash", "command"),
        ToolInfo("read", "path", reads=True),
        ToolInfo("write", "path", writes=True),
        ToolInfo("edit", "path", writes=True),
        ToolInfo("glob", "path", ".", reads=True),
        ToolInfo("grep", "path", ".", reads=True),
        ToolInfo("ls", "path", ".", reads=True),
        # A sub-agent (bastion/agent/_subagent.py): its subject is its kind; every call the child
        # makes is decided on its own, by the same policy.
        # The kinds of sub-agent: `explore` is given the looking tools and bash, `general` every tool.
        ToolInfo("task", "kind", "explore", choices=("explore", "general")),
        # A skill (bastion/agent/_skills.py): its subject is its name; the files of the workspace a
        # project's skill reads are reads held to read's asks and denies.
        ToolInfo("skill", "name", held_to="read"),
        # The model's memory (bastion/agent/_memory.py), outside the workspace: its subject is the
        # action; the shipped rules allow `memory(read)` and ask for the others.
        ToolInfo("memory", "action", choices=("read", "write", "delete")),
    )
}

TASK_KINDS = TOOLS["task"].choices
MEMORY_ACTIONS = TOOLS["memory"].choices

COMMAND_TOOLS = frozenset(t.name for t in TOOLS.values() if t.argument == "command")
PATH_TOOLS = frozenset(t.name for t in TOOLS.values() if t.argument == "path")
# In the table's order: the order an alias (`Read`, `Edit`) expands in.
READ_TOOLS = tuple(t.name for t in TOOLS.values() if t.reads)
WRITE_TOOLS = tuple(t.name for t in TOOLS.values() if t.writes)
KIND_TOOLS = frozenset(t.name for t in TOOLS.values() if t.argument == "kind")
# The tools whose specifier is a glob over a name the call gives (task's kind, skill's name, memory's
# action): neither a command nor a path.
NAMED_TOOLS = frozenset(t.name for t in TOOLS.values() if t.argument not in ("command", "path"))
HELD_TOOLS: dict[str, str] = {t.name: t.held_to for t in TOOLS.values() if t.held_to is not None}


def runs_alongside(tool: str, args: Mapping[str, object]) -> bool:
    """Whether the turn loop may run a call at once with the other such calls of a reply: a tool
    that only looks, or an `explore` task (its child has only the looking tools and bash, and a
    bash line that may write holds the workspace's write lock)."""
    if tool in KIND_TOOLS:
        return args.get(TOOLS[tool].argument, TOOLS[tool].default) == "explore"
    return tool in READ_TOOLS
