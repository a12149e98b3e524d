"""The inputs `bastion audit` reads: shell histories, check requests, session records, transcripts.

Each reader turns one file into calls (tool, arguments, working directory if the record carries
one, and where it came from as FILE:LINE) and problems (FILE:LINE and what is wrong). A reader
never raises on bad content: a line it cannot read is a problem, and the file goes on.

Formats (`--format`, or detected from the first lines of the file):

    lines      a plain file of command lines, one a line; `#` comment lines and blank lines skipped
    bash       bash's history: `#1700000000` timestamp lines are skipped
    zsh        zsh's extended history: `: 1700000000:0;cmd`, `\\` at the end continues a command
    jsonl      `bastion check --jsonl` requests: {"cwd": "/abs", "tool": "bash", "args": {...}}
    bastion    bastion's session files (bastion.agent's writer): each call the model made, from the
               {"type": "message", "message": {"role": "assistant", "calls": [...]}} records and
               a sub-agent's {"type": "task", "event": "message", ...} records, run in the cwd of
               the "session" header (or of the latest "resumed" record)
    claude     Claude Code transcripts: assistant messages with {"type": "tool_use", ...} items
    codex      Codex rollouts: function_call (shell), local_shell_call and apply_patch records

A file is read a line at a time (split at a newline, a carriage return before it dropped), never
whole: what an audit holds grows with the calls it found, not with the file. A line longer than
MAX_LINE is read through in pieces and never held: it is a problem ("longer than 32 MiB, not
read"), and a call in it goes unaudited, said so.
"""

from __future__ import annotations

import io
import itertools
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, NamedTuple

from ..policy import load_json
from ._tools import claude_call, codex_calls

__all__ = ["FORMATS", "MAX_LINE", "Call", "Problem", "detect", "read_calls"]

FORMATS = ("lines", "bash", "zsh", "jsonl", "bastion", "claude", "codex")

_ZSH = re.compile(r": \d+:\d+;")
_BASH_TIME = re.compile(r"#\d+\s*$")
_DETECT_LINES = 50
# The longest line an audit reads (bytes of a file, characters of a text stream): a longer one is
# not held, so one line of a huge tool output cannot take the memory a whole transcript would.
MAX_LINE = 32 << 20


class Call(NamedTuple):
    """One tool call to decide. `cwd` is None when the record does not say where it ran."""

    tool: str
    args: Mapping[str, object]
    where: str
    cwd: str | None = None


class Problem(NamedTuple):
    """A line that could not be read: `where` is FILE:LINE."""

    where: str
    message: str


class _Read(NamedTuple):
    calls: list[Call]
    problems: list[Problem]


class _TooLong(NamedTuple):
    """A line longer than MAX_LINE, read through and dropped: its length."""

    size: int


Line = str | _TooLong


def _lines(stream: IO[bytes] | IO[str]) -> Iterator[Line]:
    """Each line of `stream`, read one at a time: split at a newline, a carriage return before it
    dropped, bytes decoded as UTF-8 (a byte that is not kept as it was); one longer than MAX_LINE
    is read through in pieces and given as its length only."""
    while True:
        raw: bytes | str = stream.readline(MAX_LINE + 1)
        if not raw:
            return
        newline = b"\n" if isinstance(raw, bytes) else "\n"
        whole = raw[-1:] == newline
        if not whole and len(raw) > MAX_LINE:
            size = len(raw)
            while raw and raw[-1:] != newline:
                raw = stream.readline(1 << 20)
                size += len(raw)
            yield _TooLong(size)
            continue
        line = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
        line = line[:-1] if whole else line
        yield line[:-1] if line.endswith("\r") else line


def _too_long(line: _TooLong) -> str:
    return (
        f"longer than {MAX_LINE >> 20} MiB ({line.size:,} characters): not read, so a call in it is "
        "not audited"
    )


