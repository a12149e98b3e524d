"""The commands of issue 14 that had no checker: each allowed form beside the siblings that must ask.

sed (print-only scripts), nl, strings, file, diff, cmp (they read files), find, realpath, readlink,
stat, du, tree (they look at names), basename, dirname, which and tr (they print words). Each
refusal names the attack it closes in its reason; the tables say which one in words.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.analyzer import analyze

# Private: sed's flag table and script judge, and the version queries, are the checker internals tested.
from bastion.analyzer.commands._sed import SED_FLAGS, script_prints_only
from bastion.workspace import LocalWorkspace
from tests.analyzer.conftest import Analyse


def _asks(run: Analyse, line: str, what: str) -> None:
    a = run(line)
    assert not a.auto, what
    failed = [s for s in a.stages if s.governed and not s.ok]
    assert failed, f"{line!r} ({what}) must fail its check"
    assert all(s.why and "\n" not in s.why for s in failed)


# --- sed ------------------------------------------------------------------------------------------

SED_RUN = [
    "sed -n '1,5p' main.go",
    "sed -n 1,5p main.go",
    "sed -n '2235,2400p' main.go",
    "sed -n '$p' main.go",
    "sed -n '1~2p' main.go",
    "sed -n '3,+4p' main.go",
    "sed -n '3,~4p' main.go",
    "sed -n '/package/p' main.go",
    "sed -n '/a\\/b/p' main.go",
    "sed -n '/start/,/end/p' main.go",
    "sed -n '/[/]w out/p' main.go",
    "sed -n '/^[[:space:]]*$/d' main.go",
    "sed -n '/x/I,/y/Mp' main.go",
    "sed -n '1,5p;10,12p' main.go",
    "sed -n '/x/{p;q}' main.go",
    "sed -n '/x/{=;l 20}' main.go",
    "sed -n '1,5!p' main.go",
    "sed '10q' main.go",
    "sed '1,3d' main.go",
    "sed -n 'n;p' main.go",
    "sed -n -e '1p' -e '2p' main.go util.go",
    "sed -n --expression=1p main.go",
    "sed -nE '/a|b/p' main.go",
    "sed -r -s -u -z --posix -n 1p main.go",
    "sed -n -l 40 l main.go",
    "sed -n 1p missing.txt",
    "cat main.go | sed -n '1,5p'",
    "cat main.go | sed -n '/x/p' | head -n 3",
    "ls | sed -n 2p",
]

SED_ASK = [
    ("sed -i 's/a/b/' main.go", "-i writes the file"),
    ("sed --in-place -n 1p main.go", "--in-place writes the file"),
    ("sed -ni 1p main.go", "-i hidden among letters"),
    ("sed --follow-symlinks -n 1p main.go", "only for -i, which writes through a link"),
    ("sed -f main.go util.go", "the script from an unchecked file"),
    ("sed --file=main.go util.go", "the script from an unchecked file"),
    ("sed 's/a/b/' main.go", "s is outside the print-only commands"),
    ("sed 's/a/b/w out' main.go", "s///w writes a file"),
    ("sed 's/a/date/e' main.go", "s///e runs a command"),
    ("sed -n '1w out' main.go", "w writes a file"),
    ("sed -n '1,5p;w out' main.go", "w after a print"),
    ("sed -n '1W out' main.go", "W writes a file"),
    ("sed '1r .env' main.go", "r reads an unchecked file"),
    ("sed '1R .env' main.go", "R reads an unchecked file"),
    ("sed '1e touch x' main.go", "e runs a command"),
    ("sed 'e' main.go", "e alone runs the pattern space"),
    ("sed -n '/a\\\\/w out/p' main.go", "an escaped backslash ends the regex before w"),
    ("sed -n '/[/w out/p' main.go", "a bracket never closed, in which sed reads the / on"),
    ("sed -n '/中\\/w out/p' main.go", "a backslash that ends a wide character in GB18030"),
    ("sed -n '\\%x%p' main.go", "another regex delimiter"),
    ("sed -n '1{p;w out}' main.go", "w inside a block"),
    ("sed -n -e '1p' -e 'w out' main.go", "w in a second -e"),
    ("sed -n 'pp' main.go", "two commands without a separator"),
    ("sed -n 1p", "no file reads standard input"),
    ("sed -n 1p -", "standard input"),
    ("sed", "no script"),
    ("sed -n 1p /etc/passwd", "outside"),
    ("sed -n 1p etclink/passwd", "through a link out"),
    ("sed -n 1p pipe", "a FIFO"),
    ("sed -n 1p over.bin", "over the read limit"),
    ("sed -n 1p sub", "a directory"),
    ("sed -n 1p *.go", "a glob"),
    ("sed -n 1p main.go -i", "an option after a file"),
    ("sed --debug -n 1p main.go", "an option not in the table"),
    ("sed -n -l x l main.go", "a line length that is not a number"),
    ("cat main.go | sed -n 1p main.go", "a file after a pipe"),
    ("cat main.go | sed -i 1p", "-i after a pipe"),
]


@pytest.mark.parametrize("line", SED_RUN)
def test_a_sed_that_only_prints_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]


@pytest.mark.parametrize(("line", "what"), SED_ASK, ids=[c[0] for c in SED_ASK])
def test_a_sed_that_could_write_read_unchecked_or_run_asks(run: Analyse, line: str, what: str) -> None:
    _asks(run, line, what)


def test_sed_reports_the_files_it_reads_so_a_secret_asks(run: Analyse) -> None:
    assert run("sed -n '1,5p' notes.txt").stages[0].reads == ("notes.txt", ".env")
    assert run("sed -n 1p .env").stages[0].reads == (".env",)


@pytest.mark.parametrize("command", list("wWrReysaiczxFv:"))
def test_no_sed_command_that_writes_reads_or_runs_is_in_the_grammar(command: str) -> None:
    for script in (f"{command} x", f"1{command}", f"1,2{command} /tmp/x", f"/a/{{{command} x}}"):
        assert not script_prints_only(script), script


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.from_regex(
            r"(?:[0-9]+|\$)(?:,(?:[0-9]+|\$))?p(?:;(?:[0-9]+|\$)(?:,(?:[0-9]+|\$))?p)*", fullmatch=True
        ),
        st.text(alphabet="0123456789,$p;wqe /\n", max_size=14),
    )
)
def test_the_line_print_shortcut_accepts_only_sentences_of_the_grammar(script: str) -> None:
    from bastion.analyzer.commands import _sed

    if _sed._LINE_PRINTS.fullmatch(script):
        _sed.SCRIPT.parse(script)  # raises if the grammar does not accept it


@pytest.mark.parametrize("script", ["1,5p", "$p", "10p;20,$p", "3p"])
def test_the_line_print_shortcut_covers_the_common_scripts(script: str) -> None:
    from bastion.analyzer.commands import _sed

    assert _sed._LINE_PRINTS.fullmatch(script)
    _sed.SCRIPT.parse(script)


def test_sed_has_no_flag_that_takes_a_file() -> None:
    assert "-i" not in SED_FLAGS.bare and "i" not in SED_FLAGS.letters
    assert not {"-f", "--file", "-i", "--in-place"} & set(SED_FLAGS.spaced)


# --- nl, strings, file, diff, cmp ------------------------------------------------------------------

CONTENTS_RUN = [
    "nl main.go",
    "nl -ba main.go",
    "nl -b a main.go",
    "nl -bpfunc -nrz -w 4 -s : -v 10 -i 2 main.go",
    "nl --body-numbering=a --number-width=3 main.go util.go",
    "nl -ba main.go | sed -n '2,4p'",
    "cat main.go | nl -ba",
    "strings main.go",
    "strings -n 8 -a -t x main.go",
    "strings -8 main.go",
    "cat main.go | strings",
    "file main.go",
    "file -b --mime-type main.go util.go",
    "file sub",
    "file -L alias.txt",
    "diff main.go util.go",
    "diff -u main.go util.go",
    "diff -U 3 main.go util.go",
    "diff --unified=5 -w main.go util.go",
    "diff -q main.go util.go",
    "cmp main.go util.go",
    "cmp -l -n 10 main.go util.go",
]

CONTENTS_ASK = [
    ("nl", "standard input"),
    ("nl -", "standard input"),
    ("nl -ba /etc/passwd", "outside"),
    ("nl -bx main.go", "a numbering style nl does not have"),
    ("nl -n xx main.go", "a number format nl does not have"),
    ("nl main.go -ba", "an option after a file"),
    ("nl sub", "a directory"),
    ("nl pipe", "a FIFO"),
    ("cat main.go | nl main.go", "a file after a pipe"),
    ("strings @main.go", "@file reads options from an unchecked file"),
    ("strings -T elf main.go", "an object format"),
    ("strings outfile", "a link out"),
    ("cat main.go | strings @x", "@file after a pipe"),
    ("file -f main.go", "names from an unchecked file"),
    ("file --files-from=main.go", "names from an unchecked file"),
    ("file -m main.go util.go", "magic from a file of the caller's choice"),
    ("file --magic-file=main.go util.go", "magic from a file of the caller's choice"),
    ("file -C -m x", "compiles and writes a .mgc file"),
    ("file -z main.go", "can run a decompressor"),
    ("file -Z main.go", "can run a decompressor"),
    ("file -s main.go", "reads devices"),
    ("file -p main.go", "sets access times back, a write"),
    ("file pipe", "a FIFO"),
    ("file /etc/passwd", "outside"),
    ("file etclink", "a link out"),
    ("file -", "standard input"),
    ("diff main.go", "one operand"),
    ("diff main.go util.go README.md", "three operands"),
    ("diff -r sub docs", "recursive reads unchecked files"),
    ("diff sub docs", "directories: their files are read unchecked"),
    ("diff -N main.go util.go", "only for directories"),
    ("diff --to-file=main.go util.go", "pairs not checked"),
    ("diff --from-file=main.go util.go", "pairs not checked"),
    ("diff -X main.go util.go README.md", "patterns from an unchecked file"),
    ("diff main.go -", "standard input"),
    ("diff main.go /etc/passwd", "outside"),
    ("diff main.go outfile", "a link out"),
    ("diff --color=x main.go util.go", "a colour that is not a mode"),
    ("cmp main.go util.go 10 20", "offsets as operands"),
    ("cmp main.go", "one operand"),
    ("cmp main.go /etc/passwd", "outside"),
    ("cat main.go | diff - main.go", "diff is not a filter"),
    ("cat main.go | file -", "file is not a filter"),
]


@pytest.mark.parametrize("line", CONTENTS_RUN)
def test_a_reader_of_contents_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]


@pytest.mark.parametrize(("line", "what"), CONTENTS_ASK, ids=[c[0] for c in CONTENTS_ASK])
def test_a_reader_of_contents_that_could_read_unchecked_write_or_run_asks(
    run: Analyse, line: str, what: str
) -> None:
    _asks(run, line, what)


@pytest.mark.parametrize(
    ("line", "reads"),
    [
        ("nl -ba notes.txt", ("notes.txt", ".env")),
        ("strings .env", (".env",)),
        ("file notes.txt", ("notes.txt", ".env")),
        ("file sub", ()),
        ("diff main.go notes.txt", ("main.go", "notes.txt", ".env")),
        ("cmp .env main.go", (".env", "main.go")),
    ],
)
def test_a_reader_of_contents_reports_what_it_reads_so_a_secret_asks(
    run: Analyse, line: str, reads: tuple[str, ...]
) -> None:
    a = run(line)
    assert a.stages[0].ok, a.stages[0].why
    assert a.stages[0].reads == reads


# --- find -----------------------------------------------------------------------------------------

FIND_RUN = [
    "find",
    "find .",
    "find . -name '*.go'",
    "find . -type f -name '*.go'",
    "find sub -maxdepth 2 -type d",
    "find . -iname '*READ*' -o -ipath '*deep*'",
    "find . -path ./sub -prune -o -name '*.go' -print",
    "find . '(' -name '*.go' -o -name '*.md' ')' -print0",
    "find . '!' -path '*/.git*' -type f",
    "find . -not -name x -a -empty",
    "find . -size +1k -mtime -7 -mmin +5",
    "find . -newer main.go",
    "find . -type f,l -ls",
    "find -P . -mindepth 1 -maxdepth 1 -quit",
    "find . -regex '.*go' -perm -644",
    "find sub docs -name x",
    "find .env -name x",
    "find inlink -name '*.go'",
    "find . -name '*.go' | head -n 5",
    "find . -name '*.go' | sort | uniq",
]

FIND_ASK = [
    ("find . -exec cat '{}' ';'", "-exec runs a program"),
    ("find . -execdir ls ';'", "-execdir runs a program"),
    ("find . -ok ls ';'", "-ok runs a program"),
    ("find . -okdir ls ';'", "-okdir runs a program"),
    ("find . -delete", "-delete removes files"),
    ("find . -name x -delete", "-delete after a test"),
    ("find . -fprint out", "-fprint writes a file"),
    ("find . -fprint0 out", "-fprint0 writes a file"),
    ("find . -fprintf out %p", "-fprintf writes a file"),
    ("find . -fls out", "-fls writes a file"),
    ("find -L .", "-L follows links out"),
    ("find -H etclink", "-H follows a link out"),
    ("find . -follow", "-follow follows links out"),
    ("find -files0-from main.go", "starting points from an unchecked file"),
    ("find -D exec .", "debug options"),
    ("find . -printf %p", "an action not in the table"),
    ("find . -name", "a test without its value"),
    ("find . -type x", "a type find does not have"),
    ("find . -maxdepth x", "a depth that is not a number"),
    ("find . -newer /etc/passwd", "a file outside compared"),
    ("find . -newer etclink", "a link out compared"),
    ("find /etc -name passwd", "a starting point outside"),
    ("find '~' -name x", "a home directory"),
    ("find .. -name x", "the parent"),
    ("find etclink -name x", "a starting point through a link out"),
    ("find evil -name x", "a link to the sibling directory"),
    ("find . -name *.go", "an unquoted glob that bash expands"),
    ("find . -name x foo", "a word that is not a test"),
    ("find . -name x /etc", "a starting point after the expression"),
]


@pytest.mark.parametrize("line", FIND_RUN)
def test_a_find_that_lists_inside_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]
    assert a.stages[0].reads == ()


@pytest.mark.parametrize(("line", "what"), FIND_ASK, ids=[c[0] for c in FIND_ASK])
def test_a_find_that_could_run_write_delete_or_walk_out_asks(run: Analyse, line: str, what: str) -> None:
    _asks(run, line, what)


# --- realpath, readlink, stat, du, tree ---------------------------------------------------------

NAMES_RUN = [
    "realpath main.go",
    "realpath -e sub/a.go alias.txt",
    "realpath --relative-to=sub main.go",
    "realpath missing.txt",
    "readlink alias.txt",
    "readlink -f notes.txt",
    "stat main.go",
    "stat -c %s main.go .env",
    "stat --format=%n -L alias.txt",
    "du",
    "du -sh .",
    "du -h --max-depth=1 sub",
    "du -d 1 -a --exclude='*.go' sub",
    "tree",
    "tree -L 2 sub",
    "tree -a -I node_modules --noreport",
    "tree --dirsfirst -d docs",
]

NAMES_ASK = [
    ("realpath /etc/passwd", "outside"),
    ("realpath etclink", "a link out"),
    ("realpath --relative-to=/etc main.go", "a base outside"),
    ("realpath", "no name"),
    ("readlink outfile", "a link out"),
    ("readlink ../x", "the parent"),
    ("stat /etc/passwd", "outside"),
    ("stat", "no name"),
    ("stat -", "standard input"),
    ("du -L .", "-L follows links out"),
    ("du --dereference .", "--dereference follows links out"),
    ("du -X main.go .", "patterns from an unchecked file"),
    ("du --exclude-from=main.go .", "patterns from an unchecked file"),
    ("du --files0-from=main.go", "names from an unchecked file"),
    ("du /", "outside"),
    ("du etclink", "a link out"),
    ("du -sh *", "a glob"),
    ("tree -o out", "-o writes a file"),
    ("tree -l", "-l follows links out"),
    ("tree --fromfile main.go", "a listing from an unchecked file"),
    ("tree -R -H x", "-R writes a file in every directory"),
    ("tree --gitignore", "reads unchecked files"),
    ("tree /etc", "outside"),
    ("tree -L x", "a level that is not a number"),
]


@pytest.mark.usefixtures("tree_on_path")
@pytest.mark.parametrize("line", NAMES_RUN)
def test_a_lister_of_names_inside_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]
    assert a.stages[0].reads == ()


@pytest.mark.parametrize(("line", "what"), NAMES_ASK, ids=[c[0] for c in NAMES_ASK])
def test_a_lister_of_names_that_could_look_outside_or_write_asks(run: Analyse, line: str, what: str) -> None:
    _asks(run, line, what)


# --- basename, dirname, which, tr ------------------------------------------------

WORDS_RUN = [
    "basename sub/a.go",
    "basename -s .go sub/a.go",
    "basename -a x/y z/w",
    "dirname /etc/passwd",
    "which git",
    "which -a python3 node",
    "cat main.go | tr a-z A-Z",
    "cat main.go | tr -d '\\r'",
    "cat main.go | tr -s ' ' | cut -d ' ' -f 1",
]

WORDS_ASK = [
    ("basename", "no operand"),
    ("basename --help x", "an option not in the table"),
    ("dirname *", "a glob"),
    ("which", "no name"),
    ("which ./run", "a path, not a program's name"),
    ("which /bin/sh", "a path"),
    ("which --skip-alias ls", "an option not in the table"),
    ("tr a b", "tr as a first stage reads the terminal"),
    ("cat main.go | tr", "no set"),
    ("cat main.go | tr a b c", "three operands"),
    ("cat main.go | tr --help", "an option not in the table"),
    ("cat main.go | which ls", "which is not a filter"),
]


@pytest.mark.parametrize("line", WORDS_RUN)
def test_a_command_that_only_prints_its_words_runs_unasked(run: Analyse, line: str) -> None:
    a = run(line)
    assert a.auto, [s.why for s in a.stages]
    assert all(s.reads == () for s in a.stages if s.stage.command != "cat")


@pytest.mark.parametrize(("line", "what"), WORDS_ASK, ids=[c[0] for c in WORDS_ASK])
def test_a_printer_given_names_it_never_saw_or_a_path_asks(run: Analyse, line: str, what: str) -> None:
    _asks(run, line, what)


# --- X --version -----------------------------------------------------------------------------------

_ELF = b"\x7fELF\x02\x01\x01\x00"


def _programs(directory: Path, programs: dict[str, bytes]) -> str:
    directory.mkdir(parents=True, exist_ok=True)
    for name, head in programs.items():
        path = directory / name
        path.write_bytes(head + b"\n")
        path.chmod(0o755)
    return str(directory)


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH of one directory outside the workspace: binaries, a shim script and an entry point."""
    bin_dir = _programs(tmp_path / "bin", {
        "node": _ELF, "ruff": _ELF, "tmux": _ELF, "python": _ELF,
        "python3": b"#!/usr/bin/env bash\nexec pyenv exec python3",  # a version manager's shim
        "python3.12": _ELF,
        "mypy": b"#!" + bytes(tmp_path / "bin" / "python3.12") + b"\nimport mypy",
    })  # fmt: skip
    monkeypatch.setenv("PATH", bin_dir)
    return tmp_path / "bin"


