"""`bastion sessions list | tree ID | fork ID | verify ID | repair ID | export ID FILE | import FILE |
gc --older-than AGE`.

list shows this directory's sessions with a prompt, a damaged one marked (`bastion --list` is the
same command, its alias beside `--resume` and `--continue`), then the damaged records that do not
say where they ran; tree prints the session's branches (bastion.agent.sessions._tree); fork writes
a new session holding the path to the head or to an entry (--at LINE); verify checks that every
line is a JSON object, the record's hash chain, and rebuilds every request it says was sent, on
every branch; repair cuts a record verify finds broken back to its last good line, each line kept
chained anew (the record as it was is kept first in a file of its own, ID.jsonl.broken, or
.broken.2 ... after earlier repairs: nothing is lost), so it can be resumed; export writes the
record as one portable JSONL (the directories made relative to the session's own, the chain made
anew; every branch, or `--branch N` alone as a linear record); import takes such a file into this
directory as a new session (its chain checked first: a file edited on the way is refused, naming
the line); gc removes the records not written to for longer than AGE (30d, 12h), leaving those in
use, and the files' checkpoints (bastion.agent.sessions._objects) no record left names. repair
and gc never touch a record a running session holds (its lock, bastion.agent.sessions._store).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._files import open_regular
from ..._safe import safe_line
from ..runtime import ConfigError
from ._branching import branch_events, fork_events
from ._objects import Objects
from ._recorded import recorded_cwd
from ._records import CHAIN, chained_line, read_record, repair_record, verify_record
from ._session import new_session_id
from ._store import SESSION_ID, bastion_home, open_locked, session_path, sessions_dir
from ._tree import read_tree, tree_lines

__all__ = ["SessionInfo", "list_here", "list_sessions", "sessions_main"]

_AGE = re.compile(r"([0-9]{1,6})([dh])")
# A session's files: its record, its torn lines, each repair's copy of the record as it was, and
# the copy a killed repair left part-written.
_SESSION_FILE = re.compile(rf"({SESSION_ID.pattern})\.jsonl(?:\.torn|\.broken(?:\.[0-9]+|\.partial)?)?")
_DIRECTORY_EVENTS = ("session", "resumed")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="bastion sessions", description="Check, move and clean session records.")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="this directory's sessions with a prompt: ID, time, first prompt (or --list)")
    sub.add_parser("verify", help="check every line, the hash chain, and rebuild every request").add_argument(
        "id"
    )
    sub.add_parser(
        "repair",
        help="cut a broken record back to its last good line (the old one kept: ID.jsonl.broken[.N])",
    ).add_argument("id")
    sub.add_parser("tree", help="the session's branches, each entry with its line").add_argument("id")
    fork = sub.add_parser("fork", help="a new session going on from this one's head, or from an entry")
    fork.add_argument("id")
    fork.add_argument("--at", type=int, metavar="LINE", help="the entry to fork at (a line `tree` shows)")
    export = sub.add_parser("export", help="write the session as one portable JSONL file")
    export.add_argument("id")
    export.add_argument("file")
    export.add_argument("--branch", type=int, metavar="N", help="only branch N (the path to its end)")
    sub.add_parser("import", help="take an exported session into this directory").add_argument("file")
    gc = sub.add_parser("gc", help="remove sessions not written to for a while")
    gc.add_argument("--older-than", required=True, metavar="AGE", help="30d, 12h")
    return p


def _write_new(path: str, events: Sequence[Mapping[str, Any]]) -> None:
    """Write `events` chained anew to a file that must not exist yet (0600, no link followed)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    chain = ""
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        for event in events:
            line, chain = chained_line(chain, event)
            handle.write(line)


def _moved(events: Sequence[Mapping[str, Any]], where: Any) -> list[dict[str, Any]]:
    """The events with each directory event's cwd passed through `where`, the chain left off."""
    out = []
    for e in events:
        event = {k: v for k, v in e.items() if k != CHAIN}
        if event.get("type") in _DIRECTORY_EVENTS:
            if not isinstance(event.get("cwd"), str):
                raise ConfigError(f"a {event.get('type')} event names no directory")
            event["cwd"] = where(event["cwd"])
        out.append(event)
    return out


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """A session as --list, --continue and the client's picker see it: `cwd` is the directory it
    last ran in (its header's, or its last resume's; "" when its record does not say), `written`
    when its file was last written to, `damaged` the first problem `sessions verify` finds in it
    ("" for none), `turns` how many prompts it holds."""

    id: str
    created: str
    cwd: str
    first_prompt: str
    written: float = 0.0
    damaged: str = ""
    turns: int = 0


