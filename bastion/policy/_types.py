"""The values the policy works on: a subject of a call, and a verdict."""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = ["SENTINEL", "Decision", "Subject", "Verdict"]

# The prefix of a subject value that no shipped rule names: a governed stage whose arguments
# failed, a line outside the subset, a path outside the workspace. Only a bare rule for the tool,
# a user pattern that matches everything, or the fallback decides it.
SENTINEL = "$(...) "


class Decision(enum.IntEnum):
    """Ordered from least to most restrictive, so max() folds subjects."""

    ALLOW = 0
    ASK = 1
    DENY = 2

    def __str__(self) -> str:
        return self.name.lower()


class Subject(NamedTuple):
    """One thing a call does that a rule may name.

    `tool` is the tool whose rules decide it (bash, read, write, edit, glob, grep, ls, or a
    pseudo-tool such as "bastion:links-unknown" that no rule names); `value` is the string a
    rule's specifier is matched against (a command, or a path relative to the working
    directory); `about` says, for a person, which part of the call it is; `why` carries the
    analyzer's reason for a sentinel. A `constraint` subject is held to its tool's deny and ask
    rules only: no allow rule (nor the fallback) ever allows or asks because of it — it exists so
    that a wrapper (timeout, env, xargs...) cannot hide the command it runs from a deny or ask."""

    tool: str
    value: str
    about: str = ""
    why: str = ""
    constraint: bool = False

    @property
    def sentinel(self) -> bool:
        return self.value.startswith(SENTINEL)


class Verdict(NamedTuple):
    """What the policy decided for a call, and what decided it.

    `rule` is the rule text that decided (None for the fallback), `source` where it came from
    ("builtin", "user:PATH", "project:PATH", "flags"; None for the fallback), `subject` the
    subject the deciding rule was about."""

    decision: Decision
    reason: str
    rule: str | None = None
    source: str | None = None
    subject: Subject | None = None