def _json_kind(record: object) -> str | None:
    if not isinstance(record, dict):
        return None
    kind = record.get("type")
    message = record.get("message")
    if (kind == "session" and "cwd" in record and "provider" in record) or (
        kind == "message" and isinstance(message, dict) and "role" in message
    ):
        return "bastion"
    if "tool" in record and "cwd" in record and "args" in record and kind is None:
        return "jsonl"
    if kind in ("user", "assistant", "summary", "system") and ("message" in record or "sessionId" in record):
        return "claude"
    codex = ("session_meta", "response_item", "turn_context", "event_msg", "function_call",
             "local_shell_call", "custom_tool_call", "message", "reasoning", "compacted")  # fmt: skip
    if kind in codex or ("id" in record and "timestamp" in record and "instructions" in record):
        return "codex"
    return None


def detect(text: str) -> str:
    """The format of a file's text, from its first lines."""
    return _detect(list(itertools.islice(_lines(io.StringIO(text)), _DETECT_LINES)))


def _detect(head: Iterable[Line]) -> str:
    lines = [line for line in head if isinstance(line, str) and line.strip()]
    if not lines:
        return "lines"
    if lines[0].lstrip().startswith("{"):
        for line in lines:
            try:
                kind = _json_kind(load_json(line))
            except ValueError:
                continue
            if kind is not None:
                return kind
        return "jsonl"
    if any(_ZSH.match(line) for line in lines):
        return "zsh"
    if any(_BASH_TIME.match(line) for line in lines):
        return "bash"
    return "lines"


def _unmetafy(text: str) -> str:
    """zsh writes bytes 0x83-0x9f and a few others as 0x83 then the byte xor 32."""
    raw = text.encode("utf-8", "surrogateescape")
    if 0x83 not in raw:
        return text
    out = bytearray()
    i = 0
    while i < len(raw):
        if raw[i] == 0x83 and i + 1 < len(raw):
            out.append(raw[i + 1] ^ 32)
            i += 2
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


def _text_calls(name: str, lines: Iterable[Line], fmt: str, read: _Read) -> None:
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(lines, 1):
        if isinstance(raw, _TooLong):
            read.problems.append(Problem(f"{name}:{number}", _too_long(raw)))
            continue
        line = raw
        if fmt == "zsh":
            if not pending:
                match = _ZSH.match(line)
                line = line[match.end() :] if match else line
                start = number
            if line.endswith("\\") and not line.endswith("\\\\"):
                pending.append(line[:-1])
                continue
            line = "\n".join([*pending, line]) if pending else line
            pending = []
            line = _unmetafy(line)
        else:
            start = number
            if fmt == "bash" and _BASH_TIME.match(line):
                continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        read.calls.append(Call("bash", {"command": line}, f"{name}:{start}"))
    if pending:
        read.problems.append(Problem(f"{name}:{start}", "the last command ends in a `\\` continuation"))


def _request(record: Mapping[str, object], where: str) -> Call | str:
    cwd = record.get("cwd")
    tool = record.get("tool", "bash")
    args = record.get("args", {})
    if not isinstance(cwd, str) or not cwd.startswith("/"):
        return "`cwd` must be an absolute directory path"
    if not isinstance(tool, str) or not tool:
        return "`tool` must be a tool name"
    if not isinstance(args, dict):
        return "`args` must be a JSON object"
    return Call(tool, args, where, cwd)


