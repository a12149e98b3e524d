"""Words for people about subjects: made here from a subject's fields, and nowhere else.

A subject's value is shown as the call gave it (a sentinel's value carries no marker, a path
outside the workspace is named by its tool); what bastion knows of it is said in words from its
kind. The engine's reasons, `check --explain` and the audit's groups all take their words here.
"""

from __future__ import annotations

import json

from ._types import Kind, Subject

__all__ = ["KIND_WORDS", "described", "kind_note", "named", "on", "one_line", "quote"]

# What a subject that is not plain is, for a person.
KIND_WORDS: dict[Kind, str] = {
    Kind.UNCHECKED: "a part bastion cannot vouch for",
    Kind.OUTSIDE: "a path outside the working directory",
    Kind.LINKS_UNKNOWN: "links that cannot be read",
    Kind.UNREADABLE: "a line bastion cannot read as bash would",
}


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
        return f"{KIND_WORDS[subject.kind]}: no rule allows it"
    return f"{KIND_WORDS[subject.kind]}: only a rule that matches everything allows it"
