"""Written words: a subject's value how the words of a command run (or of a part of a cut line) are
written as one value, one word still one, and which word bash reads as an assignment. The cut and
the wrappers' step both write subjects so; a line inside the subset never needs the cut itself."""

from __future__ import annotations

import re

from ..grammar import shown

__all__ = ["ASSIGNMENT", "joined"]

# A word bash reads as an assignment (NAME=VALUE, NAME+=VALUE, NAME[I]=VALUE).
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")

# What splits or ends a word as a person or a rule reads a subject.
_BOUNDARY = re.compile(r"""[\s'"\\]|^#|^$""")
_STILL_EXPANDS = re.compile(r"[$`]|[<>]\(")


def _kept(word: str) -> str:
    if _BOUNDARY.search(word) is None and word.isprintable():
        return word
    if _STILL_EXPANDS.search(word) is not None:  # shown as bash still expands it: in double quotes
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return shown(word)


def joined(words: tuple[str, ...]) -> str:
    """Words as bash has them before expansion, as one subject value: a word holding whitespace, a
    quote, a backslash or an unprintable byte (or empty, or starting with #) is quoted, so
    `'rm -rf' x` is not `rm -rf x` (in double quotes when it holds `$`, a backtick, `<(` or `>(`,
    which bash still expands; else as `shown`). Any other word is shown as is, so that a deny rule
    about `~`, `$HOME` or `*` still meets the word bash will expand."""
    return " ".join(_kept(w) for w in words)
