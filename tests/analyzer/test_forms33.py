"""Issue 33's small checkers: test and [, tree's options after a directory, gh --version; each
beside the siblings that must ask (the rest are in test_exploits.py, issue 33's section)."""

from __future__ import annotations

import pytest

from .conftest import Analyse

RUNS = [
    "[ -f main.go ]",
    "[ ! -d sub ]",
    "[ -e later.txt ] || echo missing",
    "[ x = y ]",
    "[ -n \"$\" ]",
    "[ 1 -lt 2 ] && echo less",
    "test -s README.md",
    "test 10 -ge -3",
    'test -f main.go && echo "\u2713 main.go exists" || echo "\u2717 main.go missing"',
    "[ -p pipe ]",
    "[ -f ']' ]",
    "tree sub -I '*.pyc'",
    "tree sub -L 2 -a",
    "tree -d sub -I 'deep|x' --noreport",
]


@pytest.mark.parametrize("line", RUNS)
def test_the_form_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]


ASKS = [
    ("[ -f main.go", "[ without ]"),
    ("[ ]", "nothing to test"),
    ("[ -f etclink/passwd ]", "a name through a link out"),
    ("[ -d ../ws-evil ]", "a .. name"),
    ("[ -t 0 ]", "a terminal test"),
    ("[ -v HOME ]", "a variable test"),
    ("[ -o errexit ]", "an option test"),
    ("[ -a main.go ]", "-a as a unary test (or an and)"),
    ("[ x -a y ]", "-a joining"),
    ("[ -f main.go -o -f /etc/passwd ]", "-o joining a name outside"),
    ("[ a -lt 2 ]", "-lt of a word that is not an integer"),
    ("[ 1+1 -eq 2 ]", "an expression where test takes an integer"),
    ("[ main.go -nt etclink ]", "a comparison of times"),
    ("[ -f *.go ]", "a glob"),
    ("test -f main.go ]", "] is a word of test, which takes no four words"),
    ("tree sub -o out", "tree -o writes a file, wherever it stands"),
    ("tree sub -l", "tree -l follows links out"),
    ("tree sub --fromfile", "an unchecked file"),
    ("tree etclink -I x", "a directory outside"),
    ("gh version", "gh's other commands"),
    ("gh --version x", "more than the query"),
]


@pytest.mark.parametrize(("line", "what"), ASKS, ids=[c[0] for c in ASKS])
def test_the_dangerous_sibling_asks(run: Analyse, line: str, what: str) -> None:
    a = run(line)
    assert not a.auto, what
