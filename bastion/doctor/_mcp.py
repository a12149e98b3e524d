"""doctor's "MCP servers" section: each server the user's config names, started as a session starts
it (with the scrubbed environment and its own; on the executor when one is named, as a session
starts its stdio servers there), reported with its state and tools, and stopped. The agent's MCP
package (and with it the `mcp` SDK) is loaded only when the config names a server."""

from __future__ import annotations

from ._context import Context
from ._facts import Fact, Section, Status

__all__ = ["mcp"]

TITLE = "MCP servers"


def mcp(context: Context) -> Section:
    settings = context.settings
    if settings is None:
        return context.unchecked("mcp", TITLE)
    if settings.agent.mcp is None:
        return Section("mcp", TITLE, (Fact("servers", "none (name them under [mcp.servers.NAME])"),))
    from ..agent import config_key_names
    from ..agent.mcp import servers_report
    from ..agent.tools import executor_argv

    where = settings.sources[0] if settings.sources else "config"
    scrub = sorted(config_key_names(settings.agent, where))
    argv = executor_argv(context.executor, settings.agent)
    ws = context.open_executor(argv) if argv is not None else None
    try:
        reports = servers_report(settings.agent, where, context.environ, context.root, scrub, ws)
    finally:
        if ws is not None:
            ws.close()
    if not reports:
        return Section("mcp", TITLE, (Fact("servers", "none (name them under [mcp.servers.NAME])"),))
    facts = []
    for r in reports:
        ready = r.state == "ready"
        facts.append(
            Fact(
                f"{r.name} ({r.transport})",
                f"{r.state}: {r.detail}" if r.detail else r.state,
                Status.OK if ready else Status.FAIL,
                tuple(r.tools) + tuple(r.refused),
                "" if ready else "run its command by hand to see why it does not start",
            )
        )
    return Section("mcp", TITLE, tuple(facts))
