"""The plan: what a line in the subset means, as frozen values.

Word, Stage, Pipeline and Plan are NamedTuples: immutable, and built and hashed in C, which the
decision path (a plan parsed, remembered and rendered per line) feels."""

from __future__ import annotations

import enum
import re
from typing import NamedTuple

__all__ = ["Operator", "Outside", "Pipeline", "Plan", "Redirect", "Stage", "Word", "shown"]

# A word bash reads as itself when written bare: the subset's unquoted run, with "~" and "^" only
# after the first character and "~" never after "=" or ":" (where bash would expand it); or "[" or
# "]" alone (no glob: an unmatched bracket is literal).
_BARE = re.compile(r"[A-Za-z0-9_@%+=:,./-](?:[A-Za-z0-9_@%+=:,./^-]|(?<![=:])~)*|\[|\]")


def shown(text: str) -> str:
    """The literal word `text` as bash needs it written to read it back as this one word: bare when
    it is a bare run, else single-quoted (a `'` inside written as "'"). One spelling per word, so a
    rule matched against it cannot take one quoted word for two, nor a quoted word for a bare one."""
    if _BARE.fullmatch(text):
        return text
    if text == "":
        return "''"
    return '"\'"'.join(f"'{run}'" if run else "" for run in text.split("'"))


class Redirect(enum.Enum):
    """The only three redirects in the subset, by the token that writes them."""

    ERR_TO_OUT = "2>&1"
    ERR_TO_NULL = "2>/dev/null"
    OUT_TO_NULL = ">/dev/null"


class Operator(enum.Enum):
    """What joins two pipelines: bash runs the next after `&&` if the last ran succeeded, after `||`
    if it failed, and after `;` or a newline always."""

    AND = "&&"
    OR = "||"
    SEMI = ";"
    NEWLINE = "\n"


class Word(NamedTuple):
    """One word as bash will see it: quotes removed. A glob word is expanded by bash."""

    text: str
    glob: bool = False


class Stage(NamedTuple):
    """One simple command: its words (the first is the command) and its redirects, in order."""

    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...] = ()

    @property
    def command(self) -> str:
        return self.words[0].text

    @property
    def args(self) -> tuple[Word, ...]:
        return self.words[1:]

    @property
    def text(self) -> str:
        """The stage as a line bash reads back as exactly these words (each non-glob word `shown`,
        a glob bare, single spaces between): what a rule about this stage is matched against."""
        return " ".join(w.text if w.glob else shown(w.text) for w in self.words)


class Pipeline(NamedTuple):
    """Stages joined by `|`."""

    stages: tuple[Stage, ...]


class Plan(NamedTuple):
    """Pipelines joined by operators: a whole line inside the subset. `operators[i]` joins
    `pipelines[i]` to `pipelines[i + 1]`, so there is one fewer operator than pipelines."""

    pipelines: tuple[Pipeline, ...]
    operators: tuple[Operator, ...] = ()

    @property
    def stages(self) -> tuple[Stage, ...]:
        return tuple(s for p in self.pipelines for s in p.stages)


class Outside(NamedTuple):
    """A line outside the subset: where (1-based column, 0 for the whole line) and why.

    `token` is the text where the subset ended ("$(", "&", "" for the whole line) and `kind` what
    it is ("command substitution", "the end of the line"): facts a program reads (the audit groups
    lines by token); `reason` is the same said for a person."""

    line: str
    column: int
    reason: str
    token: str = ""
    kind: str = ""

    def __str__(self) -> str:
        return self.reason

    def caret(self) -> str:
        """The line with a caret under the column, for a person to read."""
        if self.column <= 0:
            return self.line
        shown = self.line.encode("ascii", "backslashreplace").decode("ascii")
        prefix = self.line[: self.column - 1].encode("ascii", "backslashreplace").decode("ascii")
        return f"{shown}\n{' ' * len(prefix)}^"
