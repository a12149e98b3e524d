"""The model's markdown on a terminal, rendered with rich (headings, lists, code blocks with
highlighting, wrapped at word boundaries), a block at a time as it streams: a block is shown once
it is complete (a blank line outside a code fence ends it), the rest when the reply ends. rich is
imported with the first block rendered: on a terminal, on the agent's path."""

from __future__ import annotations

import re
from typing import Any, TextIO

from .._safe import safe_text

__all__ = ["MarkdownStream"]

_LEADING_BLANKS = re.compile(r"\A(?:[ \t]*(?:\x1b\[[0-9;]*m)*[ \t]*\n)+")


def _fence_open(text: str) -> bool:
    """Whether `text` ends inside a fenced code block (an odd number of fence lines)."""
    fences = sum(1 for line in text.splitlines() if line.lstrip().startswith(("```", "~~~")))
    return fences % 2 == 1


class MarkdownStream:
    """Takes the model's text as it streams and prints each complete markdown block rendered."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._console: Any = None  # made (and rich imported) with the first block: start-up stays quick
        self._pending = ""
        self._first = True

    def feed(self, delta: str) -> None:
        self._pending += delta
        while True:
            cut = self._complete_block()
            if cut is None:
                return
            block, self._pending = self._pending[:cut], self._pending[cut:]
            self._print(block)

    def flush(self) -> None:
        """Print what is left (the reply ended)."""
        block, self._pending = self._pending, ""
        self._print(block)
        self._first = True

    def _complete_block(self) -> int | None:
        start = 0
        while True:
            at = self._pending.find("\n\n", start)
            if at < 0:
                return None
            if not _fence_open(self._pending[: at + 1]):
                return at + 2
            start = at + 2

    def _print(self, block: str) -> None:
        if not block.strip():
            return
        from rich.console import Console
        from rich.markdown import Markdown

        if self._console is None:
            self._console = Console(file=self._out, highlight=False, soft_wrap=False)

        with self._console.capture() as captured:
            self._console.print(Markdown(safe_text(block).strip("\n"), code_theme="ansi_dark"))
        # One blank line between blocks, whatever blank lines rich puts before an element.
        rendered = _LEADING_BLANKS.sub("", captured.get())
        self._out.write(rendered if self._first else "\n" + rendered)
        self._out.flush()
        self._first = False
