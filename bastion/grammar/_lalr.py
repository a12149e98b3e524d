"""Running a grammar's LALR tables: lark's contextual lexer and LALR loop, over tables lark built.

The tables come from the strict lark build (`_tables.py` extracts them): per parser state, the
actions and the one regular expression lark's contextual lexer compiled for the terminals that state
accepts (named groups in lark's order, so the first alternative that matches wins, as in lark); the
terminals the grammar ignores (`%ignore`); the rules with the name lark's tree builder gives them
(an alias, `-> name`, or the rule's own) and what it does with each child. This module only runs
them, step for step as lark 1.x does (`ContextualLexer.lex`, `ParserState.feed_token`), and raises
`Unexpected` where lark would raise UnexpectedCharacters or UnexpectedToken. A rule's value is what
the transformer's method of that name makes of its children, or without a transformer a `Tree`,
as lark builds one. Tests run both on the same texts, for every grammar. A state's expression is
compiled without the alternatives that begin with a character other than the text's next one
(`_source`): they cannot match there, so the same terminal matches, and a terminal of many letters
(a quoted string's) costs its compilation only on a line that holds one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from functools import partial
from typing import Any, NamedTuple

from .._errors import BastionError

__all__ = ["END", "Parser", "Token", "Tree", "Unexpected"]

END = "$END"
SHIFT, REDUCE = 0, 1
DROP, KEEP, SPLICE = 0, 1, 2


class Token(str):
    """A terminal's text, with its name as `type` (what lark's Token offers the transformer)."""

    type: str
    start_pos: int

    def __new__(cls, type_: str, value: str, start_pos: int) -> Token:
        token = super().__new__(cls, value)
        token.type = type_
        token.start_pos = start_pos
        return token


class Unexpected(BastionError):
    """Where the line left the grammar. `token` is None when no terminal of the whole grammar matches
    at `pos` (lark's UnexpectedCharacters); else the token no action takes (lark's UnexpectedToken),
    `$END` at the end of the line. `expected` names the terminals that state would have taken."""

    def __init__(self, pos: int, token: Token | None, expected: frozenset[str]) -> None:
        super().__init__(pos, token, expected)
        self.pos = pos
        self.token = token
        self.expected = expected


class Tree(NamedTuple):
    """A rule's value without a transformer: its name and its kept children (tokens and trees)."""

    rule: str
    children: list[Any]

    def tokens(self) -> Iterator[Token]:
        """Every token below, depth first in order (lark's `Tree.scan_values`), without recursing."""
        pending: list[Iterator[Any]] = [iter(self.children)]
        while pending:
            child = next(pending[-1], None)
            if child is None:
                pending.pop()
            elif isinstance(child, Tree):
                pending.append(iter(child.children))
            else:
                yield child


_SPECIAL = frozenset("\\.^$*+?{}[]|()")
_QUANTIFIER = frozenset("*+?{")


def _alternatives(source: str | None, names: frozenset[str]) -> tuple[tuple[str, str], ...] | None:
    """lark's alternatives of a state's expression, `(?P<NAME>pattern)` joined by `|`, each with
    the character it must begin with ("" for any); None unless it splits into one alternative for
    each of the state's terminals `names` (a pattern holding `)|(?P<` would not)."""
    if source is None or not source.startswith("(?P<") or not source.endswith(")"):
        return None
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    for piece in source[len("(?P<") : -1].split(")|(?P<"):
        name, _, pattern = piece.partition(">")
        if name in seen or name not in names:
            return None
        seen.add(name)
        plain = pattern[:1] not in _SPECIAL and pattern[1:2] not in _QUANTIFIER
        found.append((f"(?P<{name}>{pattern})", pattern[:1] if plain else ""))
    return tuple(found)


class _Splice(list[Any]):
    """The children of a rule lark inlines (`_name`): spliced into the rule that contains it."""


