"""Sessions: each run recorded as one JSONL file under $BASTION_HOME/sessions (~/.bastion by default).

Every line is one event: the session's header (with the directory it runs in and the process that runs
it), each resume (with the directory it continues in and its process), each request (how many messages
it sent), each message added to the conversation (a prompt, a reply with its calls and usage, a tool
result), each verdict with its rule and source and who answered an ask, each harness component that
failed (`slot_failed`). Keys and headers are never in an event. `bastion audit` reads the calls from
the reply messages and the directory from the header and resumes. The conversation is rebuilt from the
message events on --resume, each `compaction` event (its summary, how many messages it replaced)
applied where it stands. Every line ends with its hash chain (sessions._records); a torn last line
is cut off on resume and reported; a record with a line that is not a JSON object, or whose chain
breaks, is resumed only once repaired (--repair); a full disk keeps the lines in memory until there
is room, and a run's JSON says what never got in. The store and the lock that keeps a record to
one process are bastion.agent.sessions._store.
"""

from __future__ import annotations

import abc
import contextlib
import errno
import os
import secrets
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from ...policy import Verdict
from ..runtime import (
    INTERRUPTED,
    Answer,
    Assistant,
    ConfigError,
    Events,
    Message,
    ToolCall,
    ToolResult,
    Usage,
    User,
    message_to_dict,
)
from ..runtime.harness import SlotFailure
from ._branching import continue_from
from ._recorded import recorded_cwd, recorded_workspace, session_profile, session_rules
from ._records import (
    chained_line,
    conversation,
    last_chain,
    read_record,
    repair_record,
    repair_torn,
    verify_record,
)
from ._store import StoreError, open_locked, session_path, sessions_dir

__all__ = [
    "Recording",
    "Session",
    "new_session_id",
]


def new_session_id() -> str:
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"


class Recording(Events, abc.ABC):
    """A run's events as record lines: the one place their fields are chosen. `record` writes one
    (a Session to its file; a sub-agent's record nests its lines in the parent session's)."""

    @abc.abstractmethod
    def record(self, event: str, /, **data: Any) -> None: ...

    def request(self, messages: int) -> None:
        self.record("request", messages=messages)

    def compaction(self, summary: str, replaced: int, focus: str, start: int) -> None:
        """A compaction: its summary, how many messages it replaced, its focus, where it started."""
        self.record("compaction", summary=summary, replaced=replaced, focus=focus, start=start)

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
            rule=verdict.rule.text if verdict.rule is not None else None,
            source=verdict.source.tag if verdict.source is not None else None,
            answered_by=answer.by if answer else "rule",
            allowed=answer.allow if answer else None,
            note=answer.note if answer else None,
        )

    def error(self, call: ToolCall, reason: str) -> None:
        self.record("call_error", call_id=call.id, tool=call.name, arguments=call.arguments, reason=reason)

    def slot_failed(self, failure: SlotFailure) -> None:
        self.record("slot_failed", **failure._asdict())


# What a run's JSON says of its record (outcome.warnings): none was made, or it misses events.
NOT_RECORDED, INCOMPLETE = "session_not_recorded", "session_incomplete"


