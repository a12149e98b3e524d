"""Text leaving bastion, made safe in one place: the keys it holds redacted, and whatever a terminal
would obey made visible.

Redaction: every key bastion holds (the provider's, an MCP server's header values), whole or any
run of 8 or more of its secret characters, becomes `***`. A value under 8 characters is not taken
for a key (a local server's placeholder, `none`, `x`): redacting it would blank ordinary words, and
no real key is that short. The prefix every key of its kind starts with (`sk-proj-`, `sk-ant-api03-`,
`sk-or-v1-`, `AIza`...: _PUBLIC) is no secret: it is left where it stands alone (text about keys,
another key of that provider), and before a redacted key (`sk-proj-***`).

Display: escape sequences and C0/C1 controls (NUL included) are shown as `\\x1b`, `\\x00`...,
bidirectional controls (U+202E...), line and paragraph separators as `\\u202e`..., a lone
surrogate (a byte that was not UTF-8) as the byte, `\\xff`; tab stays, and so does a line break
in text (in a line it is shown as `\\n`), and a name that is not plain printable text is quoted as a
JSON string, so it can neither pass for two names nor look like another one.

Every package may import this module; it imports the standard library only.
"""

from __future__ import annotations

import _thread  # the lock alone: threading (weakrefs, its classes) costs a dry-run ~1 ms
import contextlib
import json
import re
from collections.abc import Iterator
from typing import Any, TextIO, TypeVar, cast

__all__ = [
    "REDACTED",
    "SafeStream",
    "held",
    "hold",
    "holding",
    "redact",
    "redact_data",
    "redacting",
    "safe_line",
    "safe_lines",
    "safe_name",
    "safe_text",
]

REDACTED = "***"
RUN = 8  # the shortest run of a key's characters that is redacted (and the shortest key)

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# What a terminal obeys or hides: C0 but tab, newline and carriage return; DEL and C1; the
# bidirectional controls; line and paragraph separators; lone surrogates.
_HIDDEN = f"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}\u2028\u2029\ud800-\udfff"
_IN_TEXT = re.compile(f"[{_HIDDEN}]|\r(?!\n)")
_IN_LINE = re.compile(f"[{_HIDDEN}\n\r]")
_SHORT = {"\n": "\\n", "\r": "\\r"}

T = TypeVar("T")


# The public prefix of a kind of key: OpenAI's (sk-proj-, sk-svcacct-, sk-admin-, sk-None-, sk-),
# Anthropic's (sk-ant-api03-, sk-ant-admin01-...), OpenRouter's (sk-or-v1-), Groq's (gsk_), xAI's
# (xai-), Hugging Face's (hf_), GitHub's (ghp_..., github_pat_), GitLab's (glpat-), Google's (AIza).
_PUBLIC = re.compile(
    r"sk-(?:proj|svcacct|admin|None|or-v\d+|ant-[a-z]+\d*)-|sk-|gsk_|xai-|hf_|gh[pousr]_|github_pat_|glpat-|AIza"
)


def _secret_from(key: str) -> int:
    """Where the secret part of `key` begins: after a public prefix that leaves RUN characters or
    more; else at its start (the whole key is taken for secret)."""
    found = _PUBLIC.match(key)
    return found.end() if found is not None and len(key) - found.end() >= RUN else 0


class _Keys:
    """The keys held, and what finding their runs needs: the runs of RUN characters of each key's
    secret part, and a pattern for stretches of the keys' characters at least RUN long (the only
    places a run can be)."""

    def __init__(self, keys: tuple[str, ...]) -> None:
        self.keys = keys
        self.grams = frozenset(k[i : i + RUN] for k in keys for i in range(_secret_from(k), len(k) - RUN + 1))
        chars = "".join(sorted({c for k in keys for c in k}))
        self.stretch = re.compile(f"[{re.escape(chars)}]{{{RUN},}}") if keys else None
        self.longest = max((len(k) for k in keys), default=0)


_lock = _thread.allocate_lock()
_held = _Keys(())


def hold(secret: str) -> None:
    """From now on, `secret` is redacted wherever text leaves bastion (one under RUN characters is
    not a key: see the module's text)."""
    global _held
    if len(secret) < RUN:
        return
    with _lock:
        if secret not in _held.keys:
            _held = _Keys((*_held.keys, secret))


