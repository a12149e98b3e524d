"""echo, printf, true, false, test, od, and cat as a filter (issue 14): each allowed form beside the
siblings that must ask, with the attack each refusal closes in its reason."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

# Private: the wording helper and the shipped allow-list are pinned as written.
from bastion.analyzer.commands._prints import _format_why
from bastion.policy._shipped import SHIPPED_ALLOW
from tests.analyzer.conftest import Analyse

RUN = [
    "echo", "echo hi", "echo 'a b' c", "echo -n x", "echo -e 'a\\tb\\n'", "echo -E x", "echo -ne x",
    "echo --", "echo -- -n", 'echo "Patch file contains changes to:"', "echo COMPLETE && cat main.go",
    "printf '%s\\n' a b", "printf -- '-%d\\n' 3", "printf '%(%F)T\\n' -1", "printf '%5.2f|%-8s|%%' 3 x",
    "printf x", "printf '%q %b' 'a b' 'c\\td'", "printf '%04x' 255", "printf -- -v",
    "true", "false", "go env GOTOOLCHAIN && true", "cat main.go && false || true",
    "test x", "test ''", "test -f main.go", "test -d sub", "test -e missing.txt", "test -s README.md",
    "test -r main.go", "test -w main.go", "test -x main.go", "test -L notes.txt", "test -h alias.txt",
    "test -f .env", "test -n x", "test -z ''", "test a = b", "test a == b", "test a '!=' b",
    "test ! -f main.go", "test ! a = b", "test !", "test ! x", "test -d sub && ls sub || echo missing",
    "sed -n 1p main.go | cat -A", "cat main.go | cat -v", "cat main.go | cat -nET", "cat main.go | cat",
    "cat main.go | od -c", "sed -n 1p main.go | od -An -tx1", "od -c main.go", "od -A x -t x1z main.go",
    "od -w16 -N 8 -j 2 main.go", "od --width=8 --format=c main.go",
]  # fmt: skip


@pytest.mark.usefixtures("go_on_path")
@pytest.mark.parametrize("line", RUN)
def test_a_line_that_only_prints_or_tests_names_inside_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]


ASK = [
    # Words bash would expand or redirect: outside the subset or refused.
    ("echo *.go", "a glob expands to names never seen"),
    ("echo $(id)", "a substitution runs a program"),
    ("echo hi > out", "a redirect to a file writes it"),
    ("echo hi >> main.go", "an appending redirect writes"),
    ("echo x | tee out", "tee writes a file"),
    ("printf *.go", "a glob expands to names never seen"),
    # printf: -v assigns instead of printing; widths that fill memory; conversions not known.
    ("printf -v x hi", "printf -v assigns a variable"),
    ("printf -vx hi", "printf -v attached assigns a variable"),
    ("printf --help", "an option that is not --"),
    ("printf", "no format"),
    ("printf '%*d' 99999999 1", "a width from an argument"),
    ("printf '%.*f' 99999999 1", "a precision from an argument"),
    ("printf '%99999999d' 1", "a width of eight digits"),
    ("printf 'a%nb' x", "%n, which C's printf uses to write memory"),
    ("printf '%'", "a conversion cut short"),
    ("printf '%(%F' 1", "a time conversion left open"),
    # true and false take nothing.
    ("true --help", "an argument to true"),
    ("false x", "an argument to false"),
    # test: names that lead out, other tests, joined expressions.
    ("test -f ../x", "a name outside"),
    ("test -f /etc/passwd", "an absolute name outside"),
    ("test -f etclink/passwd", "a link that leads out"),
    ("test -e outfile", "a link to /etc/passwd"),
    ("test -d outdir/escape", "a link that climbs out"),
    ("test -e evil", "a link to the sibling directory"),
    ("test ! -e ghost", "a negated test of a link that leads out"),
    ("test -f -", "'-' as a name"),
    ("test -f *.go", "a glob"),
    ("test -t 0", "a terminal test"),
    ("test -v HOME", "a variable test"),
    ("test -N main.go", "a test this table does not know"),
    ("test main.go -nt /etc/passwd", "a time comparison with a file outside"),
    ("test main.go -ef outfile", "a comparison of files, one outside"),
    ("test -f main.go -a -f /etc/passwd", "an expression joined with -a"),
    ("test -f main.go -o -e /etc/shadow", "an expression joined with -o"),
    ("test 1 -eq 1 -a -e /root", "a longer expression"),
    ("[ -f main.go", "[ needs ] as its last word"),
    ("test ! ! -f /etc/passwd", "a double negation around a name outside"),
    # cat and od after a pipe read standard input only; od first reads files as cat does.
    ("cat main.go | cat .env", "a file operand after a pipe"),
    ("cat main.go | cat -", "'-' after a pipe"),
    ("cat main.go | cat -u", "a flag cat's table does not list"),
    ("cat main.go | od -c .env", "a file operand after a pipe"),
    ("od -c /etc/passwd", "a file outside"),
    ("od -c outfile", "a link outside"),
    ("od -c pipe", "a FIFO blocks"),
    ("od -c", "standard input"),
    ("od -S 4 main.go", "a flag not listed"),
    ("od --traditional main.go +1", "a traditional offset"),
    ("od -c main.go +1", "a +offset"),
]


@pytest.mark.parametrize(("line", "what"), ASK, ids=[line for line, _ in ASK])
def test_a_sibling_that_writes_reads_out_or_runs_asks(run: Analyse, line: str, what: str) -> None:
    a = run(line)
    assert not a.auto, f"{line!r} ({what}) would run as {a.rendered!r}"


@pytest.mark.parametrize(
    ("line", "reads"),
    [
        ("od -c .env", (".env",)),
        ("od -c notes.txt", ("notes.txt", ".env")),
        ("od -w .env", (".env",)),
        ("od -t x1 -w 16 .env", ("16", ".env")),
    ],
)
def test_od_reports_each_file_it_reads_so_that_a_secret_asks(
    run: Analyse, line: str, reads: tuple[str, ...]
) -> None:
    # -w takes its value attached only: `-w 16` makes 16 a file name, as od reads it.
    assert run(line).stages[0].reads == reads


def test_each_refusal_says_what_it_closes(run: Analyse) -> None:
    for line, why in [
        ("printf -v x hi", "assigns"),
        ("printf '%*d' 9 1", "memory"),
        ("true x", "no arg"),
        ("test -t 0", "terminals"),
        ("cat main.go | cat .env", "standard input"),
    ]:
        reasons = [s.why for s in run(line).stages if s.governed and not s.ok]
        assert reasons and why in reasons[0], (line, reasons)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="%-+ #0123456789.*()sdTnxbq", max_size=12))
def test_an_accepted_printf_format_has_only_known_conversions_and_small_widths(fmt: str) -> None:
    if _format_why(fmt):
        return
    i = 0
    while (i := fmt.find("%", i)) >= 0:
        j = i + 1
        while j < len(fmt) and fmt[j] in "-+ #0":
            j += 1
        digits = j
        while j < len(fmt) and fmt[j] in "0123456789.":
            j += 1
        assert "*" not in fmt[digits:j] and all(len(d) <= 4 for d in fmt[digits:j].split("."))
        assert j < len(fmt), fmt
        if fmt[j] == "(":
            assert ")T" in fmt[j:], fmt
            i = fmt.index(")", j) + 2
        else:
            assert fmt[j] in "sdxbq%", fmt
            i = j + 1


def test_the_shipped_policy_allows_the_new_commands() -> None:
    for rule in ("bash(echo:*)", "bash(printf:*)", "bash(true)", "bash(false)", "bash(test:*)", "bash(od:*)"):
        assert rule in SHIPPED_ALLOW
