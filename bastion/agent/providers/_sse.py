"""A streamed answer's events, read from the SDK's raw response: each server-sent event's name and
its data as text, and that text as JSON (plain dicts and lists).

The request (its URL, headers, key and status errors) is the SDK's; the stream is read here because
the SDKs' typed streams build a pydantic model for every delta, about 0.15 ms each: a 400 KB command
streamed in 8-character deltas is 50,000 of them, 8 s (benchmarks/streaming.py measures both). What
is not JSON, or is nested too deep for the parser, is a protocol error, never a traceback.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from ..runtime import Failure, ModelError

__all__ = ["DONE", "count", "dicts", "events", "get", "loads", "text"]

# Chat Completions' last data line.
DONE = "[DONE]"


def events(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(event name, data) of each event in `lines` (the body split into lines, as httpx2 does):
    data lines joined with newlines, comments and events without data skipped, the name "" when
    the event has none."""
    name = ""
    data: list[str] = []
    for line in lines:
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
