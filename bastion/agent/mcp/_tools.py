"""The built-in tools and the MCP servers' tools, side by side behind the loop's Tools seam.

Each server tool is offered as `mcp__SERVER__TOOL`. A tool is refused, and says why in /mcp and
doctor, when its name cannot be offered (odd characters, `__`, too long: see bastion/policy/_mcp.py)
or when it collides (compared case-blind) with a built-in tool or a tool offered before it: servers
are taken in the config's order, a server's tools in the order it lists them. The list is made again
whenever a server says its tools changed (notifications/tools/list_changed).

Every call of a server's tool holds the workspace's write lock while it runs, as a bash line that
is not the analyzer's plan does: bastion cannot know what a server does (a tool named `read` may
write), so no MCP call runs beside a write, an approved bash line or another MCP call, the parent's
or a sub-agent's. The built-in tools that only look never take the lock.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple

from ...policy import mcp_name_problem, mcp_tool_name
from ..runtime import ToolSpec
from ..runtime.harness import BUILTIN_SOURCE
from ..tools import ToolError
from ._client import Hub, ServerReport

if TYPE_CHECKING:
    from ..runtime import Tools
    from ..tools import WriteLock

__all__ = ["McpToolbox"]

# A server's tools are the catalog's source "mcp:SERVER".
MCP_SOURCE = "mcp:"

# What a server's description of a tool may take of the model's context.
_MAX_DESCRIPTION = 2_000
_EMPTY_SCHEMA: dict[str, object] = {"type": "object", "properties": {}}


class _Offered(NamedTuple):
    server: str
    tool: str
    spec: ToolSpec


def _spec(name: str, server: str, description: str | None, schema: Mapping[str, object] | None) -> ToolSpec:
    text = (description or "").strip()
    if len(text) > _MAX_DESCRIPTION:
        text = text[:_MAX_DESCRIPTION] + " ..."
    parameters = (
        dict(schema) if isinstance(schema, Mapping) and schema.get("type") == "object" else _EMPTY_SCHEMA
    )
    return ToolSpec(name, f"(MCP server {server}) {text}".rstrip(), dict(parameters))


class McpToolbox:
    """`builtin` (the Toolbox) plus the tools of the servers `hub` keeps; `lock` is the workspace's
    write lock, held by each server call."""

    def __init__(self, builtin: Tools, hub: Hub, lock: WriteLock) -> None:
        self._builtin = builtin
        self._hub = hub
        self._write_lock = lock
        self._lock = threading.Lock()
        self._offered: dict[str, _Offered] = {}
        self._refused: dict[str, list[str]] = {}
        self._refresh()
        hub.on_tools = lambda server: self._refresh()

    def _refresh(self) -> None:
        taken = {spec.name.casefold(): "the built-in tool " + spec.name for spec in self._builtin.specs()}
        offered: dict[str, _Offered] = {}
        refused: dict[str, list[str]] = {}
        for server in self._hub.names():
            refused[server] = []
            for tool in self._hub.tools(server):
                problem = mcp_name_problem(server, tool.name)
                name = mcp_tool_name(server, tool.name)
                if problem is None and name.casefold() in taken:
                    problem = f"{name} collides with {taken[name.casefold()]}"
                if problem is not None:
                    refused[server].append(f"{tool.name}: not offered: {problem}")
                    continue
                taken[name.casefold()] = f"the tool {name}"
                spec = _spec(name, server, tool.description, tool.input_schema)
                offered[name] = _Offered(server, tool.name, spec)
        with self._lock:
            self._offered, self._refused = offered, refused

    def specs(self) -> Sequence[ToolSpec]:
        with self._lock:
            return [*self._builtin.specs(), *(o.spec for o in self._offered.values())]

    def sources(self) -> Mapping[str, Sequence[ToolSpec]]:
        """The tools by source, as the catalog slot chooses from them: "builtin", then one source
        "mcp:SERVER" per server that offers a tool, in the config's order."""
        with self._lock:
            offered = list(self._offered.values())
        found: dict[str, list[ToolSpec]] = {BUILTIN_SOURCE: list(self._builtin.specs())}
        for o in offered:
            found.setdefault(MCP_SOURCE + o.server, []).append(o.spec)
        return found

    def has(self, name: str) -> bool:
        with self._lock:
            return name in self._offered or self._builtin.has(name)

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        with self._lock:
            offered = self._offered.get(name)
        if offered is None:
            return self._builtin.run(name, args, cancel)
        try:
            with self._write_lock.holding(cancel):
                return self._hub.call(offered.server, offered.tool, args, cancel)
        except ToolError as err:  # cancelled while another writer held the lock: nothing was called
            return f"error: {err}", True

    def reports(self) -> list[ServerReport]:
        """Each server: how it is reached, its state, the tools offered and those refused (each
        ready server asked first whether it is still there)."""
        self._hub.ping()
        with self._lock:
            offered, refused = dict(self._offered), dict(self._refused)
        out = []
        for server in self._hub.names():
            transport, state, detail = self._hub.report(server)
            tools = tuple(name for name, o in offered.items() if o.server == server)
            out.append(ServerReport(server, transport, state, detail, tools, tuple(refused.get(server, ()))))
        return out

    def close(self) -> None:
        self._hub.close()
