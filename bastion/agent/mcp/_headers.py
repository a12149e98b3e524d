"""An HTTP server's header values: read from a variable of yours or printed by a program, when the
server is connected; never written in the config, logged or shown."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping

from .._types import ConfigError
from ._config import HeaderSource, ServerConfig

__all__ = ["header_values", "header_variables"]

_VALUE_MAX = 16 * 1024


def header_variables(servers: Iterable[ServerConfig]) -> set[str]:
    """The variables header values come from: they are kept out of every child's environment."""
    return {h.env for s in servers for h in s.headers.values() if h.env is not None}


def _printed(name: str, command: list[str]) -> str:
    try:
        done = subprocess.run(command, capture_output=True, timeout=60, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired, ValueError) as err:
        raise ConfigError(f"header {name}: command {command[0]}: {err}") from None
    if done.returncode != 0:
        raise ConfigError(f"header {name}: command {command[0]} exited {done.returncode}")
    value = done.stdout.decode("utf-8", "replace").strip()
    if not value or len(value) > _VALUE_MAX or any(c < " " or c == "\x7f" for c in value):
        raise ConfigError(f"header {name}: command {command[0]} did not print one line of text")
    return value


def _value(name: str, source: HeaderSource, environ: Mapping[str, str]) -> str:
    if source.env is not None:
        value = environ.get(source.env, "")
        if not value:
            raise ConfigError(f"header {name}: set {source.env} in the environment")
        return source.prefix + value
    assert source.command is not None
    return source.prefix + _printed(name, source.command)


def header_values(config: ServerConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """The headers to send. Raises ConfigError naming the header (never its value)."""
    return {name: _value(name, source, environ) for name, source in config.headers.items()}
