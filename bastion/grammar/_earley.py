"""Running an Earley grammar's tables: lark's basic lexer, then Earley recognition over its tokens.

For a grammar that is not LALR (an ambiguous one: several parses of one text), `_tables.py` keeps
what lark built from it with `parser="earley", lexer="basic"`: the one regular expression of its
lexer (named groups in lark's order), the keywords each regex terminal gives way to (lark's
"unless" callback: `print` lexed as a NAME is the keyword PRINT), the ignored terminals, and the
compiled rules. The lexer here steps as lark's BasicLexer does; whether the tokens are a sentence is
decided by Earley's algorithm (with Aycock and Horspool's step for rules that derive nothing),
which accepts exactly the texts lark's Earley parser parses. The value is the start rule over every
token of the text in order (its parse is not kept: an ambiguous grammar has several), and a text
that is not a sentence raises `Unexpected` at the token where no item could go on. Tests compare
acceptance and tokens with lark's.
"""

from __future__ import annotations

import re
from typing import Any

from ._lalr import END, Token, Tree, Unexpected

__all__ = ["Recognizer"]

# An Earley item: (rule, how many of its symbols are recognised, the set it started in).
_Item = tuple[int, int, int]


class Recognizer:
    """The tables of one Earley build."""

    def __init__(self, tables: Any) -> None:
        self._root: str | None = tables.ROOT
        self._unless: dict[str, dict[str, str]] = tables.UNLESS
        self._ignore: frozenset[str] = tables.IGNORE
        self._allowed: frozenset[str] = tables.ALLOWED
        self._origins = [origin for origin, _ in tables.RULES]
        self._expansions = [tuple(symbols) for _, symbols in tables.RULES]
        self._by_origin: dict[str, list[int]] = {}
        for index, origin in enumerate(self._origins):
            self._by_origin.setdefault(origin, []).append(index)
        self._nullable = self._nullables()
        self._regex: re.Pattern[str] | None = None

    def _nullables(self) -> frozenset[str]:
        found: set[str] = set()
        while True:
            more = {
                origin
                for origin, symbols in zip(self._origins, self._expansions, strict=True)
                if origin not in found and all(s in found for s in symbols)
            }
            if not more:
                return frozenset(found)
            found |= more

    def tokens(self, text: str) -> list[Token]:
        """The text as lark's basic lexer reads it (ignored terminals left out)."""
        if self._regex is None and self._root is not None:
            self._regex = re.compile(self._root)
        found: list[Token] = []
        pos = 0
        while pos < len(text):
            match = self._regex.match(text, pos) if self._regex is not None else None
            if match is None or match.lastgroup is None or match.end() == pos:
                raise Unexpected(pos, None, self._allowed)
            value, kind = match.group(0), match.lastgroup
            kind = self._unless.get(kind, {}).get(value, kind)
            if kind not in self._ignore:
                found.append(Token(kind, value, pos))
            pos = match.end()
        return found

    def parse(self, text: str) -> Tree:
        """Tree("start", every token) when the text is a sentence; else Unexpected."""
        tokens = self.tokens(text)
        sets: list[dict[_Item, None]] = [dict.fromkeys((r, 0, 0) for r in self._by_origin.get("start", ()))]
        waiting: list[dict[str, list[_Item]]] = []
        for k in range(len(tokens) + 1):
            current: dict[_Item, None] = sets[k]
            after: dict[_Item, None] = {}
            waiting.append({})
            self._close(k, current, waiting, tokens[k].type if k < len(tokens) else None, after)
            if k == len(tokens):
                break
            if not after:
                raise Unexpected(tokens[k].start_pos, tokens[k], self._expected(current))
            sets.append(after)
        accepted = any(
            self._origins[r] == "start" and d == len(self._expansions[r]) and o == 0 for r, d, o in sets[-1]
        )
        if not accepted:
            last = tokens[-1].start_pos if tokens else 0
            raise Unexpected(last, Token(END, "", last), self._expected(sets[-1]))
        return Tree("start", tokens)

    def _close(
        self,
        k: int,
        items: dict[_Item, None],
        waiting: list[dict[str, list[_Item]]],
        kind: str | None,
        after: dict[_Item, None],
    ) -> None:
        """Predict and complete set k in place; what scans the token `kind` goes to `after`."""
        work = list(items)
        predicted: set[str] = set()

        def add(item: _Item) -> None:
            if item not in items:
                items[item] = None
                work.append(item)

        while work:
            rule, dot, origin = work.pop()
            symbols = self._expansions[rule]
            if dot == len(symbols):
                if origin != k:  # one that started here derives nothing: its nullable step did it
                    for r, d, o in waiting[origin].get(self._origins[rule], ()):
                        add((r, d + 1, o))
                continue
            symbol = symbols[dot]
            if symbol in self._by_origin:
                waiting[k].setdefault(symbol, []).append((rule, dot, origin))
                if symbol not in predicted:
                    predicted.add(symbol)
                    for r in self._by_origin[symbol]:
                        add((r, 0, k))
                if symbol in self._nullable:
                    add((rule, dot + 1, origin))
            elif symbol == kind:
                after[(rule, dot + 1, origin)] = None

    def _expected(self, items: dict[_Item, None]) -> frozenset[str]:
        """The terminals some item of a set would have scanned next."""
        return frozenset(
            self._expansions[r][d]
            for r, d, _ in items
            if d < len(self._expansions[r]) and self._expansions[r][d] not in self._by_origin
        )
