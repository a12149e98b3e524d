"""The provider a session here would use, as facts for `bastion doctor`: its name, model, URL and
where its key comes from and whether it is there (never the key). Reads the config and the
environment only: no SDK is imported, no command run, no request made."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ._settings import provider_config
from .providers import DEFAULTS, key_variable

__all__ = ["ProviderSetup", "provider_setup"]


@dataclass(frozen=True, slots=True)
class ProviderSetup:
    """`key_variable` is the variable the key is read from; `key_command` the program that prints it
    (not run here); `key_found` whether the variable is set (None: no variable is read)."""

    provider: str
    model: str | None
    base_url: str | None
    key_variable: str | None
    key_command: str | None
    key_found: bool | None


def provider_setup(extra: Mapping[str, Any], where: str, environ: Mapping[str, str]) -> ProviderSetup:
    """The setup the config's provider keys (`extra`, from the file `where`) give. Raises
    ConfigError naming the field that is wrong."""
    cfg = provider_config(extra, where)
    default_model, default_url, _ = DEFAULTS[cfg.provider]
    variable = key_variable(cfg) if cfg.provider != "ollama" else None
    command = cfg.api_key_command[0] if cfg.api_key_command and cfg.provider != "ollama" else None
    return ProviderSetup(
        cfg.provider,
        cfg.model or default_model,
        cfg.base_url or default_url,
        variable,
        command,
        bool(environ.get(variable)) if variable else None,
    )
