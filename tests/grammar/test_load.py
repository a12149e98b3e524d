"""The generated tables: used only when built from this grammar, run as lark runs them, and a
missing or stale module never changes what parses."""

from __future__ import annotations

import importlib.util
import os
import types
from collections.abc import Iterator
from pathlib import Path

import lark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.grammar import Plan, _load, _parser, parse
from bastion.grammar._lalr import Parser, Unexpected
from bastion.policy import DryRun
from fuzz.strategies import grammar_lines
from tests.loaded import modules_loaded

from .test_subset import INSIDE, OUTSIDE


@pytest.fixture
def fresh() -> Iterator[None]:
    """Forget the loaded parser before and after the test."""
    for cached in (_load._generated, _load._built, _load.loaded, _load.parser, _parser._parse_trimmed):
        cached.cache_clear()
    yield
    for cached in (_load._generated, _load._built, _load.loaded, _load.parser, _parser._parse_trimmed):
        cached.cache_clear()


def test_the_generated_module_was_built_strict_from_this_grammar_by_the_installed_lark() -> None:
    module = _load._generated()
    assert module is not None, "run `python -m bastion.grammar` (make does)"
    assert _load.grammar_text() == module.GRAMMAR
    assert module.OPTIONS["strict"] is True and module.LARK_DATA["options"]["strict"] is True
    assert lark.__version__ == module.LARK_VERSION


def test_a_dry_run_of_a_line_does_not_import_lark() -> None:
    code = (
        "import os\n"
        "from bastion.policy import DryRun\n"
        "DryRun(os.devnull).check(os.getcwd(), 'bash', {'command': 'ls -la | head && cat $(x)'})"
    )
    assert modules_loaded(code, ("lark", "interegular")) == []


@pytest.mark.parametrize("change", ["grammar", "options", "format"])
def test_a_module_built_from_another_grammar_or_options_or_in_another_format_is_not_used(
    change: str, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if change == "grammar":
        text = _load.grammar_text().replace("SEP: /[ \\t]+/", "SEP: /[ \\t;]+/")
        monkeypatch.setattr(_load, "grammar_text", lambda: text)
    elif change == "options":
        monkeypatch.setattr(_load, "_OPTIONS", {**_load._OPTIONS, "strict": False})
    else:
        monkeypatch.setattr(_load, "_FORMAT", _load._FORMAT + 1)
    assert _load._generated() is None


def test_tables_that_cannot_be_run_are_built_again(fresh: None, monkeypatch: pytest.MonkeyPatch) -> None:
    module = _load._generated()
    assert module is not None
    built = {name: getattr(module, name) for name in ("START", "END", "STATES", "RULES", "LEXERS", "ROOT")}
    monkeypatch.setattr(_load, "_generated", lambda: types.SimpleNamespace(GRAMMAR=module.GRAMMAR))
    monkeypatch.setattr(_load, "_built", lambda: built)
    assert isinstance(parse("git status | head"), Plan)


def _by_lark(line: str) -> object:
    """What lark's own parser of the same build makes of a line: a plan, or its error's details."""
    try:
        plan: object = _load.parser().parse(line)
    except lark.exceptions.UnexpectedToken as err:
        return (
            err.pos_in_stream if err.token.type != "$END" else None,
            err.token.type,
            str(err.token),
            frozenset(err.expected),
        )
    except lark.exceptions.UnexpectedCharacters as err:
        return err.pos_in_stream, None, None, frozenset(err.allowed)
    return plan


def _by_tables(line: str) -> object:
    try:
        plan: object = _load.loaded().parse(line)
    except Unexpected as err:
        token = err.token
        if token is None:
            return err.pos, None, None, err.expected
        return (err.pos if token.type != "$END" else None, token.type, str(token), err.expected)
    return plan


@pytest.mark.parametrize("line", [*INSIDE, *(line for line in OUTSIDE if line.strip(" \t"))])
def test_the_tables_run_as_lark_runs_them(line: str) -> None:
    text = line.strip(" \t")
    assert _by_tables(text) == _by_lark(text)


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from("ab =-*?~^'\"|&>21/devnul\t$;:#!\n\\"), min_size=1, max_size=30))
def test_the_tables_run_as_lark_runs_them_on_any_text(text: str) -> None:
    assert _by_tables(text) == _by_lark(text)


@settings(max_examples=300, deadline=None)
@given(grammar_lines(padded=False))
def test_the_tables_run_as_lark_runs_them_on_lines_of_the_grammar(line: str) -> None:
    assert _by_tables(line) == _by_lark(line)


def test_a_missing_module_is_built_strict_and_written_again(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    grammar = _load.grammar_text()
    (tmp_path / "subset.lark").write_text(grammar, encoding="ascii")
    monkeypatch.setattr(_load, "_GENERATED", "_not_generated_yet")
    monkeypatch.setattr(_load, "_HERE", str(tmp_path))
    assert _load._generated() is None
    assert isinstance(parse("git status | head"), Plan)
    written = tmp_path / "_not_generated_yet.py"
    assert written.exists() and oct(written.stat().st_mode & 0o777) == oct(0o644)
    spec = importlib.util.spec_from_file_location("_written", written)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert grammar == module.GRAMMAR and _load._OPTIONS == module.OPTIONS
    line = "git status | head"
    assert Parser(module, _load._TO_PLAN).parse(line) == parse(line)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]  # no temporary file left


def test_a_parser_that_cannot_be_loaded_makes_the_call_ask(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> Parser:
        raise RuntimeError("the parser cannot be loaded")

    monkeypatch.setattr(_parser, "loaded", broken)
    result = DryRun(os.devnull).check(os.getcwd(), "bash", {"command": "ls -la"})
    assert result["decision"] == "ask"
