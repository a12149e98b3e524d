"""What every tool shares: the context it acts in, its arguments, confined paths, locks, stamps."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..._errors import BastionError
from ..._safe import safe_text
from ...analyzer import CHANGED_PATHS
from ...policy import STAMP_ARG, TOOLS
from ...sandbox import SandboxConfig
from ...workspace import Resolved, Workspace, resolve
from ._readable import Readable, readable_by

if TYPE_CHECKING:
    from ...policy import Gate
    from ..skills import Memory, SkillCatalog

__all__ = [
    "Args",
    "Files",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "check_path_stamp",
    "confined",
    "file_lock",
    "flag",
    "number",
    "path_of",
    "readable",
    "schema",
    "text",
]

Args = Mapping[str, object]


class Files(Protocol):
    """Another holder of the workspace's files, by absolute path (an editor's buffers, `_held.py`).
    None or False: it does not serve that, the disk is used; an OSError: it failed or did not answer
    in time."""

    def text_of(self, path: str) -> str | None: ...

    def put_text(self, path: str, text: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Where a tool acts: the session's gate (its workspace, root-relative working directory and
    read bound are the tools'; a stamped call runs only if the gate clears its stamp: the gate
    that made it, which decided with the same secret patterns), where a command's output goes as it
    arrives, and the event that, once set, ends a running command's process group (Ctrl-C);
    `sandbox` is the user's sandbox settings (the kernel's confinement
    of every command bash starts); `skills` and `memory` are the session's (None: the session has
    none, and the skill and memory tools refuse); `files` is where read, write and
    edit find a file's text instead of the disk (None: the disk)."""

    gate: Gate
    on_output: Callable[[str], None] | None = None
    cancel: threading.Event | None = None
    sandbox: SandboxConfig = SandboxConfig()
    skills: SkillCatalog | None = None
    memory: Memory | None = None
    files: Files | None = None

    @property
    def ws(self) -> Workspace:
        return self.gate.ws

    @property
    def cwd(self) -> str:
        return self.gate.cwd

    @property
    def max_read_bytes(self) -> int:
        return self.gate.max_read_bytes


class ToolError(BastionError):
    """A call refused or failed, with the sentence the model is shown."""


@dataclass(frozen=True, slots=True)
class ToolOutput:
    text: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class Tool:
    """A tool: its JSON schema for the model, the function that runs it, and the path arguments a
    call touches (what a path stamp binds)."""

    name: str
    description: str
    parameters: dict[str, Any]
    runner: Callable[[Args, ToolContext], str] = field(repr=False)
    paths: Callable[[Args], tuple[str, ...]] = field(default=lambda args: (), repr=False)

    @property
    def schema(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "parameters": self.parameters}

    def run(self, args: object, ctx: ToolContext) -> ToolOutput:
        """Run a call; a refusal, bad input or failure comes back as an error, never raised."""
        if not isinstance(args, Mapping) or not all(isinstance(k, str) for k in args):
            return ToolOutput(f"{self.name}: the arguments must be a JSON object", True)
        unknown = sorted(set(args) - set(self.parameters["properties"]))
        if unknown:
            return ToolOutput(safe_text(f"{self.name}: unknown argument {unknown[0]!r}"), True)
        # The tool's text made safe (bastion/_safe.py) as it leaves the tool; the loop does the same
        # to every tool's (MCP, sub-agents), and doing it twice changes nothing.
        try:
            return ToolOutput(safe_text(self.runner(args, ctx)))
        except ToolError as err:
            return ToolOutput(safe_text(str(err)), True)
        except Exception as err:  # a tool's bug is the call's error, never the agent's crash
            return ToolOutput(safe_text(f"{self.name} failed: {type(err).__name__}: {err}"), True)


def schema(properties: dict[str, Any], required: Iterable[str]) -> dict[str, Any]:
    """A JSON schema object with the stamp field every tool carries."""
    props = dict(properties)
    props[STAMP_ARG] = {"type": "string", "description": "Set by bastion; leave it out."}
    return {"type": "object", "properties": props, "required": list(required), "additionalProperties": False}


def path_of(tool: str, args: Args) -> str:
    """A file tool's path argument, or the path the table gives it when the call gives none."""
    info = TOOLS[tool]
    return text(args, info.argument, info.default)


def text(args: Args, key: str, default: str | None = None) -> str:
    value = args.get(key, default)
    if value is None:
        raise ToolError(f"the argument {key!r} is required")
    if not isinstance(value, str):
        raise ToolError(f"the argument {key!r} must be a string")
    return value


def number(args: Args, key: str, default: int, *, low: int, high: int) -> int:
    value = args.get(key, default)
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError(f"the argument {key!r} must be a whole number")
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        raise ToolError(f"the argument {key!r} must be a whole number")
    if not low <= value <= high:
        raise ToolError(f"the argument {key!r} must be between {low} and {high}")
    return int(value)


def flag(args: Args, key: str) -> bool:
    value = args.get(key, False)
    if not isinstance(value, bool):
        raise ToolError(f"the argument {key!r} must be true or false")
    return value


def confined(ctx: ToolContext, raw: str) -> Resolved:
    """The path argument resolved inside the workspace (links inside followed), or a ToolError."""
    if raw == "":
        raise ToolError("the path is empty")
    r = resolve(ctx.ws, ctx.cwd, raw)
    if not r.ok:
        raise ToolError(f"{raw} is outside the workspace ({r.why})")
    return r


def readable(ctx: ToolContext) -> Readable:
    """Which files a walk below a decided path may open: the gate's policy says."""
    return readable_by(ctx.gate.settings.policy)


def check_path_stamp(tool: str, args: Args, names: tuple[str, ...], ctx: ToolContext) -> None:
    """A stamped call runs only while its paths lead where they led when it was allowed."""
    stamp = args.get(STAMP_ARG)
    if stamp is not None and not ctx.gate.paths_hold(tool, names, stamp):
        raise ToolError(CHANGED_PATHS)


_locks: dict[tuple[str, str], threading.Lock] = {}
_locks_guard = threading.Lock()


def file_lock(ctx: ToolContext, real: str) -> threading.Lock:
    """The one lock of a resolved name in this workspace, held across a read-modify-write."""
    with _locks_guard:
        return _locks.setdefault((ctx.ws.real_root, real), threading.Lock())
