"""An HTTP server's header values: read from a variable of yours or printed by a program, when the
server is connected; never written in the config, logged or shown, and held for redaction (what
leaves bastion never carries one). A program runs with your environment less the key variables, its
standard error never shown."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Mapping

from ..._safe import hold
from ...policy import without
from ..runtime import ConfigError
from ._config import HeaderSource, ServerConfig

__all__ = ["header_values", "header_variables"]

_VALUE_MAX = 16 * 1024


def header_variables(servers: Iterable[ServerConfig]) -> set[str]:
    """The variables header values come from: they are kept out of every child's environment."""
    return {h.env for s in servers for h in s.headers.values() if h.env is not None}


def _printed(name: str, command: list[str], env: dict[str, str]) -> str:
    try:
        done = subprocess.run(
            command, capture_output=True, timeout=60, stdin=subprocess.DEVNULL, check=False, env=env
        )
    except (OSError, subprocess.TimeoutExpired, ValueError) as err:
        raise ConfigError(f"header {name}: command {command[0]}: {err}") from None
    if done.returncode != 0:
        raise ConfigError(f"header {name}: command {command[0]} exited {done.returncode}")
    value = done.stdout.decode("utf-8", "replace").strip()
    if not value or len(value) > _VALUE_MAX or any(c < " " or c == "\x7f" for c in value):
        raise ConfigError(f"header {name}: command {command[0]} did not print one line of text")
    return value


def _value(name: str, source: HeaderSource, environ: Mapping[str, str], env: dict[str, str]) -> str:
    if source.env is not None:
        value = environ.get(source.env, "")
        if not value:
            raise ConfigError(f"header {name}: set {source.env} in the environment")
    else:
        assert source.command is not None
        value = _printed(name, source.command, env)
    hold(value)
    return source.prefix + value


def header_values(
    config: ServerConfig, environ: Mapping[str, str], scrub: Iterable[str] = ()
) -> dict[str, str]:
    """The headers to send (a program runs with `environ` less the variables `scrub` names). Raises
    ConfigError naming the header (never its value)."""
    env = without(environ, scrub)
    return {name: _value(name, source, environ, env) for name, source in config.headers.items()}