def _bastion(record: Mapping[str, object], cwd: str | None, where: str) -> Iterator[Call | str]:
    """The calls of an assistant message record, the agent's or a sub-agent's; other records carry none."""
    message = record.get("message")
    kind = record.get("type")
    if kind == "task":
        kind = record.get("event")
    if kind != "message" or not isinstance(message, dict) or message.get("role") != "assistant":
        return
    calls = message.get("calls", [])
    if not isinstance(calls, list):
        yield "`calls` must be a list"
        return
    for item in calls:
        tool = item.get("name") if isinstance(item, dict) else None
        raw = item.get("arguments") if isinstance(item, dict) else None
        if not isinstance(tool, str) or not tool:
            yield "a call's `name` must be a tool name"
            continue
        try:
            args = load_json(raw or "{}") if isinstance(raw, str) else raw
        except json.JSONDecodeError:
            yield f"the arguments of this {tool} call are not JSON"
            continue
        except ValueError as err:
            yield f"the arguments of this {tool} call cannot be read: {err}"
            continue
        if not isinstance(args, dict):
            yield f"the arguments of this {tool} call are not a JSON object"
            continue
        yield Call(tool, args, where, cwd)


def _bastion_cwd(record: Mapping[str, object]) -> str | None:
    """Where the session ran from here on: its header's cwd, or a resume's."""
    cwd = record.get("cwd")
    if record.get("type") in ("session", "resumed") and isinstance(cwd, str) and cwd.startswith("/"):
        return cwd
    return None


def _claude(record: Mapping[str, object], where: str) -> Iterator[Call | str]:
    message = record.get("message")
    if record.get("type") != "assistant" or not isinstance(message, dict):
        return
    content = message.get("content")
    if not isinstance(content, list):
        return
    cwd = record.get("cwd")
    for item in content:
        if isinstance(item, dict) and item.get("type") == "tool_use":
            found = claude_call(item.get("name"), item.get("input"))
            if isinstance(found, str):
                yield found
            elif found is not None:
                yield Call(found[0], found[1], where, cwd if isinstance(cwd, str) else None)


def _json_calls(name: str, lines: Iterable[Line], fmt: str, read: _Read) -> None:
    codex_cwd: str | None = None
    bastion_cwd: str | None = None
    for number, line in enumerate(lines, 1):
        where = f"{name}:{number}"
        if isinstance(line, _TooLong):
            read.problems.append(Problem(where, _too_long(line)))
            continue
        if not line.strip():
            continue
        try:
            record = load_json(line)
        except ValueError as err:
            read.problems.append(Problem(where, f"not JSON: {err}"))
            continue
        if not isinstance(record, dict):
            read.problems.append(Problem(where, "not a JSON object"))
            continue
        found: list[Call | str | None]
        if fmt == "jsonl":
            found = [_request(record, where)]
        elif fmt == "bastion":
            bastion_cwd = _bastion_cwd(record) or bastion_cwd
            found = list(_bastion(record, bastion_cwd, where))
        elif fmt == "claude":
            found = list(_claude(record, where))
        else:
            codex_cwd = _codex_cwd(record) or codex_cwd
            found = [Call(t, a, where, c or codex_cwd) if isinstance(a, dict) else a
                     for t, a, c in codex_calls(record)]  # fmt: skip
        for item in found:
            if isinstance(item, Call):
                read.calls.append(item)
            elif isinstance(item, str):
                read.problems.append(Problem(where, item))


def _codex_cwd(record: Mapping[str, object]) -> str | None:
    payload = record.get("payload")
    if record.get("type") in ("session_meta", "turn_context") and isinstance(payload, dict):
        cwd = payload.get("cwd")
        return cwd if isinstance(cwd, str) else None
    return None


def read_calls(
    name: str, source: str | IO[bytes] | IO[str], fmt: str | None = None
) -> tuple[list[Call], list[Problem], str]:
    """The calls and problems of one file's text (or of a stream, read a line at a time), and the
    format it was read as (`fmt`, or found in its first lines)."""
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    lines = _lines(io.StringIO(source) if isinstance(source, str) else source)
    head = list(itertools.islice(lines, _DETECT_LINES))
    fmt = fmt or _detect(head)
    read = _Read([], [])
    if fmt in ("lines", "bash", "zsh"):
        _text_calls(name, itertools.chain(head, lines), fmt, read)
    else:
        _json_calls(name, itertools.chain(head, lines), fmt, read)
    return read.calls, read.problems, fmt
