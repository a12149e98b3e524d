"""A streamed answer's events, read from the SDK's raw response: each server-sent event's name and
its data as text, and that text as JSON (plain dicts and lists).

The request (its URL, headers, key and status errors) is the SDK's; the stream is read here because
the SDKs' typed streams build a pydantic model for every delta, about 0.15 ms each: a 400 KB command
streamed in 8-character deltas is 50,000 of them, 8 s (benchmarks/streaming.py measures both). What
is not JSON, or is nested too deep for the parser, is a protocol error, never a traceback.

What a reply holds is bounded, whatever the server sends: the body is split into lines here, and a
line (an event) longer than MAX_EVENT is given up before it is held whole; a reply whose text,
arguments and thinking (`Kept`) pass MAX_REPLY characters is given up too. Both are protocol errors
(not retried: a model's output limit is a small part of that), so a 50 MB reply costs what 8 MB
would (benchmarks/memory.py).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..runtime import Failure, ModelError

__all__ = ["DONE", "MAX_EVENT", "MAX_REPLY", "Kept", "count", "dicts", "events", "get", "loads", "text"]

# Chat Completions' last data line.
DONE = "[DONE]"
# The most characters a reply keeps (its text, each call's name and arguments, its thinking and a
# refusal): over 15 times the longest output limit of a model (128k tokens of about 4 characters).
MAX_REPLY = 8_000_000
# The longest line of a body: a reply's whole text in one event, JSON-escaped, and its framing.
MAX_EVENT = 2 * MAX_REPLY + 1_000_000


def _too_long(provider: str, what: str, bound: int) -> ModelError:
    return ModelError(
        f"{provider}: {what} passed {bound / 1e6:g} MB, far more than any model's output: not read further",
        Failure.PROTOCOL_ERROR,
    )


class Kept:
    """Counts what a reply keeps as it streams: `kept(piece)` is the piece, once it is counted; past
    MAX_REPLY characters the reply is a protocol error."""

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.size = 0

    def __call__(self, piece: str) -> str:
        self.size += len(piece)
        if self.size > MAX_REPLY:
            raise _too_long(self.provider, "the reply", MAX_REPLY)
        return piece


def _lines(provider: str, chunks: Iterable[bytes]) -> Iterator[str]:
    """The body's lines, ended by CRLF, LF or CR as server-sent events say, decoded as UTF-8 (a
    byte that is not: U+FFFD), none held past MAX_EVENT characters. A chunk is decoded and split
    whole (in C); a line that goes on past it is kept in pieces, joined once it ends."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    held: list[str] = []  # the pieces of the line still going on
    size = 0
    cr = False  # the last chunk ended in a CR: it ends a line, and with an LF after it, one line
    for chunk in chunks:
        text = ("\r" if cr else "") + decoder.decode(chunk)
        cr = text.endswith("\r")
        parts = (text[:-1] if cr else text).replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if size + len(parts[0]) > MAX_EVENT or max(map(len, parts)) > MAX_EVENT:
            raise _too_long(provider, "an event of the stream", MAX_EVENT)
        if len(parts) > 1:
            yield "".join([*held, parts[0]])
            yield from parts[1:-1]
            held, size = [], 0
        held.append(parts[-1])
        size += len(parts[-1])
    held.append(decoder.decode(b"", final=True))
    if cr or any(held):
        yield "".join(held)


def events(provider: str, chunks: Iterable[bytes]) -> Iterator[tuple[str, str]]:
    """(event name, data) of each event in the body read as `chunks` (bytes, as they come): data
    lines joined with newlines, comments and events without data skipped, the name "" when the
    event has none."""
    name = ""
    data: list[str] = []
    for line in _lines(provider, chunks):
        if not line:
            if data:
                yield name, "\n".join(data)
            name, data = "", []
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "data":
            data.append(value)
        elif field == "event":
            name = value
        # ":" starts a comment (a keep-alive); "id" and "retry" are not used by these APIs.
    if data:  # the body ended without the blank line after its last event
        yield name, "\n".join(data)


def loads(provider: str, data: str) -> Any:
    """The JSON of one event's data."""
    try:
        return json.loads(data)
    except json.JSONDecodeError as err:
        said = f"{provider}: a stream event is not JSON ({err.msg} at character {err.pos})"
        raise ModelError(said, Failure.PROTOCOL_ERROR) from None
    except RecursionError:
        raise ModelError(
            f"{provider}: a stream event is JSON nested too deep to read", Failure.PROTOCOL_ERROR
        ) from None


# Reading what a server sent: a field that is missing or of another type is as good as absent.


def get(value: object, *keys: str) -> Any:
    """value[k1][k2]... where each is an object that has the key; else None."""
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def count(value: object, *keys: str) -> int:
    """A token count at `keys`: a whole number not below 0, else 0."""
    found = get(value, *keys)
    return found if isinstance(found, int) and not isinstance(found, bool) and found > 0 else 0


def text(value: object, *keys: str) -> str:
    """A string at `keys`, else ""."""
    found = get(value, *keys)
    return found if isinstance(found, str) else ""


def dicts(value: object, *keys: str) -> list[dict[str, Any]]:
    """The objects of the list at `keys` (anything else in it, or a value that is not a list: none)."""
    found = get(value, *keys)
    return [v for v in found if isinstance(v, dict)] if isinstance(found, list) else []
