"""MCP servers for the agent: their config, the connections (on the `mcp` SDK, imported only here
and only when a server is named), and their tools beside the built-in ones behind the loop's Tools
seam."""

from ._client import Hub, ServerReport
from ._config import HeaderSource, ServerConfig, mcp_servers
from ._headers import header_values
from ._report import NO_SERVERS, report_lines, server_variables, servers_report, with_servers
from ._results import MAX_MESSAGE, MAX_RESULT_CHARS
from ._tools import McpToolbox

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
