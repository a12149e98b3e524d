"""Sessions: each run recorded as one JSONL file under $BASTION_HOME/sessions (~/.bastion by default).

Every line is one event: the session's header (with the directory it runs in), each resume (with the
directory it continues in), each request (how many messages it sent), each message added to the
conversation (a prompt, a reply with its calls and usage, a tool result), each verdict with its rule
and source and who answered an ask, each harness component that failed (`slot_failed`).
Keys and headers are never in an event. `bastion audit` reads the calls from the reply messages and
the directory from the header and resumes. The conversation is rebuilt from the message events on
--resume, each `compaction` event (its summary, how many messages it replaced) applied where it
stands. Every line ends with its hash chain (bastion.agent._records); a torn last line is cut off on
resume and reported; a full disk keeps the lines in memory until there is room.
"""

from __future__ import annotations

import abc
import contextlib
import errno
import os
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._files import open_append
from ..policy import Verdict
from ._records import chained_line, conversation, last_chain, read_record, repair_torn
from ._types import (
    Assistant,
    ConfigError,
    Message,
    ToolCall,
    ToolResult,
    Usage,
    User,
    message_to_dict,
)
from .harness import SlotFailure
from .loop import INTERRUPTED, Answer, Events

__all__ = [
    "Recording",
    "Session",
    "SessionInfo",
    "bastion_home",
    "is_session_id",
    "list_sessions",
    "new_session_id",
    "recorded_cwd",
    "session_path",
    "session_rules",
    "sessions_dir",
]

_ID = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9a-f]{6}")


def bastion_home(environ: Mapping[str, str]) -> str:
    return environ.get("BASTION_HOME") or os.path.join(os.path.expanduser("~"), ".bastion")


def is_session_id(text: str) -> bool:
    return _ID.fullmatch(text) is not None


def new_session_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


def sessions_dir(home: str) -> str:
    """The store of records (made 0700 if need be)."""
    return _store(home)


