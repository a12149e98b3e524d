"""Every way a request can fail, mapped to one failure kind, and the retries and time bounds around
a request.

The SDKs are built with max_retries=0: the retries are ours, because a request must never be sent
again once a tool call has been shown (the model may have meant it once), a Retry-After is capped,
and the tests use a tiny backoff. Both SDKs name their exceptions alike (they are generated from one
template), so one table, read by class name along the exception's bases, maps both. An HTTP error
status decides its kind, whatever the body says; a body's error `type` names the kind only of an
error event in a stream (which has no status of its own).

Two bounds keep a request from waiting for ever (Timeouts): no byte for `idle` seconds (the HTTP
client's read timeout: a server that does not answer, or stops mid-stream) is a network failure,
retried; a request whose answer, retries and waits included, is still not complete after `total`
seconds (a server that trickles keep-alives but never finishes) is given up, not retried. A try
waits for a byte no longer than the total bound has left, so a silent server is given up at that
bound too. Each says which bound fired and the setting that sets it, as it was set.
"""

from __future__ import annotations

import email.utils
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from ..._errors import BastionError
from ..runtime import AgentError, Failure, ModelError, Reply
from ._keys import Key

__all__ = [
    "KINDS",
    "OnRetry",
    "Overdue",
    "RetryPolicy",
    "Surfaced",
    "Timeouts",
    "classify",
    "clip",
    "deadline",
    "ended_early",
    "is_web_page",
    "stream_error",
    "with_retries",
]

# What names a failure -> its kind, and whether another try may help. Looked up in this order: the
# SDKs' exception classes (and httpx2's, whose errors a stream raises as they are) along the
# exception's bases; its HTTP status; the SDKs' generic classes; and, for a failure without an HTTP
# error status only, the `type` of the error its body holds (an error event in a stream).
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
    "RecursionError": (Failure.PROTOCOL_ERROR, False),  # JSON nested too deep for the parser
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
    # Google's error statuses (the `status` of a Gemini or Vertex error, also in a stream).
    "RESOURCE_EXHAUSTED": (Failure.RATE_LIMITED, True),
    "UNAVAILABLE": (Failure.UNAVAILABLE, True),
    "INTERNAL": (Failure.UNAVAILABLE, True),
    "DEADLINE_EXCEEDED": (Failure.UNAVAILABLE, True),
    "UNAUTHENTICATED": (Failure.AUTHENTICATION, False),
    "PERMISSION_DENIED": (Failure.AUTHENTICATION, False),
    "NOT_FOUND": (Failure.MODEL_NOT_FOUND, False),
    "INVALID_ARGUMENT": (Failure.OTHER, False),
    "FAILED_PRECONDITION": (Failure.OTHER, False),
}
_GENERIC = ("APIStatusError", "APIError", "OpenAIError", "AnthropicError")
# Words in a 4xx body that say what went wrong when the status does not.
_CONTEXT_WORDS = (
    "context length", "context window", "context_length", "too long", "too many tokens",
    "exceeds the maximum number of tokens",  # Gemini's "The input token count (N) exceeds ..."
)  # fmt: skip
_POLICY_WORDS = ("content_filter", "content filter", "content policy", "content_policy", "flagged")
_OURS = ("openai", "anthropic", "httpx2", "httpcore2", "json")
# The builtin exceptions a parser inside an SDK raises for what the server sent.
_PARSING = (RecursionError,)
# The timeouts of httpx2 and the SDKs: no byte within the read timeout (the idle bound), or no
# connection within the connect timeout.
_TIMEOUTS = ("ReadTimeout", "WriteTimeout", "PoolTimeout", "APITimeoutError")
# httpx2's errors that come after the connection was made: the server was reached (it accepted,
# then closed, reset, or kept silent), so the words are not "could not connect".
_REACHED = {"ReadError", "WriteError", "RemoteProtocolError", "ReadTimeout", "WriteTimeout"}


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    attempts: int = 3
    base: float = 0.5
    cap: float = 30.0

    def delay(self, retry: int, retry_after: float | None) -> float:
        wait = retry_after if retry_after is not None else self.base * 2**retry
        return max(0.0, min(wait, self.cap))


@dataclass(frozen=True, slots=True)
class Timeouts:
    """`idle`: the most seconds without a byte from the server (config stream_idle_timeout);
    `total`: the most seconds one request may take, its retries and their waits included (config
    request_timeout)."""

    idle: float = 30.0
    total: float = 1200.0
    connect: float = 30.0


