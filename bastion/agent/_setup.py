"""The provider a session here would use, as facts for `bastion doctor`: its name, model, URL and
where its key comes from and whether it is there (never the key); for vertex, its credential file,
project and location. Reads the config, the environment and vertex's credential file only: no SDK
is imported, no command run, no request made."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .._handover import PROVIDER_KEY_VARIABLES, handed
from ..config import AgentConfig
from .providers import (
    DEFAULTS,
    ProviderConfig,
    VertexSetup,
    key_variable,
    key_variables,
    provider_config,
    refused_model,
    vertex_base_url,
    vertex_location,
    vertex_setup,
)
from .runtime import ConfigError

__all__ = ["ProviderSetup", "config_key_names", "key_names", "provider_setup"]


@dataclass(frozen=True, slots=True)
class ProviderSetup:
    """`key_variable` is the variable the key is read from; `key_command` the program that prints it
    (not run here); `key_found` whether the variable is set (None: no variable is read); `vertex`
    what vertex signs in with and where it sends its requests (None: another provider);
    `model_refused` why the provider cannot run the model (None: it can, as far as is known)."""

    provider: str
    model: str | None
    base_url: str | None
    key_variable: str | None
    key_command: str | None
    key_found: bool | None
    vertex: VertexSetup | None = None
    model_refused: str | None = None


def provider_setup(config: AgentConfig, where: str, environ: Mapping[str, str]) -> ProviderSetup:
    """The setup the config's provider keys (from the file `where`) give. Raises ConfigError naming
    the field that is wrong."""
    cfg = provider_config(config, where)
    default_model, default_url, _ = DEFAULTS[cfg.provider]
    variable = key_variable(cfg) if cfg.provider != "ollama" else None
    takes_key = cfg.provider not in ("ollama", "vertex")
    command = cfg.api_key_command[0] if cfg.api_key_command and takes_key else None
    vertex = vertex_setup(environ) if cfg.provider == "vertex" else None
    if vertex is not None:
        try:
            default_url = vertex_base_url(vertex_location(environ)[0])
        except ConfigError:
            default_url = None  # the location's fact says why
    model = cfg.model or default_model
    return ProviderSetup(
        cfg.provider,
        model,
        cfg.base_url or default_url,
        variable,
        command,
        bool(environ.get(variable)) if variable else None,
        vertex,
        refused_model(cfg.provider, model) if model else None,
    )


def key_names(cfg: ProviderConfig | None, config: AgentConfig, where: str) -> frozenset[str]:
    """The variables (upper-cased) whose values are keys a session here holds: every provider's
    standard one, `cfg`'s api_key_env, the MCP header variables and those handed over at start.
    No child bastion starts gets them, whatever pass_env says."""
    from .mcp import server_variables

    names = {*PROVIDER_KEY_VARIABLES.values(), *handed(), *server_variables(config, where)}
    names.update(key_variables(cfg) if cfg is not None else ())
    return frozenset(name.upper() for name in names)


def config_key_names(config: AgentConfig, where: str) -> frozenset[str]:
    """key_names for the config alone (doctor's, which has no flags); a provider section that
    cannot be read still leaves out the standard variables and the header ones."""
    try:
        cfg: ProviderConfig | None = provider_config(config, where)
    except ConfigError:
        cfg = None
    return key_names(cfg, config, where)
