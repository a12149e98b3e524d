"""The models a provider lists, for /model to check a name against: the OpenAI-style GET /models
(OpenAI, OpenRouter, an Open Responses server), Anthropic's and Gemini's models APIs, Ollama's
/api/tags; vertex lists none (its families are checked by name: _google.refused_model)."""

from __future__ import annotations

from ..runtime import ModelError
from ._clients import Connection
from ._failures import classify
from ._gemini import gemini_get
from ._sse import dicts, text

__all__ = ["listed_models"]

_TIMEOUT = 5.0


def _ollama(connection: Connection) -> list[str]:
    root = connection.base_url.removesuffix("/v1")
    response = connection.http_client().get(root + "/api/tags", timeout=_TIMEOUT)
    response.raise_for_status()
    body = response.json()
    models = body.get("models") if isinstance(body, dict) else None
    if not isinstance(models, list):
        raise ValueError("/api/tags did not answer a list of models")
    names = [m.get("name") or m.get("model") for m in models if isinstance(m, dict)]
    return [n for n in names if isinstance(n, str)]


def _gemini(connection: Connection) -> list[str]:
    """The models that generate content (an embedding model is listed too); one page of 1000."""
    body = gemini_get(connection, "models?pageSize=1000", _TIMEOUT)
    if not isinstance(body, dict) or not isinstance(body.get("models"), list):
        raise ValueError("/v1beta/models did not answer a list of models")
    return [
        text(m, "name").removeprefix("models/")
        for m in dicts(body, "models")
        if text(m, "name")
        and "generateContent" in (m.get("supportedGenerationMethods") or ["generateContent"])
    ]


def listed_models(connection: Connection) -> list[str]:
    """The model names the provider lists (asked now, within a few seconds). Raises ModelError,
    classified as a request's failure is, when the list cannot be fetched."""
    try:
        if connection.provider == "ollama":
            return _ollama(connection)
        if connection.provider == "vertex":
            return []
        if connection.provider == "gemini":
            return _gemini(connection)
        if connection.provider == "anthropic":
            return [m.id for m in connection.anthropic().models.list(timeout=_TIMEOUT)]
        listed = connection.openai().models.list(timeout=_TIMEOUT, **connection.openai_extras())
        return [m.id for m in listed]
    except ModelError:
        raise
    except Exception as err:  # the SDKs', httpx2's and a body that is not a list, named by classify
        raise classify(connection.provider, err) from None
