"""A lexer state's expression is matched without the alternatives that begin with a character other
than the text's next one (issue 31: a quoted string's terminal, whose classes of letters take
milliseconds to compile, is compiled only where a quote is met). What matches must be exactly what
the whole expression lark built matches: the same terminal, the same text."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# Private: the generated tables and the LALR driver's alternatives are the thing tested.
from bastion.grammar import Grammar, _tables
from bastion.grammar._lalr import Parser, _alternatives

LALR = [g for g in _tables.grammars() if g.generated() is not None and g.generated().KIND == "lalr"]
IDS = [g.name for g in LALR]


def _states(grammar: Grammar) -> list[tuple[int, str, frozenset[str]]]:
    tables: Any = grammar.generated()
    return [
        (state, source, allowed | tables.IGNORE)
        for state, (source, allowed) in tables.LEXERS.items()
        if source
    ]


@pytest.mark.parametrize("grammar", LALR, ids=IDS)
def test_every_state_splits_into_the_terminals_lark_joined_in_its_order(grammar: Grammar) -> None:
    for state, source, names in _states(grammar):
        split = _alternatives(source, names)
        assert split is not None, (grammar.name, state)
        assert "|".join(text for text, _ in split) == source
        assert [re.match(r"\(\?P<(\w+)>", text).group(1) for text, _ in split] == list(  # type: ignore[union-attr]
            re.compile(source).groupindex
        )


@pytest.mark.parametrize("grammar", LALR, ids=IDS)
@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_the_alternatives_kept_match_what_the_whole_expression_matches(
    grammar: Grammar, data: st.DataObject
) -> None:
    states = _states(grammar)
    state, source, names = data.draw(st.sampled_from(states))
    split = _alternatives(source, names)
    assert split is not None
    alphabet = st.sampled_from(
        sorted({*"\"'`$\\ \t\n#;|&<>(){}[]!*?~^=-_./:@%+,2aZ9é☀中", *"".join(f for _, f in split)})
    )
    text = data.draw(st.text(alphabet, max_size=12))
    whole = re.compile(source).match(text)
    kept = "|".join(t for t, first in split if first in ("", text[:1]))
    pruned = re.compile(kept).match(text) if kept else None
    assert (whole and (whole.lastgroup, whole.group(0))) == (pruned and (pruned.lastgroup, pruned.group(0)))


def test_a_line_without_quotes_compiles_no_quoted_string_terminal() -> None:
    subset = next(g for g in LALR if g.name == "subset.lark")
    parser = Parser(subset.generated())
    parser.parse("git status -s && ls -la src | head -5")
    compiled = " ".join(parser._compiled)
    assert "DQUOTED" not in compiled and "SQUOTED" not in compiled, compiled
    parser.parse("echo 'a b'")
    assert "(?P<SQUOTED>" in " ".join(parser._compiled)
