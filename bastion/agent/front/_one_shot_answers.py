"""Where -p's questions are answered (--yes-to):

- `ask` (the default): on standard input when it is a terminal; when it is not (the prompt or
  input was piped in: `git log -p | bastion -p "review this"`), on the controlling terminal
  (/dev/tty, opened for each question and closed after it), as Claude Code and Aider ask. A
  process with no controlling terminal (CI, a daemon) refuses the question and says why in one line.
- `stdin`: each answer a line of piped standard input.
- `none`: every question refused.

An answer is read as a line and goes nowhere else (one-shot runs keep no input history).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

from ._colour import colour_for
from ._front import Asker

__all__ = ["NO_TERMINAL", "TERMINAL", "one_shot_answerer"]

# The controlling terminal of the process, whatever its standard streams are.
TERMINAL = "/dev/tty"
NO_TERMINAL = "no terminal to ask on: use --yes-to stdin or --yes-to none"


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _open_terminal() -> int | None:
    """The controlling terminal, open for reading and writing; None when the process has none."""
    try:
        return os.open(TERMINAL, os.O_RDWR)
    except OSError:  # ENXIO: no controlling terminal
        return None


def _write_all(fd: int, text: str) -> None:
    data = text.encode("utf-8", "replace")
    while data:
        data = data[os.write(fd, data) :]


def _read_line(fd: int) -> str | None:
    """One line from the terminal (its line discipline hands it over whole); None at Ctrl-D."""
    got = b""
    while not got.endswith(b"\n"):
        chunk = os.read(fd, 1024)
        if not chunk:
            break
        got += chunk
    return got.decode("utf-8", "replace") if got else None


class _TerminalQuestions:
    """A question's text and its answer on the controlling terminal; without one, the text goes to
    `err` and the question is refused with NO_TERMINAL."""

    def __init__(self, err: TextIO) -> None:
        self.err = err

    def write(self, text: str) -> None:
        fd = _open_terminal()
        if fd is None:
            self.err.write(text)
            self.err.flush()
            return
        try:
            _write_all(fd, text)
        finally:
            os.close(fd)

    def read(self, prompt: str) -> str | None:
        fd = _open_terminal()
        if fd is None:
            self.err.write(f"{prompt}n ({NO_TERMINAL})\n")
            self.err.flush()
            return None
        try:
            _write_all(fd, prompt)
            return _read_line(fd)
        finally:
            os.close(fd)


class _StreamQuestions:
    """A question's text on `err`, its answer a line of standard input."""

    def __init__(self, stdin: TextIO, err: TextIO) -> None:
        self.stdin = stdin
        self.err = err

    def write(self, text: str) -> None:
        self.err.write(text)
        self.err.flush()

    def read(self, prompt: str) -> str | None:
        self.write(prompt)
        line = self.stdin.readline()
        return line if line else None


def one_shot_answerer(yes_to: str, stdin: TextIO, err: TextIO, cwd: str, environ: Mapping[str, str]) -> Asker:
    """The Asker of a -p run for --yes-to `yes_to` ("ask", "stdin" or "none")."""
    on_terminal = yes_to == "ask" and not _is_terminal(stdin)
    questions = _TerminalQuestions(err) if on_terminal else _StreamQuestions(stdin, err)
    return Asker(questions.read, questions.write, cwd, colour_for(err, environ), refuse_all=yes_to == "none")
