"""The status line, from facts: the provider and the model, the context used of the model's window,
the cost so far (where the provider's prices are known), the sandbox, the policy's mode, and what
was noted during the run (calls denied or refused, lines bastion said); and what the client waits for.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.text import Text

from ...sandbox import landlock_abi
from ...workspace import ExecutorWorkspace
from ..front import Asker, Built
from ..runtime import Compactor
from ._bridge import Retried, Streamed, Told

__all__ = ["Facts", "Shown", "doing_after", "facts_of", "status_line", "window_of"]


class Facts(NamedTuple):
    """What the status line says of the session, found once it is built (`window` once the model's
    window is known: asking may take a request, so it is asked on a run's thread)."""

    provider: str = ""
    sandbox: str = ""
    policy: str = ""
    window: int | None = None


class Shown(NamedTuple):
    """What the status line says of the moment: the model in use, the tokens its last request
    used, the cost so far (None: not known), the calls denied or refused, the lines noted, and what
    is waited for ("": nothing)."""

    model: str = ""
    used: int | None = None
    cost: float | None = None  # None or 0: not known, or nothing spent yet (not shown)
    denied: int = 0
    noted: int = 0
    doing: str = ""


def facts_of(built: Built, asker: Asker) -> Facts:
    """The session's facts: its provider, how its commands are confined, its policy's mode."""
    gate = asker.recorder.gate if asker.recorder is not None else None
    sandbox = policy = ""
    if gate is not None:
        mode = gate.settings.sandbox.mode
        where = built.workspace
        abi = where.info.landlock if isinstance(where, ExecutorWorkspace) else landlock_abi()
        sandbox = mode if mode == "off" else f"{mode}, Landlock {abi}" if abi > 0 else f"{mode}, no Landlock"
        policy = f"fallback {gate.settings.policy.fallback}"
    approval = built.agent.turn_slots().snapshot.slots["approval"].id
    if approval != "policy":
        policy += f" + {approval}"
    return Facts(built.provider, sandbox, policy)


# What is waited for once the run has said this (a Told's kind).
_AFTER = {"requested": "waiting for the model", "started": "running a call", "message": "working"}


def doing_after(what: object) -> str | None:
    """What a run waits for once it has said `what` (None: what it waited for before)."""
    if isinstance(what, Told):
        return _AFTER.get(what.kind)
    if isinstance(what, Streamed):
        return "the model is answering"
    if isinstance(what, Retried):
        return "waiting to try again"
    return None


def window_of(built: Built) -> int | None:
    """The model's context window in tokens (None: the session does not compact, so none is known)."""
    compaction = built.agent.compaction
    return compaction.window(built.agent).tokens if isinstance(compaction, Compactor) else None


def _tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


def status_line(facts: Facts, shown: Shown, width: int) -> Text:
    """The status line: parts a person reads left to right, between dots, on as many lines of
    `width` columns as they take; a part is never broken (unless it is wider than a line)."""
    parts = []
    if shown.doing:
        parts.append((f"● {shown.doing}", "bold"))
    if facts.provider:
        parts.append((f"{facts.provider} {shown.model}", ""))
    if shown.used is not None and facts.window:
        share = 100 * shown.used // facts.window
        parts.append(
            (
                f"context {_tokens(shown.used)}/{_tokens(facts.window)} ({share}%)",
                "",
            )
        )
    elif shown.used is not None:
        parts.append((f"context {_tokens(shown.used)}", ""))
    if shown.cost:
        parts.append((f"${shown.cost:.4f}", ""))
    if facts.sandbox:
        parts.append((f"sandbox {facts.sandbox}", ""))
    if facts.policy:
        parts.append((f"policy {facts.policy}", ""))
    if shown.denied:
        parts.append((f"{shown.denied} denied", "red"))
    if shown.noted:
        parts.append((f"{shown.noted} noted", ""))
    parts.append(("F1 keys", "dim"))
    line = Text()
    used = 0
    for i, (part, style) in enumerate(parts):
        if i and used + 3 + len(part) > width:
            line.append("\n")
            used = 0
        elif i:
            line.append(" · ", style="dim")
            used += 3
        line.append(part, style=style)
        used += len(part)
    return line