class Overdue(BastionError):  # noqa: N818 - a condition, named as it is said
    """The request's total bound passed while its answer streamed (raised between two reads)."""


# The monotonic time the request this thread makes must be complete by (None: no request running).
# The HTTP client's response hook reads it (_clients.py): every read of the body checks it.
_bound = threading.local()


def deadline() -> float | None:
    """When the request running on this thread must be complete, if one is."""
    at: float | None = getattr(_bound, "at", None)
    return at


def clip(timeouts: dict[str, float | None]) -> dict[str, float | None]:
    """A request's timeouts (httpx2's connect, read, write and pool) made no longer than the time
    its total bound has left, when it is made under `with_retries`; that a bound was shortened is
    kept, so its timeout is said as the total bound firing."""
    at = deadline()
    if at is None:
        return timeouts
    left = max(at - time.monotonic(), 0.001)
    _bound.clipped = any(value is None or value > left for value in timeouts.values())
    return {name: left if value is None else min(value, left) for name, value in timeouts.items()}


class Surfaced:
    """What one try has got so far: `tool_call`, set once a tool call has been shown to the caller
    (from then on the request is never retried); `answered`, once the server's answer began (its
    status and headers came), so a network failure after it is the stream breaking off."""

    def __init__(self) -> None:
        self.tool_call = False
        self.answered = False


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


def ended_early(provider: str, what: str, response: object) -> ModelError:
    """The error for a stream that ended before its `what` did. An event stream cut short (the
    connection closed mid-answer) is a network failure, tried again like a 5xx; anything else (a
    web page, a JSON body, an empty one) is not the API's protocol."""
    page = is_web_page(response)
    headers = getattr(response, "headers", None)
    try:
        kind = str(headers.get("content-type", "")) if headers is not None else ""
    except (AttributeError, TypeError):
        kind = ""
    if not page and kind.startswith("text/event-stream"):
        return ModelError(
            f"{provider}: the connection closed before the {what} ended",
            Failure.NETWORK,
            retryable=True,
            answered=True,
        )
    return ModelError(
        f"{provider}: the stream ended before the {what} did"
        + (" (the server answered with a web page)" if page else ""),
        Failure.PROTOCOL_ERROR,
        web_page=page,
    )


def stream_error(provider: str, error: object) -> ModelError:
    """An error the server sent as an event of its stream (after a 200): its `type` or `code` names
    the kind where the table has it, a context or content-policy word says so, anything else is the
    service failing (retried)."""
    inner = error.get("error", error) if isinstance(error, dict) else error
    fields = inner if isinstance(inner, dict) else {}
    kind_name = str(fields.get("type") or "")
    code = str(fields.get("code") or "")
    message = _printable(str(fields.get("message") or "")) if fields else _printable(str(error))
    low = f"{code} {message}".lower()
    kind, retryable = KINDS.get(kind_name, KINDS.get(code, (Failure.UNAVAILABLE, True)))
    if "context" in code or any(w in low for w in _CONTEXT_WORDS):
        kind, retryable = Failure.CONTEXT_EXCEEDED, False
    elif any(w in low for w in _POLICY_WORDS):
        kind, retryable = Failure.POLICY_REJECTION, False
    said = message or code or kind_name or "no message"
    return ModelError(f"{provider}: the stream reported an error: {said}", kind, retryable=retryable)


