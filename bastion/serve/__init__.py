"""bastion's policy served to other programs: `bastion mcp serve`, an MCP server (stdio) whose tools
decide calls as `bastion check` does and run nothing.

It stands above the policy and the audit and beside neither the agent nor the dry-run path: only
the cli imports it, for `bastion mcp`, so `bastion check`, `audit` and `hook` load no mcp module."""

from ._mcp import mcp_main, serve

__all__ = ["mcp_main", "serve"]
