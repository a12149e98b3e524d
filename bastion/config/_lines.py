"""Where in a file a string value was written: its line, found from the file's text (tomllib keeps no
positions). A line is given only where the text leaves no doubt: the value's one-line spellings
occur in the text exactly as often as the file has entries of it, none after a `#` on its line, and
they are taken in order; else None (a comment quoting it, an escape spelled another way)."""

from __future__ import annotations

import json
from collections.abc import Sequence

__all__ = ["lines_of"]


def _spellings(value: str) -> set[str]:
    """How TOML may write `value` as a one-line string: basic (JSON's escapes are TOML's) or literal."""
    found = {json.dumps(value, ensure_ascii=False), json.dumps(value)}
    if "'" not in value and "\n" not in value:
        found.add(f"'{value}'")
    return found


def lines_of(text: str, values: Sequence[str]) -> list[int | None]:
    """The 1-based line each of `values` (a file's entries, in the order the file writes them) is
    written on, None where that is not certain."""
    lines: list[int | None] = [None] * len(values)
    for value in set(values):
        at = [i for i, v in enumerate(values) if v == value]
        starts = sorted(start for spelling in _spellings(value) for start in _finds(text, spelling))
        # A spelling after a `#` on its line may be a comment's: then no line is claimed for the value.
        commented = any("#" in text[text.rfind("\n", 0, start) + 1 : start] for start in starts)
        if len(starts) == len(at) and not commented:
            for index, start in zip(at, starts, strict=True):
                lines[index] = text.count("\n", 0, start) + 1
    return lines


def _finds(text: str, spelling: str) -> list[int]:
    found = []
    start = text.find(spelling)
    while start >= 0:
        found.append(start)
        start = text.find(spelling, start + 1)
    return found
