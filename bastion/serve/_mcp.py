"""`bastion mcp serve`: the tools `check` and `explain` over MCP (stdio), on the SDK's MCPServer.

`check` takes a call (a bash `line`, or a `tool` and its `args`) and a working directory, and gives
back exactly the JSON object `bastion check --json` prints for it (decision, reason, rule, source,
plan, reads, elapsed_us); `explain` gives the text of `bastion check --explain`. Nothing is run:
both are the dry-run (the git probe asks git for its configuration, as `bastion check` does). A
request that cannot be decided (no such directory, a config that cannot be used) is the tool's
error, one line naming what is wrong.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..audit import explain_call
from ..policy import ConfigError, DryRun, PolicyError, RequestError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

__all__ = ["mcp_main", "serve"]

_CHECK = (
    "Decide a tool call under bastion's policy without running it. Give `line` (a bash line) or "
    "`tool` (bash, read, write, edit, glob, grep, ls, or an mcp__SERVER__TOOL name) with `args` (a "
    "JSON object, as the tool takes it), and `cwd` (an absolute directory; default: where the "
    "server runs). Returns the JSON of `bastion check --json`: decision (allow, ask, deny), "
    "reason, rule, source, plan (what would run), reads, elapsed_us."
)
_EXPLAIN = (
    "Explain how bastion decides a call (the same arguments as check): the parse, each checker's "
    "verdict, the subjects and the rule that decided each. Text, as `bastion check --explain` prints."
)


class _Calls:
    """The dry-run behind both tools, one request at a time."""

    def __init__(self, config: str | None, cwd: str) -> None:
        self.dry = DryRun(config)
        self.cwd = cwd
        self.lock = threading.Lock()

    def request(
        self, line: str | None, tool: str | None, args: dict[str, Any] | None, cwd: str | None
    ) -> tuple[str, str, dict[str, Any]]:
        if line is not None and (tool not in (None, "bash") or args):
            raise RequestError("give `line`, or `tool` with `args`, not both")
        if line is None and tool is None:
            raise RequestError("give `line` (a bash line) or `tool` with `args`")
        where = cwd or self.cwd
        if not os.path.isabs(where):
            raise RequestError("`cwd` must be an absolute directory path")
        call: dict[str, Any] = {"command": line} if line is not None else dict(args or {})
        return where, "bash" if line is not None else str(tool), call

    def check(self, line: str | None, tool: str | None, args: dict[str, Any] | None, cwd: str | None) -> str:
        with self.lock:
            where, name, call = self.request(line, tool, args, cwd)
            return json.dumps(self.dry.request({"cwd": where, "tool": name, "args": call}))

    def explain(
        self, line: str | None, tool: str | None, args: dict[str, Any] | None, cwd: str | None
    ) -> str:
        with self.lock:
            where, name, call = self.request(line, tool, args, cwd)
            out = io.StringIO()
            explain_call(self.dry, where, name, call, out)
            return out.getvalue()


def serve(config: str | None, cwd: str) -> MCPServer:
    """The server (not started): `check` and `explain` over the policy of `config` (None: yours)."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    calls = _Calls(config, cwd)
    server: MCPServer = MCPServer(
        "bastion", instructions="bastion's policy: decides calls, runs nothing.", log_level="ERROR"
    )

    def answer(method: Any, *given: Any) -> str:
        try:
            return str(method(*given))
        except (RequestError, PolicyError, ConfigError, ValueError) as err:
            raise ToolError(str(err)) from None

    @server.tool(name="check", description=_CHECK)
    def check(
        line: str | None = None,
        tool: str | None = None,
        args: dict[str, Any] | None = None,
        cwd: str | None = None,
    ) -> str:
        return answer(calls.check, line, tool, args, cwd)

    @server.tool(name="explain", description=_EXPLAIN)
    def explain(
        line: str | None = None,
        tool: str | None = None,
        args: dict[str, Any] | None = None,
        cwd: str | None = None,
    ) -> str:
        return answer(calls.explain, line, tool, args, cwd)

    return server


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bastion mcp",
        description="bastion's policy as an MCP server: `bastion mcp serve` answers check and explain "
        "over stdio, and runs nothing.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve", help="serve check and explain over MCP (stdio)")
    s.add_argument("--cwd", default=".", help="the directory a call without cwd is decided in (default: .)")
    s.add_argument("--config", help="the user config file (default: $XDG_CONFIG_HOME/bastion/config.toml)")
    return p


def mcp_main(argv: Sequence[str]) -> int:
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exc:
        return 2 if exc.code else 0
    cwd = os.path.abspath(args.cwd)
    if not os.path.isdir(cwd):
        sys.stderr.write(f"bastion mcp serve: {args.cwd}: not a directory\n")
        return 2
    serve(args.config, cwd).run("stdio")
    return 0
