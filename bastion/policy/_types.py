"""The values the policy works on: a subject of a call, a rule as written and where, a verdict and
what decided it."""

from __future__ import annotations

import enum
from typing import NamedTuple

__all__ = ["Decision", "Kind", "Origin", "Rule", "Source", "Subject", "Verdict", "Written"]


class Decision(enum.IntEnum):
    """Ordered from least to most restrictive, so max() folds subjects."""

    ALLOW = 0
    ASK = 1
    DENY = 2

    def __str__(self) -> str:
        return self.name.lower()


class Kind(enum.Enum):
    """What bastion knows of a subject's value.

    PLAIN: the analyzer read it. UNCHECKED (a sentinel): a governed stage whose arguments failed, a
    line outside the subset, a redirect target outside the workspace; only a bare rule for the tool,
    a user pattern that matches everything, or the fallback allows it. The others cannot be judged
    at all (a path outside the workspace, links that cannot be read, a line bashlex cannot read, a
    file to write that other hard links share): no rule nor fallback ever allows them; a deny rule
    naming their `rule_tool` (or a tool glob) may refuse them."""

    PLAIN = "plain"
    UNCHECKED = "unchecked"
    OUTSIDE = "outside"
    LINKS_UNKNOWN = "links-unknown"
    UNREADABLE = "unreadable"
    HARD_LINKED = "hard-linked"


# The tool name a rule uses for the subjects that cannot be judged (`deny: bastion:*`); it never
# appears in a reason.
_RULE_TOOLS = {
    Kind.OUTSIDE: "bastion:outside",
    Kind.LINKS_UNKNOWN: "bastion:links-unknown",
    Kind.UNREADABLE: "bastion:unreadable",
    Kind.HARD_LINKED: "bastion:hard-linked",
}
# A call of a tool named like one of these passes for none of them: it is never allowed either.
_RULE_TOOL_PREFIX = "bastion:"


class Subject(NamedTuple):
    """One thing a call does that a rule may name.

    `tool` is the tool the call uses for it (bash, read, write, edit, glob, grep, ls, or any other
    tool's name); `value` is the string a rule's specifier is matched against (a command, or a path
    relative to the working directory), exactly as the call gives it; `kind` says what bastion knows
    of it (a sentinel, a pseudo-tool: see Kind); `about` says, for a person, which part of the call
    it is; `why` carries the analyzer's reason for a subject that is not plain. A `constraint`
    subject is held to its tool's deny and ask rules only: no allow rule (nor the fallback) ever
    allows or asks because of it — it exists so that a wrapper (timeout, env, xargs...) cannot hide
    the command it runs from a deny or ask."""

    tool: str
    value: str
    about: str = ""
    why: str = ""
    constraint: bool = False
    kind: Kind = Kind.PLAIN

    @property
    def sentinel(self) -> bool:
        """Whether the analyzer could not vouch for the value (it is not plain)."""
        return self.kind is not Kind.PLAIN

    @property
    def pseudo(self) -> bool:
        """Whether the subject cannot be judged at all: no rule nor fallback ever allows it."""
        return self.kind in _RULE_TOOLS or self.tool.startswith(_RULE_TOOL_PREFIX)

    @property
    def rule_tool(self) -> str:
        """The tool a rule must name to reach this subject: its tool, or for one that cannot be
        judged the pseudo-tool ("bastion:outside"...) that only deny rules and tool globs reach."""
        return _RULE_TOOLS.get(self.kind, self.tool)


class Written(NamedTuple):
    """Where a rule was written: the file, its entry (`policy.allow[2]`) and its 1-based line (None
    where the file's text does not show it for certain)."""

    path: str
    field: str
    line: int | None = None


class Rule(NamedTuple):
    """One parsed rule. `text` is the rule as written (stripped: an aliased `Read(x)` stays
    `Read(x)`), `specifier` None for a bare rule, `pattern` the specifier without a carve-out's
    "!"; `where` is where it was written (None: the shipped rules, flags, a skill's grant)."""

    text: str
    tool: str
    specifier: str | None
    where: Written | None = None

    @property
    def carve_out(self) -> bool:
        return self.specifier is not None and self.specifier.startswith("!")

    @property
    def pattern(self) -> str | None:
        if self.specifier is None:
            return None
        return self.specifier[1:] if self.carve_out else self.specifier

    @property
    def tool_glob(self) -> bool:
        return "*" in self.tool


class Origin(enum.Enum):
    """The kind of source a rule (or a verdict) comes from."""

    BUILTIN = "builtin"  # bastion's shipped rules
    USER = "user"  # the user's config file (its path)
    PROJECT = "project"  # the project's .bastion/config.toml (its path)
    FLAGS = "flags"  # --allow, --ask, --deny
    SKILL = "skill"  # a trusted skill's allowed-tools (its name; none: checking a skill's rules)
    HARNESS = "harness"  # an approval component of the agent's harness that made a call stricter (its id)


class Source(NamedTuple):
    """Where a verdict's rule came from: the kind and, for a file, its path (a skill's or a harness
    component's name). `tag` is how JSON and the records spell it ("builtin", "user:PATH")."""

    kind: Origin
    path: str = ""

    @property
    def tag(self) -> str:
        return f"{self.kind.value}:{self.path}" if self.path else self.kind.value


BUILTIN = Source(Origin.BUILTIN)
FLAGS = Source(Origin.FLAGS)


class Verdict(NamedTuple):
    """What the policy decided for a call, and what decided it.

    `rule` is the rule that decided, as written and where (None for the fallback), `source` where
    it came from (None for the fallback), `subject` the subject the deciding rule was about, `note`
    the note of the deciding rule's list (the shipped asks': SECRET_NOTE; "" for none)."""

    decision: Decision
    reason: str
    rule: Rule | None = None
    source: Source | None = None
    subject: Subject | None = None
    note: str = ""

    @property
    def shipped(self) -> bool:
        """Whether bastion's shipped rules decided (the secret-path asks, the memory's)."""
        return self.source is not None and self.source.kind is Origin.BUILTIN