class Parser:
    """The tables of one build and the transformer whose methods build values, by rule name (None:
    every rule builds a `Tree`)."""

    def __init__(self, tables: Any, transformer: object | None = None) -> None:
        self._states: Sequence[Mapping[str, tuple[int, int]]] = tables.STATES
        self._start: int = tables.START
        self._end: int = tables.END
        self._lexers: Mapping[int, tuple[str | None, frozenset[str]]] = tables.LEXERS
        self._root: str = tables.ROOT
        self._ignore: frozenset[str] = tables.IGNORE
        # Per rule: the rule it reduces to, its length, what to do with each child (None: keep them
        # all, the common case) and what builds its value (None for an inlined rule).
        self._rules = [
            (
                origin,
                len(children),
                None if all(how == KEEP for how in children) else children,
                None if origin.startswith("_") else self._builder(transformer, name),
            )
            for origin, name, children in tables.RULES
        ]
        self._compiled: dict[str, re.Pattern[str]] = {}
        # Per state and first character of the text: the source of the alternatives that can match.
        self._sources: dict[tuple[int, str], str | None] = {}

    @staticmethod
    def _builder(transformer: object | None, name: str) -> Any:
        if transformer is None:
            return partial(Tree, name)
        return getattr(transformer, name)  # a transformer without it is a grammar it cannot build

    def _regex(self, source: str | None) -> re.Pattern[str] | None:
        """Compiled when first needed: a line meets a few of the states."""
        if source is None:
            return None
        if source not in self._compiled:
            self._compiled[source] = re.compile(source)
        return self._compiled[source]

    def _source(self, state: int, char: str) -> str | None:
        """The state's regular expression without the alternatives that begin with a character
        other than `char`: they cannot match there, and the first alternative that matches is
        the same (a quoted string's terminal, whose classes of letters take milliseconds to
        compile, is compiled only where a quote is met)."""
        key = (state, char)
        if key not in self._sources:
            source, allowed = self._lexers[state]
            split = _alternatives(source, allowed | self._ignore)
            if split is None:
                self._sources[key] = source
            else:
                kept = "|".join(text for text, first in split if first in ("", char))
                self._sources[key] = kept or None
        return self._sources[key]

    def _token(self, text: str, pos: int, state: int) -> Token:
        _, allowed = self._lexers[state]
        regex = self._regex(self._source(state, text[pos : pos + 1]))
        found = regex.match(text, pos) if regex is not None else None
        if found is None or found.lastgroup is None or found.end() == pos:  # lark has no empty terminal
            # As lark's contextual lexer: a terminal of another state there is an unexpected token.
            anywhere = self._regex(self._root)
            other = anywhere.match(text, pos) if anywhere is not None else None
            if other is None or other.lastgroup is None:
                raise Unexpected(pos, None, allowed)
            raise Unexpected(pos, Token(other.lastgroup, other.group(0), pos), allowed)
        return Token(found.lastgroup, found.group(0), pos)

    def _feed(self, stack: list[int], values: list[Any], token: Token) -> None:
        while True:
            actions = self._states[stack[-1]]
            if token.type not in actions:
                expected = frozenset(name for name in actions if name.isupper())
                raise Unexpected(token.start_pos, token, expected)
            action, argument = actions[token.type]
            if action == SHIFT:
                if token.type == END:
                    raise ValueError("the tables shift the end of the line")  # lark asserts this too
                stack.append(argument)
                values.append(token)
                return
            origin, size, children, build = self._rules[argument]
            if size:
                kept: list[Any] = values[-size:]
                del stack[-size:]
                del values[-size:]
            else:
                kept = []
            if children is not None:
                taken, kept = kept, []
                for child, how in zip(taken, children, strict=True):
                    if how == SPLICE:
                        if kept:
                            kept.extend(child)
                        else:
                            # A repetition (`x*` is a left-recursive inlined rule) grows the list it
                            # reduced last, as lark does: copying it each time would be quadratic.
                            kept = child
                    elif how == KEEP:
                        kept.append(child)
            if build is None and not isinstance(kept, _Splice):
                kept = _Splice(kept)
            value = kept if build is None else build(kept)
            action, argument = self._states[stack[-1]][origin]
            if action != SHIFT:
                raise ValueError("the tables reduce to a rule they cannot go to")  # lark asserts this too
            stack.append(argument)
            values.append(value)
            if token.type == END and stack[-1] == self._end:
                return

    def parse(self, text: str) -> Any:
        """The transformer's value for the start rule, or Unexpected."""
        stack: list[int] = [self._start]
        values: list[Any] = []
        pos, last = 0, 0
        while pos < len(text):
            token = self._token(text, pos, stack[-1])
            if token.type not in self._ignore:  # lark's lexer skips what the grammar ignores
                self._feed(stack, values, token)
                last = pos
            pos += len(token)
        self._feed(stack, values, Token(END, "", last))
        return values[-1]
