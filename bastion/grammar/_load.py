"""The subset's parser: subset.lark, declared as every grammar is (`_tables.Grammar`), with the
transformer that builds plans as it parses (no tree is kept)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ._lalr import Parser, Token
from ._plan import Operator, Pipeline, Plan, Redirect, Stage, Word
from ._tables import Grammar

if TYPE_CHECKING:
    from lark import Lark

__all__ = ["SUBSET", "grammar_text", "loaded", "parser"]

# Inside double quotes bash drops a backslash before these four and keeps every other one.
_DQUOTED_ESCAPE = re.compile(r'\\([\\"$`])')


def _piece_text(token: Token) -> str:
    value = str(token)
    if token.type == "DQUOTED" and "\\" in value:
        return _DQUOTED_ESCAPE.sub(r"\1", value[1:-1])
    if token.type.endswith("QUOTED"):
        return value[1:-1]
    if token.type == "ESCAPED":  # \; is the word ;
        return value[1:]
    return value


class _ToPlan:
    """Builds plans during the LALR parse (no tree is kept): a method per rule, called by name."""

    def start(self, items: list[Any]) -> Plan:
        # Pipelines and the operator tokens between them (this module's, or lark's when lark parses).
        pipelines = tuple(i for i in items if isinstance(i, Pipeline))
        operators = tuple(Operator[i.type] for i in items if not isinstance(i, Pipeline))
        return Plan(pipelines, operators)

    def pipeline(self, stages: list[Stage]) -> Pipeline:
        return Pipeline(tuple(s for s in stages if isinstance(s, Stage)))

    def stage(self, items: list[object]) -> Stage:
        # A brace word is a list of the words bash makes of it.
        words = tuple(w for i in items for w in (i if isinstance(i, list) else (i,)) if isinstance(w, Word))
        redirects = tuple(i for i in items if isinstance(i, Redirect))
        return Stage(words, redirects)

    def command(self, pieces: list[Token]) -> Word:
        return Word("".join(_piece_text(p) for p in pieces))

    def word(self, pieces: list[Token]) -> Word:
        return Word("".join(_piece_text(p) for p in pieces))

    def glob(self, tokens: list[Token]) -> Word:
        return Word(str(tokens[0]), glob=True)

    def brace(self, tokens: list[Token]) -> list[Word]:
        """The words bash makes of PREFIX{A,B,...}SUFFIX, in order, an empty one left out."""
        prefix, rest = str(tokens[0]).split("{", 1)
        alternatives, suffix = rest.split("}", 1)
        made = (prefix + a + suffix for a in alternatives.split(","))
        return [Word(w, glob="*" in w or "?" in w) for w in made if w]

    def redirect(self, tokens: list[Token]) -> Redirect:
        return Redirect(str(tokens[0]))


_TO_PLAN: Any = _ToPlan()  # lark types its transformer as its own Transformer class; it only calls methods


SUBSET = Grammar("bastion.grammar", "subset.lark", _TO_PLAN)


def grammar_text() -> str:
    """The formal definition of the subset, as shipped."""
    return SUBSET.text()


def loaded() -> Parser:
    """The subset's parser, building plans as it parses, from the tables built at install."""
    found = SUBSET.parser()
    if not isinstance(found, Parser):
        raise TypeError("subset.lark is built as LALR: it holds no `// parser: earley` line")
    return found


def parser() -> Lark:
    """The same build as a lark object (for tests and fuzzing, which compare and generate with it)."""
    return SUBSET.lark()
