"""Every grammar runs from tables built at install (`bastion.grammar.Grammar`): the tables match the
grammar file, are run as lark runs them (an LALR grammar's values, errors and positions alike; an
Earley grammar's sentences and tokens), are used only when built from that file, and a missing or
stale module never changes what parses. No module of bastion builds a grammar with lark itself.

The grammars tested are every `Grammar(...)` a module of bastion declares (found by reading the
sources), so a grammar added to the package is tested here as soon as its module declares it; and
EXPRESSIONS, an ambiguous grammar built as Earley (`// parser: earley`), written for these tests."""

from __future__ import annotations

import ast
import atexit
import functools
import importlib
import importlib.util
import os
import pathlib
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import lark
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Private: the generated tables (and sed's script grammar) are the thing tested.
from bastion.analyzer.commands._sed import SCRIPT
from bastion.grammar import Grammar, Tree, Unexpected, _tables
from tests.loaded import modules_loaded

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _declared() -> dict[str, Grammar]:
    """Every module-level `NAME = Grammar("package", "file.lark", ...)` of bastion, by its tables'
    module name, as its module holds it (with its transformer)."""
    found: dict[str, Grammar] = {}
    for path in sorted((ROOT / "bastion").rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
                continue
            if getattr(node.value.func, "id", "") == "Grammar" and isinstance(node.targets[0], ast.Name):
                module = importlib.import_module(".".join(path.relative_to(ROOT).with_suffix("").parts))
                grammar = getattr(module, node.targets[0].id)
                found[grammar.tables_module] = grammar
    return found


# An ambiguous grammar (`e e`, `e "+" e`), with keywords a NAME gives way to, an ignored terminal, an
# optional part and a rule that derives nothing (mark): what the Earley tables must run as lark does.
_EXPRESSIONS = r"""// parser: earley
start: _sep* (stmt (_sep+ stmt)*)? _sep*
stmt: "print" [exprs] | NAME "=" e | "if" "(" e ")" stmt ("else" stmt)? | "{" _sep* stmt* "}"
exprs: e ("," e)*
e: e "+" e | e "*" e | "-" e | "(" e ")" | NAME mark | NUMBER | e e | call
mark: "'"?
!call: ("len" | "max") "(" [exprs] ")"
NAME: /[a-z_][a-z0-9_]*/
NUMBER: /[0-9]+/
_sep: ";" | "\n"
%ignore /[ \t]+/
"""


def _expressions() -> Grammar:
    """_EXPRESSIONS in a package of its own, in a directory removed when the tests end."""
    where = tempfile.mkdtemp(prefix="bastion-earley-")
    atexit.register(shutil.rmtree, where, ignore_errors=True)
    os.mkdir(os.path.join(where, "earley_sample"))
    pathlib.Path(where, "earley_sample", "__init__.py").write_text("")
    pathlib.Path(where, "earley_sample", "expressions.lark").write_text(_EXPRESSIONS)
    sys.path.insert(0, where)
    grammar = Grammar("earley_sample", "expressions.lark")
    grammar.write()
    return grammar


DECLARED = _declared()
EXPRESSIONS = _expressions()
GRAMMARS = [*(DECLARED.get(g.tables_module, g) for g in _tables.grammars()), EXPRESSIONS]
IDS = [g.name for g in GRAMMARS]


def _earley(grammar: Grammar) -> bool:
    return grammar.options() is _tables.EARLEY_OPTIONS


def test_every_grammar_file_of_the_package_is_one_a_module_declares() -> None:
    """A grammar added to the package (an awk program grammar, say) is built at install, and a module
    declares it (`Grammar(package, file)`), which puts it in every test here."""
    assert sorted(g.tables_module for g in _tables.grammars()) == sorted(DECLARED)
    assert {"subset.lark", "sed_script.lark", "codex_patch.lark"} <= {g.name for g in GRAMMARS}


@pytest.mark.parametrize("grammar", GRAMMARS, ids=IDS)
def test_the_tables_were_built_strict_from_the_grammar_file_by_the_installed_lark(grammar: Grammar) -> None:
    module = grammar.generated()
    assert module is not None, "run `python -m bastion.grammar` (make does)"
    assert grammar.text() == module.GRAMMAR and module.FORMAT == _tables.FORMAT
    assert grammar.options() == module.OPTIONS and module.OPTIONS["strict"] is True
    assert lark.__version__ == module.LARK_VERSION
    assert ("earley" if _earley(grammar) else "lalr") == module.KIND
    # lark numbers its states differently from one build to the next: that the tables run as the
    # build runs is what the tests below check.


def test_no_module_builds_a_grammar_with_lark_itself() -> None:
    """Only the tables' module imports lark's Lark (to build at install, or in memory when the tables
    are stale)."""
    found = []
    for path in sorted((ROOT / "bastion").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or (node.module or "").split(".")[0] != "lark":
                continue
            if any(a.name == "Lark" for a in node.names):
                found.append(path.relative_to(ROOT).as_posix())
    assert sorted(set(found)) == ["bastion/grammar/_load.py", "bastion/grammar/_tables.py"]


def test_a_first_sed_script_awk_program_and_codex_patch_load_no_grammar_compiler(
    tmp_path: pathlib.Path,
) -> None:
    (tmp_path / "f").write_text("a\n")
    sed, awk = "sed -n '/a/,/b/p' f", "awk '{ print $1 / 2 }' f"
    code = (
        "from bastion.policy import DryRun\n"
        "from bastion.audit._patch import patch_paths\n"
        f"for line in {[sed, awk]!r}:\n"
        f"    r = DryRun('/dev/null').check({str(tmp_path)!r}, 'bash', {{'command': line}})\n"
        "    assert r['decision'] == 'allow', (line, r)\n"
        "assert patch_paths('*** Begin Patch\\n*** Delete File: x\\n*** End Patch') == ('x',)\n"
    )
    assert modules_loaded(code, ("lark", "interegular")) == []


def test_an_earley_grammar_is_run_from_its_tables_without_lark() -> None:
    code = (
        f"import sys; sys.path.insert(0, {str(EXPRESSIONS.directory.rsplit(os.sep, 1)[0])!r})\n"
        "from bastion.grammar import Grammar\n"
        "tree = Grammar('earley_sample', 'expressions.lark').parse('print len(a b, 2) + c')\n"
        "assert [t.type for t in tree.tokens() if t.type == 'NAME'] == ['NAME'] * 3\n"
    )
    assert modules_loaded(code, ("lark", "interegular")) == []


# --- the tables run as lark runs them -------------------------------------------------------------


def _value(value: Any) -> Any:
    """A parse's value, comparable across the two: trees as (rule, children), tokens as (type, text)."""
    if isinstance(value, Tree | lark.Tree):
        name = value.rule if isinstance(value, Tree) else value.data
        return (str(name), [_value(child) for child in value.children])
    if isinstance(value, str) and hasattr(value, "type"):
        return (value.type, str(value))
    return value  # a transformer's value (the subset's plans)


@functools.cache
def _named(text: str) -> frozenset[str]:
    """The terminals a grammar file names (never filtered out of a tree, unlike anonymous ones)."""
    return frozenset(re.findall(r"^([A-Z][A-Z0-9_]*)\s*:", text, re.MULTILINE))


def _named_tokens(grammar: Grammar, tokens: Iterator[Any]) -> list[tuple[str, str]]:
    kept = _named(grammar.text())
    return [(t.type, str(t)) for t in tokens if t.type in kept]


def by_lark(grammar: Grammar, text: str) -> object:
    """What lark's own parser of the same build makes of a text: a value, or its error's details
    (for an Earley grammar: whether it is a sentence, and its named tokens)."""
    if _earley(grammar):
        try:
            tree = grammar.lark().parse(text)
        except lark.exceptions.LarkError:
            return "not a sentence"
        return _named_tokens(grammar, tree.scan_values(lambda v: isinstance(v, lark.Token)))
    try:
        return _value(grammar.lark().parse(text))
    except lark.exceptions.UnexpectedToken as err:
        where = None if err.token.type == "$END" else err.pos_in_stream
        return (where, err.token.type, str(err.token), frozenset(err.expected))
    except lark.exceptions.UnexpectedCharacters as err:
        return err.pos_in_stream, None, None, frozenset(err.allowed)


def by_tables(grammar: Grammar, text: str) -> object:
    if _earley(grammar):
        try:
            return _named_tokens(grammar, grammar.parse(text).tokens())
        except Unexpected:
            return "not a sentence"
    try:
        return _value(grammar.parse(text))
    except Unexpected as err:
        token = err.token
        if token is None:
            return err.pos, None, None, err.expected
        return (err.pos if token.type != "$END" else None, token.type, str(token), err.expected)


def _alphabet(grammar: Grammar) -> str:
    """Every character the grammar file writes, and the controls its terminals name."""
    return "".join(sorted(set(grammar.text()) - {"\r"})) + "\n\t"


@st.composite
def sentences(draw: st.DrawFn, grammar: Grammar, depth: int = 8) -> str:
    """A text the grammar derives: each rule expanded by one of lark's expansions (the shortest
    once deep), each terminal drawn from its own regular expression."""
    build = grammar.lark()
    rules: dict[str, list[tuple[Any, ...]]] = {}
    for rule in build.rules:
        rules.setdefault(rule.origin.name, []).append(tuple(rule.expansion))
    patterns = {t.name: t.pattern.to_regexp() for t in build.terminals}

    def expand(symbol: Any, level: int) -> Iterator[str]:
        if symbol.is_term:
            yield draw(st.from_regex(patterns[symbol.name], fullmatch=True))
            return
        options = sorted(rules[symbol.name], key=len)
        chosen = options[0] if level > depth else draw(st.sampled_from(options))
        for child in chosen:
            yield from expand(child, level + 1)

    return "".join(expand(lark.grammar.NonTerminal("start"), 0))


@pytest.mark.parametrize("grammar", GRAMMARS, ids=IDS)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_the_tables_run_as_lark_runs_them_on_any_text(grammar: Grammar, data: st.DataObject) -> None:
    text = data.draw(st.text(st.sampled_from(_alphabet(grammar)), min_size=1, max_size=40))
    assert by_tables(grammar, text) == by_lark(grammar, text)


@pytest.mark.parametrize("grammar", GRAMMARS, ids=IDS)
# Slow generation is no failure of the property: on a busy machine a terminal's regular expression
# (sed's, awk's) can take Hypothesis longer to draw from than its health check allows.
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_tables_run_as_lark_runs_them_on_sentences_and_near_misses(
    grammar: Grammar, data: st.DataObject
) -> None:
    grammar.lark()  # loaded before the first draw: loading it is no part of drawing an input
    text = data.draw(sentences(grammar))
    if data.draw(st.booleans()):  # one character inserted, removed or replaced
        at = data.draw(st.integers(0, len(text)))
        put = data.draw(st.sampled_from(["", *_alphabet(grammar)]))
        text = text[:at] + put + text[at + data.draw(st.integers(0, 1)) :]
    assert by_tables(grammar, text) == by_lark(grammar, text)


# --- a module built from anything else is not used -------------------------------------------------


@pytest.fixture
def fresh() -> Iterator[None]:
    """Forget what was loaded of every grammar before and after the test."""
    for grammar in GRAMMARS:
        grammar.forget()
    yield
    for grammar in GRAMMARS:
        grammar.forget()


@pytest.mark.parametrize("change", ["grammar", "options", "format"])
@pytest.mark.parametrize("grammar", GRAMMARS, ids=IDS)
def test_a_module_built_from_another_grammar_or_options_or_in_another_format_is_not_used(
    grammar: Grammar, change: str, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    if change == "grammar":
        text = grammar.text() + "\n// changed\n"
        monkeypatch.setattr(grammar, "text", lambda: text)
    elif change == "options":
        monkeypatch.setattr(_tables, "OPTIONS", {**_tables.OPTIONS, "strict": False})
        monkeypatch.setattr(_tables, "EARLEY_OPTIONS", {**_tables.EARLEY_OPTIONS, "strict": False})
    else:
        monkeypatch.setattr(_tables, "FORMAT", _tables.FORMAT + 1)
    assert grammar.generated() is None


@pytest.mark.parametrize("grammar", GRAMMARS, ids=IDS)
def test_tables_that_cannot_be_run_are_built_again(
    grammar: Grammar, fresh: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    samples = {
        "subset.lark": "git status | head",
        "sed_script.lark": "/a/,/b/p",
        "expressions.lark": "x = a b",
    }
    text = samples.get(grammar.name, "*** Begin Patch\n*** Delete File: x\n*** End Patch")
    expected = by_lark(grammar, text)
    module = grammar.generated()
    assert module is not None
    broken = SimpleNamespace(GRAMMAR=module.GRAMMAR)  # the right key, but no tables
    grammar.forget()
    monkeypatch.setattr(grammar, "generated", lambda: broken)
    monkeypatch.setattr(grammar, "built", lambda: module)
    assert by_tables(grammar, text) == expected


def test_a_missing_module_is_built_strict_in_memory_and_only_the_build_step_writes_it(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    package = tmp_path / "written_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "script.lark").write_text(SCRIPT.text(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    grammar = Grammar("written_pkg", "script.lark")
    assert grammar.generated() is None
    assert grammar.parse("/a/p") == SCRIPT.parse("/a/p")
    written = package / "_script_lalr.py"
    assert not written.exists()  # a running process writes nothing into its package
    grammar.write()  # the build step's (make, the wheel's build)
    assert written.exists() and oct(written.stat().st_mode & 0o777) == oct(0o644)
    spec = importlib.util.spec_from_file_location("_written", written)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert SCRIPT.text() == module.GRAMMAR and module.OPTIONS == _tables.OPTIONS and module.KIND == "lalr"
    assert not [p for p in os.listdir(package) if p.startswith(".")]  # no temporary file left
    grammar.forget()
    assert grammar.generated() is not None  # the next process (or a forgetful one) uses it
    sys.modules.pop("written_pkg", None)
    sys.modules.pop("written_pkg._script_lalr", None)


def test_tables_no_grammar_builds_any_more_are_removed_and_nothing_else(tmp_path: pathlib.Path) -> None:
    # A grammar moved to another package leaves its old tables behind in a checkout (they are
    # git-ignored): as a module of the package they would be imported by nothing but read by
    # every check that walks the package's modules.
    from bastion.grammar._tables import remove_orphans

    header = "# The LALR tables of gone.lark, built with strict=True by lark 1.3.1\n"
    (tmp_path / "room").mkdir()
    (tmp_path / "room" / "_gone_lalr.py").write_text(header)
    (tmp_path / "_kept_lalr.py").write_text(header)
    (tmp_path / "kept.lark").write_text("start: 'a'\n")
    (tmp_path / "_lalr.py").write_text("# the table runner: no grammar's tables\n")
    (tmp_path / "_hand_lalr.py").write_text("# written by hand\n")
    assert remove_orphans(str(tmp_path)) == [str(tmp_path / "room" / "_gone_lalr.py")]
    assert sorted(p.name for p in tmp_path.rglob("*.py")) == ["_hand_lalr.py", "_kept_lalr.py", "_lalr.py"]