def list_sessions(home: str, cwd: str | None) -> list[SessionInfo]:
    """Sessions last run in `cwd` (None: in any directory) that hold a prompt or are damaged
    (`damaged`: the first problem verify finds), least recently written first; then the damaged
    records whose readable lines do not say where they ran (`cwd` ""), so that no record is left
    out unsaid."""
    store = os.path.join(home, "sessions")
    if not os.path.isdir(store):
        return []
    found, unplaced = [], []
    for name in sorted(os.listdir(store)):
        if not name.endswith(".jsonl") or not SESSION_ID.fullmatch(name[:-6]):
            continue
        path = os.path.join(store, name)
        try:
            record = read_record(path)
            written = os.stat(path).st_mtime
        except OSError:
            continue
        events = record.events
        where = recorded_cwd(events)
        if where is None:  # no header or resume can be read (line 1 damaged, or cut off by a repair)
            if events or record.unreadable is not None or record.torn is not None:
                problems = verify_record(record).problems
                said = problems[0] if problems else "no line says where it ran"
                unplaced.append(SessionInfo(name[:-6], "", "", "", written, said))
            continue
        if cwd is not None and where != cwd:
            continue
        problems = verify_record(record).problems
        prompts = [
            e["message"].get("text", "")
            for e in events
            if e.get("type") == "message"
            and isinstance(e.get("message"), dict)
            and e["message"].get("role") == "user"
        ]
        first = prompts[0] if prompts and isinstance(prompts[0], str) else ""
        if not first.strip() and not problems:
            continue
        created = str(events[0].get("created", "")) if events[0].get("type") == "session" else ""
        damaged = problems[0] if problems else ""
        found.append(SessionInfo(name[:-6], created, where, first, written, damaged, len(prompts)))
    return sorted(found, key=lambda info: (info.written, info.id)) + unplaced


def list_here(home: str, cwd: str) -> int:
    """`bastion sessions list` (and `bastion --list`): the sessions last run in `cwd` that hold a
    prompt, least recently written first, a damaged one marked with its first problem; then the
    damaged records that do not say where they ran."""
    found = list_sessions(home, cwd)
    if not any(info.cwd for info in found):
        print(f"no sessions with a prompt in {cwd}")
    for info in found:
        if not info.cwd:
            print(safe_line(f"{info.id}  damaged, its directory unknown: {info.damaged}"))
            continue
        said = f"{info.id}  {info.created}  {info.first_prompt[:60]!r}"
        if info.damaged:
            said += f"  damaged: {info.damaged}"
        print(safe_line(said))
    damaged = next((info.id for info in found if info.damaged), None)
    if damaged is not None:
        print(
            f"(bastion sessions verify {damaged} lists every problem; bastion sessions repair {damaged} "
            "keeps the lines before the first)"
        )
    return 0


def _verify(home: str, session_id: str) -> int:
    found = verify_record(read_record(session_path(home, session_id, "verify", write=False)))
    for problem in found.problems:
        print(f"{session_id}: {problem}")
    verdict = "verified" if not found.problems else "NOT verified"
    counts = f"{found.lines} lines, {found.chained} chained, {found.requests} requests rebuilt"
    print(f"{session_id}: {verdict}: {counts}")
    return 0 if not found.problems else 3


def _repair(home: str, session_id: str) -> int:
    path = session_path(home, session_id, "repair", write=True)
    fd = open_locked(path, session_id, "repair")
    try:
        found = verify_record(read_record(path))
        if not found.problems:
            print(f"{session_id}: verified: nothing to repair")
            return 0
        repaired = repair_record(fd, path)
    finally:
        os.close(fd)
    print(
        f"{session_id}: repaired: {repaired.kept} lines kept, {repaired.cut} cut off; the record as it was "
        f"is in {repaired.original} (bastion --resume {session_id})"
    )
    return 0


def _in_use(path: str) -> bool:
    """Whether a running session holds the record (its lock taken, and let go at once, here)."""
    try:
        fd = open_regular(path, follow=False)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def _tree(home: str, session_id: str) -> int:
    record = read_record(session_path(home, session_id, "tree", write=False))
    for line in tree_lines(read_tree(record.events)):
        print(safe_line(line))
    problems = verify_record(record).problems
    if problems:
        print(f"{session_id}: NOT verified: {problems[0]} (bastion sessions verify {session_id})")
    return 0 if not problems else 3


