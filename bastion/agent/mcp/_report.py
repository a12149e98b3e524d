"""The servers for people (/mcp, doctor), and the two ways the agent starts them."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ...config import AgentConfig
from ..runtime import ToolSpec
from ..tools import WriteLock
from ._config import mcp_servers
from ._headers import header_variables

if TYPE_CHECKING:
    from ...workspace import ExecutorWorkspace
    from ..runtime import Tools
    from ._client import ServerReport
    from ._tools import McpToolbox

__all__ = ["NO_SERVERS", "report_lines", "server_variables", "servers_report", "with_servers"]

NO_SERVERS = "no MCP servers (name them under [mcp.servers.NAME] in your config)"


def report_lines(reports: Sequence[ServerReport]) -> list[str]:
    """One line per server (name, transport, state and why), then its tools, indented."""
    if not reports:
        return [NO_SERVERS]
    lines = []
    for r in reports:
        why = f": {r.detail}" if r.detail else ""
        lines.append(f"{r.name} ({r.transport}): {r.state}{why}")
        lines += [f"  {name}" for name in r.tools]
        lines += [f"  {text}" for text in r.refused]
    return lines


def server_variables(config: AgentConfig, where: str) -> set[str]:
    """The variables the servers' header values come from: kept out of every child's environment."""
    return header_variables(mcp_servers(config, where).values())


def with_servers(
    builtin: Tools,
    config: AgentConfig,
    where: str,
    environ: Mapping[str, str],
    cwd: str,
    scrub: Sequence[str] = (),
    *,
    lock: WriteLock,
    executor: ExecutorWorkspace | None = None,
) -> McpToolbox | None:
    """The built-in tools beside those of the servers the config names, each started (or failed)
    by now; None when it names none; `lock` is the workspace's write lock, which every server call
    holds; `executor`: where the stdio servers start (None: here). Raises ConfigError for a config
    that cannot be used."""
    servers = mcp_servers(config, where)
    if not servers:
        return None
    from ._client import Hub  # the connections (asyncio): loaded only when a server is named
    from ._tools import McpToolbox

    hub = Hub(servers, environ, cwd, scrub, executor)
    hub.start()
    return McpToolbox(builtin, hub, lock)


class _BuiltinNames:
    """The built-in tools' names and specs, for a report that runs no tool (doctor)."""

    def specs(self) -> Sequence[ToolSpec]:
        from ..tools import AGENT_TOOLS

        return [ToolSpec(t.name, t.description, t.parameters) for t in AGENT_TOOLS.values()]

    def has(self, name: str) -> bool:
        return False

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        return f"error: {name} is not run here", True


def servers_report(
    config: AgentConfig,
    where: str,
    environ: Mapping[str, str],
    cwd: str,
    scrub: Sequence[str],
    executor: ExecutorWorkspace | None = None,
) -> list[ServerReport]:
    """`bastion doctor`'s section: each server started (on `executor` when given), reported and
    stopped again (its tools checked against the built-in tools' names, as a session does); none
    when the config names none. `scrub`: the key variables no server's environment gets
    (bastion.agent.config_key_names)."""
    # No tool is called here: the lock is one of its own.
    toolbox = with_servers(
        _BuiltinNames(), config, where, environ, cwd, scrub, lock=WriteLock(), executor=executor
    )
    if toolbox is None:
        return []
    try:
        return list(toolbox.reports())
    finally:
        toolbox.close()
