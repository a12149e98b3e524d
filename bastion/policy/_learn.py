"""A rule remembered at a question: the narrowest allow rules that let this call and calls like it
run unasked in this project, offered only where the policy itself says they are safe to add, and
saved to the user's file in this project's scope (`[projects."ROOT".policy]`).

What is offered (`offer_for`), per subject that asked: a bash command's prefix rule (`npm test:*`),
or its exact line where the prefix is one word (`rm -f notes.txt`); a file tool's directory below
its path (`edit(src/**)`; the file itself at the root); an MCP tool by its server and name. Nothing
is offered for a subject the analyzer could not read whole; a path or a command word that looks
secret (as the shipped asks read it) or leads outside the workspace (`/`, `~`, `..`); a path in
`.git` or `.bastion`; a rule that would lift a shipped ask (an allow rule of a read tool or the
memory with a specifier lifts the shipped asks it names). Then the policy decides the call again
with the rules added to the user's scope for this project: unless that allows it, nothing is
offered. So nothing is offered for a call any ask or deny rule names (yours, the project's,
bastion's shipped secret-path and memory asks): an ask beats an allow of any rank. The user's file
is never the project's `.bastion/config.toml` (which can only tighten), nor `/dev/null`.

`remember` writes the rules (bastion.config's `add_to_scope`: the file re-read and re-validated
whole, replaced atomically, refused if it changed since the offer read it) and returns the settings
with the project's scope read again from what was written, for the session's gate to adopt.
"""

from __future__ import annotations

import functools
import posixpath
import shlex
from typing import NamedTuple

from bastion._files import is_null_device
from bastion.config import ConfigError, add_to_scope, digest_of, scope_lines
from bastion.workspace import Workspace

from ._config import Settings, scope_layer
from ._engine import Layer, Policy, lifted_by
from ._gate import Decided
from ._narrow import narrowed, rule_for, warnings_for
from ._rules import RuleError, parse_rule
from ._tools import PATH_TOOLS
from ._types import Decision, Subject

__all__ = ["Offer", "offer_for", "remember"]

# Directories whose files drive a repository or bastion itself: no rule is learnt for a path there.
_MACHINERY = frozenset({".git", ".bastion"})


class Offer(NamedTuple):
    """Allow rules a person may have remembered for this project: `rules`, each the narrowest for
    one subject of the call that asked; `path`, the user's file they go to; `root`, the project
    (the workspace's root, its links resolved) they apply in; `warnings`, what they let through
    besides this call; `seen`, the file's digest when offered ("" for no file)."""

    rules: tuple[str, ...]
    path: str
    root: str
    warnings: tuple[str, ...] = ()
    seen: str = ""

    @property
    def lines(self) -> list[str]:
        """The config lines the rules are written as (in a new scope)."""
        return scope_lines(self.root, "allow", self.rules)


@functools.cache
def _shipped() -> Policy:
    return Policy()


def _secret(name: str) -> bool:
    """Whether the shipped asks take `name` for a secret-looking path."""
    verdict = _shipped().decide([Subject("read", name.removeprefix("./") or ".")])
    return verdict.decision is not Decision.ALLOW and verdict.shipped


def _unsafe_name(name: str) -> bool:
    """A name that leads outside the workspace, looks secret, or is the repository's or bastion's."""
    parts = name.split("/")
    return (
        name.startswith(("/", "~")) or ".." in parts or bool(_MACHINERY.intersection(parts)) or _secret(name)
    )


def _unsafe_command(line: str) -> bool:
    """Whether a word of the command (or a part of one after `=` or `,`) is an unsafe name."""
    try:
        words = shlex.split(line)
    except ValueError:
        return True
    for word in words[1:]:
        pieces = word.replace(",", "=").split("=")
        if any(piece and _unsafe_name(piece) for piece in pieces):
            return True
    return False


def _learnt_rule(subject: Subject) -> str | None:
    """The rule to remember for one subject that asked, or None."""
    if subject.tool == "bash":
        if _unsafe_command(subject.value):
            return None
        prefix = rule_for(subject)
        if prefix is None:
            return None
        command = subject.value.split(" ", 1)[0]
        rule, _ = narrowed(prefix, subject.value, {command: {subject.value}})
        return rule or None
    if subject.tool in PATH_TOOLS:
        if _unsafe_name(subject.value) or rule_for(subject) is None:
            return None
        directory = posixpath.dirname(subject.value)
        if directory and not any(part.startswith(".") for part in directory.split("/")):
            return f"{subject.tool}({directory}/**)"
        return rule_for(subject)
    return rule_for(subject)


def _with_scope(settings: Settings, scope: Layer) -> Policy:
    """The session's policy with `scope` in place of its scope for this project."""
    old = settings.policy
    layers = [layer for layer in old.layers if not layer.shipped and layer != settings.scope]
    return Policy.shared([*layers, scope], builtin=old.builtin, fallback=old.fallback, roots=old.roots)


def offer_for(decided: Decided, settings: Settings, ws: Workspace) -> Offer | None:
    """The rules to offer to remember for a call the policy asks about (`decided`), or None."""
    path = settings.user_file
    if decided.decision is not Decision.ASK or not decided.subjects or not path or is_null_device(path):
        return None
    found: list[str] = []
    for subject in decided.subjects:
        if settings.policy.decide([subject]).decision is Decision.ALLOW:
            continue
        rule = _learnt_rule(subject)  # None for a subject the analyzer could not read whole
        if rule is None:
            return None
        found.append(rule)
    rules = tuple(dict.fromkeys(found))
    try:
        if not rules or any(lifted_by(parse_rule(rule)) for rule in rules):
            return None
        scope = settings.scope
        root = ws.real_root
        trial = (
            scope._replace(allow=(*rules, *scope.allow))
            if scope is not None
            else Layer.scoped(path, root, allow=rules)
        )
        if _with_scope(settings, trial).decide(decided.subjects).decision is not Decision.ALLOW:
            return None
        seen = digest_of(path)
    except (RuleError, ConfigError):
        return None
    warnings = tuple(dict.fromkeys(w for rule in rules for w in warnings_for(rule)))
    return Offer(rules, path, root, warnings, seen)


def remember(offer: Offer, settings: Settings, ws: Workspace) -> Settings:
    """Write the offer's rules to the user's file, in this project's scope, and return `settings`
    with that scope read again from what was written. Raises ConfigError (ConfigChanged when the
    file changed since the offer read it), and then nothing was written."""

    def check(data: bytes) -> None:
        scope = scope_layer(offer.path, data, ws)  # every rule of the whole file parsed
        if scope is None:
            raise ConfigError(f"{offer.path}: the rules were not read back for {offer.root}")
        try:
            _with_scope(settings, scope)
        except RuleError as err:
            raise ConfigError(f"{offer.path}: {err}") from None

    written = add_to_scope(offer.path, offer.root, "allow", offer.rules, offer.seen, check)
    scope = scope_layer(offer.path, written, ws)
    assert scope is not None, "checked before it was written"
    return settings._replace(policy=_with_scope(settings, scope), scope=scope)
