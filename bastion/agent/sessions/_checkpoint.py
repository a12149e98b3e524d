"""Per-turn checkpoints: what one prompt's write and edit calls and approved bash lines changed,
shown as a diff and undone exactly.

Before a write or edit runs, the prior content of the file it names is kept (or that it was absent).
Before an approved bash line runs (asked and allowed, or allowed by a rule the user wrote: a line
the shipped rules allow is the analyzer's read-only plan), every regular file of the workspace
(outside .git) is kept, within SNAPSHOT_FILES and SNAPSHOT_BYTES; over them, the turn says "cannot
undo this bash line" and /undo-turn refuses rather than restore half of it. When the turn ends, each
file is read again: what differs is the turn's change (before, after).

/undo-turn puts every changed file back as it was, or removes what the turn created, and only
if every one of them is still as the turn left it: a file changed since (by the user or a later
command) refuses the whole undo, naming it, so nobody's later work is overwritten. Every read and
write goes through the Workspace, whose names never follow a link (design rule 7): a link swapped
in on the way is refused, never followed out of the workspace.
"""

from __future__ import annotations

import difflib
import hashlib
import stat
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from ..._errors import BastionError
from ...workspace import Workspace, resolve

__all__ = [
    "SNAPSHOT_BYTES",
    "SNAPSHOT_FILES",
    "Change",
    "Checkpoints",
    "Keep",
    "Turn",
    "UndoRefused",
    "content",
]

SNAPSHOT_FILES = 5_000
SNAPSHOT_BYTES = 32 * 1024 * 1024
# A file a write or edit names is kept whole up to this size; bigger, the turn cannot be undone.
FILE_BYTES = 16 * 1024 * 1024
_SKIP = frozenset({".git"})


class UndoRefused(BastionError):
    """An undo that would overwrite something the turn did not leave, or that cannot be done whole."""


class Change(NamedTuple):
    """One file the turn changed: its root-relative name and its content before and after
    (None: absent)."""

    name: str
    before: bytes | None
    after: bytes | None


class _TooBig(Exception):
    pass


def _digest(data: bytes | None) -> str:
    return "absent" if data is None else hashlib.sha256(data).hexdigest()


@dataclass(slots=True)
class Turn:
    """A finished turn: its changes, and the bash lines it could not snapshot."""

    changes: list[Change] = field(default_factory=list)
    cannot_undo: list[str] = field(default_factory=list)
    after_hashes: dict[str, str] = field(default_factory=dict)


# What is told of each set of changes made (a turn's, an undo's): the changes, who made them ("turn",
# "undo"), and what of the turn could not be kept: the session records them (a rewind reads them).
Keep = Callable[[Sequence[Change], str, Sequence[str]], None]


