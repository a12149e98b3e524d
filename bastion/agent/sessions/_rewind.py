"""Rewind: the files put back as they were at an earlier entry of the session, where no later edit
touched them.

Every set of changes made to the files (a turn's, an /undo-turn's) is recorded as a `files` event:
{"by": "turn" | "undo", "files": [[NAME, BEFORE, AFTER], ...], "cannot_undo": [...]}, BEFORE and
AFTER the SHA-256 of the bytes (null: absent), the bytes kept by content in the store's objects
(bastion.agent.sessions._objects). Going on from entry L with a rewind takes the `files` events on
the path of the session's head after L (a turn's checkpoint is taken when it ends, after its last
message: the turn entry L stands in counts as before it): a file is put back as the first of them
found it, only
where it holds what the last of them left (the rule /undo-turn follows): one a person or a program
edited since, or whose bytes are not kept any more, is left alone and said. The model is told
which files were put back and which were left alone (`rewind_note`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..._safe import redact
from ...workspace import Workspace
from ._checkpoint import Change, Keep, content
from ._objects import Objects, digest
from ._store import StoreError
from ._tree import Branches

__all__ = ["REWIND_ACK", "Rewound", "file_keeper", "rewind", "rewind_note", "rewind_said"]


def file_keeper(record: Any, objects: Objects) -> Keep:
    """What Checkpoints hands each set of changes to: their bytes kept, a `files` event recorded
    (`record` is Session.record). Bytes the store cannot keep are named all the same: a rewind
    then leaves the file alone, saying so; so are bytes that hold a key bastion holds, never
    written to the store."""

    def kept(data: bytes | None) -> str | None:
        if data is None:
            return None
        text = data.decode("latin-1")  # a key is ASCII: its runs read the same in any byte
        if redact(text) != text:
            return digest(data)  # bytes holding a held key are never kept: a rewind leaves the file
        try:
            return objects.put(data)
        except StoreError:
            return digest(data)

    def keep(changes: Sequence[Change], by: str, cannot_undo: Sequence[str]) -> None:
        files = [[c.name, kept(c.before), kept(c.after)] for c in changes]
        record("files", by=by, files=files, cannot_undo=list(cannot_undo))

    return keep


@dataclass(slots=True)
class Rewound:
    """What a rewind did: the files put back, and those left alone with why."""

    at: int
    restored: list[str] = field(default_factory=list)
    # The `files` event's entries of what it changed: [name, before, after] (digests; None: absent).
    changed: list[list[str | None]] = field(default_factory=list)
    left: list[tuple[str, str]] = field(default_factory=list)


def _wanted(events: Sequence[Mapping[str, Any]], at: int) -> dict[str, tuple[str | None, str | None]]:
    """Each file the head's path changed after entry `at`: (what it held at `at`, what the last
    change left), from the `files` events on that path."""
    branches = Branches()
    for index, event in enumerate(events):
        branches.feed(index, event)
    wanted: dict[str, tuple[str | None, str | None]] = {}
    prompted = False  # a prompt after the entry: the turns from it on are after the entry
    for k in branches.path(len(events) - 1):
        event = events[k]
        if k < at:
            continue
        message = event.get("message")
        if event.get("type") == "message" and isinstance(message, dict) and message.get("role") == "user":
            prompted = True
        if event.get("type") != "files" or not isinstance(event.get("files"), list):
            continue
        if event.get("by") == "turn" and not prompted:
            continue  # the entry's own turn: its checkpoint is taken when it ends, after the entry
        for item in event["files"]:
            name, before, after = item
            first = wanted[name][0] if name in wanted else before
            wanted[str(name)] = (first, after)
    return wanted


def rewind(ws: Workspace, objects: Objects, events: Sequence[Mapping[str, Any]], at: int) -> Rewound:
    """Put the files back as they were at entry `at` (from 1) of the head's path of `events`."""
    done = Rewound(at)
    for name, (target, left) in sorted(_wanted(events, at).items()):
        try:
            now = content(ws, name)
        except OSError as err:
            done.left.append((name, f"it cannot be read ({err})"))
            continue
        if (None if now is None else digest(now)) != left:
            done.left.append((name, "it was edited after the session's last change to it"))
            continue
        data = None if target is None else objects.get(target)
        if target is not None and data is None:
            done.left.append((name, "what it held then is not kept (swept, or it held a key)"))
            continue
        try:
            if data is None:
                ws.remove(name)
            else:
                ws.write(name, data)
        except OSError as err:
            done.left.append((name, f"it cannot be written ({err})"))
            continue
        done.restored.append(name)
        done.changed.append([name, left, target])
    return done


REWIND_HEAD = "[bastion: rewind] "
REWIND_ACK = "Understood: the files are as that note says."


def rewind_note(done: Rewound) -> str:
    """What the model is told of a rewind (a user message, `Agent.tell`)."""
    restored = ", ".join(done.restored) or "none"
    left = "; ".join(f"{name}: {why}" for name, why in done.left)
    also = f" Left alone, as they are now: {left}." if left else ""
    return (
        f"{REWIND_HEAD}The user went back to an earlier point of this conversation and rewound the "
        f"files changed since: put back as they were then: {restored}.{also} Read a file again "
        "before relying on what you saw of it."
    )


def rewind_said(done: Rewound) -> str:
    """What the person is told of a rewind."""
    restored = ", ".join(done.restored) or "no file"
    left = "; ".join(f"{name} ({why})" for name, why in done.left)
    return f"rewound to line {done.at}: put back {restored}" + (f"; left alone: {left}" if left else "")
