"""MCP servers for the agent: their config, the connections (on the `mcp` SDK, imported only here
and only when a server is named), and their tools beside the built-in ones behind the loop's Tools
seam. The connections and the servers' toolbox load when first named (PEP 562): a session whose
config names no server never loads them (nor asyncio)."""

import typing

from ..._lazy import lazy_names as _lazy_names
from ._config import HeaderSource, ServerConfig, mcp_servers
from ._headers import header_values
from ._report import NO_SERVERS, report_lines, server_variables, servers_report, with_servers
from ._results import MAX_MESSAGE, MAX_RESULT_CHARS

if typing.TYPE_CHECKING:
    from ._client import Hub, ServerReport
    from ._tools import McpToolbox

__getattr__ = _lazy_names(__name__, {"Hub": "_client", "ServerReport": "_client", "McpToolbox": "_tools"})

__all__ = [
    "HeaderSource",
    "Hub",
    "MAX_MESSAGE",
    "MAX_RESULT_CHARS",
    "McpToolbox",
    "NO_SERVERS",
    "ServerConfig",
    "ServerReport",
    "header_values",
    "mcp_servers",
    "report_lines",
    "server_variables",
    "servers_report",
    "with_servers",
]
