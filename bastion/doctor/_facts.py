"""What doctor finds, as values (a section of facts, each with its status), and the one place that
makes words of them: the report a person reads, or JSON."""

from __future__ import annotations

import enum
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from .._safe import redact_data, safe_line

__all__ = ["Fact", "Section", "Status", "as_json", "as_text", "failed"]


class Status(enum.StrEnum):
    OK = "ok"
    INFO = "info"
    WARN = "warn"
    FAIL = "fail"


_MARKS = {Status.OK: "✓", Status.INFO: "·", Status.WARN: "!", Status.FAIL: "✗"}


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing found: what (`label`), what it is (`value`), whether that is good, the lines that
    go with it (rules, features) and, when it is not good, what to do (`hint`)."""

    label: str
    value: str
    status: Status = Status.INFO
    details: tuple[str, ...] = ()
    hint: str = ""


@dataclass(frozen=True, slots=True)
class Section:
    """A part of the report: `name` is its key (in JSON, and in doctor's table of sections)."""

    name: str
    title: str
    facts: tuple[Fact, ...] = field(default_factory=tuple)


def failed(sections: Sequence[Section]) -> bool:
    return any(f.status is Status.FAIL for s in sections for f in s.facts)


def as_text(sections: Sequence[Section]) -> str:
    lines: list[str] = []
    for section in sections:
        lines.append(section.title)
        for fact in section.facts:
            lines.append(safe_line(f"  {_MARKS[fact.status]} {fact.label}: {fact.value}"))
            lines += [safe_line(f"      {detail}") for detail in fact.details]
            if fact.hint:
                lines.append(safe_line(f"      → {fact.hint}"))
    return "\n".join(lines) + "\n"


def as_json(sections: Sequence[Section]) -> str:
    return json.dumps(
        redact_data({"sections": [asdict(s) for s in sections], "failed": failed(sections)}),
        ensure_ascii=False,
    )
