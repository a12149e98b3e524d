"""Command lines read without argparse when they are plainly written: importing argparse and
building a parser (it loads gettext, locale and shutil) is most of a short command's own time, and
`check` and `hook` run once per call another agent makes.

A reading is a table: the options that take a value, the flags, the one positional and the values
each may take. Plainly written means each option spelled in full and given once, a value as the
next word (not starting with "-"), and the positional as the one word after "--" (`after_dashes`)
or as a word among its choices. Anything else is None, and argparse reads it (and words its help
and its errors). Tests compare the two readings on generated command lines.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import NamedTuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

__all__ = ["Reading", "read_plainly"]


class Reading(NamedTuple):
    """What a command's parser defines: option -> attribute for `valued` options and `flags`
    (store_true), each attribute's default, the positional's attribute, and the values an
    attribute may take (`choices`; none listed: any)."""

    valued: Mapping[str, str]
    flags: Mapping[str, str]
    defaults: Mapping[str, object]
    positional: str
    choices: Mapping[str, Collection[str]]
    after_dashes: bool


def read_plainly(argv: Sequence[str], reading: Reading) -> SimpleNamespace | None:
    """The arguments as argparse would read them, or None when they are not plainly written."""
    values: dict[str, object] = dict(reading.defaults)
    seen: set[str] = set()
    index = 0
    while index < len(argv):
        word = argv[index]
        if word == "--" and reading.after_dashes:
            rest = argv[index + 1 :]
            if len(rest) != 1 or rest[0] == "--":
                return None
            values[reading.positional] = rest[0]
            break
        if word in seen:
            return None
        seen.add(word)
        if word in reading.flags:
            values[reading.flags[word]] = True
        elif word in reading.valued and index + 1 < len(argv) and not argv[index + 1].startswith("-"):
            index += 1
            values[reading.valued[word]] = argv[index]
        elif reading.after_dashes or word.startswith("-") or values[reading.positional] is not None:
            return None
        else:
            values[reading.positional] = word
        index += 1
    for name, allowed in reading.choices.items():
        if values[name] not in allowed:
            return None
    return SimpleNamespace(**values)
