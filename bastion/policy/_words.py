"""Words for people about subjects and their decisions: made here from the fields, and nowhere else.

A subject's value is shown as the call gave it (a sentinel's value carries no marker, a path
outside the workspace is named by its tool); what bastion knows of it is said in words from its
kind. The engine's reasons, `check --explain` and the audit's groups all take their words here.
"""

from __future__ import annotations

import json

from ._types import Decision, Kind, Origin, Rule, Source, Subject

__all__ = [
    "KIND_WORDS",
    "by_fallback",
    "by_rule",
    "cited",
    "described",
    "kind_note",
    "named",
    "on",
    "one_line",
    "quote",
    "source_words",
    "unconstrained",
    "unjudged",
]

# What a subject that is not plain is, for a person.
KIND_WORDS: dict[Kind, str] = {
    Kind.UNCHECKED: "a part bastion cannot vouch for",
    Kind.OUTSIDE: "a path outside the working directory",
    Kind.LINKS_UNKNOWN: "links that cannot be read",
    Kind.UNREADABLE: "a line bastion cannot read as bash would",
    Kind.HARD_LINKED: "a file other names share (hard links)",
}


def cited(rule: Rule, source: Source | None) -> str:
    """Where a rule came from, short (check --explain, the REPL's why): its source as JSON spells it,
    and the line it was written on where known (`user:/home/me/.config/bastion/config.toml, line 4`)."""
    tag = source.tag if source is not None else "?"
    line = rule.where.line if rule.where is not None else None
    return tag if line is None else f"{tag}, line {line}"


# How a person is told of a source with no file.
_SOURCE_WORDS = {Origin.BUILTIN: "bastion's shipped rules", Origin.FLAGS: "a command-line flag"}


def source_words(rule: Rule | None, source: Source | None) -> str:
    """Where a rule came from, in words (a question's): `your config PATH, line 4`."""
    if source is None:
        return ""
    said = {
        Origin.USER: f"your config {source.path}",
        Origin.PROJECT: f"the project's config {source.path}",
        Origin.SKILL: f"the allowed-tools of your skill {source.path}",
    }.get(source.kind) or _SOURCE_WORDS.get(source.kind, source.tag)
    line = rule.where.line if rule is not None and rule.where is not None else None
    return said if line is None else f"{said}, line {line}"


def quote(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def one_line(text: str) -> str:
    return text.replace("\r", "\\r").replace("\n", "\\n")


def named(subject: Subject) -> str:
    """The subject as a person reads it: its tool and its value (`bash "make test"`)."""
    return f"{subject.tool} {quote(subject.value)}"


def described(subject: Subject) -> str:
    """`named`, then which part of the call it is and, unless plain, what kind of subject it is:
    `bash "cat /etc/passwd" (the command; a part bastion cannot vouch for)`."""
    parts = [one_line(p) for p in (subject.about, KIND_WORDS.get(subject.kind, "")) if p]
    return named(subject) + (f" ({'; '.join(parts)})" if parts else "")


def on(subject: Subject, note: str = "") -> str:
    """`on "VALUE" (about; note): why`: the part of a reason that says what it is about."""
    parts = [one_line(p) for p in (subject.about, note) if p]
    text = f"on {quote(subject.value)}" + (f" ({'; '.join(parts)})" if parts else "")
    return text + (f": {one_line(subject.why)}" if subject.why else "")


def kind_note(subject: Subject) -> str:
    """What the rules may do with a subject that is not plain ("" for a plain one)."""
    if subject.kind is Kind.PLAIN:
        return ""
    if subject.pseudo:
        return f"{_unjudged(subject)}: no rule allows it"
    return f"{KIND_WORDS[subject.kind]}: only a rule that matches everything allows it"


_BY_RULE = {Decision.DENY: "denied by", Decision.ASK: "asks:", Decision.ALLOW: "allowed by"}
_VERB = {Decision.DENY: "denied", Decision.ASK: "asks", Decision.ALLOW: "allowed"}


def by_rule(decision: Decision, rule: str, label: str, subject: Subject, note: str = "") -> str:
    """`denied by bash(rm:*) from your config (PATH) on "rm -rf x" (the command)`."""
    return f"{_BY_RULE[decision]} {rule} from {label} {on(subject, note)}"


def unconstrained(subject: Subject) -> str:
    """A constraint subject no deny or ask rule names (it allows nothing by itself)."""
    return f"no deny or ask rule names {subject.tool} {on(subject)}"


def unjudged(subject: Subject) -> str:
    """A subject that cannot be judged, which nothing allows."""
    return f"asks: nothing allows {_unjudged(subject)} {on(subject)}"


def _unjudged(subject: Subject) -> str:
    return KIND_WORDS.get(subject.kind, f"a tool named {subject.tool}")


def by_fallback(fallback: Decision, subject: Subject) -> str:
    """What no rule names, decided by the fallback: the analyzer's reason first, when it gave one."""
    default = "" if fallback is Decision.ASK else f" (fallback {fallback})"
    why = f"{one_line(subject.why)}; " if subject.why else ""
    return f"{_VERB[fallback]}: {why}no rule allows {described(subject)}{default}"
