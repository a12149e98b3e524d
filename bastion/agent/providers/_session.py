"""The provider's part of a session, made from the settings and the command line's provider flags:
its settings (the flags over the config's), its model, the variables that hold keys, the
sub-agents' model, where its key comes from (in words), and the windows its models are taken to
have."""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ...config import AgentConfig
from ..runtime import ConfigError
from ._failures import RetryPolicy
from ._google import refused_model
from ._limits import model_limits
from ._make import StreamingModel, key_variables, make_model, timeouts_of
from ._pricing import prices_of
from ._settings import ProviderConfig, merge_flags, provider_config
from ._windows import Window, window_of

__all__ = ["ProviderFlags", "SessionProvider", "session_provider", "subagent_model_setting", "windows_of"]

# A test's cap on the wait between retries, in seconds (so a retried request does not wait minutes).
_RETRY_CAP = "BASTION_RETRY_CAP"


@dataclass(frozen=True, slots=True)
class ProviderFlags:
    """The command line's provider flags; None where one was not given. `api_key_command` is as
    typed, split as a shell splits words (nothing expanded); "" turns off the config's."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    api_key_command: str | None = None
    think: bool | None = None
    effort: str | None = None
    subagent_model: str | None = None

    @classmethod
    def given(cls, flags: Mapping[str, Any]) -> ProviderFlags:
        """The provider flags among the command line's, by their names."""
        return cls(**{f.name: flags.get(f.name) for f in fields(cls)})

    def over(self, config: AgentConfig, where: str) -> ProviderConfig:
        """The session's provider settings: these flags over those of the config file `where`. A
        ConfigError names the field that is wrong."""
        command = None if self.api_key_command is None else shlex.split(self.api_key_command)
        given = {
            "provider": self.provider,
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "api_key_command": command,
            "think": self.think,
            "effort": self.effort,
        }
        return merge_flags(provider_config(config, where), given)

    def switched(self, config: AgentConfig, where: str) -> bool:
        """Whether `--provider` leaves the config's provider (and the settings meant for it)."""
        return self.provider is not None and self.provider != provider_config(config, where).provider


@dataclass(frozen=True, slots=True)
class SessionProvider:
    """The provider's part of a session."""

    # Its settings: the flags over the config's.
    cfg: ProviderConfig
    # The session's model, on the provider's connection.
    model: StreamingModel
    # The variables (upper-cased) that may hold a key: in no child's environment, whatever
    # pass_env says.
    scrub: frozenset[str]
    # The sub-agents' model at the provider (None: the session's own).
    subagent_model: str | None
    # Where the key comes from, in the words a failure's advice uses.
    key_from: str


def session_provider(
    config: AgentConfig,
    where: str,
    flags: ProviderFlags,
    environ: Mapping[str, str],
    home: str,
    secrets: Iterable[str],
) -> SessionProvider:
    """The provider's part for the config file `where` and `flags`, with the config's prices and
    timeouts, its models' limits cached in `home`; `secrets` names the variables that hold keys
    besides the provider's own (every provider's standard one, MCP headers', those handed over). A
    ConfigError names what is wrong (a sub-agent model the provider cannot run among it), before
    any session is made."""
    cfg = flags.over(config, where)
    scrub = frozenset(name.upper() for name in (*secrets, *key_variables(cfg)))
    retry = RetryPolicy(cap=float(environ[_RETRY_CAP])) if _RETRY_CAP in environ else None
    model = make_model(
        cfg,
        environ,
        retry,
        pricing=prices_of(config.pricing),
        limits_cache=os.path.join(home, "models.json"),
        timeouts=timeouts_of(config),
        scrub=scrub,
    )
    subagent_model = subagent_model_setting(config, flags.subagent_model, flags.switched(config, where))
    refused = refused_model(cfg.provider, subagent_model) if subagent_model else None
    if refused is not None:
        raise ConfigError(f"{'--subagent-model' if flags.subagent_model else 'subagent_model'}: {refused}")
    return SessionProvider(cfg, model, scrub, subagent_model, _key_from(cfg))


def subagent_model_setting(config: AgentConfig, flag: str | None, provider_switched: bool) -> str | None:
    """`--subagent-model`, else the config's `subagent_model` (meant for the config's provider: a
    `--provider` flag that switches provider leaves it behind, as it leaves `model`)."""
    if flag:
        return flag
    return None if provider_switched else config.subagent_model


def windows_of(model: StreamingModel, configured: Mapping[str, int]) -> Callable[[str], Window]:
    """The window of each model the session asks for: `configured`'s, else its server's (asked on
    the model's connection), else the table's (`window_of`)."""
    connection = model.connection

    def window(name: str) -> Window:
        return window_of(
            name, configured, lambda: model_limits(connection, name, connection.limits_cache).context_window
        )

    return window


def _key_from(cfg: ProviderConfig) -> str:
    """Where the session's key comes from, in the words a failure's advice uses."""
    if cfg.provider == "vertex":
        return "your Application Default Credentials (gcloud auth application-default login)"
    if cfg.api_key_command:
        return "the key api_key_command prints"
    return " or ".join(f"${name}" for name in key_variables(cfg)) or "the key"
