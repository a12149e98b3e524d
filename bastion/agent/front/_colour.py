"""Colour for a terminal: on only when the stream is a terminal and NO_COLOR is not set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TextIO

__all__ = ["Colour", "colour_for"]


class Colour:
    """Wraps text in ANSI colours when `on`; returns it unchanged otherwise."""

    def __init__(self, on: bool) -> None:
        self.on = on

    def _wrap(self, code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.on else text

    def red(self, text: str) -> str:
        return self._wrap("31", text)

    def green(self, text: str) -> str:
        return self._wrap("32", text)

    def cyan(self, text: str) -> str:
        return self._wrap("36", text)

    def dim(self, text: str) -> str:
        return self._wrap("2", text)

    def bold(self, text: str) -> str:
        return self._wrap("1", text)

    def diff_line(self, line: str) -> str:
        if line.startswith(("+++", "---")):
            return self.bold(line)
        if line.startswith("+"):
            return self.green(line)
        if line.startswith("-"):
            return self.red(line)
        if line.startswith("@@"):
            return self.cyan(line)
        return line


def colour_for(stream: TextIO, environ: Mapping[str, str]) -> Colour:
    """Colour on for a terminal unless NO_COLOR is set (to anything: no-color.org) or TERM is dumb."""
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    return Colour(tty and "NO_COLOR" not in environ and environ.get("TERM") != "dumb")
