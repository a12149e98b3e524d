"""make_model: a provider's streaming Model from its config, and the variables its key is read from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..._handover import PROVIDER_KEY_VARIABLES as _KEYS
from ...config import AgentConfig
from ..runtime import ConfigError, ModelOptions
from ._adc import AdcToken
from ._anthropic import AnthropicModel
from ._chat import ChatModel
from ._clients import Connection
from ._failures import RetryPolicy, Timeouts
from ._gemini import GeminiModel
from ._google import Adc, Place, read_adc, refused_model, vertex_base_url, vertex_place
from ._keys import Key, KeySource
from ._pricing import Price
from ._responses import ResponsesModel
from ._settings import ProviderConfig
from ._vertex import VertexModel

if TYPE_CHECKING:
    import httpx2

# provider: (default model, default base URL, key variable)
DEFAULTS: dict[str, tuple[str | None, str | None, str | None]] = {
    "ollama": ("qwen3.5:9b", "http://localhost:11434", None),
    "openai": ("gpt-5", "https://api.openai.com/v1", _KEYS["openai"]),
    "openrouter": ("deepseek/deepseek-v4-pro-0813", "https://openrouter.ai/api/v1", _KEYS["openrouter"]),
    "openresponses": (None, None, None),
    "anthropic": ("claude-sonnet-5-5", "https://api.anthropic.com", _KEYS["anthropic"]),
    "gemini": ("gemini-2.5-pro", "https://generativelanguage.googleapis.com", _KEYS["gemini"]),
    # No key: Application Default Credentials; the URL is the location's (_google.vertex_base_url).
    "vertex": ("claude-sonnet-5-5", None, None),
}
# The API version a base URL given with it ends in, taken off: the paths add it.
_VERSION_SUFFIX = {"anthropic": "/v1", "vertex": "/v1", "gemini": "/v1beta"}
# vertex's credentials are a file: the variable naming it leaves the tools' environment as a key's does.
VERTEX_CREDENTIALS = "GOOGLE_APPLICATION_CREDENTIALS"

StreamingModel = ChatModel | ResponsesModel | AnthropicModel | GeminiModel | VertexModel


def key_variable(cfg: ProviderConfig) -> str | None:
    """The variable the key is read from (None: it comes from api_key_command, or there is none)."""
    if cfg.api_key_command is not None:
        return None
    return cfg.api_key_env if cfg.provider == "openresponses" else DEFAULTS[cfg.provider][2]


def key_variables(cfg: ProviderConfig) -> tuple[str, ...]:
    """The variables that may hold the key in use, which the tools' environment must never carry:
    the provider's standard variable and api_key_env's, also when the key comes from
    api_key_command (the variable may hold it all the same); for vertex, the one naming its
    credential file (a child given it would sign in as you)."""
    if cfg.provider == "vertex":
        return (VERTEX_CREDENTIALS,)
    return tuple(name for name in (DEFAULTS[cfg.provider][2], cfg.api_key_env) if name)


def timeouts_of(config: AgentConfig) -> Timeouts:
    """The user config's stream_idle_timeout and request_timeout (positive numbers, checked by the
    config's table), the defaults where unset."""
    default = Timeouts()
    idle, total = config.stream_idle_timeout, config.request_timeout
    return Timeouts(default.idle if idle is None else idle, default.total if total is None else total)


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
    if model is None:
        raise ConfigError(f"{cfg.provider}: --model is required")
    vertex = _vertex_setup(cfg, model, environ) if cfg.provider == "vertex" else None
    if vertex is not None:
        default_url = vertex_base_url(vertex[2].location)
    base = cfg.base_url or default_url
    if base is None:
        raise ConfigError(f"{cfg.provider}: --base-url is required")
    base = base.rstrip("/")
    key: Key | None = None
    variable = key_variable(cfg)
    if cfg.api_key_command is not None and cfg.provider not in ("ollama", "vertex"):
        key = KeySource(
            cfg.provider,
            command=list(cfg.api_key_command),
            environ=environ,
            scrub=(*key_variables(cfg), *scrub),
        )
    elif variable is not None:
        key = KeySource(cfg.provider, env_name=variable, environ=environ)
    options = ModelOptions(cfg.provider, model, cfg.think, cfg.effort)
    # The SDKs add /v1/messages (and Vertex's /v1/projects/...); Gemini's paths are made in full.
    if cfg.provider in _VERSION_SUFFIX:
        base = base.removesuffix(_VERSION_SUFFIX[cfg.provider])
    if cfg.provider == "ollama" and not base.endswith("/v1"):
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
        place=vertex[2] if vertex is not None else None,
    )
    if vertex is not None:
        connection.key = AdcToken(vertex[0], vertex[1], connection.http_client)
        return VertexModel(options, connection)
    if cfg.provider == "anthropic":
        return AnthropicModel(options, connection)
    if cfg.provider == "gemini":
        return GeminiModel(options, connection)
    if cfg.provider == "openresponses":
        return ResponsesModel(options, connection)
    return ChatModel(options, connection)


def _vertex_setup(
    cfg: ProviderConfig, model: str, environ: Mapping[str, str]
) -> tuple[Adc, dict[str, Any], Place]:
    """vertex's credential file, what it holds and the place it serves: checked before any request."""
    if cfg.api_key_command is not None:
        raise ConfigError(
            "vertex takes no key (api_key_command): it signs in with Application Default Credentials"
        )
    refused = refused_model("vertex", model)
    if refused is not None:
        raise ConfigError(refused)
    adc, info = read_adc(environ)
    return adc, info, vertex_place(environ, adc)
