"""What the vendor says a model can take: its context window and output limit, from Anthropic's
models API, OpenRouter's model list, Gemini's models API, Ollama's /api/show, or the model list of an
OpenAI-style server that states one (vLLM's `max_model_len`, others' `context_length` or
`context_window`; OpenAI's own API states none and is not asked), asked once and kept a day in a
cache file; for vertex, which publishes none, what the model's family is known to take. Unknown
(None) where the vendor does not say or cannot be asked: the limits tune a request (Anthropic's
max_tokens) and inform the transcript, and compaction falls back to the table of known windows
(bastion.agent.providers._windows), so asking never fails a run."""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from typing import Any

from ..._files import open_replacing, read_regular
from ._clients import Connection
from ._gemini import gemini_get
from ._google import family_of

__all__ = ["ModelLimits", "model_limits"]

# OpenAI's own API, whose model list states no limits: not asked.
_OPENAI = "https://api.openai.com/v1"
# The fields an OpenAI-style model list's entry states its window in, by server.
_WINDOW_FIELDS = ("max_model_len", "context_length", "context_window", "max_context_length")

_TTL = 24 * 3600.0
# The longest a lookup waits; never longer than stream_idle_timeout or request_timeout (a silent
# server is given up as a request to it would be).
_TIMEOUT = 10.0
# vertex: the context window of every model of a family it serves (Claude 3 and later, Gemini 1.5 and
# later); the output limit is not the same across a family, so it is left unknown.
_VERTEX_WINDOWS = {"claude": 200_000, "gemini": 1_048_576}


@dataclass(frozen=True, slots=True)
class ModelLimits:
    context_window: int | None = None
    max_output_tokens: int | None = None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _field(item: object, name: str) -> object:
    return item.get(name) if isinstance(item, dict) else getattr(item, name, None)


def _ask(connection: Connection, model: str) -> ModelLimits | None:
    provider = connection.provider
    wait = min(_TIMEOUT, connection.timeouts.idle, connection.timeouts.total)
    if provider == "anthropic":
        info = connection.anthropic().models.retrieve(model, timeout=wait)
        return ModelLimits(_int(info.max_input_tokens), _int(info.max_tokens))
    if provider == "openrouter" or (
        provider in ("openai", "openresponses") and connection.base_url.rstrip("/") != _OPENAI
    ):
        listed = connection.openai().models.list(timeout=wait, **connection.openai_extras())
        for entry in listed.data:
            if entry.id == model:
                top = _field(entry, "top_provider")
                stated = [n for n in (_int(_field(entry, name)) for name in _WINDOW_FIELDS) if n]
                return ModelLimits(stated[0] if stated else None, _int(_field(top, "max_completion_tokens")))
        return ModelLimits()
    if provider == "gemini":
        shown = gemini_get(connection, f"models/{model.removeprefix('models/')}", wait)
        return ModelLimits(_int(_field(shown, "inputTokenLimit")), _int(_field(shown, "outputTokenLimit")))
    if provider == "vertex":
        family = family_of(model)
        return ModelLimits(_VERTEX_WINDOWS[family] if family else None, None)
    if provider == "ollama":
        root = connection.base_url.removesuffix("/v1")
        response = connection.http_client().post(root + "/api/show", json={"model": model}, timeout=wait)
        response.raise_for_status()
        body = response.json()
        shown = body.get("model_info") if isinstance(body, dict) else None
        found = [v for k, v in (shown or {}).items() if str(k).endswith(".context_length")]
        return ModelLimits(_int(found[0]) if found else None, None)
    return None  # OpenAI's model API says nothing of limits


def _load(path: str) -> dict[str, Any]:
    try:
        data = json.loads(read_regular(path).decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def _store(path: str, data: dict[str, Any]) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = open_replacing(tmp)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(tmp, path)
    except OSError:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def model_limits(connection: Connection, model: str, cache: str | None) -> ModelLimits:
    """The model's limits: from `cache` (a JSON file) when asked less than a day ago, else asked now."""
    key = f"{connection.provider} {connection.base_url} {model}"
    known = _load(cache) if cache else {}
    entry = known.get(key)
    if isinstance(entry, dict) and time.time() - float(entry.get("at", 0)) < _TTL:
        return ModelLimits(_int(entry.get("context_window")), _int(entry.get("max_output_tokens")))
    try:
        limits = _ask(connection, model)
    except Exception:  # a vendor that cannot be asked leaves the limits unknown, as documented
        return ModelLimits()
    if limits is None:
        return ModelLimits()
    if cache:
        known[key] = {**asdict(limits), "at": time.time()}
        _store(cache, known)
    return limits
