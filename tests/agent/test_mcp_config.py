"""`[mcp.servers.NAME]`: what a server may say, and the one-line error naming the field otherwise."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bastion.agent.mcp import mcp_servers, server_variables
from bastion.agent.runtime import ConfigError
from bastion.config import AgentConfig
from bastion.policy import load_settings
from bastion.workspace import LocalWorkspace
from tests.waits import PATIENCE


def _servers(raw: dict[str, Any]) -> dict[str, Any]:
    return dict(mcp_servers(AgentConfig(mcp={"servers": raw}), "c.toml"))


def test_a_stdio_and_an_http_server_are_read_with_their_defaults() -> None:
    servers = _servers(
        {
            "docs": {
                "command": "docs-server",
                "args": ["--ro"],
                "env": {"A": "1"},
                "pass_env": ["B"],
                "cwd": "sub",
            },
            "web": {"url": "https://mcp.example/mcp", "headers": {"Authorization": {"env": "WEB_KEY"}}},
        }
    )
    assert servers["docs"].transport == "stdio" and servers["docs"].startup_timeout == 30.0
    assert servers["web"].transport == "http" and servers["web"].headers["Authorization"].env == "WEB_KEY"
    assert server_variables(
        AgentConfig(mcp={"servers": {"web": {"url": "http://x", "headers": {"X": {"env": "V"}}}}}), "c"
    ) == {"V"}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"docs": {}}, "mcp.servers.docs: give command (a server started over stdio) or url"),
        ({"docs": {"command": "x", "url": "http://x"}}, "mcp.servers.docs: give command"),
        (
            {"docs": {"url": "http://x", "cwd": "/"}},
            "mcp.servers.docs: cwd does not apply to a server reached by url",
        ),
        ({"docs": {"command": "x", "headers": {}}}, "headers does not apply to a server reached by command"),
        ({"docs": {"url": "ftp://x"}}, "mcp.servers.docs.url: must be an http:// or https:// URL"),
        (
            {"docs": {"url": "http://x", "headers": {"A": "Bearer sk-1"}}},
            "a header's value is not written in the file",
        ),
        ({"docs": {"url": "http://x", "headers": {"A": {"env": "X", "command": "y"}}}}, "give env"),
        ({"docs": {"url": "http://x", "headers": {"A": {"command": []}}}}, "must be a program"),
        ({"docs": {"command": "x", "colour": 1}}, "mcp.servers.docs.colour: unknown field"),
        ({"docs": {"command": "x", "startup_timeout": 0}}, "mcp.servers.docs.startup_timeout"),
        ({"docs": {"command": "x", "pass_env": ["A-B"]}}, "mcp.servers.docs.pass_env[0]"),
        ({"docs": {"command": ""}}, "mcp.servers.docs.command"),
        ({"do__cs": {"command": "x"}}, "mcp.servers.do__cs: the server name 'do__cs' is not letters"),
        ({"do.cs": {"command": "x"}}, "mcp.servers.do.cs: the server name"),
        ({"docs": {"command": ["x"]}}, "mcp.servers.docs.command"),
    ],
)
def test_a_server_that_cannot_be_used_is_one_line_naming_the_field(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _servers(raw)
    text = str(caught.value)
    assert text.startswith("c.toml: ") and message in text and "\n" not in text
    assert "sk-1" not in text


def test_an_mcp_table_of_another_shape_is_an_error_naming_it() -> None:
    with pytest.raises(ConfigError, match=r"^c.toml: mcp.server: unknown field$"):
        mcp_servers(AgentConfig(mcp={"server": {}}), "c.toml")


def test_the_users_file_carries_the_servers_and_the_projects_may_not(tmp_path: Path) -> None:
    user = tmp_path / "config.toml"
    user.write_text('[mcp.servers.docs]\ncommand = "docs-server"\nargs = ["--ro"]\n')
    settings = load_settings(LocalWorkspace(str(tmp_path)), str(user))
    assert list(mcp_servers(settings.agent, str(user))) == ["docs"]
    (tmp_path / ".bastion").mkdir()
    (tmp_path / ".bastion" / "config.toml").write_text('[mcp.servers.evil]\ncommand = "sh"\n')
    from bastion.policy import ConfigError as PolicyConfigError

    with pytest.raises(
        PolicyConfigError, match="mcp: a project file may not set mcp; put it in your own config"
    ):
        load_settings(LocalWorkspace(str(tmp_path)), os.devnull)


def test_doctor_starts_each_server_and_reports_its_state_and_tools(tmp_path: Path) -> None:
    import subprocess
    import sys

    server = Path(__file__).with_name("mcp_server.py")
    config = tmp_path / "config.toml"
    config.write_text(
        f'[mcp.servers.docs]\ncommand = "{sys.executable}"\nargs = ["{server}", "stdio"]\n'
        '[mcp.servers.nope]\ncommand = "/nonexistent/server"\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "bastion", "doctor", "--config", str(config), "--cwd", str(tmp_path),
         "--offline", "--section", "mcp"],
        capture_output=True, text=True, check=False, timeout=PATIENCE,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # a server that does not start is a failure
    section = done.stdout.splitlines()
    assert section[0] == "MCP servers"
    assert section[1] == "  ✓ docs (stdio): ready" and "      mcp__docs__echo" in section
    assert any(line.startswith("  ✗ nope (stdio): failed: its program was not found") for line in section)
    plain = subprocess.run(
        [sys.executable, "-m", "bastion", "doctor", "--config", os.devnull, "--cwd", str(tmp_path),
         "--offline", "--section", "mcp"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert plain.stdout.splitlines()[1].startswith("  · servers: none")
