"""The REPL's commands for long sessions: /diff and /undo-turn over the last turn's checkpoint,
/compact [focus] and /context over the conversation's space, /harness over the slots the next turn
runs with (`/harness profile NAME` switches to a profile, whole or not at all)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..._safe import safe_line, safe_text
from ..runtime import AgentError, Compactor, NotShrunk
from ..runtime.harness import Harness, graph_lines
from ..sessions import Change, Checkpoints, UndoRefused

__all__ = ["LONG_COMMANDS", "UNDO_ACK", "UNDO_HEAD"]

# What /undo-turn tells the model (a user message) and the acknowledgement after it, so the next
# prompt follows a reply as any prompt does.
UNDO_HEAD = "[bastion: /undo-turn] "
UNDO_ACK = "Understood: my last turn's changes to those files are undone."


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


def _undone(changes: list[Change]) -> str:
    """The files an undo put back, each with what became of it, for the model."""

    def one(c: Change) -> str:
        if c.before is None:
            return f"{c.name} (removed: the turn created it)"
        if c.after is None:
            return f"{c.name} (restored: the turn deleted it)"
        return f"{c.name} (restored)"

    return ", ".join(one(c) for c in changes)


def _undo(rest: str, agent: Any, session: Any) -> None:
    checkpoints = _checkpoints(agent)
    if checkpoints is None:
        print("bastion: /undo-turn: this session keeps no checkpoints")
        return
    changes = list(checkpoints.last.changes) if checkpoints.last is not None else []
    try:
        names = checkpoints.undo()
    except UndoRefused as err:
        print(safe_line(f"bastion: /undo-turn refused: {err}"))
        return
    except OSError as err:
        print(safe_line(f"bastion: /undo-turn failed part way: {err}"))
        agent.tell(
            f"{UNDO_HEAD}The user ran /undo-turn, which failed part way ({err}): of the files your last "
            f"turn changed ({', '.join(c.name for c in changes)}), some may be back as they were before "
            "it and others not. Read them again before relying on what you last saw of them.",
            UNDO_ACK,
        )
        return
    session.record("undo_turn", files=names)
    # The model is told, or it would go on as if its edits were in place.
    agent.tell(
        f"{UNDO_HEAD}The user ran /undo-turn: every file your last turn changed is back as it was "
        f"before that turn: {_undone(changes)}. Those changes are no longer in place; read a file "
        "again before relying on what you last saw of it.",
        UNDO_ACK,
    )
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
    window = space.window
    print(f"used: {space.used} tokens" + (f" (last request: {space.reported})" if space.reported else ""))
    print(f"window: {window.tokens} ({window.said()})")
    how = "compact_at in your config" if compactor.compact_at else "three quarters of the window"
    trigger = agent.turn_slots().snapshot.slots["trigger"].id
    unasked = "" if trigger == "threshold" else f"; the harness's trigger is {trigger!r}, which decides"
    print(f"compacts at: {space.threshold} ({how}{unasked})")
    if space.used > window.tokens:
        print(
            f"over the window by {space.used - window.tokens} tokens: the next request may be refused; "
            "/compact summarises the conversation, /clear starts anew"
        )
    print(
        f"system {space.system} · tools {space.tools} · turns {space.turns} ({len(agent.messages)} messages)"
    )
    files = agent.instruction_files
    print("instructions: " + (", ".join(files) if files else "none"))


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
