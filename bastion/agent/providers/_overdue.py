"""The total bound of a request, held by the HTTP client's hooks (imported with httpx2, the first
time a client is made): the request hook makes a request made under `with_retries` wait no longer
than its bound has left (connecting, or for a byte), and the response hook wraps its body so every
read checks the bound."""

from __future__ import annotations

import time
from collections.abc import Iterator

import httpx2

from ._failures import Overdue, clip, deadline

__all__ = ["bound_request", "bound_response"]


class _Bounded(httpx2.SyncByteStream):
    """A body whose every read raises Overdue once `at` (a monotonic time) has passed: a server
    that trickles keep-alive bytes never lets the idle timeout fire, but it cannot outlast this."""

    def __init__(self, inner: httpx2.SyncByteStream, at: float) -> None:
        self._inner = inner
        self._at = at

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            if time.monotonic() > self._at:
                raise Overdue
            yield chunk

    def close(self) -> None:
        self._inner.close()

    @property
    def elapsed(self) -> object:  # what httpx2's own stream tells the response once closed
        return getattr(self._inner, "elapsed", None)


def bound_request(request: httpx2.Request) -> None:
    """The client's request hook: no timeout of the request longer than its total bound has left."""
    timeouts = request.extensions.get("timeout")
    if isinstance(timeouts, dict):
        request.extensions["timeout"] = clip(timeouts)


def bound_response(response: httpx2.Response) -> None:
    """The client's response hook: bound the body by the deadline of the request this thread makes."""
    at = deadline()
    if at is not None and isinstance(response.stream, httpx2.SyncByteStream):
        response.stream = _Bounded(response.stream, at)
