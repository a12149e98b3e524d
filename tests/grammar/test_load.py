"""The generated parser module: used only when built from this grammar, equal to lark's own parser,
and a missing or stale one never changes what parses."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import lark
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.grammar import Outside, Plan, _load, _parser, parse
from bastion.policy import DryRun

from .test_subset import INSIDE, OUTSIDE


@pytest.fixture
def fresh() -> Iterator[None]:
    """Forget the loaded parser before and after the test."""
    for cached in (_load._generated, _load.loaded, _load.parser, _parser._parse_trimmed):
        cached.cache_clear()
    yield
    for cached in (_load._generated, _load.loaded, _load.parser, _parser._parse_trimmed):
        cached.cache_clear()


def test_the_generated_module_was_built_strict_from_this_grammar_by_the_installed_lark() -> None:
    module = _load._generated()
    assert module is not None, "run `python -m bastion.grammar` (make does)"
    assert _load.grammar_text() == module.GRAMMAR
    assert module.OPTIONS["strict"] is True and module.DATA["options"]["strict"] is True
    assert module.__version__ == lark.__version__


def test_a_dry_run_of_a_line_does_not_import_lark() -> None:
    code = (
        "import os, sys\n"
        "from bastion.policy import DryRun\n"
        "DryRun(os.devnull).check(os.getcwd(), 'bash', {'command': 'ls -la | head && cat $(x)'})\n"
        "print(sorted(m for m in ('lark', 'interegular') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("change", ["grammar", "options"])
def test_a_module_built_from_another_grammar_or_options_is_not_used(
    change: str, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if change == "grammar":
        text = _load.grammar_text().replace('SEP: /[ \\t]+/', 'SEP: /[ \\t;]+/')
        monkeypatch.setattr(_load, "grammar_text", lambda: text)
    else:
        monkeypatch.setattr(_load, "_OPTIONS", {**_load._OPTIONS, "strict": False})
    assert _load._generated() is None


def _both() -> tuple[_load.Loaded, _load.Loaded]:
    module = _load._generated()
    assert module is not None
    generated = _load.Loaded(module.Lark_StandAlone(transformer=_load._TO_PLAN).parse, module)
    return generated, _load.Loaded(_load.parser().parse, lark.exceptions)


def _result(use: _load.Loaded, line: str) -> Plan | Outside:
    try:
        plan: Plan = use.parse(line)
    except use.error as err:
        return _parser._outside(line, err, use)
    return plan


@pytest.mark.parametrize("line", [*INSIDE, *(line for line in OUTSIDE if line.strip(" \t"))])
def test_the_generated_parser_and_lark_give_the_same_plan_or_outside(line: str) -> None:
    generated, built = _both()
    text = line.strip(" \t")
    assert _result(generated, text) == _result(built, text) == parse(line)


@settings(max_examples=300, deadline=None)
@given(st.text(st.sampled_from("ab =-*?~^'\"|&>21/devnul\t$;"), min_size=1, max_size=30))
def test_the_generated_parser_and_lark_agree_on_any_text(text: str) -> None:
    generated, built = _both()
    assert _result(generated, text) == _result(built, text)


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
    assert module.Lark_StandAlone(transformer=_load._TO_PLAN).parse(line) == parse(line)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".")]  # no temporary file left


def test_a_parser_that_cannot_be_loaded_makes_the_call_ask(
    fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken() -> _load.Loaded:
        raise RuntimeError("the parser cannot be loaded")

    monkeypatch.setattr(_parser, "loaded", broken)
    result = DryRun(os.devnull).check(os.getcwd(), "bash", {"command": "ls -la"})
    assert result["decision"] == "ask"
