"""Tool output made safe for a terminal: control sequences removed, as a whole or as it streams."""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

__all__ = ["OutputStream", "clean"]

_SEQUENCES = re.compile(
    r"""
    \x1b\[[0-?]*[ -/]*[@-~]                       # CSI
  | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?            # OSC, terminated or not
  | \x1b[PX^_][^\x1b]*(?:\x1b\\)?                 # DCS, SOS, PM, APC
  | \x1b[ -/]*[0-~]                               # other escape sequences
  | \x9b[0-?]*[ -/]*[@-~]                         # 8-bit CSI
    """,
    re.VERBOSE,
)
# C0 controls but \t and \n, DEL, C1 controls, and whatever is left of a broken sequence.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_FLUSH_AT = 4096


def clean(text: str) -> str:
    """`text` without terminal control sequences or control characters (\\n and \\t stay)."""
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))


class OutputStream:
    """Decodes a process's output as it arrives and hands on clean text, a line at a time (or
    4 KiB at a time for a line that does not end), each piece passed through `transform`."""

    def __init__(self, sink: Callable[[str], None], transform: Callable[[str], str] = lambda s: s) -> None:
        self._sink = sink
        self._transform = transform
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""

    def feed(self, data: bytes) -> None:
        self._pending += self._decoder.decode(data)
        cut = self._pending.rfind("\n") + 1
        if not cut and len(self._pending) >= _FLUSH_AT:
            cut = len(self._pending)
        if cut:
            piece, self._pending = self._pending[:cut], self._pending[cut:]
            self._emit(piece)

    def close(self) -> None:
        rest = self._pending + self._decoder.decode(b"", final=True)
        self._pending = ""
        if rest:
            self._emit(rest)

    def _emit(self, piece: str) -> None:
        text = clean(self._transform(piece))
        if text:
            self._sink(text)
