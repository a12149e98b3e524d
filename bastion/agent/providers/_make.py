"""make_model: a provider's streaming Model from its config, and the variables its key is read from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..._handover import PROVIDER_KEY_VARIABLES as _KEYS
from .._settings import ProviderConfig
from .._types import ConfigError
from ._anthropic import AnthropicModel
from ._chat import ChatModel
from ._clients import Connection
from ._failures import RetryPolicy, Timeouts
from ._keys import KeySource
from ._options import ModelOptions
from ._pricing import Price
from ._responses import ResponsesModel

if TYPE_CHECKING:
    import httpx2

# provider: (default model, default base URL, key variable)
DEFAULTS: dict[str, tuple[str | None, str | None, str | None]] = {
    "ollama": ("qwen3.5:9b", "http://localhost:11434", None),
    "openai": ("gpt-5", "https://api.openai.com/v1", _KEYS["openai"]),
    "openrouter": ("deepseek/deepseek-v4-pro-0813", "https://openrouter.ai/api/v1", _KEYS["openrouter"]),
    "openresponses": (None, None, None),
    "anthropic": ("claude-sonnet-5-5", "https://api.anthropic.com", _KEYS["anthropic"]),
}

StreamingModel = ChatModel | ResponsesModel | AnthropicModel


def key_variable(cfg: ProviderConfig) -> str | None:
    """The variable the key is read from (None: it comes from api_key_command, or there is none)."""
    if cfg.api_key_command is not None:
        return None
    return cfg.api_key_env if cfg.provider == "openresponses" else DEFAULTS[cfg.provider][2]


def key_variables(cfg: ProviderConfig) -> tuple[str, ...]:
    """The variables that may hold the key in use, which the tools' environment must never carry:
    the provider's standard variable and api_key_env's, also when the key comes from
    api_key_command (the variable may hold it all the same)."""
    return tuple(name for name in (DEFAULTS[cfg.provider][2], cfg.api_key_env) if name)


def timeouts_of(extra: Mapping[str, Any]) -> Timeouts:
    """The user config's stream_idle_timeout and request_timeout (checked positive numbers by the
    config's schema), the defaults where unset."""
    default = Timeouts()
    idle, total = extra.get("stream_idle_timeout"), extra.get("request_timeout")
    return Timeouts(
        float(idle) if isinstance(idle, int | float) else default.idle,
        float(total) if isinstance(total, int | float) else default.total,
    )


def make_model(
    cfg: ProviderConfig,
    environ: Mapping[str, str],
    retry: RetryPolicy | None = None,
    *,
    pricing: Mapping[str, Price] | None = None,
    transport: httpx2.BaseTransport | None = None,
    limits_cache: str | None = None,
    timeouts: Timeouts | None = None,
    scrub: Iterable[str] = (),
) -> StreamingModel:
    """A model for the config; a missing key or a required setting left out is a ConfigError, before
    any request. `transport` (an httpx2 transport) replaces the network, for tests; `scrub` names
    the key variables an api_key_command does not get."""
    default_model, default_url, _ = DEFAULTS[cfg.provider]
    model = cfg.model or default_model
    base = cfg.base_url or default_url
    if model is None:
        raise ConfigError(f"{cfg.provider}: --model is required")
    if base is None:
        raise ConfigError(f"{cfg.provider}: --base-url is required")
    base = base.rstrip("/")
    key: KeySource | None = None
    variable = key_variable(cfg)
    if cfg.api_key_command is not None and cfg.provider != "ollama":
        key = KeySource(
            cfg.provider,
            command=list(cfg.api_key_command),
            environ=environ,
            scrub=(*key_variables(cfg), *scrub),
        )
    elif variable is not None:
        key = KeySource(cfg.provider, env_name=variable, environ=environ)
    options = ModelOptions(cfg.provider, model, cfg.think, cfg.effort)
    if cfg.provider == "anthropic":
        base = base.removesuffix("/v1")  # the SDK adds /v1/messages
    elif cfg.provider == "ollama" and not base.endswith("/v1"):
        base += "/v1"
    connection = Connection(
        cfg.provider,
        base,
        key,
        retry or RetryPolicy(),
        pricing or {},
        transport,
        limits_cache=limits_cache,
        timeouts=timeouts or Timeouts(),
    )
    if cfg.provider == "anthropic":
        return AnthropicModel(options, connection)
    if cfg.provider == "openresponses":
        return ResponsesModel(options, connection)
    return ChatModel(options, connection)
