"""The providers: ollama, openai, openrouter, openresponses and anthropic, each a streaming Model on
its vendor's SDK (openai, anthropic), imported the first time a request is made; gemini, in
Gemini's own wire format over httpx2; vertex, Claude (anthropic's Vertex client) and Gemini on
Google Vertex AI with Application Default Credentials (google-auth)."""

from ._catalogue import listed_models
from ._clients import Connection
from ._failures import KINDS, RetryPolicy, Timeouts, classify
from ._google import VertexSetup, refused_model, vertex_base_url, vertex_location, vertex_setup
from ._keys import KeySource, NoKey
from ._limits import ModelLimits, model_limits
from ._make import DEFAULTS, StreamingModel, key_variable, key_variables, make_model, timeouts_of
from ._preload import preload
from ._pricing import Price, prices_of
from ._session import ProviderFlags, SessionProvider, session_provider, subagent_model_setting, windows_of
from ._settings import PROVIDERS, ProviderConfig, merge_flags, provider_config
from ._sse import MAX_EVENT, MAX_REPLY
from ._windows import DEFAULT_WINDOW, KNOWN_AS_OF, KNOWN_WINDOWS, Window, known_window, window_of

__all__ = [
    "Connection",
    "DEFAULTS",
    "DEFAULT_WINDOW",
    "KINDS",
    "KNOWN_AS_OF",
    "KNOWN_WINDOWS",
    "KeySource",
    "MAX_EVENT",
    "MAX_REPLY",
    "ModelLimits",
    "NoKey",
    "PROVIDERS",
    "Price",
    "ProviderConfig",
    "ProviderFlags",
    "RetryPolicy",
    "SessionProvider",
    "StreamingModel",
    "Timeouts",
    "VertexSetup",
    "Window",
    "classify",
    "key_variable",
    "key_variables",
    "merge_flags",
    "known_window",
    "listed_models",
    "make_model",
    "model_limits",
    "preload",
    "prices_of",
    "provider_config",
    "refused_model",
    "session_provider",
    "subagent_model_setting",
    "timeouts_of",
    "vertex_base_url",
    "vertex_location",
    "vertex_setup",
    "window_of",
    "windows_of",
]
