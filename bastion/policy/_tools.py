"""The tools bastion decides, in one table: what each takes, reads and writes.

The policy layer is the lowest that knows tools, so this is where they are defined; the gate, the
matchers, the shipped rules, the subjects, the audit, and the agent's loop and tools read them here.
A tool not in the table is decided on its whole arguments and has no matcher; an MCP tool
(`mcp__SERVER__TOOL`) is decided as the subject `mcp "SERVER:TOOL"` (see _mcp.py).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = [
    "COMMAND_TOOLS",
    "MCP_PREFIX",
    "MCP_TOOL",
    "PATH_TOOLS",
    "READ_TOOLS",
    "STAMP_ARG",
    "TOOLS",
    "WRITE_TOOLS",
    "ToolInfo",
]

# The tool a rule names MCP calls by (`mcp(docs:*)`), and how the model's name of one begins.
MCP_TOOL = "mcp"
MCP_PREFIX = "mcp__"

# The argument a stamp travels in, added by the gate to a call it allows and checked by the tool.
STAMP_ARG = "bastion_stamp"


class ToolInfo(NamedTuple):
    """One tool. `argument` is what a rule's specifier is matched against ("command" for a command
    tool, "path" for a file tool); `default` the path a call that gives none is about (None: it
    must give one); `reads`: it only looks, so it runs alongside other such calls and its paths are
    reads; `writes`: it changes the file it names."""

    name: str
    argument: str
    default: str | None = None
    reads: bool = False
    writes: bool = False


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
    )
}

COMMAND_TOOLS = frozenset(t.name for t in TOOLS.values() if t.argument == "command")
PATH_TOOLS = frozenset(t.name for t in TOOLS.values() if t.argument == "path")
# In the table's order: the order an alias (`Read`, `Edit`) expands in.
READ_TOOLS = tuple(t.name for t in TOOLS.values() if t.reads)
WRITE_TOOLS = tuple(t.name for t in TOOLS.values() if t.writes)
