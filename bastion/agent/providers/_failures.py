"""Every way a request can fail, mapped to one failure kind, and the retries around a request.

The SDKs are built with max_retries=0: the retries are ours, because a request must never be sent
again once a tool call has been shown (the model may have meant it once), a Retry-After is capped,
and the tests use a tiny backoff. Both SDKs name their exceptions alike (they are generated from one
template), so one table, read by class name along the exception's bases, maps both.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._types import Failure, ModelError, Reply
from ._keys import KeySource

__all__ = [
    "KINDS",
    "OnRetry",
    "RetryPolicy",
    "Surfaced",
    "classify",
    "ended_early",
    "is_web_page",
    "with_retries",
]

# What names a failure -> its kind, and whether another try may help. Looked up in this order: the
# `type` of an error event in an Anthropic stream (which the SDK raises as a bare APIStatusError);
# the SDKs' exception classes (and httpx2's, whose errors a stream raises as they are) along the
# exception's bases; its HTTP status; the SDKs' generic classes.
KINDS: dict[str, tuple[Failure, bool]] = {
    "RateLimitError": (Failure.RATE_LIMITED, True),  # 429
    "rate_limit_error": (Failure.RATE_LIMITED, True),
    "OverloadedError": (Failure.UNAVAILABLE, True),  # Anthropic's 529
    "overloaded_error": (Failure.UNAVAILABLE, True),
    "InternalServerError": (Failure.UNAVAILABLE, True),  # 5xx
    "api_error": (Failure.UNAVAILABLE, True),
    "AuthenticationError": (Failure.AUTHENTICATION, False),  # 401
    "PaymentRequiredError": (Failure.AUTHENTICATION, False),  # 402: billing
    "PermissionDeniedError": (Failure.AUTHENTICATION, False),  # 403
    "NotFoundError": (Failure.MODEL_NOT_FOUND, False),  # 404
    "ContentTooLargeError": (Failure.CONTEXT_EXCEEDED, False),  # 413
    "LengthFinishReasonError": (Failure.OUTPUT_LIMIT_EXCEEDED, False),
    "ContentFilterFinishReasonError": (Failure.POLICY_REJECTION, False),
    "APIResponseValidationError": (Failure.PROTOCOL_ERROR, False),
    "JSONDecodeError": (Failure.PROTOCOL_ERROR, False),  # a stream line that is not JSON
    "DecodingError": (Failure.PROTOCOL_ERROR, False),
    "APITimeoutError": (Failure.NETWORK, True),
    "APIConnectionError": (Failure.NETWORK, True),
    "TransportError": (Failure.NETWORK, True),  # the connection broke while the stream was read
    # A status no class above names (OpenAI has no class for 402, nor either SDK for 418, ...).
    "HTTP 401": (Failure.AUTHENTICATION, False),
    "HTTP 402": (Failure.AUTHENTICATION, False),
    "HTTP 403": (Failure.AUTHENTICATION, False),
    "HTTP 404": (Failure.MODEL_NOT_FOUND, False),
    "HTTP 413": (Failure.CONTEXT_EXCEEDED, False),
    "HTTP 429": (Failure.RATE_LIMITED, True),
    "HTTP 5xx": (Failure.UNAVAILABLE, True),
    "APIStatusError": (Failure.OTHER, False),  # any other status (400, 418, ...)
    "APIError": (Failure.UNAVAILABLE, True),  # an error in an OpenAI stream
}
_GENERIC = ("APIStatusError", "APIError", "OpenAIError", "AnthropicError")
# Words in a 4xx body that say what went wrong when the status does not.
_CONTEXT_WORDS = ("context length", "context window", "context_length", "too long", "too many tokens")
_POLICY_WORDS = ("content_filter", "content filter", "content policy", "content_policy", "flagged")
_OURS = ("openai", "anthropic", "httpx2", "httpcore2", "json")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 3
    base: float = 0.5
    cap: float = 30.0

    def delay(self, retry: int, retry_after: float | None) -> float:
        wait = retry_after if retry_after is not None else self.base * 2**retry
        return max(0.0, min(wait, self.cap))


class Surfaced:
    """Set once a tool call has been shown to the caller: from then on the request is never retried."""

    def __init__(self) -> None:
        self.tool_call = False


def _retry_after(headers: Any) -> float | None:
    """Seconds the server asked to wait: retry-after-ms, or retry-after in seconds or as a date."""
    if headers is None:
        return None
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        value = headers.get("retry-after")
        if not value:
            return None
        try:
            return float(value)
        except ValueError:
            return email.utils.parsedate_to_datetime(value).timestamp() - time.time()
    except (TypeError, ValueError, OverflowError):
        return None


def _error_type(body: object) -> str:
    inner = body.get("error", body) if isinstance(body, dict) else None
    return str(inner.get("type") or "") if isinstance(inner, dict) else ""


def _printable(text: str) -> str:
    return "".join(c for c in " ".join(text.split())[:300] if c.isprintable())


def is_web_page(response: object, text: str = "") -> bool:
    """Whether an answer is a web page (HTML) rather than the API's JSON or event stream: by its
    content type, else by how its text starts."""
    headers = getattr(response, "headers", None)
    try:
        kind = str(headers.get("content-type", "")) if headers is not None else ""
    except (AttributeError, TypeError):
        kind = ""
    start = text.lstrip()[:15].lower()
    return kind.startswith("text/html") or start.startswith(("<!doctype html", "<html"))


def ended_early(provider: str, what: str, stream: object) -> ModelError:
    """The error for a stream that ended before its `what` did; a web page said as such."""
    page = is_web_page(getattr(stream, "response", None))
    return ModelError(
        f"{provider}: the stream ended before the {what} did"
        + (" (the server answered with a web page)" if page else ""),
        Failure.PROTOCOL_ERROR,
        web_page=page,
    )


def classify(provider: str, err: Exception) -> ModelError:
    """The failure an exception raised while a request was made stands for: the SDKs' and httpx2's
    by the table; anything else (an SDK's own TypeError, say) is `other`, named, never a traceback."""
    names = [cls.__name__ for cls in type(err).__mro__ if cls.__module__.split(".")[0] in _OURS]
    status = getattr(err, "status_code", None)
    status = status if isinstance(status, int) and status >= 400 else None
    by_status = [f"HTTP {status}", "HTTP 5xx" if status >= 500 else ""] if status else []
    candidates = (
        _error_type(getattr(err, "body", None)),
        *(n for n in names if n not in _GENERIC),
        *by_status,
        *(n for n in names if n in _GENERIC),
    )
    kind, retryable = KINDS[next((n for n in candidates if n in KINDS), "APIStatusError")]
    text = _printable(str(getattr(err, "message", "") or err))
    low = text.lower()
    if kind is Failure.OTHER and status in (400, 413, 422) and any(w in low for w in _CONTEXT_WORDS):
        kind = Failure.CONTEXT_EXCEEDED
    elif kind in (Failure.OTHER, Failure.AUTHENTICATION) and status and any(w in low for w in _POLICY_WORDS):
        kind = Failure.POLICY_REJECTION
    head = f"{provider}: HTTP {status}" if status else f"{provider}: {type(err).__name__}"
    response = getattr(err, "response", None)
    return ModelError(
        f"{head}: {text}" if text else head,
        kind,
        retryable=retryable,
        http_status=status,
        retry_after=_retry_after(getattr(response, "headers", None)) if status else None,
        web_page=is_web_page(response, text),
    )


OnRetry = Callable[[ModelError, float], None]


def with_retries(
    provider: str,
    key: KeySource | None,
    retry: RetryPolicy,
    once: Callable[[Surfaced], Reply],
    on_retry: OnRetry | None = None,
) -> Reply:
    """`once` until it answers: a retryable failure is tried again up to retry.attempts times, never
    once a tool call was surfaced; a refused key from a command is fetched again once. `on_retry`
    hears of each failure that is tried again, and the seconds waited first."""
    requests = 0
    retries = 0
    refreshed = False
    while True:
        surfaced = Surfaced()
        requests += 1
        try:
            return once(surfaced)
        except ModelError as err:
            failure = err
        except Exception as err:
            failure = classify(provider, err)
        failure.attempts = requests
        if (
            failure.kind is Failure.AUTHENTICATION
            and failure.http_status
            and key is not None
            and key.refreshable
            and not refreshed
        ):
            refreshed = True
            key.refresh()
            continue
        if not failure.retryable or surfaced.tool_call or retries >= retry.attempts:
            raise failure from None
        wait = retry.delay(retries, failure.retry_after)
        if on_retry is not None:
            on_retry(failure, wait)
        time.sleep(wait)
        retries += 1
