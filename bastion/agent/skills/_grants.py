"""--trust-skills: a loaded skill of yours lets its allowed-tools run unasked until your next message.

A grant is a layer of allow rules (`skill:NAME`, rank 2 beside your config's, never lifting a
shipped ask) joined to the session's policy while it lasts. Only a call the policy asks about is
decided again with it, on the same subjects (so its stamp and the analysis are the gate's): deny
beats ask beats allow as ever, so your denies, your asks, the project's and the shipped secret-path
asks hold against a grant; what a grant opens is what the fallback would have asked. The main
agent's calls alone are granted (a sub-agent gets no skills, and so no grants), and every grant ends
when the next prompt of yours arrives (`Events.message` of a `User`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Protocol

from ...policy import Decided, Decision, Layer, Origin, Policy, Source
from ..runtime import Events, Message, Usage, User
from ._skills import Skill

__all__ = ["Deciding", "Granting", "Grants"]


class Grants(Events):
    """The grants in force; told of each message, it drops them all at a prompt of yours."""

    def __init__(self, policy: Policy, on_grant: Callable[[Skill], None] = lambda skill: None) -> None:
        self.policy = policy
        self.on_grant = on_grant
        self._lock = threading.Lock()
        self._layers: dict[str, Layer] = {}
        self._joined: Policy | None = None

    def grant(self, skill: Skill) -> None:
        layer = Layer(
            Source(Origin.SKILL, skill.name),
            2,
            True,
            f"the allowed-tools of your skill {skill.name} (--trust-skills)",
            allow=skill.rules,
            lifts=False,
        )
        with self._lock:
            self._layers[skill.name] = layer
            self._joined = self.policy.joined(*self._layers.values())
        self.on_grant(skill)

    @property
    def active(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._layers)

    def message(self, message: Message, usage: Usage | None = None) -> None:
        if isinstance(message, User):
            with self._lock:
                self._layers = {}
                self._joined = None

    def apply(self, decided: Decided) -> Decided:
        """A call the policy asks about, decided again under the grants (an allow only then)."""
        with self._lock:
            joined = self._joined
        if joined is None or decided.verdict.decision is not Decision.ASK or not decided.subjects:
            return decided
        verdict = joined.decide(decided.subjects)
        return decided._replace(verdict=verdict) if verdict.decision is Decision.ALLOW else decided


class Deciding(Protocol):
    """A policy gate, or the front's recorder of one: what it decided, subjects and all."""

    def decide(self, tool: str, args: object) -> Decided: ...


class Granting:
    """The main agent's gatekeeper: the policy's gate (or the front's recorder of it), then the
    grants in force."""

    def __init__(self, gate: Deciding, grants: Grants) -> None:
        self.gate = gate
        self.grants = grants

    def decide(self, tool: str, args: object) -> Decided:
        return self.grants.apply(self.gate.decide(tool, args))