def _fork(home: str, session_id: str, at: int | None) -> int:
    record = read_record(session_path(home, session_id, "fork", write=False))
    new_id = new_session_id()
    events = fork_events(record.events, at, session_id, new_id)
    _write_new(os.path.join(sessions_dir(home), new_id + ".jsonl"), events)
    line = events[0]["forked_from"]["line"]
    print(f"forked {session_id} at line {line} as session {new_id} (bastion --resume {new_id})")
    return 0


def _export(home: str, session_id: str, target: str, branch: int | None) -> int:
    record = read_record(session_path(home, session_id, "export", write=False))
    if not record.events or record.events[0].get("type") != "session":
        raise ConfigError(f"export: session {session_id} has no header line")
    events = record.events if branch is None else branch_events(record.events, branch, session_id)
    base = str(record.events[0].get("cwd", ""))
    _write_new(target, _moved(events, lambda cwd: os.path.relpath(cwd, base)))
    left = []
    if record.unreadable is not None:
        first = len(record.events) + 1
        left.append(f"lines {first}-{first + record.after} (line {first}: {record.unreadable})")
    if record.torn is not None:
        left.append("its torn last line")
    out = f" ({' and '.join(left)} left out; bastion sessions verify {session_id})" if left else ""
    print(f"exported {session_id} to {target}{out}")
    return 0


def _import(home: str, source: str, cwd: str) -> int:
    try:
        record = read_record(source)
    except OSError as err:
        raise ConfigError(f"import: {source}: {err.strerror or err}") from None
    found = verify_record(record)
    if found.problems:
        raise ConfigError(f"import: {source}: {found.problems[0]}; nothing imported")
    if not record.events or record.events[0].get("type") != "session":
        raise ConfigError(f"import: {source}: the first line is not a session header")
    session_id = new_session_id()
    events = _moved(record.events, lambda rel: os.path.normpath(os.path.join(cwd, rel)))
    events[0]["id"] = session_id
    _write_new(os.path.join(sessions_dir(home), session_id + ".jsonl"), events)
    print(f"imported {source} as session {session_id} (bastion --resume {session_id})")
    return 0


def _named_objects(store: str) -> set[str]:
    """The checkpoints' bytes (bastion.agent.sessions._objects) the records left in `store` name."""
    named: set[str] = set()
    for name in os.listdir(store) if os.path.isdir(store) else []:
        if not (name.endswith(".jsonl") and SESSION_ID.fullmatch(name[:-6])):
            continue
        try:
            events = read_record(os.path.join(store, name)).events
        except OSError:
            continue
        for e in events:
            for item in e.get("files", []) if e.get("type") == "files" else []:
                named.update(d for d in item[1:] if isinstance(d, str))
    return named


def _gc(home: str, age: str) -> int:
    match = _AGE.fullmatch(age)
    if match is None:
        raise ConfigError(f"gc: --older-than {age!r} is not an age like 30d or 12h")
    seconds = int(match.group(1)) * (86400 if match.group(2) == "d" else 3600)
    store = os.path.join(home, "sessions")
    removed, busy = 0, 0
    cutoff = time.time() - seconds
    for name in sorted(os.listdir(store)) if os.path.isdir(store) else []:
        match = _SESSION_FILE.fullmatch(name)
        path = os.path.join(store, name)
        if match is None or not os.path.isfile(path) or os.lstat(path).st_mtime >= cutoff:
            continue
        stem = match.group(1)
        if _in_use(os.path.join(store, stem + ".jsonl")):
            busy += name.endswith(".jsonl")
            continue
        os.unlink(path)
        removed += name.endswith(".jsonl")
    kept = f" ({busy} in use kept)" if busy else ""
    swept = Objects(home).sweep(_named_objects(store), seconds)
    print(
        f"removed {removed} sessions not written to for {age}{kept}, {swept} file checkpoints no record names"
    )
    return 0


def sessions_main(argv: Sequence[str], environ: Mapping[str, str], cwd: str) -> int:
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as exit_:
        return int(exit_.code or 0)
    home = bastion_home(environ)
    try:
        if args.command == "list":
            return list_here(home, cwd)
        if args.command == "verify":
            return _verify(home, args.id)
        if args.command == "repair":
            return _repair(home, args.id)
        if args.command == "export":
            return _export(home, args.id, args.file, args.branch)
        if args.command == "tree":
            return _tree(home, args.id)
        if args.command == "fork":
            return _fork(home, args.id, args.at)
        if args.command == "import":
            return _import(home, args.file, cwd)
        return _gc(home, args.older_than)
    except ConfigError as err:
        print(f"bastion sessions: {err}", file=sys.stderr)
        return 1
    except OSError as err:
        print(
            f"bastion sessions {args.command}: {err.filename or ''}: {err.strerror or err}", file=sys.stderr
        )
        return 1