def _store(home: str) -> str:
    path = os.path.join(home, "sessions")
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(home, 0o700)
    os.chmod(path, 0o700)
    return path


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A session as --list and --continue see it: `cwd` is the directory it last ran in (its
    header's, or its last resume's), `written` when its file was last written to."""

    id: str
    created: str
    cwd: str
    first_prompt: str
    written: float = 0.0


def recorded_cwd(events: Sequence[Mapping[str, Any]]) -> str | None:
    """The directory a session last ran in: its last resume's, else its header's."""
    found = None
    for e in events:
        if e.get("type") in ("session", "resumed") and isinstance(e.get("cwd"), str):
            found = str(e["cwd"])
    return found


def session_rules(events: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """The calls allowed for the rest of the session with `a` (tool, canonical arguments), in the
    order they were added, those dropped with /permissions left out."""
    rules: list[tuple[str, str]] = []
    for e in events:
        key = (e.get("tool"), e.get("arguments"))
        if not isinstance(key[0], str) or not isinstance(key[1], str):
            continue
        pair = (key[0], key[1])
        if e.get("type") == "session_rule" and pair not in rules:
            rules.append(pair)
        elif e.get("type") == "session_rule_dropped" and pair in rules:
            rules.remove(pair)
    return rules


def session_profile(events: Sequence[Mapping[str, Any]]) -> str | None:
    """The harness profile last switched to with `/harness profile NAME` (None: never)."""
    found = None
    for e in events:
        if e.get("type") == "profile" and isinstance(e.get("name"), str):
            found = str(e["name"])
    return found


class Recording(Events, abc.ABC):
    """A run's events as record lines: the one place their fields are chosen. `record` writes one
    (a Session to its file; a sub-agent's record nests its lines in the parent session's)."""

    @abc.abstractmethod
    def record(self, event: str, /, **data: Any) -> None: ...

    def request(self, messages: int) -> None:
        self.record("request", messages=messages)

    def message(self, message: Message, usage: Usage | None = None) -> None:
        extra = (
            {"usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}}
            if usage
            else {}
        )
        self.record("message", message=message_to_dict(message), **extra)

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        self.record(
            "verdict",
            call_id=call.id,
            tool=call.name,
            arguments=call.arguments,
            decision=str(verdict.decision),
            reason=verdict.reason,
            rule=verdict.rule,
            source=verdict.source,
            answered_by=answer.by if answer else "rule",
            allowed=answer.allow if answer else None,
            note=answer.note if answer else None,
        )

    def error(self, call: ToolCall, reason: str) -> None:
        self.record("call_error", call_id=call.id, tool=call.name, arguments=call.arguments, reason=reason)

    def slot_failed(self, failure: SlotFailure) -> None:
        self.record("slot_failed", **failure._asdict())


class Session(Recording):
    """An open session file, appended to as the run goes (by one thread at a time: a sub-agent
    records from its own)."""

    def __init__(
        self, path: str, session_id: str, chain: str = "", warn: Callable[[str], None] | None = None
    ) -> None:
        self.path = path
        self.id = session_id
        self._fd = open_append(path)
        self._chain = chain
        self._lock = threading.Lock()
        # Lines a full disk kept out of the file, written (in order) once it has room again.
        self._unwritten: list[str] = []
        self._warn = warn or (lambda text: print(f"bastion: {text}", file=sys.stderr))
        # What a resume restored: the calls allowed with `a` (tool, canonical arguments), and the
        # harness profile last switched to (applied again by whoever loads the harness).
        self.rules: list[tuple[str, str]] = []
        self.profile: str | None = None

    @classmethod
    def create(cls, home: str, cwd: str, provider: str, model: str) -> Session:
        session_id = new_session_id()
        session = cls(os.path.join(_store(home), session_id + ".jsonl"), session_id)
        session.record(
            "session",
            id=session_id,
            cwd=cwd,
            created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            provider=provider,
            model=model,
        )
        return session

    @classmethod
    def resume(
        cls,
        home: str,
        session_id: str,
        cwd: str,
        warn: Callable[[str], None] | None = None,
        *,
        here: bool = True,
    ) -> tuple[Session, list[Message]]:
        """The session and its conversation, continued in `cwd` (recorded: the calls from here on run
        there); a call an abort cut off is answered as interrupted; a prompt the model never
        answered is withdrawn; a torn last line is cut off (kept in PATH.torn) and reported. Unless
        `here`, a session last run in another directory is refused, naming it."""
        path = session_path(home, session_id, "--resume")
        if not here:
            where = recorded_cwd(read_record(path).events)
            if where is not None and where != cwd:
                raise ConfigError(
                    f"--resume: session {session_id} ran in {where}; cd there to resume it, "
                    f"or add --here to continue it in {cwd}"
                )
        try:
            torn = repair_torn(path)
        except OSError as err:
            raise ConfigError(f"--resume: {path}: the torn last line cannot be cut off ({err})") from None
        record = read_record(path)
        try:
            messages = conversation(record.events)
        except (ValueError, KeyError, TypeError) as err:
            raise ConfigError(f"--resume: {path}: the record cannot be rebuilt ({err})") from None
        session = cls(path, session_id, last_chain(record), warn)
        session.rules = session_rules(record.events)
        session.profile = session_profile(record.events)
        if torn is not None:
            session._warn(
                f"session {session_id}: its last line was torn (a crash or a full disk) and is cut off, "
                f"kept in {path}.torn; nothing else was lost: {torn[:80]!r}"
            )
        answered = {m.call_id for m in messages if isinstance(m, ToolResult)}
        for m in list(messages):
            if isinstance(m, Assistant):
                for c in m.calls:
                    if c.id not in answered:
                        cut = ToolResult(c.id, c.name, INTERRUPTED, is_error=True)
                        messages.append(cut)
                        session.message(cut)
        if messages and isinstance(messages[-1], User):
            session.withdrawn(messages.pop())
        session.record("resumed", at=time.strftime("%Y-%m-%dT%H:%M:%S%z"), cwd=cwd)
        return session, messages

    def record(self, event: str, /, **data: Any) -> None:
        with self._lock:
            line, self._chain = chained_line(self._chain, {"type": event, **data})
            self._unwritten.append(line)
            self._write_pending()

    def _write_pending(self) -> None:
        """Write the lines not yet in the file. A full disk cuts back what it half wrote (no line
        is left torn), says so once, and keeps the lines in memory for the next write; the
        conversation goes on."""
        while self._unwritten:
            data = self._unwritten[0].encode("utf-8")
            start = os.lseek(self._fd, 0, os.SEEK_END)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(self._fd, view) :]
            except OSError as err:
                with contextlib.suppress(OSError):
                    os.ftruncate(self._fd, start)
                if err.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
                if len(self._unwritten) == 1:
                    self._warn(
                        f"session {self.id}: no space left to record it ({err.strerror}); the "
                        "conversation goes on in memory and is written when there is room"
                    )
                return
            self._unwritten.pop(0)

    def withdrawn(self, message: Message) -> None:
        self.record("prompt_withdrawn", reason="the model never answered it")

    def cleared(self) -> None:
        self.record("cleared")

    def close(self) -> None:
        if self._unwritten:
            self._warn(f"session {self.id}: {len(self._unwritten)} events could not be recorded (no space)")
        os.close(self._fd)


def session_path(home: str, session_id: str, what: str) -> str:
    """The record of a session ID, or a ConfigError saying what is wrong (`what` names the asker)."""
    if not _ID.fullmatch(session_id):
        raise ConfigError(f"{what}: {session_id!r} is not a session ID (see --list)")
    path = os.path.join(_store(home), session_id + ".jsonl")
    if not os.path.isfile(path):
        raise ConfigError(f"{what}: no session {session_id} in {os.path.dirname(path)}")
    return path


def _events(path: str) -> list[dict[str, Any]]:
    """The record's events, a torn last line left out (it is repaired when resumed)."""
    return read_record(path).events


def list_sessions(home: str, cwd: str) -> list[SessionInfo]:
    """Sessions last run in `cwd` that hold a prompt, least recently written first."""
    store = os.path.join(home, "sessions")
    if not os.path.isdir(store):
        return []
    found = []
    for name in sorted(os.listdir(store)):
        if not name.endswith(".jsonl") or not _ID.fullmatch(name[:-6]):
            continue
        path = os.path.join(store, name)
        try:
            events = _events(path)
            written = os.stat(path).st_mtime
        except (ConfigError, OSError):
            continue
        if not events or events[0].get("type") != "session" or recorded_cwd(events) != cwd:
            continue
        first = next(
            (
                e["message"].get("text", "")
                for e in events
                if e.get("type") == "message"
                and isinstance(e.get("message"), dict)
                and e["message"].get("role") == "user"
            ),
            "",
        )
        if not isinstance(first, str) or not first.strip():
            continue
        found.append(SessionInfo(name[:-6], str(events[0].get("created", "")), cwd, first, written))
    return sorted(found, key=lambda info: (info.written, info.id))