def held() -> tuple[str, ...]:
    """The keys held now."""
    return _held.keys


@contextlib.contextmanager
def holding() -> Iterator[None]:
    """A run's keys: those held within are let go when it ends (a process runs one; the tests run
    many in one process)."""
    global _held
    before = _held
    try:
        yield
    finally:
        with _lock:
            _held = before


def _covered(segment: str, grams: frozenset[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for i in range(len(segment) - RUN + 1):
        if segment[i : i + RUN] in grams:
            if spans and spans[-1][1] >= i:
                spans[-1] = (spans[-1][0], i + RUN)
            else:
                spans.append((i, i + RUN))
    return spans


def redact(text: str) -> str:
    """`text` with every run of RUN or more characters of a held key's secret part replaced by
    REDACTED."""
    keys = _held
    if keys.stretch is None or len(text) < RUN:
        return text

    def one(match: re.Match[str]) -> str:
        segment = match.group()
        spans = _covered(segment, keys.grams)
        if not spans:
            return segment
        parts, at = [], 0
        for start, end in spans:
            parts += [segment[at:start], REDACTED]
            at = end
        return "".join([*parts, segment[at:]])

    return keys.stretch.sub(one, text)


def redact_data(value: T) -> T:
    """A JSON-like value (dicts, lists, strings...) with every string in it redacted."""
    if _held.stretch is None:
        return value
    return _redacted(value)  # type: ignore[no-any-return]


def _redacted(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {_redacted(k): _redacted(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(v) for v in value]
    return value


def _escape(char: str) -> str:
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as surrogateescape carries it
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """Text for a person or the model: redacted, and every control, escape sequence and
    bidirectional control made visible; tabs and line breaks stay."""
    return _IN_TEXT.sub(lambda m: _escape(m.group()), redact(text))


def safe_line(text: str) -> str:
    """One line for a person: as safe_text, and a line break inside it shown as \\n (or \\r)."""
    return _IN_LINE.sub(lambda m: _escape(m.group()), redact(text))


def safe_name(name: str) -> str:
    """A file's name as a listing shows it: itself when it is plain printable text, else a JSON
    string (`"a\\nb"`), which the model can pass back as it is written."""
    name = redact(name)
    if name.isprintable() and not name.startswith('"'):
        return name
    quoted = json.dumps(name, ensure_ascii=False)
    return "".join(c if c.isprintable() else json.dumps(c)[1:-1] for c in quoted)


class SafeStream:
    """safe_text for text that arrives in pieces (the model's, a command's output as it runs): the
    end of a piece that could be the start of a held key is kept back until the next piece shows
    it is not, or `end` is called."""

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, piece: str) -> str:
        text = self._pending + piece
        keep = _open_tail(text)
        self._pending = text[len(text) - keep :] if keep else ""
        return safe_text(text[: len(text) - keep])

    def end(self) -> str:
        rest, self._pending = self._pending, ""
        return safe_text(rest)


def _open_tail(text: str) -> int:
    """How many of the last characters of `text` may be the start of a key's run (or a carriage
    return whose newline is still to come)."""
    keys = _held
    for n in range(min(len(text), keys.longest), 0, -1):
        tail = text[-n:]
        if any(tail in key for key in keys.keys):
            return n
    return 1 if text.endswith("\r") else 0


class _SafeLines:
    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, line: str) -> int:
        body, end = (line[:-1], "\n") if line.endswith("\n") else (line, "")
        return self._stream.write(safe_line(body) + end)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def safe_lines(stream: TextIO) -> TextIO:
    """`stream` for output written a line at a time (audit, explain, check): each write is one line,
    its final newline kept and everything before it passed through safe_line, so a newline inside a
    value (a name, a recorded command) is shown as \\n, never taken for the next line."""
    return cast(TextIO, _SafeLines(stream))


class _Redacting:
    """A text stream whose every write is redacted; everything else is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def redacting() -> Iterator[None]:
    """Standard output and error redacted for the while: whatever is printed on them, by whom."""
    import sys

    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = cast(TextIO, _Redacting(saved[0])), cast(TextIO, _Redacting(saved[1]))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
