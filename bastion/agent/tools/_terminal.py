"""A command's output as it streams, made safe to show (bastion/_safe.py) a line at a time."""

from __future__ import annotations

import codecs
from collections.abc import Callable

from ..._safe import SafeStream

__all__ = ["OutputStream"]

_FLUSH_AT = 4096


class OutputStream:
    """Decodes a process's output as it arrives and hands on safe text, a line at a time (or
    4 KiB at a time for a line that does not end), each piece passed through `transform` first."""

    def __init__(self, sink: Callable[[str], None], transform: Callable[[str], str] = lambda s: s) -> None:
        self._sink = sink
        self._transform = transform
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self._safe = SafeStream()

    def feed(self, data: bytes) -> None:
        self._pending += self._decoder.decode(data)
        cut = self._pending.rfind("\n") + 1
        if not cut and len(self._pending) >= _FLUSH_AT:
            cut = len(self._pending)
        if cut:
            piece, self._pending = self._pending[:cut], self._pending[cut:]
            self._emit(self._safe.feed(self._transform(piece)))

    def close(self) -> None:
        rest = self._pending + self._decoder.decode(b"", final=True)
        self._pending = ""
        self._emit(self._safe.feed(self._transform(rest)) + self._safe.end())

    def _emit(self, text: str) -> None:
        if text:
            self._sink(text)
