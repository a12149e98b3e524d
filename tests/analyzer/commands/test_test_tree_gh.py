"""Issue 33's small checkers: test and [, tree's options after a directory, gh --version; each
beside the siblings that must ask (the rest are in test_exploits.py, issue 33's section)."""

from __future__ import annotations

import pytest

from tests.analyzer.conftest import Analyse

RUNS = [
    "[ -f main.go ]",
    "[ ! -d sub ]",
    "[ -e later.txt ] || echo missing",
    "[ x = y ]",
    '[ -n "$" ]',
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


@pytest.mark.usefixtures("tree_on_path")
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


AWK_RUNS = [
    "awk '/package/,/^}/' main.go",
    "awk '{print $1}' main.go util.go",
    "awk -F: '{print $1, NF}' README.md",
    "awk -F : 'NR==1' README.md",
    "awk 'END {print NR}' sub/a.go",
    "awk '{ s += length($0) } END { print s }' main.go",
    "awk '!/^#/ { if ($1 ~ /pack/) print; else next }' main.go",
    "cat main.go | awk 'NR>=1 && NR<=5 {print NR \": \" $0}'",
    "awk '/class DateTime/,/^class [A-Z]/' main.go | grep -n x",
]


@pytest.mark.parametrize("line", AWK_RUNS)
def test_an_awk_program_that_only_prints_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]


AWK_ASKS = [
    ("awk '{print > \"out\"}' main.go", "a redirect writes a file"),
    ("awk '{print $1 >> \"out\"}' main.go", "an appending redirect"),
    ("awk '{print | \"sh\"}' main.go", "a pipe to a program"),
    ("awk 'BEGIN{system(\"id\")}'", "system runs a program"),
    ("awk '{\"id\" | getline x; print x}' main.go", "a command's output read"),
    ("awk 'BEGIN{getline l < \".env\"; print l}'", "getline from a file"),
    ("awk 'BEGIN{print ENVIRON[\"HOME\"]}'", "the environment"),
    ("awk 'BEGIN{ARGV[1]=\".env\"} {print}' main.go", "ARGV names another file"),
    ("awk '{printf \"%999999999d\", 1}' main.go", "printf (a width that fills the memory)"),
    ("awk 'BEGIN{while (1) print}'", "a loop that never ends"),
    ("awk 'function f(){system(\"id\")} BEGIN{f()}'", "a user function"),
    ("awk '@include \"x\"'", "gawk's @include"),
    ("awk '/[/]/' main.go", "a / inside brackets (awk and the grammar could split differently)"),
    ("awk '{print}' .env", "a secret read (the gate asks)"),
    ("awk -f prog.awk main.go", "a program file"),
    ("awk -v x=1 '{print x}' main.go", "an assignment before the program"),
    ("awk -W exec x main.go", "mawk's -W"),
    ("awk -i inplace '{print}' main.go", "gawk -i inplace rewrites the file"),
    ("awk '{print}' FS=: main.go", "an operand awk takes for an assignment"),
    ("awk '{print}'", "standard input as the first stage"),
    ("awk '{print}' -", "standard input"),
    ("awk '{print}' etclink/passwd", "a file through a link out"),
    ("awk '{print}' main.go -F:", "an option after an operand is a file name to awk"),
    ("cat main.go | awk '{print}' .env", "a file after a pipe"),
    ("awk '{print}' *.go", "a glob"),
]


@pytest.mark.parametrize(("line", "what"), AWK_ASKS, ids=[c[0] for c in AWK_ASKS])
def test_an_awk_that_could_write_run_or_read_unchecked_asks(run: Analyse, line: str, what: str) -> None:
    a = run(line)
    if line == "awk '{print}' .env":
        assert ".env" in a.stages[0].reads  # a read, decided by the policy (the shipped ask)
        return
    assert not a.auto, what
