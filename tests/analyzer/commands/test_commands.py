"""Each checker as a table: the forms that must run unasked beside their siblings that must ask."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Private: the checkers' own tables and glob expansion are what these cases pin.
from bastion.analyzer import analyze
from bastion.analyzer.commands import _glob
from bastion.workspace import LocalWorkspace
from tests.analyzer.conftest import Analyse
from tests.plans import by_name

# --- cat, head, tail, wc, grep as the first stage ---------------------------------------------

READERS_RUN = [
    "cat main.go",
    "cat -n main.go util.go",
    "cat -nbsETAv main.go",
    "cat ./main.go",
    "cat sub/a.go",
    "cat missing.txt",
    "cat -- -n",
    "cat alias.txt",
    "cat exact.bin",
    "cat main.go 2>&1",
    "cat main.go >/dev/null",
    "head main.go",
    "head -n 5 main.go",
    "head -n -5 main.go",
    "head -5 main.go",
    "head -c 100 main.go",
    "head --lines=5 main.go",
    "head --bytes=+5 main.go",
    "head -qv main.go util.go",
    "tail -n 3 README.md",
    "tail -n +3 README.md",
    "tail -3 README.md",
    "wc main.go",
    "wc -l main.go util.go",
    "wc -lwcmL main.go",
    "grep package main.go",
    "grep -n package main.go util.go",
    "grep -in -A 2 -B 1 -C 3 -m 4 package main.go",
    "grep -3 package main.go",
    "grep -e package main.go",
    "grep -e a -e b main.go",
    "grep -e -v main.go",
    "grep .env README.md",
    "grep /etc/passwd main.go",
    "grep -- -x main.go",
    "cat " + " ".join(["main.go"] * 20),
]

READERS_ASK = [
    ("cat", "needs a file"),
    ("head", "needs a file"),
    ("grep package", "needs a file"),
    ("grep", "needs a pattern"),
    ("grep -e", "-e needs a value"),
    ("cat " + " ".join(["main.go"] * 21), "more than 20 files"),
    ("cat -", "standard input"),
    ("cat -- -", "standard input after --"),
    ("cat main.go -", "standard input among files"),
    ("cat *", "a glob that matches etclink, a link out"),
    ("cat ?ain.go -n", "an option after a glob"),
    ("grep x *", "a glob that matches etclink"),
    ("wc -l sub/*/*", "a glob that walks into sub/up, then etclink"),
    ("head -n 1 .*", "a dot glob includes .."),
    ("cat -z main.go", "an unknown flag"),
    ("cat --help", "an unknown long option"),
    ("cat --number main.go", "a long option not in the table"),
    ("head -n main.go", "-n needs a number"),
    ("head -n -x main.go", "-n needs a number"),
    ("head -n5 main.go", "an attached form not in the table"),
    ("head --li=5 main.go", "an abbreviated long option"),
    ("head --lines 5 main.go", "a spaced long option"),
    ("head --lines=5x main.go", "a value that is not a count"),
    ("head -5c main.go", "digits with a letter"),
    ("tail -f main.go", "follow mode"),
    ("tail -F main.go", "follow mode"),
    ("tail --follow main.go", "follow mode"),
    ("tail --follow=name main.go", "follow mode"),
    ("tail --retry main.go", "follow mode"),
    ("tail -5f main.go", "old-style follow"),
    ("tail +5f main.go", "old-style follow with +"),
    ("tail +f main.go", "old-style follow with +"),
    ("tail -s 1 main.go", "a follow interval"),
    ("wc --files0-from=x", "reads names from a file"),
    ("wc --files0-from=-", "reads names from standard input"),
    ("grep -f main.go util.go", "patterns from a file"),
    ("grep --file=main.go util.go", "patterns from a file"),
    ("grep -r package .", "recursive, a file below over the read limit"),
    ("grep -R package .", "recursive through links"),
    ("cat main.go | grep -rn package", "recursive after a pipe searches the directory"),
    ("grep -d recurse package main.go", "recursive by -d"),
    ("grep --directories=recurse package main.go", "recursive by a long option"),
    ("grep --exclude-from=x package main.go", "reads a file"),
    ("grep --include x package main.go", "a filter whose glob is the next word"),
    ("grep -D read package main.go", "opens devices"),
    ("grep package .", "a directory"),
    ("grep package sub", "a directory"),
    ("cat pipe", "a FIFO"),
    ("cat over.bin", "one byte over the read limit"),
    ("cat /etc/passwd", "outside"),
    ("cat ../x", "a .. component"),
    ("cat sub/../main.go", "a .. component inside"),
    ("cat etclink/passwd", "through a link out"),
    ("cat outfile", "a link to a file out"),
    ("cat dangling", "a dangling link out"),
    ("cat ghost", "a link through a missing directory then up"),
    ("cat evil/secret.txt", "a link to the sibling directory"),
    ("cat outdir/escape/x", "a relative link that leads out"),
    ("cat main.go /etc/passwd", "one file of two outside"),
    ("cat main.go -n", "an option after a file (POSIXLY_CORRECT makes it a file)"),
    ("cat ''", "an empty name"),
]


@pytest.mark.parametrize("line", READERS_RUN)
def test_a_reader_of_checked_files_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]


@pytest.mark.parametrize(("line", "what"), READERS_ASK, ids=[c[0] for c in READERS_ASK])
def test_a_reader_form_that_could_read_or_run_something_unchecked_asks(
    run: Analyse, line: str, what: str
) -> None:
    a = run(line)
    assert not a.auto
    failed = [s for s in a.stages if not s.ok]
    assert failed, f"{line!r} ({what}) must fail its check"
    assert all(s.why and "\n" not in s.why for s in failed)


@pytest.mark.parametrize(
    ("line", "reads"),
    [
        ("cat main.go", ("main.go",)),
        ("cat notes.txt", ("notes.txt", ".env")),
        ("cat chain1", ("chain1", ".env")),
        ("cat alias.txt main.go", ("alias.txt", "README.md", "main.go")),
        ("cat missing.txt", ("missing.txt",)),
        ("cat later.txt", ("later.txt", "missing.txt")),
        ("grep .env README.md", ("README.md",)),
        ("grep -e x .env", (".env",)),
        ("cat inlink/a.go", ("inlink/a.go", "sub/a.go")),
        ("cat /ROOT/main.go", ("main.go",)),
    ],
)
def test_a_reader_reads_the_name_and_where_its_links_lead(
    run: Analyse, root: object, line: str, reads: tuple[str, ...]
) -> None:
    a = run(line.replace("/ROOT", str(root)))
    assert a.stages[0].ok, a.stages[0].why
    assert a.stages[0].reads == reads


def test_a_read_is_named_from_the_directory_cd_moved_to(run: Analyse) -> None:
    a = run("cd inlink && cat a.go")
    assert a.auto
    assert a.stages[1].reads == ("inlink/a.go", "sub/a.go")
    assert a.stages[1].cwd == "inlink"


# --- filters after a pipe ---------------------------------------------------------------------

FILTERS_RUN = [
    "cat main.go | cat",  # cat after a pipe reads standard input only (issue 14)
    "cat main.go | head",
    "cat main.go | head -n 5",
    "cat main.go | head -5",
    "cat main.go | tail -n +3",
    "cat main.go | wc -l",
    "cat main.go | grep fix",
    "cat main.go | grep -i fix | head -n 3",
    "cat main.go | grep -e a -e b",
    "cat main.go | sort",
    "cat main.go | sort -rn",
    "cat main.go | sort -t , -k 2",
    "cat main.go | sort -k 1,2n",
    "cat main.go | sort -u -f -h -V -b -d",
    "cat main.go | uniq",
    "cat main.go | uniq -c",
    "cat main.go | uniq -cdui -f 2 -s 1 -w 3",
    "cat main.go | cut -d . -f 1",
    "cat main.go | cut -d ' ' -f 1-3",
    "cat main.go | cut -d, -f1,2",
    "cat main.go | cut -c1-3",
    "cat main.go | cut -b 1-3",
    "cat main.go | cut -s --complement -f 2",
    "cat main.go | sort | uniq -c | sort -rn | head -n 5",
    "ls | cut -d . -f 1",
    "ls -la | grep -v total",
    "cat main.go | head -n 5 2>&1",
]

FILTERS_ASK = [
    ("cat main.go | head main.go", "a file after a pipe"),
    ("cat main.go | wc -l main.go", "a file after a pipe"),
    ("cat main.go | grep fix main.go", "a file after a pipe"),
    ("cat main.go | tail -f", "follow mode"),
    ("cat main.go | grep -r fix", "recursive grep reads ."),
    ("cat main.go | grep -f x", "patterns from a file"),
    ("cat main.go | grep", "needs a pattern"),
    ("cat main.go | head -n x", "not a number"),
    ("cat main.go | head -c 99999999999999999999x", "not a number"),
    ("cat main.go | sort -o x", "writes a file"),
    ("cat main.go | sort -ro x", "writes a file, combined"),
    ("cat main.go | sort --output=x", "writes a file"),
    ("cat main.go | sort -T /tmp", "writes temporary files"),
    ("cat main.go | sort --compress-program=sh", "runs a program"),
    ("cat main.go | sort --files0-from=x", "reads names from a file"),
    ("cat main.go | sort main.go", "a file operand"),
    ("cat main.go | sort -t ab", "-t takes one character"),
    ("cat main.go | sort -k x", "a key that is not a key"),
    ("cat main.go | sort --reverse", "a long option not in the table"),
    ("cat main.go | uniq x", "an operand"),
    ("cat main.go | uniq x y", "an output file"),
    ("cat main.go | uniq -f x", "not a number"),
    ("cat main.go | cut -f1 main.go", "a file operand"),
    ("cat main.go | cut -b1-3", "no attached -b"),
    ("cat main.go | cut -d ab -f 1", "-d takes one character"),
    ("cat main.go | cut -dab -f 1", "-d takes one character"),
    ("cat main.go | cut -f x", "not a list"),
    ("cat main.go | cut --output-delimiter=x -f 1", "a long option not in the table"),
    ("cat main.go | sort *", "a glob"),
    ("cat main.go | grep *", "a glob as the pattern"),
    ("cat main.go | ls", "ls is not a filter"),
    ("cat main.go | pwd", "pwd is not a filter"),
    ("sort main.go", "sort as a first stage"),
    ("uniq main.go", "uniq as a first stage"),
    ("cut -f 1 main.go", "cut as a first stage"),
]


@pytest.mark.parametrize("line", FILTERS_RUN)
def test_a_filter_of_standard_input_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]
    assert all(s.reads == () for s in a.stages[1:])


@pytest.mark.parametrize(("line", "what"), FILTERS_ASK, ids=[c[0] for c in FILTERS_ASK])
def test_a_filter_that_reads_writes_or_runs_asks(run: Analyse, line: str, what: str) -> None:
    a = run(line)
    assert not a.auto
    assert any(not s.ok and s.why for s in a.stages), what


# --- ls -------------------------------------------------------------------------------------------

LS_RUN = [
    "ls",
    "ls -la",
    "ls -aAlh1dFtrSsiRkp",
    "ls -la sub",
    "ls -la ./sub",
    "ls sub/",
    "ls newname",
    "ls .env",
    "ls --all .",
    "ls --color=auto",
    "ls --color",
    "ls --time-style=long-iso -l",
    "ls --sort=size",
    "ls --group-directories-first --human-readable",
    "ls -- x",
    "ls -- -n",
    "ls inlink",
    "ls *.go",
    "cd sub && ls -d */",
    "ls -la *.md",
    "ls sub/*.go",
    "ls sub/*",
    "ls ?ain.go",
    "ls *.nothing",
    "ls -d s*",
    "cd sub && ls -d */ x? -l",
    "ls inlink/*",
    "ls ./*.go",
    "ls sub/*/",
    "ls dash/*",
    "ls 2>/dev/null",
]

LS_ASK = [
    ("ls -z", "an unknown flag"),
    ("ls -I x", "an ignore pattern"),
    ("ls --col", "an abbreviated long option"),
    ("ls --color=al'ways;'", "a value outside the style alphabet"),
    ("ls --hyperlink", "a long option not in the table"),
    ("ls --dired", "a long option not in the table"),
    ("ls /etc", "outside"),
    ("ls ..", "the parent"),
    ("ls sub/..", "a .. component"),
    ("ls etclink", "a link out"),
    ("ls etclink/", "a link out"),
    ("ls outdir/escape", "a relative link that leads out"),
    ("ls evil", "a link to the sibling directory"),
    ("ls *", "the glob matches etclink, a link out"),
    ("ls -R *", "the glob matches etclink"),
    ("ls e*", "the glob matches etclink and evil"),
    ("ls sub/*/*", "the glob walks into sub/up"),
    ("ls etclink/*", "the glob walks through a link out"),
    ("ls /*", "an absolute glob outside"),
    ("ls ../*", "a .. in a glob"),
    ("ls sub/../*", "a .. in a glob"),
    ("ls .*", "a dot glob includes .."),
    ("ls ..*", "a dot glob"),
    ("ls sub/.x*", "a dot glob below"),
    ("ls sub/**/*", "** is * here, and sub/*/* walks into sub/up, then etclink"),
]


@pytest.mark.parametrize("line", LS_RUN)
def test_an_ls_that_lists_inside_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]
    assert a.stages[0].reads == ()


@pytest.mark.parametrize(("line", "what"), LS_ASK, ids=[c[0] for c in LS_ASK])
def test_an_ls_that_could_list_outside_asks(run: Analyse, line: str, what: str) -> None:
    a = run(line)
    assert not a.auto
    assert any(not s.ok and s.why for s in a.stages), what


@pytest.mark.parametrize(
    ("line", "rendered"),
    [
        ("ls -la *.go sub", "'ls' '--quoting-style=shell-escape' '-la' 'sub' '--' *.go"),
        ("ls -l -- -n *.go", "'ls' '--quoting-style=shell-escape' '-l' '--' '-n' *.go"),
        ("ls *.go -l", "'ls' '--quoting-style=shell-escape' '-l' '--' *.go"),
        ("ls sub -l *.go", "'ls' '--quoting-style=shell-escape' '-l' 'sub' '--' *.go"),
        ("ls sub -l", "'ls' '--quoting-style=shell-escape' '-l' 'sub' '--'"),
        ("ls -la sub", "'ls' '--quoting-style=shell-escape' '-la' 'sub'"),
        ("cd dash && ls *", "'cd' './dash' && 'ls' '--quoting-style=shell-escape' '--' *"),
        ("cd dash && ls -l * 2>&1", "'cd' './dash' && 'ls' '--quoting-style=shell-escape' '-l' '--' * 2>&1"),
    ],
)
def test_an_ls_with_a_glob_runs_with_every_match_after_the_end_of_options(
    run: Analyse, line: str, rendered: str
) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]
    assert by_name(a) == rendered


@pytest.mark.parametrize(
    ("line", "depends"),
    [
        ("ls *.go", ("main.go", "util.go")),
        ("ls inlink/*.go", ("inlink/a.go", "sub/a.go")),
        ("ls *.nothing", ()),
        ("ls -d s*/", ("sub",)),
        ("cd sub && ls *.go", ("sub/a.go",)),
        ("ls sub", ()),
    ],
)
def test_an_ls_binds_the_names_its_globs_expand_to(run: Analyse, line: str, depends: tuple[str, ...]) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]
    assert a.stages[-1].check.depends == depends


# --- pwd, go ------------------------------------------------------------------------------------


@pytest.mark.usefixtures("go_on_path")
@pytest.mark.parametrize(
    "line",
    [
        "pwd",
        "pwd && pwd",
        "go version",
        "go env GOPATH",
        "go env GOPATH GOFLAGS",
        "go env -json GOROOT",
        "cd sub && pwd",
    ],
)
def test_pwd_and_go_version_and_env_names_run_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]


@pytest.mark.parametrize(
    "line",
    [
        "go",
        "go test ./...",
        "go build ./...",
        "go vet ./...",
        "go list ./...",
        "go run .",
        "go mod tidy",
        "go testing",
    ],
)
def test_other_go_commands_are_left_to_the_rules(run: Analyse, line: str) -> None:
    a = run(line)
    assert not a.auto
    assert a.stages[0].ok and a.stages[0].governed and not a.stages[0].check.auto


@pytest.mark.parametrize(
    "line",
    [
        "pwd -P",
        "pwd x",
        "pwd -L",
        "go version -m x",
        "go env",
        "go env -json",
        "go env -w GOFLAGS=-x",
        "go env -u GOFLAGS",
        "go env GOFLAGS=-x",
        "go env -changed",
        "go env gopath",
        "go test *.go",
    ],
)
def test_pwd_and_go_forms_outside_the_table_ask(run: Analyse, line: str) -> None:
    a = run(line)
    assert not a.auto
    assert not a.stages[0].ok and a.stages[0].why


# --- cd -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "cwd"),
    [
        ("cd sub && ls", "sub"),
        ("cd sub/deep && ls -la", "sub/deep"),
        ("cd sub && cd deep && ls", "sub/deep"),
        ("cd . && ls", "."),
        ("cd ./sub && ls", "sub"),
        ("cd inlink && ls", "inlink"),
        ("cd /ROOT/sub && ls", "sub"),
        ("cd empty && pwd", "empty"),
    ],
)
def test_cd_into_a_directory_inside_moves_the_later_stages(
    run: Analyse, root: object, line: str, cwd: str
) -> None:
    a = run(line.replace("/ROOT", str(root)))
    assert a.auto, [s.why for s in a.stages]
    assert a.stages[-1].cwd == cwd


def test_cd_binds_its_directory_and_where_it_leads(run: Analyse) -> None:
    a = run("cd inlink")
    assert a.auto
    assert a.stages[0].check.depends == ("inlink", "sub")
    assert a.stages[0].check.cwd == "inlink"


def test_cd_runs_with_a_dot_slash_so_cdpath_cannot_send_it_elsewhere(run: Analyse) -> None:
    assert by_name(run("cd sub && ls")) == "'cd' './sub' && 'ls' '--quoting-style=shell-escape'"


@pytest.mark.parametrize(
    "line",
    [
        "cd && ls",
        "cd - && ls",
        "cd -P sub && ls",
        "cd .. && ls",
        "cd sub/.. && ls",
        "cd /etc && ls",
        "cd etclink && ls",
        "cd evil && ls",
        "cd nosuchdir && ls",
        "cd main.go && ls",
        "cd sub deep && ls",
        "cd s* && ls",
        "cd sub >/dev/null && ls",
        "cd sub 2>&1 && ls",
        "cd sub | ls",
        "ls | cd sub",
        "cd outdir/escape && ls",
        "cd pipe && ls",
    ],
)
def test_cd_anywhere_but_an_existing_directory_inside_asks(run: Analyse, line: str) -> None:
    a = run(line)
    assert not a.auto
    assert any(not s.ok and s.why for s in a.stages)


@pytest.mark.parametrize(
    "line",
    [
        "cd sub && cat ../main.go",
        "cd sub && ls ..",
        "cd sub && cat /etc/passwd",
        "cd sub/deep && cat ../a.go",
        "cd sub && cd .. && ls",
        "cd outdir && cat escape/x",
    ],
)
def test_paths_after_cd_are_judged_from_the_new_directory(run: Analyse, line: str) -> None:
    assert not run(line).auto


@pytest.mark.parametrize(
    ("name", "target"),
    [("\u00e9", "/etc"), ("\u00e9", None), ("caf\u00e9.go", None), ("a\udcff", None)],
)
@pytest.mark.parametrize("pattern", ["?", "??", "??*", "*.go", "*"])
def test_a_glob_over_a_directory_with_a_non_ascii_name_asks(
    tmp_path: Path, name: str, target: str | None, pattern: str
) -> None:
    (tmp_path / "main.go").write_text("package main\n")
    path = os.fsencode(tmp_path) + b"/" + os.fsencode(name)
    if target is None:
        open(path, "wb").close()
    else:
        os.symlink(target, path)
    a = analyze(f"ls {pattern}", LocalWorkspace(str(tmp_path)))
    assert not a.auto
    assert "ASCII" in a.stages[0].why


@pytest.mark.parametrize("pattern", ["?", "??", "??*", "*.go", "*"])
def test_a_glob_over_ascii_names_inside_runs(tmp_path: Path, pattern: str) -> None:
    for name in ("a", "ab", "main.go"):
        (tmp_path / name).write_text("x\n")
    a = analyze(f"ls {pattern}", LocalWorkspace(str(tmp_path)))
    assert a.auto, a.stages[0].why


@pytest.mark.parametrize(("files", "asks"), [(3, False), (4, True)])
def test_a_glob_with_more_matches_than_the_limit_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: int, asks: bool
) -> None:
    monkeypatch.setattr(_glob, "MAX_MATCHES", 3)
    for i in range(files):
        (tmp_path / f"f{i}").touch()
    a = analyze("ls f*", LocalWorkspace(str(tmp_path)))
    assert a.auto is not asks
    assert ("more than 3" in a.stages[0].why) is asks


def test_the_glob_limit_is_five_thousand() -> None:
    assert _glob.MAX_MATCHES == 5000


def test_a_glob_over_an_unreadable_directory_asks(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "x").touch()
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running as a user who reads every directory")
        a = analyze("ls locked/*", LocalWorkspace(str(tmp_path)))
        assert not a.auto
        assert "cannot be read" in a.stages[0].why
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("grep -f main.go util.go", "grep -f reads patterns from a file that is not checked"),
        ("grep -Rn x main.go", "grep -R reads every file below a directory and follows links"),
        ("grep --directories=recurse x main.go", "grep --directories=recurse reads every file"),
        ("wc --files0-from=x", "wc --files0-from reads the names"),
        ("tail -f main.go", "follow mode"),
        ("tail +5f main.go", "old-style option"),
        ("cat main.go | sort -o x", "sort -o writes its output to a file"),
        ("cat main.go | sort --compress-program=sh", "runs a program"),
        ("cat main.go | uniq a b", "output file"),
        ("head --li=5 main.go", "not an option bastion knows"),
        ("cat pipe", "not a regular file"),
        ("cat over.bin", "read limit"),
        ("nl *.go", "only ls, cat, head, tail, wc and grep take a glob"),
        ("ls .*", "expands to include .."),
        ("ls *", "leads out of the working directory"),
    ],
)
def test_a_refusal_says_which_attack_it_closes(run: Analyse, line: str, reason: str) -> None:
    why = next(s.why for s in run(line).stages if not s.ok)
    assert reason in why
    assert "\n" not in why and why.count(". ") == 0


def test_a_checker_that_fails_inside_asks(ws: LocalWorkspace, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> object:
        raise RuntimeError("boom")

    from bastion.analyzer.commands import _cd_pwd_go, _readers

    monkeypatch.setattr(_readers, "resolve", broken)
    monkeypatch.setattr(_cd_pwd_go, "resolve", broken)
    for line in ("cat main.go", "cd sub"):
        a = analyze(line, ws)
        assert not a.auto and not a.stages[0].ok and "boom" in a.stages[0].why
