"""The REPL's commands for long sessions: /diff and /undo-turn over the last turn's checkpoint."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._checkpoint import Checkpoints, UndoRefused
from ._front import clean

__all__ = ["LONG_COMMANDS"]


def _checkpoints(agent: Any) -> Checkpoints | None:
    found = getattr(agent, "checkpoint", None)
    return found if isinstance(found, Checkpoints) else None


def _diff(rest: str, agent: Any, session: Any) -> None:
    checkpoints = _checkpoints(agent)
    if checkpoints is None:
        print("bastion: /diff: this session keeps no checkpoints")
        return
    # A file's bytes may hold terminal control sequences: shown cleaned, never interpreted.
    print(clean(checkpoints.diff()).rstrip("\n"))


def _undo(rest: str, agent: Any, session: Any) -> None:
    checkpoints = _checkpoints(agent)
    if checkpoints is None:
        print("bastion: /undo-turn: this session keeps no checkpoints")
        return
    try:
        names = checkpoints.undo()
    except UndoRefused as err:
        print(clean(f"bastion: /undo-turn refused: {err}"))
        return
    except OSError as err:
        print(clean(f"bastion: /undo-turn failed part way: {err}"))
        return
    session.record("undo_turn", files=names)
    print(clean("undone: " + ", ".join(names)))


LONG_COMMANDS: dict[str, Callable[[str, Any, Any], None]] = {"/diff": _diff, "/undo-turn": _undo}
