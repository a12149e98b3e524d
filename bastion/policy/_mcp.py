"""MCP tools as the policy sees them: a name `mcp__SERVER__TOOL`, a rule `mcp(SERVER:TOOL)`.

A server's name is letters, digits and single `-` or `_` between them (no `__`, nothing leading or
trailing); a tool's name is letters, digits, `-` and `_` with no `__` in it, and the whole name the
model sees is at most 64 characters (what every provider accepts). So `mcp__SERVER__TOOL` splits one
way only, at its second `__`, and a name that does not split so (`mcp__a`, `mcp__docs__a__b`,
`mcp__doc.s__x`) is not an MCP tool of bastion's: it is decided as any unknown tool, on its whole
arguments, and no `mcp(...)` rule ever allows it.

A call of `mcp__docs__search` is two subjects: `mcp "docs:search"`, which `mcp`, `mcp(docs:*)` and
`mcp(docs:search)` name, and a constraint subject of the tool's own name (its arguments as JSON),
which only deny and ask rules reach (`deny = ["mcp__*"]`, the form Claude Code's names take). A rule's
specifier is `SERVER:TOOL`: the server is written out, the tool is a glob whose `*` covers any run of
a tool name's characters. The value a rule meets holds one `:` and no `__`, so `mcp(docs:*)` matches
neither `docs2:x` nor `evil:docs`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from ._tools import MCP_PREFIX, MCP_TOOL
from ._types import Subject

__all__ = [
    "MCP_NAME_LIMIT",
    "SERVER_NAME",
    "mcp_pattern_source",
    "mcp_name_problem",
    "mcp_subjects",
    "mcp_tool_name",
    "split_mcp_name",
]

# OpenAI's function names are at most 64 characters, Anthropic's 128: the smaller holds everywhere.
MCP_NAME_LIMIT = 64

SERVER_NAME = re.compile(r"[A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*")
_TOOL_NAME = re.compile(r"[A-Za-z0-9_-]+")
_TOOL_GLOB = re.compile(r"[A-Za-z0-9_*-]+")
# What a rule's `*` covers in a tool name: any run of its characters that never makes `__`.
_TOOL_RUN = r"(?:[A-Za-z0-9-]|_(?!_))*"


def mcp_tool_name(server: str, tool: str) -> str:
    return f"{MCP_PREFIX}{server}__{tool}"


def mcp_name_problem(server: str, tool: str) -> str | None:
    """Why the tool `tool` of `server` cannot be offered to the model (None: it can)."""
    if SERVER_NAME.fullmatch(server) is None:
        return f"the server name {server!r} is not letters and digits joined by single - or _"
    if _TOOL_NAME.fullmatch(tool) is None:
        return f"the tool name {tool!r} holds a character other than letters, digits, - and _"
    if "__" in tool:
        return f"the tool name {tool!r} holds __, which separates a server from its tool"
    name = mcp_tool_name(server, tool)
    if len(name) > MCP_NAME_LIMIT:
        return f"{name} is longer than {MCP_NAME_LIMIT} characters"
    return None


def split_mcp_name(name: str) -> tuple[str, str] | None:
    """(server, tool) of a name `mcp__SERVER__TOOL` that names them in the one way they can be
    named; None for any other name."""
    if not name.startswith(MCP_PREFIX):
        return None
    server, sep, tool = name[len(MCP_PREFIX) :].partition("__")
    if not sep or mcp_name_problem(server, tool) is not None:
        return None
    return server, tool


def mcp_subjects(name: str, args: Mapping[str, object]) -> tuple[Subject, ...] | None:
    """The subjects of a call of the MCP tool `name`; None when `name` is not one."""
    split = split_mcp_name(name)
    if split is None:
        return None
    server, tool = split
    about = f"the MCP tool {tool} of the server {server}"
    arguments = json.dumps(dict(args), sort_keys=True)
    return (
        Subject(MCP_TOOL, f"{server}:{tool}", about=about),
        Subject(name, arguments, about="its arguments", constraint=True),
    )


def mcp_pattern_source(pattern: str) -> str | None:
    """The regular expression `mcp(SERVER:TOOL)` matches a subject's value with; None when the
    pattern is not of that form."""
    server, sep, tool = pattern.partition(":")
    if not sep or SERVER_NAME.fullmatch(server) is None or _TOOL_GLOB.fullmatch(tool) is None:
        return None
    if "__" in tool.replace("*", ""):
        return None
    glob = _TOOL_RUN.join(re.escape(part) for part in re.split(r"\*+", tool))
    return f"{re.escape(server)}:{glob}"
