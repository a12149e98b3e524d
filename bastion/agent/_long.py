"""The REPL's commands for long sessions: /diff and /undo-turn over the last turn's checkpoint,
/compact [focus] and /context over the conversation's space, /harness over the slots the next turn
runs with (`/harness profile NAME` switches to a profile, whole or not at all)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._safe import safe_line, safe_text
from ._checkpoint import Checkpoints, UndoRefused
from ._compact import Compactor, NotShrunk
from ._types import AgentError
from .harness import Harness, graph_lines

__all__ = ["LONG_COMMANDS"]


def _checkpoints(agent: Any) -> Checkpoints | None:
    found = getattr(agent, "checkpoint", None)
    return found if isinstance(found, Checkpoints) else None


def _diff(rest: str, agent: Any, session: Any) -> None:
    checkpoints = _checkpoints(agent)
    if checkpoints is None:
        print("bastion: /diff: this session keeps no checkpoints")
        return
    # A file's bytes may hold terminal control sequences: shown visible, never obeyed.
    print(safe_text(checkpoints.diff()).rstrip("\n"))


def _undo(rest: str, agent: Any, session: Any) -> None:
    checkpoints = _checkpoints(agent)
    if checkpoints is None:
        print("bastion: /undo-turn: this session keeps no checkpoints")
        return
    try:
        names = checkpoints.undo()
    except UndoRefused as err:
        print(safe_line(f"bastion: /undo-turn refused: {err}"))
        return
    except OSError as err:
        print(safe_line(f"bastion: /undo-turn failed part way: {err}"))
        return
    session.record("undo_turn", files=names)
    print(safe_line("undone: " + ", ".join(names)))


def _compactor(agent: Any, command: str) -> Compactor | None:
    found = getattr(agent, "compaction", None)
    if not isinstance(found, Compactor):
        print(f"bastion: {command}: this session does not compact")
        return None
    return found


def _compact(rest: str, agent: Any, session: Any) -> None:
    compactor = _compactor(agent, "/compact")
    if compactor is None:
        return
    try:
        done = compactor.compact(agent, len(agent.messages), rest)
    except NotShrunk as err:
        print(safe_line(f"bastion: /compact refused: {err}"))
        return
    except AgentError as err:
        print(safe_line(f"bastion: /compact failed, the conversation is kept: {err}"))
        return
    print(f"compacted: {done.replaced} messages, {done.before_tokens} -> {done.after_tokens} tokens")


def _context(rest: str, agent: Any, session: Any) -> None:
    compactor = _compactor(agent, "/context")
    if compactor is None:
        return
    space = compactor.space(agent)
    print(f"used: {space.used} tokens" + (f" (last request: {space.reported})" if space.reported else ""))
    print(f"window: {space.window if space.window else 'not known'}")
    print(f"compacts at: {space.threshold if space.threshold else 'never (no window, no compact_at)'}")
    print(
        f"system {space.system} · tools {space.tools} · turns {space.turns} ({len(agent.messages)} messages)"
    )


def _harness(rest: str, agent: Any, session: Any) -> None:
    harness = getattr(agent, "harness", None)
    if not isinstance(harness, Harness):
        print("bastion: /harness: this session has no harness")
        return
    words = rest.split()
    if words[:1] == ["profile"] and len(words) == 2:
        if harness.activate_profile(words[1]):
            session.record("profile", name=words[1])
            print(f"profile {words[1]!r} from the next turn on")
        return
    if words:
        print("bastion: /harness takes nothing, or `profile NAME`")
        return
    print("\n".join(graph_lines(harness.snapshot())))


LONG_COMMANDS: dict[str, Callable[[str, Any, Any], None]] = {
    "/diff": _diff,
    "/undo-turn": _undo,
    "/compact": _compact,
    "/context": _context,
    "/harness": _harness,
}
