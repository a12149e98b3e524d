"""Sessions: each run recorded as one JSONL file under $BASTION_HOME/sessions (~/.bastion by default).

Every line is one event: the session's header (with the directory it runs in), each resume (with the
directory it continues in), each request (how many messages it sent), each message added to the
conversation (a prompt, a reply with its calls and usage, a tool result), each verdict with its rule
and source and who answered an ask. Keys and headers are never in an event. `bastion audit` reads
the calls from the reply messages and the directory from the header and resumes.
The conversation is rebuilt from the message events on --resume.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..policy import Verdict, load_json
from ._compact import summary_messages
from ._types import (
    Assistant,
    ConfigError,
    Message,
    ToolCall,
    ToolResult,
    Usage,
    message_from_dict,
    message_to_dict,
)
from .loop import INTERRUPTED, Answer, Events

__all__ = ["Session", "SessionInfo", "bastion_home", "conversation", "list_sessions"]

_ID = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9a-f]{6}")


def bastion_home(environ: Mapping[str, str]) -> str:
    return environ.get("BASTION_HOME") or os.path.join(os.path.expanduser("~"), ".bastion")


def _store(home: str) -> str:
    path = os.path.join(home, "sessions")
    os.makedirs(path, mode=0o700, exist_ok=True)
    os.chmod(home, 0o700)
    os.chmod(path, 0o700)
    return path


@dataclass(frozen=True, slots=True)
class SessionInfo:
    id: str
    created: str
    cwd: str
    first_prompt: str


class Session(Events):
    """An open session file, appended to as the run goes."""

    def __init__(self, path: str, session_id: str) -> None:
        self.path = path
        self.id = session_id
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        self._file = os.fdopen(fd, "a", encoding="utf-8")

    @classmethod
    def create(cls, home: str, cwd: str, provider: str, model: str) -> Session:
        session_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
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
    def resume(cls, home: str, session_id: str, cwd: str) -> tuple[Session, list[Message]]:
        """The session and its conversation, continued in `cwd` (recorded: the calls from here on run
        there); a call an abort cut off is answered as interrupted."""
        if not _ID.fullmatch(session_id):
            raise ConfigError(f"--resume: {session_id!r} is not a session ID (see --list)")
        path = os.path.join(_store(home), session_id + ".jsonl")
        if not os.path.isfile(path):
            raise ConfigError(f"--resume: no session {session_id} in {os.path.dirname(path)}")
        try:
            messages = conversation(_events(path))
        except (ValueError, KeyError, TypeError) as err:
            raise ConfigError(f"--resume: {path}: the record cannot be rebuilt ({err})") from None
        session = cls(path, session_id)
        answered = {m.call_id for m in messages if isinstance(m, ToolResult)}
        for m in list(messages):
            if isinstance(m, Assistant):
                for c in m.calls:
                    if c.id not in answered:
                        cut = ToolResult(c.id, c.name, INTERRUPTED, is_error=True)
                        messages.append(cut)
                        session.message(cut)
        session.record("resumed", at=time.strftime("%Y-%m-%dT%H:%M:%S%z"), cwd=cwd)
        return session, messages

    def record(self, event: str, /, **data: Any) -> None:
        self._file.write(json.dumps({"type": event, **data}, ensure_ascii=False) + "\n")
        self._file.flush()

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

    def close(self) -> None:
        self._file.close()


def conversation(events: Iterable[Mapping[str, Any]]) -> list[Message]:
    """The conversation a record leaves: its messages in order, each compaction replacing the
    messages it summarised (the record keeps them all). Raises ValueError naming a bad event."""
    messages: list[Message] = []
    for e in events:
        kind = e.get("type")
        if kind == "message":
            messages.append(message_from_dict(e["message"]))
        elif kind == "compaction":
            replaced, summary = e.get("replaced"), e.get("summary")
            if (
                not isinstance(replaced, int)
                or not isinstance(summary, str)
                or not 0 < replaced <= len(messages)
            ):
                raise ValueError("a compaction event names no summary or more messages than there are")
            messages[:replaced] = summary_messages(summary)
    return messages


def _events(path: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            try:
                event = load_json(line)
            except json.JSONDecodeError:
                raise ConfigError(f"{path}: line {number} is not JSON") from None
            except ValueError as err:
                raise ConfigError(f"{path}: line {number}: {err}") from None
            if isinstance(event, dict):
                out.append(event)
    return out


def list_sessions(home: str, cwd: str) -> list[SessionInfo]:
    """Sessions recorded in `cwd`, oldest first."""
    store = os.path.join(home, "sessions")
    if not os.path.isdir(store):
        return []
    found = []
    for name in sorted(os.listdir(store)):
        if not name.endswith(".jsonl") or not _ID.fullmatch(name[:-6]):
            continue
        try:
            events = _events(os.path.join(store, name))
        except (ConfigError, OSError):
            continue
        if not events or events[0].get("type") != "session" or events[0].get("cwd") != cwd:
            continue
        first = next(
            (
                e["message"].get("text", "")
                for e in events
                if e.get("type") == "message" and e["message"].get("role") == "user"
            ),
            "",
        )
        found.append(SessionInfo(name[:-6], str(events[0].get("created", "")), cwd, str(first)))
    return found
