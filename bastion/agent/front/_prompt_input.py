"""-p's prompt from the command line and standard input: `-p -` reads it there; a prompt given
after -p has piped input added after it (`git log -p | bastion -p "review this"`), unless the
answers are read from there (--yes-to stdin); an empty prompt is a usage error."""

from __future__ import annotations

import select
import sys
from typing import TextIO

from ..runtime import UsageError

__all__ = ["STDIN_NOTICE", "read_prompt"]


def _piped(stream: TextIO) -> bool:
    """Whether standard input is something other than a person at a terminal (a pipe or a file)."""
    try:
        return not stream.closed and not stream.isatty()
    except (AttributeError, ValueError):
        return False


# How long -p waits for piped input before it says what it is waiting for.
STDIN_NOTICE = 2.0


def _say_when_waiting(stream: TextIO) -> None:
    """Say so when standard input has nothing to read yet (a pipe left open: `ssh host bastion -p`),
    so a run that seems stuck says what it waits for."""
    try:
        fd = stream.fileno()
        ready, _, _ = select.select([fd], [], [], STDIN_NOTICE)
    except (OSError, ValueError, AttributeError):  # no descriptor (a test's StringIO)
        return
    if not ready:
        sys.stderr.write(
            "bastion: waiting for standard input to add to the prompt "
            "(Ctrl-D ends it; give < /dev/null for none)\n"
        )
        sys.stderr.flush()


def _read_all(stream: TextIO) -> str:
    """Everything on `stream`, bytes that are not UTF-8 replaced (a prompt, never executed)."""
    _say_when_waiting(stream)
    raw = getattr(stream, "buffer", None)
    return raw.read().decode("utf-8", "replace") if raw is not None else stream.read()


def read_prompt(prompt: str, yes_to: str, stdin: TextIO) -> str:
    """-p's prompt: `-` reads it from standard input; a prompt given on the command line has piped
    standard input added after it (`git log -p | bastion -p "review this"`), unless the answers
    are read from there (--yes-to stdin). Raises UsageError for an empty prompt."""
    if prompt == "-":
        if yes_to == "stdin":
            raise UsageError("-p - and --yes-to stdin both read standard input; give the prompt after -p")
        prompt = _read_all(stdin)
        if not prompt.strip():
            raise UsageError(
                "-p needs a prompt (standard input was empty); -p - reads it from standard input"
            )
        return prompt
    if not prompt.strip():
        raise UsageError("-p needs a prompt (it is empty); -p - reads it from standard input")
    if yes_to != "stdin" and _piped(stdin):
        piped = _read_all(stdin)
        if piped.strip():
            return f"{prompt}\n\n{piped}"
    return prompt
