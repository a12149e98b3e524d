"""`[mcp.servers.NAME]` of the user's config, checked (pydantic, as the provider's fields are).

A server is started by a program over stdio (`command`, `args`, `env`, `pass_env`, `cwd`) or reached
at a streamable-HTTP `url` with `headers`; a header's value is never written in the file: it is read
from an environment variable (`env`) or printed by a program (`command`), with an optional `prefix`
(`"Bearer "`). Only the user's file may name servers: the policy refuses a project file's `mcp`.
"""

from __future__ import annotations

import re
import shlex
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from ...config import AgentConfig
from ...policy import mcp_name_problem
from ..runtime import ConfigError

__all__ = ["HeaderSource", "ServerConfig", "mcp_servers"]

_EnvName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
_HeaderName = Annotated[str, StringConstraints(pattern=r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


def _split(value: object) -> object:
    return shlex.split(value) if isinstance(value, str) else value


class HeaderSource(_Strict):
    """Where a header's value comes from: exactly one of `env` and `command`; `prefix` goes before it."""

    env: _EnvName | None = None
    command: list[str] | None = None
    prefix: str = ""

    @field_validator("command", mode="before")
    @classmethod
    def _words(cls, value: object) -> object:
        return _split(value)

    @field_validator("command")
    @classmethod
    def _program(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and (not value or not value[0]):
            raise ValueError('must be a program and its arguments, ["program", "arg", ...]')
        return value

    @model_validator(mode="after")
    def _one_source(self) -> HeaderSource:
        if (self.env is None) == (self.command is None):
            raise ValueError("give env (a variable's name) or command (a program that prints the value)")
        return self


class ServerConfig(_Strict):
    """One server. stdio: `command` (and `args`, `env`, `pass_env`, `cwd`); HTTP: `url` (and
    `headers`). Timeouts in seconds: to start (connect, initialize, list tools) and per call."""

    command: str | None = Field(default=None, min_length=1)
    args: list[str] = []
    env: dict[_EnvName, str] = {}
    pass_env: list[_EnvName] = []
    cwd: str | None = Field(default=None, min_length=1)
    url: str | None = None
    headers: dict[_HeaderName, HeaderSource] = {}
    startup_timeout: float = Field(default=30.0, gt=0, le=600)
    call_timeout: float = Field(default=120.0, gt=0, le=3600)

    @field_validator("startup_timeout", "call_timeout", mode="before")
    @classmethod
    def _seconds(cls, value: object) -> object:
        # TOML writes 30 as an integer; strict mode would refuse it as a float.
        return float(value) if type(value) is int else value

    @field_validator("headers", mode="before")
    @classmethod
    def _no_literal(cls, value: object) -> object:
        if isinstance(value, dict):
            for name, source in value.items():
                if isinstance(source, str):
                    raise ValueError(
                        f"{name}: a header's value is not written in the file: "
                        '{ env = "VARIABLE" } or { command = ["program", ...] }, with an optional prefix'
                    )
        return value

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give command (a server started over stdio) or url (streamable HTTP), not both")
        stdio_only = ("args", "env", "pass_env", "cwd")
        wrong = [f for f in stdio_only if f in self.model_fields_set] if self.url else []
        wrong += ["headers"] if self.command is not None and "headers" in self.model_fields_set else []
        if wrong:
            by = "url" if self.url else "command"
            raise ValueError(f"{wrong[0]} does not apply to a server reached by {by}")
        return self

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"


class _Section(_Strict):
    servers: dict[str, ServerConfig] = {}


def _field(loc: tuple[int | str, ...]) -> str:
    return "mcp" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc)


def mcp_servers(config: AgentConfig, where: str = "config") -> dict[str, ServerConfig]:
    """The servers the user's config names (none when it has no [mcp]). Raises ConfigError naming
    the file and the field."""
    raw = config.mcp
    if raw is None:
        return {}
    try:
        section = _Section.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        loc = tuple(first["loc"])
        message = "unknown field" if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(f"{where}: {_field(loc)}: {message.removeprefix('Value error, ')}") from None
    for name in section.servers:
        problem = mcp_name_problem(name, "x")
        if problem is not None:
            raise ConfigError(f"{where}: mcp.servers.{name}: {problem}")
    return dict(section.servers)
