"""The models a provider lists, for /model to check a name against: the OpenAI-style GET /models
(OpenAI, OpenRouter, an Open Responses server), Anthropic's models API, Ollama's /api/tags."""

from __future__ import annotations

from .._types import ModelError
from ._clients import Connection
from ._failures import classify

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


def listed_models(connection: Connection) -> list[str]:
    """The model names the provider lists (asked now, within a few seconds). Raises ModelError,
    classified as a request's failure is, when the list cannot be fetched."""
    try:
        if connection.provider == "ollama":
            return _ollama(connection)
        if connection.provider == "anthropic":
            return [m.id for m in connection.anthropic().models.list(timeout=_TIMEOUT)]
        listed = connection.openai().models.list(timeout=_TIMEOUT, **connection.openai_extras())
        return [m.id for m in listed]
    except ModelError:
        raise
    except Exception as err:  # the SDKs', httpx2's and a body that is not a list, named by classify
        raise classify(connection.provider, err) from None
