"""Going on from an earlier entry of a session: the `branch` event a resume records, the lines a
fork or a one-branch export takes (bastion.agent.sessions._tree reads the branches).

An entry is a line of the record that a conversation can go on from: the header (the conversation
begun anew) or a `message` line, named by its number as `sessions tree` and `sessions verify` show
it. Going on from an entry is refused, in one line naming it, when the record has no such entry, or
when the conversation there is not at rest (a prompt the model had not answered, a call whose result
came later): nothing is written then.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..runtime import ConfigError, Message
from ._records import CHAIN, at_rest, conversation_at, path_events
from ._tree import BRANCH, Branches

__all__ = ["branch_events", "continue_from", "entry_branches", "fork_events"]


def entry_branches(events: Sequence[Mapping[str, Any]], line: int, what: str, session_id: str) -> Branches:
    """The branches of a record whose line `line` is an entry, or a ConfigError naming it."""
    branches = Branches()
    for index, event in enumerate(events):
        if event.get("type") == BRANCH and branches.problem(index, event) is not None:
            break  # verify names it; the lines before it are the record's tree
        branches.feed(index, event)
    if not 1 <= line <= len(branches.of) or (line != 1 and line - 1 not in branches.messages):
        raise ConfigError(
            f"{what} {line}: session {session_id} has no entry at line {line} "
            f"(`bastion sessions tree {session_id}` lists them)"
        )
    return branches


def continue_from(
    events: Sequence[Mapping[str, Any]], line: int, session_id: str, rewind: bool = False
) -> tuple[dict[str, Any], list[Message]]:
    """The `branch` event that goes on from entry `line`, and the conversation there; a
    ConfigError naming the line when it is no entry or its conversation is not at rest, or, for a
    `rewind`, when it is not on the path to the head (a rewind goes back along it)."""
    branches = entry_branches(events, line, "--at", session_id)
    if rewind and line - 1 not in branches.path(len(branches.of) - 1):
        raise ConfigError(
            f"--rewind: line {line} of session {session_id} is not on the path to its head "
            f"(`bastion sessions tree {session_id}`); a rewind goes back along that path"
        )
    try:
        messages = conversation_at(events, line)
    except (ValueError, KeyError, TypeError) as err:
        raise ConfigError(
            f"--at {line}: session {session_id}: the record cannot be rebuilt ({err})"
        ) from None
    why = at_rest(messages)
    if why is not None:
        raise ConfigError(
            f"--at {line}: session {session_id} cannot go on from line {line}: {why} "
            "(choose a model's answer or the header, line 1)"
        )
    return branches.continuing(line), messages


def _bare(events: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in e.items() if k != CHAIN} for e in events]


def fork_events(
    events: Sequence[Mapping[str, Any]], line: int | None, session_id: str, new_id: str
) -> list[dict[str, Any]]:
    """The lines of a new session forked from `session_id` at entry `line` (None: at the head):
    the path to it, its `branch` events left out, the header renamed and saying where it came from."""
    if not events or events[0].get("type") != "session":
        raise ConfigError(f"fork: session {session_id} has no header line")
    if line is None:
        branches = entry_branches(events, 1, "fork --at", session_id)
        line = branches.last(branches.current) + 1
    else:
        entry_branches(events, line, "fork --at", session_id)
    out = _bare(path_events(events, line))
    out[0]["id"] = new_id
    out[0]["forked_from"] = {"session": session_id, "line": line}
    return out


def branch_events(events: Sequence[Mapping[str, Any]], branch: int, session_id: str) -> list[dict[str, Any]]:
    """The lines of one branch as a record of it alone would hold them (the path to its last line,
    `branch` events left out), or a ConfigError naming a branch the record does not hold."""
    branches = entry_branches(events, 1, "export --branch", session_id)
    if branch not in branches.starts:
        raise ConfigError(
            f"export --branch {branch}: session {session_id} has no branch {branch} "
            f"(`bastion sessions tree {session_id}` lists them)"
        )
    return _bare(path_events(events, branches.last(branch) + 1))
