"""Session records as files: the hash chain over their lines, the conversation they rebuild, a torn
last line repaired, a record with a line that is not a JSON object read up to it and repaired.

Each line is one JSON event whose last key, "chain", is the SHA-256 of the previous line's chain and
the line's own text without it: a line edited, removed, inserted or reordered breaks the chain from
there on. The chain has no secret: it finds corruption and careless edits, not a forger who
recomputes it (the record is the user's own file, 0600 in a 0700 directory).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..._files import open_append, open_replacing, read_regular
from ..._safe import redact_data
from ...policy import load_json
from ..runtime import (
    Assistant,
    Message,
    ToolResult,
    User,
    message_from_dict,
    summary_messages,
    work_summary_messages,
)
from ._tree import BRANCH, Branches

__all__ = [
    "CHAIN",
    "Record",
    "Repaired",
    "Verified",
    "at_rest",
    "chained_line",
    "conversation",
    "conversation_at",
    "parse_lines",
    "path_events",
    "read_record",
    "repair_record",
    "repair_torn",
    "verify_record",
]

CHAIN = "chain"


def _link(previous: str, body: str) -> str:
    return hashlib.sha256(f"{previous}\n{body}".encode()).hexdigest()


def _body(event: Mapping[str, Any]) -> str:
    return json.dumps(redact_data(dict(event)), ensure_ascii=True)  # a held key is never written


def chained_line(previous: str, event: Mapping[str, Any]) -> tuple[str, str]:
    """The line to write for `event` after a line whose chain is `previous`, and its own chain."""
    body = _body(event)
    chain = _link(previous, body)
    return body[:-1] + f', "{CHAIN}": "{chain}"}}\n', chain


def at_rest(messages: list[Message]) -> str | None:
    """Why a conversation cannot be continued as it stands (None: it can): it ends with a prompt
    the model never answered, or with a call whose result is not in it."""
    if messages and isinstance(messages[-1], User):
        return "it ends with a prompt the model has not answered"
    answered = {m.call_id for m in messages if isinstance(m, ToolResult)}
    for m in messages:
        if isinstance(m, Assistant) and any(c.id not in answered for c in m.calls):
            return "it ends with a call whose result is not on the path"
    return None


class _Rebuild:
    """The conversation as a record's events leave it, built one event at a time: a `branch` event
    takes the conversation back to the line it continues from (rebuilt from that line's path)."""

    def __init__(self, branches: bool = True) -> None:
        self.messages: list[Message] = []
        self.branches = Branches() if branches else None
        self._events: list[Mapping[str, Any]] = []

    def feed(self, e: Mapping[str, Any]) -> None:
        if self.branches is not None:
            index = len(self._events)
            problem = self.branches.problem(index, e) if e.get("type") == BRANCH else None
            self._events.append(e)
            if problem is not None:  # the line stays the branch's it was on, so the rest line up
                self.branches.feed(index, {"type": "refused"})
                raise ValueError(problem)
            moved = self.branches.feed(index, e)
            if moved is not None:
                self.messages = _replay(self._events[k] for k in self.branches.path(moved))
                why = at_rest(self.messages)
                if why is not None:
                    raise ValueError(f"a branch event continues from line {moved + 1}, but {why}")
                return
        self._one(e)

    def _one(self, e: Mapping[str, Any]) -> None:
        kind = e.get("type")
        if kind == "message":
            message = e.get("message")
            if not isinstance(message, dict):
                raise ValueError("a message event holds no message")
            self.messages.append(message_from_dict(message))
        elif kind == "compaction":
            # `start`: 0 (or absent) the conversation before a prompt, else the first message of a
            # prompt's own work (the prompt just before it is kept).
            replaced, summary, start = e.get("replaced"), e.get("summary"), e.get("start", 0)
            if (
                not isinstance(replaced, int)
                or not isinstance(summary, str)
                or type(start) is not int
                or start < 0
                or not 0 < replaced <= len(self.messages) - start
            ):
                raise ValueError("a compaction event names no summary or more messages than there are")
            new = work_summary_messages(summary) if start else summary_messages(summary)
            self.messages[start : start + replaced] = new
        elif kind == "prompt_withdrawn":
            if not self.messages or not isinstance(self.messages[-1], User):
                raise ValueError("a prompt_withdrawn event follows no prompt")
            self.messages.pop()
        elif kind == "cleared":
            self.messages = []


def _replay(events: Iterable[Mapping[str, Any]]) -> list[Message]:
    """The conversation of a path's events (their `branch` events already followed)."""
    rebuild = _Rebuild(branches=False)
    for e in events:
        if e.get("type") != BRANCH:
            rebuild.feed(e)
    return rebuild.messages


def conversation_at(events: Sequence[Mapping[str, Any]], line: int) -> list[Message]:
    """The conversation as it stood at `line` (from 1) of a record's events, on that line's branch.
    Raises ValueError naming a bad event."""
    branches = Branches()
    for index, e in enumerate(events[:line]):
        if e.get("type") == BRANCH and (problem := branches.problem(index, e)) is not None:
            raise ValueError(problem)
        branches.feed(index, e)
    return _replay(events[k] for k in branches.path(line - 1))


def path_events(events: Sequence[Mapping[str, Any]], line: int) -> list[Mapping[str, Any]]:
    """The events on the path to `line` (from 1), in order, without `branch` events: the lines a
    record of that branch alone would hold."""
    branches = Branches()
    for index, e in enumerate(events[:line]):
        branches.feed(index, e)
    return [events[k] for k in branches.path(line - 1) if events[k].get("type") != BRANCH]


def conversation(events: Iterable[Mapping[str, Any]]) -> list[Message]:
    """The conversation a record leaves: its messages in order, each compaction replacing the
    messages it summarised (before a prompt, or a prompt's own work), a prompt the model never
    answered withdrawn, /clear starting anew (the record keeps them all), and each `branch` event
    going on from the line it names: the conversation of the head. Raises ValueError naming a bad
    event."""
    rebuild = _Rebuild()
    for e in events:
        rebuild.feed(e)
    return rebuild.messages


@dataclass(slots=True)
class Record:
    """A record's events with their line texts (newline removed), read up to the first line that
    is not a JSON object (`unreadable` says why, `after` counts the whole lines after it, not
    read), and its torn last line, if any; `good_bytes` ends the last whole line."""

    events: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    torn: str | None = None
    good_bytes: int = 0
    unreadable: str | None = None
    after: int = 0

    @property
    def line_count(self) -> int:
        """The whole lines of the record, read or not."""
        return len(self.lines) + (0 if self.unreadable is None else 1 + self.after)


def read_record(path: str) -> Record:
    """The record at `path`. A last line without its newline (a crash or a full disk cut it: a
    line is written whole with its newline) is `torn`; reading stops at a line that is not a JSON
    object (a flipped bit, a crash's NULs, garbage), which is `unreadable`: never an error here,
    a problem verify reports and repair cuts off."""
    return parse_lines(read_regular(path))


def _why_unreadable(chunk: bytes, err: Exception) -> str:
    nuls = chunk.count(b"\0")
    if nuls:
        return f"not JSON: it holds {nuls} NUL bytes (what a crash can leave)"
    if isinstance(err, UnicodeDecodeError):
        return f"not JSON: byte {err.start + 1} is not UTF-8 (a flipped bit?)"
    if isinstance(err, json.JSONDecodeError):
        return f"not JSON ({err.msg} at byte {err.pos + 1})"
    return str(err)


def parse_lines(data: bytes) -> Record:
    """A record's bytes as read_record reads them."""
    record = Record()
    chunks = data.split(b"\n")
    tail = chunks.pop()  # after the last newline: b"" when the file ends whole
    for number, chunk in enumerate(chunks, 1):
        try:
            text = chunk.decode("utf-8")
            event = load_json(text)
        except ValueError as err:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            record.unreadable = _why_unreadable(chunk, err)
        else:
            if isinstance(event, dict):
                record.events.append(event)
                record.lines.append(text)
                continue
            record.unreadable = "JSON, but not an object"
        record.after = len(chunks) - number
        break
    if tail:
        record.torn = tail.decode("utf-8", "replace")
    record.good_bytes = len(data) - len(tail)
    return record


def repair_torn(path: str) -> str | None:
    """Cut a torn last line off the record (kept beside it in PATH.torn, so nothing is lost);
    the torn text, or None when the record was whole."""
    record = read_record(path)
    if record.torn is None:
        return None
    cut = read_regular(path)[record.good_bytes :]
    with os.fdopen(open_append(path + ".torn"), "ab") as kept:
        kept.write(cut + (b"" if cut.endswith(b"\n") else b"\n"))
    fd = open_append(path)
    try:
        os.ftruncate(fd, record.good_bytes)
    finally:
        os.close(fd)
    return record.torn


def last_chain(record: Record) -> str:
    for e in reversed(record.events):
        if isinstance(e.get(CHAIN), str):
            return str(e[CHAIN])
    return ""


@dataclass(slots=True)
class Verified:
    """What verify found: lines read, lines chained, requests rebuilt, and every problem (empty: good)."""

    lines: int = 0
    chained: int = 0
    requests: int = 0
    problems: list[str] = field(default_factory=list)
    # The first line (from 0) whose chain breaks, that cannot be rebuilt or whose request the
    # record does not rebuild: what a repair cuts from (None: no such line).
    first_bad: int | None = None

    def bad(self, index: int, problem: str) -> None:
        self.problems.append(f"line {index + 1}: {problem}")
        if self.first_bad is None:
            self.first_bad = index


def verify_record(record: Record) -> Verified:
    """Check the chain of every line and rebuild every request the record says was sent."""
    found = Verified(lines=record.line_count)
    previous = ""
    rebuild = _Rebuild()
    for index, event in enumerate(record.events):
        chain = event.get(CHAIN)
        body = {k: v for k, v in event.items() if k != CHAIN}
        if isinstance(chain, str):
            found.chained += 1
            if _link(previous, _body(body)) != chain:
                found.bad(
                    index,
                    "the hash chain breaks (the line was edited, or one before it removed, inserted or "
                    "moved, or two processes wrote the record at once)",
                )
            previous = chain
        try:
            rebuild.feed(body)
        except (ValueError, TypeError) as err:
            found.bad(index, f"the conversation cannot be rebuilt ({err})")
            continue
        if body.get("type") == "request":
            found.requests += 1
            if body.get("messages") != len(rebuild.messages):
                found.bad(
                    index,
                    f"the request sent {body.get('messages')} messages; the record rebuilds "
                    f"{len(rebuild.messages)}",
                )
    if record.unreadable is not None:
        cut = f"; it and the {record.after} lines after it cannot be checked" if record.after else ""
        found.bad(len(record.events), f"{record.unreadable}{cut}")
    if found.chained < len(record.lines):
        found.problems.append(f"{len(record.lines) - found.chained} lines carry no chain")
    if record.torn is not None:
        found.problems.append("the last line is torn (it is repaired when the session is resumed)")
    return found


@dataclass(frozen=True, slots=True)
class Repaired:
    """What a repair did: the lines kept (each chained anew), the lines cut off from the first bad
    one, and where the record as it was is kept."""

    kept: int
    cut: int
    original: str


def _keep_broken(path: str, data: bytes) -> str:
    """Keep `data` in a file of its own beside the record, and name it: PATH.broken, or
    PATH.broken.2, .3 ... when earlier repairs kept theirs. It is written whole to PATH.broken.partial
    (from empty: what a killed repair left there goes) and synced, then linked to the first free
    name (a link never replaces a file) and the partial name removed: a repair killed midway
    leaves no copy part-written, and one copy is never glued to another."""
    partial = path + ".broken.partial"
    with os.fdopen(open_replacing(partial), "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    number = 1
    while True:
        name = path + ".broken" + (f".{number}" if number > 1 else "")
        try:
            os.link(partial, name)
            break
        except FileExistsError:
            number += 1
    os.unlink(partial)
    directory = os.open(os.path.dirname(path) or ".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return name


def repair_record(fd: int, path: str) -> Repaired:
    """Repair the record at `path`, open (and locked) as `fd` for appending: the lines before the
    first that is not a JSON object, whose chain breaks or that cannot be rebuilt stay, each
    chained anew (a line that carried no chain gets one); the rest is cut off. The record as it
    was is kept first in a file of its own (_keep_broken), so nothing is lost. A torn last line is
    cut off first (repair_torn)."""
    repair_torn(path)
    data = read_regular(path)
    record = parse_lines(data)
    found = verify_record(record)
    keep = len(record.events) if found.first_bad is None else found.first_bad
    original = _keep_broken(path, data)
    chain = ""
    lines = []
    for event in record.events[:keep]:
        line, chain = chained_line(chain, {k: v for k, v in event.items() if k != CHAIN})
        lines.append(line)
    out = "".join(lines).encode("utf-8")
    os.ftruncate(fd, 0)
    view = memoryview(out)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)
    return Repaired(keep, record.line_count - keep, original)