def classify(provider: str, err: Exception, timeouts: Timeouts | None = None) -> ModelError:
    """The failure an exception raised while a request was made stands for: the SDKs' and httpx2's
    by the table; anything else (an SDK's own TypeError, say) is `other`, named, never a traceback.
    A timeout says which bound of `timeouts` fired."""
    names = [cls.__name__ for cls in type(err).__mro__ if cls.__module__.split(".")[0] in _OURS]
    if isinstance(err, _PARSING):
        names.insert(0, type(err).__name__)
    status = getattr(err, "status_code", None)
    status = status if isinstance(status, int) and status >= 400 else None
    by_status = [f"HTTP {status}", "HTTP 5xx" if status >= 500 else ""] if status else []
    candidates = (
        *(n for n in names if n not in _GENERIC),
        *(by_status or [_error_type(getattr(err, "body", None))]),
        *(n for n in names if n in _GENERIC),
    )
    kind, retryable = KINDS[next((n for n in candidates if n in KINDS), "APIStatusError")]
    text = _printable(str(getattr(err, "message", "") or err))
    if isinstance(err, RecursionError):
        text = "JSON nested too deep to read"
    low = text.lower()
    if kind is Failure.OTHER and status in (400, 413, 422) and any(w in low for w in _CONTEXT_WORDS):
        kind = Failure.CONTEXT_EXCEEDED
    elif kind in (Failure.OTHER, Failure.AUTHENTICATION) and status and any(w in low for w in _POLICY_WORDS):
        kind = Failure.POLICY_REJECTION
    timeout = _timeout_said(err, timeouts or Timeouts())
    reached = kind is Failure.NETWORK and bool(_chain(err) & _REACHED)
    if timeout is not None:
        return ModelError(f"{provider}: {timeout}", Failure.NETWORK, retryable=True, answered=reached)
    head = f"{provider}: HTTP {status}" if status else f"{provider}: {type(err).__name__}"
    response = getattr(err, "response", None)
    return ModelError(
        f"{head}: {text}" if text else head,
        kind,
        retryable=retryable,
        http_status=status,
        retry_after=_retry_after(getattr(response, "headers", None)) if status else None,
        web_page=is_web_page(response, text),
        answered=reached,
    )


def _chain(err: BaseException) -> set[str]:
    """The class names of `err` and of the error it wraps (an SDK's around httpx2's)."""
    chain = [err, err.__cause__] if err.__cause__ is not None else [err]
    return {cls.__name__ for e in chain for cls in type(e).__mro__}


def _timeout_said(err: BaseException, timeouts: Timeouts) -> str | None:
    """Which bound a timeout (or the SDK's error wrapping one) is, in words; None if not a timeout."""
    names = _chain(err)
    if "ConnectTimeout" in names:
        return f"could not connect within {min(timeouts.connect, timeouts.idle):g} s"
    if names & set(_TIMEOUTS):
        return f"no byte from the server in {timeouts.idle:g} s (stream_idle_timeout)"
    return None


OnRetry = Callable[[ModelError, float], None]


class Reached(Protocol):
    """What a request is made over (a Connection): the provider, its key, retries and bounds."""

    provider: str
    key: Key | None
    retry: RetryPolicy
    on_retry: OnRetry | None
    timeouts: Timeouts


def with_retries(connection: Reached, once: Callable[[Surfaced], Reply]) -> Reply:
    """`once` until it answers: a retryable failure is tried again up to retry.attempts times, never
    once a tool call was surfaced, and never past the request's total bound; a refused key from a
    command is fetched again once. `on_retry` hears of each failure that is tried again, and the
    seconds waited first. What is not the provider's (Cancelled, the output closed: an AgentError
    other than ModelError) passes through unclassified."""
    provider, key, retry, bounds = connection.provider, connection.key, connection.retry, connection.timeouts
    give_up_at = time.monotonic() + bounds.total
    requests = 0
    retries = 0
    refreshed = False
    while True:
        surfaced = Surfaced()
        requests += 1
        _bound.at, _bound.clipped = give_up_at, False
        try:
            return once(surfaced)
        except ModelError as err:
            failure = err
        except AgentError:
            raise
        except Overdue:
            failure = _overdue(provider, bounds)
        except Exception as err:
            failure = classify(provider, err, bounds)
            if _bound.clipped and _timeout_said(err, bounds) is not None:
                failure = _overdue(provider, bounds, answered=failure.answered)
        finally:
            _bound.at = None
        failure.attempts = requests
        if failure.kind is Failure.NETWORK and surfaced.answered:
            failure.answered = True
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
        if time.monotonic() + wait >= give_up_at:
            raise _overdue(provider, bounds, failure) from None
        if connection.on_retry is not None:
            connection.on_retry(failure, wait)
        time.sleep(wait)
        retries += 1


def _overdue(
    provider: str, bounds: Timeouts, last: ModelError | None = None, *, answered: bool = True
) -> ModelError:
    """The total bound fired: while the answer streamed or was waited for, or before the next try
    could start (`last`: the try before it)."""
    said = f"{provider}: no complete answer within {bounds.total:g} s (request_timeout)"
    if last is not None:
        said += f"; the last try: {last}"
    return ModelError(
        said,
        Failure.NETWORK,
        attempts=last.attempts if last is not None else None,
        answered=last.answered if last is not None else answered,
    )
