"""The tools bastion decides, in one table: what each takes, reads and writes.

The policy layer is the lowest that knows tools, so this is where they are defined; the gate, the
matchers, the shipped rules, the subjects, the audit, and the agent's loop and tools read them here.
A tool not in the table is decided on its whole arguments and has no matcher; an MCP tool
(`mcp__SERVER__TOOL`) is decided as the subject `mcp "SERVER:TOOL"` (see _mcp.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, NamedTuple

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
    "ArgType",
    "ToolInfo",
    "argument_problem",
    "runs_alongside",
]

# The tool a rule names MCP calls by (`mcp(docs:*)`), and how the model's name of one begins.
MCP_TOOL = "mcp"
MCP_PREFIX = "mcp__"

# The argument a stamp travels in, added by the gate to a call it allows and checked by the tool.
STAMP_ARG = "bastion_stamp"


# The JSON types a tool's arguments take, as JSON Schema names them.
ArgType = Literal["string", "integer", "boolean"]


class ToolInfo(NamedTuple):
    """One tool. `argument` is what a rule's specifier is matched against ("command" for a command
    tool, "path" for a file tool, "kind" for the task tool, "name" for a skill, "action" for
    memory); `default` the value a call that gives none is about (None: it must give one); `reads`:
    it only looks, so it runs alongside other such calls and its paths are reads; `writes`: it
    changes the file it names; `types`: the JSON type of each argument it takes (its schema for the
    model says the same: tests check both ways), so the gate refuses a call the tool itself would
    refuse for the type of one; `required`: the arguments a call must give (its schema's
    "required"; the gate holds a whole call to them, argument_problem); `choices`: the values its
    argument may take (empty: any non-empty string); `held_to`: the files of the workspace a call
    reads are also decided as that tool's reads, held to its ask and deny rules and never its
    allows (the gate's `claims` say which)."""

    name: str
    argument: str
    default: str | None = None
    reads: bool = False
    writes: bool = False
    types: tuple[tuple[str, ArgType], ...] = ()
    required: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    held_to: str | None = None


TOOLS: dict[str, ToolInfo] = {
    t.name: t
    for t in (
        ToolInfo(
            "bash",
            "command",
            types=(("command", "string"), ("timeout_seconds", "integer")),
            required=("command",),
        ),
        ToolInfo(
            "read",
            "path",
            reads=True,
            types=(("path", "string"), ("offset", "integer"), ("limit", "integer")),
            required=("path",),
        ),
        ToolInfo(
            "write",
            "path",
            writes=True,
            types=(("path", "string"), ("content", "string")),
            required=("path", "content"),
        ),
        ToolInfo(
            "edit",
            "path",
            writes=True,
            types=(("path", "string"), ("old_string", "string"), ("new_string", "string")),
            required=("path", "old_string", "new_string"),
        ),
        ToolInfo(
            "glob",
            "path",
            ".",
            reads=True,
            types=(("pattern", "string"), ("path", "string")),
            required=("pattern",),
        ),
        ToolInfo(
            "grep",
            "path",
            ".",
            reads=True,
            types=(
                ("pattern", "string"),
                ("path", "string"),
                ("include", "string"),
                ("ignore_case", "boolean"),
                ("max_results", "integer"),
            ),
            required=("pattern",),
        ),
        ToolInfo("ls", "path", ".", reads=True, types=(("path", "string"),)),
        # A sub-agent (bastion/agent/subagents/_subagent.py): its subject is its kind; every call the child
        # makes is decided on its own, by the same policy.
        # The kinds of sub-agent: `explore` is given the looking tools and bash, `general` every tool.
        ToolInfo(
            "task",
            "kind",
            "explore",
            choices=("explore", "general"),
            types=(("kind", "string"), ("prompt", "string")),
            required=("prompt",),
        ),
        # A skill (bastion/agent/skills/_skills.py): its subject is its name; the files of the workspace a
        # project's skill reads are reads held to read's asks and denies.
        ToolInfo(
            "skill",
            "name",
            held_to="read",
            types=(("name", "string"), ("file", "string")),
            required=("name",),
        ),
        # The model's memory (bastion/agent/skills/_memory.py), outside the workspace: its subject is the
        # action; the shipped rules allow `memory(read)` and ask for the others.
        ToolInfo(
            "memory",
            "action",
            choices=("read", "write", "delete"),
            types=(("action", "string"), ("name", "string"), ("text", "string")),
            required=("action",),
        ),
    )
}

TASK_KINDS = TOOLS["task"].choices
MEMORY_ACTIONS = TOOLS["memory"].choices


def _is(value: object, kind: ArgType) -> bool:
    if kind == "string":
        return isinstance(value, str)
    if kind == "boolean":
        return isinstance(value, bool)
    # A whole number, as the tools take it (30 or 30.0).
    return isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer()


def _json_type(value: object) -> str:
    """What a JSON value is, as a person reads it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number" if float(value).is_integer() else "a fractional number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def argument_problem(tool: str, args: Mapping[str, object], *, whole: bool = False) -> str | None:
    """What is wrong with the arguments of a call to one of bastion's tools, naming the argument and
    its type, before anything is decided on them: a value not of the type the tool takes (null
    included: no tool takes it), a missing value of the argument the call is decided on when the
    tool has no default for it (read's path), and, for a `whole` call (the agent's, which the tool
    runs as it is given), an argument the tool does not take or one it requires that the call
    leaves out; None when the tool would take them. A dry run's call (check, audit, a hook) may
    name only what the policy reads (a write's path, not its content), and another agent's names
    for the same things (a hook's grep `glob`)."""
    info = TOOLS.get(tool)
    if info is None:
        return None
    types = dict(info.types)
    unknown = sorted(name for name in args if name not in types) if whole else []
    if unknown:
        return f"`args.{unknown[0]}` is not an argument of the {tool} tool (it takes {', '.join(types)})"
    for name, kind in info.types:
        a = "an" if kind == "integer" else "a"
        if name in args and not _is(args[name], kind):
            return f"`args.{name}` must be {a} {kind}, not {_json_type(args[name])}"
        needed = name in info.required if whole else name == info.argument and info.default is None
        if needed and name not in args:
            return f"`args.{name}` must be {a} {kind}; the call gives none"
    return None


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
