"""The subset's tables run as lark runs them on the subset's own lines (every grammar's tables are
checked in test_tables.py), a dry-run never imports lark, and a parser that cannot load asks."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# Private: the grammar loader and its parser are the seam tested.
from bastion.grammar import _parser
from bastion.grammar._lalr import Parser
from bastion.grammar._load import SUBSET
from bastion.policy import DryRun
from fuzz.strategies import grammar_lines
from tests.loaded import modules_loaded

from .test_subset import INSIDE, OUTSIDE
from .test_tables import by_lark, by_tables


@pytest.fixture
def fresh() -> Iterator[None]:
    """Forget the loaded parser before and after the test."""
    SUBSET.forget()
    _parser._parse_trimmed.cache_clear()
    yield
    SUBSET.forget()
    _parser._parse_trimmed.cache_clear()


def test_a_dry_run_of_a_line_does_not_import_lark() -> None:
    code = (
        "import os\n"
        "from bastion.policy import DryRun\n"
        "DryRun(os.devnull).check(os.getcwd(), 'bash', {'command': 'ls -la | head && cat $(x)'})"
    )
    assert modules_loaded(code, ("lark", "interegular")) == []


@pytest.mark.parametrize("line", [*INSIDE, *(line for line in OUTSIDE if line.strip(" \t"))])
def test_the_tables_run_as_lark_runs_them(line: str) -> None:
    text = line.strip(" \t")
    assert by_tables(SUBSET, text) == by_lark(SUBSET, text)


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from("ab =-*?~^'\"|&>21/devnul\t$;:#!\n\\"), min_size=1, max_size=30))
def test_the_tables_run_as_lark_runs_them_on_any_text(text: str) -> None:
    assert by_tables(SUBSET, text) == by_lark(SUBSET, text)


@settings(max_examples=300, deadline=None)
@given(grammar_lines(padded=False))
def test_the_tables_run_as_lark_runs_them_on_lines_of_the_grammar(line: str) -> None:
    assert by_tables(SUBSET, line) == by_lark(SUBSET, line)


def test_a_parser_that_cannot_be_loaded_makes_the_call_ask(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> Parser:
        raise RuntimeError("the parser cannot be loaded")

    monkeypatch.setattr(_parser, "loaded", broken)
    result = DryRun(os.devnull).check(os.getcwd(), "bash", {"command": "ls -la"})
    assert result["decision"] == "ask"