@pytest.mark.parametrize(
    "line",
    [
        "node --version",
        "node -v",
        "ruff --version",
        "ruff -V",
        "tmux -V",
        "python --version",
        "python -V",
        "mypy --version",
        "mypy -V",
    ],
)
def test_a_version_query_of_a_known_toolchain_runs_the_program_checked(
    run: Analyse, tools: Path, line: str
) -> None:
    """The plan names the program by the path that was checked: a shell with another PATH (a venv
    inside the project activated by the hook's caller) runs the same one."""
    a = run(line)
    assert a.auto, [s.why for s in a.stages]
    command, query = line.split()
    assert a.rendered == f"'{tools}/{command}' '{query}'"


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ("python3 --version", "a shim script runs a version manager, which reads the project's settings"),
        ("node --version --v8-options", "more words than the query"),
        ("node --version x.js", "a script after the query"),
        ("tmux --version", "a word that is not tmux's query"),
        ("node -e 1", "runs code"),
        ("python -c 1", "runs code"),
        ("mypy .", "runs the checker on the project"),
    ],
)
def test_anything_but_a_plain_version_query_is_not_run_unasked(
    run: Analyse, tools: Path, line: str, what: str
) -> None:
    assert not run(line).auto, what


def test_a_version_query_of_a_program_inside_the_workspace_asks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project's own venv (or a planted `bin/node`) on PATH is the project's code."""
    monkeypatch.setenv("PATH", _programs(tmp_path / "bin", {"node": _ELF}))
    a = analyze("node --version", LocalWorkspace(str(tmp_path)))
    assert not a.auto
    assert "inside the working directory" in a.stages[0].why


@pytest.mark.parametrize("path", ["bin", ".", ""])
def test_a_version_query_with_a_relative_path_entry_holding_the_program_asks(
    tmp_path: Path, tools: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """As typed, the line would run the project's node; the plan would run another: it asks."""
    root = tmp_path / "ws"
    _programs(root / (path or "."), {"node": _ELF})
    monkeypatch.setenv("PATH", f"{path}:{tools}")
    a = analyze("node --version", LocalWorkspace(str(root)))
    assert not a.auto and "the project's own program" in a.stages[0].why


@pytest.mark.parametrize("path", ["bin", ".", ""])
def test_a_relative_path_entry_without_the_program_is_passed_over(
    run: Analyse, tools: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """The plan names the program found on an absolute entry, so the directory it runs in cannot
    change it."""
    monkeypatch.setenv("PATH", f"{path}:{tools}")
    assert run("node --version").rendered == f"'{tools}/node' '--version'"


def test_pytest_is_not_in_the_version_table() -> None:
    """pytest --version imports conftest.py and plugins: project code."""
    from bastion.analyzer.commands._versions import VERSION_QUERIES

    assert "pytest" not in VERSION_QUERIES and "pip" not in VERSION_QUERIES