class Session(Recording):
    """An open, locked session file, appended to as the run goes (by one thread at a time: a
    sub-agent records from its own); or, when the store cannot be written, a session that records
    nothing (`unrecorded`). `warnings` are what a script is told of its record: (kind, words)."""

    def __init__(
        self,
        path: str | None,
        session_id: str,
        fd: int | None,
        chain: str = "",
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.path = path
        self.id = session_id
        self._fd = fd
        self._chain = chain
        self._lock = threading.Lock()
        # Lines the disk kept out of the file (full, or failing), written in order once it takes them.
        self._unwritten: list[str] = []
        self._failure = ""
        self._warn = warn or (lambda text: print(f"bastion: {text}", file=sys.stderr))
        self.warnings: list[tuple[str, str]] = []
        # What a resume restored: the calls allowed with `a` (tool, canonical arguments), and the
        # harness profile last switched to (applied again by whoever loads the harness).
        self.rules: list[tuple[str, str]] = []
        self.profile: str | None = None
        # What a resume with a rewind went back from: the record as it was, and the entry.
        self.branched: tuple[list[dict[str, Any]], int] | None = None

    @property
    def recorded(self) -> bool:
        return self.path is not None

    @classmethod
    def unrecorded(cls, problem: str, warn: Callable[[str], None] | None = None) -> Session:
        """A session that records nothing, because of `problem` (said once, here)."""
        session = cls(None, "", None, warn=warn)
        text = f"{problem}; this session runs unrecorded (it cannot be resumed)"
        session.warnings.append((NOT_RECORDED, text))
        session._warn(text)
        return session

    @classmethod
    def create(cls, home: str, cwd: str, provider: str, model: str) -> Session:
        """A new session's record, made and locked; a StoreError when the store cannot hold it."""
        session_id = new_session_id()
        path = os.path.join(sessions_dir(home), session_id + ".jsonl")
        session = cls(path, session_id, open_locked(path, session_id, "session"))
        session.record(
            "session",
            id=session_id,
            cwd=cwd,
            created=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            provider=provider,
            model=model,
            pid=os.getpid(),
        )
        return session

    @classmethod
    def open(
        cls,
        home: str,
        cwd: str,
        provider: str,
        model: str,
        resume: str | None = None,
        *,
        here: bool = False,
        repair: bool = False,
        workspace: Callable[[dict[str, Any] | None], None] | None = None,
        at: int | None = None,
        rewind: bool = False,
    ) -> tuple[Session, list[Message]]:
        """The session `resume` names, continued (`Session.resume`, from entry `at` if given), else
        a new one with an empty conversation: unrecorded, said once, where the store cannot hold it
        (the run goes on)."""
        if resume:
            return cls.resume(
                home, resume, cwd, here=here, repair=repair, workspace=workspace, at=at, rewind=rewind
            )
        try:
            return cls.create(home, cwd, provider, model), []
        except StoreError as err:
            return cls.unrecorded(str(err)), []

    @classmethod
    def resume(
        cls,
        home: str,
        session_id: str,
        cwd: str,
        warn: Callable[[str], None] | None = None,
        *,
        here: bool = True,
        repair: bool = False,
        workspace: Callable[[dict[str, Any] | None], None] | None = None,
        at: int | None = None,
        rewind: bool = False,
    ) -> tuple[Session, list[Message]]:
        """The session and its conversation, continued in `cwd` (recorded: the calls from here on run
        there); its record locked for this process (one in use by another is refused, naming it); a
        call an abort cut off is answered as interrupted; a prompt the model never answered is
        withdrawn; a torn last line is cut off (kept in PATH.torn) and reported. Unless `here`, a
        session last run in another directory is refused, naming it. A record `sessions verify`
        finds broken is refused, saying how to repair it, unless `repair` (then it is repaired).
        `workspace` is given where the session's tools last acted (`recorded_workspace`) and may
        refuse it (a ConfigError) before anything is recorded. `at` (a line of the record, from 1:
        its header or a message) goes on from that entry on a branch of its own, recorded as a
        `branch` event (bastion.agent.sessions._branching): the conversation is the path to it;
        with `rewind`, `branched` keeps the record as it was and the entry, for the files' rewind."""
        path = session_path(home, session_id, "--resume", write=True)
        fd = open_locked(path, session_id, "--resume")
        try:
            return cls._resumed(path, session_id, fd, cwd, warn, here, repair, workspace, at, rewind)
        except BaseException:
            os.close(fd)
            raise

    @classmethod
    def _resumed(
        cls,
        path: str,
        session_id: str,
        fd: int,
        cwd: str,
        warn: Callable[[str], None] | None,
        here: bool,
        repair: bool,
        workspace: Callable[[dict[str, Any] | None], None] | None = None,
        at: int | None = None,
        rewind: bool = False,
    ) -> tuple[Session, list[Message]]:
        if workspace is not None:
            workspace(recorded_workspace(read_record(path).events))
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
        found = verify_record(record)
        repaired = None
        if found.problems and not repair:
            raise ConfigError(
                f"--resume: session {session_id}: its record is broken ({found.problems[0]}; "
                f"`bastion sessions verify {session_id}` lists every problem); add --repair to keep "
                "what verifies (the lines before the first that breaks, chained anew) and go on, or run "
                f"`bastion sessions repair {session_id}` (either way the record as it was is kept beside "
                f"it, in {path}.broken or, after an earlier repair, .broken.2 ...)"
            )
        if found.problems:
            repaired = repair_record(fd, path)
            record = read_record(path)
        branch = None
        if at is not None:  # refused, in one line naming it, before anything is written
            branch, messages = continue_from(record.events, at, session_id, rewind)
        else:
            try:
                messages = conversation(record.events)
            except (ValueError, KeyError, TypeError) as err:
                raise ConfigError(f"--resume: {path}: the record cannot be rebuilt ({err})") from None
        session = cls(path, session_id, fd, last_chain(record), warn)
        session.rules = session_rules(record.events)
        session.profile = session_profile(record.events)
        if torn is not None:
            session._warn(
                f"session {session_id}: its last line was torn (a crash or a full disk) and is cut off, "
                f"kept in {path}.torn; nothing else was lost: {torn[:80]!r}"
            )
        if repaired is not None:
            session._warn(
                f"session {session_id}: repaired: {repaired.kept} lines kept, {repaired.cut} cut off "
                f"(the record as it was is in {repaired.original})"
            )
        if branch is not None:
            session.branched = (record.events, at) if rewind and at is not None else None
            session.record(str(branch.pop("type")), **branch)
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
        session.record("resumed", at=time.strftime("%Y-%m-%dT%H:%M:%S%z"), cwd=cwd, pid=os.getpid())
        return session, messages

    def record(self, event: str, /, **data: Any) -> None:
        if self._fd is None:
            return
        with self._lock:
            line, self._chain = chained_line(self._chain, {"type": event, **data})
            self._unwritten.append(line)
            self._write_pending()

    def _write_pending(self) -> None:
        """Write the lines not yet in the file. A disk that refuses a line (full, or failing) has
        what it half wrote cut back (no line is left torn), is said once, and the lines wait in
        memory for the next write; the conversation goes on."""
        assert self._fd is not None
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
                if len(self._unwritten) == 1:
                    room = "no space left" if err.errno in (errno.ENOSPC, errno.EDQUOT) else "the disk failed"
                    self._warn(
                        f"session {self.id}: {room} to record it ({err.strerror}); the "
                        "conversation goes on in memory and is written when there is room"
                    )
                self._failure = err.strerror or str(err)
                return
            self._unwritten.pop(0)

    def withdrawn(self, message: Message) -> None:
        self.record("prompt_withdrawn", reason="the model never answered it")

    def cleared(self) -> None:
        self.record("cleared")

    def close(self) -> None:
        """Write what waits (the disk may have room again), say what could not be, and let the
        record go (its lock with it)."""
        if self._fd is None:
            return
        with self._lock:
            if self._unwritten:
                self._write_pending()
            if self._unwritten:
                text = (
                    f"session {self.id}: {len(self._unwritten)} events could not be recorded "
                    f"({self._failure}); its record ends before them"
                )
                self.warnings.append((INCOMPLETE, text))
                self._warn(text)
            os.close(self._fd)
            self._fd = None
