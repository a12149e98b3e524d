"""Flag tables: the options a command may take, matched exactly, and the words left as operands.

A table lists bare flags (`-n`, `--all`), letters that may be combined (`-nb`), flags whose value is
the next word (`-n 5`), flags whose value is attached (`--lines=5`, `-d,`) and whether `-<digits>`
is a count. Long options are matched whole, never as prefixes the way getopt would accept them
(`--li` is not `--lines`). Anything the table does not list is refused.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ...grammar import Word

__all__ = ["ANY", "COUNT", "NUMBER", "ONE_CHAR", "Args", "FlagTable", "parse_args"]

ANY = re.compile(r".*", re.DOTALL)
NUMBER = re.compile(r"[0-9]+")
COUNT = re.compile(r"[+-]?[0-9]+")
ONE_CHAR = re.compile(r".", re.DOTALL)
_DIGITS = re.compile(r"-[0-9]+")


class FlagTable:
    """What one command accepts. `refused` words the reason for a flag known to be dangerous.
    Tables are constants, compared (and hashed) by identity."""

    __slots__ = ("attached", "bare", "digits", "letters", "options_after_operands", "refused", "spaced")

    def __init__(
        self,
        *,
        bare: frozenset[str] = frozenset(),
        letters: str = "",
        spaced: Mapping[str, re.Pattern[str]] | None = None,
        attached: Mapping[str, re.Pattern[str]] | None = None,
        digits: bool = False,
        refused: Mapping[str, str] | None = None,
        options_after_operands: bool = False,
    ) -> None:
        self.bare = bare
        self.letters = letters
        self.spaced: Mapping[str, re.Pattern[str]] = spaced or {}
        self.attached: Mapping[str, re.Pattern[str]] = attached or {}
        self.digits = digits
        self.refused: Mapping[str, str] = refused or {}
        self.options_after_operands = options_after_operands


class Args(NamedTuple):
    """A stage's arguments read against a table: flags (with values), operands, or why not."""

    flags: tuple[tuple[str, str | None], ...] = ()
    operands: tuple[str, ...] = ()
    why: str = ""

    @property
    def ok(self) -> bool:
        return not self.why

    def has(self, flag: str) -> bool:
        return any(name == flag for name, _ in self.flags)


def _unknown(command: str, table: FlagTable, word: str) -> str:
    name = word.split("=", 1)[0]
    if name in table.refused:
        return table.refused[name]
    if not name.startswith("--"):
        for letter in name[1:]:
            if f"-{letter}" in table.refused:
                return table.refused[f"-{letter}"]
    return (
        f"{command} {word!r} is not an option bastion knows, and an unknown option could write a file, "
        "read one unchecked or run a program"
    )


def _attached(table: FlagTable, word: str) -> tuple[str, str] | None:
    """The (flag, value) of an attached form in the table, or None."""
    if word.startswith("--"):
        if "=" not in word:
            return None
        name, value = word.split("=", 1)
        key = name + "="
        return (key, value) if key in table.attached else None
    key = word[:2]
    if len(word) > 2 and key in table.attached:
        return key, word[2:]
    return None


def parse_args(command: str, table: FlagTable, words: Sequence[Word]) -> Args:
    """Read `words` (the stage's arguments) against `table`; a glob word is always refused."""
    return _parse(command, table, tuple(words))


# The reading depends on nothing but the words and the table, so a stage seen again is not re-read.
@functools.lru_cache(maxsize=4096)
def _parse(command: str, table: FlagTable, words: tuple[Word, ...]) -> Args:
    for w in words:
        if w.glob:
            return Args(
                why=f"{command} is given the glob {w.text!r}, which bash expands to names "
                "this check never saw; only ls, cat, head, tail, wc and grep take a glob"
            )
    flags: list[tuple[str, str | None]] = []
    operands: list[str] = []
    texts = [w.text for w in words]
    i = 0
    ended = False
    while i < len(texts):
        word = texts[i]
        i += 1
        if ended or word == "-" or not word.startswith("-"):
            operands.append(word)
            continue
        if word == "--":
            ended = True
            continue
        if operands and not table.options_after_operands:
            return Args(
                why=f"{command} has the option {word!r} after an operand, which bash passes on as a "
                "file name when POSIXLY_CORRECT is set; put options first"
            )
        if word in table.bare or (table.digits and _DIGITS.fullmatch(word)):
            flags.append((word, None))
        elif word in table.spaced:
            if i >= len(texts):
                return Args(why=f"{command} {word} needs a value, and without one it takes the next word")
            value = texts[i]
            i += 1
            if not table.spaced[word].fullmatch(value):
                return Args(
                    why=f"{command} {word} {value!r}: the value is not of the expected form, so it "
                    "could be read as something else"
                )
            flags.append((word, value))
        elif (found := _attached(table, word)) is not None:
            key, value = found
            if not table.attached[key].fullmatch(value):
                return Args(
                    why=f"{command} {word!r}: the value is not of the expected form, so it could be "
                    "read as something else"
                )
            flags.append((key, value))
        elif table.letters and re.fullmatch(f"-[{re.escape(table.letters)}]+", word):
            flags.extend((f"-{letter}", None) for letter in word[1:])
        else:
            return Args(why=_unknown(command, table, word))
    return Args(tuple(flags), tuple(operands))
