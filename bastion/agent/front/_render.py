"""The model's markdown on a terminal, rendered with rich (headings, lists, code blocks with
highlighting, wrapped at word boundaries), a block at a time as it streams.

On a terminal (`live`) the text of the block still arriving is shown as it comes, plain; once the
block is complete (a blank line outside a code fence ends it, or the reply ends) that plain text
is erased and the block printed rendered in its place, so each word is on the screen once. A block
taller than the screen (whose start has scrolled away and cannot be erased) stays as it came.
Without `live` (a test's stream) a block is printed only once complete. rich is imported with the
first block rendered: on a terminal, on the agent's path. And the terminal's measures every front
shares: a text's columns (`cells`), a line cut to a width (`fitted`), a stream's width (`columns_of`)."""

from __future__ import annotations

import os
import re
import shutil
from typing import Any, TextIO

from ..._safe import SafeStream, safe_text

__all__ = ["MarkdownStream", "cells", "columns_of", "fitted", "rendered", "rows_above"]

_LEADING_BLANKS = re.compile(r"\A(?:[ \t]*(?:\x1b\[[0-9;]*m)*[ \t]*\n)+")


def _fence_open(text: str) -> bool:
    """Whether `text` ends inside a fenced code block (an odd number of fence lines)."""
    fences = sum(1 for line in text.splitlines() if line.lstrip().startswith(("```", "~~~")))
    return fences % 2 == 1


def cells(text: str) -> int:
    """How many columns of a terminal `text` (one line) takes: a wide character two, a combining one none."""
    from rich.cells import cell_len

    return cell_len(text.expandtabs())


def fitted(text: str, columns: int) -> str:
    """`text` (one line) cut to at most `columns` columns of a terminal, wide characters counted
    as the two they take, with "…" where it was cut."""
    if cells(text) <= columns:
        return text
    kept, used = [], 1  # the "…" takes one
    for char in text:
        used += cells(char)
        if used > columns:
            break
        kept.append(char)
    return "".join(kept) + "…" if columns > 0 else ""


def columns_of(stream: TextIO) -> int:
    """The width of the terminal `stream` writes to (the process's terminal's, or 80, if it is
    none)."""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        return shutil.get_terminal_size().columns


def rows_above(text: str, columns: int) -> int:
    """How many rows the cursor moved down while `text` was written from a row's start on a
    terminal `columns` wide (a full row wraps only when the next character comes)."""
    *whole, last = text.split("\n")
    rows = sum(max(1, -(-cells(line) // columns)) for line in whole)
    width = cells(last)
    return rows + ((width - 1) // columns if width else 0)


def _console(out: TextIO) -> Any:
    from rich.console import Console

    return Console(file=out, highlight=False, soft_wrap=False)


def rendered(text: str, console: Any) -> str:
    """`text` (markdown) as the terminal shows it, made safe first; no blank lines before it."""
    from rich.markdown import Markdown

    with console.capture() as captured:
        console.print(Markdown(safe_text(text).strip("\n"), code_theme="ansi_dark"))
    return _LEADING_BLANKS.sub("", captured.get())


class MarkdownStream:
    """Takes the model's text as it streams and prints each complete markdown block rendered (and,
    when `live`, the block still arriving as plain text meanwhile)."""

    def __init__(self, out: TextIO, *, live: bool = False) -> None:
        self._out = out
        self._live = live
        self._console: Any = None  # made (and rich imported) with the first block: start-up stays quick
        self._pending = ""
        self._first = True
        self._preview = SafeStream()
        self._shown = ""  # the plain text of the pending block on the screen (with its separator)
        self._body = 0  # how much of it is the block's own text (not the separator)
        self._tall = False  # the pending block outgrew the screen: it stays as it came

    @property
    def console(self) -> Any:
        if self._console is None:
            self._console = _console(self._out)
        return self._console

    def feed(self, delta: str) -> None:
        self._pending += delta
        complete = False
        while True:
            cut = self._complete_block()
            if cut is None:
                break
            complete = True
            block, self._pending = self._pending[:cut], self._pending[cut:]
            self._print(block)
        if not self._live:
            return
        if complete:  # what follows the blocks just printed starts a new preview
            self._preview = SafeStream()
            self._show(self._pending)
        else:
            self._show(delta)

    def flush(self) -> None:
        """Print what is left (the reply ended, or something else is about to be printed)."""
        block, self._pending = self._pending, ""
        self._print(block)
        self._preview = SafeStream()
        self._first = True

    def drop(self) -> None:
        """The reply starts again (a retry): the block still arriving is erased, not printed."""
        self._erase()
        self._pending, self._shown, self._body, self._tall = "", "", 0, False
        self._preview = SafeStream()

    def _complete_block(self) -> int | None:
        start = 0
        while True:
            at = self._pending.find("\n\n", start)
            if at < 0:
                return None
            if not _fence_open(self._pending[: at + 1]):
                return at + 2
            start = at + 2

    def _show(self, piece: str) -> None:
        """The plain text of the block arriving, as it comes (leading blank lines left out)."""
        text = self._preview.feed(piece)
        if not self._shown:
            text = text.lstrip("\n")
            if not text:
                return
            text = text if self._first else "\n" + text
        self._body += len(text) - (0 if self._shown or self._first else 1)
        self._shown += text
        self._write(text)
        size = shutil.get_terminal_size()
        if rows_above(self._shown, size.columns) >= size.lines - 1:
            self._tall = True

    def _erase(self) -> None:
        if not self._shown or self._tall:
            return
        up = rows_above(self._shown, shutil.get_terminal_size().columns)
        self._write((f"\x1b[{up}A" if up else "") + "\r\x1b[J")

    def _print(self, block: str) -> None:
        tall, body = self._tall, self._body
        self._erase()
        self._shown, self._body, self._tall = "", 0, False
        if not block.strip():
            return
        if tall:  # its start scrolled away: the rest of it as it came, then a line's end
            rest = safe_text(block.lstrip("\n"))[body:].rstrip("\n")
            self._write(rest + "\n")
            self._first = False
            return
        text = rendered(block, self.console)
        # One blank line between blocks, whatever blank lines rich puts before an element.
        self._write(text if self._first else "\n" + text)
        self._first = False

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()