class Checkpoints:
    """The checkpoint of the turn running and of the last one finished, over one workspace; every
    turn's and undo's changes are also handed to `keep` (the session's record of them)."""

    def __init__(
        self,
        ws: Workspace,
        *,
        max_files: int = SNAPSHOT_FILES,
        max_bytes: int = SNAPSHOT_BYTES,
        keep: Keep | None = None,
    ) -> None:
        self.ws = ws
        self.keep = keep
        self.max_files = max_files
        self.max_bytes = max_bytes
        self.last: Turn | None = None
        self._before: dict[str, bytes | None] = {}
        self._walked = False
        self._cannot: list[str] = []

    # The loop's hooks.

    def begin(self) -> None:
        self._before, self._walked, self._cannot = {}, False, []

    def before(self, tool: str, args: Mapping[str, object], approved: bool) -> None:
        """Keep what the call could change, before it runs; never raises (a checkpoint that cannot
        be taken is a turn that cannot be undone, said so)."""
        try:
            if tool in ("write", "edit"):
                self._keep_named(tool, args)
            elif tool == "bash" and approved:
                self._keep_all(str(args.get("command", "")))
        except Exception as err:
            self._cannot.append(f"{tool}: the checkpoint could not be taken ({err})")

    def end(self) -> None:
        turn = Turn(cannot_undo=list(self._cannot))
        names = set(self._before)
        if self._walked:
            try:
                names |= set(self._files())
            except _TooBig:
                turn.cannot_undo.append(
                    f"the turn's bash lines left the workspace over {self.max_files} files or "
                    f"{self.max_bytes} bytes: what they created is not known"
                )
            except OSError as err:
                turn.cannot_undo.append(f"the workspace could not be listed after the turn ({err})")
        for name in sorted(names):
            before = self._before.get(name)
            try:
                after = self._content(name)
            except OSError as err:
                turn.cannot_undo.append(f"{name} cannot be read back ({err})")
                continue
            if after != before:
                turn.changes.append(Change(name, before, after))
                turn.after_hashes[name] = _digest(after)
        self.last = turn
        self._before = {}
        if self.keep is not None and (turn.changes or turn.cannot_undo):
            self.keep(turn.changes, "turn", turn.cannot_undo)

    # What the REPL shows and does.

    def diff(self) -> str:
        if self.last is None:
            return "no turn has run yet"
        parts = [f"cannot undo: {why}\n" for why in self.last.cannot_undo]
        for c in self.last.changes:
            parts.append(_unified(c))
        return "".join(parts) or "the last turn changed no file"

    def undo(self) -> list[str]:
        """Restore the last turn's changes; the names restored. Raises UndoRefused, touching nothing."""
        turn = self.last
        if turn is None or not (turn.changes or turn.cannot_undo):
            raise UndoRefused("the last turn changed no file")
        if turn.cannot_undo:
            raise UndoRefused(f"cannot undo this turn whole: {turn.cannot_undo[0]}")
        for c in turn.changes:
            try:
                now = _digest(self._content(c.name))
            except OSError as err:
                raise UndoRefused(f"{c.name} cannot be checked ({err}); nothing was undone") from None
            if now != turn.after_hashes[c.name]:
                raise UndoRefused(f"{c.name} changed since the turn ended; nothing was undone")
        done: list[Change] = []
        try:
            for c in turn.changes:
                if c.before is None:
                    self.ws.remove(c.name)
                else:
                    self.ws.write(c.name, c.before)
                done.append(Change(c.name, c.after, c.before))
        finally:
            if self.keep is not None and done:
                self.keep(done, "undo", [])
        self.last = None
        return [c.name for c in turn.changes]

    # Reading the workspace.

    def _keep_named(self, tool: str, args: Mapping[str, object]) -> None:
        raw = args.get("path")
        if not isinstance(raw, str) or not raw:
            return  # the tool refuses it and writes nothing
        r = resolve(self.ws, ".", raw)
        if not r.ok:
            return  # outside the workspace: the tool refuses it
        if r.real not in self._before:
            self._before[r.real] = self._content(r.real)

    def _keep_all(self, line: str) -> None:
        try:
            found = list(self._files())
        except _TooBig:
            self._cannot.append(
                f"cannot undo this bash line: {line!r} (the workspace is over {self.max_files} files "
                f"or {self.max_bytes} bytes)"
            )
            return
        for name in found:
            if name not in self._before:
                self._before[name] = self.ws.read(name, FILE_BYTES + 1)
        self._walked = True

    def _content(self, name: str) -> bytes | None:
        return content(self.ws, name)

    def _files(self) -> Iterator[str]:
        """Every regular file below the root (links and .git skipped); _TooBig past the bounds."""
        count = total = 0
        stack = ["."]
        while stack:
            folder = stack.pop()
            for entry in self.ws.readdir(folder):
                name = entry if folder == "." else f"{folder}/{entry}"
                st = self.ws.lstat(name)
                if stat.S_ISDIR(st.st_mode):
                    if entry not in _SKIP:
                        stack.append(name)
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                count, total = count + 1, total + st.st_size
                if count > self.max_files or total > self.max_bytes or st.st_size > FILE_BYTES:
                    raise _TooBig
                yield name


def content(ws: Workspace, name: str) -> bytes | None:
    """The file's bytes, None when absent; OSError when it is not a regular file or too big."""
    try:
        st = ws.lstat(name)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"{name} is not a regular file")
    data = ws.read(name, FILE_BYTES + 1)
    if len(data) > FILE_BYTES:
        raise OSError(f"{name} is over {FILE_BYTES} bytes")
    return data


def _unified(c: Change) -> str:
    def lines(data: bytes | None) -> list[str] | None:
        if data is None:
            return []
        try:
            return data.decode("utf-8").splitlines(keepends=True)
        except UnicodeDecodeError:
            return None

    old, new = lines(c.before), lines(c.after)
    a = "/dev/null" if c.before is None else f"a/{c.name}"
    b = "/dev/null" if c.after is None else f"b/{c.name}"
    if old is None or new is None:
        return f"--- {a}\n+++ {b}\nBinary file {c.name} changed\n"
    out = []
    for line in difflib.unified_diff(old, new, a, b):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
